/* predict: what the controller believes about step time and peak GPU memory.
 *
 * The learned methods (rf, linear, nn) see a (model, batch, GPU type, GPU count) as a
 * vector of features: of the job, its log parameter count, log batch and log2 GPU count
 * and its model family one-hot; of the GPU type, its log memory, log speed relative to
 * the H100 and log step times of three reference models on it ("benchmark scores", as
 * the original controller benchmarked ResNet-50, a YOLO-class detector and a Llama model
 * on every server). They train, once at creation, on the catalogue's measured points
 * (catalog_points), three targets, each with the same method:
 *  - step: log(step_s x speed) of the one-GPU points -- the step time divided by what
 *    the speed rule alone (ResNet-50's ratio between types) would give, so the method
 *    only learns how a model departs from that rule; trees cannot extrapolate, and
 *    without it could say nothing of a type slower or faster than all they saw;
 *  - multi: log(step on G GPUs / step on one) of Gavel's multi-GPU points;
 *  - memory: log(mem_gib) of the H100 rows, the only ones with measured memory.
 *
 * The catalogue measures the H100 table's 13 models on the H100 only and Gavel's on the
 * older types only (ResNet-50 on both), so a type feature tells the two sets apart as
 * well as any model feature does. Asked about a model on a type it was never measured
 * on, a forest would answer from the other set's models: the H100 table's models on a
 * V100 came out 3 to 10 times too fast. So a model is asked about on the type closest in
 * speed on which it was measured, scaled by the speed ratio (the catalogue's own rule 1);
 * a model measured nowhere is asked about as it is. Memory predictions are raised by a
 * safety margin (PREDICT_DEFAULT_MEM_MARGIN, PREDICT_NN_MEM_MARGIN).
 *
 * oracle is catalog_lookup; noisy:SIGMA multiplies it by exp(SIGMA z), z a standard
 * normal drawn from a hash of (seed, model, batch, type, gpus): the same question always
 * gets the same answer and the predictor keeps no mutable state. A type with no
 * catalogue profile (-1) is predicted as an H100 and divided by its speed, the rule the
 * catalogue itself uses for such types. */
#include "predict.h"
#include "predict_int.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rf.h"
#include "../base/util.h"

/* The tunables of the learned methods, with their defaults, in one place. The forest's
 * were chosen on the cross-validation of `cpnsim predict --eval` (docs/predictor.md). */
static const struct {
    unsigned rf_trees;
    unsigned rf_max_depth;
    unsigned rf_min_leaf;
    unsigned rf_mtry; /* 0: a third of the features */
    /* linear: a column whose part not explained by the earlier columns has a norm below
     * this fraction of its own is (numerically) collinear with them and is dropped */
    double collinear_tol;
} pred_tun = {
    .rf_trees = RF_DEFAULT_TREES,
    .rf_max_depth = RF_DEFAULT_MAX_DEPTH,
    .rf_min_leaf = RF_DEFAULT_MIN_LEAF,
    .rf_mtry = RF_DEFAULT_MTRY,
    .collinear_tol = 1e-8,
};

/* Reference models whose step time on a type is its benchmark score, each at a batch
 * the H100 table measured. A catalogue without one gives that score 0 on every type. */
static const struct {
    const char *model;
    unsigned batch;
    const char *feature;
} pred_bench[PRED_NBENCH] = {
    {"resnet50", 64, "log_bench_resnet50"},
    {"fasterrcnn_resnet50_fpn", 8, "log_bench_detector"},
    {"llama_1b", 1, "log_bench_llama_1b"},
};

static const char *const pred_base_names[PF_NBASE] = {
    "log_params_m", "log_batch", "log2_gpus", "log_gpu_mem_gib", "log_speed",
    "log_bench_resnet50", "log_bench_detector", "log_bench_llama_1b",
};
/* ---- features ---- */

/* Families, benchmark scores and feature names from the catalogue. Returns 0, or
 * CPN_EINPUT when it has more families than PRED_MAX_FAMILIES. */
