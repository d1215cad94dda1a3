/* sweep: grid expansion, order and names; checking; resume after SIGINT with no run
 * done twice; -j 1 and -j 2 giving the same files; a failed run; and the two ways
 * out to a cluster engine, each against the real thing: a single-node Slurm
 * (slurmctld, slurmd and munged started here, with a generated slurm.conf) and GNU
 * Parallel. Runs ./cpnsim (CPNSIM overrides the path) from the repository root; each
 * test works in a scratch directory of its own under /tmp. */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../sim/tools/sweep.h"
#include "../sim/base/util.h"
#include "helpers.h"
#include "sweep_helpers.h"

static char tmpd[64];

static void scratch_init(void) { scratch_mkdtemp(tmpd, "sweep"); }
static void scratch_fini(void) { sh("rm -rf '%s'", tmpd); }
static void write_file(const char *name, const char *text) { scratch_write(tmpd, name, text); }

/* ---- Expansion, order and names ------------------------------------------------- */

Test(sweep_grid, cartesian_product_in_spec_order_last_key_fastest)
{
    char err[CPN_ERR_LEN] = "";
    struct sweep_spec *sp = spec_parse_str(
        "{\"base\": {\"scrape_interval_s\": 30},\n"
        " \"grid\": {\"policy\": [\"fifo\", \"sjf\"],\n"
        "          \"jobs\": [\"../traces/q40.csv\", \"/data/q100.csv\"],\n"
        "          \"cpu_threshold\": [0.7, 0.8, 0.9],\n"
        "          \"seed\": [1, 2, 3, 4, 5]},\n"
        " \"baseline\": {\"policy\": \"fifo\"}}\n",
        err, sizeof err);
    cr_assert_not_null(sp, "%s", err);
    cr_assert_eq(sp->n_points, 2 * 2 * 3 * 5);
    cr_assert_eq(sp->n_grid, 4);
    cr_assert_eq(sp->baseline[0], 0);
    cr_assert_eq(sp->baseline[1], SIZE_MAX);
    static const struct {
        size_t i;
        const char *name;
    } want[] = {
        {0, "policy=fifo,jobs=q40,cpu_threshold=0.7,seed=1"},
        {1, "policy=fifo,jobs=q40,cpu_threshold=0.7,seed=2"},
        {5, "policy=fifo,jobs=q40,cpu_threshold=0.8,seed=1"},
        {15, "policy=fifo,jobs=q100,cpu_threshold=0.7,seed=1"},
        {30, "policy=sjf,jobs=q40,cpu_threshold=0.7,seed=1"},
        {59, "policy=sjf,jobs=q100,cpu_threshold=0.9,seed=5"},
    };
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        char *n = sweep_point_name(sp, want[k].i);
        cr_assert_str_eq(n, want[k].name, "point %zu", want[k].i);
        free(n);
    }
    /* Every name distinct and made of safe bytes only. */
    char *names[60];
    for (size_t i = 0; i < 60; i++) {
        names[i] = sweep_point_name(sp, i);
        cr_assert_eq(strspn(names[i], "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                      "0123456789._+-=,"),
                     strlen(names[i]));
        for (size_t j = 0; j < i; j++)
            cr_assert_str_neq(names[i], names[j]);
    }
    for (size_t i = 0; i < 60; i++)
        free(names[i]);

    /* Point 37 = sjf, q40, 0.8, seed 3: what the run is given. */
    struct sweep_req r;
    sweep_req_make(sp, 37, "out/x", &r);
    cr_assert_str_eq(r.req.policy, "sjf");
    cr_assert_str_eq(r.req.jobs, "specdir/../traces/q40.csv"); /* relative to the spec */
    cr_assert_null(r.req.cluster);
    cr_assert_eq(r.req.seed, 3);
    cr_assert_eq(r.req.n_sets, 2);
    cr_assert_str_eq(r.req.sets[0], "scrape_interval_s=30"); /* base first */
    cr_assert_str_eq(r.req.sets[1], "cpu_threshold=0.8");
    cr_assert_str_eq(r.req.out, "out/x");
    sweep_req_free(&r);
    sweep_req_make(sp, 15, "o", &r);
    cr_assert_str_eq(r.req.jobs, "/data/q100.csv"); /* absolute stays */
    sweep_req_free(&r);
    sweep_spec_destroy(sp);
}

