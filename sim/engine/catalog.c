/* catalog: the profile catalogue. At creation it reads four measured tables once:
 * the H100 profile (step time and peak memory per model and batch), Gavel's
 * throughputs on V100, P100 and K80 (alone on 1, 2, 4 or 8 GPUs), the H100
 * co-location slow-downs and the CPU cost per sample of input pipelines, which
 * cat_pipe_rules maps to the models. Each model keeps one point per batch measured on
 * any type, sorted by batch; everything a lookup needs that is not a point (the type speeds, the
 * median multi-GPU efficiencies, the memory fit for models the H100 table lacks, the
 * time-slicing overhead) is computed here once, so lookups only search a handful of
 * points and never allocate. The derivation rules are documented, with the numbers
 * they give on the embedded data, in docs/catalogue.md. This file holds the models,
 * the derivations and the lookups; the tables' readers are in catalog_load.c. */
#include "catalog_int.h"

#include "../base/embed.h"
#include "../base/util.h"

#include <ctype.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The tables declared in catalog_int.h. */

const struct cat_tunables cat_tun = {
    .reference_model = "resnet50",
    .mem_floor_frac = 0.5,
    .colocate_sharers = 2,
    .gavel_default_batch = 1,
};

const unsigned cat_gpu_counts[CAT_NCOUNTS] = {1, 2, 4, 8};

const char *const cat_type_names[CAT_NTYPES] = {"h100", "v100", "p100", "k80"};

const struct cat_family cat_families[CAT_NFAMILIES] = {
    /* ImageNet-1k train set: ~140 GiB of JPEGs over 1.28 M images, ~110 KiB each. */
    {"vision", 110 * CAT_KIB},
    /* COCO 2017 train set: ~18 GiB over 118 k images, ~160 KiB each. */
    {"detection", 160 * CAT_KIB},
    /* One tokenised sequence of 512 four-byte token ids (BERT-style fine-tuning). */
    {"nlp", 2 * CAT_KIB},
    /* One sequence of 1024 four-byte token ids (GPT-2 context length). */
    {"lm", 4 * CAT_KIB},
    /* One interaction record (user and item ids, rating, timestamp, a few features). */
    {"recsys", 64.0},
    /* One decoded 256x256 RGB image (CycleGAN trains on 256x256 crops): 192 KiB, rounded up. */
    {"gan", 200 * CAT_KIB},
    /* Nominal: RL has no dataset; one stored step (compressed frame, action, reward). */
    {"rl", 1 * CAT_KIB},
};

const struct cat_gavel_model cat_gavel_models[CAT_NGAVEL] = {
    {"ResNet-50", "resnet50", "vision", 25.6}, /* ImageNet: the H100 table's resnet50 */
    {"ResNet-18", "resnet18_cifar", "vision", 11.2}, /* CIFAR-10, not ImageNet resnet18 */
    {"Transformer", "transformer", "nlp", 45.0},
    {"LM", "lstm_lm", "lm", 28.0},
    {"Recommendation", "recommendation", "recsys", 20.0},
    {"CycleGAN", "cyclegan", "gan", 28.0},
    {"A3C", "a3c", "rl", 1.0},
};

/* The input pipeline each model is taken to run (docs/catalogue.md, "CPU demand of the
 * input pipeline"). Model rules come first: a model takes the first rule that names it
 * or its family. The measured costs are in data/cpu_pipeline.csv. */
