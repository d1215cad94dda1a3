/* Tests of the profile catalogue: figures a user can check by hand against data/, and
 * every derivation rule on a tiny data set whose answers are worked out in comments. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/engine/catalog.h"
#include "../sim/base/util.h"

static bool close_to(double a, double b) { return fabs(a - b) <= 1e-9 * fmax(1.0, fabs(b)); }

#define ASSERT_CLOSE(a, b)                                                                  \
    cr_assert(close_to((a), (b)), "%s = %.12g, expected %.12g", #a, (double)(a), (double)(b))

static struct catalog *embedded(void)
{
    struct catalog *c = NULL;
    char err[CPN_ERR_LEN] = "";
    int rc = catalog_create(&c, err, sizeof err);
    cr_assert_eq(rc, CPN_OK, "catalog_create: %s", err);
    return c;
}

static struct profile lookup(const struct catalog *c, const char *model, unsigned batch,
                             int type, double speed, unsigned gpus)
{
    struct profile p;
    int m = catalog_model_find(c, model);
    cr_assert_geq(m, 0, "model %s", model);
    cr_assert_eq(catalog_lookup(c, m, batch, type, speed, gpus, &p), CPN_OK);
    return p;
}

/* ---- the embedded data, checked against the numbers in data/ ---- */

/* data/h100_profile.csv, resnet50 rows: step_ms at batch 32, 64 and 128, the batches
 * measured on H100 and on Gavel's types. */
static const double r50_h100_ms[] = {20.63, 37.45, 70.97};
/* data/gavel/simulation_throughputs.json: "null" of ('ResNet-50 (batch size B)', 1). */
static const double r50_thr[CAT_NTYPES][3] = {
    [CAT_V100] = {7.787264918596293, 4.394774823323071, 2.4967655780898292},
    [CAT_P100] = {4.888323684976709, 2.6194694075770055, 1.5843515911819712},
    [CAT_K80] = {1.236568777004088, 0.6190282202246573, 0.3472236920519382},
};

Test(catalog, embedded_models)
{
    struct catalog *c = embedded();
    /* 13 models of the H100 table and 6 Gavel-only ones. */
    cr_assert_eq(catalog_model_count(c), 19);
    int m = catalog_model_find(c, "resnet50");
    size_t n;
    const unsigned *b = catalog_model_batches(c, m, &n);
    static const unsigned want[] = {16, 32, 64, 128, 256};
    cr_assert_eq(n, 5);
    for (size_t i = 0; i < n; i++)
        cr_assert_eq(b[i], want[i]);
    cr_assert(catalog_model_on_h100(c, m));
    cr_assert_str_eq(catalog_model_family(c, m), "vision");
    ASSERT_CLOSE(catalog_model_params_m(c, m), 25.6);

    /* Gavel's ResNet-18 is CIFAR-10, another workload than the H100 table's resnet18. */
    int cifar = catalog_model_find(c, "resnet18_cifar");
    cr_assert_geq(cifar, 0);
    cr_assert_neq(cifar, catalog_model_find(c, "resnet18"));
    cr_assert_not(catalog_model_on_h100(c, cifar));
    ASSERT_CLOSE(catalog_model_params_m(c, cifar), 11.2);
    cr_assert_str_eq(catalog_model_family(c, catalog_model_find(c, "a3c")), "rl");
    cr_assert_str_eq(catalog_model_family(c, catalog_model_find(c, "recommendation")), "recsys");
    cr_assert_str_eq(catalog_model_name(c, cifar), "resnet18_cifar");
    catalog_destroy(c);
}

Test(catalog, unknown_model)
{
    struct catalog *c = embedded();
    cr_assert_eq(catalog_model_find(c, "no_such_model"), -1);
    cr_assert_eq(catalog_model_find(c, "ResNet-50"), -1); /* Gavel's name is not a model name */
    catalog_destroy(c);
}

Test(catalog, h100_measured)
{
    struct catalog *c = embedded();
    struct profile p = lookup(c, "resnet50", 64, CAT_H100, 1.0, 1);
    ASSERT_CLOSE(p.step_s, 0.03745);
    ASSERT_CLOSE(p.mem_gib, 10664.0 / 1024);
    cr_assert_not(p.derived);
    catalog_destroy(c);
}