Test(sweep_grid, labels_are_filesystem_safe_and_short)
{
    char err[CPN_ERR_LEN] = "";
    struct sweep_spec *sp = spec_parse_str("{\"grid\": {\"predictor\": [\"noisy:0.2\", \"rf\"],"
                                  " \"completion\": [\"event\"], \"jobs\": [null, \".hidden\"]}}",
                                  err, sizeof err);
    cr_assert_not_null(sp, "%s", err);
    char *n = sweep_point_name(sp, 0);
    cr_assert_str_eq(n, "predictor=noisy_0.2,completion=event,jobs=default");
    free(n);
    n = sweep_point_name(sp, 1);
    cr_assert_str_eq(n, "predictor=noisy_0.2,completion=event,jobs=_.hidden");
    free(n);
    struct sweep_req r;
    sweep_req_make(sp, 0, "o", &r);
    cr_assert_null(r.req.jobs); /* null: the generated default queue */
    cr_assert_str_eq(r.req.predictor, "noisy:0.2");
    sweep_req_free(&r);
    sweep_spec_destroy(sp);

    /* No grid: one point, named "base". A grid too long for a file name is cut and
     * ends in a hash, so names stay distinct. */
    sp = spec_parse_str("{\"base\": {\"seed\": 4}}", err, sizeof err);
    cr_assert_not_null(sp, "%s", err);
    cr_assert_eq(sp->n_points, 1);
    n = sweep_point_name(sp, 0);
    cr_assert_str_eq(n, "base");
    free(n);
    sweep_spec_destroy(sp);
    char longspec[1024], a[160], b[160];
    memset(a, 'a', sizeof a - 1);
    a[sizeof a - 1] = '\0';
    memcpy(b, a, sizeof b);
    b[sizeof b - 2] = 'b';
    snprintf(longspec, sizeof longspec, "{\"grid\": {\"policy\": [\"%s\", \"%s\"], \"seed\": [1]}}",
             a, b);
    sp = spec_parse_str(longspec, err, sizeof err);
    cr_assert_not_null(sp, "%s", err);
    char *n0 = sweep_point_name(sp, 0), *n1 = sweep_point_name(sp, 1);
    cr_assert_leq(strlen(n0), SWEEP_MAX_NAME);
    cr_assert_str_neq(n0, n1);
    free(n0);
    free(n1);
    sweep_spec_destroy(sp);
}

Test(sweep_grid, bad_specs_name_file_line_and_field)
{
    static const struct {
        const char *spec, *msg;
    } bad[] = {
        {"{\"grid\": {\n\"seed\": [1,\n 2.5]}}", "spec.json:3: grid.seed[1]: must be a whole number"},
        {"{\"grid\": {\"policy\": []}}", "spec.json:1: grid.policy: must be a non-empty array"},
        {"{\"grid\": {\"policy\": [\"fifo\", \"fifo\"]}}", "grid.policy[1]: 'fifo' is listed twice"},
        {"{\"grid\": {\"jobs\": [\"a/q.csv\", \"b/q.csv\"]}}",
         "grid.jobs[1]: 'b/q.csv' gives the same directory name"},
        {"{\"base\": {\"seed\": 1}, \"grid\": {\"seed\": [2]}}", "grid.seed: is also in base"},
        {"{\"grid\": {\"seed\": [1]}, \"baseline\": {\"policy\": \"fifo\"}}",
         "baseline.policy: not a grid key"},
        {"{\"grid\": {\"seed\": [1, 2]}, \"baseline\": {\"seed\": 1}}", "baseline.seed: the baseline"},
        {"{\"grid\": {\"policy\": [\"fifo\"]}, \"baseline\": {\"policy\": \"x\"}}",
         "baseline.policy: 'x' is not one of"},
        {"{\"grids\": {}}", "spec.json:1: grids: unknown field"},
        {"{\"grid\": {\"bad key\": [1]}}", "grid.bad key: not a key"},
        {"{\"base\": {\"policy\": 3}}", "base.policy: must be a string"},
        {"{\"base\": {\"cpu_threshold\": null}}", "base.cpu_threshold: null is allowed only"},
        {"[1]", "spec.json:1: spec: must be an object"},
        {"{\"grid\": ", "spec.json:1:"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[CPN_ERR_LEN] = "";
        struct sweep_spec *sp = spec_parse_str(bad[i].spec, err, sizeof err);
        cr_assert_null(sp, "accepted %s", bad[i].spec);
        cr_assert_not_null(strstr(err, bad[i].msg), "spec %s: message was '%s'", bad[i].spec, err);
    }
}

Test(sweep_grid, check_finds_bad_values_before_anything_runs)
{
    static const struct {
        const char *spec, *msg;
    } bad[] = {
        {"{\"grid\": {\"policy\": [\"fifo\",\n \"nope\"]}}", "spec.json:2: grid.policy[1]: unknown policy 'nope'"},
        {"{\"grid\": {\"cpu_threshold\": [0.7, 0]}}", "grid.cpu_threshold[1]: must be a number > 0"},
        {"{\"grid\": {\"no_such_key\": [1]}}", "grid.no_such_key[0]: unknown key"},
        {"{\"base\": {\"jobs\": \"missing.csv\"}}", "base.jobs: cannot read 'specdir/missing.csv'"},
        {"{\"base\": {\"scrape_interval_s\": -1}}", "base.scrape_interval_s: must be a number >= 0"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[CPN_ERR_LEN] = "";
        struct sweep_spec *sp = spec_parse_str(bad[i].spec, err, sizeof err);
        cr_assert_not_null(sp, "%s", err);
        cr_assert_eq(sweep_check(sp, SIZE_MAX, err, sizeof err), CPN_EINPUT, "accepted %s",
                     bad[i].spec);
        cr_assert_not_null(strstr(err, bad[i].msg), "message was '%s'", err);
        sweep_spec_destroy(sp);
    }
    /* --only checks only the values its point uses. */
    char err[CPN_ERR_LEN] = "";
    struct sweep_spec *sp = spec_parse_str("{\"grid\": {\"policy\": [\"fifo\", \"nope\"]}}", err, sizeof err);
    cr_assert_eq(sweep_check(sp, 0, err, sizeof err), 0, "%s", err);
    cr_assert_eq(sweep_check(sp, 1, err, sizeof err), CPN_EINPUT);
    sweep_spec_destroy(sp);
}

/* A jobs value FORMAT:TRACE is a trace that each run converts in memory, as `cpnsim run
 * --jobs` takes it: the trace's path alone is resolved against the spec's directory,
 * labelled and checked, and the run gets the format and that path; ./gavel:x.csv names
 * a file. */
Test(sweep_grid, format_trace_jobs_split_as_run_does)
{
    char err[CPN_ERR_LEN] = "";
    struct sweep_spec *sp = spec_parse_str(
        "{\"grid\": {\"jobs\": [\"gavel:../t/g.trace\", \"./gavel:x.csv\", \"q.csv\"]}}", err,
        sizeof err);
    cr_assert_not_null(sp, "%s", err);
    static const struct {
        const char *name, *jobs, *format;
    } want[] = {{"jobs=g", "specdir/../t/g.trace", "gavel"},
                {"jobs=gavel_x", "specdir/./gavel:x.csv", NULL},
                {"jobs=q", "specdir/q.csv", NULL}};
    for (size_t i = 0; i < 3; i++) {
        char *n = sweep_point_name(sp, i);
        cr_assert_str_eq(n, want[i].name);
        free(n);
        struct sweep_req r;
        sweep_req_make(sp, i, "o", &r);
        cr_assert_str_eq(r.req.jobs, want[i].jobs);
        if (want[i].format)
            cr_assert_str_eq(r.req.jobs_format, want[i].format);
        else
            cr_assert_null(r.req.jobs_format, "point %zu: %s", i, r.req.jobs_format);
        sweep_req_free(&r);
    }
    sweep_spec_destroy(sp);
    /* A missing trace is named by its path, as a missing job file is. */
    sp = spec_parse_str("{\"base\": {\"jobs\": \"philly:missing.csv\"}}", err, sizeof err);
    cr_assert_not_null(sp, "%s", err);
    cr_assert_eq(sweep_check(sp, SIZE_MAX, err, sizeof err), CPN_EINPUT);
    cr_assert_not_null(strstr(err, "spec.json:1: base.jobs: cannot read 'specdir/missing.csv': "),
                       "%s", err);
    sweep_spec_destroy(sp);
    /* A format without a trace is refused when parsed. */
    cr_assert_null(spec_parse_str("{\"base\": {\"jobs\": \"openb:\"}}", err, sizeof err));
    cr_assert_not_null(strstr(err, "base.jobs: 'openb:' names no trace file"), "%s", err);
}

/* ---- Running: resume, determinism, failures ------------------------------------- */

TestSuite(sweep, .init = scratch_init, .fini = scratch_fini);

/* Inode and modification time of a file, to tell a rewritten file from the same one
 * (run_simulation writes summary.json under a new name and renames it). */
static void file_id(const char *path, ino_t *ino, struct timespec *mt)
{
    struct stat sb;
    cr_assert_eq(stat(path, &sb), 0, "%s", path);
    *ino = sb.st_ino;
    *mt = sb.st_mtim;
}

/* Whether tmpd/rel exists. */
static bool exists(const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", tmpd, rel);
    return access(p, F_OK) == 0;
}

static int count_files(const char *pattern)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "ls -d %s/%s 2>/dev/null | wc -l", tmpd, pattern);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p) {
        if (fscanf(p, "%d", &n) != 1)
            n = -1;
        pclose(p);
    }
    return n;
}

