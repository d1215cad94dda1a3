/* Conformance: every registered policy, present and future, runs on the same small
 * traces and must keep the invariants a user relies on: every job ends exactly once
 * (done, failed, stuck or unfinished); it ran only on GPUs of the node it was given;
 * no negative waits; start >= submit and end >= start; makespan >= the longest job;
 * a policy that claims never to over-commit GPU memory has no OOM kill with the
 * oracle predictor; time lost to CPU contention is never negative nor longer than the
 * run; and the same seed gives the same bytes. (That a policy of the controller never
 * places on a node its CPU filter refuses, the engine enforces at every placement:
 * policy_call.c aborts the run.) */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/io/import.h"
#include "../sim/io/report.h"
#include "../sim/base/util.h"
#include "helpers.h"

struct trace_case {
    const char *name;
    const char *cluster; /* NULL: the embedded default */
    const char *jobs;    /* a file */
    const char *sets[4];
};

static const struct trace_case cases[] = {
    {"q40 default", NULL, "traces/q40.csv", {NULL}},
    {"q40 ideal controller", NULL, "traces/q40.csv", {"scrape_interval_s=0", "completion=event"}},
    {"deadlock", NULL, "tests/data/deadlock.csv", {NULL}},
    {"poisson", NULL, "tests/data/poisson60.csv", {"completion=event"}},
    /* Every optimal reservation path at once, and default with nvidia.com/gpu requested. */
    {"q40 reservations, GPUs requested", NULL, "traces/q40.csv",
     {"reserve_after_s=0", "gpu_as_resource=true"}},
    /* The controller's CPU filter binding hard on the shared site, and switched off. */
    {"q100 threshold 0.5", NULL, "traces/q100.csv", {"cpu_threshold=0.5"}},
    {"q100 no CPU filter", NULL, "traces/q100.csv", {"cpu_filter=false"}},
};

static char *render_jobs(const struct sim *s)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    cr_assert_eq(report_jobs_csv(f, s), 0);
    fclose(f);
    return buf;
}

static struct sim *load_and_run(const struct trace_case *tc, const struct policy_ops *pol,
                                struct catalog **cat, struct cluster **cl, struct jobset *js)
{
    char err[CPN_ERR_LEN] = "";
    size_t n_sets = 0;
    while (n_sets < 4 && tc->sets[n_sets])
        n_sets++;
    cr_assert_eq(catalog_create(cat, err, sizeof err), 0, "%s", err);
    cr_assert_eq(cluster_load(tc->cluster, tc->sets, n_sets, *cat, cl, err, sizeof err), 0, "%s", err);
    jobset_init(js);
    cr_assert_eq(trace_read_csv(tc->jobs, *cat, js, NULL, err, sizeof err), 0, "%s", err);
    struct sim *s = NULL;
    cr_assert_eq(sim_create(&s, *cl, *cat, js, pol, NULL, NULL, err, sizeof err), 0, "%s", err);
    cr_assert_eq(sim_run(s, err, sizeof err), 0, "%s", err);
    return s;
}

