/* catalog: the profile catalogue. At creation it reads three measured tables once:
 * the H100 profile (step time and peak memory per model and batch), Gavel's
 * throughputs on V100, P100 and K80 (alone on 1, 2, 4 or 8 GPUs) and the H100
 * co-location slow-downs. Each model keeps one point per batch measured on any type,
 * sorted by batch; everything a lookup needs that is not a point (the type speeds, the
 * median multi-GPU efficiencies, the memory fit for models the H100 table lacks, the
 * time-slicing overhead) is computed here once, so lookups only search a handful of
 * points and never allocate. The derivation rules are documented, with the numbers
 * they give on the embedded data, in docs/catalogue.md. */
#include "catalog.h"

#include "../base/csvrow.h"
#include "../base/embed.h"
#include "../base/util.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <ctype.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Names of the embedded files, used in messages for whichever buffer is read. */
#define CAT_PROFILE_NAME "data/h100_profile.csv"
#define CAT_GAVEL_NAME "data/gavel/simulation_throughputs.json"
#define CAT_COLOCATE_NAME "data/h100_colocate.csv"

/* The tunables of the derivation rules, with their defaults, in one place. */
static const struct {
    const char *reference_model; /* measured on every type: it sets the type speeds */
    double mem_floor_frac;       /* below the smallest batch, memory >= this x mem(bmin) */
    unsigned colocate_sharers;   /* jobs per GPU in each co-location measurement */
    unsigned gavel_default_batch; /* batch of Gavel entries without "(batch size B)" */
} cat_tun = {
    .reference_model = "resnet50",
    .mem_floor_frac = 0.5,
    .colocate_sharers = 2,
    .gavel_default_batch = 1,
};

static const double cat_ms_per_s = 1000.0;
static const double cat_mib_per_gib = 1024.0;
#define CAT_KIB 1024.0

/* GPU counts of Gavel's table; efficiency is 1 on one GPU by definition. */
enum { CAT_NCOUNTS = 4 };
static const unsigned cat_gpu_counts[CAT_NCOUNTS] = {1, 2, 4, 8};

static const char *const cat_type_names[CAT_NTYPES] = {"h100", "v100", "p100", "k80"};

/* Bytes of one training sample per model family, to turn a dataset's GiB into samples. */
static const struct cat_family {
    const char *name;
    double bytes_per_sample;
} cat_families[] = {
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
enum { CAT_NFAMILIES = sizeof cat_families / sizeof cat_families[0] };

/* Gavel's model names and the catalogue models they are. The parameter counts are
 * approximate published figures, used only for models absent from the H100 table. */
static const struct cat_gavel_model {
    const char *gavel;
    const char *model;
    const char *family;
    double params_m;
} cat_gavel_models[] = {
    {"ResNet-50", "resnet50", "vision", 25.6}, /* ImageNet: the H100 table's resnet50 */
    {"ResNet-18", "resnet18_cifar", "vision", 11.2}, /* CIFAR-10, not ImageNet resnet18 */
    {"Transformer", "transformer", "nlp", 45.0},
    {"LM", "lstm_lm", "lm", 28.0},
    {"Recommendation", "recommendation", "recsys", 20.0},
    {"CycleGAN", "cyclegan", "gan", 28.0},
    {"A3C", "a3c", "rl", 1.0},
};
enum { CAT_NGAVEL = sizeof cat_gavel_models / sizeof cat_gavel_models[0] };

/* Coefficients of log(mem_gib) = a + b log(params_m) + c log(batch). */
enum { CAT_MEM_NCOEF = 3 };

/* Longest model name in a Gavel key, and longest GPU count, in characters. */
enum { CAT_GAVEL_NAME_MAX = 255, CAT_GAVEL_COUNT_MAX = 31 };

/* One (model, batch) measured on at least one type. */
struct cat_point {
    unsigned batch;
    double step_s[CAT_NTYPES];           /* alone on one GPU; 0 when not measured */
    double thr[CAT_NTYPES][CAT_NCOUNTS]; /* Gavel steps/s on G GPUs (aggregate); 0: none */
};

/* Peak reserved memory measured on the H100 at one batch. */
struct cat_mem {
    unsigned batch;
    double gib;
};

struct cat_model {
    char *name;
    const char *family; /* points into cat_families */
    double params_m;
    bool on_h100;
    struct cat_point *pts; /* ascending batch once loaded */
    size_t npts, cap;
    unsigned *batches;    /* the points' batches, for catalog_model_batches */
    struct cat_mem *mem;  /* ascending batch; empty for models not on the H100 table */
    size_t nmem, memcap;
};

struct catalog {
    struct cat_model *models;
    size_t nmodels, cap;
    double speed[CAT_NTYPES];
    double eff[CAT_NTYPES][CAT_NCOUNTS]; /* median efficiency per type and GPU count */
    double mem_coef[CAT_MEM_NCOEF];
    double share_overhead;
};

/* ---- models and points ---- */

static const struct cat_family *family_find(const char *name)
{
    for (size_t i = 0; i < CAT_NFAMILIES; i++)
        if (strcmp(cat_families[i].name, name) == 0)
            return &cat_families[i];
    return NULL;
}

static int model_index(const struct catalog *c, const char *name)
{
    for (size_t i = 0; i < c->nmodels; i++)
        if (strcmp(c->models[i].name, name) == 0)
            return (int)i;
    return -1;
}

static struct cat_model *model_add(struct catalog *c, const char *name, const char *family,
                                   double params_m)
{
    cpn_grow((void **)&c->models, &c->cap, c->nmodels + 1, sizeof *c->models);
    struct cat_model *m = &c->models[c->nmodels++];
    *m = (struct cat_model){.name = cpn_strdup(name), .family = family, .params_m = params_m};
    return m;
}

/* The point of `batch`, added (with nothing measured) when absent. */
static struct cat_point *point_get(struct cat_model *m, unsigned batch)
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
}

