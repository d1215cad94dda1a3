/* The wide-area network, checked against closed forms. B is 10 Gbit/s in GiB/s:
 * 1e10 / 8 / 2^30 = 1.16415321826934814453125; a 10 GiB transfer over a 30 ms link
 * takes 0.03 + 10 / B = 0.03 + 10 * 8 * 1.073741824 / 10 s. Jobs are given by
 * duration with no model (no weights to move) unless said otherwise; the ideal
 * controller (live metrics, completion events) places them at once. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../sim/engine/net.h"
#include "../sim/base/util.h"
#include "helpers.h"

#define HDR "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,duration_s,gpu_mem_gib\n"
#define EPS 1e-9

static const double B = 1e10 / 8 / 1073741824.0;

/* Site a stores the data (no nodes); site b has one node of `gpus` GPUs. */
static const char *two_sites(unsigned gpus, const char *extra)
{
    static char buf[1024];
    snprintf(buf, sizeof buf,
             "{\"scrape_interval_s\": 0, \"completion\": \"event\", %s"
             " \"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1.0, \"profile\": \"none\"}},"
             " \"sites\": [{\"name\": \"a\", \"nodes\": []},"
             "  {\"name\": \"b\", \"cache_gib\": 100, \"nodes\": [{\"cpus\": 64, \"mem_gib\": 512,"
             "   \"gpu_type\": \"G\", \"gpus\": %u}]}],"
             " \"links\": [{\"a\": \"a\", \"b\": \"b\", \"gbps\": 10, \"latency_ms\": 30}]}",
             extra, gpus);
    return buf;
}

static const struct jobrt *rt(const struct run *r, const char *id) { return &r->s->rt[run_job(r, id)]; }

Test(net, one_flow_closed_form)
{
    struct run r;
    run_start(&r, two_sites(1, ""), NULL, 0, HDR "j1,0,-,1,1,10,1,1,1,0,a,100,1\n", "fifo");
    double t = 0.03 + 10 * 8 * 1.073741824 / 10;
    cr_assert_float_eq(r.s->job_placed_s[run_job(&r, "j1")], 0, EPS);
    cr_assert_float_eq(run_start_s(&r, "j1"), t, EPS, "start %.12f want %.12f", run_start_s(&r, "j1"), t);
    cr_assert_float_eq(rt(&r, "j1")->end_s, t + 100, EPS);
    cr_assert_float_eq(net_stats(r.s->net)->moved_gib, 10, EPS);
    run_free(&r);
}

Test(net, two_equal_flows_take_twice_as_long)
{
    struct run r;
    run_start(&r, two_sites(2, ""), NULL, 0,
              HDR "j1,0,-,1,1,10,1,1,1,0,a,100,1\nj2,0,-,1,1,10,1,1,1,0,a,100,1\n", "fifo");
    cr_assert_float_eq(run_start_s(&r, "j1"), 0.03 + 20 / B, EPS);
    cr_assert_float_eq(run_start_s(&r, "j2"), 0.03 + 20 / B, EPS);
    run_free(&r);
}

/* j2 is submitted at 5/B, so its flow joins (after its 30 ms) exactly when j1 has
 * moved 5 GiB. They then share B: j1's last 5 GiB take 10/B, so j1 ends at
 * 0.03 + 15/B; by then j2 has moved 5 GiB and does its last 5 alone: 0.03 + 20/B. */
Test(net, flow_speeds_up_when_the_other_ends)
{
    char csv[256];
    snprintf(csv, sizeof csv, HDR "j1,0,-,1,1,10,1,1,1,0,a,100,1\nj2,%.17g,-,1,1,10,1,1,1,0,a,100,1\n",
             5 / B);
    struct run r;
    run_start(&r, two_sites(2, ""), NULL, 0, csv, "fifo");
    cr_assert_float_eq(run_start_s(&r, "j1"), 0.03 + 15 / B, EPS);
    cr_assert_float_eq(run_start_s(&r, "j2"), 0.03 + 20 / B, EPS);
    run_free(&r);
}

/* a -> m at 10 Gbit/s, 10 ms; m -> b at 5 Gbit/s, 20 ms: one 10 GiB flow pays 30 ms
 * and moves at the slower link's B/2. The direct a-b link (100 ms) has more latency,
 * so the route takes the two hops. */
