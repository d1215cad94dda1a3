/* cluster: the modeled datacenters: GPU types, sites, nodes (expanded from counts),
 * GPUs, WAN links, and the run's tunables (config) with their defaults in one table.
 * It holds no run-time state, and does not read files: cluster JSON is read and
 * validated by sim/io/cluster_json.h, which sees the table through the calls below. */
#ifndef CPN_CLUSTER_H
#define CPN_CLUSTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct catalog;

enum completion_mode { COMPLETION_POLL, COMPLETION_EVENT };
/* Queue orders of the optimal policy (docs/policies.md compares them). */
enum optimal_order { OPTIMAL_ORDER_LPT, OPTIMAL_ORDER_FIFO, OPTIMAL_ORDER_SPT, OPTIMAL_ORDER_WORK };
/* When the optimal policy plans afresh: when the cluster changed (a learnt end, a new
 * scrape), or at every scheduling point. */
enum optimal_replan { OPTIMAL_REPLAN_CHANGE, OPTIMAL_REPLAN_EVERY };

/* Every tunable of a run. Each is a top-level key of the cluster JSON and may be
 * overridden with --set KEY=VALUE; cluster.c holds the one table of names,
 * defaults and bounds. */
struct cluster_config {
    double scrape_interval_s;   /* 60; 0 = the controller sees live metrics */
    double poll_interval_s;     /* 60; completion polling period */
    int completion;             /* enum completion_mode; "poll" */
    double warmup_s;            /* 20; time from start to peak GPU memory */
    double backoff_base_s;      /* 10; first retry back-off after an OOM kill */
    double backoff_cap_s;       /* 360; back-off ceiling */
    unsigned backoff_limit;     /* 4; retries before a job is Failed */
    double cpu_threshold;       /* 0.7; nodes at or above it are not eligible */
    bool gpu_as_resource;       /* false; whether jobs request nvidia.com/gpu */
    double horizon_s;           /* 0 = none; simulated time at which the run stops */
    double timeline_interval_s; /* 60; timeline rows when scrape_interval_s is 0 */
    double link_gbps_scale;     /* 1; multiplies every link's bandwidth */
    double kube_backoff_s;      /* 1; default policy: first back-off of an unschedulable job */
    double kube_backoff_max_s;  /* 10; default policy: its ceiling */
    unsigned reserve_min_gpus;  /* 4; optimal: jobs with this many GPUs may get a reservation */
    double reserve_after_s;     /* 1800; optimal: ... once they have waited this long */
    int optimal_order;          /* enum optimal_order; "work" */
    unsigned max_timeline_rows; /* 10^7; most timeline rows a run may take (sim.h) */
    unsigned optimal_window;    /* 128; optimal: most jobs planned per scheduling point */
    int optimal_replan;         /* enum optimal_replan; "change" */
};

struct gpu_type {
    char *name;
    double mem_gib;
    double speed; /* throughput relative to the reference type (H100) */
    int cat_type; /* catalogue profile (enum cat_type), or -1 */
};

struct site {
    char *name;
    double cache_gib;
    uint32_t node_first, node_count;
    uint32_t gpu_first, gpu_count;
};

struct node {
    uint32_t site;
    uint32_t type;      /* index into gpu_types; meaningful only when gpu_count > 0 */
    double cpus;
    double mem_gib;
    uint32_t gpu_first; /* global index of the node's first GPU */
    uint32_t gpu_count;
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
    char *source;    /* the file name, or "<default cluster>" */
    char sha256[65]; /* of the file's bytes */
};

/* Default tunables (the table's defaults). */
void cluster_config_defaults(struct cluster_config *cfg);

/* Frees a cluster built by the reader (cluster_json.h). */
void cluster_destroy(struct cluster *c); /* NULL is a no-op */

/* Index of a site by name, or -1. */
int cluster_site_find(const struct cluster *c, const char *name);

/* The sites' names in cluster order, as an array (of c->n_sites borrowed strings) that
 * the caller frees; they stay valid while c lives. */
const char **cluster_site_names(const struct cluster *c);

/* The embedded default cluster (traces/default-cluster.json), NUL-terminated. */
const char *cluster_default_json(size_t *len);

/* Lists the config keys with defaults, one per line, for --help. */
void cluster_config_help(FILE *f);

/* The config table as a reader sees it: each key's name, kind, default, bounds
 * (numbers) and value names (enums), by index in table order. */
enum cluster_cfg_kind { CLUSTER_CFG_DOUBLE, CLUSTER_CFG_UINT, CLUSTER_CFG_BOOL, CLUSTER_CFG_ENUM };
/* Allowed range of a number: [min, max], or (min, max] when min_open; whole numbers
 * only when whole. */
struct cluster_bound {
    double min, max;
    bool min_open, whole;
};
struct cluster_cfg_desc {
    const char *name;
    int kind;                 /* enum cluster_cfg_kind */
    double def;               /* a number; 0 or 1 for a bool; the name index for an enum */
    struct cluster_bound b;   /* numeric kinds only */
    const char *const *names; /* enum kinds only: the value names, NULL-terminated */
};
/* Most keys the table may hold (cluster.c checks it when compiled), for readers'
 * arrays. */
#define CLUSTER_CONFIG_MAX_KEYS 64
/* Keys in the table. */
size_t cluster_config_count(void);
/* Describes key i (< cluster_config_count()). */
void cluster_config_key(size_t i, struct cluster_cfg_desc *out);
/* The index of the key named name; aborts when the table has none (a caller's bug). */
size_t cluster_config_find(const char *name);
/* Stores v (a number, 0/1 for a bool, the name index for an enum) as key i of cfg. */
void cluster_config_store(struct cluster_config *cfg, size_t i, double v);

#endif
