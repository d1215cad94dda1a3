/* plot_sweep: the figures of a sweep directory (see plot.h), from its sweep.json,
 * summary.csv, baseline.csv and runs.csv.
 *
 * Sweep figures compare policies (the grid key "policy": one series each) across job
 * queues (the key "jobs": one cluster of bars, or one panel, each), with every other
 * multi-valued key held at its first value, which the title states; a numeric key
 * other than these and the seed, such as cpu_threshold (whose "never" counts as a
 * number one step past the largest), gets an ablation figure with it on the x axis.
 * Means and 95% intervals come from summary.csv and baseline.csv; JCT distributions
 * pool the completed jobs of every seed. */
#include "plot_int.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/embed.h"
#include "../engine/cluster.h"
#include "../engine/param.h"
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

/* The word a --set key accepts for "no limit" (cpu_threshold's never), or NULL. */
static const char *inf_word_of(const char *key)
{
    for (size_t i = 0; i < cluster_settable_count(); i++) {
        const struct param *p = cluster_settable(i);
        if (p && strcmp(cluster_settable_name(i), key) == 0)
            return p->inf_word;
    }
    return NULL;
}

/* The x position of each value of key k into x[0..k->n): a number where it stands,
 * and the key's word for "no limit" (cpu_threshold's never) one step right of the
 * largest number, the step being the gap between the two largest (1 when there is
 * one number), so that it reads as the end of the scale. Returns whether the key can
 * be drawn on a numeric axis: every value a number or that word, at least one number. */
static bool key_positions(const struct skey *k, double *x)
{
    const char *inf_word = inf_word_of(k->name);
    double top = -INFINITY, next = -INFINITY;
    size_t inf_at = SIZE_MAX, nnum = 0;
    for (size_t i = 0; i < k->n; i++) {
        x[i] = plot_num_of(k->raw[i]);
        if (isnan(x[i])) {
            if (!inf_word || strcmp(k->raw[i], inf_word) != 0)
                return false;
            inf_at = i;
            continue;
        }
        nnum++;
        if (x[i] > top) {
            next = top;
            top = x[i];
        } else if (x[i] < top && x[i] > next) {
            next = x[i];
        }
    }
    if (nnum == 0)
        return false;
    if (inf_at != SIZE_MAX)
        x[inf_at] = top + (isinf(next) ? 1 : top - next);
    return true;
}

/* The panels of an ablation figure, top to bottom: a summary.csv metric, its axis
 * label and how it is shown. Times get a unit from their largest value; GPU
 * utilisation (a fraction) is shown in per cent; the GPU-seconds lost to CPU
 * contention in GPU-hours. */
enum abl_unit { ABL_TIME, ABL_PERCENT, ABL_GPU_HOURS, ABL_COUNT };
static const struct {
    const char *metric, *ylabel;
    enum abl_unit unit;
} abl_panels[] = {
    {"makespan_s", "makespan", ABL_TIME},
    {"jct_mean_s", "mean JCT", ABL_TIME},
    {"gpu_util_mean", "GPU util. (%)", ABL_PERCENT},
    {"cpu_lost_gpu_s", "CPU-starved GPU-h", ABL_GPU_HOURS},
    {"oom_events", "OOM kills", ABL_COUNT},
};
#define ABL_NPANEL (sizeof abl_panels / sizeof abl_panels[0])

/* The divisor and axis label of panel m, whose largest value is max. */
static double abl_scale(size_t m, double max, char *lab, size_t n)
{
    if (abl_panels[m].unit == ABL_TIME) {
        struct plot_unit u = plot_time_unit(max);
        snprintf(lab, n, "%s (%s)", abl_panels[m].ylabel, u.name);
        return u.div;
    }
    snprintf(lab, n, "%s", abl_panels[m].ylabel);
    switch (abl_panels[m].unit) {
    case ABL_PERCENT: return 0.01;
    case ABL_GPU_HOURS: return 3600;
    case ABL_TIME:
    case ABL_COUNT: break;
    }
    return 1;
}

/* The metrics of abl_panels against key a (x axis), one line per series with its
 * interval, a row of panels per metric and a column per queue. A metric that no run
 * reports (an older summary) is left out. The data file has a block per panel, a row
 * per value of a in x order: its label, its x position (key_positions), then mean,
 * low and high per series. */
