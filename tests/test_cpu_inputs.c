/* Tests of the inputs of CPU as a load (issue 14): the optional job field
 * cpu_cores_used in the job CSV, JSON and Kubernetes YAML readers and the writers, and
 * the cluster JSON key background_cpu on sites and node entries. Every input is
 * inline and small enough to check by hand. */
#include "helpers.h"
#include "../sim/engine/catalog.h"
#include "../sim/engine/cluster.h"
#include "../sim/io/cluster_json.h"
#include "../sim/io/k8s.h"
#include "../sim/io/trace.h"
#include "../sim/base/util.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct catalog *load_catalog(void)
{
    struct catalog *cat = NULL;
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(catalog_create(&cat, err, sizeof err), CPN_OK, "%s", err);
    return cat;
}

enum fmt { F_CSV, F_JSON, F_YAML };

/* Reads buf as format fmt under the name "buf.csv", "buf.json" or "buf.yaml". */
static int read_fmt(enum fmt fmt, const char *buf, const struct catalog *cat, struct jobset *js,
                    char err[CPN_ERR_LEN])
{
    size_t len = strlen(buf);
    switch (fmt) {
    case F_CSV: return trace_read_csv_buf("buf.csv", buf, len, cat, js, err, CPN_ERR_LEN);
    case F_JSON: return trace_read_json_buf("buf.json", buf, len, cat, js, err, CPN_ERR_LEN);
    case F_YAML: return k8s_read_jobs_buf("buf.yaml", buf, len, cat, js, NULL, err, CPN_ERR_LEN);
    }
    return CPN_EINPUT;
}

/* Reads buf, which must be good, into js. */
static void read_ok(enum fmt fmt, const char *buf, const struct catalog *cat, struct jobset *js)
{
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(read_fmt(fmt, buf, cat, js, err), CPN_OK, "%s\nfor:\n%s", err, buf);
}

/* Reads buf expecting CPN_EINPUT, a message that begins with want (the input's name,
 * line and field) and contains what, and no jobs. */
static void expect_bad(enum fmt fmt, const char *buf, const char *want, const char *what)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(read_fmt(fmt, buf, cat, &js, err), CPN_EINPUT, "accepted:\n%s", buf);
    cr_assert(strncmp(err, want, strlen(want)) == 0, "message \"%s\" does not begin \"%s\"", err,
              want);
    cr_assert(strstr(err, what), "message \"%s\" lacks \"%s\"", err, what);
    cr_assert_eq(js.n, 0);
    catalog_destroy(cat);
}

/* ---- cpu_cores_used ---- */

#define CSV_HEAD "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin"

Test(cpu_cores_used, csv_with_and_without_the_column)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    read_ok(F_CSV,
            CSV_HEAD ",cpu_cores_used\n"
                     "a,0,resnet50,64,1,1,1,4,24,5,bj,6.5\n"
                     "b,0,resnet50,64,1,1,1,4,24,5,bj,\n"
                     "c,0,resnet50,64,1,1,1,4,24,5,bj,1e9\n",
            cat, &js);
    cr_assert_eq(js.n, 3);
    cr_assert_eq(js.v[0].cpu_cores_used, 6.5);
    cr_assert_eq(js.v[1].cpu_cores_used, 0, "an empty cell is absent");
    cr_assert_eq(js.v[2].cpu_cores_used, 1e9, "TRACE_MAX_CPUS is allowed");
    read_ok(F_CSV, CSV_HEAD "\na,0,resnet50,64,1,1,1,4,24,5,bj\n", cat, &js);
    cr_assert_eq(js.n, 1);
    cr_assert_eq(js.v[0].cpu_cores_used, 0, "no column: absent");
    jobset_free(&js);
    catalog_destroy(cat);
}