/* The grid: 3 queues x 2 scrape intervals, baseline scrape 60 s. Point 2 is the first
 * that reads b.csv. */
static const char *const resume_spec =
    "{\"base\": {\"cluster\": null, \"seed\": 7},\n"
    " \"grid\": {\"jobs\": [\"a.csv\", \"b.csv\", \"c.csv\"], \"scrape_interval_s\": [0, 60]},\n"
    " \"baseline\": {\"scrape_interval_s\": 60}}\n";

/* SIGINT half-way, then the same command again: the runs that were done are not run
 * again, the one that was running is redone, and the tables equal those of sweeps
 * that were never interrupted, with -j 1 and with -j 2. To stop the sweep at a known
 * point without racing it, b.csv starts as a named pipe: the run that reads it blocks
 * (with -j 1, after exactly two runs are done) until the sweep is interrupted. */
Test(sweep, sigint_half_way_then_resume_matches_uninterrupted, .timeout = 120)
{
    cr_assert_eq(sh("cd %s && %s gen --count 40 --seed 1 -o a.csv && %s gen --count 40 --seed 3 "
                    "-o c.csv && mkfifo b.csv",
                    tmpd, cpnsim_bin(), cpnsim_bin()),
                 0);
    write_file("spec.json", resume_spec);
    char spec[128], out1[128], errf[128];
    snprintf(spec, sizeof spec, "%s/spec.json", tmpd);
    snprintf(out1, sizeof out1, "%s/s1", tmpd);
    snprintf(errf, sizeof errf, "%s/s1.err", tmpd);

    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 2);
        close(fd);
        signal(SIGINT, SIG_DFL);
        execl(cpnsim_bin(), cpnsim_bin(), "sweep", spec, "-j", "1", "--out", out1, (char *)NULL);
        _exit(127);
    }
    static const char *const done_names[] = {"jobs=a,scrape_interval_s=0",
                                             "jobs=a,scrape_interval_s=60"};
    const size_t n_done = sizeof done_names / sizeof done_names[0];
    const char *blocked = "jobs=b,scrape_interval_s=0";
    /* Wait (bounded) until two runs are done and the third has started. */
    bool ready = false;
    for (int tries = 0; tries < 2000 && !ready; tries++) {
        char rel[256];
        snprintf(rel, sizeof rel, "s1/runs/%s", blocked);
        ready = exists(rel);
        for (size_t i = 0; i < n_done; i++) {
            snprintf(rel, sizeof rel, "s1/runs/%s/summary.json", done_names[i]);
            ready = ready && exists(rel);
        }
        if (!ready) {
            struct timespec ts = {0, 10000000};
            nanosleep(&ts, NULL);
        }
    }
    if (!ready)
        kill(pid, SIGKILL);
    cr_assert(ready, "the sweep did not reach the blocked run");
    cr_assert_eq(kill(pid, SIGINT), 0);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT, "status %#x: the sweep dies of SIGINT", st);

    /* Stopped cleanly: no tables, two complete runs, no temporaries, no children. */
    cr_assert(!exists("s1/runs.csv"), "no runs.csv after an interrupt");
    cr_assert_eq(count_files("s1/runs/*/summary.json"), (int)n_done);
    cr_assert_eq(count_files("s1/runs/*/.*.tmp.*"), 0);
    /* A child is a fork of the sweep: it would show the same command line. */
    cr_assert_eq(sh("pgrep -f -- '--out %s$' >/dev/null", out1), 1, "no run left behind");
    char *e = slurp(errf);
    cr_assert_not_null(e);
    cr_assert_not_null(strstr(e, "interrupted"), "%s", e);
    free(e);

    ino_t ino[2];
    struct timespec mt[2];
    char p[512];
    for (size_t i = 0; i < n_done; i++) {
        snprintf(p, sizeof p, "%s/runs/%s/summary.json", out1, done_names[i]);
        file_id(p, &ino[i], &mt[i]);
    }

    /* Resume with the real queue in place of the pipe. */
    cr_assert_eq(sh("cd %s && rm b.csv && %s gen --count 40 --seed 2 -o b.csv", tmpd, cpnsim_bin()), 0);
    cr_assert_eq(sh("%s sweep %s -j 1 --out %s 2>%s >/dev/null", cpnsim_bin(), spec, out1, errf), 0);
    e = slurp(errf);
    cr_assert_not_null(strstr(e, "6 runs in"), "%s", e);
    cr_assert_not_null(strstr(e, "2 done before, 4 to run"), "%s", e);
    cr_assert_not_null(strstr(e, "4 runs in"), "%s", e);
    free(e);
    for (size_t i = 0; i < n_done; i++) {
        ino_t i2;
        struct timespec m2;
        snprintf(p, sizeof p, "%s/runs/%s/summary.json", out1, done_names[i]);
        file_id(p, &i2, &m2);
        cr_assert(i2 == ino[i] && m2.tv_sec == mt[i].tv_sec && m2.tv_nsec == mt[i].tv_nsec,
                  "%s was run twice", done_names[i]);
    }

    /* Uninterrupted, with -j 1 and -j 2. */
    cr_assert_eq(sh("%s sweep %s -j 1 --out %s/s2 2>/dev/null >/dev/null", cpnsim_bin(), spec, tmpd), 0);
    cr_assert_eq(sh("%s sweep %s -j 2 --out %s/s3 2>/dev/null >/dev/null", cpnsim_bin(), spec, tmpd), 0);
    static const char *const tables[] = {"runs.csv",   "summary.csv", "baseline.csv",
                                         "paired.csv", "groups.csv",  "sweep.json"};
    for (size_t i = 0; i < sizeof tables / sizeof tables[0]; i++) {
        cr_assert_eq(sh("cmp -s %s/s1/%s %s/s2/%s", tmpd, tables[i], tmpd, tables[i]), 0,
                     "%s differs between resumed and uninterrupted", tables[i]);
        cr_assert_eq(sh("cmp -s %s/s2/%s %s/s3/%s", tmpd, tables[i], tmpd, tables[i]), 0,
                     "%s differs between -j 1 and -j 2", tables[i]);
    }
    cr_assert_eq(sh("test $(wc -l < %s/s1/runs.csv) -eq 7", tmpd), 0);
    /* Running it again does nothing but aggregate. */
    cr_assert_eq(sh("%s sweep %s --out %s 2>%s >/dev/null", cpnsim_bin(), spec, out1, errf), 0);
    e = slurp(errf);
    cr_assert_not_null(strstr(e, "6 done before, 0 to run"), "%s", e);
    free(e);
}

