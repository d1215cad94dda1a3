/* Tests of k8s: Kubernetes quantities (checked by hand against Kubernetes'
 * resource.Quantity rules) and the Job YAML reader on good and bad manifests, Jobs of
 * several pods and Kubeflow PyTorchJobs among them. Inputs
 * live in tests/data/k8s/ and traces/k8s/; the tests run from the repository root. */
#include "../sim/engine/catalog.h"
#include "../sim/io/jobin.h"
#include "../sim/io/k8s.h"
#include "../sim/io/k8s_quantity.h"
#include "../sim/io/trace.h"
#include "../sim/base/util.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define K8S_DIR "tests/data/k8s/"
#define GIB 1073741824.0

static struct catalog *load_catalog(void)
{
    struct catalog *cat = NULL;
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(catalog_create(&cat, err, sizeof err), CPN_OK, "%s", err);
    return cat;
}

/* ---- quantities ---- */

/* milli of a quantity whose MilliValue() exceeds 2^63 - 1. */
#define TOO_LARGE UINT64_MAX

/* Parses s and checks Value() (scale 0) and MilliValue() (scale 3). */
static void expect_q(const char *s, bool negative, uint64_t value, uint64_t milli)
{
    struct k8s_quantity q;
    char why[CPN_ERR_LEN] = "";
    cr_assert_eq(k8s_quantity_parse(s, &q, why, sizeof why), CPN_OK, "'%s': %s", s, why);
    cr_assert_eq(q.negative, negative, "'%s' sign", s);
    uint64_t v = 0, m = 0;
    cr_assert_eq(k8s_quantity_scaled(&q, 0, &v), CPN_OK, "'%s' value", s);
    if (milli == TOO_LARGE) {
        cr_assert_eq(k8s_quantity_scaled(&q, 3, &m), CPN_EINPUT, "'%s' milli overflows", s);
        m = milli;
    } else {
        cr_assert_eq(k8s_quantity_scaled(&q, 3, &m), CPN_OK, "'%s' milli", s);
    }
    cr_assert_eq(v, value, "'%s': value %llu, expected %llu", s, (unsigned long long)v,
                 (unsigned long long)value);
    cr_assert_eq(m, milli, "'%s': milli %llu, expected %llu", s, (unsigned long long)m,
                 (unsigned long long)milli);
}

static void expect_q_bad(const char *s, const char *what)
{
    struct k8s_quantity q;
    memset(&q, 0x5a, sizeof q);
    struct k8s_quantity before = q;
    char why[CPN_ERR_LEN] = "";
    cr_assert_eq(k8s_quantity_parse(s, &q, why, sizeof why), CPN_EINPUT, "'%s' parsed", s);
    cr_assert(strstr(why, what), "'%s': message \"%s\" lacks \"%s\"", s, why, what);
    cr_assert(memcmp(&q, &before, sizeof q) == 0, "'%s': output changed on failure", s);
}

Test(k8s_quantity, the_issue_examples)
{
    expect_q("1500m", false, 2, 1500); /* Value() rounds 1.5 up */
    expect_q("2Gi", false, 2147483648u, 2147483648000u);
    expect_q("1e3", false, 1000, 1000000);
    expect_q("0.5", false, 1, 500);
}

Test(k8s_quantity, decimal_and_binary_units)
{
    expect_q("500m", false, 1, 500);
    expect_q("1n", false, 1, 1); /* rounded up, never to zero */
    expect_q("250u", false, 1, 1);
    expect_q("1k", false, 1000, 1000000);
    expect_q("100M", false, 100000000, 100000000000u);
    expect_q("1G", false, 1000000000, 1000000000000u);
    expect_q("2T", false, 2000000000000u, 2000000000000000u);
    expect_q("1P", false, 1000000000000000u, 1000000000000000000u);
    expect_q("1Ki", false, 1024, 1024000);
    expect_q("64Mi", false, 67108864, 67108864000u);
    expect_q("1.5Gi", false, 1610612736, 1610612736000u);
    expect_q("1Ti", false, 1099511627776u, 1099511627776000u);
    expect_q("0.1Ki", false, 103, 102400); /* 102.4 bytes round up to 103 */
    expect_q("1.25Ei", false, 1441151880758558720u, TOO_LARGE);
}

Test(k8s_quantity, exponents_and_number_forms)
{
    expect_q("1E3", false, 1000, 1000000);
    expect_q("12e+2", false, 1200, 1200000);
    expect_q("1e-3", false, 1, 1);
    expect_q("5e-1", false, 1, 500);
    expect_q(".5", false, 1, 500);
    expect_q("1.", false, 1, 1000);
    expect_q("+2", false, 2, 2000);
    expect_q("0.0001", false, 1, 1);
    expect_q("0.1", false, 1, 100);
    expect_q("007", false, 7, 7000);
    expect_q("-1", true, 1, 1000);
    expect_q("0", false, 0, 0);
    expect_q("-0", false, 0, 0);
    expect_q("000.000", false, 0, 0);
    expect_q("0Gi", false, 0, 0);
}

Test(k8s_quantity, exa_is_a_unit_and_e_needs_digits)
{
    /* "E" alone is the exa unit; "E3" is an exponent; "e" alone is neither. */
    expect_q("1E", false, 1000000000000000000u, TOO_LARGE);
    expect_q_bad("1e", "unknown unit 'e'");
}

