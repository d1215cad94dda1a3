/* Failure injection (docs/reliability.md): what `cpnsim run` does when its output
 * cannot be written (a directory under a regular file, a full disk simulated with
 * RLIMIT_FSIZE), when its job file ends early or cannot be read (a FIFO closed
 * mid-row, a directory), and when SIGINT or SIGTERM arrives while it reads or
 * simulates. Every case must end with a clear message and exit status 1 or 2 (or death
 * by the signal), and must never leave a file that looks complete: no summary.json
 * (which is written last) and no temporary. Each test runs in its own process and
 * scratch directory; cpnsim runs as a child (CPNSIM, default ./cpnsim). */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../sim/tools/run.h"
#include "../sim/base/util.h"
#include "helpers.h"
#include "../sim/io/report.h"

/* How long a child may take before the test gives up on it, and how often the test
 * looks for a file to appear. */
#define FAIL_CHILD_TIMEOUT_S 60
#define FAIL_POLL_NS 1000000L

static const char *bin(void)
{
    const char *b = getenv("CPNSIM");
    return b ? b : "./cpnsim";
}

/* The test's scratch directory, made by scratch_init. */
static char scratch[64];

static void scratch_init(void)
{
    snprintf(scratch, sizeof scratch, "/tmp/cpn_fail_XXXXXX");
    cr_assert_not_null(mkdtemp(scratch));
}

static void scratch_fini(void) { sh("rm -rf %s", scratch); }

TestSuite(failure, .init = scratch_init, .fini = scratch_fini, .timeout = 120);

/* A child running `cpnsim ARGS` (through sh -c 'exec ...', so that its pid is
 * cpnsim's), with standard error on a pipe. */
struct child {
    pid_t pid;
    int err_fd;
};

/* Starts cpnsim with args (a shell word list; "{s}" stands for the scratch
 * directory). fsize, when not RLIM_INFINITY, limits the size of every file it writes,
 * with SIGXFSZ ignored so that a write past it fails with EFBIG as on a full disk. */
static struct child spawn(const char *args, rlim_t fsize)
{
    char cmd[2048];
    size_t n = (size_t)snprintf(cmd, sizeof cmd, "exec %s ", bin());
    for (const char *a = args; *a && n + 64 < sizeof cmd;) {
        if (strncmp(a, "{s}", 3) == 0) {
            n += (size_t)snprintf(cmd + n, sizeof cmd - n, "%s", scratch);
            a += 3;
        } else {
            cmd[n++] = *a++;
        }
    }
    cmd[n] = '\0';
    int p[2];
    cr_assert_eq(pipe(p), 0);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        if (fsize != RLIM_INFINITY) {
            struct rlimit rl = {fsize, fsize};
            signal(SIGXFSZ, SIG_IGN);
            if (setrlimit(RLIMIT_FSIZE, &rl) != 0)
                _exit(99);
        }
        int devnull = open("/dev/null", O_WRONLY);
        dup2(devnull, STDOUT_FILENO);
        dup2(p[1], STDERR_FILENO);
        close(p[0]);
        close(p[1]);
        execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
        _exit(98);
    }
    close(p[1]);
    return (struct child){pid, p[0]};
}

/* Waits for the child (killing it after FAIL_CHILD_TIMEOUT_S) and returns its wait
 * status; *err receives its standard error (caller frees). */
static int finish(struct child c, char **err)
{
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        cpn_grow((void **)&buf, &cap, len + 4097, 1);
        ssize_t got = read(c.err_fd, buf + len, 4096);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break;
        len += (size_t)got;
    }
    close(c.err_fd);
    buf[len] = '\0';
    int st = 0;
    for (int waited = 0;; waited++) {
        pid_t r = waitpid(c.pid, &st, WNOHANG);
        if (r == c.pid)
            break;
        cr_assert_geq(r, 0);
        if (waited > FAIL_CHILD_TIMEOUT_S * 100) {
            kill(c.pid, SIGKILL);
            waitpid(c.pid, &st, 0);
            cr_assert_fail("cpnsim did not end within %d s; stderr: %s", FAIL_CHILD_TIMEOUT_S, buf);
        }
        nanosleep(&(struct timespec){0, 10 * FAIL_POLL_NS}, NULL);
    }
    *err = buf;
    return st;
}