static int pred_setup(struct predictor *p, char *err, size_t errlen)
{
    const struct catalog *c = p->cat;
    p->nmodels = catalog_model_count(c);
    p->known = cpn_calloc(p->nmodels ? p->nmodels : 1, sizeof *p->known);
    p->unseen = cpn_calloc(p->nmodels ? p->nmodels : 1, sizeof *p->unseen);
    p->measured = cpn_calloc(p->nmodels * CAT_NTYPES + 1, sizeof *p->measured);
    p->fam = cpn_calloc(p->nmodels ? p->nmodels : 1, sizeof *p->fam);
    const char *fams[PRED_MAX_FAMILIES];
    for (size_t m = 0; m < p->nmodels; m++) {
        const char *f = catalog_model_family(c, (int)m);
        size_t k = 0;
        while (k < p->nfam && strcmp(fams[k], f) != 0)
            k++;
        if (k == p->nfam) {
            if (p->nfam == PRED_MAX_FAMILIES)
                return cpn_fail(err, errlen, CPN_EINPUT,
                                "--predictor: the catalogue has more than %d model families",
                                PRED_MAX_FAMILIES);
            fams[p->nfam++] = f;
        }
        p->fam[m] = (int)k;
    }
    p->p = PF_NBASE + p->nfam;
    for (size_t j = 0; j < PF_NBASE; j++)
        snprintf(p->names[j], PRED_NAME_LEN, "%s", pred_base_names[j]);
    for (size_t k = 0; k < p->nfam; k++)
        snprintf(p->names[PF_NBASE + k], PRED_NAME_LEN, "family_%s", fams[k]);
    for (size_t j = 0; j < p->p; j++)
        p->name_ptr[j] = p->names[j];

    for (int t = 0; t < CAT_NTYPES; t++) {
        double *x = p->type_x[t];
        x[PF_LOG_GPU_MEM] = log(catalog_type_measured_mem_gib(t));
        x[PF_LOG_SPEED] = log(catalog_type_speed(c, t));
        for (int b = 0; b < PRED_NBENCH; b++) {
            int m = catalog_model_find(c, pred_bench[b].model);
            struct profile pr;
            x[PF_BENCH + b] =
                m >= 0 && catalog_lookup(c, m, pred_bench[b].batch, t, 1.0, 1, &pr) == CPN_OK
                    ? log(pr.step_s)
                    : 0.0;
        }
    }
    return CPN_OK;
}

static void features(const struct predictor *p, int model, unsigned batch, unsigned gpus,
                     int type, double *x)
{
    memcpy(x, p->type_x[type], PF_NBASE * sizeof *x);
    double params = catalog_model_params_m(p->cat, model);
    x[PF_LOG_PARAMS] = params > 0 ? log(params) : 0.0;
    x[PF_LOG_BATCH] = log((double)batch);
    x[PF_LOG2_GPUS] = log2((double)gpus);
    for (size_t k = 0; k < p->nfam; k++)
        x[PF_NBASE + k] = p->fam[model] == (int)k ? 1.0 : 0.0;
}

/* The training table: features of every measured point and its three targets, NaN
 * where the point has none: the normalised log step (one-GPU points), the log ratio of
 * its step to the one-GPU step of the same model, batch and type (multi-GPU points whose
 * one-GPU step was measured) and the log memory (H100 rows). */
void pred_data_build(const struct predictor *p, struct pred_data *d)
{
    d->n = catalog_points(p->cat, NULL, 0);
    d->pts = cpn_calloc(d->n ? d->n : 1, sizeof *d->pts);
    catalog_points(p->cat, d->pts, d->n);
    d->x = cpn_calloc(d->n * p->p + 1, sizeof *d->x);
    d->ystep = cpn_calloc(d->n + 1, sizeof *d->ystep);
    d->ymulti = cpn_calloc(d->n + 1, sizeof *d->ymulti);
    d->ymem = cpn_calloc(d->n + 1, sizeof *d->ymem);
    for (size_t i = 0; i < d->n; i++) {
        const struct catalog_point *q = &d->pts[i];
        features(p, q->model, q->batch, q->gpus, q->type, &d->x[i * p->p]);
        d->ystep[i] = q->gpus == 1 ? log(q->step_s) + log(catalog_type_speed(p->cat, q->type))
                                   : NAN;
        d->ymulti[i] = NAN;
        /* catalog_points orders a (model, batch, type)'s GPU counts together, one first. */
        for (size_t k = i; q->gpus > 1 && k-- > 0;) {
            const struct catalog_point *o = &d->pts[k];
            if (o->model != q->model || o->batch != q->batch || o->type != q->type)
                break;
            if (o->gpus == 1)
                d->ymulti[i] = log(q->step_s / o->step_s);
        }
        d->ymem[i] = q->mem_gib > 0 ? log(q->mem_gib) : NAN;
    }
}