const struct cat_pipe_rule cat_pipe_rules[CAT_NPIPE_RULES] = {
    /* Gavel's ResNet-18 trains on CIFAR-10: small arrays held in memory, not JPEGs. */
    {.model = "resnet18_cifar", .pipeline = "cifar_train"},
    {.family = "vision", .pipeline = "imagenet_train"},
    /* torchvision's detection models resize and normalise on the GPU, so the CPU does
     * what yolo_640 measures; coco_det_full_cpu (all of it on the CPU) is an upper bound. */
    {.family = "detection", .pipeline = "yolo_640"},
    {.family = "nlp", .pipeline = "lm_pretokenised_1024"},
    {.family = "lm", .pipeline = "lm_pretokenised_1024"},
    /* Assumed, not measured: records held in memory cost about what slicing pre-tokenised
     * text costs. */
    {.family = "recsys", .pipeline = "lm_pretokenised_1024"},
    /* Assumed, not measured: CycleGAN decodes and crops images as ImageNet training does. */
    {.family = "gan", .pipeline = "imagenet_train"},
    /* A3C's CPU cost is its environment's simulation, which was not measured. */
    {.family = "rl", .pipeline = CAT_PIPE_NONE},
};

/* ---- models and points ---- */

const struct cat_family *cat_family_find(const char *name)
{
    for (size_t i = 0; i < CAT_NFAMILIES; i++)
        if (strcmp(cat_families[i].name, name) == 0)
            return &cat_families[i];
    return NULL;
}

int cat_model_index(const struct catalog *c, const char *name)
{
    /* The first byte first: a job reader asks once a job, and most names differ there. */
    for (size_t i = 0; i < c->nmodels; i++)
        if (c->models[i].name[0] == name[0] && strcmp(c->models[i].name, name) == 0)
            return (int)i;
    return -1;
}

struct cat_model *cat_model_add(struct catalog *c, const char *name, const char *family,
                                   double params_m)
{
    cpn_grow((void **)&c->models, &c->cap, c->nmodels + 1, sizeof *c->models);
    struct cat_model *m = &c->models[c->nmodels++];
    *m = (struct cat_model){.name = cpn_strdup(name), .family = family,
                            .bytes_per_sample = cat_family_find(family)->bytes_per_sample,
                            .params_m = params_m};
    return m;
}

/* The point of `batch`, added (with nothing measured) when absent. */
struct cat_point *cat_point_get(struct cat_model *m, unsigned batch)
{
    for (size_t i = 0; i < m->npts; i++)
        if (m->pts[i].batch == batch)
            return &m->pts[i];
    cpn_grow((void **)&m->pts, &m->cap, m->npts + 1, sizeof *m->pts);
    struct cat_point *p = &m->pts[m->npts++];
    memset(p, 0, sizeof *p);
    p->batch = batch;
    return p;
}

bool cat_zero_find(const struct cat_model *m, unsigned batch, int type, unsigned gpus)
{
    for (size_t i = 0; i < m->nzeros; i++)
        if (m->zeros[i].batch == batch && m->zeros[i].type == type && m->zeros[i].gpus == gpus)
            return true;
    return false;
}

static bool point_has_step(const struct cat_point *p)
{
    for (int t = 0; t < CAT_NTYPES; t++)
        if (p->step_s[t] > 0)
            return true;
    return false;
}

static int point_cmp(const void *a, const void *b)
{
    unsigned x = ((const struct cat_point *)a)->batch, y = ((const struct cat_point *)b)->batch;
    return (x > y) - (x < y);
}

static int mem_cmp(const void *a, const void *b)
{
    unsigned x = ((const struct cat_mem *)a)->batch, y = ((const struct cat_mem *)b)->batch;
    return (x > y) - (x < y);
}

static void model_free(struct cat_model *m)
{
    free(m->name);
    free(m->pts);
    free(m->batches);
    free(m->mem);
    free(m->zeros);
}

void catalog_destroy(struct catalog *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nmodels; i++)
        model_free(&c->models[i]);
    free(c->models);
    for (size_t i = 0; i < c->npipes; i++)
        free(c->pipes[i].name);
    free(c->pipes);
    free(c);
}

/* ---- derived tables ---- */

/* Sorts points, drops those with no single-GPU step on any type (only multi-GPU
 * figures, which no rule can use alone) and models left without points, and fills
 * the batch lists. */
