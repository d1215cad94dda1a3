/* The default policy's queue and indexes: what a user would see go wrong if its
 * heaps, its memo of failed binds or its use of the engine's per-site counts and node
 * index were off. Small inputs worked out by hand, and a checking wrapper that
 * compares the engine's incremental counts with a scan at every scheduling point, and
 * every bind with a scan of the site's nodes.
 * (tests/test_policies.c has the scores, head-of-line blocking and a first back-off.) */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/util.h"
#include "helpers.h"

#define HDR "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,duration_s,gpu_mem_gib\n"
#define EPS 1e-6

extern const struct policy_ops default_policy;

static const struct jobrt *rt(const struct run *r, const char *id) { return &r->s->rt[run_job(r, id)]; }

/* One node of `gpus` GPUs, 16 cores and 64 GiB in site a, nvidia.com/gpu requested,
 * completions learnt at once, scrapes every scrape_s (0: live). */
static const char *gres_cluster(unsigned gpus, double scrape_s)
{
    static char buf[1024];
    snprintf(buf, sizeof buf,
             "{\"scrape_interval_s\": %g, \"completion\": \"event\", \"gpu_as_resource\": true,\n"
             " \"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1.0, \"profile\": \"none\"}},\n"
             " \"sites\": [{\"name\": \"a\", \"nodes\": [{\"cpus\": 16, \"mem_gib\": 64,\n"
             "   \"gpu_type\": \"G\", \"gpus\": %u}]}]}\n",
             scrape_s, gpus);
    return buf;
}

/* ---- back-off ---- */

/* One GPU, held by blocker from 0 to 16; waiter arrives at 0. A scrape every 0.5 s is
 * a cluster event, so waiter is retried as soon as each back-off has passed: it fails
 * at 0, 1, 3, 7, ... Back-offs 1, 2, 4, then:
 *   capped at 4 s: retries at 11, 15, 19; the GPU is free from 16, so it starts at 19;
 *   capped at 10 s: 7 + 8 = 15, then 15 + 10 = 25: it starts at 25;
 *   capped at 100 s: 7 + 8 = 15, then 15 + 16 = 31. */
static double waiter_start(const char *cap)
{
    const char *sets[] = {"kube_backoff_s=1", cap};
    struct run r;
    run_start(&r, gres_cluster(1, 0.5), sets, 2,
              HDR "blocker,0,-,1,1,0,1,1,1,0,a,16,10\n"
                  "waiter,0,-,1,1,0,1,1,1,0,a,1,10\n",
              "default");
    cr_assert_float_eq(run_start_s(&r, "blocker"), 0, EPS);
    double t = run_start_s(&r, "waiter");
    run_free(&r);
    return t;
}

Test(default_queue, backoff_doubles_up_to_its_cap)
{
    cr_assert_float_eq(waiter_start("kube_backoff_max_s=4"), 19, EPS, "%g", waiter_start("kube_backoff_max_s=4"));
    cr_assert_float_eq(waiter_start("kube_backoff_max_s=10"), 25, EPS, "%g", waiter_start("kube_backoff_max_s=10"));
    cr_assert_float_eq(waiter_start("kube_backoff_max_s=100"), 31, EPS, "%g", waiter_start("kube_backoff_max_s=100"));
}

/* Without a cluster event a failed job waits even once its back-off has passed: no
 * scrape (one every 1000 s) and nothing learnt until blocker ends at 16, so waiter,
 * failed at 0 (back-off 1 s), is retried only then, and starts at 16. */
Test(default_queue, parked_until_a_cluster_event)
{
    struct run r;
    run_start(&r, gres_cluster(1, 1000), NULL, 0,
              HDR "blocker,0,-,1,1,0,1,1,1,0,a,16,10\n"
                  "waiter,0,-,1,1,0,1,1,1,0,a,1,10\n",
              "default");
    cr_assert_float_eq(run_start_s(&r, "waiter"), 16, EPS, "%g", run_start_s(&r, "waiter"));
    run_free(&r);
}