void pred_data_free(struct pred_data *d)
{
    free(d->pts);
    free(d->x);
    free(d->ystep);
    free(d->ymulti);
    free(d->ymem);
}

/* ---- the three methods ---- */

/* Least squares of y on an intercept and the features, over the rows in use. Columns
 * that are constant or collinear with earlier ones (the last family column with the
 * intercept; benchmark scores that are the speed rule in disguise) are dropped by a
 * Gram-Schmidt pass before gsl_multifit_linear, and get coefficient 0. */
static void linear_fit(struct pred_model *pm, const double *x, const double *y,
                       const size_t *rows, size_t m, size_t p)
{
    size_t ncol = p + 1;
    double *q = cpn_calloc(m * ncol, sizeof *q); /* orthonormal basis, column-major */
    double *v = cpn_calloc(m, sizeof *v);
    size_t *keep = cpn_calloc(ncol, sizeof *keep);
    size_t k = 0;
    for (size_t c = 0; c < ncol; c++) {
        double norm0 = 0;
        for (size_t i = 0; i < m; i++) {
            v[i] = c == 0 ? 1.0 : x[rows[i] * p + c - 1];
            norm0 += v[i] * v[i];
        }
        norm0 = sqrt(norm0);
        if (!(norm0 > 0))
            continue;
        for (int pass = 0; pass < 2; pass++) /* twice: classical Gram-Schmidt loses accuracy */
            for (size_t b = 0; b < k; b++) {
                double dot = 0;
                for (size_t i = 0; i < m; i++)
                    dot += q[b * m + i] * v[i];
                for (size_t i = 0; i < m; i++)
                    v[i] -= dot * q[b * m + i];
            }
        double norm = 0;
        for (size_t i = 0; i < m; i++)
            norm += v[i] * v[i];
        norm = sqrt(norm);
        if (norm <= pred_tun.collinear_tol * norm0 || k == m)
            continue;
        for (size_t i = 0; i < m; i++)
            q[k * m + i] = v[i] / norm;
        keep[k++] = c;
    }
    memset(pm->lin, 0, sizeof pm->lin);
    gsl_matrix *xm = gsl_matrix_alloc(m, k);
    gsl_vector *yv = gsl_vector_alloc(m);
    gsl_vector *coef = gsl_vector_alloc(k);
    gsl_matrix *cov = gsl_matrix_alloc(k, k);
    gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(m, k);
    if (!xm || !yv || !coef || !cov || !w)
        cpn_panic(__FILE__, __LINE__, "GSL allocation failed");
    for (size_t i = 0; i < m; i++) {
        for (size_t b = 0; b < k; b++)
            gsl_matrix_set(xm, i, b, keep[b] == 0 ? 1.0 : x[rows[i] * p + keep[b] - 1]);
        gsl_vector_set(yv, i, y[rows[i]]);
    }
    double chisq;
    gsl_multifit_linear(xm, yv, coef, cov, &chisq, w);
    for (size_t b = 0; b < k; b++)
        pm->lin[keep[b]] = gsl_vector_get(coef, b);
    gsl_multifit_linear_free(w);
    gsl_matrix_free(cov);
    gsl_vector_free(coef);
    gsl_vector_free(yv);
    gsl_matrix_free(xm);
    free(keep);
    free(v);
    free(q);
}

static double linear_predict(const struct pred_model *pm, const double *x, size_t p)
{
    double s = pm->lin[0];
    for (size_t j = 0; j < p; j++)
        s += pm->lin[j + 1] * x[j];
    return s;
}

/* Nearest neighbour: rows standardised by the training mean and standard deviation of
 * each feature; a feature constant in training is ignored. */
static void nn_fit(struct pred_model *pm, const double *x, const double *y, const size_t *rows,
                   size_t m, size_t p)
{
    double *col = cpn_calloc(m, sizeof *col);
    for (size_t j = 0; j < p; j++) {
        for (size_t i = 0; i < m; i++)
            col[i] = x[rows[i] * p + j];
        pm->nn_mean[j] = gsl_stats_mean(col, 1, m);
        double sd = m > 1 ? gsl_stats_sd_m(col, 1, m, pm->nn_mean[j]) : 0.0;
        pm->nn_scale[j] = sd > 0 ? 1.0 / sd : 0.0;
    }
    free(col);
    pm->nn_x = cpn_calloc(m * p, sizeof *pm->nn_x);
    pm->nn_y = cpn_calloc(m, sizeof *pm->nn_y);
    for (size_t i = 0; i < m; i++) {
        for (size_t j = 0; j < p; j++)
            pm->nn_x[i * p + j] = (x[rows[i] * p + j] - pm->nn_mean[j]) * pm->nn_scale[j];
        pm->nn_y[i] = y[rows[i]];
    }
}

