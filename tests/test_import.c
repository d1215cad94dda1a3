/* Tests of import: the Philly, openb and Gavel job importers and the machine-list
 * converters on small excerpts (tests/data/import/, see its README), their reports,
 * their errors, and `cpnsim import` followed by a FIFO run on a converted cluster.
 * Expected values are worked out by hand from the excerpts. */
#include "../sim/engine/catalog.h"
#include "../sim/engine/cluster.h"
#include "../sim/io/cluster_json.h"
#include "../sim/io/import.h"
#include "../sim/io/trace.h"
#include "../sim/base/util.h"
#include "helpers.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define IMP_DIR "tests/data/import/"

static struct catalog *load_catalog(void)
{
    struct catalog *cat = NULL;
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(catalog_create(&cat, err, sizeof err), CPN_OK, "%s", err);
    return cat;
}

/* Imports a job trace, capturing the report. */
static void import_ok(const char *format, const char *file, const struct import_opts *o,
                      struct catalog *cat, struct jobset *js, struct import_stats *st,
                      char **report)
{
    char *buf = NULL, err[CPN_ERR_LEN] = "";
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    jobset_init(js);
    int rc = import_jobs(format, file, o, cat, js, f, st, err, sizeof err);
    fclose(f);
    cr_assert_eq(rc, CPN_OK, "%s", err);
    *report = buf;
}

static void has(const char *text, const char *want)
{
    cr_assert(strstr(text, want), "\"%s\" lacks \"%s\"", text, want);
}

Test(import, philly)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    struct import_stats st;
    char *rep;
    import_ok("philly", IMP_DIR "philly_small.csv", NULL, cat, &js, &st, &rep);
    cr_assert_eq(st.rows, 9);
    cr_assert_eq(st.jobs, 7);
    cr_assert_eq(st.skipped, 2);
    cr_assert_eq(st.changed, 0);
    cr_assert_eq(js.n, 7);
    /* Sorted by timestamp, ties by line; submit_s counts from 2017-09-29 07:58:32. */
    static const struct {
        const char *id;
        double submit, duration;
        unsigned gpus;
        const char *origin;
    } want[] = {{"philly-4", 0, 860662, 1, "6c71a0"},   {"philly-10", 0, 30, 4, "6c71a0"},
                {"philly-6", 144088, 100, 16, "b436b2"}, {"philly-9", 446488, 10, 2, "ee9e8c"},
                {"philly-3", 857671, 2951, 1, "6214e9"}, {"philly-5", 857704, 2759, 1, "6214e9"},
                {"philly-2", 860603, 66, 1, "11cb48"}};
    for (size_t i = 0; i < 7; i++) {
        const struct job *j = &js.v[i];
        cr_assert_str_eq(jobset_str(&js, j->id), want[i].id);
        cr_assert_eq(j->submit_s, want[i].submit, "%s submit %g", want[i].id, j->submit_s);
        cr_assert_eq(j->duration_s, want[i].duration);
        cr_assert_eq(j->gpus, want[i].gpus);
        cr_assert_str_eq(jobset_str(&js, j->origin), want[i].origin);
        cr_assert_eq(j->model, -1);
        cr_assert_eq(j->cpus, 0);
        cr_assert_eq(j->mem_gib, 0);
        cr_assert_eq(j->data_gib, 0);
        cr_assert_eq(j->image_gib, 0);
    }
    has(rep, "9 rows read, 7 jobs written, 2 skipped");
    has(rep, "skipped 1 row: duration not in (0, 1e9] s: no run to replay (first at "
             "tests/data/import/philly_small.csv:7)");
    has(rep, "skipped 1 row: num_gpus 0");
    has(rep, "note: 1 row: more GPUs than the largest Philly machine (8)");
    has(rep, "note: 1 row: gpu_time differs from duration x num_gpus; duration used (first at "
             "tests/data/import/philly_small.csv:9)");
    free(rep);
    jobset_free(&js);
    catalog_destroy(cat);
}

Test(import, philly_folds_wide_jobs)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    struct import_stats st;
    char *rep;
    struct import_opts o = {.max_gpus = 8};
    import_ok("philly", IMP_DIR "philly_small.csv", &o, cat, &js, &st, &rep);
    cr_assert_eq(st.changed, 1);
    cr_assert_eq(js.n, 7);
    const struct job *j = &js.v[2];
    cr_assert_str_eq(jobset_str(&js, j->id), "philly-6");
    cr_assert_eq(j->gpus, 8);
    cr_assert_eq(j->duration_s, 200, "16 GPUs x 100 s = 8 GPUs x 200 s");
    has(rep, "note: 1 row: folded onto --max-gpus GPUs");
    cr_assert_null(strstr(rep, "more GPUs than"));
    free(rep);
    jobset_free(&js);
    catalog_destroy(cat);
}

