/* gen: the random job-queue generator.
 *
 * Every figure of the distributions lives in gen_table below; the code only draws.
 * All randomness comes from one GSL mt19937 generator seeded with spec->seed, and
 * each job's draws happen in a fixed order (model, batch, GPUs, epochs, dataset size,
 * image size, origin, then the arrival gap), so the same spec, seed and catalogue
 * give the same jobs and, written out, the same bytes. */
#include "gen.h"

#include "catalog.h"
#include "trace.h"
#include "util.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { GEN_GPU_CHOICES = 4, GEN_FAMILIES = 4, GEN_ID_BUF = 32, GEN_SOURCE_BUF = 128 };

/* Dataset size and epochs of one model family. Sizes are chosen so that a job runs
 * from minutes to about an hour on an H100 (the catalogue's step times and
 * bytes-per-sample turn them into run times): image classification on ImageNet-like
 * subsets, detection on COCO-like subsets, BERT fine-tuning on GLUE/SQuAD-sized text,
 * language-model fine-tuning on wikitext-sized corpora. */
struct gen_family {
    const char *family;
    double data_gib_min, data_gib_max; /* uniform */
    unsigned epochs_min, epochs_max;   /* uniform whole, inclusive */
};

/* The generator's distributions, in the spirit of the original controller's random
 * queue generator. The lead may retune any of them here; nothing else changes. */
static const struct gen_table {
    unsigned gpu_counts[GEN_GPU_CHOICES];  /* GPUs per job ... */
    double gpu_weights[GEN_GPU_CHOICES];   /* ... drawn with these weights */
    struct gen_family families[GEN_FAMILIES];  /* per family; the last is the fallback */
    double image_gib_min, image_gib_max;       /* container image GiB: uniform */
    double size_steps_per_gib;                 /* sizes rounded to 1/this GiB */
    double cpus_per_gpu;                       /* CPU cores requested per GPU */
    double mem_gib_per_gpu;                    /* host memory requested per GPU */
    int id_min_digits;                         /* ids "j" + at least this many digits */
    size_t count_max;                          /* largest queue generated at once */
} gen_table = {
    .gpu_counts = {1, 2, 4, 8},
    .gpu_weights = {0.6, 0.2, 0.15, 0.05},
    .families = {{"vision", 2, 40, 1, 10},
                 {"detection", 1, 10, 1, 3},
                 {"nlp", 0.05, 0.5, 1, 3},
                 {"lm", 0.01, 0.1, 1, 2}},
    .image_gib_min = 3,
    .image_gib_max = 12,
    .size_steps_per_gib = 100,
    .cpus_per_gpu = 4,
    .mem_gib_per_gpu = 24,
    .id_min_digits = 4,
    .count_max = 100000000,
};

static double gen_round_size(double gib)
{
    return round(gib * gen_table.size_steps_per_gib) / gen_table.size_steps_per_gib;
}

static const struct gen_family *gen_family_of(const struct catalog *cat, int model)
{
    const char *fam = catalog_model_family(cat, model);
    for (size_t i = 0; i < GEN_FAMILIES; i++)
        if (fam && strcmp(fam, gen_table.families[i].family) == 0)
            return &gen_table.families[i];
    return &gen_table.families[GEN_FAMILIES - 1];
}

static int gen_digits(size_t n)
{
    int d = 1;
    for (; n >= 10; n /= 10)
        d++;
    return d;
}

static int gen_check(const struct gen_spec *spec, char *err, size_t errlen)
{
    if (spec->count == 0)
        return cpn_fail(err, errlen, CPN_EINPUT, "gen: count must be at least 1");
    if (spec->count > gen_table.count_max)
        return cpn_fail(err, errlen, CPN_EINPUT, "gen: count %zu exceeds the limit of %zu",
                        spec->count, gen_table.count_max);
    if (!spec->origins || spec->n_origins == 0)
        return cpn_fail(err, errlen, CPN_EINPUT, "gen: no origin sites to draw from");
    for (size_t i = 0; i < spec->n_origins; i++)
        if (!spec->origins[i] || !*spec->origins[i])
            return cpn_fail(err, errlen, CPN_EINPUT, "gen: origin %zu is empty", i + 1);
    if (spec->arrival == GEN_POISSON) {
        if (!(spec->rate_per_s > 0) || !isfinite(spec->rate_per_s))
            return cpn_fail(err, errlen, CPN_EINPUT,
                            "gen: the Poisson arrival rate must be a finite number > 0 (got %g)",
                            spec->rate_per_s);
    } else if (spec->arrival != GEN_BATCH) {
        return cpn_fail(err, errlen, CPN_EINPUT, "gen: unknown arrival kind %d", spec->arrival);
    }
    return CPN_OK;
}

