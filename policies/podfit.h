/* podfit: what sjf, easy and default's gang decision keep while they find nodes for all
 * the pods of a distributed job at one scheduling point (docs/distributed.md): the GPUs
 * and the CPU and memory requests the pods found so far take, seen over the view's
 * bookkeeping, so that each pod's search counts the pods before it (a node may take
 * several pods when it has room); then the pods found, handed out one per place call.
 * It does not search: each policy finds a pod its own way. Queues whose jobs all have
 * one pod allocate nothing but the struct. */
#ifndef CPN_PODFIT_H
#define CPN_PODFIT_H

#include <stdbool.h>
#include <stdint.h>

#include "../sim/engine/policy.h"

struct podfit {
    uint8_t *gpu_taken;    /* [gpus] 1: taken by a pod found */
    double *cpus, *mem_gib; /* [nodes] requests of the pods found there */
    struct placement *pod; /* [max_pods] the pods found, in order */
    uint32_t n;            /* pods found */
    uint32_t next;         /* of them, handed out (podfit_next) */
    uint32_t max_pods;     /* the most pods of any job of the view */
};

void podfit_init(struct podfit *f, const struct view *v);
void podfit_free(struct podfit *f);

/* Forgets the pods found (the search failed, or all were handed out). */
void podfit_clear(struct podfit *f);
/* The search found pod p (of job p->job, whose requests it takes on p->node). */
void podfit_add(struct podfit *f, const struct view *v, const struct placement *p);

/* True when GPU g is used by no job of the bookkeeping and no pod found. */
static inline bool podfit_gpu_free(const struct podfit *f, const struct view *v, uint32_t g)
{
    return v->gpu_assigned[g] == 0 && !(f->n > f->next && f->gpu_taken[g]);
}

/* view_node_fits_requests, counting the pods found on node n too. */
bool podfit_fits_requests(const struct podfit *f, const struct view *v, uint32_t n, uint32_t j);

/* What the pods found take on node n, over the view's bookkeeping: their CPU and memory
 * requests, and the node's GPUs they take that no job of the bookkeeping uses (all 0
 * where no pod found is). */
struct podfit_planned {
    double cpus, mem_gib;
    uint32_t gpus;
};
struct podfit_planned podfit_on_node(const struct podfit *f, const struct view *v, uint32_t n);

/* True when each pod found holds job j's predicted peak memory per GPU at its largest
 * over the GPU types of the pods found: the engine gives every pod of a job the peak of
 * its largest (sim.c, gang_demand), so a pod on a type that predicts less must hold it
 * too. Always true for a single pod. */
bool podfit_mem_fits(const struct podfit *f, const struct view *v, uint32_t j);

/* The nodes of the pods found, in order, into nodes[] (room for max_pods). */
void podfit_nodes(const struct podfit *f, uint32_t *nodes);

/* True while pods found wait to be handed out. */
static inline bool podfit_pending(const struct podfit *f) { return f->next < f->n; }
/* Hands out the next pod found into *out and returns 1 (from the first on, what they
 * take is the bookkeeping's to show; after the last, they are forgotten). Returns 0
 * when none waits. */
int podfit_next(struct podfit *f, struct placement *out);

#endif