static int exit_code(int st) { return WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st); }

/* True when path (under the scratch directory) exists. */
static bool exists(const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", scratch, rel);
    return access(p, F_OK) == 0;
}

/* The run directory holds no summary.json and no temporary. */
static void assert_not_complete(const char *rel)
{
    char d[512];
    snprintf(d, sizeof d, "%s/%s", scratch, rel);
    cr_assert_neq(sh("test -e %s/summary.json", d), 0, "%s/summary.json exists", d);
    cr_assert_eq(sh("test -z \"$(find %s -name '.*.tmp.*' 2>/dev/null)\"", d), 0,
                 "temporaries left in %s", d);
}

/* ---- Output that cannot be written -------------------------------------------- */

Test(failure, out_dir_under_a_regular_file)
{
    cr_assert_eq(sh("echo x > %s/file", scratch), 0);
    char *err;
    int st = finish(spawn("run --quiet --out {s}/file/run", RLIM_INFINITY), &err);
    cr_assert_eq(exit_code(st), 1, "status %d: %s", exit_code(st), err);
    cr_assert_not_null(strstr(err, "/file/run: cannot create directory: Not a directory"), "%s", err);
    cr_assert_eq(sh("test \"$(cat %s/file)\" = x", scratch), 0, "the file was changed");
    free(err);
}

Test(failure, out_dir_is_a_regular_file)
{
    cr_assert_eq(sh("echo x > %s/file", scratch), 0);
    char *err;
    int st = finish(spawn("run --quiet --out {s}/file", RLIM_INFINITY), &err);
    cr_assert_eq(exit_code(st), 1, "status %d: %s", exit_code(st), err);
    cr_assert_not_null(strstr(err, "/file: not a directory"), "%s", err);
    free(err);
}

/* A full disk: each file may grow to `limit` bytes. Whatever the limit, the run either
 * succeeds with all three outputs, or fails with status 1 naming the file it could not
 * write, leaving no summary.json and no temporary. An old complete run in the same
 * directory must not survive a failed one. */
static void disk_full(const char *args, rlim_t limit, const char *fails)
{
    sh("rm -rf %s/run && mkdir -p %s/run && echo '{}' > %s/run/summary.json", scratch, scratch,
       scratch);
    char *err;
    int st = finish(spawn(args, limit), &err);
    int code = exit_code(st);
    if (!fails) {
        cr_assert_eq(code, 0, "limit %lu: status %d: %s", (unsigned long)limit, code, err);
        cr_assert(exists("run/summary.json") && exists("run/jobs.csv") &&
                  exists("run/timeline.csv"));
        char p[512];
        snprintf(p, sizeof p, "%s/run/summary.json", scratch);
        char *sum = slurp(p);
        cr_assert(sum && strstr(sum, "\"events_per_s\""), "summary.json incomplete");
        free(sum);
    } else {
        cr_assert_eq(code, 1, "limit %lu: status %d: %s", (unsigned long)limit, code, err);
        char want[128];
        snprintf(want, sizeof want, "/run/%s: ", fails);
        cr_assert_not_null(strstr(err, want), "limit %lu: '%s' not in: %s", (unsigned long)limit,
                           want, err);
        cr_assert_not_null(strstr(err, "File too large"), "limit %lu: %s", (unsigned long)limit,
                           err);
        assert_not_complete("run");
    }
    free(err);
}

/* q100 writes a timeline of about 32 KB, jobs.csv of 9 KB and summary.json of 1 KB:
 * the timeline is the first to fail. */
Test(failure, disk_full_while_writing_the_timeline)
{
    const char *q100 = "run --quiet --jobs traces/q100.csv --out {s}/run";
    disk_full(q100, 0, "timeline.csv");
    disk_full(q100, 1, "timeline.csv");
    disk_full(q100, 4096, "timeline.csv");
    disk_full(q100, 20000, "timeline.csv");
    disk_full(q100, 1 << 20, NULL);
}

/* With a timeline of one row, jobs.csv (9 KB) is the first to fail. */
Test(failure, disk_full_while_writing_jobs_csv)
{
    const char *args = "run --quiet --jobs traces/q100.csv --set scrape_interval_s=0 "
                       "--set timeline_interval_s=1e6 --out {s}/run";
    disk_full(args, 1000, "jobs.csv");
    disk_full(args, 8192, "jobs.csv");
}

