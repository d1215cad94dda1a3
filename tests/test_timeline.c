/* timeline.csv keeps a row only where something changed (sim/io/report.c) and the
 * loop skips idle samples (sim/engine/sim.c, on_sample): runs on one node small enough
 * to list every sample by hand. The cluster scrapes every 60 s; duration-only jobs on
 * one site run exactly their duration_s from their placement (no transfer). */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers.h"
#include "../sim/base/util.h"
#include "../sim/tools/run.h"

static char dir[64];

static void scratch_init(void)
{
    snprintf(dir, sizeof dir, "/tmp/cpn_timeline_XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
}

static void scratch_fini(void) { sh("rm -rf %s", dir); }

TestSuite(timeline, .init = scratch_init, .fini = scratch_fini);

static void write_file(const char *name, const char *text)
{
    char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0);
}

/* Runs fifo on a one-node cluster of two GPUs with the jobs given as "id,submit_s,
 * duration_s" lines; returns the summary's event count. */
static uint64_t run_jobs(const char *jobs)
{
    write_file("cluster.json", one_node_cluster(2, 80, 60, "poll"));
    char csv[2048];
    int n = snprintf(csv, sizeof csv, "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,"
                                      "image_gib,origin,duration_s\n");
    for (const char *l = jobs; *l;) {
        size_t len = strcspn(l, "\n");
        char id[16];
        double submit, duration;
        cr_assert_eq(sscanf(l, "%15[^,],%lf,%lf", id, &submit, &duration), 3);
        n += snprintf(csv + n, sizeof csv - (size_t)n, "%s,%g,-,1,1,0,1,1,1,0,a,%g\n", id, submit,
                      duration);
        l += len + (l[len] == '\n');
    }
    write_file("jobs.csv", csv);
    char cluster[128], jobs_path[128], out[128], err[CPN_ERR_LEN];
    snprintf(cluster, sizeof cluster, "%s/cluster.json", dir);
    snprintf(jobs_path, sizeof jobs_path, "%s/jobs.csv", dir);
    snprintf(out, sizeof out, "%s/run", dir);
    struct run_request req = {.cluster = cluster, .jobs = jobs_path, .policy = "fifo",
                              .predictor = "oracle", .seed = 1, .out = out};
    struct run_result res;
    cr_assert_eq(run_simulation(&req, &res, err, sizeof err), 0, "%s", err);
    return res.events;
}

/* The timeline's time_s and running columns, one "time:running" a row, joined by
 * spaces. */
static char *times_and_running(void)
{
    char p[128];
    snprintf(p, sizeof p, "%s/run/timeline.csv", dir);
    char *t = slurp(p);
    cr_assert_not_null(t);
    char *out = cpn_calloc(strlen(t) + 1, 1), *w = out;
    char *line = strchr(t, '\n') + 1; /* past the header */
    while (*line) {
        double time;
        unsigned queued, running;
        cr_assert_eq(sscanf(line, "%lf,%u,%u", &time, &queued, &running), 3);
        w += sprintf(w, "%s%g:%u", w == out ? "" : " ", time, running);
        line = strchr(line, '\n') + 1;
    }
    free(t);
    return out;
}

/* One job of 1000 s from time 0. The scrapes at 0 (before it arrives), 60, ..., 960
 * are the samples (it ends at 1000 s, which ends the run). 0 shows nothing running,
 * 60 the job; 120 to 960 read as 60 did: only 960, the last, is written. The summary
 * still counts the 17 scrapes among its events. */
Test(timeline, one_long_job_keeps_first_change_and_last)
{
    uint64_t events = run_jobs("j1,0,1000\n");
    char *got = times_and_running();
    cr_expect_str_eq(got, "0:0 60:1 960:1");
    free(got);
    /* 17 scrapes, the arrival, the transfer's end, the end of its warm-up (its memory
     * peak) and the job's end. */
    cr_expect_eq(events, 21);
}

/* A change in the middle: j2 arrives at 300 s and runs 1000 s beside j1 (a GPU each).
 * Rows: 0 (nothing), 60 (j1), 240 (the last that read as 60), 300 (j2 queued at the
 * scrape, placed after it: still one running), 360 (two), 960 (the last before j1's end
 * at 1000), 1020 (one), 1260 (the last before j2's end at 1300). */
Test(timeline, rows_around_each_change)
{
    run_jobs("j1,0,1000\nj2,300,1000\n");
    char *got = times_and_running();
    cr_expect_str_eq(got, "0:0 60:1 240:1 300:1 360:2 960:2 1020:1 1260:1");
    free(got);
}

/* Every scrape sees a change: job k arrives at 120k + 30 s and runs 60 s, so the
 * scrapes at 60, 180, ... see one job running and those at 0, 120, ... none. Every
 * sample up to 540 (the last before the last end, at 570) is a row. */
Test(timeline, every_change_keeps_every_row)
{
    run_jobs("j0,30,60\nj1,150,60\nj2,270,60\nj3,390,60\nj4,510,60\n");
    char *got = times_and_running();
    cr_expect_str_eq(got, "0:0 60:1 120:0 180:1 240:0 300:1 360:0 420:1 480:0 540:1");
    free(got);
}

/* A time-weighted mean over the rows, each value holding until the next row (as the
 * plots draw them, with steps), is the mean over every sample: in
 * one_long_job_keeps_first_change_and_last the node's one busy GPU of two shows
 * a_gpu_util 0 at 0 and 0.5 from 60 to 960, so the mean over [0, 960] is
 * 0.5 x 900 / 960 = 0.46875, as the 17 evenly spaced samples give it. */
Test(timeline, time_weighted_mean_is_unchanged)
{
    run_jobs("j1,0,1000\n");
    char p[128];
    snprintf(p, sizeof p, "%s/run/timeline.csv", dir);
    char *t = slurp(p);
    cr_assert_not_null(t);
    const char *hdr_util = strstr(t, "a_gpu_util");
    cr_assert_not_null(hdr_util);
    size_t col = 0;
    for (const char *c = t; c < hdr_util; c++)
        col += *c == ',';
    double area = 0, prev_t = 0, prev_u = 0, first_t = -1;
    for (char *line = strchr(t, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
        double time = strtod(line, NULL);
        const char *c = line;
        for (size_t k = 0; k < col; k++)
            c = strchr(c, ',') + 1;
        double u = strtod(c, NULL);
        if (first_t < 0)
            first_t = time;
        else
            area += prev_u * (time - prev_t);
        prev_t = time;
        prev_u = u;
    }
    free(t);
    cr_expect_float_eq(area / (prev_t - first_t), 0.46875, 1e-12);
}
