/* How each policy places distributed jobs (docs/policies.md): default pod by pod (and
 * its pod-by-pod deadlock) or with gang_scheduling; sjf, easy and optimal all of a
 * job's pods at once; optimal's count of the all-reduce. Inputs small enough that the
 * right answer is worked out by hand in the comments. The ideal controller (live
 * metrics, ends learnt at once); jobs given by duration on speed-1 GPUs without a
 * catalogue profile, unless a test says otherwise. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "helpers.h"

#define HDR "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,duration_s,gpu_mem_gib\n"
#define EPS 1e-6

/* `nodes` nodes of one GPU, 8 cores and 64 GiB in site a: a pod of 8 cores and 64 GiB
 * takes a whole node (default's filter looks at requests, not GPUs, unless
 * gpu_as_resource). */
static const char *whole_nodes(unsigned nodes)
{
    static char buf[1024];
    snprintf(buf, sizeof buf,
             "{\"scrape_interval_s\": 0, \"completion\": \"event\",\n"
             " \"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1.0, \"profile\": \"none\"}},\n"
             " \"sites\": [{\"name\": \"a\", \"nodes\": [{\"count\": %u,\n"
             "   \"cpus\": 8, \"mem_gib\": 64, \"gpu_type\": \"G\", \"gpus\": 1}]}]}\n",
             nodes);
    return buf;
}

/* Two jobs of two whole-node pods, 100 s each; b submitted at b_submit. */
static const char *two_jobs(double b_submit)
{
    static char buf[512];
    snprintf(buf, sizeof buf,
             HDR "a,0,-,1,1,0,1,8,64,0,a,100,10\n"
                 "b,%g,-,1,1,0,1,8,64,0,a,100,10\n",
             b_submit);
    return buf;
}

static const uint32_t two_pods[] = {2, 2};

/* Every run here checks the policies' indexes against plain scans at each scheduling
 * point (policy_check_indexes). */
static void checks_on(void) { policy_check_indexes = true; }
TestSuite(gang_default, .init = checks_on);

static const struct jobrt *rt(const struct run *r, const char *id) { return &r->s->rt[run_job(r, id)]; }

/* ---- default, pod by pod ---- */

/* a and b enter the queue together, so kube-scheduler's pod queue holds a's first pod,
 * b's first, a's second, b's second. a0 takes node 0 (the lowest index of equal
 * scores), b0 node 1; a1 and b1 find both nodes full and wait, each job holding one
 * node for ever (gang_timeout_s 0): the run ends at 0 as a deadlock. */
Test(gang_default, pods_of_jobs_queued_together_deadlock)
{
    struct run r;
    static const char *const sets[] = {"gang_timeout_s=0"};
    run_start_pods(&r, whole_nodes(2), sets, 1, two_jobs(0), "default", two_pods);
    cr_assert(r.s->st.deadlock);
    cr_assert_eq(r.s->st.stuck, 2);
    uint32_t a = run_job(&r, "a"), b = run_job(&r, "b");
    cr_assert_eq(r.s->rt[a].state, JS_STUCK);
    cr_assert_eq(r.s->rt[b].state, JS_STUCK);
    cr_assert_eq(sim_pods_placed(r.s, a), 1);
    cr_assert_eq(sim_pods_placed(r.s, b), 1);
    cr_assert_eq(sim_pod_node(r.s, a, 0), 0);
    cr_assert_eq(sim_pod_node(r.s, b, 0), 1);
    cr_assert_float_eq(r.s->now, 0, EPS);
    run_free(&r);
}

/* b submitted 1 s after a: a's two pods are bound at 0, one per node, before b's are
 * created; a runs 0..100, b waits, and b's pods take the nodes when a ends: 100..200. */
Test(gang_default, pods_of_a_job_queued_first_go_first)
{
    struct run r;
    static const char *const sets[] = {"gang_timeout_s=0"};
    run_start_pods(&r, whole_nodes(2), sets, 1, two_jobs(1), "default", two_pods);
    cr_assert(!r.s->st.deadlock);
    cr_assert_float_eq(run_start_s(&r, "a"), 0, EPS);
    cr_assert_float_eq(rt(&r, "a")->end_s, 100, EPS);
    cr_assert_float_eq(run_start_s(&r, "b"), 100, EPS);
    cr_assert_float_eq(rt(&r, "b")->end_s, 200, EPS);
    cr_assert_eq(r.s->st.completed, 2);
    run_free(&r);
}

/* The deadlock of pods_of_jobs_queued_together_deadlock with the default gang timeout
 * (1800 s): both attempts time out together, both jobs back off alike (10, 20, 40,
 * 80 s) and come back together, so the pods interleave and deadlock again, until the
 * fifth timeout is more than backoff_limit (4) allows. Attempts at 0, 1810, 3630,
 * 5470 and 7350; both fail at 9150. (default takes a timed-out job out of its back-off
 * cohort each time.) */
