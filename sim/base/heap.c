/* heap: the parts of the binary min-heap that are off the hot path (growth, freeing,
 * building a heap from an array). The sifts live in heap.h as static inline functions
 * so that each user's ordering function is inlined into them. */
#include "heap.h"

#include <stdlib.h>

void heap_free(struct heap *h)
{
    free(h->v);
    *h = (struct heap){0};
}

void heap_reserve(struct heap *h, size_t need, size_t size)
{
    cpn_grow(&h->v, &h->cap, need, size);
}

void heap_heapify(struct heap *h, const struct heap_ops *o, void *ctx)
{
    /* Each record sifted down is first copied to the spare slot v[n], past the heap,
     * so that the sift can leave a hole where it was (Floyd's bottom-up build). */
    heap_reserve(h, h->n + 1, o->size);
    void *tmp = heap_at(h, o, h->n);
    for (size_t i = h->n / 2; i-- > 0;) {
        memcpy(tmp, heap_at(h, o, i), o->size);
        heap_sift_down_(h, o, ctx, i, tmp);
    }
    /* Records that did not move are told their index too: the caller wrote them. */
    if (o->moved)
        for (size_t i = 0; i < h->n; i++)
            o->moved(heap_at(h, o, i), i, ctx);
}
