/* jobshape: numbers the shapes of jobs for policies whose test "does this job fit a
 * node now" depends only on its shape: its GPU count, pods, CPU and memory requests,
 * and its predicted peak memory per GPU on each GPU type (a GPU no job uses has no
 * assigned memory, so it holds the job exactly when the type does; a type the job may
 * not run on counts as holding nothing). Within one scheduling point placements only
 * take resources, so a shape that fits nowhere stays so until the next point: sjf and
 * easy skip every job of such a shape. Shapes are numbered 0, 1, ... in the order first
 * seen. */
#ifndef CPN_JOBSHAPE_H
#define CPN_JOBSHAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../sim/engine/policy.h"

struct jobshape_table {
    size_t n_types;
    uint8_t *has_gpus;   /* [types] 1 when some node has GPUs of the type */
    uint32_t *gpus;      /* [shapes] */
    uint32_t *pods;      /* [shapes] */
    double *req;         /* [shapes * 2]: CPU cores, memory GiB */
    double *mem;         /* [shapes * types]: predicted peak memory per GPU */
    size_t n, cap_gpus, cap_pods, cap_req, cap_mem;
    uint32_t *slot;      /* open-addressing table of shape numbers, UINT32_MAX empty */
    size_t n_slot;       /* a power of two, at least twice n */
    double *key_mem;     /* [types] scratch: the shape being looked up */
};

void jobshape_init(struct jobshape_table *t, const struct view *v);
void jobshape_free(struct jobshape_table *t);
/* Forgets every shape (numbering starts again at 0), keeping the memory: for a policy
 * that re-keys its queue when the estimates changed (view.est_version), since a job's
 * predicted memory, and so its shape, may then differ. O(shapes). */
void jobshape_reset(struct jobshape_table *t);
/* The number of job j's shape, a new one when it was never seen. */
uint32_t jobshape_of(struct jobshape_table *t, const struct view *v, uint32_t j);
/* For a policy's check hook: aborts unless shape s is job j's shape (GPU count, pods,
 * requests and predicted memory per type, as jobshape_of would find them now). */
void jobshape_check(const struct jobshape_table *t, const struct view *v, uint32_t j, uint32_t s);

/* True when node n could ever take job j (enough GPUs, CPUs and memory, GPUs of a type
 * it may run on (view_job_runs_on) that hold its predicted peak memory), whatever runs
 * there now; sets *e to its predicted run time and memory there (left unset when the
 * job may not run on the node's type). sjf and easy share it. */
bool jobshape_can_host(const struct view *v, uint32_t j, uint32_t n, struct view_estimate *e);

#endif
