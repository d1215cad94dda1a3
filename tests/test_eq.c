/* The event queue: (time, seq) order, ties in insertion order. */
#include <criterion/criterion.h>
#include <float.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <signal.h>

#include "../sim/engine/eq.h"

Test(eq, ties_pop_in_insertion_order)
{
    struct eq q;
    eq_init(&q);
    for (uint32_t i = 0; i < 100; i++)
        eq_push(&q, 5.0, EV_ARRIVAL, i, 0);
    eq_push(&q, 1.0, EV_END, 1000, 0);
    struct event e;
    cr_assert(eq_pop(&q, &e));
    cr_assert_eq(e.job, 1000);
    for (uint32_t i = 0; i < 100; i++) {
        cr_assert(eq_pop(&q, &e));
        cr_assert_eq(e.job, i, "tie %u popped as %u", i, e.job);
    }
    cr_assert_not(eq_pop(&q, &e));
    eq_free(&q);
}

Test(eq, random_times_pop_sorted_with_interleaving)
{
    struct eq q;
    eq_init(&q);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 7);
    double last_t = -1;
    uint64_t last_seq = 0;
    size_t popped = 0;
    for (int round = 0; round < 2000; round++) {
        /* Pushes never go before the last popped time, as in a simulation. */
        for (int k = 0; k < 3; k++)
            eq_push(&q, (last_t < 0 ? 0 : last_t) + (double)gsl_rng_uniform_int(rng, 10), EV_END,
                    (uint32_t)round, 0);
        struct event e;
        cr_assert(eq_pop(&q, &e));
        popped++;
        cr_assert(e.t > last_t || (e.t == last_t && e.seq > last_seq), "order broken at %zu", popped);
        last_t = e.t;
        last_seq = e.seq;
    }
    struct event e;
    while (eq_pop(&q, &e)) {
        cr_assert(e.t > last_t || (e.t == last_t && e.seq > last_seq));
        last_t = e.t;
        last_seq = e.seq;
    }
    gsl_rng_free(rng);
    eq_free(&q);
}

Test(eq, peek_and_names)
{
    struct eq q;
    eq_init(&q);
    cr_assert_null(eq_peek(&q));
    eq_push(&q, 3.0, EV_POLL, 0, 0);
    eq_push(&q, 2.0, EV_SAMPLE, 0, 0);
    cr_assert_eq(eq_peek(&q)->kind, EV_SAMPLE);
    cr_assert_eq(eq_size(&q), 2);
    for (int k = 0; k < EV_NKINDS; k++)
        cr_assert_not_null(ev_kind_name[k]);
    eq_free(&q);
}

/* A keyed event moves instead of multiplying; a moved event orders as if pushed anew;
 * a cancelled one never pops. */
Test(eq, keyed_events_move_and_cancel)
{
    struct eq q;
    eq_init(&q);
    cr_assert_eq(eq_reserve_keys(&q, 4), 0);
    eq_schedule(&q, 0, 10.0, EV_END, 100, 1);
    eq_schedule(&q, 1, 20.0, EV_END, 101, 1);
    eq_push(&q, 15.0, EV_SAMPLE, 0, 0);
    eq_schedule(&q, 0, 30.0, EV_END, 100, 2); /* moved later */
    eq_schedule(&q, 2, 15.0, EV_FLOW_DONE, 102, 1);
    eq_cancel(&q, 3);                          /* nothing to cancel */
    eq_schedule(&q, 3, 5.0, EV_END, 103, 1);
    eq_cancel(&q, 3);
    cr_assert_eq(eq_size(&q), 4);
    struct event e;
    uint32_t want_job[] = {0, 102, 101, 100};
    double want_t[] = {15.0, 15.0, 20.0, 30.0};
    for (int i = 0; i < 4; i++) {
        cr_assert(eq_pop(&q, &e));
        cr_assert_eq(e.job, want_job[i], "pop %d: job %u", i, e.job);
        cr_assert_eq(e.t, want_t[i]);
    }
    cr_assert_eq(e.gen, 2, "the moved event carries its new generation");
    cr_assert_not(eq_pop(&q, &e));
    /* A key is free again after its event popped. */
    eq_schedule(&q, 0, 1.0, EV_END, 7, 0);
    cr_assert_eq(eq_size(&q), 1);
    eq_free(&q);
}