/* --pod-gpus 8 splits a job of G > 8 GPUs into P = ceil(G / 8) pods of ceil(G / P) GPUs,
 * keeping its duration (tests/data/import/philly_wide.csv, worked out by hand). */
Test(import, philly_splits_wide_jobs_into_pods)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    struct import_stats st;
    char *rep;
    struct import_opts o = {.pod_gpus = 8};
    import_ok("philly", IMP_DIR "philly_wide.csv", &o, cat, &js, &st, &rep);
    cr_assert_eq(st.jobs, 5);
    cr_assert_eq(st.changed, 3);
    static const struct {
        const char *id;
        unsigned gpus, pods;
        double duration;
    } want[] = {{"philly-2", 8, 4, 100}, /* 32 GPUs: 4 pods of 8 */
                {"philly-3", 6, 2, 50},  /* 12: 2 pods of 6, not 8 + 4 */
                {"philly-4", 7, 3, 10},  /* 20: 3 pods of 7, 21 GPUs */
                {"philly-5", 8, 1, 10},  /* 8: as it is */
                {"philly-6", 1, 1, 10}};
    for (size_t i = 0; i < 5; i++) {
        cr_assert_str_eq(jobset_str(&js, js.v[i].id), want[i].id);
        cr_assert_eq(js.v[i].gpus, want[i].gpus, "%s gpus %u", want[i].id, js.v[i].gpus);
        cr_assert_eq(jobset_pods(&js, i), want[i].pods, "%s pods", want[i].id);
        cr_assert_eq(js.v[i].duration_s, want[i].duration, "%s: the duration is kept", want[i].id);
        cr_assert_eq(js.v[i].cpus, 0);
    }
    has(rep, "note: 3 rows: split into pods of at most --pod-gpus GPUs (P = ceil(gpus / "
             "pod-gpus) pods of ceil(gpus / P) GPUs), duration kept (first at "
             "tests/data/import/philly_wide.csv:2)");
    has(rep, "note: 1 row: split into pods holding more GPUs than num_gpus (pods x GPUs per pod "
             "rounded up): GPU time grows by that ratio (first at "
             "tests/data/import/philly_wide.csv:4)");
    cr_assert_null(strstr(rep, "more GPUs than the largest"), "every pod fits: %s", rep);
    free(rep);
    jobset_free(&js);

    /* Pods of 16 still do not fit a Philly machine: the note says so. */
    o.pod_gpus = 16;
    import_ok("philly", IMP_DIR "philly_wide.csv", &o, cat, &js, &st, &rep);
    cr_assert_eq(js.v[0].gpus, 16);
    cr_assert_eq(jobset_pods(&js, 0), 2);
    cr_assert_eq(js.v[1].gpus, 12);
    cr_assert_eq(jobset_pods(&js, 1), 1);
    has(rep, "note: 3 rows: more GPUs than the largest Philly machine (8)");
    free(rep);
    jobset_free(&js);

    /* Without options nothing changes, and the set carries no pods. */
    import_ok("philly", IMP_DIR "philly_wide.csv", NULL, cat, &js, &st, &rep);
    cr_assert_null(js.pods);
    cr_assert_eq(js.v[0].gpus, 32);
    cr_assert_eq(st.changed, 0);
    free(rep);
    jobset_free(&js);
    catalog_destroy(cat);
}

/* A split job's CPU and memory requests are its pods' shares (openb's 8-GPU pod of 88
 * cores and 320 GiB, split into 2 pods of 4 GPUs). */
Test(import, openb_split_shares_requests)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    struct import_stats st;
    char *rep;
    struct import_opts o = {.pod_gpus = 4};
    import_ok("openb", IMP_DIR "openb_pods_small.csv", &o, cat, &js, &st, &rep);
    const struct job *j = &js.v[3];
    cr_assert_str_eq(jobset_str(&js, j->id), "openb-pod-0017");
    cr_assert_eq(j->gpus, 4);
    cr_assert_eq(jobset_pods(&js, 3), 2);
    cr_assert_eq(j->cpus, 44);
    cr_assert_eq(j->mem_gib, 160);
    cr_assert_eq(st.changed, 1);
    free(rep);
    jobset_free(&js);
    catalog_destroy(cat);
}

