/* plot_lines: the line figures of a sweep (see plot_int.h): an ablation per numeric
 * grid key, the JCT distributions, and the policies' timelines on one axis.
 *
 * An ablation's intervals are paired: each seed is the same queue (and the same
 * noise) at every value of the swept key, so the interval drawn at a value is that of
 * the per-seed difference to a reference value (the baseline's, when the baseline is
 * this key, else the smallest), centred on the mean. It shows whether a step of the
 * key moves the metric, which unpaired intervals over different queues would hide. */
#include "plot_int.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/embed.h"
#include "../engine/cluster.h"
#include "../engine/param.h"

/* ---- Ablations ------------------------------------------------------------------- */

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
static bool key_positions(const struct plot_key *k, double *x)
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

/* One ablation figure: key a on the x axis; rows metrics[0..nm); a column per job
 * queue (combination of the queue keys' values) when cols, else one; every other key
 * at choice. */
struct abl {
    size_t a;
    const char *const *metrics;
    size_t nm;
    bool cols;
    const double *pos;
    const size_t *order;
    size_t ref;
};

/* The divisor and axis label of a metric whose largest value is max. */
static double abl_scale(const struct plot *pl, const char *metric, char *lab, size_t n)
{
    static const struct {
        const char *metric, *label;
        double div;
    } known[] = {
        {"gpu_util_mean", "GPU util. (%)", 0.01},
        {"cpu_util_mean", "CPU util. (%)", 0.01},
        {"cpu_lost_gpu_s", "CPU-starved\nGPU-hours", 3600},
        {"oom_events", "OOM kills", 1},
        {"not_completed", "not completed", 1},
        {"failed", "failed", 1},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(known[i].metric, metric) == 0) {
            snprintf(lab, n, "%s", known[i].label);
            return known[i].div;
        }
    size_t l = strlen(metric);
    if (l > 2 && strcmp(metric + l - 2, "_s") == 0) {
        const char *w = strcmp(metric, "makespan_s") == 0       ? "makespan"
                        : strcmp(metric, "jct_all_mean_s") == 0 ? "JCT, all jobs"
                        : strcmp(metric, "jct_mean_s") == 0     ? "JCT, completed"
                                                                : NULL;
        if (w)
            snprintf(lab, n, "%s (%s)", w, pl->tu.name);
        else
            snprintf(lab, n, "%.*s (%s)", (int)(l - 2), metric, pl->tu.name);
        return pl->tu.div;
    }
    snprintf(lab, n, "%s", metric);
    return 1;
}