/* Random moves and cancels against a brute-force model of the live events. */
Test(eq, keyed_events_random_against_model)
{
    enum { K = 64 };
    struct eq q;
    eq_init(&q);
    cr_assert_eq(eq_reserve_keys(&q, K), 0);
    double model[K];
    for (int k = 0; k < K; k++)
        model[k] = -1;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 3);
    for (int step = 0; step < 5000; step++) {
        uint32_t k = (uint32_t)gsl_rng_uniform_int(rng, K);
        unsigned long op = gsl_rng_uniform_int(rng, 3);
        if (op < 2) {
            double t = (double)gsl_rng_uniform_int(rng, 1000);
            eq_schedule(&q, k, t, EV_END, k, 0);
            model[k] = t;
        } else {
            eq_cancel(&q, k);
            model[k] = -1;
        }
    }
    size_t live = 0;
    for (int k = 0; k < K; k++)
        live += model[k] >= 0;
    cr_assert_eq(eq_size(&q), live);
    struct event e;
    double last = -1;
    while (eq_pop(&q, &e)) {
        cr_assert_geq(e.t, last);
        cr_assert_eq(model[e.key], e.t, "key %u popped at %g, scheduled at %g", e.key, e.t, model[e.key]);
        model[e.key] = -1;
        last = e.t;
    }
    for (int k = 0; k < K; k++)
        cr_assert_lt(model[k], 0, "key %d never popped", k);
    gsl_rng_free(rng);
    eq_free(&q);
}

/* An event of the brute-force models below: what the queue should hold. */
struct mev {
    double t;
    uint64_t seq;
    uint32_t key, job;
    bool stream; /* the stream's (eq_push_stream) */
};

/* The index of the least (t, seq) among live[0..n), n > 0: the event the queue must pop. */
static size_t mev_least(const struct mev *live, size_t n)
{
    size_t m = 0;
    for (size_t i = 1; i < n; i++)
        if (live[i].t < live[m].t || (live[i].t == live[m].t && live[i].seq < live[m].seq))
            m = i;
    return m;
}

/* Pushes, moves, cancels, the stream's pushes and pops interleaved, each pop checked
 * against the least (t, seq) of a brute-force list of the live events: the exact
 * order, ties included, whether the least waits in the heap or beside it. */
Test(eq, interleaved_exact_order_against_model)
{
    enum { K = 32, MAX = 4096 };
    struct mev live[MAX];
    size_t n = 0;
    bool streaming = false; /* the stream's event is pending */
    struct eq q;
    eq_init(&q);
    cr_assert_eq(eq_reserve_keys(&q, K), 0);
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 11);
    double now = 0;
    for (int step = 0; step < 20000; step++) {
        unsigned long op = gsl_rng_uniform_int(rng, 9);
        double t = now + (double)gsl_rng_uniform_int(rng, 5);
        uint32_t k = (uint32_t)gsl_rng_uniform_int(rng, K);
        size_t at = n;
        for (size_t i = 0; i < n; i++)
            if (live[i].key == k)
                at = i;
        if (op < 2 && n < MAX) {
            live[n++] = (struct mev){t, q.next_seq, EQ_NOKEY, 0, false};
            eq_push(&q, t, EV_SAMPLE, 0, 0);
        } else if (op == 8 && !streaming && n < MAX) {
            live[n++] = (struct mev){t, q.next_seq, EQ_NOKEY, 0, true};
            eq_push_stream(&q, t, EV_ARRIVAL, 0, 0);
            streaming = true;
        } else if (op < 4) {
            if (at == n)
                n++;
            live[at] = (struct mev){t, q.next_seq, k, 0, false};
            eq_schedule(&q, k, t, EV_END, k, 0);
        } else if (op < 5) {
            if (at < n)
                live[at] = live[--n];
            eq_cancel(&q, k);
        } else if (n > 0) {
            size_t m = mev_least(live, n);
            struct event e;
            cr_assert(eq_pop(&q, &e));
            cr_assert(e.t == live[m].t && e.seq == live[m].seq && e.key == live[m].key,
                      "step %d: popped (%g, %llu), model (%g, %llu)", step, e.t,
                      (unsigned long long)e.seq, live[m].t, (unsigned long long)live[m].seq);
            cr_assert_eq(e.kind == EV_ARRIVAL, live[m].stream, "step %d", step);
            streaming &= !live[m].stream;
            now = e.t;
            live[m] = live[--n];
        }
        cr_assert_eq(eq_size(&q), n, "step %d", step);
    }
    gsl_rng_free(rng);
    eq_free(&q);
}

