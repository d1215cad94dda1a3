/* gen_mix: reading a job-mix spec (JSON, docs/jobs.md "Job mixes") into the
 * distributions that the generator (gen.c) draws from, and the mix's lifetime. Every
 * error names the file, line and field. */
#include "gen.h"
#include "gen_int.h"

#include "../engine/catalog.h"
#include "../base/jsonpos.h"
#include "../base/util.h"

#include <cjson/cJSON.h>
#include <gsl/gsl_randist.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Longest field path in a spec message. */
#define GEN_PATH_MAX 128

static void gen_dist_free(struct gen_dist *d)
{
    free(d->values);
    if (d->pick)
        gsl_ran_discrete_free(d->pick);
}

void gen_mix_destroy(struct gen_mix *mix)
{
    if (!mix)
        return;
    for (size_t i = 0; i < mix->n_models; i++) {
        gen_dist_free(&mix->models[i].batch);
        gen_dist_free(&mix->models[i].epochs);
        gen_dist_free(&mix->models[i].data);
    }
    free(mix->models);
    if (mix->model_pick)
        gsl_ran_discrete_free(mix->model_pick);
    gen_dist_free(&mix->gpus);
    gen_dist_free(&mix->epochs);
    gen_dist_free(&mix->data);
    gen_dist_free(&mix->image);
    gen_dist_free(&mix->pod_gpus);
    for (size_t i = 0; i < mix->n_origins; i++)
        free(mix->origins[i]);
    free(mix->origins);
    if (mix->origin_pick)
        gsl_ran_discrete_free(mix->origin_pick);
    free(mix->name);
    free(mix);
}

void gen_mix_apply(const struct gen_mix *mix, struct gen_spec *spec)
{
    spec->mix = mix;
    if (mix->has_count)
        spec->count = mix->count;
    if (mix->has_arrival) {
        spec->arrival = mix->arrival;
        spec->rate_per_s = mix->rate_per_s;
    }
    if (mix->n_origins) {
        spec->origins = NULL; /* the mix's, with its weights */
        spec->n_origins = 0;
    }
    if (mix->has_distributed)
        spec->distributed = mix->distributed;
    if (mix->max_pods)
        spec->max_pods = mix->max_pods;
}

bool gen_mix_has_origins(const struct gen_mix *mix) { return mix->n_origins > 0; }

/* ------------------------------------------------------------------------- */
/* The spec reader. */

struct gp {
    const char *name;
    const struct jpos *pos;
    const struct catalog *cat;
    char *err;
    size_t errlen;
};

static int gp_fail(const struct gp *g, const cJSON *at, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int gp_fail(const struct gp *g, const cJSON *at, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = jpos_vfail(g->err, g->errlen, g->name, g->pos, at, path, fmt, ap);
    va_end(ap);
    return rc;
}

/* out = a b c, cut to GEN_PATH_MAX - 1 bytes. */
static void gp_join(char *out, const char *a, const char *b, const char *c)
{
    size_t n = 0;
    const char *parts[] = {a, b, c};
    for (size_t i = 0; i < 3; i++)
        for (const char *p = parts[i]; *p && n + 1 < GEN_PATH_MAX; p++)
            out[n++] = *p;
    out[n] = '\0';
}

/* out = path.key (key alone at the top). */
static void gp_path(char *out, const char *path, const char *key)
{
    gp_join(out, path, *path ? "." : "", key);
}

/* out = path[i]. */
static void gp_index(char *out, const char *path, size_t i)
{
    char idx[32];
    snprintf(idx, sizeof idx, "[%zu]", i);
    gp_join(out, path, idx, "");
}

/* Checks an object's keys: each in allowed (a NULL-terminated list) or x_*, and
 * none twice. */
static int gp_keys(const struct gp *g, const cJSON *obj, const char *path,
                   const char *const *allowed)
{
    if (!cJSON_IsObject(obj))
        return gp_fail(g, obj, *path ? path : "top level", "must be an object");
    for (const cJSON *m = obj->child; m; m = m->next) {
        char sub[GEN_PATH_MAX];
        gp_path(sub, path, m->string);
        for (const cJSON *p = obj->child; p != m; p = p->next)
            if (strcmp(p->string, m->string) == 0)
                return gp_fail(g, m, sub, "duplicate key (also line %d)", jpos_line(g->pos, p));
        if (strncmp(m->string, "x_", 2) == 0)
            continue;
        const char *const *a = allowed;
        while (*a && strcmp(*a, m->string) != 0)
            a++;
        if (!*a) {
            char list[CPN_ERR_LEN] = "";
            for (a = allowed; *a; a++)
                snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                         a == allowed ? "" : ", ", *a);
            return gp_fail(g, m, sub, "unknown key (expected %s, or x_* for comments)", list);
        }
    }
    return CPN_OK;
}