Test(net, two_hop_route_limited_by_slower_link)
{
    const char *cluster =
        "{\"scrape_interval_s\": 0, \"completion\": \"event\","
        " \"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1.0, \"profile\": \"none\"}},"
        " \"sites\": [{\"name\": \"a\", \"nodes\": []}, {\"name\": \"m\", \"nodes\": []},"
        "  {\"name\": \"b\", \"nodes\": [{\"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"G\", \"gpus\": 1}]}],"
        " \"links\": [{\"a\": \"a\", \"b\": \"m\", \"gbps\": 10, \"latency_ms\": 10},"
        "  {\"a\": \"m\", \"b\": \"b\", \"gbps\": 5, \"latency_ms\": 20},"
        "  {\"a\": \"a\", \"b\": \"b\", \"gbps\": 100, \"latency_ms\": 100}]}";
    struct run r;
    run_start(&r, cluster, NULL, 0, HDR "j1,0,-,1,1,10,1,1,1,0,a,100,1\n", "fifo");
    cr_assert_float_eq(run_start_s(&r, "j1"), 0.03 + 10 / (B / 2), EPS);
    double lat, bw;
    cr_assert(net_route(r.s->net, 0, 2, &lat, &bw));
    cr_assert_float_eq(lat, 0.03, EPS);
    cr_assert_float_eq(bw, B / 2, EPS);
    run_free(&r);
}

/* One flow at a time, on routes of one, two and three links in turn (sites b, c and d
 * on a - b and a - m - c - d, 10 ms a link, all at B): each transfer reuses the one
 * flow slot, which keeps its block for the three-link route while it carries shorter
 * ones, and each moves its 10 GiB in its route's latency plus 10/B. */
Test(net, reused_flow_slot_takes_each_route_in_turn)
{
    const char *cluster =
        "{\"scrape_interval_s\": 0, \"completion\": \"event\","
        " \"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1.0, \"profile\": \"none\"}},"
        " \"sites\": [{\"name\": \"a\", \"nodes\": []}, {\"name\": \"m\", \"nodes\": []},"
        "  {\"name\": \"b\", \"nodes\": [{\"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"G\", \"gpus\": 1}]},"
        "  {\"name\": \"c\", \"nodes\": [{\"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"G\", \"gpus\": 1}]},"
        "  {\"name\": \"d\", \"nodes\": [{\"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"G\", \"gpus\": 1}]}],"
        " \"links\": [{\"a\": \"a\", \"b\": \"b\", \"gbps\": 10, \"latency_ms\": 10},"
        "  {\"a\": \"a\", \"b\": \"m\", \"gbps\": 10, \"latency_ms\": 10},"
        "  {\"a\": \"m\", \"b\": \"c\", \"gbps\": 10, \"latency_ms\": 10},"
        "  {\"a\": \"c\", \"b\": \"d\", \"gbps\": 10, \"latency_ms\": 10}]}";
    /* fifo takes the first node that fits: b, else c, else d. */
    static const double submit[] = {0, 20, 40, 300, 320, 340};
    static const char *const site[] = {"b", "c", "d", "b", "c", "d"};
    char csv[1024] = HDR;
    for (int i = 0; i < 6; i++)
        snprintf(csv + strlen(csv), sizeof csv - strlen(csv), "j%d,%g,-,1,1,10,1,1,1,0,a,100,1\n",
                 i + 1, submit[i]);
    struct run r;
    run_start(&r, cluster, NULL, 0, csv, "fifo");
    for (int i = 0; i < 6; i++) {
        char id[16];
        snprintf(id, sizeof id, "j%d", i + 1);
        uint32_t j = run_job(&r, id);
        cr_assert_str_eq(r.cl->sites[r.cl->nodes[r.s->job_node[j]].site].name, site[i], "%s", id);
        double hops = i % 3 + 1, want = submit[i] + hops * 0.01 + 10 / B;
        cr_assert_float_eq(run_start_s(&r, id), want, EPS, "%s: start %.12f want %.12f", id,
                           run_start_s(&r, id), want);
    }
    cr_assert_eq(net_stats(r.s->net)->transfers, 6);
    run_free(&r);
}

/* Two resnet50 jobs (run time given): the first moves its 5 GiB image and the model's
 * fp32 weights (25.6 M parameters); the second, placed after the first transfer ended,
 * finds the image in b's cache and moves only the weights. */
Test(net, cached_image_moves_nothing_the_second_time)
{
    struct run r;
    run_start(&r, two_sites(2, ""), NULL, 0,
              HDR "j1,0,resnet50,64,1,0,1,1,1,5,a,100,1\nj2,50,resnet50,64,1,0,1,1,1,5,a,100,1\n",
              "fifo");
    double w = 25.6e6 * 4 / 1073741824.0;
    cr_assert_float_eq(run_start_s(&r, "j1"), 0.03 + (5 + w) / B, EPS);
    cr_assert_float_eq(run_start_s(&r, "j2") - 50, 0.03 + w / B, EPS);
    const struct net_stats *st = net_stats(r.s->net);
    cr_assert_eq(st->hits, 1);
    cr_assert_eq(st->misses, 1);
    cr_assert_float_eq(st->moved_gib, 5 + 2 * w, EPS);
    run_free(&r);
}

