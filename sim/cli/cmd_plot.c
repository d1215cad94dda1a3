/* cmd_plot: `cpnsim plot DIR`, the figures of a run directory or a sweep directory;
 * this file parses the arguments, sim/tools/plot.c draws. */
#include <getopt.h>
#include <stdio.h>

#include "cmd.h"
#include "../tools/plot.h"
#include "../base/util.h"

static const char *const usage_plot =
    "usage: cpnsim plot DIR [--out FIGDIR]\n"
    "\n"
    "Draws the figures of a run directory (from `cpnsim run`) or of a sweep directory\n"
    "(from `cpnsim sweep`) with gnuplot, each as PNG and PDF, into FIGDIR (default\n"
    "DIR/" PLOT_DEFAULT_SUBDIR "), with the numbers behind each figure in FIGDIR/data/.\n"
    "\n"
    "A run:   timeline      GPU utilisation per site and queued/running jobs over time\n"
    "         jct_cdf       distribution of job completion time\n"
    "A sweep: makespan, jct_mean, oom\n"
    "                       per policy and job queue, mean over seeds with 95% intervals\n"
    "         ratio         makespan and mean JCT over the baseline's, seed by seed\n"
    "         ablation_KEY  makespan and OOM kills against each other numeric grid key\n"
    "                       (e.g. cpu_threshold)\n"
    "         jct_cdf       JCT distributions per policy, all seeds pooled\n"
    "\n"
    "  --out FIGDIR   where the figures go\n";

int cmd_plot(int argc, char **argv)
{
    static const struct option opts[] = {
        {"out", required_argument, 0, 'o'}, {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    const char *figdir = NULL;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': figdir = optarg; break;
        case 'h': fputs(usage_plot, stdout); return 0;
        default: return cmd_usage_error("plot", "unknown option");
        }
    }
    if (optind != argc - 1)
        return cmd_usage_error("plot", "one run or sweep directory, please");
    char err[CPN_ERR_LEN];
    int rc = plot_dir(argv[optind], figdir, err, sizeof err);
    return rc ? cmd_fail(rc, err) : 0;
}
