/* eq: the event queue on the project's min-heap (base/heap.h), 4-ary, one growing
 * array, no allocation per event once it has grown. Ordering is by time, then by the
 * insertion counter seq, so ties resolve in insertion order, as libuv's timer heap
 * does; the order is strict, so the arity changes where events sit, never the order
 * they pop in. A 4-ary heap is half as deep as a binary one: a pop moves half as many
 * events (and keyed events' positions), for more comparisons per level. Keyed events
 * keep their heap index in pos[], so they can be moved or removed in O(log n). */
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

void eq_init(struct eq *q)
{
    q->heap = (struct heap){0};
    q->next_seq = 0;
    q->pos = NULL;
    q->nkeys = 0;
}

uint32_t eq_reserve_keys(struct eq *q, size_t n)
{
    CPN_ASSERT(n < EQ_NOKEY && q->nkeys < EQ_NOKEY - n);
    size_t first = q->nkeys;
    q->pos = cpn_realloc(q->pos, (first + n ? first + n : 1) * sizeof *q->pos);
    for (size_t k = first; k < first + n; k++)
        q->pos[k] = EQ_NOKEY;
    q->nkeys = first + n;
    return (uint32_t)first;
}

void eq_free(struct eq *q)
{
    heap_free(&q->heap);
    free(q->pos);
    eq_init(q);
}

static bool eq_before(const void *a, const void *b, const void *ctx)
{
    const struct event *x = a, *y = b;
    (void)ctx;
    return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

/* Keeps pos[] (the context) up to date for keyed events. */
static void eq_moved(const void *e, size_t i, void *ctx)
{
    const struct event *ev = e;
    if (ev->key != EQ_NOKEY)
        ((uint32_t *)ctx)[ev->key] = (uint32_t)i;
}

static const struct heap_ops eq_ops = {
    .size = sizeof(struct event), .less = eq_before, .moved = eq_moved, .arity = 4};

void eq_push(struct eq *q, double t, enum ev_kind kind, uint32_t job, uint32_t gen)
{
    CPN_ASSERT(isfinite(t));
    struct event e = {.t = t, .seq = q->next_seq++, .kind = (uint32_t)kind, .job = job,
                      .gen = gen, .key = EQ_NOKEY};
    heap_push(&q->heap, &eq_ops, q->pos, &e);
}

void eq_schedule(struct eq *q, uint32_t key, double t, enum ev_kind kind, uint32_t job,
                 uint32_t gen)
{
    CPN_ASSERT(isfinite(t) && key < q->nkeys);
    struct event e = {.t = t, .seq = q->next_seq++, .kind = (uint32_t)kind, .job = job,
                      .gen = gen, .key = key};
    /* A moved event is updated in place: (t, seq) is a strict order, so the events
     * pop in the same order as if it had been removed and pushed again. */
    if (q->pos[key] != EQ_NOKEY)
        heap_replace(&q->heap, &eq_ops, q->pos, q->pos[key], &e);
    else
        heap_push(&q->heap, &eq_ops, q->pos, &e);
}

void eq_cancel(struct eq *q, uint32_t key)
{
    CPN_ASSERT(key < q->nkeys);
    if (q->pos[key] != EQ_NOKEY) {
        heap_remove(&q->heap, &eq_ops, q->pos, q->pos[key], NULL);
        q->pos[key] = EQ_NOKEY;
    }
}

int eq_pop(struct eq *q, struct event *out)
{
    if (q->heap.n == 0)
        return 0;
    heap_pop(&q->heap, &eq_ops, q->pos, out);
    if (out->key != EQ_NOKEY)
        q->pos[out->key] = EQ_NOKEY;
    return 1;
}

const struct event *eq_peek(const struct eq *q)
{
    return q->heap.n ? heap_at(&q->heap, &eq_ops, 0) : NULL;
}
