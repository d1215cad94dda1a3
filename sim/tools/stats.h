/* stats: statistics over repeated runs and the tables of a sweep. It computes mean,
 * standard deviation and Student-t confidence intervals (GSL), aggregates gathered
 * run directories into runs.csv, summary.csv, groups.csv, baseline.csv, paired.csv
 * and timing.csv (stats.c), and reads such CSV tables back, for plotting
 * (stats_csv.c). It knows nothing of how runs were produced or of the spec's format:
 * the caller names the keys, the runs and the baselines. */
#ifndef CPN_STATS_H
#define CPN_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Confidence level of every interval the sweep reports. */
#define STATS_CI_LEVEL 0.95

/* Mean, sample standard deviation (n - 1 in the denominator) and the two-sided
 * Student-t interval of the mean at a level, over n values. With n == 0 every field
 * but n is NaN; with n == 1 sd, lo and hi are NaN (one value says nothing about
 * spread). */
struct stats_desc {
    size_t n;
    double mean, sd, lo, hi;
};
void stats_describe(const double *x, size_t n, double level, struct stats_desc *out);

/* One run of a sweep: its directory name under the runs directory and the value of
 * each key (as the text the runs.csv cell shows). */
struct stats_run {
    const char *name;
    const char *const *params; /* [n_keys] */
    const char *group;  /* its group's name in messages; NULL: the run's name */
    const char *varies; /* what the seed varies in this run, for groups.csv; NULL: "" */
    bool absent;        /* left out as if it had no summary.json (its summary is not a
                           result of the inputs asked for) */
};

/* What the aggregation needs to know about a sweep. Groups are runs whose params
 * agree on every key but seed_key. The paired comparison partners a run with the run
 * whose params equal its own except that each baseline key takes the baseline value;
 * it is made for each baseline in turn. */
struct stats_sweep {
    const char *const *keys; /* grid keys, in grid order */
    size_t n_keys;
    size_t seed_key;              /* index of the seed among keys, or n_keys if none */
    const char *const *baseline;  /* [n_baselines * n_keys]: baseline b's value of key
                                     k at [b * n_keys + k], or NULL when k is not one
                                     of its keys; NULL when there is no baseline */
    size_t n_baselines;
    const struct stats_run *runs; /* in grid order; rows come out in this order */
    size_t n_runs;
    const char *runs_dir;         /* run i lives in runs_dir/runs[i].name */
    FILE *warn;                   /* where warnings go (a group whose seeds all gave
                                     identical results); NULL: nowhere */
};

/* How the paired comparison sets a run's metric against its baseline partner's: the
 * ratio run / baseline, or the difference run - baseline. A ratio needs a baseline
 * value above 0, so a metric that is often 0 at the baseline takes the difference. */
enum stats_paired_stat { STATS_RATIO, STATS_DIFFERENCE };
struct stats_paired {
    const char *metric;
    enum stats_paired_stat stat;
};

/* The metrics of the paired comparison against the baseline, in baseline.csv's row
 * order: ratios of makespan, mean JCT and mean GPU utilisation, the difference of the
 * GPU-seconds lost to CPU contention (0 at a baseline where nothing contends), the
 * ratio of the mean JCT over all jobs (failed and unfinished ones too), and the
 * differences of the jobs not completed and of the OOM kills (both often 0). New
 * metrics go last, so that the rows of the earlier ones keep their bytes. */
#define STATS_PAIRED_METRICS                                                               \
    {{"makespan_s", STATS_RATIO},                                                          \
     {"jct_mean_s", STATS_RATIO},                                                          \
     {"gpu_util_mean", STATS_RATIO},                                                       \
     {"cpu_lost_gpu_s", STATS_DIFFERENCE},                                                 \
     {"jct_all_mean_s", STATS_RATIO},                                                      \
     {"not_completed", STATS_DIFFERENCE},                                                  \
     {"oom_events", STATS_DIFFERENCE}}

/* Summary fields that say how accurate the predictor was, not what the run did: two
 * runs with one result may differ in them. */
#define STATS_PRED_PREFIX "pred_factor_"

/* Reads runs_dir/NAME/summary.json of every run and writes, atomically, into out_dir:
 * runs.csv (one row per run that has a summary: index, name, the keys, then every
 * summary field except the wall-clock ones), timing.csv (index, name, wall_s,
 * events_per_s), summary.csv (per group and numeric metric: n, mean, sd and the
 * interval), groups.csv (per group: its runs, how many distinct results they gave,
 * what the seed varies) and, when there are baselines, baseline.csv (per baseline,
 * group and paired metric: its stat, ratio or difference, n pairs, and mean, sd and
 * interval of the per-seed ratio run / baseline or difference run - baseline) and
 * paired.csv (per baseline, run and paired metric: the run's value, its partner's and
 * their ratio or difference). Two results are identical when their summaries are
 * equal but for the wall-clock fields, the seed and the STATS_PRED_PREFIX fields; a
 * group of two or more runs with
 * one result gets a warning on sw->warn. Runs without summary.json are left out and
 * counted in *n_missing. Returns 0, CPN_EINPUT for a summary.json that cannot be read
 * (its path in err), or CPN_EIO. */
int stats_aggregate(const struct stats_sweep *sw, const char *out_dir, size_t *n_missing,
                    char *err, size_t errlen);

/* A CSV file read whole: the header's names and the rows' cells as strings. */
struct stats_csv {
    char **col;   /* [n_cols] */
    size_t n_cols;
    char **cell;  /* [n_rows * n_cols], row-major; a short row's missing cells are "" */
    size_t n_rows;
};
/* Reads a CSV file with a header row (libcsv). Returns 0, or CPN_EINPUT with
 * "path:line: what is wrong" leaving *t untouched. */
int stats_csv_read(const char *path, struct stats_csv *t, char *err, size_t errlen);
void stats_csv_free(struct stats_csv *t); /* a zeroed table is fine */
/* Index of the column with that name, or -1. */
int stats_csv_col(const struct stats_csv *t, const char *name);
/* Cell of row r in column c (c may be -1: then ""). */
const char *stats_csv_get(const struct stats_csv *t, size_t r, int c);

/* Writes x as the shortest decimal that reads back exactly ("%.15g", else "%.17g"),
 * or "" for NaN. buf must hold 32 bytes. Returns buf. */
char *stats_fmt(double x, char buf[32]);

#endif
