/* cmd_run: `cpnsim run`, one simulation from inputs to a run directory. */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../engine/policy.h"
#include "../engine/cluster.h"
#include "cmd.h"
#include "../io/import.h"
#include "../tools/run.h"
#include "../base/util.h"

#define RUN_DEFAULT_OUT "results/run"
#define RUN_MAX_SETS 256

static const char *const usage_run =
    "usage: cpnsim run [--cluster FILE] [--jobs FILE] [--policy NAME] [--cpu-threshold X]\n"
    "                  [--seed N] [--predictor SPEC] [--set KEY=VALUE]... [--out DIR] [--quiet]\n"
    "                  [--origin SITE] [--count N] [--arrival A] [--mix FILE]\n"
    "\n"
    "Runs one simulation and writes summary.json, jobs.csv and timeline.csv into DIR\n"
    "(default " RUN_DEFAULT_OUT "). With no --cluster, the embedded 3-site default cluster\n"
    "(traces/default-cluster.json); with no --jobs, a generated queue of 100 jobs submitted\n"
    "at time 0, drawn with the run's seed (seed 1 gives traces/q100.csv); --count,\n"
    "--arrival and --mix change that queue as `cpnsim gen`'s options do.\n"
    "\n"
    "  --cluster FILE      cluster JSON\n"
    "  --jobs FILE         job queue: CSV, JSON (.json) or Kubernetes Job YAML (.yaml,\n"
    "                      .yml); see docs/jobs.md. FORMAT:TRACE (FORMAT philly, openb\n"
    "                      or gavel) converts a public trace in memory, as `cpnsim import\n"
    "                      FORMAT TRACE` would write it (docs/import.md); the import's\n"
    "                      report goes to stderr unless --quiet\n"
    "  --origin SITE       origin of jobs whose file names none (Kubernetes Jobs without\n"
    "                      an origin annotation; default: the cluster's controller_site)\n"
    "  --policy NAME       scheduling policy (default " RUN_DEFAULT_POLICY "; see `cpnsim policies`)\n"
    "  --cpu-threshold X   same as --set cpu_threshold=X (a number, or never)\n"
    "  --seed N            random seed (default 1)\n"
    "  --count N           generated jobs (default: the mix's count, else 100)\n"
    "  --arrival A         batch, poisson:RATE or diurnal:RATE, as gen --arrival\n"
    "  --mix FILE          a job mix (JSON, docs/jobs.md), as gen --spec\n"
    "  --predictor SPEC    what policies are told of run times and memory (default\n"
    "                      " RUN_DEFAULT_PREDICTOR "): rf (random forest), linear, nn (nearest measured\n"
    "                      neighbour), each trained on the catalogue and with a memory\n"
    "                      safety margin, METHOD:margin=X to change it; oracle (the\n"
    "                      catalogue's values); noisy:SIGMA (oracle x lognormal noise).\n"
    "                      `cpnsim predict --eval` measures their errors\n"
    "  --quiet             print nothing on success, and no progress line (a run that\n"
    "                      lasts over 2 s otherwise shows one on stderr, when a terminal)\n"
    "  --set KEY=VALUE     override a cluster/config key; repeatable. Keys:\n";

struct run_args {
    const char *cluster, *jobs, *jobs_format, *policy, *predictor, *out, *origin;
    uint64_t seed;
    size_t count;              /* the generated queue's options (0, NULL: the default), */
    const char *arrival, *mix; /* checked by run_simulation */
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
        {"origin", required_argument, 0, 'O'},  {"count", required_argument, 0, 'n'},
        {"arrival", required_argument, 0, 'a'}, {"mix", required_argument, 0, 'm'},
        {0, 0, 0, 0}};
    uint64_t count;
    int c;
    double x;
    optind = 1;
    while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
        switch (c) {
        case 'c': a->cluster = optarg; break;
        case 'j': a->jobs = optarg; break;
        case 'p': a->policy = optarg; break;
        case 't':
            if (strcmp(optarg, "never") != 0 && cpn_parse_double(optarg, &x) != 0)
                return cmd_usage_error("run", "--cpu-threshold: must be a number or never");
            /* A value too long for the buffer is refused: cutting it would run another
             * threshold (0.5 followed by 60 zeros had run as 0.05). */
            if ((size_t)snprintf(a->threshold_set, sizeof a->threshold_set, "cpu_threshold=%s",
                                 optarg) >= sizeof a->threshold_set)
                return cmd_usage_error("run", "--cpu-threshold: value longer than 48 characters");
            if (a->n_sets == RUN_MAX_SETS)
                return cmd_usage_error("run", "too many --set options");
            a->sets[a->n_sets++] = a->threshold_set;
            break;
        case 's':
            if (cpn_parse_u64(optarg, &a->seed) != 0)
                return cmd_usage_error("run", "--seed: must be a whole number from 0 to "
                                             "18446744073709551615 (2^64 - 1)");
            break;
        case 'r': a->predictor = optarg; break;
        case 'n':
            if (cpn_parse_u64(optarg, &count) != 0 || count < 1 || count > SIZE_MAX)
                return cmd_usage_error("run", "--count: must be a whole number >= 1");
            a->count = (size_t)count;
            break;
        case 'a': a->arrival = optarg; break;
        case 'm': a->mix = optarg; break;
        case 'S':
            if (a->n_sets == RUN_MAX_SETS)
                return cmd_usage_error("run", "too many --set options");
            a->sets[a->n_sets++] = optarg;
            break;
        case 'o': a->out = optarg; break;
        case 'O': a->origin = optarg; break;
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
    a->jobs_format = import_job_source(a->jobs, &a->jobs);
    /* An empty path and an output over an input are refused before anything is read:
     * `--jobs D/jobs.csv --out D` would replace the queue with the results. */
    static const char *const outputs[] = {"jobs.csv", "timeline.csv", "summary.json", NULL};
    const struct {
        const char *opt, *path;
    } in[] = {{"--jobs", a->jobs}, {"--cluster", a->cluster}, {"--mix", a->mix}};
    int rc = cmd_check_path("run", "--out", a->out);
    for (size_t i = 0; !rc && i < sizeof in / sizeof in[0]; i++) {
        rc = cmd_check_path("run", in[i].opt, in[i].path);
        if (!rc)
            rc = cmd_check_not_overwritten("run", in[i].opt, in[i].path, a->out, outputs);
    }
    return rc;
}

