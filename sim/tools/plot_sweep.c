/* plot_sweep: the figures of a sweep directory (see plot.h), from its sweep.json,
 * runs.csv and the `baseline` column of baseline.csv; this file reads them and draws
 * the bar figures, plot_lines.c the line figures.
 *
 * Sweep figures compare policies (the grid key "policy": one series each) across job
 * queues (the keys "jobs", "count", "arrival" and "mix": one cluster of bars, or one
 * panel, per combination of their values). Every statistic is computed here from
 * runs.csv, seed by seed, so that a paired statistic pairs the same seeds it
 * describes: means and Student-t intervals over seeds, ratios to the baseline seed by
 * seed, and (plot_lines.c) the ablations' per-seed differences. Any other grid key
 * with several values is held at its first value; the title says so and so does a
 * line on stderr. */
#include "plot_int.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/embed.h"

/* ---- Reading the sweep ----------------------------------------------------------- */

/* The grid keys that make the job queue: a file, or the generator's options. */
static bool queue_key(const char *name)
{
    return strcmp(name, "jobs") == 0 || strcmp(name, "count") == 0 ||
           strcmp(name, "arrival") == 0 || strcmp(name, "mix") == 0;
}

/* How a figure shows a value of key k by default: a queue length as "40 jobs", an
 * arrival as its spec ("poisson:0.01", whose label would read "poisson_0.01"), the
 * default job mix or generated queue as such, anything else as its label (a file's
 * base name). */
static char *shown_value(const struct plot_key *k, size_t j)
{
    char buf[160];
    if (strcmp(k->name, "count") == 0)
        snprintf(buf, sizeof buf, "%s jobs", k->raw[j]);
    else if (strcmp(k->name, "arrival") == 0)
        snprintf(buf, sizeof buf, "%s", k->raw[j]);
    else if (strcmp(k->name, "mix") == 0 && strcmp(k->raw[j], "default") == 0)
        snprintf(buf, sizeof buf, "default mix");
    else if (strcmp(k->name, "jobs") == 0 && strcmp(k->raw[j], "default") == 0)
        snprintf(buf, sizeof buf, "generated");
    else
        snprintf(buf, sizeof buf, "%s", k->label[j]);
    return cpn_strdup(buf);
}

static int load_keys(struct plot *pl, struct plot_sweep *sv)
{
    const cJSON *keys = cJSON_GetObjectItemCaseSensitive(sv->doc, "keys");
    if (!cJSON_IsArray(keys))
        return cpn_fail(pl->err, sizeof pl->err, CPN_EINPUT, "%s/sweep.json: not a sweep "
                        "description", pl->src);
    sv->nk = (size_t)cJSON_GetArraySize(keys);
    sv->k = cpn_calloc(sv->nk + 1, sizeof *sv->k);
    sv->s = sv->seed = sv->bl_k = sv->nk;
    size_t i = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, keys)
    {
        struct plot_key *k = &sv->k[i];
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(e, "name");
        const cJSON *vals = cJSON_GetObjectItemCaseSensitive(e, "values");
        const cJSON *labs = cJSON_GetObjectItemCaseSensitive(e, "labels");
        if (!cJSON_IsString(nm) || !cJSON_IsArray(vals) || !cJSON_IsArray(labs) ||
            cJSON_GetArraySize(vals) != cJSON_GetArraySize(labs) || cJSON_GetArraySize(vals) < 1)
            return cpn_fail(pl->err, sizeof pl->err, CPN_EINPUT,
                            "%s/sweep.json: keys[%zu]: not a grid key", pl->src, i);
        k->name = nm->valuestring;
        k->n = (size_t)cJSON_GetArraySize(vals);
        k->raw = cpn_calloc(k->n + 1, sizeof *k->raw);
        k->label = cpn_calloc(k->n + 1, sizeof *k->label);
        k->shown = cpn_calloc(k->n + 1, sizeof *k->shown);
        for (size_t j = 0; j < k->n; j++) {
            const cJSON *a = cJSON_GetArrayItem(vals, (int)j), *b = cJSON_GetArrayItem(labs, (int)j);
            k->raw[j] = cJSON_IsString(a) ? a->valuestring : "";
            k->label[j] = cJSON_IsString(b) ? b->valuestring : "";
            k->shown[j] = shown_value(k, j);
        }
        if (strcmp(k->name, "policy") == 0)
            sv->s = i;
        else if (strcmp(k->name, "seed") == 0)
            sv->seed = i;
        i++;
    }
    /* The queue is every queue key with several values (count and arrival together
     * make "40 jobs, batch"); with none, the first queue key, so that a lone queue
     * file still names its cluster. */
    for (size_t k = 0; k < sv->nk; k++)
        if (queue_key(sv->k[k].name) && sv->k[k].n > 1)
            sv->q |= 1ul << k;
    for (size_t k = 0; k < sv->nk && !sv->q; k++)
        if (queue_key(sv->k[k].name))
            sv->q = 1ul << k;
    return CPN_OK;
}