/* One job: timeline and jobs.csv fit in 500 bytes, summary.json (about 1 KB) does
 * not. The two files written before it stay, but without summary.json the directory
 * does not look complete (sweeps and users go by it). */
Test(failure, disk_full_while_writing_summary_json)
{
    cr_assert_eq(sh("printf 'id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,"
                    "origin\\nj1,0,resnet50,32,1,1,1,4,24,1,bj\\n' > %s/one.csv",
                    scratch),
                 0);
    const char *args = "run --quiet --jobs {s}/one.csv --set scrape_interval_s=0 "
                       "--set timeline_interval_s=1e6 --out {s}/run";
    disk_full(args, 500, "summary.json");
    cr_assert(exists("run/jobs.csv") && exists("run/timeline.csv"));
    disk_full(args, 4096, NULL);
}

/* ---- Input that ends early or cannot be read ---------------------------------- */

static const char csv_header[] =
    "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin\n";
static const char csv_row[] = "j1,0,resnet50,32,1,1,1,4,24,1,bj\n";

/* Makes the FIFO {s}/NAME, starts cpnsim on it, opens its writing end (which waits for
 * cpnsim to open it) and returns that descriptor. */
static int fifo_start(const char *name, const char *args, struct child *c)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", scratch, name);
    cr_assert_eq(mkfifo(p, 0600), 0);
    *c = spawn(args, RLIM_INFINITY);
    int fd = open(p, O_WRONLY);
    cr_assert_geq(fd, 0);
    return fd;
}

static void put(int fd, const char *s)
{
    size_t n = strlen(s);
    cr_assert_eq(write(fd, s, n), (ssize_t)n);
}

/* The job file ends in the middle of a row, as when it is truncated while being read. */
Test(failure, jobs_file_ends_mid_row)
{
    struct child c;
    int fd = fifo_start("jobs.csv", "run --quiet --jobs {s}/jobs.csv --out {s}/run", &c);
    put(fd, csv_header);
    put(fd, csv_row);
    put(fd, "j2,0,resnet50,32,1,1");
    close(fd);
    char *err;
    int st = finish(c, &err);
    cr_assert_eq(exit_code(st), 2, "status %d: %s", exit_code(st), err);
    cr_assert_not_null(strstr(err, "/jobs.csv:3: gpus: missing (the row has 6 fields"), "%s", err);
    cr_assert(!exists("run"), "a run directory was made");
    free(err);
}

/* The same inside a quoted field: the file cannot be mistaken for a shorter one. */
Test(failure, jobs_file_ends_inside_quotes)
{
    struct child c;
    int fd = fifo_start("jobs.csv", "run --quiet --jobs {s}/jobs.csv --out {s}/run", &c);
    put(fd, csv_header);
    put(fd, csv_row);
    put(fd, "\"j2,0,resnet50");
    close(fd);
    char *err;
    int st = finish(c, &err);
    cr_assert_eq(exit_code(st), 2, "status %d: %s", exit_code(st), err);
    cr_assert_not_null(strstr(err, "/jobs.csv:3: id: unterminated quoted field"), "%s", err);
    cr_assert(!exists("run"));
    free(err);
}

/* The cluster file ends early. */
Test(failure, cluster_file_ends_early)
{
    struct child c;
    int fd = fifo_start("cluster.json", "run --quiet --cluster {s}/cluster.json --out {s}/run", &c);
    put(fd, "{\n  \"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1}},\n  \"sites\": [");
    close(fd);
    char *err;
    int st = finish(c, &err);
    cr_assert_eq(exit_code(st), 2, "status %d: %s", exit_code(st), err);
    cr_assert_not_null(strstr(err, "/cluster.json:3: JSON syntax error"), "%s", err);
    cr_assert(!exists("run"));
    free(err);
}

/* A read error (a directory given as the job file). */
Test(failure, jobs_file_read_error)
{
    cr_assert_eq(sh("mkdir %s/dir.csv", scratch), 0);
    char *err;
    int st = finish(spawn("run --quiet --jobs {s}/dir.csv --out {s}/run", RLIM_INFINITY), &err);
    cr_assert_eq(exit_code(st), 2, "status %d: %s", exit_code(st), err);
    cr_assert_not_null(strstr(err, "/dir.csv: read error: Is a directory"), "%s", err);
    cr_assert(!exists("run"));
    free(err);
}

