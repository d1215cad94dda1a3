/* The event queue: (time, seq) order, ties in insertion order. */
#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>

#include "../sim/eq.h"

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
