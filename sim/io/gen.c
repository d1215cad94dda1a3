/* gen: the random job-queue generator.
 *
 * Every figure of the default distributions lives in gen_table below; the code only
 * draws. All randomness comes from one GSL mt19937 generator seeded with spec->seed,
 * and each job's draws happen in a fixed order (model, batch, GPUs, epochs, dataset
 * size, image size, origin, then the arrival gap), so the same spec, seed and
 * catalogue give the same jobs and, written out, the same bytes.
 *
 * Distributed jobs (several pods) are chosen with a second mt19937 of their own, seeded
 * from the same seed, which makes the same draws for every job: the first generator's
 * draws, and so every job's model, batch, sizes, origin and arrival, are the same
 * whatever the share of distributed jobs, a queue without them is the queue this
 * generator always drew, and a larger share makes a superset of the jobs distributed.
 *
 * A job mix (gen_mix, read from a JSON spec by gen_mix.c) replaces any of the
 * defaults with a distribution of its own (a constant, uniform, lognormal or
 * empirical). Where it says nothing, the draw is exactly the default one, with the
 * same GSL calls, so a mix that restates the defaults gives the default queue byte
 * for byte.
 *
 * The diurnal arrival process is a Poisson process whose rate is constant within
 * each hour of the day and follows a 24-value curve. Arrivals are drawn by inverting
 * the integrated rate: each gap consumes one Exp(1) draw, spent hour by hour at that
 * hour's rate, so the process is exact and uses one draw per job like the plain
 * Poisson one. */
#include "gen.h"
#include "gen_int.h"

#include "../engine/catalog.h"
#include "trace.h"
#include "../base/util.h"

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

enum {
    GEN_GPU_CHOICES = 4,
    GEN_FAMILIES = 4,
    GEN_ID_BUF = 32,
    GEN_SOURCE_BUF = 256,
};
#define GEN_SECONDS_PER_HOUR 3600.0

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
    /* Distributed jobs: pods uniform in 2 ... max_pods (without --max-pods), each pod of
     * pod_gpus GPUs, a whole node's worth (the embedded cluster's nodes have 8, the most
     * a job of one pod is drawn with), from a second generator seeded with the seed
     * XOR pod_seed_xor (any constant would do: the golden ratio's first 32 bits). */
    uint32_t max_pods;
    unsigned pod_gpus;
    unsigned long pod_seed_xor;
    size_t count_max;                          /* largest queue generated at once */
    /* Diurnal curve: 1 + 0.5 cos(2 pi (h + 0.5 - 14) / 24) at the middle of each hour,
     * to 4 decimals: an illustrative working-day shape (not a measurement) with the
     * peak at 14:00, the trough at 02:00 and a 3:1 ratio between them. */
    double hourly[GEN_HOURS];
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
    .max_pods = 4,
    .pod_gpus = 8,
    .pod_seed_xor = 0x9e3779b9UL,
    .count_max = 100000000,
    .hourly = {0.5381, 0.5043, 0.5043, 0.5381, 0.6033, 0.6956, 0.8087, 0.9347,
               1.0653, 1.1913, 1.3044, 1.3967, 1.4619, 1.4957, 1.4957, 1.4619,
               1.3967, 1.3044, 1.1913, 1.0653, 0.9347, 0.8087, 0.6956, 0.6033},
};

/* A real draw (>= 0 by construction of the spec). */
static double gen_draw_real(const gsl_rng *rng, const struct gen_dist *d)
{
    double x = 0;
    switch (d->kind) {
    case GD_CONST: x = d->a; break;
    case GD_UNIFORM: x = gsl_ran_flat(rng, d->a, d->b); break;
    case GD_LOGNORMAL:
        x = gsl_ran_lognormal(rng, log(d->a), d->b);
        x = x < d->lo ? d->lo : x > d->hi ? d->hi : x;
        break;
    case GD_EMPIRICAL: x = d->values[gsl_ran_discrete(rng, d->pick)]; break;
    default: cpn_panic(__FILE__, __LINE__, "drawing from no distribution");
    }
    return x;
}

