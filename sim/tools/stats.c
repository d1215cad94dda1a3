/* stats: statistics and sweep tables (see stats.h). The aggregation reads each run's
 * summary.json as it stands on disk, so it works on run directories gathered from
 * anywhere (a Slurm cluster, GNU Parallel hosts) as long as they sit under one
 * runs directory. Rows follow the caller's run order, never the order in which runs
 * finished, so that the tables depend only on the runs' results: a sweep with -j 1
 * and one with -j 8 write the same bytes. The wall-clock fields (wall_s,
 * events_per_s) are the only summary fields that differ between repeats of a run;
 * they go to timing.csv, apart, for that reason. */
#include "stats.h"

#include <cjson/cJSON.h>
#include <csv.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/csvrow.h"
#include "../base/util.h"

/* ---- Descriptive statistics ----------------------------------------------------- */

void stats_describe(const double *x, size_t n, double level, struct stats_desc *out)
{
    *out = (struct stats_desc){.n = n, .mean = NAN, .sd = NAN, .lo = NAN, .hi = NAN};
    if (n == 0)
        return;
    out->mean = gsl_stats_mean(x, 1, n);
    if (n < 2)
        return;
    out->sd = gsl_stats_sd_m(x, 1, n, out->mean);
    double t = gsl_cdf_tdist_Pinv(0.5 + level / 2, (double)(n - 1));
    double half = t * out->sd / sqrt((double)n);
    out->lo = out->mean - half;
    out->hi = out->mean + half;
}

char *stats_fmt(double x, char buf[32])
{
    if (isnan(x)) {
        buf[0] = '\0';
        return buf;
    }
    snprintf(buf, 32, "%.15g", x);
    if (strtod(buf, NULL) != x)
        snprintf(buf, 32, "%.17g", x);
    return buf;
}

/* ---- CSV output ------------------------------------------------------------------ */

/* A text cell, quoted (by libcsv) only when it holds a comma, a quote or a line end. */
static void put_text(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\r\n"))
        csv_fwrite(f, s, strlen(s));
    else
        fputs(s, f);
}

static void put_sep_text(FILE *f, bool first, const char *s)
{
    if (!first)
        fputc(',', f);
    put_text(f, s);
}

static void put_num(FILE *f, double x)
{
    char b[32];
    fputc(',', f);
    fputs(stats_fmt(x, b), f);
}

/* A summary field as a cell: numbers exactly, booleans as true/false, null as "",
 * arrays of strings joined with ';'. Returns a string the caller frees. */
static char *cell_of(const cJSON *v)
{
    char b[32];
    if (!v || cJSON_IsNull(v))
        return cpn_strdup("");
    if (cJSON_IsBool(v))
        return cpn_strdup(cJSON_IsTrue(v) ? "true" : "false");
    if (cJSON_IsNumber(v))
        return cpn_strdup(stats_fmt(v->valuedouble, b));
    if (cJSON_IsString(v))
        return cpn_strdup(v->valuestring);
    if (cJSON_IsArray(v)) {
        /* Appended at a known length: a deadlocked million-job run lists many ids. */
        size_t len = 0, cap = 0;
        char *s = NULL;
        cpn_grow((void **)&s, &cap, 1, 1);
        const cJSON *e;
        cJSON_ArrayForEach(e, v)
        {
            char *c = cell_of(e);
            size_t cl = strlen(c);
            cpn_grow((void **)&s, &cap, len + cl + 2, 1);
            if (len > 0)
                s[len++] = ';';
            memcpy(s + len, c, cl);
            len += cl;
            free(c);
        }
        s[len] = '\0';
        return s;
    }
    char *txt = cJSON_PrintUnformatted(v);
    char *s = cpn_strdup(txt ? txt : "");
    cJSON_free(txt);
    return s;
}

/* ---- The aggregation ------------------------------------------------------------ */

static bool is_wall_field(const char *name)
{
    return strcmp(name, "wall_s") == 0 || strcmp(name, "events_per_s") == 0;
}

/* A name list in first-appearance order. */
struct names {
    const char **v;
    size_t n, cap;
};

static void names_add(struct names *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->v[i], s) == 0)
            return;
    cpn_grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v);
    l->v[l->n++] = s;
}

/* A string key with the run it belongs to, sorted to find groups and partners. */
struct keyed {
    char *key;
    size_t run;
};

