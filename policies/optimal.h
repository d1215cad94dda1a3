/* optimal (private): the optimal policy's state and the functions its two files
 * share. optimal.c owns the queue's orders, the plan and the hooks; optimal_index.c
 * owns the estimates, the nodes' lists of running jobs, the groups' segment trees and
 * the branch-and-bound search over them. Only policies/optimal*.c include it. */
#ifndef CPN_OPTIMAL_H
#define CPN_OPTIMAL_H

#include "../sim/engine/policy.h"

/* Slack when comparing predicted times computed along different paths (seconds):
 * a rounding difference must not turn "can start now" into "wait". */
#define OPT_TIME_EPS_S 1e-6

struct opt_key {
    double key;   /* sort key, ascending */
    uint64_t pos; /* entry into the queue, for ties: the queue's order */
    uint32_t job;
};

/* An entry of one of the queue's orders: smallest (k1, k2) first. It is current while
 * the job is still queued in the same stage and the same pod (gen). */
struct opt_hent {
    double k1;
    uint64_t k2;
    uint32_t job, gen;
};

/* One order of the queue's entries (opt_queue_* in optimal.c): those that came in
 * order, a run read from its head, beside a heap of the others. Jobs arrive and age
 * in submission order, so the orders by submission are nearly all run: the entries of
 * placed jobs, the oldest, leave from its head at O(1), where a heap of most of a
 * million queued jobs sifted through ten levels, a miss of the cache at each. */
struct opt_queue {
    struct opt_hent *run; /* run[head..n) ascending; room for cap */
    size_t head, n, cap;
    struct heap side;     /* the entries that came after a greater one */
};

/* Where a job stands in the queue's orders. */
enum { OPT_OUT = 0, OPT_YOUNG, OPT_AGED };

/* Groups a search keeps in order as it lists them (opt_order_groups). */
#define OPT_GTOP 4

/* A group a search may look at: no slot there finishes before lb. */
struct opt_gkey {
    double lb;
    uint32_t grp;
};

/* A candidate place for one job. */
struct opt_slot {
    uint32_t node;
    bool now; /* it can start at once */
    double start, finish;
    uint32_t ngpus;
    uint32_t gpu[CLUSTER_MAX_NODE_GPUS];
};

/* What one booking of a pod overwrote (opt_book_gang takes tentative bookings back). */
struct opt_undo {
    uint32_t node, ngpus;
    uint32_t gpu[CLUSTER_MAX_NODE_GPUS];
    double avail[CLUSTER_MAX_NODE_GPUS], gap_end[CLUSTER_MAX_NODE_GPUS];
    uint8_t free_now[CLUSTER_MAX_NODE_GPUS];
    double cpus_now, mem_now, cpu_now;
    size_t plan_len;
};

/* opt_state.est_ver of a job never asked about: no est_version is (it counts up from
 * the run's first, one at a time). */
#define OPT_EST_NEVER UINT64_MAX

/* A job's cached estimates on one GPU type: asked together, kept together (with four
 * types, a job's take two cache lines, where an array each took three). */
struct opt_est {
    double run; /* predicted run time alone; NAN until asked */
    double mem; /* predicted peak memory per GPU */
    double cpu; /* predicted CPU cores busy at full speed */
};

/* Nodes of one site and one GPU type, in index order: a job's transfer and run
 * estimates are the same on all of them. The maxima reject a job no node can take.
 * The group has a segment tree per k in 1..max_gpus, whose nodes hold the least k-th
 * smallest GPU free-time bound over the nodes below (INFINITY: none has k GPUs) and,
 * beside it, the greatest k-th gap end negated (opt_leaf_set). */
struct opt_group {
    uint32_t site, type;
    uint32_t first, count; /* into grp_nodes */
    uint32_t max_gpus;
    double max_cpus, max_mem_gib;
    bool uniform;    /* every node has max_gpus GPUs, max_cpus CPUs and max_mem_gib memory */
    uint32_t leaves; /* a power of two >= count */
    size_t tree;     /* offset of the trees in opt_state.tree: [max_gpus][2 * leaves][2] */
};

