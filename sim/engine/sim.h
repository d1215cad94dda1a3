/* sim: the one simulation loop and the truth it advances. The loop pops events in
 * (time, seq) order, applies them to the truth (jobs on GPUs time-slicing, GPU
 * memory and OOM kills, CPU use), has controller.c keep the controller's view
 * (scrapes, polls, bookkeeping) and, after the events of each instant, asks the
 * policy for placements through policy_call.c. All state of a run hangs off struct sim;
 * the cluster, catalogue, jobs, policy and predictor are borrowed and must outlive it. */
#ifndef CPN_SIM_H
#define CPN_SIM_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "policy.h"
#include "catalog.h"
#include "cluster.h"
#include "eq.h"
#include "../base/heap.h"
#include "nodeidx.h"
#include "job.h"
#include "view.h"

enum job_state {
    JS_PENDING,    /* not yet submitted */
    JS_QUEUED,     /* waiting in the controller's queue (a distributed job: maybe with
                    * some of its pods placed, holding their GPUs) */
    JS_TRANSFER,   /* placed; image, model and data moving; GPUs held */
    JS_RUNNING,    /* computing */
    JS_KILLED,     /* OOM-killed, or its gang timed out; the controller has not learnt it yet */
    JS_BACKOFF,    /* waiting out the retry back-off */
    JS_DONE,       /* finished its work */
    JS_FAILED,     /* OOM-killed more often than the back-off limit allows */
    JS_STUCK,      /* still queued when the run deadlocked */
    JS_UNFINISHED, /* not ended when the horizon was reached */
    JS_NSTATES
};
extern const char *const job_state_name[JS_NSTATES];

/* The bytes of a cache line. */
#define SIM_CACHE_LINE 64

/* Run-time state of one job; index-aligned with jobset.v. It is one cache line (64
 * bytes, and sim.rt is allocated on a line's boundary): every event of a job reads it,
 * and at a million jobs a record of 80 bytes had spanned two lines, with the state and
 * gen that an event's check reads on the second and what its handler reads on the
 * first. When its last attempt started is sim.job_started_s, which the view shows. */
struct jobrt {
    union {
        double work_left_s; /* until it runs: its work, in seconds at full rate on its GPUs */
        double vfinish;     /* while running: the virtual time of its share group at which
                             * it is done (sim_share.c) */
    };
    double cpu_cores;     /* CPU cores it keeps busy at full solo speed, on its placement */
    double cpu_lost_s;    /* wall time lost to CPU contention: integral of 1 - its node's
                           * factor while it ran (up to date when it is not running) */
    union { /* an attempt has no end while it runs */
        double end_s;       /* when its last attempt ended; -1 when none, or while one
                             * is placed or running (placed: job_placed_s) */
        double lost_mark_s; /* while running: its node's lost time (sim.node_lost_s) at
                             * its start */
    };
    double peak_gib;      /* peak GPU memory per GPU on its current placement */
    double bk_mem_gib;    /* the controller's predicted peak for it, in gpu_assigned_mem */
    uint32_t gen;         /* bumped at each end of an attempt (release); the job's events
                           * carry it, to be dropped once it moved (sim.c, handle) */
    union { /* a queued job is in no share group, a running one in no queue */
        uint32_t qprev;   /* while queued: queue link back (forward: sim.queue_next) */
        uint32_t group;   /* while running: its share group (sim.groups) */
    };
    uint32_t hpos;        /* while running: its index in its group's heap */
    uint16_t kills;       /* OOM kills so far */
    uint8_t state;        /* enum job_state */
    uint8_t peaked : 1;   /* its memory counts on its GPUs */
    uint8_t shared : 1;   /* this attempt shared a GPU with another job: its run time says
                           * little of the job alone, and the controller does not learn it
                           * (set as it leaves its GPUs, from sim.gpu_crowded) */
};
_Static_assert(sizeof(struct jobrt) == SIM_CACHE_LINE, "struct jobrt is one cache line");

/* The running jobs of one node that hold exactly the same GPUs: they always go at the
 * same rate, so they share one virtual clock (processor sharing, sim_share.c). vtime
 * is the work each of them has done since the group began; a job is done when vtime
 * reaches its vfinish, and only the job with the least vfinish has an END event. */