/* A run that fails (a bad jobs file, found only when it runs) is reported with the
 * reader's message, the others are done and aggregated, and the exit status is 2. */
Test(sweep, failed_run_is_reported_and_the_rest_aggregated, .timeout = 60)
{
    cr_assert_eq(sh("%s gen --count 20 --seed 1 -o %s/good.csv && cp tests/data/bad_negative.csv "
                    "%s/bad.csv",
                    cpnsim_bin(), tmpd, tmpd),
                 0);
    write_file("spec.json", "{\"grid\": {\"jobs\": [\"good.csv\", \"bad.csv\"], \"seed\": [1, 2]}}");
    int rc = sh("%s sweep %s/spec.json -j 2 --out %s/o 2>%s/err >/dev/null", cpnsim_bin(), tmpd, tmpd, tmpd);
    cr_assert_eq(rc, 2);
    char p[256];
    snprintf(p, sizeof p, "%s/err", tmpd);
    char *e = slurp(p);
    cr_assert_not_null(strstr(e, "FAILED jobs=bad,seed=1: "), "%s", e);
    cr_assert_not_null(strstr(e, "bad.csv:3: gpus:"), "%s", e);
    cr_assert_eq(sh("test $(wc -l < %s/o/runs.csv) -eq 3", tmpd), 0, "two good runs aggregated");
    cr_assert(exists("o/runs/jobs=bad,seed=1/error.txt"));
    /* The sweep's end, and aggregating alone, name the runs not done. */
    cr_assert_not_null(strstr(e, "2 runs are not done (no summary.json in"), "%s", e);
    cr_assert_not_null(strstr(e, "\n  jobs=bad,seed=1\n  jobs=bad,seed=2\n"), "%s", e);
    free(e);
    cr_assert_eq(sh("%s sweep %s/spec.json --out %s/o --aggregate >/dev/null 2>%s/err", cpnsim_bin(), tmpd,
                    tmpd, tmpd),
                 1);
    e = slurp(p);
    cr_assert_not_null(strstr(e, "not done (no summary.json in"), "%s", e);
    cr_assert_not_null(strstr(e, "\n  jobs=bad,seed=1\n  jobs=bad,seed=2\n"), "%s", e);
    free(e);
    /* A bad spec value stops the sweep before anything runs. */
    write_file("spec2.json", "{\"grid\": {\"policy\": [\"fifo\", \"nope\"]}}");
    cr_assert_eq(sh("%s sweep %s/spec2.json --out %s/o2 2>/dev/null", cpnsim_bin(), tmpd, tmpd), 2);
    cr_assert(!exists("o2"));
}