Test(catalog, v100_measured)
{
    struct catalog *c = embedded();
    struct profile p = lookup(c, "resnet50", 64, CAT_V100, 1.0, 1);
    ASSERT_CLOSE(p.step_s, 1 / 4.394774823323071);
    /* Memory comes from the H100 table for every type. */
    ASSERT_CLOSE(p.mem_gib, 10664.0 / 1024);
    cr_assert_not(p.derived);
    catalog_destroy(c);
}

Test(catalog, speeds_are_geometric_means)
{
    struct catalog *c = embedded();
    ASSERT_CLOSE(catalog_type_speed(c, CAT_H100), 1.0);
    for (int t = CAT_V100; t < CAT_NTYPES; t++) {
        double sum = 0;
        for (size_t i = 0; i < 3; i++)
            sum += log((1 / r50_thr[t][i]) / (r50_h100_ms[i] / 1000));
        ASSERT_CLOSE(catalog_type_speed(c, t), exp(-sum / 3));
        cr_assert_gt(catalog_type_speed(c, t - 1), catalog_type_speed(c, t));
    }
    cr_assert_gt(catalog_type_speed(c, CAT_K80), 0);
    catalog_destroy(c);
}

Test(catalog, h100_model_on_v100_is_derived)
{
    struct catalog *c = embedded();
    /* resnet18 (ImageNet) is measured only on the H100: 14.46 ms at batch 64. */
    struct profile p = lookup(c, "resnet18", 64, CAT_V100, 1.0, 1);
    ASSERT_CLOSE(p.step_s, 0.01446 / catalog_type_speed(c, CAT_V100));
    ASSERT_CLOSE(p.mem_gib, 4200.0 / 1024);
    cr_assert(p.derived);
    catalog_destroy(c);
}

Test(catalog, interpolates_between_batches)
{
    struct catalog *c = embedded();
    struct profile p = lookup(c, "resnet50", 96, CAT_H100, 1.0, 1);
    ASSERT_CLOSE(p.step_s, (0.03745 + 0.07097) / 2);
    ASSERT_CLOSE(p.mem_gib, (10664.0 + 16564.0) / 2 / 1024);
    cr_assert(p.derived);
    catalog_destroy(c);
}

Test(catalog, uncatalogued_type_scales_h100)
{
    struct catalog *c = embedded();
    struct profile p = lookup(c, "resnet50", 64, -1, 0.5, 1);
    ASSERT_CLOSE(p.step_s, 2 * 0.03745);
    ASSERT_CLOSE(p.mem_gib, 10664.0 / 1024);
    cr_assert(p.derived);
    catalog_destroy(c);
}

Test(catalog, measured_multi_gpu_efficiency)
{
    struct catalog *c = embedded();
    /* ('ResNet-50 (batch size 64)', 2) on V100: 7.922054367597505 steps/s over 2 GPUs,
     * so eff = 7.922 / (2 x 4.3948) and the step on 2 GPUs is 2 / 7.922 s. */
    struct profile p = lookup(c, "resnet50", 64, CAT_V100, 1.0, 2);
    ASSERT_CLOSE(p.step_s, 2 / 7.922054367597505);
    cr_assert_not(p.derived);
    p = lookup(c, "resnet50", 64, CAT_V100, 1.0, 8);
    ASSERT_CLOSE(p.step_s, 8 / 17.303172756892167);
    cr_assert_not(p.derived);
    /* K80 at batch 128 on 2 GPUs is a measured zero (it cannot run so): a lookup still
     * answers, with the median (tests below). */
    p = lookup(c, "resnet50", 128, CAT_K80, 1.0, 2);
    cr_assert(p.derived);
    cr_assert_gt(p.step_s, 1 / 0.3472236920519382 / 2);
    catalog_destroy(c);
}

/* data/gavel/simulation_throughputs.json, k80: ('ResNet-50 (batch size 128)', 1) is
 * 0.3472236920519382 and ('ResNet-50 (batch size 128)', 2), 4 and 8 are 0.0, the table's
 * only zeros. A zero marks that exact GPU count as one the model cannot run on; it is no
 * training point, and a lookup there is derived. */
