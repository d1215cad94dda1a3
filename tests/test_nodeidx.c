/* The node index (sim/engine/nodeidx.h): a hand-checked case where a subtree's maxima
 * come from different nodes, then random clusters where every query, and every walk
 * over the fitting nodes one after the other, must give what a plain scan gives, and
 * random updates between queries (the index brings its maxima up to date at a query,
 * from the nodes set since the last). */
#include <criterion/criterion.h>
#include <gsl/gsl_rng.h>
#include <math.h>

#include "../sim/engine/nodeidx.h"

/* The first node >= from that a plain scan finds (the index's slack included). */
static uint32_t scan_first(const double *cpu, const double *mem, const uint32_t *idle, size_t n,
                           size_t from, double c, double m, uint32_t k)
{
    for (size_t i = from; i < n; i++)
        if (cpu[i] >= c - 1e-6 && mem[i] >= m - 1e-6 && idle[i] >= k)
            return (uint32_t)i;
    return UINT32_MAX;
}

Test(nodeidx, maxima_from_different_nodes)
{
    /* Node 0 has the CPU, node 1 the memory: their parent fits, neither does; node 3 does. */
    struct nodeidx ix;
    nodeidx_init(&ix, 5);
    nodeidx_set(&ix, 0, 8, 1, 0);
    nodeidx_set(&ix, 1, 1, 8, 0);
    nodeidx_set(&ix, 2, 2, 2, 0);
    nodeidx_set(&ix, 3, 8, 8, 1);
    nodeidx_set(&ix, 4, 8, 8, 0);
    cr_assert_eq(nodeidx_first(&ix, 0, 4, 4, 0), 3);
    cr_assert_eq(nodeidx_first(&ix, 4, 4, 4, 0), 4);
    cr_assert_eq(nodeidx_first(&ix, 0, 4, 4, 1), 3);
    cr_assert_eq(nodeidx_first(&ix, 4, 4, 4, 1), UINT32_MAX);
    cr_assert_eq(nodeidx_first(&ix, 5, 0, 0, 0), UINT32_MAX);
    cr_assert_eq(nodeidx_first(&ix, 1, 0, 0, 0), 1);
    nodeidx_free(&ix);
}

Test(nodeidx, idle_on_one_node_requests_on_another)
{
    /* Nodes 0-3 show 8 idle GPUs but no free CPU (filled since the scrape), nodes 4-6
     * free CPU but no idle GPU, node 7 both; 2 and 4 idle GPUs search level 2 and 3. */
    struct nodeidx ix;
    nodeidx_init(&ix, 8);
    for (size_t i = 0; i < 4; i++)
        nodeidx_set(&ix, i, 0, 100, 8);
    for (size_t i = 4; i < 7; i++)
        nodeidx_set(&ix, i, 64, 100, 0);
    nodeidx_set(&ix, 7, 4.5, 100, 3);
    cr_assert_eq(nodeidx_first(&ix, 0, 4, 24, 1), 7);
    cr_assert_eq(nodeidx_first(&ix, 0, 4, 24, 2), 7);
    cr_assert_eq(nodeidx_first(&ix, 0, 4, 24, 3), 7);
    cr_assert_eq(nodeidx_first(&ix, 0, 4, 24, 4), UINT32_MAX);
    cr_assert_eq(nodeidx_first(&ix, 0, 4.5 + 2e-6, 24, 1), UINT32_MAX); /* beyond the slack */
    cr_assert_eq(nodeidx_first(&ix, 0, 4.5 + 5e-7, 24, 1), 7);          /* within it */
    cr_assert_eq(nodeidx_first(&ix, 0, 0, 0, 8), 0);
    cr_assert_eq(nodeidx_first(&ix, 0, 8, 24, 0), 4);
    nodeidx_set(&ix, 2, 16, 100, 8); /* node 2 frees its requests */
    cr_assert_eq(nodeidx_first(&ix, 0, 4, 24, 8), 2);
    cr_assert_eq(nodeidx_first(&ix, 3, 4, 24, 2), 7);
    nodeidx_free(&ix);
}