Test(k8s_quantity, range)
{
    struct k8s_quantity q;
    uint64_t v;
    cr_assert_eq(k8s_quantity_parse("9223372036854775807", &q, NULL, 0), CPN_OK);
    cr_assert_eq(k8s_quantity_scaled(&q, 0, &v), CPN_OK);
    cr_assert_eq(v, UINT64_C(9223372036854775807));
    cr_assert_eq(k8s_quantity_scaled(&q, 3, &v), CPN_EINPUT, "milli of 2^63-1 overflows");
    cr_assert_eq(k8s_quantity_parse("9223372036854775808", &q, NULL, 0), CPN_OK);
    cr_assert_eq(k8s_quantity_scaled(&q, 0, &v), CPN_EINPUT);
    cr_assert_eq(k8s_quantity_parse("7Ei", &q, NULL, 0), CPN_OK);
    cr_assert_eq(k8s_quantity_scaled(&q, 0, &v), CPN_OK);
    cr_assert_eq(v, UINT64_C(8070450532247928832));
    cr_assert_eq(k8s_quantity_parse("8Ei", &q, NULL, 0), CPN_OK);
    cr_assert_eq(k8s_quantity_scaled(&q, 0, &v), CPN_EINPUT, "2^63 is too large");
    cr_assert_eq(k8s_quantity_parse("1e1000", &q, NULL, 0), CPN_OK);
    cr_assert_eq(k8s_quantity_scaled(&q, 0, &v), CPN_EINPUT);
    cr_assert_eq(k8s_quantity_parse("1e-1000", &q, NULL, 0), CPN_OK);
    cr_assert_eq(k8s_quantity_scaled(&q, 3, &v), CPN_OK);
    cr_assert_eq(v, 1, "a tiny positive quantity rounds up to 1m");
}

Test(k8s_quantity, malformed)
{
    expect_q_bad("", "empty");
    expect_q_bad("1ki", "unknown unit 'ki'");
    expect_q_bad("1K", "unknown unit 'K'");
    expect_q_bad("2GB", "unknown unit 'GB'");
    expect_q_bad("2gi", "unknown unit 'gi'");
    expect_q_bad("1Mi5", "unknown unit 'Mi5'");
    expect_q_bad("1e1001", "unknown unit"); /* exponent beyond the accepted range */
    expect_q_bad("1.2.3", "not a Kubernetes quantity");
    expect_q_bad(" 1", "not a Kubernetes quantity");
    expect_q_bad("1 ", "not a Kubernetes quantity");
    expect_q_bad("1,5", "not a Kubernetes quantity");
    expect_q_bad("0x10", "not a Kubernetes quantity");
    char longq[K8S_QUANTITY_MAX + 2];
    memset(longq, '1', sizeof longq - 1);
    longq[sizeof longq - 1] = '\0';
    expect_q_bad(longq, "longer than");
}

/* ---- the YAML reader ---- */

/* Reads a file, capturing the warnings; returns rc. */
static int read_yaml(const char *path, struct catalog *cat, struct jobset *js, char *warn,
                     size_t warnlen, char *err, size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *w = open_memstream(&buf, &len);
    cr_assert_not_null(w);
    int rc = k8s_read_jobs(path, cat, js, w, NULL, err, errlen);
    fclose(w);
    snprintf(warn, warnlen, "%s", buf ? buf : "");
    free(buf);
    return rc;
}

static const struct job *find(const struct jobset *js, const char *id)
{
    for (size_t i = 0; i < js->n; i++)
        if (strcmp(jobset_str(js, js->v[i].id), id) == 0)
            return &js->v[i];
    cr_assert_fail("no job %s", id);
    return NULL;
}

Test(k8s_yaml, good_manifests)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "", warn[4096];
    cr_assert_eq(read_yaml(K8S_DIR "good.yaml", cat, &js, warn, sizeof warn, err, sizeof err),
                 CPN_OK, "%s", err);
    cr_assert_eq(js.n, 3);
    cr_assert_str_eq(js.source, K8S_DIR "good.yaml");
    cr_assert_eq(strlen(js.sha256), 64);

    const struct job *a = find(&js, "train-a");
    cr_assert_eq(a->model, catalog_model_find(cat, "resnet50"));
    cr_assert_eq(a->batch, 64);
    cr_assert_eq(a->epochs, 3);
    cr_assert_eq(a->data_gib, 12.5);
    cr_assert_eq(a->image_gib, 5.0);
    cr_assert_eq(a->gpus, 1, "no nvidia.com/gpu: one GPU");
    cr_assert_eq(a->cpus, 2.0, "1500m requested + 500m limit of the sidecar");
    cr_assert_eq(a->mem_gib, 2.5, "2Gi requested + 512Mi limit of the sidecar");
    cr_assert_eq(a->submit_s, 0);
    cr_assert_str_eq(jobset_str(&js, a->origin), "bj");
    cr_assert_eq(a->line, 2);

    const struct job *b = find(&js, "train-b");
    size_t nb = 0;
    const unsigned *batches = catalog_model_batches(cat, b->model, &nb);
    cr_assert_eq(b->batch, batches[0], "the model's smallest measured batch");
    cr_assert_eq(b->gpus, 2);
    cr_assert_eq(jobset_pods(&js, (size_t)(b - js.v)), 2, "parallelism 2: two pods");
    cr_assert_eq(jobset_pods(&js, (size_t)(a - js.v)), 1);
    cr_assert_eq(b->cpus, 10.0);
    cr_assert_eq(b->mem_gib, 1e9 / GIB);
    cr_assert_eq(b->data_gib, 1.5);
    cr_assert_eq(b->submit_s, 30.5);
    cr_assert_eq(b->image_gib, 0);

    const struct job *c = find(&js, "replay.7");
    cr_assert_eq(c->model, -1);
    cr_assert_eq(c->duration_s, 3600);
    cr_assert_eq(c->gpu_mem_gib, 20);
    cr_assert_eq(c->epochs, 1);
    cr_assert_eq(c->data_gib, 0);
    cr_assert_eq(c->cpus, 0);

    cr_assert(strstr(warn, "good.yaml:36: kind: 'ConfigMap' is not a Job or a PyTorchJob; the "
                           "document is skipped"),
              "%s", warn);
    cr_assert_null(strstr(warn, "parallelism"), "a parallelism of 2 is read: %s", warn);
    cr_assert(strstr(warn, "spec.template.spec.nodeSelector: not modeled"), "%s", warn);
    cr_assert(strstr(warn, "limits.ephemeral-storage: not modeled"), "%s", warn);
    cr_assert(strstr(warn, "last-applied-configuration: not modeled"), "%s", warn);
    cr_assert_null(strstr(warn, "command"), "inert fields are not warned about: %s", warn);
    cr_assert_null(strstr(warn, "namespace"), "%s", warn);
    jobset_free(&js);
    catalog_destroy(cat);
}