struct sim_group {
    double vtime;     /* work per job since the group began, seconds at full rate */
    double vlast_s;   /* when vtime was last brought up to date */
    double gpu_rate;  /* the slowest time-slicing share of its GPUs */
    double rate;      /* its jobs' progress rate: gpu_rate x its node's factor */
    double cores;     /* the sum of its jobs' cpu_cores */
    struct heap heap; /* its jobs by (vfinish, index): ps_rec.h's records */
    /* The least job's record, copied as it reaches the heap's top: the group's END is
     * set from here, where reading the heap's array had cost a cache miss. */
    double top_vfinish;
    uint32_t top_job, top_gen;
    uint32_t node;
    uint32_t next, prev; /* in its node's list (sim.node_group_head); next: free list */
    uint16_t mask;    /* its GPUs: bit i is the node's GPU gpu_first + i */
    uint8_t moved;    /* a job joined or left since its END event was last pushed */
    uint8_t gang;     /* the group of one distributed job, whose pods are on several
                       * nodes' GPUs: in no node's list; node is its first pod's */
};

/* Distributed jobs (docs/distributed.md): what only jobs of several pods need. NULL
 * (sim.gang) when every job has one pod. A pod is named by its first slot; pod k of
 * job j holds slots slot_first[j] + k x sim_job_nslots .. + sim_job_nslots. */
struct sim_gangs {
    uint32_t *placed;   /* [jobs] pods of its current (or last) attempt placed */
    uint32_t *xfer_pod; /* [jobs] in transfer: the pod whose site its data moves to now */
    uint16_t *timeouts; /* [jobs] attempts its gang timeout failed */
    uint32_t *node_head;          /* [nodes] running pods on it (first slots), VIEW_NONE */
    uint32_t *pod_next, *pod_prev;/* [slots] at a running pod's first slot: that list */
    size_t waiting;     /* jobs with some pods placed and some not */
    uint32_t max_pods;  /* the most pods of any job */
    /* [jobs] a job's step as its attempt began: on its slowest pod's GPU type, and its
     * all-reduce with the links to itself (net_allreduce_s; 0 for a job given by
     * duration). With the WAN shared, its rate is scaled by their sum over the step's
     * now (sim_share.c, gang_set_rate). */
    double *step_c_s, *ar_free_s;
    uint32_t *nodes;    /* [max_pods] scratch: a job's pods' nodes (sim_gang_nodes) */
};

/* One job's use of one GPU: jobs hold job->gpus consecutive slots in sim.slots; each
 * slot is linked into its GPU's list of resident jobs. */
struct slot {
    uint32_t job;
    uint32_t next, prev; /* in the GPU's resident list; its GPU is sim.job_gpus[slot] */
};

struct sim_stats {
    uint64_t events;
    uint64_t oom_events;
    uint64_t oom_jobs;   /* jobs killed at least once */
    uint64_t placements;
    uint64_t gang_timeouts; /* attempts failed because their pods waited gang_timeout_s */
    size_t completed, failed, stuck, unfinished;
    bool deadlock;
    bool horizon_reached;
    double first_submit_s;
    double last_end_s;
    double gpu_busy_integral; /* GPU-seconds with at least one job computing */
    double cpu_used_integral; /* core-seconds busy (jobs and other tenants), all nodes */
    double cpu_lost_gpu_s;    /* GPU-seconds lost to CPU contention: gpus x cpu_lost_s */
    size_t cpu_slowed_jobs;   /* jobs that lost any time to CPU contention */
};

struct sim {
    const struct cluster *cl;
    const struct catalog *cat;
    const struct jobset *jobs;
    const struct policy_ops *pol;
    void *pol_state;
    void *pol_params;       /* the policy's default parameters when the cluster has none */
    struct net *net;

    double now;
    struct eq eq;
    uint32_t key_end;       /* eq key of share group g's END event: key_end + g (no more
                             * groups than jobs) */
    struct jobrt *rt;       /* [jobs], on a cache line's boundary (struct jobrt) */
    uint32_t *origin_site;  /* [jobs] */
    uint32_t *arrival_order;/* [jobs] job indices by (submit_s, input order); NULL when
                             * that is input order */
    size_t next_arrival;
    struct slot *slots;     /* [n_slots] */
    size_t n_slots;         /* the jobs' GPU slots: sum of sim_job_nslots */
    uint32_t *slot_first;   /* [jobs] first slot of each job */

