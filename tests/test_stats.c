/* stats: descriptive statistics on hand-computed numbers, and the aggregation of run
 * directories into runs.csv, summary.csv, groups.csv, baseline.csv and paired.csv.
 *
 * Hand computation for x = {2, 4, 4, 5, 10} (n = 5): mean 25/5 = 5; deviations -3,
 * -1, -1, 0, 5, squares summing to 36, so sd = sqrt(36/4) = 3; Student's t for 4
 * degrees of freedom at 0.975 is 2.776445 (tables), so the 95% interval is
 * 5 +- 2.776445 * 3 / sqrt(5) = 5 +- 3.724992, i.e. [1.275008, 8.724992]. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../sim/tools/stats.h"
#include "../sim/base/util.h"
#include "helpers.h"

#define EPS 1e-6

Test(stats, mean_sd_and_t_interval_for_n5)
{
    const double x[] = {2, 4, 4, 5, 10};
    struct stats_desc d;
    stats_describe(x, 5, 0.95, &d);
    cr_assert_eq(d.n, 5);
    cr_assert_float_eq(d.mean, 5.0, 1e-12);
    cr_assert_float_eq(d.sd, 3.0, 1e-12);
    cr_assert_float_eq(d.lo, 1.275008, EPS, "lo %.9f", d.lo);
    cr_assert_float_eq(d.hi, 8.724992, EPS, "hi %.9f", d.hi);
    /* The half-width divided back gives the table's t quantile. */
    cr_assert_float_eq((d.hi - d.mean) / (3.0 / sqrt(5.0)), 2.776445, EPS);
}

Test(stats, second_hand_example)
{
    /* {100, ..., 500}: mean 300, squares 4e4+1e4+0+1e4+4e4 = 1e5, sd = sqrt(25000) =
     * 158.113883; half-width 2.776445 * 158.113883 / sqrt(5) = 196.324316. */
    const double x[] = {100, 200, 300, 400, 500};
    struct stats_desc d;
    stats_describe(x, 5, 0.95, &d);
    cr_assert_float_eq(d.mean, 300, 1e-9);
    cr_assert_float_eq(d.sd, 158.113883, EPS);
    cr_assert_float_eq(d.lo, 300 - 196.324316, EPS);
    cr_assert_float_eq(d.hi, 300 + 196.324316, EPS);
}

Test(stats, small_samples_say_what_they_cannot_know)
{
    const double one = 7;
    struct stats_desc d;
    stats_describe(&one, 1, 0.95, &d);
    cr_assert_eq(d.n, 1);
    cr_assert_float_eq(d.mean, 7, 0);
    cr_assert(isnan(d.sd) && isnan(d.lo) && isnan(d.hi));
    stats_describe(NULL, 0, 0.95, &d);
    cr_assert(isnan(d.mean));
    /* Identical values: zero spread, a zero-width interval. */
    const double same[] = {3, 3, 3};
    stats_describe(same, 3, 0.95, &d);
    cr_assert_float_eq(d.sd, 0, 0);
    cr_assert_float_eq(d.lo, 3, 0);
    cr_assert_float_eq(d.hi, 3, 0);
}

Test(stats, shortest_exact_number_format)
{
    char b[32];
    cr_assert_str_eq(stats_fmt(0.7, b), "0.7");
    cr_assert_str_eq(stats_fmt(18024.5, b), "18024.5");
    cr_assert_str_eq(stats_fmt(0.1 + 0.2, b), "0.30000000000000004");
    cr_assert_str_eq(stats_fmt(NAN, b), "");
    cr_assert_float_eq(strtod(stats_fmt(1.0 / 3, b), NULL), 1.0 / 3, 0);
}

/* ---- Aggregation of run directories written by hand ----------------------------- */

static char tmpd[64];

static void mk_scratch(void)
{
    snprintf(tmpd, sizeof tmpd, "/tmp/cpn-stats-XXXXXX");
    cr_assert_not_null(mkdtemp(tmpd));
}

static void rm_scratch(void) { sh("rm -rf '%s'", tmpd); }

