/* Distributed jobs (docs/distributed.md): pods, gangs, the gang timeout, deadlock and
 * the all-reduce's cost, on inputs small enough that the right answer is worked out
 * by hand in the comments. The ideal controller (live metrics, ends learnt at once)
 * unless a test says otherwise; jobs given by duration on speed-1 GPUs without a
 * catalogue profile, except where a step time is the point. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>

#include "../sim/engine/catalog.h"
#include "../sim/io/report.h"
#include "helpers.h"

#define HDR "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,duration_s,gpu_mem_gib\n"
#define SHDR "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,samples\n"
#define EPS 1e-6

/* `nodes` nodes of `gpus` GPUs in site a, whose network between nodes is net_gbps;
 * GPU type G (no profile) or H100 (the catalogue's h100 profile). */
static const char *cluster(unsigned nodes, unsigned gpus, const char *type, double net_gbps)
{
    static char buf[1024];
    snprintf(buf, sizeof buf,
             "{\"scrape_interval_s\": 0, \"completion\": \"event\",\n"
             " \"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1.0, \"profile\": \"none\"},\n"
             "               \"H100\": {\"mem_gib\": 80, \"profile\": \"h100\"}},\n"
             " \"sites\": [{\"name\": \"a\", \"net_gbps\": %g, \"nodes\": [{\"count\": %u,\n"
             "   \"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"%s\", \"gpus\": %u}]}]}\n",
             net_gbps, nodes, type, gpus);
    return buf;
}

static const struct jobrt *rt(const struct run *r, const char *id) { return &r->s->rt[run_job(r, id)]; }

/* A job of two pods of one GPU on two one-GPU nodes: both pods are placed at 0, one
 * on each node, and it runs 0..100 as a job of one pod would. */
Test(gang, two_pods_run_on_two_nodes)
{
    struct run r;
    static const uint32_t pods[] = {2};
    run_start_pods(&r, cluster(2, 1, "G", 100), NULL, 0, HDR "g,0,-,1,1,0,1,1,1,0,a,100,10\n",
                   "fifo", pods);
    uint32_t j = run_job(&r, "g");
    cr_assert_float_eq(run_start_s(&r, "g"), 0, EPS);
    cr_assert_float_eq(rt(&r, "g")->end_s, 100, EPS);
    cr_assert_eq(r.s->rt[j].state, JS_DONE);
    cr_assert_eq(sim_pods_placed(r.s, j), 2);
    cr_assert_neq(sim_pod_node(r.s, j, 0), sim_pod_node(r.s, j, 1));
    cr_assert_eq(r.s->st.placements, 1); /* one attempt */
    cr_assert_eq(r.s->st.gang_timeouts, 0);
    run_free(&r);
}

/* Two one-GPU nodes. x (one pod, 0..1000) takes node 0. g (two pods, 100 s) arrives at
 * 1: fifo places its first pod on node 1, and its second waits, at the head of the
 * queue, with y (one pod, 50 s, arrived at 2) behind it. gang_timeout_s 300:
 *   301  g's attempt fails, its pod leaves node 1; it backs off 10 s (one failure).
 *        y, now the head, takes node 1 at once: 301..351.
 *   311  g is queued again; no GPU is idle.
 *   351  y ends; g's first pod takes node 1 again; its timeout falls at 651.
 *   651  second failure: back-off 20 s; 671 first pod again, timeout at 971.
 *   971  third failure: back-off 40 s. x ends at 1000 with nothing queued.
 *  1011  g is queued; both nodes are idle: both pods, and it runs 1011..1111. */
Test(gang, timeout_releases_the_pods_and_retries)
{
    struct run r;
    static const char *const sets[] = {"gang_timeout_s=300"};
    static const uint32_t pods[] = {1, 2, 1};
    run_start_pods(&r, cluster(2, 1, "G", 100), sets, 1,
                   HDR "x,0,-,1,1,0,1,1,1,0,a,1000,10\n"
                       "g,1,-,1,1,0,1,1,1,0,a,100,10\n"
                       "y,2,-,1,1,0,1,1,1,0,a,50,10\n",
                   "fifo", pods);
    cr_assert_float_eq(run_start_s(&r, "y"), 301, EPS);
    cr_assert_float_eq(rt(&r, "y")->end_s, 351, EPS);
    cr_assert_float_eq(run_start_s(&r, "g"), 1011, EPS);
    cr_assert_float_eq(rt(&r, "g")->end_s, 1111, EPS);
    cr_assert_eq(r.s->st.gang_timeouts, 3);
    cr_assert_eq(r.s->gang->timeouts[run_job(&r, "g")], 3);
    cr_assert_eq(r.s->attempts[run_job(&r, "g")], 4);
    cr_assert_eq(r.s->st.completed, 3);
    cr_assert(!r.s->st.deadlock);
    run_free(&r);
}