Test(catalog, measured_zero_means_cannot_run)
{
    struct catalog *c = embedded();
    int m = catalog_model_find(c, "resnet50");
    for (unsigned g = 2; g <= 8; g *= 2)
        cr_assert_not(catalog_runs_on(c, m, 128, CAT_K80, g), "resnet50 b128 on %u K80s", g);
    cr_assert(catalog_runs_on(c, m, 128, CAT_K80, 1));
    cr_assert(catalog_runs_on(c, m, 128, CAT_K80, 3), "3 GPUs: not in the table");
    cr_assert(catalog_runs_on(c, m, 128, CAT_V100, 2));
    cr_assert(catalog_runs_on(c, m, 128, CAT_H100, 2));
    cr_assert(catalog_runs_on(c, m, 128, -1, 2), "a type with no profile");
    cr_assert(catalog_runs_on(c, m, 64, CAT_K80, 2));
    cr_assert(catalog_runs_on(c, m, 256, CAT_K80, 2), "not measured is not a zero");
    size_t np = catalog_points(c, NULL, 0);
    struct catalog_point *pts = cpn_calloc(np, sizeof *pts);
    catalog_points(c, pts, np);
    bool one = false;
    for (size_t i = 0; i < np; i++) {
        cr_assert_gt(pts[i].step_s, 0);
        if (pts[i].model != m || pts[i].batch != 128 || pts[i].type != CAT_K80)
            continue;
        cr_assert_eq(pts[i].gpus, 1, "a zero listed as a point on %u GPUs", pts[i].gpus);
        ASSERT_CLOSE(pts[i].step_s, 1 / 0.3472236920519382);
        one = true;
    }
    cr_assert(one);
    struct profile p = lookup(c, "resnet50", 128, CAT_K80, 1.0, 4);
    cr_assert(p.derived && isfinite(p.step_s) && p.step_s > 0);
    free(pts);
    catalog_destroy(c);
}

Test(catalog, share_rate)
{
    struct catalog *c = embedded();
    /* The slowdown column of data/h100_colocate.csv. */
    double s[] = {2.184, 2.184, 1.644, 2.071, 2.232, 2.212,
                  2.148, 1.755, 2.172, 2.220, 2.018, 2.191};
    size_t n = sizeof s / sizeof s[0];
    for (size_t i = 1; i < n; i++) /* insertion sort */
        for (size_t j = i; j > 0 && s[j - 1] > s[j]; j--) {
            double t = s[j];
            s[j] = s[j - 1];
            s[j - 1] = t;
        }
    double eps = (s[n / 2 - 1] + s[n / 2]) / 2 / 2 - 1;
    ASSERT_CLOSE(catalog_share_overhead(c), eps);
    ASSERT_CLOSE(catalog_share_rate(c, 0), 1.0);
    ASSERT_CLOSE(catalog_share_rate(c, 1), 1.0);
    ASSERT_CLOSE(catalog_share_rate(c, 2), 1 / (2 * (1 + eps)));
    ASSERT_CLOSE(catalog_share_rate(c, 3), 1 / (3 * (1 + eps)));
    catalog_destroy(c);
}

Test(catalog, bad_lookups)
{
    struct catalog *c = embedded();
    int m = catalog_model_find(c, "resnet50");
    struct profile p = {.step_s = 42};
    cr_assert_eq(catalog_lookup(c, m, 0, CAT_H100, 1, 1, &p), CPN_EINPUT);
    cr_assert_eq(catalog_lookup(c, m, 64, CAT_H100, 1, 0, &p), CPN_EINPUT);
    cr_assert_eq(catalog_lookup(c, -1, 64, CAT_H100, 1, 1, &p), CPN_EINPUT);
    cr_assert_eq(catalog_lookup(c, (int)catalog_model_count(c), 64, CAT_H100, 1, 1, &p),
                 CPN_EINPUT);
    cr_assert_eq(catalog_lookup(c, m, 64, CAT_NTYPES, 1, 1, &p), CPN_EINPUT);
    cr_assert_eq(catalog_lookup(c, m, 64, -2, 1, 1, &p), CPN_EINPUT);
    cr_assert_eq(catalog_lookup(c, m, 64, -1, 0, 1, &p), CPN_EINPUT);
    cr_assert_eq(catalog_lookup(c, m, 64, -1, -1, 1, &p), CPN_EINPUT);
    cr_assert_eq(p.step_s, 42); /* untouched */
    catalog_destroy(c);
}

