/* nodeidx: an index over nodes for "the first node, in cluster order, with at least
 * this much free": a segment tree holding, per subtree, the most GPUs that look idle
 * and the most free CPU and memory requests, over all its nodes and again over only
 * its nodes with at least 1, 2, 4, ... idle-looking GPUs. The engine keeps it up to
 * date from the controller's view; policies query it through view_first_node. It owns
 * only its arrays. */
#ifndef CPN_NODEIDX_H
#define CPN_NODEIDX_H

#include <stddef.h>
#include <stdint.h>

/* Levels of a subtree's maxima: level 0 over all its nodes, level l >= 1 over its
 * nodes with at least 2^(l-1) idle-looking GPUs: up to 16, as many as a node may have
 * (CLUSTER_MAX_NODE_GPUS; any number beyond would be pruned by the idle maxima alone).
 * Levels for 32 and 64 would never hold a node, and with them a block would not fit in
 * 32 bytes beside the idle maximum. */
#define NODEIDX_LEVELS 6
/* Keys a subtree's block: the levels' CPU and memory maxima, the idle maximum, and
 * padding to 32 bytes. */
#define NODEIDX_W 16

/* The leaves set since the last search: their blocks and their ancestors' are stale
 * until a search brings them up to date (nodeidx.c says why). */
struct nodeidx_stale {
    size_t n;
    uint32_t *leaf; /* [n of the index] the leaves, each once */
    uint8_t *is;    /* [n of the index] 1 when the leaf is in the list */
};

struct nodeidx {
    size_t n;      /* nodes */
    size_t leaves; /* a power of two >= n */
    double *leaf_cpu, *leaf_mem; /* [n] each node's free requests, exact */
    uint32_t *leaf_idle;         /* [n] each node's idle-looking GPUs, exact */
    /* [2 * leaves][NODEIDX_W]: subtree k's maxima as 16-bit keys that order as the
     * values do, rounded up (nodeidx.c): free CPU per level, then free memory per level
     * (INT16_MIN where a level has no node), then idle-looking GPUs. One 32-byte block a
     * subtree, two siblings a cache line. */
    int16_t *max;
    void *max_mem; /* the allocation max is aligned in */
    /* Behind a pointer, as are the arrays, so that a search through a const index
     * (the view's) can bring the maxima up to date: they are a cache of the leaves. */
    struct nodeidx_stale *stale;
};

void nodeidx_init(struct nodeidx *ix, size_t n);
void nodeidx_free(struct nodeidx *ix);
/* Sets node i's values (O(1)); nothing when they are its values already. The maxima
 * of its ancestors follow at the next search (O(log n), shared by the nodes set
 * since). */
void nodeidx_set(struct nodeidx *ix, size_t i, double free_cpu, double free_mem, uint32_t idle);
/* Sets a leaf and its block without updating ancestors; nodeidx_rebuild then fixes
 * them all (O(n)). */
void nodeidx_set_leaf(struct nodeidx *ix, size_t i, double free_cpu, double free_mem, uint32_t idle);
void nodeidx_rebuild(struct nodeidx *ix);
/* The first node >= from whose free CPU and memory are at least cpu and mem (less
 * slack) and with at least `idle` idle-looking GPUs, or UINT32_MAX. The slack makes
 * it conservative: a caller re-checks the node exactly and searches on from the next
 * one if it does not fit after all. */
uint32_t nodeidx_first(const struct nodeidx *ix, size_t from, double cpu, double mem, uint32_t idle);

#endif