void catalog_destroy(struct catalog *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->nmodels; i++)
        model_free(&c->models[i]);
    free(c->models);
    free(c);
}

/* ---- CSV: the whole text as rows of strings, each with its line ---- */

struct csv_row {
    size_t line;
    size_t n;
    char **f;
};

struct csv_table {
    struct csv_row *rows;
    size_t nrows, cap;
};

/* Keeps a copy of each record, with the line on which it ends. */
static int csv_on_row(void *ctx, const struct csvrow *row)
{
    struct csv_table *t = ctx;
    char **f = cpn_malloc(row->n * sizeof *f);
    for (size_t k = 0; k < row->n; k++)
        f[k] = cpn_strdup(row->f[k]);
    cpn_grow((void **)&t->rows, &t->cap, t->nrows + 1, sizeof *t->rows);
    t->rows[t->nrows++] = (struct csv_row){.line = (size_t)row->end_line, .n = row->n, .f = f};
    return CPN_OK;
}

static void csv_table_free(struct csv_table *t)
{
    for (size_t i = 0; i < t->nrows; i++) {
        for (size_t j = 0; j < t->rows[i].n; j++)
            free(t->rows[i].f[j]);
        free(t->rows[i].f);
    }
    free(t->rows);
    memset(t, 0, sizeof *t);
}

/* Reads a whole CSV text (up to its first NUL) through the CSV row reader. Blank
 * lines are skipped. Every data row must have as many fields as the header. Returns
 * 0, or CPN_EINPUT with "name:line: ..." (the table is then empty). */
static int csv_read(struct csv_table *t, const char *name, const char *buf, char *err,
                    size_t errlen)
{
    memset(t, 0, sizeof *t);
    struct csvrow_reader r;
    csvrow_init(&r, CSVROW_TRIM, csv_on_row, t);
    int rc = csvrow_feed(&r, buf, strlen(buf));
    if (rc == CPN_OK)
        rc = csvrow_finish(&r);
    if (rc != CPN_OK)
        rc = cpn_fail(err, errlen, CPN_EINPUT, "%s:%" PRIu64 ": malformed CSV: %s", name,
                      csvrow_line(&r),
                      csvrow_syntax(&r) == CSVROW_UNTERMINATED ? "unterminated quoted field"
                                                               : csvrow_strerror(&r));
    csvrow_free(&r);
    if (rc == CPN_OK && t->nrows == 0)
        rc = cpn_fail(err, errlen, CPN_EINPUT, "%s:1: header: the file is empty", name);
    for (size_t i = 1; rc == CPN_OK && i < t->nrows; i++)
        if (t->rows[i].n != t->rows[0].n)
            rc = cpn_fail(err, errlen, CPN_EINPUT, "%s:%zu: row has %zu fields, the header %zu",
                          name, t->rows[i].line, t->rows[i].n, t->rows[0].n);
    if (rc != CPN_OK)
        csv_table_free(t);
    return rc;
}

