/* policy: the interface of a scheduling policy (hooks called through policy_call.c)
 * and the registry that finds one by name; it does not own the view (view.h). A policy
 * includes this header and nothing else: it brings view.h, param.h, base/util.h,
 * which the interface needs for CPN_ASSERT (check hooks) and cpn_calloc/cpn_grow, and
 * base/heap.h, the one binary heap, which policies keep their queues in. */
#ifndef CPN_POLICY_H
#define CPN_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/heap.h"
#include "../base/util.h"
#include "cluster.h"
#include "param.h"
#include "view.h"

/* One decision: put a queued job on `ngpus` distinct GPUs of one node. ngpus must
 * equal the job's GPU count. A job of several pods (view_job's pods) is placed one pod
 * per decision, its pods in order (view_pods_placed tells how many are): it stays in
 * the queue, holding what its placed pods hold, until its last pod is placed, and it
 * runs only once all are (docs/distributed.md). Two pods of a job may share a node but
 * not a GPU. */
struct placement {
    uint32_t job;
    uint32_t node;
    uint32_t ngpus;
    uint32_t gpu[CLUSTER_MAX_NODE_GPUS]; /* global GPU indices */
};

/* What job_event reports. */
enum policy_job_event {
    POLICY_JOB_QUEUED,  /* it entered the queue: an arrival, or back from an OOM back-off */
    POLICY_JOB_STARTED, /* its data arrived and it started (view->job_started_s is set) */
    POLICY_JOB_LEARNT,  /* the controller learnt that its attempt ended (done or killed):
                         * it has left the bookkeeping */
    POLICY_JOB_TIMED_OUT, /* a job of several pods left the queue: its placed pods waited
                           * gang_timeout_s for the rest. It still holds them until the
                           * controller learns of it (LEARNT), then backs off and is
                           * QUEUED again. */
};

/* A policy: one const struct per policy, built with designated initializers; hooks it
 * does not need are left out (NULL). A run calls them in this order: init once; then
 * at each scheduling point begin, place while it returns 1 and jobs are queued, end;
 * job_event between scheduling points; destroy once. The engine calls every hook only
 * through the checked wrappers of sim/engine/policy_call.c. Every hook reads the view
 * (never the truth) and may change only the policy's own state. */
struct policy_ops {
    const char *name;    /* selected with --policy NAME */
    const char *summary; /* one line for `cpnsim policies` */
    /* True when the policy claims never to put more predicted peak memory on a GPU than
     * it has free: with exact predictions (the oracle) it then causes no OOM kill, which
     * tests/test_conformance.c checks. */
    bool never_overcommits;
    /* True for the controller's own policies (fifo, optimal, sjf, easy), false for
     * kube-scheduler's (default): the engine then applies the controller's node filter
     * for it, refusing nodes whose scraped CPU utilisation is at or above cpu_threshold
     * (unless the run's cpu_filter is false). The view's node searches skip such nodes
     * (view_node_eligible) and policy_call.c rejects a placement on one. */
    bool cpu_filter;
    /* True when the policy places jobs of several pods (docs/distributed.md); a run
     * whose queue has one refuses any other policy, as an input error. */
    bool places_pods;

    /* Optional. The policy's own tunables, in the config table's descriptor form
     * (param.h): each names a field of the policy's parameter struct (params_size
     * bytes). They are top-level keys of the cluster JSON, settable with --set, listed
     * by `cpnsim policies` and `cpnsim run --help`; the hooks read their values, as
     * read for this run, through v->params. */
    const struct param *params;
    size_t n_params;
    size_t params_size;

    /* Optional. Called once before the run, with the view at time 0 (empty queue).
     * May allocate private state into *state. Returns 0, or a negative code with a
     * message in err, which ends the run with that error. */
    int (*init)(void **state, const struct view *v, char *err, size_t errlen);

    /* Optional. Called when a scheduling point begins (after the events of one instant:
     * arrivals, completions the controller learns of, retries, scrapes, wake-ups),
     * before any place, also when the queue is empty (place is then not called). A
     * policy that plans a whole scheduling point at once plans here, or notes here that
     * its first place must. The estimates (view_estimate) change only between
     * scheduling points, and then v->est_version grows: a policy that keeps anything
     * derived from them (cached estimates, the queue keyed or grouped by them) rebuilds
     * it here when est_version differs from the value it last saw, re-inserting the
     * queued jobs in queue order so that ties keep their order. */
    void (*begin)(void *state, const struct view *v);

    /* Required. Called after begin, repeatedly while it returns 1 and the queue is not
     * empty: each call either fills *out with one placement and returns 1, or returns
     * 0 when it places nothing more now. The engine checks and applies a placement
     * before the next call, so the view's bookkeeping and queue already show it; the
     * scrape arrays do not (unless the scrape is live). */
    int (*place)(void *state, const struct view *v, struct placement *out);

    /* Optional. Called when the scheduling point ends (after the last place): returns
     * the earliest time after v->now at which the policy wants a scheduling point even
     * if nothing else happens (a job it holds back until then), or INFINITY for none.
     * A pending wake-up keeps the run from being declared deadlocked, so return one
     * only for a job really held back. Absent: INFINITY. */
    double (*end)(void *state, const struct view *v);

    /* Optional. Told as it happens, between scheduling points (never between begin and
     * end), of each job event above, with the view already showing it. A policy that
     * keeps its own index of the queue or of the nodes updates it here instead of
     * scanning the queue or the cluster at every scheduling point. */
    void (*job_event)(void *state, const struct view *v, uint32_t j, enum policy_job_event e);

    /* Optional, for policies that keep indexes. Verifies them against plain scans of
     * the view and aborts (CPN_ASSERT) on a difference; it must change nothing. The
     * wrappers call it after begin and after end when policy_check_indexes is true. */
    void (*check)(const void *state, const struct view *v);

    /* Optional. Frees what init allocated. Called once, also after a failed run. */
    void (*destroy)(void *state);
};

/* When true, the engine's wrappers call each policy's check hook at every scheduling
 * point, optimal repeats every search of its node index as a scan of every node, and
 * the network compares each transfer estimate with one worked out afresh, aborting on a
 * difference. Tests turn it on; so does building with
 * -DCPN_CHECK_INDEXES, as `make asan` does. Checks never change a decision. */
extern bool policy_check_indexes;

/* A test switch: when true, the engine grows the view's est_version before every
 * begin although no estimate changed, so each policy rebuilds what it derived from
 * the estimates at every scheduling point. A policy must then decide exactly as
 * without it (tests/test_est_rebuild.c). Off by default; nothing else sets it. */
extern bool policy_churn_estimates;

/* All registered policies, in the order `cpnsim policies` lists them. */
extern const struct policy_ops *const policy_registry[];
extern const size_t policy_registry_len;

/* The policy registered under name, or NULL. */
const struct policy_ops *policy_find(const char *name);

#endif