/* ---- SIGINT and SIGTERM -------------------------------------------------------- */

/* A run that goes on for seconds unless stopped: one job of 10^11 s on a cluster
 * scraped every minute, up to 5 x 10^6 timeline rows. */
static const char long_run[] =
    "run --quiet --jobs {s}/long.csv --set max_timeline_rows=5000000 --out {s}/run";

static void write_long_job(void)
{
    cr_assert_eq(sh("printf 'id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,"
                    "origin,duration_s\\nlong,0,-,1,1,0,1,1,1,0,bj,1e11\\n' > %s/long.csv",
                    scratch),
                 0);
}

/* Waits until the run's timeline temporary exists: the simulation is under way. */
static void wait_for_timeline(void)
{
    for (int i = 0; i < FAIL_CHILD_TIMEOUT_S * 1000; i++) {
        if (sh("ls -A %s/run 2>/dev/null | grep -q '^\\.timeline\\.csv\\.tmp\\.'", scratch) == 0)
            return;
        nanosleep(&(struct timespec){0, FAIL_POLL_NS}, NULL);
    }
    cr_assert_fail("the run never started its timeline");
}

/* Signal sig while the simulation runs: cpnsim dies of it (the shell sees 128 + sig)
 * after removing its temporaries, says so, and writes no summary.json. */
static void stop_mid_run(int sig, const char *said)
{
    write_long_job();
    struct child c = spawn(long_run, RLIM_INFINITY);
    wait_for_timeline();
    cr_assert_eq(kill(c.pid, sig), 0);
    char *err;
    int st = finish(c, &err);
    cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == sig, "status %d (want death by signal %d): %s",
              exit_code(st), sig, err);
    cr_assert_not_null(strstr(err, said), "%s", err);
    cr_assert_not_null(strstr(err, "run stopped, no results written"), "%s", err);
    assert_not_complete("run");
    cr_assert(!exists("run/timeline.csv") && !exists("run/jobs.csv"));
    free(err);
}

Test(failure, sigint_during_the_simulation) { stop_mid_run(SIGINT, "cpnsim: interrupted"); }

Test(failure, sigterm_during_the_simulation) { stop_mid_run(SIGTERM, "cpnsim: terminated"); }

/* A signal that arrives while the outputs are written (after the last event): the
 * writer checks the stop flag before it commits jobs.csv and before summary.json, so
 * the run ends as stopped (CPN_ESTOP, and cpnsim dies of the signal) with neither file
 * and no temporary; with no signal the same call writes both. */
Test(failure, signal_while_writing_the_outputs)
{
    struct run r;
    run_start(&r, one_node_cluster(2, 80, 60, "poll"), NULL, 0,
              "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,duration_s\n"
              "a,0,-,1,1,0,1,1,1,0,a,100\nb,5,-,1,1,0,1,1,1,0,a,50\n",
              "fifo");
    char dir[512], err[CPN_ERR_LEN] = "";
    snprintf(dir, sizeof dir, "%s/w", scratch);
    cr_assert_eq(mkdir(dir, 0755), 0);
    volatile sig_atomic_t flag = SIGTERM;
    struct report_meta m = {.policy = "fifo", .seed = 1, .predictor = "oracle", .stop = &flag};
    int rc = report_write_run(dir, r.s, &m, NULL, NULL, err, sizeof err);
    cr_assert_eq(rc, CPN_ESTOP, "rc %d: %s", rc, err);
    cr_assert_not_null(strstr(err, "stopped by signal 15 while writing the outputs"), "%s", err);
    assert_not_complete("w");
    cr_assert(!exists("w/jobs.csv"));
    cr_assert_eq(sh("test -z \"$(ls -A %s)\"", dir), 0, "temporaries left in %s", dir);
    flag = 0;
    cr_assert_eq(report_write_run(dir, r.s, &m, NULL, NULL, err, sizeof err), 0, "%s", err);
    cr_assert(exists("w/jobs.csv") && exists("w/summary.json"));
    run_free(&r);
}

/* The timeline handed to report_write_run is committed beside jobs.csv (on a thread),
 * whatever happens to the other files, and always before summary.json. */