/* A job whose origin is where it runs moves nothing and starts at once. */
Test(net, local_job_moves_nothing)
{
    struct run r;
    run_start(&r, two_sites(1, ""), NULL, 0, HDR "j1,0,-,1,1,10,1,1,1,7,b,100,1\n", "fifo");
    cr_assert_float_eq(run_start_s(&r, "j1"), 0, EPS);
    cr_assert_eq(net_stats(r.s->net)->transfers, 0);
    run_free(&r);
}

/* link_gbps_scale halves every link: the transfer's bandwidth part doubles. */
Test(net, halving_links_doubles_the_bandwidth_time)
{
    const char *sets[] = {"link_gbps_scale=0.5"};
    struct run r;
    run_start(&r, two_sites(1, ""), sets, 1, HDR "j1,0,-,1,1,10,1,1,1,0,a,100,1\n", "fifo");
    cr_assert_float_eq(run_start_s(&r, "j1"), 0.03 + 20 / B, EPS);
    run_free(&r);
}

/* LRU: a cache of 10 GiB holding images of 6 GiB keeps only the last one. */
Test(net, lru_cache_evicts_the_least_recent)
{
    const char *cluster =
        "{\"scrape_interval_s\": 0, \"completion\": \"event\","
        " \"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1.0, \"profile\": \"none\"}},"
        " \"sites\": [{\"name\": \"a\", \"nodes\": []},"
        "  {\"name\": \"b\", \"cache_gib\": 10, \"nodes\": [{\"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"G\", \"gpus\": 1}]}],"
        " \"links\": [{\"a\": \"a\", \"b\": \"b\", \"gbps\": 10, \"latency_ms\": 30}]}";
    struct run r;
    /* resnet50, resnet18, resnet50 in sequence: the third misses (evicted by the second). */
    run_start(&r, cluster, NULL, 0,
              HDR "j1,0,resnet50,64,1,0,1,1,1,6,a,10,1\nj2,100,resnet18,64,1,0,1,1,1,6,a,10,1\n"
                  "j3,200,resnet50,64,1,0,1,1,1,6,a,10,1\n",
              "fifo");
    const struct net_stats *st = net_stats(r.s->net);
    cr_assert_eq(st->hits, 0);
    cr_assert_eq(st->misses, 3);
    cr_assert_eq(st->evictions, 2);
    run_free(&r);
}

Test(net, missing_route_is_a_configuration_error)
{
    const char *cluster =
        "{\"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1.0, \"profile\": \"none\"}},"
        " \"sites\": [{\"name\": \"a\", \"nodes\": []},"
        "  {\"name\": \"b\", \"nodes\": [{\"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"G\", \"gpus\": 1}]}]}";
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(run_create_code(cluster, HDR "j1,0,-,1,1,10,1,1,1,0,a,100,1\n", err, sizeof err),
                 CPN_EINPUT);
    cr_assert_not_null(strstr(err, "no route"), "%s", err);
    cr_assert_not_null(strstr(err, "j.csv:2"), "%s", err);
}

/* The transfer estimates keep each route's share while no link's count of flows
 * changes, and whether a site holds a model's image in a bit of their own. This wraps
 * fifo so that at every scheduling point it asks the estimate of every queued job to
 * every site, in a shuffled order and twice, and then each job's estimates to a random
 * set of sites in one call (view_transfer_estimates_s), which must be the single asks'
 * to the bit; with policy_check_indexes on, the net compares each answer, to the bit,
 * with an estimate read afresh from the routes' links and the caches' hash (net.c,
 * net_estimate_job_s). A random queue of three models' jobs from two origins keeps
 * flows starting and ending and caches of 12 GiB evicting 5 GiB images. */
extern const struct policy_ops fifo_policy;

static uint64_t est_rng = 1;

static uint32_t est_rand(uint32_t below)
{
    est_rng = est_rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(est_rng >> 33) % below;
}

static uint64_t est_asks;