/* The ratio figure's baseline from "KEY=VALUE" (the first pair of a list such as
 * baseline.csv's "policy=fifo"); what names no grid key and value is an error. */
static int set_baseline(struct plot *pl, struct plot_sweep *sv, const char *kv, const char *from)
{
    const char *eq = strchr(kv, '=');
    size_t kl = eq ? (size_t)(eq - kv) : 0;
    const char *val = eq ? eq + 1 : "";
    size_t vl = strcspn(val, ",");
    for (size_t k = 0; eq && k < sv->nk; k++) {
        if (strlen(sv->k[k].name) != kl || strncmp(sv->k[k].name, kv, kl) != 0)
            continue;
        for (size_t j = 0; j < sv->k[k].n; j++)
            if ((strlen(sv->k[k].raw[j]) == vl && strncmp(sv->k[k].raw[j], val, vl) == 0) ||
                (strlen(sv->k[k].label[j]) == vl && strncmp(sv->k[k].label[j], val, vl) == 0)) {
                sv->bl_k = k;
                sv->bl_v = j;
                return CPN_OK;
            }
    }
    return cpn_fail(pl->err, sizeof pl->err, CPN_EINPUT,
                    "%s: baseline '%s': not KEY=VALUE with a grid key and one of its values",
                    from, kv);
}

static int load_sweep(struct plot *pl, struct plot_sweep *sv)
{
    char *p = cpn_path_join(pl->src, "sweep.json"), *buf;
    size_t len;
    int rc = cpn_read_file(p, &buf, &len, pl->err, sizeof pl->err);
    free(p);
    if (rc)
        return rc;
    sv->doc = cJSON_ParseWithLength(buf, len);
    free(buf);
    rc = load_keys(pl, sv);
    char *rp = cpn_path_join(pl->src, "runs.csv"), *bp = cpn_path_join(pl->src, "baseline.csv");
    if (!rc)
        rc = stats_csv_read(rp, &sv->runs, pl->err, sizeof pl->err);
    if (!rc) {
        sv->col = cpn_calloc(sv->nk + 1, sizeof *sv->col);
        for (size_t k = 0; k < sv->nk; k++)
            if ((sv->col[k] = stats_csv_col(&sv->runs, sv->k[k].name)) < 0)
                rc = cpn_fail(pl->err, sizeof pl->err, CPN_EINPUT, "%s: no column '%s'", rp,
                              sv->k[k].name);
        /* A sweep aggregated before jct_all_mean_s existed: JCT of completed jobs. */
        sv->old_jct = stats_csv_col(&sv->runs, "jct_all_mean_s") < 0;
        sv->jct = sv->old_jct ? "jct_mean_s" : "jct_all_mean_s";
        sv->fails = stats_csv_col(&sv->runs, "not_completed") >= 0 ? "not_completed" : "failed";
    }
    /* The baseline: --baseline, else the first of baseline.csv's `baseline` column,
     * else sweep.json's. */
    if (!rc && pl->o->baseline) {
        rc = set_baseline(pl, sv, pl->o->baseline, "--baseline");
    } else if (!rc && access(bp, R_OK) == 0) {
        struct stats_csv b = {0};
        rc = stats_csv_read(bp, &b, pl->err, sizeof pl->err);
        int cb = stats_csv_col(&b, "baseline");
        if (!rc && cb >= 0 && b.n_rows > 0)
            rc = set_baseline(pl, sv, stats_csv_get(&b, 0, cb), bp);
        stats_csv_free(&b);
    }
    if (!rc && sv->bl_k == sv->nk) {
        const cJSON *bl = cJSON_GetObjectItemCaseSensitive(sv->doc, "baseline");
        if (cJSON_IsObject(bl) && bl->child && cJSON_IsString(bl->child)) {
            char kv[256];
            snprintf(kv, sizeof kv, "%s=%s", bl->child->string, bl->child->valuestring);
            rc = set_baseline(pl, sv, kv, "sweep.json");
        }
    }
    free(rp);
    free(bp);
    return rc;
}

