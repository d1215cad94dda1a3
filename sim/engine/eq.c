/* eq: the event queue on the project's min-heap (base/heap.h), 4-ary, one growing
 * array, no allocation per event once it has grown. Ordering is by time, then by the
 * insertion counter seq, so ties resolve in insertion order, as libuv's timer heap
 * does; the order is strict, so the arity changes where events sit, never the order
 * they pop in. A 4-ary heap is half as deep as a binary one: a pop moves half as many
 * events (and keyed events' positions), for more comparisons per level. Keyed events
 * keep their heap index in a table of pages, so they can be moved or removed in
 * O(log n). The table's pages come and go with the keys' events: a run of a million
 * jobs reserves two million keys (8 MB of indices, all written at the start when the
 * table was one array) while a few thousand have an event at any time. */
#include "eq.h"

#include <math.h>
#include <stdlib.h>

#include "../base/util.h"

const char *const ev_kind_name[EV_NKINDS] = {
    [EV_ARRIVAL] = "arrival", [EV_TRANSFER_DONE] = "transfer_done", [EV_PEAK] = "peak",
    [EV_END] = "end",         [EV_RETRY] = "retry",                 [EV_SAMPLE] = "sample",
    [EV_POLL] = "poll",       [EV_HORIZON] = "horizon",           [EV_WAKEUP] = "wakeup",
    [EV_FLOW_START] = "flow_start", [EV_FLOW_DONE] = "flow_done",
    [EV_LINK_DONE] = "link_done", [EV_BACKGROUND] = "background",
    [EV_GANG_TIMEOUT] = "gang_timeout",
};

void eq_init(struct eq *q) { *q = (struct eq){0}; }

uint32_t eq_reserve_keys(struct eq *q, size_t n)
{
    CPN_ASSERT(n < EQ_NOKEY && q->nkeys < EQ_NOKEY - n);
    size_t first = q->nkeys;
    q->nkeys = first + n;
    size_t np = (q->nkeys + EQ_PAGE_KEYS - 1) >> EQ_PAGE_BITS;
    if (np > q->npages) {
        q->page = cpn_realloc(q->page, np * sizeof *q->page);
        q->page_live = cpn_realloc(q->page_live, np * sizeof *q->page_live);
        for (size_t i = q->npages; i < np; i++) {
            q->page[i] = NULL;
            q->page_live[i] = 0;
        }
        q->npages = np;
    }
    return (uint32_t)first;
}

void eq_free(struct eq *q)
{
    heap_free(&q->heap);
    for (size_t i = 0; i < q->npages; i++)
        free(q->page[i]);
    for (size_t i = 0; i < q->nspare; i++)
        free(q->spare[i]);
    free(q->page);
    free(q->page_live);
    eq_init(q);
}

/* The table entry of a key whose page exists. */
static inline uint32_t *eq_slot(const struct eq *q, uint32_t key)
{
    return &q->page[key >> EQ_PAGE_BITS][key & (EQ_PAGE_KEYS - 1)];
}

/* The heap index of key's event, or EQ_NOKEY. */
static inline uint32_t eq_pos(const struct eq *q, uint32_t key)
{
    return q->page[key >> EQ_PAGE_BITS] ? *eq_slot(q, key) : EQ_NOKEY;
}

/* Records that key has an event (at an index `moved` sets next), creating its page. */
static void eq_key_add(struct eq *q, uint32_t key)
{
    size_t pg = key >> EQ_PAGE_BITS;
    if (!q->page[pg]) {
        uint32_t *p = q->nspare ? q->spare[--q->nspare] : NULL;
        if (!p) {
            p = cpn_malloc(EQ_PAGE_KEYS * sizeof *p);
            for (uint32_t k = 0; k < EQ_PAGE_KEYS; k++)
                p[k] = EQ_NOKEY;
        }
        q->page[pg] = p;
    }
    q->page_live[pg]++;
}

/* Records that key's event left the heap; its page goes when no key of it has one
 * (to the spares, whose entries are then all EQ_NOKEY, while there is room). */
static void eq_key_gone(struct eq *q, uint32_t key)
{
    size_t pg = key >> EQ_PAGE_BITS;
    *eq_slot(q, key) = EQ_NOKEY;
    if (--q->page_live[pg] > 0)
        return;
    if (q->nspare < EQ_SPARE_PAGES)
        q->spare[q->nspare++] = q->page[pg];
    else
        free(q->page[pg]);
    q->page[pg] = NULL;
}

static bool eq_before(const void *a, const void *b, const void *ctx)
{
    const struct event *x = a, *y = b;
    (void)ctx;
    return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

/* Keeps the key table (the context is the queue) up to date for keyed events. */
static void eq_moved(const void *e, size_t i, void *ctx)
{
    const struct event *ev = e;
    if (ev->key != EQ_NOKEY)
        *eq_slot(ctx, ev->key) = (uint32_t)i;
}

static const struct heap_ops eq_ops = {
    .size = sizeof(struct event), .less = eq_before, .moved = eq_moved, .arity = 4};

void eq_push(struct eq *q, double t, enum ev_kind kind, uint32_t job, uint32_t gen)
{
    CPN_ASSERT(isfinite(t));
    struct event e = {.t = t, .seq = q->next_seq++, .kind = (uint32_t)kind, .job = job,
                      .gen = gen, .key = EQ_NOKEY};
    heap_push(&q->heap, &eq_ops, q, &e);
}

void eq_schedule(struct eq *q, uint32_t key, double t, enum ev_kind kind, uint32_t job,
                 uint32_t gen)
{
    CPN_ASSERT(isfinite(t) && key < q->nkeys);
    struct event e = {.t = t, .seq = q->next_seq++, .kind = (uint32_t)kind, .job = job,
                      .gen = gen, .key = key};
    /* A moved event is updated in place: (t, seq) is a strict order, so the events
     * pop in the same order as if it had been removed and pushed again. */
    uint32_t at = eq_pos(q, key);
    if (at != EQ_NOKEY) {
        heap_replace(&q->heap, &eq_ops, q, at, &e);
    } else {
        eq_key_add(q, key);
        heap_push(&q->heap, &eq_ops, q, &e);
    }
}

void eq_cancel(struct eq *q, uint32_t key)
{
    CPN_ASSERT(key < q->nkeys);
    uint32_t at = eq_pos(q, key);
    if (at != EQ_NOKEY) {
        heap_remove(&q->heap, &eq_ops, q, at, NULL);
        eq_key_gone(q, key);
    }
}

int eq_pop(struct eq *q, struct event *out)
{
    if (q->heap.n == 0)
        return 0;
    heap_pop(&q->heap, &eq_ops, q, out);
    if (out->key != EQ_NOKEY)
        eq_key_gone(q, out->key);
    return 1;
}

const struct event *eq_peek(const struct eq *q)
{
    return q->heap.n ? heap_at(&q->heap, &eq_ops, 0) : NULL;
}