/* Jobs whose back-off has passed are tried in queue order, not in the order their
 * back-offs ended. Two GPUs, scrapes every 1000 s (no scrape events). j0 holds GPU 0
 * from 0 to 10, k GPU 1 from 0 to 2. a (2 GPUs) arrives at 0 and fails: back-off until
 * 1. k's end at 2 is an event: a fails again, until 4. b (2 GPUs) arrives at 2.5 and
 * fails, until 3.5: its back-off ends first. j0's end at 10 frees both GPUs; a and b
 * have both passed their back-off, and a, ahead in the queue, binds (10..15); b
 * starts when a ends, at 15. */
Test(default_queue, retried_in_queue_order)
{
    struct run r;
    run_start(&r, gres_cluster(2, 1000), NULL, 0,
              HDR "j0,0,-,1,1,0,1,1,1,0,a,10,10\n"
                  "k,0,-,1,1,0,1,1,1,0,a,2,10\n"
                  "a,0,-,1,1,0,2,1,1,0,a,5,10\n"
                  "b,2.5,-,1,1,0,2,1,1,0,a,5,10\n",
              "default");
    cr_assert_float_eq(run_start_s(&r, "k"), 0, EPS);
    cr_assert_float_eq(run_start_s(&r, "a"), 10, EPS, "%g", run_start_s(&r, "a"));
    cr_assert_float_eq(run_start_s(&r, "b"), 15, EPS, "%g", run_start_s(&r, "b"));
    run_free(&r);
}

/* A job's back-off counts from its own failures: c, back at its first attempt, is
 * retried before a job that has failed many times. One GPU, scrapes every 0.5 s.
 * blocker holds it from 0 to 12. old arrives at 0: fails at 0, 1, 3, 7 (back-offs 1,
 * 2, 4, 8: next try at 15). c arrives at 11.2: fails, back-off 1 s; at 12.2 the GPU is
 * free and c binds (12.2..13.2); old binds at 15. */
Test(default_queue, backoff_is_per_job)
{
    const char *sets[] = {"kube_backoff_max_s=100"};
    struct run r;
    run_start(&r, gres_cluster(1, 0.5), sets, 1,
              HDR "blocker,0,-,1,1,0,1,1,1,0,a,12,10\n"
                  "old,0,-,1,1,0,1,1,1,0,a,1,10\n"
                  "c,11.2,-,1,1,0,1,1,1,0,a,1,10\n",
              "default");
    cr_assert_float_eq(run_start_s(&r, "c"), 12.2, EPS, "%g", run_start_s(&r, "c"));
    cr_assert_float_eq(run_start_s(&r, "old"), 15, EPS, "%g", run_start_s(&r, "old"));
    run_free(&r);
}

/* ---- failed binds of one scheduling point ---- */

/* A job that fails on one resource holds back only jobs at least as large in every
 * resource. One node: 4 GPUs, 16 cores, 64 GiB. All arrive at 0, in this order:
 *   cpu_hog (1 GPU, 20 cores) never fits: stuck;
 *   wide (2 GPUs, 8 cores) binds although it asks more GPUs than cpu_hog;
 *   bigger (2 GPUs, 24 cores) is larger than cpu_hog in all: fails too, stuck;
 *   mem (1 GPU, 1 core, 60 GiB) binds: it asks less CPU; now 3 GPUs, 9 cores and 61
 *     GiB are taken;
 *   last (1 GPU, 1 core, 4 GiB) does not fit memory any more (65 > 64) and waits for
 *     mem's end at 100 (an event), then its 1 s back-off: it starts at 100. */
Test(default_queue, failures_hold_back_only_larger_jobs)
{
    struct run r;
    run_start(&r, gres_cluster(4, 0), NULL, 0,
              HDR "cpu_hog,0,-,1,1,0,1,20,1,0,a,100,10\n"
                  "wide,0,-,1,1,0,2,8,1,0,a,200,10\n"
                  "bigger,0,-,1,1,0,2,24,1,0,a,100,10\n"
                  "mem,0,-,1,1,0,1,1,60,0,a,100,10\n"
                  "last,0,-,1,1,0,1,1,4,0,a,10,10\n",
              "default");
    cr_assert_float_eq(run_start_s(&r, "wide"), 0, EPS);
    cr_assert_float_eq(run_start_s(&r, "mem"), 0, EPS);
    cr_assert_eq(rt(&r, "cpu_hog")->state, JS_STUCK);
    cr_assert_eq(rt(&r, "bigger")->state, JS_STUCK);
    cr_assert_float_eq(run_start_s(&r, "last"), 100, EPS, "%g", run_start_s(&r, "last"));
    cr_assert(r.s->st.deadlock);
    run_free(&r);
}

