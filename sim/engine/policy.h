/* policy: the interface of a scheduling policy and the registry that finds one by
 * name. A policy decides; it never runs the clock or changes the truth. The engine
 * calls its hooks only through the wrappers in sim.c, which fill in absent optional
 * hooks and check every placement (it must name a queued job and GPUs that exist on
 * the named node). */
#ifndef CPN_POLICY_H
#define CPN_POLICY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cluster.h"
#include "view.h"

/* One decision: put a queued job on `ngpus` distinct GPUs of one node. ngpus must
 * equal the job's GPU count. */
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
};

struct policy_ops {
    const char *name;    /* selected with --policy NAME */
    const char *summary; /* one line for `cpnsim policies` */
    /* True when the policy claims never to put more predicted peak memory on a GPU than
     * it has free: with exact predictions (the oracle) it then causes no OOM kill, which
     * tests/test_conformance.c checks. */
    bool never_overcommits;

    /* Optional. Called once before the run, with the view at time 0 (empty queue).
     * May allocate private state into *state. Returns 0, or a negative code with a
     * message in err, which ends the run with that error. */
    int (*init)(void **state, const struct view *v, char *err, size_t errlen);

    /* Required. Called at each scheduling point (after the events of one instant:
     * arrivals, completions the controller learns of, retries, scrapes), repeatedly
     * while it returns 1: each call either fills *out with one placement and returns 1,
     * or returns 0 when it places nothing more now. The engine applies a placement
     * before the next call, so the view's bookkeeping and queue already show it; the
     * scrape arrays do not (unless the scrape is live). */
    int (*place)(void *state, const struct view *v, struct placement *out);

    /* Optional. Called after each scheduling point: the earliest time after v->now at
     * which the policy wants to be asked again even if nothing else happens (a job it
     * holds back until then), or INFINITY for none. A pending wake-up keeps the run
     * from being declared deadlocked, so return one only for a job really held back. */
    double (*wakeup)(void *state, const struct view *v);

    /* Optional. Told as it happens, between scheduling points (never during place),
     * of each job event above, with the view already showing it. A policy that keeps
     * its own index of the queue or of the nodes updates it here instead of scanning
     * the queue or the cluster at every scheduling point. */
    void (*job_event)(void *state, const struct view *v, uint32_t j, enum policy_job_event e);

    /* Optional. Frees what init allocated. Called once, also after a failed run. */
    void (*destroy)(void *state);
};

/* When true, the optimal policy checks every search of its node index against a scan
 * of every node and aborts on a difference (tests turn it on; so does building with
 * -DCPN_CHECK_INDEXES, as `make asan` does). */
extern bool optimal_check_indexes;

/* All registered policies, in the order `cpnsim policies` lists them. */
extern const struct policy_ops *const policy_registry[];
extern const size_t policy_registry_len;

/* The policy registered under name, or NULL. */
const struct policy_ops *policy_find(const char *name);

#endif