static void free_sweep(struct plot_sweep *sv)
{
    for (size_t i = 0; sv->k && i < sv->nk; i++) {
        for (size_t j = 0; sv->k[i].shown && j < sv->k[i].n; j++)
            free(sv->k[i].shown[j]);
        free(sv->k[i].shown);
        free(sv->k[i].raw);
        free(sv->k[i].label);
    }
    free(sv->k);
    free(sv->col);
    stats_csv_free(&sv->runs);
    cJSON_Delete(sv->doc);
}

/* ---- Statistics over seeds ------------------------------------------------------- */

size_t plot_nseeds(const struct plot_sweep *sv)
{
    return sv->seed < sv->nk ? sv->k[sv->seed].n : 1;
}

const char *plot_value_shown(const struct plot *pl, const struct plot_sweep *sv, size_t k,
                             size_t j)
{
    const struct plot_key *key = &sv->k[k];
    const char *v = plot_value_name(pl, key->name, key->raw[j], key->label[j]);
    return v == key->label[j] ? key->shown[j] : v; /* the label: no --label matched */
}

size_t plot_combos(const struct plot_sweep *sv, unsigned long keys)
{
    size_t total = 1;
    for (size_t k = 0; k < sv->nk; k++)
        if (keys >> k & 1)
            total *= sv->k[k].n;
    return total;
}

void plot_combo(const struct plot_sweep *sv, unsigned long keys, size_t i, size_t *choice)
{
    for (size_t k = sv->nk; k-- > 0;)
        if (keys >> k & 1) {
            choice[k] = i % sv->k[k].n;
            i /= sv->k[k].n;
        }
}

const char *plot_key_value(const struct plot *pl, const struct plot_sweep *sv, size_t k,
                           size_t j, char *buf, size_t len)
{
    const char *name = sv->k[k].name, *v = plot_value_shown(pl, sv, k, j);
    char kb[128];
    if (strcmp(name, "count") == 0 || strcmp(name, "mix") == 0)
        snprintf(buf, len, "%s", v);
    else
        snprintf(buf, len, "%s %s", plot_key_name(pl, name, kb, sizeof kb), v);
    return buf;
}

void plot_combo_label(const struct plot *pl, const struct plot_sweep *sv, unsigned long keys,
                      const size_t *choice, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < sv->nk && used < len; k++)
        if (keys >> k & 1)
            used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                                     plot_value_shown(pl, sv, k, choice[k]));
}

void plot_seed_values(const struct plot_sweep *sv, const size_t *choice, int cm, double *out)
{
    size_t ns = plot_nseeds(sv);
    for (size_t j = 0; j < ns; j++)
        out[j] = NAN;
    for (size_t r = 0; r < sv->runs.n_rows; r++) {
        bool ok = true;
        for (size_t k = 0; k < sv->nk && ok; k++)
            if (k != sv->seed)
                ok = strcmp(stats_csv_get(&sv->runs, r, sv->col[k]), sv->k[k].raw[choice[k]]) == 0;
        if (!ok)
            continue;
        size_t j = 0;
        if (sv->seed < sv->nk) {
            const char *sd = stats_csv_get(&sv->runs, r, sv->col[sv->seed]);
            while (j < ns && strcmp(sv->k[sv->seed].raw[j], sd) != 0)
                j++;
        }
        if (j < ns)
            out[j] = plot_num_of(stats_csv_get(&sv->runs, r, cm));
    }
}

struct plot_cell plot_describe(const double *x, size_t n)
{
    double *v = cpn_calloc(n + 1, sizeof *v);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!isnan(x[i]))
            v[m++] = x[i];
    struct stats_desc d;
    stats_describe(v, m, STATS_CI_LEVEL, &d);
    free(v);
    return (struct plot_cell){.m = d.mean, .lo = d.lo, .hi = d.hi, .sd = d.sd, .n = d.n};
}

void plot_put_cell(FILE *f, const struct plot_cell *c)
{
    plot_put_val(f, c->m);
    plot_put_val(f, c->lo);
    plot_put_val(f, c->hi);
}

