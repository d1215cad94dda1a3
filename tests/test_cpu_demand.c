/* Tests of a job's CPU demand: the catalogue's mapping of every model to a measured
 * input pipeline (data/cpu_pipeline.csv), job_cpu_cores on small cases worked out by
 * hand, the pipeline table's errors, and the figures docs/catalogue.md quotes,
 * recomputed here so that the page cannot drift from the code. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/util.h"
#include "../sim/engine/catalog.h"
#include "../sim/engine/job.h"
#include "helpers.h"

#define ASSERT_NEAR(a, b)                                                                   \
    cr_assert(fabs((a) - (b)) <= 1e-9 * fmax(1.0, fabs(b)), "%s = %.12g, expected %.12g", #a, \
              (double)(a), (double)(b))

static struct catalog *with_pipelines(const char *cpu_csv)
{
    struct catalog *c = NULL;
    char err[CPN_ERR_LEN] = "";
    int rc = catalog_create_from(&c, NULL, NULL, NULL, cpu_csv, err, sizeof err);
    cr_assert_eq(rc, CPN_OK, "catalog_create_from: %s", err);
    return c;
}

static int model(const struct catalog *c, const char *name)
{
    int m = catalog_model_find(c, name);
    cr_assert_geq(m, 0, "model %s", name);
    return m;
}

/* ---- the mapping ---- */

/* Every catalogue model, its pipeline and that pipeline's cost in data/cpu_pipeline.csv. */
static const struct {
    const char *model, *pipeline;
    double ms;
} want_map[] = {
    {"resnet18", "imagenet_train", 2.873},
    {"resnet50", "imagenet_train", 2.873},
    {"resnet152", "imagenet_train", 2.873},
    {"densenet121", "imagenet_train", 2.873},
    {"vgg16", "imagenet_train", 2.873},
    {"mobilenet_v3_large", "imagenet_train", 2.873},
    {"efficientnet_b0", "imagenet_train", 2.873},
    {"vit_b_16", "imagenet_train", 2.873},
    {"inception_v3", "imagenet_train", 2.873},
    {"fasterrcnn_resnet50_fpn", "yolo_640", 5.499},
    {"bert_base", "lm_pretokenised_1024", 0.002},
    {"gpt2_124m", "lm_pretokenised_1024", 0.002},
    {"llama_1b", "lm_pretokenised_1024", 0.002},
    {"resnet18_cifar", "cifar_train", 0.029},
    {"transformer", "lm_pretokenised_1024", 0.002},
    {"lstm_lm", "lm_pretokenised_1024", 0.002},
    {"recommendation", "lm_pretokenised_1024", 0.002},
    {"cyclegan", "imagenet_train", 2.873},
    {"a3c", "none", 0},
};
#define NWANT (sizeof want_map / sizeof want_map[0])

Test(cpu_demand, every_model_mapped)
{
    struct catalog *c = with_pipelines(NULL);
    cr_assert_eq(catalog_model_count(c), NWANT);
    for (size_t i = 0; i < NWANT; i++) {
        int m = model(c, want_map[i].model);
        cr_assert_str_eq(catalog_model_pipeline(c, m), want_map[i].pipeline, "%s",
                         want_map[i].model);
        ASSERT_NEAR(catalog_cpu_ms_per_sample(c, m), want_map[i].ms);
    }
    catalog_destroy(c);
}

/* A table given as a buffer replaces the embedded one; columns other than pipeline and
 * cpu_ms_per_sample are optional, and rows no rule uses are allowed. */
static const char small_csv[] = "cpu_ms_per_sample,pipeline\n"
                                "1,imagenet_train\n"
                                "2,yolo_640\n"
                                "3,cifar_train\n"
                                "0.5,lm_pretokenised_1024\n"
                                "9,unused\n";

Test(cpu_demand, table_from_buffer)
{
    struct catalog *c = with_pipelines(small_csv);
    ASSERT_NEAR(catalog_cpu_ms_per_sample(c, model(c, "vgg16")), 1.0);
    ASSERT_NEAR(catalog_cpu_ms_per_sample(c, model(c, "cyclegan")), 1.0);
    ASSERT_NEAR(catalog_cpu_ms_per_sample(c, model(c, "fasterrcnn_resnet50_fpn")), 2.0);
    ASSERT_NEAR(catalog_cpu_ms_per_sample(c, model(c, "resnet18_cifar")), 3.0);
    ASSERT_NEAR(catalog_cpu_ms_per_sample(c, model(c, "recommendation")), 0.5);
    ASSERT_NEAR(catalog_cpu_ms_per_sample(c, model(c, "a3c")), 0.0);
    catalog_destroy(c);
}