static int keyed_cmp(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    return (x->run > y->run) - (x->run < y->run);
}

/* The params of run r joined with a unit separator (which no value holds); key
 * `skip` is left out (n_keys: none); where subst[k] is non-NULL it replaces key k. */
static char *join_params(const struct stats_sweep *sw, size_t r, size_t skip,
                         const char *const *subst)
{
    size_t len = 1;
    for (size_t k = 0; k < sw->n_keys; k++)
        len += strlen(subst && subst[k] ? subst[k] : sw->runs[r].params[k]) + 1;
    char *s = cpn_malloc(len);
    s[0] = '\0';
    for (size_t k = 0; k < sw->n_keys; k++) {
        if (k == skip)
            continue;
        strcat(s, subst && subst[k] ? subst[k] : sw->runs[r].params[k]);
        strcat(s, "\x1f");
    }
    return s;
}

struct agg {
    const struct stats_sweep *sw;
    cJSON **sum;          /* [n_runs]; NULL when the run has no summary.json */
    struct names fields;  /* runs.csv summary columns */
    struct names metrics; /* numeric summary fields, for summary.csv */
    size_t *group;        /* [n_runs]: group of each present run */
    size_t *group_first;  /* [n_groups]: first run of each group, in run order */
    size_t n_groups;
    size_t *partner;      /* [n_runs]: the baseline partner, or SIZE_MAX */
};

static int load_summaries(struct agg *a, size_t *n_missing, char *err, size_t errlen)
{
    const struct stats_sweep *sw = a->sw;
    *n_missing = 0;
    for (size_t r = 0; r < sw->n_runs; r++) {
        size_t n = strlen(sw->runs_dir) + strlen(sw->runs[r].name) + sizeof "//summary.json";
        char *path = cpn_malloc(n), *buf;
        size_t len;
        snprintf(path, n, "%s/%s/summary.json", sw->runs_dir, sw->runs[r].name);
        FILE *probe = fopen(path, "rb");
        if (!probe) {
            (*n_missing)++;
            free(path);
            continue;
        }
        fclose(probe);
        int rc = cpn_read_file(path, &buf, &len, err, errlen);
        if (rc) {
            free(path);
            return rc;
        }
        a->sum[r] = cJSON_ParseWithLength(buf, len);
        free(buf);
        if (!cJSON_IsObject(a->sum[r])) {
            rc = cpn_fail(err, errlen, CPN_EINPUT, "%s: not a run summary (a JSON object)", path);
            free(path);
            return rc;
        }
        free(path);
        const cJSON *f;
        cJSON_ArrayForEach(f, a->sum[r])
        {
            if (is_wall_field(f->string))
                continue;
            names_add(&a->fields, f->string);
            if ((cJSON_IsNumber(f) || cJSON_IsBool(f)) && strcmp(f->string, "seed") != 0)
                names_add(&a->metrics, f->string);
        }
    }
    return CPN_OK;
}

static void find_groups(struct agg *a)
{
    const struct stats_sweep *sw = a->sw;
    struct keyed *ks = cpn_calloc(sw->n_runs, sizeof *ks);
    size_t n = 0;
    for (size_t r = 0; r < sw->n_runs; r++)
        if (a->sum[r])
            ks[n++] = (struct keyed){join_params(sw, r, sw->seed_key, NULL), r};
    qsort(ks, n, sizeof *ks, keyed_cmp);
    /* Each run points at the first run of its group; groups are numbered in run order. */
    size_t *first = cpn_calloc(sw->n_runs, sizeof *first);
    for (size_t i = 0; i < n; i++)
        first[ks[i].run] = i > 0 && strcmp(ks[i].key, ks[i - 1].key) == 0 ? first[ks[i - 1].run]
                                                                          : ks[i].run;
    for (size_t r = 0; r < sw->n_runs; r++) {
        if (!a->sum[r])
            continue;
        if (first[r] == r) {
            a->group[r] = a->n_groups;
            a->group_first[a->n_groups++] = r;
        } else {
            a->group[r] = a->group[first[r]];
        }
    }
    for (size_t i = 0; i < n; i++)
        free(ks[i].key);
    free(ks);
    free(first);
}