/* The original controller's documented annotation block, as it is: unquoted numbers
 * (which Kubernetes would refuse) are read as their numbers with one note for the file,
 * and a Job without an origin takes the run's default origin. */
Test(k8s_yaml, controller_files_as_they_are)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "", warn[4096];
    cr_assert_eq(read_yaml(K8S_DIR "controller.yaml", cat, &js, warn, sizeof warn, err,
                           sizeof err),
                 CPN_OK, "%s", err);
    cr_assert_eq(js.n, 2);
    const struct job *a = find(&js, "densenet");
    cr_assert_eq(a->model, catalog_model_find(cat, "densenet121"));
    cr_assert_eq(a->data_gib, 20, "data_size: 20 is 20 GiB, as \"20\" would be");
    cr_assert_eq(a->epochs, 100);
    cr_assert_str_eq(jobset_str(&js, a->origin), JOBIN_DEFAULT_ORIGIN);
    const struct job *b = find(&js, "resnet");
    cr_assert_eq(b->data_gib, 1.5);
    cr_assert_eq(b->epochs, 2);
    cr_assert_eq(b->origin, a->origin, "the default origin is stored once");
    cr_assert_str_eq(warn,
                     "cpnsim: note: " K8S_DIR "controller.yaml:9: metadata.annotations.data_size: "
                     "Kubernetes would refuse this: annotation values must be strings; read as "
                     "20 (and 2 more unquoted numbers in this file's annotations)\n",
                     "one note for the file, at its first unquoted number");
    jobset_free(&js);
    catalog_destroy(cat);
}

Test(k8s_yaml, example_manifests_load)
{
    struct catalog *cat = load_catalog();
    char err[CPN_ERR_LEN] = "", warn[4096];
    const char *files[] = {"traces/k8s/queue.yaml", "traces/k8s/resnet50-original.yaml",
                           "traces/k8s/distributed.yaml"};
    const size_t want[] = {4, 1, 2};
    for (size_t i = 0; i < 3; i++) {
        struct jobset js;
        jobset_init(&js);
        cr_assert_eq(read_yaml(files[i], cat, &js, warn, sizeof warn, err, sizeof err), CPN_OK,
                     "%s", err);
        cr_assert_eq(js.n, want[i]);
        cr_assert_str_eq(warn, "", "%s: no warnings expected: %s", files[i], warn);
        jobset_free(&js);
    }
    catalog_destroy(cat);
}

/* A Job of spec.parallelism P > 1 is a job of P pods; a PyTorchJob is a job of
 * Master.replicas + Worker.replicas pods. Requests are a pod's (tests/data/k8s/
 * distributed.yaml, worked out by hand). */