/* ---- job_cpu_cores ---- */

static struct job job_of(int32_t m, uint32_t batch, uint32_t gpus, double cpus, double used)
{
    return (struct job){.model = m, .batch = batch, .gpus = gpus, .cpus = cpus,
                        .cpu_cores_used = used, .duration_s = -1, .gpu_mem_gib = -1};
}

Test(cpu_demand, cores_given)
{
    struct catalog *c = with_pipelines(small_csv);
    /* cpu_cores_used wins over the model and over the request. */
    struct job jb = job_of(model(c, "vgg16"), 64, 2, 8, 3.5);
    ASSERT_NEAR(job_cpu_cores(&jb, c, 0.1), 3.5);
    /* Without a model it needs no catalogue and no step time. */
    jb = job_of(-1, 1, 1, 8, 1.25);
    ASSERT_NEAR(job_cpu_cores(&jb, NULL, 0), 1.25);
    catalog_destroy(c);
}

Test(cpu_demand, cores_from_model)
{
    struct catalog *c = with_pipelines(small_csv);
    /* vgg16 (1 ms per sample here), batch 64 on 2 GPUs, a step of 0.1 s: 128 samples per
     * step, 1280 per second, 1.28 cores of input pipeline plus one per GPU: 3.28. The
     * request (cpus 8) does not matter. */
    struct job jb = job_of(model(c, "vgg16"), 64, 2, 8, 0);
    ASSERT_NEAR(job_cpu_cores(&jb, c, 0.1), 3.28);
    /* Twice the step time, half the samples per second: 2 + 0.64. */
    ASSERT_NEAR(job_cpu_cores(&jb, c, 0.2), 2.64);
    /* Faster R-CNN (2 ms), batch 8 on one GPU, 0.25 s: 32 samples/s, 0.064 cores + 1. */
    jb = job_of(model(c, "fasterrcnn_resnet50_fpn"), 8, 1, 4, 0);
    ASSERT_NEAR(job_cpu_cores(&jb, c, 0.25), 1.064);
    /* A3C has no pipeline cost: one core per GPU process, whatever the rate. */
    jb = job_of(model(c, "a3c"), 4, 3, 16, 0);
    ASSERT_NEAR(job_cpu_cores(&jb, c, 0.001), 3.0);
    catalog_destroy(c);
}

Test(cpu_demand, cores_from_request)
{
    /* Neither a model nor cpu_cores_used: the cpus request. */
    struct job jb = job_of(-1, 1, 2, 6, 0);
    ASSERT_NEAR(job_cpu_cores(&jb, NULL, 0), 6.0);
}

/* ---- a malformed pipeline table: CPN_EINPUT naming file, line and column ---- */

static void expect_error(const char *cpu_csv, const char *want)
{
    struct catalog *c = (struct catalog *)&c; /* any non-NULL value, to see it untouched */
    struct catalog *const before = c;
    char err[CPN_ERR_LEN] = "";
    int rc = catalog_create_from(&c, NULL, NULL, NULL, cpu_csv, err, sizeof err);
    cr_assert_eq(rc, CPN_EINPUT, "expected an error containing \"%s\"", want);
    cr_assert_eq(c, before, "*out changed on failure");
    cr_assert(strstr(err, want), "message \"%s\" lacks \"%s\"", err, want);
}

