/* Scenario tests of the engine with FIFO: small inputs whose right answer is worked
 * out by hand in the comments. Jobs are given by duration on a speed-1.0 GPU with no
 * catalogue profile, so run times are exact. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include <cjson/cJSON.h>
#include <stdlib.h>

#include "../sim/io/report.h"
#include "helpers.h"

#define HDR "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,duration_s,gpu_mem_gib\n"
#define EPS 1e-6

static const struct jobrt *rt(const struct run *r, const char *id) { return &r->s->rt[run_job(r, id)]; }

/* Ideal controller: j2 starts the moment j1 ends. */
Test(scenario, two_jobs_ideal_controller)
{
    struct run r;
    run_start(&r, one_node_cluster(1, 80, 0, "event"), NULL, 0,
              HDR "j1,0,-,1,1,0,1,1,1,0,a,100,10\n"
                  "j2,0,-,1,1,0,1,1,1,0,a,50,10\n",
              "fifo");
    cr_assert_float_eq(run_start_s(&r, "j1"), 0, EPS);
    cr_assert_float_eq(rt(&r, "j1")->end_s, 100, EPS);
    cr_assert_float_eq(run_start_s(&r, "j2"), 100, EPS);
    cr_assert_float_eq(rt(&r, "j2")->end_s, 150, EPS);
    cr_assert_eq(r.s->st.completed, 2);
    cr_assert_eq(r.s->st.oom_events, 0);
    run_free(&r);
}

/* j2 arrives at 70, after the scrape at 60 showed j1 on the GPU. j1 ends at 100. The
 * GPU looks idle again only in the scrape at 120 (and with polling the controller
 * learns of the end at 120 too), so j2 runs 120..170, whatever the completion mode. */
static void stale_start(double scrape, const char *completion, double want_start)
{
    struct run r;
    run_start(&r, one_node_cluster(1, 80, scrape, completion), NULL, 0,
              HDR "j1,0,-,1,1,0,1,1,1,0,a,100,10\n"
                  "j2,70,-,1,1,0,1,1,1,0,a,50,10\n",
              "fifo");
    cr_assert_float_eq(rt(&r, "j1")->end_s, 100, EPS);
    cr_assert_float_eq(run_start_s(&r, "j2"), want_start, EPS, "scrape %g %s: start %g", scrape,
                       completion, run_start_s(&r, "j2"));
    cr_assert_float_eq(rt(&r, "j2")->end_s, want_start + 50, EPS);
    run_free(&r);
}

Test(scenario, stale_scrape_and_polling_delay_the_next_start)
{
    stale_start(60, "poll", 120);
    stale_start(60, "event", 120);
    stale_start(0, "poll", 120); /* live metrics, but the end is learnt at the poll */
    stale_start(0, "event", 100); /* the ideal controller */
}

/* Both jobs arrive at 0 and the scrape at 0 shows an idle GPU, so FIFO puts both on
 * it: each progresses at rate r2 = catalog_share_rate(2). j2 (50 s of work) ends at
 * 50/r2; j1 has 50 s left and, alone, ends 50 s later. */
Test(scenario, stale_scrape_double_placement_time_slices)
{
    struct run r;
    run_start(&r, one_node_cluster(2, 80, 60, "event"), NULL, 0,
              HDR "j1,0,-,1,1,0,1,1,1,0,a,100,10\n"
                  "j2,0,-,1,1,0,1,1,1,0,a,50,10\n",
              "fifo");
    double r2 = catalog_share_rate(r.cat, 2);
    cr_assert(r2 > 0.4 && r2 < 0.5, "r2 %g", r2);
    cr_assert_eq(r.s->job_gpus[r.s->slot_first[run_job(&r, "j1")]], 0);
    cr_assert_eq(r.s->job_gpus[r.s->slot_first[run_job(&r, "j2")]], 0, "both on GPU 0");
    cr_assert_float_eq(rt(&r, "j2")->end_s, 50 / r2, EPS);
    cr_assert_float_eq(rt(&r, "j1")->end_s, 50 / r2 + 50, EPS);
    run_free(&r);

    /* The ideal controller sees j1 on GPU 0 and puts j2 on GPU 1. */
    run_start(&r, one_node_cluster(2, 80, 0, "event"), NULL, 0,
              HDR "j1,0,-,1,1,0,1,1,1,0,a,100,10\n"
                  "j2,0,-,1,1,0,1,1,1,0,a,50,10\n",
              "fifo");
    cr_assert_eq(r.s->job_gpus[r.s->slot_first[run_job(&r, "j2")]], 1);
    cr_assert_float_eq(rt(&r, "j1")->end_s, 100, EPS);
    cr_assert_float_eq(rt(&r, "j2")->end_s, 50, EPS);
    run_free(&r);
}

