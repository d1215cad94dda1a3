/* sweep_reuse: a sweep reuses a run only when its inputs are the ones the spec asks
 * for (docs/sweeps.md "Reuse"), and one sweep at a time works in a directory. A
 * changed base, a changed input file (same name, other bytes), a run without its
 * inputs.json and a corrupt or partial summary.json are all run again, each named
 * with its reason; an unchanged spec runs nothing and rewrites the same runs.csv; a
 * second sweep on a directory in use is refused with exit status 2 while the first
 * completes. Runs ./cpnsim (CPNSIM overrides the path) in a scratch directory. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../sim/base/util.h"
#include "helpers.h"
#include "sweep_helpers.h"

static char tmpd[64];

static void scratch_init(void) { scratch_mkdtemp(tmpd, "reuse"); }
static void scratch_fini(void) { sh("rm -rf '%s'", tmpd); }

TestSuite(sweep_reuse, .init = scratch_init, .fini = scratch_fini);

/* Runs `cpnsim sweep spec.json --out o` in tmpd with extra arguments; stderr goes to
 * tmpd/err, which *err_text receives (the caller frees it). Returns the exit status. */
static int sweep(const char *extra, char **err_text)
{
    int rc = sh("cd %s && %s sweep spec.json --out o -j 2 %s >/dev/null 2>err", tmpd, cpnsim_bin(),
                extra);
    char p[128];
    snprintf(p, sizeof p, "%s/err", tmpd);
    *err_text = slurp(p);
    cr_assert_not_null(*err_text);
    return rc;
}

/* Whether tmpd/o/runs.csv and tmpd/NAME are the same bytes. */
static bool runs_csv_is(const char *name)
{
    return sh("cmp -s %s/o/runs.csv %s/%s", tmpd, tmpd, name) == 0;
}

static const char *const spec_v1 =
    "{\"base\": {\"jobs\": \"a.csv\"}, \"grid\": {\"policy\": [\"fifo\", \"sjf\"], \"seed\": [1, 2]}}\n";

/* Four runs of spec_v1 on a 20-job queue, and runs.csv kept as v1.csv. */
static void first_sweep(void)
{
    cr_assert_eq(sh("cd %s && %s gen --count 20 --seed 1 -o a.csv >/dev/null", tmpd, cpnsim_bin()), 0);
    scratch_write(tmpd, "spec.json", spec_v1);
    char *e;
    cr_assert_eq(sweep("", &e), 0, "%s", e);
    cr_assert_not_null(strstr(e, "0 done before, 4 to run, 2 at a time"), "%s", e);
    free(e);
    cr_assert_eq(sh("cp %s/o/runs.csv %s/v1.csv && test $(wc -l < %s/v1.csv) -eq 5", tmpd, tmpd, tmpd), 0);
}

/* The same spec again: nothing runs, and runs.csv is the same bytes. */
Test(sweep_reuse, unchanged_spec_runs_nothing_and_gives_the_same_runs_csv, .timeout = 60)
{
    first_sweep();
    char *e;
    cr_assert_eq(sweep("", &e), 0, "%s", e);
    cr_assert_not_null(strstr(e, "4 done before, 0 to run, 2 at a time"), "%s", e);
    cr_assert_null(strstr(e, "running again"), "%s", e);
    free(e);
    cr_assert(runs_csv_is("v1.csv"));
    /* Each run keeps its key beside its summary. */
    char p[256];
    snprintf(p, sizeof p, "%s/o/runs/policy=sjf,seed=2/inputs.json", tmpd);
    char *key = slurp(p);
    cr_assert_not_null(key);
    cr_assert_not_null(strstr(key, "\"policy\":\t\"sjf\""), "%s", key);
    cr_assert_not_null(strstr(key, "\"seed\":\t\"2\""), "%s", key);
    cr_assert_not_null(strstr(key, "\"jobs\":\t\"a.csv\""), "%s", key);
    free(key);
}