Test(catalog, type_match)
{
    cr_assert_eq(catalog_type_match("H100-80G"), CAT_H100);
    cr_assert_eq(catalog_type_match("v100"), CAT_V100);
    cr_assert_eq(catalog_type_match("P100-16G"), CAT_P100);
    cr_assert_eq(catalog_type_match("K80"), CAT_K80);
    cr_assert_eq(catalog_type_match("A100-40G"), -1);
    cr_assert_eq(catalog_type_match("h10"), -1);
    cr_assert_eq(catalog_type_match(""), -1);
    cr_assert_eq(catalog_type_match(NULL), -1);
    cr_assert_str_eq(catalog_type_name(CAT_K80), "k80");
}

Test(catalog, bytes_per_sample)
{
    struct catalog *c = embedded();
    ASSERT_CLOSE(catalog_bytes_per_sample(c, catalog_model_find(c, "resnet50")), 110 * 1024.0);
    ASSERT_CLOSE(catalog_bytes_per_sample(c, catalog_model_find(c, "fasterrcnn_resnet50_fpn")),
                 160 * 1024.0);
    ASSERT_CLOSE(catalog_bytes_per_sample(c, catalog_model_find(c, "lstm_lm")), 4 * 1024.0);
    ASSERT_CLOSE(catalog_bytes_per_sample(c, catalog_model_find(c, "recommendation")), 64.0);
    catalog_destroy(c);
}

Test(catalog, every_lookup_is_finite)
{
    struct catalog *c = embedded();
    static const unsigned batches[] = {1, 3, 16, 100, 1000, 10000};
    static const unsigned gpus[] = {1, 2, 3, 4, 6, 8, 16};
    for (int m = 0; m < (int)catalog_model_count(c); m++)
        for (int t = -1; t < CAT_NTYPES; t++)
            for (size_t b = 0; b < sizeof batches / sizeof *batches; b++)
                for (size_t g = 0; g < sizeof gpus / sizeof *gpus; g++) {
                    struct profile p;
                    cr_assert_eq(catalog_lookup(c, m, batches[b], t, 0.3, gpus[g], &p), 0);
                    cr_assert(isfinite(p.step_s) && p.step_s > 0);
                    cr_assert(isfinite(p.mem_gib) && p.mem_gib > 0);
                }
    catalog_destroy(c);
}

/* ---- every rule on a tiny data set ---- */

/* H100: resnet50 10 ms / 20 ms and 2 / 4 GiB at batch 32 / 64; bert_base 40 ms, 1 GiB at 16. */
static const char tiny_profile[] = "model,family,batch,step_ms,peak_reserved_mib,params_m\n"
                                   "resnet50,vision,32,10,2048,25.6\n"
                                   "resnet50,vision,64,20,4096,25.6\n"
                                   "bert_base,nlp,16,40,1024,100\n";

/* resnet50 steps: V100 0.04 s / 0.08 s (4x H100: speed 0.25), P100 0.08 s at 32 (speed
 * 0.125), K80 0.2 s at 32 (speed 0.05). V100 at batch 64 on 2/4/8 GPUs: eff 0.8/0.6/0.5.
 * A3C is measured only on V100 (0.5 s). The unused section checks that skipping copes
 * with a brace in a string. */