    /* Truth. */
    uint32_t *gpu_resident;   /* [gpus] head of the slot list, VIEW_NONE if empty */
    /* [gpus] 1 once a job was placed on it beside another, since it last became empty:
     * a job that leaves while this is 1 ran beside another there (struct jobrt's
     * shared). Kept per GPU so that a placement marks no other job's state. */
    uint8_t *gpu_crowded;
    uint32_t *gpu_running;    /* [gpus] jobs computing on it */
    double *gpu_mem_gib;      /* [gpus] memory of peaked jobs */
    double *gpu_util;         /* [gpus] 1 when computing */
    double *node_cpus_held;   /* [nodes] CPU requests of jobs holding the node */
    double *node_mem_held;    /* [nodes] memory requests of jobs holding the node */
    uint32_t *node_jobs;      /* [nodes] jobs holding the node */
    /* CPU as a load (docs/cpu.md): each running job keeps cpu_cores x gpu_rate cores
     * busy; a node gives its jobs cpus x (1 - background) cores, shared in proportion
     * to demand when they ask more. */
    uint32_t *node_group_head; /* [nodes] its share groups (sim_group.next), VIEW_NONE if none */
    double *node_demand;      /* [nodes] cores its running jobs ask: sum of cpu_cores x gpu_rate */
    double *node_factor;      /* [nodes] the share of that demand it serves: min(1, available / demand) */
    double *node_lost_s;      /* [nodes] integral of 1 - node_factor up to node_lost_since_s */
    double *node_lost_since_s;/* [nodes] */
    struct sim_group *groups; /* [n_groups] share groups, live or free; key_end + index
                               * is the eq key of a group's END event */
    size_t n_groups, cap_groups;
    uint32_t free_group;      /* head of the free groups (sim_group.next), VIEW_NONE if none */
    double *node_bg;          /* [nodes] other tenants' load now, a fraction of its cores */
    double *node_cpu_used;    /* [nodes] cores busy: min(available, demand) + cpus x bg */
    double *node_cpu_util;    /* [nodes] node_cpu_used / cpus: what a scrape reads */
    double cpu_used_total;    /* sum of node_cpu_used */
    double cpu_since_s;       /* when cpu_used_integral was last brought up to date */
    double bg_patience_s;     /* how long a queue may wait on background load alone */
    double stall_since_s;     /* since when only background load could unblock it; -1 */
    uint64_t seed;            /* the run's seed for the background noise: 1, or set by
                               * the caller between sim_create and sim_run */
    uint32_t busy_gpus;
    double busy_since_s;
    size_t active;            /* jobs holding resources (transfer or running) */
    size_t running;           /* jobs computing */
    size_t backoff;           /* jobs in back-off */
    size_t unlearnt;          /* ended jobs the controller has not learnt of */
    size_t terminal;          /* done + failed */
    double last_change_s;     /* last change of the truth that a scrape shows */