static void models_finish(struct catalog *c)
{
    size_t keep = 0;
    for (size_t i = 0; i < c->nmodels; i++) {
        struct cat_model *m = &c->models[i];
        size_t n = 0;
        for (size_t j = 0; j < m->npts; j++)
            if (point_has_step(&m->pts[j]))
                m->pts[n++] = m->pts[j];
        m->npts = n;
        if (n == 0) {
            model_free(m);
            continue;
        }
        qsort(m->pts, m->npts, sizeof *m->pts, point_cmp);
        if (m->nmem)
            qsort(m->mem, m->nmem, sizeof *m->mem, mem_cmp);
        m->batches = cpn_calloc(m->npts, sizeof *m->batches);
        for (size_t j = 0; j < m->npts; j++)
            m->batches[j] = m->pts[j].batch;
        c->models[keep++] = *m;
    }
    c->nmodels = keep;
}

/* speed_T = 1 / geometric mean of step_T(b) / step_H100(b) over the reference
 * model's batches measured on both. */
static int speeds_fit(struct catalog *c, char *err, size_t errlen)
{
    int mi = cat_model_index(c, cat_tun.reference_model);
    if (mi < 0 || !c->models[mi].on_h100)
        return cpn_fail(err, errlen, CPN_EINPUT, "%s: model: %s (the reference model) is missing",
                        CAT_PROFILE_NAME, cat_tun.reference_model);
    const struct cat_model *m = &c->models[mi];
    c->speed[CAT_H100] = 1.0;
    for (int t = CAT_H100 + 1; t < CAT_NTYPES; t++) {
        double sum = 0;
        size_t n = 0;
        for (size_t j = 0; j < m->npts; j++) {
            const struct cat_point *p = &m->pts[j];
            if (p->step_s[t] > 0 && p->step_s[CAT_H100] > 0) {
                sum += log(p->step_s[t] / p->step_s[CAT_H100]);
                n++;
            }
        }
        if (n == 0)
            return cpn_fail(err, errlen, CPN_EINPUT,
                            "%s: %s: no %s batch measured on both %s and h100", CAT_GAVEL_NAME,
                            cat_type_names[t], cat_tun.reference_model, cat_type_names[t]);
        c->speed[t] = exp(-sum / (double)n);
    }
    return CPN_OK;
}

/* Median over models and batches of thr(G) / (G thr(1)) per Gavel type and G. A type
 * with no figure for some G uses V100's, and V100 without one assumes perfect scaling;
 * H100 (no multi-GPU measurements) uses V100's. */
static void eff_fit(struct catalog *c)
{
    size_t cap = 0;
    for (size_t i = 0; i < c->nmodels; i++)
        cap += c->models[i].npts;
    double *v = cpn_calloc(cap, sizeof *v);
    static const int order[] = {CAT_V100, CAT_P100, CAT_K80};
    for (size_t o = 0; o < sizeof order / sizeof order[0]; o++) {
        int t = order[o];
        c->eff[t][0] = 1.0;
        for (int k = 1; k < CAT_NCOUNTS; k++) {
            size_t n = 0;
            for (size_t i = 0; i < c->nmodels; i++)
                for (size_t j = 0; j < c->models[i].npts; j++) {
                    const struct cat_point *p = &c->models[i].pts[j];
                    if (p->thr[t][0] > 0 && p->thr[t][k] > 0)
                        v[n++] = p->thr[t][k] / ((double)cat_gpu_counts[k] * p->thr[t][0]);
                }
            if (n) {
                gsl_sort(v, 1, n);
                c->eff[t][k] = gsl_stats_median_from_sorted_data(v, 1, n);
            } else {
                c->eff[t][k] = t == CAT_V100 ? 1.0 : c->eff[CAT_V100][k];
            }
        }
    }
    memcpy(c->eff[CAT_H100], c->eff[CAT_V100], sizeof c->eff[CAT_H100]);
    free(v);
}

/* Least-squares fit of log(mem_gib) = a + b log(params_m) + c log(batch) on every H100
 * row, for the models the H100 table lacks. */