/* A whole draw in [1, 2^31): uniform draws whole numbers between the bounds,
 * lognormal ones are rounded and clamped. */
static unsigned gen_draw_whole(const gsl_rng *rng, const struct gen_dist *d)
{
    if (d->kind == GD_UNIFORM)
        return (unsigned)d->a + (unsigned)gsl_rng_uniform_int(rng, (unsigned long)(d->b - d->a) + 1);
    double x = gen_draw_real(rng, d);
    if (d->kind != GD_LOGNORMAL)
        return (unsigned)x; /* constants and empirical values were checked whole on reading */
    x = round(x);
    double lo = d->lo > 1 ? d->lo : 1, hi = d->hi < GEN_WHOLE_LIMIT - 1 ? d->hi : GEN_WHOLE_LIMIT - 1;
    x = x < lo ? ceil(lo) : x > hi ? floor(hi) : x;
    return (unsigned)x;
}

/* ------------------------------------------------------------------------- */
/* The generator. */

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

/* The diurnal curve in force: the spec's, else the mix's, else the default. */
static const double *gen_hourly(const struct gen_spec *spec)
{
    if (spec->hourly)
        return spec->hourly;
    if (spec->mix && spec->mix->has_hourly)
        return spec->mix->hourly;
    return gen_table.hourly;
}

/* Origins from the mix (with its weights) when the spec names none. */
static bool gen_mix_origins(const struct gen_spec *spec)
{
    return !spec->origins && spec->mix && spec->mix->n_origins;
}

static int gen_check(const struct gen_spec *spec, char *err, size_t errlen)
{
    if (spec->count == 0)
        return cpn_fail(err, errlen, CPN_EINPUT, "gen: count must be at least 1");
    if (spec->count > gen_table.count_max)
        return cpn_fail(err, errlen, CPN_EINPUT, "gen: count %zu exceeds the limit of %zu",
                        spec->count, gen_table.count_max);
    if (!gen_mix_origins(spec)) {
        if (!spec->origins || spec->n_origins == 0)
            return cpn_fail(err, errlen, CPN_EINPUT, "gen: no origin sites to draw from");
        for (size_t i = 0; i < spec->n_origins; i++)
            if (!spec->origins[i] || !*spec->origins[i])
                return cpn_fail(err, errlen, CPN_EINPUT, "gen: origin %zu is empty", i + 1);
    }
    if (!(spec->distributed >= 0 && spec->distributed <= 1))
        return cpn_fail(err, errlen, CPN_EINPUT,
                        "gen: the share of distributed jobs must be a number from 0 to 1 (got %g)",
                        spec->distributed);
    if (spec->max_pods == 1 || spec->max_pods >= GEN_WHOLE_LIMIT)
        return cpn_fail(err, errlen, CPN_EINPUT,
                        "gen: the most pods of a distributed job must be a whole number from 2 "
                        "to 2147483647 (got %" PRIu32 ")",
                        spec->max_pods);
    if (spec->arrival == GEN_POISSON || spec->arrival == GEN_DIURNAL) {
        if (!(spec->rate_per_s > 0) || !isfinite(spec->rate_per_s))
            return cpn_fail(err, errlen, CPN_EINPUT,
                            "gen: the %s arrival rate must be a finite number > 0 (got %g)",
                            spec->arrival == GEN_POISSON ? "Poisson" : "diurnal",
                            spec->rate_per_s);
    } else if (spec->arrival != GEN_BATCH) {
        return cpn_fail(err, errlen, CPN_EINPUT, "gen: unknown arrival kind %d", spec->arrival);
    }
    if (spec->arrival == GEN_DIURNAL) {
        const double *w = gen_hourly(spec);
        double sum = 0;
        for (int h = 0; h < GEN_HOURS; h++) {
            if (!(w[h] >= 0) || !isfinite(w[h]))
                return cpn_fail(err, errlen, CPN_EINPUT,
                                "gen: the diurnal rate of hour %d must be a finite number >= 0 "
                                "(got %g)",
                                h, w[h]);
            sum += w[h];
        }
        if (!(sum > 0))
            return cpn_fail(err, errlen, CPN_EINPUT,
                            "gen: the diurnal curve needs at least one hour with a rate > 0");
    }
    return CPN_OK;
}