Test(nodeidx, random_queries_and_walks_match_a_scan)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 17);
    for (size_t n = 1; n <= 70; n++) {
        double cpu[70], mem[70];
        uint32_t idle[70];
        struct nodeidx ix;
        /* Up to 2 idle GPUs on the small nodes, up to 12 on the larger ones, and
         * fractions of a core near the thresholds, to try every level and the floats'
         * rounding. */
        uint32_t max_idle = n <= 35 ? 2 : 12;
        nodeidx_init(&ix, n);
        for (size_t i = 0; i < n; i++) {
            cpu[i] = (double)gsl_rng_uniform_int(r, 5) + (n > 35 ? 1e-7 * (double)gsl_rng_uniform_int(r, 30) - 1.5e-6 : 0);
            mem[i] = (double)gsl_rng_uniform_int(r, 5);
            idle[i] = (uint32_t)gsl_rng_uniform_int(r, max_idle + 1);
            if (i % 2)
                nodeidx_set(&ix, i, cpu[i], mem[i], idle[i]);
            else
                nodeidx_set_leaf(&ix, i, cpu[i], mem[i], idle[i]);
        }
        nodeidx_rebuild(&ix);
        for (int q = 0; q < 50; q++) {
            double c = (double)gsl_rng_uniform_int(r, 5), m = (double)gsl_rng_uniform_int(r, 5);
            uint32_t k = (uint32_t)gsl_rng_uniform_int(r, max_idle + 2);
            size_t from = gsl_rng_uniform_int(r, n + 1);
            cr_assert_eq(nodeidx_first(&ix, from, c, m, k), scan_first(cpu, mem, idle, n, from, c, m, k));
            /* A walk: each next node from the one after the last. */
            size_t walked = 0, scanned = 0;
            for (uint32_t i = nodeidx_first(&ix, 0, c, m, k); i != UINT32_MAX;
                 i = nodeidx_first(&ix, (size_t)i + 1, c, m, k))
                walked++;
            for (uint32_t i = scan_first(cpu, mem, idle, n, 0, c, m, k); i != UINT32_MAX;
                 i = scan_first(cpu, mem, idle, n, (size_t)i + 1, c, m, k))
                scanned++;
            cr_assert_eq(walked, scanned);
        }
        nodeidx_free(&ix);
    }
    gsl_rng_free(r);
}

Test(nodeidx, updates_between_queries_match_a_scan)
{
    /* A few nodes set between two queries, often to the values they have or to values
     * that raise or lower a subtree's maxima, often siblings (their climbs meet): each
     * query must see them all. */
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 29);
    for (size_t n = 1; n <= 40; n += 3) {
        double cpu[40], mem[40];
        uint32_t idle[40];
        struct nodeidx ix;
        nodeidx_init(&ix, n);
        for (size_t i = 0; i < n; i++) {
            cpu[i] = mem[i] = 4;
            idle[i] = 2;
            nodeidx_set(&ix, i, cpu[i], mem[i], idle[i]);
        }
        for (int round = 0; round < 300; round++) {
            size_t sets = gsl_rng_uniform_int(r, 6);
            for (size_t u = 0; u < sets; u++) {
                size_t i = gsl_rng_uniform_int(r, n);
                if (gsl_rng_uniform_int(r, 2) && i + 1 < n)
                    i = (i | 1) - 1; /* the left one of a pair of siblings */
                cpu[i] = (double)gsl_rng_uniform_int(r, 5);
                mem[i] = (double)gsl_rng_uniform_int(r, 5);
                idle[i] = (uint32_t)gsl_rng_uniform_int(r, 10);
                nodeidx_set(&ix, i, cpu[i], mem[i], idle[i]);
                if (i + 1 < n && gsl_rng_uniform_int(r, 2)) { /* and its right neighbour */
                    cpu[i + 1] = (double)gsl_rng_uniform_int(r, 5);
                    idle[i + 1] = (uint32_t)gsl_rng_uniform_int(r, 10);
                    nodeidx_set(&ix, i + 1, cpu[i + 1], mem[i + 1], idle[i + 1]);
                }
            }
            double c = (double)gsl_rng_uniform_int(r, 5), m = (double)gsl_rng_uniform_int(r, 5);
            uint32_t k = (uint32_t)gsl_rng_uniform_int(r, 11);
            size_t from = gsl_rng_uniform_int(r, n + 1);
            cr_assert_eq(nodeidx_first(&ix, from, c, m, k), scan_first(cpu, mem, idle, n, from, c, m, k),
                         "n %zu round %d", n, round);
        }
        nodeidx_free(&ix);
    }
    gsl_rng_free(r);
}

