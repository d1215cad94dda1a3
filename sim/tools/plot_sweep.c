/* plot_sweep: the figures of a sweep directory (see plot.h), from its sweep.json,
 * summary.csv, baseline.csv and runs.csv.
 *
 * Sweep figures compare policies (the grid key "policy": one series each) across job
 * queues (the key "jobs": one cluster of bars, or one panel, each), with every other
 * multi-valued key held at its first value, which the title states; a numeric key
 * other than these and the seed, such as cpu_threshold, gets an ablation figure with
 * it on the x axis. Means and 95% intervals come from summary.csv and baseline.csv;
 * JCT distributions pool the completed jobs of every seed. */
#include "plot_int.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/embed.h"
#include "stats.h"

/* ---- A sweep -------------------------------------------------------------------- */

struct skey {
    const char *name;
    size_t n;
    const char **raw, **label;
};

struct sweep_view {
    cJSON *doc; /* sweep.json; the strings below point into it */
    struct skey *k;
    size_t nk;
    size_t s, c, seed; /* series, cluster and seed keys, or nk when absent */
    const char *bl_key, *bl_val;
    struct stats_csv sum, base, runs;
    bool has_base;
};

static const char *pretty_key(const char *k)
{
    static const struct {
        const char *key, *label;
    } names[] = {
        {"cpu_threshold", "CPU threshold"},
        {"scrape_interval_s", "scrape interval (s)"},
        {"poll_interval_s", "poll interval (s)"},
        {"link_gbps_scale", "WAN bandwidth (x the cluster's)"},
        {"warmup_s", "warm-up (s)"},
        {"jobs", "job queue"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i].key, k) == 0)
            return names[i].label;
    return k;
}

static int load_sweep(struct plot *pl, struct sweep_view *sv)
{
    char *p = cpn_path_join(pl->src, "sweep.json"), *buf;
    size_t len;
    int rc = cpn_read_file(p, &buf, &len, pl->err, sizeof pl->err);
    if (rc) {
        free(p);
        return rc;
    }
    sv->doc = cJSON_ParseWithLength(buf, len);
    free(buf);
    const cJSON *keys = cJSON_GetObjectItemCaseSensitive(sv->doc, "keys");
    if (!cJSON_IsArray(keys)) {
        rc = cpn_fail(pl->err, sizeof pl->err, CPN_EINPUT, "%s: not a sweep description", p);
        free(p);
        return rc;
    }
    free(p);
    sv->nk = (size_t)cJSON_GetArraySize(keys);
    sv->k = cpn_calloc(sv->nk + 1, sizeof *sv->k);
    sv->s = sv->c = sv->seed = sv->nk;
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, keys)
    {
        struct skey *k = &sv->k[i];
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(e, "name");
        const cJSON *vals = cJSON_GetObjectItemCaseSensitive(e, "values");
        const cJSON *labs = cJSON_GetObjectItemCaseSensitive(e, "labels");
        if (!cJSON_IsString(nm) || !cJSON_IsArray(vals) || !cJSON_IsArray(labs) ||
            cJSON_GetArraySize(vals) != cJSON_GetArraySize(labs))
            return cpn_fail(pl->err, sizeof pl->err, CPN_EINPUT,
                            "%s/sweep.json: keys[%zu]: not a grid key", pl->src, i);
        k->name = nm->valuestring;
        k->n = (size_t)cJSON_GetArraySize(vals);
        k->raw = cpn_calloc(k->n + 1, sizeof *k->raw);
        k->label = cpn_calloc(k->n + 1, sizeof *k->label);
        for (size_t j = 0; j < k->n; j++) {
            const cJSON *a = cJSON_GetArrayItem(vals, (int)j), *b = cJSON_GetArrayItem(labs, (int)j);
            k->raw[j] = cJSON_IsString(a) ? a->valuestring : "";
            k->label[j] = cJSON_IsString(b) ? b->valuestring : "";
        }
        if (strcmp(k->name, "policy") == 0)
            sv->s = i;
        else if (strcmp(k->name, "jobs") == 0)
            sv->c = i;
        else if (strcmp(k->name, "seed") == 0)
            sv->seed = i;
        i++;
    }
    const cJSON *bl = cJSON_GetObjectItemCaseSensitive(sv->doc, "baseline");
    if (cJSON_IsObject(bl) && bl->child && cJSON_IsString(bl->child)) {
        sv->bl_key = bl->child->string;
        sv->bl_val = bl->child->valuestring;
    }
    char *sp = cpn_path_join(pl->src, "summary.csv"), *rp = cpn_path_join(pl->src, "runs.csv");
    char *bp = cpn_path_join(pl->src, "baseline.csv");
    rc = stats_csv_read(sp, &sv->sum, pl->err, sizeof pl->err);
    if (!rc)
        rc = stats_csv_read(rp, &sv->runs, pl->err, sizeof pl->err);
    if (!rc && access(bp, R_OK) == 0) {
        rc = stats_csv_read(bp, &sv->base, pl->err, sizeof pl->err);
        sv->has_base = rc == 0;
    }
    free(sp);
    free(rp);
    free(bp);
    return rc;
}

