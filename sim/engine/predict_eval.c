/* predict_eval: the cross-validation of `cpnsim predict --eval` (see predict.h). Each
 * learned method is trained without one GPU type's points (or one model's), and
 * predicts them; and, trained on everything, it is compared with the simulator's truth
 * for the jobs `cpnsim gen` draws. Memory errors are given for several margins. */
#include "predict.h"
#include "predict_int.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"

/* ---- cross-validation ---- */

/* Absolute percentage errors and the share below the truth, summarised. */
static void summarise(struct predict_eval_err *e, double *ape, size_t n, size_t low)
{
    e->n = n;
    if (n == 0) {
        e->mape = e->p90 = e->low = NAN;
        return;
    }
    gsl_sort(ape, 1, n);
    e->mape = 100.0 * gsl_stats_mean(ape, 1, n);
    e->p90 = 100.0 * gsl_stats_quantile_from_sorted_data(ape, 1, n, 0.9);
    e->low = 100.0 * (double)low / (double)n;
}

/* Held-out predictions of one method under one kind of fold: step errors, and the
 * ratio of each raw memory prediction (no margin) to the truth. */
struct eval_acc {
    double *step_ape;
    size_t nstep, stepcap, steplow;
    double *mem_ratio;
    size_t nmem, memcap;
};

/* GPU counts at which the simulator's truth is compared (those Gavel measured). */
static const unsigned pred_eval_gpus[] = {1, 2, 4, 8};

/* The predictor options of every evaluation: the given forest size and no memory
 * margin, whose effect is computed afterwards from the ratios. */
static struct predictor_opts eval_opts(unsigned rf_trees)
{
    struct predictor_opts o = PREDICTOR_OPTS_DEFAULT;
    o.mem_margin = 0;
    o.rf_trees = rf_trees;
    return o;
}

/* Trained on every measured point, against the simulator's truth (catalog_lookup) for
 * the jobs `cpnsim gen` draws: every model of the H100 table at each of its listed
 * batches, on every catalogue type and 1, 2, 4 and 8 GPUs (memory: on one H100, as it
 * depends on neither). Most of that truth is derived by the catalogue's rules, not
 * measured; it is what a policy is told about in a simulation of generated jobs.
 * Gavel's models are left out: `cpnsim gen` does not draw them, and their simulated
 * memory is itself only the catalogue's fit. */
static int eval_insample(const struct catalog *cat, const char *spec, uint64_t seed,
                         unsigned rf_trees, struct eval_acc *acc, char *err, size_t errlen)
{
    struct predictor_opts o = eval_opts(rf_trees);
    struct predictor *p = NULL;
    int rc = predictor_create_opts(&p, spec, cat, seed, &o, err, errlen);
    if (rc != CPN_OK)
        return rc;
    for (size_t m = 0; m < p->nmodels; m++) {
        if (!catalog_model_on_h100(cat, (int)m))
            continue;
        size_t nb;
        const unsigned *b = catalog_model_batches(cat, (int)m, &nb);
        for (size_t k = 0; k < nb; k++) {
            struct profile pr, truth;
            for (int t = 0; t < CAT_NTYPES; t++)
                for (size_t g = 0; g < sizeof pred_eval_gpus / sizeof pred_eval_gpus[0]; g++) {
                    unsigned gpus = pred_eval_gpus[g];
                    CPN_ASSERT(predictor_profile(p, (int)m, b[k], t, 1.0, gpus, &pr) == 0);
                    CPN_ASSERT(catalog_lookup(cat, (int)m, b[k], t, 1.0, gpus, &truth) == 0);
                    cpn_grow((void **)&acc->step_ape, &acc->stepcap, acc->nstep + 1,
                             sizeof *acc->step_ape);
                    acc->step_ape[acc->nstep++] = fabs(pr.step_s - truth.step_s) / truth.step_s;
                    acc->steplow += pr.step_s < truth.step_s;
                }
            CPN_ASSERT(predictor_profile(p, (int)m, b[k], CAT_H100, 1.0, 1, &pr) == 0);
            CPN_ASSERT(catalog_lookup(cat, (int)m, b[k], CAT_H100, 1.0, 1, &truth) == 0);
            cpn_grow((void **)&acc->mem_ratio, &acc->memcap, acc->nmem + 1,
                     sizeof *acc->mem_ratio);
            acc->mem_ratio[acc->nmem++] = pr.mem_gib / truth.mem_gib;
        }
    }
    predictor_destroy(p);
    return CPN_OK;
}

/* One fold: trains a predictor of the spec without the held-out points and predicts
 * them as predictor_profile would, without the memory margin (whose effect is computed
 * afterwards from the ratios). */