Test(k8s_yaml, distributed_manifests)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "", warn[4096];
    cr_assert_eq(read_yaml(K8S_DIR "distributed.yaml", cat, &js, warn, sizeof warn, err,
                           sizeof err),
                 CPN_OK, "%s", err);
    cr_assert_eq(js.n, 6);
    cr_assert(jobset_has_pods(&js));
    static const struct {
        const char *id;
        uint32_t pods, gpus;
        double cpus, mem_gib;
    } want[] = {
        {"par3", 3, 4, 8, 32},        /* parallelism 3, each pod 8 cores, 32Gi, 4 GPUs */
        {"seq5", 1, 1, 0, 0},         /* completions in turn: one pod */
        {"par0", 1, 1, 0, 0},         /* parallelism 0: one pod */
        {"bert-ddp", 4, 2, 4, 16},    /* Master 1 + Worker 3 */
        {"workers-only", 2, 1, 2, 0}, /* no Master: the Workers */
        {"master-only", 1, 1, 0, 0},  /* replicas default to 1 */
    };
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        const struct job *j = find(&js, want[i].id);
        size_t k = (size_t)(j - js.v);
        cr_assert_eq(jobset_pods(&js, k), want[i].pods, "%s pods %u", want[i].id,
                     jobset_pods(&js, k));
        cr_assert_eq(j->gpus, want[i].gpus, "%s gpus", want[i].id);
        cr_assert_eq(j->cpus, want[i].cpus, "%s cpus", want[i].id);
        cr_assert_eq(j->mem_gib, want[i].mem_gib, "%s mem_gib", want[i].id);
    }
    /* A PyTorchJob's annotations are read as a Job's. */
    const struct job *b = find(&js, "bert-ddp");
    cr_assert_eq(b->model, catalog_model_find(cat, "bert_base"));
    cr_assert_eq(b->batch, 16);
    cr_assert_eq(b->epochs, 1);
    cr_assert_eq(b->data_gib, 2);
    cr_assert_str_eq(jobset_str(&js, b->origin), "sh");
    cr_assert_eq(b->line, 39);
    cr_assert(strstr(warn, "distributed.yaml:23: spec.completions: the simulator runs a Job's "
                           "Pods together and once (spec.parallelism of them); 5 completions in "
                           "turn are not modeled: one Pod runs"),
              "%s", warn);
    cr_assert(strstr(warn, "distributed.yaml:34: spec.parallelism: a Job of parallelism 0 starts "
                           "no Pod until it is raised; the simulator runs it as 1"),
              "%s", warn);
    cr_assert(strstr(warn, "distributed.yaml:50: spec.runPolicy.backoffLimit: the simulator "
                           "applies the cluster's backoff_limit"),
              "%s", warn);
    cr_assert_null(strstr(warn, "cleanPodPolicy"), "inert: %s", warn);
    cr_assert_null(strstr(warn, "restartPolicy"), "checked, not warned about: %s", warn);
    jobset_free(&js);

    /* Jobs of one pod carry no pods array. */
    cr_assert_eq(read_yaml("traces/k8s/queue.yaml", cat, &js, warn, sizeof warn, err,
                           sizeof err),
                 CPN_OK, "%s", err);
    cr_assert_null(js.pods);
    jobset_free(&js);
    catalog_destroy(cat);
}

/* Same results through trace_read_any and from a buffer. */
Test(k8s_yaml, read_any_and_buffer_agree)
{
    struct catalog *cat = load_catalog();
    struct jobset a, b;
    jobset_init(&a);
    jobset_init(&b);
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(trace_read_any("traces/k8s/queue.yaml", cat, &a, NULL, err, sizeof err), CPN_OK, "%s",
                 err);
    char *buf = NULL;
    size_t len = 0;
    cr_assert_eq(cpn_read_file("traces/k8s/queue.yaml", &buf, &len, err, sizeof err), CPN_OK);
    cr_assert_eq(k8s_read_jobs_buf("traces/k8s/queue.yaml", buf, len, cat, &b, NULL, err,
                                   sizeof err),
                 CPN_OK, "%s", err);
    cr_assert_eq(a.n, b.n);
    cr_assert_str_eq(a.sha256, b.sha256);
    char hex[65];
    cpn_sha256_hex(buf, len, hex);
    cr_assert_str_eq(a.sha256, hex, "the digest is that of the file's bytes");
    for (size_t i = 0; i < a.n; i++)
        cr_assert(memcmp(&a.v[i], &b.v[i], sizeof a.v[i]) == 0);
    free(buf);
    jobset_free(&a);
    jobset_free(&b);
    catalog_destroy(cat);
}

/* Reads tests/data/k8s/FILE and expects CPN_EINPUT, a message beginning with where and
 * containing what, and an untouched set. */
static void expect_bad(const char *file, const char *where, const char *what)
{
    struct catalog *cat = load_catalog();
    char path[256], prefix[512], err[CPN_ERR_LEN] = "", warn[4096];
    snprintf(path, sizeof path, K8S_DIR "%s", file);
    snprintf(prefix, sizeof prefix, K8S_DIR "%s", where);
    struct jobset js;
    jobset_init(&js);
    int rc = read_yaml(path, cat, &js, warn, sizeof warn, err, sizeof err);
    cr_assert_eq(rc, CPN_EINPUT, "%s: rc %d (%s)", file, rc, err);
    cr_assert(strncmp(err, prefix, strlen(prefix)) == 0, "message \"%s\" does not begin \"%s\"",
              err, prefix);
    cr_assert(strstr(err, what), "message \"%s\" lacks \"%s\"", err, what);
    cr_assert_eq(js.n, 0);
    cr_assert_null(js.v);
    cr_assert_null(js.source);
    catalog_destroy(cat);
}

Test(k8s_yaml, bad_truncated)
{
    expect_bad("truncated.yaml", "truncated.yaml:8: YAML syntax error: ", "end of stream");
}

Test(k8s_yaml, bad_wrong_type)
{
    expect_bad("wrong_type.yaml",
               "wrong_type.yaml:16: spec.template.spec.containers[0].resources.requests.cpu: ",
               "must be a quantity (got a list)");
    expect_bad("wrong_type_count.yaml", "wrong_type_count.yaml:11: spec.backoffLimit: ",
               "must be a number (got a string)");
    expect_bad("wrong_type_annotation.yaml",
               "wrong_type_annotation.yaml:8: metadata.annotations.epoch: ",
               "must be a string (got a boolean 'yes'");
}

