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

/* A node's exact values, its keys and whether it waits in the stale list: what a set
 * writes, a climb reads and a search's test of the node reads, in one 32-byte record,
 * two siblings a cache line. The records are the tree's leaves: a leaf's block is
 * made from its keys when its parent is pulled (nodeidx.c). */
struct nodeidx_leaf {
    _Alignas(32) double cpu; /* free requests */
    double mem;
    uint32_t idle;           /* idle-looking GPUs */
    /* As of its last climb: the keys of cpu, mem and idle, and on how many levels. */
    int16_t cpu_key, mem_key, idle_key;
    uint8_t levels;
    uint8_t stale; /* 1 while in nodeidx_lazy's list */
};

/* What a search through a const index (the view's) brings up to date or leaves for the
 * next: the leaves set since the blocks were last brought up to date, whose ancestors'
 * blocks are stale until then (nodeidx.c says why), and the last search's answer. */
struct nodeidx_lazy {
    size_t n;
    uint32_t *leaf; /* [n of the index] the leaves, each once */
    /* No node in [from, node) has the free CPU and memory cpu and mem (less the slack)
     * and `idle` idle-looking GPUs: true of the last search (node = its answer, or the
     * index's n when none), and kept true by cutting the range at a node whose values
     * grow. */
    double cpu, mem;
    uint32_t idle;
    size_t from, node;
};

struct nodeidx {
    size_t n;      /* nodes */
    size_t leaves; /* a power of two >= n */
    /* [leaves][NODEIDX_W]: subtree k's maxima (1 <= k < leaves; the leaves are k >=
     * leaves) as 16-bit keys that order as the values do, rounded up (nodeidx.c): free
     * CPU per level, then free memory per level (INT16_MIN where a level has no node),
     * then idle-looking GPUs. One 32-byte block a subtree, two siblings a cache line. */
    int16_t *max;
    /* [n, rounded up to even] node i's record: leaf leaves + i. Behind a pointer, as
     * are the maxima and the lazy part, so that a search through a const index can
     * bring the maxima up to date: they are a cache of the leaves. */
    struct nodeidx_leaf *leaf;
    void *mem; /* the allocation both are aligned in */
    struct nodeidx_lazy *lazy;
};

void nodeidx_init(struct nodeidx *ix, size_t n);
void nodeidx_free(struct nodeidx *ix);
/* Sets node i's values (O(1)); nothing when they are its values already. The maxima
 * of its ancestors follow at the next search (O(log n), shared by the nodes set
 * since). */
void nodeidx_set(struct nodeidx *ix, size_t i, double free_cpu, double free_mem, uint32_t idle);
/* Sets a leaf without updating its ancestors; nodeidx_rebuild then fixes them all
 * (O(n)). */
void nodeidx_set_leaf(struct nodeidx *ix, size_t i, double free_cpu, double free_mem, uint32_t idle);
void nodeidx_rebuild(struct nodeidx *ix);
/* The first node >= from whose free CPU and memory are at least cpu and mem (less
 * slack) and with at least `idle` idle-looking GPUs, or UINT32_MAX. The slack makes
 * it conservative: a caller re-checks the node exactly and searches on from the next
 * one if it does not fit after all. A search that asks at least what the last one
 * asked starts at the last one's answer (O(1) when that node still fits), unless a
 * node before it grew since. */
uint32_t nodeidx_first(const struct nodeidx *ix, size_t from, double cpu, double mem, uint32_t idle);

#endif
