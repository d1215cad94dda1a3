/* CPU as a load (docs/cpu.md): jobs' demand, proportional sharing when it exceeds a
 * node's cores, other tenants' background load, what a scrape reads, and the
 * controller's node filter. Every expected value is worked out by hand in the
 * comment above its test. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"

#define HDR "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,duration_s,gpu_mem_gib,cpu_cores_used\n"
#define EPS 1e-6

static const struct jobrt *rt(const struct run *r, const char *id) { return &r->s->rt[run_job(r, id)]; }

/* One node of `cpus` cores and `gpus` GPUs with a background load (JSON text, e.g.
 * "0.5" or an object), live metrics unless scrape_s > 0, completions seen at once. */
static const char *cpu_cluster(double cpus, unsigned gpus, const char *bg, double scrape_s)
{
    static char buf[1024];
    snprintf(buf, sizeof buf,
             "{\"scrape_interval_s\": %g, \"completion\": \"event\",\n"
             " \"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1.0, \"profile\": \"none\"}},\n"
             " \"sites\": [{\"name\": \"a\", \"nodes\": [{\"count\": 1, \"cpus\": %g,\n"
             "   \"mem_gib\": 512, \"gpu_type\": \"G\", \"gpus\": %u, \"background_cpu\": %s}]}]}\n",
             scrape_s, cpus, gpus, bg);
    return buf;
}

/* Two 100 s jobs that each keep 6 cores busy, on their own GPUs of an 8-core node:
 * they ask 12 cores, so each progresses at 8/12 = 2/3 and both end at 150 s, each
 * having lost 150 x (1 - 2/3) = 50 s (100 GPU-seconds in all). */
Test(cpu, two_jobs_share_the_cores_in_proportion)
{
    struct run r;
    run_start(&r, cpu_cluster(8, 2, "0", 0), NULL, 0,
              HDR "j1,0,-,1,1,0,1,1,1,0,a,100,10,6\n"
                  "j2,0,-,1,1,0,1,1,1,0,a,100,10,6\n",
              "fifo");
    cr_assert_float_eq(rt(&r, "j1")->end_s, 150, EPS);
    cr_assert_float_eq(rt(&r, "j2")->end_s, 150, EPS);
    cr_assert_float_eq(rt(&r, "j1")->cpu_lost_s, 50, EPS);
    cr_assert_float_eq(r.s->st.cpu_lost_gpu_s, 100, EPS);
    cr_assert_eq(r.s->st.cpu_slowed_jobs, 2);
    run_free(&r);
}

/* The same with j2 half as long: both go at 2/3 until j2's 50 s of work end at 75 s;
 * j1 has then done 50 s and does the other 50 alone at full rate, ending at 125 s.
 * Each lost 75 / 3 = 25 s. */
Test(cpu, rates_recover_when_a_job_leaves)
{
    struct run r;
    run_start(&r, cpu_cluster(8, 2, "0", 0), NULL, 0,
              HDR "j1,0,-,1,1,0,1,1,1,0,a,100,10,6\n"
                  "j2,0,-,1,1,0,1,1,1,0,a,50,10,6\n",
              "fifo");
    cr_assert_float_eq(rt(&r, "j2")->end_s, 75, EPS);
    cr_assert_float_eq(rt(&r, "j1")->end_s, 125, EPS);
    cr_assert_float_eq(rt(&r, "j1")->cpu_lost_s, 25, EPS);
    cr_assert_float_eq(rt(&r, "j2")->cpu_lost_s, 25, EPS);
    run_free(&r);
}

/* Jobs within the node's cores lose nothing: 3 + 4 cores of 8. */
Test(cpu, demand_within_the_cores_costs_nothing)
{
    struct run r;
    run_start(&r, cpu_cluster(8, 2, "0", 0), NULL, 0,
              HDR "j1,0,-,1,1,0,1,1,1,0,a,100,10,3\n"
                  "j2,0,-,1,1,0,1,1,1,0,a,100,10,4\n",
              "fifo");
    cr_assert_float_eq(rt(&r, "j1")->end_s, 100, EPS);
    cr_assert_float_eq(rt(&r, "j2")->end_s, 100, EPS);
    cr_assert_eq(r.s->st.cpu_slowed_jobs, 0);
    cr_assert_float_eq(r.s->st.cpu_lost_gpu_s, 0, EPS);
    run_free(&r);
}

/* Other tenants take half of 8 cores: a job asking 6 gets 4, goes at 4/6 and its
 * 100 s of work end at 150 s. */
Test(cpu, background_load_shrinks_what_is_available)
{
    const char *sets[] = {"cpu_threshold=2"};
    struct run r;
    run_start(&r, cpu_cluster(8, 1, "0.5", 0), sets, 1, HDR "j1,0,-,1,1,0,1,1,1,0,a,100,10,6\n",
              "fifo");
    cr_assert_float_eq(rt(&r, "j1")->end_s, 150, EPS);
    cr_assert_float_eq(rt(&r, "j1")->cpu_lost_s, 50, EPS);
    run_free(&r);
}