static int gp_number(const struct gp *g, const cJSON *v, const char *path, double min,
                     bool strict_min, double *out)
{
    if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
        return gp_fail(g, v, path, "must be a finite number");
    if (strict_min ? !(v->valuedouble > min) : !(v->valuedouble >= min))
        return gp_fail(g, v, path, "must be %s %g (got %g)", strict_min ? ">" : ">=", min,
                       v->valuedouble);
    *out = v->valuedouble;
    return CPN_OK;
}

/* A value of a whole-number field must be whole and in [1, 2^31). */
static int gp_whole_ok(const struct gp *g, const cJSON *v, const char *path, double x)
{
    if (x != floor(x) || x < 1 || x >= GEN_WHOLE_LIMIT)
        return gp_fail(g, v, path, "must be a whole number from 1 to 2147483647 (got %g)", x);
    return CPN_OK;
}

/* A distribution: a number (constant) or {"dist": "uniform"|"lognormal"|"empirical",
 * ...}. whole: for batch, epochs and GPUs. */
static int gp_dist(const struct gp *g, const cJSON *v, const char *path, bool whole,
                   struct gen_dist *d)
{
    int rc;
    char sub[GEN_PATH_MAX];
    if (cJSON_IsNumber(v)) {
        d->kind = GD_CONST;
        if ((rc = gp_number(g, v, path, 0, false, &d->a)))
            return rc;
        return whole ? gp_whole_ok(g, v, path, d->a) : CPN_OK;
    }
    if (!cJSON_IsObject(v))
        return gp_fail(g, v, path,
                       "must be a number or a distribution {\"dist\": \"uniform\" | "
                       "\"lognormal\" | \"empirical\", ...}");
    const cJSON *kind = cJSON_GetObjectItemCaseSensitive(v, "dist");
    gp_path(sub, path, "dist");
    if (!cJSON_IsString(kind))
        return gp_fail(g, kind ? kind : v, sub,
                       "required: \"uniform\", \"lognormal\" or \"empirical\"");
    if (strcmp(kind->valuestring, "uniform") == 0) {
        static const char *const keys[] = {"dist", "min", "max", NULL};
        if ((rc = gp_keys(g, v, path, keys)))
            return rc;
        const cJSON *lo = cJSON_GetObjectItemCaseSensitive(v, "min");
        const cJSON *hi = cJSON_GetObjectItemCaseSensitive(v, "max");
        if (!lo || !hi)
            return gp_fail(g, v, path, "a uniform distribution needs min and max");
        d->kind = GD_UNIFORM;
        gp_path(sub, path, "min");
        if ((rc = gp_number(g, lo, sub, 0, false, &d->a)) ||
            (whole && (rc = gp_whole_ok(g, lo, sub, d->a))))
            return rc;
        gp_path(sub, path, "max");
        if ((rc = gp_number(g, hi, sub, d->a, false, &d->b)) ||
            (whole && (rc = gp_whole_ok(g, hi, sub, d->b))))
            return rc;
        return CPN_OK;
    }
    if (strcmp(kind->valuestring, "lognormal") == 0) {
        static const char *const keys[] = {"dist", "median", "sigma", "min", "max", NULL};
        if ((rc = gp_keys(g, v, path, keys)))
            return rc;
        const cJSON *med = cJSON_GetObjectItemCaseSensitive(v, "median");
        const cJSON *sig = cJSON_GetObjectItemCaseSensitive(v, "sigma");
        const cJSON *lo = cJSON_GetObjectItemCaseSensitive(v, "min");
        const cJSON *hi = cJSON_GetObjectItemCaseSensitive(v, "max");
        if (!med || !sig)
            return gp_fail(g, v, path, "a lognormal distribution needs median and sigma");
        d->kind = GD_LOGNORMAL;
        d->lo = 0;
        d->hi = INFINITY;
        gp_path(sub, path, "median");
        if ((rc = gp_number(g, med, sub, 0, true, &d->a)))
            return rc;
        gp_path(sub, path, "sigma");
        if ((rc = gp_number(g, sig, sub, 0, false, &d->b)))
            return rc;
        gp_path(sub, path, "min");
        if (lo && (rc = gp_number(g, lo, sub, 0, false, &d->lo)))
            return rc;
        gp_path(sub, path, "max");
        if (hi && (rc = gp_number(g, hi, sub, d->lo, false, &d->hi)))
            return rc;
        if (whole && floor(d->hi) < (d->lo > 1 ? ceil(d->lo) : 1))
            return gp_fail(g, hi, sub, "leaves no whole number >= 1 between min and max");
        return CPN_OK;
    }
    if (strcmp(kind->valuestring, "empirical") == 0) {
        static const char *const keys[] = {"dist", "values", "weights", NULL};
        if ((rc = gp_keys(g, v, path, keys)))
            return rc;
        const cJSON *vals = cJSON_GetObjectItemCaseSensitive(v, "values");
        const cJSON *ws = cJSON_GetObjectItemCaseSensitive(v, "weights");
        gp_path(sub, path, "values");
        int n = cJSON_GetArraySize(vals);
        if (!cJSON_IsArray(vals) || n < 1)
            return gp_fail(g, vals ? vals : v, sub, "required: a non-empty array of numbers");
        if (ws && (!cJSON_IsArray(ws) || cJSON_GetArraySize(ws) != n))
            return gp_fail(g, ws, path, "weights must be an array as long as values (%d)", n);
        d->kind = GD_EMPIRICAL;
        d->n = (size_t)n;
        d->values = cpn_calloc(d->n, sizeof *d->values);
        double *w = cpn_calloc(d->n, sizeof *w);
        const cJSON *x = vals->child, *y = ws ? ws->child : NULL;
        rc = CPN_OK;
        for (size_t i = 0; i < d->n && !rc; i++, x = x->next, y = y ? y->next : NULL) {
            char at[GEN_PATH_MAX];
            gp_index(at, sub, i);
            rc = gp_number(g, x, at, 0, false, &d->values[i]);
            if (!rc && whole)
                rc = gp_whole_ok(g, x, at, d->values[i]);
            w[i] = 1;
            if (!rc && y) {
                char wpath[GEN_PATH_MAX];
                gp_path(wpath, path, "weights");
                gp_index(at, wpath, i);
                rc = gp_number(g, y, at, 0, true, &w[i]);
            }
        }
        if (!rc) {
            d->pick = gsl_ran_discrete_preproc(d->n, w);
            CPN_ASSERT(d->pick);
        }
        free(w);
        return rc;
    }
    return gp_fail(g, kind, sub, "unknown distribution '%.40s' (expected uniform, lognormal or "
                   "empirical)", kind->valuestring);
}