/* The next arrival after t of a Poisson process whose rate in hour h of the day is
 * rate x w[h] / mean(w), given e ~ Exp(1): walks hour by hour, spending e at each
 * hour's rate. */
static double gen_diurnal_next(double t, double e, double rate, const double *w)
{
    double mean = 0;
    for (int h = 0; h < GEN_HOURS; h++)
        mean += w[h] / GEN_HOURS;
    for (;;) {
        double hour = floor(t / GEN_SECONDS_PER_HOUR);
        double r = rate * w[(int)fmod(hour, GEN_HOURS)] / mean;
        double end = (hour + 1) * GEN_SECONDS_PER_HOUR;
        double cap = r * (end - t);
        if (r > 0 && e <= cap)
            return t + e / r;
        e -= cap;
        t = end;
    }
}

/* A job's CPU and memory requests (of each pod): so many per GPU of its pod. */
static void gen_requests(const struct gen_spec *spec, struct job *j)
{
    const struct gen_mix *mix = spec->mix;
    j->cpus = (mix && mix->has_cpus ? mix->cpus_per_gpu : gen_table.cpus_per_gpu) * j->gpus;
    j->mem_gib = (mix && mix->has_mem ? mix->mem_gib_per_gpu : gen_table.mem_gib_per_gpu) * j->gpus;
}

/* Draws one job's model (and its mix entry, or NULL) and the rest, in the fixed
 * order. */
static void gen_one(const struct gen_spec *spec, const struct catalog *cat, const gsl_rng *rng,
                    const int *models, size_t n_models, const gsl_ran_discrete_t *gpu_pick,
                    const uint32_t *origin_off, struct job *j)
{
    const struct gen_mix *mix = spec->mix;
    const struct gen_model_mix *mm = NULL;
    if (mix && mix->n_models) {
        size_t k = mix->equal_weights ? gsl_rng_uniform_int(rng, mix->n_models)
                                      : gsl_ran_discrete(rng, mix->model_pick);
        mm = &mix->models[k];
        j->model = mm->model;
    } else {
        j->model = models[gsl_rng_uniform_int(rng, n_models)];
    }
    int m = j->model;
    if (mm && mm->batch.kind) {
        j->batch = gen_draw_whole(rng, &mm->batch);
    } else {
        size_t nb = 0;
        const unsigned *batches = catalog_model_batches(cat, m, &nb);
        j->batch = batches[gsl_rng_uniform_int(rng, nb)];
    }
    if (mix && mix->gpus.kind)
        j->gpus = gen_draw_whole(rng, &mix->gpus);
    else
        j->gpus = gen_table.gpu_counts[gsl_ran_discrete(rng, gpu_pick)];
    const struct gen_family *fam = gen_family_of(cat, m);
    const struct gen_dist *ep = mm && mm->epochs.kind ? &mm->epochs
                                : mix && mix->epochs.kind ? &mix->epochs
                                                          : NULL;
    if (ep)
        j->epochs = gen_draw_whole(rng, ep);
    else
        j->epochs = fam->epochs_min +
                    (unsigned)gsl_rng_uniform_int(rng, fam->epochs_max - fam->epochs_min + 1UL);
    const struct gen_dist *dd = mm && mm->data.kind ? &mm->data
                                : mix && mix->data.kind ? &mix->data
                                                        : NULL;
    j->data_gib = gen_round_size(dd ? gen_draw_real(rng, dd)
                                    : gsl_ran_flat(rng, fam->data_gib_min, fam->data_gib_max));
    j->image_gib = gen_round_size(
        mix && mix->image.kind ? gen_draw_real(rng, &mix->image)
                               : gsl_ran_flat(rng, gen_table.image_gib_min, gen_table.image_gib_max));
    gen_requests(spec, j);
    if (gen_mix_origins(spec))
        j->origin = origin_off[mix->origin_pick ? gsl_ran_discrete(rng, mix->origin_pick)
                                                : gsl_rng_uniform_int(rng, mix->n_origins)];
    else
        j->origin = origin_off[gsl_rng_uniform_int(rng, spec->n_origins)];
}