static int abl_figure(struct plot *pl, const struct plot_sweep *sv, const struct abl *ab,
                      size_t *choice, const char *name)
{
    const size_t nx = sv->k[ab->a].n, nsv = sv->s < sv->nk ? sv->k[sv->s].n : 1;
    const size_t nc = ab->cols ? plot_combos(sv, sv->q) : 1, nseed = plot_nseeds(sv);
    size_t *c0 = cpn_calloc(sv->nk + 1, sizeof *c0);
    memcpy(c0, choice, sv->nk * sizeof *c0);
    size_t *keep = cpn_calloc(ab->nm + 1, sizeof *keep), nkeep = 0;
    struct plot_cell *v = cpn_calloc(ab->nm * nc * nx * nsv + 1, sizeof *v);
    double *x = cpn_calloc(nseed, sizeof *x), *r = cpn_calloc(nseed, sizeof *r);
    double *div = cpn_calloc(ab->nm + 1, sizeof *div);
    char(*lab)[128] = cpn_calloc(ab->nm + 1, sizeof *lab);
    for (size_t m = 0; m < ab->nm; m++) {
        int cm = stats_csv_col(&sv->runs, ab->metrics[m]);
        div[m] = abl_scale(pl, ab->metrics[m], lab[m], sizeof lab[m]);
        bool any = false;
        for (size_t c = 0; c < nc; c++)
            for (size_t s = 0; s < nsv; s++) {
                if (ab->cols)
                    plot_combo(sv, sv->q, c, choice);
                if (sv->s < sv->nk)
                    choice[sv->s] = s;
                choice[ab->a] = ab->ref;
                plot_seed_values(sv, choice, cm, r);
                for (size_t xi = 0; xi < nx; xi++) {
                    choice[ab->a] = xi;
                    plot_seed_values(sv, choice, cm, x);
                    struct plot_cell e = plot_describe(x, nseed);
                    for (size_t j = 0; j < nseed; j++)
                        x[j] -= r[j];
                    struct plot_cell d = plot_describe(x, nseed);
                    double hw = isnan(d.hi) ? 0 : (d.hi - d.lo) / 2;
                    e.lo = e.m - hw;
                    e.hi = e.m + hw;
                    e.m /= div[m];
                    e.lo /= div[m];
                    e.hi /= div[m];
                    v[((m * nc + c) * nx + xi) * nsv + s] = e;
                    any |= !isnan(e.m);
                }
            }
        if (any)
            keep[nkeep++] = m;
    }
    memcpy(choice, c0, sv->nk * sizeof *c0);
    struct plot_gpv hdr = {0};
    plot_gpv_add(&hdr, "%s_label %s_x", sv->k[ab->a].name, sv->k[ab->a].name);
    for (size_t s = 0; s < nsv; s++) {
        const char *sn = sv->s < sv->nk ? sv->k[sv->s].raw[s] : "runs";
        plot_gpv_add(&hdr, " %s_mean %s_lo %s_hi", sn, sn, sn);
    }
    plot_gpv_add(&hdr, " (a block per panel, row by row: rows");
    for (size_t i = 0; i < nkeep; i++)
        plot_gpv_add(&hdr, " %s", ab->metrics[keep[i]]);
    plot_gpv_add(&hdr, "; %zu column%s)", nc, nc == 1 ? "" : "s");
    struct afile af = {0};
    char *dat = NULL;
    int rc = nkeep ? plot_dat_open(pl, name, hdr.s, &af, &dat) : CPN_OK;
    free(hdr.s);
    if (!rc && nkeep) {
        for (size_t i = 0; i < nkeep; i++)
            for (size_t c = 0; c < nc; c++) {
                for (size_t xi = 0; xi < nx; xi++) {
                    size_t xo = ab->order[xi];
                    fprintf(af.f, "\"%s\"", sv->k[ab->a].raw[xo]);
                    plot_put_val(af.f, ab->pos[xo]);
                    for (size_t s = 0; s < nsv; s++)
                        plot_put_cell(af.f, &v[((keep[i] * nc + c) * nx + xo) * nsv + s]);
                    fputc('\n', af.f);
                }
                fputs("\n\n", af.f);
            }
        rc = plot_dat_close(pl, &af);
    }
    if (!rc && nkeep) {
        struct plot_gpv w = {0}, xt = {0}, bare = {0};
        char held[512], notes[1200], sn[160], head[256], var[32], kb[128];
        size_t np = nkeep * nc;
        plot_held_note(pl, sv, (1ul << ab->a) | (ab->cols ? sv->q : 0), choice, name, held,
                       sizeof held);
        plot_seed_note(v, ab->nm * nc * nx * nsv, sn, sizeof sn);
        const char *kn = plot_key_name(pl, sv->k[ab->a].name, kb, sizeof kb);
        if (nseed > 1)
            snprintf(notes, sizeof notes, "%s; intervals paired with %s %s seed by seed%s%s", sn,
                     kn,
                     plot_value_shown(pl, sv, ab->a, ab->ref),
                     held[0] ? "; " : "", held);
        else
            snprintf(notes, sizeof notes, "%s%s%s", sn, held[0] ? "; " : "", held);
        snprintf(head, sizeof head, "%s ablation", kn);
        plot_gpv_str(&w, "data", dat);
        plot_gpv_num(&w, "npanel", (double)np);
        plot_gpv_num(&w, "nrow", (double)nkeep);
        plot_gpv_num(&w, "ncol", (double)nc);
        plot_series_vars(pl, sv, &w, SIZE_MAX);
        plot_gpv_num(&w, "nokey", sv->s >= sv->nk);
        plot_gpv_str(&w, "xlabel", kn);
        for (size_t xi = 0; xi < nx; xi++) {
            size_t xo = ab->order[xi];
            plot_gpv_add(&xt, "%s\"%s\" %.10g", xi ? ", " : "",
                         plot_value_shown(pl, sv, ab->a, xo),
                         ab->pos[xo]);
            plot_gpv_add(&bare, "%s\"\" %.10g", xi ? ", " : "", ab->pos[xo]);
        }
        plot_gpv_str(&w, "xtics", xt.s);
        plot_gpv_str(&w, "xticsbare", bare.s);
        double lo = ab->pos[ab->order[0]], hi = ab->pos[ab->order[nx - 1]];
        plot_gpv_num(&w, "xmin", lo - PLOT_X_PAD * (hi - lo));
        plot_gpv_num(&w, "xmax", hi + PLOT_X_PAD * (hi - lo));
        plot_gpv_title(pl, &w, head, notes);
        for (size_t p = 0; p < np; p++) {
            size_t m = keep[p / nc], c = p % nc;
            snprintf(var, sizeof var, "ylabel%zu", p + 1);
            plot_gpv_str(&w, var, c == 0 ? lab[m] : "");
            char qn[256] = "";
            if (nc > 1) {
                plot_combo(sv, sv->q, c, choice);
                plot_combo_label(pl, sv, sv->q, choice, qn, sizeof qn);
                memcpy(choice, c0, sv->nk * sizeof *c0);
            }
            snprintf(var, sizeof var, "ptitle%zu", p + 1);
            plot_gpv_str(&w, var, qn);
            snprintf(var, sizeof var, "xlab%zu", p + 1);
            plot_gpv_num(&w, var, p + nc >= np ? 1 : 0);
            double top = 0;
            for (size_t i = 0; i < nx * nsv; i++)
                top = fmax(top, v[(m * nc + c) * nx * nsv + i].hi); /* fmax skips NaN */
            /* Three or four ticks: a row is short. A panel of zeros gets [0, 1]. */
            double step = plot_nice_step(top, 3);
            snprintf(var, sizeof var, "ystep%zu", p + 1);
            plot_gpv_num(&w, var, step);
            snprintf(var, sizeof var, "ymax%zu", p + 1);
            plot_gpv_num(&w, var, top > 0 ? step * ceil(top * 1.05 / step) : 1);
        }
        double top = PLOT_TOP_CM + (nc > 1 ? PLOT_LINES_PTITLE_CM : 0);
        plot_gpv_num(&w, "topcm", top);
        plot_gpv_num(&w, "botcm", PLOT_BOTTOM_CM);
        rc = plot_draw(pl, name, cpn_embed_plot_lines, EMBED_LEN(cpn_embed_plot_lines), &w,
                       top + PLOT_LINES_ROW_H_CM * (double)nkeep + PLOT_BOTTOM_CM);
        free(w.s);
        free(xt.s);
        free(bare.s);
    }
    free(dat);
    free(c0);
    free(keep);
    free(v);
    free(x);
    free(r);
    free(div);
    free(lab);
    return rc;
}