static double nn_predict(const struct pred_model *pm, const double *x, size_t p)
{
    double z[PRED_MAX_FEATURES];
    for (size_t j = 0; j < p; j++)
        z[j] = (x[j] - pm->nn_mean[j]) * pm->nn_scale[j];
    size_t best = 0;
    double bestd = INFINITY;
    for (size_t i = 0; i < pm->n; i++) {
        double d = 0;
        for (size_t j = 0; j < p; j++) {
            double e = pm->nn_x[i * p + j] - z[j];
            d += e * e;
        }
        if (d < bestd) { /* strict: ties go to the first measured point */
            bestd = d;
            best = i;
        }
    }
    return pm->nn_y[best];
}

static void model_free(struct pred_model *pm)
{
    rf_destroy(pm->rf);
    free(pm->nn_x);
    free(pm->nn_y);
    memset(pm, 0, sizeof *pm);
}

/* Trains one target on the rows in use, by the predictor's method. */
static int model_fit(const struct predictor *p, struct pred_model *pm, const double *x,
                     const double *y, const size_t *rows, size_t m, uint64_t seed, char *err,
                     size_t errlen)
{
    pm->n = m;
    pm->oob_mape = NAN;
    if (p->kind == PRED_LINEAR) {
        linear_fit(pm, x, y, rows, m, p->p);
    } else if (p->kind == PRED_NN) {
        nn_fit(pm, x, y, rows, m, p->p);
    } else {
        double *xs = cpn_calloc(m * p->p, sizeof *xs);
        double *ys = cpn_calloc(m, sizeof *ys);
        double *oob = cpn_calloc(m, sizeof *oob);
        for (size_t i = 0; i < m; i++) {
            memcpy(&xs[i * p->p], &x[rows[i] * p->p], p->p * sizeof *xs);
            ys[i] = y[rows[i]];
        }
        struct rf_params prm = RF_PARAMS_DEFAULT;
        prm.n_trees = p->rf_trees;
        prm.max_depth = pred_tun.rf_max_depth;
        prm.min_leaf = pred_tun.rf_min_leaf;
        prm.mtry = pred_tun.rf_mtry;
        prm.seed = seed;
        int rc = rf_train(&pm->rf, xs, m, p->p, ys, &prm, oob, err, errlen);
        if (rc == CPN_OK) {
            double s = 0;
            size_t n = 0;
            for (size_t i = 0; i < m; i++)
                if (!isnan(oob[i])) {
                    s += fabs(exp(oob[i] - ys[i]) - 1.0);
                    n++;
                }
            pm->oob_mape = n ? 100.0 * s / (double)n : NAN;
        }
        free(oob);
        free(ys);
        free(xs);
        if (rc != CPN_OK)
            return rc;
    }
    pm->trained = true;
    return CPN_OK;
}

static double model_predict(const struct predictor *p, const struct pred_model *pm,
                            const double *x)
{
    CPN_ASSERT(pm->trained);
    switch (p->kind) {
    case PRED_RF: return rf_predict(pm->rf, x);
    case PRED_LINEAR: return linear_predict(pm, x, p->p);
    case PRED_NN: return nn_predict(pm, x, p->p);
    default: cpn_panic(__FILE__, __LINE__, "not a learned predictor");
    }
}

/* The type on which to ask about a model for type t: t when the model was measured on
 * it, else the type closest in speed (|log ratio|, ties to the lower) on which it was,
 * else t (a model measured nowhere). */
static int query_type(const struct predictor *p, int model, int t)
{
    const bool *ms = &p->measured[(size_t)model * CAT_NTYPES];
    if (ms[t])
        return t;
    int best = t;
    double bestd = INFINITY;
    for (int s = 0; s < CAT_NTYPES; s++) {
        double dist = fabs(log(catalog_type_speed(p->cat, s) / catalog_type_speed(p->cat, t)));
        if (ms[s] && dist < bestd) {
            best = s;
            bestd = dist;
        }
    }
    return best;
}

/* The learned step time of (model, batch) on `gpus` GPUs of catalogue type t: the
 * one-GPU step (asked on query_type, the speed normalisation undone for t) times the
 * multi-GPU factor (asked on t itself; 1 when there was nothing to learn it from). */
