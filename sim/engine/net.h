/* net: the wide-area network. Sites joined by links (bandwidth, latency); a route is
 * the lowest-latency path over links; a job's transfer is one fluid flow from its
 * origin to the site it was placed at, holding the uncached part of its image, its
 * model weights and the uncached part of its dataset. Active flows share every link
 * max-min fairly (progressive filling); rates are recomputed, for the flows connected
 * through shared links to the one that started or ended, whenever a flow starts or
 * ends, and each affected flow's completion event is pushed again. Each site keeps an
 * LRU cache of images and datasets. A running distributed job whose ring crosses sites
 * adds flows of its all-reduce, capped at its pace (net_allreduce_begin below). It owns
 * flows, routes and caches; it borrows the cluster, the jobs and the event queue. */
#ifndef CPN_NET_H
#define CPN_NET_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct net;
struct jobset;
struct cluster;
struct catalog;
struct eq;

/* Counters of the caches, summed over sites. */
struct net_stats {
    uint64_t transfers;     /* transfers that moved something */
    uint64_t hits, misses;  /* cache look-ups of images and datasets */
    uint64_t evictions;
    double moved_gib;       /* everything moved over the WAN */
    double transfer_s_sum;  /* sum of transfer durations (placement to data in place) */
    uint64_t transfer_count;/* placements, including those that moved nothing */
};

/* Builds the network of a run. It reserves its own event keys in eq (a flow's
 * completion per job, a link's next event per link). Routes from every job's origin
 * to every site with GPUs must exist (any number of links): a missing one is
 * CPN_EINPUT naming the cluster, the sites and the job's line, and so is more than
 * NET_MAX_ROUTES (net.c) origin sites x sites. It checks in O(sites + links) per
 * origin; net_build_routes computes them. Returns 0 with *out, or a negative code
 * with a message. */
int net_create(struct net **out, const struct cluster *cl, const struct catalog *cat,
               const struct jobset *js, const uint32_t *origin_site, struct eq *eq, char *err,
               size_t errlen);
void net_destroy(struct net *n); /* NULL is a no-op */

/* Computes the route from every job's origin to every site (net_create only checks
 * that they exist), once; the other calls below need them. Checks *stop (when not
 * NULL) every few milliseconds and returns CPN_ESTOP with a message once it is set;
 * 0 otherwise. */
int net_build_routes(struct net *n, const volatile sig_atomic_t *stop, char *err, size_t errlen);

/* Starts moving job j's data to `site` at time now. Returns true when a transfer was
 * started (an EV_FLOW_START for j follows, whose gen is the flow's slot, and then
 * EV_FLOW_DONE or EV_LINK_DONE), false when nothing needs to move (the job may start
 * at once). A transfer is never called off. */
bool net_transfer_begin(struct net *n, uint32_t j, uint32_t site, double now);
/* Handles EV_FLOW_START of job j (latency paid; the flow joins the links). slot is the
 * event's gen, as net_transfer_begin pushed it; every such event is current. */
void net_flow_start(struct net *n, uint32_t j, uint32_t slot, double now);
/* Handles EV_FLOW_DONE. Returns true when it was the flow's current completion: the
 * flow is removed, the others on its links speed up, the items enter the site's cache
 * and the job may start; false for a stale event. */
bool net_flow_done(struct net *n, uint32_t j, uint32_t gen, double now);

/* Handles EV_LINK_DONE (processor-sharing mode: the end of link l's next flow).
 * Returns the job whose transfer ended, or UINT32_MAX for a stale event. */
uint32_t net_link_done(struct net *n, uint32_t l, uint32_t gen, double now);

/* Seconds a transfer of job j to `site` would take if started now, as the controller
 * can know it: route latency plus the bytes not cached there over the bottleneck
 * share (each link's bandwidth divided among its active flows and this one). */
double net_estimate_job_s(const struct net *n, const struct jobset *js, uint32_t j, uint32_t site);
/* net_estimate_job_s of job j to each of sites[0..count), into out[sites[i]]: one call
 * for the sites a policy weighs for a job, where a call per site costs more than the
 * estimate. */
void net_estimate_job_sites_s(const struct net *n, uint32_t j, const uint32_t *sites, size_t count,
                              double *out);

/* GiB job j would move to `site` now (0 for its origin site or a full cache hit). */
double net_job_gib(const struct net *n, uint32_t j, uint32_t site);

/* Route between two sites: its latency in seconds and its bottleneck bandwidth in
 * GiB/s (INFINITY for a site to itself). Returns false when no route exists. */
bool net_route(const struct net *n, uint32_t from, uint32_t to, double *latency_s,
               double *bottleneck_gib_s);

/* Seconds one step of a distributed job of catalogue model `model` spends all-reducing
 * its gradients between the nodes of its pods, pod_nodes[0..pods) in pod order: a ring
 * over their distinct nodes, in that order, each sending 2 (N - 1) / N of the gradients
 * (fp32, 4 bytes a parameter of the model) over the ring's slowest hop, plus 2 (N - 1)
 * of the ring's largest latency. A hop within a node costs nothing more (its GPUs'
 * interconnect is in the measured step times); within a site it goes at the site's
 * net_gbps; between sites over the route's bottleneck and latency, here at the links'
 * full bandwidth (the step alone on the WAN). 0 for a job with no model (model < 0:
 * given by duration, which holds its communication) or pods on one node. The engine
 * charges it to every step of the job's work; the view estimates it with it for the
 * policies (view_allreduce_run_s), so both count the same seconds. */
double net_allreduce_s(const struct net *n, int32_t model, const uint32_t *pod_nodes,
                       uint32_t pods);
/* The same with each hop between sites at the share its flow has now: each link's
 * bandwidth over the flows crossing it, transfers and all-reduces alike
 * (net_allreduce_begin). Equal to net_allreduce_s, to the bit, when no other flow
 * crosses the links of the job's ring. */
double net_allreduce_now_s(const struct net *n, int32_t model, const uint32_t *pod_nodes,
                           uint32_t pods);

/* A distributed job's all-reduce between sites, while it runs (docs/distributed.md).
 * net_allreduce_begin puts one flow on the route between each pair of sites its ring
 * joins; the flows never end, and each is capped at the job's pace (GiB/s: a hop's
 * bytes per step, 2 (N - 1) / N of the gradients, times rate / step_s, the steps a
 * second of a job at `rate` of steps of step_s, net_allreduce_pace), so max-min sharing
 * gives transfers what the all-reduce leaves. net_allreduce_end takes them off. Only a
 * queue with distributed jobs has them (otherwise these are no-ops). A change in the
 * number of flows on a link marks the all-reduce jobs crossing it, whose step time
 * (net_allreduce_now_s) changed: net_allreduce_next_dirty hands them out one at a time
 * (UINT32_MAX when none is left), for the engine to set their rate and pace again. */
void net_allreduce_begin(struct net *n, uint32_t j, int32_t model, const uint32_t *pod_nodes,
                         uint32_t pods, double now);
void net_allreduce_end(struct net *n, uint32_t j, double now);
bool net_allreduce_crosses(const struct net *n, uint32_t j); /* has such flows now */
void net_allreduce_pace(struct net *n, uint32_t j, double rate, double step_s, double now);
uint32_t net_allreduce_next_dirty(struct net *n);

const struct net_stats *net_stats(const struct net *n);

#endif