Test(k8s_yaml, bad_negative)
{
    expect_bad("negative.yaml",
               "negative.yaml:16: spec.template.spec.containers[0].resources.limits.memory: ",
               "must be >= 0 (got '-2Gi')");
    expect_bad("negative_annotation.yaml",
               "negative_annotation.yaml:7: metadata.annotations.data_size: ",
               "must be >= 0 (got '-3')");
}

Test(k8s_yaml, bad_unknown_unit)
{
    expect_bad("unknown_unit.yaml",
               "unknown_unit.yaml:16: spec.template.spec.containers[0].resources.requests.memory: ",
               "unknown unit 'GB' in '2GB'");
}

Test(k8s_yaml, bad_duplicate_id)
{
    expect_bad("duplicate_id.yaml", "duplicate_id.yaml:24: metadata.name: ",
               "duplicate id 'a' (first at line 1)");
}

Test(k8s_yaml, bad_empty_document)
{
    expect_bad("empty_document.yaml", "empty_document.yaml:12: document: ", "empty document");
    expect_bad("empty.yaml", "empty.yaml: ", "empty file (no YAML document)");
    expect_bad("no_jobs.yaml", "no_jobs.yaml: ", "no jobs");
}

Test(k8s_yaml, bad_missing_file) { expect_bad("nope.yaml", "nope.yaml: ", "cannot open"); }

/* Inline manifests: one Job with a replaceable part. */
#define JOB_HEAD                                                                             \
    "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: a\n  annotations:\n"               \
    "    model_name: resnet50\n    data_size: \"1\"\n    epoch: \"1\"\n    origin: bj\n"
#define JOB_SPEC "spec:\n  template:\n    spec:\n      containers:\n        - image: x\n"

static void expect_bad_buf(const char *yaml, const char *where, const char *what)
{
    struct catalog *cat = load_catalog();
    char prefix[512], err[CPN_ERR_LEN] = "";
    snprintf(prefix, sizeof prefix, "buf.yaml%s", where);
    struct jobset js;
    jobset_init(&js);
    int rc = k8s_read_jobs_buf("buf.yaml", yaml, strlen(yaml), cat, &js, NULL, err, sizeof err);
    cr_assert_eq(rc, CPN_EINPUT, "rc %d for:\n%s", rc, yaml);
    cr_assert(strncmp(err, prefix, strlen(prefix)) == 0, "message \"%s\" does not begin \"%s\"",
              err, prefix);
    cr_assert(strstr(err, what), "message \"%s\" lacks \"%s\"", err, what);
    cr_assert_eq(js.n, 0);
    catalog_destroy(cat);
}

Test(k8s_yaml, bad_structure)
{
    expect_bad_buf("- a\n- b\n", ":1: document: ", "must be a Kubernetes object");
    expect_bad_buf("apiVersion: batch/v1\nmetadata: {name: a}\n", ":1: kind: ", "missing");
    expect_bad_buf("apiVersion: batch/v2\nkind: Job\n", ":1: apiVersion: ",
                   "must be batch/v1 for a Job (got 'batch/v2')");
    expect_bad_buf("kind: Job\nmetadata: {name: a}\n", ":1: apiVersion: ", "missing");
    expect_bad_buf(JOB_HEAD, ":1: spec: ", "missing");
    expect_bad_buf("apiVersion: batch/v1\nkind: Job\nmetadata: {}\n" JOB_SPEC,
                   ":3: metadata.name: ", "missing");
    expect_bad_buf("apiVersion: batch/v1\nkind: Job\nmetadata: {name: Train_A}\n" JOB_SPEC,
                   ":3: metadata.name: ", "'Train_A' is not a valid Job name");
    expect_bad_buf(JOB_HEAD "spec: {}\n", ":10: spec.template: ", "missing");
    expect_bad_buf(JOB_HEAD "spec:\n  template:\n    spec: {}\n",
                   ":12: spec.template.spec.containers: ", "missing");
    expect_bad_buf(JOB_HEAD "spec:\n  template:\n    spec:\n      containers: []\n",
                   ":13: spec.template.spec.containers: ", "empty");
    expect_bad_buf(JOB_HEAD "spec:\n  template:\n    spec:\n      containers: [{name: c}]\n",
                   ":13: spec.template.spec.containers[0].image: ", "missing");
    expect_bad_buf(JOB_HEAD "spec:\n  template:\n    spec:\n      restartPolicy: Always\n"
                            "      containers: [{image: x}]\n",
                   ":13: spec.template.spec.restartPolicy: ", "must be Never or OnFailure");
    expect_bad_buf(JOB_HEAD "spec:\n  template:\n    spec:\n      containers: [{image: x}]\n"
                            "  template: {}\n",
                   ":14: spec.template: ", "duplicate key (also line 11)");
    expect_bad_buf("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: a\n  annotations:\n"
                   "    origin: bj\n" JOB_SPEC,
                   ":6: metadata.annotations.model_name: ",
                   "a job without a model needs a duration_s");
    expect_bad_buf("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: a\n  annotations:\n"
                   "    model_name: resnet50\n    data_size: \"1\"\n    epoch: \"1\"\n"
                   "    origin: \"\"\n" JOB_SPEC,
                   ":9: metadata.annotations.origin: ", "empty (a value is required)");
    expect_bad_buf("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: a\n  annotations:\n"
                   "    model_name: resnet9000\n    data_size: \"1\"\n    epoch: \"1\"\n"
                   "    origin: bj\n" JOB_SPEC,
                   ":6: metadata.annotations.model_name: ", "unknown model 'resnet9000'");
    expect_bad_buf("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: a\n  annotations:\n"
                   "    model_name: resnet50\n    data_size: \"1\"\n    epoch: \"1.5\"\n"
                   "    origin: bj\n" JOB_SPEC,
                   ":8: metadata.annotations.epoch: ", "'1.5' is not a whole number >= 1");
    expect_bad_buf("apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: a\n  annotations:\n"
                   "    model_name: resnet50\n    data_size: 1TB\n    epoch: \"1\"\n"
                   "    origin: bj\n" JOB_SPEC,
                   ":7: metadata.annotations.data_size: ", "unknown unit 'TB'");
}