const char *plot_seed_note(const struct plot_cell *c, size_t n, char *buf, size_t len)
{
    size_t seeds = 0, with_sd = 0, zero = 0;
    for (size_t i = 0; i < n; i++) {
        if (isnan(c[i].m))
            continue;
        seeds = c[i].n > seeds ? c[i].n : seeds;
        if (!isnan(c[i].sd)) {
            with_sd++;
            zero += c[i].sd == 0;
        }
    }
    if (seeds <= 1)
        snprintf(buf, len, "1 seed, no interval");
    else if (with_sd > 0 && zero == with_sd)
        snprintf(buf, len, "%zu seeds, all identical: no interval", seeds);
    else if (zero > 0)
        snprintf(buf, len, "mean of %zu seeds, 95%% CI (none where the seeds are identical)",
                 seeds);
    else
        snprintf(buf, len, "mean of %zu seeds, 95%% CI", seeds);
    return buf;
}

void plot_held_note(const struct plot *pl, const struct plot_sweep *sv, unsigned long free_keys,
                    const size_t *choice, const char *name, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < sv->nk && used < len; k++) {
        if (k == sv->s || k == sv->seed || (free_keys >> k & 1) || sv->k[k].n < 2)
            continue;
        char kv[256];
        used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                                 plot_key_value(pl, sv, k, choice[k], kv, sizeof kv));
    }
    if (buf[0])
        fprintf(stderr, "cpnsim plot: %s: held at %s\n", name, buf);
}

void plot_facet_suffix(const struct plot_sweep *sv, unsigned long keys, const size_t *choice,
                       char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < sv->nk && used < len; k++) {
        if (!(keys >> k & 1))
            continue;
        size_t at = used;
        used += (size_t)snprintf(buf + used, len - used, "_%s-%s", sv->k[k].name,
                                 sv->k[k].label[choice[k]]);
        /* File names safe for LaTeX's \includegraphics: one dot, the extension's. */
        for (char *c = buf + at + 1; *c; c++)
            if (*c == '.')
                *c = 'p';
            else if (*c == '/' || *c == ' ' || *c == '=')
                *c = '-';
    }
}

size_t plot_series_vars(struct plot *pl, const struct plot_sweep *sv, struct plot_gpv *w,
                        size_t skip)
{
    size_t n = 0, total = sv->s < sv->nk ? sv->k[sv->s].n : 1;
    for (size_t i = 0; i < total; i++) {
        if (i == skip)
            continue;
        char nm[32];
        snprintf(nm, sizeof nm, "sname%zu", ++n);
        plot_gpv_str(w, nm,
                     sv->s < sv->nk ? plot_value_shown(pl, sv, sv->s, i) : "runs");
    }
    plot_gpv_num(w, "nseries", (double)n);
    pl->key_cm = n > PLOT_KEY_COLS ? PLOT_KEY_ROW_CM : 0;
    return n;
}

/* ---- Bar figures ----------------------------------------------------------------- */

/* How a panel's values are shown: times in the figure set's unit, fractions in per
 * cent, counts as they are; a ratio panel shows each series' per-seed ratio to its
 * baseline partner (the same run with the baseline key at the baseline value). */
enum bar_kind { BAR_TIME, BAR_PERCENT, BAR_COUNT, BAR_RATIO };

struct bar_panel {
    const char *metric;
    enum bar_kind kind;
    char ylabel[128];
};

/* What a bar figure draws: its panels (stacked, sharing the x axis), its clusters
 * (a group choice and a label each) and the series value left out (SIZE_MAX: none). */
struct bar_fig {
    const char *name;
    struct bar_panel p[4];
    size_t np;
    size_t nc;
    size_t *choice; /* [nc * nk] */
    char (*clabel)[96];
    size_t skip;
    unsigned long free_keys; /* the keys the clusters vary (for the held note) */
};

static struct plot_cell bar_cell(const struct plot_sweep *sv, const struct bar_panel *bp,
                                 const size_t *choice, int cm)
{
    size_t ns = plot_nseeds(sv);
    double *x = cpn_calloc(ns, sizeof *x), *b = cpn_calloc(ns, sizeof *b);
    plot_seed_values(sv, choice, cm, x);
    if (bp->kind == BAR_RATIO) {
        size_t *bc = cpn_calloc(sv->nk + 1, sizeof *bc);
        memcpy(bc, choice, sv->nk * sizeof *bc);
        bc[sv->bl_k] = sv->bl_v;
        plot_seed_values(sv, bc, cm, b);
        for (size_t j = 0; j < ns; j++)
            x[j] = b[j] > 0 ? x[j] / b[j] : NAN;
        free(bc);
    }
    struct plot_cell c = plot_describe(x, ns);
    double div = bp->kind == BAR_PERCENT ? 0.01 : 1;
    c.m /= div;
    c.lo /= div;
    c.hi /= div;
    free(x);
    free(b);
    return c;
}