static int mem_fit(struct catalog *c, char *err, size_t errlen)
{
    size_t n = 0;
    bool need = false;
    for (size_t i = 0; i < c->nmodels; i++) {
        n += c->models[i].nmem;
        need |= !c->models[i].on_h100;
    }
    if (n < CAT_MEM_NCOEF) {
        if (!need)
            return CPN_OK;
        return cpn_fail(err, errlen, CPN_EINPUT,
                        "%s: rows: %zu rows are too few to fit the memory of other models",
                        CAT_PROFILE_NAME, n);
    }
    gsl_matrix *x = gsl_matrix_alloc(n, CAT_MEM_NCOEF);
    gsl_vector *y = gsl_vector_alloc(n);
    gsl_vector *coef = gsl_vector_alloc(CAT_MEM_NCOEF);
    gsl_matrix *cov = gsl_matrix_alloc(CAT_MEM_NCOEF, CAT_MEM_NCOEF);
    gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(n, CAT_MEM_NCOEF);
    if (!x || !y || !coef || !cov || !w)
        cpn_panic(__FILE__, __LINE__, "GSL allocation failed");
    size_t r = 0;
    for (size_t i = 0; i < c->nmodels; i++) {
        const struct cat_model *m = &c->models[i];
        for (size_t j = 0; j < m->nmem; j++, r++) {
            gsl_matrix_set(x, r, 0, 1.0);
            gsl_matrix_set(x, r, 1, log(m->params_m));
            gsl_matrix_set(x, r, 2, log((double)m->mem[j].batch));
            gsl_vector_set(y, r, log(m->mem[j].gib));
        }
    }
    double chisq;
    gsl_multifit_linear(x, y, coef, cov, &chisq, w);
    for (size_t k = 0; k < CAT_MEM_NCOEF; k++)
        c->mem_coef[k] = gsl_vector_get(coef, k);
    gsl_multifit_linear_free(w);
    gsl_matrix_free(cov);
    gsl_vector_free(coef);
    gsl_vector_free(y);
    gsl_matrix_free(x);
    return CPN_OK;
}

/* Gives every model its input pipeline and CPU cost per sample by cat_pipe_rules.
 * Returns 0, or CPN_EINPUT when a rule names a pipeline data/cpu_pipeline.csv lacks. */
static int pipes_assign(struct catalog *c, char *err, size_t errlen)
{
    for (size_t i = 0; i < c->nmodels; i++) {
        struct cat_model *m = &c->models[i];
        const struct cat_pipe_rule *rule = NULL;
        for (size_t k = 0; !rule && k < CAT_NPIPE_RULES; k++) {
            const struct cat_pipe_rule *r = &cat_pipe_rules[k];
            if (r->model ? strcmp(r->model, m->name) == 0 : strcmp(r->family, m->family) == 0)
                rule = r;
        }
        /* Every family has a rule: a model without one is a bug in the table. */
        CPN_ASSERT(rule);
        m->pipeline = CAT_PIPE_NONE;
        m->cpu_ms = 0;
        if (strcmp(rule->pipeline, CAT_PIPE_NONE) == 0)
            continue;
        for (size_t k = 0; k < c->npipes; k++)
            if (strcmp(c->pipes[k].name, rule->pipeline) == 0) {
                m->pipeline = c->pipes[k].name;
                m->cpu_ms = c->pipes[k].ms_per_sample;
            }
        if (m->cpu_ms == 0)
            return cpn_fail(err, errlen, CPN_EINPUT,
                            "%s: pipeline: no row for %s (the input pipeline of %s)",
                            CAT_CPU_NAME, rule->pipeline, m->name);
    }
    return CPN_OK;
}