double pred_learned_step_s(const struct predictor *p, int model, unsigned batch, unsigned gpus,
                           int t)
{
    double x[PRED_MAX_FEATURES];
    features(p, model, batch, 1, query_type(p, model, t), x);
    double step = exp(model_predict(p, &p->step, x)) / catalog_type_speed(p->cat, t);
    if (gpus > 1 && p->multi.trained) {
        features(p, model, batch, gpus, t, x);
        step *= exp(model_predict(p, &p->multi, x));
    }
    return step;
}

/* The learned peak memory per GPU, before the margin. */
double pred_learned_mem_gib(const struct predictor *p, int model, unsigned batch, unsigned gpus,
                            int t)
{
    double x[PRED_MAX_FEATURES];
    features(p, model, batch, gpus, t, x);
    return exp(model_predict(p, &p->mem, x));
}

/* The rows of d in use that have target y; returns their count. */
static size_t rows_with(const struct pred_data *d, const bool *use, const double *y,
                        size_t *rows)
{
    size_t m = 0;
    for (size_t i = 0; i < d->n; i++)
        if (use[i] && !isnan(y[i]))
            rows[m++] = i;
    return m;
}

/* Seeds of the three models: distinct, so that their forests draw differently. */
enum { PRED_SEED_STEP, PRED_SEED_MULTI, PRED_SEED_MEM };

/* Trains the three models on the rows of d with use[i]. The step model needs rows; the
 * multi-GPU model without rows is left out (factor 1); the memory model without rows is
 * left untrained when need_mem is false, else it is CPN_EINPUT. */
int pred_train(struct predictor *p, const struct pred_data *d, const bool *use, bool need_mem,
               char *err, size_t errlen)
{
    double t0 = cpn_wall_s();
    size_t *rows = cpn_calloc(d->n + 1, sizeof *rows);
    size_t m = rows_with(d, use, d->ystep, rows);
    for (size_t k = 0; k < m; k++) {
        const struct catalog_point *q = &d->pts[rows[k]];
        p->known[q->model] = true;
        p->measured[(size_t)q->model * CAT_NTYPES + (size_t)q->type] = true;
    }
    int rc = m ? model_fit(p, &p->step, d->x, d->ystep, rows, m, p->seed + PRED_SEED_STEP, err,
                           errlen)
               : cpn_fail(err, errlen, CPN_EINPUT,
                          "--predictor: no measured one-GPU step times to train on");
    m = rows_with(d, use, d->ymulti, rows);
    if (rc == CPN_OK && m)
        rc = model_fit(p, &p->multi, d->x, d->ymulti, rows, m, p->seed + PRED_SEED_MULTI, err,
                       errlen);
    m = rows_with(d, use, d->ymem, rows);
    if (rc == CPN_OK && m)
        rc = model_fit(p, &p->mem, d->x, d->ymem, rows, m, p->seed + PRED_SEED_MEM, err, errlen);
    else if (rc == CPN_OK && need_mem)
        rc = cpn_fail(err, errlen, CPN_EINPUT,
                      "--predictor: no measured memory to train on (memory is measured on "
                      "the H100 table only)");
    free(rows);
    p->train_s = cpn_wall_s() - t0;
    return rc;
}

/* ---- specs ---- */

static const char pred_known_specs[] =
    "known: rf, linear, nn (each optionally with :margin=X and :unseen=MODEL[+MODEL...]), "
    "oracle, noisy:SIGMA";

static int bad_spec(char *err, size_t errlen, const char *spec, const char *why)
{
    return cpn_fail(err, errlen, CPN_EINPUT, "--predictor: '%s': %s (%s)", spec, why,
                    pred_known_specs);
}

/* Marks the models of a '+'-separated list (of len bytes) as unseen. */
static int parse_unseen(struct predictor *p, const char *spec, const char *list, size_t len,
                        char *err, size_t errlen)
{
    while (len > 0) {
        const char *plus = memchr(list, '+', len);
        size_t n = plus ? (size_t)(plus - list) : len;
        char name[PRED_NAME_LEN];
        int m = -1;
        if (n > 0 && n < sizeof name) {
            memcpy(name, list, n);
            name[n] = '\0';
            m = catalog_model_find(p->cat, name);
        }
        if (m < 0) {
            char why[PRED_NAME_LEN + 64];
            snprintf(why, sizeof why, "unseen: '%.*s' is not a catalogue model",
                     (int)(n < PRED_NAME_LEN ? n : PRED_NAME_LEN), list);
            return bad_spec(err, errlen, spec, why);
        }
        p->unseen[m] = true;
        list += n + (plus != NULL);
        len -= n + (plus != NULL);
    }
    return CPN_OK;
}

