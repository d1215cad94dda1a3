/* eq: the event queue, a 4-ary min-heap in one growing array, no allocation per event
 * once it has grown. Ordering is by time, then by the insertion counter seq, so ties
 * resolve in insertion order, as libuv's timer heap does; the order is strict, so the
 * shape of the heap changes where events sit, never the order they pop in. A 4-ary
 * heap is half as deep as a binary one: a pop moves half as many events (and keyed
 * events' positions), for more comparisons per level. Keyed events keep their heap
 * index in a table of pages, so they can be moved or removed in O(log n). The table's
 * pages come and go with the keys' events: a run of a million jobs reserves two million
 * keys (8 MB of indices, all written at the start when the table was one array) while
 * a few thousand have an event at any time.
 *
 * The heap is its own, not base/heap.h's generic one: every event of a run is popped
 * through it, and the generic sift, called through its less and moved functions, was
 * the largest function of a run's profile. Here
 * - (t, seq) is compared as one 128-bit integer (ev_key);
 * - the least of 4 children is chosen without branches (eq_least4), and the slots past
 *   the last event hold a sentinel that orders after every event, so a group of
 *   children is always compared whole;
 * - a pop takes the hole at the root down to a leaf and fills it from there (Floyd,
 *   eq_remove_at);
 * - the 4 children of an event share one aligned 128-byte block (eq_grow).
 * Together they took a pop on the 100,000-job benchmark from 489 to 346 instructions,
 * and a third off the CPU time of a replay of its queue's operations.
 *
 * Keyed and pushed events have a heap each, and a pop takes the earlier of their
 * least. The keyed ones are mostly the ENDs of running jobs, which wait long: under
 * fifo on 100,000 jobs about 4,600 of the 4,900 events, while the pushed ones
 * (a PEAK, a retry, a flow's start) are few and soon popped, three in five of the
 * pops. In one heap each of those pops took the hole through all six levels of the
 * ENDs; in a heap of their own it goes through three or four. And a sift knows
 * whether its events have keys, so it records a keyed event's position without
 * asking, and a pushed one's not at all (in one heap the events with and without keys
 * alternated at random along a path, and a branch on it had mispredicted).
 *
 * One event waits beside the heaps: the stream's (eq_push_stream), the next job's
 * arrival, of which there is one at a time. A pop compares it with the heaps' least
 * instead of sifting it in and out: an arrival is one event in six of a run, and each
 * had cost a push and a pop through a heap. */
#include "eq.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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
    free(q->keyed.mem);
    free(q->pushed.mem);
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

/* Records that key has an event (at an index the sift records next), creating its
 * page. */
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

/* The heap's own order: (t, seq) as one 128-bit unsigned integer, t's bit pattern
 * above seq. For t finite and >= +0 the bit patterns order as the values do (eq_push
 * makes a -0.0 +0.0: it equals +0.0, so it must tie with it and fall to seq). seq is
 * unique, so no two events have the same key. */
__extension__ typedef unsigned __int128 eq_key;

static inline eq_key ev_key(const struct event *e)
{
    uint64_t tb;
    memcpy(&tb, &e->t, sizeof tb);
    return (eq_key)tb << 64 | e->seq;
}

/* What fills the slots past the last event: a key above any event's (t is infinite),
 * so that every group of 4 children can be compared whole, with no bounds check. */
static const struct event eq_sentinel = {.t = INFINITY, .seq = UINT64_MAX, .key = EQ_NOKEY};

/* The alignment of the heap's allocation; ev is 3 events into it, so the children
 * 4i+1..4i+4 of event i sit at offsets 4(i+1) from the aligned start: one 128-byte
 * block, two cache lines that are fetched as a pair. */
#define EQ_ALIGN 128
#define EQ_LEAD 3

/* Makes room for more events in h: a new block twice the size, its free slots filled
 * with the sentinel. The slots before ev are never read. */