/* "batch" | "poisson:RATE" | "diurnal:RATE" | {"process": ..., "rate_per_s": R,
 * "hourly": [24 numbers]}. */
static int gp_arrival(const struct gp *g, const cJSON *v, struct gen_mix *mix)
{
    int rc;
    if (cJSON_IsString(v)) {
        const char *s = v->valuestring;
        const char *colon = strchr(s, ':');
        size_t n = colon ? (size_t)(colon - s) : strlen(s);
        if (n == 5 && strncmp(s, "batch", n) == 0 && !colon)
            mix->arrival = GEN_BATCH;
        else if (colon && ((n == 7 && strncmp(s, "poisson", n) == 0) ||
                           (n == 7 && strncmp(s, "diurnal", n) == 0)) &&
                 cpn_parse_double(colon + 1, &mix->rate_per_s) == CPN_OK && mix->rate_per_s > 0)
            mix->arrival = s[0] == 'p' ? GEN_POISSON : GEN_DIURNAL;
        else
            return gp_fail(g, v, "arrival",
                           "must be \"batch\", \"poisson:RATE\" or \"diurnal:RATE\" with RATE > "
                           "0 jobs per second (got '%.40s')",
                           s);
        mix->has_arrival = true;
        return CPN_OK;
    }
    static const char *const keys[] = {"process", "rate_per_s", "hourly", NULL};
    if ((rc = gp_keys(g, v, "arrival", keys)))
        return rc;
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(v, "process");
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(v, "rate_per_s");
    const cJSON *h = cJSON_GetObjectItemCaseSensitive(v, "hourly");
    if (!cJSON_IsString(p))
        return gp_fail(g, p ? p : v, "arrival.process", "required: batch, poisson or diurnal");
    if (strcmp(p->valuestring, "batch") == 0)
        mix->arrival = GEN_BATCH;
    else if (strcmp(p->valuestring, "poisson") == 0)
        mix->arrival = GEN_POISSON;
    else if (strcmp(p->valuestring, "diurnal") == 0)
        mix->arrival = GEN_DIURNAL;
    else
        return gp_fail(g, p, "arrival.process", "must be batch, poisson or diurnal (got '%.40s')",
                       p->valuestring);
    if (mix->arrival != GEN_BATCH) {
        if (!r)
            return gp_fail(g, v, "arrival.rate_per_s", "required for %s arrivals",
                           p->valuestring);
        if ((rc = gp_number(g, r, "arrival.rate_per_s", 0, true, &mix->rate_per_s)))
            return rc;
    } else if (r) {
        return gp_fail(g, r, "arrival.rate_per_s", "batch arrivals have no rate");
    }
    if (h) {
        if (mix->arrival != GEN_DIURNAL)
            return gp_fail(g, h, "arrival.hourly", "only diurnal arrivals have an hourly curve");
        if (!cJSON_IsArray(h) || cJSON_GetArraySize(h) != GEN_HOURS)
            return gp_fail(g, h, "arrival.hourly", "must be an array of %d numbers (00:00 first)",
                           GEN_HOURS);
        double sum = 0;
        const cJSON *x = h->child;
        for (int i = 0; i < GEN_HOURS; i++, x = x->next) {
            char at[GEN_PATH_MAX];
            gp_index(at, "arrival.hourly", (size_t)i);
            if ((rc = gp_number(g, x, at, 0, false, &mix->hourly[i])))
                return rc;
            sum += mix->hourly[i];
        }
        if (!(sum > 0))
            return gp_fail(g, h, "arrival.hourly", "needs at least one hour with a rate > 0");
        mix->has_hourly = true;
    }
    mix->has_arrival = true;
    return CPN_OK;
}

