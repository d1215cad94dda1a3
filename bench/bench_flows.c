/* A million WAN transfers through the network model alone: 8 sites in a full mesh
 * (28 links of 10 Gbit/s), Poisson arrivals of transfers of 1-9 GiB between random
 * sites at about 77% of the mesh's capacity. Prints flows per second, the events
 * handled and peak RSS. The rate recomputation touches only the flows connected to
 * the one that changed, so the cost per flow stays flat as the run grows. */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../sim/engine/catalog.h"
#include "../sim/engine/cluster.h"
#include "../sim/io/cluster_json.h"
#include "../sim/engine/eq.h"
#include "../sim/engine/net.h"
#include "../sim/io/trace.h"
#include "../sim/base/util.h"

#define BENCH_SITES 8
#define BENCH_RATE_PER_S 5.0

int main(int argc, char **argv)
{
    size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 1000000;
    char err[CPN_ERR_LEN];
    char json[8192];
    int len = snprintf(json, sizeof json,
                       "{\"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1, \"profile\": \"none\"}}, \"sites\": [");
    for (int s = 0; s < BENCH_SITES; s++)
        len += snprintf(json + len, sizeof json - (size_t)len,
                        "%s{\"name\": \"s%d\", \"nodes\": [{\"cpus\": 8, \"mem_gib\": 8, \"gpu_type\": \"G\", \"gpus\": 1}]}",
                        s ? "," : "", s);
    len += snprintf(json + len, sizeof json - (size_t)len, "], \"links\": [");
    int first = 1;
    for (int a = 0; a < BENCH_SITES; a++)
        for (int b = a + 1; b < BENCH_SITES; b++) {
            len += snprintf(json + len, sizeof json - (size_t)len,
                            "%s{\"a\": \"s%d\", \"b\": \"s%d\", \"gbps\": 10, \"latency_ms\": 20}",
                            first ? "" : ",", a, b);
            first = 0;
        }
    snprintf(json + len, sizeof json - (size_t)len, "]}");
    struct catalog *cat;
    struct cluster *cl;
    if (catalog_create(&cat, err, sizeof err) ||
        cluster_load_buf("bench", json, strlen(json), NULL, 0, cat, &cl, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 1);
    struct jobset js;
    jobset_init(&js);
    uint32_t *origin = cpn_malloc(n * sizeof *origin), *dst = cpn_malloc(n * sizeof *dst);
    double *at = cpn_malloc(n * sizeof *at), t = 0;
    uint32_t id = jobset_intern(&js, "x");
    for (size_t i = 0; i < n; i++) {
        struct job j = {.model = -1, .duration_s = 1, .gpu_mem_gib = -1, .id = id, .origin = id,
                        .batch = 1, .epochs = 1, .gpus = 1,
                        .data_gib = 1 + (double)gsl_rng_uniform_int(rng, 9)};
        jobset_push(&js, &j);
        origin[i] = (uint32_t)gsl_rng_uniform_int(rng, BENCH_SITES);
        dst[i] = (uint32_t)((origin[i] + 1 + gsl_rng_uniform_int(rng, BENCH_SITES - 1)) % BENCH_SITES);
        t += gsl_ran_exponential(rng, 1 / BENCH_RATE_PER_S);
        at[i] = t;
    }
    struct eq q;
    eq_init(&q);
    struct net *net;
    if (net_create(&net, cl, cat, &js, origin, &q, err, sizeof err) ||
        net_build_routes(net, NULL, err, sizeof err)) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    double w0 = cpn_wall_s();
    size_t next = 0, done = 0;
    uint64_t events = 0;
    eq_push(&q, at[0], EV_ARRIVAL, 0, 0);
    struct event ev;
    while (eq_pop(&q, &ev)) {
        events++;
        if (ev.kind == EV_ARRIVAL) {
            if (!net_transfer_begin(net, ev.job, dst[ev.job], ev.t))
                done++;
            if (++next < n)
                eq_push(&q, at[next], EV_ARRIVAL, (uint32_t)next, 0);
        } else if (ev.kind == EV_FLOW_START) {
            net_flow_start(net, ev.job, ev.gen, ev.t);
        } else if (ev.kind == EV_FLOW_DONE) {
            done += net_flow_done(net, ev.job, ev.gen, ev.t);
        } else if (ev.kind == EV_LINK_DONE) {
            done += net_link_done(net, ev.job, ev.gen, ev.t) != UINT32_MAX;
        }
    }
    double wall = cpn_wall_s() - w0;
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("flows %zu done %zu events %llu wall_s %.3f flows_per_s %.0f events_per_s %.0f "
           "peak_rss_mib %.1f sim_s %.0f\n",
           n, done, (unsigned long long)events, wall, (double)n / wall, (double)events / wall,
           (double)ru.ru_maxrss / 1024.0, t);
    net_destroy(net);
    eq_free(&q);
    free(origin);
    free(dst);
    free(at);
    jobset_free(&js);
    gsl_rng_free(rng);
    cluster_destroy(cl);
    catalog_destroy(cat);
    return done == n ? 0 : 1;
}