/* A job that can never fit asks for no wake-up even with scrapes going on: once small
 * has ended the run stops (deadlocked) instead of retrying big for ever. */
Test(default_queue, never_fitting_job_does_not_keep_the_run_alive)
{
    struct run r;
    run_start(&r, gres_cluster(2, 30), NULL, 0,
              HDR "big,0,-,1,1,0,16,1,1,0,a,100,10\n"
                  "small,0,-,1,1,0,1,1,1,0,a,100,10\n",
              "default");
    cr_assert_float_eq(run_start_s(&r, "small"), 0, EPS);
    cr_assert_eq(rt(&r, "big")->state, JS_STUCK);
    cr_assert(r.s->st.deadlock);
    cr_assert(r.s->now < 200, "the run went on to %g", r.s->now);
    run_free(&r);
}

/* ---- the site ---- */

/* Two sites, a (2 GPUs) and b (3 GPUs). j1 arrives at 0 and goes to b. j2 arrives at
 * 1: with scrapes every 60 s the last scrape (at 0) still shows b's 3 GPUs idle, so
 * j2 goes to b too; with live metrics b shows 2 idle, a tie with a, and the lowest
 * index, a, wins. */
static uint32_t second_job_node(const char *scrape)
{
    static const char cluster[] =
        "{\"completion\": \"event\",\n"
        " \"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1.0, \"profile\": \"none\"}},\n"
        " \"sites\": [{\"name\": \"a\", \"nodes\": [{\"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"G\", \"gpus\": 2}]},\n"
        "             {\"name\": \"b\", \"nodes\": [{\"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"G\", \"gpus\": 3}]}],\n"
        " \"links\": [{\"a\": \"a\", \"b\": \"b\", \"gbps\": 10, \"latency_ms\": 0}]}\n";
    const char *sets[] = {scrape, "gpu_as_resource=true"};
    struct run r;
    run_start(&r, cluster, sets, 2,
              HDR "j1,0,-,1,1,0,1,1,1,0,a,100,10\n"
                  "j2,1,-,1,1,0,1,1,1,0,a,100,10\n",
              "default");
    cr_assert_eq(r.s->job_node[run_job(&r, "j1")], 1);
    uint32_t n = r.s->job_node[run_job(&r, "j2")];
    run_free(&r);
    return n;
}

Test(default_site, chosen_from_the_last_scrape)
{
    cr_assert_eq(second_job_node("scrape_interval_s=60"), 1);
    cr_assert_eq(second_job_node("scrape_interval_s=0"), 0);
}

/* With live metrics each placement may change the site, within one scheduling point.
 * Site a: one node of 2 GPUs and 8 cores; b: 3 GPUs, 64 cores; nvidia.com/gpu
 * requested; all jobs queued at 0 in this order. j1 goes to b (3 idle GPUs). Then a
 * and b both show 2 idle and a wins the tie: x1 and x2 (16 cores) do not fit a and
 * fail, j2 binds in a. Now b shows more idle GPUs: x3, behind j2 in the queue, is tried
 * there and binds at 0; x1 and x2 have already had their attempt at this point and
 * wait, although b has a GPU left. */