/* Index of a header column. Returns 0, or CPN_EINPUT when the header lacks it. */
static int csv_col(const struct csv_table *t, const char *name, const char *col, size_t *idx,
                   char *err, size_t errlen)
{
    const struct csv_row *h = &t->rows[0];
    for (size_t j = 0; j < h->n; j++)
        if (strcmp(h->f[j], col) == 0) {
            *idx = j;
            return CPN_OK;
        }
    return cpn_fail(err, errlen, CPN_EINPUT, "%s:%zu: %s: missing column", name, h->line, col);
}

/* A field that must be a finite number > 0. Returns 0 or CPN_EINPUT. */
static int csv_positive(const char *name, const struct csv_row *r, size_t j, const char *col,
                        double *out, char *err, size_t errlen)
{
    double v;
    if (cpn_parse_double(r->f[j], &v) != CPN_OK)
        return cpn_fail(err, errlen, CPN_EINPUT, "%s:%zu: %s: not a number: \"%s\"", name,
                        r->line, col, r->f[j]);
    if (!(v > 0))
        return cpn_fail(err, errlen, CPN_EINPUT, "%s:%zu: %s: must be > 0, not %s", name,
                        r->line, col, r->f[j]);
    *out = v;
    return CPN_OK;
}

/* ---- the H100 profile ---- */

enum { PCOL_MODEL, PCOL_FAMILY, PCOL_BATCH, PCOL_STEP, PCOL_MEM, PCOL_PARAMS, PCOL_N };
static const char *const profile_cols[PCOL_N] = {"model", "family", "batch", "step_ms",
                                                 "peak_reserved_mib", "params_m"};

static int profile_row(struct catalog *c, const struct csv_row *r, const size_t col[PCOL_N],
                       char *err, size_t errlen)
{
    const char *name = CAT_PROFILE_NAME;
    const char *model = r->f[col[PCOL_MODEL]];
    if (!*model)
        return cpn_fail(err, errlen, CPN_EINPUT, "%s:%zu: model: empty", name, r->line);
    const struct cat_family *fam = family_find(r->f[col[PCOL_FAMILY]]);
    if (!fam) {
        char known[CPN_ERR_LEN] = "";
        for (size_t i = 0; i < CAT_NFAMILIES; i++) {
            size_t at = strlen(known);
            snprintf(known + at, sizeof known - at, "%s%s", i ? ", " : "", cat_families[i].name);
        }
        return cpn_fail(err, errlen, CPN_EINPUT,
                        "%s:%zu: family: unknown family \"%s\" (known: %s)", name, r->line,
                        r->f[col[PCOL_FAMILY]], known);
    }
    uint64_t b;
    if (cpn_parse_u64(r->f[col[PCOL_BATCH]], &b) != CPN_OK || b == 0 || b > UINT_MAX)
        return cpn_fail(err, errlen, CPN_EINPUT, "%s:%zu: batch: not a positive integer: \"%s\"",
                        name, r->line, r->f[col[PCOL_BATCH]]);
    double step_ms, mem_mib, params_m;
    int rc = csv_positive(name, r, col[PCOL_STEP], "step_ms", &step_ms, err, errlen);
    if (rc == CPN_OK)
        rc = csv_positive(name, r, col[PCOL_MEM], "peak_reserved_mib", &mem_mib, err, errlen);
    if (rc == CPN_OK)
        rc = csv_positive(name, r, col[PCOL_PARAMS], "params_m", &params_m, err, errlen);
    if (rc != CPN_OK)
        return rc;

    int mi = model_index(c, model);
    struct cat_model *m;
    if (mi < 0) {
        m = model_add(c, model, fam->name, params_m);
        m->on_h100 = true;
    } else {
        m = &c->models[mi];
        if (strcmp(m->family, fam->name) != 0)
            return cpn_fail(err, errlen, CPN_EINPUT,
                            "%s:%zu: family: \"%s\" differs from an earlier row of %s (\"%s\")",
                            name, r->line, fam->name, model, m->family);
        if (m->params_m != params_m)
            return cpn_fail(err, errlen, CPN_EINPUT,
                            "%s:%zu: params_m: %s differs from an earlier row of %s (%g)", name,
                            r->line, r->f[col[PCOL_PARAMS]], model, m->params_m);
    }
    unsigned batch = (unsigned)b;
    struct cat_point *p = point_get(m, batch);
    if (p->step_s[CAT_H100] > 0)
        return cpn_fail(err, errlen, CPN_EINPUT, "%s:%zu: batch: a second row for %s batch %u",
                        name, r->line, model, batch);
    p->step_s[CAT_H100] = step_ms / cat_ms_per_s;
    cpn_grow((void **)&m->mem, &m->memcap, m->nmem + 1, sizeof *m->mem);
    m->mem[m->nmem++] = (struct cat_mem){.batch = batch, .gib = mem_mib / cat_mib_per_gib};
    return CPN_OK;
}

