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
 * visited 80 subtrees on average. The maxima are kept as 16-bit keys rounded up
 * (key_up), so they only prune: a leaf is judged on its exact values, and every
 * answer is a scan's. Keys, not floats: a block of 16 of them is two vector maxima,
 * so a climb's step (pull) is 31 instructions where 12 floats and a separate idle
 * count had taken 60; they prune a little less finely (a float's top 16 bits), which
 * costs fewer instructions than that saves.
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
#define W NODEIDX_W                /* keys a subtree */
#define IDLE (2 * NODEIDX_LEVELS) /* the key of a block that holds its idle maximum */
#define NODEIDX_ALIGN 64          /* two sibling blocks: one cache line */

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
    ix->leaf_idle = cpn_calloc(n ? n : 1, sizeof *ix->leaf_idle);
    ix->max_mem = cpn_malloc(2 * ix->leaves * W * sizeof *ix->max + NODEIDX_ALIGN);
    ix->max = (int16_t *)(((uintptr_t)ix->max_mem + NODEIDX_ALIGN - 1) &
                          ~(uintptr_t)(NODEIDX_ALIGN - 1));
    for (size_t i = 0; i < 2 * ix->leaves * W; i++)
        ix->max[i] = INT16_MIN;
    ix->stale = cpn_calloc(1, sizeof *ix->stale);
    ix->stale->leaf = cpn_malloc((n ? n : 1) * sizeof *ix->stale->leaf);
    ix->stale->is = cpn_calloc(n ? n : 1, sizeof *ix->stale->is);
}

void nodeidx_free(struct nodeidx *ix)
{
    free(ix->leaf_cpu);
    free(ix->leaf_mem);
    free(ix->leaf_idle);
    free(ix->max_mem);
    if (ix->stale) {
        free(ix->stale->leaf);
        free(ix->stale->is);
        free(ix->stale);
    }
    ix->leaf_cpu = ix->leaf_mem = NULL;
    ix->leaf_idle = NULL;
    ix->max = NULL;
    ix->max_mem = NULL;
    ix->stale = NULL;
}

/* The key of x: the bits of the float nearest x as a signed integer that orders as
 * the floats do (a negative float's magnitude bits flipped), divided by 2^16 and
 * rounded up (on the integer offset to unsigned, so that no negative number is
 * shifted). Each step keeps the order or ties, so x >= t gives key(x) >= key(t): a
 * subtree whose key is below its threshold's holds no value that reaches it. Rounded
 * up, -0 and +0 (equal values, adjacent integers) share the key 0. */
static int16_t key_up(double x)
{
    float f = (float)x;
    int32_t b;
    memcpy(&b, &f, sizeof b);
    if (b < 0)
        b ^= INT32_MAX;
    uint32_t u = (uint32_t)b + 0x80000000u; /* the same order, unsigned */
    return (int16_t)((int32_t)((u + 0xffffu) >> 16) - 0x8000);
}

/* Writes leaf i's block from its exact values. (Through a const index: the blocks are
 * the cache, see struct nodeidx.) */
static void leaf_block(const struct nodeidx *ix, size_t i)
{
    uint32_t idle = ix->leaf_idle[i];
    int16_t c = key_up(ix->leaf_cpu[i]), m = key_up(ix->leaf_mem[i]);
    int16_t *dst = ix->max + (ix->leaves + i) * W;
    for (unsigned l = 0; l < W; l++)
        dst[l] = INT16_MIN;
    dst[IDLE] = (int16_t)(idle < INT16_MAX ? idle : INT16_MAX);
    /* The levels the node is in: 0, and each l >= 1 with idle >= 2^(l-1). */
    for (unsigned l = 0; l < NODEIDX_LEVELS && (l == 0 || idle >> (l - 1) != 0); l++) {
        dst[l] = c;
        dst[NODEIDX_LEVELS + l] = m;
    }
}

/* dst = the elementwise maxima of blocks l and r; returns nonzero when dst changed.
 * One loop over distinct aligned blocks (restrict), which the compiler makes two
 * maxima of eight keys, two compares and two stores: the block is written whether or
 * not it changed. */