Test(import, openb)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    struct import_stats st;
    char *rep;
    import_ok("openb", IMP_DIR "openb_pods_small.csv", NULL, cat, &js, &st, &rep);
    cr_assert_eq(st.rows, 8);
    cr_assert_eq(st.jobs, 6);
    cr_assert_eq(st.skipped, 2);
    const struct job *j = js.v;
    cr_assert_str_eq(jobset_str(&js, j[0].id), "openb-pod-0000");
    cr_assert_eq(j[0].duration_s, 12537496);
    cr_assert_eq(j[0].cpus, 12);
    cr_assert_eq(j[0].mem_gib, 16);
    cr_assert_str_eq(jobset_str(&js, j[0].origin), "openb");
    cr_assert_str_eq(jobset_str(&js, j[1].id), "openb-pod-0102");
    cr_assert_eq(j[1].submit_s, 200);
    cr_assert_eq(j[1].duration_s, 30, "deletion 260 - scheduled 230");
    cr_assert_eq(j[1].gpus, 2);
    cr_assert_str_eq(jobset_str(&js, j[3].id), "openb-pod-0017");
    cr_assert_eq(j[3].gpus, 8);
    cr_assert_eq(j[3].mem_gib, 320);
    cr_assert_eq(j[4].mem_gib, 15258.0 / 1024);
    cr_assert_eq(j[5].duration_s, 1512, "deletion 9968575 - scheduled 9967063");
    has(rep, "skipped 1 row: CPU-only task (num_gpu 0)");
    has(rep, "skipped 1 row: never scheduled");
    has(rep, "note: 4 rows: still Running when the trace ended: its duration is a lower bound");
    has(rep, "note: 2 rows: shares a GPU (gpu_milli < 1000)");
    has(rep, "note: 1 row: gpu_spec (a GPU-type constraint) is not modeled");
    has(rep, "note: 1 row: Failed");
    free(rep);
    jobset_free(&js);
    struct import_opts o = {.origin = "hz"};
    import_ok("openb", IMP_DIR "openb_pods_small.csv", &o, cat, &js, &st, &rep);
    cr_assert_str_eq(jobset_str(&js, js.v[0].origin), "hz");
    free(rep);
    jobset_free(&js);
    catalog_destroy(cat);
}

Test(import, gavel)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    struct import_stats st;
    char *rep;
    import_ok("gavel", IMP_DIR "gavel_small.trace", NULL, cat, &js, &st, &rep);
    cr_assert_eq(st.rows, 4);
    cr_assert_eq(js.n, 4);
    static const struct {
        const char *id, *model;
        double submit;
        unsigned batch, gpus;
        uint64_t samples;
    } want[] = {{"gavel-2", "transformer", 0, 16, 1, 146234ULL * 16},
                {"gavel-4", "cyclegan", 11.5, 1, 2, 57467ULL},
                {"gavel-5", "lstm_lm", 50, 10, 4, 2528449ULL * 10},
                {"gavel-1", "resnet50", 188006, 128, 8, 33895ULL * 128}};
    for (size_t i = 0; i < 4; i++) {
        const struct job *j = &js.v[i];
        cr_assert_str_eq(jobset_str(&js, j->id), want[i].id);
        cr_assert_str_eq(catalog_model_name(cat, j->model), want[i].model);
        cr_assert_eq(j->submit_s, want[i].submit);
        cr_assert_eq(j->batch, want[i].batch);
        cr_assert_eq(j->gpus, want[i].gpus);
        cr_assert_eq(j->samples, want[i].samples);
        cr_assert_eq(j->epochs, 1);
        cr_assert_lt(j->duration_s, 0, "run time from the catalogue");
        /* total_steps over all workers: ceil(total_steps / gpus) steps of all its GPUs. */
        uint64_t total_steps = want[i].samples / want[i].batch;
        cr_assert_eq(job_run_s(j, cat, 1.0, 1.0),
                     (double)((total_steps + want[i].gpus - 1) / want[i].gpus));
    }
    has(rep, "note: 1 row: priority_weight other than 1 is not modeled");
    has(rep, "note: 1 row: SLO (a deadline) is not modeled");
    free(rep);
    jobset_free(&js);
    catalog_destroy(cat);
}

static void expect_bad(const char *format, const char *file, const char *want)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "", path[256];
    snprintf(path, sizeof path, IMP_DIR "%s", file);
    char *json = NULL;
    int rc = import_is_job_format(format)
                 ? import_jobs(format, path, NULL, cat, &js, NULL, NULL, err, sizeof err)
                 : import_cluster(format, path, NULL, &json, NULL, NULL, err, sizeof err);
    cr_assert_eq(rc, CPN_EINPUT, "%s accepted", file);
    cr_assert_null(json);
    cr_assert_eq(js.n, 0);
    char full[512];
    snprintf(full, sizeof full, IMP_DIR "%s", want);
    cr_assert(strncmp(err, full, strlen(full)) == 0, "message \"%s\" does not begin \"%s\"", err,
              full);
    catalog_destroy(cat);
}