/* The case: the base gains two --set keys. Every run is run again, named with
 * the first key that changed, and runs.csv shows the new configuration; a grid that
 * shrinks leaves the runs it no longer names out of runs.csv. */
Test(sweep_reuse, changed_base_reruns_every_run_and_runs_csv_shows_it, .timeout = 60)
{
    first_sweep();
    scratch_write(tmpd, "spec.json",
                  "{\"base\": {\"jobs\": \"a.csv\", \"scrape_interval_s\": 0, \"completion\": "
                  "\"event\"},\n \"grid\": {\"policy\": [\"fifo\", \"sjf\"], \"seed\": [1, 2]}}\n");
    char *e;
    cr_assert_eq(sweep("", &e), 0, "%s", e);
    cr_assert_not_null(strstr(e, "sweep: runs/policy=fifo,seed=1: inputs changed since it ran (set "
                                 "scrape_interval_s: not set then, 0 now); running again\n"),
                       "%s", e);
    cr_assert_not_null(strstr(e, "0 done before, 4 to run (4 of them again, named above)"), "%s", e);
    free(e);
    cr_assert(!runs_csv_is("v1.csv"), "runs.csv still shows the old configuration");
    char p[128];
    snprintf(p, sizeof p, "%s/o/runs.csv", tmpd);
    char *csv = slurp(p);
    /* The overrides column: every row ran with both keys. */
    size_t rows = 0;
    for (const char *c = csv; (c = strstr(c, "scrape_interval_s=0;completion=event")); c++)
        rows++;
    cr_assert_eq(rows, 4, "%s", csv);
    free(csv);

    /* fifo leaves the grid: its old runs stay on disk but not in runs.csv. */
    scratch_write(tmpd, "spec.json",
                  "{\"base\": {\"jobs\": \"a.csv\", \"scrape_interval_s\": 0, \"completion\": "
                  "\"event\"},\n \"grid\": {\"policy\": [\"sjf\"], \"seed\": [1, 2]}}\n");
    cr_assert_eq(sweep("", &e), 0, "%s", e);
    free(e);
    cr_assert_eq(sh("test $(wc -l < %s/o/runs.csv) -eq 3 && ! grep -q fifo %s/o/runs.csv", tmpd, tmpd),
                 0);
}

/* A jobs file rewritten under the same name with other bytes: its runs are run again. */
Test(sweep_reuse, changed_input_file_is_rerun, .timeout = 60)
{
    first_sweep();
    cr_assert_eq(sh("cd %s && %s gen --count 20 --seed 2 -o a.csv >/dev/null", tmpd, cpnsim_bin()), 0);
    char *e;
    cr_assert_eq(sweep("", &e), 0, "%s", e);
    cr_assert_not_null(strstr(e, "sweep: runs/policy=sjf,seed=2: inputs changed since it ran (the "
                                 "bytes of a.csv changed: SHA-256 "),
                       "%s", e);
    cr_assert_not_null(strstr(e, "0 done before, 4 to run"), "%s", e);
    free(e);
    cr_assert(!runs_csv_is("v1.csv"));
    /* The first bytes again: the runs are made again, and equal the first ones. */
    cr_assert_eq(sh("cd %s && %s gen --count 20 --seed 1 -o a.csv >/dev/null", tmpd, cpnsim_bin()), 0);
    cr_assert_eq(sweep("", &e), 0, "%s", e);
    free(e);
    cr_assert(runs_csv_is("v1.csv"));
}

/* A trace named as FORMAT:TRACE: a second sweep reuses its runs (the key hashes the
 * trace, whose digest the runs' summaries record), and a trace rewritten with other
 * bytes is run again, named by its path. */
