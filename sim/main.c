/* main: the command line. Parses each subcommand's options, loads the inputs, runs,
 * and maps error codes to exit statuses (0 ok, 2 bad input or usage, 1 anything
 * else). main owns every object it creates and frees them on every path. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../policies/policy.h"
#include "catalog.h"
#include "cluster.h"
#include "gen.h"
#include "report.h"
#include "sim.h"
#include "trace.h"
#include "util.h"

/* Defaults of the command line (the model's tunables live in cluster.c's table). */
#define MAIN_DEFAULT_POLICY "fifo"
#define MAIN_DEFAULT_SEED 1
#define MAIN_DEFAULT_OUT "results/run"
#define MAIN_DEFAULT_JOBS 100
#define MAIN_MAX_SETS 256

static const char *const usage_main =
    "usage: cpnsim COMMAND [OPTIONS]\n"
    "\n"
    "A discrete-event simulator of a wide-area GPU job scheduler.\n"
    "\n"
    "commands:\n"
    "  run        run one simulation (with no files: the embedded default scenario)\n"
    "  gen        generate a job queue (CSV)\n"
    "  policies   list the scheduling policies\n"
    "  help       show this help, or `cpnsim help COMMAND`\n"
    "\n"
    "`cpnsim COMMAND --help` describes each command.\n"
    "Exit status: 0 when the simulation ran to its end (deadlocks and failed jobs are\n"
    "results), 2 for bad input or usage, 1 for any other failure.\n";

static const char *const usage_run =
    "usage: cpnsim run [--cluster FILE] [--jobs FILE] [--policy NAME] [--cpu-threshold X]\n"
    "                  [--seed N] [--predictor SPEC] [--set KEY=VALUE]... [--out DIR] [--quiet]\n"
    "\n"
    "Runs one simulation and writes summary.json, jobs.csv and timeline.csv into DIR\n"
    "(default " MAIN_DEFAULT_OUT "). With no --cluster, the embedded 3-site default cluster\n"
    "(traces/default-cluster.json); with no --jobs, a generated queue of 100 jobs submitted\n"
    "at time 0, drawn with the run's seed (seed 1 gives traces/q100.csv).\n"
    "\n"
    "  --cluster FILE      cluster JSON\n"
    "  --jobs FILE         job queue CSV\n"
    "  --policy NAME       scheduling policy (default " MAIN_DEFAULT_POLICY "; see `cpnsim policies`)\n"
    "  --cpu-threshold X   same as --set cpu_threshold=X\n"
    "  --seed N            random seed (default 1)\n"
    "  --predictor SPEC    what policies are told of run times and memory; this version\n"
    "                      has only 'oracle' (the catalogue's values)\n"
    "  --set KEY=VALUE     override a cluster/config key; repeatable. Keys:\n";

static const char *const usage_gen =
    "usage: cpnsim gen --count N [--seed N] [--arrival batch|poisson:RATE] [--cluster FILE]\n"
    "                  [-o FILE]\n"
    "\n"
    "Generates a job queue as CSV: models and batch sizes from the measured catalogue,\n"
    "epochs, dataset sizes, GPU counts and origin sites drawn from a seeded RNG. batch\n"
    "(default) submits every job at time 0; poisson:RATE draws exponential gaps with\n"
    "RATE jobs per second. Origins are drawn from the cluster's sites (default: the\n"
    "embedded default cluster). Writes to FILE (atomically) or standard output.\n";

static int usage_error(const char *cmd, const char *msg)
{
    fprintf(stderr, "cpnsim %s: %s\n(see `cpnsim %s --help`)\n", cmd, msg, cmd);
    return 2;
}

static int fail(int rc, const char *err)
{
    fprintf(stderr, "cpnsim: %s\n", err);
    return cpn_exit_status(rc);
}

static int cmd_policies(void)
{
    for (size_t i = 0; i < policy_registry_len; i++)
        printf("%-10s %s\n", policy_registry[i]->name, policy_registry[i]->summary);
    return 0;
}

/* Site names of a cluster as origins for the generator (borrowed strings). */
static const char **site_names(const struct cluster *cl)
{
    const char **v = cpn_calloc(cl->n_sites, sizeof *v);
    for (size_t i = 0; i < cl->n_sites; i++)
        v[i] = cl->sites[i].name;
    return v;
}

static int parse_arrival(const char *s, struct gen_spec *spec)
{
    if (strcmp(s, "batch") == 0) {
        spec->arrival = GEN_BATCH;
        return 0;
    }
    if (strncmp(s, "poisson:", 8) == 0 && cpn_parse_double(s + 8, &spec->rate_per_s) == 0 &&
        spec->rate_per_s > 0) {
        spec->arrival = GEN_POISSON;
        return 0;
    }
    return -1;
}