static void eq_grow(struct eq_heap *h)
{
    size_t slots = h->cap ? 2 * (h->cap + EQ_LEAD) : 64; /* a multiple of 4 */
    CPN_ASSERT(slots < SIZE_MAX / 2 / sizeof(struct event));
    void *mem = cpn_malloc(slots * sizeof(struct event) + EQ_ALIGN);
    uintptr_t at = ((uintptr_t)mem + EQ_ALIGN - 1) & ~(uintptr_t)(EQ_ALIGN - 1);
    struct event *ev = (struct event *)at + EQ_LEAD;
    size_t cap = slots - EQ_LEAD; /* the last group of children ends at the block's end */
    if (h->n)
        memcpy(ev, h->ev, h->n * sizeof *ev);
    for (size_t i = h->n; i < cap; i++)
        ev[i] = eq_sentinel;
    free(h->mem);
    h->mem = mem;
    h->ev = ev;
    h->cap = cap;
}

/* A comparison whose outcome is a coin toss: GCC is told so, so that it selects
 * rather than branches. */
#define EQ_COIN(c) ((size_t)__builtin_expect_with_probability(!!(c), 1, 0.5))

/* What a sift uses, read once: a store to an event might alias the queue's fields
 * for all the compiler knows, and it would read them again at every level. keyed:
 * whether the heap is the keyed events' (a constant where the sifts are inlined). */
struct eq_sift {
    struct event *ev;
    uint32_t *const *page;
    bool keyed;
};

static inline struct eq_sift eq_sift_of(const struct eq *q, const struct eq_heap *h)
{
    return (struct eq_sift){.ev = h->ev, .page = q->page, .keyed = h == &q->keyed};
}

/* Puts event e at `at`, which is ev[i], and records i as its key's position if the
 * heap's events have keys. */
static inline void eq_put(struct eq_sift s, struct event *at, size_t i, const struct event *e)
{
    *at = *e;
    if (s.keyed)
        s.page[e->key >> EQ_PAGE_BITS][e->key & (EQ_PAGE_KEYS - 1)] = (uint32_t)i;
}

/* The least of the 4 siblings c[0..3]: two pairs, then their winners, without
 * branches (which child wins is a coin toss a branch predictor misses half the time). */
static inline struct event *eq_least4(struct event *c)
{
    struct event *a = c + EQ_COIN(ev_key(&c[1]) < ev_key(&c[0]));
    struct event *b = c + 2 + EQ_COIN(ev_key(&c[3]) < ev_key(&c[2]));
    return EQ_COIN(ev_key(b) < ev_key(a)) ? b : a;
}

/* Moves the hole at index i up past the ancestors that order after key k (each one
 * level down into the hole) and returns where it stops: where the event of key k
 * belongs. The caller puts the event there. */
static inline size_t eq_rise(struct eq_sift s, size_t i, eq_key k)
{
    while (i > 0) {
        size_t p = (i - 1) / 4;
        if (!(k < ev_key(&s.ev[p])))
            break;
        eq_put(s, &s.ev[i], i, &s.ev[p]);
        i = p;
    }
    return i;
}

/* Moves the hole at index i (of n events) down past the least children that order
 * before key k (each one level up into the hole) and returns where it stops: where
 * the event of key k belongs. The caller puts the event there. */
static size_t eq_fall(struct eq_sift s, size_t n, size_t i, eq_key k)
{
    for (struct event *end = s.ev + n, *c; (c = s.ev + 4 * i + 1) < end;) {
        struct event *m = eq_least4(c);
        if (!(ev_key(m) < k))
            break;
        eq_put(s, &s.ev[i], i, m);
        i = (size_t)(m - s.ev);
    }
    return i;
}

/* Removes the event at index i of heap h. The hole it leaves goes down along the least children
 * to a leaf without comparing them to the last event, which is put there and sifted
 * up (Floyd): the last event is a leaf, mostly late, and rarely rises far, so this
 * saves a comparison at each level of the way down. It may rise above i. Inlined
 * into eq_pop (where i is 0), as GCC would not do by itself: a call per pop. */
static inline __attribute__((always_inline)) void eq_remove_at(struct eq *q, struct eq_heap *h,
                                                              size_t i)
{
    struct eq_sift s = eq_sift_of(q, h);
    size_t n = --h->n;
    struct event last = s.ev[n];
    s.ev[n] = eq_sentinel;
    if (i == n)
        return;
    /* The hole is ev[i], its children ev[4i+1..4i+4]. */
    struct event *hole = &s.ev[i];
    for (struct event *end = s.ev + n, *c; (c = s.ev + 4 * i + 1) < end;) {
        struct event *m = eq_least4(c);
        eq_put(s, hole, i, m);
        hole = m;
        i = (size_t)(m - s.ev);
    }
    i = eq_rise(s, i, ev_key(&last));
    eq_put(s, &s.ev[i], i, &last);
}

