/* Tests of the job JSON reader and writer (sim/io/trace_json.c, sim/io/jobin.c) and of
 * trace_read_any: good input, each kind of bad input with the CSV reader's messages,
 * and CSV -> JSON -> CSV round trips. Inputs live in tests/data/json/. */
#include "helpers.h"
#include "../sim/engine/catalog.h"
#include "../sim/io/gen.h"
#include "../sim/io/jobin.h"
#include "../sim/io/trace.h"
#include "../sim/base/util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_DIR "tests/data/json/"

static struct catalog *load_catalog(void)
{
    struct catalog *cat = NULL;
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(catalog_create(&cat, err, sizeof err), CPN_OK, "%s", err);
    return cat;
}

static void assert_same_jobs(const struct jobset *a, const struct jobset *b)
{
    cr_assert_eq(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        const struct job *x = &a->v[i], *y = &b->v[i];
        cr_assert_str_eq(jobset_str(a, x->id), jobset_str(b, y->id));
        cr_assert_str_eq(jobset_str(a, x->origin), jobset_str(b, y->origin));
        cr_assert_eq(x->submit_s, y->submit_s);
        cr_assert_eq(x->data_gib, y->data_gib);
        cr_assert_eq(x->cpus, y->cpus);
        cr_assert_eq(x->mem_gib, y->mem_gib);
        cr_assert_eq(x->image_gib, y->image_gib);
        cr_assert_eq(x->duration_s, y->duration_s);
        cr_assert_eq(x->gpu_mem_gib, y->gpu_mem_gib);
        cr_assert_eq(x->samples, y->samples);
        cr_assert_eq(x->cpu_cores_used, y->cpu_cores_used);
        cr_assert_eq(x->model, y->model);
        cr_assert_eq(x->batch, y->batch);
        cr_assert_eq(x->epochs, y->epochs);
        cr_assert_eq(x->gpus, y->gpus);
        cr_assert_eq(jobset_pods(a, i), jobset_pods(b, i));
    }
    cr_assert_eq(jobset_has_pods(a), jobset_has_pods(b));
}

Test(trace_json, good_file)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(trace_read_json(JSON_DIR "good.json", cat, &js, err, sizeof err), CPN_OK, "%s",
                 err);
    cr_assert_eq(js.n, 4);
    cr_assert_str_eq(js.source, JSON_DIR "good.json");
    const struct job *j = js.v;
    cr_assert_str_eq(jobset_str(&js, j[0].id), "j1");
    cr_assert_eq(j[0].model, catalog_model_find(cat, "resnet50"));
    cr_assert_eq(j[0].data_gib, 12.5);
    cr_assert_eq(j[0].line, 2);
    cr_assert_lt(j[0].duration_s, 0);
    cr_assert_str_eq(jobset_str(&js, j[1].id), "j2,b");
    cr_assert_str_eq(jobset_str(&js, j[1].origin), "sh");
    cr_assert_eq(j[1].submit_s, 10.25);
    cr_assert_eq(j[1].gpu_mem_gib, 30.5);
    cr_assert_eq(j[1].samples, 120000);
    cr_assert_lt(j[1].duration_s, 0, "null is an absent optional value");
    cr_assert_eq(j[1].line, 4);
    cr_assert_eq(j[2].model, -1, "null model with a duration");
    cr_assert_eq(j[2].duration_s, 3600);
    cr_assert_eq(j[3].model, -1, "\"-\" model with a duration");
    cr_assert_eq(j[3].submit_s, 1000);
    cr_assert_eq(j[3].duration_s, 7200.5);
    char *buf = NULL;
    size_t len = 0;
    cr_assert_eq(cpn_read_file(JSON_DIR "good.json", &buf, &len, err, sizeof err), CPN_OK);
    char hex[65];
    cpn_sha256_hex(buf, len, hex);
    cr_assert_str_eq(js.sha256, hex);
    free(buf);
    jobset_free(&js);
    catalog_destroy(cat);
}