/* Keys over many pages of the key table, reserved in ranges that share pages: random
 * moves, cancels and pops against a model; a page is there only while one of its keys
 * has an event, and the queue works the same once its pages have gone. */
Test(eq, keyed_events_across_pages)
{
    enum { K1 = 3 * EQ_PAGE_KEYS + 5, K2 = 7, K3 = 2 * EQ_PAGE_KEYS, K = K1 + K2 + K3 };
    static double model[K];
    struct eq q;
    eq_init(&q);
    cr_assert_eq(eq_reserve_keys(&q, K1), 0);
    cr_assert_eq(eq_reserve_keys(&q, K2), K1);
    cr_assert_eq(eq_reserve_keys(&q, K3), K1 + K2);
    cr_assert_eq(q.npages, (K + EQ_PAGE_KEYS - 1) / EQ_PAGE_KEYS);
    cr_assert_null(q.page[0], "no page before its first event");
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 5);
    for (int round = 0; round < 3; round++) {
        for (int k = 0; k < K; k++)
            model[k] = -1;
        double now = 0;
        for (int step = 0; step < 20000; step++) {
            /* Keys near a point that walks through the table, as jobs start in order. */
            uint32_t k = (uint32_t)(((unsigned long)step / 4 + gsl_rng_uniform_int(rng, 300)) % K);
            unsigned long op = gsl_rng_uniform_int(rng, 4);
            if (op < 2) {
                double t = now + (double)gsl_rng_uniform_int(rng, 1000);
                eq_schedule(&q, k, t, EV_END, k, 0);
                model[k] = t;
            } else if (op < 3) {
                eq_cancel(&q, k);
                model[k] = -1;
            } else {
                struct event e;
                if (eq_pop(&q, &e)) {
                    cr_assert_eq(model[e.key], e.t, "key %u", e.key);
                    model[e.key] = -1;
                    now = e.t;
                }
            }
            for (size_t pg = 0; step % 997 == 0 && pg < q.npages; pg++) {
                uint32_t live = 0;
                for (uint32_t i = 0; i < EQ_PAGE_KEYS && pg * EQ_PAGE_KEYS + i < K; i++)
                    live += model[pg * EQ_PAGE_KEYS + i] >= 0;
                cr_assert_eq(q.page_live[pg], live, "page %zu", pg);
                cr_assert_eq(q.page[pg] != NULL, live > 0, "page %zu", pg);
            }
        }
        struct event e;
        double last = -1;
        while (eq_pop(&q, &e)) {
            cr_assert_geq(e.t, last);
            cr_assert_eq(model[e.key], e.t, "key %u", e.key);
            model[e.key] = -1;
            last = e.t;
        }
        for (size_t pg = 0; pg < q.npages; pg++)
            cr_assert_null(q.page[pg], "page %zu outlived its events", pg);
        cr_assert_leq(q.nspare, EQ_SPARE_PAGES);
    }
    gsl_rng_free(rng);
    eq_free(&q);
}

/* -0.0 equals +0.0, so it ties with it and falls to seq (the heap compares times by
 * their bit patterns, which would put -0.0 after every other time); it pops as +0.0. */
Test(eq, negative_zero_ties_with_zero)
{
    struct eq q;
    eq_init(&q);
    eq_push(&q, 0.0, EV_SAMPLE, 0, 0);
    eq_push(&q, -0.0, EV_ARRIVAL, 1, 0);
    eq_push(&q, 1.0, EV_END, 3, 0);
    eq_push(&q, 0.0, EV_ARRIVAL, 2, 0);
    struct event e;
    for (uint32_t i = 0; i < 4; i++) {
        cr_assert(eq_pop(&q, &e));
        cr_assert_eq(e.job, i, "pop %u: job %u", i, e.job);
        cr_assert_not(signbit(e.t));
    }
    eq_free(&q);
}