/* A sweep over a Gavel trace named as `cpnsim run --jobs gavel:TRACE` takes it,
 * relative to the spec: each point converts the trace in memory and gives the jobs.csv
 * of that run, and records the trace's digest. A spec naming a missing trace is
 * refused, by the trace's path, before anything runs. */
Test(sweep, gavel_trace_points_run_as_run_does, .timeout = 60)
{
    cr_assert_eq(sh("cd %s && mkdir specs traces", tmpd), 0);
    cr_assert_eq(sh("cp tests/data/import/gavel_small.trace %s/traces/g.trace && "
                    "cp bench/gavel-cluster.json %s/specs/c.json",
                    tmpd, tmpd),
                 0);
    write_file("specs/spec.json", "{\"base\": {\"jobs\": \"gavel:../traces/g.trace\", "
                                  "\"cluster\": \"c.json\"},\n"
                                  " \"grid\": {\"policy\": [\"fifo\", \"sjf\"]}}\n");
    cr_assert_eq(sh("cd %s && %s sweep specs/spec.json --out o -j 2 >/dev/null 2>err", tmpd,
                    cpnsim_bin()),
                 0);
    static const char *const pols[] = {"fifo", "sjf"};
    for (size_t i = 0; i < 2; i++) {
        cr_assert_eq(sh("cd %s && %s run --quiet --jobs gavel:traces/g.trace --cluster specs/c.json "
                        "--policy %s --out r-%s >/dev/null",
                        tmpd, cpnsim_bin(), pols[i], pols[i]),
                     0);
        cr_assert_eq(sh("cd %s && test $(wc -l < r-%s/jobs.csv) -eq 5 && "
                        "cmp r-%s/jobs.csv o/runs/policy=%s/jobs.csv",
                        tmpd, pols[i], pols[i], pols[i]),
                     0, "policy %s: the sweep's jobs.csv is not the run's", pols[i]);
        /* The summary's digest is the trace's, and so is the key's. */
        cr_assert_eq(sh("cd %s && h=$(sha256sum traces/g.trace | cut -c1-64) && "
                        "grep -q \"\\\"jobs_sha256\\\":.*\\\"$h\\\"\" o/runs/policy=%s/summary.json && "
                        "grep -q \"\\\"jobs_sha256\\\":.*\\\"$h\\\"\" o/runs/policy=%s/inputs.json",
                        tmpd, pols[i], pols[i]),
                     0);
    }
    cr_assert_eq(sh("test $(wc -l < %s/o/runs.csv) -eq 3", tmpd), 0);

    write_file("specs/missing.json", "{\"base\": {\"jobs\": \"gavel:../traces/missing.trace\"},\n"
                                     " \"grid\": {\"policy\": [\"fifo\", \"sjf\"]}}\n");
    cr_assert_eq(sh("cd %s && %s sweep specs/missing.json --out o2 >/dev/null 2>err", tmpd,
                    cpnsim_bin()),
                 2);
    char p[256];
    snprintf(p, sizeof p, "%s/err", tmpd);
    char *e = slurp(p);
    cr_assert_not_null(strstr(e, "specs/missing.json:1: base.jobs: cannot read "
                                 "'specs/../traces/missing.trace': No such file"),
                       "%s", e);
    free(e);
    cr_assert(!exists("o2"));
}