/* The ablations of key a: one figure per combination of the other keys with several
 * values (a name suffix each), the queues as columns when they are few. */
static int ablation(struct plot *pl, const struct plot_sweep *sv, size_t a, const double *pos,
                    const char *const *metrics, size_t nm)
{
    const size_t nx = sv->k[a].n;
    size_t *order = cpn_calloc(nx, sizeof *order);
    /* x ascending, whatever the spec's order (insertion sort: a handful of values). */
    for (size_t i = 0; i < nx; i++) {
        size_t j = i;
        while (j > 0 && pos[order[j - 1]] > pos[i]) {
            order[j] = order[j - 1];
            j--;
        }
        order[j] = i;
    }
    struct abl ab = {.a = a, .metrics = metrics, .nm = nm, .pos = pos, .order = order,
                     .ref = sv->bl_k == a ? sv->bl_v : order[0]};
    size_t nq = plot_combos(sv, sv->q);
    ab.cols = nq > 1 && nq <= PLOT_ABL_MAXCOL;
    unsigned long facets = 0;
    size_t total = 1;
    for (size_t k = 0; k < sv->nk; k++)
        if (k != a && k != sv->s && k != sv->seed && sv->k[k].n > 1 &&
            !(ab.cols && (sv->q >> k & 1))) {
            facets |= 1ul << k;
            total *= sv->k[k].n;
        }
    size_t *choice = cpn_calloc(sv->nk + 1, sizeof *choice);
    int rc = CPN_OK;
    for (size_t i = 0; !rc && i < total; i++) {
        plot_combo(sv, facets, i, choice);
        char name[256], suf[200];
        plot_facet_suffix(sv, facets, choice, suf, sizeof suf);
        snprintf(name, sizeof name, "ablation_%s%s", sv->k[a].name, suf);
        rc = abl_figure(pl, sv, &ab, choice, name);
    }
    free(choice);
    free(order);
    return rc;
}

