/* stats: statistics and sweep tables (see stats.h); reading tables back is
 * stats_csv.c's. The aggregation reads each run's
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

#include "../base/jsonpos.h"
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
    size_t *group_runs;     /* [n_groups]: runs with a summary */
    size_t *group_distinct; /* [n_groups]: distinct results among them */
    size_t *group_outcomes; /* [n_groups]: distinct outcomes (stats_outcome_fields) */
    size_t *partner;      /* [n_baselines * n_runs]: run r's partner under baseline b at
                             [b * n_runs + r], or SIZE_MAX */
    char **bl_label;      /* [n_baselines]: "key=value;..." for the baseline column */
};

static const struct stats_paired paired_metrics[] = STATS_PAIRED_METRICS;
#define N_PAIRED (sizeof paired_metrics / sizeof paired_metrics[0])
static const char *const stat_name[] = {[STATS_RATIO] = "ratio",
                                        [STATS_DIFFERENCE] = "difference"};

/* Keeps a summary's seed as the digits written (a string item): cJSON reads numbers
 * as doubles, which round seeds above 2^53, and runs.csv and paired.csv must name the
 * seed that reruns the run. */
static void exact_seed(cJSON *sum, const struct jpos *pos, const char *buf)
{
    cJSON *seed = cJSON_GetObjectItemCaseSensitive(sum, "seed");
    size_t n = 0;
    const char *text = seed ? jpos_number_text(pos, seed, buf, &n) : NULL;
    if (!text || n == 0 || n > 20 || strspn(text, "0123456789") < n)
        return;
    char digits[24];
    memcpy(digits, text, n);
    digits[n] = '\0';
    cJSON_ReplaceItemInObjectCaseSensitive(sum, "seed", cJSON_CreateString(digits));
}

