/* Tests of the random forest (sim/engine/rf.c) and of the predictor (sim/engine/predict.c): a forest
 * recovers a known function, training is deterministic for a seed, a saved forest
 * predicts the same; oracle is the catalogue, noisy:0 is oracle, noisy:SIGMA is
 * repeatable lognormal noise of spread SIGMA; bad specs are refused with a message; the
 * learned methods know exactly the models they trained on; the cross-validation runs. */
#include <criterion/criterion.h>
#include <criterion/redirect.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/engine/catalog.h"
#include "../sim/cli/cmd.h"
#include "../sim/engine/predict.h"
#include "../sim/engine/rf.h"
#include "../sim/base/util.h"

/* ---- the forest ---- */

enum { N_TRAIN = 400, P_TRAIN = 2 };
#define NOISE_SD 0.1

/* y = 3 x1 + N(0, NOISE_SD); x1 and x2 uniform on [0, 1); x2 is irrelevant. */
static void known_function(double *x, double *y, unsigned long seed)
{
    gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(r, seed);
    for (size_t i = 0; i < N_TRAIN; i++) {
        x[i * P_TRAIN] = gsl_rng_uniform(r);
        x[i * P_TRAIN + 1] = gsl_rng_uniform(r);
        y[i] = 3 * x[i * P_TRAIN] + gsl_ran_gaussian(r, NOISE_SD);
    }
    gsl_rng_free(r);
}

static struct rf *train(const double *x, const double *y, size_t n, struct rf_params prm)
{
    struct rf *f = NULL;
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(rf_train(&f, x, n, P_TRAIN, y, &prm, NULL, err, sizeof err), CPN_OK, "%s", err);
    return f;
}

Test(rf, recovers_a_known_function)
{
    static double x[N_TRAIN * P_TRAIN], y[N_TRAIN];
    known_function(x, y, 7);
    struct rf *f = train(x, y, N_TRAIN, RF_PARAMS_DEFAULT);
    /* Inside the data (x1 in 0.1 .. 0.9) the forest averages about a dozen noisy points
     * per leaf across trees: within 0.15 of 3 x1 everywhere (5% of the range 0..3, 1.5
     * noise sd), and 0.06 on average. At the edges a tree cannot extrapolate, so they
     * are not asked. */
    double sum = 0;
    int n = 0;
    for (int k = 1; k <= 9; k++)
        for (int j = 0; j < 5; j++) {
            double q[P_TRAIN] = {k / 10.0, 0.1 + 0.2 * j};
            double e = fabs(rf_predict(f, q) - 3 * q[0]);
            cr_assert_lt(e, 0.15, "x1 = %g, x2 = %g: error %g", q[0], q[1], e);
            sum += e;
            n++;
        }
    cr_assert_lt(sum / n, 0.06, "mean error %g", sum / n);
    rf_destroy(f);
}

Test(rf, the_same_seed_gives_the_same_forest)
{
    static double x[N_TRAIN * P_TRAIN], y[N_TRAIN];
    known_function(x, y, 11);
    struct rf_params prm = RF_PARAMS_DEFAULT;
    prm.seed = 42;
    struct rf *a = train(x, y, N_TRAIN, prm), *b = train(x, y, N_TRAIN, prm);
    prm.seed = 43;
    struct rf *c = train(x, y, N_TRAIN, prm);
    cr_assert_eq(rf_nodes(a), rf_nodes(b));
    int differ = 0;
    for (int k = 0; k < 100; k++) {
        double q[P_TRAIN] = {k / 100.0, 1 - k / 100.0};
        double pa = rf_predict(a, q), pb = rf_predict(b, q), pc = rf_predict(c, q);
        cr_assert(memcmp(&pa, &pb, sizeof pa) == 0, "seed 42 twice: %.17g vs %.17g", pa, pb);
        differ += pa != pc;
    }
    cr_assert_gt(differ, 50, "another seed should give another forest");
    rf_destroy(a);
    rf_destroy(b);
    rf_destroy(c);
}

/* One tree on all rows (no bootstrap), every feature tried, leaves of one row: it must
 * reproduce every training target exactly. */