/* The queue orders times by their bit patterns (ev_key): that must hold from zero
 * through subnormals to the largest double, for pushed and keyed events alike, and a
 * keyed event moved from the largest time to zero and back to a time it ties with
 * orders after the events already there. */
Test(eq, extreme_times_pop_in_order)
{
    static const double t[] = {DBL_MAX, 1e300, 1.0, DBL_MIN, DBL_TRUE_MIN, 0.0, 1e-300,
                               nextafter(1.0, 2.0), 2.0 * DBL_TRUE_MIN, nextafter(DBL_MAX, 0)};
    enum { N = sizeof t / sizeof *t };
    struct mev live[2 * N + 1];
    size_t n = 0;
    struct eq q;
    eq_init(&q);
    cr_assert_eq(eq_reserve_keys(&q, N), 0);
    for (uint32_t i = 0; i < N; i++) {
        live[n++] = (struct mev){t[i], q.next_seq, EQ_NOKEY, i, false};
        eq_push(&q, t[i], EV_SAMPLE, i, 0);
        live[n++] = (struct mev){t[N - 1 - i], q.next_seq, i, N + i, false};
        eq_schedule(&q, i, t[N - 1 - i], EV_END, N + i, 0);
    }
    /* Key 0 moves from the largest time to zero and then to 1.0, where it ties with a
     * pushed and a keyed event and, its seq the newest, orders after both. */
    eq_schedule(&q, 0, 0.0, EV_END, 2 * N, 0);
    eq_schedule(&q, 0, 1.0, EV_END, 2 * N, 0);
    for (size_t i = 0; i < n; i++)
        if (live[i].key == 0)
            live[i] = (struct mev){1.0, q.next_seq - 1, 0, 2 * N, false};
    while (n > 0) {
        size_t m = mev_least(live, n);
        struct event e;
        cr_assert(eq_pop(&q, &e));
        cr_assert(e.t == live[m].t && e.seq == live[m].seq && e.job == live[m].job,
                  "popped (%a, %llu) job %u, model (%a, %llu) job %u", e.t,
                  (unsigned long long)e.seq, e.job, live[m].t, (unsigned long long)live[m].seq,
                  live[m].job);
        live[m] = live[--n];
    }
    cr_assert_eq(eq_size(&q), 0);
    eq_free(&q);
}

/* A time that is not finite and >= 0 is a broken invariant: the queue aborts. */
static void push_time(double t)
{
    struct eq q;
    eq_init(&q);
    eq_push(&q, t, EV_SAMPLE, 0, 0);
    eq_free(&q);
}

Test(eq, rejects_nan, .signal = SIGABRT) { push_time(NAN); }
Test(eq, rejects_infinity, .signal = SIGABRT) { push_time(INFINITY); }
Test(eq, rejects_a_negative_time, .signal = SIGABRT) { push_time(-DBL_TRUE_MIN); }

/* A heap thousands deep, through its growths, with keys over several pages: pushes,
 * moves (earlier and later), cancels and pops against a brute-force list of the live
 * events, each pop the least (t, seq), ties included. Now and then each heap's own
 * invariants: heap order, keyed events in the keyed heap only and each one's recorded
 * position, the sentinels past the last event, and the children of an event in one
 * aligned 128-byte block. */