int catalog_create_from(struct catalog **out, const char *profile_csv, const char *gavel_json,
                        const char *colocate_csv, const char *cpu_pipeline_csv, char *err,
                        size_t errlen)
{
    CPN_ASSERT(out);
    struct catalog *c = cpn_calloc(1, sizeof *c);
    int rc = cat_profile_load(c, profile_csv ? profile_csv : cpn_embed_profile_csv, err, errlen);
    if (rc == CPN_OK)
        rc = cat_gavel_load(c, gavel_json ? gavel_json : cpn_embed_gavel_json, err, errlen);
    if (rc == CPN_OK)
        rc = cat_colocate_load(c, colocate_csv ? colocate_csv : cpn_embed_colocate_csv, err,
                           errlen);
    if (rc == CPN_OK)
        rc = cat_cpu_load(c, cpu_pipeline_csv ? cpu_pipeline_csv : cpn_embed_cpu_pipeline_csv,
                          err, errlen);
    if (rc == CPN_OK) {
        models_finish(c);
        rc = speeds_fit(c, err, errlen);
    }
    if (rc == CPN_OK)
        rc = pipes_assign(c, err, errlen);
    if (rc == CPN_OK) {
        eff_fit(c);
        rc = mem_fit(c, err, errlen);
    }
    if (rc != CPN_OK) {
        catalog_destroy(c);
        return rc;
    }
    *out = c;
    return CPN_OK;
}

int catalog_create(struct catalog **out, char *err, size_t errlen)
{
    return catalog_create_from(out, NULL, NULL, NULL, NULL, err, errlen);
}

/* ---- queries ---- */

static const struct cat_model *model_at(const struct catalog *c, int model)
{
    CPN_ASSERT(c && model >= 0 && (size_t)model < c->nmodels);
    return &c->models[model];
}

size_t catalog_model_count(const struct catalog *c) { return c->nmodels; }

int catalog_model_find(const struct catalog *c, const char *name)
{
    return name ? cat_model_index(c, name) : -1;
}

const char *catalog_model_name(const struct catalog *c, int model)
{
    return model_at(c, model)->name;
}

const char *catalog_model_family(const struct catalog *c, int model)
{
    return model_at(c, model)->family;
}

double catalog_model_params_m(const struct catalog *c, int model)
{
    return model_at(c, model)->params_m;
}

bool catalog_model_on_h100(const struct catalog *c, int model)
{
    return model_at(c, model)->on_h100;
}

const unsigned *catalog_model_batches(const struct catalog *c, int model, size_t *n)
{
    const struct cat_model *m = model_at(c, model);
    *n = m->npts;
    return m->batches;
}

double catalog_bytes_per_sample(const struct catalog *c, int model)
{
    return model_at(c, model)->bytes_per_sample;
}

double catalog_cpu_ms_per_sample(const struct catalog *c, int model)
{
    return model_at(c, model)->cpu_ms;
}

const char *catalog_model_pipeline(const struct catalog *c, int model)
{
    return model_at(c, model)->pipeline;
}

int catalog_type_match(const char *gpu_type_name)
{
    if (!gpu_type_name)
        return -1;
    for (int t = 0; t < CAT_NTYPES; t++) {
        const char *a = cat_type_names[t], *b = gpu_type_name;
        while (*a && tolower((unsigned char)*b) == *a)
            a++, b++;
        if (!*a)
            return t;
    }
    return -1;
}

const char *catalog_type_name(int type)
{
    CPN_ASSERT(type >= 0 && type < CAT_NTYPES);
    return cat_type_names[type];
}

double catalog_type_measured_mem_gib(int type)
{
    static const double mem_gib[CAT_NTYPES] = {[CAT_H100] = 80, [CAT_V100] = 16, [CAT_P100] = 16,
                                               [CAT_K80] = 12};
    CPN_ASSERT(type >= 0 && type < CAT_NTYPES);
    return mem_gib[type];
}

double catalog_gavel_min_mem_gib(const struct catalog *c, int model, unsigned batch)
{
    CPN_ASSERT(model >= 0 && (size_t)model < c->nmodels);
    const struct cat_model *m = &c->models[model];
    double mem = INFINITY;
    for (size_t j = 0; j < m->npts; j++) {
        if (m->pts[j].batch != batch)
            continue;
        for (int t = CAT_H100 + 1; t < CAT_NTYPES; t++) /* Gavel's types */
            for (int k = 0; k < CAT_NCOUNTS; k++)
                if (m->pts[j].thr[t][k] > 0)
                    mem = fmin(mem, catalog_type_measured_mem_gib(t));
    }
    return mem;
}