Test(rf, one_full_tree_reproduces_its_data)
{
    static const double x[] = {0, 0, 1, 0, 0, 1, 1, 1, 2, 0.5, 3, 0.25};
    static const double y[] = {1, 2, 3, 4, 5, 6};
    struct rf_params prm = RF_PARAMS_DEFAULT;
    prm.n_trees = 1;
    prm.bootstrap = false;
    prm.mtry = P_TRAIN;
    struct rf *f = train(x, y, 6, prm);
    for (size_t i = 0; i < 6; i++)
        cr_assert_eq(rf_predict(f, &x[i * P_TRAIN]), y[i], "row %zu", i);
    /* A depth limit of 0 leaves one leaf: the mean. */
    prm.max_depth = 0;
    struct rf *g = train(x, y, 6, prm);
    cr_assert_eq(rf_nodes(g), 1);
    cr_assert_eq(rf_predict(g, x), 3.5);
    rf_destroy(f);
    rf_destroy(g);
}

Test(rf, out_of_bag_estimates_cover_the_rows)
{
    static double x[N_TRAIN * P_TRAIN], y[N_TRAIN], oob[N_TRAIN];
    known_function(x, y, 5);
    struct rf *f = NULL;
    struct rf_params prm = RF_PARAMS_DEFAULT;
    char err[CPN_ERR_LEN];
    cr_assert_eq(rf_train(&f, x, N_TRAIN, P_TRAIN, y, &prm, oob, err, sizeof err), CPN_OK);
    /* With 100 trees a row is left out of about 37 of them: never of all. */
    double se = 0;
    for (size_t i = 0; i < N_TRAIN; i++) {
        cr_assert(!isnan(oob[i]), "row %zu", i);
        se += (oob[i] - y[i]) * (oob[i] - y[i]);
    }
    /* Out-of-bag error is honest: at least the noise, and far below the spread of y. */
    double rmse = sqrt(se / N_TRAIN);
    cr_assert(rmse > 0.8 * NOISE_SD && rmse < 0.3, "oob rmse %g", rmse);
    rf_destroy(f);
}

Test(rf, bad_input_is_refused)
{
    double x[4] = {0, 1, 2, NAN}, y[2] = {1, 2};
    struct rf *f = NULL;
    struct rf_params prm = RF_PARAMS_DEFAULT;
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(rf_train(&f, x, 0, 2, y, &prm, NULL, err, sizeof err), CPN_EINPUT);
    cr_assert_eq(rf_train(&f, x, 2, 2, y, &prm, NULL, err, sizeof err), CPN_EINPUT);
    cr_assert(strstr(err, "x[1][1]"), "message: %s", err);
    prm.n_trees = 0;
    cr_assert_eq(rf_train(&f, x, 1, 2, y, &prm, NULL, err, sizeof err), CPN_EINPUT);
    cr_assert_null(f);
}

/* ---- the predictor ---- */

static struct catalog *embedded(void)
{
    struct catalog *c = NULL;
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(catalog_create(&c, err, sizeof err), CPN_OK, "%s", err);
    return c;
}

static struct predictor *make(const struct catalog *c, const char *spec, uint64_t seed)
{
    struct predictor *p = NULL;
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(predictor_create(&p, spec, c, seed, err, sizeof err), CPN_OK, "%s: %s", spec,
                 err);
    cr_assert_str_eq(predictor_spec(p), spec);
    return p;
}

/* The questions a simulation may ask: every model at each of its listed batches, on
 * every type (-1 with speed 0.5) and 1, 2, 3 and 8 GPUs. The caller frees them. */
struct question {
    int model, type;
    unsigned batch, gpus;
};

static size_t questions(const struct catalog *c, struct question **out)
{
    static const unsigned gpus[] = {1, 2, 3, 8};
    size_t n = 0, cap = 0;
    struct question *q = NULL;
    for (int m = 0; m < (int)catalog_model_count(c); m++) {
        size_t nb;
        const unsigned *b = catalog_model_batches(c, m, &nb);
        for (size_t k = 0; k < nb; k++)
            for (int t = -1; t < CAT_NTYPES; t++)
                for (size_t g = 0; g < sizeof gpus / sizeof gpus[0]; g++) {
                    cpn_grow((void **)&q, &cap, n + 1, sizeof *q);
                    q[n++] = (struct question){.model = m, .type = t, .batch = b[k],
                                               .gpus = gpus[g]};
                }
    }
    *out = q;
    return n;
}

/* The speed given with type -1 questions. */
#define Q_SPEED 0.5

static void ask(const struct predictor *p, const struct question *q, struct profile *out)
{
    cr_assert_eq(predictor_profile(p, q->model, q->batch, q->type, Q_SPEED, q->gpus, out),
                 CPN_OK, "model %d batch %u type %d gpus %u", q->model, q->batch, q->type,
                 q->gpus);
}