Test(sweep, list_and_usage)
{
    write_file("spec.json", "{\"grid\": {\"seed\": [1, 2], \"scrape_interval_s\": [0, 60]}}");
    char p[256];
    snprintf(p, sizeof p, "%s/list", tmpd);
    cr_assert_eq(sh("%s sweep %s/spec.json --list > %s", cpnsim_bin(), tmpd, p), 0);
    char *l = slurp(p);
    cr_assert_str_eq(l, "0\tseed=1,scrape_interval_s=0\n1\tseed=1,scrape_interval_s=60\n"
                        "2\tseed=2,scrape_interval_s=0\n3\tseed=2,scrape_interval_s=60\n");
    free(l);
    cr_assert_eq(sh("%s sweep %s/spec.json --only 4 2>/dev/null", cpnsim_bin(), tmpd), 2);
    cr_assert_eq(sh("%s sweep %s/spec.json -j 0 2>/dev/null", cpnsim_bin(), tmpd), 2);
    cr_assert_eq(sh("%s sweep 2>/dev/null", cpnsim_bin()), 2);
    cr_assert_eq(sh("%s sweep --help | grep -q -- --emit", cpnsim_bin()), 0);
    cr_assert_eq(sh("%s sweep /nonexistent.json 2>/dev/null", cpnsim_bin()), 2);
}

/* ---- GNU Parallel --------------------------------------------------------------- */

static const char *const engine_spec =
    "{\"grid\": {\"jobs\": [\"a.csv\", \"b.csv\"], \"scrape_interval_s\": [0, 60]},\n"
    " \"baseline\": {\"scrape_interval_s\": 60}}\n";

static void engine_inputs(void)
{
    cr_assert_eq(sh("cd %s && %s gen --count 30 --seed 1 -o a.csv && %s gen --count 30 --seed 2 "
                    "-o b.csv",
                    tmpd, cpnsim_bin(), cpnsim_bin()),
                 0);
    write_file("spec.json", engine_spec);
    /* The reference: the same grid run here. */
    cr_assert_eq(sh("%s sweep %s/spec.json -j 2 --out %s/local >/dev/null 2>&1", cpnsim_bin(), tmpd, tmpd), 0);
}

/* Paths are words of a shell script: the aggregation line that the Slurm header suggests
 * quotes its whole command for --wrap, so that a spec named with a quote and $(...)
 * reaches cpnsim as it is and runs nothing; a path with a line end is refused, since it
 * would end the command line and start another. */
Test(sweep, emitted_scripts_quote_hostile_paths, .timeout = 60)
{
    engine_inputs();
    cr_assert_eq(sh("cd %s && cp spec.json \"a'b\\$(touch X).json\" && "
                    "%s sweep \"a'b\\$(touch X).json\" --out out --emit slurm >/dev/null",
                    tmpd, cpnsim_bin()),
                 0);
    /* The word after --wrap, as sbatch gets it, and the words of the command it runs. */
    cr_assert_eq(sh("cd %s && w=$(sed -n 's/^#.*--wrap //p' out/sweep.sbatch) && eval \"set -- $w\" && "
                    "[ $# -eq 1 ] && eval \"set -- $1\" && [ $# -eq 6 ] && "
                    "[ \"$3\" = \"$PWD/a'b\\$(touch X).json\" ] && [ \"$6\" = --aggregate ] && [ ! -e X ]",
                    tmpd),
                 0);
    cr_assert_eq(sh("cd %s && n=$(printf 'n\\nl.json') && cp spec.json \"$n\" && "
                    "%s sweep \"$n\" --out out2 --emit parallel 2>err.txt; test $? -eq 2 && "
                    "grep -q 'a path with a line end' err.txt && [ ! -e out2/parallel.txt ]",
                    tmpd, cpnsim_bin()),
                 0);
}

Test(sweep, gnu_parallel_runs_the_emitted_job_list, .timeout = 120)
{
    if (sh("command -v parallel >/dev/null") != 0) {
        scratch_fini(); /* Criterion runs no .fini after a skip */
        cr_skip_test("GNU Parallel is not installed (scripts/setup-deps.sh installs it)");
    }
    engine_inputs();
    cr_assert_eq(sh("cd %s && %s sweep spec.json --out out --emit parallel > emit.txt", tmpd, cpnsim_bin()), 0);
    char p[256];
    snprintf(p, sizeof p, "%s/out/parallel.txt", tmpd);
    char *jobs = slurp(p);
    cr_assert_not_null(jobs);
    size_t lines = 0;
    for (const char *c = jobs; *c; c++)
        lines += *c == '\n';
    cr_assert_eq(lines, 4);
    cr_assert_not_null(strstr(jobs, "' --only 3\n"), "%s", jobs);
    free(jobs);
    cr_assert_eq(sh("cd / && timeout 60 parallel --will-cite --halt now,fail=1 -j 2 --joblog %s/out/joblog "
                    "< %s/out/parallel.txt >/dev/null 2>&1",
                    tmpd, tmpd),
                 0);
    cr_assert_eq(count_files("out/runs/*/summary.json"), 4);
    cr_assert_eq(sh("%s sweep %s/spec.json --out %s/out --aggregate >/dev/null", cpnsim_bin(), tmpd, tmpd), 0);
    cr_assert_eq(sh("cd %s && cmp -s out/runs.csv local/runs.csv && cmp -s out/baseline.csv "
                    "local/baseline.csv && cmp -s out/paired.csv local/paired.csv && "
                    "cmp -s out/groups.csv local/groups.csv",
                    tmpd),
                 0);
    /* Everything done: nothing left to emit. */
    cr_assert_eq(sh("cd %s && %s sweep spec.json --out out --emit parallel | grep -q 'nothing to emit'",
                    tmpd, cpnsim_bin()),
                 0);
}