Test(sweep_reuse, format_trace_runs_are_reused_and_a_changed_trace_rerun, .timeout = 60)
{
    cr_assert_eq(sh("cp tests/data/import/gavel_small.trace %s/g.trace && "
                    "cp bench/gavel-cluster.json %s/c.json",
                    tmpd, tmpd),
                 0);
    scratch_write(tmpd, "spec.json",
                  "{\"base\": {\"jobs\": \"gavel:g.trace\", \"cluster\": \"c.json\"},\n"
                  " \"grid\": {\"policy\": [\"fifo\", \"sjf\"]}}\n");
    char *e;
    cr_assert_eq(sweep("", &e), 0, "%s", e);
    cr_assert_not_null(strstr(e, "0 done before, 2 to run, 2 at a time"), "%s", e);
    free(e);
    cr_assert_eq(sh("cp %s/o/runs.csv %s/v1.csv", tmpd, tmpd), 0);
    cr_assert_eq(sweep("", &e), 0, "%s", e);
    cr_assert_not_null(strstr(e, "2 done before, 0 to run, 2 at a time"), "%s", e);
    cr_assert_null(strstr(e, "running again"), "%s", e);
    free(e);
    cr_assert(runs_csv_is("v1.csv"));
    /* The trace loses its last job. */
    cr_assert_eq(sh("cd %s && sed -i '$d' g.trace", tmpd), 0);
    cr_assert_eq(sweep("", &e), 0, "%s", e);
    cr_assert_not_null(strstr(e, "sweep: runs/policy=fifo: inputs changed since it ran (the bytes of "
                                 "g.trace changed: SHA-256 "),
                       "%s", e);
    cr_assert_not_null(strstr(e, "0 done before, 2 to run (2 of them again, named above)"), "%s", e);
    free(e);
    cr_assert_eq(sh("test $(wc -l < %s/o/runs/policy=sjf/jobs.csv) -eq 4", tmpd), 0,
                 "the rerun did not read the changed trace");
}

/* A summary.json cut short, one with a field missing, one with a field of the wrong
 * type, and a run without inputs.json (made before keys, or copied without it): each
 * is run again with its reason; --aggregate leaves them out and names them. */
