/* default_nodes: the default policy's classes of alike nodes (default.h), kept up to
 * date one node at a time as placements and learnt ends change its bookkeeping. A
 * class lives while it has nodes; its nodes form a min-heap by index, so its
 * lowest-numbered node, the one a scan in cluster order would reach first, is at the
 * top. */
#include <stdlib.h>
#include <string.h>

#include "default.h"

/* ---- a class's heap of nodes, by index (their positions in node_pos) ----
 *
 * Its own sifts on bare node indices rather than heap.h's records: every placement and
 * every learnt end moves a node between classes, a removal from one heap and a push on
 * another, and through heap.h's callbacks for order and position each move cost about
 * 190 instructions. Node indices are distinct, so the heap's shape decides nothing:
 * only its least nodes are read (dflt_site_ent.first, dflt_class_first_but). */

/* Puts node n at index i of class c's heap. */
static void dflt_heap_put(struct dflt_nodes *x, struct dflt_class *c, size_t i, uint32_t n)
{
    c->nodes[i] = n;
    x->node_pos[n] = (uint32_t)i;
}

/* Moves the hole at index i up to where node n belongs and puts n there. */
static void dflt_heap_up(struct dflt_nodes *x, struct dflt_class *c, size_t i, uint32_t n)
{
    while (i > 0 && n < c->nodes[(i - 1) / 2]) {
        dflt_heap_put(x, c, i, c->nodes[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    dflt_heap_put(x, c, i, n);
}

/* Moves the hole at index i down to where node n belongs and puts n there. */
static void dflt_heap_down(struct dflt_nodes *x, struct dflt_class *c, size_t i, uint32_t n)
{
    for (size_t ch = 2 * i + 1; ch < c->n_nodes; i = ch, ch = 2 * i + 1) {
        if (ch + 1 < c->n_nodes && c->nodes[ch + 1] < c->nodes[ch])
            ch++;
        if (n < c->nodes[ch])
            break;
        dflt_heap_put(x, c, i, c->nodes[ch]);
    }
    dflt_heap_put(x, c, i, n);
}

struct dflt_ckey dflt_key_of(const struct view *v, uint32_t n)
{
    const struct node *nd = &v->cl->nodes[n];
    struct dflt_ckey k;
    memset(&k, 0, sizeof k);
    k.site = nd->site;
    k.type = nd->type;
    k.gpus = nd->gpu_count;
    if (v->cl->cfg.gpu_as_resource)
        for (uint32_t g = nd->gpu_first; g < nd->gpu_first + nd->gpu_count; g++)
            k.free_gpus += v->gpu_assigned[g] == 0;
    k.cpus = nd->cpus;
    k.mem_gib = nd->mem_gib;
    k.cpus_req = v->node_cpus_req[n];
    k.mem_req_gib = v->node_mem_req_gib[n];
    return k;
}

/* The bucket of key k: its six words, each times an odd constant, summed and mixed
 * once (a placement and a learnt end each hash the node's new key; a mix per word
 * had cost 100 instructions). */
static uint32_t dflt_key_hash(const struct dflt_nodes *x, const struct dflt_ckey *k)
{
    uint64_t w[6];
    memcpy(w, k, sizeof w);
    uint64_t h = w[0] * 0x9E3779B97F4A7C15ull + w[1] * 0xC2B2AE3D27D4EB4Full +
                 w[2] * 0x165667B19E3779F9ull + w[3] * 0xD6E8FEB86659FD93ull +
                 w[4] * 0xFF51AFD7ED558CCDull + w[5] * 0xC4CEB9FE1A85EC53ull;
    return (uint32_t)(cpn_mix64(h) & x->mask);
}

/* ---- classes ---- */

/* The class of key k, made (empty, listed in its site) when there is none. */
static uint32_t dflt_class_get(struct dflt_nodes *x, const struct dflt_ckey *k)
{
    uint32_t b = dflt_key_hash(x, k);
    for (uint32_t c = x->bucket[b]; c != VIEW_NONE; c = x->cls[c].next)
        if (memcmp(&x->cls[c].key, k, sizeof *k) == 0)
            return c;
    uint32_t c;
    if (x->free_cls != VIEW_NONE) {
        c = x->free_cls;
        x->free_cls = x->cls[c].next;
    } else {
        cpn_grow((void **)&x->cls, &x->cap_cls, x->n_cls + 1, sizeof *x->cls);
        c = (uint32_t)x->n_cls++;
        x->cls[c].nodes = NULL;
        x->cls[c].n_nodes = x->cls[c].cap_nodes = 0;
    }
    struct dflt_class *cl = &x->cls[c]; /* a freed class's heap is empty, its array kept */
    cl->key = *k;
    cl->cap_milli = dflt_llround(k->cpus * DFLT_MILLI_PER_CPU);
    cl->cap_bytes = dflt_llround(k->mem_gib * DFLT_BYTES_PER_GIB);
    cl->bucket = b;
    cl->moved_to = VIEW_NONE;
    cl->next = x->bucket[b];
    x->bucket[b] = c;
    uint32_t s = k->site;
    if (x->site_n[s] == x->site_cap[s]) {
        x->site_cap[s] = x->site_cap[s] ? 2 * x->site_cap[s] : 16;
        x->site_cls[s] = cpn_realloc(x->site_cls[s], x->site_cap[s] * sizeof *x->site_cls[s]);
    }
    cl->site_pos = x->site_n[s];
    x->site_cls[s][x->site_n[s]++] =
        (struct dflt_site_ent){.cls = c, .memo_shape = VIEW_NONE, .first = VIEW_NONE};
    return c;
}

/* Class c has no node left: out of its bucket and its site's list, onto the free list. */
static void dflt_class_drop(struct dflt_nodes *x, uint32_t c)
{
    struct dflt_class *cl = &x->cls[c];
    uint32_t *p = &x->bucket[cl->bucket];
    while (*p != c)
        p = &x->cls[*p].next;
    *p = cl->next;
    uint32_t s = cl->key.site;
    struct dflt_site_ent last = x->site_cls[s][--x->site_n[s]];
    x->site_cls[s][cl->site_pos] = last;
    x->cls[last.cls].site_pos = cl->site_pos;
    cl->next = x->free_cls;
    x->free_cls = c;
}

/* The top of class c's heap, just changed, is its first node in its site's list too. */
static void dflt_class_new_first(struct dflt_nodes *x, const struct dflt_class *c)
{
    x->site_cls[c->key.site][c->site_pos].first = c->nodes[0];
}

static void dflt_class_add(struct dflt_nodes *x, uint32_t c, uint32_t n)
{
    struct dflt_class *cl = &x->cls[c];
    if (cl->n_nodes == cl->cap_nodes) {
        cl->cap_nodes = cl->cap_nodes ? 2 * cl->cap_nodes : 16;
        cl->nodes = cpn_realloc(cl->nodes, cl->cap_nodes * sizeof *cl->nodes);
    }
    dflt_heap_up(x, cl, cl->n_nodes++, n);
    x->node_cls[n] = c;
    if (cl->nodes[0] == n)
        dflt_class_new_first(x, cl);
}

static void dflt_class_remove(struct dflt_nodes *x, uint32_t n)
{
    uint32_t c = x->node_cls[n];
    struct dflt_class *cl = &x->cls[c];
    size_t i = x->node_pos[n];
    uint32_t last = cl->nodes[--cl->n_nodes];
    if (cl->n_nodes == 0) {
        dflt_class_drop(x, c);
    } else if (i < cl->n_nodes && i > 0 && last < cl->nodes[(i - 1) / 2]) {
        dflt_heap_up(x, cl, i, last);
        if (cl->nodes[0] == last)
            dflt_class_new_first(x, cl);
    } else if (i < cl->n_nodes) {
        dflt_heap_down(x, cl, i, last);
        if (i == 0)
            dflt_class_new_first(x, cl);
    }
}

void dflt_nodes_init(struct dflt_nodes *x, const struct view *v)
{
    const struct cluster *cl = v->cl;
    size_t nn = cl->n_nodes ? cl->n_nodes : 1;
    memset(x, 0, sizeof *x);
    x->free_cls = VIEW_NONE;
    size_t nb = 16;
    while (nb < 2 * nn)
        nb *= 2;
    x->mask = nb - 1;
    x->bucket = cpn_malloc(nb * sizeof *x->bucket);
    for (size_t b = 0; b < nb; b++)
        x->bucket[b] = VIEW_NONE;
    x->node_cls = cpn_malloc(nn * sizeof *x->node_cls);
    x->node_pos = cpn_malloc(nn * sizeof *x->node_pos);
    x->dirty_next = cpn_malloc(nn * sizeof *x->dirty_next);
    for (size_t n = 0; n < nn; n++)
        x->dirty_next[n] = DFLT_CLEAN;
    size_t ns = cl->n_sites ? cl->n_sites : 1;
    x->n_sites = ns;
    x->site_cls = cpn_calloc(ns, sizeof *x->site_cls);
    x->site_n = cpn_calloc(ns, sizeof *x->site_n);
    x->site_cap = cpn_calloc(ns, sizeof *x->site_cap);
    x->site_dirty = cpn_malloc(ns * sizeof *x->site_dirty);
    for (size_t s = 0; s < ns; s++)
        x->site_dirty[s] = VIEW_NONE;
    for (uint32_t n = 0; n < cl->n_nodes; n++) {
        struct dflt_ckey k = dflt_key_of(v, n);
        dflt_class_add(x, dflt_class_get(x, &k), n);
    }
}

void dflt_nodes_free(struct dflt_nodes *x)
{
    for (size_t c = 0; c < x->n_cls; c++)
        free(x->cls[c].nodes);
    free(x->cls);
    free(x->bucket);
    free(x->node_cls);
    free(x->node_pos);
    for (size_t s = 0; x->site_cls && s < x->n_sites; s++)
        free(x->site_cls[s]);
    free(x->site_cls);
    free(x->site_n);
    free(x->site_cap);
    free(x->dirty_next);
    free(x->site_dirty);
}

/* Moves node n to the class its bookkeeping now gives it. */
static void dflt_node_move(struct dflt_nodes *x, const struct view *v, uint32_t n)
{
    struct dflt_ckey k = dflt_key_of(v, n);
    uint32_t from = x->node_cls[n], to = x->cls[from].moved_to;
    if (memcmp(&x->cls[from].key, &k, sizeof k) == 0)
        return;
    /* Nodes of one class that take (or give back) jobs of one shape reach one key
     * again: the class the last node went to is tried before the hash table. A live
     * class is the only one of its key. */
    if (to == VIEW_NONE || x->cls[to].n_nodes == 0 || memcmp(&x->cls[to].key, &k, sizeof k) != 0)
        to = dflt_class_get(x, &k); /* (may move x->cls) */
    x->cls[from].moved_to = to;
    dflt_class_remove(x, n);
    dflt_class_add(x, to, n);
}

void dflt_nodes_touch(struct dflt_nodes *x, const struct view *v, uint32_t n)
{
    if (x->dirty_next[n] != DFLT_CLEAN)
        return;
    uint32_t site = v->cl->nodes[n].site;
    x->dirty_next[n] = x->site_dirty[site];
    x->site_dirty[site] = n;
}

void dflt_nodes_settle(struct dflt_nodes *x, const struct view *v, uint32_t site)
{
    for (uint32_t n = x->site_dirty[site], next; n != VIEW_NONE; n = next) {
        next = x->dirty_next[n];
        x->dirty_next[n] = DFLT_CLEAN;
        dflt_node_move(x, v, n);
    }
    x->site_dirty[site] = VIEW_NONE;
}

void dflt_nodes_check(const struct dflt_nodes *x, const struct view *v)
{
    /* A node's class is what its bookkeeping gives unless it waits in its site's list. */
    size_t listed = 0;
    for (size_t s = 0; s < x->n_sites; s++)
        for (uint32_t n = x->site_dirty[s]; n != VIEW_NONE; n = x->dirty_next[n], listed++)
            CPN_ASSERT(n < v->cl->n_nodes && v->cl->nodes[n].site == s && listed < v->cl->n_nodes);
    for (uint32_t n = 0; n < v->cl->n_nodes; n++) {
        struct dflt_ckey k = dflt_key_of(v, n);
        const struct dflt_class *c = &x->cls[x->node_cls[n]];
        const uint32_t *heap = c->nodes, i = x->node_pos[n];
        listed -= x->dirty_next[n] != DFLT_CLEAN;
        CPN_ASSERT(x->dirty_next[n] != DFLT_CLEAN || memcmp(&c->key, &k, sizeof k) == 0);
        CPN_ASSERT(c->cap_milli == dflt_llround(v->cl->nodes[n].cpus * DFLT_MILLI_PER_CPU) &&
                   c->cap_bytes == dflt_llround(v->cl->nodes[n].mem_gib * DFLT_BYTES_PER_GIB));
        CPN_ASSERT(i < c->n_nodes && heap[i] == n);
        CPN_ASSERT(i == 0 || heap[(i - 1) / 2] < n);
    }
    CPN_ASSERT(listed == 0);
}

/* True when node n is one of excl[0..n_excl). */
static bool dflt_excluded(uint32_t n, const uint32_t *excl, size_t n_excl)
{
    for (size_t i = 0; i < n_excl; i++)
        if (excl[i] == n)
            return true;
    return false;
}

uint32_t dflt_class_first_but(const struct dflt_class *c, const uint32_t *excl, size_t n_excl,
                              uint32_t *frontier)
{
    /* The heap's least nodes in order, from the top down: each node taken that is
     * excluded lets its two children in. At most n_excl are taken before one is not,
     * so the frontier never holds more than n_excl + 2. */
    const uint32_t *h = c->nodes;
    size_t n = 1;
    frontier[0] = 0;
    while (n > 0) {
        size_t b = 0;
        for (size_t i = 1; i < n; i++)
            if (h[frontier[i]] < h[frontier[b]])
                b = i;
        uint32_t at = frontier[b];
        if (!dflt_excluded(h[at], excl, n_excl))
            return h[at];
        frontier[b] = frontier[--n];
        for (size_t ch = 2 * (size_t)at + 1; ch <= 2 * (size_t)at + 2 && ch < c->n_nodes; ch++)
            frontier[n++] = (uint32_t)ch;
    }
    return VIEW_NONE;
}
