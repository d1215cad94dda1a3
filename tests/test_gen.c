/* Tests of gen beyond tests/test_trace.c: job mixes from a JSON spec, the diurnal
 * arrival process, distributed jobs, and `cpnsim gen --spec`. Draw counts are large enough that every
 * tolerance below is several standard errors wide; the seeds are fixed, so the
 * tests are deterministic. */
#include "../sim/engine/catalog.h"
#include "../sim/io/gen.h"
#include "../sim/io/trace.h"
#include "../sim/base/util.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const origins3[] = {"bj", "sh", "gz"};

static struct catalog *load_catalog(void)
{
    struct catalog *cat = NULL;
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(catalog_create(&cat, err, sizeof err), CPN_OK, "%s", err);
    return cat;
}

static struct gen_mix *load_mix(const char *json, const struct catalog *cat)
{
    struct gen_mix *mix = NULL;
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(gen_mix_load_buf("mix.json", json, strlen(json), cat, &mix, err, sizeof err),
                 CPN_OK, "%s\n%s", err, json);
    return mix;
}

static char *csv_of(const struct jobset *js, const struct catalog *cat)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_eq(trace_write_csv(f, js, cat), CPN_OK);
    fclose(f);
    return buf;
}

static void gen_ok(const struct gen_spec *sp, const struct catalog *cat, struct jobset *js)
{
    char err[CPN_ERR_LEN] = "";
    jobset_init(js);
    cr_assert_eq(gen_jobs(sp, cat, js, err, sizeof err), CPN_OK, "%s", err);
}

/* A spec that restates every default gives the default queue byte for byte. */
Test(gen_mix, restating_the_defaults_changes_nothing)
{
    struct catalog *cat = load_catalog();
    char json[4096] = "{\"models\": {";
    for (size_t m = 0, first = 1; m < catalog_model_count(cat); m++) {
        size_t nb = 0;
        if (!catalog_model_on_h100(cat, (int)m) || !catalog_model_batches(cat, (int)m, &nb) || !nb)
            continue;
        snprintf(json + strlen(json), sizeof json - strlen(json), "%s\"%s\": 1", first ? "" : ", ",
                 catalog_model_name(cat, (int)m));
        first = 0;
    }
    strcat(json, "}, \"gpus\": {\"dist\": \"empirical\", \"values\": [1, 2, 4, 8], "
                 "\"weights\": [0.6, 0.2, 0.15, 0.05]}}");
    struct gen_mix *mix = load_mix(json, cat);
    struct gen_spec plain = {.count = 100, .seed = 1, .arrival = GEN_BATCH, .origins = origins3,
                             .n_origins = 3};
    struct gen_spec with = plain;
    gen_mix_apply(mix, &with);
    struct jobset a, b;
    gen_ok(&plain, cat, &a);
    gen_ok(&with, cat, &b);
    char *x = csv_of(&a, cat), *y = csv_of(&b, cat);
    cr_assert_str_eq(x, y);
    char *q100 = slurp("traces/q100.csv");
    cr_assert_not_null(q100);
    cr_assert_str_eq(x, q100, "the default mix is traces/q100.csv");
    cr_assert_str_eq(b.source, "<generated: 100 jobs, seed 1, batch, mix mix.json>");
    free(q100);
    free(x);
    free(y);
    jobset_free(&a);
    jobset_free(&b);
    gen_mix_destroy(mix);
    catalog_destroy(cat);
}