Test(sweep_reuse, corrupt_or_partial_summary_is_rerun, .timeout = 60)
{
    first_sweep();
    const char *r = "o/runs";
    cr_assert_eq(sh("cd %s/%s && head -c 300 'policy=fifo,seed=1/summary.json' > t && "
                    "mv t 'policy=fifo,seed=1/summary.json' && "
                    "grep -v '\"makespan_s\"' 'policy=fifo,seed=2/summary.json' > t && "
                    "mv t 'policy=fifo,seed=2/summary.json' && "
                    "sed -i 's/\"completed\":.*/\"completed\": \"20\",/' 'policy=sjf,seed=1/summary.json' && "
                    "rm 'policy=sjf,seed=2/inputs.json'",
                    tmpd, r),
                 0);
    cr_assert_eq(sh("cd %s && %s sweep spec.json --out o --aggregate >/dev/null 2>err", tmpd,
                    cpnsim_bin()),
                 1);
    char p[128];
    snprintf(p, sizeof p, "%s/err", tmpd);
    char *e = slurp(p);
    cr_assert_not_null(strstr(e, "4 runs are not done"), "%s", e);
    cr_assert_not_null(strstr(e, "  policy=fifo,seed=1: its summary.json is not valid (not JSON)\n"),
                       "%s", e);
    free(e);
    cr_assert_eq(sh("test $(wc -l < %s/o/runs.csv) -eq 1", tmpd), 0, "runs.csv: the header only");

    cr_assert_eq(sweep("", &e), 0, "%s", e);
    static const char *const want[] = {
        "runs/policy=fifo,seed=1: its summary.json is not valid (not JSON); running again",
        "runs/policy=fifo,seed=2: its summary.json is not valid (makespan_s: missing); running again",
        "runs/policy=sjf,seed=1: its summary.json is not valid (completed: of the wrong type); "
        "running again",
        "runs/policy=sjf,seed=2: no record of the inputs it ran with (inputs.json missing or not "
        "valid); running again",
        "0 done before, 4 to run (4 of them again, named above)",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        cr_assert_not_null(strstr(e, want[i]), "%s\nnot in:\n%s", want[i], e);
    free(e);
    cr_assert(runs_csv_is("v1.csv"), "the runs made again equal the first ones");
}

/* Whether tmpd/rel exists, waiting up to 20 s. */
static bool wait_exists(const char *rel)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", tmpd, rel);
    for (int i = 0; i < 2000; i++) {
        if (access(p, F_OK) == 0)
            return true;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    return false;
}

/* Two sweeps on one directory: the second is refused at once (exit 2, naming the
 * directory and the first's PID), and so is a cluster task (--only) and an
 * aggregation; the first then completes every run. To hold the first at a known point
 * without racing it, b.csv is a named pipe that its second run blocks on (-j 1) until
 * the test feeds it b.csv's bytes. */
Test(sweep_reuse, second_sweep_on_the_directory_is_refused, .timeout = 90)
{
    cr_assert_eq(sh("cd %s && %s gen --count 20 --seed 1 -o a.csv >/dev/null && "
                    "%s gen --count 20 --seed 2 -o b.real >/dev/null && mkfifo b.csv",
                    tmpd, cpnsim_bin(), cpnsim_bin()),
                 0);
    scratch_write(tmpd, "spec.json", "{\"grid\": {\"jobs\": [\"a.csv\", \"b.csv\"]}}\n");
    char spec[128], out[128], errf[128];
    snprintf(spec, sizeof spec, "%s/spec.json", tmpd);
    snprintf(out, sizeof out, "%s/o", tmpd);
    snprintf(errf, sizeof errf, "%s/err1", tmpd);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        int fd = open(errf, O_WRONLY | O_CREAT | O_TRUNC, 0644), null = open("/dev/null", O_WRONLY);
        dup2(fd, 2);
        dup2(null, 1);
        close(fd);
        close(null);
        execl(cpnsim_bin(), cpnsim_bin(), "sweep", spec, "-j", "1", "--out", out, (char *)NULL);
        _exit(127);
    }
    bool ready = wait_exists("o/runs/jobs=a/summary.json") && wait_exists("o/runs/jobs=b");
    if (!ready)
        kill(pid, SIGKILL);
    cr_assert(ready, "the first sweep did not reach its second run");

    char *e;
    cr_assert_eq(sweep("", &e), 2, "%s", e);
    char want[256];
    snprintf(want, sizeof want,
             "o: another cpnsim sweep is working in this directory (PID %ld); wait for it to end, "
             "or use another --out\n",
             (long)pid);
    cr_assert_not_null(strstr(e, want), "%s", e);
    free(e);
    cr_assert_eq(sweep("--only 0", &e), 2, "%s", e);
    cr_assert_not_null(strstr(e, "a whole cpnsim sweep (not --only) is working"), "%s", e);
    free(e);
    cr_assert_eq(sh("cd %s && %s sweep spec.json --out o --aggregate >/dev/null 2>&1", tmpd,
                    cpnsim_bin()),
                 2);

    /* Feed the pipe the bytes of b.real, after putting them under b.csv's name: the run
     * hashes what the pipe gives and then reads b.csv, the same bytes. */
    cr_assert_eq(sh("cd %s && mv b.csv b.fifo && cp b.real b.csv && cat b.real > b.fifo", tmpd), 0);
    int st;
    cr_assert_eq(waitpid(pid, &st, 0), pid);
    char *e1 = slurp(errf);
    cr_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0, "status %#x: %s", st, e1);
    cr_assert_not_null(strstr(e1, "2 runs in"), "%s", e1);
    cr_assert_not_null(strstr(e1, "0 failed"), "%s", e1);
    free(e1);
    cr_assert_eq(sh("test $(wc -l < %s/o/runs.csv) -eq 3", tmpd), 0, "both runs aggregated");
    /* The lock went with the first sweep. */
    cr_assert_eq(sweep("", &e), 0, "%s", e);
    cr_assert_not_null(strstr(e, "2 done before, 0 to run"), "%s", e);
    free(e);
}

/* A point run on its own (--only, a cluster task) takes the directory's lock shared
 * and its own run's lock: two tasks of one array run side by side; the same point
 * twice at once is refused. */