/* Draws a bar figure: a block per panel in the data file, a row per cluster with, per
 * series, its bar's x position, mean and interval (NaN ends: no interval). */
static int bars_draw(struct plot *pl, const struct plot_sweep *sv, struct bar_fig *f,
                     const char *head)
{
    size_t nsv = sv->s < sv->nk ? sv->k[sv->s].n : 1, ns = nsv - (f->skip < nsv ? 1 : 0);
    struct plot_cell *v = cpn_calloc(f->np * f->nc * nsv + 1, sizeof *v);
    size_t *ch = cpn_calloc(sv->nk + 1, sizeof *ch);
    for (size_t p = 0; p < f->np; p++) {
        int cm = stats_csv_col(&sv->runs, f->p[p].metric);
        for (size_t c = 0; c < f->nc; c++)
            for (size_t s = 0; s < nsv; s++) {
                memcpy(ch, f->choice + c * sv->nk, sv->nk * sizeof *ch);
                if (sv->s < sv->nk)
                    ch[sv->s] = s;
                v[(p * f->nc + c) * nsv + s] = bar_cell(sv, &f->p[p], ch, cm);
                if (f->p[p].kind == BAR_TIME) {
                    struct plot_cell *e = &v[(p * f->nc + c) * nsv + s];
                    e->m /= pl->tu.div;
                    e->lo /= pl->tu.div;
                    e->hi /= pl->tu.div;
                }
            }
    }
    struct plot_gpv hdr = {0};
    plot_gpv_add(&hdr, "group");
    for (size_t s = 0; s < nsv; s++)
        if (s != f->skip)
            plot_gpv_add(&hdr, " %s_x %s_mean %s_lo %s_hi",
                         sv->s < sv->nk ? sv->k[sv->s].raw[s] : "runs",
                         sv->s < sv->nk ? sv->k[sv->s].raw[s] : "runs",
                         sv->s < sv->nk ? sv->k[sv->s].raw[s] : "runs",
                         sv->s < sv->nk ? sv->k[sv->s].raw[s] : "runs");
    plot_gpv_add(&hdr, " (a block per panel:");
    for (size_t p = 0; p < f->np; p++)
        plot_gpv_add(&hdr, " %s%s", f->p[p].metric, f->p[p].kind == BAR_RATIO ? "_ratio" : "");
    plot_gpv_add(&hdr, ")");
    /* Bars of a cluster side by side, 0.8 of the cluster's width in all; a lone
     * cluster's no wider than PLOT_BAR_MAX_W each, lest two bars fill the page. */
    double bw = 0.8 / (double)ns;
    if (f->nc == 1 && bw > PLOT_BAR_MAX_W)
        bw = PLOT_BAR_MAX_W;
    struct afile af = {0};
    char *dat = NULL;
    int rc = plot_dat_open(pl, f->name, hdr.s, &af, &dat);
    free(hdr.s);
    if (!rc) {
        for (size_t p = 0; p < f->np; p++) {
            for (size_t c = 0; c < f->nc; c++) {
                fprintf(af.f, "\"%s\"", f->clabel[c]);
                for (size_t s = 0, i = 0; s < nsv; s++) {
                    if (s == f->skip)
                        continue;
                    const struct plot_cell *e = &v[(p * f->nc + c) * nsv + s];
                    plot_put_val(af.f, (double)c + ((double)i++ - (double)(ns - 1) / 2) * bw);
                    plot_put_cell(af.f, e);
                }
                fputc('\n', af.f);
            }
            fputs("\n\n", af.f);
        }
        rc = plot_dat_close(pl, &af);
    }
    if (!rc) {
        struct plot_gpv w = {0}, xt = {0}, xb = {0};
        char held[512], notes[1024], sn[160], var[32];
        plot_held_note(pl, sv, f->free_keys, f->choice, f->name, held, sizeof held);
        plot_seed_note(v, f->np * f->nc * nsv, sn, sizeof sn);
        snprintf(notes, sizeof notes, "%s%s%s%s", sn, held[0] ? "; " : "", held,
                 sv->old_jct && strcmp(f->p[0].metric, "jct_mean_s") == 0 ?
                 "; completed jobs only: this sweep's runs.csv has no jct_all_mean_s" : "");
        /* One cluster without a name: the series label their own bars, no key. */
        bool bare = f->nc == 1 && f->clabel[0][0] == '\0';
        size_t maxl = 0;
        for (size_t c = 0; c < f->nc; c++) {
            size_t l = strlen(f->clabel[c]);
            maxl = l > maxl ? l : maxl;
            plot_gpv_add(&xt, "%s\"%s\" %zu", c ? ", " : "", f->clabel[c], c);
            plot_gpv_add(&xb, "%s\"\" %zu", c ? ", " : "", c);
        }
        if (bare) {
            free(xt.s);
            free(xb.s);
            xt = xb = (struct plot_gpv){0};
            for (size_t s = 0, i = 0; s < nsv; s++) {
                if (s == f->skip)
                    continue;
                double x = ((double)i - (double)(ns - 1) / 2) * bw;
                plot_gpv_add(&xt, "%s\"%s\" %.6g", i ? ", " : "",
                             sv->s < sv->nk ? plot_value_shown(pl, sv, sv->s, s) : "runs",
                             x);
                plot_gpv_add(&xb, "%s\"\" %.6g", i++ ? ", " : "", x);
            }
        }
        bool rot = !bare && f->nc * (maxl + 2) > PLOT_XLABEL_CHARS;
        bool nokey = bare || sv->s >= sv->nk;
        double bot = (bare ? PLOT_BOTTOM_BARE_CM : PLOT_BOTTOM_CM) +
                     (rot ? PLOT_ROT_CM_PER_CHAR * (double)maxl : 0);
        double topcm = nokey ? PLOT_TOP_NOKEY_CM : PLOT_TOP_CM;
        double hcm = topcm + PLOT_BARS_PANEL_CM * (double)f->np + bot;
        plot_gpv_str(&w, "data", dat);
        plot_gpv_num(&w, "npanel", (double)f->np);
        plot_series_vars(pl, sv, &w, f->skip);
        plot_gpv_num(&w, "clusters", (double)f->nc);
        plot_gpv_num(&w, "bw", bw);
        plot_gpv_num(&w, "bare", bare);
        plot_gpv_num(&w, "xrot", rot);
        plot_gpv_str(&w, "xtics", xt.s ? xt.s : "");
        plot_gpv_str(&w, "xticsbare", xb.s ? xb.s : "");
        plot_gpv_num(&w, "topcm", topcm);
        plot_gpv_num(&w, "botcm", bot);
        char kb[128], xl[300] = "";
        for (size_t k = 0, used = 0; !bare && k < sv->nk && used < sizeof xl; k++)
            if (f->free_keys >> k & 1)
                used += (size_t)snprintf(xl + used, sizeof xl - used, "%s%s", used ? ", " : "",
                                         plot_key_name(pl, sv->k[k].name, kb, sizeof kb));
        plot_gpv_str(&w, "xlabel", xl);
        plot_gpv_num(&w, "nokey", nokey);
        for (size_t p = 0; p < f->np; p++) {
            snprintf(var, sizeof var, "ylabel%zu", p + 1);
            plot_gpv_str(&w, var, f->p[p].ylabel);
            double top = f->p[p].kind == BAR_RATIO ? 1 : 0;
            for (size_t i = 0; i < f->nc * nsv; i++) {
                const struct plot_cell *e = &v[p * f->nc * nsv + i];
                if (i % nsv != f->skip)
                    top = fmax(top, fmax(e->m, e->hi)); /* fmax skips NaN */
            }
            snprintf(var, sizeof var, "ymax%zu", p + 1);
            plot_gpv_num(&w, var, top > 0 ? top * 1.08 : 1);
            snprintf(var, sizeof var, "refline%zu", p + 1);
            plot_gpv_num(&w, var, f->p[p].kind == BAR_RATIO ? 1 : NAN);
        }
        plot_gpv_title(pl, &w, head, notes);
        rc = plot_draw(pl, f->name, cpn_embed_plot_bars, EMBED_LEN(cpn_embed_plot_bars), &w,
                       hcm);
        free(w.s);
        free(xt.s);
        free(xb.s);
    }
    free(dat);
    free(ch);
    free(v);
    return rc;
}