/* ---- Slurm ---------------------------------------------------------------------- */

/* Longest life of a daemon the Slurm test starts (s): longer than the test's own
 * time limit, so that a killed test leaves nothing running for long. */
#define SWEEP_DAEMON_S 240

/* A port that was free a moment ago (the kernel picks it). */
static int free_port(void)
{
    int s = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int port = -1;
    if (s >= 0 && bind(s, (struct sockaddr *)&a, sizeof a) == 0 &&
        getsockname(s, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (s >= 0)
        close(s);
    return port;
}

/* Stops the daemons the Slurm test started, by the pids of their `timeout` wrappers
 * (which pass the signal on), and waits a moment for them to leave their directory. */
static void stop_daemons(void)
{
    static const char *const pids[] = {"slurmd.tpid", "slurmctld.tpid", "munged.tpid"};
    for (size_t i = 0; i < 3; i++)
        sh("test -s %s/%s && kill $(cat %s/%s) 2>/dev/null", tmpd, pids[i], tmpd, pids[i]);
    for (size_t i = 0; i < 3; i++)
        sh("test -s %s/%s && for i in 1 2 3 4 5 6 7 8 9 10; do "
           "kill -0 $(cat %s/%s) 2>/dev/null || break; sleep 0.2; done",
           tmpd, pids[i], tmpd, pids[i]);
}

static void slurm_fini(void)
{
    stop_daemons();
    scratch_fini();
}

/* Criterion runs no .fini after a skip: clean up first, then skip with the reason. */
#define SKIP_SLURM(...)                                                                      \
    do {                                                                                     \
        stop_daemons();                                                                      \
        scratch_fini();                                                                      \
        cr_skip_test(__VA_ARGS__);                                                           \
    } while (0)

TestSuite(sweep_slurm, .init = scratch_init, .fini = slurm_fini);

/* The end of a daemon's log, for a skip's reason: NAME.log, or what it printed
 * (NAME.err) when it stopped before opening its log. */
static void log_tail(const char *name, char *buf, size_t n)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s.log", tmpd, name);
    char *s = slurp(p);
    if (!s || !*s) {
        free(s);
        snprintf(p, sizeof p, "%s/%s.err", tmpd, name);
        s = slurp(p);
    }
    if (!s || !*s) {
        free(s);
        snprintf(buf, n, "(%s wrote nothing)", name);
        return;
    }
    size_t len = strlen(s);
    const char *from = len > 300 ? s + len - 300 : s;
    snprintf(buf, n, "%s", from);
    for (char *c = buf; *c; c++)
        if (*c == '\n')
            *c = ' ';
    free(s);
}

/* Polls a shell condition every 0.2 s for up to `seconds`. */
static bool wait_for(int seconds, const char *cmd)
{
    for (int i = 0; i < seconds * 5; i++) {
        if (sh("%s", cmd) == 0)
            return true;
        struct timespec ts = {0, 200000000};
        nanosleep(&ts, NULL);
    }
    return false;
}

Test(sweep_slurm, slurm_array_runs_the_emitted_script, .timeout = 150)
{
    if (sh("{ command -v slurmctld && command -v slurmd && command -v sbatch && command -v munged; } "
           ">/dev/null") != 0)
        SKIP_SLURM("slurm-wlm or munge is not installed (scripts/setup-deps.sh installs them)");
    char host[256], user[64], why[400];
    cr_assert_eq(gethostname(host, sizeof host), 0);
    snprintf(user, sizeof user, "%s", getenv("USER") ? getenv("USER") : "root");
    if (sh("id -un > %s/user", tmpd) == 0) {
        char p[128];
        snprintf(p, sizeof p, "%s/user", tmpd);
        char *u = slurp(p);
        if (u) {
            u[strcspn(u, "\n")] = '\0';
            snprintf(user, sizeof user, "%s", u);
            free(u);
        }
    }
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    int p1 = free_port(), p2 = free_port();
    while (p2 == p1)
        p2 = free_port();
    cr_assert(p1 > 0 && p2 > 0);

    /* munge: its own key, socket, log and pid file in the scratch directory. */
    cr_assert_eq(sh("mkdir -p %s/munge %s/state %s/spool && chmod 700 %s/munge && "
                    "head -c 1024 /dev/urandom > %s/munge/munge.key && chmod 600 %s/munge/munge.key",
                    tmpd, tmpd, tmpd, tmpd, tmpd, tmpd),
                 0);
    /* Each daemon runs in the foreground under `timeout`, in the background of a shell
     * that returns at once: should this test be killed before its .fini stops them,
     * they still end within SWEEP_DAEMON_S. */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "test -S %s/munge/sock", tmpd);
    if (sh("(timeout %d munged --foreground --force --socket=%s/munge/sock "
           "--key-file=%s/munge/munge.key --log-file=%s/munge/munged.log "
           "--pid-file=%s/munge/munged.pid --seed-file=%s/munge/seed >%s/munge/munged.err 2>&1 & "
           "echo $! > %s/munged.tpid)",
           SWEEP_DAEMON_S, tmpd, tmpd, tmpd, tmpd, tmpd, tmpd, tmpd) != 0 ||
        !wait_for(10, cmd)) {
        log_tail("munge/munged", why, sizeof why);
        SKIP_SLURM("munged did not start: %s", why);
    }
    char conf[4096];
    snprintf(conf, sizeof conf,
             "ClusterName=cpnsimtest\n"
             "SlurmctldHost=%s(127.0.0.1)\n"
             "SlurmUser=%s\nSlurmdUser=%s\n"
             "SlurmctldPort=%d\nSlurmdPort=%d\n"
             "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=%s/munge/sock\n"
             "StateSaveLocation=%s/state\nSlurmdSpoolDir=%s/spool\n"
             "SlurmctldPidFile=%s/slurmctld.pid\nSlurmdPidFile=%s/slurmd.pid\n"
             "SlurmctldLogFile=%s/slurmctld.log\nSlurmdLogFile=%s/slurmd.log\n"
             "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
             "JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n"
             "SchedulerType=sched/backfill\nSelectType=select/cons_tres\n"
             "SelectTypeParameters=CR_Core\nReturnToService=2\nMpiDefault=none\n"
             "NodeName=%s NodeAddr=127.0.0.1 CPUs=%ld State=UNKNOWN\n"
             "PartitionName=test Nodes=%s Default=YES MaxTime=INFINITE State=UP\n",
             host, user, user, p1, p2, tmpd, tmpd, tmpd, tmpd, tmpd, tmpd, tmpd, host,
             ncpu < 1 ? 1 : ncpu, host);
    write_file("slurm.conf", conf);
    char env[256];
    snprintf(env, sizeof env, "SLURM_CONF=%s/slurm.conf", tmpd);

    snprintf(cmd, sizeof cmd, "%s timeout 5 scontrol ping 2>/dev/null | grep -q UP", env);
    if (sh("(%s timeout %d slurmctld -D -i -f %s/slurm.conf >%s/slurmctld.err 2>&1 & "
           "echo $! > %s/slurmctld.tpid)",
           env, SWEEP_DAEMON_S, tmpd, tmpd, tmpd) != 0 ||
        !wait_for(20, cmd)) {
        log_tail("slurmctld", why, sizeof why);
        SKIP_SLURM("slurmctld did not start: %s", why);
    }
    snprintf(cmd, sizeof cmd, "%s timeout 5 sinfo -h -o %%T 2>/dev/null | grep -q idle", env);
    if (sh("(%s timeout %d slurmd -D -f %s/slurm.conf >%s/slurmd.err 2>&1 & "
           "echo $! > %s/slurmd.tpid)",
           env, SWEEP_DAEMON_S, tmpd, tmpd, tmpd) != 0 ||
        !wait_for(30, cmd)) {
        log_tail("slurmd", why, sizeof why);
        SKIP_SLURM("slurmd did not register its node: %s", why);
    }

    engine_inputs();
    cr_assert_eq(sh("cd %s && %s sweep spec.json --out out --emit slurm > emit.txt", tmpd, cpnsim_bin()), 0);
    char p[256];
    snprintf(p, sizeof p, "%s/out/sweep.sbatch", tmpd);
    char *script = slurp(p);
    cr_assert_not_null(script);
    cr_assert_not_null(strstr(script, "#SBATCH --array=0-3\n"), "%s", script);
    cr_assert_not_null(strstr(script, "--only \"$SLURM_ARRAY_TASK_ID\""), "%s", script);
    free(script);
    cr_assert_eq(sh("cd / && %s timeout 20 sbatch --parsable %s/out/sweep.sbatch > %s/jobid", env, tmpd,
                    tmpd),
                 0);
    /* Every task done (bounded), as Slurm and the run directories both say. */
    snprintf(cmd, sizeof cmd,
             "test $(ls %s/out/runs/*/summary.json 2>/dev/null | wc -l) -eq 4 && "
             "test -z \"$(%s squeue -h -j $(cat %s/jobid))\"",
             tmpd, env, tmpd);
    bool done = wait_for(60, cmd);
    if (!done) {
        sh("%s scancel $(cat %s/jobid) 2>/dev/null", env, tmpd);
        log_tail("slurmctld", why, sizeof why);
    }
    cr_assert(done, "the array did not finish in 60 s: %s", why);
    cr_assert_eq(count_files("out/slurm/*.out"), 4, "one Slurm output per task");
    cr_assert_eq(sh("%s sweep %s/spec.json --out %s/out --aggregate >/dev/null", cpnsim_bin(), tmpd, tmpd), 0);
    cr_assert_eq(sh("cmp -s %s/out/runs.csv %s/local/runs.csv && cmp -s %s/out/summary.csv "
                    "%s/local/summary.csv",
                    tmpd, tmpd, tmpd, tmpd),
                 0, "the cluster's runs aggregate to the same tables as local ones");
}