Test(cpu_cores_used, csv_bad_values)
{
    static const struct {
        const char *cell, *what;
    } bad[] = {
        {"0", "must be > 0 (got '0')"},
        {"-2", "must be > 0 (got '-2')"},
        {"abc", "'abc' is not a finite number"},
        {"nan", "'nan' is not a finite number"},
        {"inf", "'inf' is not a finite number"},
        {"2e9", "must be at most 1e+09 (got '2e9')"},
        {" 3", "is not a finite number"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char csv[512];
        snprintf(csv, sizeof csv,
                 CSV_HEAD ",cpu_cores_used\na,0,resnet50,64,1,1,1,4,24,5,bj,2\n"
                          "b,0,resnet50,64,1,1,1,4,24,5,bj,%s\n",
                 bad[i].cell);
        expect_bad(F_CSV, csv, "buf.csv:3: cpu_cores_used: ", bad[i].what);
    }
}

#define J_JOB(id) "{\"id\": \"" id "\", \"submit_s\": 0, \"model\": \"resnet50\", \"batch\": 64, " \
    "\"epochs\": 1, \"data_gib\": 1, \"gpus\": 1, \"cpus\": 4, \"mem_gib\": 24, \"image_gib\": 5, " \
    "\"origin\": \"bj\""

Test(cpu_cores_used, json_key)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    read_ok(F_JSON,
            "[\n" J_JOB("a") ", \"cpu_cores_used\": 3.25},\n" J_JOB("b") ", \"cpu_cores_used\": null},\n"
            J_JOB("c") "}\n]\n",
            cat, &js);
    cr_assert_eq(js.n, 3);
    cr_assert_eq(js.v[0].cpu_cores_used, 3.25);
    cr_assert_eq(js.v[1].cpu_cores_used, 0, "null is absent");
    cr_assert_eq(js.v[2].cpu_cores_used, 0, "no key: absent");
    jobset_free(&js);
    catalog_destroy(cat);
    expect_bad(F_JSON, "[\n" J_JOB("a") ",\n \"cpu_cores_used\": 0}\n]\n",
               "buf.json:3: cpu_cores_used: ", "must be > 0 (got '0')");
    expect_bad(F_JSON, "[\n" J_JOB("a") ",\n \"cpu_cores_used\": -1.5}\n]\n",
               "buf.json:3: cpu_cores_used: ", "must be > 0 (got '-1.5')");
    expect_bad(F_JSON, "[\n" J_JOB("a") ",\n \"cpu_cores_used\": \"4\"}\n]\n",
               "buf.json:3: cpu_cores_used: ", "must be a number (got a string)");
    expect_bad(F_JSON, "[\n" J_JOB("a") ",\n \"cpu_cores_used\": 1e10}\n]\n",
               "buf.json:3: cpu_cores_used: ", "must be at most 1e+09");
}

/* A Job with the given annotation lines (each "    key: value\n"). */
static void yaml_job(char *out, size_t n, const char *extra)
{
    snprintf(out, n,
             "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: a\n  annotations:\n"
             "    model_name: resnet50\n    data_size: \"1\"\n    epoch: \"1\"\n"
             "    origin: bj\n%s"
             "spec:\n  template:\n    spec:\n      containers:\n        - image: x\n",
             extra);
}

Test(cpu_cores_used, yaml_annotation)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    char y[2048];
    yaml_job(y, sizeof y, "    cpu_cores_used: \"12.5\"\n");
    read_ok(F_YAML, y, cat, &js);
    cr_assert_eq(js.n, 1);
    cr_assert_eq(js.v[0].cpu_cores_used, 12.5);
    yaml_job(y, sizeof y, "");
    read_ok(F_YAML, y, cat, &js);
    cr_assert_eq(js.v[0].cpu_cores_used, 0, "no annotation: absent");
    yaml_job(y, sizeof y, "    cpu_cores_used: \"\"\n");
    read_ok(F_YAML, y, cat, &js);
    cr_assert_eq(js.v[0].cpu_cores_used, 0, "an empty annotation is absent");
    jobset_free(&js);
    catalog_destroy(cat);
    static const struct {
        const char *value, *what;
    } bad[] = {
        {"\"0\"", "must be > 0 (got '0')"},
        {"\"NaN\"", "'NaN' is not a finite number"},
        {"\"-1\"", "must be > 0 (got '-1')"},
        {"\"four\"", "'four' is not a finite number"},
        /* Kubernetes annotations are strings; an unquoted number is read with a note
         * (tests/test_k8s.c), any other type is refused. */
        {"yes", "must be a string"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char line[64];
        snprintf(line, sizeof line, "    cpu_cores_used: %s\n", bad[i].value);
        yaml_job(y, sizeof y, line);
        expect_bad(F_YAML, y, "buf.yaml:10: metadata.annotations.cpu_cores_used: ", bad[i].what);
    }
}

