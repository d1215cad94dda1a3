/* The min-heap (sim/base/heap.h): a hand-checked layout, then thousands of random
 * pushes, pops, updates and removals against a sorted array, with keys drawn from a
 * few values so that most comparisons are ties broken on a sequence number, for the
 * binary heap and the 4-ary one. */
#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>

#include "../sim/base/heap.h"

struct rec {
    double key;
    uint64_t seq;
    uint32_t id;
};

static bool rec_less(const void *a, const void *b, const void *ctx)
{
    const struct rec *x = a, *y = b;
    (void)ctx;
    return x->key < y->key || (x->key == y->key && x->seq < y->seq);
}

/* The context is pos[]: each record's index, by id. */
static void rec_moved(const void *e, size_t i, void *ctx)
{
    ((size_t *)ctx)[((const struct rec *)e)->id] = i;
}

static const struct heap_ops rec_ops = {.size = sizeof(struct rec), .less = rec_less,
                                        .moved = rec_moved};
static const struct heap_ops rec_ops4 = {.size = sizeof(struct rec), .less = rec_less,
                                         .moved = rec_moved, .arity = 4};

static const struct rec *at(const struct heap *h, size_t i) { return heap_at(h, &rec_ops, i); }

/* Pushes (2, a) (1, b) (2, c) (1, d) with a..d numbered 0..3 and seq in push order:
 * d climbs past a but not past b, which ties with it and came first. */
Test(heap, hand_checked_layout_and_ties)
{
    struct heap h = {0};
    size_t pos[4];
    double keys[] = {2, 1, 2, 1};
    for (uint32_t i = 0; i < 4; i++) {
        struct rec r = {keys[i], i, i};
        heap_push(&h, &rec_ops, pos, &r);
    }
    uint32_t layout[] = {1, 3, 2, 0}; /* b d c a */
    for (size_t i = 0; i < 4; i++) {
        cr_assert_eq(at(&h, i)->id, layout[i], "index %zu holds %u", i, at(&h, i)->id);
        cr_assert_eq(pos[layout[i]], i);
    }
    struct rec out;
    heap_pop(&h, &rec_ops, pos, &out);
    cr_assert_eq(out.id, 1);
    /* a, cut from the end, sinks into the hole under d: d a c. */
    cr_assert_eq(at(&h, 0)->id, 3);
    cr_assert_eq(at(&h, 1)->id, 0);
    cr_assert_eq(at(&h, 2)->id, 2);
    uint32_t rest[] = {3, 0, 2};
    for (int i = 0; i < 3; i++) {
        heap_pop(&h, &rec_ops, pos, &out);
        cr_assert_eq(out.id, rest[i]);
    }
    cr_assert_eq(h.n, 0);
    heap_free(&h);
    heap_free(&h); /* freeing twice is harmless: the heap is zeroed */
}

/* The model: the live records sorted by (key, seq). */
struct model {
    struct rec v[16384];
    size_t n;
};

static void model_insert(struct model *m, struct rec r)
{
    size_t i = m->n++;
    while (i > 0 && rec_less(&r, &m->v[i - 1], NULL)) {
        m->v[i] = m->v[i - 1];
        i--;
    }
    m->v[i] = r;
}

static struct rec model_take(struct model *m, uint32_t id)
{
    size_t i = 0;
    while (m->v[i].id != id)
        i++;
    struct rec r = m->v[i];
    memmove(&m->v[i], &m->v[i + 1], (m->n - i - 1) * sizeof *m->v);
    m->n--;
    return r;
}

static void check_same(const struct heap *h, const struct heap_ops *o, const struct model *m,
                       const size_t *pos, int step)
{
    size_t d = o->arity ? o->arity : 2;
    cr_assert_eq(h->n, m->n, "step %d: %zu records, model %zu", step, h->n, m->n);
    if (m->n == 0)
        return;
    cr_assert_eq(at(h, 0)->id, m->v[0].id, "step %d: top %u, model %u", step, at(h, 0)->id,
                 m->v[0].id);
    for (size_t i = 0; i < m->n; i++)
        cr_assert_eq(at(h, pos[m->v[i].id])->id, m->v[i].id, "step %d: pos of %u", step, m->v[i].id);
    for (size_t i = 1; i < h->n; i++)
        cr_assert_not(rec_less(at(h, i), at(h, (i - 1) / d), NULL), "step %d: order at %zu", step, i);
}

