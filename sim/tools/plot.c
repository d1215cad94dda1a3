/* plot: the figures of a run directory or a sweep directory (see plot.h); this file
 * draws one figure and the run's figures, plot_sweep.c and plot_lines.c the sweep's.
 *
 * The work is split so that each side does what it is good at: this code reads the
 * run's or sweep's tables, picks what to show and writes the numbers behind each
 * figure into FIGDIR/data/NAME.dat (kept, so that a figure's values can be quoted);
 * the gnuplot scripts (the .gp files of scripts/plot, compiled into the binary by embed.S) only
 * draw. Each script gets its inputs as gnuplot variables, then common.gp (the shared
 * look), then itself, on gnuplot's standard input. A figure is drawn under a
 * temporary name and renamed, like every other output. */
#include "plot.h"
#include "plot_int.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../base/embed.h"
#include "stats.h"

/* ---- Drawing -------------------------------------------------------------------- */

void plot_gpv_add(struct plot_gpv *v, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    CPN_ASSERT(n >= 0);
    cpn_grow((void **)&v->s, &v->cap, v->len + (size_t)n + 1, 1);
    va_start(ap, fmt);
    vsnprintf(v->s + v->len, v->cap - v->len, fmt, ap);
    va_end(ap);
    v->len += (size_t)n;
}

/* name = "value", with gnuplot's double-quote escapes, so that a newline in value
 * is a line break in a title. */
void plot_gpv_str(struct plot_gpv *v, const char *name, const char *val)
{
    plot_gpv_add(v, "%s = \"", name);
    for (const char *c = val; *c; c++) {
        if (*c == '\n')
            plot_gpv_add(v, "\\n");
        else if (*c == '"' || *c == '\\')
            plot_gpv_add(v, "\\%c", *c);
        else
            plot_gpv_add(v, "%c", *c);
    }
    plot_gpv_add(v, "\"\n");
}

void plot_gpv_num(struct plot_gpv *v, const char *name, double x)
{
    if (isnan(x))
        plot_gpv_add(v, "%s = NaN\n", name);
    else
        plot_gpv_add(v, "%s = %.17g\n", name, x);
}

void plot_gpv_title(struct plot *pl, struct plot_gpv *v, const char *head,
                    const char *notes)
{
    if (pl->o->no_title) {
        plot_gpv_str(v, "title", "");
        pl->title_cm = 0;
        return;
    }
    /* Long notes are broken at "; " into lines that fit the page's width: a title
     * longer than the figure is clipped at both ends. */
    char buf[1024];
    size_t len = (size_t)snprintf(buf, sizeof buf, "%s", head), line = 0;
    const char *p = notes && *notes ? notes : NULL;
    bool first = true;
    while (p && len < sizeof buf) {
        const char *semi = strstr(p, "; ");
        size_t plen = semi ? (size_t)(semi - p) : strlen(p);
        bool brk = first || line + plen + 2 > PLOT_TITLE_CHARS;
        len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%.*s", brk ? "\n" : "; ",
                                (int)plen, p);
        line = brk ? plen : line + plen + 2;
        first = false;
        p = semi ? semi + 2 : NULL;
    }
    plot_gpv_str(v, "title", buf);
    size_t lines = 1;
    for (const char *c = buf; *c; c++)
        lines += *c == '\n';
    pl->title_cm = PLOT_TITLE_MARGIN_CM + PLOT_TITLE_LINE_CM * (double)lines;
}

