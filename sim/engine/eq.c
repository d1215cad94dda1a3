/* eq: a binary min-heap stored in one growing array (no allocation per event once
 * it has grown). Ordering is by time, then by the insertion counter seq, so ties
 * resolve in insertion order, as libuv's timer heap does. Keyed events keep their
 * heap index in pos[], so they can be moved or removed in O(log n). */
#include "eq.h"

#include <math.h>
#include <stdlib.h>

#include "../base/util.h"

const char *const ev_kind_name[EV_NKINDS] = {
    [EV_ARRIVAL] = "arrival", [EV_TRANSFER_DONE] = "transfer_done", [EV_PEAK] = "peak",
    [EV_END] = "end",         [EV_RETRY] = "retry",                 [EV_SAMPLE] = "sample",
    [EV_POLL] = "poll",       [EV_HORIZON] = "horizon",           [EV_WAKEUP] = "wakeup",
    [EV_FLOW_START] = "flow_start", [EV_FLOW_DONE] = "flow_done",
    [EV_LINK_DONE] = "link_done",
};

void eq_init(struct eq *q)
{
    q->heap = NULL;
    q->n = q->cap = 0;
    q->next_seq = 0;
    q->pos = NULL;
    q->nkeys = 0;
}

void eq_init_keys(struct eq *q, size_t nkeys)
{
    CPN_ASSERT(q->pos == NULL && nkeys < EQ_NOKEY);
    q->pos = cpn_malloc((nkeys ? nkeys : 1) * sizeof *q->pos);
    for (size_t k = 0; k < nkeys; k++)
        q->pos[k] = EQ_NOKEY;
    q->nkeys = nkeys;
}

void eq_free(struct eq *q)
{
    free(q->heap);
    free(q->pos);
    eq_init(q);
}

static inline int before(const struct event *a, const struct event *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static inline void place(struct eq *q, size_t i, const struct event *e)
{
    q->heap[i] = *e;
    if (e->key != EQ_NOKEY)
        q->pos[e->key] = (uint32_t)i;
}

static void sift_up(struct eq *q, size_t i, struct event e)
{
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!before(&e, &q->heap[p]))
            break;
        place(q, i, &q->heap[p]);
        i = p;
    }
    place(q, i, &e);
}

static void sift_down(struct eq *q, size_t i, struct event e)
{
    size_t n = q->n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(&q->heap[c + 1], &q->heap[c]))
            c++;
        if (!before(&q->heap[c], &e))
            break;
        place(q, i, &q->heap[c]);
        i = c;
    }
    place(q, i, &e);
}

static void insert(struct eq *q, struct event e)
{
    if (q->n == q->cap)
        cpn_grow((void **)&q->heap, &q->cap, q->n + 1, sizeof *q->heap);
    sift_up(q, q->n++, e);
}

/* Removes the event at heap index i. */
static void remove_at(struct eq *q, size_t i)
{
    if (q->heap[i].key != EQ_NOKEY)
        q->pos[q->heap[i].key] = EQ_NOKEY;
    struct event last = q->heap[--q->n];
    if (i == q->n)
        return;
    if (i > 0 && before(&last, &q->heap[(i - 1) / 2]))
        sift_up(q, i, last);
    else
        sift_down(q, i, last);
}

void eq_push(struct eq *q, double t, enum ev_kind kind, uint32_t job, uint32_t gen)
{
    CPN_ASSERT(isfinite(t));
    insert(q, (struct event){.t = t, .seq = q->next_seq++, .kind = (uint32_t)kind, .job = job,
                             .gen = gen, .key = EQ_NOKEY});
}

void eq_schedule(struct eq *q, uint32_t key, double t, enum ev_kind kind, uint32_t job,
                 uint32_t gen)
{
    CPN_ASSERT(isfinite(t) && key < q->nkeys);
    if (q->pos[key] != EQ_NOKEY)
        remove_at(q, q->pos[key]);
    insert(q, (struct event){.t = t, .seq = q->next_seq++, .kind = (uint32_t)kind, .job = job,
                             .gen = gen, .key = key});
}

void eq_cancel(struct eq *q, uint32_t key)
{
    CPN_ASSERT(key < q->nkeys);
    if (q->pos[key] != EQ_NOKEY)
        remove_at(q, q->pos[key]);
}

int eq_pop(struct eq *q, struct event *out)
{
    if (q->n == 0)
        return 0;
    *out = q->heap[0];
    remove_at(q, 0);
    return 1;
}

const struct event *eq_peek(const struct eq *q) { return q->n ? &q->heap[0] : NULL; }