/* A 2-GPU job goes at the pace of its slower GPU: j1 on GPUs 0 and 1, j2 (stale
 * view) on GPU 0, both 100 s of work: both run at r2 and end together at 100/r2. */
Test(scenario, multi_gpu_job_paced_by_shared_gpu)
{
    struct run r;
    run_start(&r, one_node_cluster(2, 80, 60, "event"), NULL, 0,
              HDR "j1,0,-,1,1,0,2,1,1,0,a,100,10\n"
                  "j2,0,-,1,1,0,1,1,1,0,a,100,10\n",
              "fifo");
    double r2 = catalog_share_rate(r.cat, 2);
    cr_assert_float_eq(rt(&r, "j1")->end_s, 100 / r2, EPS);
    cr_assert_float_eq(rt(&r, "j2")->end_s, 100 / r2, EPS);
    run_free(&r);
}

/* A job needing 20 GiB on a 16 GiB GPU is killed warmup_s (20 s) after each start.
 * The controller learns at once (completion event) and retries after 10, 20, 40, 80 s:
 * attempt k starts at S_k, S_1 = 0, S_{k+1} = S_k + 20 + 10*2^(k-1): 0, 30, 70, 130,
 * 230. With backoff_limit L the job fails at S_{L+1} + 20 after L+1 kills. */
Test(scenario, oom_retries_back_off_then_fail)
{
    static const double starts[] = {0, 30, 70, 130, 230};
    for (unsigned limit = 0; limit <= 4; limit++) {
        char set[64];
        snprintf(set, sizeof set, "backoff_limit=%u", limit);
        const char *sets[] = {set};
        struct run r;
        run_start(&r, one_node_cluster(1, 16, 0, "event"), sets, 1,
                  HDR "j1,0,-,1,1,0,1,1,1,0,a,100,20\n", "fifo");
        const struct jobrt *j = rt(&r, "j1");
        cr_assert_eq(j->state, JS_FAILED);
        cr_assert_eq(j->kills, limit + 1);
        cr_assert_eq(r.s->attempts[run_job(&r, "j1")], limit + 1);
        double start_s = run_start_s(&r, "j1");
        cr_assert_float_eq(start_s, starts[limit], EPS, "limit %u: last start %g", limit, start_s);
        cr_assert_float_eq(j->end_s, starts[limit] + 20, EPS);
        cr_assert_eq(r.s->st.oom_events, limit + 1);
        cr_assert_eq(r.s->st.oom_jobs, 1);
        cr_assert_eq(r.s->st.failed, 1);
        run_free(&r);
    }
}

/* The back-off is capped: with base 100 and cap 150, the retries wait 100, 150, 150. */
Test(scenario, oom_backoff_is_capped)
{
    const char *sets[] = {"backoff_base_s=100", "backoff_cap_s=150", "backoff_limit=3"};
    struct run r;
    run_start(&r, one_node_cluster(1, 16, 0, "event"), sets, 3,
              HDR "j1,0,-,1,1,0,1,1,1,0,a,100,20\n", "fifo");
    /* starts: 0, 120, 290, 460; fails at 480. */
    cr_assert_float_eq(run_start_s(&r, "j1"), 460, EPS);
    cr_assert_float_eq(rt(&r, "j1")->end_s, 480, EPS);
    run_free(&r);
}

/* Two 50 GiB jobs land on one 80 GiB GPU (stale scrape at 0). j1 peaks first at 20;
 * j2 peaks next and is killed (the last to peak). Retried at 30 (the view still
 * shows the scrape at 0: idle), it lands on the same GPU and is killed again at 50.
 * Its next retry (at 70) finds the scrape at 60 showing the GPU busy, so it waits.
 * j1 shared the GPU during [0,20] and [30,50] at rate r2 and ran alone otherwise:
 * it ends at 1040 - 40 r2. j2 starts at the first scrape after that (1080) and runs
 * its 1000 s alone. */
Test(scenario, colocation_oom_kills_the_last_to_peak)
{
    struct run r;
    run_start(&r, one_node_cluster(1, 80, 60, "event"), NULL, 0,
              HDR "j1,0,-,1,1,0,1,1,1,0,a,1000,50\n"
                  "j2,0,-,1,1,0,1,1,1,0,a,1000,50\n",
              "fifo");
    double r2 = catalog_share_rate(r.cat, 2);
    const struct jobrt *a = rt(&r, "j1"), *b = rt(&r, "j2");
    cr_assert_eq(a->kills, 0);
    cr_assert_eq(b->kills, 2);
    cr_assert_float_eq(a->end_s, 1040 - 40 * r2, EPS);
    double want = ceil((1040 - 40 * r2) / 60) * 60;
    cr_assert_float_eq(run_start_s(&r, "j2"), want, EPS);
    cr_assert_float_eq(b->end_s, want + 1000, EPS);
    cr_assert_eq(b->state, JS_DONE);
    cr_assert_eq(r.s->st.oom_events, 2);
    cr_assert_eq(r.s->st.oom_jobs, 1);
    run_free(&r);
}