/* "origins": ["a", "b"] (uniform) or {"a": 3, "b": 1} (weights). */
static int gp_origins(const struct gp *g, const cJSON *v, struct gen_mix *mix)
{
    int n = cJSON_GetArraySize(v);
    if ((!cJSON_IsArray(v) && !cJSON_IsObject(v)) || n < 1)
        return gp_fail(g, v, "origins",
                       "must be a non-empty array of site names or an object of site weights");
    if (cJSON_IsObject(v)) {
        for (const cJSON *m = v->child; m; m = m->next)
            for (const cJSON *p = v->child; p != m; p = p->next)
                if (strcmp(p->string, m->string) == 0)
                    return gp_fail(g, m, "origins", "duplicate site '%.40s' (also line %d)",
                                   m->string, jpos_line(g->pos, p));
    }
    mix->origins = cpn_calloc((size_t)n, sizeof *mix->origins);
    double *w = cpn_calloc((size_t)n, sizeof *w);
    bool weighted = cJSON_IsObject(v);
    int rc = CPN_OK;
    size_t i = 0;
    for (const cJSON *m = v->child; m && !rc; m = m->next, i++) {
        char at[GEN_PATH_MAX];
        const char *site = weighted ? m->string : m->valuestring;
        if (weighted)
            gp_path(at, "origins", m->string);
        else
            gp_index(at, "origins", i);
        if (!weighted && !cJSON_IsString(m))
            rc = gp_fail(g, m, at, "must be a site name (a string)");
        else if (!*site)
            rc = gp_fail(g, m, at, "empty site name");
        else if (weighted)
            rc = gp_number(g, m, at, 0, true, &w[i]);
        if (!rc) {
            mix->origins[i] = cpn_strdup(site);
            mix->n_origins = i + 1;
        }
    }
    if (!rc && weighted) {
        mix->origin_pick = gsl_ran_discrete_preproc(mix->n_origins, w);
        CPN_ASSERT(mix->origin_pick);
    }
    free(w);
    return rc;
}

