/* jobs.csv written by two threads, a block of rows each in turn (sim/io/report.c): the
 * same bytes as one thread writes, whatever the block, with quoted site names and ids,
 * pods, jobs never placed and jobs that ended. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

Test(jobs_csv_threads, same_bytes_for_every_block)
{
    enum { JOBS = 301 };
    size_t cap = 64 * JOBS, len = 0;
    char *csv = malloc(cap);
    len += (size_t)snprintf(csv + len, cap - len, HDR);
    static uint32_t pods[JOBS];
    for (int i = 0; i < JOBS; i++) {
        len += (size_t)snprintf(csv + len, cap - len, "%s%d%s,%d,-,1,1,0,%d,1,1,0,plain,%d\n",
                                i % 17 == 3 ? "\"j," : "j", i, i % 17 == 3 ? "\"" : "", i * 3,
                                1 + i % 2, 50 + (i * 37) % 400);
        pods[i] = i % 5 == 0 ? 2 : 1;
    }
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