/* What a scrape reads: (min(available, demand) + cpus x background) / cpus. With 8
 * cores, background 0.25 (2 cores) and a job keeping 3 busy: (3 + 2) / 8 = 0.625 in
 * the truth at 50 s; the controller's view still holds the scrape at 0 s, taken before
 * the job arrived: 2 / 8 = 0.25. With the job asking 7 (more than the 6 available):
 * (6 + 2) / 8 = 1. */
Test(cpu, the_scrape_reads_busy_cores_over_all_cores)
{
    const char *sets[] = {"horizon_s=50"};
    struct run r;
    run_start(&r, cpu_cluster(8, 1, "0.25", 60), sets, 1, HDR "j1,0,-,1,1,0,1,1,1,0,a,100,10,3\n",
              "fifo");
    cr_assert_float_eq(r.s->node_cpu_util[0], 0.625, EPS);
    cr_assert_float_eq(r.s->view.node_cpu_util[0], 0.25, EPS);
    run_free(&r);
    run_start(&r, cpu_cluster(8, 1, "0.25", 60), sets, 1, HDR "j1,0,-,1,1,0,1,1,1,0,a,100,10,7\n",
              "fifo");
    cr_assert_float_eq(r.s->node_cpu_util[0], 1.0, EPS);
    run_free(&r);
}

/* Demand follows the GPU-limited rate: two 6-core jobs time-sliced on one GPU (the
 * stale scrape at 0 shows it idle to both) each go at the sharing rate r2 and so ask
 * 6 r2 cores, 12 r2 < 8 in all: no CPU contention, and both end at 100 / r2. */
Test(cpu, demand_scales_with_gpu_sharing)
{
    struct run r;
    run_start(&r, cpu_cluster(8, 1, "0", 60), NULL, 0,
              HDR "j1,0,-,1,1,0,1,1,1,0,a,100,10,6\n"
                  "j2,0,-,1,1,0,1,1,1,0,a,100,10,6\n",
              "fifo");
    double r2 = catalog_share_rate(r.cat, 2);
    cr_assert_lt(12 * r2, 8);
    cr_assert_float_eq(rt(&r, "j1")->end_s, 100 / r2, 1e-3);
    cr_assert_float_eq(rt(&r, "j2")->end_s, 100 / r2, 1e-3);
    cr_assert_eq(r.s->st.cpu_slowed_jobs, 0);
    run_free(&r);
}

/* The controller's filter: a node whose other tenants keep 80% of its cores busy is at
 * or above cpu_threshold 0.7, so fifo, optimal, sjf and easy never place there and the
 * job is stuck; default (kube-scheduler) does not apply the filter and runs it. With
 * the filter off, or a threshold of 0.9, every policy runs it. */
Test(cpu, every_controller_policy_honours_the_threshold_and_default_does_not)
{
    static const char *const controller[] = {"fifo", "optimal", "sjf", "easy"};
    const char *job = HDR "j1,0,-,1,1,0,1,1,1,0,a,100,10,1\n";
    for (size_t i = 0; i < 4; i++) {
        struct run r;
        run_start(&r, cpu_cluster(8, 1, "0.8", 60), NULL, 0, job, controller[i]);
        cr_assert(r.s->st.deadlock, "%s placed on a node above the threshold", controller[i]);
        cr_assert_eq(rt(&r, "j1")->state, JS_STUCK, "%s", controller[i]);
        run_free(&r);
        const char *off[] = {"cpu_filter=false"}, *high[] = {"cpu_threshold=0.9"};
        run_start(&r, cpu_cluster(8, 1, "0.8", 60), off, 1, job, controller[i]);
        cr_assert_eq(rt(&r, "j1")->state, JS_DONE, "%s with cpu_filter=false", controller[i]);
        run_free(&r);
        run_start(&r, cpu_cluster(8, 1, "0.8", 60), high, 1, job, controller[i]);
        cr_assert_eq(rt(&r, "j1")->state, JS_DONE, "%s at 0.9", controller[i]);
        run_free(&r);
    }
    struct run r;
    run_start(&r, cpu_cluster(8, 1, "0.8", 60), NULL, 0, job, "default");
    cr_assert_eq(rt(&r, "j1")->state, JS_DONE);
    run_free(&r);
}

/* The filter reads the scrape, not the truth. Other tenants keep 4 of 8 cores busy
 * (0.5): the scrape at 0 s reads 0.5 and j1 (2 cores) is placed at once. From then the
 * node is at (2 + 4) / 8 = 0.75, which the scrape at 60 s reads, so j3, arriving at
 * 90 s to a free GPU, waits; j1 ends at 100 s and the scrape at 120 s reads 0.5 again:
 * j3 starts at 120 s. */