/* A job of three pods on two one-GPU nodes can place two. With gang_timeout_s 0 they
 * wait for ever: the run ends as a deadlock at 0, the job stuck holding both GPUs. */
Test(gang, waiting_for_ever_is_a_deadlock)
{
    struct run r;
    static const char *const sets[] = {"gang_timeout_s=0"};
    static const uint32_t pods[] = {3};
    run_start_pods(&r, cluster(2, 1, "G", 100), sets, 1, HDR "g,0,-,1,1,0,1,1,1,0,a,100,10\n",
                   "fifo", pods);
    uint32_t j = run_job(&r, "g");
    cr_assert(r.s->st.deadlock);
    cr_assert_eq(r.s->rt[j].state, JS_STUCK);
    cr_assert_eq(r.s->st.stuck, 1);
    cr_assert_eq(sim_pods_placed(r.s, j), 2);
    cr_assert_float_eq(r.s->now, 0, EPS);
    run_free(&r);
}

/* The same job with the default timeout (1800 s): each attempt places two pods and
 * fails 1800 s later, backing off 10, 20, 40, 80 s after the first four failures. The
 * fifth is more than backoff_limit (4) allows: the job fails. Attempts at 0, 1810,
 * 3630, 5470 and 7350; it fails at 9150. No deadlock: a timeout was always pending. */
Test(gang, timeouts_count_towards_the_backoff_limit)
{
    struct run r;
    static const uint32_t pods[] = {3};
    run_start_pods(&r, cluster(2, 1, "G", 100), NULL, 0, HDR "g,0,-,1,1,0,1,1,1,0,a,100,10\n",
                   "fifo", pods);
    uint32_t j = run_job(&r, "g");
    cr_assert(!r.s->st.deadlock);
    cr_assert_eq(r.s->rt[j].state, JS_FAILED);
    cr_assert_eq(r.s->st.gang_timeouts, 5);
    cr_assert_eq(r.s->attempts[j], 5);
    cr_assert_float_eq(r.s->rt[j].end_s, 7350 + 1800, EPS);
    run_free(&r);
}

/* resnet50, batch 32, one GPU a pod, one epoch of 10 steps (samples = 32 x 2 x 10) on
 * H100s. Two pods on two nodes all-reduce the gradients every step over the site's
 * network, 8 Gbit/s = 10^9 bytes/s: 2 (2 - 1) / 2 x params x 4 bytes / 10^9 s a step.
 * The same two pods on one two-GPU node pay nothing more: their step is the measured
 * one, as a job of one pod's is (samples = 32 x 10 on one pod, 10 steps). */
Test(gang, two_node_step_pays_the_ring_all_reduce)
{
    static const uint32_t two[] = {2}, one[] = {1};
    struct run a, b, c;
    run_start_pods(&a, cluster(2, 1, "H100", 8), NULL, 0, SHDR "g,0,resnet50,32,1,0,1,1,1,0,a,640\n",
                   "fifo", two);
    run_start_pods(&b, cluster(1, 2, "H100", 8), NULL, 0, SHDR "g,0,resnet50,32,1,0,1,1,1,0,a,640\n",
                   "fifo", two);
    run_start_pods(&c, cluster(1, 1, "H100", 8), NULL, 0, SHDR "g,0,resnet50,32,1,0,1,1,1,0,a,320\n",
                   "fifo", one);
    double params = catalog_model_params_m(a.cat, catalog_model_find(a.cat, "resnet50")) * 1e6;
    cr_assert_gt(params, 1e7);
    double alone = rt(&c, "g")->end_s - run_start_s(&c, "g");
    cr_assert_gt(alone, 0);
    cr_assert_float_eq(rt(&b, "g")->end_s - run_start_s(&b, "g"), alone, 1e-9);
    double comm = params * 4 / 1e9;
    cr_assert_float_eq(rt(&a, "g")->end_s - run_start_s(&a, "g"), alone + 10 * comm, 1e-9,
                       "two nodes: %.9g s, one pod %.9g s + 10 x %.9g s",
                       rt(&a, "g")->end_s - run_start_s(&a, "g"), alone, comm);
    run_free(&a);
    run_free(&b);
    run_free(&c);
}

extern const struct policy_ops fifo_policy;