static void check_invariants(const struct trace_case *tc, const struct policy_ops *pol,
                             const struct sim *s)
{
    const struct jobset *js = s->jobs;
    const char *who = pol->name;
    size_t done = 0, failed = 0, stuck = 0, unfinished = 0;
    double longest = 0;
    for (size_t j = 0; j < js->n; j++) {
        const struct jobrt *r = &s->rt[j];
        const struct job *jb = &js->v[j];
        double start_s = s->job_started_s[j];
        switch (r->state) {
        case JS_DONE: done++; break;
        case JS_FAILED: failed++; break;
        case JS_STUCK: stuck++; break;
        case JS_UNFINISHED: unfinished++; break;
        default: cr_assert_fail("%s/%s: job %zu ended in state %s", who, tc->name, j, job_state_name[r->state]);
        }
        if (start_s >= 0) {
            cr_assert_geq(start_s, jb->submit_s, "%s/%s: job %zu starts before submit", who, tc->name, j);
            cr_assert_geq(s->job_placed_s[j], jb->submit_s);
            cr_assert_geq(start_s, s->job_placed_s[j]);
        }
        cr_assert_geq(r->cpu_lost_s, 0, "%s/%s: job %zu lost negative time to CPU", who, tc->name, j);
        if (r->state == JS_DONE && s->attempts[j] == 1)
            cr_assert_leq(r->cpu_lost_s, r->end_s - start_s + 1e-6,
                          "%s/%s: job %zu lost more time to CPU than it ran", who, tc->name, j);
        if (r->state == JS_DONE || r->state == JS_FAILED) {
            cr_assert_geq(r->end_s, start_s, "%s/%s: job %zu ends before it starts", who, tc->name, j);
            if (r->end_s - start_s > longest)
                longest = r->end_s - start_s;
        }
        if (s->job_node[j] != VIEW_NONE) {
            cr_assert_lt(s->job_node[j], s->cl->n_nodes, "%s/%s: job %zu on a node that does not exist", who,
                         tc->name, j);
            const struct node *nd = &s->cl->nodes[s->job_node[j]];
            cr_assert_lt(nd->type, s->cl->n_types);
            cr_assert_geq(nd->gpu_count, jb->gpus);
            for (uint32_t k = 0; k < jb->gpus; k++) {
                uint32_t g = s->job_gpus[s->slot_first[j] + k];
                cr_assert(g >= nd->gpu_first && g < nd->gpu_first + nd->gpu_count,
                          "%s/%s: job %zu on a GPU not of its node", who, tc->name, j);
            }
        }
        if (r->state == JS_STUCK)
            cr_assert(s->st.deadlock);
    }
    cr_assert_eq(done + failed + stuck + unfinished, js->n);
    /* A policy that claims never to over-commit GPU memory causes no OOM kill when its
     * predictions are exact (these runs use the catalogue's truth: the oracle). */
    if (pol->never_overcommits)
        cr_assert_eq(s->st.oom_events, 0, "%s/%s: %llu OOM kills with the oracle", who, tc->name,
                     (unsigned long long)s->st.oom_events);
    cr_assert_eq(done, s->st.completed);
    cr_assert_eq(failed, s->st.failed);
    if (!s->st.deadlock && !s->st.horizon_reached)
        cr_assert_geq(s->st.last_end_s - s->st.first_submit_s, longest - 1e-9,
                      "%s/%s: makespan shorter than the longest job", who, tc->name);
}

Test(conformance, every_policy_keeps_the_invariants, .timeout = 120)
{
    for (size_t p = 0; p < policy_registry_len; p++) {
        const struct policy_ops *pol = policy_registry[p];
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            struct catalog *cat;
            struct cluster *cl;
            struct jobset js;
            struct sim *s = load_and_run(&cases[c], pol, &cat, &cl, &js);
            check_invariants(&cases[c], pol, s);
            char *first = render_jobs(s);
            sim_destroy(s);
            /* Same inputs and seed: the same bytes. */
            struct sim *s2 = NULL;
            char err[CPN_ERR_LEN];
            cr_assert_eq(sim_create(&s2, cl, cat, &js, pol, NULL, NULL, err, sizeof err), 0);
            cr_assert_eq(sim_run(s2, err, sizeof err), 0);
            char *second = render_jobs(s2);
            cr_assert_str_eq(first, second, "%s/%s: not deterministic", pol->name, cases[c].name);
            free(first);
            free(second);
            sim_destroy(s2);
            jobset_free(&js);
            cluster_destroy(cl);
            catalog_destroy(cat);
        }
    }
}

/* A Gavel job whose model and batch Gavel's table measured at zero throughput on its GPU
 * count of a type (ResNet-50 at batch 128 on 2 K80s) cannot run there, for every policy
 * (what the job declares, not a prediction: docs/policies.md). tests/data/import/gavel_resnet50_k80.trace
 * holds that job (gavel-1) and a 2-GPU ResNet-50 at batch 64 (gavel-2), which runs on
 * K80s. On a cluster whose K80 node is listed first (where fifo would go) gavel-1 runs on
 * the V100 node; on a K80-only cluster it can run nowhere and ends stuck, while gavel-2,
 * alike in GPUs and requests, still runs (default must not take the one's failure for
 * the other's), except under fifo, whose head-of-line blocking keeps it behind gavel-1
 * for good, as behind a job asking more GPUs than any node has. */