static const char tiny_gavel[] =
    "{\n"
    "\"v100\": {\n"
    "  \"('ResNet-50 (batch size 32)', 1)\": {\"null\": 25.0},\n"
    "  \"('ResNet-50 (batch size 64)', 1)\": {\"null\": 12.5},\n"
    "  \"('ResNet-50 (batch size 64)', 2)\": {\"null\": 20.0},\n"
    "  \"('ResNet-50 (batch size 64)', 4)\": {\"null\": 30.0},\n"
    "  \"('ResNet-50 (batch size 64)', 8)\": {\"null\": 50.0},\n"
    "  \"('A3C', 1)\": {\"null\": 2.0, \"('A3C', 1)\": [1.0, 1.0]}\n"
    "},\n"
    "\"v100_unconsolidated\": {\"x\": [1, {\"y\": \"}\\\"]\"}]},\n"
    "\"p100\": {\"('ResNet-50 (batch size 32)', 1)\": {\"null\": 12.5}},\n"
    "\"k80\": {\"('ResNet-50 (batch size 32)', 1)\": {\"null\": 5.0},\n"
    "        \"('ResNet-50 (batch size 64)', 1)\": {\"null\": 0.0}}\n"
    "}\n";

/* Median slowdown 2.2: overhead 0.1. */
static const char tiny_colocate[] = "slowdown\n2.0\n2.4\n2.2\n";

static struct catalog *tiny(void)
{
    struct catalog *c = NULL;
    char err[CPN_ERR_LEN] = "";
    int rc = catalog_create_from(&c, tiny_profile, tiny_gavel, tiny_colocate, NULL, err,
                                 sizeof err);
    cr_assert_eq(rc, CPN_OK, "catalog_create_from: %s", err);
    return c;
}

Test(catalog, tiny_speeds_and_models)
{
    struct catalog *c = tiny();
    ASSERT_CLOSE(catalog_type_speed(c, CAT_V100), 0.25);
    ASSERT_CLOSE(catalog_type_speed(c, CAT_P100), 0.125);
    ASSERT_CLOSE(catalog_type_speed(c, CAT_K80), 0.05);
    cr_assert_eq(catalog_model_count(c), 3);
    int a3c = catalog_model_find(c, "a3c");
    size_t n;
    const unsigned *b = catalog_model_batches(c, a3c, &n);
    cr_assert_eq(n, 1);
    cr_assert_eq(b[0], 1); /* no "(batch size B)": batch 1 */
    ASSERT_CLOSE(catalog_share_overhead(c), 0.1);
    ASSERT_CLOSE(catalog_share_rate(c, 2), 1 / 2.2);
    catalog_destroy(c);
}

Test(catalog, tiny_closest_type)
{
    struct catalog *c = tiny();
    /* A3C: only V100 (0.5 s). V100 is closest to H100 and to K80 in log speed. */
    struct profile p = lookup(c, "a3c", 1, CAT_H100, 1, 1);
    ASSERT_CLOSE(p.step_s, 0.5 * 0.25);
    cr_assert(p.derived);
    ASSERT_CLOSE(lookup(c, "a3c", 1, CAT_K80, 1, 1).step_s, 0.5 * 0.25 / 0.05);
    /* resnet50 batch 64 on K80 (0.0 there: a zero, which no lookup uses; it may not run
     * there): V100 (0.08 s) beats H100 as the closer type. */
    ASSERT_CLOSE(lookup(c, "resnet50", 64, CAT_K80, 1, 1).step_s, 0.08 * 0.25 / 0.05);
    int r50 = catalog_model_find(c, "resnet50");
    cr_assert_not(catalog_runs_on(c, r50, 64, CAT_K80, 1));
    cr_assert(catalog_runs_on(c, r50, 64, CAT_K80, 2));
    cr_assert(catalog_runs_on(c, r50, 32, CAT_K80, 1));
    /* For P100, V100 (log ratio log 2) is closer than H100 (log 8). */
    ASSERT_CLOSE(lookup(c, "resnet50", 64, CAT_P100, 1, 1).step_s, 0.08 * 0.25 / 0.125);
    ASSERT_CLOSE(lookup(c, "resnet50", 32, CAT_K80, 1, 1).step_s, 0.2);
    cr_assert_not(lookup(c, "resnet50", 32, CAT_K80, 1, 1).derived);
    catalog_destroy(c);
}