/* A 16-GPU job on an 8-GPU node can never start. FIFO blocks on it (head of line):
 * j0 runs, j2 waits behind j1, and once j0 has ended and a scrape shows it (120),
 * nothing can change: deadlock, with j1 and j2 stuck. */
Test(scenario, oversized_job_deadlocks_fifo)
{
    struct run r;
    run_start(&r, one_node_cluster(8, 80, 60, "event"), NULL, 0,
              HDR "j0,0,-,1,1,0,1,1,1,0,a,100,10\n"
                  "j1,1,-,1,1,0,16,1,1,0,a,100,10\n"
                  "j2,2,-,1,1,0,1,1,1,0,a,100,10\n",
              "fifo");
    cr_assert(r.s->st.deadlock);
    cr_assert_eq(r.s->st.completed, 1);
    cr_assert_eq(r.s->st.stuck, 2);
    cr_assert_eq(rt(&r, "j1")->state, JS_STUCK);
    cr_assert_eq(rt(&r, "j2")->state, JS_STUCK);
    cr_assert_float_eq(r.s->now, 120, EPS);
    run_free(&r);
}

/* With a horizon, jobs not ended by then are reported unfinished. j2, running at the
 * horizon, started at 100 and has no end: its end_s, which held its lost_mark_s (0
 * here) while it ran, is -1. Each job's run-time state is one cache line. */
Test(scenario, horizon_stops_the_run)
{
    const char *sets[] = {"horizon_s=150"};
    struct run r;
    run_start(&r, one_node_cluster(1, 80, 0, "event"), sets, 1,
              HDR "j1,0,-,1,1,0,1,1,1,0,a,100,10\n"
                  "j2,0,-,1,1,0,1,1,1,0,a,100,10\n",
              "fifo");
    cr_assert(r.s->st.horizon_reached);
    cr_assert_eq(rt(&r, "j1")->state, JS_DONE);
    cr_assert_eq(rt(&r, "j2")->state, JS_UNFINISHED);
    cr_assert_float_eq(run_start_s(&r, "j2"), 100, EPS);
    cr_assert_eq(rt(&r, "j2")->end_s, -1);
    cr_assert_eq((uintptr_t)r.s->rt % SIM_CACHE_LINE, 0);
    cr_assert_eq(r.s->st.unfinished, 1);
    run_free(&r);
}

/* JCT over all jobs (summary.json's jct_all_*): two 16-GiB GPUs, horizon 150. j1 runs
 * 0..100 (JCT 100). j2 needs 20 GiB: killed at its warm-up's end, 20 s, and with
 * backoff_limit 0 it fails there; it is counted to the run's end, 150, not to its
 * failure. j3 starts when GPU 1 frees, at 20, runs 1000 s and is unfinished at 150
 * (counted to the run's end: 150). j4 arrives at 200, after the run: left out. Mean
 * over all (100 + 150 + 150) / 3 = 133.33, median 150; over completed jobs only, 100. */
Test(scenario, jct_over_all_jobs_counts_failures_and_the_run_end)
{
    const char *sets[] = {"horizon_s=150", "backoff_limit=0"};
    struct run r;
    run_start(&r, one_node_cluster(2, 16, 0, "event"), sets, 2,
              HDR "j1,0,-,1,1,0,1,1,1,0,a,100,10\n"
                  "j2,0,-,1,1,0,1,1,1,0,a,100,20\n"
                  "j3,0,-,1,1,0,1,1,1,0,a,1000,10\n"
                  "j4,200,-,1,1,0,1,1,1,0,a,10,10\n",
              "fifo");
    cr_assert_eq(rt(&r, "j2")->state, JS_FAILED);
    cr_assert_float_eq(rt(&r, "j2")->end_s, 20, EPS);
    cr_assert_eq(rt(&r, "j3")->state, JS_UNFINISHED);
    struct report_meta m = {.policy = "fifo", .seed = 1, .predictor = "oracle"};
    char *txt = report_summary_json(r.s, &m);
    cJSON *o = cJSON_Parse(txt);
    cr_assert_not_null(o);
    cr_assert_float_eq(cJSON_GetObjectItem(o, "jct_all_mean_s")->valuedouble, 400.0 / 3, EPS);
    cr_assert_float_eq(cJSON_GetObjectItem(o, "jct_all_p50_s")->valuedouble, 150, EPS);
    cr_assert_float_eq(cJSON_GetObjectItem(o, "jct_mean_s")->valuedouble, 100, EPS);
    cr_assert_eq(cJSON_GetObjectItem(o, "not_completed")->valueint, 3);
    cJSON_Delete(o);
    free(txt);
    run_free(&r);
}