Test(cpu_demand, bad_table)
{
    expect_error("pipeline,cpu_ms_per_sample\nimagenet_train,2\nyolo_640,fast\n",
                 "data/cpu_pipeline.csv:3: cpu_ms_per_sample: not a number: \"fast\"");
    expect_error("pipeline,cpu_ms_per_sample\nimagenet_train,0\n",
                 "data/cpu_pipeline.csv:2: cpu_ms_per_sample: must be > 0, not 0");
    expect_error("pipeline,ms\nimagenet_train,2\n",
                 "data/cpu_pipeline.csv:1: cpu_ms_per_sample: missing column");
    expect_error("pipeline,cpu_ms_per_sample\n", "data/cpu_pipeline.csv:1: no data rows");
    expect_error("pipeline,cpu_ms_per_sample\nyolo_640,2\n\nyolo_640,3\n",
                 "data/cpu_pipeline.csv:4: pipeline: a second row for yolo_640");
    expect_error("pipeline,cpu_ms_per_sample\nnone,1\n",
                 "data/cpu_pipeline.csv:2: pipeline: \"none\" is reserved");
    expect_error("pipeline,cpu_ms_per_sample\n,1\n", "data/cpu_pipeline.csv:2: pipeline: empty");
    expect_error("pipeline,cpu_ms_per_sample\nyolo_640,2,extra\n",
                 "data/cpu_pipeline.csv:2: row has 3 fields, the header 2");
    expect_error("pipeline,cpu_ms_per_sample,what\nyolo_640,2,\"open\n",
                 "data/cpu_pipeline.csv:2: malformed CSV: unterminated quoted field");
    /* Well formed, but a rule names a pipeline the table lacks. */
    expect_error("pipeline,cpu_ms_per_sample\nimagenet_train,2\n",
                 "data/cpu_pipeline.csv: pipeline: no row for yolo_640 (the input pipeline of "
                 "fasterrcnn_resnet50_fpn)");
}

/* ---- the figures of docs/catalogue.md, "CPU demand of the input pipeline" ---- */

/* Asserts that the page holds the line, as formatted here from the code. */
static void expect_line(const char *doc, const char *line)
{
    cr_assert(strstr(doc, line), "docs/catalogue.md lacks the line\n%s", line);
}

Test(cpu_demand, documented_mapping)
{
    char *doc = slurp("docs/catalogue.md");
    cr_assert(doc, "docs/catalogue.md is missing (run from the repository root)");
    struct catalog *c = with_pipelines(NULL);
    for (int m = 0; m < (int)catalog_model_count(c); m++) {
        char line[256];
        snprintf(line, sizeof line, "| `%s` | %s | %s | %g |", catalog_model_name(c, m),
                 catalog_model_family(c, m), catalog_model_pipeline(c, m),
                 catalog_cpu_ms_per_sample(c, m));
        expect_line(doc, line);
    }
    catalog_destroy(c);
    free(doc);
}

/* The worked examples: a job alone on `gpus` GPUs of one catalogue type. */
static const struct {
    const char *model;
    unsigned batch, gpus;
    int type;
} worked[] = {
    {"resnet50", 256, 1, CAT_H100},
    {"resnet50", 256, 1, CAT_V100},
    {"resnet50", 256, 8, CAT_V100},
    {"vit_b_16", 128, 1, CAT_H100},
    {"fasterrcnn_resnet50_fpn", 8, 1, CAT_H100},
    {"bert_base", 32, 1, CAT_H100},
    {"gpt2_124m", 16, 1, CAT_H100},
    {"resnet18_cifar", 128, 1, CAT_V100},
    {"cyclegan", 1, 1, CAT_V100},
    {"a3c", 4, 1, CAT_V100},
};

Test(cpu_demand, documented_examples)
{
    char *doc = slurp("docs/catalogue.md");
    cr_assert(doc, "docs/catalogue.md is missing (run from the repository root)");
    struct catalog *c = with_pipelines(NULL);
    for (size_t i = 0; i < sizeof worked / sizeof worked[0]; i++) {
        int m = model(c, worked[i].model);
        struct profile p;
        cr_assert_eq(catalog_lookup(c, m, worked[i].batch, worked[i].type, 1, worked[i].gpus, &p),
                     CPN_OK);
        struct job jb = job_of(m, worked[i].batch, worked[i].gpus, 0, 0);
        double rate = (double)worked[i].batch * worked[i].gpus / p.step_s;
        char line[256];
        snprintf(line, sizeof line, "| `%s` | %u | %u × %s | %.1f | %.0f | %.2f |",
                 worked[i].model, worked[i].batch, worked[i].gpus,
                 catalog_type_name(worked[i].type), p.step_s * 1000, rate,
                 job_cpu_cores(&jb, c, p.step_s));
        expect_line(doc, line);
    }
    catalog_destroy(c);
    free(doc);
}
