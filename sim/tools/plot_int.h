/* plot_int: what the plot's files share: the state of one `cpnsim plot`, the gnuplot
 * variables, the drawing of one figure and the data files behind it (plot.c), and the
 * view of a sweep's tables (plot_sweep.c) that the sweep's bar figures (plot_sweep.c)
 * and line figures (plot_lines.c) draw from. Not part of plot.h's interface: nothing
 * outside sim/tools/plot*.c includes it. */
#ifndef CPN_PLOT_INT_H
#define CPN_PLOT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "../base/util.h"
#include "plot.h"
#include "stats.h"

/* Figure sizes (cm): 16 cm is the text width of a thesis page. */
#define PLOT_WIDTH_CM 16.0
/* Bar figures: the height of one panel, and the room above the panels (for the key;
 * the title's is added) and below them (the x axis and its labels). */
#define PLOT_BARS_PANEL_CM 5.5
#define PLOT_TOP_CM 0.9
/* A title's room: its margin and each of its lines. */
#define PLOT_TITLE_MARGIN_CM 0.2
#define PLOT_TITLE_LINE_CM 0.45
/* A key holds this many series to a row (common.gp's keycols); a second row takes
 * PLOT_KEY_ROW_CM more. */
#define PLOT_KEY_COLS 5
#define PLOT_KEY_ROW_CM 0.5
#define PLOT_BOTTOM_CM 1.8
/* The same without a key (above) or an x axis label (below): a figure of a single
 * unnamed cluster, whose bars carry the series' names. */
#define PLOT_TOP_NOKEY_CM 0.3
#define PLOT_BOTTOM_BARE_CM 1.1
/* The widest bar of a figure with a single cluster, in clusters' widths. */
#define PLOT_BAR_MAX_W 0.22
/* The extra room below for x labels turned to fit, per character of the longest. */
#define PLOT_ROT_CM_PER_CHAR 0.18
/* Bar clusters whose labels, side by side, take more characters than this are
 * stood on end (90 degrees) so that they never overlap. */
#define PLOT_XLABEL_CHARS 70
/* CDF panels: the height of a row of panels and the most panels in a row. */
#define PLOT_CDF_ROW_CM 4.6
#define PLOT_CDF_MAXCOL 3
#define PLOT_TIMELINE_H_CM 11.0
/* Line figures (lines.gp): the height of a row of panels, and the room above them
 * for the panels' titles. */
#define PLOT_LINES_ROW_H_CM 3.8
#define PLOT_LINES_PTITLE_CM 0.5
/* An ablation draws a column per job queue up to this many queues; beyond, one
 * figure per queue, since more columns would be too narrow to read. */
#define PLOT_ABL_MAXCOL 3
/* Time axes switch from s to min to h when the largest value exceeds this many of
 * the larger unit, so that tick labels stay short. */
#define PLOT_UNIT_SWITCH 3.0
/* Ablation x axes extend this fraction of the swept range beyond its ends. */
#define PLOT_X_PAD 0.08
/* A title line longer than this many characters is broken at a "; ". */
#define PLOT_TITLE_CHARS 64

/* A time unit. */
struct plot_unit {
    double div;
    const char *name;
};
struct plot_unit plot_time_unit(double max_s);

/* One `cpnsim plot`: where from, where to, what was asked, the time unit every time
 * axis of the figure set shares (chosen from the longest time in it), and the first
 * error. */
struct plot {
    const char *src;
    const char *figdir;
    char *datadir;
    const struct plot_opts *o;
    struct plot_unit tu;
    size_t drawn;
    double title_cm, key_cm;
    char err[CPN_ERR_LEN];
};

/* gnuplot variable assignments, built up as text; the caller frees s. */
struct plot_gpv {
    char *s;
    size_t len, cap;
};

__attribute__((format(printf, 2, 3))) void plot_gpv_add(struct plot_gpv *v, const char *fmt,
                                                        ...);