Test(catalog, tiny_batches)
{
    struct catalog *c = tiny();
    /* K80: 0.2 s at 32 (measured), 0.4 s at 64 (derived): 0.3 s at 48. */
    struct profile p = lookup(c, "resnet50", 48, CAT_K80, 1, 1);
    ASSERT_CLOSE(p.step_s, 0.3);
    cr_assert(p.derived);
    /* Above the largest batch the step grows with the batch; below, it is the smallest's. */
    ASSERT_CLOSE(lookup(c, "resnet50", 128, CAT_V100, 1, 1).step_s, 0.08 * 2);
    ASSERT_CLOSE(lookup(c, "resnet50", 8, CAT_V100, 1, 1).step_s, 0.04);
    ASSERT_CLOSE(lookup(c, "a3c", 4, CAT_V100, 1, 1).step_s, 0.5 * 4);
    catalog_destroy(c);
}

Test(catalog, tiny_multi_gpu)
{
    struct catalog *c = tiny();
    /* Measured on V100: eff 0.6 on 4 GPUs. */
    struct profile p = lookup(c, "resnet50", 64, CAT_V100, 1, 4);
    ASSERT_CLOSE(p.step_s, 0.08 / 0.6);
    cr_assert_not(p.derived);
    /* H100 uses V100's medians (0.8, 0.6, 0.5 for 2, 4, 8), interpolated in log2(G). */
    ASSERT_CLOSE(lookup(c, "bert_base", 16, CAT_H100, 1, 2).step_s, 0.04 / 0.8);
    cr_assert(lookup(c, "bert_base", 16, CAT_H100, 1, 2).derived);
    ASSERT_CLOSE(lookup(c, "bert_base", 16, CAT_H100, 1, 3).step_s,
                 0.04 / (0.8 + (0.6 - 0.8) * (log2(3.0) - 1)));
    ASSERT_CLOSE(lookup(c, "bert_base", 16, CAT_H100, 1, 6).step_s,
                 0.04 / (0.6 + (0.5 - 0.6) * (log2(6.0) - 2)));
    ASSERT_CLOSE(lookup(c, "bert_base", 16, CAT_H100, 1, 16).step_s, 0.04 / 0.5);
    /* Type -1 too, after dividing by its speed. */
    ASSERT_CLOSE(lookup(c, "bert_base", 16, -1, 0.5, 2).step_s, 0.04 / 0.5 / 0.8);
    /* P100 has no multi-GPU figure: it falls back to V100's medians. */
    ASSERT_CLOSE(lookup(c, "bert_base", 16, CAT_P100, 1, 2).step_s, 0.04 / 0.125 / 0.8);
    /* A batch with no measured eff uses the median even on V100. */
    ASSERT_CLOSE(lookup(c, "resnet50", 32, CAT_V100, 1, 2).step_s, 0.04 / 0.8);
    catalog_destroy(c);
}

Test(catalog, tiny_memory)
{
    struct catalog *c = tiny();
    /* resnet50: 2 GiB at 32, 4 GiB at 64, for every type and GPU count. */
    ASSERT_CLOSE(lookup(c, "resnet50", 48, CAT_K80, 1, 8).mem_gib, 3.0);
    ASSERT_CLOSE(lookup(c, "resnet50", 128, CAT_H100, 1, 1).mem_gib, 8.0);
    ASSERT_CLOSE(lookup(c, "resnet50", 24, CAT_H100, 1, 1).mem_gib, 1.5);
    /* Below the smallest: the line through (32, 2) and (64, 4) gives 0.5 GiB at 8, but
     * memory stays at least half of mem(32). */
    ASSERT_CLOSE(lookup(c, "resnet50", 8, CAT_H100, 1, 1).mem_gib, 1.0);
    /* A single measured batch scales in proportion. */
    ASSERT_CLOSE(lookup(c, "bert_base", 32, CAT_H100, 1, 1).mem_gib, 2.0);
    /* A measured batch has its measured memory on any type, though the step is derived. */
    ASSERT_CLOSE(lookup(c, "bert_base", 16, CAT_V100, 1, 1).mem_gib, 1.0);
    /* Gavel-only: the three rows fit exactly log(mem) = log(batch / 16), so a3c at batch
     * 1 gets 1/16 GiB and at batch 4 1/4 GiB, derived. */
    struct profile p = lookup(c, "a3c", 1, CAT_V100, 1, 1);
    cr_assert(fabs(p.mem_gib - 1.0 / 16) < 1e-9);
    cr_assert(p.derived);
    cr_assert(fabs(lookup(c, "a3c", 4, CAT_V100, 1, 1).mem_gib - 0.25) < 1e-9);
    catalog_destroy(c);
}

