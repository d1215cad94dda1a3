/* GPU time-slicing as processor sharing (sim_share.c): jobs on the same GPUs share
 * one virtual clock, so their ends, a kill in their midst and CPU contention must give
 * the times worked out by hand in the comment above each test. Jobs are given by
 * duration on a speed-1.0 GPU with no catalogue profile, so their work is exact; a
 * long scrape interval keeps FIFO's view at the idle scrape of time 0, so FIFO puts
 * every job on GPU 0. rK is catalog_share_rate(K). */
#include <criterion/criterion.h>
#include <stdio.h>

#include "helpers.h"

#define HDR "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,duration_s,gpu_mem_gib\n"
#define EPS 1e-6

static const struct jobrt *rt(const struct run *r, const char *id) { return &r->s->rt[run_job(r, id)]; }

/* Runs FIFO (run_start) and sets rk[k] = catalog_share_rate(k) for k = 0..4. */
static void run_fifo(struct run *r, const char *cluster, const char *const *sets, size_t n_sets,
                     const char *jobs_csv, double rk[5])
{
    run_start(r, cluster, sets, n_sets, jobs_csv, "fifo");
    for (unsigned k = 0; k < 5; k++)
        rk[k] = catalog_share_rate(r->cat, k);
}

/* a, b and c (30, 60 and 100 s of work) start at 0 on GPU 0; d (20 s) joins at 10.
 * Until 10 the three go at r3 and each does 10 r3. Then four go at r4: d, the least
 * work left (20 against a's 30 - 10 r3), ends at t1 = 10 + 20 / r4. a has 10 - 10 r3
 * left, at r3: t2 = t1 + (10 - 10 r3) / r3. b has done 30 and does 30 more at r2:
 * t3 = t2 + 30 / r2. c has done 60 and does its last 40 alone: t4 = t3 + 40. */
Test(share, jobs_on_one_gpu_end_when_their_work_is_done)
{
    struct run r;
    double rk[5];
    run_fifo(&r, one_node_cluster(1, 80, 1000, "event"), NULL, 0,
              HDR "a,0,-,1,1,0,1,1,1,0,a,30,10\n"
                  "b,0,-,1,1,0,1,1,1,0,a,60,10\n"
                  "c,0,-,1,1,0,1,1,1,0,a,100,10\n"
                  "d,10,-,1,1,0,1,1,1,0,a,20,10\n",
             rk);
    double r2 = rk[2], r3 = rk[3], r4 = rk[4];
    cr_assert(r4 < r3 && r3 < r2 && r2 < 1, "r2 %g r3 %g r4 %g", r2, r3, r4);
    double t1 = 10 + 20 / r4, t2 = t1 + (10 - 10 * r3) / r3, t3 = t2 + 30 / r2, t4 = t3 + 40;
    cr_assert_float_eq(run_start_s(&r, "d"), 10, EPS);
    cr_assert_float_eq(rt(&r, "d")->end_s, t1, EPS);
    cr_assert_float_eq(rt(&r, "a")->end_s, t2, EPS);
    cr_assert_float_eq(rt(&r, "b")->end_s, t3, EPS);
    cr_assert_float_eq(rt(&r, "c")->end_s, t4, EPS);
    cr_assert_eq(r.s->st.completed, 4);
    run_free(&r);
}

/* a, b, e and c (300, 1000, 800 and 500 s of work, 20 GiB each) start at 0 on one
 * 70 GiB GPU. They peak at warmup_s (20) in that order and c, the last, overflows it:
 * it is killed and, with backoff_limit 0, fails at 20. Its finish lies between a's
 * and the others', so it leaves from the middle of their group. Each has done 20 r4.
 * a's other 300 - 20 r4 go at r3: it ends at t1 = 20 + (300 - 20 r4) / r3. e's last
 * 500 go at r2: t2 = t1 + 500 / r2, and b does its last 200 alone: t3 = t2 + 200. */
Test(share, a_kill_in_a_shared_group_leaves_the_others_ends_right)
{
    const char *sets[] = {"backoff_limit=0"};
    struct run r;
    double rk[5];
    run_fifo(&r, one_node_cluster(1, 70, 10000, "event"), sets, 1,
              HDR "a,0,-,1,1,0,1,1,1,0,a,300,20\n"
                  "b,0,-,1,1,0,1,1,1,0,a,1000,20\n"
                  "e,0,-,1,1,0,1,1,1,0,a,800,20\n"
                  "c,0,-,1,1,0,1,1,1,0,a,500,20\n",
             rk);
    cr_assert_eq(rt(&r, "c")->state, JS_FAILED);
    cr_assert_eq(rt(&r, "c")->kills, 1);
    cr_assert_float_eq(rt(&r, "c")->end_s, 20, EPS);
    double t1 = 20 + (300 - 20 * rk[4]) / rk[3], t2 = t1 + 500 / rk[2];
    cr_assert_float_eq(rt(&r, "a")->end_s, t1, EPS);
    cr_assert_float_eq(rt(&r, "e")->end_s, t2, EPS);
    cr_assert_float_eq(rt(&r, "b")->end_s, t2 + 200, EPS);
    cr_assert_eq(r.s->st.oom_events, 1);
    run_free(&r);
}

/* a and b (40 and 100 s of work) each keep 10 cores busy at full speed and share the
 * one GPU of an 8-core node. At r2 they ask 20 r2 > 8 cores, so the node serves
 * f = 8 / (20 r2) of it and both go at r2 f = 0.4: a ends at 40 / 0.4 = 100, having
 * lost 100 (1 - f). b has 60 s left and, alone, asks 10 cores: it goes at 0.8 and
 * ends 75 s later, at 175, having lost 100 (1 - f) + 75 x 0.2 = 100 (1 - f) + 15. */
Test(share, cpu_contention_slows_a_group_and_counts_its_loss)
{
    const char *cluster =
        "{\"scrape_interval_s\": 1000, \"completion\": \"event\",\n"
        " \"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1.0, \"profile\": \"none\"}},\n"
        " \"sites\": [{\"name\": \"a\", \"nodes\": [{\"count\": 1, \"cpus\": 8,\n"
        "   \"mem_gib\": 512, \"gpu_type\": \"G\", \"gpus\": 1}]}]}\n";
    struct run r;
    run_start(&r, cluster, NULL, 0,
              "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,"
              "duration_s,gpu_mem_gib,cpu_cores_used\n"
              "a,0,-,1,1,0,1,1,1,0,a,40,10,10\n"
              "b,0,-,1,1,0,1,1,1,0,a,100,10,10\n",
              "fifo");
    double r2 = catalog_share_rate(r.cat, 2), f = 8 / (20 * r2);
    cr_assert(f < 1, "f %g", f);
    cr_assert_float_eq(rt(&r, "a")->end_s, 100, EPS);
    cr_assert_float_eq(rt(&r, "b")->end_s, 175, EPS);
    cr_assert_float_eq(rt(&r, "a")->cpu_lost_s, 100 * (1 - f), EPS);
    cr_assert_float_eq(rt(&r, "b")->cpu_lost_s, 100 * (1 - f) + 15, EPS);
    cr_assert_float_eq(r.s->st.cpu_lost_gpu_s, 200 * (1 - f) + 15, EPS);
    cr_assert_eq(r.s->st.cpu_slowed_jobs, 2);
    run_free(&r);
}
