/* cpn_fmt_fixed and cpn_fmt_u64, the number formatting behind jobs.csv: the text must be
 * printf's to the byte, or outputs would change with the formatter. */
#include <criterion/criterion.h>
#include <errno.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/util.h"

static void same_as_printf(double v, int d)
{
    char want[CPN_FIXED_BUF], got[CPN_FIXED_BUF];
    snprintf(want, sizeof want, "%.*f", d, v);
    size_t n = cpn_fmt_fixed(got, v, d);
    cr_assert_str_eq(got, want, "%%.%df of %.17g", d, v);
    cr_assert_eq(n, strlen(want));
}

Test(fmt, hand_picked_values_match_printf)
{
    /* Exact ties (round half to even on the binary value), values just beside them,
     * negative zero and negatives that round to zero, and the limits of the fast path. */
    const double v[] = {0,       -0.0,     0.5,       1.5,        2.5,          0.0625,
                        0.0005,  0.0015,   1.0005,    2434.2755,  -0.0004,      -1e-9,
                        999.9995, 1e12,    1099511627.775, 1099511627776.0 / 1000,
                        123456789.123456, 4.35e15, 1e300, -1e300, 5e-324, INFINITY,
                        -INFINITY, NAN,    0.1,       0.7,        1.0 / 3,      2.0 / 3};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        for (int d = 0; d <= 9; d++)
            same_as_printf(v[i], d);
}

Test(fmt, random_values_match_printf)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 17);
    for (int i = 0; i < 200000; i++) {
        /* Magnitudes from 1e-6 to 1e13, and times on a millisecond grid plus noise,
         * where ties and near-ties are common. */
        double mag = pow(10, -6 + 19 * gsl_rng_uniform(r));
        double v = (gsl_rng_uniform(r) - 0.25) * mag;
        if (i % 3 == 0)
            v = floor(v * 2000) / 2000 + (gsl_rng_uniform(r) - 0.5) * 1e-12;
        same_as_printf(v, (int)gsl_rng_uniform_int(r, 10));
    }
    gsl_rng_free(r);
}

Test(fmt, whole_numbers_in_decimal)
{
    char b[24];
    cr_assert_eq(cpn_fmt_u64(b, 0), 1);
    cr_assert_str_eq(b, "0");
    cpn_fmt_u64(b, 4294967295u);
    cr_assert_str_eq(b, "4294967295");
    cr_assert_eq(cpn_fmt_u64(b, UINT64_MAX), 20);
    cr_assert_str_eq(b, "18446744073709551615");
    /* Each side of every power of ten and of two, where the count of digits changes. */
    char want[24];
    uint64_t pow10 = 1;
    for (int i = 0; i < 64; i++) {
        uint64_t at[] = {UINT64_C(1) << i, pow10};
        for (int k = 0; k < (i < 20 ? 2 : 1); k++)
            for (int d = -1; d <= 1; d++) {
                uint64_t v = at[k] + (uint64_t)d;
                snprintf(want, sizeof want, "%llu", (unsigned long long)v);
                cr_assert_eq(cpn_fmt_u64(b, v), strlen(want), "%s", want);
                cr_assert_str_eq(b, want);
            }
        if (i < 19)
            pow10 *= 10;
    }
}

Test(fmt, sorting_doubles_matches_gsl_sort)
{
    /* Above and below the radix sort's threshold, with negatives, zeros of both signs,
     * repeats and infinities. */
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 5);
    const size_t sizes[] = {0, 1, 7, 1000, 200000};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t n = sizes[s];
        double *a = malloc((n + 1) * sizeof *a), *b = malloc((n + 1) * sizeof *b);
        for (size_t i = 0; i < n; i++) {
            double u = gsl_rng_uniform(r);
            a[i] = i % 11 == 0 ? 0.0 : i % 13 == 0 ? 1e6 : i % 17 == 0 ? -INFINITY
                 : i % 19 == 0 ? INFINITY : (u - 0.3) * pow(10, (double)(i % 9) - 3);
            b[i] = a[i];
        }
        /* Every other size with the caller's scratch, which the sort may overwrite. */
        double *tmp = s % 2 == 0 ? malloc((n + 1) * sizeof *tmp) : NULL;
        cpn_sort_doubles(a, n, tmp);
        gsl_sort(b, 1, n);
        for (size_t i = 0; i < n; i++)
            cr_assert(a[i] == b[i], "n %zu, element %zu: %g against %g", n, i, a[i], b[i]);
        free(tmp);
        free(a);
        free(b);
    }
    gsl_rng_free(r);
}

