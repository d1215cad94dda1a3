/* heap: the project's generic min-heap (binary, or 4-ary where the order is strict),
 * an array of fixed-size records that the caller orders (a less-than function) and may
 * track (told each record's new index, for removal or update by position). It owns the
 * array, not what the records name. Policies include it as "../sim/base/heap.h", beside
 * "../sim/base/util.h". The event queue has a heap of its own (sim/engine/eq.c). */
#ifndef CPN_HEAP_H
#define CPN_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "util.h"

/* What the records of one kind of heap are and how they order. Each user defines one
 * `static const struct heap_ops` and passes it to every call: the operations below
 * are static inline, so the compiler sees the constant functions and inlines them,
 * as libuv's heap-inl.h does.
 * `less` must be a strict weak order; records that tie pop in no promised order, so
 * a user that needs a deterministic order breaks ties itself (as the event queue
 * does, on a sequence counter). Equal inputs give equal heaps: the same calls in the
 * same order leave every record at the same index, so even ties come out the same on
 * every run. */
struct heap_ops {
    size_t size; /* bytes per record */
    bool (*less)(const void *a, const void *b, const void *ctx);
    /* NULL, or called whenever a record lands at index i (e points to it there), so
     * that a user can keep each record's index for heap_remove and heap_replace. */
    void (*moved)(const void *e, size_t i, void *ctx);
    /* Children per record: 0 or 2 for a binary heap, or 4. A wider heap is shallower:
     * fewer records move at each push and pop, for more comparisons at each level. It
     * changes where records sit, and so the order of records that tie: only a user
     * whose order is strict may choose it without changing results. */
    unsigned arity;
};

/* The arity of o's heaps (2 unless it says 4). */
static inline size_t heap_arity_(const struct heap_ops *o) { return o->arity == 4 ? 4 : 2; }

/* The records v[0..n) in heap order: v[0] is the least. Room for cap. A zeroed heap
 * is empty and valid; heap_free releases the array. */
struct heap {
    void *v;
    size_t n, cap;
};

void heap_free(struct heap *h);
/* Makes room for `need` records of `size` bytes (they are not counted in n). */
void heap_reserve(struct heap *h, size_t need, size_t size);
/* Restores heap order after the caller rewrote v[0..n) (filled or compacted it), and
 * then tells `moved` of every record's index. */
void heap_heapify(struct heap *h, const struct heap_ops *o, void *ctx);

/* The record at index i (0: the least), which the caller may read but must not
 * change in a way that moves it in the order (heap_replace does that). */
static inline void *heap_at(const struct heap *h, const struct heap_ops *o, size_t i)
{
    return (char *)h->v + i * o->size;
}

static inline void heap_put_(struct heap *h, const struct heap_ops *o, void *ctx, size_t i,
                             const void *e)
{
    void *d = heap_at(h, o, i);
    memcpy(d, e, o->size);
    if (o->moved)
        o->moved(d, i, ctx);
}

/* Moves the hole at index i up to where record e belongs and puts e there. e is not
 * in v[0..i]. Compares only e against ancestors: a tie stays below. */
static inline void heap_sift_up_(struct heap *h, const struct heap_ops *o, void *ctx, size_t i,
                                 const void *e)
{
    size_t d = heap_arity_(o);
    while (i > 0) {
        size_t p = (i - 1) / d;
        if (!o->less(e, heap_at(h, o, p), ctx))
            break;
        heap_put_(h, o, ctx, i, heap_at(h, o, p));
        i = p;
    }
    heap_put_(h, o, ctx, i, e);
}

/* Moves the hole at index i down to where record e belongs and puts e there. e may
 * be v[n] (the record just cut from the end), never in v[i+1..n). The left child is
 * taken unless the right one is strictly less, and a child that only ties with e
 * stays where it is: every user's order depends on these two choices being fixed. */
static inline void heap_sift_down_(struct heap *h, const struct heap_ops *o, void *ctx, size_t i,
                                   const void *e)
{
    size_t n = h->n, d = heap_arity_(o);
    for (;;) {
        size_t c = d * i + 1;
        if (c >= n)
            break;
        /* The least child; of children that tie, the first. */
        size_t end = c + d < n ? c + d : n;
        for (size_t k = c + 1; k < end; k++)
            if (o->less(heap_at(h, o, k), heap_at(h, o, c), ctx))
                c = k;
        if (!o->less(heap_at(h, o, c), e, ctx))
            break;
        heap_put_(h, o, ctx, i, heap_at(h, o, c));
        i = c;
    }
    heap_put_(h, o, ctx, i, e);
}

/* Adds a copy of record e (which must not lie in the heap's array). */
static inline void heap_push(struct heap *h, const struct heap_ops *o, void *ctx, const void *e)
{
    if (h->n == h->cap)
        heap_reserve(h, h->n + 1, o->size);
    heap_sift_up_(h, o, ctx, h->n++, e);
}

/* Removes the record at index i, copying it to *out unless out is NULL. */
static inline void heap_remove(struct heap *h, const struct heap_ops *o, void *ctx, size_t i,
                               void *out)
{
    CPN_ASSERT(i < h->n);
    if (out)
        memcpy(out, heap_at(h, o, i), o->size);
    const void *last = heap_at(h, o, --h->n);
    if (i == h->n)
        return;
    if (i > 0 && o->less(last, heap_at(h, o, (i - 1) / heap_arity_(o)), ctx))
        heap_sift_up_(h, o, ctx, i, last);
    else
        heap_sift_down_(h, o, ctx, i, last);
}

/* Removes the least record (the heap must not be empty) into *out, or drops it when
 * out is NULL. */
static inline void heap_pop(struct heap *h, const struct heap_ops *o, void *ctx, void *out)
{
    heap_remove(h, o, ctx, 0, out);
}

/* Puts a copy of record e at index i in place of the record there, and moves it to
 * where it belongs: an update of a key in place (decrease or increase). e must not
 * lie in the heap's array: pass a copy. */
static inline void heap_replace(struct heap *h, const struct heap_ops *o, void *ctx, size_t i,
                                const void *e)
{
    CPN_ASSERT(i < h->n);
    if (i > 0 && o->less(e, heap_at(h, o, (i - 1) / heap_arity_(o)), ctx))
        heap_sift_up_(h, o, ctx, i, e);
    else
        heap_sift_down_(h, o, ctx, i, e);
}

#endif