/* Arrivals per hour of the day follow the curve: hour h gets w[h] / sum(w) of them. */
Test(gen_mix, diurnal_rate_follows_the_curve)
{
    struct catalog *cat = load_catalog();
    const size_t n = 48000;
    double w[GEN_HOURS];
    for (int h = 0; h < GEN_HOURS; h++)
        w[h] = h < 6 ? 0 : (h < 12 ? 1 : 3); /* nights empty, afternoons three times busier */
    struct gen_spec sp = {.count = n, .seed = 11, .arrival = GEN_DIURNAL, .rate_per_s = 0.05,
                          .origins = origins3, .n_origins = 3, .hourly = w};
    struct jobset js;
    gen_ok(&sp, cat, &js);
    double per_hour[GEN_HOURS] = {0}, sum_w = 0, prev = 0;
    for (int h = 0; h < GEN_HOURS; h++)
        sum_w += w[h];
    for (size_t i = 0; i < n; i++) {
        double t = js.v[i].submit_s;
        cr_assert_geq(t, prev);
        prev = t;
        per_hour[(int)fmod(floor(t / 3600), GEN_HOURS)]++;
    }
    for (int h = 0; h < GEN_HOURS; h++) {
        double want = w[h] / sum_w, got = per_hour[h] / (double)n;
        /* Each share's standard error is below 0.0013; 0.006 is over 4 of them. */
        cr_assert(fabs(got - want) < 0.006, "hour %d: %.4f of arrivals, expected %.4f", h, got,
                  want);
    }
    /* The mean rate over whole days is rate_per_s. */
    double days = floor(prev / 86400);
    size_t in_days = 0;
    for (size_t i = 0; i < n && js.v[i].submit_s < days * 86400; i++)
        in_days++;
    double rate = (double)in_days / (days * 86400);
    cr_assert(fabs(rate - 0.05) < 0.05 * 0.03, "mean rate %g", rate);
    cr_assert_str_eq(js.source, "<generated: 48000 jobs, seed 11, diurnal:0.05>");
    jobset_free(&js);
    catalog_destroy(cat);
}

Test(gen_mix, default_diurnal_curve)
{
    struct catalog *cat = load_catalog();
    /* 5000 jobs at 0.01/s span about six days. */
    struct gen_spec sp = {.count = 5000, .seed = 2, .arrival = GEN_DIURNAL, .rate_per_s = 0.01,
                          .origins = origins3, .n_origins = 3};
    struct jobset js;
    gen_ok(&sp, cat, &js);
    size_t night = 0, day = 0;
    for (size_t i = 0; i < js.n; i++) {
        int h = (int)fmod(floor(js.v[i].submit_s / 3600), GEN_HOURS);
        night += h >= 0 && h < 4;
        day += h >= 12 && h < 16;
    }
    cr_assert_gt(day, 2 * night, "afternoons (%zu) busier than nights (%zu)", day, night);
    jobset_free(&js);
    catalog_destroy(cat);
}