Test(default_site, changes_within_a_scheduling_point)
{
    static const char cluster[] =
        "{\"scrape_interval_s\": 0, \"completion\": \"event\", \"gpu_as_resource\": true,\n"
        " \"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1.0, \"profile\": \"none\"}},\n"
        " \"sites\": [{\"name\": \"a\", \"nodes\": [{\"cpus\": 8, \"mem_gib\": 64, \"gpu_type\": \"G\", \"gpus\": 2}]},\n"
        "             {\"name\": \"b\", \"nodes\": [{\"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"G\", \"gpus\": 3}]}],\n"
        " \"links\": [{\"a\": \"a\", \"b\": \"b\", \"gbps\": 10, \"latency_ms\": 0}]}\n";
    struct run r;
    run_start(&r, cluster, NULL, 0,
              HDR "j1,0,-,1,1,0,1,1,1,0,a,100,10\n"
                  "x1,0,-,1,1,0,1,16,1,0,a,100,10\n"
                  "x2,0,-,1,1,0,1,16,1,0,a,100,10\n"
                  "j2,0,-,1,1,0,1,1,1,0,a,100,10\n"
                  "x3,0,-,1,1,0,1,16,1,0,a,100,10\n",
              "default");
    cr_assert_eq(r.s->job_node[run_job(&r, "j1")], 1);
    cr_assert_eq(r.s->job_node[run_job(&r, "j2")], 0);
    cr_assert_eq(r.s->job_node[run_job(&r, "x3")], 1);
    cr_assert_float_eq(run_start_s(&r, "x3"), 0, EPS);
    cr_assert(run_start_s(&r, "x1") > 0 && run_start_s(&r, "x2") > 0, "x1 at %g, x2 at %g",
              run_start_s(&r, "x1"), run_start_s(&r, "x2"));
    cr_assert_eq(r.s->st.completed, 5);
    run_free(&r);
}

/* ---- the engine's counts, checked against scans ---- */

/* default_policy wrapped: at every call, the engine's per-site idle counts must equal
 * a scan of the scrape, for every queued job and site the nodes view_first_node
 * hands out must be exactly those where view_node_fits_requests holds, and the nodes
 * view_next_free_node hands out exactly those with enough GPUs no job uses. */
static size_t checks, idle_seen;

static void check_view(const struct view *v)
{
    const struct cluster *cl = v->cl;
    for (uint32_t s = 0; s < cl->n_sites; s++) {
        const struct site *si = &cl->sites[s];
        uint32_t idle = 0;
        for (uint32_t g = si->gpu_first; g < si->gpu_first + si->gpu_count; g++)
            idle += view_gpu_looks_idle(v, g);
        cr_assert_eq(v->site_idle_gpus[s], idle, "t=%g site %u: %u idle counted, %u by scan",
                     v->now, s, v->site_idle_gpus[s], idle);
        idle_seen += idle;
    }
    for (uint32_t j = v->queue_head; j != VIEW_NONE; j = v->queue_next[j]) {
        uint32_t next = view_first_node(v, 0, j, 0);
        for (uint32_t n = 0; n < cl->n_nodes; n++) {
            if (!view_node_fits_requests(v, n, j))
                continue;
            cr_assert_eq(next, n, "t=%g job %u: index gives node %d, node %u fits", v->now, j,
                         next == VIEW_NONE ? -1 : (int)next, n);
            next = view_first_node(v, n + 1, j, 0);
        }
        cr_assert_eq(next, VIEW_NONE, "t=%g job %u: index gives node %u, which does not fit",
                     v->now, j, next);
    }
    /* view_next_free_node for every GPU count: exactly the nodes with that many GPUs no
     * job of the bookkeeping uses, in order, and node_free_gpus their counts. */
    for (uint32_t k = 1; k <= CLUSTER_MAX_NODE_GPUS; k++) {
        uint32_t next = view_next_free_node(v, 0, k);
        for (uint32_t n = 0; n < cl->n_nodes; n++) {
            const struct node *nd = &cl->nodes[n];
            uint32_t free_gpus = 0;
            for (uint32_t g = nd->gpu_first; g < nd->gpu_first + nd->gpu_count; g++)
                free_gpus += v->gpu_assigned[g] == 0;
            cr_assert_eq(v->node_free_gpus[n], free_gpus, "t=%g node %u: %u free counted, %u by scan",
                         v->now, n, v->node_free_gpus[n], free_gpus);
            if (free_gpus < k)
                continue;
            cr_assert_eq(next, n, "t=%g %u GPUs: index gives node %d, node %u has them", v->now, k,
                         next == VIEW_NONE ? -1 : (int)next, n);
            next = view_next_free_node(v, n + 1, k);
        }
        cr_assert_eq(next, VIEW_NONE, "t=%g %u GPUs: index gives node %u, which lacks them", v->now,
                     k, next);
    }
    checks++;
}

static int chk_init(void **state, const struct view *v, char *err, size_t errlen)
{
    return default_policy.init(state, v, err, errlen);
}