Test(gang_default, timeouts_turn_the_deadlock_into_a_livelock)
{
    struct run r;
    run_start_pods(&r, whole_nodes(2), NULL, 0, two_jobs(0), "default", two_pods);
    cr_assert(!r.s->st.deadlock);
    cr_assert_eq(r.s->st.gang_timeouts, 10);
    cr_assert_eq(r.s->st.failed, 2);
    for (uint32_t j = 0; j < 2; j++) {
        cr_assert_eq(r.s->rt[j].state, JS_FAILED);
        cr_assert_eq(r.s->attempts[j], 5);
        cr_assert_float_eq(r.s->rt[j].end_s, 7350 + 1800, EPS);
    }
    run_free(&r);
}

/* With gang_scheduling, a's two pods are found nodes together (node 0, then node 1,
 * which a's first pod does not fill: a pod of a job shuns a node holding another
 * without gpu_as_resource) and bound together at 0: a runs 0..100. b finds no node for
 * its first pod and backs off; when a ends, both its pods are bound: 100..200. */
Test(gang_default, gang_scheduling_binds_all_pods_or_none)
{
    struct run r;
    static const char *const sets[] = {"gang_timeout_s=0", "gang_scheduling=true"};
    run_start_pods(&r, whole_nodes(2), sets, 2, two_jobs(0), "default", two_pods);
    cr_assert(!r.s->st.deadlock);
    cr_assert_float_eq(run_start_s(&r, "a"), 0, EPS);
    cr_assert_float_eq(rt(&r, "a")->end_s, 100, EPS);
    cr_assert_float_eq(run_start_s(&r, "b"), 100, EPS);
    cr_assert_float_eq(rt(&r, "b")->end_s, 200, EPS);
    uint32_t a = run_job(&r, "a");
    cr_assert_neq(sim_pod_node(r.s, a, 0), sim_pod_node(r.s, a, 1));
    cr_assert_eq(r.s->st.placements, 2);
    run_free(&r);
}

/* ---- sjf, easy, optimal: all of a job's pods at once ---- */

TestSuite(gang_all_at_once, .init = checks_on);

/* The queue of pods_of_jobs_queued_together_deadlock: a, first in the queue (the two
 * are alike in length), finds a node for each pod (node 0, then node 1, which its
 * first pod's requests fill) and both are placed at 0: a runs 0..100. b's first pod
 * finds no node, so none of its pods is placed; it starts when a ends: 100..200. No
 * deadlock, whatever the gang timeout. */
static void whole_nodes_one_after_the_other(const char *policy)
{
    struct run r;
    static const char *const sets[] = {"gang_timeout_s=0"};
    run_start_pods(&r, whole_nodes(2), sets, 1, two_jobs(0), policy, two_pods);
    cr_assert(!r.s->st.deadlock, "%s", policy);
    cr_assert_float_eq(run_start_s(&r, "a"), 0, EPS, "%s", policy);
    cr_assert_float_eq(rt(&r, "a")->end_s, 100, EPS, "%s", policy);
    cr_assert_float_eq(run_start_s(&r, "b"), 100, EPS, "%s: b at %g", policy, run_start_s(&r, "b"));
    cr_assert_float_eq(rt(&r, "b")->end_s, 200, EPS, "%s", policy);
    uint32_t a = run_job(&r, "a"), b = run_job(&r, "b");
    cr_assert_neq(sim_pod_node(r.s, a, 0), sim_pod_node(r.s, a, 1), "%s", policy);
    cr_assert_eq(r.s->attempts[a], 1, "%s", policy);
    cr_assert_eq(r.s->attempts[b], 1, "%s: b placed pods before a ended", policy);
    cr_assert_eq(r.s->st.completed, 2, "%s", policy);
    run_free(&r);
}

Test(gang_all_at_once, sjf_runs_the_two_jobs_one_after_the_other)
{
    whole_nodes_one_after_the_other("sjf");
}

Test(gang_all_at_once, easy_runs_the_two_jobs_one_after_the_other)
{
    whole_nodes_one_after_the_other("easy");
}

/* EASY's reservation for a head of three whole-node pods on three one-GPU nodes. x
 * (0..100) and y (0..300) hold nodes 0 and 1 when h (3 pods, 50 s) arrives at 1: it
 * does not fit, and reserves the three earliest pod slots, node 2 now, node 0 at 100,
 * node 1 at 300: shadow time 300, no extra GPU. b1 (50 s, at 2) ends by then: it
 * backfills node 2, 2..52. b2 (400 s, at 3) would end after 300 whenever it started
 * before h: it waits. b3 (two pods, 30 s, at 4) fits at 100 on nodes 0 and 2 and ends
 * by 300: it backfills, 100..130. h runs 300..350, then b2 350..750. */