/* Model weights, per-model distributions, GPU counts, origins, per-GPU requests. */
Test(gen_mix, distributions_are_followed)
{
    struct catalog *cat = load_catalog();
    const char *json =
        "{\"count\": 20000, \"arrival\": \"poisson:2\",\n"
        " \"origins\": {\"a\": 3, \"b\": 1},\n"
        " \"models\": [\n"
        "  {\"model\": \"resnet50\", \"weight\": 3, \"batch\": 96,\n"
        "   \"epochs\": {\"dist\": \"uniform\", \"min\": 2, \"max\": 4},\n"
        "   \"data_gib\": {\"dist\": \"lognormal\", \"median\": 10, \"sigma\": 0.5}},\n"
        "  {\"model\": \"bert_base\", \"weight\": 1,\n"
        "   \"batch\": {\"dist\": \"empirical\", \"values\": [8, 16], \"weights\": [1, 3]}}],\n"
        " \"gpus\": {\"dist\": \"lognormal\", \"median\": 2, \"sigma\": 1, \"max\": 8},\n"
        " \"epochs\": 7, \"data_gib\": {\"dist\": \"uniform\", \"min\": 1, \"max\": 2},\n"
        " \"image_gib\": 2.5, \"cpus_per_gpu\": 3, \"mem_gib_per_gpu\": 10}\n";
    struct gen_mix *mix = load_mix(json, cat);
    struct gen_spec sp = {.seed = 4};
    gen_mix_apply(mix, &sp);
    cr_assert_eq(sp.count, 20000);
    cr_assert_eq(sp.arrival, GEN_POISSON);
    cr_assert_eq(sp.rate_per_s, 2);
    cr_assert(gen_mix_has_origins(mix));
    struct jobset js;
    gen_ok(&sp, cat, &js);
    int resnet = catalog_model_find(cat, "resnet50"), bert = catalog_model_find(cat, "bert_base");
    size_t n_res = 0, n_b16 = 0, n_a = 0, gpus8 = 0;
    double *data = calloc(js.n, sizeof *data);
    size_t nd = 0;
    for (size_t i = 0; i < js.n; i++) {
        const struct job *j = &js.v[i];
        cr_assert(j->model == resnet || j->model == bert);
        cr_assert(j->gpus >= 1 && j->gpus <= 8);
        gpus8 += j->gpus == 8;
        cr_assert_eq(j->cpus, 3.0 * j->gpus);
        cr_assert_eq(j->mem_gib, 10.0 * j->gpus);
        cr_assert_eq(j->image_gib, 2.5);
        n_a += strcmp(jobset_str(&js, j->origin), "a") == 0;
        if (j->model == resnet) {
            n_res++;
            cr_assert_eq(j->batch, 96);
            cr_assert(j->epochs >= 2 && j->epochs <= 4);
            data[nd++] = j->data_gib;
        } else {
            cr_assert(j->batch == 8 || j->batch == 16);
            n_b16 += j->batch == 16;
            cr_assert_eq(j->epochs, 7, "the mix-wide epochs");
            cr_assert(j->data_gib >= 1 && j->data_gib <= 2);
        }
    }
    double n = (double)js.n;
    cr_assert(fabs((double)n_res / n - 0.75) < 0.02, "resnet50 share %g", (double)n_res / n);
    cr_assert(fabs((double)n_b16 / (double)(js.n - n_res) - 0.75) < 0.03);
    cr_assert(fabs((double)n_a / n - 0.75) < 0.02);
    cr_assert_gt(gpus8, 0, "the lognormal is clamped at max, not cut");
    /* The sample median of the lognormal is near its median (sizes rounded to 0.01). */
    size_t below = 0;
    for (size_t i = 0; i < nd; i++)
        below += data[i] < 10;
    cr_assert(fabs((double)below / (double)nd - 0.5) < 0.02, "%zu of %zu below the median", below,
              nd);
    double mean_gap = js.v[js.n - 1].submit_s / n;
    cr_assert(fabs(mean_gap - 0.5) < 0.5 * 0.03, "mean gap %g", mean_gap);
    free(data);
    jobset_free(&js);
    gen_mix_destroy(mix);
    catalog_destroy(cat);
}

Test(gen_mix, same_spec_and_seed_same_bytes)
{
    struct catalog *cat = load_catalog();
    char err[CPN_ERR_LEN] = "";
    struct gen_mix *mix = NULL;
    cr_assert_eq(gen_mix_load("traces/mix-example.json", cat, &mix, err, sizeof err), CPN_OK, "%s",
                 err);
    struct gen_spec sp = {.seed = 9};
    gen_mix_apply(mix, &sp);
    cr_assert_eq(sp.count, 200);
    cr_assert_eq(sp.arrival, GEN_DIURNAL);
    struct jobset a, b, c;
    gen_ok(&sp, cat, &a);
    gen_ok(&sp, cat, &b);
    sp.seed = 10;
    gen_ok(&sp, cat, &c);
    char *x = csv_of(&a, cat), *y = csv_of(&b, cat), *z = csv_of(&c, cat);
    cr_assert_str_eq(x, y);
    cr_assert_str_neq(x, z);
    free(x);
    free(y);
    free(z);
    jobset_free(&a);
    jobset_free(&b);
    jobset_free(&c);
    gen_mix_destroy(mix);
    catalog_destroy(cat);
}