Test(import, bad_inputs)
{
    expect_bad("philly", "philly_bad_timestamp.csv",
               "philly_bad_timestamp.csv:3: timestamp: '2017-13-09 06:13:03' is not a time");
    expect_bad("philly", "philly_missing_column.csv",
               "philly_missing_column.csv:1: num_gpus: missing required column");
    expect_bad("philly", "philly_bad_number.csv",
               "philly_bad_number.csv:3: duration: 'abc' is not a finite number");
    expect_bad("philly", "empty.csv", "empty.csv: empty file (no header)");
    expect_bad("philly", "nope.csv", "nope.csv: ");
    expect_bad("openb", "openb_bad_fields.csv",
               "openb_bad_fields.csv:2: row: has 10 fields, the header 11");
    expect_bad("gavel", "gavel_unknown_type.trace",
               "gavel_unknown_type.trace:1: job_type: unknown Gavel job type 'BERT'");
    expect_bad("gavel", "gavel_bad_fields.trace",
               "gavel_bad_fields.trace:1: line: has 4 tab-separated fields");
    expect_bad("gavel", "empty.csv", "empty.csv: no jobs");
    expect_bad("philly-machines", "philly_machines_dup.csv",
               "philly_machines_dup.csv:4: machine: 'm0' is listed twice (also line 2)");
    expect_bad("pai-machines", "pai_bad.csv", "pai_bad.csv:1: gpu_type: 'CPU' for a machine with 8");
    expect_bad("openb-nodes", "philly_small.csv", "philly_small.csv:1: sn: missing required column");
}

/* Converts a machine list and loads the result as a cluster. */
static struct cluster *convert(const char *format, const char *file, const struct import_opts *o,
                               struct catalog *cat, char **report)
{
    char *json = NULL, err[CPN_ERR_LEN] = "";
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    int rc = import_cluster(format, file, o, &json, f, NULL, err, sizeof err);
    fclose(f);
    cr_assert_eq(rc, CPN_OK, "%s", err);
    struct cluster *cl = NULL;
    cr_assert_eq(cluster_load_buf("converted.json", json, strlen(json), NULL, 0, cat, &cl, err,
                                  sizeof err),
                 CPN_OK, "%s\n%s", err, json);
    free(json);
    *report = buf;
    return cl;
}

Test(import, philly_machines_with_origin_sites)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    struct import_stats st;
    char *rep;
    import_ok("philly", IMP_DIR "philly_small.csv", NULL, cat, &js, &st, &rep);
    free(rep);
    struct import_opts o = {.origins_from = &js};
    struct cluster *cl = convert("philly-machines", IMP_DIR "philly_machines_small.csv", &o, cat,
                                 &rep);
    cr_assert_eq(cl->n_nodes, 5);
    cr_assert_eq(cl->n_gpus, 3 * 2 + 2 * 8);
    cr_assert_eq(cl->n_types, 2);
    cr_assert_str_eq(cl->sites[0].name, "philly");
    cr_assert_eq(cl->controller_site, 0);
    /* One data site per virtual cluster, in order of first appearance. */
    const char *vcs[] = {"6c71a0", "b436b2", "ee9e8c", "6214e9", "11cb48"};
    cr_assert_eq(cl->n_sites, 6);
    for (size_t i = 0; i < 5; i++) {
        cr_assert_str_eq(cl->sites[i + 1].name, vcs[i]);
        cr_assert_eq(cl->sites[i + 1].node_count, 0);
    }
    cr_assert_eq(cl->n_links, 5);
    for (size_t t = 0; t < cl->n_types; t++) {
        cr_assert_eq(cl->types[t].speed, 1.0);
        cr_assert_eq(cl->types[t].cat_type, -1);
    }
    cr_assert_str_eq(cl->types[0].name, "GPU-12GB");
    cr_assert_eq(cl->types[0].mem_gib, 12);
    cr_assert_eq(cl->types[1].mem_gib, 24);
    /* Every job's origin is a site of the cluster. */
    for (size_t j = 0; j < js.n; j++)
        cr_assert_geq(cluster_site_find(cl, jobset_str(&js, js.v[j].origin)), 0);
    has(rep, "5 machines (22 GPUs) in 2 node entries, 2 GPU types, site 'philly'");
    free(rep);
    cluster_destroy(cl);
    jobset_free(&js);
    catalog_destroy(cat);
}

Test(import, openb_and_pai_nodes)
{
    struct catalog *cat = load_catalog();
    char *rep;
    struct cluster *cl = convert("openb-nodes", IMP_DIR "openb_nodes_small.csv", NULL, cat, &rep);
    cr_assert_eq(cl->n_nodes, 6);
    cr_assert_eq(cl->n_gpus, 2 + 2 + 8 + 8 + 8);
    cr_assert_str_eq(cl->sites[0].name, "openb");
    cr_assert_eq(cl->nodes[0].gpu_count, 0, "the CPU-only node is kept");
    cr_assert_eq(cl->nodes[0].cpus, 32);
    cr_assert_eq(cl->nodes[0].mem_gib, 256);
    has(rep, "note: 2 rows: GPU model with undisclosed memory");
    free(rep);
    cluster_destroy(cl);
    struct import_opts o = {.site = "et15"};
    cl = convert("pai-machines", IMP_DIR "pai_small.csv", &o, cat, &rep);
    cr_assert_str_eq(cl->sites[0].name, "et15");
    cr_assert_eq(cl->n_nodes, 6);
    cr_assert_eq(cl->n_gpus, 22);
    has(rep, "6 machines (22 GPUs) in 5 node entries, 4 GPU types, site 'et15'");
    free(rep);
    cluster_destroy(cl);
    cl = convert("pai-machines", IMP_DIR "pai_header.csv", NULL, cat, &rep);
    cr_assert_eq(cl->n_nodes, 1, "the header row is not a machine");
    free(rep);
    cluster_destroy(cl);
    catalog_destroy(cat);
}