/* Makes job i (j, drawn by gen_one) distributed with probability spec->distributed,
 * from the second generator rng: pods uniform in 2 ... max_pods, each of the mix's pod
 * GPUs (else gen_table's), with the requests of a pod of that many GPUs. Every job
 * makes the same draws (a share u, its pods, its pod GPUs), distributed or not, so that
 * a job's pods do not depend on the share. Sets *pods (1 unless distributed). Returns 0
 * or CPN_EINPUT when a job's GPUs over all its pods would reach 2^31. */
static int gen_pods(const struct gen_spec *spec, const gsl_rng *rng, uint32_t max_pods, size_t i,
                    struct job *j, uint32_t *pods, char *err, size_t errlen)
{
    const struct gen_mix *mix = spec->mix;
    double u = gsl_rng_uniform(rng);
    uint32_t p = 2 + (uint32_t)gsl_rng_uniform_int(rng, max_pods - 1UL);
    unsigned g = mix && mix->pod_gpus.kind ? gen_draw_whole(rng, &mix->pod_gpus)
                                           : gen_table.pod_gpus;
    *pods = 1;
    if (!(u < spec->distributed))
        return CPN_OK;
    if ((double)p * g >= GEN_WHOLE_LIMIT)
        return cpn_fail(err, errlen, CPN_EINPUT,
                        "gen: job %zu: %" PRIu32 " pods of %u GPUs reach 2^31 GPUs: lower "
                        "max_pods or pod_gpus",
                        i + 1, p, g);
    j->gpus = g;
    gen_requests(spec, j);
    *pods = p;
    return CPN_OK;
}

