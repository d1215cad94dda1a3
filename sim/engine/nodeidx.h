/* nodeidx: an index over nodes for "the first node, in cluster order, with at least
 * this much free": a segment tree holding, per subtree, the most free CPU and memory
 * requests and the most GPUs that look idle. The engine keeps it up to date from the
 * controller's view; policies query it through view_first_node. It owns only its
 * arrays. */
#ifndef CPN_NODEIDX_H
#define CPN_NODEIDX_H

#include <stddef.h>
#include <stdint.h>

struct nodeidx {
    size_t n;      /* nodes */
    size_t leaves; /* a power of two >= n */
    double *cpu, *mem; /* [2 * leaves] subtree maxima of free requests */
    uint32_t *idle;    /* [2 * leaves] subtree maxima of idle-looking GPUs */
};

void nodeidx_init(struct nodeidx *ix, size_t n);
void nodeidx_free(struct nodeidx *ix);
/* Sets node i's values and updates its ancestors (O(log n)). */
void nodeidx_set(struct nodeidx *ix, size_t i, double free_cpu, double free_mem, uint32_t idle);
/* Sets a leaf without updating ancestors; nodeidx_rebuild then fixes them all (O(n)). */
void nodeidx_set_leaf(struct nodeidx *ix, size_t i, double free_cpu, double free_mem, uint32_t idle);
void nodeidx_rebuild(struct nodeidx *ix);
/* The first node >= from whose free CPU and memory are at least cpu and mem (less
 * slack) and with at least `idle` idle-looking GPUs, or UINT32_MAX. The slack makes
 * it conservative: a caller re-checks the node exactly and searches on from the next
 * one if it does not fit after all. */
uint32_t nodeidx_first(const struct nodeidx *ix, size_t from, double cpu, double mem, uint32_t idle);

#endif