int plot_ablations(struct plot *pl, const struct plot_sweep *sv)
{
    const char *defaults[] = {"makespan_s",    sv->jct,          sv->fails,
                              "gpu_util_mean", "cpu_lost_gpu_s", "oom_events"};
    const char **m = cpn_calloc(pl->o->n_metrics + 2, sizeof *m);
    size_t nm = 0;
    if (pl->o->n_metrics) {
        /* The asked metrics, with the jobs not completed beside the JCT. */
        bool has_nc = false;
        for (size_t i = 0; i < pl->o->n_metrics; i++)
            has_nc |= strcmp(pl->o->metrics[i], sv->fails) == 0;
        for (size_t i = 0; i < pl->o->n_metrics; i++) {
            m[nm++] = pl->o->metrics[i];
            if (!has_nc && strcmp(pl->o->metrics[i], sv->jct) == 0)
                m[nm++] = sv->fails;
        }
    }
    int rc = CPN_OK;
    for (size_t k = 0; !rc && k < sv->nk; k++)
        if (k != sv->s && !(sv->q >> k & 1) && k != sv->seed && sv->k[k].n >= 2) {
            double *pos = cpn_calloc(sv->k[k].n, sizeof *pos);
            if (key_positions(&sv->k[k], pos))
                rc = nm ? ablation(pl, sv, k, pos, m, nm)
                        : ablation(pl, sv, k, pos, defaults, sizeof defaults / sizeof *defaults);
            free(pos);
        }
    free(m);
    return rc;
}

/* ---- JCT distributions ----------------------------------------------------------- */

/* The directory name of the run at choice with seed index j, or NULL. */
static const char *run_name(const struct plot_sweep *sv, const size_t *choice, size_t j)
{
    int cn = stats_csv_col(&sv->runs, "name");
    for (size_t r = 0; r < sv->runs.n_rows; r++) {
        bool ok = true;
        for (size_t k = 0; k < sv->nk && ok; k++)
            ok = strcmp(stats_csv_get(&sv->runs, r, sv->col[k]),
                        sv->k[k].raw[k == sv->seed ? j : choice[k]]) == 0;
        if (ok)
            return stats_csv_get(&sv->runs, r, cn);
    }
    return NULL;
}

/* JCT CDFs per series over all jobs, pooled over seeds, a panel per queue in rows of
 * at most PLOT_CDF_MAXCOL. */
