/* view: what the controller knows, and all that a policy may read: the cluster, what
 * each job declares, the queue, the last scrape, the controller's bookkeeping, and
 * estimates (never the truth, the catalogue or a job's true run time). The engine
 * (controller.c) owns every array; policies only read them. */
#ifndef CPN_VIEW_H
#define CPN_VIEW_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster.h"

#define VIEW_NONE UINT32_MAX

/* Slack when comparing requested CPU or memory (floating sums) with a capacity, or a
 * remainder with zero: one value for the engine's checks and the policies' alike. */
#define VIEW_FIT_EPS 1e-9

struct catalog;
struct job;
struct jobset;
struct profile;
struct predictor;
struct net;
struct nodeidx;

/* What a controller knows of a submitted job: what the job declares. Its true run
 * time and GPU memory are not here; ask view_estimate. */
struct view_job {
    double submit_s;
    double cpus;    /* CPU cores requested */
    double mem_gib; /* host memory requested */
    uint32_t gpus;  /* GPUs on one node */
    uint32_t pods;  /* pods, each of gpus GPUs, cpus and mem_gib (1 but for distributed
                     * jobs: docs/distributed.md) */
};

/* What the estimates are made from (the predictor, or the catalogue for the oracle;
 * the submitted jobs in full; the network; a memo of predictions). Engine-owned and
 * opaque to policies: they reach it only through view_estimate and
 * view_transfer_estimate_s. pred NULL means the catalogue's truth, net NULL means
 * transfers take no time. All are borrowed and must outlive it. */
struct view_source;
/* learn: whether the controller learns from completed runs (config `learn`; only the
 * learned methods do: the oracle and noisy are fixed references). prior_run_s: what a
 * learned method expects of a job given by duration before any history (config
 * `prior_run_s`). */
struct view_source *view_source_create(const struct catalog *cat, const struct jobset *jobs,
                                       const struct predictor *pred, const struct net *net,
                                       bool learn, double prior_run_s);
void view_source_destroy(struct view_source *src); /* NULL is a no-op */
/* For the engine alone (a policy never sees the truth): the catalogue's profile of job
 * jb, which has a model, on cluster GPU type `type`, which the engine runs the job by.
 * Memoised by the predictions' key, since the engine asks at every placement and a
 * catalogue look-up scans the model's tables. */
void view_source_true_profile(struct view_source *src, const struct cluster *cl,
                              const struct job *jb, uint32_t type, struct profile *out);
/* The controller learns that job j completed a run of run_s seconds (start to end, all
 * that slowed it included; NaN when the run shared a GPU with another job, which teaches
 * nothing of its run alone) with peak GPU memory peak_gib per GPU on GPUs of cluster type
 * `type`. Returns true when the estimates changed (the engine then grows est_version). */
bool view_source_learn(struct view_source *src, const struct cluster *cl, uint32_t j,
                       uint32_t type, double run_s, double peak_gib);

struct view {
    double now;
    /* Grows whenever anything a policy reads might have changed (a scrape, the
     * bookkeeping, or with live metrics the truth); the queue is not counted. A policy
     * may remember a decision that depends on the view until it grows. */
    uint64_t version;
    /* Grows whenever the controller's estimates (view_estimate) may have changed: when
     * it learns from completed jobs (docs/predictor.md, "Learning during a run"). Only
     * between scheduling points. A policy that keeps anything derived from estimates
     * (run times, memory, the queue ordered by them) rebuilds it in begin when this
     * differs from the value it last saw. */
    uint64_t est_version;
    const struct cluster *cl; /* topology and config (cl->cfg.cpu_threshold, ...) */
    size_t n_jobs;                 /* the submitted jobs: view_job(v, j) for j < n_jobs */
    struct view_source *src;       /* for the estimates (engine-owned, opaque) */
    const struct nodeidx *nodeidx; /* for view_first_node (engine-owned; may be NULL) */
    const void *params;           /* the policy's parameters (policy_ops.params), or NULL */
    /* The run's stop flag (sim.stop: nonzero once SIGINT or SIGTERM arrived), or NULL.
     * A policy whose scheduling pass may be long (a loop over the queue or the nodes)
     * asks view_stopping in it and, when true, places nothing more: the run ends
     * without results, so what it leaves undone changes no output. */
    const volatile sig_atomic_t *stop;
    /* True when the controller's node filter applies to this run's policy
     * (policy_ops.cpu_filter and the config's cpu_filter): view_node_eligible. */
    bool cpu_filter;

