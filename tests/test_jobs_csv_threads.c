/* jobs.csv written by two threads, a block of rows each in turn (sim/io/report.c): the
 * same bytes as one thread writes, whatever the block, with quoted site names and ids,
 * pods, jobs never placed and jobs that ended; and the same when it is written as the
 * run goes, the prefix of jobs that ended for good first. */
#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../sim/base/util.h"
#include "../sim/io/report.h"
#include "helpers.h"

#define HDR "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,duration_s\n"

/* Sites "plain" and `we,ird "site"` of two-GPU nodes. */
static const char cluster_json[] =
    "{\"scrape_interval_s\": 0, \"completion\": \"event\", \"horizon_s\": 900,\n"
    " \"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1.0, \"profile\": \"none\"}},\n"
    " \"sites\": [{\"name\": \"plain\", \"nodes\": [{\"count\": 3, \"cpus\": 64,\n"
    "   \"mem_gib\": 512, \"gpu_type\": \"G\", \"gpus\": 2}]},\n"
    "  {\"name\": \"we,ird \\\"site\\\"\", \"nodes\": [{\"count\": 2, \"cpus\": 64,\n"
    "   \"mem_gib\": 512, \"gpu_type\": \"G\", \"gpus\": 2}]}],\n"
    " \"links\": [{\"a\": \"plain\", \"b\": \"we,ird \\\"site\\\"\", \"gbps\": 10,\n"
    "   \"latency_ms\": 30}]}\n";

/* The bytes of report_jobs_csv_blocks(block_rows, threads), in a string to free. */
static char *jobs_csv(const struct sim *s, size_t block_rows, bool threads)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    cr_assert_eq(report_jobs_csv_blocks(f, s, block_rows, threads), 0);
    cr_assert_eq(fclose(f), 0);
    return buf;
}

/* 301 jobs, as CSV to free, and their pods: a few ids quoted, every fifth job of two
 * pods, durations that make them end out of order. */
static char *queue_301(uint32_t *pods)
{
    enum { JOBS = 301 };
    size_t cap = 64 * JOBS, len = 0;
    char *csv = malloc(cap);
    len += (size_t)snprintf(csv + len, cap - len, HDR);
    for (int i = 0; i < JOBS; i++) {
        len += (size_t)snprintf(csv + len, cap - len, "%s%d%s,%d,-,1,1,0,%d,1,1,0,plain,%d\n",
                                i % 17 == 3 ? "\"j," : "j", i, i % 17 == 3 ? "\"" : "", i * 3,
                                1 + i % 2, 50 + (i * 37) % 400);
        pods[i] = i % 5 == 0 ? 2 : 1;
    }
    return csv;
}

Test(jobs_csv_threads, same_bytes_for_every_block)
{
    static uint32_t pods[301];
    char *csv = queue_301(pods);
    struct run r;
    run_start_pods(&r, cluster_json, NULL, 0, csv, "fifo", pods);
    char *one = jobs_csv(r.s, 2048, false);
    cr_assert_not_null(strstr(one, "\"we,ird \"\"site\"\"\",\"we,ird \"\"site\"\"-n"), "%s", one);
    cr_assert_not_null(strstr(one, "\"j,3\","));
    cr_assert_not_null(strstr(one, ",unfinished,"));
    cr_assert_not_null(strstr(one, ",done,"));
    char *dflt = NULL;
    size_t dlen = 0;
    FILE *f = open_memstream(&dflt, &dlen);
    cr_assert_eq(report_jobs_csv(f, r.s), 0);
    fclose(f);
    cr_assert_str_eq(dflt, one);
    free(dflt);
    static const size_t blocks[] = {1, 2, 3, 7, 64, 150, 151, 300, 301, 302};
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++)
        for (int threads = 0; threads < 2; threads++) {
            char *got = jobs_csv(r.s, blocks[b], threads);
            cr_assert_str_eq(got, one, "block %zu threads %d", blocks[b], threads);
            free(got);
        }
    free(one);
    run_free(&r);
    free(csv);
}