/* Names a generated queue (its source) and hashes it as its CSV would be. */
static void gen_describe(const struct gen_spec *spec, const struct catalog *cat, struct jobset *out)
{
    char source[GEN_SOURCE_BUF * 2], arrival[GEN_SOURCE_BUF / 2]; /* room for both, whole */
    if (spec->arrival == GEN_POISSON)
        snprintf(arrival, sizeof arrival, "poisson:%g", spec->rate_per_s);
    else if (spec->arrival == GEN_DIURNAL)
        snprintf(arrival, sizeof arrival, "diurnal:%g", spec->rate_per_s);
    else
        snprintf(arrival, sizeof arrival, "batch");
    char pods[GEN_SOURCE_BUF / 2] = "";
    if (spec->distributed > 0)
        snprintf(pods, sizeof pods, ", distributed %g of up to %" PRIu32 " pods",
                 spec->distributed, spec->max_pods ? spec->max_pods : gen_table.max_pods);
    if (spec->mix)
        snprintf(source, sizeof source, "<generated: %zu jobs, seed %" PRIu64 ", %s%s, mix %s>",
                 spec->count, spec->seed, arrival, pods, spec->mix->name);
    else
        snprintf(source, sizeof source, "<generated: %zu jobs, seed %" PRIu64 ", %s%s>",
                 spec->count, spec->seed, arrival, pods);
    free(out->source);
    out->source = cpn_strdup(source);
    trace_csv_sha256(out, cat, out->sha256);
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
    if (n_models == 0 && !(spec->mix && spec->mix->n_models)) {
        free(models);
        return cpn_fail(err, errlen, CPN_EINPUT,
                        "gen: the catalogue has no H100-measured model with batch sizes");
    }

    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    CPN_ASSERT(rng);
    gsl_rng_set(rng, spec->seed);
    gsl_ran_discrete_t *gpu_pick = gsl_ran_discrete_preproc(GEN_GPU_CHOICES, gen_table.gpu_weights);
    CPN_ASSERT(gpu_pick);
    /* Distributed jobs draw from a generator of their own, only when there are some. */
    gsl_rng *pod_rng = NULL;
    uint32_t max_pods = spec->max_pods ? spec->max_pods : gen_table.max_pods;
    if (spec->distributed > 0) {
        pod_rng = gsl_rng_alloc(gsl_rng_mt19937);
        CPN_ASSERT(pod_rng);
        gsl_rng_set(pod_rng, spec->seed ^ gen_table.pod_seed_xor);
    }

    int width = gen_digits(spec->count);
    if (width < gen_table.id_min_digits)
        width = gen_table.id_min_digits;
    double t = 0;
    bool mix_origins = gen_mix_origins(spec);
    size_t n_origins = mix_origins ? spec->mix->n_origins : spec->n_origins;
    uint32_t *origin_off = cpn_malloc(n_origins * sizeof *origin_off);
    for (size_t i = 0; i < n_origins; i++)
        origin_off[i] = jobset_intern(out, mix_origins ? spec->mix->origins[i] : spec->origins[i]);
    const double *hourly = gen_hourly(spec);

    for (size_t i = 0; i < spec->count; i++) {
        struct job j = {.duration_s = -1, .gpu_mem_gib = -1};
        gen_one(spec, cat, rng, models, n_models, gpu_pick, origin_off, &j);
        if (spec->arrival == GEN_POISSON)
            t += gsl_ran_exponential(rng, 1.0 / spec->rate_per_s);
        else if (spec->arrival == GEN_DIURNAL)
            t = gen_diurnal_next(t, gsl_ran_exponential(rng, 1.0), spec->rate_per_s, hourly);
        j.submit_s = t;
        uint32_t pods = 1;
        if (pod_rng && (rc = gen_pods(spec, pod_rng, max_pods, i, &j, &pods, err, errlen)))
            break;
        if (!(t <= TRACE_MAX_TIME_S)) {
            /* A queue that a job file could not hold, nor a run accept. */
            rc = cpn_fail(err, errlen, CPN_EINPUT,
                          "gen: job %zu arrives at %g s, past the %g s a job file allows: raise "
                          "the arrival rate (%g jobs/s) or lower the count",
                          i + 1, t, TRACE_MAX_TIME_S, spec->rate_per_s);
            break;
        }

        char id[GEN_ID_BUF];
        int id_len = snprintf(id, sizeof id, "j%0*zu", width, i + 1);
        CPN_ASSERT(id_len > 0 && (size_t)id_len < sizeof id);
        j.id = jobset_intern(out, id);
        size_t line = out->n + 2; /* its line when the set is written out */
        j.line = line > UINT32_MAX ? UINT32_MAX : (uint32_t)line;
        jobset_set_pods(out, jobset_push(out, &j), pods);
    }

    if (!rc)
        gen_describe(spec, cat, out);
    else
        jobset_free(out);
    free(origin_off);
    free(models);
    gsl_ran_discrete_free(gpu_pick);
    gsl_rng_free(pod_rng);
    gsl_rng_free(rng);
    return rc;
}

size_t gen_count_max(void) { return gen_table.count_max; }

uint32_t gen_default_max_pods(void) { return gen_table.max_pods; }

int gen_parse_share(const char *s, double *out)
{
    double x;
    if (cpn_parse_double(s, &x) != 0 || !(x >= 0 && x <= 1))
        return -1;
    *out = x;
    return 0;
}

int gen_parse_arrival(const char *s, struct gen_spec *spec)
{
    if (strcmp(s, "batch") == 0) {
        spec->arrival = GEN_BATCH;
        return 0;
    }
    int kind = strncmp(s, "poisson:", 8) == 0   ? GEN_POISSON
               : strncmp(s, "diurnal:", 8) == 0 ? GEN_DIURNAL
                                                : -1;
    double rate;
    if (kind < 0 || cpn_parse_double(s + 8, &rate) != 0 || !(rate > 0) || !isfinite(rate))
        return -1;
    spec->arrival = kind;
    spec->rate_per_s = rate;
    return 0;
}
