/* catalog: the profile catalogue. Step time and peak GPU memory of (model, per-GPU
 * batch, GPU type, GPU count), loaded from the measured tables embedded in the
 * binary (data/h100_profile.csv, data/gavel/simulation_throughputs.json,
 * data/h100_colocate.csv), with a documented rule for combinations that were not
 * measured, and the CPU cost per sample of each model's input pipeline
 * (data/cpu_pipeline.csv). It knows nothing of clusters or jobs. */
#ifndef CPN_CATALOG_H
#define CPN_CATALOG_H

#include <stdbool.h>
#include <stddef.h>

struct catalog;

/* Catalogue GPU types, in this fixed order. The reference type is H100 (speed 1.0). */
enum cat_type { CAT_H100, CAT_V100, CAT_P100, CAT_K80, CAT_NTYPES };

struct profile {
    double step_s;  /* time of one training step on `gpus` GPUs (each with the batch) */
    double mem_gib; /* peak GPU memory per GPU */
    bool derived;   /* true when any part was derived rather than measured */
};

/* Builds the catalogue from the embedded data. Returns 0, or CPN_EINPUT with a
 * message naming the embedded file and line. */
int catalog_create(struct catalog **out, char *err, size_t errlen);
/* Same, from explicit buffers (for tests); any buffer may be NULL to use the embedded one. */
int catalog_create_from(struct catalog **out, const char *profile_csv, const char *gavel_json,
                        const char *colocate_csv, const char *cpu_pipeline_csv, char *err,
                        size_t errlen);
void catalog_destroy(struct catalog *c); /* NULL is a no-op */

size_t catalog_model_count(const struct catalog *c);
/* Index of a model by name (e.g. "resnet50"), or -1. */
int catalog_model_find(const struct catalog *c, const char *name);
const char *catalog_model_name(const struct catalog *c, int model);
/* "vision", "detection", "nlp", "lm", "rl", "recsys", "gan" ... */
const char *catalog_model_family(const struct catalog *c, int model);
/* Parameter count in millions (0 when unknown). */
double catalog_model_params_m(const struct catalog *c, int model);
/* True when the model was measured on the H100 table (it has measured memory). */
bool catalog_model_on_h100(const struct catalog *c, int model);
/* Measured per-GPU batch sizes of a model (on any type), ascending; *n gets the count. */
const unsigned *catalog_model_batches(const struct catalog *c, int model, size_t *n);
/* Bytes of one training sample for the model's family: turns a dataset's GiB into samples. */
double catalog_bytes_per_sample(const struct catalog *c, int model);
/* CPU milliseconds one process of the model's input pipeline spends per training
 * sample (data/cpu_pipeline.csv, mapped per model in docs/catalogue.md), and the name
 * of the measured pipeline it is taken from ("none" for 0: no measurement applies). */
double catalog_cpu_ms_per_sample(const struct catalog *c, int model);
const char *catalog_model_pipeline(const struct catalog *c, int model);

/* Catalogue type by name, case-insensitive, matched as a prefix of a cluster type
 * name ("H100-80G" -> CAT_H100, "v100" -> CAT_V100). Returns -1 when none matches. */
int catalog_type_match(const char *gpu_type_name);
const char *catalog_type_name(int type); /* "h100", "v100", "p100", "k80" */
/* Throughput of the type relative to H100 (from the reference model), in (0, 1]. */
double catalog_type_speed(const struct catalog *c, int type);
/* GPU memory per GPU (GiB) of the hardware the catalogue measured each type on: the
 * H100 80GB of the H100 table, and Gavel's V100 16 GB (AWS p3), P100 16 GB and K80
 * (12 GB per GPU; a K80 board holds two). A job the table measured on a type ran there,
 * so its peak memory fit this. */
double catalog_type_measured_mem_gib(int type);
/* The smallest catalog_type_measured_mem_gib of the types other than the H100 on which
 * Gavel's table measured `model` at `batch` (on any GPU count): the job ran there, so
 * its peak memory per GPU fit it. INFINITY when the table never measured it. */
double catalog_gavel_min_mem_gib(const struct catalog *c, int model, unsigned batch);

/* Step time and memory of (model, batch) on `gpus` GPUs of catalogue type `type`.
 * When type is -1 (a cluster GPU type with no catalogue profile) the H100 figures are
 * used with step time divided by `speed` (relative to H100) and the result is derived.
 * Returns 0, or CPN_EINPUT when model or batch is out of range (batch 0, gpus 0). */
int catalog_lookup(const struct catalog *c, int model, unsigned batch, int type, double speed,
                   unsigned gpus, struct profile *out);

/* False only when Gavel's table measured (model, batch) alone on exactly `gpus` GPUs of
 * catalogue type `type` at zero throughput: Gavel's simulator never runs a job there,
 * and neither may any policy here. Other GPU counts of the same model, batch and type
 * are not affected (Gavel looks a job's throughput up at its own GPU count, which never
 * changes). True for every other combination, measured or not, and for type -1 (a
 * cluster GPU type with no catalogue profile). catalog_lookup still answers for such a
 * combination, by its rules (the figure is derived): it is what the job would take if
 * it ran, for estimates; that it may not run is this function's answer. */
bool catalog_runs_on(const struct catalog *c, int model, unsigned batch, int type, unsigned gpus);

/* One measured point of the catalogue: a (model, per-GPU batch, type, GPU count) whose
 * step time was measured (the H100 table, or Gavel's throughput on V100, P100, K80),
 * with its peak memory per GPU when that was measured too (the H100 table only). The
 * predictor trains on these; nothing derived is among them, and no measured zero
 * (catalog_runs_on): a zero is not a step time. */
struct catalog_point {
    int model;
    unsigned batch;
    int type; /* enum cat_type */
    unsigned gpus;
    double step_s;  /* H100: step_ms / 1000; Gavel: gpus / throughput (not capped) */
    double mem_gib; /* peak reserved memory per GPU, or -1 when not measured */
};
/* Copies the first min(cap, total) measured points into out (which may be NULL when cap
 * is 0), ordered by model, batch, type and GPU count, and returns the total. */
size_t catalog_points(const struct catalog *c, struct catalog_point *out, size_t cap);

/* Rate at which each of k jobs time-slicing one GPU progresses, relative to running
 * alone: 1 for k <= 1, else 1 / (k * (1 + overhead)), overhead fitted on the
 * co-location measurements. */
double catalog_share_rate(const struct catalog *c, unsigned k);
double catalog_share_overhead(const struct catalog *c);

#endif