/* ---- malformed data: CPN_EINPUT naming file, line and column ---- */

static void expect_error(const char *profile, const char *gavel, const char *colocate,
                         const char *want)
{
    struct catalog *c = (struct catalog *)&c; /* any non-NULL value, to see it untouched */
    struct catalog *const before = c;
    char err[CPN_ERR_LEN] = "";
    int rc = catalog_create_from(&c, profile, gavel, colocate, NULL, err, sizeof err);
    cr_assert_eq(rc, CPN_EINPUT, "expected an error containing \"%s\"", want);
    cr_assert_eq(c, before, "*out changed on failure");
    cr_assert(strstr(err, want), "message \"%s\" lacks \"%s\"", err, want);
}

Test(catalog, bad_profile_number)
{
    expect_error("model,family,batch,step_ms,peak_reserved_mib,params_m\n"
                 "resnet50,vision,32,10,2048,25.6\n"
                 "resnet50,vision,64,fast,4096,25.6\n",
                 tiny_gavel, tiny_colocate,
                 "data/h100_profile.csv:3: step_ms: not a number: \"fast\"");
}

Test(catalog, bad_profile_other)
{
    expect_error("model,family,batch,step_ms,peak_reserved_mib\n"
                 "resnet50,vision,32,10,2048\n",
                 tiny_gavel, tiny_colocate, "data/h100_profile.csv:1: params_m: missing column");
    expect_error("model,family,batch,step_ms,peak_reserved_mib,params_m\n"
                 "resnet50,vision,32,10,2048,25.6\n"
                 "\n"
                 "resnet50,vision,32,11,2048,25.6\n",
                 tiny_gavel, tiny_colocate, "data/h100_profile.csv:4: batch: a second row");
    expect_error("model,family,batch,step_ms,peak_reserved_mib,params_m\n"
                 "resnet50,audio,32,10,2048,25.6\n",
                 tiny_gavel, tiny_colocate,
                 "data/h100_profile.csv:2: family: unknown family \"audio\" (known: vision, "
                 "detection, nlp, lm, recsys, gan, rl)");
    expect_error("model,family,batch,step_ms,peak_reserved_mib,params_m\n"
                 "resnet50,vision,32,10,2048\n",
                 tiny_gavel, tiny_colocate, "data/h100_profile.csv:2: row has 5 fields");
    expect_error("model,family,batch,step_ms,peak_reserved_mib,params_m\n"
                 "resnet50,vision,0,10,2048,25.6\n",
                 tiny_gavel, tiny_colocate, "data/h100_profile.csv:2: batch:");
    expect_error("model,family,batch,step_ms,peak_reserved_mib,params_m\n"
                 "resnet50,vision,32,-1,2048,25.6\n",
                 tiny_gavel, tiny_colocate, "data/h100_profile.csv:2: step_ms: must be > 0");
    expect_error("model,family,batch,step_ms,peak_reserved_mib,params_m\n"
                 "resnet50,vision,32,\"10,2048,25.6\n",
                 tiny_gavel, tiny_colocate, "data/h100_profile.csv:2: malformed CSV");
    expect_error("model,family,batch,step_ms,peak_reserved_mib,params_m\n"
                 "bert_base,nlp,16,40,1024,100\n",
                 tiny_gavel, tiny_colocate, "resnet50 (the reference model) is missing");
    expect_error("", tiny_gavel, tiny_colocate, "data/h100_profile.csv:1:");
}