/* Creates the run directory `name` and opens its summary.json for writing. */
static FILE *open_summary(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/runs/%s", tmpd, name);
    cr_assert_eq(sh("mkdir -p '%s'", path), 0);
    strncat(path, "/summary.json", sizeof path - strlen(path) - 1);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    return f;
}

static void write_summary(const char *name, const char *policy, int seed, const char *makespan,
                          double jct)
{
    FILE *f = open_summary(name);
    fprintf(f,
            "{\"policy\": \"%s\", \"seed\": %d, \"jobs\": 10, \"deadlock\": false,\n"
            " \"makespan_s\": %s, \"jct_mean_s\": %g, \"stuck_jobs\": [\"a\", \"b\"],\n"
            " \"wall_s\": 0.5, \"events_per_s\": 100}\n",
            policy, seed, makespan, jct);
    fclose(f);
}

/* Runs of two values of one key x n seeds (n <= 5), run i having value i / n and
 * seed i % n + 1, named "KEY=VALUE,seed=S", into the caller's arrays of 2n. */
static void grid_runs(const char *key, const char *const val[2], int n, char (*names)[64],
                      const char *(*params)[2], struct stats_run *runs)
{
    static const char *const seeds[] = {"1", "2", "3", "4", "5"};
    for (int i = 0; i < 2 * n; i++) {
        snprintf(names[i], sizeof names[i], "%s=%s,seed=%d", key, val[i / n], i % n + 1);
        params[i][0] = val[i / n];
        params[i][1] = seeds[i % n];
        runs[i] = (struct stats_run){.name = names[i], .params = params[i]};
    }
}

TestSuite(stats_agg, .init = mk_scratch, .fini = rm_scratch);

/* Two policies x five seeds. fifo's makespans 100..500 (the second example above);
 * opt's 50, 100, 150, 300, 250, so its per-seed ratios are 0.5, 0.5, 0.5, 0.75, 0.5:
 * mean 0.55, sd sqrt((4 * 0.05^2 + 0.2^2) / 4) = 0.111803, half-width
 * 2.776445 * 0.111803 / sqrt(5) = 0.138822. opt's fifth seed has no makespan (null,
 * a deadlock), so its makespan mean is over four runs and the fifth pair is dropped:
 * ratios 0.5, 0.5, 0.5, 0.75 (mean 0.5625). A sixth run is missing altogether. */
