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
 * search climbs from each noted leaf while a parent's maxima change. The engine sets
 * a node's values at every placement, end and scrape that touches it, but only some
 * policies search (fifo does; optimal and default do not), and between two searches
 * the climbs of several leaves meet at their common ancestors: under default on 100k
 * jobs the eager updates were 5% of all instructions, for an index it never read. The
 * answers are the same, since a search sees every maximum current.
 *
 * A leaf is a 32-byte record of its exact values and their keys (struct nodeidx_leaf),
 * with no block of its own: a set, a search's test of the node and a pull of its
 * parent read one cache line, where three arrays of values and a block per leaf had
 * been four or five (on 300,000 jobs under fifo, 32% fewer misses of a 512-KiB cache
 * in the index). And a search remembers what its answer proves, that no node before it
 * fits (struct nodeidx_lazy): the next search that asks as much or more starts there,
 * and when that node still fits it needs no block at all. */
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

/* An idle count's bit length (2^(bits-1) <= idle < 2^bits; 0 for none), which gives the
 * levels a node is in and a search's level. */
static inline unsigned idle_bits(uint32_t idle)
{
    return idle ? 32 - (unsigned)__builtin_clz(idle) : 0;
}

/* An idle count's key: itself, up to what a key holds. */
static inline int16_t idle_key(uint32_t idle)
{
    return (int16_t)(idle < INT16_MAX ? idle : INT16_MAX);
}

/* Takes leaf i's keys from its exact values: the keys of its free CPU and memory, its
 * idle count's, and the levels it is in (0, and each l >= 1 with idle >= 2^(l-1): the
 * first 1 + min(bit length of idle, NODEIDX_LEVELS - 1)). */
static void leaf_note(const struct nodeidx *ix, size_t i)
{
    struct nodeidx_leaf *lf = &ix->leaf[i];
    unsigned bits = idle_bits(lf->idle);
    lf->cpu_key = key_up(lf->cpu);
    lf->mem_key = key_up(lf->mem);
    lf->idle_key = idle_key(lf->idle);
    lf->levels = (uint8_t)(bits < NODEIDX_LEVELS - 1 ? bits + 1 : NODEIDX_LEVELS);
}

/* The level of each key of a block (W, past every level, for the idle maximum and the
 * padding), against which leaf_block compares how many levels a node is in, and whether
 * it is a CPU key (all ones) or a memory key (0). */
static const int16_t key_level[W] = {0, 1, 2, 3, 4, 5, 0, 1, 2, 3, 4, 5, W, W, W, W};
static const int16_t key_is_cpu[W] = {-1, -1, -1, -1, -1, -1};

/* The block of a leaf from its keys: its CPU and memory keys on the levels it is in,
 * INT16_MIN on the others. Made lane by lane without a branch, which the compiler
 * turns into a few vector compares and blends. */
static void leaf_block(const struct nodeidx_leaf *lf, int16_t *restrict dst)
{
    dst = __builtin_assume_aligned(dst, NODEIDX_ALIGN / 2);
    int16_t in = lf->levels, c = lf->cpu_key, m = lf->mem_key;
    for (unsigned l = 0; l < W; l++) {
        int16_t on = (int16_t)-(key_level[l] < in); /* all ones on its levels */
        int16_t key = (int16_t)((key_is_cpu[l] & c) | (~key_is_cpu[l] & m));
        dst[l] = (int16_t)((on & key) | (~on & INT16_MIN));
    }
    dst[IDLE] = lf->idle_key;
}

void nodeidx_init(struct nodeidx *ix, size_t n)
{
    ix->n = n;
    ix->leaves = 1;
    while (ix->leaves < n)
        ix->leaves *= 2;
    /* The blocks (k = 0 unused), then the records from the next cache line on. */
    size_t blocks = (ix->leaves * W * sizeof *ix->max + NODEIDX_ALIGN - 1) &
                    ~(size_t)(NODEIDX_ALIGN - 1);
    size_t records = n ? (n + 1) / 2 * 2 : 2;
    ix->mem = cpn_malloc(blocks + records * sizeof *ix->leaf + NODEIDX_ALIGN);
    ix->max = (int16_t *)(((uintptr_t)ix->mem + NODEIDX_ALIGN - 1) &
                          ~(uintptr_t)(NODEIDX_ALIGN - 1));
    for (size_t i = 0; i < ix->leaves * W; i++)
        ix->max[i] = INT16_MIN;
    ix->leaf = (struct nodeidx_leaf *)(void *)((char *)ix->max + blocks);
    /* A record past the nodes (a last node's sibling) makes a block of INT16_MIN. */
    for (size_t i = 0; i < records; i++)
        ix->leaf[i] =
            (struct nodeidx_leaf){.cpu = -INFINITY, .mem = -INFINITY, .idle_key = INT16_MIN};
    for (size_t i = 0; i < n; i++)
        leaf_note(ix, i);
    ix->lazy = cpn_calloc(1, sizeof *ix->lazy);
    ix->lazy->leaf = cpn_malloc((n ? n : 1) * sizeof *ix->lazy->leaf);
}