/* Parses a spec into p's kind, sigma, memory margin (the spec's, else *margin_opt when
 * >= 0, else the method's default) and unseen models. Returns 0 or CPN_EINPUT with a
 * message. */
static int parse_spec(struct predictor *p, const char *spec, const double *margin_opt,
                      char *err, size_t errlen)
{
    static const struct {
        const char *name;
        enum pred_kind kind;
    } learned[] = {{"rf", PRED_RF}, {"linear", PRED_LINEAR}, {"nn", PRED_NN}};
    static const char noisy[] = "noisy:", margin[] = "margin=", unseen[] = "unseen=";
    if (strcmp(spec, "oracle") == 0) {
        p->kind = PRED_ORACLE;
        return CPN_OK;
    }
    if (strncmp(spec, noisy, strlen(noisy)) == 0) {
        double s;
        if (cpn_parse_double(spec + strlen(noisy), &s) != CPN_OK || s < 0)
            return bad_spec(err, errlen, spec, "SIGMA must be a number >= 0");
        p->kind = PRED_NOISY;
        p->sigma = s;
        return CPN_OK;
    }
    size_t i = 0, len = 0;
    for (; i < sizeof learned / sizeof learned[0]; i++) {
        len = strlen(learned[i].name);
        if (strncmp(spec, learned[i].name, len) == 0 && (spec[len] == '\0' || spec[len] == ':'))
            break;
    }
    if (i == sizeof learned / sizeof learned[0])
        return bad_spec(err, errlen, spec, "unknown predictor");
    p->kind = learned[i].kind;
    p->mem_margin = *margin_opt >= 0 ? *margin_opt : predictor_default_margin(learned[i].name);
    for (const char *opt = spec + len; *opt == ':';) {
        opt++;
        size_t n = strcspn(opt, ":");
        if (strncmp(opt, margin, strlen(margin)) == 0) {
            char num[64];
            size_t k = n - strlen(margin);
            double x;
            if (k >= sizeof num)
                return bad_spec(err, errlen, spec, "the margin must be a number >= 0");
            memcpy(num, opt + strlen(margin), k);
            num[k] = '\0';
            if (cpn_parse_double(num, &x) != CPN_OK || x < 0)
                return bad_spec(err, errlen, spec, "the margin must be a number >= 0");
            p->mem_margin = x;
        } else if (strncmp(opt, unseen, strlen(unseen)) == 0) {
            int rc = parse_unseen(p, spec, opt + strlen(unseen), n - strlen(unseen), err, errlen);
            if (rc != CPN_OK)
                return rc;
        } else {
            return bad_spec(err, errlen, spec, "unknown option (margin=X, unseen=MODEL)");
        }
        opt += n;
    }
    return CPN_OK;
}

/* ---- the interface ---- */

double predictor_default_margin(const char *method)
{
    if (strcmp(method, "rf") == 0 || strcmp(method, "linear") == 0)
        return PREDICT_DEFAULT_MEM_MARGIN;
    if (strcmp(method, "nn") == 0)
        return PREDICT_NN_MEM_MARGIN;
    return 0.0;
}

static bool is_learned(const struct predictor *p)
{
    return p->kind == PRED_RF || p->kind == PRED_LINEAR || p->kind == PRED_NN;
}

/* A predictor of the spec with nothing trained. */
int pred_new(struct predictor **out, const char *spec, const struct catalog *cat, uint64_t seed,
             const struct predictor_opts *o, char *err, size_t errlen)
{
    CPN_ASSERT(out && cat && o);
    if (!spec)
        spec = "rf";
    struct predictor *p = cpn_calloc(1, sizeof *p);
    p->cat = cat;
    p->seed = seed;
    p->rf_trees = o->rf_trees ? o->rf_trees : pred_tun.rf_trees;
    int rc = pred_setup(p, err, errlen);
    if (rc == CPN_OK)
        rc = parse_spec(p, spec, &o->mem_margin, err, errlen);
    if (rc == CPN_OK && !(isfinite(p->mem_margin) && p->mem_margin >= 0))
        rc = cpn_fail(err, errlen, CPN_EINPUT, "--predictor: the margin must be >= 0");
    if (rc != CPN_OK) {
        predictor_destroy(p);
        return rc;
    }
    p->spec = cpn_strdup(spec);
    *out = p;
    return CPN_OK;
}