struct opt_state {
    struct opt_group *grp; /* [n_grp] */
    size_t n_grp;
    uint32_t *grp_nodes;   /* node indices, group after group */
    uint32_t *len_grp;     /* groups whose answer opt_len needs: each uniform group unless
                            * an earlier one has its type and maxima (it would answer alike) */
    size_t n_len_grp;
    uint32_t *grp_cls;     /* [n_grp] its class: groups of one type and the same maxima, which
                            * answer alike whether they may take a job (opt_order_groups) */
    uint32_t *cls_grp;     /* [n_cls] the first group of each class, in group order */
    size_t n_cls;
    uint8_t *cls_ok;       /* [n_cls] scratch of opt_order_groups: the class may take the job */
    struct opt_gkey *grp_order; /* [n_grp] scratch: the groups a search may look at */
    bool grp_sorted;       /* scratch: grp_order is in search order already */
    size_t grp_placed;     /* scratch: grp_order[0..grp_placed) are the first in that order */
    size_t grp_m;          /* the groups in grp_order, listed for job grp_job at scheduling */
    uint32_t grp_job;      /* point grp_point, est_version grp_ver and trees grp_tree */
    uint64_t grp_point, grp_ver, grp_tree;
    uint64_t tree_gen;     /* changes of the groups' trees so far */
    double *site_xfer;     /* [sites] transfer estimates of job xfer_job to each site of
                            * grp_sites at scheduling point xfer_point: the network does
                            * not change within one, and a reservation searches twice */
    uint32_t *grp_sites;   /* the sites that have groups, asked all at once */
    size_t n_grp_sites;
    uint32_t xfer_job;
    uint64_t xfer_point;
    uint64_t point;        /* scheduling points begun */
    int8_t *tp_ok;         /* [types] scratch of one pass over the groups: -1 not asked yet,
                            * 1 the job may run on the type and its memory fits, else 0 */
    uint32_t tp_job;       /* the job and est_version of the last pass (opt_types_reset) */
    uint64_t tp_ver;
    double *tp_run, *tp_mem, *tp_cpu; /* [types] its estimates there, when tp_ok is 1 */
    uint32_t *node_grp;    /* [nodes] its group, VIEW_NONE for a node without GPUs */
    uint32_t *node_pos;    /* [nodes] its position in the group */
    double *tree;          /* every group's segment trees, from a cache line's start */
    void *tree_mem;        /* their allocation */
    double *roots;         /* [k][n_grp][2] a copy of each group's root for k + 1 GPUs, k
                            * below max_k: a search's list of groups reads one row, a
                            * few cache lines (opt_order_groups) */
    uint32_t max_k;        /* the most GPUs of a node */
    uint32_t *stale;       /* nodes whose bound holds this plan's bookings */
    size_t n_stale;
    uint8_t *is_stale;     /* [nodes] */
    /* The nodes' lists of the pods placed there: an entry per pod, the job's own index
     * for its first pod (opt_entry), n_jobs + pod_base[j] + k - 1 for pod k > 0 of a job
     * of several pods. */
    uint32_t *node_head;   /* [nodes] first entry placed there by this policy, VIEW_NONE */
    uint32_t *job_next;    /* [entries] next entry of the same node's list */
    uint32_t *job_at;      /* [entries] node whose list holds the entry, VIEW_NONE */
    uint32_t *pod_base;    /* [jobs] of several pods: its first entry past n_jobs */
    uint8_t *pod_gpus;     /* [jobs] GPUs of each of its pods (view_job's gpus, at most
                            * CLUSTER_MAX_NODE_GPUS), set when it is placed: a node's list
                            * is walked reading it, a byte a job that stays in the cache
                            * where a million jobs' records do not */
    uint32_t *ent_job;     /* [entries - jobs] the job of an entry of a later pod */
    uint32_t n_jobs;       /* the view's jobs (the first entries) */
    uint32_t max_pods;     /* the most pods of a job */
    uint8_t *run_moved;    /* [jobs] scratch of opt_rebuild (with jobs of several pods) */
    uint64_t *node_epoch;  /* [nodes] plan that last built the node's state */
    uint64_t epoch;        /* the current plan */
    bool need_plan;        /* the cluster changed: the next scheduling point plans afresh */
    double plan_scrape_s;  /* the scrape the current plan saw */
    uint8_t *has_gpus;   /* [types] 1 when some node has GPUs of the type */
    struct opt_est *est; /* [jobs * types] */
    int8_t *runs_on;     /* [jobs * types] view_job_runs_on (what the job declares, which
                          * no est_version changes); -1 until asked */
    int8_t *known;       /* [jobs] 1 known model, 0 unseen, -1 not asked yet */
    double *len;         /* [jobs] predicted run time on its fastest node; NAN until asked */
    uint64_t *est_ver;   /* [jobs] the est_version its cached estimates above are of,
                          * OPT_EST_NEVER before the first ask (est, known and len are
                          * unset until then) */
    uint64_t est_seen;   /* the est_version the queue's keys and pred_run follow */
    double *pred_run;    /* [jobs] run time on its node, as predicted now (est_seen) */
    double *pred_xfer;   /* [jobs] at its last placement */
    uint32_t *res_node;  /* [jobs] node it holds a reservation on, VIEW_NONE */
    uint32_t *alone;     /* [nodes] an unseen-model job running alone there, VIEW_NONE */