static void find_partners(struct agg *a)
{
    const struct stats_sweep *sw = a->sw;
    for (size_t r = 0; r < sw->n_runs; r++)
        a->partner[r] = SIZE_MAX;
    if (!sw->baseline)
        return;
    struct keyed *ks = cpn_calloc(sw->n_runs, sizeof *ks);
    size_t n = 0;
    for (size_t r = 0; r < sw->n_runs; r++)
        if (a->sum[r])
            ks[n++] = (struct keyed){join_params(sw, r, sw->n_keys, NULL), r};
    qsort(ks, n, sizeof *ks, keyed_cmp);
    for (size_t r = 0; r < sw->n_runs; r++) {
        if (!a->sum[r])
            continue;
        struct keyed want = {join_params(sw, r, sw->n_keys, sw->baseline), 0};
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (strcmp(ks[mid].key, want.key) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo < n && strcmp(ks[lo].key, want.key) == 0)
            a->partner[r] = ks[lo].run;
        free(want.key);
    }
    for (size_t i = 0; i < n; i++)
        free(ks[i].key);
    free(ks);
}

/* The key columns of a header (every key, or every key but the seed), after a cell
 * unless first. Returns whether the line is still empty. */
static bool put_key_header(FILE *f, const struct stats_sweep *sw, bool with_seed, bool first)
{
    for (size_t k = 0; k < sw->n_keys; k++)
        if (with_seed || k != sw->seed_key) {
            put_sep_text(f, first, sw->keys[k]);
            first = false;
        }
    return first;
}

/* The same cells of run r. Returns whether the line is still empty. */
static bool put_key_cells(FILE *f, const struct stats_sweep *sw, size_t r, bool with_seed,
                          bool first)
{
    for (size_t k = 0; k < sw->n_keys; k++)
        if (with_seed || k != sw->seed_key) {
            put_sep_text(f, first, sw->runs[r].params[k]);
            first = false;
        }
    return first;
}

static bool is_key(const struct stats_sweep *sw, const char *name)
{
    for (size_t k = 0; k < sw->n_keys; k++)
        if (strcmp(sw->keys[k], name) == 0)
            return true;
    return false;
}