static void assert_same_profile(const struct profile *a, const struct profile *b)
{
    cr_assert(a->step_s == b->step_s && a->mem_gib == b->mem_gib && a->derived == b->derived,
              "%.17g/%.17g/%d vs %.17g/%.17g/%d", a->step_s, a->mem_gib, a->derived, b->step_s,
              b->mem_gib, b->derived);
}

Test(predict, oracle_and_noisy_0_are_the_catalogue_exactly)
{
    struct catalog *c = embedded();
    struct predictor *o = make(c, "oracle", 1), *n0 = make(c, "noisy:0", 9);
    struct question *q;
    size_t n = questions(c, &q);
    for (size_t i = 0; i < n; i++) {
        struct profile want, got, got0;
        cr_assert_eq(catalog_lookup(c, q[i].model, q[i].batch, q[i].type, Q_SPEED, q[i].gpus,
                                    &want),
                     CPN_OK);
        ask(o, &q[i], &got);
        ask(n0, &q[i], &got0);
        assert_same_profile(&got, &want);
        assert_same_profile(&got0, &want);
    }
    cr_assert_gt(n, 1000);
    free(q);
    for (int m = 0; m < (int)catalog_model_count(c); m++)
        cr_assert(predictor_knows(o, m) && predictor_knows(n0, m));
    struct profile pr;
    cr_assert_eq(predictor_profile(o, 0, 0, CAT_H100, 1, 1, &pr), CPN_EINPUT);
    predictor_destroy(o);
    predictor_destroy(n0);
    catalog_destroy(c);
}

Test(predict, noisy_is_repeatable_lognormal_noise)
{
    struct catalog *c = embedded();
    struct predictor *a = make(c, "noisy:0.3", 5), *b = make(c, "noisy:0.3", 5),
                     *other = make(c, "noisy:0.3", 6);
    struct question *q;
    size_t nq = questions(c, &q);
    double *logr = calloc(nq, sizeof *logr);
    size_t n = 0, differ_seed = 0;
    for (size_t i = 0; i < nq; i++) {
        if (q[i].type < 0)
            continue;
        struct profile want, pa, pa2, pb, po;
        cr_assert_eq(catalog_lookup(c, q[i].model, q[i].batch, q[i].type, 1, q[i].gpus, &want),
                     CPN_OK);
        ask(a, &q[i], &pa);
        ask(a, &q[i], &pa2);
        ask(b, &q[i], &pb);
        ask(other, &q[i], &po);
        /* The same question gets the same answer, from this predictor or another of the
         * same seed; step and memory get their own draws. */
        assert_same_profile(&pa, &pa2);
        assert_same_profile(&pa, &pb);
        differ_seed += po.step_s != pa.step_s;
        cr_assert_neq(pa.step_s, want.step_s);
        logr[n++] = log(pa.step_s / want.step_s);
        cr_assert(log(pa.mem_gib / want.mem_gib) != logr[n - 1]);
    }
    cr_assert_eq(differ_seed, n, "another seed should draw other noise everywhere");
    /* log(noisy / true) ~ N(0, 0.3^2): over n ~ 1200 draws the mean is within 0.03 of 0
     * (3.5 standard errors) and the sd within 10% of 0.3. */
    double mean = gsl_stats_mean(logr, 1, n), sd = gsl_stats_sd(logr, 1, n);
    cr_assert_gt(n, 1000);
    cr_assert_lt(fabs(mean), 0.03, "mean %g", mean);
    cr_assert(sd > 0.27 && sd < 0.33, "sd %g", sd);
    free(logr);
    free(q);
    predictor_destroy(a);
    predictor_destroy(b);
    predictor_destroy(other);
    catalog_destroy(c);
}

/* Issue 18: exp(1000 z) under- or overflows, so noisy:1000 predicted step times of 0
 * (from which the engine aborted deriving a CPU demand) and infinite ones. The factor is
 * kept within [exp(-20), exp(20)]: every answer is finite and positive, and both ends
 * are reached. */