static int profile_load(struct catalog *c, const char *buf, char *err, size_t errlen)
{
    struct csv_table t;
    int rc = csv_read(&t, CAT_PROFILE_NAME, buf, err, errlen);
    if (rc != CPN_OK)
        return rc;
    size_t col[PCOL_N];
    for (int k = 0; rc == CPN_OK && k < PCOL_N; k++)
        rc = csv_col(&t, CAT_PROFILE_NAME, profile_cols[k], &col[k], err, errlen);
    if (rc == CPN_OK && t.nrows < 2)
        rc = cpn_fail(err, errlen, CPN_EINPUT, "%s:%zu: no data rows", CAT_PROFILE_NAME,
                      t.rows[0].line);
    for (size_t i = 1; rc == CPN_OK && i < t.nrows; i++)
        rc = profile_row(c, &t.rows[i], col, err, errlen);
    csv_table_free(&t);
    return rc;
}

/* ---- Gavel's throughputs ---- */

/* Line (1-based) of position `at` in buf. */
static size_t text_line(const char *buf, const char *at)
{
    size_t line = 1;
    for (const char *s = buf; s < at && *s; s++)
        line += *s == '\n';
    return line;
}

/* Line of the first `"key": <open>` at or after `from` in buf, or 0. cJSON keeps no
 * positions, so errors find their line again with this scan (error path only). */
static size_t json_key_line(const char *buf, const char **from, const char *key, char open)
{
    size_t klen = strlen(key);
    for (const char *p = strchr(*from, '"'); p; p = strchr(p + 1, '"')) {
        if (strncmp(p + 1, key, klen) != 0 || p[1 + klen] != '"')
            continue;
        const char *q = p + 2 + klen;
        while (isspace((unsigned char)*q))
            q++;
        if (*q++ != ':')
            continue;
        while (isspace((unsigned char)*q))
            q++;
        if (*q != open)
            continue;
        *from = q;
        return text_line(buf, p);
    }
    return 0;
}