Test(gang_all_at_once, easy_reserves_pod_slots_for_a_distributed_head)
{
    struct run r;
    static const uint32_t pods[] = {1, 1, 3, 1, 1, 2};
    run_start_pods(&r, whole_nodes(3), NULL, 0,
                   HDR "x,0,-,1,1,0,1,8,64,0,a,100,10\n"
                       "y,0,-,1,1,0,1,8,64,0,a,300,10\n"
                       "h,1,-,1,1,0,1,8,64,0,a,50,10\n"
                       "b1,2,-,1,1,0,1,8,64,0,a,50,10\n"
                       "b2,3,-,1,1,0,1,8,64,0,a,400,10\n"
                       "b3,4,-,1,1,0,1,8,64,0,a,30,10\n",
                   "easy", pods);
    static const struct { const char *id; double start, end; } want[] = {
        {"x", 0, 100}, {"y", 0, 300}, {"b1", 2, 52}, {"b3", 100, 130}, {"h", 300, 350}, {"b2", 350, 750}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        cr_assert_float_eq(run_start_s(&r, want[i].id), want[i].start, EPS, "%s starts at %g", want[i].id,
                           run_start_s(&r, want[i].id));
        cr_assert_float_eq(rt(&r, want[i].id)->end_s, want[i].end, EPS, "%s", want[i].id);
    }
    run_free(&r);
}

Test(gang_all_at_once, optimal_runs_the_two_jobs_one_after_the_other)
{
    whole_nodes_one_after_the_other("optimal");
}

/* ---- optimal counts the all-reduce ---- */

#define FHDR "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,duration_s,gpu_mem_gib,samples\n"

/* Site a: node 0 of two H100s, node 1 of one; the network between them net_gbps. */
static const char *two_h100_nodes(double net_gbps)
{
    static char buf[1024];
    snprintf(buf, sizeof buf,
             "{\"scrape_interval_s\": 0, \"completion\": \"event\",\n"
             " \"gpu_types\": {\"H100\": {\"mem_gib\": 80, \"profile\": \"h100\"}},\n"
             " \"sites\": [{\"name\": \"a\", \"net_gbps\": %g, \"nodes\": [\n"
             "   {\"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"H100\", \"gpus\": 2},\n"
             "   {\"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"H100\", \"gpus\": 1}]}]}\n",
             net_gbps);
    return buf;
}

/* x (one GPU, 0..10 s) takes node 0's first GPU; g, resnet50 in two pods of one GPU
 * and 10 steps (samples 32 x 2 x 10), arrives with it. Its first pod goes to node 0's
 * free GPU; its second may start now on node 1, paying the ring all-reduce each step
 * (2 (2 - 1) / 2 x params x 4 bytes over net_gbps), or at 10 on node 0, paying none.
 * At 0.1 Gbit/s that is about 8 s a step, 80 s in all, more than the 10 s wait: g waits
 * and runs with both pods on node 0 from 10, as long as the same job of one pod of
 * half the samples on one GPU. At 1,000 Gbit/s it is well under a millisecond a step:
 * g starts at 0 on both nodes. */
Test(gang_all_at_once, optimal_keeps_pods_together_when_the_all_reduce_costs_more)
{
    static const uint32_t pods[] = {1, 2}, one[] = {1};
    const char *q = FHDR "x,0,-,1,1,0,1,1,1,0,a,10,10,\n"
                         "g,0,resnet50,32,1,0,1,1,1,0,a,,,640\n";
    struct run slow, fast, alone;
    run_start_pods(&slow, two_h100_nodes(0.1), NULL, 0, q, "optimal", pods);
    run_start_pods(&fast, two_h100_nodes(1000), NULL, 0, q, "optimal", pods);
    run_start_pods(&alone, two_h100_nodes(0.1), NULL, 0, FHDR "g,0,resnet50,32,1,0,1,1,1,0,a,,,320\n",
                   "optimal", one);
    double params = catalog_model_params_m(slow.cat, catalog_model_find(slow.cat, "resnet50")) * 1e6;
    cr_assert_gt(10 * params * 4 / (0.1e9 / 8), 10); /* the ring costs more than the wait */
    uint32_t g = run_job(&slow, "g");
    cr_assert_float_eq(rt(&slow, "x")->end_s, 10, EPS);
    cr_assert_float_eq(run_start_s(&slow, "g"), 10, EPS);
    cr_assert_eq(sim_pod_node(slow.s, g, 0), 0);
    cr_assert_eq(sim_pod_node(slow.s, g, 1), 0);
    double run = rt(&alone, "g")->end_s - run_start_s(&alone, "g");
    cr_assert_float_eq(rt(&slow, "g")->end_s, 10 + run, 1e-9);
    g = run_job(&fast, "g");
    cr_assert_float_eq(run_start_s(&fast, "g"), 0, EPS);
    cr_assert_neq(sim_pod_node(fast.s, g, 0), sim_pod_node(fast.s, g, 1));
    run_free(&slow);
    run_free(&fast);
    run_free(&alone);
}