static int cmd_gen(int argc, char **argv)
{
    static const struct option opts[] = {
        {"count", required_argument, 0, 'n'}, {"seed", required_argument, 0, 's'},
        {"arrival", required_argument, 0, 'a'}, {"cluster", required_argument, 0, 'c'},
        {"output", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    struct gen_spec spec = {.seed = MAIN_DEFAULT_SEED, .arrival = GEN_BATCH};
    const char *cluster_path = NULL, *out_path = NULL;
    uint64_t v;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (cpn_parse_u64(optarg, &v) != 0 || v == 0)
                return usage_error("gen", "--count: must be a whole number >= 1");
            spec.count = (size_t)v;
            break;
        case 's':
            if (cpn_parse_u64(optarg, &spec.seed) != 0)
                return usage_error("gen", "--seed: must be a whole number >= 0");
            break;
        case 'a':
            if (parse_arrival(optarg, &spec) != 0)
                return usage_error("gen", "--arrival: must be 'batch' or 'poisson:RATE' with RATE > 0");
            break;
        case 'c': cluster_path = optarg; break;
        case 'o': out_path = optarg; break;
        case 'h': fputs(usage_gen, stdout); return 0;
        default: return usage_error("gen", "unknown option");
        }
    }
    if (optind < argc)
        return usage_error("gen", "unexpected argument");
    if (spec.count == 0)
        return usage_error("gen", "--count is required");

    char err[CPN_ERR_LEN];
    struct catalog *cat = NULL;
    struct cluster *cl = NULL;
    struct jobset js;
    jobset_init(&js);
    const char **origins = NULL;
    int rc = catalog_create(&cat, err, sizeof err);
    if (!rc)
        rc = cluster_load(cluster_path, NULL, 0, cat, &cl, err, sizeof err);
    if (!rc) {
        origins = site_names(cl);
        spec.origins = origins;
        spec.n_origins = cl->n_sites;
        rc = gen_jobs(&spec, cat, &js, err, sizeof err);
    }
    if (!rc) {
        if (out_path) {
            char *dir = cpn_strdup(out_path), *slash = strrchr(dir, '/');
            const char *name = out_path;
            if (slash) {
                *slash = '\0';
                name = slash + 1;
            }
            struct afile af = {0};
            rc = afile_open(&af, slash ? (dir[0] ? dir : "/") : ".", name, err, sizeof err);
            if (!rc) {
                if (trace_write_csv(af.f, &js, cat) != 0) {
                    afile_abort(&af);
                    rc = cpn_fail(err, sizeof err, CPN_EIO, "%s: write failed", out_path);
                } else {
                    rc = afile_commit(&af, err, sizeof err);
                }
            }
            free(dir);
        } else if (trace_write_csv(stdout, &js, cat) != 0 || fflush(stdout) != 0) {
            rc = cpn_fail(err, sizeof err, CPN_EIO, "standard output: write failed");
        }
    }
    free(origins);
    jobset_free(&js);
    cluster_destroy(cl);
    catalog_destroy(cat);
    return rc ? fail(rc, err) : 0;
}

struct run_args {
    const char *cluster, *jobs, *policy, *predictor, *out;
    uint64_t seed;
    const char *sets[MAIN_MAX_SETS];
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
                return usage_error("run", "--cpu-threshold: must be a number");
            snprintf(a->threshold_set, sizeof a->threshold_set, "cpu_threshold=%s", optarg);
            if (a->n_sets == MAIN_MAX_SETS)
                return usage_error("run", "too many --set options");
            a->sets[a->n_sets++] = a->threshold_set;
            break;
        case 's':
            if (cpn_parse_u64(optarg, &a->seed) != 0)
                return usage_error("run", "--seed: must be a whole number >= 0");
            break;
        case 'r': a->predictor = optarg; break;
        case 'S':
            if (a->n_sets == MAIN_MAX_SETS)
                return usage_error("run", "too many --set options");
            a->sets[a->n_sets++] = optarg;
            break;
        case 'o': a->out = optarg; break;
        case 'q': a->quiet = true; break;
        case 'h':
            fputs(usage_run, stdout);
            cluster_config_help(stdout);
            return 1;
        default: return usage_error("run", "unknown option");
        }
    }
    if (optind < argc)
        return usage_error("run", "unexpected argument");
    return 0;
}

static int cmd_run(int argc, char **argv)
{
    struct run_args a = {.policy = MAIN_DEFAULT_POLICY, .predictor = "oracle",
                         .out = MAIN_DEFAULT_OUT, .seed = MAIN_DEFAULT_SEED};
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
        return usage_error("run", "--predictor: this version has only 'oracle'");

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
        const char **origins = site_names(cl);
        struct gen_spec spec = {.count = MAIN_DEFAULT_JOBS, .seed = a.seed, .arrival = GEN_BATCH,
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
        rc = sim_create(&s, cl, cat, &js, pol, a.seed, tl.f, err, sizeof err);
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
    return rc ? fail(rc, err) : 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fputs(usage_main, stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0) {
        fputs(usage_main, stdout);
        return 0;
    }
    if (strcmp(cmd, "help") == 0) {
        if (argc > 2) {
            char *sub[] = {argv[2], (char *)"--help", NULL};
            if (strcmp(argv[2], "run") == 0)
                return cmd_run(2, sub);
            if (strcmp(argv[2], "gen") == 0)
                return cmd_gen(2, sub);
        }
        fputs(usage_main, stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("cpnsim %s\n", CPN_VERSION);
        return 0;
    }
    if (strcmp(cmd, "run") == 0)
        return cmd_run(argc - 1, argv + 1);
    if (strcmp(cmd, "gen") == 0)
        return cmd_gen(argc - 1, argv + 1);
    if (strcmp(cmd, "policies") == 0) {
        if (argc > 2 && strcmp(argv[2], "--help") == 0) {
            puts("usage: cpnsim policies\n\nLists the scheduling policies, one line each.");
            return 0;
        }
        return cmd_policies();
    }
    fprintf(stderr, "cpnsim: unknown command '%s'\n\n%s", cmd, usage_main);
    return 2;
}
