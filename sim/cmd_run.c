/* cmd_run: `cpnsim run`, one simulation from inputs to a run directory. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../policies/policy.h"
#include "catalog.h"
#include "cluster.h"
#include "cmd.h"
#include "gen.h"
#include "report.h"
#include "sim.h"
#include "trace.h"
#include "util.h"

/* Defaults of the command line (the model's tunables live in cluster.c's table). */
#define RUN_DEFAULT_POLICY "fifo"
#define RUN_DEFAULT_SEED 1
#define RUN_DEFAULT_OUT "results/run"
#define RUN_DEFAULT_JOBS 100
#define RUN_MAX_SETS 256

static const char *const usage_run =
    "usage: cpnsim run [--cluster FILE] [--jobs FILE] [--policy NAME] [--cpu-threshold X]\n"
    "                  [--seed N] [--predictor SPEC] [--set KEY=VALUE]... [--out DIR] [--quiet]\n"
    "\n"
    "Runs one simulation and writes summary.json, jobs.csv and timeline.csv into DIR\n"
    "(default " RUN_DEFAULT_OUT "). With no --cluster, the embedded 3-site default cluster\n"
    "(traces/default-cluster.json); with no --jobs, a generated queue of 100 jobs submitted\n"
    "at time 0, drawn with the run's seed (seed 1 gives traces/q100.csv).\n"
    "\n"
    "  --cluster FILE      cluster JSON\n"
    "  --jobs FILE         job queue CSV\n"
    "  --policy NAME       scheduling policy (default " RUN_DEFAULT_POLICY "; see `cpnsim policies`)\n"
    "  --cpu-threshold X   same as --set cpu_threshold=X\n"
    "  --seed N            random seed (default 1)\n"
    "  --predictor SPEC    what policies are told of run times and memory; this version\n"
    "                      has only 'oracle' (the catalogue's values)\n"
    "  --set KEY=VALUE     override a cluster/config key; repeatable. Keys:\n";

struct run_args {
    const char *cluster, *jobs, *policy, *predictor, *out;
    uint64_t seed;
    const char *sets[RUN_MAX_SETS];
    size_t n_sets;
    char threshold_set[64];
    bool quiet;
};

static int parse_run(int argc, char **argv, struct run_args *a)
{
    static const struct option opts[] = {
        {"cluster", required_argument, 0, 'c'}, {"jobs", required_argument, 0, 'j'},
        {"policy", required_argument, 0, 'p'},  {"cpu-threshold", required_argument, 0, 't'},
        {"seed", required_argument, 0, 's'},    {"predictor", required_argument, 0, 'r'},
        {"set", required_argument, 0, 'S'},     {"out", required_argument, 0, 'o'},
        {"quiet", no_argument, 0, 'q'},         {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    int c;
    double x;
    optind = 1;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'c': a->cluster = optarg; break;
        case 'j': a->jobs = optarg; break;
        case 'p': a->policy = optarg; break;
        case 't':
            if (cpn_parse_double(optarg, &x) != 0)
                return cmd_usage_error("run", "--cpu-threshold: must be a number");
            snprintf(a->threshold_set, sizeof a->threshold_set, "cpu_threshold=%s", optarg);
            if (a->n_sets == RUN_MAX_SETS)
                return cmd_usage_error("run", "too many --set options");
            a->sets[a->n_sets++] = a->threshold_set;
            break;
        case 's':
            if (cpn_parse_u64(optarg, &a->seed) != 0)
                return cmd_usage_error("run", "--seed: must be a whole number >= 0");
            break;
        case 'r': a->predictor = optarg; break;
        case 'S':
            if (a->n_sets == RUN_MAX_SETS)
                return cmd_usage_error("run", "too many --set options");
            a->sets[a->n_sets++] = optarg;
            break;
        case 'o': a->out = optarg; break;
        case 'q': a->quiet = true; break;
        case 'h':
            fputs(usage_run, stdout);
            cluster_config_help(stdout);
            return 1;
        default: return cmd_usage_error("run", "unknown option");
        }
    }
    if (optind < argc)
        return cmd_usage_error("run", "unexpected argument");
    return 0;
}