int plot_sweep_cdf(struct plot *pl, const struct plot_sweep *sv)
{
    const size_t nc = plot_combos(sv, sv->q), ns = sv->s < sv->nk ? sv->k[sv->s].n : 1;
    double **x = cpn_calloc(nc * ns, sizeof *x);
    size_t *n = cpn_calloc(nc * ns, sizeof *n), *cap = cpn_calloc(nc * ns, sizeof *cap);
    size_t *tot = cpn_calloc(nc * ns, sizeof *tot);
    size_t *choice = cpn_calloc(sv->nk + 1, sizeof *choice);
    char *rdir = cpn_path_join(pl->src, "runs");
    int rc = 0;
    for (size_t c = 0; c < nc && !rc; c++)
        for (size_t s = 0; s < ns && !rc; s++) {
            plot_combo(sv, sv->q, c, choice);
            if (sv->s < sv->nk)
                choice[sv->s] = s;
            for (size_t j = 0; j < plot_nseeds(sv) && !rc; j++) {
                const char *rn = run_name(sv, choice, j);
                if (!rn)
                    continue;
                char *d = cpn_path_join(rdir, rn);
                size_t i = c * ns + s;
                rc = plot_read_jcts(pl, d, &x[i], &n[i], &cap[i], &tot[i]);
                free(d);
            }
        }
    free(rdir);
    struct afile af = {0};
    char *dat = NULL, hd[160];
    snprintf(hd, sizeof hd, "jct_%s fraction_of_all_jobs_done (a block per queue and policy, "
             "policies within queues)", pl->tu.name);
    if (!rc)
        rc = plot_dat_open(pl, "jct_cdf", hd, &af, &dat);
    if (!rc) {
        for (size_t i = 0; i < nc * ns; i++)
            plot_put_cdf_block(pl, af.f, x[i], n[i], tot[i]);
        rc = plot_dat_close(pl, &af);
    }
    if (!rc) {
        struct plot_gpv w = {0};
        char held[512], notes[700], xl[64], nm[32];
        plot_combo(sv, sv->q, 0, choice);
        plot_held_note(pl, sv, sv->q, choice, "jct_cdf", held,
                       sizeof held);
        size_t seeds = plot_nseeds(sv);
        snprintf(notes, sizeof notes, "%zu seed%s%s%s", seeds, seeds == 1 ? "" : "s pooled",
                 held[0] ? "; " : "", held);
        snprintf(xl, sizeof xl, "job completion time (%s)", pl->tu.name);
        double mx = 0;
        for (size_t i = 0; i < nc * ns; i++)
            for (size_t j = 0; j < n[i]; j++)
                mx = fmax(mx, x[i][j] / pl->tu.div);
        plot_gpv_xaxis(&w, mx);
        size_t ncol = nc <= PLOT_CDF_MAXCOL ? nc : nc == 4 ? 2 : PLOT_CDF_MAXCOL;
        size_t nrow = (nc + ncol - 1) / ncol;
        plot_gpv_str(&w, "data", dat);
        plot_gpv_num(&w, "npanel", (double)nc);
        plot_gpv_num(&w, "ncol", (double)ncol);
        plot_series_vars(pl, sv, &w, SIZE_MAX);
        plot_gpv_str(&w, "xlabel", xl);
        plot_gpv_num(&w, "topcm", PLOT_TOP_CM + (nc > 1 ? PLOT_LINES_PTITLE_CM : 0));
        plot_gpv_num(&w, "botcm", PLOT_BOTTOM_CM + 0.3);
        plot_gpv_title(pl, &w, "JCT distribution over all jobs (a failed or stuck job never "
                       "completes)", notes);
        for (size_t c = 0; c < nc; c++) {
            char qn[256] = "";
            if (nc > 1) {
                plot_combo(sv, sv->q, c, choice);
                plot_combo_label(pl, sv, sv->q, choice, qn, sizeof qn);
            }
            snprintf(nm, sizeof nm, "ptitle%zu", c + 1);
            plot_gpv_str(&w, nm, qn);
        }
        rc = plot_draw(pl, "jct_cdf", cpn_embed_plot_cdf, EMBED_LEN(cpn_embed_plot_cdf), &w,
                       PLOT_TOP_CM + (nc > 1 ? PLOT_LINES_PTITLE_CM : 0) +
                           PLOT_CDF_ROW_CM * (double)nrow + PLOT_BOTTOM_CM + 0.3);
        free(w.s);
    }
    free(dat);
    for (size_t i = 0; i < nc * ns; i++)
        free(x[i]);
    free(x);
    free(n);
    free(cap);
    free(tot);
    free(choice);
    return rc;
}

