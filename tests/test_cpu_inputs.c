/* Tests of the inputs of CPU as a load (issue 14): the optional job field
 * cpu_cores_used in the job CSV, JSON and Kubernetes YAML readers and the writers.
 * Every input is inline and small enough to check by hand. */
#include "helpers.h"
#include "../sim/engine/catalog.h"
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
    yaml_job(y, sizeof y, "    cpu_cores_used: \"0\"\n");
    expect_bad(F_YAML, y, "buf.yaml:10: metadata.annotations.cpu_cores_used: ",
               "must be > 0 (got '0')");
    yaml_job(y, sizeof y, "    cpu_cores_used: \"NaN\"\n");
    expect_bad(F_YAML, y, "buf.yaml:10: metadata.annotations.cpu_cores_used: ",
               "'NaN' is not a finite number");
    yaml_job(y, sizeof y, "    cpu_cores_used: 4\n");
    expect_bad(F_YAML, y, "buf.yaml:10: metadata.annotations.cpu_cores_used: ",
               "must be a string");
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