/* Runs gnuplot on vars + common.gp + script, once per format asked. */
int plot_draw(struct plot *pl, const char *name, const char *script, size_t script_len,
              const struct plot_gpv *vars, double hcm)
{
    static const struct {
        unsigned bit;
        const char *ext;
    } fmts[] = {{PLOT_FMT_PNG, "png"}, {PLOT_FMT_PDF, "pdf"}, {PLOT_FMT_SVG, "svg"}};
    unsigned want = pl->o->formats ? pl->o->formats : PLOT_FMT_PNG | PLOT_FMT_PDF;
    /* A gnuplot that dies early must not kill us with SIGPIPE. */
    struct sigaction ign = {0}, old;
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old);
    int rc = 0;
    char done[32] = "";
    for (size_t i = 0; !rc && i < sizeof fmts / sizeof fmts[0]; i++) {
        if (!(want & fmts[i].bit))
            continue;
        char base[256], tmpn[300];
        snprintf(base, sizeof base, "%s.%s", name, fmts[i].ext);
        snprintf(tmpn, sizeof tmpn, ".%s.tmp.%ld", base, (long)getpid());
        char *final = cpn_path_join(pl->figdir, base), *tmp = cpn_path_join(pl->figdir, tmpn);
        fflush(NULL);
        FILE *g = popen("gnuplot", "w");
        if (!g) {
            rc = cpn_fail(pl->err, sizeof pl->err, CPN_EIO, "cannot start gnuplot: %s",
                          strerror(errno));
        } else {
            struct plot_gpv head = {0};
            plot_gpv_str(&head, "fmt", fmts[i].ext);
            plot_gpv_str(&head, "out", tmp);
            plot_gpv_num(&head, "wcm", PLOT_WIDTH_CM);
            plot_gpv_num(&head, "hcm", hcm + pl->title_cm + pl->key_cm);
            plot_gpv_num(&head, "kcm", pl->key_cm);
            plot_gpv_num(&head, "tcm", pl->title_cm);
            fwrite(head.s, 1, head.len, g);
            fwrite(vars->s, 1, vars->len, g);
            fwrite(cpn_embed_plot_common, 1, EMBED_LEN(cpn_embed_plot_common), g);
            fwrite(script, 1, script_len, g);
            free(head.s);
            int st = pclose(g);
            struct stat sb;
            if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0 || stat(tmp, &sb) != 0) {
                bool missing = st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 127;
                rc = cpn_fail(pl->err, sizeof pl->err, CPN_EIO, "%s: %s", final,
                              missing ? "gnuplot is not installed (scripts/setup-deps.sh)"
                                      : "gnuplot failed (its message is above)");
                remove(tmp);
            } else if (rename(tmp, final) != 0) {
                rc = cpn_fail(pl->err, sizeof pl->err, CPN_EIO, "%s: cannot write: %s", final,
                              strerror(errno));
                remove(tmp);
            }
        }
        free(final);
        free(tmp);
        size_t dl = strlen(done);
        snprintf(done + dl, sizeof done - dl, "%s.%s", dl ? ", " : "", fmts[i].ext);
    }
    sigaction(SIGPIPE, &old, NULL);
    pl->key_cm = 0;
    if (!rc) {
        printf("%s/%s%s\n", pl->figdir, name, done);
        pl->drawn++;
    }
    return rc;
}

/* A data file FIGDIR/data/NAME.dat with its header; *path gets its path. */
int plot_dat_open(struct plot *pl, const char *name, const char *header, struct afile *af,
                  char **path)
{
    char fn[256];
    snprintf(fn, sizeof fn, "%s.dat", name);
    *path = cpn_path_join(pl->datadir, fn);
    int rc = afile_open(af, pl->datadir, fn, pl->err, sizeof pl->err);
    if (!rc)
        fprintf(af->f, "# %s\n", header);
    return rc;
}

int plot_dat_close(struct plot *pl, struct afile *af)
{
    return afile_commit(af, pl->err, sizeof pl->err);
}

void plot_put_val(FILE *f, double x)
{
    if (isnan(x))
        fputs(" NaN", f);
    else
        fprintf(f, " %.10g", x);
}

struct plot_unit plot_time_unit(double max_s)
{
    if (max_s > PLOT_UNIT_SWITCH * 3600)
        return (struct plot_unit){3600, "h"};
    if (max_s > PLOT_UNIT_SWITCH * 60)
        return (struct plot_unit){60, "min"};
    return (struct plot_unit){1, "s"};
}