static const char zero_k80_v100[] =
    "{\"completion\": \"event\", \"scrape_interval_s\": 0,\n"
    " \"gpu_types\": {\"K80\": {\"mem_gib\": 12, \"profile\": \"k80\"},\n"
    "               \"V100\": {\"mem_gib\": 16, \"profile\": \"v100\"}},\n"
    " \"sites\": [{\"name\": \"gavel\", \"nodes\": [\n"
    "   {\"count\": 1, \"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"K80\", \"gpus\": 4},\n"
    "   {\"count\": 1, \"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"V100\", \"gpus\": 2}]}]}\n";
static const char zero_k80_only[] =
    "{\"completion\": \"event\", \"scrape_interval_s\": 0,\n"
    " \"gpu_types\": {\"K80\": {\"mem_gib\": 12, \"profile\": \"k80\"}},\n"
    " \"sites\": [{\"name\": \"gavel\", \"nodes\": [\n"
    "   {\"count\": 1, \"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"K80\", \"gpus\": 4}]}]}\n";

static struct sim *run_zero_case(const char *cluster, const struct policy_ops *pol,
                                 struct catalog *cat, struct cluster **cl, struct jobset *js)
{
    char err[CPN_ERR_LEN] = "", *rep = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&rep, &len);
    struct import_stats st;
    jobset_init(js);
    cr_assert_eq(import_jobs("gavel", "tests/data/import/gavel_resnet50_k80.trace", NULL, cat, js,
                             f, &st, err, sizeof err),
                 CPN_OK, "%s", err);
    fclose(f);
    free(rep);
    cr_assert_eq(js->n, 2);
    cr_assert_eq(cluster_load_buf("zero.json", cluster, strlen(cluster), NULL, 0, cat, cl, err,
                                  sizeof err),
                 0, "%s", err);
    struct sim *s = NULL;
    cr_assert_eq(sim_create(&s, *cl, cat, js, pol, NULL, NULL, err, sizeof err), 0, "%s", err);
    cr_assert_eq(sim_run(s, err, sizeof err), 0, "%s", err);
    return s;
}

Test(conformance, every_policy_keeps_gavel_zero_throughput_jobs_off_their_type)
{
    struct catalog *cat;
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(catalog_create(&cat, err, sizeof err), 0, "%s", err);
    int r50 = catalog_model_find(cat, "resnet50");
    cr_assert_not(catalog_runs_on(cat, r50, 128, CAT_K80, 2));
    for (size_t p = 0; p < policy_registry_len; p++) {
        const struct policy_ops *pol = policy_registry[p];
        for (int only_k80 = 0; only_k80 <= 1; only_k80++) {
            struct trace_case tc = {.name = only_k80 ? "gavel zero, K80 only"
                                                     : "gavel zero, K80 and V100"};
            struct cluster *cl;
            struct jobset js;
            struct sim *s =
                run_zero_case(only_k80 ? zero_k80_only : zero_k80_v100, pol, cat, &cl, &js);
            check_invariants(&tc, pol, s);
            for (uint32_t j = 0; j < js.n; j++) {
                const char *id = jobset_str(&js, js.v[j].id);
                bool b128 = js.v[j].batch == 128;
                uint32_t n = s->job_node[j];
                const char *type = n == VIEW_NONE ? "none" : cl->types[cl->nodes[n].type].name;
                cr_assert(!b128 || strcmp(type, "K80") != 0, "%s/%s: %s placed on a K80", pol->name,
                          tc.name, id);
                bool behind_head = strcmp(pol->name, "fifo") == 0; /* gavel-1 is the head */
                if (only_k80 && (b128 || behind_head)) {
                    cr_assert_eq(s->rt[j].state, JS_STUCK, "%s/%s: %s is %s, not stuck", pol->name,
                                 tc.name, id, job_state_name[s->rt[j].state]);
                    cr_assert_eq(n, VIEW_NONE);
                } else {
                    cr_assert_eq(s->rt[j].state, JS_DONE, "%s/%s: %s is %s, not done", pol->name,
                                 tc.name, id, job_state_name[s->rt[j].state]);
                }
                if (b128 && !only_k80)
                    cr_assert_str_eq(type, "V100", "%s/%s: %s ran on %s", pol->name, tc.name, id,
                                     type);
            }
            cr_assert_eq(s->st.deadlock, (bool)only_k80, "%s/%s", pol->name, tc.name);
            sim_destroy(s);
            jobset_free(&js);
            cluster_destroy(cl);
        }
    }
    catalog_destroy(cat);
}