    /* The queue, as the engine's job events show it. */
    uint64_t seq;        /* entries into the queue so far */
    uint64_t *entry;     /* [jobs] its entry number: the queue's order */
    uint32_t *gen;       /* [jobs] its pods so far */
    uint8_t *stage;      /* [jobs] OPT_OUT, OPT_YOUNG or OPT_AGED */
    struct opt_queue young; /* not yet waited reserve_after_s: by (key in the configured
                             * order, opt_order_key in optimal.c; entry) */
    struct opt_queue aging; /* the same jobs by (submit time, entry) */
    struct opt_queue aged;  /* waited reserve_after_s: by (submit time, entry) */
    struct opt_queue big;   /* those of them with reserve_min_gpus GPUs or more */
    size_t n_big;          /* how many jobs that is */
    struct heap front;     /* scratch of opt_take: indices of the records to read next */
    uint32_t *fresh;     /* [jobs] jobs queued since the last scheduling point */
    uint32_t *fresh_gen; /* [jobs] their pods */
    size_t n_fresh;

    /* Scratch of one plan. */
    double *avail;       /* [gpus] when the GPU is predicted free of running and planned jobs */
    double *gap_end;     /* [gpus] start of the first job planned on a GPU free now, or INFINITY */
    uint8_t *free_now;   /* [gpus] free now and not taken by this plan */
    double *ready;       /* [nodes] earliest start allowed by the CPU threshold */
    double *cpus_now;    /* [nodes] CPU requests of this plan's placements */
    double *mem_now;     /* [nodes] their memory requests */
    double *cpu_now;     /* [nodes] their predicted CPU demand (cores) */
    uint64_t *done;      /* [jobs] epoch of the plan that handled it */
    struct opt_key *win; /* [window] scratch: the jobs this plan takes */
    size_t window;       /* optimal_window, at most the number of jobs */
    struct placement *plan; /* [jobs x max_pods] what this plan starts now */
    size_t plan_len, plan_next;

    /* A job of several pods being planned (opt_book_gang): the nodes of its pods booked
     * so far, which the search's all-reduce estimate counts (opt_visit), and what each
     * booking overwrote, to take it back. */
    uint32_t *g_nodes;     /* [max_pods + 1] */
    uint32_t g_n;
    struct opt_slot *g_slot;  /* [max_pods] the pods' slots found */
    struct opt_slot *g_now;   /* [max_pods] those of the try at starting now */
    struct opt_undo *g_undo;  /* [max_pods] */
};

/* Entry of pod k of job j in the nodes' lists (see opt_state.node_head). */
static inline uint32_t opt_entry(const struct opt_state *st, uint32_t j, uint32_t k)
{
    return k == 0 ? j : st->n_jobs + st->pod_base[j] + k - 1;
}

/* The job of entry e, and its pod. */
static inline uint32_t opt_entry_job(const struct opt_state *st, uint32_t e)
{
    return e < st->n_jobs ? e : st->ent_job[e - st->n_jobs];
}
static inline uint32_t opt_entry_pod(const struct opt_state *st, uint32_t e)
{
    return e < st->n_jobs ? 0 : e - st->n_jobs - st->pod_base[st->ent_job[e - st->n_jobs]] + 1;
}

/* GPUs a job uses over all its pods: what reserve_min_gpus and the work order count. */
static inline uint32_t opt_gpus(const struct view *v, uint32_t j)
{
    const struct view_job jb = view_job(v, j);
    return jb.gpus * jb.pods;
}

/* ---- optimal_index.c ---- */

/* Job j's predicted run time and peak memory per GPU on GPUs of a type (cached until
 * the view's est_version changes, as are the three below). */
void opt_est(struct opt_state *st, const struct view *v, uint32_t j, uint32_t type, double *run_s,
             double *mem_gib);
/* Job j's predicted CPU demand (cores at full speed) on GPUs of a type (cached). */
double opt_est_cpu(struct opt_state *st, const struct view *v, uint32_t j, uint32_t type);
/* True when job j's model is unknown to the predictor: it runs alone on a node. */
bool opt_unseen(struct opt_state *st, const struct view *v, uint32_t j);
/* Predicted run time on the fastest node that could take job j; INFINITY if none. */
double opt_len(struct opt_state *st, const struct view *v, uint32_t j);
/* Node n's bound from its running jobs alone (no plan), and from this plan's state. */
void opt_leaf_base(struct opt_state *st, const struct view *v, uint32_t n);
void opt_leaf_plan(struct opt_state *st, const struct view *v, uint32_t n);
/* Marks node n's bound for a rebuild after a job on it started or ended. */
void opt_node_changed(struct opt_state *st, const struct view *v, uint32_t n);
/* The best slot for job j (now_only: only where it starts at once), and a
 * reservation's slot; false when no node could ever take it. */
bool opt_best_slot(struct opt_state *st, const struct view *v, uint32_t j, bool now_only,
                   struct opt_slot *best);
bool opt_reserve_slot(struct opt_state *st, const struct view *v, uint32_t j, struct opt_slot *res);
/* Job j's predicted run time with its pods on nodes[0..pods): alone on the type of its
 * one node; for several pods, on its slowest pod's type plus its all-reduce there. */
double opt_run_on(struct opt_state *st, const struct view *v, uint32_t j, const uint32_t *nodes,
                  uint32_t pods);

#endif