void nodeidx_free(struct nodeidx *ix)
{
    free(ix->mem);
    if (ix->lazy)
        free(ix->lazy->leaf);
    free(ix->lazy);
    ix->max = NULL;
    ix->leaf = NULL;
    ix->mem = NULL;
    ix->lazy = NULL;
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

/* pull for a subtree whose children are leaves (k >= leaves / 2, both below n rounded
 * up to even): their blocks are made from their records' keys, which sit beside the
 * exact values that a set writes and a search reads, where a block kept per leaf had
 * been one more cache line to write at each climb and to read at each pull. */
static inline __attribute__((always_inline)) bool pull_leaves(const struct nodeidx *ix, size_t k)
{
    _Alignas(NODEIDX_ALIGN) int16_t two[2 * W];
    const struct nodeidx_leaf *lf = &ix->leaf[2 * k - ix->leaves];
    leaf_block(lf, two);
    leaf_block(lf + 1, two + W);
    return max_block(ix->max + k * W, two, two + W) != 0;
}

void nodeidx_set_leaf(struct nodeidx *ix, size_t i, double free_cpu, double free_mem, uint32_t idle)
{
    CPN_ASSERT(i < ix->n);
    ix->leaf[i].cpu = free_cpu;
    ix->leaf[i].mem = free_mem;
    ix->leaf[i].idle = idle;
    leaf_note(ix, i);
    ix->lazy->node = ix->lazy->from; /* (the values may have grown) */
}

void nodeidx_set(struct nodeidx *ix, size_t i, double free_cpu, double free_mem, uint32_t idle)
{
    CPN_ASSERT(i < ix->n);
    struct nodeidx_leaf *lf = &ix->leaf[i];
    if (lf->cpu == free_cpu && lf->mem == free_mem && lf->idle == idle)
        return;
    struct nodeidx_lazy *lz = ix->lazy;
    if (lz->from <= i && i < lz->node &&
        !(free_cpu <= lf->cpu && free_mem <= lf->mem && idle <= lf->idle))
        lz->node = i; /* it may fit the last search now */
    lf->cpu = free_cpu;
    lf->mem = free_mem;
    lf->idle = idle;
    if (!lf->stale) {
        lf->stale = 1;
        lz->leaf[lz->n++] = (uint32_t)i;
    }
}

void nodeidx_rebuild(struct nodeidx *ix)
{
    struct nodeidx_lazy *st = ix->lazy;
    for (size_t p = 0; p < st->n; p++) {
        ix->leaf[st->leaf[p]].stale = 0;
        leaf_note(ix, st->leaf[p]);
    }
    st->n = 0;
    for (size_t k = ix->leaves - 1; k >= 1; k--)
        if (2 * k < ix->leaves)
            pull(ix, k);
        else if (2 * k - ix->leaves < ix->n) /* (the others stay INT16_MIN) */
            pull_leaves(ix, k);
}

#ifdef CPN_CHECK_INDEXES
/* Every block is what its children give, and no leaf is noted stale: what the lazy
 * updates must leave once a search has brought them up to date. */
static void check(const struct nodeidx *ix)
{
    for (size_t i = 0; i < ix->n; i++) {
        struct nodeidx_leaf was = ix->leaf[i];
        CPN_ASSERT(!was.stale);
        leaf_note(ix, i);
        CPN_ASSERT(memcmp(&was, &ix->leaf[i], sizeof was) == 0);
    }
    _Alignas(NODEIDX_ALIGN) int16_t two[2 * W];
    for (size_t k = ix->leaves - 1; k >= 1; k--) {
        const int16_t *l = ix->max + 2 * k * W, *r = l + W;
        if (2 * k >= ix->leaves && 2 * k - ix->leaves >= ix->n) {
            for (size_t w = 0; w < W; w++)
                CPN_ASSERT(ix->max[k * W + w] == INT16_MIN);
            continue;
        }
        if (2 * k >= ix->leaves) {
            leaf_block(&ix->leaf[2 * k - ix->leaves], two);
            leaf_block(&ix->leaf[2 * k + 1 - ix->leaves], two + W);
            l = two;
            r = two + W;
        }
        for (size_t w = 0; w < W; w++)
            CPN_ASSERT(ix->max[k * W + w] == (l[w] > r[w] ? l[w] : r[w]));
    }
}
#endif

/* Brings the blocks above the leaves set since the last search up to date. A climb
 * stops where a parent's maxima do not change: a subtree above it is then as current
 * as before, or lies on the climb of another noted leaf, which passes it later (a
 * parent pulled from a sibling's climb already takes in the leaf's new values, and the
 * leaf's own climb then stops there). */
static void catch_up(const struct nodeidx *ix)
{
    struct nodeidx_lazy *st = ix->lazy;
    if (st->n == 0)
        return;
    for (size_t p = 0; p < st->n; p++) {
        size_t i = st->leaf[p];
        ix->leaf[i].stale = 0;
        leaf_note(ix, i);
        size_t k = (ix->leaves + i) / 2;
        if (k >= 1 && pull_leaves(ix, k))
            for (k /= 2; k >= 1 && pull(ix, k); k /= 2)
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

/* True when node i fits. */
static inline bool leaf_fits(const struct nodeidx *ix, size_t i, const struct query *q)
{
    const struct nodeidx_leaf *lf = &ix->leaf[i];
    return i < ix->n && lf->idle >= q->idle && lf->cpu >= q->cpu && lf->mem >= q->mem;
}

/* True when subtree k may hold a node that fits; exact for a leaf. */
static inline bool fits(const struct nodeidx *ix, size_t k, const struct query *q)
{
    if (k >= ix->leaves)
        return leaf_fits(ix, k - ix->leaves, q);
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
 * climb: so one loop, in the order of a recursive descent. The blocks must be up to
 * date. */
static uint32_t search(const struct nodeidx *ix, size_t from, const struct query *q)
{
    /* Entered at the largest subtree that begins at `from` (the root for 0): its
     * nodes are those a climb from the leaf would try first, and a search from the
     * start then goes down from the root instead of climbing the tree's left edge
     * first. */
    size_t k = ix->leaves + from;
    k >>= __builtin_ctzll((unsigned long long)k);
    for (;;) {
        if (fits(ix, k, q)) {
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

/* A search starts where the last one's answer was when it asks at least as much, from
 * as far or further, and no node before that grew since (struct nodeidx_lazy): no
 * node before fits it either; or at the first node that grew, which may fit it now.
 * Under fifo a node's idle-looking GPUs change only at a scrape, so the head job after
 * a placement often asks as much as the last and fits the node the last one took (on
 * the 100k queue 48,000 of 173,000 searches end there); and a queue head that fits
 * nowhere fails at once until a node grows (28,000 more). That first node is tried on
 * its record alone: when it fits, the blocks are not needed, and their climbs wait for
 * a search that needs them, where more of them meet. */
uint32_t nodeidx_first(const struct nodeidx *ix, size_t from, double cpu, double mem, uint32_t idle)
{
    if (from >= ix->n)
        return UINT32_MAX;
    struct nodeidx_lazy *lz = ix->lazy;
    size_t start = from;
    if (lz->from <= from && from < lz->node && cpu >= lz->cpu && mem >= lz->mem && idle >= lz->idle)
        start = lz->node;
    /* The level: idle's bit length (2^(level-1) <= idle < 2^level), the highest for
     * more GPUs than a node may have. */
    unsigned bits = idle_bits(idle);
    struct query q = {.cpu = cpu - NODEIDX_SLACK, .mem = mem - NODEIDX_SLACK, .idle = idle,
                      .level = bits < NODEIDX_LEVELS ? bits : NODEIDX_LEVELS - 1};
    uint32_t found = UINT32_MAX;
    if (start < ix->n && leaf_fits(ix, start, &q)) {
        found = (uint32_t)start;
    } else if (start + 1 < ix->n) {
        q.cpu_key = key_up(q.cpu);
        q.mem_key = key_up(q.mem);
        q.idle_key = idle_key(idle);
        catch_up(ix);
        found = search(ix, start + 1, &q);
    }
#ifdef CPN_CHECK_INDEXES
    size_t scan = from;
    while (scan < ix->n && !leaf_fits(ix, scan, &q))
        scan++;
    CPN_ASSERT(found == (scan < ix->n ? scan : UINT32_MAX));
#endif
    lz->cpu = cpu;
    lz->mem = mem;
    lz->idle = idle;
    lz->from = from;
    lz->node = found == UINT32_MAX ? ix->n : found;
    return found;
}