Test(failure, the_timeline_is_committed_beside_the_outputs)
{
    struct run r;
    run_start(&r, one_node_cluster(2, 80, 60, "poll"), NULL, 0,
              "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,duration_s\n"
              "a,0,-,1,1,0,1,1,1,0,a,100\n",
              "fifo");
    char dir[512], err[CPN_ERR_LEN] = "";
    snprintf(dir, sizeof dir, "%s/t", scratch);
    cr_assert_eq(mkdir(dir, 0755), 0);
    volatile sig_atomic_t flag = SIGTERM;
    struct report_meta m = {.policy = "fifo", .seed = 1, .predictor = "oracle", .stop = &flag};
    for (int round = 0; round < 2; round++) {
        struct afile tl = {0};
        cr_assert_eq(afile_open(&tl, dir, "timeline.csv", err, sizeof err), 0, "%s", err);
        fprintf(tl.f, "round %d\n", round);
        int rc = report_write_run(dir, r.s, &m, &tl, NULL, err, sizeof err);
        cr_assert_null(tl.f);
        cr_assert_eq(sh("test \"$(cat %s/timeline.csv)\" = 'round %d'", dir, round), 0);
        if (round == 0) {
            cr_assert_eq(rc, CPN_ESTOP, "rc %d: %s", rc, err);
            assert_not_complete("t");
            cr_assert(!exists("t/jobs.csv"));
        } else {
            cr_assert_eq(rc, 0, "%s", err);
            cr_assert(exists("t/jobs.csv") && exists("t/summary.json"));
        }
        cr_assert_eq(sh("test -z \"$(find %s -name '.*.tmp.*')\"", dir), 0, "temporaries left");
        flag = 0;
    }
    run_free(&r);
}

/* A run killed outright (SIGKILL) leaves its temporaries; the next run into the same
 * directory removes those of writers that are gone, and keeps one whose writer still
 * runs (another run into the directory). */
Test(failure, stale_temporaries_are_removed)
{
    cr_assert_eq(sh("mkdir -p %s/run && { sleep 30 >/dev/null 2>&1 & echo $! > %s/live.pid; }", scratch, scratch), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/live.pid", scratch);
    char *pid = slurp(path);
    cr_assert_not_null(pid);
    pid[strcspn(pid, "\n")] = '\0';
    cr_assert_eq(sh("cd %s/run && : > .timeline.csv.tmp.2147483646 && : > .jobs.csv.tmp.x && "
                    ": > .jobs.csv.tmp.%s",
                    scratch, pid),
                 0);
    cr_assert_eq(sh("%s run --quiet --jobs traces/q40.csv --out %s/run", bin(), scratch), 0);
    cr_assert(exists("run/summary.json"));
    cr_assert(!exists("run/.timeline.csv.tmp.2147483646") && !exists("run/.jobs.csv.tmp.x"));
    char live[64];
    snprintf(live, sizeof live, "run/.jobs.csv.tmp.%s", pid);
    cr_assert(exists(live), "the live writer's temporary was removed");
    sh("kill %s 2>/dev/null", pid);
    free(pid);
}

/* SIGINT while cpnsim waits for more of its job file (a FIFO): the read returns, and
 * it dies of the signal without starting the run. */
Test(failure, sigint_while_reading_jobs)
{
    struct child c;
    int fd = fifo_start("jobs.csv", "run --quiet --jobs {s}/jobs.csv --out {s}/run", &c);
    put(fd, csv_header);
    put(fd, csv_row);
    nanosleep(&(struct timespec){0, 50 * FAIL_POLL_NS}, NULL);
    cr_assert_eq(kill(c.pid, SIGINT), 0);
    nanosleep(&(struct timespec){0, 50 * FAIL_POLL_NS}, NULL);
    close(fd); /* in case the signal came before the read began */
    char *err;
    int st = finish(c, &err);
    cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGINT, "status %d: %s", exit_code(st), err);
    assert_not_complete("run");
    free(err);
}

/* A SIGTERM the caller ignores (nohup, a background job) stays ignored: the run ends
 * normally. */
Test(failure, ignored_sigterm_stays_ignored)
{
    cr_assert_eq(sh("trap '' TERM; %s run --quiet --jobs traces/q40.csv --out %s/run & p=$!; "
                    "sleep 0.05; kill -TERM $p 2>/dev/null; wait $p",
                    bin(), scratch),
                 0);
    cr_assert(exists("run/summary.json"));
}