/* Two runs sorted apart and merged are, to the bit, the run of all of them sorted
 * together: a summary merges the completed jobs' sorted times with the others'. Parts of
 * every size on both sides of the radix threshold, with repeats, zeros, negatives and
 * infinities (no NaN, zeros of one sign: the merge's terms). */
Test(fmt, merging_sorted_runs_is_sorting_them_together)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 11);
    const size_t sizes[][2] = {{0, 0}, {0, 5}, {5, 0}, {1, 1}, {300, 7}, {7, 300},
                               {20000, 1}, {1, 20000}, {20000, 3000}, {9000, 9000}};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        size_t na = sizes[s][0], nb = sizes[s][1], n = na + nb;
        double *all = malloc((n + 1) * sizeof *all), *out = malloc((n + 1) * sizeof *out);
        for (size_t i = 0; i < n; i++) {
            double u = gsl_rng_uniform(r);
            all[i] = i % 7 == 0 ? 0.0 : i % 11 == 0 ? (double)(i % 5) : i % 23 == 0 ? INFINITY
                   : i % 29 == 0 ? -INFINITY : (u - 0.2) * pow(10, (double)(i % 9) - 3);
        }
        double *a = malloc((na + 1) * sizeof *a), *b = malloc((nb + 1) * sizeof *b);
        memcpy(a, all, na * sizeof *a);
        memcpy(b, all + na, nb * sizeof *b);
        cpn_sort_doubles(a, na, NULL);
        cpn_sort_doubles(b, nb, NULL);
        cpn_merge_doubles(a, na, b, nb, out);
        cpn_sort_doubles(all, n, NULL);
        cr_assert(memcmp(out, all, n * sizeof *out) == 0, "parts of %zu and %zu", na, nb);
        free(a);
        free(b);
        free(all);
        free(out);
    }
    gsl_rng_free(r);
}

/* The median of a copy sorted by cpn_sort_doubles, as the summary took it before it
 * selected. */
static double sorted_median(const double *v, size_t n)
{
    double *c = malloc((n + 1) * sizeof *c);
    memcpy(c, v, n * sizeof *c);
    cpn_sort_doubles(c, n, NULL);
    double m = n == 0 ? 0.0 : (c[(n - 1) / 2] + c[n / 2]) / 2.0;
    free(c);
    return m;
}

Test(fmt, median_by_selection_is_the_sorted_median)
{
    /* Odd and even counts, both sides of the radix threshold; repeats, few distinct
     * values, sorted and reversed input, zeros of both signs, infinities and NaN. */
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, 9);
    const size_t sizes[] = {0, 1, 2, 3, 4, 5, 8, 101, 1000, 5001, 20000, 65537};
    for (unsigned shape = 0; shape < 6; shape++)
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
            size_t n = sizes[s];
            double *a = malloc((n + 1) * sizeof *a);
            for (size_t i = 0; i < n; i++) {
                double u = gsl_rng_uniform(r);
                switch (shape) {
                case 0: a[i] = (u - 0.3) * pow(10, (double)(i % 9) - 3); break;
                case 1: a[i] = (double)gsl_rng_uniform_int(r, 3); break; /* many repeats */
                case 2: a[i] = (double)i; break;                         /* sorted */
                case 3: a[i] = -(double)i; break;                        /* reversed */
                case 4: a[i] = i % 2 ? -0.0 : i % 3 ? 0.0 : i % 5 ? -INFINITY : u; break;
                default: a[i] = i % 7 == 3 ? NAN : u; break;
                }
            }
            double want = sorted_median(a, n), got = cpn_median_doubles(a, n);
            cr_assert(memcmp(&got, &want, sizeof got) == 0 || (isnan(got) && isnan(want)),
                      "shape %u, n %zu: %.17g against %.17g", shape, n, got, want);
            free(a);
        }
    gsl_rng_free(r);
}