/* ---- the command line ---- */

static const char *bin(void)
{
    const char *b = getenv("CPNSIM");
    return b ? b : "./cpnsim";
}

static void scratch_init(void)
{
    char d[64];
    snprintf(d, sizeof d, "/tmp/cpn_import_%d", (int)getpid());
    setenv("TMPD", d, 1);
    cr_assert_eq(sh("rm -rf $TMPD && mkdir -p $TMPD"), 0);
}

static void scratch_fini(void) { sh("rm -rf $TMPD"); }

TestSuite(import_cli, .init = scratch_init, .fini = scratch_fini);

/* Import the Philly excerpt, convert its machines, and run FIFO to the end. */
Test(import_cli, philly_to_fifo_run)
{
    cr_assert_eq(sh("%s import philly " IMP_DIR "philly_small.csv --max-gpus 8 -o $TMPD/p.csv "
                    "2>$TMPD/p.err",
                    bin()),
                 0);
    char *e = slurp("$TMPD/p.err");
    cr_assert_not_null(e);
    has(e, "cpnsim import philly: " IMP_DIR "philly_small.csv: 9 rows read, 7 jobs written, 2 skipped");
    free(e);
    cr_assert_eq(sh("%s import philly-machines " IMP_DIR "philly_machines_small.csv --origins-from "
                    "$TMPD/p.csv -o $TMPD/c.json 2>/dev/null",
                    bin()),
                 0);
    cr_assert_eq(sh("%s run --quiet --cluster $TMPD/c.json --jobs $TMPD/p.csv --out $TMPD/run",
                    bin()),
                 0);
    char *s = slurp("$TMPD/run/summary.json");
    cr_assert_not_null(s);
    has(s, "\"completed\":\t7");
    has(s, "\"deadlock\":\tfalse");
    free(s);
    /* Without folding, the 16-GPU job can never start: FIFO stops behind it. */
    cr_assert_eq(sh("%s import philly " IMP_DIR "philly_small.csv -o $TMPD/w.csv 2>/dev/null", bin()),
                 0);
    cr_assert_eq(sh("%s run --quiet --cluster $TMPD/c.json --jobs $TMPD/w.csv --out $TMPD/runw",
                    bin()),
                 0);
    s = slurp("$TMPD/runw/summary.json");
    has(s, "\"deadlock\":\ttrue");
    free(s);
    /* The JSON form of the same import reads back to the same jobs. */
    cr_assert_eq(sh("%s import philly " IMP_DIR "philly_small.csv --max-gpus 8 -o $TMPD/p.json "
                    "2>/dev/null",
                    bin()),
                 0);
    cr_assert_eq(sh("%s run --quiet --cluster $TMPD/c.json --jobs $TMPD/p.json --out $TMPD/runj",
                    bin()),
                 0);
    cr_assert_eq(sh("cmp -s $TMPD/run/jobs.csv $TMPD/runj/jobs.csv"), 0);
}

Test(import_cli, errors_exit_2_and_write_nothing)
{
    cr_assert_eq(sh("%s import philly " IMP_DIR "philly_bad_timestamp.csv -o $TMPD/x.csv "
                    "2>$TMPD/e",
                    bin()),
                 2);
    char *e = slurp("$TMPD/e");
    has(e, IMP_DIR "philly_bad_timestamp.csv:3: timestamp:");
    free(e);
    cr_assert_neq(sh("test -e $TMPD/x.csv"), 0, "no output for bad input");
    cr_assert_eq(sh("ls -A $TMPD | grep -q tmp"), 1, "no temporary file left");
    cr_assert_eq(sh("%s import nosuch " IMP_DIR "philly_small.csv 2>/dev/null", bin()), 2);
    cr_assert_eq(sh("%s import philly 2>/dev/null", bin()), 2);
    cr_assert_eq(sh("%s import philly " IMP_DIR "philly_small.csv --max-gpus 0 2>/dev/null", bin()),
                 2);
    cr_assert_eq(sh("%s import philly " IMP_DIR "philly_small.csv --site x 2>/dev/null", bin()), 2);
    cr_assert_eq(sh("%s import philly-machines " IMP_DIR "philly_machines_small.csv --origin x "
                    "2>/dev/null",
                    bin()),
                 2);
    cr_assert_eq(sh("%s import --help | grep -q philly-machines", bin()), 0);
    /* --pod-gpus: a whole number >= 1, for job formats, not with --max-gpus. */
    cr_assert_eq(sh("%s import philly " IMP_DIR "philly_small.csv --pod-gpus 0 2>/dev/null", bin()),
                 2);
    cr_assert_eq(sh("%s import philly " IMP_DIR "philly_small.csv --pod-gpus 8 --max-gpus 8 "
                    "-o $TMPD/both.csv 2>$TMPD/e",
                    bin()),
                 2);
    e = slurp("$TMPD/e");
    has(e, "--pod-gpus and --max-gpus: give one");
    free(e);
    cr_assert_neq(sh("test -e $TMPD/both.csv"), 0);
    cr_assert_eq(sh("%s import philly-machines " IMP_DIR "philly_machines_small.csv --pod-gpus 8 "
                    "2>/dev/null",
                    bin()),
                 2);
    cr_assert_eq(sh("%s import --help | grep -q -- --pod-gpus", bin()), 0);
}