/* The library call: a stop flag already set stops run_simulation at its first event
 * with CPN_ESTOP, leaving no summary.json and no temporary. Sweeps pass no flag. */
Test(failure, run_simulation_stop_flag)
{
    char out[512];
    snprintf(out, sizeof out, "%s/lib", scratch);
    volatile sig_atomic_t flag = SIGTERM;
    struct run_request req = {.policy = RUN_DEFAULT_POLICY, .predictor = "oracle", .seed = 1,
                              .out = out, .stop = &flag};
    char err[CPN_ERR_LEN] = "";
    int rc = run_simulation(&req, NULL, err, sizeof err);
    cr_assert_eq(rc, CPN_ESTOP, "rc %d: %s", rc, err);
    cr_assert_not_null(strstr(err, "stopped by signal 15"), "%s", err);
    assert_not_complete("lib");
    flag = 0;
    cr_assert_eq(run_simulation(&req, NULL, err, sizeof err), 0, "%s", err);
    cr_assert(exists("lib/summary.json"));
}

/* ---- issue 18: the stop flag inside a scheduling point (polidx) ---------------- */

/* SIGTERM in the middle of one long scheduling point: sjf on a site of 200,000 nodes
 * looks at every free node for each of 20,000 jobs submitted at once, one point of
 * minutes (default did too, before its classes of nodes). The stop flag was checked
 * only between events, so SIGTERM waited for the point to end (182 s for default on a
 * cluster of a million nodes); now the engine checks it between placements and the
 * policies in their passes over the queue and the nodes. cpnsim dies of the signal,
 * writes nothing, and long before the child's timeout. */
Test(failure, sigterm_inside_a_long_scheduling_point)
{
    cr_assert_eq(sh("printf '{\"gpu_types\": {\"H100-80G\": {\"mem_gib\": 80}}, \"sites\": ["
                    "{\"name\": \"a\", \"nodes\": [{\"count\": 200000, \"cpus\": 64, "
                    "\"mem_gib\": 512, \"gpu_type\": \"H100-80G\", \"gpus\": 8}]}, "
                    "{\"name\": \"b\", \"nodes\": [{\"count\": 1, \"cpus\": 64, \"mem_gib\": 512, "
                    "\"gpu_type\": \"H100-80G\", \"gpus\": 8}]}], \"links\": [{\"a\": \"a\", "
                    "\"b\": \"b\", \"gbps\": 10, \"latency_ms\": 20}]}' > %s/big.json && "
                    "%s gen --count 20000 --cluster %s/big.json -o %s/q.csv",
                    scratch, bin(), scratch, scratch),
                 0);
    struct child c = spawn("run --quiet --policy sjf --cluster {s}/big.json --jobs {s}/q.csv "
                           "--out {s}/run",
                           RLIM_INFINITY);
    wait_for_timeline(); /* the first scrape is written: the first point is under way */
    nanosleep(&(struct timespec){0, 500 * FAIL_POLL_NS}, NULL);
    cr_assert_eq(kill(c.pid, SIGTERM), 0);
    char *err;
    int st = finish(c, &err);
    cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "status %d (want death by SIGTERM): %s",
              exit_code(st), err);
    cr_assert_not_null(strstr(err, "run stopped, no results written"), "%s", err);
    assert_not_complete("run");
    free(err);
}

/* ---- a long YAML parse (sim/io/k8s_load.c) ------------------------------------- */

/* SIGTERM while cpnsim parses a long stream of Job YAML: the reader checks the stop
 * flag as it reads, so cpnsim dies of the signal without reading on. The writer sends
 * the signal after 1 MB and writes on until the pipe breaks; before the reader
 * checked the flag it parsed all 64 MB, so the writer never saw the pipe break. */