static int write_runs(FILE *f, const void *ctx)
{
    const struct agg *a = ctx;
    const struct stats_sweep *sw = a->sw;
    fputs("index,name", f);
    put_key_header(f, sw, true, false);
    for (size_t i = 0; i < a->fields.n; i++) {
        /* A summary field named like a key (policy, seed, jobs) would repeat a column
         * name; it keeps its value under a prefixed name. */
        fputc(',', f);
        if (is_key(sw, a->fields.v[i]))
            fputs("summary_", f);
        put_text(f, a->fields.v[i]);
    }
    fputc('\n', f);
    for (size_t r = 0; r < sw->n_runs; r++) {
        if (!a->sum[r])
            continue;
        fprintf(f, "%zu,", r);
        put_text(f, sw->runs[r].name);
        put_key_cells(f, sw, r, true, false);
        for (size_t i = 0; i < a->fields.n; i++) {
            char *c = cell_of(cJSON_GetObjectItemCaseSensitive(a->sum[r], a->fields.v[i]));
            fputc(',', f);
            put_text(f, c);
            free(c);
        }
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

static int write_timing(FILE *f, const void *ctx)
{
    const struct agg *a = ctx;
    const struct stats_sweep *sw = a->sw;
    fputs("index,name,wall_s,events_per_s\n", f);
    for (size_t r = 0; r < sw->n_runs; r++) {
        if (!a->sum[r])
            continue;
        fprintf(f, "%zu,", r);
        put_text(f, sw->runs[r].name);
        const cJSON *w = cJSON_GetObjectItemCaseSensitive(a->sum[r], "wall_s");
        const cJSON *e = cJSON_GetObjectItemCaseSensitive(a->sum[r], "events_per_s");
        put_num(f, cJSON_IsNumber(w) ? w->valuedouble : NAN);
        put_num(f, cJSON_IsNumber(e) ? e->valuedouble : NAN);
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

/* A metric of a run as a number: booleans count 0 or 1; NaN when absent or null. */
static double metric_of(const cJSON *sum, const char *name)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(sum, name);
    if (cJSON_IsNumber(v))
        return v->valuedouble;
    if (cJSON_IsBool(v))
        return cJSON_IsTrue(v) ? 1 : 0;
    return NAN;
}

static void put_desc(FILE *f, const struct stats_desc *d)
{
    fprintf(f, ",%zu", d->n);
    put_num(f, d->mean);
    put_num(f, d->sd);
    put_num(f, d->lo);
    put_num(f, d->hi);
}

static int write_summary(FILE *f, const void *ctx)
{
    const struct agg *a = ctx;
    const struct stats_sweep *sw = a->sw;
    put_sep_text(f, put_key_header(f, sw, false, true), "metric");
    fputs(",n,mean,sd,ci95_lo,ci95_hi\n", f);
    double *x = cpn_calloc(sw->n_runs, sizeof *x);
    for (size_t g = 0; g < a->n_groups; g++) {
        size_t r0 = a->group_first[g];
        for (size_t m = 0; m < a->metrics.n; m++) {
            size_t n = 0;
            for (size_t r = r0; r < sw->n_runs; r++) {
                if (!a->sum[r] || a->group[r] != g)
                    continue;
                double v = metric_of(a->sum[r], a->metrics.v[m]);
                if (!isnan(v))
                    x[n++] = v;
            }
            struct stats_desc d;
            stats_describe(x, n, STATS_CI_LEVEL, &d);
            put_sep_text(f, put_key_cells(f, sw, r0, false, true), a->metrics.v[m]);
            put_desc(f, &d);
            fputc('\n', f);
        }
    }
    free(x);
    return ferror(f) ? -1 : 0;
}

static int write_baseline(FILE *f, const void *ctx)
{
    const struct agg *a = ctx;
    const struct stats_sweep *sw = a->sw;
    static const struct stats_paired paired[] = STATS_PAIRED_METRICS;
    static const char *const stat_name[] = {[STATS_RATIO] = "ratio",
                                            [STATS_DIFFERENCE] = "difference"};
    /* The baseline as "key=value;..." for the baseline column. */
    size_t blen = 1;
    for (size_t k = 0; k < sw->n_keys; k++)
        if (sw->baseline[k])
            blen += strlen(sw->keys[k]) + strlen(sw->baseline[k]) + 2;
    char *bl = cpn_malloc(blen);
    bl[0] = '\0';
    for (size_t k = 0; k < sw->n_keys; k++)
        if (sw->baseline[k]) {
            if (bl[0])
                strcat(bl, ";");
            strcat(bl, sw->keys[k]);
            strcat(bl, "=");
            strcat(bl, sw->baseline[k]);
        }
    put_sep_text(f, put_key_header(f, sw, false, true), "metric");
    fputs(",stat,baseline,n,mean,sd,ci95_lo,ci95_hi\n", f);
    double *x = cpn_calloc(sw->n_runs, sizeof *x);
    for (size_t g = 0; g < a->n_groups; g++) {
        size_t r0 = a->group_first[g];
        for (size_t m = 0; m < sizeof paired / sizeof paired[0]; m++) {
            size_t n = 0;
            for (size_t r = r0; r < sw->n_runs; r++) {
                if (!a->sum[r] || a->group[r] != g || a->partner[r] == SIZE_MAX)
                    continue;
                double v = metric_of(a->sum[r], paired[m].metric);
                double b = metric_of(a->sum[a->partner[r]], paired[m].metric);
                if (isnan(v) || isnan(b))
                    continue;
                if (paired[m].stat == STATS_DIFFERENCE)
                    x[n++] = v - b;
                else if (b > 0)
                    x[n++] = v / b;
            }
            struct stats_desc d;
            stats_describe(x, n, STATS_CI_LEVEL, &d);
            put_sep_text(f, put_key_cells(f, sw, r0, false, true), paired[m].metric);
            fputc(',', f);
            fputs(stat_name[paired[m].stat], f);
            fputc(',', f);
            put_text(f, bl);
            put_desc(f, &d);
            fputc('\n', f);
        }
    }
    free(x);
    free(bl);
    return ferror(f) ? -1 : 0;
}

static int write_table(const char *dir, const char *name, int (*fn)(FILE *, const void *),
                       const struct agg *a, char *err, size_t errlen)
{
    struct afile af = {0};
    int rc = afile_open(&af, dir, name, err, errlen);
    if (rc)
        return rc;
    if (fn(af.f, a) != 0) {
        afile_abort(&af);
        return cpn_fail(err, errlen, CPN_EIO, "%s/%s: write failed", dir, name);
    }
    return afile_commit(&af, err, errlen);
}

int stats_aggregate(const struct stats_sweep *sw, const char *out_dir, size_t *n_missing,
                    char *err, size_t errlen)
{
    CPN_ASSERT(sw->seed_key <= sw->n_keys);
    struct agg a = {.sw = sw};
    a.sum = cpn_calloc(sw->n_runs, sizeof *a.sum);
    a.group = cpn_calloc(sw->n_runs, sizeof *a.group);
    a.group_first = cpn_calloc(sw->n_runs, sizeof *a.group_first);
    a.partner = cpn_calloc(sw->n_runs, sizeof *a.partner);
    size_t missing = 0;
    int rc = load_summaries(&a, &missing, err, errlen);
    if (!rc) {
        find_groups(&a);
        find_partners(&a);
        rc = write_table(out_dir, "runs.csv", write_runs, &a, err, errlen);
    }
    if (!rc)
        rc = write_table(out_dir, "timing.csv", write_timing, &a, err, errlen);
    if (!rc)
        rc = write_table(out_dir, "summary.csv", write_summary, &a, err, errlen);
    if (!rc && sw->baseline)
        rc = write_table(out_dir, "baseline.csv", write_baseline, &a, err, errlen);
    if (!rc && n_missing)
        *n_missing = missing;
    for (size_t r = 0; r < sw->n_runs; r++)
        cJSON_Delete(a.sum[r]);
    free(a.sum);
    free(a.group);
    free(a.group_first);
    free(a.partner);
    free(a.fields.v);
    free(a.metrics.v);
    return rc;
}

/* ---- CSV input ------------------------------------------------------------------ */

struct csv_reader {
    struct stats_csv t;
    size_t cap_cell;
    bool header_done;
};

/* The header's names, then each row's cells, a short row padded with "" and a long
 * one cut to the header's width. */
static int on_row(void *ctx, const struct csvrow *row)
{
    struct csv_reader *r = ctx;
    if (!r->header_done) {
        r->t.col = cpn_malloc(row->n * sizeof *r->t.col);
        for (size_t i = 0; i < row->n; i++)
            r->t.col[i] = cpn_strdup(row->f[i]);
        r->t.n_cols = row->n;
        r->header_done = true;
        return CPN_OK;
    }
    size_t nc = r->t.n_cols, base = r->t.n_rows * nc;
    cpn_grow((void **)&r->t.cell, &r->cap_cell, base + nc, sizeof *r->t.cell);
    for (size_t i = 0; i < nc; i++)
        r->t.cell[base + i] = cpn_strdup(i < row->n ? row->f[i] : "");
    r->t.n_rows++;
    return CPN_OK;
}

int stats_csv_read(const char *path, struct stats_csv *t, char *err, size_t errlen)
{
    char *buf;
    size_t len;
    int rc = cpn_read_file(path, &buf, &len, err, errlen);
    if (rc)
        return rc;
    struct csvrow_reader p;
    struct csv_reader r = {0};
    csvrow_init(&p, CSVROW_TRIM, on_row, &r);
    bool bad = csvrow_feed(&p, buf, len) != CPN_OK || csvrow_finish(&p) != CPN_OK;
    if (bad) {
        rc = cpn_fail(err, errlen, CPN_EINPUT, "%s:%zu: %s", path, r.t.n_rows + 2,
                      csvrow_strerror(&p));
    } else if (!r.header_done) {
        rc = cpn_fail(err, errlen, CPN_EINPUT, "%s:1: no header row", path);
    }
    csvrow_free(&p);
    free(buf);
    if (rc) {
        stats_csv_free(&r.t);
        return rc;
    }
    *t = r.t;
    return CPN_OK;
}

void stats_csv_free(struct stats_csv *t)
{
    for (size_t i = 0; i < t->n_cols; i++)
        free(t->col[i]);
    for (size_t i = 0; i < t->n_rows * t->n_cols; i++)
        free(t->cell[i]);
    free(t->col);
    free(t->cell);
    memset(t, 0, sizeof *t);
}

int stats_csv_col(const struct stats_csv *t, const char *name)
{
    for (size_t i = 0; i < t->n_cols; i++)
        if (strcmp(t->col[i], name) == 0)
            return (int)i;
    return -1;
}

const char *stats_csv_get(const struct stats_csv *t, size_t r, int c)
{
    if (c < 0 || (size_t)c >= t->n_cols || r >= t->n_rows)
        return "";
    return t->cell[r * t->n_cols + (size_t)c];
}