/* kube-scheduler's leastRequestedScore, for the scan below. */
static int64_t scan_least(int64_t req, int64_t cap)
{
    return cap <= 0 || req > cap ? 0 : (cap - req) * 100 / cap;
}

/* The node a scan of site `site` in cluster order picks for job j, as docs/policies.md
 * states the filter and score (not through default's classes of nodes, their heaps,
 * the list of touched nodes or the memo of scores), or VIEW_NONE. */
static uint32_t scan_bind(const struct view *v, uint32_t site, uint32_t j)
{
    const struct view_job jb = view_job(v, j);
    uint32_t best = VIEW_NONE;
    int64_t best_score = -1;
    for (uint32_t n = 0; n < v->cl->n_nodes; n++) {
        const struct node *nd = &v->cl->nodes[n];
        uint32_t free_gpus = 0;
        for (uint32_t g = nd->gpu_first; g < nd->gpu_first + nd->gpu_count; g++)
            free_gpus += v->gpu_assigned[g] == 0;
        if (nd->site != site || nd->gpu_count < jb.gpus || !view_node_fits_requests(v, n, j) ||
            (v->cl->cfg.gpu_as_resource && free_gpus < jb.gpus) ||
            (nd->gpu_count > 0 && !view_job_runs_on(v, j, nd->type)))
            continue;
        int64_t cap_cpu = llround(nd->cpus * 1000), cap_mem = llround(nd->mem_gib * 1073741824.0);
        int64_t req_cpu = llround((v->node_cpus_req[n] + jb.cpus) * 1000);
        int64_t req_mem = llround((v->node_mem_req_gib[n] + jb.mem_gib) * 1073741824.0);
        double f_cpu = fmin((double)req_cpu / (double)cap_cpu, 1.0);
        double f_mem = fmin((double)req_mem / (double)cap_mem, 1.0);
        int64_t score = (scan_least(req_cpu, cap_cpu) + scan_least(req_mem, cap_mem)) / 2 +
                        (int64_t)((1 - fabs((f_cpu - f_mem) / 2)) * 100);
        if (score > best_score) {
            best = n;
            best_score = score;
        }
    }
    return best;
}

static size_t binds_scanned;

/* Each placement also goes to the node a scan picks, in the site with the most GPUs
 * that looked idle (the first of them). */
static int chk_place(void *state, const struct view *v, struct placement *out)
{
    check_view(v);
    int placed = default_policy.place(state, v, out);
    if (placed) {
        uint32_t site = 0;
        for (uint32_t s = 1; s < v->cl->n_sites; s++)
            if (v->site_idle_gpus[s] > v->site_idle_gpus[site])
                site = s;
        uint32_t n = scan_bind(v, site, out->job);
        cr_assert_eq(out->node, n, "t=%g job %u: bound to node %u, a scan picks %d", v->now,
                     out->job, out->node, n == VIEW_NONE ? -1 : (int)n);
        binds_scanned++;
    }
    return placed;
}

static void chk_begin(void *state, const struct view *v)
{
    check_view(v);
    default_policy.begin(state, v);
}

static double chk_end(void *state, const struct view *v)
{
    check_view(v);
    return default_policy.end(state, v);
}

static void chk_job_event(void *state, const struct view *v, uint32_t j, enum policy_job_event e)
{
    check_view(v);
    default_policy.job_event(state, v, j, e);
}

static const struct policy_ops checked_default = {
    .name = "checked-default",
    .init = chk_init,
    .begin = chk_begin,
    .place = chk_place,
    .end = chk_end,
    .job_event = chk_job_event,
    .destroy = NULL, /* set from default_policy in checked_run */
};