Test(predict, extreme_noise_stays_finite_and_positive)
{
    struct catalog *c = embedded();
    struct predictor *p = make(c, "noisy:1000", 5);
    struct question *q;
    size_t nq = questions(c, &q), low = 0, high = 0;
    for (size_t i = 0; i < nq; i++) {
        struct profile want, got;
        cr_assert_eq(catalog_lookup(c, q[i].model, q[i].batch, q[i].type, Q_SPEED, q[i].gpus,
                                    &want),
                     CPN_OK);
        ask(p, &q[i], &got);
        double r[2] = {got.step_s / want.step_s, got.mem_gib / want.mem_gib};
        for (int k = 0; k < 2; k++) {
            cr_assert(isfinite(r[k]) && r[k] >= exp(-20) * (1 - 1e-12) &&
                          r[k] <= exp(20) * (1 + 1e-12),
                      "question %zu: factor %g", i, r[k]);
            low += r[k] < 1;
            high += r[k] > 1;
        }
    }
    cr_assert(low > 0 && high > 0);
    free(q);
    predictor_destroy(p);
    catalog_destroy(c);
}

Test(predict, bad_specs_are_refused_with_a_message)
{
    struct catalog *c = embedded();
    static const char *const bad[] = {"",        "forest",       "oracle2",    "noisy:",
                                      "noisy:x", "noisy:-0.1",   "noisy:inf",  "rf:",
                                      "rf:0.5",  "rf:margin=",   "rf:margin=-1", "nn:margin=a",
                                      "linear2", "oracle:margin=1"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct predictor *p = NULL;
        char err[CPN_ERR_LEN] = "";
        cr_assert_eq(predictor_create(&p, bad[i], c, 1, err, sizeof err), CPN_EINPUT, "'%s'",
                     bad[i]);
        cr_assert_null(p, "'%s'", bad[i]);
        char quoted[64];
        snprintf(quoted, sizeof quoted, "--predictor: '%s'", bad[i]);
        cr_assert(strstr(err, quoted) && strstr(err, "known: rf, linear, nn"), "'%s': %s",
                  bad[i], err);
    }
    catalog_destroy(c);
}

Test(predict, learned_methods_answer_every_question_sensibly)
{
    struct catalog *c = embedded();
    static const char *const specs[] = {"rf", "linear", "nn"};
    for (size_t s = 0; s < sizeof specs / sizeof specs[0]; s++) {
        struct predictor *p = make(c, specs[s], 1);
        struct question *q;
        size_t n = questions(c, &q);
        for (size_t i = 0; i < n; i++) {
            struct profile pr;
            ask(p, &q[i], &pr);
            cr_assert(isfinite(pr.step_s) && pr.step_s > 0 && isfinite(pr.mem_gib) &&
                          pr.mem_gib > 0,
                      "%s: model %d batch %u type %d gpus %u: %g s, %g GiB", specs[s],
                      q[i].model, q[i].batch, q[i].type, q[i].gpus, pr.step_s, pr.mem_gib);
        }
        free(q);
        struct profile pr;
        cr_assert_eq(predictor_profile(p, -1, 32, CAT_H100, 1, 1, &pr), CPN_EINPUT);
        cr_assert_eq(predictor_profile(p, 0, 32, -1, 0.0, 1, &pr), CPN_EINPUT);
        cr_assert_eq(predictor_profile(p, 0, 32, CAT_NTYPES, 1, 1, &pr), CPN_EINPUT);
        cr_assert_eq(predictor_profile(p, 0, 32, CAT_H100, 1, 0, &pr), CPN_EINPUT);
        predictor_destroy(p);
    }
    catalog_destroy(c);
}

/* A type with no catalogue profile is an H100 divided by its speed; the memory margin
 * multiplies memory by 1 + margin and leaves step time alone. */
Test(predict, unknown_types_and_the_memory_margin)
{
    struct catalog *c = embedded();
    struct predictor *p = make(c, "rf", 1), *p0 = make(c, "rf:margin=0", 1);
    int m = catalog_model_find(c, "resnet50");
    struct profile h, u, z;
    cr_assert_eq(predictor_profile(p, m, 64, CAT_H100, 1, 2, &h), CPN_OK);
    cr_assert_eq(predictor_profile(p, m, 64, -1, 0.25, 2, &u), CPN_OK);
    cr_assert_eq(predictor_profile(p0, m, 64, CAT_H100, 1, 2, &z), CPN_OK);
    cr_assert_float_eq(u.step_s, 4 * h.step_s, 1e-12 * h.step_s);
    cr_assert_eq(u.mem_gib, h.mem_gib);
    cr_assert_eq(z.step_s, h.step_s);
    cr_assert_float_eq(h.mem_gib, (1 + PREDICT_DEFAULT_MEM_MARGIN) * z.mem_gib, 1e-12 * h.mem_gib);
    cr_assert_eq(predictor_default_margin("rf"), PREDICT_DEFAULT_MEM_MARGIN);
    cr_assert_eq(predictor_default_margin("nn"), PREDICT_NN_MEM_MARGIN);
    cr_assert_eq(predictor_default_margin("oracle"), 0);
    predictor_destroy(p);
    predictor_destroy(p0);
    catalog_destroy(c);
}