    /* The queue of jobs waiting for a placement, in order of (re-)entry: arrivals and
     * jobs back from an OOM back-off are appended. Iterate with
     * for (j = v->queue_head; j != VIEW_NONE; j = v->queue_next[j]). */
    uint32_t queue_head;
    const uint32_t *queue_next; /* [jobs] */
    size_t queue_len;
    const uint32_t *attempts; /* [jobs]: placements so far of each job */

    /* The last scrape, taken at scrape_time_s. */
    double scrape_time_s;
    const double *node_cpu_util;    /* [nodes] 0..1: (cores jobs use + other tenants') / cpus */
    const double *gpu_util;         /* [gpus] 0..1: 1 when a job is computing on it */
    const double *gpu_mem_used_gib; /* [gpus] */
    const uint32_t *site_idle_gpus; /* [sites] GPUs that looked idle (view_gpu_looks_idle) */

    /* Bookkeeping: jobs the controller placed and does not yet know have ended. */
    const double *node_cpus_req;    /* [nodes] CPU cores they requested */
    const double *node_mem_req_gib; /* [nodes] host memory they requested */
    const uint32_t *gpu_assigned;   /* [gpus] how many of them use each GPU */
    const uint32_t *node_free_gpus; /* [nodes] its GPUs that none of them uses */
    const uint64_t *free_node_bits; /* bit n: node_free_gpus[n] > 0 (for view_next_free_node) */
    const double *gpu_assigned_mem_gib; /* [gpus] their predicted peak memory per GPU */
    size_t active_jobs;             /* how many jobs that is */

    /* Per job, as the controller placed it (its last attempt). */
    const uint8_t *job_active;     /* [jobs] 1 while counted in the bookkeeping */
    const uint32_t *job_node;      /* [jobs] node, VIEW_NONE when never placed */
    const double *job_placed_s;    /* [jobs] when it was placed */
    const double *job_started_s;   /* [jobs] when its data had arrived and it started; -1 before */
    const uint32_t *job_gpu_first; /* [jobs] index of its first GPU in job_gpus */
    const uint32_t *job_gpus;      /* global GPU indices: job_gpus[job_gpu_first[j] + k], k < gpus;
                                    * pod p of a job of several pods: k = p x gpus + i */
    /* [jobs] pods of its current (or last) attempt placed; NULL when every job has one
     * pod. Read it with view_pods_placed. */
    const uint32_t *pods_placed;
};

/* Pods of queued job j placed so far in this attempt: 0 while it waits for its first
 * (always, when every job has one pod). */
static inline uint32_t view_pods_placed(const struct view *v, uint32_t j)
{
    return v->pods_placed ? v->pods_placed[j] : 0;
}

/* What the controller predicts for job j on GPUs of a type (an index into
 * cl->types): run time alone there (seconds; for a job of several pods, its steps over
 * all its pods with every step as on one node: view_allreduce_run_s adds what their
 * all-reduce costs where they are) and peak GPU memory per GPU (GiB). known
 * is false when the predictor has never seen the model (it should then run alone the
 * first time). */
struct view_estimate {
    double run_s;
    double mem_gib;
    double cpu_cores; /* CPU cores it would keep busy there at full speed (docs/cpu.md) */
    bool known;
};
void view_estimate(const struct view *v, uint32_t j, uint32_t type, struct view_estimate *out);

/* True unless job j's source says it cannot run on GPUs of cluster type `type`: its
 * model, batch and GPU count were measured at zero throughput on the type's catalogue
 * profile (catalog_runs_on; Gavel's table has such entries). Like a node selector, it is
 * what the job declares, not a prediction: every policy sees it whatever the predictor,
 * and must not place the job on such a node (the engine aborts the run if one does). A
 * job with no model, or a type with no catalogue profile, runs on it. */
bool view_job_runs_on(const struct view *v, uint32_t j, uint32_t type);

/* The first node >= from, in cluster order, where job j may run (view_job_runs_on), its
 * CPU and memory requests fit by the controller's bookkeeping and at least idle_gpus
 * GPUs looked idle in the last scrape; VIEW_NONE when there is none. With the engine's
 * index this costs O(log n) per node skipped, not a scan of every node. */
uint32_t view_first_node(const struct view *v, uint32_t from, uint32_t j, uint32_t idle_gpus);

/* The first node >= from, in cluster order, with at least `gpus` GPUs that no job of
 * the bookkeeping uses (any node when gpus is 0); VIEW_NONE when there is none. With
 * the engine's index this costs O(log n) per node skipped. */
uint32_t view_next_free_node(const struct view *v, uint32_t from, uint32_t gpus);