/* Reads tests/data/json/FILE; expects CPN_EINPUT, a message beginning with where and
 * containing what, and an untouched empty set. */
static void expect_bad(const char *file, const char *where, const char *what)
{
    struct catalog *cat = load_catalog();
    char path[256], prefix[512], err[CPN_ERR_LEN] = "";
    snprintf(path, sizeof path, JSON_DIR "%s", file);
    snprintf(prefix, sizeof prefix, JSON_DIR "%s", where);
    struct jobset js;
    jobset_init(&js);
    int rc = trace_read_any(path, cat, &js, NULL, err, sizeof err);
    cr_assert_eq(rc, CPN_EINPUT, "%s: rc %d (%s)", file, rc, err);
    cr_assert(strncmp(err, prefix, strlen(prefix)) == 0, "message \"%s\" does not begin \"%s\"",
              err, prefix);
    cr_assert(strstr(err, what), "message \"%s\" lacks \"%s\"", err, what);
    cr_assert_eq(js.n, 0);
    cr_assert_null(js.v);
    cr_assert_null(js.pool);
    cr_assert_null(js.source);
    catalog_destroy(cat);
}

Test(trace_json, bad_truncated)
{
    expect_bad("truncated.json", "truncated.json:4: ", "JSON syntax error");
}

Test(trace_json, bad_wrong_type)
{
    expect_bad("wrong_type.json", "wrong_type.json:3: gpus: ", "must be a number (got a string)");
    expect_bad("not_array.json", "not_array.json:1: top level: ",
               "expected an array of job objects (got an object)");
    expect_bad("fraction.json", "fraction.json:2: epochs: ", "'2.5' is not a whole number >= 1");
}

Test(trace_json, bad_negative)
{
    expect_bad("negative.json", "negative.json:5: data_gib: ", "must be >= 0 (got '-1')");
}

Test(trace_json, bad_duplicate_id)
{
    expect_bad("duplicate_id.json", "duplicate_id.json:6: id: ",
               "duplicate id 'j1' (first at line 2)");
}

Test(trace_json, bad_empty)
{
    expect_bad("empty.json", "empty.json:1: ", "empty file");
    expect_bad("empty_array.json", "empty_array.json: ", "no jobs");
}

Test(trace_json, bad_keys)
{
    expect_bad("unknown_key.json", "unknown_key.json:4: priority: ",
               "unknown key (prefix it with x_ to have it ignored)");
    expect_bad("duplicate_key.json", "duplicate_key.json:4: gpus: ",
               "duplicate key (also line 3)");
    expect_bad("missing_field.json", "missing_field.json:2: origin: ",
               "missing (a value is required)");
}

static void expect_bad_buf(const char *json, const char *where, const char *what)
{
    struct catalog *cat = load_catalog();
    char prefix[512], err[CPN_ERR_LEN] = "";
    snprintf(prefix, sizeof prefix, "buf.json%s", where);
    struct jobset js;
    jobset_init(&js);
    int rc = trace_read_json_buf("buf.json", json, strlen(json), cat, &js, err, sizeof err);
    cr_assert_eq(rc, CPN_EINPUT, "rc %d for %s", rc, json);
    cr_assert(strncmp(err, prefix, strlen(prefix)) == 0, "message \"%s\" does not begin \"%s\"",
              err, prefix);
    cr_assert(strstr(err, what), "message \"%s\" lacks \"%s\"", err, what);
    cr_assert_eq(js.n, 0);
    catalog_destroy(cat);
}

#define J_HEAD "[{\"id\": \"a\", \"submit_s\": 0, \"model\": \"resnet50\", \"batch\": 8, "
#define J_TAIL "\"data_gib\": 1, \"cpus\": 1, \"mem_gib\": 1, \"image_gib\": 1, \"origin\": \"bj\"}]"

