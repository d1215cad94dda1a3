/* sweep over generated queues: count, arrival and mix as sweep keys and as `run`
 * options, the seed drawing a new queue per seed, and the checks of those values.
 * Runs ./cpnsim (CPNSIM overrides the path) from the repository root; each test works
 * in a scratch directory of its own under /tmp. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/tools/stats.h"
#include "../sim/tools/sweep.h"
#include "../sim/base/util.h"
#include "helpers.h"

static const char *bin(void)
{
    const char *b = getenv("CPNSIM");
    return b ? b : "./cpnsim";
}

static char tmpd[64];

static void scratch_init(void)
{
    snprintf(tmpd, sizeof tmpd, "/tmp/cpn-sweepgen-XXXXXX");
    cr_assert_not_null(mkdtemp(tmpd));
}

static void scratch_fini(void) { sh("rm -rf '%s'", tmpd); }

static void write_file(const char *name, const char *text)
{
    char p[256];
    snprintf(p, sizeof p, "%s/%s", tmpd, name);
    FILE *f = fopen(p, "w");
    cr_assert_not_null(f, "%s", p);
    fputs(text, f);
    fclose(f);
}

static struct sweep_spec *parse(const char *text, char *err, size_t errlen)
{
    struct sweep_spec *sp = NULL;
    int rc = sweep_spec_parse("spec.json", text, strlen(text), "specdir", &sp, err, errlen);
    return rc ? NULL : sp;
}

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
    struct sweep_spec *sp = parse("{\"base\": {\"mix\": \"mixes/m.json\"},\n"
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
    sp = parse("{\"grid\": {\"jobs\": [null], \"seed\": [1]}}", err, sizeof err);
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
        struct sweep_spec *sp = parse(bad[i].spec, err, sizeof err);
        cr_assert_null(sp, "accepted %s", bad[i].spec);
        cr_assert_not_null(strstr(err, bad[i].msg), "spec %s: message was '%s'", bad[i].spec, err);
    }
    /* A mix file is read by the check, before anything runs; its own message follows
     * the spec's line and field. */
    char err[CPN_ERR_LEN] = "";
    struct sweep_spec *sp = parse("{\"grid\": {\"mix\": [null,\n \"missing.json\"]}}", err, sizeof err);
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
    cr_assert_eq(sh("%s sweep %s/spec.json -j 2 --out %s/o >/dev/null 2>&1", bin(), tmpd, tmpd), 0);
    cr_assert_eq(sh("test $(wc -l < '%s/o/runs/count=40,seed=1/jobs.csv') -eq 41", tmpd), 0);
    cr_assert_eq(sh("test $(wc -l < '%s/o/runs/count=40,seed=2/jobs.csv') -eq 41", tmpd), 0);
    struct stats_csv t = {0};
    read_table("o/runs.csv", &t);
    cr_assert_eq(t.n_rows, 4);
    int sha = stats_csv_col(&t, "jobs_sha256"), jobs = stats_csv_col(&t, "jobs");
    cr_assert_str_eq(stats_csv_get(&t, 0, jobs), "40");
    cr_assert_str_neq(stats_csv_get(&t, 0, sha), stats_csv_get(&t, 1, sha));
    /* The default queue of seed 1, drawn by `gen`, is the same bytes. */
    cr_assert_eq(sh("%s gen --count 100 --seed 1 | cmp -s - traces/q100.csv", bin()), 0);
    cr_assert_eq(sh("%s run --seed 1 --out %s/r --quiet && grep -q '\"jobs_sha256\":.*\"%s\"' "
                    "%s/r/summary.json",
                    bin(), tmpd, stats_csv_get(&t, 2, sha), tmpd),
                 0, "count=100, seed 1 is the run's default queue");
    stats_csv_free(&t);
}

Test(sweep_gen, run_takes_the_generator_options_only_without_jobs, .timeout = 60)
{
    cr_assert_eq(sh("%s run --count 12 --arrival poisson:0.01 --seed 3 --out %s/r --quiet", bin(),
                    tmpd),
                 0);
    cr_assert_eq(sh("test $(wc -l < %s/r/jobs.csv) -eq 13", tmpd), 0);
    /* The same queue as `gen` draws with the same options. */
    cr_assert_eq(sh("%s gen --count 12 --arrival poisson:0.01 --seed 3 -o %s/q.csv && "
                    "grep -q \"$(sha256sum < %s/q.csv | cut -c1-64)\" %s/r/summary.json",
                    bin(), tmpd, tmpd, tmpd),
                 0);
    cr_assert_eq(sh("%s run --jobs traces/q40.csv --count 5 --out %s/x 2>/dev/null", bin(), tmpd), 2);
    cr_assert_eq(sh("%s run --jobs traces/q40.csv --mix traces/mix-example.json --out %s/x "
                    "2>/dev/null",
                    bin(), tmpd),
                 2);
    cr_assert_eq(sh("%s run --arrival poisson:x --out %s/x 2>/dev/null", bin(), tmpd), 2);
    cr_assert_eq(sh("%s run --count 0 --out %s/x 2>/dev/null", bin(), tmpd), 2);
    cr_assert_eq(sh("%s run --mix %s/none.json --out %s/x 2>/dev/null", bin(), tmpd, tmpd), 2);
}
