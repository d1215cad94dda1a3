/* plot: the figures of a run directory or of a sweep directory, drawn by gnuplot as
 * PNG, PDF and SVG with the numbers behind each in FIGDIR/data/. It owns reading the
 * run outputs and the sweep's tables and driving gnuplot with the embedded scripts
 * (the .gp files of scripts/plot); not the command line (cmd_plot.c) nor the tables themselves
 * (stats.h, written by sweep_aggregate.c). */
#ifndef CPN_PLOT_H
#define CPN_PLOT_H

#include <stdbool.h>
#include <stddef.h>

/* The subdirectory of DIR that figures go to when no figure directory is given. */
#define PLOT_DEFAULT_SUBDIR "figures"

/* Output formats, a bit each; 0 in plot_opts.formats means PNG and PDF. */
#define PLOT_FMT_PNG 1u
#define PLOT_FMT_PDF 2u
#define PLOT_FMT_SVG 4u

/* A display name: for the key `key` itself when value is NULL, else for that value
 * of the key (its raw value or its label in sweep.json). */
struct plot_label {
    const char *key, *value, *text;
};

/* What `cpnsim plot` was asked for; a zeroed struct gives the defaults. Borrowed:
 * every pointer must outlive plot_dir. */
struct plot_opts {
    const char *const *metrics; /* runs.csv metrics of the sweep's bar figures, or NULL */
    size_t n_metrics;
    const struct plot_label *labels;
    size_t n_labels;
    bool no_title;
    unsigned formats;     /* PLOT_FMT_* bits; 0: PNG and PDF */
    const char *baseline; /* "KEY=VALUE" for the ratio figure, or NULL: baseline.csv's first */
};

/* Draws the figures of dir (a run directory with summary.json, or a sweep directory
 * with sweep.json) into figdir, or into dir/PLOT_DEFAULT_SUBDIR when figdir is NULL,
 * printing each figure's path on stdout and what each figure held fixed on stderr.
 * opts may be NULL. Returns 0, or CPN_EINPUT (dir is neither, its tables are broken,
 * or an option names a metric, key or value the sweep does not have) or CPN_EIO
 * (gnuplot failed, a file cannot be written) with a message in err. */
int plot_dir(const char *dir, const char *figdir, const struct plot_opts *opts, char *err,
             size_t errlen);

#endif