/* The embedded 3-site cluster and the 100-job queue q100, with the settings given. */
static void checked_run(const char *const *sets, size_t n_sets)
{
    char err[CPN_ERR_LEN] = "";
    char *cluster_json = slurp("traces/default-cluster.json");
    char *jobs_csv = slurp("traces/q100.csv");
    cr_assert(cluster_json && jobs_csv);
    struct policy_ops pol = checked_default;
    pol.destroy = default_policy.destroy;
    pol.check = default_policy.check; /* its classes against the bookkeeping, too */
    pol.params = default_policy.params; /* the same table: the cluster's values apply */
    pol.n_params = default_policy.n_params;
    pol.params_size = default_policy.params_size;
    struct run r;
    memset(&r, 0, sizeof r);
    jobset_init(&r.js);
    cr_assert_eq(catalog_create(&r.cat, err, sizeof err), 0, "%s", err);
    cr_assert_eq(cluster_load_buf("default-cluster.json", cluster_json, strlen(cluster_json), sets,
                                  n_sets, r.cat, &r.cl, err, sizeof err),
                 0, "%s", err);
    cr_assert_eq(trace_read_csv_buf("q100.csv", jobs_csv, strlen(jobs_csv), r.cat, &r.js, err,
                                    sizeof err),
                 0, "%s", err);
    checks = idle_seen = binds_scanned = 0;
    policy_check_indexes = true;
    cr_assert_eq(sim_create(&r.s, r.cl, r.cat, &r.js, &pol, NULL, NULL, err, sizeof err), 0,
                 "%s", err);
    cr_assert_eq(sim_run(r.s, err, sizeof err), 0, "%s", err);
    policy_check_indexes = false;
    cr_assert_eq(r.s->st.completed + r.s->st.failed, r.js.n, "%zu of %zu ended",
                 r.s->st.completed + r.s->st.failed, r.js.n);
    cr_assert(checks > 100 && idle_seen > 0 && binds_scanned >= r.js.n, "%zu checks, %zu binds",
              checks, binds_scanned);
    run_free(&r);
    free(cluster_json);
    free(jobs_csv);
}

Test(default_site, idle_counts_match_a_scan)
{
    checked_run(NULL, 0);
}

Test(default_site, idle_counts_match_a_scan_with_live_metrics)
{
    const char *sets[] = {"scrape_interval_s=0", "completion=event"};
    checked_run(sets, 2);
}

Test(default_site, idle_counts_match_a_scan_with_gpu_requests)
{
    const char *sets[] = {"scrape_interval_s=0", "gpu_as_resource=true"};
    checked_run(sets, 2);
}

/* ---- the eligible cohorts' sort ---- */

/* A scheduling point merges its eligible cohorts of one shape, count of failures and
 * site after sorting them (dflt_sort_elig): an insertion sort, or from 64 cohorts on
 * two radix sorts. Three bursts of 100 jobs, 6 s apart, each of the same 100 shapes
 * (their CPU requests) in another order, wait for one node of 2 GPUs, which frees one
 * every 10 s or so. Each failed attempt parks a cohort per shape, and a scrape every
 * 5 s makes those whose back-off has passed eligible at once: 476 points sort 64 or
 * more, not in order of their shapes or ids, with cohorts of one shape and several
 * counts of failures (494 times) or one count, which merge (98 times). With
 * policy_check_indexes the sort asserts its order, and the checks change nothing. */
Test(default_queue, many_cohorts_sort_as_a_comparison_would)
{
    const unsigned mul[3] = {37, 71, 13}; /* each burst's shapes: k * mul mod 100 */
    size_t cap = 300 * 64 + sizeof HDR;
    char *jobs = malloc(cap);
    cr_assert_not_null(jobs);
    size_t len = (size_t)snprintf(jobs, cap, "%s", HDR);
    for (unsigned k = 0; k < 300; k++)
        len += (size_t)snprintf(jobs + len, cap - len, "j%u,%u,-,1,1,0,1,%g,1,0,a,%u,10\n", k,
                                6 * (k / 100), 0.1 * (1 + (k * mul[k / 100]) % 100), 20 + 5 * (k % 5));
    struct run plain_run, r;
    policy_check_indexes = false;
    run_start(&plain_run, gres_cluster(2, 5), NULL, 0, jobs, "default");
    policy_check_indexes = true;
    run_start(&r, gres_cluster(2, 5), NULL, 0, jobs, "default");
    policy_check_indexes = false;
    cr_assert_eq(r.s->st.completed, r.js.n, "%zu of %zu jobs completed", r.s->st.completed, r.js.n);
    for (size_t j = 0; j < r.js.n; j++)
        cr_assert(r.s->job_started_s[j] == plain_run.s->job_started_s[j] &&
                      r.s->rt[j].end_s == plain_run.s->rt[j].end_s,
                  "job %zu runs differently with the checks", j);
    run_free(&plain_run);
    run_free(&r);
    free(jobs);
}
