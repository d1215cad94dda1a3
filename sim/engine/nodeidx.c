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
 * prune: a leaf is judged on its exact values, and every answer is a scan's.
 *
 * Updates are lazy: a set writes the leaf's exact values and notes the leaf; the next
 * search first writes the noted leaves' blocks and climbs from each while a parent's
 * maxima change. The engine sets a node's values at every placement, end and scrape
 * that touches it, but only some policies search (fifo does; optimal and default do
 * not), and between two searches the climbs of several leaves meet at their common
 * ancestors: under default on 100k jobs the eager updates were 5% of all
 * instructions, for an index it never read. The answers are the same, since a search
 * sees every maximum current. */
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
    ix->stale = cpn_calloc(1, sizeof *ix->stale);
    ix->stale->leaf = cpn_malloc((n ? n : 1) * sizeof *ix->stale->leaf);
    ix->stale->is = cpn_calloc(n ? n : 1, sizeof *ix->stale->is);
}

void nodeidx_free(struct nodeidx *ix)
{
    free(ix->leaf_cpu);
    free(ix->leaf_mem);
    free(ix->idle);
    free(ix->max);
    if (ix->stale) {
        free(ix->stale->leaf);
        free(ix->stale->is);
        free(ix->stale);
    }
    ix->leaf_cpu = ix->leaf_mem = NULL;
    ix->idle = NULL;
    ix->max = NULL;
    ix->stale = NULL;
}

/* The least float not below x (-inf stays -inf): a maximum never understates. */
static float float_up(double x)
{
    float f = (float)x;
    return (double)f < x ? nextafterf(f, INFINITY) : f;
}

/* Writes leaf i's block from its exact values. (Through a const index: the blocks are
 * the cache, see struct nodeidx.) */
static void leaf_block(const struct nodeidx *ix, size_t i)
{
    size_t k = ix->leaves + i;
    uint32_t idle = ix->idle[k];
    float c = float_up(ix->leaf_cpu[i]), m = float_up(ix->leaf_mem[i]), *dst = ix->max + k * W;
    for (unsigned l = 0; l < W; l++)
        dst[l] = -INFINITY;
    /* The levels the node is in: 0, and each l >= 1 with idle >= 2^(l-1). */
    for (unsigned l = 0; l < NODEIDX_LEVELS && (l == 0 || idle >> (l - 1) != 0); l++) {
        dst[l] = c;
        dst[NODEIDX_LEVELS + l] = m;
    }
}

/* dst = the elementwise maxima of blocks l and r; returns nonzero when dst changed.
 * One loop over distinct blocks (restrict), which the compiler makes a max, a compare
 * and a store per four floats: the block is written whether or not it changed.
 * Compared as floats, not bytes: a -0 and a 0 prune alike. */
static int max_block(float *restrict dst, const float *restrict l, const float *restrict r)
{
    int changed = 0;
    for (size_t i = 0; i < W; i++) {
        float m = l[i] > r[i] ? l[i] : r[i];
        changed |= m != dst[i];
        dst[i] = m;
    }
    return changed;
}

/* Recomputes subtree k's maxima from its children's. Returns true when any changed
 * (when none did, its ancestors need no update either). Inlined into the climbs, as
 * GCC would not do by itself: a climb is a few pulls, each a few vector operations. */
static inline __attribute__((always_inline)) bool pull(const struct nodeidx *ix, size_t k)
{
    int changed = max_block(ix->max + k * W, ix->max + 2 * k * W, ix->max + (2 * k + 1) * W);
    uint32_t il = ix->idle[2 * k], ir = ix->idle[2 * k + 1], idle = il > ir ? il : ir;
    changed |= idle != ix->idle[k];
    ix->idle[k] = idle;
    return changed != 0;
}

void nodeidx_set_leaf(struct nodeidx *ix, size_t i, double free_cpu, double free_mem, uint32_t idle)
{
    CPN_ASSERT(i < ix->n);
    ix->leaf_cpu[i] = free_cpu;
    ix->leaf_mem[i] = free_mem;
    ix->idle[ix->leaves + i] = idle;
    leaf_block(ix, i);
}

void nodeidx_set(struct nodeidx *ix, size_t i, double free_cpu, double free_mem, uint32_t idle)
{
    CPN_ASSERT(i < ix->n);
    if (ix->leaf_cpu[i] == free_cpu && ix->leaf_mem[i] == free_mem && ix->idle[ix->leaves + i] == idle)
        return;
    ix->leaf_cpu[i] = free_cpu;
    ix->leaf_mem[i] = free_mem;
    ix->idle[ix->leaves + i] = idle;
    struct nodeidx_stale *st = ix->stale;
    if (!st->is[i]) {
        st->is[i] = 1;
        st->leaf[st->n++] = (uint32_t)i;
    }
}