static int load_summaries(struct agg *a, size_t *n_missing, char *err, size_t errlen)
{
    const struct stats_sweep *sw = a->sw;
    *n_missing = 0;
    for (size_t r = 0; r < sw->n_runs; r++) {
        size_t n = strlen(sw->runs_dir) + strlen(sw->runs[r].name) + sizeof "//summary.json";
        char *path = cpn_malloc(n), *buf;
        size_t len;
        snprintf(path, n, "%s/%s/summary.json", sw->runs_dir, sw->runs[r].name);
        FILE *probe = sw->runs[r].absent ? NULL : fopen(path, "rb");
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
        struct jpos pos = {0};
        char perr[CPN_ERR_LEN];
        if (jpos_parse(path, buf, len, &a->sum[r], &pos, perr, sizeof perr) == CPN_OK)
            exact_seed(a->sum[r], &pos, buf);
        jpos_free(&pos);
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
    size_t nb = sw->baseline ? sw->n_baselines : 0;
    for (size_t i = 0; i < nb * sw->n_runs; i++)
        a->partner[i] = SIZE_MAX;
    if (nb == 0)
        return;
    struct keyed *ks = cpn_calloc(sw->n_runs, sizeof *ks);
    size_t n = 0;
    for (size_t r = 0; r < sw->n_runs; r++)
        if (a->sum[r])
            ks[n++] = (struct keyed){join_params(sw, r, sw->n_keys, NULL), r};
    qsort(ks, n, sizeof *ks, keyed_cmp);
    for (size_t b = 0; b < nb; b++) {
        const char *const *bl = &sw->baseline[b * sw->n_keys];
        for (size_t r = 0; r < sw->n_runs; r++) {
            if (!a->sum[r])
                continue;
            struct keyed want = {join_params(sw, r, sw->n_keys, bl), 0};
            size_t lo = 0, hi = n;
            while (lo < hi) {
                size_t mid = lo + (hi - lo) / 2;
                if (strcmp(ks[mid].key, want.key) < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo < n && strcmp(ks[lo].key, want.key) == 0)
                a->partner[b * sw->n_runs + r] = ks[lo].run;
            free(want.key);
        }
    }
    for (size_t i = 0; i < n; i++)
        free(ks[i].key);
    free(ks);
}

/* Baseline b as "key=value;..." for the baseline column; the caller frees it. */
static char *baseline_label(const struct stats_sweep *sw, size_t b)
{
    const char *const *bl = &sw->baseline[b * sw->n_keys];
    size_t blen = 1;
    for (size_t k = 0; k < sw->n_keys; k++)
        if (bl[k])
            blen += strlen(sw->keys[k]) + strlen(bl[k]) + 2;
    char *s = cpn_malloc(blen);
    s[0] = '\0';
    for (size_t k = 0; k < sw->n_keys; k++)
        if (bl[k]) {
            if (s[0])
                strcat(s, ";");
            strcat(s, sw->keys[k]);
            strcat(s, "=");
            strcat(s, bl[k]);
        }
    return s;
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

/* Run r's paired value of metric m against its partner p: the ratio or the
 * difference, or NaN when either value is missing (or, for a ratio, the partner's is
 * not above 0). */
static double paired_value(const struct agg *a, size_t r, size_t p, size_t m, double *v,
                           double *b)
{
    *v = metric_of(a->sum[r], paired_metrics[m].metric);
    *b = metric_of(a->sum[p], paired_metrics[m].metric);
    if (isnan(*v) || isnan(*b))
        return NAN;
    if (paired_metrics[m].stat == STATS_DIFFERENCE)
        return *v - *b;
    return *b > 0 ? *v / *b : NAN;
}

static int write_baseline(FILE *f, const void *ctx)
{
    const struct agg *a = ctx;
    const struct stats_sweep *sw = a->sw;
    put_sep_text(f, put_key_header(f, sw, false, true), "metric");
    fputs(",stat,baseline,n,mean,sd,ci95_lo,ci95_hi\n", f);
    double *x = cpn_calloc(sw->n_runs, sizeof *x);
    for (size_t b = 0; b < sw->n_baselines; b++) {
        const size_t *partner = &a->partner[b * sw->n_runs];
        for (size_t g = 0; g < a->n_groups; g++) {
            size_t r0 = a->group_first[g];
            for (size_t m = 0; m < N_PAIRED; m++) {
                size_t n = 0;
                for (size_t r = r0; r < sw->n_runs; r++) {
                    if (!a->sum[r] || a->group[r] != g || partner[r] == SIZE_MAX)
                        continue;
                    double v, bv, d = paired_value(a, r, partner[r], m, &v, &bv);
                    if (!isnan(d))
                        x[n++] = d;
                }
                struct stats_desc d;
                stats_describe(x, n, STATS_CI_LEVEL, &d);
                put_sep_text(f, put_key_cells(f, sw, r0, false, true), paired_metrics[m].metric);
                fputc(',', f);
                fputs(stat_name[paired_metrics[m].stat], f);
                fputc(',', f);
                put_text(f, a->bl_label[b]);
                put_desc(f, &d);
                fputc('\n', f);
            }
        }
    }
    free(x);
    return ferror(f) ? -1 : 0;
}

/* paired.csv: the values behind baseline.csv, one row per baseline, run with a
 * partner, and paired metric, in that order; a value that is missing, and a paired
 * value that baseline.csv drops, are empty. */
static int write_paired(FILE *f, const void *ctx)
{
    const struct agg *a = ctx;
    const struct stats_sweep *sw = a->sw;
    fputs("baseline,name", f);
    put_key_header(f, sw, false, false);
    fputs(",seed,metric,stat,value,baseline_value,paired\n", f);
    for (size_t b = 0; b < sw->n_baselines; b++) {
        const size_t *partner = &a->partner[b * sw->n_runs];
        for (size_t r = 0; r < sw->n_runs; r++) {
            if (!a->sum[r] || partner[r] == SIZE_MAX)
                continue;
            for (size_t m = 0; m < N_PAIRED; m++) {
                double v, bv, d = paired_value(a, r, partner[r], m, &v, &bv);
                put_text(f, a->bl_label[b]);
                put_sep_text(f, false, sw->runs[r].name);
                put_key_cells(f, sw, r, false, false);
                char *seed = cell_of(cJSON_GetObjectItemCaseSensitive(a->sum[r], "seed"));
                fputc(',', f);
                put_text(f, seed);
                free(seed);
                put_sep_text(f, false, paired_metrics[m].metric);
                put_sep_text(f, false, stat_name[paired_metrics[m].stat]);
                put_num(f, v);
                put_num(f, bv);
                put_num(f, d);
                fputc('\n', f);
            }
        }
    }
    return ferror(f) ? -1 : 0;
}

/* A run's result as text: its summary but for the fields in which two runs with the
 * same result may differ: the wall-clock ones, the seed, and the predictor's own
 * accuracy (pred_factor_*), which the seed changes through the forest even in a run
 * whose policy never asked the predictor. The caller frees it. */
static char *result_text(const cJSON *sum)
{
    cJSON *c = cJSON_Duplicate(sum, true);
    for (cJSON *f = c ? c->child : NULL, *next; f; f = next) {
        next = f->next;
        if (is_wall_field(f->string) || strcmp(f->string, "seed") == 0 ||
            strncmp(f->string, STATS_PRED_PREFIX, strlen(STATS_PRED_PREFIX)) == 0)
            cJSON_Delete(cJSON_DetachItemViaPointer(c, f));
    }
    char *t = cJSON_PrintUnformatted(c);
    cJSON_Delete(c);
    char *s = cpn_strdup(t ? t : "");
    cJSON_free(t);
    return s;
}

/* The fields a comparison of policies is about; two runs that agree on them have the
 * same outcome though their CPU or utilisation figures (other tenants' noisy load on
 * the default cluster) may differ. */
static const char *const stats_outcome_fields[] = {"makespan_s",     "jct_mean_s",    "jct_all_mean_s",
                                                   "oom_events",     "not_completed", "deadlock"};

/* A run's outcome as text: those fields as the summary holds them. The caller frees it. */
static char *outcome_text(const cJSON *sum)
{
    cJSON *c = cJSON_CreateObject();
    for (size_t i = 0; i < sizeof stats_outcome_fields / sizeof stats_outcome_fields[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(sum, stats_outcome_fields[i]);
        if (v)
            cJSON_AddItemToObject(c, stats_outcome_fields[i], cJSON_Duplicate(v, true));
    }
    char *t = cJSON_PrintUnformatted(c);
    cJSON_Delete(c);
    char *s = cpn_strdup(t ? t : "");
    cJSON_free(t);
    return s;
}

struct grouped_text {
    size_t group;
    char *text;
};

static int grouped_text_cmp(const void *a, const void *b)
{
    const struct grouped_text *x = a, *y = b;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return strcmp(x->text, y->text);
}

/* Per group, the distinct texts (by text_of) of its runs with a summary, counted into
 * distinct[group]; runs[group] (when not NULL) counts the runs. */
static void count_distinct(struct agg *a, char *(*text_of)(const cJSON *), size_t *distinct,
                           size_t *runs)
{
    const struct stats_sweep *sw = a->sw;
    struct grouped_text *gt = cpn_calloc(sw->n_runs, sizeof *gt);
    size_t n = 0;
    for (size_t r = 0; r < sw->n_runs; r++)
        if (a->sum[r])
            gt[n++] = (struct grouped_text){a->group[r], text_of(a->sum[r])};
    qsort(gt, n, sizeof *gt, grouped_text_cmp);
    for (size_t i = 0; i < n; i++) {
        if (runs)
            runs[gt[i].group]++;
        if (i == 0 || gt[i].group != gt[i - 1].group || strcmp(gt[i].text, gt[i - 1].text) != 0)
            distinct[gt[i].group]++;
    }
    for (size_t i = 0; i < n; i++)
        free(gt[i].text);
    free(gt);
}

/* Per group: its runs (with a summary), the distinct results and the distinct outcomes
 * among them. */
static void count_results(struct agg *a)
{
    count_distinct(a, result_text, a->group_distinct, a->group_runs);
    count_distinct(a, outcome_text, a->group_outcomes, NULL);
}

static int write_groups(FILE *f, const void *ctx)
{
    const struct agg *a = ctx;
    const struct stats_sweep *sw = a->sw;
    put_sep_text(f, put_key_header(f, sw, false, true), "runs");
    fputs(",distinct,distinct_outcomes,seed_varies\n", f);
    for (size_t g = 0; g < a->n_groups; g++) {
        size_t r0 = a->group_first[g];
        bool first = put_key_cells(f, sw, r0, false, true);
        fprintf(f, "%s%zu,%zu,%zu,", first ? "" : ",", a->group_runs[g], a->group_distinct[g],
                a->group_outcomes[g]);
        put_text(f, sw->runs[r0].varies ? sw->runs[r0].varies : "");
        fputc('\n', f);
    }
    return ferror(f) ? -1 : 0;
}

/* Warns of each group whose seeds all gave the same result: its interval has no
 * width and describes nothing. */
static void warn_identical(const struct agg *a)
{
    const struct stats_sweep *sw = a->sw;
    for (size_t g = 0; sw->warn && g < a->n_groups; g++) {
        const struct stats_run *r0 = &sw->runs[a->group_first[g]];
        const char *name = r0->group ? r0->group : r0->name;
        if (a->group_runs[g] >= 2 && a->group_distinct[g] == 1)
            fprintf(sw->warn,
                    "group %s: its %zu seeds gave identical results; the seed varies nothing "
                    "this run depends on\n",
                    name, a->group_runs[g]);
        else if (a->group_runs[g] >= 2 && a->group_outcomes[g] == 1)
            fprintf(sw->warn,
                    "group %s: its %zu seeds gave the same makespan, JCTs, OOM kills and jobs not "
                    "completed; only other figures (CPU, utilisation) differ\n",
                    name, a->group_runs[g]);
    }
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
    size_t nb = sw->baseline ? sw->n_baselines : 0;
    struct agg a = {.sw = sw};
    a.sum = cpn_calloc(sw->n_runs, sizeof *a.sum);
    a.group = cpn_calloc(sw->n_runs, sizeof *a.group);
    a.group_first = cpn_calloc(sw->n_runs, sizeof *a.group_first);
    a.group_runs = cpn_calloc(sw->n_runs, sizeof *a.group_runs);
    a.group_distinct = cpn_calloc(sw->n_runs, sizeof *a.group_distinct);
    a.group_outcomes = cpn_calloc(sw->n_runs, sizeof *a.group_outcomes);
    a.partner = cpn_calloc(nb * sw->n_runs + 1, sizeof *a.partner);
    a.bl_label = cpn_calloc(nb + 1, sizeof *a.bl_label);
    for (size_t b = 0; b < nb; b++)
        a.bl_label[b] = baseline_label(sw, b);
    size_t missing = 0;
    int rc = load_summaries(&a, &missing, err, errlen);
    if (!rc) {
        find_groups(&a);
        find_partners(&a);
        count_results(&a);
        rc = write_table(out_dir, "runs.csv", write_runs, &a, err, errlen);
    }
    if (!rc)
        rc = write_table(out_dir, "timing.csv", write_timing, &a, err, errlen);
    if (!rc)
        rc = write_table(out_dir, "summary.csv", write_summary, &a, err, errlen);
    if (!rc)
        rc = write_table(out_dir, "groups.csv", write_groups, &a, err, errlen);
    if (!rc && nb)
        rc = write_table(out_dir, "baseline.csv", write_baseline, &a, err, errlen);
    if (!rc && nb)
        rc = write_table(out_dir, "paired.csv", write_paired, &a, err, errlen);
    if (!rc)
        warn_identical(&a);
    if (!rc && n_missing)
        *n_missing = missing;
    for (size_t r = 0; r < sw->n_runs; r++)
        cJSON_Delete(a.sum[r]);
    for (size_t b = 0; b < nb; b++)
        free(a.bl_label[b]);
    free(a.bl_label);
    free(a.sum);
    free(a.group);
    free(a.group_first);
    free(a.group_runs);
    free(a.group_distinct);
    free(a.group_outcomes);
    free(a.partner);
    free(a.fields.v);
    free(a.metrics.v);
    return rc;
}