int gen_jobs(const struct gen_spec *spec, const struct catalog *cat, struct jobset *out,
             char *err, size_t errlen)
{
    int rc = gen_check(spec, err, errlen);
    if (rc)
        return rc;

    /* The models to draw from: those measured on the H100, each with batch sizes. */
    size_t n_models = 0, n_all = catalog_model_count(cat);
    int *models = cpn_malloc(n_all * sizeof *models);
    for (size_t m = 0; m < n_all; m++) {
        size_t nb = 0;
        if (catalog_model_on_h100(cat, (int)m) && catalog_model_batches(cat, (int)m, &nb) && nb)
            models[n_models++] = (int)m;
    }
    if (n_models == 0) {
        free(models);
        return cpn_fail(err, errlen, CPN_EINPUT,
                        "gen: the catalogue has no H100-measured model with batch sizes");
    }

    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    CPN_ASSERT(rng);
    gsl_rng_set(rng, spec->seed);
    gsl_ran_discrete_t *gpu_pick = gsl_ran_discrete_preproc(GEN_GPU_CHOICES, gen_table.gpu_weights);
    CPN_ASSERT(gpu_pick);

    int width = gen_digits(spec->count);
    if (width < gen_table.id_min_digits)
        width = gen_table.id_min_digits;
    double t = 0;
    uint32_t *origin_off = cpn_malloc(spec->n_origins * sizeof *origin_off);
    for (size_t i = 0; i < spec->n_origins; i++)
        origin_off[i] = jobset_intern(out, spec->origins[i]);

    for (size_t i = 0; i < spec->count; i++) {
        struct job j = {.duration_s = -1, .gpu_mem_gib = -1};
        int m = models[gsl_rng_uniform_int(rng, n_models)];
        size_t nb = 0;
        const unsigned *batches = catalog_model_batches(cat, m, &nb);
        j.model = m;
        j.batch = batches[gsl_rng_uniform_int(rng, nb)];
        j.gpus = gen_table.gpu_counts[gsl_ran_discrete(rng, gpu_pick)];
        const struct gen_family *fam = gen_family_of(cat, m);
        j.epochs = fam->epochs_min +
                   (unsigned)gsl_rng_uniform_int(rng, fam->epochs_max - fam->epochs_min + 1UL);
        j.data_gib = gen_round_size(gsl_ran_flat(rng, fam->data_gib_min, fam->data_gib_max));
        j.image_gib = gen_round_size(
            gsl_ran_flat(rng, gen_table.image_gib_min, gen_table.image_gib_max));
        j.cpus = gen_table.cpus_per_gpu * j.gpus;
        j.mem_gib = gen_table.mem_gib_per_gpu * j.gpus;
        j.origin = origin_off[gsl_rng_uniform_int(rng, spec->n_origins)];
        if (spec->arrival == GEN_POISSON)
            t += gsl_ran_exponential(rng, 1.0 / spec->rate_per_s);
        j.submit_s = t;

        char id[GEN_ID_BUF];
        int id_len = snprintf(id, sizeof id, "j%0*zu", width, i + 1);
        CPN_ASSERT(id_len > 0 && (size_t)id_len < sizeof id);
        j.id = jobset_intern(out, id);
        size_t line = out->n + 2; /* its line when the set is written out */
        j.line = line > UINT32_MAX ? UINT32_MAX : (uint32_t)line;
        jobset_push(out, &j);
    }

    char source[GEN_SOURCE_BUF];
    if (spec->arrival == GEN_POISSON)
        snprintf(source, sizeof source, "<generated: %zu jobs, seed %" PRIu64 ", poisson:%g>",
                 spec->count, spec->seed, spec->rate_per_s);
    else
        snprintf(source, sizeof source, "<generated: %zu jobs, seed %" PRIu64 ", batch>",
                 spec->count, spec->seed);
    free(out->source);
    out->source = cpn_strdup(source);
    trace_csv_sha256(out, cat, out->sha256);

    free(origin_off);
    free(models);
    gsl_ran_discrete_free(gpu_pick);
    gsl_rng_free(rng);
    return CPN_OK;
}