static void free_sweep(struct sweep_view *sv)
{
    for (size_t i = 0; i < sv->nk; i++) {
        free(sv->k[i].raw);
        free(sv->k[i].label);
    }
    free(sv->k);
    stats_csv_free(&sv->sum);
    stats_csv_free(&sv->base);
    stats_csv_free(&sv->runs);
    cJSON_Delete(sv->doc);
}

/* The row of table t whose key columns hold the chosen values (choice[k] a value
 * index; keys absent from t, such as the seed, are ignored) and whose metric column
 * is metric (NULL: not checked); or -1. */
static long find_row(const struct sweep_view *sv, const struct stats_csv *t, const size_t *choice,
                     const char *metric)
{
    int cm = metric ? stats_csv_col(t, "metric") : -1;
    int *col = cpn_calloc(sv->nk + 1, sizeof *col);
    for (size_t k = 0; k < sv->nk; k++)
        col[k] = stats_csv_col(t, sv->k[k].name);
    long found = -1;
    for (size_t r = 0; r < t->n_rows && found < 0; r++) {
        if (metric && strcmp(stats_csv_get(t, r, cm), metric) != 0)
            continue;
        bool ok = true;
        for (size_t k = 0; k < sv->nk && ok; k++)
            if (col[k] >= 0 && k != sv->seed)
                ok = strcmp(stats_csv_get(t, r, col[k]), sv->k[k].raw[choice[k]]) == 0;
        if (ok)
            found = (long)r;
    }
    free(col);
    return found;
}

/* Mean and interval of a table row; the interval collapses onto the mean when absent. */
struct ci {
    double m, lo, hi;
};

static struct ci ci_of(const struct stats_csv *t, long r)
{
    struct ci c = {NAN, NAN, NAN};
    if (r < 0)
        return c;
    c.m = plot_num_of(stats_csv_get(t, (size_t)r, stats_csv_col(t, "mean")));
    c.lo = plot_num_of(stats_csv_get(t, (size_t)r, stats_csv_col(t, "ci95_lo")));
    c.hi = plot_num_of(stats_csv_get(t, (size_t)r, stats_csv_col(t, "ci95_hi")));
    if (isnan(c.lo) || isnan(c.hi))
        c.lo = c.hi = c.m;
    return c;
}

/* The series (policies) and clusters (queues) of a sweep figure. */
static size_t n_series(const struct sweep_view *sv) { return sv->s < sv->nk ? sv->k[sv->s].n : 1; }
static size_t n_clusters(const struct sweep_view *sv) { return sv->c < sv->nk ? sv->k[sv->c].n : 1; }

static void series_words(const struct sweep_view *sv, struct plot_gpv *w, size_t skip)
{
    size_t n = 0;
    for (size_t i = 0; i < n_series(sv); i++) {
        if (i == skip)
            continue;
        plot_gpv_add(w, "%s%s", n++ ? " " : "", sv->s < sv->nk ? sv->k[sv->s].label[i] : "runs");
    }
}

static const char *cluster_label(const struct sweep_view *sv, size_t c)
{
    return sv->c < sv->nk ? sv->k[sv->c].label[c] : "";
}

/* Every key at its first value; series and cluster keys at s and c. */
static void base_choice(const struct sweep_view *sv, size_t *choice, size_t s, size_t c)
{
    for (size_t k = 0; k < sv->nk; k++)
        choice[k] = 0;
    if (sv->s < sv->nk)
        choice[sv->s] = s;
    if (sv->c < sv->nk)
        choice[sv->c] = c;
}

/* "cpu_threshold 0.7; mean of 5 seeds, 95% CI" for a figure's title: the keys held
 * fixed (besides `free_key`) and what the bars average. */