/* "models": {"name": weight, ...} or [{"model": name, "weight": w, "batch": D,
 * "epochs": D, "data_gib": D}, ...]. */
static int gp_models(const struct gp *g, const cJSON *v, struct gen_mix *mix)
{
    int n = cJSON_GetArraySize(v);
    if ((!cJSON_IsArray(v) && !cJSON_IsObject(v)) || n < 1)
        return gp_fail(g, v, "models",
                       "must be a non-empty object of model weights or array of model entries");
    mix->models = cpn_calloc((size_t)n, sizeof *mix->models);
    double *w = cpn_calloc((size_t)n, sizeof *w);
    int rc = CPN_OK;
    size_t i = 0;
    for (const cJSON *m = v->child; m && !rc; m = m->next, i++) {
        struct gen_model_mix *mm = &mix->models[i];
        mix->n_models = i + 1;
        char at[GEN_PATH_MAX], sub[GEN_PATH_MAX];
        const char *name = NULL;
        const cJSON *name_at = m;
        mm->weight = 1;
        if (cJSON_IsObject(v)) {
            gp_path(at, "models", m->string);
            name = m->string;
            for (const cJSON *p = v->child; p != m && !rc; p = p->next)
                if (strcmp(p->string, m->string) == 0)
                    rc = gp_fail(g, m, at, "duplicate model (also line %d)",
                                 jpos_line(g->pos, p));
            if (!rc)
                rc = gp_number(g, m, at, 0, true, &mm->weight);
        } else {
            static const char *const keys[] = {"model", "weight", "batch", "epochs", "data_gib",
                                               NULL};
            gp_index(at, "models", i);
            if ((rc = gp_keys(g, m, at, keys)))
                break;
            const cJSON *nm = cJSON_GetObjectItemCaseSensitive(m, "model");
            gp_path(sub, at, "model");
            if (!cJSON_IsString(nm)) {
                rc = gp_fail(g, nm ? nm : m, sub, "required: a catalogue model name");
                break;
            }
            name = nm->valuestring;
            name_at = nm;
            const cJSON *x;
            if ((x = cJSON_GetObjectItemCaseSensitive(m, "weight"))) {
                gp_path(sub, at, "weight");
                rc = gp_number(g, x, sub, 0, true, &mm->weight);
            }
            if (!rc && (x = cJSON_GetObjectItemCaseSensitive(m, "batch"))) {
                gp_path(sub, at, "batch");
                rc = gp_dist(g, x, sub, true, &mm->batch);
            }
            if (!rc && (x = cJSON_GetObjectItemCaseSensitive(m, "epochs"))) {
                gp_path(sub, at, "epochs");
                rc = gp_dist(g, x, sub, true, &mm->epochs);
            }
            if (!rc && (x = cJSON_GetObjectItemCaseSensitive(m, "data_gib"))) {
                gp_path(sub, at, "data_gib");
                rc = gp_dist(g, x, sub, false, &mm->data);
            }
        }
        if (rc)
            break;
        mm->model = catalog_model_find(g->cat, name);
        if (mm->model < 0) {
            rc = gp_fail(g, name_at, at, "unknown model '%.40s'", name);
            break;
        }
        size_t nb = 0;
        if (!mm->batch.kind && (!catalog_model_batches(g->cat, mm->model, &nb) || nb == 0))
            rc = gp_fail(g, name_at, at,
                         "the catalogue has no measured batch size for %.40s: give a batch "
                         "distribution",
                         name);
        w[i] = mm->weight;
    }
    if (!rc) {
        mix->equal_weights = true;
        for (size_t k = 1; k < mix->n_models; k++)
            mix->equal_weights &= w[k] == w[0];
        mix->model_pick = gsl_ran_discrete_preproc(mix->n_models, w);
        CPN_ASSERT(mix->model_pick);
    }
    free(w);
    return rc;
}