#define PT_HEAD                                                                            \
    "apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata:\n  name: p\n"                   \
    "  annotations: {model_name: resnet50, data_size: \"1\", epoch: \"1\", origin: bj}\n"
/* A replica of n pods whose one container asks for res (a flow mapping's inside). */
#define PT_REPLICA(type, n, res)                                                           \
    "    " type ":\n      replicas: " n "\n      template:\n        spec:\n"                \
    "          containers: [{image: x, resources: {limits: {" res "}}}]\n"

/* What a job of several pods may not be: completions other than its parallelism, a
 * PyTorchJob with two Masters, none at all, or Masters and Workers that ask for
 * different pods; and every job's GPUs over its pods stay below 2^31. */
Test(k8s_yaml, bad_distributed)
{
    expect_bad_buf(JOB_HEAD "spec:\n  parallelism: 3\n  completions: 4\n  template:\n    spec:\n"
                            "      containers: [{image: x}]\n",
                   ":12: spec.completions: ",
                   "must equal spec.parallelism (3) in a Job of several Pods");
    expect_bad_buf(JOB_HEAD "spec:\n  parallelism: 1073741824\n  template:\n    spec:\n"
                            "      containers: [{image: x, resources: {limits: {nvidia.com/gpu: "
                            "2}}}]\n",
                   ":11: spec.parallelism: ",
                   "1073741824 pods of 2 GPUs are 2147483648 GPUs: must be below 2147483648");
    expect_bad_buf("apiVersion: batch/v1\nkind: PyTorchJob\nmetadata: {name: p}\nspec: {}\n",
                   ":1: apiVersion: ", "must be kubeflow.org/v1 for a PyTorchJob (got 'batch/v1')");
    expect_bad_buf(PT_HEAD "spec: {runPolicy: {}}\n", ":6: spec.pytorchReplicaSpecs: ",
                   "missing (a PyTorchJob needs its Master and Workers)");
    expect_bad_buf(PT_HEAD "spec:\n  pytorchReplicaSpecs: {}\n", ":7: spec.pytorchReplicaSpecs: ",
                   "needs a Master or a Worker");
    expect_bad_buf(PT_HEAD "spec:\n  pytorchReplicaSpecs:\n" PT_REPLICA("Master", "2", "cpu: 1"),
                   ":9: spec.pytorchReplicaSpecs.Master.replicas: ",
                   "must be 1 (a PyTorchJob has one Master; got 2)");
    expect_bad_buf(PT_HEAD "spec:\n  pytorchReplicaSpecs:\n" PT_REPLICA("Worker", "0", "cpu: 1"),
                   ":9: spec.pytorchReplicaSpecs.Worker.replicas: ",
                   "a PyTorchJob without a Master needs at least one Worker (got 0)");
    expect_bad_buf(PT_HEAD "spec:\n  pytorchReplicaSpecs:\n    Worker: {replicas: 2}\n",
                   ":8: spec.pytorchReplicaSpecs.Worker.template: ",
                   "missing (a replica needs a Pod template)");
    expect_bad_buf(PT_HEAD "spec:\n  pytorchReplicaSpecs:\n    Worker:\n      restartPolicy: "
                           "Sometimes\n      template: {spec: {containers: [{image: x}]}}\n",
                   ":9: spec.pytorchReplicaSpecs.Worker.restartPolicy: ",
                   "must be Always, OnFailure, Never or ExitCode (got 'Sometimes')");
    expect_bad_buf(PT_HEAD "spec:\n  pytorchReplicaSpecs:\n"
                           PT_REPLICA("Master", "1", "cpu: 4, memory: 16Gi, nvidia.com/gpu: 2")
                           PT_REPLICA("Worker", "3", "cpu: 4, memory: 16Gi, nvidia.com/gpu: 4"),
                   ":17: spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].resources."
                   "limits.nvidia.com/gpu: ",
                   "a Worker's nvidia.com/gpu is 4 and the Master's 2: cpnsim's Pods of one job "
                   "are alike");
    expect_bad_buf(PT_HEAD "spec:\n  pytorchReplicaSpecs:\n"
                           PT_REPLICA("Master", "1", "cpu: 4, memory: 16Gi")
                           PT_REPLICA("Worker", "1", "cpu: 8, memory: 16Gi"),
                   ":17: spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].resources."
                   "limits.cpu: ",
                   "a Worker's cpu is 8 cores and the Master's 4 cores");
    expect_bad_buf(PT_HEAD "spec:\n  pytorchReplicaSpecs:\n"
                           PT_REPLICA("Master", "1", "cpu: 4, memory: 16Gi")
                           "    Worker:\n      template:\n        spec:\n"
                           "          containers: [{image: x}]\n",
                   ":14: spec.pytorchReplicaSpecs.Worker.template: ",
                   "a Worker's cpu is 0 cores and the Master's 4 cores");
    /* With no Workers the Master is the job, whatever a Worker would ask for: the first
     * document is read, and the second is the error. */
    expect_bad_buf(PT_HEAD "spec:\n  pytorchReplicaSpecs:\n" PT_REPLICA("Master", "1", "cpu: 4")
                           PT_REPLICA("Worker", "0", "cpu: 8") "  elasticPolicy: {}\n"
                           "---\nkind: Job\n",
                   ":20: apiVersion: ", "missing (a Job is batch/v1)");
}