Test(failure, sigterm_during_a_long_yaml_parse)
{
    /* Documents of another kind are read and skipped, so the stream can go on. */
    static const char doc[] = "---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n"
                              "data:\n  a: [1, 2, {b: c}]\n";
    enum { STOP_AFTER = 1 << 20, WRITE_AT_MOST = 64 << 20 };
    struct child c;
    int fd = fifo_start("jobs.yaml", "run --quiet --jobs {s}/jobs.yaml --out {s}/run", &c);
    signal(SIGPIPE, SIG_IGN);
    size_t sent = 0;
    bool broke = false;
    while (sent < WRITE_AT_MOST && !broke) {
        if (sent >= STOP_AFTER && sent < STOP_AFTER + sizeof doc - 1)
            cr_assert_eq(kill(c.pid, SIGTERM), 0);
        ssize_t w = write(fd, doc, sizeof doc - 1);
        broke = w < 0 && errno == EPIPE;
        cr_assert(w > 0 || broke, "write: %s", strerror(errno));
        sent += w > 0 ? (size_t)w : 0;
    }
    close(fd);
    char *err;
    int st = finish(c, &err);
    cr_assert(broke, "the reader read all %zu bytes after the signal", sent);
    cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM, "status %d: %s", exit_code(st), err);
    cr_assert_not_null(strstr(err, "run stopped, no results written"), "%s", err);
    cr_assert(!exists("run"), "an output directory was made");
    free(err);
}

/* Writes `levels` nested JSON arrays (open) or objects to name under the scratch
 * directory. */
static void write_deep_json(const char *name, size_t levels, bool objects)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", scratch, name);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    for (size_t i = 0; i < levels; i++)
        fputs(objects ? "{\"a\":" : "[", f);
    fputs("1", f);
    for (size_t i = 0; i < levels; i++)
        fputc(objects ? '}' : ']', f);
    cr_assert_eq(fclose(f), 0);
}

/* A regular file one byte over the 2 GiB read limit (sparse: no disk, all zeros), as a
 * JSON or YAML job file, a cluster, a sweep spec and an import's trace, is refused from
 * its size with exit status 2 before a byte is read: read, its first byte would have
 * been refused as a NUL. */
Test(failure, a_file_over_the_read_limit_is_refused_unread)
{
    static const char *const names[] = {"big.json", "big.yaml"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char p[512];
        snprintf(p, sizeof p, "%s/%s", scratch, names[i]);
        int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        cr_assert(fd >= 0);
        cr_assert_eq(ftruncate(fd, (off_t)CPN_READ_MAX + 1), 0, "%s", strerror(errno));
        cr_assert_eq(close(fd), 0);
    }
    static const char *const cmds[] = {"run --quiet --jobs {s}/big.json --out {s}/run",
                                       "run --quiet --jobs {s}/big.yaml --out {s}/run",
                                       "run --quiet --cluster {s}/big.json --out {s}/run",
                                       "sweep {s}/big.json --out {s}/run",
                                       "import philly {s}/big.json -o {s}/run.csv"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        char *err;
        int st = finish(spawn(cmds[i], RLIM_INFINITY), &err);
        cr_assert_eq(exit_code(st), 2, "%s: status %d: %s", cmds[i], exit_code(st), err);
        cr_assert_not_null(strstr(err, "big.json: larger than 2048 MiB") ||
                               strstr(err, "big.yaml: larger than 2048 MiB"),
                           "%s: %s", cmds[i], err);
        cr_assert(!exists("run") && !exists("run.csv"), "%s: an output was made", cmds[i]);
        free(err);
    }
}

/* JSON nested 100,000 levels deep, as a job file, a cluster and a sweep spec: cJSON's
 * nesting limit refuses it at line 1 with exit status 2 (no crash, no output). */
Test(failure, deep_json_is_refused_at_once)
{
    static const char *const cmds[] = {"run --quiet --jobs {s}/deep.json --out {s}/run",
                                       "run --quiet --cluster {s}/deep.json --out {s}/run",
                                       "sweep {s}/deep.json --out {s}/run"};
    for (int objects = 0; objects < 2; objects++) {
        write_deep_json("deep.json", 100000, objects);
        for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
            char *err;
            int st = finish(spawn(cmds[i], RLIM_INFINITY), &err);
            cr_assert_eq(exit_code(st), 2, "%s: status %d: %s", cmds[i], exit_code(st), err);
            cr_assert_not_null(strstr(err, "deep.json:1: JSON nested deeper than 1000 levels"),
                               "%s: %s", cmds[i], err);
            cr_assert(!exists("run"), "%s: an output directory was made", cmds[i]);
            free(err);
        }
    }
}