/* The signal (SIGINT or SIGTERM) that asked the run to stop, or 0. A signal handler
 * may only store into a volatile sig_atomic_t, so this one flag lives at file scope;
 * the simulation reads it through run_request.stop once per event. */
static volatile sig_atomic_t run_stop_signal;

static void on_stop_signal(int sig) { run_stop_signal = sig; }

/* Makes SIGINT and SIGTERM stop the run cleanly: the loop stops at its next event,
 * temporaries are removed and no summary.json is written. The handler lasts for one
 * signal (SA_RESETHAND), so a second one kills at once, say during a long read; it
 * does not restart system calls, so a read blocked on a pipe returns. A signal the
 * caller ignores (nohup, a background job) stays ignored. */
static void catch_stop_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old, act = {0};
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue;
        act.sa_handler = on_stop_signal;
        act.sa_flags = (int)(unsigned)SA_RESETHAND; /* 0x80000000 in glibc */
        sigemptyset(&act.sa_mask);
        sigaction(sigs[i], &act, NULL);
    }
}

int cmd_run(int argc, char **argv)
{
    struct run_args a = {.policy = RUN_DEFAULT_POLICY, .predictor = RUN_DEFAULT_PREDICTOR,
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
    struct run_request req = {.cluster = a.cluster, .jobs = a.jobs,
                              .jobs_format = a.jobs_format,
                              .import_report = a.quiet ? NULL : stderr, .policy = a.policy,
                              .predictor = a.predictor, .seed = a.seed, .sets = a.sets,
                              .n_sets = a.n_sets, .out = a.out, .stop = &run_stop_signal,
                              .origin = a.origin, .count = a.count, .arrival = a.arrival,
                              .mix = a.mix};
    /* Progress only where someone watches: a terminal, and not with --quiet. */
    if (!a.quiet && isatty(STDERR_FILENO)) {
        req.progress = stderr;
        req.progress_after_s = RUN_PROGRESS_AFTER_S;
    }
    struct run_result res;
    char err[CPN_ERR_LEN];
    catch_stop_signals();
    int rc = run_simulation(&req, &res, err, sizeof err);
    int sig = run_stop_signal;
    if (rc && sig) {
        /* Whatever failed (a read interrupted by the signal, or the stop itself), the
         * run was asked to stop: die of the signal, so that a calling shell or make
         * stops too (exit status 128 + signal). */
        fprintf(stderr, "cpnsim: %s: run stopped, no results written to %s/\n",
                sig == SIGINT ? "interrupted" : "terminated", a.out);
        signal(sig, SIG_DFL);
        raise(sig);
        return 128 + sig;
    }
    if (rc)
        return cmd_fail(rc, err);
    if (!a.quiet) {
        printf("policy %s, %zu jobs: %zu done, %zu failed, %zu stuck%s; %llu OOM kills", a.policy,
               res.jobs, res.completed, res.failed, res.stuck, res.deadlock ? " (deadlock)" : "",
               (unsigned long long)res.oom_events);
        if (res.makespan_s >= 0)
            printf("; makespan %.1f s", res.makespan_s);
        printf("\n%llu events in %.3f s; results in %s/\n", (unsigned long long)res.events,
               res.wall_s, a.out);
    }
    return 0;
}