static void held_note(const struct sweep_view *sv, size_t free_key, bool ci, char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < sv->nk && len < n; k++) {
        if (k == sv->s || k == sv->c || k == sv->seed || k == free_key || sv->k[k].n < 2)
            continue;
        len += (size_t)snprintf(buf + len, n - len, "%s%s %s", len ? ", " : "", sv->k[k].name,
                                sv->k[k].raw[0]);
    }
    if (ci && len < n) {
        size_t seeds = sv->seed < sv->nk ? sv->k[sv->seed].n : 1;
        if (seeds > 1)
            snprintf(buf + len, n - len, "%smean of %zu seeds, 95%% CI", len ? "; " : "", seeds);
        else
            snprintf(buf + len, n - len, "%sone run each", len ? "; " : "");
    }
}

/* Bar figure of one or more metrics (one panel each) from table t. time: values in
 * seconds, shown in a unit picked from the largest. skip: a series left out (the
 * baseline's), or SIZE_MAX. */
static int bars(struct plot *pl, const struct sweep_view *sv, const struct stats_csv *t,
                const char *name, const char *const *metrics, const char *const *ylabels,
                const char *const *ptitles, size_t npanel, bool time, size_t skip, double refline,
                const char *title)
{
    size_t nc = n_clusters(sv), ns = n_series(sv);
    struct ci *v = cpn_calloc(npanel * nc * ns, sizeof *v);
    size_t *choice = cpn_calloc(sv->nk + 1, sizeof *choice);
    double mx = 0;
    for (size_t p = 0; p < npanel; p++)
        for (size_t c = 0; c < nc; c++)
            for (size_t s = 0; s < ns; s++) {
                base_choice(sv, choice, s, c);
                struct ci x = ci_of(t, find_row(sv, t, choice, metrics[p]));
                v[(p * nc + c) * ns + s] = x;
                if (!isnan(x.hi))
                    mx = fmax(mx, x.hi);
            }
    struct plot_unit u = time ? plot_time_unit(mx) : (struct plot_unit){1, ""};
    struct afile af = {0};
    char *dat = NULL;
    int rc = plot_dat_open(pl, name, &af, &dat);
    if (!rc) {
        for (size_t p = 0; p < npanel; p++) {
            for (size_t c = 0; c < nc; c++) {
                /* Quoted: an empty label (no queue key) must still be a column. */
                fprintf(af.f, "\"%s\"", cluster_label(sv, c));
                for (size_t s = 0; s < ns; s++) {
                    if (s == skip)
                        continue;
                    const struct ci *x = &v[(p * nc + c) * ns + s];
                    plot_put_val(af.f, x->m / u.div);
                    plot_put_val(af.f, x->lo / u.div);
                    plot_put_val(af.f, x->hi / u.div);
                }
                fputc('\n', af.f);
            }
            fputs("\n\n", af.f);
        }
        rc = plot_dat_close(pl, &af);
    }
    if (!rc) {
        struct plot_gpv w = {0}, ser = {0};
        series_words(sv, &ser, skip);
        plot_gpv_str(&w, "data", dat);
        plot_gpv_num(&w, "npanel", (double)npanel);
        plot_gpv_num(&w, "nseries", (double)(ns - (skip < ns ? 1 : 0)));
        plot_gpv_str(&w, "series", ser.s ? ser.s : "");
        plot_gpv_num(&w, "clusters", (double)nc);
        for (size_t p = 0; p < npanel; p++) {
            char nm[32], lab[128];
            if (time)
                snprintf(lab, sizeof lab, "%s (%s)", ylabels[p], u.name);
            else
                snprintf(lab, sizeof lab, "%s", ylabels[p]);
            snprintf(nm, sizeof nm, "ylabel%zu", p + 1);
            plot_gpv_str(&w, nm, lab);
            snprintf(nm, sizeof nm, "ptitle%zu", p + 1);
            plot_gpv_str(&w, nm, ptitles ? ptitles[p] : "");
        }
        for (size_t p = 0; p < npanel; p++) {
            /* Room above the highest interval (and the reference line) for the key. */
            double top = isnan(refline) ? 0 : refline;
            for (size_t i = 0; i < nc * ns; i++) {
                double h = v[p * nc * ns + i].hi / u.div;
                if (!isnan(h) && i % ns != skip)
                    top = fmax(top, h);
            }
            char nm[32];
            snprintf(nm, sizeof nm, "ymax%zu", p + 1);
            plot_gpv_num(&w, nm, top > 0 ? top * PLOT_HEADROOM : 1);
        }
        plot_gpv_str(&w, "xlabel", sv->c < sv->nk ? pretty_key(sv->k[sv->c].name) : "");
        plot_gpv_str(&w, "title", title);
        plot_gpv_num(&w, "refline", refline);
        rc = plot_draw(pl, name, cpn_embed_plot_bars, EMBED_LEN(cpn_embed_plot_bars), &w,
                       PLOT_BARS_H_CM);
        free(w.s);
        free(ser.s);
    }
    free(dat);
    free(choice);
    free(v);
    return rc;
}

