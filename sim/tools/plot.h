/* plot: the figures of a run directory or of a sweep directory, drawn by gnuplot as
 * PNG and PDF with the numbers behind each in FIGDIR/data/. It owns reading the run
 * outputs and the sweep's tables and driving gnuplot with the embedded scripts
 * (the .gp files of scripts/plot); not the command line (cmd_plot.c) nor the tables themselves
 * (stats.h, written by sweep_aggregate.c). */
#ifndef CPN_PLOT_H
#define CPN_PLOT_H

#include <stddef.h>

/* The subdirectory of DIR that figures go to when no figure directory is given. */
#define PLOT_DEFAULT_SUBDIR "figures"

/* Draws the figures of dir (a run directory with summary.json, or a sweep directory
 * with sweep.json) into figdir, or into dir/PLOT_DEFAULT_SUBDIR when figdir is NULL,
 * printing each figure's path on stdout. Returns 0, or CPN_EINPUT (dir is neither,
 * or its tables are broken) or CPN_EIO (gnuplot failed, a file cannot be written)
 * with a message in err. */
int plot_dir(const char *dir, const char *figdir, char *err, size_t errlen);

#endif