Test(predict, training_is_deterministic_for_a_seed)
{
    struct catalog *c = embedded();
    struct predictor *a = make(c, "rf", 3), *b = make(c, "rf", 3), *d = make(c, "rf", 4);
    struct question *q;
    size_t n = questions(c, &q), differ = 0;
    for (size_t i = 0; i < n; i++) {
        struct profile pa, pb, pd;
        ask(a, &q[i], &pa);
        ask(b, &q[i], &pb);
        ask(d, &q[i], &pd);
        cr_assert(memcmp(&pa.step_s, &pb.step_s, sizeof pa.step_s) == 0 &&
                  memcmp(&pa.mem_gib, &pb.mem_gib, sizeof pa.mem_gib) == 0);
        differ += pa.step_s != pd.step_s;
    }
    cr_assert_gt(differ, n / 2, "seed 4 should train other forests");
    free(q);
    predictor_destroy(a);
    predictor_destroy(b);
    predictor_destroy(d);
    catalog_destroy(c);
}

/* Trained on a thread while the caller works (two at once here), the predictor is the
 * one predictor_create trains; an error comes back from predictor_create_end. */
Test(predict, training_on_a_thread_gives_the_same_predictor)
{
    struct catalog *c = embedded();
    struct predictor_pending *pa = predictor_create_begin("rf", c, 3);
    struct predictor_pending *pl = predictor_create_begin("linear", c, 3);
    struct predictor *a = make(c, "rf", 3), *l = make(c, "linear", 3), *ta = NULL, *tl = NULL;
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(predictor_create_end(pa, &ta, err, sizeof err), CPN_OK, "%s", err);
    cr_assert_eq(predictor_create_end(pl, &tl, err, sizeof err), CPN_OK, "%s", err);
    struct question *q;
    size_t n = questions(c, &q);
    for (size_t i = 0; i < n; i++) {
        struct profile pa1, pa2, pl1, pl2;
        ask(a, &q[i], &pa1);
        ask(ta, &q[i], &pa2);
        ask(l, &q[i], &pl1);
        ask(tl, &q[i], &pl2);
        cr_assert(memcmp(&pa1.step_s, &pa2.step_s, sizeof(double)) == 0 &&
                      memcmp(&pa1.mem_gib, &pa2.mem_gib, sizeof(double)) == 0 &&
                      memcmp(&pl1.step_s, &pl2.step_s, sizeof(double)) == 0 &&
                      memcmp(&pl1.mem_gib, &pl2.mem_gib, sizeof(double)) == 0,
                  "question %zu", i);
    }
    free(q);
    struct predictor *bad = NULL;
    cr_assert_eq(predictor_create_end(predictor_create_begin("forest", c, 1), &bad, err,
                                      sizeof err),
                 CPN_EINPUT);
    cr_assert_null(bad);
    cr_assert(strstr(err, "--predictor: 'forest'"), "%s", err);
    predictor_destroy(a);
    predictor_destroy(l);
    predictor_destroy(ta);
    predictor_destroy(tl);
    catalog_destroy(c);
}

Test(predict, a_learned_predictor_knows_what_it_trained_on)
{
    struct catalog *c = embedded();
    struct predictor *p = make(c, "rf", 1);
    int n = (int)catalog_model_count(c);
    for (int m = 0; m < n; m++)
        cr_assert(predictor_knows(p, m), "%s", catalog_model_name(c, m));
    cr_assert(!predictor_knows(p, -1));
    cr_assert(!predictor_knows(p, n));
    predictor_destroy(p);

    /* Trained without bert_base: it does not know it, but still predicts it from its
     * features. */
    int bert = catalog_model_find(c, "bert_base");
    struct predictor_opts o = PREDICTOR_OPTS_DEFAULT;
    o.exclude_model = bert;
    o.rf_trees = 10;
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(predictor_create_opts(&p, "rf", c, 1, &o, err, sizeof err), CPN_OK, "%s", err);
    for (int m = 0; m < n; m++)
        cr_assert_eq(predictor_knows(p, m), m != bert, "%s", catalog_model_name(c, m));
    struct profile pr;
    cr_assert_eq(predictor_profile(p, bert, 32, CAT_V100, 1, 1, &pr), CPN_OK);
    cr_assert(pr.step_s > 0 && pr.mem_gib > 0);
    predictor_destroy(p);

    /* Memory is measured only on the H100: without it, nothing is left to learn it from. */
    o = PREDICTOR_OPTS_DEFAULT;
    o.exclude_type = CAT_H100;
    p = NULL;
    cr_assert_eq(predictor_create_opts(&p, "rf", c, 1, &o, err, sizeof err), CPN_EINPUT);
    cr_assert_null(p);
    cr_assert(strstr(err, "memory"), "%s", err);
    catalog_destroy(c);
}

