/* Routes between sites: paths of any length, ties, many sites, the limit on origins
 * x sites, and a stop signal during route finding. Links are given in Gbit/s; B is
 * 10 Gbit/s in GiB/s (1e10 / 8 / 2^30), so 10 GiB over a bottleneck of B/2 take
 * 20 / B = 17.179869184 s, after the route's latency (the sum of its links'). */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/engine/net.h"
#include "../sim/base/util.h"
#include "helpers.h"

#define HDR "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,duration_s,gpu_mem_gib\n"
#define EPS 1e-9
#define GPU_NODE "{\"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"G\", \"gpus\": 8}"

static const double B = 1e10 / 8 / 1073741824.0;

/* A cluster of n sites s0..s(n-1) as JSON (the caller frees it). kind 'c': a chain
 * s0 - s1 - ... whose link k has latency k + 1 ms and 10 Gbit/s, except the middle
 * one (k = (n - 1) / 2) at 5; the GPUs are at the chain's end. kind 's': a star
 * around s0, each link 1 ms and 10 Gbit/s, the GPUs at s1. */
static char *cluster_of(char kind, unsigned n)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    unsigned gpu = kind == 'c' ? n - 1 : 1;
    fprintf(f, "{\"scrape_interval_s\": 0, \"completion\": \"event\", \"gpu_types\": {\"G\":"
               " {\"mem_gib\": 80, \"speed\": 1.0, \"profile\": \"none\"}}, \"sites\": [");
    for (unsigned i = 0; i < n; i++)
        fprintf(f, "%s{\"name\": \"s%u\", \"nodes\": [%s]}", i ? "," : "", i,
                i == gpu ? GPU_NODE : "");
    fprintf(f, "], \"links\": [");
    for (unsigned k = 0; k + 1 < n; k++) {
        if (kind == 'c')
            fprintf(f, "%s{\"a\": \"s%u\", \"b\": \"s%u\", \"gbps\": %d, \"latency_ms\": %u}",
                    k ? "," : "", k, k + 1, k == (n - 1) / 2 ? 5 : 10, k + 1);
        else
            fprintf(f, "%s{\"a\": \"s0\", \"b\": \"s%u\", \"gbps\": 10, \"latency_ms\": 1}",
                    k ? "," : "", k + 1);
    }
    fprintf(f, "]}");
    fclose(f);
    return buf;
}

/* Jobs j0..j(count-1) moving 10 GiB, submitted at 0, from origins s(first)... */
static char *jobs_from(unsigned first, unsigned count)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    fputs(HDR, f);
    for (unsigned i = 0; i < count; i++)
        fprintf(f, "j%u,0,-,1,1,10,1,1,1,0,s%u,100,1\n", i, first + i);
    fclose(f);
    return buf;
}

/* A chain of `hops` links from s0 to the GPUs: the route is the whole chain, its
 * latency 1 + 2 + ... + hops ms and its bottleneck the 5 Gbit/s link. */
static void chain_runs(unsigned hops)
{
    char *cluster = cluster_of('c', hops + 1), *jobs = jobs_from(0, 1);
    struct run r;
    run_start(&r, cluster, NULL, 0, jobs, "fifo");
    double lat = hops * (hops + 1) / 2 / 1000.0, got_lat, got_bw;
    cr_assert(net_route(r.s->net, 0, hops, &got_lat, &got_bw));
    cr_assert_float_eq(got_lat, lat, EPS);
    cr_assert_float_eq(got_bw, B / 2, EPS);
    double start = run_start_s(&r, "j0");
    cr_assert_float_eq(start, lat + 20 / B, EPS, "start %.12f want %.12f", start, lat + 20 / B);
    run_free(&r);
    free(cluster);
    free(jobs);
}

/* 17 hops: 0.153 + 17.179869184 s. It was refused as "no route (of at most 16 links)". */
Test(routes, chain_of_17_hops_runs)
{
    chain_runs(17);
}

/* 40 hops: 0.820 + 17.179869184 s. */
Test(routes, chain_of_40_hops_runs)
{
    chain_runs(40);
}