/* name = "value", escaped; a newline in value stays a line break. */
void plot_gpv_str(struct plot_gpv *v, const char *name, const char *val);
/* name = x, or NaN. */
void plot_gpv_num(struct plot_gpv *v, const char *name, double x);
/* Sets "title" (the head, then the notes broken at "; " into lines that fit), or ''
 * under --no-title, and pl->title_cm, the room it takes, which plot_draw adds to the
 * figure's height and passes to the script as tcm. */
void plot_gpv_title(struct plot *pl, struct plot_gpv *v, const char *head,
                    const char *notes);

/* Runs gnuplot on vars + common.gp + script, once per format asked, into
 * FIGDIR/NAME.png, .pdf, .svg. Returns 0, or CPN_EIO with a message in pl->err. */
int plot_draw(struct plot *pl, const char *name, const char *script, size_t script_len,
              const struct plot_gpv *vars, double hcm);

/* A data file FIGDIR/data/NAME.dat, written atomically, that starts with the comment
 * line header ("# " added); *path gets its path (the caller frees it). Both return 0
 * or CPN_EIO with a message in pl->err. */
int plot_dat_open(struct plot *pl, const char *name, const char *header, struct afile *af,
                  char **path);
int plot_dat_close(struct plot *pl, struct afile *af);
/* " x" in a data file, or " NaN". */
void plot_put_val(FILE *f, double x);

/* A round tick step (1, 2, 2.5 or 5 times a power of ten) for an axis from 0 to max
 * with about n ticks. */
double plot_nice_step(double max, double n);
/* xmax and xstep of an axis from 0 to max, with about four ticks. */
void plot_gpv_xaxis(struct plot_gpv *v, double max);

/* A table cell as a number; NaN when empty or not a number. */
double plot_num_of(const char *s);

/* The display names: of a key (--label KEY=TEXT, else a readable default, written
 * into buf when made up), and of a
 * value of it (--label KEY:VALUE=TEXT, matched against raw or label, else label). */
const char *plot_key_name(const struct plot *pl, const char *key, char *buf, size_t len);
const char *plot_value_name(const struct plot *pl, const char *key, const char *raw,
                            const char *label);

/* The JCTs of a run directory's completed jobs, appended to *v, and its number of
 * jobs, added to *total. Returns 0 or CPN_EINPUT. */
int plot_read_jcts(struct plot *pl, const char *rundir, double **v, size_t *n, size_t *cap,
                   size_t *total);
/* Writes one CDF block: sorted x (in pl's time unit) against the fraction of all
 * total jobs done by then, and the block separator; sorts x. */
void plot_put_cdf_block(const struct plot *pl, FILE *f, double *x, size_t n, size_t total);

/* ---- A sweep's tables (plot_sweep.c) ------------------------------------------------ */

/* A grid key: its values as the spec wrote them (raw), as sweep.json labels them
 * (label: run names, file-name suffixes) and as the figures show them (shown: a
 * queue length "40 jobs", an arrival its spec "poisson:0.01", else the label). */
struct plot_key {
    const char *name;
    size_t n;
    const char **raw, **label;
    char **shown;
};

/* A sweep: its keys, which key is the series (policy) and the seed (nk when absent),
 * the keys that make the job queue (q, a bit per key: jobs, count, arrival, mix),
 * runs.csv, the ratio figure's baseline (key index and value index, bl_k == nk for
 * none), and which JCT metric is honest: jct_all_mean_s, or jct_mean_s in a sweep
 * aggregated before it existed (old_jct), and the count of jobs that did not complete
 * shown beside it (not_completed, or there failed). */
struct plot_sweep {
    void *doc; /* sweep.json (cJSON); the strings below point into it */
    struct plot_key *k;
    size_t nk;
    size_t s, seed;
    unsigned long q;
    size_t bl_k, bl_v;
    struct stats_csv runs;
    int *col; /* [nk]: each key's column in runs.csv */
    const char *jct, *fails;
    bool old_jct;
};