static int max_block(int16_t *restrict dst, const int16_t *restrict l, const int16_t *restrict r)
{
    dst = __builtin_assume_aligned(dst, NODEIDX_ALIGN / 2);
    l = __builtin_assume_aligned(l, NODEIDX_ALIGN / 2);
    r = __builtin_assume_aligned(r, NODEIDX_ALIGN / 2);
    int16_t changed = 0; /* the bits in which any key changed: no lane is widened */
    for (size_t i = 0; i < W; i++) {
        int16_t m = l[i] > r[i] ? l[i] : r[i];
        changed |= (int16_t)(m ^ dst[i]);
        dst[i] = m;
    }
    return changed;
}

/* Recomputes subtree k's maxima from its children's. Returns true when any changed
 * (when none did, its ancestors need no update either). Inlined into the climbs, as
 * GCC would not do by itself: a climb is a few pulls, each a few vector operations. */
static inline __attribute__((always_inline)) bool pull(const struct nodeidx *ix, size_t k)
{
    return max_block(ix->max + k * W, ix->max + 2 * k * W, ix->max + (2 * k + 1) * W) != 0;
}

void nodeidx_set_leaf(struct nodeidx *ix, size_t i, double free_cpu, double free_mem, uint32_t idle)
{
    CPN_ASSERT(i < ix->n);
    ix->leaf_cpu[i] = free_cpu;
    ix->leaf_mem[i] = free_mem;
    ix->leaf_idle[i] = idle;
    leaf_block(ix, i);
}

void nodeidx_set(struct nodeidx *ix, size_t i, double free_cpu, double free_mem, uint32_t idle)
{
    CPN_ASSERT(i < ix->n);
    if (ix->leaf_cpu[i] == free_cpu && ix->leaf_mem[i] == free_mem && ix->leaf_idle[i] == idle)
        return;
    ix->leaf_cpu[i] = free_cpu;
    ix->leaf_mem[i] = free_mem;
    ix->leaf_idle[i] = idle;
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
    int16_t want[W];
    for (size_t i = 0; i < ix->leaves; i++) {
        size_t k = ix->leaves + i;
        if (i >= ix->n) {
            for (size_t w = 0; w < W; w++)
                CPN_ASSERT(ix->max[k * W + w] == INT16_MIN);
            continue;
        }
        memcpy(want, ix->max + k * W, sizeof want);
        leaf_block(ix, i);
        CPN_ASSERT(memcmp(want, ix->max + k * W, sizeof want) == 0);
    }
    for (size_t k = ix->leaves - 1; k >= 1; k--) {
        const int16_t *l = ix->max + 2 * k * W, *r = l + W;
        for (size_t w = 0; w < W; w++)
            CPN_ASSERT(ix->max[k * W + w] == (l[w] > r[w] ? l[w] : r[w]));
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

/* One search: its thresholds (less the slack), their keys, and the level that prunes
 * it. */
struct query {
    double cpu, mem;
    uint32_t idle;
    int16_t cpu_key, mem_key, idle_key;
    unsigned level;
};

/* True when subtree k may hold a node that fits; exact for a leaf. */
static inline bool fits(const struct nodeidx *ix, size_t k, const struct query *q)
{
    if (k >= ix->leaves) {
        size_t i = k - ix->leaves;
        return i < ix->n && ix->leaf_idle[i] >= q->idle && ix->leaf_cpu[i] >= q->cpu &&
               ix->leaf_mem[i] >= q->mem;
    }
    const int16_t *m = ix->max + k * W;
    return m[IDLE] >= q->idle_key && m[q->level] >= q->cpu_key &&
           m[NODEIDX_LEVELS + q->level] >= q->mem_key;
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
    q.cpu_key = key_up(q.cpu);
    q.mem_key = key_up(q.mem);
    q.idle_key = (int16_t)(idle < INT16_MAX ? idle : INT16_MAX);
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