    /* The controller. */
    struct view view;
    double *scr_node_cpu_util, *scr_gpu_util, *scr_gpu_mem; /* snapshot buffers */
    /* The bookkeeping, under the names the view gives them (view.h). */
    double *node_cpus_req, *node_mem_req_gib; /* [nodes] */
    uint32_t *gpu_assigned;         /* [gpus] */
    double *gpu_assigned_mem_gib;   /* [gpus] predicted peak memory of assigned jobs */
    /* Per job and per slot, one copy each, read by the engine and (through the view)
     * by policies: */
    uint32_t *attempts;       /* [jobs] placements so far */
    uint8_t *job_active;      /* [jobs] counted in the bookkeeping */
    uint32_t *job_node;       /* [jobs] current or last node, VIEW_NONE when never placed */
    double *job_placed_s;     /* [jobs] when its last attempt was placed; -1 when none */
    double *pred_run_s;       /* [jobs] the controller's predicted run alone at its last
                               * placement (view_estimate); NaN when never placed */
    double *alone_run_s;      /* [jobs] its true run alone there (the truth's work) */
    double *job_started_s;    /* [jobs] when its last attempt started; -1 when none (the
                               * outputs read it too: struct jobrt has no copy) */
    uint32_t *job_gpus;       /* [slots] the GPU of each slot, VIEW_NONE before a placement */
    double wakeup_at;         /* pending policy wake-up, INFINITY for none */
    struct nodeidx nidx;      /* free requests and idle-looking GPUs per node, as viewed */
    /* What changed in the truth since the last scrape, so that a scrape copies only
     * that (cost proportional to the changes, not to the cluster). */
    uint32_t *dirty_gpus, *dirty_nodes;
    size_t n_dirty_gpus, n_dirty_nodes;
    uint8_t *gpu_dirty, *node_dirty;
    /* Per site, for the timeline: GPUs computing, and GPU memory of peaked jobs. */
    uint32_t *site_busy;
    uint32_t *site_idle_gpus; /* [sites] GPUs that look idle in the view (view.site_idle_gpus) */
    uint32_t *node_idle; /* [nodes] the same per node, as the index last saw it */
    uint32_t *node_free_gpus; /* [nodes] GPUs no job of the bookkeeping uses (view.node_free_gpus) */
    uint64_t *free_node_bits; /* bit n: node_free_gpus[n] > 0 (view.free_node_bits) */
    double *site_mem_gib;
    double *site_cpu_used;    /* [sites] sum of its nodes' node_cpu_used, for the timeline */
    double *site_cpus;        /* [sites] its nodes' cores */
    uint32_t *queue_next;     /* [jobs] */
    uint32_t queue_tail;
    uint32_t *unlearnt_list;  /* ended jobs awaiting a poll */
    size_t unlearnt_cap;
    bool poll_scheduled;
    bool dirty;               /* a scheduling point happened at this instant */
    uint64_t samples;         /* samples so far, taken or skipped: the next falls at
                               * samples x the sample interval */
    uint64_t rows;            /* what max_timeline_rows limits: samples taken, plus one
                               * per idle stretch skipped (its last sample may become a
                               * row), so timeline.csv never holds more */
    uint64_t popped;          /* events popped so far */
    uint64_t sample_popped;   /* popped, and st.placements, when the last sample was */
    uint64_t sample_placements; /* taken: none since means nothing changed */

    const struct sim_sampler *sampler; /* borrowed; NULL for none */
    struct sim_stats st;
    /* Borrowed; NULL for none. Set by the caller after sim_create: once it points to
     * a non-zero value (a signal number, set by a SIGINT or SIGTERM handler), sim_run
     * stops before the next event, or within milliseconds while it computes the
     * routes as it starts, and returns CPN_ESTOP. */
    const volatile sig_atomic_t *stop;
    /* Borrowed; NULL for none. Set by the caller after sim_create (see below). */
    const struct sim_progress *progress;
    const struct sim_final *final;
    size_t final_jobs;      /* with final: jobs 0 .. final_jobs - 1 are done or failed */
    struct sim_gangs *gang; /* NULL unless some job has pods > 1 */
};

/* A caller's look at a run as it goes, to show progress: sim_run calls report once
 * every SIM_PROGRESS_EVERY events it pops (a power of two, so that the check costs a
 * mask), with the simulation as it stands. report may read it but not change it, and
 * reads the wall clock itself: the engine keeps none, so results never depend on it. */
#define SIM_PROGRESS_EVERY 4096u
struct sim_progress {
    void (*report)(void *ctx, const struct sim *s);
    void *ctx;
};

/* Who is told as the jobs end for good, so that it may write their results while the
 * run goes on (jobs.csv, sim/io/report.c): sim_run calls ended, on the thread that runs
 * it, each time the prefix of jobs (in input order) that are done or failed grows, with
 * its length k. Nothing changes those jobs' results any more (their entries of rt,
 * job_node, job_placed_s, pred_run_s, alone_run_s and attempts, their slots' job_gpus,
 * the gangs' placed and timeouts), so another thread may read them from then on; the
 * other jobs' results are final only once sim_run has returned. Set by the caller after
 * sim_create; ended may not touch the simulation. */