double catalog_type_speed(const struct catalog *c, int type)
{
    CPN_ASSERT(c && type >= 0 && type < CAT_NTYPES);
    return c->speed[type];
}

double catalog_share_rate(const struct catalog *c, unsigned k)
{
    if (k <= 1)
        return 1.0;
    return 1.0 / ((double)k * (1.0 + c->share_overhead));
}

double catalog_share_overhead(const struct catalog *c) { return c->share_overhead; }

static double lerp(double x0, double y0, double x1, double y1, double x)
{
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0);
}

/* Rule 1: one-GPU step of a point on type t: measured, or the measurement on the type
 * closest in speed (|log ratio|, ties to the lower type) scaled by the speed ratio. */
static double point_step(const struct catalog *c, const struct cat_point *p, int t,
                         bool *derived)
{
    if (p->step_s[t] > 0)
        return p->step_s[t];
    int best = -1;
    double bestd = 0;
    for (int s = 0; s < CAT_NTYPES; s++) {
        if (!(p->step_s[s] > 0))
            continue;
        double d = fabs(log(c->speed[s] / c->speed[t]));
        if (best < 0 || d < bestd) {
            best = s;
            bestd = d;
        }
    }
    CPN_ASSERT(best >= 0);
    *derived = true;
    return p->step_s[best] * c->speed[best] / c->speed[t];
}

/* Rule 2: a batch between measured ones is interpolated linearly in batch; above the
 * largest the step grows in proportion to the batch; below the smallest it is the
 * smallest's. */
static double model_step(const struct catalog *c, const struct cat_model *m, unsigned batch,
                         int t, bool *derived)
{
    size_t hi = 0;
    while (hi < m->npts && m->pts[hi].batch < batch)
        hi++;
    if (hi < m->npts && m->pts[hi].batch == batch)
        return point_step(c, &m->pts[hi], t, derived);
    *derived = true;
    if (hi == 0)
        return point_step(c, &m->pts[0], t, derived);
    const struct cat_point *lo = &m->pts[hi - 1];
    if (hi == m->npts)
        return point_step(c, lo, t, derived) * (double)batch / (double)lo->batch;
    const struct cat_point *up = &m->pts[hi];
    return lerp((double)lo->batch, point_step(c, lo, t, derived), (double)up->batch,
                point_step(c, up, t, derived), (double)batch);
}

/* Rule 4: efficiency of `gpus` GPUs: measured on type t for this model and batch, as
 * measured (a few of Gavel's exceed 1, e.g. ResNet-18 batch 32 on two V100s: 1.57;
 * they are kept, so that a trace replays as Gavel's table ran it), or the type's
 * median, interpolated in log2(G) between the counts of the table. */
static double model_eff(const struct catalog *c, const struct cat_model *m, unsigned batch,
                        int t, unsigned gpus, bool *derived)
{
    for (int k = 1; k < CAT_NCOUNTS; k++) {
        if (cat_gpu_counts[k] != gpus)
            continue;
        for (size_t j = 0; j < m->npts; j++) {
            const struct cat_point *p = &m->pts[j];
            if (p->batch == batch && p->thr[t][0] > 0 && p->thr[t][k] > 0) {
                return p->thr[t][k] / ((double)gpus * p->thr[t][0]);
            }
        }
    }
    *derived = true;
    const double *e = c->eff[t];
    if (gpus >= cat_gpu_counts[CAT_NCOUNTS - 1])
        return e[CAT_NCOUNTS - 1];
    int k = 0;
    while (gpus >= cat_gpu_counts[k + 1])
        k++;
    return lerp(log2((double)cat_gpu_counts[k]), e[k], log2((double)cat_gpu_counts[k + 1]),
                e[k + 1], log2((double)gpus));
}