void nodeidx_rebuild(struct nodeidx *ix)
{
    struct nodeidx_stale *st = ix->stale;
    for (size_t p = 0; p < st->n; p++) {
        st->is[st->leaf[p]] = 0;
        leaf_block(ix, st->leaf[p]);
    }
    st->n = 0;
    for (size_t k = ix->leaves - 1; k >= 1; k--)
        pull(ix, k);
}

#ifdef CPN_CHECK_INDEXES
/* Every block is what its leaf's values or its children's give: what the lazy updates
 * must leave once a search has brought them up to date. */
static void check(const struct nodeidx *ix)
{
    float want[W];
    for (size_t i = 0; i < ix->leaves; i++) {
        size_t k = ix->leaves + i;
        if (i >= ix->n) {
            CPN_ASSERT(ix->idle[k] == 0);
            for (size_t w = 0; w < W; w++)
                CPN_ASSERT(ix->max[k * W + w] == -INFINITY);
            continue;
        }
        memcpy(want, ix->max + k * W, sizeof want);
        leaf_block(ix, i);
        CPN_ASSERT(memcmp(want, ix->max + k * W, sizeof want) == 0);
    }
    for (size_t k = ix->leaves - 1; k >= 1; k--) {
        const float *l = ix->max + 2 * k * W, *r = l + W;
        for (size_t w = 0; w < W; w++)
            CPN_ASSERT(ix->max[k * W + w] == (l[w] > r[w] ? l[w] : r[w]));
        uint32_t il = ix->idle[2 * k], ir = ix->idle[2 * k + 1];
        CPN_ASSERT(ix->idle[k] == (il > ir ? il : ir));
    }
}
#endif

/* Brings the blocks of the leaves set since the last search and their ancestors up to
 * date. A climb stops where a parent's maxima do not change: a subtree above it is
 * then as current as before, or lies on the climb of another noted leaf, which
 * passes it later (a leaf noted but not yet written only makes its parent's pull
 * read an old block, which that leaf's own climb pulls again). */
static void catch_up(const struct nodeidx *ix)
{
    struct nodeidx_stale *st = ix->stale;
    if (st->n == 0)
        return;
    for (size_t p = 0; p < st->n; p++) {
        size_t i = st->leaf[p];
        st->is[i] = 0;
        leaf_block(ix, i);
        for (size_t k = (ix->leaves + i) / 2; k >= 1 && pull(ix, k); k /= 2)
            ;
    }
    st->n = 0;
#ifdef CPN_CHECK_INDEXES
    check(ix);
#endif
}

/* One search: its thresholds (less the slack) and the level that prunes it. */
struct query {
    double cpu, mem;
    uint32_t idle;
    unsigned level;
};

/* True when subtree k may hold a node that fits; exact for a leaf. */
static inline bool fits(const struct nodeidx *ix, size_t k, const struct query *q)
{
    if (ix->idle[k] < q->idle)
        return false;
    if (k >= ix->leaves) {
        size_t i = k - ix->leaves;
        return i < ix->n && ix->leaf_cpu[i] >= q->cpu && ix->leaf_mem[i] >= q->mem;
    }
    const float *m = ix->max + k * W;
    return m[q->level] >= q->cpu && m[NODEIDX_LEVELS + q->level] >= q->mem;
}

/* The search starts at `from` (below) and climbs: at each left child on the way up it
 * tries the right sibling's subtree. A caller walking the fitting nodes one after the
 * other (from = the last one + 1) so climbs only as high as the next one lies, instead
 * of descending from the root each time. A subtree that fits is entered at its left
 * child; one that does not (its maxima may come from different leaves, so a subtree
 * that fits may hold none) is left for the next subtree to its right, by the same
 * climb: so one loop, in the order of a recursive descent. */
uint32_t nodeidx_first(const struct nodeidx *ix, size_t from, double cpu, double mem, uint32_t idle)
{
    if (from >= ix->n)
        return UINT32_MAX;
    catch_up(ix);
    /* The level: idle's bit length (2^(level-1) <= idle < 2^level), the highest for
     * more GPUs than a node may have. */
    unsigned bits = idle ? 32 - (unsigned)__builtin_clz(idle) : 0;
    struct query q = {.cpu = cpu - NODEIDX_SLACK, .mem = mem - NODEIDX_SLACK, .idle = idle,
                      .level = bits < NODEIDX_LEVELS ? bits : NODEIDX_LEVELS - 1};
    /* Entered at the largest subtree that begins at `from` (the root for 0): its
     * nodes are those a climb from the leaf would try first, and a search from the
     * start then goes down from the root instead of climbing the tree's left edge
     * first. */
    size_t k = ix->leaves + from;
    k >>= __builtin_ctzll((unsigned long long)k);
    for (;;) {
        if (fits(ix, k, &q)) {
            if (k >= ix->leaves)
                return (uint32_t)(k - ix->leaves);
            k *= 2; /* its left half first */
            continue;
        }
        while (k & 1) /* a right child (or the root): up */
            k >>= 1;
        if (k == 0)
            return UINT32_MAX; /* climbed past the root */
        k++;                   /* the right sibling: everything in it lies after the last */
    }
}