/* A statistic over seeds: mean, interval (NaN without one), sd, seeds. */
struct plot_cell {
    double m, lo, hi, sd;
    size_t n;
};

/* The values of metric column cm in the runs of the group choice (one value index per
 * key; the seed's is ignored), one per seed in out[0..nseeds) (NaN: no run). */
void plot_seed_values(const struct plot_sweep *sv, const size_t *choice, int cm, double *out);
size_t plot_nseeds(const struct plot_sweep *sv);
/* How a figure names value j of key k: --label KEY:VALUE=TEXT, else k's shown name. */
const char *plot_value_shown(const struct plot *pl, const struct plot_sweep *sv, size_t k,
                             size_t j);
/* The number of combinations of the values of the keys in keys (a bit per key), and
 * combination i of them written into choice (the last key varying fastest; the other
 * keys' entries left as they are). */
size_t plot_combos(const struct plot_sweep *sv, unsigned long keys);
void plot_combo(const struct plot_sweep *sv, unsigned long keys, size_t i, size_t *choice);
/* "KEY VALUE" for value j of key k as a note names it ("CPU threshold 0.7"); a queue
 * length or a job mix by its value alone ("40 jobs", "mix-example"), which says what
 * it is. Returns buf. */
const char *plot_key_value(const struct plot *pl, const struct plot_sweep *sv, size_t k,
                           size_t j, char *buf, size_t len);
/* The shown values of the keys in keys at choice, joined with ", " ("40 jobs, batch"). */
void plot_combo_label(const struct plot *pl, const struct plot_sweep *sv, unsigned long keys,
                      const size_t *choice, char *buf, size_t len);
/* " mean lo hi" of a cell in a data file. */
void plot_put_cell(FILE *f, const struct plot_cell *c);
/* Mean, sd and 95% interval of the non-NaN values of x[0..n). */
struct plot_cell plot_describe(const double *x, size_t n);
/* "1 seed, no interval", "5 seeds identical, no interval" or "mean of 5 seeds, 95% CI",
 * from the cells drawn (sd 0 in every cell: identical). */
const char *plot_seed_note(const struct plot_cell *c, size_t n, char *buf, size_t len);
/* "KEY VALUE, ..." of the keys other than the series, seed and the keys in free_keys
 * (a bit per key) that have several values, which the figure holds at choice; "" when
 * none. Also printed on stderr for figure name. */
void plot_held_note(const struct plot *pl, const struct plot_sweep *sv, unsigned long free_keys,
                    const size_t *choice, const char *name, char *buf, size_t len);
/* A file-name suffix "_KEY-VALUE" for the keys in keys (a bit per key) at choice. */
void plot_facet_suffix(const struct plot_sweep *sv, unsigned long keys, const size_t *choice,
                       char *buf, size_t len);
/* The series' display names as sname1..snameN and their number as nseries, skipping
 * value index skip (SIZE_MAX: none), and pl->key_cm, the key's second row if it needs
 * one (plot_draw adds it to the height and passes it as kcm). Returns N. */
size_t plot_series_vars(struct plot *pl, const struct plot_sweep *sv, struct plot_gpv *w,
                        size_t skip);

/* The sweep's line figures (plot_lines.c): the ablations, the JCT CDFs and the
 * policies' timelines. Each returns 0 or an error code with a message in pl->err. */
int plot_ablations(struct plot *pl, const struct plot_sweep *sv);
int plot_sweep_cdf(struct plot *pl, const struct plot_sweep *sv);
int plot_sweep_timelines(struct plot *pl, const struct plot_sweep *sv);

/* The figures of a sweep directory (plot_sweep.c). Returns 0 or an error code with
 * a message in pl->err. */
int plot_sweep(struct plot *pl);

#endif