Test(cpu_cores_used, writers_keep_it)
{
    struct catalog *cat = load_catalog();
    struct jobset a, b, c;
    jobset_init(&a);
    jobset_init(&b);
    jobset_init(&c);
    const char *csv_in = CSV_HEAD ",cpu_cores_used\n"
                                  "a,0,resnet50,64,1,1,1,4,24,5,bj,0.1\n"
                                  "b,0,resnet50,64,1,1,1,4,24,5,bj,\n";
    read_ok(F_CSV, csv_in, cat, &a);
    char *csv = jobs_write_mem(&a, cat, false);
    cr_assert_str_eq(csv, csv_in, "the CSV writer gives back the same bytes");
    read_ok(F_CSV, csv, cat, &b);
    cr_assert_eq(b.v[0].cpu_cores_used, 0.1);
    cr_assert_eq(b.v[1].cpu_cores_used, 0);
    char *json = jobs_write_mem(&a, cat, true);
    cr_assert(strstr(json, "\"origin\": \"bj\", \"cpu_cores_used\": 0.1}"), "%s", json);
    cr_assert(strstr(json, "\"origin\": \"bj\"},") || strstr(json, "\"origin\": \"bj\"}\n"),
              "%s", json);
    read_ok(F_JSON, json, cat, &c);
    cr_assert_eq(c.v[0].cpu_cores_used, 0.1);
    cr_assert_eq(c.v[1].cpu_cores_used, 0);
    char *csv2 = jobs_write_mem(&c, cat, false);
    cr_assert_str_eq(csv2, csv_in, "CSV -> JSON -> CSV gives back the same bytes");
    free(csv);
    free(json);
    free(csv2);
    jobset_free(&a);
    jobset_free(&b);
    jobset_free(&c);
    catalog_destroy(cat);
}

Test(cpu_cores_used, absent_adds_no_column)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    const char *in = CSV_HEAD ",cpu_cores_used\na,0,resnet50,64,1,1,1,4,24,5,bj,\n";
    read_ok(F_CSV, in, cat, &js);
    char *csv = jobs_write_mem(&js, cat, false);
    cr_assert_str_eq(csv, CSV_HEAD "\na,0,resnet50,64,1,1,1,4,24,5,bj\n");
    char *json = jobs_write_mem(&js, cat, true);
    cr_assert_null(strstr(json, "cpu_cores_used"), "%s", json);
    free(csv);
    free(json);
    jobset_free(&js);
    catalog_destroy(cat);
}

/* ---- background_cpu ---- */

static int load_cluster(const char *json, struct cluster **c, char err[CPN_ERR_LEN])
{
    return cluster_load_buf("c.json", json, strlen(json), NULL, 0, NULL, c, err, CPN_ERR_LEN);
}

/* Site s0 (background 0.3) has an entry of 2 nodes that keep the site's load and one
 * node with its own object; site s1 gives none. */
static const char bg_cluster[] =
    "{\"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1}},\n"
    " \"sites\": [\n"
    "  {\"name\": \"s0\", \"background_cpu\": 0.3, \"nodes\": [\n"
    "    {\"count\": 2, \"cpus\": 64, \"mem_gib\": 512, \"gpu_type\": \"G\", \"gpus\": 8},\n"
    "    {\"cpus\": 32, \"mem_gib\": 256, \"gpus\": 0, \"background_cpu\":\n"
    "      {\"mean\": 0.4, \"amplitude\": 0.2, \"noise\": 0.05, \"x_note\": \"ignored\"}}]},\n"
    "  {\"name\": \"s1\", \"background_cpu\": {\"mean\": 0.1, \"period_s\": 3600,\n"
    "   \"phase_s\": -900, \"step_s\": 60}, \"nodes\": [\n"
    "    {\"cpus\": 16, \"mem_gib\": 64, \"gpus\": 0},\n"
    "    {\"cpus\": 16, \"mem_gib\": 64, \"gpus\": 0, \"background_cpu\": 0}]},\n"
    "  {\"name\": \"s2\", \"nodes\": [{\"cpus\": 8, \"mem_gib\": 32, \"gpus\": 0}]}\n"
    " ]}\n";

static void assert_bg(const struct cpu_background *b, double mean, double amplitude,
                      double period_s, double phase_s, double noise, double step_s)
{
    cr_assert_eq(b->mean, mean);
    cr_assert_eq(b->amplitude, amplitude);
    cr_assert_eq(b->period_s, period_s);
    cr_assert_eq(b->phase_s, phase_s);
    cr_assert_eq(b->noise, noise);
    cr_assert_eq(b->step_s, step_s);
}