Test(nodeidx, searches_that_ask_as_much_again_match_a_scan)
{
    /* A search that asks at least what the last one asked, from as far or further,
     * starts at the last one's answer (nodeidx.c), or at a node before it that grew
     * since: queries that mostly ask as much again or more, as fifo's do after a
     * placement, between sets that mostly take from a node (as a placement does) and
     * sometimes give to one before or after the last answer (an end, a scrape), from 0
     * or a little further, and walks on from an answer. */
    double cpu[70], mem[70];
    uint32_t idle[70];
    struct nodeidx ix;
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 37);
    for (size_t n = 1; n <= 70; n += 7) {
        for (size_t i = 0; i < n; i++) {
            cpu[i] = (double)gsl_rng_uniform_int(r, 9);
            mem[i] = (double)gsl_rng_uniform_int(r, 9);
            idle[i] = (uint32_t)gsl_rng_uniform_int(r, 9);
        }
        nodeidx_init(&ix, n);
        for (size_t i = 0; i < n; i++)
            nodeidx_set(&ix, i, cpu[i], mem[i], idle[i]);
        double c = 1, m = 1;
        uint32_t k = 1, last = UINT32_MAX;
        for (int round = 0; round < 1500; round++) {
            for (size_t u = 0, sets = gsl_rng_uniform_int(r, 3); u < sets; u++) {
                /* Mostly the last answer or a node near it; a take or a give. */
                size_t i = last != UINT32_MAX && gsl_rng_uniform_int(r, 2)
                               ? last : gsl_rng_uniform_int(r, n);
                double d = gsl_rng_uniform_int(r, 4) ? -1.0 : 2.0;
                cpu[i] += d * (double)gsl_rng_uniform_int(r, 2);
                mem[i] += d * (double)gsl_rng_uniform_int(r, 2);
                if (d > 0 || idle[i] > 0)
                    idle[i] = (uint32_t)((int)idle[i] + (int)d * (int)gsl_rng_uniform_int(r, 2));
                nodeidx_set(&ix, i, cpu[i], mem[i], idle[i]);
            }
            switch (gsl_rng_uniform_int(r, 6)) { /* mostly as much or more */
            case 0: /* anything */
                c = (double)gsl_rng_uniform_int(r, 9);
                m = (double)gsl_rng_uniform_int(r, 9);
                k = (uint32_t)gsl_rng_uniform_int(r, 9);
                break;
            case 1:
                c += 1;
                break;
            case 2:
                k += (uint32_t)gsl_rng_uniform_int(r, 2);
                m += 0.5;
                break;
            default:
                break;
            }
            size_t from = gsl_rng_uniform_int(r, 4) ? 0 : gsl_rng_uniform_int(r, n + 1);
            last = nodeidx_first(&ix, from, c, m, k);
            cr_assert_eq(last, scan_first(cpu, mem, idle, n, from, c, m, k), "n %zu round %d", n,
                         round);
            if (last != UINT32_MAX && gsl_rng_uniform_int(r, 3) == 0) { /* the next one */
                uint32_t next = nodeidx_first(&ix, last + 1, c, m, k);
                cr_assert_eq(next, scan_first(cpu, mem, idle, n, last + 1, c, m, k),
                             "n %zu round %d", n, round);
            }
        }
        nodeidx_free(&ix);
    }
    gsl_rng_free(r);
}

