/* plot: `cpnsim plot` on small sweeps and runs: which figures come out in which
 * formats, the numbers and headers of their data files, and the options. How the
 * figures look was checked by eye (docs/figures.md); these tests never depend on
 * gnuplot's bytes, only on the files existing and on the data files cpnsim writes.
 * Runs ./cpnsim (CPNSIM overrides the path) from the repository root; each test works
 * in a scratch directory of its own under /tmp. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../sim/tools/stats.h"
#include "helpers.h"

static const char *bin(void)
{
    const char *b = getenv("CPNSIM");
    return b ? b : "./cpnsim";
}

static char tmpd[64];

static void scratch_init(void)
{
    snprintf(tmpd, sizeof tmpd, "/tmp/cpn-plot-XXXXXX");
    cr_assert_not_null(mkdtemp(tmpd));
}

static void scratch_fini(void) { sh("rm -rf '%s'", tmpd); }

TestSuite(plot, .init = scratch_init, .fini = scratch_fini);

/* Criterion runs no .fini after a skip: clean up first, then skip with the reason. */
#define NEED_GNUPLOT()                                                                       \
    do {                                                                                     \
        if (sh("command -v gnuplot >/dev/null") != 0) {                                      \
            scratch_fini();                                                                  \
            cr_skip_test("gnuplot is not installed (scripts/setup-deps.sh installs it)");    \
        }                                                                                    \
    } while (0)

/* Whether tmpd/rel starts with the given magic bytes. */
static bool has_magic(const char *rel, const char *magic)
{
    char p[512], buf[8] = {0};
    snprintf(p, sizeof p, "%s/%s", tmpd, rel);
    FILE *f = fopen(p, "rb");
    if (!f)
        return false;
    size_t n = fread(buf, 1, strlen(magic), f);
    fclose(f);
    return n == strlen(magic) && memcmp(buf, magic, n) == 0;
}

static char *slurp_rel(const char *rel)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", tmpd, rel);
    return slurp(p);
}

/* Writes spec as tmpd/spec.json and sweeps it into tmpd/s. */
static void sweep_into_s(const char *spec)
{
    char p[256];
    snprintf(p, sizeof p, "%s/spec.json", tmpd);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f);
    fputs(spec, f);
    fclose(f);
    cr_assert_eq(sh("%s sweep %s/spec.json -j 2 --out %s/s >/dev/null 2>&1", bin(), tmpd, tmpd), 0);
}

/* The five policies on two 12-job queues, two seeds and two CPU thresholds, against
 * fifo: 40 short runs. */
static void five_policies(void)
{
    cr_assert_eq(sh("cd %s && %s gen --count 12 --seed 1 -o qa.csv && %s gen --count 12 --seed 2 "
                    "-o qb.csv",
                    tmpd, bin(), bin()),
                 0);
    sweep_into_s("{\"grid\": {\"policy\": [\"fifo\", \"default\", \"optimal\", \"sjf\", \"easy\"],\n"
                 "          \"jobs\": [\"qa.csv\", \"qb.csv\"], \"cpu_threshold\": [0.7, 0.9],\n"
                 "          \"seed\": [1, 2]},\n"
                 " \"baseline\": {\"policy\": \"fifo\"}}\n");
}

/* Every figure of a sweep of 5 policies x 2 queues comes out as PNG and PDF, every
 * data file opens with a "# " header naming its columns, and what the bar figures
 * hold fixed (the second threshold) is said on stderr. */