static void expect_bad_mix(const char *json, const char *where, const char *what)
{
    struct catalog *cat = load_catalog();
    struct gen_mix *mix = NULL;
    char err[CPN_ERR_LEN] = "", prefix[256];
    snprintf(prefix, sizeof prefix, "mix.json%s", where);
    cr_assert_eq(gen_mix_load_buf("mix.json", json, strlen(json), cat, &mix, err, sizeof err),
                 CPN_EINPUT, "accepted: %s", json);
    cr_assert_null(mix);
    cr_assert(strncmp(err, prefix, strlen(prefix)) == 0, "message \"%s\" does not begin \"%s\"",
              err, prefix);
    cr_assert(strstr(err, what), "message \"%s\" lacks \"%s\"", err, what);
    catalog_destroy(cat);
}

Test(gen_mix, bad_specs)
{
    expect_bad_mix("", ":1: ", "empty file");
    expect_bad_mix("{\"count\": 10,\n \"modles\": {}}", ":2: modles: ", "unknown key");
    expect_bad_mix("{\"count\": 0}", ":1: count: ", "must be >= 1");
    expect_bad_mix("{\"count\": 2.5}", ":1: count: ", "whole number");
    expect_bad_mix("{\"count\": 1, \"count\": 2}", ":1: count: ", "duplicate key");
    expect_bad_mix("{\"arrival\": \"poisson:-1\"}", ":1: arrival: ", "RATE > 0");
    expect_bad_mix("{\"arrival\": {\"process\": \"diurnal\"}}", ":1: arrival.rate_per_s: ",
                   "required");
    expect_bad_mix("{\"arrival\": {\"process\": \"diurnal\", \"rate_per_s\": 1,\n"
                   " \"hourly\": [1, 2]}}",
                   ":2: arrival.hourly: ", "24 numbers");
    expect_bad_mix("{\"arrival\": {\"process\": \"diurnal\", \"rate_per_s\": 1, \"hourly\": "
                   "[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]}}",
                   ":1: arrival.hourly: ", "at least one hour");
    expect_bad_mix("{\"arrival\": {\"process\": \"poisson\", \"rate_per_s\": 1, \"hourly\": []}}",
                   ":1: arrival.hourly: ", "only diurnal");
    expect_bad_mix("{\"models\": {\"resnet9000\": 1}}", ":1: models.resnet9000: ",
                   "unknown model");
    expect_bad_mix("{\"models\": {\"resnet50\": 0}}", ":1: models.resnet50: ", "must be > 0");
    expect_bad_mix("{\"models\": [{\"weight\": 1}]}", ":1: models[0].model: ", "required");
    expect_bad_mix("{\"models\": [{\"model\": \"resnet50\",\n \"batch\": 0}]}",
                   ":2: models[0].batch: ", "whole number from 1");
    expect_bad_mix("{\"gpus\": {\"dist\": \"uniform\", \"min\": 4, \"max\": 2}}", ":1: gpus.max: ",
                   "must be >= 4");
    expect_bad_mix("{\"gpus\": {\"dist\": \"gamma\"}}", ":1: gpus.dist: ",
                   "unknown distribution 'gamma'");
    expect_bad_mix("{\"gpus\": {\"dist\": \"empirical\", \"values\": [1, 1.5]}}",
                   ":1: gpus.values[1]: ", "whole number");
    expect_bad_mix("{\"data_gib\": {\"dist\": \"empirical\", \"values\": [1, 2], \"weights\": "
                   "[1]}}",
                   ":1: data_gib: ", "as long as values");
    expect_bad_mix("{\"data_gib\": {\"dist\": \"lognormal\", \"median\": 0, \"sigma\": 1}}",
                   ":1: data_gib.median: ", "must be > 0");
    expect_bad_mix("{\"image_gib\": -1}", ":1: image_gib: ", "must be >= 0");
    expect_bad_mix("{\"image_gib\": \"big\"}", ":1: image_gib: ", "must be a number or a "
                                                                   "distribution");
    expect_bad_mix("{\"origins\": [\"a\", \"\"]}", ":1: origins[1]: ", "empty site name");
    expect_bad_mix("{\"origins\": {\"a\": 1, \"a\": 2}}", ":1: origins: ", "duplicate site 'a'");
    expect_bad_mix("[]", ":1: top level: ", "must be an object");
}