Test(eq, deep_heap_exact_order_against_model)
{
    enum { K = 3 * EQ_PAGE_KEYS + 100, MAX = 6000 };
    static struct mev live[MAX];
    static int32_t at_of[K]; /* the key's entry in live, or -1 */
    size_t n = 0;
    struct eq q;
    eq_init(&q);
    cr_assert_eq(eq_reserve_keys(&q, K), 0);
    for (int k = 0; k < K; k++)
        at_of[k] = -1;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 13);
    double now = 0;
    for (int step = 0; step < 60000; step++) {
        /* Fill to thousands, then hold, then mostly pop. */
        unsigned long roll = gsl_rng_uniform_int(rng, 100);
        int phase = step < 20000 ? 0 : step < 40000 ? 1 : 2;
        unsigned long pop_below = phase == 0 ? 20 : phase == 1 ? 45 : 90;
        double t = now + 0.5 * (double)gsl_rng_uniform_int(rng, 40); /* many ties */
        if (roll < pop_below) {
            if (n == 0)
                continue;
            size_t m = mev_least(live, n);
            struct event e;
            cr_assert(eq_pop(&q, &e));
            cr_assert(e.t == live[m].t && e.seq == live[m].seq && e.key == live[m].key &&
                          e.job == live[m].job,
                      "step %d: popped (%g, %llu), model (%g, %llu)", step, e.t,
                      (unsigned long long)e.seq, live[m].t, (unsigned long long)live[m].seq);
            now = e.t;
            if (live[m].key != EQ_NOKEY)
                at_of[live[m].key] = -1;
            live[m] = live[--n];
            if (m < n && live[m].key != EQ_NOKEY)
                at_of[live[m].key] = (int32_t)m;
        } else if (roll < pop_below + (100 - pop_below) / 3) {
            if (n == MAX)
                continue;
            uint32_t job = (uint32_t)step;
            live[n++] = (struct mev){t, q.next_seq, EQ_NOKEY, job, false};
            eq_push(&q, t, EV_SAMPLE, job, 0);
        } else {
            uint32_t k = (uint32_t)gsl_rng_uniform_int(rng, K);
            if (roll % 5 == 0) {
                eq_cancel(&q, k);
                if (at_of[k] >= 0) {
                    size_t m = (size_t)at_of[k];
                    at_of[k] = -1;
                    live[m] = live[--n];
                    if (m < n && live[m].key != EQ_NOKEY)
                        at_of[live[m].key] = (int32_t)m;
                }
                continue;
            }
            if (at_of[k] < 0) {
                if (n == MAX)
                    continue;
                at_of[k] = (int32_t)n++;
            }
            uint32_t job = (uint32_t)step;
            live[at_of[k]] = (struct mev){t, q.next_seq, k, job, false};
            eq_schedule(&q, k, t, EV_END, job, 0);
        }
        cr_assert_eq(eq_size(&q), n, "step %d", step);
        for (int keyed = 0; step % 499 == 0 && keyed < 2; keyed++) {
            const struct eq_heap *h = keyed ? &q.keyed : &q.pushed;
            for (size_t i = 1; i < h->n; i++) {
                const struct event *c = &h->ev[i], *p = &h->ev[(i - 1) / 4];
                cr_assert(p->t < c->t || (p->t == c->t && p->seq < c->seq), "step %d: heap order at %zu",
                          step, i);
            }
            for (size_t i = 0; i < h->n; i++) {
                uint32_t k = h->ev[i].key;
                cr_assert_eq(k != EQ_NOKEY, keyed, "step %d: an event in the wrong heap", step);
                if (keyed)
                    cr_assert_eq(q.page[k / EQ_PAGE_KEYS][k % EQ_PAGE_KEYS], i,
                                 "step %d: key %u's position", step, k);
            }
            for (size_t i = h->n; i < h->cap; i++)
                cr_assert(isinf(h->ev[i].t), "step %d: slot %zu past the last event", step, i);
            if (h->cap == 0)
                continue; /* never grown */
            cr_assert_eq((h->cap + 3) % 4, 0, "whole groups of children");
            cr_assert_eq((uintptr_t)&h->ev[1] % 128, 0, "children of the root in one block");
        }
    }
    for (struct event e; n > 0; n--) {
        size_t m = 0;
        for (size_t i = 1; i < n; i++)
            if (live[i].t < live[m].t || (live[i].t == live[m].t && live[i].seq < live[m].seq))
                m = i;
        cr_assert(eq_pop(&q, &e));
        cr_assert(e.t == live[m].t && e.seq == live[m].seq, "draining: popped (%g, %llu)", e.t,
                  (unsigned long long)e.seq);
        live[m] = live[n - 1];
    }
    cr_assert_eq(eq_size(&q), 0);
    gsl_rng_free(rng);
    eq_free(&q);
}