int predictor_create_opts(struct predictor **out, const char *spec, const struct catalog *cat,
                          uint64_t seed, const struct predictor_opts *o, char *err,
                          size_t errlen)
{
    struct predictor *p = NULL;
    int rc = pred_new(&p, spec, cat, seed, o, err, errlen);
    if (rc != CPN_OK)
        return rc;
    if (o->exclude_model < -1 || o->exclude_model >= (int)p->nmodels ||
        o->exclude_type < -1 || o->exclude_type >= CAT_NTYPES)
        rc = cpn_fail(err, errlen, CPN_EINPUT, "--predictor: excluded model or type out of range");
    if (rc == CPN_OK && !is_learned(p)) {
        /* oracle and noisy answer from the catalogue: every model of it is known. */
        for (size_t m = 0; m < p->nmodels; m++)
            p->known[m] = (int)m != o->exclude_model;
    } else if (rc == CPN_OK) {
        struct pred_data d;
        pred_data_build(p, &d);
        bool *use = cpn_calloc(d.n + 1, sizeof *use);
        for (size_t i = 0; i < d.n; i++)
            use[i] = d.pts[i].model != o->exclude_model && d.pts[i].type != o->exclude_type &&
                     !p->unseen[d.pts[i].model];
        rc = pred_train(p, &d, use, true, err, errlen);
        free(use);
        pred_data_free(&d);
    }
    if (rc != CPN_OK) {
        predictor_destroy(p);
        return rc;
    }
    *out = p;
    return CPN_OK;
}

int predictor_create(struct predictor **out, const char *spec, const struct catalog *cat,
                     uint64_t seed, char *err, size_t errlen)
{
    struct predictor_opts o = PREDICTOR_OPTS_DEFAULT;
    return predictor_create_opts(out, spec, cat, seed, &o, err, errlen);
}

/* A predictor_create that may run on a thread of its own: its arguments and result. */
struct predictor_pending {
    const char *spec;
    const struct catalog *cat;
    uint64_t seed;
    struct cpn_thread *thread; /* NULL: predictor_create_end trains */
    struct predictor *p;
    int rc;
    char err[CPN_ERR_LEN];
};

static int pending_run(void *arg)
{
    struct predictor_pending *pc = arg;
    pc->rc = predictor_create(&pc->p, pc->spec, pc->cat, pc->seed, pc->err, sizeof pc->err);
    return 0;
}

struct predictor_pending *predictor_create_begin(const char *spec, const struct catalog *cat,
                                                 uint64_t seed)
{
    struct predictor_pending *pc = cpn_malloc(sizeof *pc);
    *pc = (struct predictor_pending){.spec = spec, .cat = cat, .seed = seed};
    pc->thread = cpn_thread_start(pending_run, pc);
    return pc;
}

int predictor_create_end(struct predictor_pending *pc, struct predictor **out, char *err,
                         size_t errlen)
{
    if (pc->thread)
        cpn_thread_join(pc->thread);
    else
        pending_run(pc);
    int rc = pc->rc;
    if (rc == CPN_OK)
        *out = pc->p;
    else
        cpn_fail(err, errlen, rc, "%s", pc->err);
    free(pc);
    return rc;
}

void predictor_destroy(struct predictor *p)
{
    if (!p)
        return;
    model_free(&p->step);
    model_free(&p->multi);
    model_free(&p->mem);
    free(p->known);
    free(p->unseen);
    free(p->measured);
    free(p->fam);
    free(p->spec);
    free(p);
}

const char *predictor_spec(const struct predictor *p) { return p->spec; }

const char *const *predictor_feature_names(const struct predictor *p, size_t *n)
{
    *n = p->p;
    return p->name_ptr;
}

/* Which noise a draw is for: step time and memory get independent draws. */
enum { PRED_NOISE_STEP = 1, PRED_NOISE_MEM = 2, PRED_NOISE_JOB = 3 };

/* A standard normal that depends only on (seed, model, batch, type, gpus, what): a
 * hash turned into a uniform in (0, 1) and through the inverse normal CDF. */
