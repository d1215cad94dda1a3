/* plot_int: what the plot's two files share: the state of one `cpnsim plot`, the
 * gnuplot variables, the drawing of one figure and the data files behind it
 * (plot.c), used by the run's figures (plot.c) and the sweep's (plot_sweep.c). Not
 * part of plot.h's interface: nothing outside sim/tools/plot*.c includes it. */
#ifndef CPN_PLOT_INT_H
#define CPN_PLOT_INT_H

#include <stddef.h>
#include <stdio.h>

#include "../base/util.h"

/* Figure sizes (cm): 16 cm is the text width of a thesis page. */
#define PLOT_WIDTH_CM 16.0
#define PLOT_BARS_H_CM 8.0
#define PLOT_CDF_H_CM 7.0
#define PLOT_TIMELINE_H_CM 11.0
/* Line figures (lines.gp): the height of a row of panels, and the room above them
 * for the title and the key (and the panels' titles), and below for the x axis. */
#define PLOT_LINES_ROW_H_CM 3.8
#define PLOT_LINES_TOP_CM 1.6
#define PLOT_LINES_PTITLE_CM 0.5
#define PLOT_LINES_BOTTOM_CM 1.7
/* Time axes switch from s to min to h when the largest value exceeds this many of
 * the larger unit, so that tick labels stay short. */
#define PLOT_UNIT_SWITCH 3.0
/* Bar charts' y axes reach this factor above the highest bar, for the key. */
#define PLOT_HEADROOM 1.25
/* Ablation x axes extend this fraction of the swept range beyond its ends. */
#define PLOT_X_PAD 0.08

/* One `cpnsim plot`: where from, where to, and the first error. */
struct plot {
    const char *src;
    const char *figdir;
    char *datadir;
    size_t drawn;
    char err[CPN_ERR_LEN];
};

/* gnuplot variable assignments, built up as text; the caller frees s. */
struct plot_gpv {
    char *s;
    size_t len, cap;
};

__attribute__((format(printf, 2, 3))) void plot_gpv_add(struct plot_gpv *v, const char *fmt,
                                                        ...);
/* name = 'value', with gnuplot's single-quote escape (a doubled quote). */
void plot_gpv_str(struct plot_gpv *v, const char *name, const char *val);
/* name = x, or NaN. */
void plot_gpv_num(struct plot_gpv *v, const char *name, double x);


/* Runs gnuplot on vars + common.gp + script, once per format, into FIGDIR/NAME.png
 * and .pdf. Returns 0, or CPN_EIO with a message in pl->err. */
int plot_draw(struct plot *pl, const char *name, const char *script, size_t script_len,
              const struct plot_gpv *vars, double hcm);

/* A data file FIGDIR/data/NAME.dat, written atomically; *path gets its path (the
 * caller frees it). Both return 0 or CPN_EIO with a message in pl->err. */
int plot_dat_open(struct plot *pl, const char *name, struct afile *af, char **path);
int plot_dat_close(struct plot *pl, struct afile *af);
/* " x" in a data file, or " NaN". */
void plot_put_val(FILE *f, double x);

/* A time unit for values up to max_s. */
struct plot_unit {
    double div;
    const char *name;
};
struct plot_unit plot_time_unit(double max_s);

/* A table cell as a number; NaN when empty or not a number. */
double plot_num_of(const char *s);

/* Completed jobs' JCTs of a run directory, appended to *v. Returns 0 or CPN_EINPUT. */
int plot_read_jcts(struct plot *pl, const char *rundir, double **v, size_t *n, size_t *cap);
/* Writes one CDF block (sorted x, F) and the block separator; sorts x. */
void plot_put_cdf_block(FILE *f, double *x, size_t n, double div);

/* The figures of a sweep directory (plot_sweep.c). Returns 0 or an error code with
 * a message in pl->err. */
int plot_sweep(struct plot *pl);

#endif
