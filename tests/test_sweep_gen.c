/* sweep over generated queues: count, arrival and mix as sweep keys and as `run`
 * options, the seed drawing a new queue per seed, and the checks of those values.
 * Runs ./cpnsim (CPNSIM overrides the path) from the repository root; each test works
 * in a scratch directory of its own under /tmp. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/tools/stats.h"
#include "../sim/tools/sweep.h"
#include "../sim/base/util.h"
#include "helpers.h"
#include "sweep_helpers.h"

static char tmpd[64];

static void scratch_init(void) { scratch_mkdtemp(tmpd, "sweepgen"); }
static void scratch_fini(void) { sh("rm -rf '%s'", tmpd); }
static void write_file(const char *name, const char *text) { scratch_write(tmpd, name, text); }

/* Reads tmpd/rel as a table; the caller frees it. */
static void read_table(const char *rel, struct stats_csv *t)
{
    char p[512], err[CPN_ERR_LEN];
    snprintf(p, sizeof p, "%s/%s", tmpd, rel);
    cr_assert_eq(stats_csv_read(p, t, err, sizeof err), 0, "%s", err);
}

/* ---- The spec -------------------------------------------------------------------- */

Test(sweep_gen_spec, generator_options_are_keys_with_labels_and_run_options)
{
    char err[CPN_ERR_LEN] = "";
    struct sweep_spec *sp = spec_parse_str("{\"base\": {\"mix\": \"mixes/m.json\"},\n"
                                  " \"grid\": {\"count\": [40, 100],\n"
                                  "          \"arrival\": [\"batch\", \"poisson:0.01\"],\n"
                                  "          \"seed\": [1, 2]}}",
                                  err, sizeof err);
    cr_assert_not_null(sp, "%s", err);
    cr_assert_eq(sp->n_points, 8);
    char *n = sweep_point_name(sp, 3);
    cr_assert_str_eq(n, "count=40,arrival=poisson_0.01,seed=2");
    free(n);
    n = sweep_group_name(sp, 3);
    cr_assert_str_eq(n, "count=40,arrival=poisson_0.01");
    free(n);
    struct sweep_req r;
    sweep_req_make(sp, 3, "o", &r);
    cr_assert_null(r.req.jobs); /* generated */
    cr_assert_eq(r.req.count, 40);
    cr_assert_str_eq(r.req.arrival, "poisson:0.01");
    cr_assert_str_eq(r.req.mix, "specdir/mixes/m.json"); /* relative to the spec */
    cr_assert_eq(r.req.seed, 2);
    sweep_req_free(&r);
    sweep_spec_destroy(sp);

    /* Without the keys a point is today's default queue: count 0 (100), batch. */
    sp = spec_parse_str("{\"grid\": {\"jobs\": [null], \"seed\": [1]}}", err, sizeof err);
    cr_assert_not_null(sp, "%s", err);
    sweep_req_make(sp, 0, "o", &r);
    cr_assert(r.req.jobs == NULL && r.req.count == 0 && r.req.arrival == NULL && r.req.mix == NULL);
    sweep_req_free(&r);
    sweep_spec_destroy(sp);
}