/* ---- distributed jobs ---- */

/* The same job in both sets, but for what a distributed share changes (gpus, cpus,
 * mem_gib, pods). */
static void assert_same_draws(const struct jobset *a, size_t i, const struct jobset *b)
{
    const struct job *x = &a->v[i], *y = &b->v[i];
    cr_assert_str_eq(jobset_str(a, x->id), jobset_str(b, y->id));
    cr_assert_str_eq(jobset_str(a, x->origin), jobset_str(b, y->origin), "job %zu", i);
    cr_assert_eq(x->model, y->model, "job %zu", i);
    cr_assert_eq(x->batch, y->batch, "job %zu", i);
    cr_assert_eq(x->epochs, y->epochs, "job %zu", i);
    cr_assert_eq(x->data_gib, y->data_gib, "job %zu", i);
    cr_assert_eq(x->image_gib, y->image_gib, "job %zu", i);
    cr_assert_eq(x->submit_s, y->submit_s, "job %zu", i);
}

/* A share of the jobs is distributed: each of 2 ... max_pods pods (uniform) of 8 GPUs
 * with 4 cores and 24 GiB per GPU; the other draws are those of the queue without
 * them, the jobs that are not distributed the same jobs, and a larger share a
 * superset with the same pods. Tolerances are 5 standard errors. */
Test(gen_distributed, share_pods_and_untouched_draws)
{
    struct catalog *cat = load_catalog();
    const size_t n = 20000;
    struct gen_spec plain = {.count = n, .seed = 7, .arrival = GEN_POISSON, .rate_per_s = 0.1,
                             .origins = origins3, .n_origins = 3};
    struct gen_spec quarter = plain, half = plain;
    quarter.distributed = 0.25;
    half.distributed = 0.5;
    struct jobset a, b, c;
    gen_ok(&plain, cat, &a);
    gen_ok(&quarter, cat, &b);
    gen_ok(&half, cat, &c);
    cr_assert_null(a.pods);
    cr_assert_str_eq(b.source, "<generated: 20000 jobs, seed 7, poisson:0.1, distributed 0.25 of "
                               "up to 4 pods>");
    size_t dist = 0, by_pods[5] = {0};
    for (size_t i = 0; i < n; i++) {
        assert_same_draws(&a, i, &b);
        assert_same_draws(&a, i, &c);
        uint32_t p = jobset_pods(&b, i);
        if (p == 1) {
            cr_assert_eq(b.v[i].gpus, a.v[i].gpus, "job %zu: not distributed, not changed", i);
            cr_assert_eq(b.v[i].cpus, a.v[i].cpus);
            cr_assert_eq(b.v[i].mem_gib, a.v[i].mem_gib);
            continue;
        }
        dist++;
        cr_assert(p >= 2 && p <= 4, "job %zu: %u pods", i, p);
        by_pods[p]++;
        cr_assert_eq(b.v[i].gpus, 8, "a whole node's worth");
        cr_assert_eq(b.v[i].cpus, 32);
        cr_assert_eq(b.v[i].mem_gib, 192);
        cr_assert_eq(jobset_pods(&c, i), p, "job %zu: distributed at 0.5 too, same pods", i);
    }
    /* 0.25 of 20,000: 5,000, standard error 61. */
    cr_assert(dist > 5000 - 306 && dist < 5000 + 306, "%zu distributed jobs", dist);
    /* A third each of 2, 3 and 4 pods: 1,667, standard error 33. */
    for (int p = 2; p <= 4; p++)
        cr_assert(fabs((double)by_pods[p] - (double)dist / 3) < 170, "%zu jobs of %d pods",
                  by_pods[p], p);
    size_t dist_half = 0;
    for (size_t i = 0; i < n; i++)
        dist_half += jobset_pods(&c, i) > 1;
    cr_assert(dist_half > 10000 - 354 && dist_half < 10000 + 354, "%zu at 0.5", dist_half);
    /* The same spec and seed give the same bytes, with a pods column. */
    struct jobset b2;
    gen_ok(&quarter, cat, &b2);
    char *x = csv_of(&b, cat), *y = csv_of(&b2, cat);
    cr_assert_str_eq(x, y);
    cr_assert(strncmp(x, "id,submit_s,model,batch,epochs,data_gib,gpus,pods,cpus,", 55) == 0, "%.80s",
              x);
    free(x);
    free(y);
    jobset_free(&a);
    jobset_free(&b);
    jobset_free(&b2);
    jobset_free(&c);
    catalog_destroy(cat);
}