/* ---- the training set and the cross-validation ---- */

Test(predict, the_catalogue_lists_its_measured_points)
{
    struct catalog *c = embedded();
    size_t n = catalog_points(c, NULL, 0);
    /* 41 H100 rows + Gavel's nonzero entries on 1, 2, 4, 8 GPUs: 83 V100, 83 P100, 80 K80. */
    cr_assert_eq(n, 41 + 83 + 83 + 80);
    struct catalog_point *pts = calloc(n, sizeof *pts);
    cr_assert_eq(catalog_points(c, pts, n), n);
    size_t with_mem = 0;
    for (size_t i = 0; i < n; i++) {
        const struct catalog_point *q = &pts[i];
        with_mem += q->mem_gib > 0;
        cr_assert_eq(q->mem_gib > 0, q->type == CAT_H100);
        if (q->gpus == 1) { /* one GPU: exactly what the catalogue answers */
            struct profile pr;
            cr_assert_eq(catalog_lookup(c, q->model, q->batch, q->type, 1, 1, &pr), CPN_OK);
            cr_assert_eq(pr.step_s, q->step_s);
            cr_assert(!pr.derived || q->type != CAT_H100);
            if (q->mem_gib > 0)
                cr_assert_eq(pr.mem_gib, q->mem_gib);
        }
    }
    cr_assert_eq(with_mem, 41);
    /* data/h100_profile.csv: resnet18 batch 32, 8.58 ms and 3284 MiB reserved. */
    int r18 = catalog_model_find(c, "resnet18");
    for (size_t i = 0; i < n; i++)
        if (pts[i].model == r18 && pts[i].batch == 32) {
            cr_assert_eq(pts[i].step_s, 8.58 / 1000);
            cr_assert_eq(pts[i].mem_gib, 3284 / 1024.0);
        }
    free(pts);
    catalog_destroy(c);
}

Test(predict, the_cross_validation_runs, .timeout = 60)
{
    struct catalog *c = embedded();
    struct predict_eval ev;
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(predict_eval(c, 1, 10, &ev, err, sizeof err), CPN_OK, "%s", err);
    cr_assert_eq(ev.n_step_points, 287);
    cr_assert_eq(ev.n_mem_points, 41);
    for (size_t r = 0; r < PREDICT_EVAL_METHODS * PREDICT_EVAL_CVS; r++) {
        const struct predict_eval_row *row = &ev.rows[r];
        bool type = strcmp(row->cv, "type") == 0, model = strcmp(row->cv, "model") == 0;
        cr_assert_eq(row->folds, type ? 4 : model ? 19 : 1, "%s %s", row->method, row->cv);
        /* Every measured point is held out once; the in-sample row asks the 13 H100
         * models' 42 listed batches on 4 types and 4 GPU counts. */
        cr_assert_eq(row->step.n, type || model ? 287 : 42 * 16);
        cr_assert_eq(row->mem[0].n, type ? 0 : model ? 41 : 42);
        cr_assert(isfinite(row->step.mape) && row->step.p90 >= 0);
        for (int k = 1; k < PREDICT_EVAL_NMARGINS && !type; k++)
            cr_assert_leq(row->mem[k].low, row->mem[k - 1].low,
                          "a larger margin cannot predict low more often");
    }
    catalog_destroy(c);
}

static void quiet(void)
{
    cr_redirect_stdout();
    cr_redirect_stderr();
}

Test(predict, the_command_prints_a_summary, .init = quiet)
{
    char *ok[] = {(char *)"predict", NULL};
    cr_assert_eq(cmd_predict(1, ok), 0);
    char *bad[] = {(char *)"predict", (char *)"--bogus", NULL};
    cr_assert_eq(cmd_predict(2, bad), 2);
    char *seed[] = {(char *)"predict", (char *)"--seed", (char *)"x", NULL};
    cr_assert_eq(cmd_predict(3, seed), 2);
}