static void ask_every_estimate(void *state, const struct view *v)
{
    (void)state;
    uint32_t asks[512][2];
    size_t na = 0;
    for (uint32_t j = v->queue_head; j != VIEW_NONE && na < 512; j = v->queue_next[j])
        for (uint32_t s = 0; s < v->cl->n_sites && na < 512; s++)
            asks[na][0] = j, asks[na++][1] = s;
    for (size_t i = na; i > 1; i--) {
        size_t k = est_rand((uint32_t)i);
        uint32_t t[2] = {asks[i - 1][0], asks[i - 1][1]};
        asks[i - 1][0] = asks[k][0], asks[i - 1][1] = asks[k][1];
        asks[k][0] = t[0], asks[k][1] = t[1];
    }
    for (size_t i = 0; i < 2 * na; i++) {
        double e = view_transfer_estimate_s(v, asks[i % na][0], asks[i % na][1]);
        cr_assert(e >= 0);
        est_asks++;
    }
    /* A job's estimates to a random set of sites in one call are the single asks'. */
    uint32_t sites[16];
    double all[16];
    cr_assert_leq(v->cl->n_sites, 16);
    for (uint32_t j = v->queue_head; j != VIEW_NONE; j = v->queue_next[j]) {
        size_t ns = 0;
        for (uint32_t s = 0; s < v->cl->n_sites; s++)
            if (est_rand(2))
                sites[ns++] = s;
        view_transfer_estimates_s(v, j, sites, ns, all);
        for (size_t i = 0; i < ns; i++) {
            double one = view_transfer_estimate_s(v, j, sites[i]);
            cr_assert(memcmp(&one, &all[sites[i]], sizeof one) == 0, "job %u site %u", j, sites[i]);
            est_asks++;
        }
    }
}

static void random_queue_estimates(const char *cluster, uint64_t seed)
{
    static const char *const models[] = {"resnet50", "resnet18", "vgg16"};
    char csv[16384];
    int len = snprintf(csv, sizeof csv, HDR);
    est_rng = seed;
    for (int j = 0; j < 80; j++)
        len += snprintf(csv + len, sizeof csv - (size_t)len, "j%d,%u,%s,64,1,%u,1,1,1,5,%s,%u,1\n", j,
                        est_rand(400), models[est_rand(3)], est_rand(4), est_rand(2) ? "a" : "b",
                        20 + est_rand(200));
    cr_assert(len < (int)sizeof csv);
    struct policy_ops asking = fifo_policy;
    asking.begin = ask_every_estimate;
    policy_check_indexes = true;
    est_asks = 0;
    struct run r;
    run_create(&r, cluster, NULL, 0, csv, &asking);
    char err[CPN_ERR_LEN];
    cr_assert_eq(sim_run(r.s, err, sizeof err), 0, "%s", err);
    cr_assert_gt(est_asks, 1000);
    cr_assert_gt(net_stats(r.s->net)->evictions, 0);
    cr_assert_gt(net_stats(r.s->net)->hits, 0);
    run_free(&r);
}

#define EST_NODE(site) \
    "{\"name\": \"" site "\", \"cache_gib\": 12, \"nodes\": [{\"cpus\": 64, \"mem_gib\": 512," \
    " \"gpu_type\": \"G\", \"gpus\": 2}]}"

/* Routes of two and three links (max-min sharing). */
Test(net, estimates_match_fresh_looks_on_a_chain)
{
    const char *cluster =
        "{\"scrape_interval_s\": 0, \"completion\": \"event\","
        " \"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1.0, \"profile\": \"none\"}},"
        " \"sites\": [{\"name\": \"a\", \"nodes\": []}, " EST_NODE("b") ", " EST_NODE("c") ", " EST_NODE("d") "],"
        " \"links\": [{\"a\": \"a\", \"b\": \"b\", \"gbps\": 10, \"latency_ms\": 10},"
        "  {\"a\": \"b\", \"b\": \"c\", \"gbps\": 5, \"latency_ms\": 10},"
        "  {\"a\": \"c\", \"b\": \"d\", \"gbps\": 10, \"latency_ms\": 10}]}";
    for (uint64_t seed = 1; seed <= 3; seed++)
        random_queue_estimates(cluster, seed);
}

/* Every route one link (processor sharing). */
Test(net, estimates_match_fresh_looks_on_a_mesh)
{
    const char *cluster =
        "{\"scrape_interval_s\": 0, \"completion\": \"event\","
        " \"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1.0, \"profile\": \"none\"}},"
        " \"sites\": [{\"name\": \"a\", \"nodes\": []}, " EST_NODE("b") ", " EST_NODE("c") "],"
        " \"links\": [{\"a\": \"a\", \"b\": \"b\", \"gbps\": 10, \"latency_ms\": 10},"
        "  {\"a\": \"a\", \"b\": \"c\", \"gbps\": 5, \"latency_ms\": 20},"
        "  {\"a\": \"b\", \"b\": \"c\", \"gbps\": 10, \"latency_ms\": 10}]}";
    for (uint64_t seed = 1; seed <= 3; seed++)
        random_queue_estimates(cluster, seed);
}
