/* catalog_load: the readers of the catalogue's embedded measurements: the H100
 * profile (CSV), Gavel's throughputs (JSON, with the line of every key found again in
 * the text so that messages name it), the H100 co-location slow-downs (CSV) and the
 * input pipelines' CPU cost per sample (CSV). They fill the models, points and
 * pipelines; catalog.c derives everything else from them. */
#include "catalog_int.h"

#include "../base/csvrow.h"
#include "../base/util.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <gsl/gsl_sort_double.h>
#include <gsl/gsl_statistics_double.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest model name in a Gavel key, and longest GPU count, in characters. */
enum { CAT_GAVEL_NAME_MAX = 255, CAT_GAVEL_COUNT_MAX = 31 };

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
 * lines are skipped. There must be a header and at least one data row, each with as
 * many fields as the header. Returns 0, or CPN_EINPUT with "name:line: ..." (the
 * table is then empty). */
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
    if (rc == CPN_OK && t->nrows == 1)
        rc = cpn_fail(err, errlen, CPN_EINPUT, "%s:%zu: no data rows", name, t->rows[0].line);
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
    const struct cat_family *fam = cat_family_find(r->f[col[PCOL_FAMILY]]);
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

    int mi = cat_model_index(c, model);
    struct cat_model *m;
    if (mi < 0) {
        m = cat_model_add(c, model, fam->name, params_m);
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
    struct cat_point *p = cat_point_get(m, batch);
    if (p->step_s[CAT_H100] > 0)
        return cpn_fail(err, errlen, CPN_EINPUT, "%s:%zu: batch: a second row for %s batch %u",
                        name, r->line, model, batch);
    p->step_s[CAT_H100] = step_ms / CAT_MS_PER_S;
    cpn_grow((void **)&m->mem, &m->memcap, m->nmem + 1, sizeof *m->mem);
    m->mem[m->nmem++] = (struct cat_mem){.batch = batch, .gib = mem_mib / CAT_MIB_PER_GIB};
    return CPN_OK;
}

int cat_profile_load(struct catalog *c, const char *buf, char *err, size_t errlen)
{
    struct csv_table t;
    int rc = csv_read(&t, CAT_PROFILE_NAME, buf, err, errlen);
    if (rc != CPN_OK)
        return rc;
    size_t col[PCOL_N];
    for (int k = 0; rc == CPN_OK && k < PCOL_N; k++)
        rc = csv_col(&t, CAT_PROFILE_NAME, profile_cols[k], &col[k], err, errlen);
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
    if (gi < 0) /* GPU counts other than the table's are not used */
        return CPN_OK;
    int mi = cat_model_index(c, gm->model);
    struct cat_model *m = mi >= 0 ? &c->models[mi]
                                  : cat_model_add(c, gm->model, cat_family_find(gm->family)->name,
                                              gm->params_m);
    struct cat_point *p = cat_point_get(m, batch);
    if (p->thr[type][gi] > 0 || cat_zero_find(m, batch, type, gpus))
        return gavel_fail(err, errlen, buf, tname, e->string, "a second entry for this key");
    /* 0.0 is Gavel's mark of a combination that cannot run (its simulator never
     * schedules a job there): a measured zero, not a missing figure. */
    if (thr == 0) {
        cpn_grow((void **)&m->zeros, &m->zerocap, m->nzeros + 1, sizeof *m->zeros);
        m->zeros[m->nzeros++] = (struct cat_zero){.batch = batch, .type = type, .gpus = gpus};
        return CPN_OK;
    }
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
int cat_gavel_load(struct catalog *c, const char *buf, char *err, size_t errlen)
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

int cat_colocate_load(struct catalog *c, const char *buf, char *err, size_t errlen)
{
    const char *name = CAT_COLOCATE_NAME;
    struct csv_table t;
    int rc = csv_read(&t, name, buf, err, errlen);
    if (rc != CPN_OK)
        return rc;
    size_t col = 0;
    rc = csv_col(&t, name, "slowdown", &col, err, errlen);
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

/* ---- the input pipelines' CPU cost ---- */

/* One row of data/cpu_pipeline.csv: a pipeline's name (unique, and not CAT_PIPE_NONE,
 * which stands for "no measurement applies") and its CPU milliseconds per sample (> 0). */
static int cpu_row(struct catalog *c, const struct csv_row *r, size_t pcol, size_t mcol,
                   char *err, size_t errlen)
{
    const char *name = CAT_CPU_NAME, *pipe = r->f[pcol];
    if (!*pipe)
        return cpn_fail(err, errlen, CPN_EINPUT, "%s:%zu: pipeline: empty", name, r->line);
    if (strcmp(pipe, CAT_PIPE_NONE) == 0)
        return cpn_fail(err, errlen, CPN_EINPUT,
                        "%s:%zu: pipeline: \"%s\" is reserved (a cost of 0, not measured)", name,
                        r->line, pipe);
    for (size_t k = 0; k < c->npipes; k++)
        if (strcmp(c->pipes[k].name, pipe) == 0)
            return cpn_fail(err, errlen, CPN_EINPUT, "%s:%zu: pipeline: a second row for %s",
                            name, r->line, pipe);
    double ms;
    int rc = csv_positive(name, r, mcol, "cpu_ms_per_sample", &ms, err, errlen);
    if (rc != CPN_OK)
        return rc;
    cpn_grow((void **)&c->pipes, &c->pipecap, c->npipes + 1, sizeof *c->pipes);
    c->pipes[c->npipes++] = (struct cat_pipe){.name = cpn_strdup(pipe), .ms_per_sample = ms};
    return CPN_OK;
}

/* Reads the pipelines' names and costs; the other columns describe the measurement
 * and are not used. */
int cat_cpu_load(struct catalog *c, const char *buf, char *err, size_t errlen)
{
    const char *name = CAT_CPU_NAME;
    struct csv_table t;
    int rc = csv_read(&t, name, buf, err, errlen);
    if (rc != CPN_OK)
        return rc;
    size_t pcol = 0, mcol = 0;
    rc = csv_col(&t, name, "pipeline", &pcol, err, errlen);
    if (rc == CPN_OK)
        rc = csv_col(&t, name, "cpu_ms_per_sample", &mcol, err, errlen);
    for (size_t i = 1; rc == CPN_OK && i < t.nrows; i++)
        rc = cpu_row(c, &t.rows[i], pcol, mcol, err, errlen);
    csv_table_free(&t);
    return rc;
}