/* ---- The policies' timelines ----------------------------------------------------- */

/* Busy GPUs and queued jobs over time, a line per policy, for the first queue and the
 * first seed (every key at its first value); the title and stderr say which. */
int plot_sweep_timelines(struct plot *pl, const struct plot_sweep *sv)
{
    const size_t ns = sv->s < sv->nk ? sv->k[sv->s].n : 1;
    size_t *choice = cpn_calloc(sv->nk + 1, sizeof *choice);
    char *rdir = cpn_path_join(pl->src, "runs");
    struct afile af = {0};
    char *dat = NULL, hd[128];
    snprintf(hd, sizeof hd, "time_%s busy_gpus queued (a block per policy)", pl->tu.name);
    int rc = plot_dat_open(pl, "timelines", hd, &af, &dat);
    for (size_t s = 0; s < ns && !rc; s++) {
        if (sv->s < sv->nk)
            choice[sv->s] = s;
        const char *rn = run_name(sv, choice, 0);
        struct stats_csv t = {0};
        if (rn) {
            char *d = cpn_path_join(rdir, rn), *p = cpn_path_join(d, "timeline.csv");
            rc = stats_csv_read(p, &t, pl->err, sizeof pl->err);
            free(d);
            free(p);
        }
        int ct = stats_csv_col(&t, "time_s"), cb = stats_csv_col(&t, "busy_gpus");
        int cq = stats_csv_col(&t, "queue_len");
        for (size_t r = 0; r < t.n_rows; r++) {
            plot_put_val(af.f, plot_num_of(stats_csv_get(&t, r, ct)) / pl->tu.div);
            plot_put_val(af.f, plot_num_of(stats_csv_get(&t, r, cb)));
            plot_put_val(af.f, plot_num_of(stats_csv_get(&t, r, cq)));
            fputc('\n', af.f);
        }
        if (t.n_rows == 0)
            fputs("NaN NaN NaN\n", af.f);
        fputs("\n\n", af.f);
        stats_csv_free(&t);
    }
    free(rdir);
    if (!rc)
        rc = plot_dat_close(pl, &af);
    else
        afile_abort(&af);
    if (!rc) {
        struct plot_gpv w = {0};
        char held[512], notes[700];
        size_t used = 0;
        held[0] = '\0';
        for (size_t k = 0; k < sv->nk; k++)
            if (k != sv->s && sv->k[k].n > 1 && used < sizeof held) {
                char kv[256];
                used += (size_t)snprintf(held + used, sizeof held - used, "%s%s",
                                         used ? ", " : "", plot_key_value(pl, sv, k, 0, kv,
                                                                          sizeof kv));
            }
        if (held[0])
            fprintf(stderr, "cpnsim plot: timelines: the runs at %s\n", held);
        snprintf(notes, sizeof notes, "%s%s", held[0] ? "the runs at " : "one run each", held);
        plot_gpv_str(&w, "data", dat);
        plot_gpv_num(&w, "compare", 1);
        plot_series_vars(pl, sv, &w, SIZE_MAX);
        plot_gpv_str(&w, "tunit", pl->tu.name);
        plot_gpv_title(pl, &w, "Busy GPUs and queued jobs over time", notes);
        rc = plot_draw(pl, "timelines", cpn_embed_plot_timeline,
                       EMBED_LEN(cpn_embed_plot_timeline), &w, PLOT_TIMELINE_H_CM);
        free(w.s);
    }
    free(dat);
    free(choice);
    return rc;
}