Test(nodeidx, values_of_any_sign_and_magnitude_match_a_scan)
{
    /* The maxima are 16-bit keys of the values rounded up (nodeidx.c): values and
     * thresholds that share a key, lie just past a float or a key's bound, are
     * negative (a refused node's CPU is -1), -0, beyond a float's range or infinite,
     * and idle counts past a key's range, must all prune as the exact values would:
     * every value against every threshold, then random updates between queries. */
    static const double v[] = {-INFINITY, -1e39, -1e30, -1, -1e-7, -0.0, 0, 1e-45, 1e-7,
                               0.5, 1, 1 + 1e-9, 1 + 1e-7, 1.00390625, 1.0078125, 255.5, 256,
                               256 + 1e-7, 256.5, 257, 1e6, 1e6 + 0.5, 1e6 + 1, 3.4e38, 1e39,
                               INFINITY};
    enum { NV = sizeof v / sizeof v[0] };
    static const uint32_t idles[] = {0, 1, 2, 7, 8, 16, 32767, 32768, 40000, UINT32_MAX};
    enum { NI = sizeof idles / sizeof idles[0] };
    double cpu[NV], mem[NV];
    uint32_t idle[NV];
    struct nodeidx ix;
    nodeidx_init(&ix, NV);
    for (size_t i = 0; i < NV; i++) {
        cpu[i] = v[i];
        mem[i] = v[NV - 1 - i];
        idle[i] = idles[i % NI];
        nodeidx_set(&ix, i, cpu[i], mem[i], idle[i]);
    }
    /* Thresholds at the values, and a little past them either way: the index takes
     * its slack (1e-6) off, so v + 1e-6 asks for v itself. */
    for (size_t a = 0; a < NV; a++)
        for (int off = -2; off <= 2; off++)
            for (size_t b = 0; b < NV; b += 5)
                for (size_t k = 0; k < NI; k++) {
                    double c = v[a] + 1e-6 * off, m = v[b] + 1e-6 * off;
                    cr_assert_eq(nodeidx_first(&ix, 0, c, m, idles[k]),
                                 scan_first(cpu, mem, idle, NV, 0, c, m, idles[k]),
                                 "cpu %g mem %g idle %u", c, m, idles[k]);
                    cr_assert_eq(nodeidx_first(&ix, 0, m, c, idles[k]),
                                 scan_first(cpu, mem, idle, NV, 0, m, c, idles[k]),
                                 "cpu %g mem %g idle %u", m, c, idles[k]);
                }
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 31);
    for (int round = 0; round < 2000; round++) {
        for (size_t u = 0, sets = gsl_rng_uniform_int(r, 4); u < sets; u++) {
            size_t i = gsl_rng_uniform_int(r, NV);
            cpu[i] = v[gsl_rng_uniform_int(r, NV)];
            mem[i] = v[gsl_rng_uniform_int(r, NV)];
            idle[i] = idles[gsl_rng_uniform_int(r, NI)];
            nodeidx_set(&ix, i, cpu[i], mem[i], idle[i]);
        }
        double c = v[gsl_rng_uniform_int(r, NV)] + 1e-6 * ((double)gsl_rng_uniform_int(r, 5) - 2);
        double m = v[gsl_rng_uniform_int(r, NV)] + 1e-6 * ((double)gsl_rng_uniform_int(r, 5) - 2);
        uint32_t k = idles[gsl_rng_uniform_int(r, NI)];
        size_t from = gsl_rng_uniform_int(r, NV + 1);
        cr_assert_eq(nodeidx_first(&ix, from, c, m, k), scan_first(cpu, mem, idle, NV, from, c, m, k),
                     "round %d", round);
    }
    gsl_rng_free(r);
    nodeidx_free(&ix);
}