/* Fails with "name:line: type key: problem", the line found again in the text. */
static int gavel_fail(char *err, size_t errlen, const char *buf, const char *type,
                      const char *key, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static int gavel_fail(char *err, size_t errlen, const char *buf, const char *type,
                      const char *key, const char *fmt, ...)
{
    char what[CPN_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    const char *from = buf;
    size_t line = json_key_line(buf, &from, type, '{');
    if (line)
        line = json_key_line(buf, &from, key, '{');
    if (line)
        return cpn_fail(err, errlen, CPN_EINPUT, "%s:%zu: %s %s: %s", CAT_GAVEL_NAME, line,
                        type, key, what);
    return cpn_fail(err, errlen, CPN_EINPUT, "%s: %s %s: %s", CAT_GAVEL_NAME, type, key, what);
}

/* Parses a Gavel key "('NAME (batch size B)', G)" or "('NAME', G)" (whose batch is the
 * default). NAME goes to name[namelen]. Returns 0 or CPN_EINPUT. */
static int gavel_key(const char *key, char *name, size_t namelen, unsigned *batch,
                     unsigned *gpus)
{
    static const char open[] = "('", sep[] = "', ", bs[] = " (batch size ";
    if (strncmp(key, open, strlen(open)) != 0)
        return CPN_EINPUT;
    const char *s = key + strlen(open);
    const char *q = strstr(s, sep);
    if (!q || q == s || (size_t)(q - s) >= namelen)
        return CPN_EINPUT;
    const char *g = q + strlen(sep);
    size_t glen = strlen(g);
    char num[CAT_GAVEL_COUNT_MAX + 1];
    if (glen < 2 || glen > sizeof num || g[glen - 1] != ')')
        return CPN_EINPUT;
    memcpy(num, g, glen - 1);
    num[glen - 1] = '\0';
    uint64_t v;
    if (cpn_parse_u64(num, &v) != CPN_OK || v == 0 || v > UINT_MAX)
        return CPN_EINPUT;
    *gpus = (unsigned)v;

    memcpy(name, s, (size_t)(q - s));
    name[q - s] = '\0';
    *batch = cat_tun.gavel_default_batch;
    char *b = strstr(name, bs);
    if (!b)
        return CPN_OK;
    char *digits = b + strlen(bs);
    size_t dlen = strlen(digits);
    if (dlen < 2 || digits[dlen - 1] != ')')
        return CPN_EINPUT;
    digits[dlen - 1] = '\0';
    if (cpn_parse_u64(digits, &v) != CPN_OK || v == 0 || v > UINT_MAX)
        return CPN_EINPUT;
    *batch = (unsigned)v;
    *b = '\0';
    return b == name ? CPN_EINPUT : CPN_OK;
}

static int gavel_entry(struct catalog *c, const char *buf, int type, const cJSON *e, char *err,
                       size_t errlen)
{
    const char *tname = cat_type_names[type];
    char name[CAT_GAVEL_NAME_MAX + 1];
    unsigned batch, gpus;
    if (gavel_key(e->string, name, sizeof name, &batch, &gpus) != CPN_OK)
        return gavel_fail(err, errlen, buf, tname, e->string,
                          "malformed key (want \"('NAME (batch size B)', G)\")");
    if (!cJSON_IsObject(e))
        return gavel_fail(err, errlen, buf, tname, e->string, "not an object");
    const cJSON *alone = cJSON_GetObjectItemCaseSensitive(e, "null");
    if (!cJSON_IsNumber(alone))
        return gavel_fail(err, errlen, buf, tname, e->string,
                          "null: missing or not a number (the throughput alone)");
    double thr = alone->valuedouble;
    if (!isfinite(thr) || thr < 0)
        return gavel_fail(err, errlen, buf, tname, e->string, "null: negative throughput %g",
                          thr);
    const struct cat_gavel_model *gm = NULL;
    for (size_t i = 0; i < CAT_NGAVEL; i++)
        if (strcmp(cat_gavel_models[i].gavel, name) == 0)
            gm = &cat_gavel_models[i];
    if (!gm)
        return gavel_fail(err, errlen, buf, tname, e->string, "unknown model \"%s\"", name);
    int gi = -1;
    for (int k = 0; k < CAT_NCOUNTS; k++)
        if (cat_gpu_counts[k] == gpus)
            gi = k;
    /* 0.0 marks a combination Gavel did not measure; other GPU counts are not used. */
    if (thr == 0 || gi < 0)
        return CPN_OK;
    int mi = model_index(c, gm->model);
    struct cat_model *m = mi >= 0 ? &c->models[mi]
                                  : model_add(c, gm->model, family_find(gm->family)->name,
                                              gm->params_m);
    struct cat_point *p = point_get(m, batch);
    if (p->thr[type][gi] > 0)
        return gavel_fail(err, errlen, buf, tname, e->string, "a second entry for this key");
    p->thr[type][gi] = thr;
    if (gi == 0)
        p->step_s[type] = 1.0 / thr;
    return CPN_OK;
}

static const char *json_ws(const char *p)
{
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return p;
}

/* The character after the JSON string that starts at p (a '"'), or NULL. */
static const char *json_skip_string(const char *p)
{
    for (p++; *p; p++) {
        if (*p == '\\') {
            if (!*++p)
                return NULL;
            continue; /* the escaped character */
        }
        if (*p == '"')
            return p + 1;
    }
    return NULL;
}

/* The character after the JSON value that starts at p, matching brackets outside
 * strings, or NULL when the text ends first. It only delimits the value: cJSON checks
 * the sections that are used, the others are skipped. */
static const char *json_skip_value(const char *p)
{
    int depth = 0;
    for (;;) {
        if (depth > 0)
            p += strcspn(p, "\"{}[]"); /* nothing else matters inside brackets */
        char ch = *p;
        if (!ch)
            return NULL;
        if (ch == '"') {
            if (!(p = json_skip_string(p)))
                return NULL;
            if (depth == 0)
                return p;
            continue;
        }
        if (ch == '{' || ch == '[') {
            depth++;
        } else if (ch == '}' || ch == ']') {
            if (depth == 0)
                return p; /* the end of a scalar */
            if (--depth == 0)
                return p + 1;
        } else if (depth == 0 && (ch == ',' || ch == ' ' || ch == '\t' || ch == '\n' ||
                                  ch == '\r')) {
            return p;
        }
        p++;
    }
}

static int gavel_syntax(char *err, size_t errlen, const char *buf, const char *at,
                        const char *what)
{
    return cpn_fail(err, errlen, CPN_EINPUT, "%s:%zu: invalid JSON: %s", CAT_GAVEL_NAME,
                    text_line(buf, at), what);
}

/* Parses one type's section (the value text v..e) and adds its entries. */
static int gavel_section(struct catalog *c, const char *buf, int type, const char *v,
                         const char *e, char *err, size_t errlen)
{
    const char *end = NULL;
    cJSON *sec = cJSON_ParseWithLengthOpts(v, (size_t)(e - v), &end, 0);
    if (!sec)
        return gavel_syntax(err, errlen, buf, end ? end : v, "syntax error");
    int rc = CPN_OK;
    if (!cJSON_IsObject(sec))
        rc = cpn_fail(err, errlen, CPN_EINPUT, "%s:%zu: %s: not an object", CAT_GAVEL_NAME,
                      text_line(buf, v), cat_type_names[type]);
    const cJSON *entry;
    cJSON_ArrayForEach(entry, sec)
    {
        if (rc != CPN_OK)
            break;
        rc = gavel_entry(c, buf, type, entry, err, errlen);
    }
    cJSON_Delete(sec);
    return rc;
}

/* Reads the sections "v100", "p100" and "k80" of Gavel's table. The 1.2 MB text is
 * split into its top-level members first and each used section is parsed by cJSON
 * and freed before the next: a tree of the whole file (six sections, most of it
 * co-location pairs that are not used) costs three times as long to build. */
static int gavel_load(struct catalog *c, const char *buf, char *err, size_t errlen)
{
    bool seen[CAT_NTYPES] = {false};
    const char *p = json_ws(buf);
    if (*p != '{')
        return gavel_syntax(err, errlen, buf, p, "the text is not an object");
    p = json_ws(p + 1);
    while (*p != '}') {
        if (*p != '"')
            return gavel_syntax(err, errlen, buf, p, "expected a member name");
        const char *q = json_skip_string(p);
        if (!q)
            return gavel_syntax(err, errlen, buf, p, "unterminated string");
        const char *key = p + 1;
        size_t klen = (size_t)(q - 1 - key);
        p = json_ws(q);
        if (*p != ':')
            return gavel_syntax(err, errlen, buf, p, "expected ':'");
        const char *v = json_ws(p + 1);
        const char *e = json_skip_value(v);
        if (!e || e == v)
            return gavel_syntax(err, errlen, buf, v, "expected a value");
        for (int t = CAT_H100 + 1; t < CAT_NTYPES; t++) {
            if (strlen(cat_type_names[t]) != klen || strncmp(key, cat_type_names[t], klen) != 0)
                continue;
            if (seen[t])
                return cpn_fail(err, errlen, CPN_EINPUT, "%s:%zu: %s: a second section",
                                CAT_GAVEL_NAME, text_line(buf, key), cat_type_names[t]);
            seen[t] = true;
            int rc = gavel_section(c, buf, t, v, e, err, errlen);
            if (rc != CPN_OK)
                return rc;
        }
        p = json_ws(e);
        if (*p == ',') {
            p = json_ws(p + 1);
            if (*p == '}')
                return gavel_syntax(err, errlen, buf, p, "a comma before '}'");
        } else if (*p != '}') {
            return gavel_syntax(err, errlen, buf, p, "expected ',' or '}'");
        }
    }
    if (*json_ws(p + 1))
        return gavel_syntax(err, errlen, buf, json_ws(p + 1), "text after the object");
    for (int t = CAT_H100 + 1; t < CAT_NTYPES; t++)
        if (!seen[t])
            return cpn_fail(err, errlen, CPN_EINPUT, "%s: %s: missing section", CAT_GAVEL_NAME,
                            cat_type_names[t]);
    return CPN_OK;
}

/* ---- the co-location slow-downs ---- */

static int colocate_load(struct catalog *c, const char *buf, char *err, size_t errlen)
{
    const char *name = CAT_COLOCATE_NAME;
    struct csv_table t;
    int rc = csv_read(&t, name, buf, err, errlen);
    if (rc != CPN_OK)
        return rc;
    size_t col = 0;
    rc = csv_col(&t, name, "slowdown", &col, err, errlen);
    if (rc == CPN_OK && t.nrows < 2)
        rc = cpn_fail(err, errlen, CPN_EINPUT, "%s:%zu: no data rows", name, t.rows[0].line);
    double *v = cpn_calloc(t.nrows, sizeof *v);
    for (size_t i = 1; rc == CPN_OK && i < t.nrows; i++)
        rc = csv_positive(name, &t.rows[i], col, "slowdown", &v[i - 1], err, errlen);
    if (rc == CPN_OK) {
        gsl_sort(v, 1, t.nrows - 1);
        double med = gsl_stats_median_from_sorted_data(v, 1, t.nrows - 1);
        c->share_overhead = med / (double)cat_tun.colocate_sharers - 1.0;
    }
    free(v);
    csv_table_free(&t);
    return rc;
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
    int mi = model_index(c, cat_tun.reference_model);
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

int catalog_create_from(struct catalog **out, const char *profile_csv, const char *gavel_json,
                        const char *colocate_csv, char *err, size_t errlen)
{
    CPN_ASSERT(out);
    struct catalog *c = cpn_calloc(1, sizeof *c);
    int rc = profile_load(c, profile_csv ? profile_csv : cpn_embed_profile_csv, err, errlen);
    if (rc == CPN_OK)
        rc = gavel_load(c, gavel_json ? gavel_json : cpn_embed_gavel_json, err, errlen);
    if (rc == CPN_OK)
        rc = colocate_load(c, colocate_csv ? colocate_csv : cpn_embed_colocate_csv, err,
                           errlen);
    if (rc == CPN_OK) {
        models_finish(c);
        rc = speeds_fit(c, err, errlen);
    }
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
    return catalog_create_from(out, NULL, NULL, NULL, err, errlen);
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
    return name ? model_index(c, name) : -1;
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
    const struct cat_family *f = family_find(model_at(c, model)->family);
    CPN_ASSERT(f);
    return f->bytes_per_sample;
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

/* Largest multi-GPU efficiency used: a few of Gavel's measurements exceed 1 (e.g.
 * ResNet-18 batch 32 on two V100s: 1.57), which would make a job on more GPUs faster
 * than linear scaling allows; such figures are capped. */
#define CAT_EFF_MAX 1.0

/* Rule 4: efficiency of `gpus` GPUs: measured on type t for this model and batch
 * (capped at CAT_EFF_MAX), or the type's median, interpolated in log2(G) between the
 * counts of the table. */
static double model_eff(const struct catalog *c, const struct cat_model *m, unsigned batch,
                        int t, unsigned gpus, bool *derived)
{
    for (int k = 1; k < CAT_NCOUNTS; k++) {
        if (cat_gpu_counts[k] != gpus)
            continue;
        for (size_t j = 0; j < m->npts; j++) {
            const struct cat_point *p = &m->pts[j];
            if (p->batch == batch && p->thr[t][0] > 0 && p->thr[t][k] > 0) {
                double e = p->thr[t][k] / ((double)gpus * p->thr[t][0]);
                return e > CAT_EFF_MAX ? CAT_EFF_MAX : e;
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
