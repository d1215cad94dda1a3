/* cluster: the modeled datacenters: GPU types, sites, nodes (expanded from counts),
 * GPUs, WAN links, and the run's tunables (config) with their defaults in one table.
 * It holds no run-time state, and does not read files: cluster JSON is read and
 * validated by sim/io/cluster_json.h, which sees the keys through the calls below. */
#ifndef CPN_CLUSTER_H
#define CPN_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct catalog;
struct param;
struct policy_ops;

enum completion_mode { COMPLETION_POLL, COMPLETION_EVENT };
/* Every tunable of a run but the policies' own (policy_ops.params). Each is a
 * top-level key of the cluster JSON and may be overridden with --set KEY=VALUE;
 * cluster.c holds the one table of names, defaults and bounds. */
struct cluster_config {
    double scrape_interval_s;   /* 60; 0 = the controller sees live metrics */
    double poll_interval_s;     /* 60; completion polling period */
    int completion;             /* enum completion_mode; "poll" */
    double warmup_s;            /* 20; time from start to peak GPU memory */
    double backoff_base_s;      /* 10; first retry back-off after an OOM kill */
    double backoff_cap_s;       /* 360; back-off ceiling */
    unsigned backoff_limit;     /* 4; retries before a job is Failed */
    double gang_timeout_s;      /* 1800; how long a distributed job's placed pods wait for
                                 * the rest before the attempt fails; 0 = forever */
    double cpu_threshold;       /* 0.7; nodes at or above it are not eligible; > 1 (never = inf): none */
    bool cpu_filter;            /* true; whether the controller's policies apply it */
    double cpu_cost_scale;      /* 1; multiplies every pipeline's measured CPU cost per sample */
    bool learn;                 /* true; whether a learned predictor learns from completed runs */
    double prior_run_s;         /* 3600; a learned predictor's run time of a duration job
                                 * before any history (at speed 1) */
    bool gpu_as_resource;       /* false; whether jobs request nvidia.com/gpu */
    double horizon_s;           /* 0 = none; simulated time at which the run stops */
    double timeline_interval_s; /* 60; timeline rows when scrape_interval_s is 0 */
    double link_gbps_scale;     /* 1; multiplies every link's bandwidth */
    unsigned max_timeline_rows; /* 10^7; most timeline rows a run may take (sim.h) */
};

struct gpu_type {
    char *name;
    double mem_gib;
    double speed; /* throughput relative to the reference type (H100) */
    int cat_type; /* catalogue profile (enum cat_type), or -1 */
};

/* A site's network between its nodes, when the cluster JSON gives none (Gbit/s): a
 * 100-Gbit/s RoCE or InfiniBand fabric. */
#define CLUSTER_SITE_NET_GBPS 100.0

struct site {
    char *name;
    double cache_gib;
    double net_gbps; /* its nodes' network (Gbit/s): a distributed job's all-reduce */
    uint32_t node_first, node_count;
    uint32_t gpu_first, gpu_count;
};

/* The CPU load of other tenants on a node, as a fraction of its cores:
 * mean + amplitude x sin(2 pi (t + phase_s) / period_s) + noise x N(0, 1), drawn anew
 * every step_s and held in between, clamped to [0, CLUSTER_MAX_BACKGROUND]. With
 * amplitude and noise 0 it is the constant `mean` (and step_s is unused). All zero:
 * no other tenant. The noise is drawn from the run's seed, per node and step, so every
 * policy of a run sees the same load (sim.c). */
struct cpu_background {
    double mean, amplitude, period_s, phase_s, noise, step_s;
};
#define CLUSTER_MAX_BACKGROUND 0.95

static inline bool cpu_background_varies(const struct cpu_background *b)
{
    return b->amplitude != 0 || b->noise != 0;
}

struct node {
    uint32_t site;
    uint32_t type;      /* index into gpu_types; meaningful only when gpu_count > 0 */
    double cpus;
    double mem_gib;
    uint32_t gpu_first; /* global index of the node's first GPU */
    uint32_t gpu_count;
    struct cpu_background bg; /* other tenants' CPU load (background_cpu) */
};

struct link {
    uint32_t a, b; /* site indices */
    double gbps;
    double latency_ms;
};

/* Largest GPU count of one node (and so of one placement). */
#define CLUSTER_MAX_NODE_GPUS 16

struct cluster {
    struct cluster_config cfg;
    uint32_t controller_site;
    struct gpu_type *types;
    size_t n_types;
    struct site *sites;
    size_t n_sites;
    struct node *nodes;
    size_t n_nodes;
    uint32_t *gpu_node; /* [n_gpus]: the node of each GPU */
    size_t n_gpus;
    struct link *links;
    size_t n_links;
    uint32_t max_node_gpus;
    /* [policy_registry_len] each registered policy's parameters as read (the struct
     * its params table describes), NULL for a policy without any. */
    void **policy_params;
    char *source;    /* the file name, or "<default cluster>" */
    char sha256[65]; /* of the file's bytes */
};

/* Default tunables (the table's defaults). */
void cluster_config_defaults(struct cluster_config *cfg);

/* Frees a cluster built by the reader (cluster_json.h). */
void cluster_destroy(struct cluster *c); /* NULL is a no-op */

/* The parameters read for policy pol (a registered one, or one sharing a registered
 * one's params table), or NULL when it has none. Owned by c. */
const void *cluster_policy_params(const struct cluster *c, const struct policy_ops *pol);

/* Index of a site by name, or -1. */
int cluster_site_find(const struct cluster *c, const char *name);

/* The sites' names in cluster order, as an array (of c->n_sites borrowed strings) that
 * the caller frees; they stay valid while c lives. */
const char **cluster_site_names(const struct cluster *c);

/* The embedded default cluster (traces/default-cluster.json), NUL-terminated. */
const char *cluster_default_json(size_t *len);

/* Lists the config keys with defaults, one per line, for --help. */
void cluster_config_help(FILE *f);

/* The keys that --set and the cluster file's top level accept, as one list: the
 * config table's keys (the first cluster_config_count()), then every registered
 * policy's parameters in registry order, then controller_site. A reader stores a
 * config key's value into struct cluster_config with param_store, and a policy
 * parameter's into that policy's struct in cluster.policy_params. */
#define CLUSTER_MAX_SETTABLE 64 /* most keys the list may hold, for readers' arrays */
size_t cluster_config_count(void);
size_t cluster_settable_count(void);
/* Key k's descriptor; NULL for controller_site (the last). */
const struct param *cluster_settable(size_t k);
const char *cluster_settable_name(size_t k);
/* The index of the config key named name; aborts when the table has none (a caller's
 * bug). */
size_t cluster_config_find(const char *name);

#endif