Test(stats_agg, groups_over_seeds_and_pairs_with_the_baseline)
{
    static const char *const keys[] = {"policy", "seed"};
    static const char *const pol[] = {"fifo", "opt"};
    const char *ms[] = {"100", "200", "300", "400", "500", "50", "100", "150", "300", "null"};
    const char *params[10][2];
    char names[10][64];
    struct stats_run runs[11];
    grid_runs("policy", pol, 5, names, params, runs);
    for (int i = 0; i < 10; i++)
        write_summary(names[i], pol[i / 5], i % 5 + 1, ms[i], 10.0 * (i / 5 + 1));
    static const char *const ghost[] = {"ghost", "1"};
    runs[10] = (struct stats_run){.name = "policy=ghost,seed=1", .params = ghost};
    static const char *const baseline[] = {"fifo", NULL};
    char rdir[128], err[CPN_ERR_LEN];
    snprintf(rdir, sizeof rdir, "%s/runs", tmpd);
    struct stats_sweep sw = {.keys = keys, .n_keys = 2, .seed_key = 1, .baseline = baseline,
                             .n_baselines = 1,
                             .runs = runs, .n_runs = 11, .runs_dir = rdir};
    size_t missing = 0;
    cr_assert_eq(stats_aggregate(&sw, tmpd, &missing, err, sizeof err), 0, "%s", err);
    cr_assert_eq(missing, 1);

    char path[256];
    struct stats_csv t = {0};
    snprintf(path, sizeof path, "%s/summary.csv", tmpd);
    cr_assert_eq(stats_csv_read(path, &t, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(t.col[0], "policy");
    cr_assert_str_eq(t.col[1], "metric");
    int cn = stats_csv_col(&t, "n"), cm = stats_csv_col(&t, "mean"), csd = stats_csv_col(&t, "sd");
    int clo = stats_csv_col(&t, "ci95_lo"), chi = stats_csv_col(&t, "ci95_hi");
    bool seen_fifo = false, seen_opt = false, seen_deadlock = false;
    for (size_t r = 0; r < t.n_rows; r++) {
        const char *p = stats_csv_get(&t, r, 0), *m = stats_csv_get(&t, r, 1);
        cr_assert(strcmp(m, "seed") != 0 && strcmp(m, "wall_s") != 0, "metric %s", m);
        if (strcmp(m, "deadlock") == 0)
            seen_deadlock = true; /* booleans count as 0/1 */
        if (strcmp(m, "makespan_s") != 0)
            continue;
        double mean = strtod(stats_csv_get(&t, r, cm), NULL);
        if (strcmp(p, "fifo") == 0) {
            seen_fifo = true;
            cr_assert_str_eq(stats_csv_get(&t, r, cn), "5");
            cr_assert_float_eq(mean, 300, 1e-9);
            cr_assert_float_eq(strtod(stats_csv_get(&t, r, csd), NULL), 158.113883, EPS);
            cr_assert_float_eq(strtod(stats_csv_get(&t, r, clo), NULL), 103.675684, EPS);
            cr_assert_float_eq(strtod(stats_csv_get(&t, r, chi), NULL), 496.324316, EPS);
        } else {
            seen_opt = true;
            cr_assert_str_eq(p, "opt");
            cr_assert_str_eq(stats_csv_get(&t, r, cn), "4");
            cr_assert_float_eq(mean, 150, 1e-9);
        }
    }
    cr_assert(seen_fifo && seen_opt && seen_deadlock);
    stats_csv_free(&t);

    snprintf(path, sizeof path, "%s/baseline.csv", tmpd);
    cr_assert_eq(stats_csv_read(path, &t, err, sizeof err), 0, "%s", err);
    cm = stats_csv_col(&t, "mean");
    cn = stats_csv_col(&t, "n");
    int cmet = stats_csv_col(&t, "metric"), cb = stats_csv_col(&t, "baseline");
    size_t rows = 0;
    for (size_t r = 0; r < t.n_rows; r++) {
        const char *p = stats_csv_get(&t, r, 0), *m = stats_csv_get(&t, r, cmet);
        cr_assert_str_eq(stats_csv_get(&t, r, cb), "policy=fifo");
        double mean = strtod(stats_csv_get(&t, r, cm), NULL);
        rows++;
        if (strcmp(m, "makespan_s") != 0 && strcmp(m, "jct_mean_s") != 0) {
            /* These summaries hold no utilisation nor CPU loss: rows without pairs. */
            cr_assert_str_eq(stats_csv_get(&t, r, cn), "0", "%s", m);
            continue;
        }
        cr_assert_str_eq(stats_csv_get(&t, r, stats_csv_col(&t, "stat")), "ratio");
        if (strcmp(p, "fifo") == 0) {
            cr_assert_float_eq(mean, 1, 1e-12); /* a run against itself */
        } else if (strcmp(m, "makespan_s") == 0) {
            cr_assert_str_eq(stats_csv_get(&t, r, cn), "4");
            cr_assert_float_eq(mean, 0.5625, 1e-12);
        } else {
            cr_assert_str_eq(m, "jct_mean_s");
            cr_assert_str_eq(stats_csv_get(&t, r, cn), "5");
            cr_assert_float_eq(mean, 2, 1e-12); /* 20 / 10 every seed */
            cr_assert_float_eq(strtod(stats_csv_get(&t, r, stats_csv_col(&t, "sd")), NULL), 0, 0);
        }
    }
    cr_assert_eq(rows, 14); /* two policies x seven paired metrics */
    stats_csv_free(&t);

    /* runs.csv: one row per run that has a summary; keys first; the summary's own
     * policy and seed under prefixed names; arrays joined; no wall-clock fields. */
    snprintf(path, sizeof path, "%s/runs.csv", tmpd);
    cr_assert_eq(stats_csv_read(path, &t, err, sizeof err), 0, "%s", err);
    cr_assert_eq(t.n_rows, 10);
    cr_assert_str_eq(t.col[0], "index");
    cr_assert_str_eq(t.col[1], "name");
    cr_assert_str_eq(t.col[2], "policy");
    cr_assert_str_eq(t.col[3], "seed");
    cr_assert_geq(stats_csv_col(&t, "summary_policy"), 0);
    cr_assert_eq(stats_csv_col(&t, "wall_s"), -1);
    cr_assert_str_eq(stats_csv_get(&t, 1, 1), "policy=fifo,seed=2");
    cr_assert_str_eq(stats_csv_get(&t, 0, stats_csv_col(&t, "stuck_jobs")), "a;b");
    cr_assert_str_eq(stats_csv_get(&t, 9, stats_csv_col(&t, "makespan_s")), "");
    stats_csv_free(&t);
    char *timing = slurp(strcat(strcpy(path, tmpd), "/timing.csv"));
    cr_assert_not_null(timing);
    cr_assert_not_null(strstr(timing, "index,name,wall_s,events_per_s\n0,"));
    free(timing);
}

/* A summary with the paired metrics: makespan 100 and mean JCT 50 everywhere. */
static void write_cpu_summary(const char *name, double util, double lost, double jct_all,
                              int not_completed, int oom)
{
    FILE *f = open_summary(name);
    fprintf(f, "{\"makespan_s\": 100, \"jct_mean_s\": 50, \"gpu_util_mean\": %g,"
               " \"cpu_lost_gpu_s\": %g, \"jct_all_mean_s\": %g, \"not_completed\": %d,"
               " \"oom_events\": %d}\n", util, lost, jct_all, not_completed, oom);
    fclose(f);
}

/* Thresholds 0.7 and 0.9 x three seeds; the baseline is 0.7. */
static const char *const thr_keys[] = {"cpu_threshold", "seed"};
static const char *const thr[] = {"0.7", "0.9"};
static const char *thr_params[6][2];
static char thr_names[6][64];
static struct stats_run thr_runs[6];

static void thr_sweep(void)
{
    const double util[] = {0.5, 0.5, 0.4, 0.6, 0.5, 0.5}, lost[] = {0, 0, 30, 20, 50, 20};
    const double jct_all[] = {60, 60, 60, 90, 90, 90};
    const int not_completed[] = {1, 0, 2, 3, 0, 2}, oom[] = {4, 4, 4, 1, 1, 1};
    grid_runs("cpu_threshold", thr, 3, thr_names, thr_params, thr_runs);
    for (int i = 0; i < 6; i++)
        write_cpu_summary(thr_names[i], util[i], lost[i], jct_all[i], not_completed[i], oom[i]);
}

/* Aggregates thr_sweep's runs against the given baselines (n of them). */
static void thr_aggregate(const char *const *baseline, size_t n)
{
    char rdir[128], err[CPN_ERR_LEN];
    snprintf(rdir, sizeof rdir, "%s/runs", tmpd);
    struct stats_sweep sw = {.keys = thr_keys, .n_keys = 2, .seed_key = 1, .baseline = baseline,
                             .n_baselines = n, .runs = thr_runs, .n_runs = 6, .runs_dir = rdir};
    cr_assert_eq(stats_aggregate(&sw, tmpd, NULL, err, sizeof err), 0, "%s", err);
}

static void read_table(const char *name, struct stats_csv *t)
{
    char path[256], err[CPN_ERR_LEN];
    snprintf(path, sizeof path, "%s/%s", tmpd, name);
    cr_assert_eq(stats_csv_read(path, t, err, sizeof err), 0, "%s", err);
}

/* GPU-seconds lost to CPU contention: 0, 0, 30 at 0.7 and 20, 50, 20 at 0.9, so the
 * per-seed differences are 20, 50, -10: mean 20, squares 0 + 900 + 900 = 1800, sd
 * sqrt(1800 / 2) = 30; Student's t for 2 degrees of freedom at 0.975 is 4.302653
 * (tables), so the half-width is 4.302653 * 30 / sqrt(3) = 74.52414. A ratio could
 * not be formed: two of the baseline's values are 0. GPU utilisation 0.5, 0.5, 0.4
 * against 0.6, 0.5, 0.5 gives ratios 1.2, 1, 1.25 (mean 1.15). The JCT over all jobs
 * is 90 against 60 (ratio 1.5); jobs not completed 3, 0, 2 against 1, 0, 2
 * (differences 2, 0, 0: mean 2/3); OOM kills 1 against 4 (-3). The baseline's own
 * group has difference 0 and ratio 1. */
Test(stats_agg, cpu_loss_is_paired_as_a_difference)
{
    thr_sweep();
    static const char *const baseline[] = {"0.7", NULL};
    thr_aggregate(baseline, 1);
    struct stats_csv t = {0};
    read_table("baseline.csv", &t);
    cr_assert_str_eq(t.col[0], "cpu_threshold");
    cr_assert_str_eq(t.col[1], "metric");
    cr_assert_str_eq(t.col[2], "stat");
    cr_assert_eq(t.n_rows, 14);
    int cs = stats_csv_col(&t, "stat"), cn = stats_csv_col(&t, "n"), cm = stats_csv_col(&t, "mean");
    int csd = stats_csv_col(&t, "sd"), clo = stats_csv_col(&t, "ci95_lo");
    int chi = stats_csv_col(&t, "ci95_hi");
    /* Rows: per group in run order, the metrics in STATS_PAIRED_METRICS order. */
    static const char *const metric[] = {"makespan_s",     "jct_mean_s",    "gpu_util_mean",
                                         "cpu_lost_gpu_s", "jct_all_mean_s", "not_completed",
                                         "oom_events"};
    static const char *const stat[] = {"ratio", "ratio", "ratio", "difference",
                                       "ratio", "difference", "difference"};
    for (size_t r = 0; r < 14; r++) {
        cr_assert_str_eq(stats_csv_get(&t, r, 0), thr[r / 7]);
        cr_assert_str_eq(stats_csv_get(&t, r, 1), metric[r % 7]);
        cr_assert_str_eq(stats_csv_get(&t, r, cs), stat[r % 7]);
        cr_assert_str_eq(stats_csv_get(&t, r, cn), "3");
    }
    cr_assert_float_eq(strtod(stats_csv_get(&t, 3, cm), NULL), 0, 0); /* 0.7 - 0.7 */
    cr_assert_float_eq(strtod(stats_csv_get(&t, 2, cm), NULL), 1, 1e-12);
    cr_assert_float_eq(strtod(stats_csv_get(&t, 9, cm), NULL), 1.15, 1e-12);
    cr_assert_float_eq(strtod(stats_csv_get(&t, 10, cm), NULL), 20, 1e-12);
    cr_assert_float_eq(strtod(stats_csv_get(&t, 10, csd), NULL), 30, 1e-12);
    cr_assert_float_eq(strtod(stats_csv_get(&t, 10, clo), NULL), 20 - 74.52414, 1e-4);
    cr_assert_float_eq(strtod(stats_csv_get(&t, 10, chi), NULL), 20 + 74.52414, 1e-4);
    cr_assert_float_eq(strtod(stats_csv_get(&t, 11, cm), NULL), 1.5, 1e-12);
    cr_assert_float_eq(strtod(stats_csv_get(&t, 12, cm), NULL), 2.0 / 3, 1e-12);
    cr_assert_float_eq(strtod(stats_csv_get(&t, 13, cm), NULL), -3, 1e-12);
    stats_csv_free(&t);
}

/* paired.csv holds the per-seed values behind baseline.csv: for 0.9's seed 3 (run
 * 5), CPU loss 20 against 30 (difference -10), utilisation 0.5 against 0.4 (ratio
 * 1.25). Rows: 6 runs x 7 metrics, baseline by baseline; a ratio whose baseline
 * value is 0 is left empty. */
Test(stats_agg, paired_holds_the_per_seed_values)
{
    thr_sweep();
    static const char *const baseline[] = {"0.7", NULL};
    thr_aggregate(baseline, 1);
    struct stats_csv t = {0};
    read_table("paired.csv", &t);
    static const char *const cols[] = {"baseline", "name", "cpu_threshold", "seed", "metric",
                                       "stat", "value", "baseline_value", "paired"};
    cr_assert_eq(t.n_cols, 9);
    for (size_t i = 0; i < 9; i++)
        cr_assert_str_eq(t.col[i], cols[i]);
    cr_assert_eq(t.n_rows, 42);
    bool seen_loss = false, seen_util = false;
    for (size_t r = 0; r < t.n_rows; r++) {
        cr_assert_str_eq(stats_csv_get(&t, r, 0), "cpu_threshold=0.7");
        if (strcmp(stats_csv_get(&t, r, 1), "cpu_threshold=0.9,seed=3") != 0)
            continue;
        const char *m = stats_csv_get(&t, r, 4);
        if (strcmp(m, "cpu_lost_gpu_s") == 0) {
            seen_loss = true;
            cr_assert_str_eq(stats_csv_get(&t, r, 5), "difference");
            cr_assert_str_eq(stats_csv_get(&t, r, 6), "20");
            cr_assert_str_eq(stats_csv_get(&t, r, 7), "30");
            cr_assert_str_eq(stats_csv_get(&t, r, 8), "-10");
        } else if (strcmp(m, "gpu_util_mean") == 0) {
            seen_util = true;
            cr_assert_str_eq(stats_csv_get(&t, r, 2), "0.9");
            cr_assert_str_eq(stats_csv_get(&t, r, 3), ""); /* the summaries hold no seed */
            cr_assert_float_eq(strtod(stats_csv_get(&t, r, 8), NULL), 1.25, 1e-12);
        }
    }
    cr_assert(seen_loss && seen_util);
    stats_csv_free(&t);
}

/* A second baseline adds its rows after the first's, which keep their bytes. */
Test(stats_agg, several_baselines_follow_one_another)
{
    thr_sweep();
    static const char *const one[] = {"0.7", NULL};
    thr_aggregate(one, 1);
    char path[256];
    snprintf(path, sizeof path, "%s/baseline.csv", tmpd);
    char *first = slurp(path);
    cr_assert_not_null(first);
    static const char *const two[] = {"0.7", NULL, "0.9", NULL};
    thr_aggregate(two, 2);
    char *both = slurp(path);
    cr_assert_not_null(both);
    cr_assert_eq(strncmp(both, first, strlen(first)), 0, "the first baseline's rows moved");
    struct stats_csv t = {0};
    read_table("baseline.csv", &t);
    cr_assert_eq(t.n_rows, 28);
    int cb = stats_csv_col(&t, "baseline"), cm = stats_csv_col(&t, "mean");
    cr_assert_str_eq(stats_csv_get(&t, 14, cb), "cpu_threshold=0.9");
    cr_assert_str_eq(stats_csv_get(&t, 14 + 4, 1), "jct_all_mean_s"); /* 0.7 against 0.9 */
    cr_assert_float_eq(strtod(stats_csv_get(&t, 14 + 4, cm), NULL), 60.0 / 90, 1e-12);
    stats_csv_free(&t);
    read_table("paired.csv", &t);
    cr_assert_eq(t.n_rows, 84);
    cr_assert_str_eq(stats_csv_get(&t, 42, 0), "cpu_threshold=0.9");
    stats_csv_free(&t);
    free(first);
    free(both);
}

/* Aggregates six runs of two groups (keys policy and seed) into tmpd, their warnings
 * written to tmpd/warnings, and returns the warnings' text (the caller frees it). */
static char *aggregate_six_warned(struct stats_run runs[6])
{
    static const char *const keys[] = {"policy", "seed"};
    char rdir[128], err[CPN_ERR_LEN], wpath[256];
    snprintf(rdir, sizeof rdir, "%s/runs", tmpd);
    snprintf(wpath, sizeof wpath, "%s/warnings", tmpd);
    FILE *warn = fopen(wpath, "w");
    cr_assert_not_null(warn);
    struct stats_sweep sw = {.keys = keys, .n_keys = 2, .seed_key = 1, .runs = runs, .n_runs = 6,
                             .runs_dir = rdir, .warn = warn};
    cr_assert_eq(stats_aggregate(&sw, tmpd, NULL, err, sizeof err), 0, "%s", err);
    fclose(warn);
    return slurp(wpath);
}

/* groups.csv counts each group's distinct results: summaries equal but for the
 * wall-clock fields and the seed are one result, and such a group gets a warning. */
Test(stats_agg, identical_seeds_are_counted_and_warned_of)
{
    static const char *const pol[] = {"same", "varied"};
    const char *params[6][2];
    char names[6][64];
    struct stats_run runs[6];
    grid_runs("policy", pol, 3, names, params, runs);
    for (int i = 0; i < 6; i++) {
        FILE *f = open_summary(names[i]);
        fprintf(f, "{\"seed\": %d, \"makespan_s\": %d, \"wall_s\": %d}\n", i % 3 + 1,
                i < 3 ? 100 : 100 + i, i);
        fclose(f);
        runs[i].group = i < 3 ? "policy=same" : "policy=varied";
        runs[i].varies = i < 3 ? "predictor" : "queue";
    }
    char *w = aggregate_six_warned(runs), wpath[256];
    cr_assert_str_eq(w, "group policy=same: its 3 seeds gave identical results; the seed varies "
                        "nothing this run depends on\n");
    free(w);
    snprintf(wpath, sizeof wpath, "%s/groups.csv", tmpd);
    w = slurp(wpath);
    cr_assert_str_eq(w, "policy,runs,distinct,distinct_outcomes,seed_varies\nsame,3,1,1,predictor\n"
                        "varied,3,3,3,queue\n");
    free(w);
    cr_assert(access(strcat(strcpy(wpath, tmpd), "/paired.csv"), F_OK) != 0, "no baseline");
}

Test(stats_agg, csv_reader_reports_file_and_line)
{
    char path[256], err[CPN_ERR_LEN];
    snprintf(path, sizeof path, "%s/bad.csv", tmpd);
    FILE *f = fopen(path, "w");
    fputs("a,b\n1,2\n3,\"unterminated\n", f);
    fclose(f);
    struct stats_csv t = {0};
    cr_assert_eq(stats_csv_read(path, &t, err, sizeof err), CPN_EINPUT);
    cr_assert_not_null(strstr(err, "bad.csv:"), "%s", err);
    cr_assert_null(t.col);
}

/* A group whose seeds differ only outside the outcome (the same makespan, JCTs, OOM
 * kills and jobs not completed, another CPU utilisation) has several results but one
 * outcome: groups.csv says so, and the warning names what differs. */
Test(stats_agg, seeds_that_change_only_cpu_figures_are_warned_of)
{
    static const char *const pol[] = {"cpu", "varied"};
    const char *params[6][2];
    char names[6][64];
    struct stats_run runs[6];
    grid_runs("policy", pol, 3, names, params, runs);
    for (int i = 0; i < 6; i++) {
        FILE *f = open_summary(names[i]);
        fprintf(f, "{\"seed\": %d, \"makespan_s\": %d, \"jct_all_mean_s\": 50, \"cpu_util_mean\": 0.%d}\n",
                i % 3 + 1, i < 3 ? 100 : 100 + i, i + 1);
        fclose(f);
        runs[i].group = i < 3 ? "policy=cpu" : "policy=varied";
        runs[i].varies = "background_load";
    }
    char *w = aggregate_six_warned(runs), wpath[256];
    cr_assert_str_eq(w, "group policy=cpu: its 3 seeds gave the same makespan, JCTs, OOM kills and "
                        "jobs not completed; only other figures (CPU, utilisation) differ\n");
    free(w);
    snprintf(wpath, sizeof wpath, "%s/groups.csv", tmpd);
    w = slurp(wpath);
    cr_assert_str_eq(w, "policy,runs,distinct,distinct_outcomes,seed_varies\n"
                        "cpu,3,3,1,background_load\nvaried,3,3,3,background_load\n");
    free(w);
}