Test(plot, a_sweep_of_five_policies_gives_every_figure_with_headed_data, .timeout = 120)
{
    NEED_GNUPLOT();
    five_policies();
    cr_assert_eq(sh("%s plot %s/s > %s/out.txt 2> %s/err.txt", bin(), tmpd, tmpd, tmpd), 0);
    static const char *const figs[] = {"makespan", "jct_mean", "oom", "ratio",
                                       "ablation_cpu_threshold", "jct_cdf", "timelines"};
    for (size_t i = 0; i < sizeof figs / sizeof figs[0]; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "s/figures/%s.png", figs[i]);
        cr_assert(has_magic(rel, "\x89PNG"), "%s", rel);
        snprintf(rel, sizeof rel, "s/figures/%s.pdf", figs[i]);
        cr_assert(has_magic(rel, "%PDF"), "%s", rel);
        snprintf(rel, sizeof rel, "s/figures/data/%s.dat", figs[i]);
        cr_assert(has_magic(rel, "# "), "%s has no header", rel);
    }
    cr_assert_eq(sh("ls %s/s/figures | grep -q tmp", tmpd), 1, "a temporary file is left");
    /* The JCT figure is over all jobs, with the jobs not completed beside it; the
     * ratio leaves fifo, the baseline, out. */
    char *d = slurp_rel("s/figures/data/jct_mean.dat");
    cr_assert_not_null(d);
    cr_assert_not_null(strstr(d, "jct_all_mean_s not_completed"), "%s", d);
    cr_assert_eq(strncmp(d, "# group fifo_x fifo_mean fifo_lo fifo_hi default_x", 50), 0, "%s", d);
    free(d);
    d = slurp_rel("s/figures/data/ratio.dat");
    cr_assert_not_null(d);
    cr_assert_eq(strncmp(d, "# group default_x ", 18), 0, "%s", d);
    cr_assert_null(strstr(d, "fifo_x"), "%s", d);
    free(d);
    d = slurp_rel("err.txt");
    cr_assert_not_null(d);
    cr_assert_not_null(strstr(d, "makespan: held at CPU threshold 0.7"), "%s", d);
    free(d);
}

/* The ablation's intervals are paired with the reference threshold (the smallest,
 * 0.7, here): at 0.7 every difference is 0, so the interval has no width there,
 * while the mean is the seeds' mean. Row 1 of the first block is 0.7's. */
Test(plot, ablation_intervals_are_paired_so_the_reference_has_none, .timeout = 120)
{
    NEED_GNUPLOT();
    five_policies();
    cr_assert_eq(sh("%s plot %s/s --format png >/dev/null 2>&1", bin(), tmpd), 0);
    char *d = slurp_rel("s/figures/data/ablation_cpu_threshold.dat");
    cr_assert_not_null(d);
    const char *row = strchr(d, '\n') + 1;
    cr_assert_eq(strncmp(row, "\"0.7\" 0.7 ", 10), 0, "%s", row);
    double m, lo, hi;
    cr_assert_eq(sscanf(row + 10, "%lf %lf %lf", &m, &lo, &hi), 3, "%s", row);
    cr_assert(m > 0 && lo == m && hi == m, "fifo at 0.7: %g [%g, %g]", m, lo, hi);
    free(d);
}

/* The ratio figure's values are the per-seed ratios baseline.csv summarises: its
 * makespan ratio of default on qa at 0.7 is baseline.csv's mean for that group. */
Test(plot, ratio_matches_baseline_csv, .timeout = 120)
{
    NEED_GNUPLOT();
    five_policies();
    cr_assert_eq(sh("%s plot %s/s --format pdf --metrics makespan_s >/dev/null 2>&1", bin(), tmpd),
                 0);
    cr_assert(!has_magic("s/figures/jct_mean.pdf", "%PDF"), "--metrics makespan_s only");
    char *d = slurp_rel("s/figures/data/ratio.dat");
    cr_assert_not_null(d);
    const char *row = strchr(d, '\n') + 1;
    double x, m;
    cr_assert_eq(sscanf(row, "\"qa\" %lf %lf", &x, &m), 2, "%s", row);
    free(d);
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "grep '^default,qa.csv,0.7,makespan_s,ratio,' %s/s/baseline.csv | cut -d, -f8", tmpd);
    FILE *p = popen(cmd, "r");
    double want = NAN;
    cr_assert_eq(fscanf(p, "%lf", &want), 1);
    pclose(p);
    cr_assert(fabs(m - want) < 1e-9 * want, "%g against %g", m, want);
}

