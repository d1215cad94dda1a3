/* nodeidx: a max segment tree over nodes, searched for the leftmost node at or after
 * a position whose three values all reach their thresholds. A subtree is skipped when
 * any of its maxima is below its threshold; the maxima may come from different
 * nodes, so a search may descend into a subtree and find nothing, but on clusters
 * whose nodes are filled in order it visits O(log n) subtrees per query, and a walk
 * over consecutive fitting nodes O(1) per node on average.
 *
 * The commonest mismatch, idle GPUs on one node and free requests on another, is taken
 * out by the levels: a search for k idle GPUs compares the free CPU and memory of only
 * the nodes with at least 2^floor(log2 k) of them. Under FIFO on a million jobs (stale
 * scrapes: a node filled since the last one still shows its GPUs idle) a search had
 * visited 80 subtrees on average. The maxima are floats rounded up, so they only
 * prune: a leaf is judged on its exact values, and every answer is a scan's. */
#include "nodeidx.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"

/* Slack of the free-request comparisons: far above rounding, far below a core. */
#define NODEIDX_SLACK 1e-6
#define W (2 * NODEIDX_LEVELS) /* floats a subtree */

void nodeidx_init(struct nodeidx *ix, size_t n)
{
    ix->n = n;
    ix->leaves = 1;
    while (ix->leaves < n)
        ix->leaves *= 2;
    ix->leaf_cpu = cpn_malloc((n ? n : 1) * sizeof *ix->leaf_cpu);
    ix->leaf_mem = cpn_malloc((n ? n : 1) * sizeof *ix->leaf_mem);
    for (size_t i = 0; i < n; i++)
        ix->leaf_cpu[i] = ix->leaf_mem[i] = -INFINITY;
    ix->idle = cpn_calloc(2 * ix->leaves, sizeof *ix->idle);
    ix->max = cpn_malloc(2 * ix->leaves * W * sizeof *ix->max);
    for (size_t i = 0; i < 2 * ix->leaves * W; i++)
        ix->max[i] = -INFINITY;
}

void nodeidx_free(struct nodeidx *ix)
{
    free(ix->leaf_cpu);
    free(ix->leaf_mem);
    free(ix->idle);
    free(ix->max);
    ix->leaf_cpu = ix->leaf_mem = NULL;
    ix->idle = NULL;
    ix->max = NULL;
}

/* The least float not below x (-inf stays -inf): a maximum never understates. */
static float float_up(double x)
{
    float f = (float)x;
    return (double)f < x ? nextafterf(f, INFINITY) : f;
}

/* Recomputes subtree k's maxima from its children's. Returns true when any changed
 * (when none did, its ancestors need no update either). */
static bool pull(struct nodeidx *ix, size_t k)
{
    const float *l = ix->max + 2 * k * W, *r = l + W;
    float m[W];
    for (size_t i = 0; i < W; i++)
        m[i] = l[i] > r[i] ? l[i] : r[i];
    uint32_t il = ix->idle[2 * k], ir = ix->idle[2 * k + 1], idle = il > ir ? il : ir;
    float *dst = ix->max + k * W;
    if (idle == ix->idle[k] && memcmp(m, dst, sizeof m) == 0)
        return false;
    ix->idle[k] = idle;
    memcpy(dst, m, sizeof m);
    return true;
}

void nodeidx_set_leaf(struct nodeidx *ix, size_t i, double free_cpu, double free_mem, uint32_t idle)
{
    CPN_ASSERT(i < ix->n);
    size_t k = ix->leaves + i;
    ix->leaf_cpu[i] = free_cpu;
    ix->leaf_mem[i] = free_mem;
    ix->idle[k] = idle;
    float c = float_up(free_cpu), m = float_up(free_mem), *dst = ix->max + k * W;
    for (unsigned l = 0; l < NODEIDX_LEVELS; l++) {
        bool in = l == 0 || idle >> (l - 1) != 0; /* idle >= 2^(l-1) */
        dst[l] = in ? c : -INFINITY;
        dst[NODEIDX_LEVELS + l] = in ? m : -INFINITY;
    }
}

void nodeidx_set(struct nodeidx *ix, size_t i, double free_cpu, double free_mem, uint32_t idle)
{
    CPN_ASSERT(i < ix->n);
    if (ix->leaf_cpu[i] == free_cpu && ix->leaf_mem[i] == free_mem && ix->idle[ix->leaves + i] == idle)
        return;
    nodeidx_set_leaf(ix, i, free_cpu, free_mem, idle);
    for (size_t k = (ix->leaves + i) / 2; k >= 1 && pull(ix, k); k /= 2)
        ;
}

void nodeidx_rebuild(struct nodeidx *ix)
{
    for (size_t k = ix->leaves - 1; k >= 1; k--)
        pull(ix, k);
}

/* One search: its thresholds and the level that prunes it. */
struct query {
    double cpu, mem;
    uint32_t idle;
    unsigned level;
};

/* True when subtree k may hold a node that fits; exact for a leaf. */
static bool fits(const struct nodeidx *ix, size_t k, const struct query *q)
{
    if (ix->idle[k] < q->idle)
        return false;
    if (k >= ix->leaves) {
        size_t i = k - ix->leaves;
        return i < ix->n && ix->leaf_cpu[i] >= q->cpu - NODEIDX_SLACK &&
               ix->leaf_mem[i] >= q->mem - NODEIDX_SLACK;
    }
    const float *m = ix->max + k * W;
    return m[q->level] >= q->cpu - NODEIDX_SLACK &&
           m[NODEIDX_LEVELS + q->level] >= q->mem - NODEIDX_SLACK;
}

/* Leftmost leaf of subtree k, which fits, that fits, or UINT32_MAX: the subtree's maxima
 * may come from different leaves, so a subtree that fits may hold none. */
static uint32_t leftmost(const struct nodeidx *ix, size_t k, const struct query *q)
{
    if (k >= ix->leaves)
        return (uint32_t)(k - ix->leaves); /* fits() checked it is a node */
    if (fits(ix, 2 * k, q)) {
        uint32_t r = leftmost(ix, 2 * k, q);
        if (r != UINT32_MAX)
            return r;
    }
    if (fits(ix, 2 * k + 1, q))
        return leftmost(ix, 2 * k + 1, q);
    return UINT32_MAX;
}

/* The search starts at leaf `from` and climbs: at each left child on the way up it
 * tries the right sibling's subtree. A caller walking the fitting nodes one after the
 * other (from = the last one + 1) so climbs only as high as the next one lies, instead
 * of descending from the root each time. */
uint32_t nodeidx_first(const struct nodeidx *ix, size_t from, double cpu, double mem, uint32_t idle)
{
    if (from >= ix->n)
        return UINT32_MAX;
    struct query q = {.cpu = cpu, .mem = mem, .idle = idle, .level = 0};
    while (q.level + 1 < NODEIDX_LEVELS && idle >> q.level) /* 2^level <= idle */
        q.level++;
    size_t k = ix->leaves + from;
    if (fits(ix, k, &q))
        return (uint32_t)from;
    for (;;) {
        while (k & 1) /* a right child (or the root): up */
            k >>= 1;
        if (k == 0)
            return UINT32_MAX; /* climbed past the root */
        k++;                   /* the right sibling: everything in it lies after from */
        if (fits(ix, k, &q)) {
            uint32_t r = leftmost(ix, k, &q);
            if (r != UINT32_MAX)
                return r;
        }
    }
}