/* A share of 0 draws nothing: the default queue, byte for byte; 1 makes every job
 * distributed; max_pods bounds the pods, every value from 2 to it drawn. */
Test(gen_distributed, bounds_of_the_share_and_pods)
{
    struct catalog *cat = load_catalog();
    struct gen_spec sp = {.count = 100, .seed = 1, .arrival = GEN_BATCH, .origins = origins3,
                          .n_origins = 3, .distributed = 0, .max_pods = 6};
    struct jobset js;
    gen_ok(&sp, cat, &js);
    cr_assert_null(js.pods);
    char *x = csv_of(&js, cat), *q100 = slurp("traces/q100.csv");
    cr_assert_str_eq(x, q100);
    cr_assert_str_eq(js.source, "<generated: 100 jobs, seed 1, batch>");
    free(x);
    free(q100);
    jobset_free(&js);
    sp.count = 3000;
    sp.distributed = 1;
    gen_ok(&sp, cat, &js);
    bool seen[7] = {false};
    for (size_t i = 0; i < js.n; i++) {
        uint32_t p = jobset_pods(&js, i);
        cr_assert(p >= 2 && p <= 6, "job %zu: %u pods", i, p);
        seen[p] = true;
    }
    for (int p = 2; p <= 6; p++)
        cr_assert(seen[p], "no job of %d pods", p);
    jobset_free(&js);

    char err[CPN_ERR_LEN] = "";
    jobset_init(&js);
    sp.distributed = 1.5;
    cr_assert_eq(gen_jobs(&sp, cat, &js, err, sizeof err), CPN_EINPUT);
    cr_assert(strstr(err, "share of distributed jobs must be a number from 0 to 1 (got 1.5)"), "%s",
              err);
    sp.distributed = NAN;
    cr_assert_eq(gen_jobs(&sp, cat, &js, err, sizeof err), CPN_EINPUT);
    sp.distributed = 0.5;
    sp.max_pods = 1;
    cr_assert_eq(gen_jobs(&sp, cat, &js, err, sizeof err), CPN_EINPUT);
    cr_assert(strstr(err, "most pods of a distributed job must be a whole number from 2"), "%s",
              err);
    cr_assert_eq(js.n, 0);
    catalog_destroy(cat);
}

/* A mix sets the share, the most pods and each pod's GPUs (a distribution), with its
 * own CPUs and memory per GPU. */