/* `cpnsim import philly --pod-gpus 8` writes the pods column, after gpus, 1 for a job of
 * one pod; JSON gives pods to the jobs of several only. */
Test(import_cli, pod_gpus_writes_pods)
{
    cr_assert_eq(sh("%s import philly " IMP_DIR "philly_wide.csv --pod-gpus 8 -o $TMPD/w.csv "
                    "2>/dev/null",
                    bin()),
                 0);
    char *csv = slurp("$TMPD/w.csv");
    cr_assert_str_eq(csv, "id,submit_s,model,batch,epochs,data_gib,gpus,pods,cpus,mem_gib,"
                          "image_gib,origin,duration_s\n"
                          "philly-2,0,-,1,1,0,8,4,0,0,0,b436b2,100\n"
                          "philly-3,10,-,1,1,0,6,2,0,0,0,b436b2,50\n"
                          "philly-4,20,-,1,1,0,7,3,0,0,0,ee9e8c,10\n"
                          "philly-5,30,-,1,1,0,8,1,0,0,0,ee9e8c,10\n"
                          "philly-6,40,-,1,1,0,1,1,0,0,0,ee9e8c,10\n");
    free(csv);
    cr_assert_eq(sh("%s import philly " IMP_DIR "philly_wide.csv --pod-gpus 8 -o $TMPD/w.json "
                    "2>/dev/null",
                    bin()),
                 0);
    cr_assert_eq(sh("test $(grep -c '\"pods\"' $TMPD/w.json) -eq 3"), 0);
    cr_assert_eq(sh("grep -q '\"gpus\": 8, \"pods\": 4, \"cpus\"' $TMPD/w.json"), 0);
    /* Without --pod-gpus the same trace has no pods column. */
    cr_assert_eq(sh("%s import philly " IMP_DIR "philly_wide.csv 2>/dev/null | head -1 | "
                    "grep -q pods",
                    bin()),
                 1);
}

/* The converted clusters and example files shipped in traces/ load. */
Test(import, shipped_clusters_load)
{
    struct catalog *cat = load_catalog();
    const char *files[] = {"traces/philly/philly-cluster.json", "traces/openb/openb-cluster.json",
                           "traces/pai/pai-cluster.json"};
    const size_t gpus[] = {2490, 6212, 6742};
    for (size_t i = 0; i < 3; i++) {
        struct cluster *cl = NULL;
        char err[CPN_ERR_LEN] = "";
        cr_assert_eq(cluster_load(files[i], NULL, 0, cat, &cl, err, sizeof err), CPN_OK, "%s",
                     err);
        cr_assert_eq(cl->n_gpus, gpus[i], "%s", files[i]);
        cluster_destroy(cl);
    }
    catalog_destroy(cat);
}

/* A Gavel job replays as Gavel ran it: S steps on G GPUs take S / thr(G) seconds, thr(G)
 * being the table's aggregate steps per second for its type and GPU count. A 4-GPU
 * Transformer (batch 16) of 144,611 steps on a node of 4 V100s: the catalogue's measured
 * point for (transformer, 16, v100, 4) has step_s = 4 / thr(4), so the job must run
 * 144,611 / thr(4) = 144,611 x step_s / 4 seconds (to within one step: cpnsim runs whole
 * steps of all 4 GPUs, ceil(144,611 / 4) of them). It ran 4 times that before. */