/* cpn_parse_double reads job files: its value must be strtod's to the bit (its fast
 * path is exact only within Clinger's bounds), and it takes decimal notation only. */
static void parses_as_strtod(const char *s)
{
    double got = 12345, want = strtod(s, NULL);
    cr_assert_eq(cpn_parse_double(s, &got), 0, "'%s' refused", s);
    cr_assert(memcmp(&got, &want, sizeof got) == 0, "'%s': %.17g, strtod %.17g", s, got, want);
}

Test(parse, decimal_text_gives_strtods_bits)
{
    const char *hand[] = {"0", "-0", "+0", "0.0", "5.", ".5", "007", "0.005", "1e22",
                          "1e23", "9007199254740992", "9007199254740993", "1.7976931348623157e308",
                          "2.2250738585072014e-308", "0.1", "0.7", "123456.789e-3",
                          "0.6949114287336605", "1234567890123456789012", "1e-22", "1e-23",
                          "0.00000000000000000000000000001", "3.14159265358979323846264338327950288",
                          "1E5", "1e+5", "-2.5e-3"};
    for (size_t i = 0; i < sizeof hand / sizeof hand[0]; i++)
        parses_as_strtod(hand[i]);
    /* Random numbers written as jobs.csv, gen and the importers write them, and with
     * random digit counts and exponents. */
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    char buf[64];
    for (int i = 0; i < 200000; i++) {
        double v = gsl_rng_uniform(r) * pow(10, (int)gsl_rng_uniform_int(r, 40) - 20);
        switch (i % 4) {
        case 0: snprintf(buf, sizeof buf, "%.17g", v); break;
        case 1: snprintf(buf, sizeof buf, "%.*f", (int)gsl_rng_uniform_int(r, 12), v); break;
        case 2: snprintf(buf, sizeof buf, "%.*e", (int)gsl_rng_uniform_int(r, 20), -v); break;
        default:
            snprintf(buf, sizeof buf, "%lu.%lue%d", gsl_rng_get(r), gsl_rng_get(r) % 1000,
                     (int)gsl_rng_uniform_int(r, 60) - 30);
        }
        parses_as_strtod(buf);
    }
    gsl_rng_free(r);
}

Test(parse, only_decimal_notation)
{
    const char *bad[] = {"0x10", "0x1p4", "inf", "-infinity", "nan", " 1", "1 ", "", "-", ".",
                         "e5", "1e", "1e+", "1.2.3", "1e400", "-1e400", "1e-400", "1,5", "--1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        double x = 7;
        cr_assert_neq(cpn_parse_double(bad[i], &x), 0, "'%s' accepted", bad[i]);
        cr_assert_eq(x, 7);
    }
}

/* strtoull's verdict on s, as cpn_parse_u64 gave it before it parsed the digits itself:
 * a digit first, all of s taken, no overflow. */
static int strtoull_verdict(const char *s, uint64_t *out)
{
    if (*s < '0' || *s > '9')
        return CPN_EINPUT;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno == ERANGE)
        return CPN_EINPUT;
    *out = v;
    return CPN_OK;
}

static void parses_as_strtoull(const char *s)
{
    uint64_t want = 7, got = 7;
    int rc_want = strtoull_verdict(s, &want), rc_got = cpn_parse_u64(s, &got);
    cr_assert_eq(rc_got, rc_want, "'%s': %d, strtoull %d", s, rc_got, rc_want);
    cr_assert_eq(got, want, "'%s': %llu, strtoull %llu", s, (unsigned long long)got,
                 (unsigned long long)want);
}