/* Two routes of equal latency from a to d: through b (site 1) and through c (site 2),
 * with the direct link a-d as long as either. The direct one has fewer hops and wins.
 * Without it, b and c tie on latency and hops, and b, the lower site, is settled
 * first and offers d first: the route goes through b, whose link to d is 5 Gbit/s. */
static double tie_bandwidth(bool direct)
{
    char cluster[1024];
    snprintf(cluster, sizeof cluster,
             "{\"scrape_interval_s\": 0, \"completion\": \"event\", \"gpu_types\": {\"G\":"
             " {\"mem_gib\": 80, \"speed\": 1.0, \"profile\": \"none\"}}, \"sites\": ["
             "{\"name\": \"a\", \"nodes\": []}, {\"name\": \"b\", \"nodes\": []},"
             "{\"name\": \"c\", \"nodes\": []}, {\"name\": \"d\", \"nodes\": [" GPU_NODE "]}],"
             " \"links\": [{\"a\": \"c\", \"b\": \"d\", \"gbps\": 10, \"latency_ms\": 1},"
             " {\"a\": \"b\", \"b\": \"d\", \"gbps\": 5, \"latency_ms\": 1},"
             " {\"a\": \"a\", \"b\": \"c\", \"gbps\": 10, \"latency_ms\": 1},"
             " {\"a\": \"a\", \"b\": \"b\", \"gbps\": 10, \"latency_ms\": 1}%s]}",
             direct ? ", {\"a\": \"a\", \"b\": \"d\", \"gbps\": 2.5, \"latency_ms\": 2}" : "");
    struct run r;
    run_start(&r, cluster, NULL, 0, HDR "j0,0,-,1,1,10,1,1,1,0,a,100,1\n", "fifo");
    double lat, bw;
    cr_assert(net_route(r.s->net, 0, 3, &lat, &bw));
    cr_assert_float_eq(lat, 0.002, EPS);
    run_free(&r);
    return bw;
}

Test(routes, ties_go_to_fewer_hops_then_the_lower_site)
{
    cr_assert_float_eq(tie_bandwidth(true), B / 4, EPS);
    cr_assert_float_eq(tie_bandwidth(false), B / 2, EPS);
}

/* A star of 20,000 sites with 100 origins on its leaves: accepted, and each job's
 * route is leaf - s0 - s1 (2 ms). s1's 8 GPUs take the first 8 jobs at once; their
 * flows share s0-s1 (10 Gbit/s) and start together, so each moves at B/8: j0 starts
 * at 0.002 + 80 / B s. */
Test(routes, star_of_many_sites_is_accepted)
{
    char *cluster = cluster_of('s', 20000), *jobs = jobs_from(19900, 100);
    struct run r;
    run_start(&r, cluster, NULL, 0, jobs, "fifo");
    cr_assert_float_eq(run_start_s(&r, "j0"), 0.002 + 80 / B, EPS);
    run_free(&r);
    free(cluster);
    free(jobs);
}

/* 8,193 origins x 8,193 sites is just over 2^26 routes: refused before any route is
 * computed, with a message that says how many and why. */
Test(routes, too_many_origins_times_sites_is_refused)
{
    char *cluster = cluster_of('s', 8193), *jobs = jobs_from(0, 8193);
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(run_create_code(cluster, jobs, err, sizeof err), CPN_EINPUT);
    cr_assert_not_null(strstr(err, "c.json: 8193 origin sites x 8193 sites = 67125249 routes, more than the 67108864"), "%s", err);
    cr_assert_not_null(strstr(err, "j.csv:8194"), "%s", err);
    free(cluster);
    free(jobs);
}

/* A signal already raised when the run begins stops it in the route phase. */
Test(routes, route_finding_honours_the_stop_flag)
{
    char *cluster = cluster_of('s', 100), *jobs = jobs_from(50, 10);
    struct run r;
    run_create(&r, cluster, NULL, 0, jobs, policy_find("fifo"));
    volatile sig_atomic_t flag = SIGTERM;
    r.s->stop = &flag;
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(sim_run(r.s, err, sizeof err), CPN_ESTOP);
    cr_assert_not_null(strstr(err, "stopped by signal 15 while computing routes"), "%s", err);
    run_free(&r);
    free(cluster);
    free(jobs);
}