/* A new event's record. Adding +0.0 makes -0.0 +0.0 (see ev_key) and leaves every
 * other time as it is. */
static inline struct event eq_event(struct eq *q, double t, enum ev_kind kind, uint32_t job,
                                    uint32_t gen, uint32_t key)
{
    CPN_ASSERT(isfinite(t) && t >= 0);
    return (struct event){.t = t + 0.0, .seq = q->next_seq++, .kind = (uint32_t)kind,
                          .job = job, .gen = gen, .key = key};
}

void eq_push(struct eq *q, double t, enum ev_kind kind, uint32_t job, uint32_t gen)
{
    struct event e = eq_event(q, t, kind, job, gen, EQ_NOKEY);
    struct eq_heap *h = &q->pushed;
    if (h->n == h->cap)
        eq_grow(h);
    /* It has no key: nothing to record of where it lands. */
    h->ev[eq_rise(eq_sift_of(q, h), h->n++, ev_key(&e))] = e;
}

void eq_push_stream(struct eq *q, double t, enum ev_kind kind, uint32_t job, uint32_t gen)
{
    CPN_ASSERT(!q->has_stream);
    q->stream = eq_event(q, t, kind, job, gen, EQ_NOKEY);
    q->has_stream = 1;
}

void eq_schedule(struct eq *q, uint32_t key, double t, enum ev_kind kind, uint32_t job,
                 uint32_t gen)
{
    CPN_ASSERT(key < q->nkeys);
    struct event e = eq_event(q, t, kind, job, gen, key);
    /* A moved event is updated in place: (t, seq) is a strict order, so the events
     * pop in the same order as if it had been removed and pushed again. */
    struct eq_heap *h = &q->keyed;
    uint32_t at = eq_pos(q, key);
    size_t i;
    if (at != EQ_NOKEY) {
        if (at > 0 && ev_key(&e) < ev_key(&h->ev[(at - 1) / 4]))
            i = eq_rise(eq_sift_of(q, h), at, ev_key(&e));
        else
            i = eq_fall(eq_sift_of(q, h), h->n, at, ev_key(&e));
    } else {
        eq_key_add(q, key);
        if (h->n == h->cap)
            eq_grow(h);
        i = eq_rise(eq_sift_of(q, h), h->n++, ev_key(&e));
    }
    eq_put(eq_sift_of(q, h), &h->ev[i], i, &e);
}

void eq_cancel(struct eq *q, uint32_t key)
{
    CPN_ASSERT(key < q->nkeys);
    uint32_t at = eq_pos(q, key);
    if (at != EQ_NOKEY) {
        eq_remove_at(q, &q->keyed, at);
        eq_key_gone(q, key);
    }
}

/* The least event of heap h, or the sentinel when it has none. */
static inline const struct event *eq_top(const struct eq_heap *h)
{
    return h->n ? &h->ev[0] : &eq_sentinel;
}

/* The earliest event: the stream's, the pushed heap's least or the keyed heap's
 * least; the sentinel when the queue is empty. */
static inline const struct event *eq_first(const struct eq *q)
{
    const struct event *p = eq_top(&q->pushed), *k = eq_top(&q->keyed);
    const struct event *e = ev_key(k) < ev_key(p) ? k : p;
    return q->has_stream && ev_key(&q->stream) < ev_key(e) ? &q->stream : e;
}

int eq_pop(struct eq *q, struct event *out)
{
    const struct event *e = eq_first(q);
    if (e == &q->stream) {
        *out = q->stream;
        q->has_stream = 0;
        return 1;
    }
    if (e == &eq_sentinel)
        return 0;
    *out = *e;
    if (e == q->pushed.ev) {
        eq_remove_at(q, &q->pushed, 0);
    } else {
        eq_remove_at(q, &q->keyed, 0);
        eq_key_gone(q, out->key);
    }
    return 1;
}

const struct event *eq_peek(const struct eq *q)
{
    const struct event *e = eq_first(q);
    return e == &eq_sentinel ? NULL : e;
}