Test(gen_distributed, from_a_mix)
{
    struct catalog *cat = load_catalog();
    struct gen_mix *mix = load_mix("{\"distributed\": 1, \"max_pods\": 2, \"cpus_per_gpu\": 2, "
                                   "\"pod_gpus\": {\"dist\": \"empirical\", \"values\": [2, 4]}}",
                                   cat);
    struct gen_spec sp = {.count = 400, .seed = 3, .arrival = GEN_BATCH, .origins = origins3,
                          .n_origins = 3};
    gen_mix_apply(mix, &sp);
    cr_assert_eq(sp.distributed, 1);
    cr_assert_eq(sp.max_pods, 2);
    struct jobset js;
    gen_ok(&sp, cat, &js);
    size_t two = 0;
    for (size_t i = 0; i < js.n; i++) {
        cr_assert_eq(jobset_pods(&js, i), 2);
        cr_assert(js.v[i].gpus == 2 || js.v[i].gpus == 4, "job %zu: %u GPUs", i, js.v[i].gpus);
        cr_assert_eq(js.v[i].cpus, 2.0 * js.v[i].gpus);
        cr_assert_eq(js.v[i].mem_gib, 24.0 * js.v[i].gpus);
        two += js.v[i].gpus == 2;
    }
    cr_assert(two > 200 - 50 && two < 200 + 50, "%zu pods of 2 GPUs of 400", two);
    jobset_free(&js);
    gen_mix_destroy(mix);
    /* A job's GPUs over its pods stay below 2^31. */
    mix = load_mix("{\"distributed\": 1, \"pod_gpus\": 1073741824}", cat);
    gen_mix_apply(mix, &sp);
    char err[CPN_ERR_LEN] = "";
    jobset_init(&js);
    cr_assert_eq(gen_jobs(&sp, cat, &js, err, sizeof err), CPN_EINPUT);
    cr_assert(strstr(err, "gen: job 1: 2 pods of 1073741824 GPUs reach 2^31 GPUs"), "%s", err);
    gen_mix_destroy(mix);
    catalog_destroy(cat);
    expect_bad_mix("{\"distributed\": 2}", ":1: distributed: ", "must be a share from 0 to 1");
    expect_bad_mix("{\"distributed\": -0.5}", ":1: distributed: ", "must be >= 0");
    expect_bad_mix("{\"max_pods\": 1}", ":1: max_pods: ", "must be >= 2");
    expect_bad_mix("{\"max_pods\": 2.5}", ":1: max_pods: ", "whole number");
    expect_bad_mix("{\"pod_gpus\": 0}", ":1: pod_gpus: ", "whole number from 1");
}

Test(gen_mix, invalid_diurnal_specs)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "";
    double zero[GEN_HOURS] = {0}, neg[GEN_HOURS] = {[3] = -1, [4] = 1};
    struct gen_spec sp = {.count = 3, .seed = 1, .arrival = GEN_DIURNAL, .rate_per_s = 1,
                          .origins = origins3, .n_origins = 3, .hourly = zero};
    cr_assert_eq(gen_jobs(&sp, cat, &js, err, sizeof err), CPN_EINPUT);
    cr_assert(strstr(err, "at least one hour"), "%s", err);
    sp.hourly = neg;
    cr_assert_eq(gen_jobs(&sp, cat, &js, err, sizeof err), CPN_EINPUT);
    cr_assert(strstr(err, "hour 3"), "%s", err);
    sp.hourly = NULL;
    sp.rate_per_s = 0;
    cr_assert_eq(gen_jobs(&sp, cat, &js, err, sizeof err), CPN_EINPUT);
    cr_assert(strstr(err, "diurnal arrival rate"), "%s", err);
    cr_assert_eq(js.n, 0);
    catalog_destroy(cat);
}

/* ---- the command line ---- */

static const char *bin(void)
{
    const char *b = getenv("CPNSIM");
    return b ? b : "./cpnsim";
}

static void scratch_init(void)
{
    char d[64];
    snprintf(d, sizeof d, "/tmp/cpn_gen_%d", (int)getpid());
    setenv("TMPD", d, 1);
    cr_assert_eq(sh("rm -rf $TMPD && mkdir -p $TMPD"), 0);
}

static void scratch_fini(void) { sh("rm -rf $TMPD"); }

TestSuite(gen_cli, .init = scratch_init, .fini = scratch_fini);