/* A policy that does not place pods refuses the run: an input error naming the line. */
Test(gang, policies_without_pods_refuse_the_queue)
{
    struct run r;
    memset(&r, 0, sizeof r);
    char err[CPN_ERR_LEN];
    struct catalog *cat;
    struct cluster *cl;
    struct jobset js;
    jobset_init(&js);
    const char *cj = cluster(2, 1, "G", 100), *csv = HDR "g,0,-,1,1,0,1,1,1,0,a,100,10\n";
    cr_assert_eq(catalog_create(&cat, err, sizeof err), 0);
    cr_assert_eq(cluster_load_buf("c.json", cj, strlen(cj), NULL, 0, cat, &cl, err, sizeof err), 0);
    cr_assert_eq(trace_read_csv_buf("j.csv", csv, strlen(csv), cat, &js, err, sizeof err), 0);
    jobset_set_pods(&js, 0, 2);
    /* Every registered policy places pods now; a copy of fifo that says it does not
     * stands for one that does not. */
    struct policy_ops nopods = fifo_policy;
    nopods.name = "nopods";
    nopods.places_pods = false;
    for (size_t i = 0; i <= policy_registry_len; i++) {
        const struct policy_ops *pol = i < policy_registry_len ? policy_registry[i] : &nopods;
        struct sim *s = NULL;
        int rc = sim_create(&s, cl, cat, &js, pol, NULL, NULL, err, sizeof err);
        if (pol->places_pods) {
            cr_assert_eq(rc, 0, "%s: %s", pol->name, err);
        } else {
            cr_assert_eq(rc, CPN_EINPUT, "%s", pol->name);
            cr_assert(strstr(err, "j.csv:2: pods:") && strstr(err, pol->name), "%s", err);
        }
        sim_destroy(s);
    }
    jobset_free(&js);
    cluster_destroy(cl);
    catalog_destroy(cat);
}

/* Two pods on two sites, a and b, neither the job's origin (o, a site without GPUs):
 * the ring joins a and b over their direct link (8 Gbit/s = 10^9 bytes/s, 10 ms; the
 * way through o is 100 ms), each step adding params x 4 / 10^9 s plus twice the
 * latency, over 10 steps. (The run's routes hold every site with GPUs for this.) */
Test(gang, pods_on_two_sites_all_reduce_over_the_wan)
{
    static const char cj[] =
        "{\"scrape_interval_s\": 0, \"completion\": \"event\",\n"
        " \"gpu_types\": {\"H100\": {\"mem_gib\": 80, \"profile\": \"h100\"}},\n"
        " \"sites\": [{\"name\": \"o\"},\n"
        "   {\"name\": \"a\", \"nodes\": [{\"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"H100\", \"gpus\": 1}]},\n"
        "   {\"name\": \"b\", \"nodes\": [{\"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"H100\", \"gpus\": 1}]}],\n"
        " \"links\": [{\"a\": \"o\", \"b\": \"a\", \"gbps\": 8, \"latency_ms\": 50},\n"
        "             {\"a\": \"o\", \"b\": \"b\", \"gbps\": 8, \"latency_ms\": 50},\n"
        "             {\"a\": \"a\", \"b\": \"b\", \"gbps\": 8, \"latency_ms\": 10}]}\n";
    static const uint32_t two[] = {2}, one[] = {1};
    struct run a, c;
    run_start_pods(&a, cj, NULL, 0, SHDR "g,0,resnet50,32,1,0,1,1,1,0,o,640\n", "fifo", two);
    run_start_pods(&c, cj, NULL, 0, SHDR "g,0,resnet50,32,1,0,1,1,1,0,o,320\n", "fifo", one);
    uint32_t j = run_job(&a, "g");
    cr_assert_eq(a.s->rt[j].state, JS_DONE);
    cr_assert_neq(a.cl->nodes[sim_pod_node(a.s, j, 0)].site, a.cl->nodes[sim_pod_node(a.s, j, 1)].site);
    double params = catalog_model_params_m(a.cat, catalog_model_find(a.cat, "resnet50")) * 1e6;
    double alone = rt(&c, "g")->end_s - run_start_s(&c, "g");
    double comm = params * 4 / 1e9 + 2 * 0.010;
    cr_assert_float_eq(rt(&a, "g")->end_s - run_start_s(&a, "g"), alone + 10 * comm, 1e-9,
                       "two sites: %.9g s, one pod %.9g s + 10 x %.9g s",
                       rt(&a, "g")->end_s - run_start_s(&a, "g"), alone, comm);
    run_free(&a);
    run_free(&c);
}

/* jobs.csv names each pod's node as the node column does, whole however long its
 * site's name: a 300-character site's two nodes. */