struct sim_final {
    void (*ended)(void *ctx, size_t k);
    void *ctx;
};

/* GPU slots a job's pod holds (its GPU count, at most a node's). */
static inline uint32_t sim_job_nslots(const struct job *jb)
{
    return jb->gpus < CLUSTER_MAX_NODE_GPUS ? jb->gpus : CLUSTER_MAX_NODE_GPUS;
}

/* Pods of job j placed in its current (or last) attempt: 1 for a job of one pod. */
static inline uint32_t sim_pods_placed(const struct sim *s, uint32_t j)
{
    return s->gang ? s->gang->placed[j] : 1;
}

/* Failed attempts of job j that count towards backoff_limit: its OOM kills and the
 * attempts its gang timeout failed. */
static inline unsigned sim_failures(const struct sim *s, uint32_t j)
{
    return (unsigned)s->rt[j].kills + (s->gang ? s->gang->timeouts[j] : 0u);
}

/* The node of pod k of job j (placed): job_node for its first pod, else the node of
 * the pod's first GPU (a job of several pods has GPUs on each). */
static inline uint32_t sim_pod_node(const struct sim *s, uint32_t j, uint32_t k)
{
    if (k == 0)
        return s->job_node[j];
    uint32_t e = s->slot_first[j] + k * sim_job_nslots(&s->jobs->v[j]);
    return s->cl->gpu_node[s->job_gpus[e]];
}

/* Who receives the run's samples (the timeline): begin once before the first event,
 * sample at each scrape (or timeline_interval_s with live metrics), each with the
 * simulation as it stands; skip when the samples up to time t were not taken because
 * nothing could change (each would have read what the last sample read: sim.c's
 * on_sample), so the receiver knows the last of them; end once after the last event
 * of a run that completed. begin, sample and end return 0, or -1 on a write error
 * (errno set), which ends the run with CPN_EIO. The engine knows no output format;
 * sim/io/report.c provides the timeline CSV's hooks. */
struct sim_sampler {
    int (*begin)(void *ctx, const struct sim *s);
    int (*sample)(void *ctx, const struct sim *s);
    void (*skip)(void *ctx, double t);
    int (*end)(void *ctx, const struct sim *s);
    void *ctx;
};

/* Prepares a run: resolves origins, checks job/cluster consistency (unknown origin
 * site is CPN_EINPUT naming the jobs file and line; so is a submission further from
 * time 0 than the config's max_timeline_rows timeline rows, docs/reliability.md),
 * calls the policy's init. pred
 * is what policies are told (NULL: the catalogue's truth).
 * sampler, when not NULL, receives the samples (see above). Returns 0 with *out, or a
 * negative code with a message. */
int sim_create(struct sim **out, const struct cluster *cl, const struct catalog *cat,
               const struct jobset *jobs, const struct policy_ops *pol,
               const struct predictor *pred, const struct sim_sampler *sampler, char *err,
               size_t errlen);
/* Runs to the end (all jobs ended, deadlock or horizon). Returns 0, or a negative code
 * with a message when the policy's init failed, the timeline could not be written, the
 * run reached max_timeline_rows rows (s->rows) with jobs unfinished (CPN_EINPUT: a run
 * too long to follow) or s->stop was set (CPN_ESTOP). */
int sim_run(struct sim *s, char *err, size_t errlen);
/* After sim_run: frees what only the loop needs (the event queue, the policy's state,
 * the view's source and its predictor, the queue, the node index, the arrival order,
 * the slots' links and the jobs' origins), so that the outputs' arrays do not add to the
 * run's peak memory. The run's results stay: the outputs (sim/io/report.c) read them,
 * on another thread too (sim_final), and sim_destroy frees the rest. Nothing may run
 * the sim again. NULL is a no-op. */
void sim_release_loop(struct sim *s);
void sim_destroy(struct sim *s); /* NULL is a no-op */

/* Node n's background CPU load at simulated time t, as its node entry and the run's
 * seed make it (a pure function of those: every policy of a run sees the same). */
double sim_background(const struct sim *s, uint32_t n, double t);

#endif