Test(import, gavel_multi_gpu_job_runs_its_steps_over_the_aggregate_throughput)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    struct import_stats st;
    char *rep;
    import_ok("gavel", IMP_DIR "gavel_transformer_4gpu.trace", NULL, cat, &js, &st, &rep);
    cr_assert_eq(js.n, 1);
    size_t np = catalog_points(cat, NULL, 0);
    struct catalog_point *pts = cpn_calloc(np, sizeof *pts);
    catalog_points(cat, pts, np);
    double step4 = 0;
    for (size_t i = 0; i < np; i++)
        if (pts[i].model == js.v[0].model && pts[i].batch == 16 && pts[i].gpus == 4 &&
            pts[i].type == catalog_type_match("v100"))
            step4 = pts[i].step_s;
    cr_assert_gt(step4, 0, "Gavel measured the Transformer on 4 V100s");
    const char *cluster =
        "{\"completion\": \"event\", \"scrape_interval_s\": 0,\n"
        " \"gpu_types\": {\"V100\": {\"mem_gib\": 32, \"profile\": \"v100\"}},\n"
        " \"sites\": [{\"name\": \"gavel\", \"nodes\": [{\"count\": 1, \"cpus\": 64,\n"
        "   \"mem_gib\": 512, \"gpu_type\": \"V100\", \"gpus\": 4}]}]}\n";
    struct cluster *cl;
    char err[CPN_ERR_LEN];
    cr_assert_eq(cluster_load_buf("c.json", cluster, strlen(cluster), NULL, 0, cat, &cl, err,
                                  sizeof err),
                 0, "%s", err);
    struct sim *s;
    cr_assert_eq(sim_create(&s, cl, cat, &js, policy_find("fifo"), NULL, NULL, err, sizeof err),
                 0, "%s", err);
    cr_assert_eq(sim_run(s, err, sizeof err), 0, "%s", err);
    double run = s->rt[0].end_s - s->job_started_s[0], gavel = 144611 * step4 / 4;
    cr_assert_eq(s->rt[0].state, JS_DONE);
    cr_assert(run >= gavel - 1e-6 && run <= gavel + step4, "ran %.1f s, Gavel %.1f s", run, gavel);
    sim_destroy(s);
    cluster_destroy(cl);
    free(pts);
    free(rep);
    jobset_free(&js);
    catalog_destroy(cat);
}

/* A Gavel job's peak memory fits the GPUs Gavel ran it on. ResNet-50 at batch 128 peaks
 * at 16.2 GiB in the catalogue (the H100 table), but Gavel measured it on K80s (12 GiB a
 * GPU), P100s and V100s (16 GiB): it gets gpu_mem_gib 12, the smallest. The Transformer
 * at batch 16 (far below 12 GiB in the catalogue) keeps the catalogue's: no value.
 * --gpu-mem-gib (import_opts.gpu_mem_gib) sets every job's. */
Test(import, gavel_memory_fits_where_gavel_ran_it)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    struct import_stats st;
    char *rep;
    import_ok("gavel", IMP_DIR "gavel_small.trace", NULL, cat, &js, &st, &rep);
    struct profile p;
    int r50 = catalog_model_find(cat, "resnet50");
    cr_assert_eq(catalog_lookup(cat, r50, 128, catalog_type_match("h100"), 1.0, 8, &p), 0);
    cr_assert_gt(p.mem_gib, 16, "the catalogue's peak does not fit a 16 GiB V100");
    for (size_t i = 0; i < js.n; i++) {
        const struct job *j = &js.v[i];
        if (j->model == r50)
            cr_assert_eq(j->gpu_mem_gib, 12);
        else if (strcmp(catalog_model_name(cat, j->model), "transformer") == 0)
            cr_assert_lt(j->gpu_mem_gib, 0);
    }
    free(rep);
    jobset_free(&js);
    struct import_opts o = {.gpu_mem_gib = 9.5};
    import_ok("gavel", IMP_DIR "gavel_small.trace", &o, cat, &js, &st, &rep);
    for (size_t i = 0; i < js.n; i++)
        cr_assert_eq(js.v[i].gpu_mem_gib, 9.5);
    free(rep);
    jobset_free(&js);
    catalog_destroy(cat);
}

/* --origins-from a Kubernetes file whose Jobs name no origin (the original
 * controller's) adds no data site for them: they come from the run's --origin or the
 * controller site, not from a site named "". */
Test(import_cli, origins_from_yaml_without_origins_adds_no_site)
{
    cr_assert_eq(sh("%s import philly-machines " IMP_DIR "philly_machines_small.csv --origins-from "
                    "tests/data/k8s/controller.yaml -o $TMPD/c.json 2>/dev/null",
                    bin()),
                 0);
    char *s = slurp("$TMPD/c.json");
    cr_assert_not_null(s);
    cr_assert_null(strstr(s, "\"name\":\t\"\""), "a site named \"\":\n%s", s);
    cr_assert_null(strstr(s, "\"name\": \"\""), "a site named \"\":\n%s", s);
    free(s);
}

/* `cpnsim run --jobs FORMAT:TRACE` converts the trace in memory: its jobs.csv,
 * timeline.csv and summary.json are those of `cpnsim import FORMAT TRACE -o jobs.csv`
 * followed by `cpnsim run --jobs jobs.csv`, less the wall time and the jobs file's name
 * and digest (the trace's, where the two-step run names the CSV). Each format, on a
 * cluster of its own, with the learned predictor (whose answers jobs.csv records). */