Test(background_cpu, sites_and_node_entries)
{
    struct cluster *c = NULL;
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(load_cluster(bg_cluster, &c, err), CPN_OK, "%s", err);
    cr_assert_eq(c->n_nodes, 6);
    /* The constant form: mean only, the rest 0. Both expanded nodes get it. */
    assert_bg(&c->nodes[0].bg, 0.3, 0, 0, 0, 0, 0);
    assert_bg(&c->nodes[1].bg, 0.3, 0, 0, 0, 0, 0);
    cr_assert(!cpu_background_varies(&c->nodes[1].bg));
    /* The entry's object replaces the site's constant; period_s and step_s default. */
    assert_bg(&c->nodes[2].bg, 0.4, 0.2, 86400, 0, 0.05, 300);
    cr_assert(cpu_background_varies(&c->nodes[2].bg));
    assert_bg(&c->nodes[3].bg, 0.1, 0, 3600, -900, 0, 60);
    /* An explicit 0 overrides the site's load: no other tenant. */
    assert_bg(&c->nodes[4].bg, 0, 0, 0, 0, 0, 0);
    assert_bg(&c->nodes[5].bg, 0, 0, 0, 0, 0, 0);
    cluster_destroy(c);
}

/* Loads bg_cluster with value in place of site s0's 0.3 (line 3), expecting CPN_EINPUT,
 * *out untouched, and a message that begins with want. */
static void expect_bad_bg(const char *value, const char *want)
{
    static const char from[] = "\"background_cpu\": 0.3";
    const char *at = strstr(bg_cluster, from);
    cr_assert_not_null(at);
    char json[2048];
    snprintf(json, sizeof json, "%.*s\"background_cpu\": %s%s", (int)(at - bg_cluster), bg_cluster,
             value, at + strlen(from));
    struct cluster dummy, *c = &dummy;
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(load_cluster(json, &c, err), CPN_EINPUT, "accepted:\n%s", json);
    cr_assert_eq(c, &dummy, "*out changed on failure");
    cr_assert(strncmp(err, want, strlen(want)) == 0, "message \"%s\" does not begin \"%s\"", err,
              want);
}

Test(background_cpu, bad_values_name_their_path)
{
    expect_bad_bg("0.96", "c.json:3: sites[0].background_cpu: must be a number from 0 to 0.95 "
                          "(got 0.96)");
    expect_bad_bg("-0.1", "c.json:3: sites[0].background_cpu: must be a number from 0 to 0.95");
    expect_bad_bg("\"0.3\"", "c.json:3: sites[0].background_cpu: must be a number from 0 to "
                             "0.95 or an object with a mean (got a string)");
    expect_bad_bg("[0.3]", "c.json:3: sites[0].background_cpu: must be a number from 0 to 0.95 "
                           "or an object with a mean (got an array)");
    expect_bad_bg("{\"mean\": 0.96}",
                  "c.json:3: sites[0].background_cpu.mean: must be a number from 0 to 0.95 "
                  "(got 0.96)");
    expect_bad_bg("{\"amplitude\": 0.1}",
                  "c.json:3: sites[0].background_cpu.mean: is required (a number from 0 to "
                  "0.95)");
    expect_bad_bg("{\"mean\": 0.2, \"period_s\": 0}",
                  "c.json:3: sites[0].background_cpu.period_s: must be a number > 0 (got 0)");
    expect_bad_bg("{\"mean\": 0.2, \"step_s\": -5}",
                  "c.json:3: sites[0].background_cpu.step_s: must be a number > 0 (got -5)");
    expect_bad_bg("{\"mean\": 0.2, \"amplitude\": -0.1}",
                  "c.json:3: sites[0].background_cpu.amplitude: must be a number >= 0");
    expect_bad_bg("{\"mean\": 0.2, \"noise\": \"high\"}",
                  "c.json:3: sites[0].background_cpu.noise: must be a number >= 0 (got a "
                  "string)");
    expect_bad_bg("{\"mean\": 0.2, \"phase_s\": true}",
                  "c.json:3: sites[0].background_cpu.phase_s: must be a number (got a boolean)");
    expect_bad_bg("{\"mean\": 0.2, \"jitter\": 1}",
                  "c.json:3: sites[0].background_cpu.jitter: unknown key (expected mean, "
                  "amplitude, period_s, phase_s, noise, step_s, or x_* for comments)");
    expect_bad_bg("{\"mean\": 0.2, \"mean\": 0.3}",
                  "c.json:3: sites[0].background_cpu.mean: duplicate key");
    /* On a node entry, the path names the entry. */
    expect_bad_bg("0.3, \"nodes\": [{\"cpus\": 4, \"mem_gib\": 8, \"gpus\": 0,\n"
                  " \"background_cpu\": {\"mean\": 0.5, \"period_s\": 0}}]}, {\"name\": \"x\"",
                  "c.json:4: sites[0].nodes[0].background_cpu.period_s: must be a number > 0 "
                  "(got 0)");
}