/* The clusters of a bar figure: every combination of the values of the keys in
 * ckeys (a bit per key), less the baseline's own value when its key is one of them;
 * every other key at its first value. Fills f->nc, choice and clabel. */
static void bar_clusters(const struct plot *pl, const struct plot_sweep *sv, unsigned long ckeys,
                         bool drop_baseline, struct bar_fig *f)
{
    size_t total = plot_combos(sv, ckeys);
    f->choice = cpn_calloc(total * sv->nk + 1, sizeof *f->choice);
    f->clabel = cpn_calloc(total + 1, sizeof *f->clabel);
    f->free_keys = ckeys;
    f->nc = 0;
    size_t *ch = cpn_calloc(sv->nk + 1, sizeof *ch);
    for (size_t i = 0; i < total; i++) {
        plot_combo(sv, ckeys, i, ch);
        if (drop_baseline && sv->bl_k < sv->nk && (ckeys >> sv->bl_k & 1) &&
            ch[sv->bl_k] == sv->bl_v)
            continue;
        memcpy(f->choice + f->nc * sv->nk, ch, sv->nk * sizeof *ch);
        plot_combo_label(pl, sv, ckeys, ch, f->clabel[f->nc], sizeof f->clabel[0]);
        /* A value label with a double quote would end the tick's string. */
        for (char *c = f->clabel[f->nc]; *c; c++)
            if (*c == '"')
                *c = '\'';
        f->nc++;
    }
    free(ch);
}