Test(gen_cli, spec_options_and_formats)
{
    cr_assert_eq(sh("%s gen --spec traces/mix-example.json --seed 3 -o $TMPD/a.csv", bin()), 0);
    cr_assert_eq(sh("test $(wc -l < $TMPD/a.csv) -eq 201"), 0, "the spec's count");
    cr_assert_eq(sh("%s gen --spec traces/mix-example.json --seed 3 -o $TMPD/a.json", bin()), 0);
    cr_assert_eq(sh("%s run --quiet --jobs $TMPD/a.json --out $TMPD/ra", bin()), 0);
    cr_assert_eq(sh("%s run --quiet --jobs $TMPD/a.csv --out $TMPD/rb", bin()), 0);
    cr_assert_eq(sh("cmp -s $TMPD/ra/jobs.csv $TMPD/rb/jobs.csv"), 0, "CSV and JSON agree");
    /* Options override the spec: count and arrival. */
    cr_assert_eq(sh("%s gen --spec traces/mix-example.json --count 7 --arrival batch -o $TMPD/b.csv",
                    bin()),
                 0);
    cr_assert_eq(sh("test $(wc -l < $TMPD/b.csv) -eq 8"), 0);
    cr_assert_eq(sh("cut -d, -f2 $TMPD/b.csv | tail -n +2 | sort -u | grep -qx 0"), 0);
    cr_assert_eq(sh("%s gen --count 5 --arrival diurnal:0.01 >/dev/null", bin()), 0);
    cr_assert_eq(sh("%s gen --count 5 --arrival diurnal:0 2>/dev/null", bin()), 2);
    cr_assert_eq(sh("%s gen --spec tests/data/json/good.json --count 5 2>$TMPD/e", bin()), 2);
    char *e = slurp("$TMPD/e");
    cr_assert(e && strstr(e, "tests/data/json/good.json:1: top level: must be an object"), "%s", e);
    free(e);
    cr_assert_eq(sh("test -e $TMPD/nothing.csv"), 1);
}

/* --distributed 0 (the default) changes no byte; a share adds a pods column and keeps
 * every id; bad values are usage errors. */
Test(gen_cli, distributed_options)
{
    cr_assert_eq(sh("%s gen --count 100 --distributed 0 --max-pods 8 | cmp -s - traces/q100.csv",
                    bin()),
                 0);
    cr_assert_eq(sh("%s gen --count 100 --distributed 0.3 -o $TMPD/d.csv", bin()), 0);
    cr_assert_eq(sh("head -1 $TMPD/d.csv | grep -qx "
                    "'id,submit_s,model,batch,epochs,data_gib,gpus,pods,cpus,mem_gib,image_gib,origin'"),
                 0);
    cr_assert_eq(sh("test \"$(cut -d, -f1-6 $TMPD/d.csv)\" = \"$(cut -d, -f1-6 traces/q100.csv)\""),
                 0, "the same ids, submit times, models, batches, epochs and datasets");
    /* Every row of several pods has 8 GPUs, 32 cores and 192 GiB a pod, 2 to 4 pods. */
    cr_assert_eq(sh("awk -F, 'NR > 1 && $8 > 1 && ($7 != 8 || $9 != 32 || $10 != 192 || $8 > 4) "
                    "{ bad = 1 } NR > 1 && $8 > 1 { n++ } END { exit bad || n < 15 || n > 45 }' "
                    "$TMPD/d.csv"),
                 0);
    cr_assert_eq(sh("%s gen --count 5 --distributed 1.5 2>/dev/null", bin()), 2);
    cr_assert_eq(sh("%s gen --count 5 --distributed x 2>/dev/null", bin()), 2);
    cr_assert_eq(sh("%s gen --count 5 --distributed 0.5 --max-pods 1 2>/dev/null", bin()), 2);
    cr_assert_eq(sh("%s gen --help | grep -q -- --distributed", bin()), 0);
}