/* The same bounds and messages as the CSV reader, field by field. */
Test(trace_json, bad_values_like_csv)
{
    expect_bad_buf(J_HEAD "\"epochs\": 1, \"gpus\": 0, " J_TAIL, ":1: gpus: ",
                   "must be >= 1 (got '0')");
    expect_bad_buf(J_HEAD "\"epochs\": 1, \"gpus\": 2147483648, " J_TAIL, ":1: gpus: ",
                   "must be below 2147483648");
    expect_bad_buf(J_HEAD "\"epochs\": 1, \"gpus\": -1, " J_TAIL, ":1: gpus: ",
                   "'-1' is not a whole number >= 1");
    expect_bad_buf(J_HEAD "\"epochs\": 1e999, \"gpus\": 1, " J_TAIL, ":1: epochs: ",
                   "is not a whole number");
    expect_bad_buf(J_HEAD "\"epochs\": 1, \"gpus\": 1, \"duration_s\": 0, " J_TAIL,
                   ":1: duration_s: ", "must be > 0 (got '0')");
    expect_bad_buf(J_HEAD "\"epochs\": 1, \"gpus\": 1, \"samples\": 1e16, " J_TAIL,
                   ":1: samples: ", "must be at most 9007199254740992");
    expect_bad_buf(J_HEAD "\"epochs\": 1, \"gpus\": \"1Gi\", " J_TAIL, ":1: gpus: ",
                   "must be a number (got a string)"); /* units are not JSON numbers */
    expect_bad_buf("[{\"id\": \" a\", \"submit_s\": 0, \"model\": \"resnet50\", \"batch\": 8, "
                   "\"epochs\": 1, \"gpus\": 1, " J_TAIL,
                   ":1: id: ", "blanks around ' a'");
    expect_bad_buf("[{\"id\": 7, \"submit_s\": 0}]", ":1: id: ", "must be a string (got a number)");
    expect_bad_buf("[{\"id\": \"a\", \"submit_s\": 0, \"model\": \"resnet9000\", \"batch\": 8, "
                   "\"epochs\": 1, \"gpus\": 1, " J_TAIL,
                   ":1: model: ", "unknown model 'resnet9000'");
    expect_bad_buf("[{\"id\": \"a\", \"submit_s\": 0, \"model\": null, \"batch\": 8, "
                   "\"epochs\": 1, \"gpus\": 1, " J_TAIL,
                   ":1: model: ", "a job without a model needs a duration_s");
    expect_bad_buf("[{\"id\": \"a\", \"submit_s\": null, \"model\": \"resnet50\", \"batch\": 8, "
                   "\"epochs\": 1, \"gpus\": 1, " J_TAIL,
                   ":1: submit_s: ", "empty (a value is required)");
    expect_bad_buf("[3]", ":1: [0]: ", "expected a job object (got a number)");
    expect_bad_buf("[{\"id\": \"a\", \"gpus\": true}]", ":1: gpus: ", "must be a number (got true)");
}

/* pods is a JSON number with gpus' rules; null is one pod. The writer gives pods only
 * to a job of several, after gpus. */