Test(jobs_csv_threads, a_full_disk_is_an_error)
{
    /* Written to the descriptor (an unbuffered FILE: the header fails there first) or
     * through the FILE (its buffer's flush fails), a full disk makes it return -1 with
     * the reason in errno. */
    struct run r;
    run_start(&r, cluster_json, NULL, 0, HDR "a,0,-,1,1,0,1,1,1,0,plain,10\n"
                                             "b,0,-,1,1,0,1,1,1,0,plain,10\n", "fifo");
    for (int buffered = 0; buffered < 2; buffered++)
        for (int threads = 0; threads < 2; threads++) {
            FILE *f = fopen("/dev/full", "w");
            cr_assert_not_null(f);
            if (!buffered)
                setvbuf(f, NULL, _IONBF, 0);
            errno = 0;
            cr_assert_eq(report_jobs_csv_blocks(f, r.s, 1, threads), -1);
            cr_assert_eq(errno, ENOSPC, "buffered %d threads %d: %s", buffered, threads,
                         strerror(errno));
            fclose(f);
        }
    run_free(&r);
}

/* A live run's hook: checks each prefix it is told of against a scan of the jobs'
 * states, on the run's thread, then passes it on to the writer. With stop, it sets the
 * flag once the prefix reaches stop_at. */
struct watch {
    const struct sim *s;
    struct report_jobs *jobs;
    size_t k; /* the last prefix told */
    volatile sig_atomic_t *stop;
    size_t stop_at;
};

static void watch_ended(void *ctx, size_t k)
{
    struct watch *w = ctx;
    size_t p = 0;
    while (p < w->s->jobs->n &&
           (w->s->rt[p].state == JS_DONE || w->s->rt[p].state == JS_FAILED))
        p++;
    cr_assert_eq(k, p, "told of a prefix of %zu jobs, %zu ended", k, p);
    cr_assert_gt(k, w->k);
    w->k = k;
    if (w->stop && k >= w->stop_at)
        *w->stop = SIGTERM;
    report_jobs_ended(w->jobs, k);
}

/* The size of dir's temporary of jobs.csv (-1 when there is none). */
static long long tmp_size(const char *dir)
{
    char path[600];
    snprintf(path, sizeof path, "%s/.jobs.csv.tmp.%ld", dir, (long)getpid());
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

/* Runs r's sim (created, not run) with jobs.csv written into dir as it goes,
 * block_rows rows at a time, and checks that the file holds the bytes that one thread
 * writes at the end. Once the run is over, and before its end is written, the blocks of
 * the prefix that ended during it reach the file without the end's help (the writer's
 * thread; there is none for a run of fewer than two blocks). */
static void check_live(struct run *r, const char *dir, size_t block_rows)
{
    char err[CPN_ERR_LEN] = "";
    struct report_jobs *jobs;
    cr_assert_eq(report_jobs_open(&jobs, dir, r->s, block_rows, err, sizeof err), 0, "%s", err);
    struct watch w = {.s = r->s, .jobs = jobs};
    struct sim_final final = {watch_ended, &w};
    r->s->final = &final;
    cr_assert_eq(sim_run(r->s, err, sizeof err), 0, "%s", err);
    r->s->final = NULL;
    size_t n = r->s->jobs->n, rows = w.k == n ? n : w.k / block_rows * block_rows;
    char *one = jobs_csv(r->s, 2048, false);
    long long want = 0;
    for (size_t lines = 0; lines < rows + 1; want++)
        lines += one[want] == '\n';
    if (n >= 2 * block_rows) {
        for (int i = 0; i < 60000 && tmp_size(dir) < want; i++)
            nanosleep(&(struct timespec){0, 1000000}, NULL);
        cr_assert_geq(tmp_size(dir), want, "block %zu: %lld of %lld bytes written", block_rows,
                      tmp_size(dir), want);
    }
    struct report_meta m = {.policy = "fifo", .seed = 1, .predictor = "oracle"};
    cr_assert_eq(report_write_run(dir, r->s, &m, NULL, jobs, err, sizeof err), 0, "%s", err);
    char path[600];
    snprintf(path, sizeof path, "%s/jobs.csv", dir);
    char *got = slurp(path);
    cr_assert_not_null(got);
    cr_assert_str_eq(got, one, "block %zu", block_rows);
    free(got);
    free(one);
}

/* A scratch directory, made empty. */
static const char *scratch_dir(void)
{
    static char dir[64];
    snprintf(dir, sizeof dir, "/tmp/cpn_jobs_live_%ld", (long)getpid());
    cr_assert_eq(sh("rm -rf %s && mkdir -p %s", dir, dir), 0);
    return dir;
}

/* Jobs ending out of order (durations vary), some of two pods, quoted names, and the
 * horizon leaving some unfinished: written as the run goes, the bytes are those of
 * one thread at the end, for every block. */
Test(jobs_csv_threads, written_during_the_run_horizon)
{
    static uint32_t pods[301];
    char *csv = queue_301(pods);
    const char *dir = scratch_dir();
    static const size_t blocks[] = {1, 2, 3, 7, 64, 150, 151, 300, 301, 302, 2048};
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
        struct run r;
        run_create_pods(&r, cluster_json, NULL, 0, csv, policy_find("fifo"), pods);
        check_live(&r, dir, blocks[b]);
        cr_assert_gt(r.s->st.unfinished, 0);
        run_free(&r);
    }
    sh("rm -rf %s", dir);
    free(csv);
}