double plot_nice_step(double max, double n)
{
    double raw = max > 0 ? max / n : 1 / n, mag = pow(10, floor(log10(raw))), f = raw / mag;
    return mag * (f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10);
}

void plot_gpv_xaxis(struct plot_gpv *v, double max)
{
    double step = plot_nice_step(max, 4);
    plot_gpv_num(v, "xstep", step);
    plot_gpv_num(v, "xmax", step * ceil(max / step - 1e-9 > 0 ? max / step - 1e-9 : 1));
}

double plot_num_of(const char *s)
{
    double x;
    return s && *s && cpn_parse_double(s, &x) == 0 ? x : NAN;
}

const char *plot_key_name(const struct plot *pl, const char *key, char *buf, size_t len)
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
        {"count", "queue length"},
        {"arrival", "arrival"},
        {"mix", "job mix"},
    };
    for (size_t i = 0; i < pl->o->n_labels; i++)
        if (!pl->o->labels[i].value && strcmp(pl->o->labels[i].key, key) == 0)
            return pl->o->labels[i].text;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i].key, key) == 0)
            return names[i].label;
    /* Otherwise the key with spaces for underscores, and a unit suffix spelt out. */
    size_t kl = strlen(key);
    bool secs = kl > 2 && strcmp(key + kl - 2, "_s") == 0;
    snprintf(buf, len, "%.*s%s", (int)(secs ? kl - 2 : kl), key, secs ? " (s)" : "");
    for (char *c = buf; *c; c++)
        if (*c == '_')
            *c = ' ';
    return buf;
}