static void bar_fig_free(struct bar_fig *f)
{
    free(f->choice);
    free(f->clabel);
}

/* The baseline as the figures name it: the policy's name, or "KEY VALUE". */
static const char *baseline_name(const struct plot *pl, const struct plot_sweep *sv, char *buf,
                                 size_t len)
{
    if (sv->bl_k == sv->s)
        return plot_value_shown(pl, sv, sv->bl_k, sv->bl_v);
    return plot_key_value(pl, sv, sv->bl_k, sv->bl_v, buf, len);
}

static void set_panel(const struct plot *pl, const struct plot_sweep *sv, struct bar_panel *bp,
                      const char *metric, bool ratio)
{
    bp->metric = metric;
    size_t l = strlen(metric);
    bool time = l > 2 && strcmp(metric + l - 2, "_s") == 0;
    bp->kind = ratio ? BAR_RATIO
               : time ? BAR_TIME
               : strcmp(metric, "gpu_util_mean") == 0 || strcmp(metric, "cpu_util_mean") == 0
                   ? BAR_PERCENT
                   : BAR_COUNT;
    const char *what = strcmp(metric, "makespan_s") == 0       ? "makespan"
                       : strcmp(metric, "jct_all_mean_s") == 0 ? "mean JCT, all jobs"
                       : strcmp(metric, "jct_mean_s") == 0     ? "mean JCT, completed"
                       : strcmp(metric, "oom_events") == 0     ? "OOM kills"
                       : strcmp(metric, "not_completed") == 0  ? "jobs not completed"
                       : strcmp(metric, "failed") == 0         ? "jobs failed"
                       : strcmp(metric, "gpu_util_mean") == 0  ? "GPU utilisation"
                                                               : NULL;
    char kb[128];
    if (!what) {
        what = plot_key_name(pl, metric, kb, sizeof kb);
        if (time) /* the key name's own " (s)" gives way to the figure's unit */
            kb[strlen(kb) - 4] = '\0';
    }
    if (ratio)
        snprintf(bp->ylabel, sizeof bp->ylabel, "%s / %s's", what,
                 sv->bl_k == sv->s ? plot_value_shown(pl, sv, sv->s, sv->bl_v) : "baseline");
    else if (bp->kind == BAR_TIME)
        snprintf(bp->ylabel, sizeof bp->ylabel, "%s (%s)", what, pl->tu.name);
    else if (bp->kind == BAR_PERCENT)
        snprintf(bp->ylabel, sizeof bp->ylabel, "%s (%%)", what);
    else
        snprintf(bp->ylabel, sizeof bp->ylabel, "%s", what);
}

/* The bar figure of one metric: makespan, jct_mean (with the jobs not completed
 * beside it), oom, or the metric's own name. */
