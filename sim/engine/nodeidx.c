/* nodeidx: a max segment tree over nodes, searched for the leftmost node at or after
 * a position whose three values all reach their thresholds. A subtree is skipped when
 * any of its maxima is below its threshold; the maxima may come from different
 * nodes, so a search may descend into a subtree and find nothing, but on clusters
 * whose nodes are filled in order it visits O(log n) subtrees per query, and a walk
 * over consecutive fitting nodes O(1) per node on average. */
#include "nodeidx.h"

#include <math.h>
#include <stdlib.h>

#include "../base/util.h"

/* Slack of the free-request comparisons: far above rounding, far below a core. */
#define NODEIDX_SLACK 1e-6

void nodeidx_init(struct nodeidx *ix, size_t n)
{
    ix->n = n;
    ix->leaves = 1;
    while (ix->leaves < n)
        ix->leaves *= 2;
    ix->cpu = cpn_malloc(2 * ix->leaves * sizeof *ix->cpu);
    ix->mem = cpn_malloc(2 * ix->leaves * sizeof *ix->mem);
    ix->idle = cpn_calloc(2 * ix->leaves, sizeof *ix->idle);
    for (size_t i = 0; i < 2 * ix->leaves; i++)
        ix->cpu[i] = ix->mem[i] = -INFINITY;
}

void nodeidx_free(struct nodeidx *ix)
{
    free(ix->cpu);
    free(ix->mem);
    free(ix->idle);
    ix->cpu = ix->mem = NULL;
    ix->idle = NULL;
}

static void pull(struct nodeidx *ix, size_t k)
{
    size_t l = 2 * k, r = l + 1;
    ix->cpu[k] = ix->cpu[l] > ix->cpu[r] ? ix->cpu[l] : ix->cpu[r];
    ix->mem[k] = ix->mem[l] > ix->mem[r] ? ix->mem[l] : ix->mem[r];
    ix->idle[k] = ix->idle[l] > ix->idle[r] ? ix->idle[l] : ix->idle[r];
}

void nodeidx_set_leaf(struct nodeidx *ix, size_t i, double free_cpu, double free_mem, uint32_t idle)
{
    CPN_ASSERT(i < ix->n);
    size_t k = ix->leaves + i;
    ix->cpu[k] = free_cpu;
    ix->mem[k] = free_mem;
    ix->idle[k] = idle;
}

void nodeidx_set(struct nodeidx *ix, size_t i, double free_cpu, double free_mem, uint32_t idle)
{
    nodeidx_set_leaf(ix, i, free_cpu, free_mem, idle);
    for (size_t k = (ix->leaves + i) / 2; k >= 1; k /= 2)
        pull(ix, k);
}

void nodeidx_rebuild(struct nodeidx *ix)
{
    for (size_t k = ix->leaves - 1; k >= 1; k--)
        pull(ix, k);
}

static int fits(const struct nodeidx *ix, size_t k, double cpu, double mem, uint32_t idle)
{
    return ix->cpu[k] >= cpu - NODEIDX_SLACK && ix->mem[k] >= mem - NODEIDX_SLACK &&
           ix->idle[k] >= idle;
}

/* Leftmost leaf of subtree k, which fits, that fits, or UINT32_MAX: the subtree's maxima
 * may come from different leaves, so a subtree that fits may hold none. */
static uint32_t leftmost(const struct nodeidx *ix, size_t k, double cpu, double mem, uint32_t idle)
{
    if (k >= ix->leaves)
        return k - ix->leaves < ix->n ? (uint32_t)(k - ix->leaves) : UINT32_MAX;
    if (fits(ix, 2 * k, cpu, mem, idle)) {
        uint32_t r = leftmost(ix, 2 * k, cpu, mem, idle);
        if (r != UINT32_MAX)
            return r;
    }
    if (fits(ix, 2 * k + 1, cpu, mem, idle))
        return leftmost(ix, 2 * k + 1, cpu, mem, idle);
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
    size_t k = ix->leaves + from;
    if (fits(ix, k, cpu, mem, idle))
        return (uint32_t)from;
    for (;;) {
        while (k & 1) /* a right child (or the root): up */
            k >>= 1;
        if (k == 0)
            return UINT32_MAX; /* climbed past the root */
        k++;                   /* the right sibling: everything in it lies after from */
        if (fits(ix, k, cpu, mem, idle)) {
            uint32_t r = leftmost(ix, k, cpu, mem, idle);
            if (r != UINT32_MAX)
                return r;
        }
    }
}