Test(gang, pod_nodes_keep_long_site_names_whole)
{
    char name[301], cj[2048];
    memset(name, 's', 300);
    name[300] = '\0';
    snprintf(cj, sizeof cj,
             "{\"scrape_interval_s\": 0, \"completion\": \"event\",\n"
             " \"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1.0, \"profile\": \"none\"}},\n"
             " \"sites\": [{\"name\": \"%s\", \"nodes\": [{\"count\": 2, \"cpus\": 64,\n"
             "   \"mem_gib\": 512, \"gpu_type\": \"G\", \"gpus\": 1}]}]}\n",
             name);
    char csv[1024];
    snprintf(csv, sizeof csv, HDR "g,0,-,1,1,0,1,1,1,0,%s,100,10\n", name);
    struct run r;
    static const uint32_t pods[] = {2};
    run_start_pods(&r, cj, NULL, 0, csv, "fifo", pods);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_eq(report_jobs_csv(f, r.s), 0);
    fclose(f);
    char want[700];
    snprintf(want, sizeof want, ",done,2,%s-n0;%s-n1,0|0,0\n", name, name);
    cr_assert_not_null(strstr(buf, want), "%s", buf);
    free(buf);
    run_free(&r);
}

/* The all-reduce between sites shares the WAN with transfers. Sites a and b (a node of
 * one H100 and 128 cores each) and c (one H100, 8 cores), links a-b 8 Gbit/s = 10^9
 * bytes/s and b-c 80 Gbit/s, 10 ms each (c is reached from a through b). Job g,
 * resnet50 of two pods asking 100 cores, can only go to a and b: its ring crosses a-b,
 * S steps of T0 = C + P / 10^9 + 0.02 s alone (C its compute step, P = params x 4
 * bytes, as above). At 100 s job t, 10 GiB from a, goes to c's GPU over a-b-c: from
 * 100.02 s (the route's latency) the a-b link has two flows, g's share of it is half,
 * so g's step is T1 = C + P / (10^9 / 2) + 0.02, and g's all-reduce takes what it
 * sends, P / T1 bytes/s, leaving t 10^9 - P / T1. t's data is in place after
 * D = 10 GiB / that, and g, slowed by T0 / T1 for D seconds, runs S T0 + D (1 - T0 / T1). */
Test(gang, all_reduce_shares_the_wan_with_transfers)
{
    static const char cj[] =
        "{\"scrape_interval_s\": 0, \"completion\": \"event\",\n"
        " \"gpu_types\": {\"H100\": {\"mem_gib\": 80, \"profile\": \"h100\"}},\n"
        " \"sites\": [\n"
        "   {\"name\": \"a\", \"nodes\": [{\"cpus\": 128, \"mem_gib\": 512, \"gpu_type\": \"H100\", \"gpus\": 1}]},\n"
        "   {\"name\": \"b\", \"nodes\": [{\"cpus\": 128, \"mem_gib\": 512, \"gpu_type\": \"H100\", \"gpus\": 1}]},\n"
        "   {\"name\": \"c\", \"nodes\": [{\"cpus\": 8, \"mem_gib\": 512, \"gpu_type\": \"H100\", \"gpus\": 1}]}],\n"
        " \"links\": [{\"a\": \"a\", \"b\": \"b\", \"gbps\": 8, \"latency_ms\": 10},\n"
        "             {\"a\": \"b\", \"b\": \"c\", \"gbps\": 80, \"latency_ms\": 10}]}\n";
#define WHDR "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,samples,duration_s,gpu_mem_gib\n"
    enum { S = 20000 };
    char csv[512], one_csv[512];
    snprintf(csv, sizeof csv, WHDR "g,0,resnet50,32,1,0,1,100,1,0,a,%d,,\nt,100,-,1,1,10,1,1,1,0,a,,100,10\n",
             32 * 2 * S);
    snprintf(one_csv, sizeof one_csv, WHDR "g,0,resnet50,32,1,0,1,100,1,0,a,%d,,\n", 32 * S);
    static const uint32_t pods[] = {2, 1}, one[] = {1};
    struct run r, c;
    run_start_pods(&r, cj, NULL, 0, csv, "fifo", pods);
    run_start_pods(&c, cj, NULL, 0, one_csv, "fifo", one);
    uint32_t g = run_job(&r, "g");
    cr_assert_eq(r.s->rt[g].state, JS_DONE);
    cr_assert_eq(r.cl->nodes[sim_pod_node(r.s, g, 0)].site + r.cl->nodes[sim_pod_node(r.s, g, 1)].site, 1,
                 "g's pods are on a and b");
    cr_assert_eq(rt(&r, "t")->state, JS_DONE);
    double P = catalog_model_params_m(r.cat, catalog_model_find(r.cat, "resnet50")) * 1e6 * 4;
    double C = (rt(&c, "g")->end_s - run_start_s(&c, "g")) / S;
    double T0 = C + P / 1e9 + 0.02, T1 = C + P / 0.5e9 + 0.02;
    double D = 10.0 * 1073741824.0 / (1e9 - P / T1);
    cr_assert_lt(run_start_s(&r, "g"), 100, "g runs when t comes");
    cr_assert_float_eq(run_start_s(&r, "t"), 100.02 + D, 1e-6, "t's data in place at %.9g s, want %.9g",
                       run_start_s(&r, "t"), 100.02 + D);
    double run = rt(&r, "g")->end_s - run_start_s(&r, "g"), want = S * T0 + D * (1 - T0 / T1);
    cr_assert_float_eq(run, want, 1e-6, "g ran %.9g s, want %.9g (S T0 = %.9g, D = %.9g)", run, want,
                       S * T0, D);
    run_free(&r);
    run_free(&c);
#undef WHDR
}