static int eval_fold(const struct catalog *cat, const char *spec, uint64_t seed,
                     unsigned rf_trees, const struct pred_data *d, const bool *held,
                     struct eval_acc *acc, char *err, size_t errlen)
{
    struct predictor_opts o = eval_opts(rf_trees);
    struct predictor *p = NULL;
    int rc = pred_new(&p, spec, cat, seed, &o, err, errlen);
    if (rc != CPN_OK)
        return rc;
    bool *use = cpn_calloc(d->n + 1, sizeof *use);
    for (size_t i = 0; i < d->n; i++)
        use[i] = !held[i];
    rc = pred_train(p, d, use, false, err, errlen);
    for (size_t i = 0; rc == CPN_OK && i < d->n; i++) {
        if (!held[i])
            continue;
        const struct catalog_point *q = &d->pts[i];
        double step = pred_learned_step_s(p, q->model, q->batch, q->gpus, q->type);
        cpn_grow((void **)&acc->step_ape, &acc->stepcap, acc->nstep + 1, sizeof *acc->step_ape);
        acc->step_ape[acc->nstep++] = fabs(step - q->step_s) / q->step_s;
        acc->steplow += step < q->step_s;
        if (q->mem_gib > 0 && p->mem.trained) {
            cpn_grow((void **)&acc->mem_ratio, &acc->memcap, acc->nmem + 1,
                     sizeof *acc->mem_ratio);
            acc->mem_ratio[acc->nmem++] =
                pred_learned_mem_gib(p, q->model, q->batch, q->gpus, q->type) / q->mem_gib;
        }
    }
    free(use);
    predictor_destroy(p);
    return rc;
}

int predict_eval(const struct catalog *cat, uint64_t seed, unsigned rf_trees,
                 struct predict_eval *out, char *err, size_t errlen)
{
    static const char *const methods[PREDICT_EVAL_METHODS] = {"rf", "linear", "nn"};
    static const char *const cvs[PREDICT_EVAL_CVS] = {"type", "model", "none"};
    static const double margins[PREDICT_EVAL_NMARGINS] = PREDICT_EVAL_MARGINS;
    double t0 = cpn_wall_s();
    struct predictor_opts o = PREDICTOR_OPTS_DEFAULT;
    struct predictor *base = NULL;
    int rc = pred_new(&base, "rf", cat, seed, &o, err, errlen);
    if (rc != CPN_OK)
        return rc;
    struct pred_data d;
    pred_data_build(base, &d);
    size_t nmodels = base->nmodels;
    predictor_destroy(base);
    struct predict_eval res = {.n_step_points = d.n};
    memcpy(res.margins, margins, sizeof margins);
    for (size_t i = 0; i < d.n; i++)
        res.n_mem_points += d.pts[i].mem_gib > 0;
    if (d.n < 2)
        rc = cpn_fail(err, errlen, CPN_EINPUT, "predict --eval: the catalogue has %zu points",
                      d.n);

    bool *held = cpn_calloc(d.n + 1, sizeof *held);
    struct eval_acc acc = {0};
    for (size_t mi = 0; rc == CPN_OK && mi < PREDICT_EVAL_METHODS; mi++)
        for (size_t ci = 0; rc == CPN_OK && ci < PREDICT_EVAL_CVS; ci++) {
            struct predict_eval_row *row = &res.rows[mi * PREDICT_EVAL_CVS + ci];
            row->method = methods[mi];
            row->cv = cvs[ci];
            acc.nstep = acc.steplow = acc.nmem = 0;
            if (ci == 2) {
                row->folds = 1;
                rc = eval_insample(cat, methods[mi], seed, rf_trees, &acc, err, errlen);
            }
            size_t nfolds = ci == 0 ? CAT_NTYPES : ci == 1 ? nmodels : 0;
            for (size_t f = 0; rc == CPN_OK && f < nfolds; f++) {
                size_t nheld = 0;
                for (size_t i = 0; i < d.n; i++) {
                    held[i] = ci == 0 ? d.pts[i].type == (int)f : d.pts[i].model == (int)f;
                    nheld += held[i];
                }
                if (nheld == 0 || nheld == d.n)
                    continue;
                row->folds++;
                rc = eval_fold(cat, methods[mi], seed, rf_trees, &d, held, &acc, err, errlen);
            }
            if (rc != CPN_OK)
                break;
            summarise(&row->step, acc.step_ape, acc.nstep, acc.steplow);
            double *ape = cpn_calloc(acc.nmem + 1, sizeof *ape);
            for (size_t k = 0; k < PREDICT_EVAL_NMARGINS; k++) {
                size_t low = 0;
                for (size_t i = 0; i < acc.nmem; i++) {
                    double r = acc.mem_ratio[i] * (1.0 + margins[k]);
                    ape[i] = fabs(r - 1.0);
                    low += r < 1.0;
                }
                summarise(&row->mem[k], ape, acc.nmem, low);
            }
            free(ape);
        }
    free(acc.mem_ratio);
    free(acc.step_ape);
    free(held);
    pred_data_free(&d);
    if (rc != CPN_OK)
        return rc;
    res.wall_s = cpn_wall_s() - t0;
    *out = res;
    return CPN_OK;
}