/* Rule 5: peak memory per GPU, from the H100 table whatever the type and GPU count. */
static double model_mem(const struct catalog *c, const struct cat_model *m, unsigned batch,
                        bool *derived)
{
    double b = (double)batch;
    if (m->nmem == 0) {
        *derived = true;
        return exp(c->mem_coef[0] + c->mem_coef[1] * log(m->params_m) + c->mem_coef[2] * log(b));
    }
    const struct cat_mem *v = m->mem;
    size_t n = m->nmem;
    size_t hi = 0;
    while (hi < n && v[hi].batch < batch)
        hi++;
    if (hi < n && v[hi].batch == batch)
        return v[hi].gib;
    *derived = true;
    if (n == 1)
        return v[0].gib * b / (double)v[0].batch;
    if (hi == 0) {
        double y = lerp((double)v[0].batch, v[0].gib, (double)v[1].batch, v[1].gib, b);
        return fmax(y, cat_tun.mem_floor_frac * v[0].gib);
    }
    if (hi == n) {
        double y = lerp((double)v[n - 2].batch, v[n - 2].gib, (double)v[n - 1].batch,
                        v[n - 1].gib, b);
        return fmax(y, v[n - 1].gib);
    }
    return lerp((double)v[hi - 1].batch, v[hi - 1].gib, (double)v[hi].batch, v[hi].gib, b);
}

int catalog_lookup(const struct catalog *c, int model, unsigned batch, int type, double speed,
                   unsigned gpus, struct profile *out)
{
    CPN_ASSERT(c && out);
    if (model < 0 || (size_t)model >= c->nmodels || batch == 0 || gpus == 0 || type < -1 ||
        type >= CAT_NTYPES)
        return CPN_EINPUT;
    if (type < 0 && !(isfinite(speed) && speed > 0))
        return CPN_EINPUT;
    const struct cat_model *m = &c->models[model];
    int t = type < 0 ? CAT_H100 : type;
    bool derived = type < 0;
    double step = model_step(c, m, batch, t, &derived);
    if (gpus > 1)
        step /= model_eff(c, m, batch, t, gpus, &derived);
    if (type < 0)
        step /= speed;
    double mem = model_mem(c, m, batch, &derived);
    *out = (struct profile){.step_s = step, .mem_gib = mem, .derived = derived};
    return CPN_OK;
}

bool catalog_runs_on(const struct catalog *c, int model, unsigned batch, int type, unsigned gpus)
{
    CPN_ASSERT(c && type >= -1 && type < CAT_NTYPES);
    return type < 0 || !cat_zero_find(model_at(c, model), batch, type, gpus);
}

/* Measured memory of a model at a batch, or -1. */
static double model_mem_measured(const struct cat_model *m, unsigned batch)
{
    for (size_t j = 0; j < m->nmem; j++)
        if (m->mem[j].batch == batch)
            return m->mem[j].gib;
    return -1.0;
}

size_t catalog_points(const struct catalog *c, struct catalog_point *out, size_t cap)
{
    CPN_ASSERT(c && (out || cap == 0));
    size_t n = 0;
    for (size_t i = 0; i < c->nmodels; i++) {
        const struct cat_model *m = &c->models[i];
        for (size_t j = 0; j < m->npts; j++) {
            const struct cat_point *p = &m->pts[j];
            for (int t = 0; t < CAT_NTYPES; t++)
                for (int k = 0; k < CAT_NCOUNTS; k++) {
                    double step;
                    if (t == CAT_H100 && k == 0)
                        step = p->step_s[t]; /* the H100 table has one-GPU rows only */
                    else
                        step = p->thr[t][k] > 0 ? (double)cat_gpu_counts[k] / p->thr[t][k] : 0;
                    if (!(step > 0))
                        continue;
                    if (n < cap)
                        out[n] = (struct catalog_point){
                            .model = (int)i, .batch = p->batch, .type = t,
                            .gpus = cat_gpu_counts[k], .step_s = step,
                            .mem_gib = t == CAT_H100 ? model_mem_measured(m, p->batch) : -1.0};
                    n++;
                }
        }
    }
    return n;
}