Test(parse, whole_numbers_as_strtoull_takes_them)
{
    const char *hand[] = {"0", "007", "18446744073709551615", "18446744073709551616",
                          "18446744073709551610", "18446744073709551619", "99999999999999999999",
                          "", "-1", "+1", " 1", "1 ", "1.0", "1e3", "0x10", "12a"};
    for (size_t i = 0; i < sizeof hand / sizeof hand[0]; i++)
        parses_as_strtoull(hand[i]);
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    char buf[32];
    for (int i = 0; i < 100000; i++) {
        size_t n = 1 + gsl_rng_uniform_int(r, 22);
        for (size_t k = 0; k < n; k++)
            buf[k] = (char)('0' + gsl_rng_uniform_int(r, 10));
        if (i % 10 == 0) /* now and then a byte that is not a digit */
            buf[gsl_rng_uniform_int(r, n)] = " x-.+"[gsl_rng_uniform_int(r, 5)];
        buf[n] = '\0';
        parses_as_strtoull(buf);
    }
    gsl_rng_free(r);
}

/* Mantissas of 17 to 19 digits, which are parsed in long double when they are not
 * exact doubles: random values, and the 19-digit numbers nearest to the points halfway
 * between two doubles, where rounding twice could miss strtod's value by one unit. */
Test(parse, long_mantissas_give_strtods_bits)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    char buf[64];
    for (int i = 0; i < 300000; i++) {
        double v = (0.5 + gsl_rng_uniform(r)) * pow(10, (int)gsl_rng_uniform_int(r, 50) - 25);
        long double half = ((long double)v + (long double)nextafter(v, INFINITY)) / 2;
        switch (i % 4) {
        case 0: snprintf(buf, sizeof buf, "%.17g", v); break;
        case 1: snprintf(buf, sizeof buf, "%.18g", v); break;
        case 2: snprintf(buf, sizeof buf, "%.19Lg", half); break;
        default: snprintf(buf, sizeof buf, "%.19Le", half); break;
        }
        parses_as_strtod(buf);
    }
    gsl_rng_free(r);
}

/* A pair as the summary's prediction errors sorted them before: by time, then index. */
struct timed {
    double t;
    uint32_t i;
};

/* By time (-0 before +0), then by index. */
static int by_time_then_index(const void *a, const void *b)
{
    const struct timed *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    if (signbit(x->t) != signbit(y->t))
        return signbit(x->t) ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

/* cpn_sort_doubles_with is a stable sort by the doubles: the order of qsort by (value,
 * index), with many equal values, -0 and +0, negatives and spans of every size (so that
 * some bytes are the same in every key and their pass is skipped). */
Test(fmt, sorting_with_values_is_stable_and_orders_doubles)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    const size_t sizes[] = {0, 1, 2, 1000, 100000};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        for (int spread = 0; spread < 3; spread++) {
            size_t n = sizes[k];
            struct timed *want = malloc((n + 1) * sizeof *want);
            double *v = malloc((n + 1) * sizeof *v), *tmp = malloc((n + 1) * sizeof *tmp);
            uint32_t *val = malloc((n + 1) * sizeof *val), *vtmp = malloc((n + 1) * sizeof *vtmp);
            for (size_t i = 0; i < n; i++) {
                double t;
                switch (spread) {
                case 0: t = (double)gsl_rng_uniform_int(r, 50); break; /* ties */
                case 1: {
                    unsigned long z = gsl_rng_uniform_int(r, 4);
                    t = z == 0 ? -0.0 : z == 1 ? 0.0 : (gsl_rng_uniform(r) - 0.5) * 1e6;
                    break;
                }
                default: t = gsl_rng_uniform(r) * pow(10, (int)gsl_rng_uniform_int(r, 30)); break;
                }
                want[i] = (struct timed){t, (uint32_t)i};
                v[i] = t;
                val[i] = (uint32_t)i;
            }
            qsort(want, n, sizeof *want, by_time_then_index);
            /* With the caller's room, or (NULL) the sort's own for numbers or values. */
            cpn_sort_doubles_with(v, val, n, spread == 1 ? NULL : tmp, spread == 2 ? NULL : vtmp);
            for (size_t i = 0; i < n; i++) {
                cr_assert_eq(val[i], want[i].i, "n %zu, spread %d, at %zu", n, spread, i);
                cr_assert(memcmp(&v[i], &want[i].t, sizeof v[i]) == 0);
            }
            free(want);
            free(v);
            free(tmp);
            free(val);
            free(vtmp);
        }
    gsl_rng_free(r);
}