Test(trace_json, pods)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "";
    const char *in = J_HEAD "\"epochs\": 1, \"gpus\": 8, \"pods\": 4, " J_TAIL;
    const char *two = "[{\"id\": \"a\", \"submit_s\": 0, \"model\": \"resnet50\", \"batch\": 8, "
                      "\"epochs\": 1, \"gpus\": 8, \"pods\": 4, \"data_gib\": 1, \"cpus\": 1, "
                      "\"mem_gib\": 1, \"image_gib\": 1, \"origin\": \"bj\"},\n"
                      " {\"id\": \"b\", \"submit_s\": 0, \"model\": \"resnet50\", \"batch\": 8, "
                      "\"epochs\": 1, \"gpus\": 1, \"pods\": null, \"data_gib\": 1, \"cpus\": 1, "
                      "\"mem_gib\": 1, \"image_gib\": 1, \"origin\": \"bj\"}]";
    cr_assert_eq(trace_read_json_buf("p.json", in, strlen(in), cat, &js, err, sizeof err), CPN_OK,
                 "%s", err);
    cr_assert_eq(jobset_pods(&js, 0), 4);
    cr_assert_eq(trace_read_json_buf("p.json", two, strlen(two), cat, &js, err, sizeof err),
                 CPN_OK, "%s", err);
    cr_assert_eq(jobset_pods(&js, 0), 4);
    cr_assert_eq(jobset_pods(&js, 1), 1, "null is one pod");
    char *json = jobs_write_mem(&js, cat, true);
    cr_assert(strstr(json, "\"gpus\": 8, \"pods\": 4, \"cpus\""), "%s", json);
    const char *first = strstr(json, "\"pods\"");
    cr_assert_null(strstr(first + 1, "\"pods\""), "a job of one pod has no pods key: %s", json);
    free(json);
    jobset_free(&js);
    catalog_destroy(cat);
    expect_bad_buf(J_HEAD "\"epochs\": 1, \"gpus\": 1, \"pods\": 0, " J_TAIL, ":1: pods: ",
                   "must be >= 1 (got '0')");
    expect_bad_buf(J_HEAD "\"epochs\": 1, \"gpus\": 1, \"pods\": 1.5, " J_TAIL, ":1: pods: ",
                   "'1.5' is not a whole number >= 1");
    expect_bad_buf(J_HEAD "\"epochs\": 1, \"gpus\": 1, \"pods\": \"4\", " J_TAIL, ":1: pods: ",
                   "must be a number (got a string)");
    expect_bad_buf(J_HEAD "\"epochs\": 1, \"gpus\": 65536, \"pods\": 65536, " J_TAIL,
                   ":1: pods: ", "65536 pods of 65536 GPUs are 4294967296 GPUs");
}

/* CSV -> JSON -> CSV gives the same bytes and the same jobs. */
static void round_trip(const char *csv_path)
{
    struct catalog *cat = load_catalog();
    struct jobset a, b, c;
    jobset_init(&a);
    jobset_init(&b);
    jobset_init(&c);
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(trace_read_csv(csv_path, cat, &a, NULL, err, sizeof err), CPN_OK, "%s", err);
    char *csv1 = jobs_write_mem(&a, cat, false);
    char *json = jobs_write_mem(&a, cat, true);
    cr_assert_eq(trace_read_json_buf("rt.json", json, strlen(json), cat, &b, err, sizeof err),
                 CPN_OK, "%s\n%s", err, json);
    assert_same_jobs(&a, &b);
    char *csv2 = jobs_write_mem(&b, cat, false);
    cr_assert_str_eq(csv1, csv2);
    char *json2 = jobs_write_mem(&b, cat, true);
    cr_assert_str_eq(json, json2, "writing the JSON again gives the same bytes");
    cr_assert_eq(trace_read_csv_buf("rt.csv", csv2, strlen(csv2), cat, &c, err, sizeof err),
                 CPN_OK, "%s", err);
    assert_same_jobs(&a, &c);
    free(csv1);
    free(csv2);
    free(json);
    free(json2);
    jobset_free(&a);
    jobset_free(&b);
    jobset_free(&c);
    catalog_destroy(cat);
}

Test(trace_json, round_trip_csv_json_csv)
{
    round_trip("tests/data/jobs/good.csv");
    round_trip("traces/q100.csv");
    round_trip("tests/data/jobs/pods.csv");
}

/* Awkward values: quotes, backslashes, control characters and UTF-8 in text;
 * numbers that need 17 digits, tiny and huge ones, whole numbers at the limits. */