#define HDR_MEM \
    "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,duration_s," \
    "gpu_mem_gib\n"

/* Sixty jobs on one node of 8 GPUs of 16 GiB: every seventh needs 20 GiB and fails
 * after an OOM kill and a retry (backoff_limit=1), later than the jobs after it end;
 * the last, of 16 GPUs, arrives once the others have ended and can never start: fifo
 * deadlocks with it stuck. */
static char *queue_stuck(void)
{
    size_t cap = 64 * 61, len = 0;
    char *csv = malloc(cap);
    len += (size_t)snprintf(csv + len, cap - len, HDR_MEM);
    for (int i = 0; i < 60; i++)
        len += (size_t)snprintf(csv + len, cap - len, "j%d,%d,-,1,1,0,%d,1,1,0,a,%d,%d\n", i,
                                i == 59 ? 5000 : i, i == 59 ? 16 : 1, 30 + (i * 53) % 200,
                                i % 7 == 2 ? 20 : 8);
    return csv;
}

Test(jobs_csv_threads, written_during_the_run_failed_and_stuck)
{
    char *csv = queue_stuck();
    const char *dir = scratch_dir();
    static const size_t blocks[] = {1, 4, 16, 30, 64};
    for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
        struct run r;
        const char *sets[] = {"backoff_limit=1"};
        run_create(&r, one_node_cluster(8, 16, 0, "event"), sets, 1, csv, policy_find("fifo"));
        check_live(&r, dir, blocks[b]);
        cr_assert(r.s->st.deadlock);
        cr_assert_gt(r.s->st.failed, 0);
        cr_assert_eq(r.s->st.stuck, 1);
        run_free(&r);
    }
    sh("rm -rf %s", dir);
    free(csv);
}

/* A run stopped by a signal while its writer's thread writes the prefix leaves no
 * jobs.csv and no temporary. */
Test(jobs_csv_threads, a_stopped_run_leaves_no_file)
{
    static uint32_t pods[301];
    char *csv = queue_301(pods);
    const char *dir = scratch_dir();
    struct run r;
    run_create_pods(&r, cluster_json, NULL, 0, csv, policy_find("fifo"), pods);
    char err[CPN_ERR_LEN] = "";
    struct report_jobs *jobs;
    cr_assert_eq(report_jobs_open(&jobs, dir, r.s, 2, err, sizeof err), 0, "%s", err);
    volatile sig_atomic_t flag = 0;
    struct watch w = {.s = r.s, .jobs = jobs, .stop = &flag, .stop_at = 10};
    struct sim_final final = {watch_ended, &w};
    r.s->final = &final;
    r.s->stop = &flag;
    int rc = sim_run(r.s, err, sizeof err);
    cr_assert_eq(rc, CPN_ESTOP, "rc %d k %zu: %s", rc, w.k, err);
    cr_assert_geq(w.k, 10);
    report_jobs_abort(jobs);
    cr_assert_eq(sh("test -z \"$(ls -A %s)\"", dir), 0, "files left in %s", dir);
    sh("rm -rf %s", dir);
    run_free(&r);
    free(csv);
}