Test(sweep_gen_spec, bad_generator_values_name_line_and_field)
{
    static const struct {
        const char *spec, *msg;
    } bad[] = {
        {"{\"grid\": {\"count\": [40,\n 0]}}", "spec.json:2: grid.count[1]: must be a whole number from 1 to"},
        {"{\"grid\": {\"count\": [2.5]}}", "grid.count[0]: must be a whole number"},
        {"{\"base\": {\"count\": \"40\"}}", "base.count: must be a whole number from 1 to 100000000 (got a string)"},
        {"{\"grid\": {\"count\": [100000001]}}", "grid.count[0]: must be a whole number"},
        {"{\"grid\": {\"arrival\": [\"batch\",\n \"poisson\"]}}",
         "spec.json:2: grid.arrival[1]: must be 'batch', 'poisson:RATE' or 'diurnal:RATE'"},
        {"{\"base\": {\"arrival\": \"diurnal:0\"}}", "base.arrival: must be 'batch'"},
        {"{\"base\": {\"arrival\": 3}}", "base.arrival: must be a string"},
        {"{\"base\": {\"jobs\": \"q.csv\"},\n \"grid\": {\"count\": [40]}}",
         "spec.json:2: grid.count: describes a generated queue, but jobs names a file (line 1)"},
        {"{\"grid\": {\"jobs\": [null, \"q.csv\"], \"mix\": [\"m.json\"]}}",
         "grid.mix: describes a generated queue, but jobs names a file"},
        {"{\"time_limit_s\": 0}", "spec.json:1: time_limit_s: must be a number of seconds > 0"},
        {"{\"grid\": {\"policy\": [\"fifo\"]}, \"baseline\": [{\"policy\": \"fifo\"}, {\"seed\": 1}]}",
         "baseline[1].seed: not a grid key"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[CPN_ERR_LEN] = "";
        struct sweep_spec *sp = spec_parse_str(bad[i].spec, err, sizeof err);
        cr_assert_null(sp, "accepted %s", bad[i].spec);
        cr_assert_not_null(strstr(err, bad[i].msg), "spec %s: message was '%s'", bad[i].spec, err);
    }
    /* A mix file is read by the check, before anything runs; its own message follows
     * the spec's line and field. */
    char err[CPN_ERR_LEN] = "";
    struct sweep_spec *sp = spec_parse_str("{\"grid\": {\"mix\": [null,\n \"missing.json\"]}}", err, sizeof err);
    cr_assert_not_null(sp, "%s", err);
    cr_assert_eq(sweep_check(sp, SIZE_MAX, err, sizeof err), CPN_EINPUT);
    cr_assert_not_null(strstr(err, "spec.json:2: grid.mix[1]: specdir/missing.json: cannot open"),
                       "%s", err);
    cr_assert_eq(sweep_check(sp, 0, err, sizeof err), 0, "%s", err); /* the null, only */
    sweep_spec_destroy(sp);
}

/* ---- Running --------------------------------------------------------------------- */

TestSuite(sweep_gen, .init = scratch_init, .fini = scratch_fini);

/* Two seeds of a 40-job generated queue: 40 jobs each, two different queues, and seed
 * 1 of count 100 in a batch is traces/q100.csv, as `"jobs": null` always was. */
Test(sweep_gen, each_seed_draws_its_own_queue_of_count_jobs, .timeout = 60)
{
    write_file("spec.json", "{\"grid\": {\"count\": [40, 100], \"seed\": [1, 2]}}");
    cr_assert_eq(sh("%s sweep %s/spec.json -j 2 --out %s/o >/dev/null 2>&1", cpnsim_bin(), tmpd, tmpd), 0);
    cr_assert_eq(sh("test $(wc -l < '%s/o/runs/count=40,seed=1/jobs.csv') -eq 41", tmpd), 0);
    cr_assert_eq(sh("test $(wc -l < '%s/o/runs/count=40,seed=2/jobs.csv') -eq 41", tmpd), 0);
    struct stats_csv t = {0};
    read_table("o/runs.csv", &t);
    cr_assert_eq(t.n_rows, 4);
    int sha = stats_csv_col(&t, "jobs_sha256"), jobs = stats_csv_col(&t, "jobs");
    cr_assert_str_eq(stats_csv_get(&t, 0, jobs), "40");
    cr_assert_str_neq(stats_csv_get(&t, 0, sha), stats_csv_get(&t, 1, sha));
    /* The default queue of seed 1, drawn by `gen`, is the same bytes. */
    cr_assert_eq(sh("%s gen --count 100 --seed 1 | cmp -s - traces/q100.csv", cpnsim_bin()), 0);
    cr_assert_eq(sh("%s run --seed 1 --out %s/r --quiet && grep -q '\"jobs_sha256\":.*\"%s\"' "
                    "%s/r/summary.json",
                    cpnsim_bin(), tmpd, stats_csv_get(&t, 2, sha), tmpd),
                 0, "count=100, seed 1 is the run's default queue");
    stats_csv_free(&t);

    /* A mix file, relative to the spec, labelled by its base name; count overrides the
     * mix's own, as `gen --count` does. */
    cr_assert_eq(sh("cp traces/mix-example.json %s/", tmpd), 0);
    write_file("mix.json", "{\"grid\": {\"mix\": [null, \"mix-example.json\"], \"count\": [7]}}");
    cr_assert_eq(sh("%s sweep %s/mix.json --out %s/m >/dev/null 2>&1", cpnsim_bin(), tmpd, tmpd), 0);
    cr_assert_eq(sh("test $(wc -l < '%s/m/runs/mix=mix-example,count=7/jobs.csv') -eq 8", tmpd), 0);
    cr_assert_eq(sh("grep -q 'mix ' '%s/m/runs/mix=mix-example,count=7/summary.json' && ! grep -q "
                    "'mix ' '%s/m/runs/mix=default,count=7/summary.json'",
                    tmpd, tmpd),
                 0, "jobs_file names the mix");
}

Test(sweep_gen, run_takes_the_generator_options_only_without_jobs, .timeout = 60)
{
    cr_assert_eq(sh("%s run --count 12 --arrival poisson:0.01 --seed 3 --out %s/r --quiet", cpnsim_bin(),
                    tmpd),
                 0);
    cr_assert_eq(sh("test $(wc -l < %s/r/jobs.csv) -eq 13", tmpd), 0);
    /* The same queue as `gen` draws with the same options. */
    cr_assert_eq(sh("%s gen --count 12 --arrival poisson:0.01 --seed 3 -o %s/q.csv && "
                    "grep -q \"$(sha256sum < %s/q.csv | cut -c1-64)\" %s/r/summary.json",
                    cpnsim_bin(), tmpd, tmpd, tmpd),
                 0);
    cr_assert_eq(sh("%s run --jobs traces/q40.csv --count 5 --out %s/x 2>/dev/null", cpnsim_bin(), tmpd), 2);
    cr_assert_eq(sh("%s run --jobs traces/q40.csv --mix traces/mix-example.json --out %s/x "
                    "2>/dev/null",
                    cpnsim_bin(), tmpd),
                 2);
    cr_assert_eq(sh("%s run --arrival poisson:x --out %s/x 2>/dev/null", cpnsim_bin(), tmpd), 2);
    cr_assert_eq(sh("%s run --count 0 --out %s/x 2>/dev/null", cpnsim_bin(), tmpd), 2);
    cr_assert_eq(sh("%s run --mix %s/none.json --out %s/x 2>/dev/null", cpnsim_bin(), tmpd, tmpd), 2);
}

/* ---- What the seed varies, paired values, baselines ------------------------------ */

/* On a cluster without other tenants' noise, fifo never asks the predictor, so on a
 * fixed queue its seeds give one result: groups.csv says so and the sweep warns. On a
 * generated queue each seed draws its own queue: no warning. */
Test(sweep_gen, identical_seeds_are_named_for_a_fixed_queue_not_a_generated_one, .timeout = 60)
{
    cr_assert_eq(sh("sed 's/\"noise\": 0.05/\"noise\": 0/' traces/default-cluster.json > "
                    "%s/quiet.json && cp traces/q40.csv %s/",
                    tmpd, tmpd),
                 0);
    write_file("spec.json", "{\"base\": {\"cluster\": \"quiet.json\"},\n"
                            " \"grid\": {\"policy\": [\"fifo\"], \"jobs\": [\"q40.csv\", null],\n"
                            "          \"count\": [40], \"seed\": [1, 2, 3]}}");
    /* count goes with jobs files: an error naming it, before anything runs. */
    cr_assert_eq(sh("%s sweep %s/spec.json --out %s/o 2>%s/err", cpnsim_bin(), tmpd, tmpd, tmpd), 2);
    char p[256];
    snprintf(p, sizeof p, "%s/err", tmpd);
    char *e = slurp(p);
    cr_assert_not_null(strstr(e, "spec.json:3: grid.count: describes a generated queue"), "%s", e);
    free(e);
    write_file("spec.json", "{\"base\": {\"cluster\": \"quiet.json\"},\n"
                            " \"grid\": {\"policy\": [\"fifo\"], \"jobs\": [\"q40.csv\", null],\n"
                            "          \"seed\": [1, 2, 3]}}");
    cr_assert_eq(sh("%s sweep %s/spec.json -j 2 --out %s/o >/dev/null 2>%s/err", cpnsim_bin(), tmpd, tmpd,
                    tmpd),
                 0);
    e = slurp(p);
    cr_assert_not_null(strstr(e, "sweep: the seed varies predictor in 1 group (policy=fifo,jobs=q40); "
                                 "queue+predictor in 1 group (policy=fifo,jobs=default)\n"),
                       "%s", e);
    cr_assert_not_null(strstr(e, "group policy=fifo,jobs=q40: its 3 seeds gave identical results; "
                                 "the seed varies nothing this run depends on\n"),
                       "%s", e);
    cr_assert_null(strstr(e, "group policy=fifo,jobs=default:"), "%s", e);
    free(e);
    snprintf(p, sizeof p, "%s/o/groups.csv", tmpd);
    e = slurp(p);
    cr_assert_str_eq(e, "policy,jobs,runs,distinct,distinct_outcomes,seed_varies\n"
                        "fifo,q40.csv,3,1,1,predictor\n"
                        "fifo,default,3,3,3,queue+predictor\n");
    free(e);
    /* The default cluster's gz has noisy background load: the seed varies it too. */
    write_file("spec2.json", "{\"grid\": {\"seed\": [1, 2]}}");
    /* grep reads to the end (no -q): a grep that left at the first match would kill the
     * sweep with SIGPIPE at its next line while its runs still write under o2, which
     * the scratch directory's removal then races. */
    cr_assert_eq(sh("%s sweep %s/spec2.json --out %s/o2 2>&1 >/dev/null | grep "
                    "'the seed varies queue+predictor+background_load in 1 group (all)' >/dev/null",
                    cpnsim_bin(), tmpd, tmpd),
                 0);
}

/* paired.csv's values are runs.csv's: optimal against fifo on two generated queues,
 * for each seed and metric, value / baseline_value (a ratio) or value -
 * baseline_value (a difference); and a second baseline from --aggregate --baseline
 * adds its rows after the spec's, which keep their bytes. */
Test(sweep_gen, paired_values_come_from_the_runs_and_baselines_add_up, .timeout = 90)
{
    write_file("spec.json", "{\"grid\": {\"policy\": [\"fifo\", \"optimal\"], \"count\": [20],\n"
                            "          \"seed\": [1, 2]},\n"
                            " \"baseline\": {\"policy\": \"fifo\"}}");
    cr_assert_eq(sh("%s sweep %s/spec.json -j 2 --out %s/o >/dev/null 2>&1", cpnsim_bin(), tmpd, tmpd), 0);
    struct stats_csv runs = {0}, pr = {0};
    read_table("o/runs.csv", &runs);
    read_table("o/paired.csv", &pr);
    cr_assert_eq(pr.n_rows, 4 * 7); /* 4 runs x 7 paired metrics */
    int cname = stats_csv_col(&pr, "name"), cm = stats_csv_col(&pr, "metric");
    int cv = stats_csv_col(&pr, "value"), cb = stats_csv_col(&pr, "baseline_value");
    int cp = stats_csv_col(&pr, "paired"), cs = stats_csv_col(&pr, "stat");
    int cseed = stats_csv_col(&pr, "seed");
    for (size_t r = 0; r < pr.n_rows; r++) {
        const char *name = stats_csv_get(&pr, r, cname), *m = stats_csv_get(&pr, r, cm);
        /* The run's row, and its partner's: fifo with the same seed. */
        char partner[64];
        snprintf(partner, sizeof partner, "policy=fifo,count=20,seed=%s", stats_csv_get(&pr, r, cseed));
        int col = stats_csv_col(&runs, m);
        cr_assert_geq(col, 0, "%s", m);
        const char *v = NULL, *b = NULL;
        for (size_t i = 0; i < runs.n_rows; i++) {
            const char *n = stats_csv_get(&runs, i, stats_csv_col(&runs, "name"));
            if (strcmp(n, name) == 0)
                v = stats_csv_get(&runs, i, col);
            if (strcmp(n, partner) == 0)
                b = stats_csv_get(&runs, i, col);
        }
        cr_assert(v && b, "%s: %s", name, m);
        cr_assert_str_eq(stats_csv_get(&pr, r, cv), v);
        cr_assert_str_eq(stats_csv_get(&pr, r, cb), b);
        double x = strtod(v, NULL), y = strtod(b, NULL), d = strtod(stats_csv_get(&pr, r, cp), NULL);
        if (strcmp(stats_csv_get(&pr, r, cs), "ratio") == 0)
            cr_assert_float_eq(d, x / y, 1e-12 * fabs(x / y), "%s %s", name, m);
        else
            cr_assert_float_eq(d, x - y, 1e-9, "%s %s", name, m);
    }
    stats_csv_free(&pr);
    stats_csv_free(&runs);

    char p[256];
    snprintf(p, sizeof p, "%s/o/baseline.csv", tmpd);
    char *first = slurp(p);
    cr_assert_eq(sh("%s sweep %s/spec.json --out %s/o --aggregate --baseline policy=optimal "
                    ">/dev/null 2>&1",
                    cpnsim_bin(), tmpd, tmpd),
                 0);
    char *both = slurp(p);
    cr_assert_eq(strncmp(both, first, strlen(first)), 0, "the spec's baseline rows moved");
    cr_assert_not_null(strstr(both + strlen(first), ",policy=optimal,"));
    free(first);
    free(both);
    read_table("o/paired.csv", &pr);
    cr_assert_eq(pr.n_rows, 2 * 4 * 7);
    stats_csv_free(&pr);
    /* Aggregating again without it leaves the spec's baseline alone. */
    cr_assert_eq(sh("%s sweep %s/spec.json --out %s/o --aggregate >/dev/null 2>&1", cpnsim_bin(), tmpd, tmpd), 0);
    read_table("o/paired.csv", &pr);
    cr_assert_eq(pr.n_rows, 4 * 7);
    stats_csv_free(&pr);
    static const char *const bad[] = {"seed=1", "policy=sjf", "nokey=1", "policy"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        cr_assert_eq(sh("%s sweep %s/spec.json --out %s/o --aggregate --baseline %s 2>/dev/null "
                        ">/dev/null",
                        cpnsim_bin(), tmpd, tmpd, bad[i]),
                     2, "--baseline %s", bad[i]);
}

/* ---- Long runs ------------------------------------------------------------------- */

/* A run that cannot end within the limit (optimal on 200,000 generated jobs takes
 * many seconds) is stopped, reported failed with the limit in error.txt, and the
 * sweep goes on with the other run and names the one not done. */
Test(sweep_gen, a_run_past_the_time_limit_is_stopped_and_reported, .timeout = 120)
{
    write_file("spec.json", "{\"grid\": {\"count\": [200000, 10], \"policy\": [\"optimal\"]},\n"
                            " \"time_limit_s\": 1}");
    cr_assert_eq(sh("%s sweep %s/spec.json -j 1 --out %s/o >/dev/null 2>%s/err", cpnsim_bin(), tmpd, tmpd,
                    tmpd),
                 1);
    char p[256];
    snprintf(p, sizeof p, "%s/err", tmpd);
    char *e = slurp(p);
    cr_assert_not_null(strstr(e, "FAILED count=200000,policy=optimal: exceeded the time limit of 1 s"),
                       "%s", e);
    cr_assert_not_null(strstr(e, "1 run is not done (no summary.json in"), "%s", e);
    cr_assert_not_null(strstr(e, ":\n  count=200000,policy=optimal\n"), "%s", e);
    free(e);
    snprintf(p, sizeof p, "%s/o/runs/count=200000,policy=optimal/error.txt", tmpd);
    e = slurp(p);
    cr_assert_str_eq(e, "exceeded the time limit of 1 s\n");
    free(e);
    cr_assert_eq(sh("test -f '%s/o/runs/count=10,policy=optimal/summary.json'", tmpd), 0);
    cr_assert_eq(sh("ls -a '%s/o/runs/count=200000,policy=optimal' | grep -q tmp", tmpd), 1,
                 "no temporaries left");
    /* The emitted tasks carry the limit; --time-limit overrides the spec's. */
    cr_assert_eq(sh("%s sweep %s/spec.json --out %s/o --emit parallel >/dev/null && grep -q -- "
                    "\"--time-limit 1 --only 0$\" %s/o/parallel.txt",
                    cpnsim_bin(), tmpd, tmpd, tmpd),
                 0);
    cr_assert_eq(sh("%s sweep %s/spec.json --out %s/o --emit parallel --time-limit 600 >/dev/null "
                    "&& grep -q -- \"--time-limit 600 --only 0$\" %s/o/parallel.txt",
                    cpnsim_bin(), tmpd, tmpd, tmpd),
                 0);
    cr_assert_eq(sh("%s sweep %s/spec.json --out %s/o --time-limit 0 2>/dev/null", cpnsim_bin(),
                    tmpd, tmpd),
                 2);
}

/* More than SWEEP_MAX_LISTED runs not done: the first 20, then how many more. */
Test(sweep_gen, aggregate_names_the_runs_not_done, .timeout = 30)
{
    write_file("spec.json", "{\"grid\": {\"seed\": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, "
                            "15, 16, 17, 18, 19, 20, 21, 22, 23]}}");
    cr_assert_eq(sh("%s sweep %s/spec.json --out %s/o --aggregate >/dev/null 2>%s/err", cpnsim_bin(), tmpd,
                    tmpd, tmpd),
                 1);
    char p[256];
    snprintf(p, sizeof p, "%s/err", tmpd);
    char *e = slurp(p);
    cr_assert_not_null(strstr(e, "23 runs are not done"), "%s", e);
    cr_assert_not_null(strstr(e, "\n  seed=1\n  seed=2\n"), "%s", e);
    cr_assert_not_null(strstr(e, "\n  seed=20\n  and 3 more\n"), "%s", e);
    cr_assert_null(strstr(e, "seed=21"), "%s", e);
    free(e);
}