static int gp_top(const struct gp *g, const cJSON *root, struct gen_mix *mix)
{
    static const char *const keys[] = {"count",  "arrival",   "origins",   "models",
                                       "gpus",   "epochs",    "data_gib",  "image_gib",
                                       "cpus_per_gpu", "mem_gib_per_gpu", "distributed",
                                       "max_pods", "pod_gpus", NULL};
    int rc = gp_keys(g, root, "", keys);
    const cJSON *v;
    if (!rc && (v = cJSON_GetObjectItemCaseSensitive(root, "count"))) {
        double c = 0;
        rc = gp_number(g, v, "count", 1, false, &c);
        if (!rc && (c != floor(c) || c > (double)gen_count_max()))
            rc = gp_fail(g, v, "count", "must be a whole number from 1 to %zu (got %g)",
                         gen_count_max(), c);
        mix->count = (size_t)c;
        mix->has_count = true;
    }
    if (!rc && (v = cJSON_GetObjectItemCaseSensitive(root, "arrival")))
        rc = gp_arrival(g, v, mix);
    if (!rc && (v = cJSON_GetObjectItemCaseSensitive(root, "origins")))
        rc = gp_origins(g, v, mix);
    if (!rc && (v = cJSON_GetObjectItemCaseSensitive(root, "models")))
        rc = gp_models(g, v, mix);
    if (!rc && (v = cJSON_GetObjectItemCaseSensitive(root, "gpus")))
        rc = gp_dist(g, v, "gpus", true, &mix->gpus);
    if (!rc && (v = cJSON_GetObjectItemCaseSensitive(root, "epochs")))
        rc = gp_dist(g, v, "epochs", true, &mix->epochs);
    if (!rc && (v = cJSON_GetObjectItemCaseSensitive(root, "data_gib")))
        rc = gp_dist(g, v, "data_gib", false, &mix->data);
    if (!rc && (v = cJSON_GetObjectItemCaseSensitive(root, "image_gib")))
        rc = gp_dist(g, v, "image_gib", false, &mix->image);
    if (!rc && (v = cJSON_GetObjectItemCaseSensitive(root, "cpus_per_gpu"))) {
        rc = gp_number(g, v, "cpus_per_gpu", 0, false, &mix->cpus_per_gpu);
        mix->has_cpus = true;
    }
    if (!rc && (v = cJSON_GetObjectItemCaseSensitive(root, "mem_gib_per_gpu"))) {
        rc = gp_number(g, v, "mem_gib_per_gpu", 0, false, &mix->mem_gib_per_gpu);
        mix->has_mem = true;
    }
    if (!rc && (v = cJSON_GetObjectItemCaseSensitive(root, "distributed"))) {
        rc = gp_number(g, v, "distributed", 0, false, &mix->distributed);
        if (!rc && mix->distributed > 1)
            rc = gp_fail(g, v, "distributed", "must be a share from 0 to 1 (got %g)",
                         mix->distributed);
        mix->has_distributed = true;
    }
    if (!rc && (v = cJSON_GetObjectItemCaseSensitive(root, "max_pods"))) {
        double x = 0;
        rc = gp_number(g, v, "max_pods", 2, false, &x);
        if (!rc)
            rc = gp_whole_ok(g, v, "max_pods", x);
        mix->max_pods = (uint32_t)x;
    }
    if (!rc && (v = cJSON_GetObjectItemCaseSensitive(root, "pod_gpus")))
        rc = gp_dist(g, v, "pod_gpus", true, &mix->pod_gpus);
    return rc;
}

int gen_mix_load_buf(const char *name, const char *buf, size_t len, const struct catalog *cat,
                     struct gen_mix **out, char *err, size_t errlen)
{
    cJSON *root = NULL;
    struct jpos pos = {0};
    int rc = jpos_parse(name, buf, len, &root, &pos, err, errlen);
    if (rc)
        return rc;
    struct gp g = {name, &pos, cat, err, errlen};
    struct gen_mix *mix = cpn_calloc(1, sizeof *mix);
    mix->name = cpn_strdup(name);
    rc = gp_top(&g, root, mix);
    cJSON_Delete(root);
    jpos_free(&pos);
    if (rc) {
        gen_mix_destroy(mix);
        return rc;
    }
    *out = mix;
    return CPN_OK;
}

int gen_mix_load(const char *path, const struct catalog *cat, struct gen_mix **out, char *err,
                 size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = cpn_read_file(path, &buf, &len, err, errlen);
    if (rc)
        return rc;
    rc = gen_mix_load_buf(path, buf, len, cat, out, err, errlen);
    free(buf);
    return rc;
}