/* Two rings across one link each step at half of it. Sites a and b each have a node of
 * 128 cores and one of 64 (one H100 each), joined by 8 Gbit/s = 10^9 bytes/s and 10 ms.
 * g1's pods ask 100 cores, so they go to the big nodes; g2's ask 50, and take the small
 * ones (the big ones have 28 cores left): each ring crosses a-b. Their weights move
 * from a to b side by side, so they start together, and from then on the link carries
 * both all-reduces: each one's B is half the link, its step is T1 = C + P / (10^9 / 2)
 * + 0.02 s throughout, and S steps take S T1 (against S (C + P / 10^9 + 0.02) alone). */
Test(gang, two_rings_across_one_link_share_it)
{
    static const char cj[] =
        "{\"scrape_interval_s\": 0, \"completion\": \"event\",\n"
        " \"gpu_types\": {\"H100\": {\"mem_gib\": 80, \"profile\": \"h100\"}},\n"
        " \"sites\": [\n"
        "   {\"name\": \"a\", \"nodes\": [{\"cpus\": 128, \"mem_gib\": 512, \"gpu_type\": \"H100\", \"gpus\": 1},\n"
        "                               {\"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"H100\", \"gpus\": 1}]},\n"
        "   {\"name\": \"b\", \"nodes\": [{\"cpus\": 128, \"mem_gib\": 512, \"gpu_type\": \"H100\", \"gpus\": 1},\n"
        "                               {\"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"H100\", \"gpus\": 1}]}],\n"
        " \"links\": [{\"a\": \"a\", \"b\": \"b\", \"gbps\": 8, \"latency_ms\": 10}]}\n";
    enum { S = 5000 };
    char csv[512], one_csv[512];
    snprintf(csv, sizeof csv,
             SHDR "g1,0,resnet50,32,1,0,1,100,1,0,a,%d\ng2,0,resnet50,32,1,0,1,50,1,0,a,%d\n", 32 * 2 * S,
             32 * 2 * S);
    snprintf(one_csv, sizeof one_csv, SHDR "g,0,resnet50,32,1,0,1,1,1,0,a,%d\n", 32 * S);
    static const uint32_t pods[] = {2, 2}, one[] = {1};
    struct run r, c;
    run_start_pods(&r, cj, NULL, 0, csv, "fifo", pods);
    run_start_pods(&c, cj, NULL, 0, one_csv, "fifo", one);
    double P = catalog_model_params_m(r.cat, catalog_model_find(r.cat, "resnet50")) * 1e6 * 4;
    double C = (rt(&c, "g")->end_s - run_start_s(&c, "g")) / S, T1 = C + P / 0.5e9 + 0.02;
    const char *ids[] = {"g1", "g2"};
    for (int i = 0; i < 2; i++) {
        uint32_t j = run_job(&r, ids[i]);
        cr_assert_eq(r.s->rt[j].state, JS_DONE, "%s", ids[i]);
        cr_assert_neq(r.cl->nodes[sim_pod_node(r.s, j, 0)].site, r.cl->nodes[sim_pod_node(r.s, j, 1)].site,
                      "%s's pods are on a and b", ids[i]);
        cr_assert_float_eq(r.s->job_started_s[j], run_start_s(&r, "g1"), 1e-9, "they start together");
        double run = r.s->rt[j].end_s - r.s->job_started_s[j];
        cr_assert_float_eq(run, S * T1, 1e-6, "%s ran %.9g s, want S T1 = %.9g", ids[i], run, S * T1);
    }
    run_free(&r);
    run_free(&c);
}