Test(trace_json, round_trip_awkward_values)
{
    const char *csv =
        "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,duration_s,"
        "gpu_mem_gib,samples\n"
        "\"q\"\"uote\\back\",0.1,resnet50,2147483647,1,1e-300,1,0.30000000000000004,1e9,"
        "2.2250738585072014e-308,\"site\twith tab\",,,9007199254740992\n"
        "\"été\x01\",123456789.123456789,-,1,2147483647,0,2147483647,4,5,6,\"new\nline\","
        "999999999999.99988,0,1\n";
    struct catalog *cat = load_catalog();
    struct jobset a, b;
    jobset_init(&a);
    jobset_init(&b);
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(trace_read_csv_buf("a.csv", csv, strlen(csv), cat, &a, err, sizeof err), CPN_OK,
                 "%s", err);
    char *json = jobs_write_mem(&a, cat, true);
    cr_assert_eq(trace_read_json_buf("a.json", json, strlen(json), cat, &b, err, sizeof err),
                 CPN_OK, "%s\n%s", err, json);
    assert_same_jobs(&a, &b);
    char *x = jobs_write_mem(&a, cat, false), *y = jobs_write_mem(&b, cat, false);
    cr_assert_str_eq(x, y);
    free(x);
    free(y);
    free(json);
    jobset_free(&a);
    jobset_free(&b);
    catalog_destroy(cat);
}

/* A generated queue with Poisson times (17-digit values) survives the trip. */
Test(trace_json, round_trip_generated)
{
    struct catalog *cat = load_catalog();
    const char *const origins[] = {"bj", "sh"};
    struct gen_spec sp = {.count = 2000, .seed = 5, .arrival = GEN_POISSON, .rate_per_s = 0.3,
                          .origins = origins, .n_origins = 2};
    struct jobset a, b;
    jobset_init(&a);
    jobset_init(&b);
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(gen_jobs(&sp, cat, &a, err, sizeof err), CPN_OK, "%s", err);
    char *json = jobs_write_mem(&a, cat, true);
    cr_assert_eq(trace_read_json_buf("g.json", json, strlen(json), cat, &b, err, sizeof err),
                 CPN_OK, "%s", err);
    assert_same_jobs(&a, &b);
    free(json);
    jobset_free(&a);
    jobset_free(&b);
    catalog_destroy(cat);
}

Test(trace_json, read_any_dispatches_on_extension)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(trace_read_any("tests/data/jobs/good.csv", cat, &js, NULL, err, sizeof err), CPN_OK,
                 "%s", err);
    cr_assert_eq(js.n, 4);
    cr_assert_eq(trace_read_any(JSON_DIR "good.json", cat, &js, NULL, err, sizeof err), CPN_OK, "%s",
                 err);
    cr_assert_eq(js.n, 4);
    cr_assert_eq(trace_read_any("traces/k8s/queue.yaml", cat, &js, NULL, err, sizeof err), CPN_OK,
                 "%s", err);
    cr_assert_eq(js.n, 4);
    /* Another name is read as CSV: a JSON file named .txt is a CSV error. */
    cr_assert_eq(trace_read_any("tests/data/json/good.json.missing", cat, &js, NULL, err, sizeof err),
                 CPN_EINPUT);
    cr_assert(strstr(err, "cannot open"), "%s", err);
    cr_assert_eq(js.n, 4, "a failed read leaves the set as it was");
    jobset_free(&js);
    catalog_destroy(cat);
}

Test(jobin, format_real_is_shortest_exact)
{
    char buf[JOBIN_REAL_BUF];
    const double v[] = {0, 1, 12.5, 0.1, 0.30000000000000004, 1e15, 123456789012345.0, 1e-300,
                        -2.5, 1.7976931348623157e308, 5e-324};
    const char *want[] = {"0",     "1",      "12.5",   "0.1",   "0.30000000000000004",
                          "1e+15", "123456789012345", "1e-300", "-2.5",
                          "1.7976931348623157e+308", "4.9406564584124654e-324"};
    for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
        jobin_format_real(v[i], buf);
        cr_assert_str_eq(buf, want[i]);
        double back;
        cr_assert_eq(cpn_parse_double(buf, &back) == CPN_OK || v[i] == 5e-324, true);
    }
}