static void random_operations(const struct heap_ops *o)
{
    enum { IDS = 16384, STEPS = 20000, KEYS = 8 };
    static struct model m;
    static size_t pos[IDS];
    static bool live[IDS];
    struct heap h = {0};
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 13);
    uint64_t seq = 0;
    uint32_t next_id = 0;
    size_t ops[4] = {0};
    for (int step = 0; step < STEPS; step++) {
        unsigned long op = gsl_rng_uniform_int(rng, 10);
        /* Half the steps push in the first half, so the heap grows a few thousand
         * deep; in the second half it drains. */
        if (m.n == 0 || (op < 5 && step < STEPS / 2)) {
            cr_assert_lt(next_id, IDS);
            struct rec r = {(double)gsl_rng_uniform_int(rng, KEYS), seq++, next_id++};
            heap_push(&h, o, pos, &r);
            model_insert(&m, r);
            live[r.id] = true;
            ops[0]++;
        } else if (op < 7) {
            struct rec out;
            heap_pop(&h, o, pos, &out);
            struct rec want = model_take(&m, m.v[0].id);
            cr_assert(out.id == want.id && out.seq == want.seq && out.key == want.key,
                      "step %d: popped %u, model %u", step, out.id, want.id);
            live[out.id] = false;
            ops[1]++;
        } else {
            uint32_t id = m.v[gsl_rng_uniform_int(rng, m.n)].id;
            cr_assert(live[id]);
            if (op < 9) { /* a new key, up or down, and a new place among its ties */
                struct rec r = model_take(&m, id);
                r.key = (double)gsl_rng_uniform_int(rng, KEYS);
                r.seq = seq++;
                heap_replace(&h, o, pos, pos[id], &r);
                model_insert(&m, r);
                ops[2]++;
            } else {
                struct rec out;
                heap_remove(&h, o, pos, pos[id], &out);
                struct rec want = model_take(&m, id);
                cr_assert(out.id == id && out.seq == want.seq, "step %d: removed %u", step, out.id);
                live[id] = false;
                ops[3]++;
            }
        }
        check_same(&h, o, &m, pos, step);
    }
    while (m.n > 0) {
        struct rec out;
        heap_pop(&h, o, pos, &out);
        cr_assert_eq(out.id, model_take(&m, m.v[0].id).id);
    }
    for (int k = 0; k < 4; k++)
        cr_assert_gt(ops[k], 1000, "operation %d ran only %zu times", k, ops[k]);
    heap_free(&h);
    gsl_rng_free(rng);
}

Test(heap, random_operations_against_sorted_array) { random_operations(&rec_ops); }

Test(heap, random_operations_against_sorted_array_4ary) { random_operations(&rec_ops4); }

/* A filled array made a heap at once pops in the model's order, and every index is
 * reported, also of the records that did not move. */
static void heapify_then_pop(const struct heap_ops *o)
{
    enum { N = 1000 };
    static size_t pos[N];
    static struct model m;
    struct heap h = {0};
    heap_reserve(&h, N, sizeof(struct rec));
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 5);
    struct rec *v = h.v;
    for (uint32_t i = 0; i < N; i++) {
        v[i] = (struct rec){(double)gsl_rng_uniform_int(rng, 16), gsl_rng_get(rng), i};
        model_insert(&m, v[i]);
    }
    h.n = N;
    for (size_t i = 0; i < N; i++)
        pos[i] = SIZE_MAX;
    heap_heapify(&h, o, pos);
    check_same(&h, o, &m, pos, -1);
    for (size_t i = 0; i < N; i++) {
        struct rec out;
        heap_pop(&h, o, pos, &out);
        cr_assert_eq(out.id, m.v[i].id, "pop %zu", i);
    }
    heap_free(&h);
    gsl_rng_free(rng);
}

Test(heap, heapify_then_pop_in_order) { heapify_then_pop(&rec_ops); }

Test(heap, heapify_then_pop_in_order_4ary) { heapify_then_pop(&rec_ops4); }