/* ---- distributed jobs ---- */

/* Two sites of mixed nodes (one, two and four GPUs; H100s of 80 GiB, and on site b a
 * node of V100s of 32 GiB, whose predictions differ), a WAN link between them; every
 * job's origin is site a, so the routes from site b are the ones a run of distributed
 * jobs must add. */
static const char pods_cluster[] =
    "{\"gpu_types\": {\"H100\": {\"mem_gib\": 80, \"profile\": \"h100\"},\n"
    "               \"V100\": {\"mem_gib\": 32, \"profile\": \"v100\"}},\n"
    " \"sites\": [{\"name\": \"a\", \"net_gbps\": 50, \"nodes\": [\n"
    "     {\"count\": 2, \"cpus\": 16, \"mem_gib\": 128, \"gpu_type\": \"H100\", \"gpus\": 2},\n"
    "     {\"count\": 1, \"cpus\": 32, \"mem_gib\": 256, \"gpu_type\": \"H100\", \"gpus\": 4}]},\n"
    "   {\"name\": \"b\", \"nodes\": [\n"
    "     {\"count\": 3, \"cpus\": 8, \"mem_gib\": 64, \"gpu_type\": \"H100\", \"gpus\": 1},\n"
    "     {\"count\": 1, \"cpus\": 16, \"mem_gib\": 128, \"gpu_type\": \"H100\", \"gpus\": 2},\n"
    "     {\"count\": 1, \"cpus\": 16, \"mem_gib\": 128, \"gpu_type\": \"V100\", \"gpus\": 2}]}],\n"
    " \"links\": [{\"a\": \"a\", \"b\": \"b\", \"gbps\": 10, \"latency_ms\": 20}]}\n";

/* The next number of a 64-bit LCG (Knuth's MMIX constants): the queues are the same on
 * every machine. */
static uint32_t lcg(uint64_t *x)
{
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*x >> 33);
}

/* A random queue of n jobs into csv (of cap bytes) and their pods into pods[]: one to
 * three pods of one or two GPUs, half of them catalogue models (their all-reduce is
 * counted), half given by duration and GPU memory, some larger than a GPU holds. */
static void random_pods_queue(uint64_t seed, size_t n, char *csv, size_t cap, uint32_t *pods)
{
    static const char *const models[] = {"resnet50", "mobilenet_v3_large", "vgg16"};
    uint64_t x = seed;
    size_t len = (size_t)snprintf(csv, cap, "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,"
                                            "mem_gib,image_gib,origin,duration_s,gpu_mem_gib,samples\n");
    for (size_t j = 0; j < n; j++) {
        unsigned submit = lcg(&x) % 400, gpus = 1 + lcg(&x) % 2, cpus = 1 + lcg(&x) % 8;
        unsigned mem = 4 + lcg(&x) % 60;
        pods[j] = 1 + lcg(&x) % 3;
        if (lcg(&x) % 2) {
            const char *m = models[lcg(&x) % 3];
            unsigned samples = 32 * gpus * pods[j] * (20 + lcg(&x) % 200);
            len += (size_t)snprintf(csv + len, cap - len, "j%zu,%u,%s,32,1,0,%u,%u,%u,1,a,,,%u\n", j,
                                    submit, m, gpus, cpus, mem, samples);
        } else {
            unsigned dur = 30 + lcg(&x) % 600, gmem = 5 + lcg(&x) % 90;
            len += (size_t)snprintf(csv + len, cap - len, "j%zu,%u,-,1,1,0,%u,%u,%u,0,a,%u,%u,\n", j,
                                    submit, gpus, cpus, mem, dur, gmem);
        }
        cr_assert_lt(len, cap);
    }
}