/* Seconds that the all-reduce of distributed job j's gradients adds to its run when its
 * pods are on the nodes pod_nodes[0..pods) (in pod order; fewer than the job's pods when
 * a policy weighs where to put the next one): its steps (as view_estimate counts them)
 * times the engine's all-reduce of one step over those nodes (net_allreduce_s: the
 * cluster's topology, the sites' net_gbps, the links' bandwidth and latency, and the
 * catalogue model's parameters, all things the controller knows). 0 when they are on
 * one node, for a job given by duration (its duration holds its communication) and
 * when the run models no network. */
double view_allreduce_run_s(const struct view *v, uint32_t j, const uint32_t *pod_nodes,
                            uint32_t pods);

/* Estimated seconds to move job j's image, model and data to a site now, as the
 * controller can know it (link parameters, caches, the transfers it started). */
double view_transfer_estimate_s(const struct view *v, uint32_t j, uint32_t site);
/* view_transfer_estimate_s of job j to each of sites[0..count), into out[sites[i]]
 * (out has a slot per site of the cluster): cheaper than a call per site. */
void view_transfer_estimates_s(const struct view *v, uint32_t j, const uint32_t *sites,
                               size_t count, double *out);

/* What job j declares (a copy, read from the submitted jobs through the view's source:
 * the view keeps no copy of its own). */
struct view_job view_job(const struct view *v, uint32_t j);

/* Pods of job j's current (or last) attempt that were placed: all of them for a job of
 * the bookkeeping (job_active) that has left the queue; 1 when every job has one pod. */
static inline uint32_t view_pods_held(const struct view *v, uint32_t j)
{
    return v->pods_placed ? v->pods_placed[j] : 1;
}

/* The node of pod k (< view_pods_held, or < view_pods_placed while queued) of job j:
 * job_node for its first pod, else the node of the pod's first GPU (job_gpus). */
static inline uint32_t view_pod_node(const struct view *v, uint32_t j, uint32_t k)
{
    if (k == 0)
        return v->job_node[j];
    uint32_t gpus = view_job(v, j).gpus;
    uint32_t stride = gpus < CLUSTER_MAX_NODE_GPUS ? gpus : CLUSTER_MAX_NODE_GPUS;
    return v->cl->gpu_node[v->job_gpus[v->job_gpu_first[j] + k * stride]];
}

/* True when the node's requested CPU and memory, by the controller's bookkeeping, plus
 * extra_cpus and extra_mem_gib (what the caller has planned there: the earlier pods of
 * a job placed all at once), leave room for job j's requests. */
static inline bool view_node_fits_more(const struct view *v, uint32_t node, uint32_t j,
                                       double extra_cpus, double extra_mem_gib)
{
    const struct node *n = &v->cl->nodes[node];
    const struct view_job jb = view_job(v, j);
    return v->node_cpus_req[node] + extra_cpus + jb.cpus <= n->cpus + VIEW_FIT_EPS &&
           v->node_mem_req_gib[node] + extra_mem_gib + jb.mem_gib <= n->mem_gib + VIEW_FIT_EPS;
}

/* True when the node's requested CPU and memory, by the controller's bookkeeping,
 * leave room for job j's requests. */
static inline bool view_node_fits_requests(const struct view *v, uint32_t node, uint32_t j)
{
    return view_node_fits_more(v, node, j, 0, 0);
}

/* True when the run is being stopped (view.stop): a long scheduling pass should end. */
static inline bool view_stopping(const struct view *v) { return v->stop && *v->stop; }

/* True when the last scrape showed the GPU idle: no utilisation and no memory in use. */
static inline bool view_gpu_looks_idle(const struct view *v, uint32_t gpu)
{
    return v->gpu_util[gpu] <= 0.0 && v->gpu_mem_used_gib[gpu] <= 0.0;
}

/* True when the controller's node filter lets node take a new job: the filter does
 * not apply to this run's policy, or the node's scraped CPU utilisation is below
 * cpu_threshold. The view's node searches (view_first_node, view_next_free_node) skip
 * nodes it refuses, and the engine rejects a placement on one. */
static inline bool view_node_eligible(const struct view *v, uint32_t node)
{
    return !v->cpu_filter || v->node_cpu_util[node] < v->cl->cfg.cpu_threshold;
}

/* The factor by which a job that keeps cpu_cores busy would run slower on node now,
 * as the controller can predict it from the last scrape: when the cores the scrape
 * saw busy plus cpu_cores (plus extra_cores, what the caller placed there since) exceed
 * the node's, the node's jobs share them in proportion (docs/cpu.md); else 1. */
static inline double view_cpu_slowdown(const struct view *v, uint32_t node, double cpu_cores,
                                       double extra_cores)
{
    double cpus = v->cl->nodes[node].cpus;
    double load = v->node_cpu_util[node] * cpus + extra_cores + cpu_cores;
    return cpus > 0 && load > cpus ? load / cpus : 1.0;
}

#endif