int cmd_run(int argc, char **argv)
{
    struct run_args a = {.policy = RUN_DEFAULT_POLICY, .predictor = "oracle",
                         .out = RUN_DEFAULT_OUT, .seed = RUN_DEFAULT_SEED};
    int prc = parse_run(argc, argv, &a);
    if (prc)
        return prc == 1 ? 0 : prc;
    const struct policy_ops *pol = policy_find(a.policy);
    if (!pol) {
        fprintf(stderr, "cpnsim run: --policy: unknown policy '%s'; known:", a.policy);
        for (size_t i = 0; i < policy_registry_len; i++)
            fprintf(stderr, " %s", policy_registry[i]->name);
        fputc('\n', stderr);
        return 2;
    }
    if (strcmp(a.predictor, "oracle") != 0)
        return cmd_usage_error("run", "--predictor: this version has only 'oracle'");

    char err[CPN_ERR_LEN];
    struct catalog *cat = NULL;
    struct cluster *cl = NULL;
    struct sim *s = NULL;
    struct jobset js;
    jobset_init(&js);
    struct afile tl = {0};
    int rc = catalog_create(&cat, err, sizeof err);
    if (!rc)
        rc = cluster_load(a.cluster, a.sets, a.n_sets, cat, &cl, err, sizeof err);
    if (!rc && a.jobs) {
        rc = trace_read_csv(a.jobs, cat, &js, err, sizeof err);
    } else if (!rc) {
        const char **origins = cmd_site_names(cl);
        struct gen_spec spec = {.count = RUN_DEFAULT_JOBS, .seed = a.seed, .arrival = GEN_BATCH,
                                .origins = origins, .n_origins = cl->n_sites};
        rc = gen_jobs(&spec, cat, &js, err, sizeof err);
        free(origins);
    }
    if (!rc)
        rc = cpn_mkdir_p(a.out, err, sizeof err);
    if (!rc) {
        /* An old summary.json would make a half-rewritten directory look complete. */
        size_t n = strlen(a.out) + sizeof "/summary.json";
        char *old = cpn_malloc(n);
        snprintf(old, n, "%s/summary.json", a.out);
        remove(old);
        free(old);
        rc = afile_open(&tl, a.out, "timeline.csv", err, sizeof err);
    }
    if (!rc)
        rc = sim_create(&s, cl, cat, &js, pol, NULL, a.seed, tl.f, err, sizeof err);
    double t0 = cpn_wall_s();
    if (!rc)
        rc = sim_run(s, err, sizeof err);
    double wall = cpn_wall_s() - t0;
    if (!rc)
        rc = afile_commit(&tl, err, sizeof err);
    else
        afile_abort(&tl);
    struct report_meta m = {.policy = pol->name, .seed = a.seed, .predictor = a.predictor,
                            .sets = a.sets, .n_sets = a.n_sets, .wall_s = wall};
    if (!rc)
        rc = report_write_run(a.out, s, &m, err, sizeof err);
    if (!rc && !a.quiet) {
        const struct sim_stats *st = &s->st;
        printf("policy %s, %zu jobs: %zu done, %zu failed, %zu stuck%s; %llu OOM kills",
               pol->name, js.n, st->completed, st->failed, st->stuck,
               st->deadlock ? " (deadlock)" : "", (unsigned long long)st->oom_events);
        if (st->completed + st->failed == js.n)
            printf("; makespan %.1f s", st->last_end_s - st->first_submit_s);
        printf("\n%llu events in %.3f s; results in %s/\n", (unsigned long long)st->events, wall,
               a.out);
    }
    sim_destroy(s);
    jobset_free(&js);
    cluster_destroy(cl);
    catalog_destroy(cat);
    return rc ? cmd_fail(rc, err) : 0;
}