/* --format svg --no-title --label: SVGs only, and the labels are what is drawn. */
Test(plot, options_choose_formats_and_labels, .timeout = 120)
{
    NEED_GNUPLOT();
    five_policies();
    cr_assert_eq(sh("%s plot %s/s --out %s/f --format svg --no-title --label policy:fifo=FIFO "
                    "--label cpu_threshold=Threshold --baseline policy=optimal >/dev/null 2>&1",
                    bin(), tmpd, tmpd),
                 0);
    cr_assert(!has_magic("f/makespan.png", "\x89PNG"));
    cr_assert(has_magic("f/makespan.svg", "<?xml"));
    cr_assert_eq(sh("grep -q '>FIFO<' %s/f/makespan.svg", tmpd), 0);
    cr_assert_eq(sh("grep -q '>Threshold<' %s/f/ablation_cpu_threshold.svg", tmpd), 0);
    /* Against optimal, fifo is a series of the ratio and optimal is not. */
    cr_assert_eq(sh("head -1 %s/f/data/ratio.dat | grep -q 'fifo_x'", tmpd), 0);
    cr_assert_eq(sh("head -1 %s/f/data/ratio.dat | grep -q 'optimal_x'", tmpd), 1);
}

/* Bad options: a message and exit status 2, before or after reading the sweep. */
Test(plot, bad_options_exit_2, .timeout = 120)
{
    NEED_GNUPLOT();
    five_policies();
    static const char *const bad[] = {
        "--format gif",         "--format png,",       "--label policy",
        "--label =x",           "--label policy:=x",   "--baseline fifo",
        "--metrics ''",         "--bogus",             "--metrics no_such_metric",
        "--metrics policy",     "--baseline policy=nope", "--baseline nokey=1",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(sh("%s plot %s/s %s --out %s/bad 2>/dev/null >/dev/null", bin(), tmpd, bad[i],
                        tmpd),
                     2, "%s", bad[i]);
    cr_assert_eq(sh("%s plot %s 2>/dev/null", bin(), tmpd), 2, "neither a run nor a sweep");
}

/* A run: the timeline and the CDF, whose last value is the fraction of ALL jobs
 * that completed (summary.json's completed / jobs), not 1. default fails some of
 * these 30 jobs. */
Test(plot, a_runs_cdf_ends_at_the_fraction_completed, .timeout = 120)
{
    NEED_GNUPLOT();
    cr_assert_eq(sh("cd %s && %s gen --count 30 --seed 3 -o q.csv && %s run --jobs q.csv "
                    "--policy default --seed 1 --out run --quiet >/dev/null 2>&1",
                    tmpd, bin(), bin()),
                 0);
    cr_assert_eq(sh("%s plot %s/run --out %s/r >/dev/null", bin(), tmpd, tmpd), 0);
    cr_assert(has_magic("r/timeline.png", "\x89PNG"));
    cr_assert(has_magic("r/jct_cdf.pdf", "%PDF"));
    char *s = slurp_rel("run/summary.json");
    cr_assert_not_null(s);
    double jobs = atof(strstr(s, "\"jobs\":") + 7), done = atof(strstr(s, "\"completed\":") + 12);
    free(s);
    char *d = slurp_rel("r/data/jct_cdf.dat");
    cr_assert_not_null(d);
    /* The last row before the block's blank lines. */
    char *end = strstr(d, "\n\n");
    cr_assert_not_null(end);
    *end = '\0';
    double last = atof(strchr(strrchr(d, '\n'), ' ') + 1);
    free(d);
    cr_assert(done < jobs, "the test wants a run where some jobs fail (%g of %g)", done, jobs);
    cr_assert(fabs(last - done / jobs) < 1e-9, "%g against %g/%g", last, done, jobs);
}

/* A sweep over generated queues: the queue length (count) is the queue, one cluster
 * of bars per count with readable names, not a numeric key to ablate. fifo's bar at
 * 8 jobs is the mean of its two runs' makespans in runs.csv, in the figure set's time
 * unit. */
Test(plot, a_generated_queue_sweep_clusters_by_count, .timeout = 120)
{
    NEED_GNUPLOT();
    sweep_into_s("{\"base\": {\"jobs\": null},\n"
                 " \"grid\": {\"policy\": [\"fifo\", \"sjf\"], \"count\": [8, 12], \"seed\": [1, 2]},\n"
                 " \"baseline\": {\"policy\": \"fifo\"}}\n");
    cr_assert_eq(sh("%s plot %s/s --format png >/dev/null 2>&1", bin(), tmpd), 0);
    cr_assert(!has_magic("s/figures/ablation_count.png", "\x89PNG"), "count is not ablated");
    cr_assert(has_magic("s/figures/jct_cdf.png", "\x89PNG"));
    char *d = slurp_rel("s/figures/data/makespan.dat");
    cr_assert_not_null(d);
    /* The first block: the header, then one row per count, then the blank lines. */
    char *end = strstr(d, "\n\n\n");
    cr_assert_not_null(end, "%s", d);
    *end = '\0';
    const char *r1 = strchr(d, '\n') + 1, *r2 = strchr(r1, '\n');
    cr_assert_not_null(r2, "%s", d);
    r2++;
    cr_assert_null(strchr(r2, '\n'), "more than two rows: %s", d);
    cr_assert_eq(strncmp(r1, "\"8 jobs\" ", 9), 0, "%s", r1);
    cr_assert_eq(strncmp(r2, "\"12 jobs\" ", 10), 0, "%s", r2);
    double x, m;
    cr_assert_eq(sscanf(r1 + 9, "%lf %lf", &x, &m), 2, "%s", r1);
    free(d);
    /* fifo's makespans at count 8 from runs.csv, in seconds; the bar's unit is what
     * jct_cdf.dat's header names (s, min or h). */
    struct stats_csv t = {0};
    char err[256], p[256];
    snprintf(p, sizeof p, "%s/s/runs.csv", tmpd);
    cr_assert_eq(stats_csv_read(p, &t, err, sizeof err), 0, "%s", err);
    int cp = stats_csv_col(&t, "policy"), cc = stats_csv_col(&t, "count");
    int cm = stats_csv_col(&t, "makespan_s");
    double sum = 0;
    size_t n = 0;
    for (size_t r = 0; r < t.n_rows; r++)
        if (strcmp(stats_csv_get(&t, r, cp), "fifo") == 0 &&
            strcmp(stats_csv_get(&t, r, cc), "8") == 0) {
            sum += atof(stats_csv_get(&t, r, cm));
            n++;
        }
    stats_csv_free(&t);
    cr_assert_eq(n, 2);
    char *h = slurp_rel("s/figures/data/jct_cdf.dat");
    cr_assert_not_null(h);
    double div = strncmp(h, "# jct_h ", 8) == 0 ? 3600 : strncmp(h, "# jct_min ", 10) == 0 ? 60 : 1;
    free(h);
    cr_assert(fabs(m - sum / 2 / div) < 1e-6 * m, "%g against %g / 2", m, sum);
}

/* A run directory whose jobs.csv is missing, is not CSV, or lacks the columns the CDF
 * needs is refused with exit 2 and the file named, never drawn as a run that completed
 * nothing; a site named with a comma (quoted in jobs.csv) plots. */
Test(plot, a_broken_runs_jobs_csv_is_refused, .timeout = 120)
{
    NEED_GNUPLOT();
    char root[4096];
    cr_assert_not_null(getcwd(root, sizeof root));
    cr_assert_eq(sh("cd %s && sed 's/\"bj\"/\"b,j\"/g' %s/traces/default-cluster.json > c.json && "
                    "sed 's/,bj$/,\"b,j\"/' %s/traces/q40.csv > q.csv && "
                    "%s run --cluster c.json --jobs q.csv --out run --quiet >/dev/null 2>&1 && "
                    "grep -q '\"b,j\",\"b,j-n' run/jobs.csv",
                    tmpd, root, root, bin()),
                 0);
    cr_assert_eq(sh("cd %s && %s plot run --out ok >/dev/null 2>&1", tmpd, bin()), 0);
    cr_assert(has_magic("ok/jct_cdf.png", "\x89PNG"));
    static const char *const bad[] = {"rm jobs.csv", "printf 'id,x\\na,1\\n' > jobs.csv",
                                      "printf 'id,jct_s,status\\na,1,\"done\\n' > jobs.csv"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(sh("cd %s && cp -r run r%zu && cd r%zu && %s", tmpd, i, i, bad[i]), 0);
        cr_assert_eq(sh("cd %s && %s plot r%zu --out f%zu 2>err%zu.txt >/dev/null; test $? -eq 2 && "
                        "grep -q 'r%zu/jobs.csv' err%zu.txt",
                        tmpd, bin(), i, i, i, i, i),
                     0, "%s", bad[i]);
    }
}