static int bar_metric(struct plot *pl, const struct plot_sweep *sv, const char *metric)
{
    struct bar_fig f = {.skip = SIZE_MAX};
    bool jct = strcmp(metric, sv->jct) == 0;
    f.name = strcmp(metric, "makespan_s") == 0   ? "makespan"
             : jct                               ? "jct_mean"
             : strcmp(metric, "oom_events") == 0 ? "oom"
                                                 : metric;
    set_panel(pl, sv, &f.p[f.np++], metric, false);
    if (jct)
        set_panel(pl, sv, &f.p[f.np++], sv->fails, false);
    bar_clusters(pl, sv, sv->q, false, &f);
    char head[256];
    snprintf(head, sizeof head, "%s", f.p[0].ylabel);
    if (head[0] >= 'a' && head[0] <= 'z') /* the axis label as a title */
        head[0] = (char)(head[0] - 'a' + 'A');
    if (jct)
        snprintf(head, sizeof head, "%s", sv->old_jct ? "Mean JCT of completed jobs, and jobs failed"
                                                      : "Mean JCT over all jobs, and jobs not completed");
    int rc = bars_draw(pl, sv, &f, head);
    bar_fig_free(&f);
    return rc;
}

/* The ratio figure: the times among the metrics as per-seed ratios to the baseline,
 * and beside the JCT the jobs not completed. Its clusters are the queues and, when
 * the baseline is not a policy, the baseline key's other values. */
static int bar_ratio(struct plot *pl, const struct plot_sweep *sv, const char *const *metrics,
                     size_t nm)
{
    struct bar_fig f = {.name = "ratio", .skip = SIZE_MAX};
    bool jct = false;
    for (size_t i = 0; i < nm && f.np < 3; i++) {
        size_t l = strlen(metrics[i]);
        if (l > 2 && strcmp(metrics[i] + l - 2, "_s") == 0) {
            set_panel(pl, sv, &f.p[f.np++], metrics[i], true);
            jct |= strcmp(metrics[i], sv->jct) == 0;
        }
    }
    if (f.np == 0)
        return CPN_OK;
    if (jct)
        set_panel(pl, sv, &f.p[f.np++], sv->fails, false);
    unsigned long ck = sv->q;
    if (sv->bl_k == sv->s)
        f.skip = sv->bl_v; /* 1 by construction: the dashed line */
    else
        ck |= 1ul << sv->bl_k;
    bar_clusters(pl, sv, ck, true, &f);
    int rc = CPN_OK;
    if (f.nc > 0 && (f.skip == SIZE_MAX || sv->k[sv->s].n > 1)) {
        char head[400], bb[256];
        snprintf(head, sizeof head, "Paired ratios to %s, seed by seed",
                 baseline_name(pl, sv, bb, sizeof bb));
        rc = bars_draw(pl, sv, &f, head);
    }
    bar_fig_free(&f);
    return rc;
}

/* ---- The entry point ------------------------------------------------------------ */

int plot_sweep(struct plot *pl)
{
    struct plot_sweep sv = {0};
    int rc = load_sweep(pl, &sv);
    const char *defaults[] = {"makespan_s", sv.jct, "oom_events"};
    const char *const *metrics = pl->o->n_metrics ? pl->o->metrics : defaults;
    size_t nm = pl->o->n_metrics ? pl->o->n_metrics : 3;
    for (size_t i = 0; !rc && i < nm; i++) {
        /* A metric is a column of runs.csv with a number in some row. */
        int cm = stats_csv_col(&sv.runs, metrics[i]);
        bool num = false;
        for (size_t r = 0; cm >= 0 && r < sv.runs.n_rows && !num; r++)
            num = !isnan(plot_num_of(stats_csv_get(&sv.runs, r, cm)));
        for (size_t k = 0; k < sv.nk; k++)
            num &= cm != sv.col[k];
        if (!num)
            rc = cpn_fail(pl->err, sizeof pl->err, CPN_EINPUT,
                          "--metrics: '%s' is not a metric of %s/runs.csv (a numeric column "
                          "such as makespan_s)",
                          metrics[i], pl->src);
    }
    if (!rc) {
        /* One time unit for every figure, from the longest run. */
        int cm = stats_csv_col(&sv.runs, "makespan_s");
        double mx = 0;
        for (size_t r = 0; r < sv.runs.n_rows; r++)
            mx = fmax(mx, plot_num_of(stats_csv_get(&sv.runs, r, cm)));
        pl->tu = plot_time_unit(mx);
    }
    for (size_t i = 0; !rc && i < nm; i++)
        rc = bar_metric(pl, &sv, metrics[i]);
    if (!rc && sv.bl_k < sv.nk)
        rc = bar_ratio(pl, &sv, metrics, nm);
    if (!rc)
        rc = plot_ablations(pl, &sv);
    if (!rc)
        rc = plot_sweep_cdf(pl, &sv);
    if (!rc)
        rc = plot_sweep_timelines(pl, &sv);
    free_sweep(&sv);
    return rc;
}
