/* cmd_sweep: `cpnsim sweep`, a parameter grid of runs: run it here (resumable), run
 * one point of it (for a cluster engine's tasks), emit the scripts for Slurm or GNU
 * Parallel, or aggregate gathered run directories. The work is sweep.c's and
 * stats.c's. */
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "../tools/sweep.h"
#include "../base/util.h"

/* Where results go when --out is not given: results/ and the spec's base name. */
#define SWEEP_DEFAULT_ROOT "results"
/* Largest -j. */
#define SWEEP_MAX_JOBS 4096u

static const char *const usage_sweep =
    "usage: cpnsim sweep SPEC.json [-j N] [--out DIR] [--only INDEX] [--emit slurm|parallel]\n"
    "                    [--aggregate] [--list] [--baseline KEY=VALUE[,...]]...\n"
    "                    [--time-limit S]\n"
    "\n"
    "Runs every point of a parameter grid, N at once, into DIR/runs/NAME (NAME from the\n"
    "point's values, e.g. policy=fifo,seed=3), then aggregates them into DIR/runs.csv,\n"
    "summary.csv (mean, sd and 95% t-interval over seeds), groups.csv (what the seed\n"
    "varies, and how many distinct results it gave), baseline.csv (the per-seed ratios,\n"
    "or differences, against each baseline, summarised), paired.csv (those per-seed\n"
    "values) and timing.csv. A run done before with the same inputs (the point's values,\n"
    "the input files' bytes, the cpnsim version: DIR/runs/NAME/inputs.json) is skipped, so\n"
    "a sweep stopped by Ctrl-C or a crash resumes where it was; one whose inputs changed\n"
    "is run again, and named. One sweep at a time works in DIR (DIR/sweep.lock).\n"
    "\n"
    "The spec: {\"base\": {KEY: VALUE, ...}, \"grid\": {KEY: [VALUE, ...], ...},\n"
    "           \"baseline\": {KEY: VALUE} or [{KEY: VALUE}, ...], \"time_limit_s\": S}\n"
    "KEY is a `run` option without dashes (jobs, cluster, policy, predictor, seed, count,\n"
    "arrival, mix, cpu_threshold) or a --set key; relative paths are relative to the spec\n"
    "file; null for jobs, cluster or mix means the default. Points are ordered as nested\n"
    "loops over the grid keys in the spec's order, the last innermost; INDEX counts from 0.\n"
    "\n"
    "  -j, --jobs N        runs at once (default: the number of online CPUs)\n"
    "  --out DIR           sweep directory (default " SWEEP_DEFAULT_ROOT "/SPEC-NAME)\n"
    "  --only INDEX        run only point INDEX, without aggregating (a cluster task)\n"
    "  --emit slurm        write DIR/sweep.sbatch: a Slurm array, one task per run not done\n"
    "  --emit parallel     write DIR/parallel.txt: one command per run not done, for GNU\n"
    "                      Parallel (parallel --sshloginfile FILE < DIR/parallel.txt)\n"
    "  --aggregate         run nothing; aggregate the run directories found in DIR/runs\n"
    "  --list              print each point's INDEX and NAME\n"
    "  --baseline KEY=VALUE[,KEY=VALUE...]\n"
    "                      one more baseline, after the spec's (repeatable); VALUE as the\n"
    "                      spec writes it or as its label in run names\n"
    "  --time-limit S      stop a run still going after S wall seconds and report it\n"
    "                      failed (default: the spec's time_limit_s, else none)\n"
    "\n"
    "Exit status: 0; 2 for a bad spec, a run that failed on bad input, or DIR in use by\n"
    "another sweep; 1 for other failures, or when --aggregate finds runs missing. On\n"
    "SIGINT or SIGTERM the running runs are stopped, nothing is aggregated and the\n"
    "signal is raised again.\n"
    "See docs/sweeps.md.\n";

struct sweep_args {
    const char *spec, *out, *emit;
    unsigned jobs;
    size_t only;
    bool aggregate, list;
    const char **baselines; /* --baseline values, borrowed from argv */
    size_t n_baselines;
    double time_limit_s;    /* 0: the spec's */
};

