/* cmd_plot: `cpnsim plot DIR`, the figures of a run directory or a sweep directory;
 * this file parses the arguments, sim/tools/plot.c draws. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../tools/plot.h"
#include "../base/util.h"

static const char *const usage_plot =
    "usage: cpnsim plot DIR [--out FIGDIR] [--metrics LIST] [--label KEY=TEXT]...\n"
    "                   [--label KEY:VALUE=TEXT]... [--no-title] [--format LIST]\n"
    "                   [--baseline KEY=VALUE]\n"
    "\n"
    "Draws the figures of a run directory (from `cpnsim run`) or of a sweep directory\n"
    "(from `cpnsim sweep`) with gnuplot into FIGDIR (default DIR/" PLOT_DEFAULT_SUBDIR "), with\n"
    "the numbers behind each figure in FIGDIR/data/. docs/figures.md describes each.\n"
    "\n"
    "A run:   timeline      GPU utilisation per site and queued/running jobs over time\n"
    "         jct_cdf       fraction of all jobs completed by each time\n"
    "A sweep: makespan, jct_mean (with the jobs not completed), oom\n"
    "                       per policy and job queue, mean over seeds with 95% intervals\n"
    "         ratio         makespan and mean JCT over the baseline's, seed by seed\n"
    "         ablation_KEY  the metrics against each other numeric grid key\n"
    "                       (e.g. cpu_threshold), with paired intervals\n"
    "         jct_cdf       fraction of all jobs completed, per policy and queue\n"
    "         timelines     busy GPUs and queued jobs, a line per policy\n"
    "\n"
    "  --out FIGDIR          where the figures go\n"
    "  --metrics LIST        runs.csv metrics of the bar figures, comma-separated\n"
    "                        (default makespan_s,jct_all_mean_s,oom_events)\n"
    "  --label KEY=TEXT      the name shown for a grid key (e.g. cpu_threshold=Threshold)\n"
    "  --label KEY:VALUE=TEXT  the name shown for a value (e.g. policy:fifo=FIFO)\n"
    "  --no-title            no titles (a LaTeX caption says it instead)\n"
    "  --format LIST         any of png,pdf,svg, comma-separated (default png,pdf)\n"
    "  --baseline KEY=VALUE  the ratio figure's baseline (default baseline.csv's first)\n";

/* Splits a comma-separated list in place into items (at most max); returns how many,
 * or 0 when an item is empty. */
static size_t split_list(char *s, const char **items, size_t max)
{
    size_t n = 0;
    for (char *tok = s; tok && n < max;) {
        char *comma = strchr(tok, ',');
        if (comma)
            *comma = '\0';
        if (!*tok)
            return 0;
        items[n++] = tok;
        tok = comma ? comma + 1 : NULL;
    }
    return n;
}

/* Most --label and --metrics items one command takes. */
#define CMD_PLOT_MAX_ITEMS 64

int cmd_plot(int argc, char **argv)
{
    static const struct option opts[] = {{"out", required_argument, 0, 'o'},
                                         {"metrics", required_argument, 0, 'm'},
                                         {"label", required_argument, 0, 'l'},
                                         {"no-title", no_argument, 0, 'n'},
                                         {"format", required_argument, 0, 'f'},
                                         {"baseline", required_argument, 0, 'b'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *figdir = NULL;
    const char *metrics[CMD_PLOT_MAX_ITEMS];
    struct plot_label labels[CMD_PLOT_MAX_ITEMS];
    struct plot_opts po = {.metrics = metrics, .labels = labels};
    char *own[CMD_PLOT_MAX_ITEMS + 2];
    size_t nown = 0;
    int c, rc = -1;
    optind = 1;
    while (rc < 0 && (c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o':
            figdir = optarg;
            rc = cmd_check_path("plot", "--out", optarg) ? 2 : -1;
            break;
        case 'm': {
            char *s = own[nown++] = cpn_strdup(optarg);
            po.n_metrics = split_list(s, metrics, CMD_PLOT_MAX_ITEMS);
            if (po.n_metrics == 0)
                rc = cmd_usage_error("plot", "--metrics: a comma-separated list of runs.csv "
                                             "metrics, such as makespan_s,jct_all_mean_s");
            break;
        }
        case 'l': {
            char *s = own[nown++] = cpn_strdup(optarg), *eq = strchr(s, '=');
            if (!eq || eq == s || !eq[1] || po.n_labels == CMD_PLOT_MAX_ITEMS) {
                rc = cmd_usage_error("plot", "--label: KEY=TEXT or KEY:VALUE=TEXT, with a "
                                             "non-empty KEY and TEXT");
                break;
            }
            *eq = '\0';
            char *colon = strchr(s, ':');
            if (colon)
                *colon = '\0';
            if (colon && (colon == s || !colon[1])) {
                rc = cmd_usage_error("plot", "--label: KEY:VALUE=TEXT, with a non-empty "
                                             "KEY and VALUE");
                break;
            }
            labels[po.n_labels++] = (struct plot_label){s, colon ? colon + 1 : NULL, eq + 1};
            break;
        }
        case 'n': po.no_title = true; break;
        case 'f': {
            char *s = own[nown++] = cpn_strdup(optarg);
            const char *f[8];
            size_t n = split_list(s, f, 8);
            po.formats = 0;
            for (size_t i = 0; i < n; i++)
                po.formats |= strcmp(f[i], "png") == 0   ? PLOT_FMT_PNG
                              : strcmp(f[i], "pdf") == 0 ? PLOT_FMT_PDF
                              : strcmp(f[i], "svg") == 0 ? PLOT_FMT_SVG
                                                         : 1u << 8;
            if (n == 0 || po.formats >> 8)
                rc = cmd_usage_error("plot", "--format: png, pdf or svg, comma-separated");
            break;
        }
        case 'b':
            if (!strchr(optarg, '=') || optarg[0] == '=')
                rc = cmd_usage_error("plot", "--baseline: KEY=VALUE, e.g. policy=fifo");
            po.baseline = optarg;
            break;
        case 'h': fputs(usage_plot, stdout); rc = 0; break;
        default: rc = cmd_usage_error("plot", "unknown option"); break;
        }
        if (nown > CMD_PLOT_MAX_ITEMS) /* each option adds one: a long command line */
            rc = cmd_usage_error("plot", "too many options");
    }
    if (rc < 0 && optind != argc - 1)
        rc = cmd_usage_error("plot", "one run or sweep directory, please");
    if (rc < 0) {
        char err[CPN_ERR_LEN];
        int prc = plot_dir(argv[optind], figdir, &po, err, sizeof err);
        rc = prc ? cmd_fail(prc, err) : 0;
    }
    for (size_t i = 0; i < nown; i++)
        free(own[i]);
    return rc;
}