Test(k8s_yaml, bad_gpu_resources)
{
    const char *pre = JOB_HEAD "spec:\n  template:\n    spec:\n      containers:\n"
                               "        - image: x\n          resources:\n";
    char y[2048];
    snprintf(y, sizeof y, "%s            requests: {nvidia.com/gpu: 1}\n", pre);
    expect_bad_buf(y, ":16: spec.template.spec.containers[0].resources.requests.nvidia.com/gpu: ",
                   "needs a limit too");
    snprintf(y, sizeof y,
             "%s            requests: {nvidia.com/gpu: 1}\n            limits: {nvidia.com/gpu: 2}\n",
             pre);
    expect_bad_buf(y, ":16: spec.template.spec.containers[0].resources.requests.nvidia.com/gpu: ",
                   "must equal");
    snprintf(y, sizeof y, "%s            limits: {nvidia.com/gpu: 500m}\n", pre);
    expect_bad_buf(y, ":16: spec.template.spec.containers[0].resources.limits.nvidia.com/gpu: ",
                   "must be a whole number of GPUs");
    snprintf(y, sizeof y, "%s            limits: {nvidia.com/gpu: 0}\n", pre);
    expect_bad_buf(y, ":16: spec.template.spec.containers[0].resources.limits.nvidia.com/gpu: ",
                   "must be >= 1 (got '0')");
    snprintf(y, sizeof y, "%s            requests: {cpu: \"3\"}\n            limits: {cpu: \"2\"}\n",
             pre);
    expect_bad_buf(y, ":16: spec.template.spec.containers[0].resources.requests.cpu: ",
                   "must be <= spec.template.spec.containers[0].resources.limits.cpu ('2')");
}

/* Requests default to limits; GPUs from limits alone; warnings grouped with counts. */
Test(k8s_yaml, requests_limits_and_grouped_warnings)
{
    struct catalog *cat = load_catalog();
    const char *doc = JOB_HEAD "spec:\n  backoffLimit: 6\n  template:\n    spec:\n"
                               "      tolerations: []\n      containers:\n        - image: x\n"
                               "          resources:\n            limits: {cpu: 250m, memory: 1Mi, "
                               "nvidia.com/gpu: 4}\n";
    char y[4096];
    snprintf(y, sizeof y, "%s---\n%s", doc, doc);
    char *second = strstr(strstr(y, "---"), "name: a");
    cr_assert_not_null(second);
    second[6] = 'b';
    char *out = NULL;
    size_t outlen = 0;
    FILE *w = open_memstream(&out, &outlen);
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(k8s_read_jobs_buf("buf.yaml", y, strlen(y), cat, &js, w, err, sizeof err),
                 CPN_OK, "%s", err);
    fclose(w);
    cr_assert_eq(js.n, 2);
    cr_assert_eq(js.v[0].gpus, 4);
    cr_assert_eq(js.v[0].cpus, 0.25);
    cr_assert_eq(js.v[0].mem_gib, 1.0 / 1024);
    cr_assert(strstr(out, "buf.yaml:11: spec.backoffLimit: the simulator applies the cluster's "
                          "backoff_limit (default 4) to every job; this Job's 6 is ignored (2 "
                          "times)"),
              "%s", out);
    cr_assert(strstr(out, "spec.template.spec.tolerations: not modeled by the simulator; ignored "
                          "(2 times)"),
              "%s", out);
    free(out);
    jobset_free(&js);
    catalog_destroy(cat);
}

/* YAML 1.1 typing as Kubernetes reads it: yes is a boolean, 0x10 a number. */
Test(k8s_yaml, scalar_types)
{
    char y[2048];
    snprintf(y, sizeof y,
             "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: a\n  annotations:\n"
             "    model_name: resnet50\n    data_size: \"1\"\n    epoch: \"1\"\n    origin: yes\n%s",
             JOB_SPEC);
    expect_bad_buf(y, ":9: metadata.annotations.origin: ", "must be a string (got a boolean 'yes'");
    snprintf(y, sizeof y,
             "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: a\n  annotations:\n"
             "    model_name: resnet50\n    data_size: \"1\"\n    epoch: \"1\"\n    origin: 'yes'\n%s",
             JOB_SPEC);
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(k8s_read_jobs_buf("buf.yaml", y, strlen(y), cat, &js, NULL, err, sizeof err),
                 CPN_OK, "%s", err);
    cr_assert_str_eq(jobset_str(&js, js.v[0].origin), "yes");
    jobset_free(&js);
    catalog_destroy(cat);
}

/* ---- nesting, the stop flag and explicit tags (sim/io/k8s_load.c) ---- */