Test(import_cli, run_reads_a_trace_as_its_import_would_write_it)
{
    static const struct {
        const char *format, *file, *cluster;
    } c[] = {
        {"gavel", IMP_DIR "gavel_small.trace", "bench/gavel-cluster.json"},
        {"gavel", IMP_DIR "gavel_transformer_4gpu.trace", "bench/gavel-cluster.json"},
        {"philly", IMP_DIR "philly_small.csv", "traces/philly/philly-cluster.json"},
        {"openb", IMP_DIR "openb_pods_small.csv", "traces/openb/openb-cluster.json"},
    };
    static const char keep[] = "grep -v -e '\"wall_s\"' -e '\"events_per_s\"' -e '\"jobs_file\"' "
                               "-e '\"jobs_sha256\"'";
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        cr_assert_eq(sh("rm -rf $TMPD/a $TMPD/b && %s import %s %s -o $TMPD/j.csv 2>/dev/null && "
                        "%s run --quiet --cluster %s --jobs $TMPD/j.csv --out $TMPD/a && "
                        "%s run --quiet --cluster %s --jobs %s:%s --out $TMPD/b",
                        bin(), c[i].format, c[i].file, bin(), c[i].cluster, bin(), c[i].cluster,
                        c[i].format, c[i].file),
                     0, "%s", c[i].file);
        cr_assert_eq(sh("cmp $TMPD/a/jobs.csv $TMPD/b/jobs.csv && "
                        "cmp $TMPD/a/timeline.csv $TMPD/b/timeline.csv && "
                        "%s $TMPD/a/summary.json > $TMPD/a.s && %s $TMPD/b/summary.json > $TMPD/b.s && "
                        "cmp $TMPD/a.s $TMPD/b.s",
                        keep, keep),
                     0, "%s: the runs differ", c[i].file);
        /* The summary names the trace it read, and the trace's digest. */
        cr_assert_eq(sh("grep -q '\"jobs_file\":.*\"%s\"' $TMPD/b/summary.json && "
                        "grep -q \"\\\"jobs_sha256\\\":.*\\\"$(sha256sum %s | cut -c1-64)\\\"\" "
                        "$TMPD/b/summary.json",
                        c[i].file, c[i].file),
                     0, "%s", c[i].file);
    }
}

/* A bad trace given to run is refused as `cpnsim import` refuses it: the same message
 * (file, line, field), exit status 2, and no run directory. The report of a good one
 * goes to stderr, unless --quiet. A prefix that is no job format names a file. */
Test(import_cli, run_refuses_a_bad_trace_with_the_importers_message)
{
    static const char *const bad[][2] = {
        {"gavel", IMP_DIR "gavel_bad_fields.trace"},
        {"gavel", IMP_DIR "gavel_unknown_type.trace"},
        {"philly", IMP_DIR "philly_bad_timestamp.csv"},
        {"openb", IMP_DIR "openb_bad_fields.csv"},
        {"gavel", IMP_DIR "no_such.trace"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cr_assert_eq(sh("%s import %s %s -o $TMPD/x.csv 2>$TMPD/ie", bin(), bad[i][0], bad[i][1]),
                     2, "%s", bad[i][1]);
        cr_assert_eq(sh("%s run --quiet --jobs %s:%s --out $TMPD/r 2>$TMPD/re", bin(), bad[i][0],
                        bad[i][1]),
                     2, "%s", bad[i][1]);
        cr_assert_eq(sh("grep -q '%s:' $TMPD/re && cmp $TMPD/ie $TMPD/re", bad[i][1]), 0,
                     "%s: the messages differ", bad[i][1]);
        cr_assert_neq(sh("test -e $TMPD/r"), 0, "%s: a run directory", bad[i][1]);
    }
    cr_assert_eq(sh("%s run --jobs gavel:" IMP_DIR "gavel_small.trace --cluster "
                    "bench/gavel-cluster.json --out $TMPD/r 2>$TMPD/e >/dev/null && grep -q "
                    "'^cpnsim import gavel: " IMP_DIR "gavel_small.trace: 4 rows read, 4 jobs "
                    "converted, 0 skipped$' $TMPD/e",
                    bin()),
                 0);
    cr_assert_eq(sh("%s run --quiet --jobs gavel:" IMP_DIR "gavel_small.trace --cluster "
                    "bench/gavel-cluster.json --out $TMPD/r 2>$TMPD/e && test ! -s $TMPD/e",
                    bin()),
                 0);
    cr_assert_eq(sh("%s run --quiet --jobs gavel: --out $TMPD/r2 2>$TMPD/e; s=$?; "
                    "grep -q 'an empty path' $TMPD/e && exit $s",
                    bin()),
                 2);
    cr_assert_eq(sh("b=$(realpath %s) && cp " IMP_DIR "philly_small.csv $TMPD/gavel:x.csv && "
                    "cd $TMPD && $b run --quiet --jobs ./gavel:x.csv --out r3 2>e; s=$?; "
                    "grep -q '^cpnsim: ./gavel:x.csv:1: ' e && exit $s",
                    bin()),
                 2);
}