static int parse_sweep(int argc, char **argv, struct sweep_args *a)
{
    static const struct option opts[] = {
        {"jobs", required_argument, 0, 'j'},  {"out", required_argument, 0, 'o'},
        {"only", required_argument, 0, 'O'},  {"emit", required_argument, 0, 'e'},
        {"aggregate", no_argument, 0, 'a'},   {"list", no_argument, 0, 'l'},
        {"help", no_argument, 0, 'h'},        {"baseline", required_argument, 0, 'b'},
        {"time-limit", required_argument, 0, 'T'}, {0, 0, 0, 0}};
    int c;
    uint64_t v;
    optind = 1;
    while ((c = getopt_long(argc, argv, "j:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'j':
            if (cpn_parse_u64(optarg, &v) != 0 || v < 1 || v > SWEEP_MAX_JOBS)
                return cmd_usage_error("sweep", "-j: must be a whole number from 1 to 4096");
            a->jobs = (unsigned)v;
            break;
        case 'o':
            if (cmd_check_path("sweep", "--out", optarg))
                return 2;
            a->out = optarg;
            break;
        case 'O':
            if (cpn_parse_u64(optarg, &v) != 0 || v >= SIZE_MAX)
                return cmd_usage_error("sweep", "--only: must be a whole number >= 0");
            a->only = (size_t)v;
            break;
        case 'e':
            if (strcmp(optarg, "slurm") != 0 && strcmp(optarg, "parallel") != 0)
                return cmd_usage_error("sweep", "--emit: must be slurm or parallel");
            a->emit = optarg;
            break;
        case 'a': a->aggregate = true; break;
        case 'l': a->list = true; break;
        case 'b': a->baselines[a->n_baselines++] = optarg; break;
        case 'T':
            if (cpn_parse_double(optarg, &a->time_limit_s) != 0 || !(a->time_limit_s > 0) ||
                !isfinite(a->time_limit_s))
                return cmd_usage_error("sweep", "--time-limit: must be a number of seconds > 0");
            break;
        case 'h': fputs(usage_sweep, stdout); return 1;
        default: return cmd_usage_error("sweep", "unknown option");
        }
    }
    if (optind != argc - 1)
        return cmd_usage_error("sweep", optind >= argc ? "the spec file is missing"
                                                       : "one spec file, please");
    a->spec = argv[optind];
    if ((a->aggregate ? 1 : 0) + (a->emit ? 1 : 0) + (a->list ? 1 : 0) +
            (a->only != SIZE_MAX ? 1 : 0) > 1)
        return cmd_usage_error("sweep", "--only, --emit, --aggregate and --list exclude each other");
    if (a->n_baselines && (a->only != SIZE_MAX || a->emit || a->list))
        return cmd_usage_error("sweep", "--baseline is for aggregating: not with --only, --emit "
                                        "or --list");
    return 0;
}

/* results/NAME for spec path .../NAME.json. Returns a string the caller frees. */
static char *default_out(const char *spec)
{
    const char *b = strrchr(spec, '/');
    b = b ? b + 1 : spec;
    size_t n = strlen(b);
    const char *dot = strrchr(b, '.');
    if (dot && dot > b)
        n = (size_t)(dot - b);
    size_t len = sizeof SWEEP_DEFAULT_ROOT + n + 1;
    char *s = cpn_malloc(len);
    snprintf(s, len, "%s/%.*s", SWEEP_DEFAULT_ROOT, (int)n, b);
    return s;
}

static unsigned default_jobs(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1u : n > (long)SWEEP_MAX_JOBS ? SWEEP_MAX_JOBS : (unsigned)n;
}

/* This executable's absolute path, for the emitted scripts; "cpnsim" (found on PATH)
 * when the system does not say. */
static void self_path(char *buf, size_t n)
{
    ssize_t len = readlink("/proc/self/exe", buf, n - 1);
    if (len <= 0 || (size_t)len >= n - 1)
        snprintf(buf, n, "cpnsim");
    else
        buf[len] = '\0';
}

static int emit(const struct sweep_spec *sp, struct sweep_inputs *in,
                const struct sweep_args *a, const char *out)
{
    char bin[4096], err[CPN_ERR_LEN];
    self_path(bin, sizeof bin);
    int kind = strcmp(a->emit, "slurm") == 0 ? SWEEP_EMIT_SLURM : SWEEP_EMIT_PARALLEL;
    size_t n = 0;
    char *path = NULL;
    int rc = sweep_emit(sp, in, kind, bin, out, &n, &path, err, sizeof err);
    if (rc)
        return cmd_fail(rc, err);
    if (n == 0) {
        printf("every run of %s is done: nothing to emit\n", a->spec);
        return 0;
    }
    if (kind == SWEEP_EMIT_SLURM)
        printf("%s: a Slurm array of %zu task%s\nsubmit with: sbatch %s\n"
               "then aggregate: cpnsim sweep %s --out %s --aggregate\n",
               path, n, n == 1 ? "" : "s", path, a->spec, out);
    else
        printf("%s: %zu command%s for GNU Parallel\nrun with: parallel --jobs %u --joblog %s.log < %s\n"
               "(across hosts: add --sshloginfile HOSTS; every host must see the same paths)\n"
               "then aggregate: cpnsim sweep %s --out %s --aggregate\n",
               path, n, n == 1 ? "" : "s", default_jobs(), path, path, a->spec, out);
    free(path);
    return 0;
}

/* Aggregates, and names the runs not done; with strict, runs not done make the
 * status 1. */
static int aggregate(const struct sweep_spec *sp, struct sweep_inputs *in, const char *out,
                     bool strict)
{
    char err[CPN_ERR_LEN];
    size_t missing = 0;
    int rc = sweep_aggregate(sp, in, out, stderr, &missing, err, sizeof err);
    if (rc)
        return cmd_fail(rc, err);
    printf("sweep: %zu of %zu runs aggregated into %s/ (runs.csv, summary.csv, groups.csv%s, "
           "timing.csv)\n",
           sp->n_points - missing, sp->n_points, out,
           sp->n_baselines ? ", baseline.csv, paired.csv" : "");
    if (missing) {
        fprintf(stderr,
                "cpnsim sweep: %zu run%s not done (no summary.json in %s/runs/ of the spec's "
                "inputs):\n",
                missing, missing == 1 ? " is" : "s are", out);
        sweep_list_missing(sp, in, out, stderr);
        return strict ? 1 : 0;
    }
    return 0;
}

/* Runs the points not done (all, or --only's), then aggregates unless --only. Dies of
 * SIGINT or SIGTERM when one stopped it. */
static int sweep_run_all(const struct sweep_spec *sp, struct sweep_inputs *in,
                         const struct sweep_args *a, const char *out)
{
    char err[CPN_ERR_LEN];
    struct sweep_opts o = {.out = out, .jobs = a->jobs ? a->jobs : default_jobs(),
                           .only = a->only, .inputs = in, .progress = stderr,
                           .tty = isatty(STDERR_FILENO) == 1,
                           .time_limit_s = sp->time_limit_s};
    if (a->only == SIZE_MAX) {
        char **varies = sweep_seed_varies(sp);
        sweep_note_seed(sp, varies, stderr);
        sweep_seed_varies_free(sp, varies);
    }
    struct sweep_tally t;
    double t0 = cpn_wall_s();
    int rc = sweep_execute(sp, &o, &t, err, sizeof err);
    if (rc)
        return cmd_fail(rc, err);
    if (t.signal) {
        fprintf(stderr, "sweep: stopped: %zu of %zu runs done; run the same command to resume\n",
                t.done_before + t.ran, t.total);
        /* Die of the signal, so that a calling shell or make stops too. */
        signal(t.signal, SIG_DFL);
        raise(t.signal);
        return 128 + t.signal;
    }
    fprintf(stderr, "sweep: %zu run%s in %.1f s, %zu done before, %zu failed\n", t.ran,
            t.ran == 1 ? "" : "s", cpn_wall_s() - t0, t.done_before, t.failed);
    int status = t.worst;
    if (a->only == SIZE_MAX) {
        int arc = aggregate(sp, in, out, false);
        if (arc && !status)
            status = arc;
    }
    return status;
}

int cmd_sweep(int argc, char **argv)
{
    struct sweep_args a = {.only = SIZE_MAX};
    a.baselines = cpn_calloc((size_t)argc + 1, sizeof *a.baselines);
    int prc = parse_sweep(argc, argv, &a);
    char err[CPN_ERR_LEN];
    struct sweep_spec *sp = NULL;
    int rc = prc ? 0 : sweep_spec_load(a.spec, &sp, err, sizeof err);
    for (size_t i = 0; !prc && !rc && i < a.n_baselines; i++)
        rc = sweep_spec_add_baseline(sp, a.baselines[i], err, sizeof err);
    free(a.baselines);
    if (prc || rc) {
        sweep_spec_destroy(sp);
        return prc == 1 ? 0 : prc ? prc : cmd_fail(rc, err);
    }
    if (a.time_limit_s > 0)
        sp->time_limit_s = a.time_limit_s;
    char *out = a.out ? cpn_strdup(a.out) : default_out(a.spec);
    int status = 0;
    struct sweep_inputs *in = sweep_inputs_create(sp);
    /* Held from before the first look at the run directories to the last table. */
    struct sweep_lock lk = {-1, -1, false};
    if (a.only != SIZE_MAX && a.only >= sp->n_points) {
        char msg[128];
        snprintf(msg, sizeof msg, "--only: the grid has points 0 to %zu", sp->n_points - 1);
        status = cmd_usage_error("sweep", msg);
    } else if (a.list) {
        for (size_t i = 0; i < sp->n_points; i++) {
            char *name = sweep_point_name(sp, i);
            printf("%zu\t%s\n", i, name);
            free(name);
        }
    } else if (!a.aggregate && (rc = sweep_check(sp, a.only, err, sizeof err)) != 0) {
        status = cmd_fail(rc, err);
    } else if ((rc = sweep_lock_take(sp, out, a.only, &lk, err, sizeof err)) != 0) {
        status = cmd_fail(rc, err);
    } else if (a.aggregate) {
        status = aggregate(sp, in, out, true);
    } else if (a.emit) {
        status = emit(sp, in, &a, out);
    } else {
        status = sweep_run_all(sp, in, &a, out);
    }
    sweep_lock_release(&lk);
    sweep_inputs_destroy(in);
    sweep_spec_destroy(sp);
    free(out);
    return status;
}