const char *plot_value_name(const struct plot *pl, const char *key, const char *raw,
                            const char *label)
{
    for (size_t i = 0; i < pl->o->n_labels; i++) {
        const struct plot_label *l = &pl->o->labels[i];
        if (l->value && strcmp(l->key, key) == 0 &&
            (strcmp(l->value, raw) == 0 || strcmp(l->value, label) == 0))
            return l->text;
    }
    return label;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Completed jobs' JCTs of a run directory and its number of jobs. */
int plot_read_jcts(struct plot *pl, const char *rundir, double **v, size_t *n, size_t *cap,
                   size_t *total)
{
    char *p = cpn_path_join(rundir, "jobs.csv");
    struct stats_csv t = {0};
    int rc = stats_csv_read(p, &t, pl->err, sizeof pl->err);
    free(p);
    if (rc)
        return rc;
    int cj = stats_csv_col(&t, "jct_s"), cs = stats_csv_col(&t, "status");
    if (cj < 0 || cs < 0) {
        /* Not a run's jobs.csv: a CDF of no jobs would look like a run that completed none. */
        rc = cpn_fail(pl->err, sizeof pl->err, CPN_EINPUT, "%s/jobs.csv: no column '%s'",
                      rundir, cj < 0 ? "jct_s" : "status");
        stats_csv_free(&t);
        return rc;
    }
    for (size_t r = 0; r < t.n_rows; r++) {
        double x = plot_num_of(stats_csv_get(&t, r, cj));
        if (strcmp(stats_csv_get(&t, r, cs), "done") == 0 && !isnan(x)) {
            cpn_grow((void **)v, cap, *n + 1, sizeof **v);
            (*v)[(*n)++] = x;
        }
    }
    *total += t.n_rows;
    stats_csv_free(&t);
    return CPN_OK;
}

/* One CDF block over all total jobs: it ends at completed/total, not at 1, so that a
 * policy that fails half its jobs plateaus at 0.5. */
void plot_put_cdf_block(const struct plot *pl, FILE *f, double *x, size_t n, size_t total)
{
    qsort(x, n, sizeof *x, cmp_double);
    if (n > 0)
        fprintf(f, "%.10g 0\n", x[0] / pl->tu.div);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%.10g %.10g\n", x[i] / pl->tu.div, (double)(i + 1) / (double)total);
    if (n == 0)
        fputs("NaN NaN\n", f); /* gnuplot needs a row to keep the block count */
    fputs("\n\n", f);
}

/* ---- A run ---------------------------------------------------------------------- */

/* timeline and jct_cdf of a run directory, whose summary.json is summary; both in one
 * time unit, chosen from the run's end. */
static int plot_run(struct plot *pl, const cJSON *summary)
{
    const cJSON *pol = cJSON_GetObjectItemCaseSensitive(summary, "policy");
    const char *policy = cJSON_IsString(pol) ? pol->valuestring : "?";
    policy = plot_value_name(pl, "policy", policy, policy);

    char *p = cpn_path_join(pl->src, "timeline.csv");
    struct stats_csv t = {0};
    int rc = stats_csv_read(p, &t, pl->err, sizeof pl->err);
    free(p);
    if (rc)
        return rc;
    double *x = NULL;
    size_t n = 0, cap = 0, total = 0;
    rc = plot_read_jcts(pl, pl->src, &x, &n, &cap, &total);
    int ct = stats_csv_col(&t, "time_s"), cq = stats_csv_col(&t, "queue_len");
    int cr = stats_csv_col(&t, "running"), cx = stats_csv_col(&t, "transferring");
    size_t ns = 0;
    int *cu = cpn_calloc(t.n_cols, sizeof *cu);
    struct plot_gpv v = {0};
    struct plot_gpv hdr = {0};
    for (size_t c = 0; c < t.n_cols; c++) {
        size_t l = strlen(t.col[c]);
        if (l > 9 && strcmp(t.col[c] + l - 9, "_gpu_util") == 0) {
            cu[ns++] = (int)c;
            char nm[32];
            snprintf(nm, sizeof nm, "sname%zu", ns);
            char site[64];
            snprintf(site, sizeof site, "%.*s", (int)(l - 9), t.col[c]);
            plot_gpv_str(&v, nm, site);
        }
    }
    double tmax = t.n_rows ? plot_num_of(stats_csv_get(&t, t.n_rows - 1, ct)) : 0;
    for (size_t i = 0; i < n; i++)
        tmax = fmax(tmax, x[i]);
    pl->tu = plot_time_unit(isnan(tmax) ? 0 : tmax);
    struct afile af = {0};
    char *dat = NULL;
    plot_gpv_add(&hdr, "time_%s queued running transferring", pl->tu.name);
    for (size_t s = 0; s < ns; s++)
        plot_gpv_add(&hdr, " %s_pct", t.col[cu[s]]);
    if (!rc)
        rc = plot_dat_open(pl, "timeline", hdr.s, &af, &dat);
    free(hdr.s);
    if (!rc) {
        for (size_t r = 0; r < t.n_rows; r++) {
            plot_put_val(af.f, plot_num_of(stats_csv_get(&t, r, ct)) / pl->tu.div);
            plot_put_val(af.f, plot_num_of(stats_csv_get(&t, r, cq)));
            plot_put_val(af.f, plot_num_of(stats_csv_get(&t, r, cr)));
            plot_put_val(af.f, plot_num_of(stats_csv_get(&t, r, cx)));
            for (size_t s = 0; s < ns; s++)
                plot_put_val(af.f, 100 * plot_num_of(stats_csv_get(&t, r, cu[s])));
            fputc('\n', af.f);
        }
        rc = plot_dat_close(pl, &af);
    }
    stats_csv_free(&t);
    free(cu);
    char title[256];
    snprintf(title, sizeof title, "%s, %zu jobs", policy, total);
    if (!rc) {
        plot_gpv_str(&v, "data", dat);
        plot_gpv_num(&v, "nsites", (double)ns);
        plot_gpv_str(&v, "tunit", pl->tu.name);
        plot_gpv_title(pl, &v, title, NULL);
        rc = plot_draw(pl, "timeline", cpn_embed_plot_timeline,
                       EMBED_LEN(cpn_embed_plot_timeline), &v, PLOT_TIMELINE_H_CM);
    }
    free(v.s);
    free(dat);
    dat = NULL;
    char hd[64];
    snprintf(hd, sizeof hd, "jct_%s fraction_of_all_jobs_done", pl->tu.name);
    if (!rc)
        rc = plot_dat_open(pl, "jct_cdf", hd, &af, &dat);
    if (!rc) {
        plot_put_cdf_block(pl, af.f, x, n, total);
        rc = plot_dat_close(pl, &af);
    }
    if (!rc) {
        struct plot_gpv w = {0};
        char xl[64], tt[300];
        snprintf(xl, sizeof xl, "job completion time (%s)", pl->tu.name);
        snprintf(tt, sizeof tt, "%zu of %zu jobs completed", n, total);
        plot_gpv_str(&w, "data", dat);
        plot_gpv_num(&w, "npanel", 1);
        plot_gpv_num(&w, "ncol", 1);
        plot_gpv_num(&w, "nseries", 1);
        plot_gpv_str(&w, "sname1", policy);
        plot_gpv_str(&w, "ptitle1", "");
        double mx = 0;
        for (size_t i = 0; i < n; i++)
            mx = fmax(mx, x[i] / pl->tu.div);
        plot_gpv_xaxis(&w, mx);
        plot_gpv_num(&w, "topcm", PLOT_TOP_CM);
        plot_gpv_num(&w, "botcm", PLOT_BOTTOM_CM);
        plot_gpv_str(&w, "xlabel", xl);
        plot_gpv_title(pl, &w, title, tt);
        rc = plot_draw(pl, "jct_cdf", cpn_embed_plot_cdf, EMBED_LEN(cpn_embed_plot_cdf), &w,
                       PLOT_TOP_CM + PLOT_CDF_ROW_CM + PLOT_BOTTOM_CM);
        free(w.s);
    }
    free(dat);
    free(x);
    return rc;
}

/* ---- The entry point ------------------------------------------------------------ */

int plot_dir(const char *dir, const char *figdir, const struct plot_opts *opts, char *err,
             size_t errlen)
{
    static const struct plot_opts none = {0};
    struct plot pl = {.src = dir, .o = opts ? opts : &none, .tu = {1, "s"}};
    char *own = figdir ? NULL : cpn_path_join(pl.src, PLOT_DEFAULT_SUBDIR);
    pl.figdir = figdir ? figdir : own;
    pl.datadir = cpn_path_join(pl.figdir, "data");
    char *sum = cpn_path_join(pl.src, "summary.json"), *swp = cpn_path_join(pl.src, "sweep.json");
    int rc;
    if (access(swp, R_OK) == 0) {
        rc = cpn_mkdir_p(pl.datadir, pl.err, sizeof pl.err);
        if (!rc)
            rc = plot_sweep(&pl);
    } else if (access(sum, R_OK) == 0) {
        char *buf;
        size_t len;
        rc = cpn_read_file(sum, &buf, &len, pl.err, sizeof pl.err);
        cJSON *doc = rc ? NULL : cJSON_ParseWithLength(buf, len);
        if (!rc) {
            free(buf);
            if (!cJSON_IsObject(doc))
                rc = cpn_fail(pl.err, sizeof pl.err, CPN_EINPUT, "%s: not a run summary", sum);
        }
        if (!rc && (pl.o->n_metrics || pl.o->baseline))
            rc = cpn_fail(pl.err, sizeof pl.err, CPN_EINPUT,
                          "%s: --metrics and --baseline are for a sweep directory, and this is "
                          "a run",
                          pl.src);
        if (!rc)
            rc = cpn_mkdir_p(pl.datadir, pl.err, sizeof pl.err);
        if (!rc)
            rc = plot_run(&pl, doc);
        cJSON_Delete(doc);
    } else {
        rc = cpn_fail(pl.err, sizeof pl.err, CPN_EINPUT,
                      "%s: neither a run directory (summary.json) nor a sweep directory "
                      "(sweep.json)",
                      pl.src);
    }
    free(sum);
    free(swp);
    free(pl.datadir);
    free(own);
    if (rc)
        cpn_fail(err, errlen, rc, "%s", pl.err);
    return rc;
}
