/* eq: a binary min-heap stored in one growing array (no allocation per event once
 * it has grown). Ordering is by time, then by the insertion counter seq, so ties
 * resolve in insertion order, as libuv's timer heap does. */
#include "eq.h"

#include <math.h>
#include <stdlib.h>

#include "util.h"

const char *const ev_kind_name[EV_NKINDS] = {
    [EV_ARRIVAL] = "arrival", [EV_TRANSFER_DONE] = "transfer_done", [EV_PEAK] = "peak",
    [EV_END] = "end",         [EV_RETRY] = "retry",                 [EV_SAMPLE] = "sample",
    [EV_POLL] = "poll",       [EV_HORIZON] = "horizon",           [EV_WAKEUP] = "wakeup",
    [EV_FLOW_START] = "flow_start", [EV_FLOW_DONE] = "flow_done",
};

void eq_init(struct eq *q)
{
    q->heap = NULL;
    q->n = q->cap = 0;
    q->next_seq = 0;
}

void eq_free(struct eq *q)
{
    free(q->heap);
    eq_init(q);
}

static inline int before(const struct event *a, const struct event *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

void eq_push(struct eq *q, double t, enum ev_kind kind, uint32_t job, uint32_t gen)
{
    CPN_ASSERT(isfinite(t));
    if (q->n == q->cap)
        cpn_grow((void **)&q->heap, &q->cap, q->n + 1, sizeof *q->heap);
    struct event e = {.t = t, .seq = q->next_seq++, .kind = (uint32_t)kind, .job = job, .gen = gen};
    size_t i = q->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!before(&e, &q->heap[p]))
            break;
        q->heap[i] = q->heap[p];
        i = p;
    }
    q->heap[i] = e;
}

int eq_pop(struct eq *q, struct event *out)
{
    if (q->n == 0)
        return 0;
    *out = q->heap[0];
    struct event last = q->heap[--q->n];
    size_t i = 0, n = q->n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && before(&q->heap[c + 1], &q->heap[c]))
            c++;
        if (!before(&q->heap[c], &last))
            break;
        q->heap[i] = q->heap[c];
        i = c;
    }
    if (n)
        q->heap[i] = last;
    return 1;
}

const struct event *eq_peek(const struct eq *q) { return q->n ? &q->heap[0] : NULL; }