/* A Job whose status (read and skipped) holds `levels` nested lists. */
static char *nested_job(size_t levels)
{
    static const char head[] = JOB_HEAD JOB_SPEC "status: ";
    size_t n = sizeof head - 1 + 2 * levels + 2;
    char *y = malloc(n);
    cr_assert_not_null(y);
    memcpy(y, head, sizeof head - 1);
    memset(y + sizeof head - 1, '[', levels);
    memset(y + sizeof head - 1 + levels, ']', levels);
    memcpy(y + n - 2, "\n", 2);
    return y;
}

/* K8S_DEPTH_MAX levels, the root mapping included, are read; one more is refused at
 * the line where it opens, and so are 100,000, at once. */
Test(k8s_yaml, nesting_limit)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "";
    char *y = nested_job(K8S_DEPTH_MAX - 1);
    cr_assert_eq(k8s_read_jobs_buf("buf.yaml", y, strlen(y), cat, &js, NULL, err, sizeof err),
                 CPN_OK, "%s", err);
    cr_assert_eq(js.n, 1);
    jobset_free(&js);
    catalog_destroy(cat);
    free(y);
    static const char what[] = "YAML nested deeper than 100 levels, the most cpnsim reads";
    y = nested_job(K8S_DEPTH_MAX);
    expect_bad_buf(y, ":15: ", what);
    free(y);
    y = nested_job(100000);
    expect_bad_buf(y, ":15: ", what);
    free(y);
    /* Block style: one more level per line, refused at the 101st. */
    size_t cap = 101 * 110 + 1, n = 0;
    y = malloc(cap);
    cr_assert_not_null(y);
    for (int i = 0; i < 101; i++)
        n += (size_t)snprintf(y + n, cap - n, "%*sa:\n", i, "");
    expect_bad_buf(y, ":101: ", what);
    free(y);
}

/* A stop flag already set ends the read of a file with CPN_ESTOP and no jobs. */
Test(k8s_yaml, stop_flag)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "";
    volatile sig_atomic_t flag = SIGTERM;
    int rc = k8s_read_jobs(K8S_DIR "good.yaml", cat, &js, NULL, &flag, err, sizeof err);
    cr_assert_eq(rc, CPN_ESTOP, "rc %d: %s", rc, err);
    cr_assert_not_null(strstr(err, "stopped by signal 15"), "%s", err);
    cr_assert_eq(js.n, 0);
    flag = 0;
    cr_assert_eq(k8s_read_jobs(K8S_DIR "good.yaml", cat, &js, NULL, &flag, err, sizeof err),
                 CPN_OK, "%s", err);
    cr_assert_eq(js.n, 3);
    jobset_free(&js);
    catalog_destroy(cat);
}

/* A Job with its annotations' epoch, its parallelism and its CPU request as given. */
static void tagged_job(char *y, size_t n, const char *epoch, const char *par, const char *cpu)
{
    snprintf(y, n,
             "apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: a\n  annotations:\n"
             "    model_name: resnet50\n    data_size: \"1\"\n    epoch: %s\n    origin: bj\n"
             "spec:\n  parallelism: %s\n  template:\n    spec:\n      containers:\n"
             "        - image: x\n          resources: {requests: {cpu: %s}}\n",
             epoch, par, cpu);
}

/* Explicit tags as Kubernetes' decoder (go-yaml) reads them: !!str makes a string of
 * any text and !!int "2" an integer; so an annotation may be !!str 3 but not !!int "3"
 * (annotations are strings), parallelism may be !!int "1" but not !!str 1, and a
 * quantity is either. A tag its text does not fit is refused wherever it is. */
/* Reads the Job tagged_job writes and checks its epochs and CPUs. */
static void expect_tagged(const char *epoch, const char *par, const char *cpu, unsigned epochs,
                          double cpus)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    char y[2048], err[CPN_ERR_LEN] = "";
    tagged_job(y, sizeof y, epoch, par, cpu);
    cr_assert_eq(k8s_read_jobs_buf("buf.yaml", y, strlen(y), cat, &js, NULL, err, sizeof err),
                 CPN_OK, "%s", err);
    cr_assert_eq(js.v[0].epochs, epochs);
    cr_assert_eq(js.v[0].cpus, cpus);
    jobset_free(&js);
    catalog_destroy(cat);
}

Test(k8s_yaml, explicit_tags)
{
    expect_tagged("!!str 3", "!!int \"1\"", "!!str 2", 3, 2);
    expect_tagged("! 4", "!!float 1", "!!int \"3\"", 4, 3);
    static const struct {
        const char *epoch, *par, *where, *what;
    } bad[] = {
        {"!!int \"1\"", "1", ":8: metadata.annotations.epoch: ",
         "must be a string (got a number '1' tagged !!int"},
        {"\"1\"", "!!str 1", ":11: spec.parallelism: ", "must be a number (got a string)"},
        {"\"1\"", "!!int abc", ":11: YAML: ", "'abc' is not a valid !!int"},
        {"\"1\"", "!!int 1.5", ":11: YAML: ", "'1.5' is not a valid !!int"},
        {"!!bool \"1\"", "1", ":8: YAML: ", "'1' is not a valid !!bool"},
        {"!!binary MQ==", "1", ":8: YAML: ", "the tag !!binary is not read by cpnsim"},
        {"!!map 1", "1", ":8: YAML: ", "a value cannot be tagged !!map"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char y[2048];
        tagged_job(y, sizeof y, bad[i].epoch, bad[i].par, "1");
        expect_bad_buf(y, bad[i].where, bad[i].what);
    }
}