Test(catalog, bad_gavel)
{
    /* A syntax error in a used section (line 3: a missing value). */
    expect_error(tiny_profile, "{\n\"v100\": {\n  \"('A3C', 1)\": {\"null\": }\n}}\n",
                 tiny_colocate, "data/gavel/simulation_throughputs.json:3: invalid JSON");
    expect_error(tiny_profile, "{\"v100\": {}} x", tiny_colocate,
                 "simulation_throughputs.json:1: invalid JSON: text after the object");
    expect_error(tiny_profile, "{\"v100\": {}, \"p100\": {}}", tiny_colocate,
                 "simulation_throughputs.json: k80: missing section");
    expect_error(tiny_profile,
                 "{\"v100\": {},\n \"p100\": {},\n \"k80\": {\n"
                 "  \"('ResNet-50 (batch size 32)', 1)\": {\"null\": \"fast\"}}}",
                 tiny_colocate,
                 "simulation_throughputs.json:4: k80 ('ResNet-50 (batch size 32)', 1): null:");
    expect_error(tiny_profile,
                 "{\"v100\": {\"('AlexNet (batch size 32)', 1)\": {\"null\": 1.0}},"
                 " \"p100\": {}, \"k80\": {}}",
                 tiny_colocate, "unknown model \"AlexNet\"");
    expect_error(tiny_profile,
                 "{\"v100\": {\"('ResNet-50 (batch size x)', 1)\": {\"null\": 1.0}},"
                 " \"p100\": {}, \"k80\": {}}",
                 tiny_colocate, "malformed key");
    /* A key given twice, once as a zero. */
    expect_error(tiny_profile,
                 "{\"v100\": {},\n \"p100\": {},\n \"k80\": {\n"
                 "  \"('ResNet-50 (batch size 32)', 1)\": {\"null\": 5.0},\n"
                 "  \"('ResNet-50 (batch size 32)', 1)\": {\"null\": 0.0}}}",
                 tiny_colocate,
                 "simulation_throughputs.json:4: k80 ('ResNet-50 (batch size 32)', 1): a second "
                 "entry for this key");
    /* No ResNet-50 on K80: no speed for it. */
    expect_error(tiny_profile,
                 "{\"v100\": {\"('ResNet-50 (batch size 32)', 1)\": {\"null\": 1.0}},"
                 " \"p100\": {\"('ResNet-50 (batch size 32)', 1)\": {\"null\": 1.0}}, "
                 "\"k80\": {}}",
                 tiny_colocate, "k80: no resnet50 batch measured on both k80 and h100");
}

Test(catalog, bad_colocate)
{
    expect_error(tiny_profile, tiny_gavel, "slowdown\n2.0\n0\n",
                 "data/h100_colocate.csv:3: slowdown: must be > 0");
    expect_error(tiny_profile, tiny_gavel, "slow\n2.0\n", "data/h100_colocate.csv:1: slowdown");
    expect_error(tiny_profile, tiny_gavel, "slowdown\n",
                 "data/h100_colocate.csv:1: no data rows");
}

/* A measured multi-GPU figure is used as measured, even above linear scaling: Gavel ran
 * ResNet-18 (CIFAR, batch 32) on 2 V100s at 1.57 times the single-GPU rate per GPU, so
 * a step of 2 GPUs takes the table's 2 / thr(2), not the capped 2 / (2 thr(1)). */
Test(catalog, measured_superlinear_scaling_is_kept)
{
    struct catalog *c = embedded();
    int m = catalog_model_find(c, "resnet18_cifar"), v100 = catalog_type_match("v100");
    size_t np = catalog_points(c, NULL, 0);
    struct catalog_point *pts = cpn_calloc(np, sizeof *pts);
    catalog_points(c, pts, np);
    double step1 = 0, step2 = 0;
    for (size_t i = 0; i < np; i++)
        if (pts[i].model == m && pts[i].batch == 32 && pts[i].type == v100)
        {
            if (pts[i].gpus == 1)
                step1 = pts[i].step_s;
            else if (pts[i].gpus == 2)
                step2 = pts[i].step_s;
        }
    cr_assert(step1 > 0 && step2 > 0);
    /* A point's step_s is G / thr(G), so eff = thr(2) / (2 thr(1)) = step1 / step2. */
    cr_assert_gt(step1 / step2, 1.5, "the measurement is superlinear");
    struct profile p;
    cr_assert_eq(catalog_lookup(c, m, 32, v100, catalog_type_speed(c, v100), 2, &p), 0);
    cr_assert_float_eq(p.step_s, step2, 1e-12 * step2);
    free(pts);
    catalog_destroy(c);
}