Test(sweep_reuse, cluster_tasks_share_the_directory, .timeout = 60)
{
    cr_assert_eq(sh("cd %s && %s gen --count 20 --seed 1 -o a.csv >/dev/null && mkfifo b.csv", tmpd,
                    cpnsim_bin()),
                 0);
    scratch_write(tmpd, "spec.json", "{\"grid\": {\"jobs\": [\"a.csv\", \"b.csv\"]}}\n");
    /* Point 1 blocks on the pipe, holding its locks. */
    cr_assert_eq(sh("cd %s && (%s sweep spec.json --out o --only 1 >/dev/null 2>err1 &) ", tmpd,
                    cpnsim_bin()),
                 0);
    cr_assert(wait_exists("o/runs/jobs=b/run.lock"));
    char *e;
    cr_assert_eq(sweep("--only 0", &e), 0, "%s", e); /* another point: runs */
    free(e);
    cr_assert_eq(sweep("--only 1", &e), 2, "%s", e); /* the same point: refused */
    cr_assert_not_null(strstr(e, "o/runs/jobs=b: another cpnsim is running this point (PID "), "%s", e);
    free(e);
    cr_assert_eq(sweep("", &e), 2, "%s", e); /* a whole sweep: refused */
    free(e);
    /* Let point 1 read a queue, then wait for it. */
    cr_assert_eq(sh("cd %s && mv b.csv b.fifo && %s gen --count 20 --seed 2 -o b.csv >/dev/null && "
                    "cat b.csv > b.fifo",
                    tmpd, cpnsim_bin()),
                 0);
    cr_assert(wait_exists("o/runs/jobs=b/inputs.json"));
}

/* Inputs read without end: /dev/zero as a cluster or mix is refused by the spec check,
 * and as a jobs file by the run, at the first NUL byte, with exit status 2 (the
 * timeout bounds a reader that would fill memory). A run of /dev/zero whose directory
 * holds a summary is checked by hashing it: refused the same way, and run again. */
Test(sweep_reuse, dev_zero_inputs_are_refused_at_once, .timeout = 60)
{
    static const struct {
        const char *spec, *msg;
    } cases[] = {
        {"{\"base\": {\"cluster\": \"/dev/zero\"}, \"grid\": {\"seed\": [1]}}",
         "spec.json:1: base.cluster: /dev/zero:1: a NUL byte"},
        {"{\"grid\": {\"mix\": [\"/dev/zero\"], \"seed\": [1]}}",
         "spec.json:1: grid.mix[0]: /dev/zero:1: a NUL byte"},
        {"{\"base\": {\"jobs\": \"/dev/zero\"}, \"grid\": {\"seed\": [1]}}",
         "FAILED seed=1: /dev/zero:1: header: contains a NUL byte"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        scratch_write(tmpd, "spec.json", cases[i].spec);
        char *e;
        cr_assert_eq(sh("cd %s && timeout 20 %s sweep spec.json --out o%zu -j 1 >/dev/null 2>err", tmpd,
                        cpnsim_bin(), i),
                     2, "case %zu", i);
        char p[128];
        snprintf(p, sizeof p, "%s/err", tmpd);
        e = slurp(p);
        cr_assert_not_null(strstr(e, cases[i].msg), "case %zu: %s", i, e);
        free(e);
    }
    /* The last case again, its run directory now holding a summary to check. */
    cr_assert_eq(sh("cd %s/o2/runs/seed=1 && echo '{}' > summary.json && echo '{}' > inputs.json && "
                    "cd %s && timeout 20 %s sweep spec.json --out o2 -j 1 >/dev/null 2>err",
                    tmpd, tmpd, cpnsim_bin()),
                 2);
    char p[128];
    snprintf(p, sizeof p, "%s/err", tmpd);
    char *e = slurp(p);
    cr_assert_not_null(strstr(e, "runs/seed=1: its inputs cannot be read now: spec.json:1: base.jobs: "
                                 "/dev/zero:1: a NUL byte (not a text file); running again"),
                       "%s", e);
    free(e);
}