/* What a run of distributed jobs must keep besides check_invariants: every pod placed
 * is on GPUs of one node, no two pods of a job share a GPU, a job done had all its
 * pods placed, and a deadlock leaves only jobs stuck or unplaceable. */
static void check_pods(const char *who, const char *name, const struct sim *s)
{
    for (uint32_t j = 0; j < s->jobs->n; j++) {
        const struct job *jb = &s->jobs->v[j];
        uint32_t pods = jobset_pods(s->jobs, j), placed = sim_pods_placed(s, j);
        if (s->job_node[j] == VIEW_NONE)
            continue;
        cr_assert_leq(placed, pods, "%s/%s: job %u", who, name, j);
        if (s->rt[j].state == JS_DONE)
            cr_assert_eq(placed, pods, "%s/%s: job %u done with %u of %u pods", who, name, j,
                         placed, pods);
        for (uint32_t k = 0; k < placed; k++) {
            const struct node *nd = &s->cl->nodes[sim_pod_node(s, j, k)];
            for (uint32_t q = 0; q < jb->gpus; q++) {
                uint32_t g = s->job_gpus[s->slot_first[j] + k * jb->gpus + q];
                cr_assert(g >= nd->gpu_first && g < nd->gpu_first + nd->gpu_count,
                          "%s/%s: job %u pod %u on a GPU not of its node", who, name, j, k);
                for (uint32_t e = 0; e < k * jb->gpus; e++)
                    cr_assert_neq(s->job_gpus[s->slot_first[j] + e], g,
                                  "%s/%s: two pods of job %u on GPU %u", who, name, j, g);
            }
        }
    }
}

/* Every policy that places distributed jobs, on random queues of them, with live and
 * stale metrics, gang timeouts on and off, default with and without nvidia.com/gpu and
 * gang scheduling: the invariants above and check_pods hold, a policy that never
 * over-commits has no OOM kill with the oracle, and the same input gives the same
 * bytes, also when every scheduling point makes the policies rebuild what they derive
 * from the estimates (policy_churn_estimates). With policy_check_indexes, every
 * policy's indexes are checked too. */
Test(conformance, every_policy_places_pods_and_keeps_the_invariants, .timeout = 300)
{
    static const char *const configs[][4] = {
        {"scrape_interval_s=0", "completion=event", "gang_timeout_s=0", NULL},
        {"gang_timeout_s=600", "gpu_as_resource=true", NULL, NULL},
        {"scrape_interval_s=0", "completion=event", "gang_scheduling=true", "gpu_as_resource=true"},
        {"gang_scheduling=true", "reserve_after_s=0", "reserve_min_gpus=1", NULL},
    };
    static char csv[8192];
    uint32_t pods[24];
    policy_check_indexes = true;
    for (size_t p = 0; p < policy_registry_len; p++) {
        const struct policy_ops *pol = policy_registry[p];
        if (!pol->places_pods)
            continue;
        for (uint64_t seed = 1; seed <= 6; seed++)
            for (size_t c = 0; c < sizeof configs / sizeof configs[0]; c++) {
                char name[64];
                snprintf(name, sizeof name, "seed %llu, config %zu", (unsigned long long)seed, c);
                size_t n_sets = 0;
                while (n_sets < 4 && configs[c][n_sets])
                    n_sets++;
                random_pods_queue(seed, 8 + seed * 2, csv, sizeof csv, pods);
                struct run r, r2;
                run_start_pods(&r, pods_cluster, configs[c], n_sets, csv, pol->name, pods);
                struct trace_case tc = {.name = name};
                check_invariants(&tc, pol, r.s);
                check_pods(pol->name, name, r.s);
                char *first = render_jobs(r.s);
                policy_churn_estimates = true;
                run_start_pods(&r2, pods_cluster, configs[c], n_sets, csv, pol->name, pods);
                policy_churn_estimates = false;
                char *second = render_jobs(r2.s);
                cr_assert_str_eq(first, second, "%s/%s: not deterministic, or decides otherwise "
                                 "when its estimates are rebuilt", pol->name, name);
                free(first);
                free(second);
                run_free(&r);
                run_free(&r2);
            }
    }
}