static int ablation(struct plot *pl, const struct sweep_view *sv, size_t a)
{
    const size_t nc = n_clusters(sv), ns = n_series(sv), nx = sv->k[a].n;
    struct ci *v = cpn_calloc(ABL_NPANEL * nc * nx * ns, sizeof *v);
    size_t *choice = cpn_calloc(sv->nk + 1, sizeof *choice);
    size_t *order = cpn_calloc(nx, sizeof *order);
    double *pos = cpn_calloc(nx, sizeof *pos), mx[ABL_NPANEL] = {0};
    size_t keep[ABL_NPANEL], nkeep = 0;
    key_positions(&sv->k[a], pos);
    for (size_t m = 0; m < ABL_NPANEL; m++) {
        bool any = false;
        for (size_t c = 0; c < nc; c++)
            for (size_t x = 0; x < nx; x++)
                for (size_t s = 0; s < ns; s++) {
                    base_choice(sv, choice, s, c);
                    choice[a] = x;
                    long r = find_row(sv, &sv->sum, choice, abl_panels[m].metric);
                    struct ci e = ci_of(&sv->sum, r);
                    v[((m * nc + c) * nx + x) * ns + s] = e;
                    any |= !isnan(e.m);
                    if (!isnan(e.hi))
                        mx[m] = fmax(mx[m], e.hi);
                }
        if (any)
            keep[nkeep++] = m;
    }
    /* x ascending, whatever the spec's order (insertion sort: a handful of values). */
    for (size_t i = 0; i < nx; i++) {
        size_t j = i;
        while (j > 0 && pos[order[j - 1]] > pos[i]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    char name[128], lab[ABL_NPANEL][128];
    double div[ABL_NPANEL];
    for (size_t m = 0; m < ABL_NPANEL; m++)
        div[m] = abl_scale(m, mx[m], lab[m], sizeof lab[m]);
    snprintf(name, sizeof name, "ablation_%s", sv->k[a].name);
    struct afile af = {0};
    char *dat = NULL;
    int rc = nkeep ? plot_dat_open(pl, name, &af, &dat) : CPN_OK;
    if (!rc && nkeep) {
        for (size_t i = 0; i < nkeep; i++)
            for (size_t c = 0; c < nc; c++) {
                size_t m = keep[i];
                for (size_t xi = 0; xi < nx; xi++) {
                    size_t x = order[xi];
                    fprintf(af.f, "\"%s\"", sv->k[a].raw[x]);
                    plot_put_val(af.f, pos[x]);
                    for (size_t s = 0; s < ns; s++) {
                        const struct ci *e = &v[((m * nc + c) * nx + x) * ns + s];
                        plot_put_val(af.f, e->m / div[m]);
                        plot_put_val(af.f, e->lo / div[m]);
                        plot_put_val(af.f, e->hi / div[m]);
                    }
                    fputc('\n', af.f);
                }
                fputs("\n\n", af.f);
            }
        rc = plot_dat_close(pl, &af);
    }
    if (!rc && nkeep) {
        struct plot_gpv w = {0}, ser = {0}, xt = {0}, bare = {0};
        char note[512], title[700], var[32];
        /* A row per metric, a column per queue: the rows share the x axis, whose
         * labels only the lowest shows. */
        size_t ncol = nc, nrow = nkeep, np = nkeep * nc;
        held_note(sv, a, true, note, sizeof note);
        snprintf(title, sizeof title, "%s ablation%s%s", pretty_key(sv->k[a].name),
                 note[0] ? ": " : "", note);
        series_words(sv, &ser, SIZE_MAX);
        plot_gpv_str(&w, "data", dat);
        plot_gpv_num(&w, "npanel", (double)np);
        plot_gpv_num(&w, "nrow", (double)nrow);
        plot_gpv_num(&w, "ncol", (double)ncol);
        plot_gpv_num(&w, "nseries", (double)ns);
        plot_gpv_str(&w, "series", ser.s ? ser.s : "");
        plot_gpv_str(&w, "xlabel", pretty_key(sv->k[a].name));
        for (size_t xi = 0; xi < nx; xi++)
            plot_gpv_add(&xt, "%s\"%s\" %.10g", xi ? ", " : "", sv->k[a].raw[order[xi]],
                         pos[order[xi]]);
        for (size_t xi = 0; xi < nx; xi++)
            plot_gpv_add(&bare, "%s\"\" %.10g", xi ? ", " : "", pos[order[xi]]);
        plot_gpv_str(&w, "xtics", xt.s);
        plot_gpv_str(&w, "xticsbare", bare.s);
        free(xt.s);
        free(bare.s);
        double lo = pos[order[0]], hi = pos[order[nx - 1]];
        plot_gpv_num(&w, "xmin", lo - PLOT_X_PAD * (hi - lo));
        plot_gpv_num(&w, "xmax", hi + PLOT_X_PAD * (hi - lo));
        plot_gpv_str(&w, "title", title);
        for (size_t p = 0; p < np; p++) {
            size_t m = keep[p / nc], c = p % nc;
            snprintf(var, sizeof var, "ylabel%zu", p + 1);
            plot_gpv_str(&w, var, c == 0 ? lab[m] : "");
            snprintf(var, sizeof var, "ptitle%zu", p + 1);
            plot_gpv_str(&w, var, nc > 1 ? cluster_label(sv, c) : "");
            snprintf(var, sizeof var, "xlab%zu", p + 1);
            plot_gpv_num(&w, var, p + ncol >= np ? 1 : 0);
            /* A panel of zeros (no OOM kill anywhere) gets a fixed axis: gnuplot would
             * warn that it cannot scale an empty range. */
            double top = 0;
            for (size_t i = 0; i < nx * ns; i++)
                top = fmax(top, v[(m * nc + c) * nx * ns + i].hi); /* fmax skips NaN */
            snprintf(var, sizeof var, "flat%zu", p + 1);
            plot_gpv_num(&w, var, top > 0 ? 0 : 1);
        }
        double top = PLOT_LINES_TOP_CM + (nc > 1 ? PLOT_LINES_PTITLE_CM : 0);
        plot_gpv_num(&w, "topcm", top);
        plot_gpv_num(&w, "botcm", PLOT_LINES_BOTTOM_CM);
        rc = plot_draw(pl, name, cpn_embed_plot_lines, EMBED_LEN(cpn_embed_plot_lines), &w,
                       top + PLOT_LINES_ROW_H_CM * (double)nrow + PLOT_LINES_BOTTOM_CM);
        free(w.s);
        free(ser.s);
    }
    free(dat);
    free(pos);
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
        if (k != sv.s && k != sv.c && k != sv.seed && sv.k[k].n >= 2) {
            double *pos = cpn_calloc(sv.k[k].n, sizeof *pos);
            bool numeric = key_positions(&sv.k[k], pos);
            free(pos);
            if (numeric)
                rc = ablation(pl, &sv, k);
        }
    if (!rc)
        rc = sweep_cdf(pl, &sv);
    free_sweep(&sv);
    return rc;
}