static double noise_z(uint64_t seed, int model, unsigned batch, int type, unsigned gpus,
                      unsigned what)
{
    uint64_t h = cpn_mix64(seed);
    h = cpn_mix64(h ^ (uint64_t)(int64_t)model);
    h = cpn_mix64(h ^ batch);
    h = cpn_mix64(h ^ (uint64_t)(int64_t)type);
    h = cpn_mix64(h ^ gpus);
    h = cpn_mix64(h ^ what);
    double u = ((double)(h >> 11) + 0.5) * 0x1p-53;
    return gsl_cdf_ugaussian_Pinv(u);
}

/* The most noisy's exponent SIGMA z may be either way: its factor stays within
 * [exp(-20), exp(20)], about [2.1e-9, 4.9e8]. A larger SIGMA (noisy:1000) would make a
 * prediction 0 or infinite (exp underflows or overflows), a run time no arithmetic on
 * times survives (inf - inf) and a step time no CPU demand can be derived from. Any
 * SIGMA up to 2.4 is never limited (|z| <= 8.3 for a uniform of 53 bits). */
#define PRED_NOISE_MAX_LOG 20.0

/* exp(sigma z), its exponent limited to +-PRED_NOISE_MAX_LOG. */
static double noise_factor(double sigma, double z)
{
    double x = sigma * z;
    return exp(x > PRED_NOISE_MAX_LOG ? PRED_NOISE_MAX_LOG
                                      : x < -PRED_NOISE_MAX_LOG ? -PRED_NOISE_MAX_LOG : x);
}

int predictor_profile(const struct predictor *p, int model, unsigned batch, int cat_type,
                      double speed, unsigned gpus, struct profile *out)
{
    CPN_ASSERT(p && out);
    if (!is_learned(p)) {
        int rc = catalog_lookup(p->cat, model, batch, cat_type, speed, gpus, out);
        if (rc == CPN_OK && p->kind == PRED_NOISY) {
            out->step_s *= noise_factor(
                p->sigma, noise_z(p->seed, model, batch, cat_type, gpus, PRED_NOISE_STEP));
            out->mem_gib *= noise_factor(
                p->sigma, noise_z(p->seed, model, batch, cat_type, gpus, PRED_NOISE_MEM));
        }
        return rc;
    }
    if (model < 0 || (size_t)model >= p->nmodels || batch == 0 || gpus == 0 || cat_type < -1 ||
        cat_type >= CAT_NTYPES || (cat_type < 0 && !(isfinite(speed) && speed > 0)))
        return CPN_EINPUT;
    int t = cat_type < 0 ? CAT_H100 : cat_type;
    double step = pred_learned_step_s(p, model, batch, gpus, t);
    if (cat_type < 0)
        step /= speed;
    double mem = pred_learned_mem_gib(p, model, batch, gpus, t) * (1.0 + p->mem_margin);
    *out = (struct profile){.step_s = step, .mem_gib = mem, .derived = true};
    return CPN_OK;
}

bool predictor_sees_truth(const struct predictor *p) { return !is_learned(p); }

double predictor_mem_margin(const struct predictor *p) { return is_learned(p) ? p->mem_margin : 0.0; }

double predictor_job_noise(const struct predictor *p, uint64_t key, unsigned what)
{
    if (p->kind != PRED_NOISY)
        return 1.0;
    /* A job's own quantities are drawn apart from the catalogue's: model -2 is no model. */
    uint64_t lo = key & 0xffffffffu, hi = key >> 32;
    return noise_factor(p->sigma, noise_z(p->seed ^ cpn_mix64(hi), -2, (unsigned)lo, -2, 0,
                                          PRED_NOISE_JOB + what));
}

bool predictor_knows(const struct predictor *p, int model)
{
    return model >= 0 && (size_t)model < p->nmodels && p->known[model];
}

void predictor_get_info(const struct predictor *p, struct predictor_info *out)
{
    *out = (struct predictor_info){
        .n_step = p->step.n, .n_multi = p->multi.n, .n_mem = p->mem.n, .n_features = p->p,
        .rf_trees = p->kind == PRED_RF ? p->rf_trees : 0,
        .rf_nodes_step = p->step.rf ? rf_nodes(p->step.rf) : 0,
        .rf_nodes_multi = p->multi.rf ? rf_nodes(p->multi.rf) : 0,
        .rf_nodes_mem = p->mem.rf ? rf_nodes(p->mem.rf) : 0, .train_s = p->train_s,
        .oob_step_mape = p->step.oob_mape, .oob_multi_mape = p->multi.oob_mape,
        .oob_mem_mape = p->mem.oob_mape};
    if (!is_learned(p))
        out->oob_step_mape = out->oob_multi_mape = out->oob_mem_mape = NAN;
}