/* Whether every value of key k is a number. */
static bool numeric_key(const struct skey *k)
{
    for (size_t i = 0; i < k->n; i++)
        if (isnan(plot_num_of(k->raw[i])))
            return false;
    return true;
}

/* Makespan and OOM kills against key a (x axis), one line per series, one column
 * of panels per cluster. */
static int ablation(struct plot *pl, const struct sweep_view *sv, size_t a)
{
    static const char *const metrics[] = {"makespan_s", "oom_events"};
    static const char *const ylabels[] = {"makespan", "OOM kills"};
    const size_t nr = 2, nc = n_clusters(sv), ns = n_series(sv), nx = sv->k[a].n;
    struct ci *v = cpn_calloc(nr * nc * nx * ns, sizeof *v);
    size_t *choice = cpn_calloc(sv->nk + 1, sizeof *choice);
    size_t *order = cpn_calloc(nx, sizeof *order);
    double mx = 0;
    for (size_t r = 0; r < nr; r++)
        for (size_t c = 0; c < nc; c++)
            for (size_t x = 0; x < nx; x++)
                for (size_t s = 0; s < ns; s++) {
                    base_choice(sv, choice, s, c);
                    choice[a] = x;
                    struct ci e = ci_of(&sv->sum, find_row(sv, &sv->sum, choice, metrics[r]));
                    v[((r * nc + c) * nx + x) * ns + s] = e;
                    if (r == 0 && !isnan(e.hi))
                        mx = fmax(mx, e.hi);
                }
    /* x ascending, whatever the spec's order (insertion sort: a handful of values). */
    for (size_t i = 0; i < nx; i++) {
        size_t j = i;
        while (j > 0 && plot_num_of(sv->k[a].raw[order[j - 1]]) > plot_num_of(sv->k[a].raw[i])) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    struct plot_unit u = plot_time_unit(mx);
    char name[128];
    snprintf(name, sizeof name, "ablation_%s", sv->k[a].name);
    struct afile af = {0};
    char *dat = NULL;
    int rc = plot_dat_open(pl, name, &af, &dat);
    if (!rc) {
        for (size_t r = 0; r < nr; r++)
            for (size_t c = 0; c < nc; c++) {
                for (size_t xi = 0; xi < nx; xi++) {
                    size_t x = order[xi];
                    fputs(sv->k[a].raw[x], af.f);
                    for (size_t s = 0; s < ns; s++) {
                        const struct ci *e = &v[((r * nc + c) * nx + x) * ns + s];
                        double d = r == 0 ? u.div : 1;
                        plot_put_val(af.f, e->m / d);
                        plot_put_val(af.f, e->lo / d);
                        plot_put_val(af.f, e->hi / d);
                    }
                    fputc('\n', af.f);
                }
                fputs("\n\n", af.f);
            }
        rc = plot_dat_close(pl, &af);
    }
    if (!rc) {
        struct plot_gpv w = {0}, ser = {0};
        char note[512], title[700], lab[128], nm[32];
        held_note(sv, a, true, note, sizeof note);
        snprintf(title, sizeof title, "%s ablation%s%s", pretty_key(sv->k[a].name),
                 note[0] ? ": " : "", note);
        series_words(sv, &ser, SIZE_MAX);
        plot_gpv_str(&w, "data", dat);
        plot_gpv_num(&w, "nrow", (double)nr);
        plot_gpv_num(&w, "ncol", (double)nc);
        plot_gpv_num(&w, "nseries", (double)ns);
        plot_gpv_str(&w, "series", ser.s ? ser.s : "");
        plot_gpv_str(&w, "xlabel", pretty_key(sv->k[a].name));
        struct plot_gpv xt = {0};
        double lo = plot_num_of(sv->k[a].raw[order[0]]);
        double hi = plot_num_of(sv->k[a].raw[order[nx - 1]]);
        for (size_t xi = 0; xi < nx; xi++)
            plot_gpv_add(&xt, "%s%s", xi ? ", " : "", sv->k[a].raw[order[xi]]);
        plot_gpv_str(&w, "xtics", xt.s);
        free(xt.s);
        plot_gpv_num(&w, "xmin", lo - PLOT_X_PAD * (hi - lo));
        plot_gpv_num(&w, "xmax", hi + PLOT_X_PAD * (hi - lo));
        plot_gpv_str(&w, "title", title);
        for (size_t r = 0; r < nr; r++) {
            if (r == 0)
                snprintf(lab, sizeof lab, "%s (%s)", ylabels[r], u.name);
            else
                snprintf(lab, sizeof lab, "%s", ylabels[r]);
            snprintf(nm, sizeof nm, "ylabel%zu", r + 1);
            plot_gpv_str(&w, nm, lab);
        }
        for (size_t c = 0; c < nc; c++) {
            snprintf(nm, sizeof nm, "ctitle%zu", c + 1);
            plot_gpv_str(&w, nm, nc > 1 ? cluster_label(sv, c) : "");
        }
        rc = plot_draw(pl, name, cpn_embed_plot_lines, EMBED_LEN(cpn_embed_plot_lines), &w,
                       1.5 + PLOT_LINES_ROW_H_CM * (double)nr);
        free(w.s);
        free(ser.s);
    }
    free(dat);
    free(order);
    free(choice);
    free(v);
    return rc;
}

/* JCT CDFs per series, pooled over seeds, a panel per cluster. */
static int sweep_cdf(struct plot *pl, const struct sweep_view *sv)
{
    const size_t nc = n_clusters(sv), ns = n_series(sv);
    double **x = cpn_calloc(nc * ns, sizeof *x);
    size_t *n = cpn_calloc(nc * ns, sizeof *n), *cap = cpn_calloc(nc * ns, sizeof *cap);
    size_t *choice = cpn_calloc(sv->nk + 1, sizeof *choice);
    int *col = cpn_calloc(sv->nk + 1, sizeof *col);
    int cname = stats_csv_col(&sv->runs, "name");
    for (size_t k = 0; k < sv->nk; k++)
        col[k] = stats_csv_col(&sv->runs, sv->k[k].name);
    char *rdir = cpn_path_join(pl->src, "runs");
    int rc = 0;
    double mx = 0;
    for (size_t c = 0; c < nc && !rc; c++)
        for (size_t s = 0; s < ns && !rc; s++) {
            base_choice(sv, choice, s, c);
            for (size_t r = 0; r < sv->runs.n_rows && !rc; r++) {
                bool ok = true;
                for (size_t k = 0; k < sv->nk && ok; k++)
                    if (k != sv->seed)
                        ok = strcmp(stats_csv_get(&sv->runs, r, col[k]),
                                    sv->k[k].raw[choice[k]]) == 0;
                if (!ok)
                    continue;
                char *d = cpn_path_join(rdir, stats_csv_get(&sv->runs, r, cname));
                rc = plot_read_jcts(pl, d, &x[c * ns + s], &n[c * ns + s], &cap[c * ns + s]);
                free(d);
            }
            for (size_t i = 0; i < n[c * ns + s]; i++)
                mx = fmax(mx, x[c * ns + s][i]);
        }
    free(rdir);
    struct plot_unit u = plot_time_unit(mx);
    struct afile af = {0};
    char *dat = NULL;
    if (!rc)
        rc = plot_dat_open(pl, "jct_cdf", &af, &dat);
    if (!rc) {
        for (size_t i = 0; i < nc * ns; i++)
            plot_put_cdf_block(af.f, x[i], n[i], u.div);
        rc = plot_dat_close(pl, &af);
    }
    if (!rc) {
        struct plot_gpv w = {0}, ser = {0};
        char note[512], title[700], xl[64], nm[32];
        held_note(sv, SIZE_MAX, false, note, sizeof note);
        size_t seeds = sv->seed < sv->nk ? sv->k[sv->seed].n : 1;
        snprintf(title, sizeof title, "JCT of completed jobs, %zu seed%s pooled%s%s", seeds,
                 seeds == 1 ? "" : "s", note[0] ? "; " : "", note);
        snprintf(xl, sizeof xl, "job completion time (%s)", u.name);
        series_words(sv, &ser, SIZE_MAX);
        plot_gpv_str(&w, "data", dat);
        plot_gpv_num(&w, "npanel", (double)nc);
        plot_gpv_num(&w, "nseries", (double)ns);
        plot_gpv_str(&w, "series", ser.s ? ser.s : "");
        plot_gpv_str(&w, "xlabel", xl);
        plot_gpv_str(&w, "title", title);
        for (size_t c = 0; c < nc; c++) {
            snprintf(nm, sizeof nm, "ptitle%zu", c + 1);
            plot_gpv_str(&w, nm, cluster_label(sv, c));
        }
        rc = plot_draw(pl, "jct_cdf", cpn_embed_plot_cdf, EMBED_LEN(cpn_embed_plot_cdf), &w,
                       PLOT_CDF_H_CM);
        free(w.s);
        free(ser.s);
    }
    free(dat);
    for (size_t i = 0; i < nc * ns; i++)
        free(x[i]);
    free(x);
    free(n);
    free(cap);
    free(choice);
    free(col);
    return rc;
}

int plot_sweep(struct plot *pl)
{
    struct sweep_view sv = {0};
    int rc = load_sweep(pl, &sv);
    char note[512], title[700];
    if (!rc) {
        static const char *const m1[] = {"makespan_s"}, *const l1[] = {"makespan"};
        static const char *const m2[] = {"jct_mean_s"}, *const l2[] = {"mean JCT"};
        static const char *const m3[] = {"oom_events"}, *const l3[] = {"OOM kills"};
        held_note(&sv, SIZE_MAX, true, note, sizeof note);
        snprintf(title, sizeof title, "Makespan%s%s", note[0] ? ": " : "", note);
        rc = bars(pl, &sv, &sv.sum, "makespan", m1, l1, NULL, 1, true, SIZE_MAX, NAN, title);
        if (!rc) {
            snprintf(title, sizeof title, "Mean job completion time%s%s", note[0] ? ": " : "",
                     note);
            rc = bars(pl, &sv, &sv.sum, "jct_mean", m2, l2, NULL, 1, true, SIZE_MAX, NAN, title);
        }
        if (!rc) {
            snprintf(title, sizeof title, "OOM kills%s%s", note[0] ? ": " : "", note);
            rc = bars(pl, &sv, &sv.sum, "oom", m3, l3, NULL, 1, false, SIZE_MAX, NAN, title);
        }
    }
    if (!rc && sv.has_base && sv.bl_key) {
        static const char *const m[] = {"makespan_s", "jct_mean_s"};
        static const char *const t[] = {"makespan", "mean JCT"};
        char l0[128], l1[128];
        snprintf(l0, sizeof l0, "ratio to %s", sv.bl_val);
        snprintf(l1, sizeof l1, "ratio to %s", sv.bl_val);
        const char *const labs[] = {l0, l1};
        /* The baseline's own series is 1 by construction: left out, a dashed line. */
        size_t skip = SIZE_MAX;
        if (sv.s < sv.nk && strcmp(sv.bl_key, sv.k[sv.s].name) == 0)
            for (size_t i = 0; i < sv.k[sv.s].n; i++)
                if (strcmp(sv.k[sv.s].raw[i], sv.bl_val) == 0)
                    skip = i;
        if (skip == SIZE_MAX || n_series(&sv) > 1) {
            held_note(&sv, SIZE_MAX, false, note, sizeof note);
            size_t seeds = sv.seed < sv.nk ? sv.k[sv.seed].n : 1;
            snprintf(title, sizeof title,
                     "Paired ratio to %s=%s, mean of %zu seed%s with 95%% CI%s%s", sv.bl_key,
                     sv.bl_val, seeds, seeds == 1 ? "" : "s", note[0] ? "; " : "", note);
            rc = bars(pl, &sv, &sv.base, "ratio", m, labs, t, 2, false, skip, 1.0, title);
        }
    }
    for (size_t k = 0; !rc && k < sv.nk; k++)
        if (k != sv.s && k != sv.c && k != sv.seed && sv.k[k].n >= 2 && numeric_key(&sv.k[k]))
            rc = ablation(pl, &sv, k);
    if (!rc)
        rc = sweep_cdf(pl, &sv);
    free_sweep(&sv);
    return rc;
}