Test(cpu, the_filter_reads_the_scrape)
{
    struct run r;
    run_start(&r, cpu_cluster(8, 2, "0.5", 60), NULL, 0,
              HDR "j1,0,-,1,1,0,1,1,1,0,a,100,10,2\n"
                  "j3,90,-,1,1,0,1,1,1,0,a,10,10,1\n",
              "fifo");
    cr_assert_float_eq(run_start_s(&r, "j1"), 0, EPS);
    cr_assert_float_eq(run_start_s(&r, "j3"), 120, EPS);
    run_free(&r);
}

/* A varying background: mean 0.3, amplitude 0.2, period 400 s, step 100 s, no noise:
 * at 100-199 s it is 0.3 + 0.2 sin(pi / 2) = 0.5, at 200 s 0.3 + 0.2 sin(pi) = 0.3,
 * at 300 s 0.3 - 0.2 = 0.1. With noise it depends only on the seed, node and step:
 * the same for two runs of one seed (and so for every policy), another for another
 * seed, and never outside [0, 0.95]. */
Test(cpu, the_background_is_a_function_of_seed_node_and_time)
{
    const char *wave = "{\"mean\": 0.3, \"amplitude\": 0.2, \"period_s\": 400, \"step_s\": 100}";
    struct run r;
    run_start(&r, cpu_cluster(8, 1, wave, 60), NULL, 0, HDR "j1,0,-,1,1,0,1,1,1,0,a,10,10,1\n",
              "fifo");
    cr_assert_float_eq(sim_background(r.s, 0, 150), 0.5, EPS);
    cr_assert_float_eq(sim_background(r.s, 0, 100), 0.5, EPS);
    cr_assert_float_eq(sim_background(r.s, 0, 200), 0.3, EPS);
    cr_assert_float_eq(sim_background(r.s, 0, 399), 0.1, EPS);
    run_free(&r);

    const char *noisy = "{\"mean\": 0.5, \"noise\": 0.3, \"step_s\": 60}";
    struct run a, b;
    run_start(&a, cpu_cluster(8, 1, noisy, 60), NULL, 0, HDR "j1,0,-,1,1,0,1,1,1,0,a,10,10,1\n",
              "fifo");
    run_start(&b, cpu_cluster(8, 1, noisy, 60), NULL, 0, HDR "j1,0,-,1,1,0,1,1,1,0,a,10,10,1\n",
              "optimal");
    size_t differ = 0;
    for (int k = 0; k < 200; k++) {
        double x = sim_background(a.s, 0, 60.0 * k);
        cr_assert_eq(x, sim_background(b.s, 0, 60.0 * k));
        cr_assert(x >= 0 && x <= CLUSTER_MAX_BACKGROUND);
        b.s->seed = 2;
        differ += sim_background(b.s, 0, 60.0 * k) != x;
        b.s->seed = 1;
    }
    cr_assert_gt(differ, 190);
    run_free(&a);
    run_free(&b);
}

/* A queue that only other tenants' load could unblock: with the background always at
 * or above the threshold (0.8 +- 0.1 every 100 s, period 1000 s) the job waits one
 * period plus one step without any placement, then is declared stuck. */
Test(cpu, waiting_on_background_alone_ends_in_deadlock)
{
    const char *bg = "{\"mean\": 0.85, \"amplitude\": 0.05, \"period_s\": 1000, \"step_s\": 100}";
    struct run r;
    run_start(&r, cpu_cluster(8, 1, bg, 60), NULL, 0, HDR "j1,0,-,1,1,0,1,1,1,0,a,10,10,1\n",
              "fifo");
    cr_assert(r.s->st.deadlock);
    cr_assert_eq(rt(&r, "j1")->state, JS_STUCK);
    cr_assert_leq(r.s->now, 1100 + 100 + EPS);
    run_free(&r);
}

/* cpu_cost_scale multiplies the measured pipeline cost, not the core per GPU process
 * nor a job's own cpu_cores_used: resnet50 (imagenet_train, 2.873 ms per sample) at
 * batch 256 on 2 GPUs with 0.5 s steps feeds 1,024 samples/s, so it keeps
 * 2 + 1024 x 2.873 / 1000 = 4.942 cores busy, and 2 + 3 x 2.942 = 10.826 at scale 3. */
Test(cpu, cost_scale_multiplies_the_pipeline_part)
{
    struct catalog *c;
    char err[CPN_ERR_LEN];
    cr_assert_eq(catalog_create(&c, err, sizeof err), 0, "%s", err);
    struct job jb = {.model = catalog_model_find(c, "resnet50"), .batch = 256, .gpus = 2, .cpus = 8};
    cr_assert_geq(jb.model, 0);
    cr_assert_float_eq(job_cpu_cores(&jb, c, 0.5), 2 + 1024 * 2.873e-3, 1e-9);
    cr_assert_float_eq(job_cpu_cores_scaled(&jb, c, 0.5, 3), 2 + 3 * 1024 * 2.873e-3, 1e-9);
    jb.cpu_cores_used = 5;
    cr_assert_eq(job_cpu_cores_scaled(&jb, c, 0.5, 3), 5);
    catalog_destroy(c);
}
