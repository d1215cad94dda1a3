/* job: the job model. Jobs live in one array (struct jobset) with their strings in one
 * pool; everything else refers to a job by its index. The readers of every format
 * (sim/io/) fill a jobset; the engine reads it. */
#ifndef CPN_JOB_H
#define CPN_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct catalog;

/* Bounds on a job's values that every job reader enforces (CSV, JSON, YAML and the
 * importers): far above any real job, low enough that no time or transfer overflows
 * or loses its meaning (docs/reliability.md). Times (submit_s, duration_s) at most
 * 10^12 s (31,700 years); sizes (data_gib, image_gib, mem_gib, gpu_mem_gib) at most
 * 10^9 GiB (an exabyte); cpus at most 10^9. */
#define TRACE_MAX_TIME_S 1e12
#define TRACE_MAX_GIB 1e9
#define TRACE_MAX_CPUS 1e9

/* One submitted job, as the input gives it. */
struct job {
    /* First, together, what the engine's per-event handlers read of a job (its requests
     * and shape, at each start, peak, end and learning): 32 bytes, one cache line for
     * most jobs of the array, where spread over the struct they took two or three. */
    double cpus;        /* CPU cores requested */
    double mem_gib;     /* host memory requested */
    int32_t model;      /* catalogue model index; -1 only for duration jobs with no model */
    uint32_t batch;     /* per-GPU batch size */
    uint32_t epochs;
    uint32_t gpus;      /* GPUs on one node: of each pod (jobset_pods) */
    double submit_s;
    double data_gib;    /* dataset size */
    double image_gib;   /* container image size */
    double duration_s;  /* run time on a GPU of speed 1.0; < 0 when absent */
    double gpu_mem_gib; /* peak GPU memory per GPU; < 0 when absent (from the catalogue) */
    uint64_t samples;   /* dataset samples; 0 when absent (derived from data_gib) */
    double cpu_cores_used; /* CPU cores its processes keep busy when its GPUs run at full
                            * solo speed; 0 when absent (derived: sim.h, docs/cpu.md) */
    uint32_t id;        /* offset of the id string in the pool */
    uint32_t origin;    /* offset of the origin site name in the pool */
    uint32_t line;      /* line in the input file, for messages */
    uint32_t origin_line; /* line of the origin's value where it differs from line (a
                           * YAML annotation), else 0 */
};

struct jobset {
    struct job *v;
    size_t n, cap;
    char *pool; /* NUL-terminated strings: ids and origin names */
    size_t pool_len, pool_cap;
    /* Pods of each job (docs/jobs.md, "Distributed jobs"): a job runs as pods pods of
     * gpus GPUs, cpus cores and mem_gib memory each, every pod on one node. NULL while
     * every job has one pod, so that single-pod queues carry nothing for it: read it
     * with jobset_pods, set it with jobset_set_pods. */
    uint32_t *pods;
    size_t pods_cap;
    char *source;    /* file name, or a description such as "<generated: 100 jobs, seed 1>" */
    char sha256[65]; /* of the input bytes */
};

void jobset_init(struct jobset *js);
void jobset_free(struct jobset *js);
/* Adds a string to the pool and returns its offset. */
uint32_t jobset_intern(struct jobset *js, const char *s);
/* The same for s of length len (strlen(s), known to the caller). */
uint32_t jobset_intern_n(struct jobset *js, const char *s, size_t len);
static inline const char *jobset_str(const struct jobset *js, uint32_t off) { return js->pool + off; }
/* Appends a job (copied) and returns its index. It has one pod. */
size_t jobset_push(struct jobset *js, const struct job *j);
/* Job j's pods (at least 1). */
static inline uint32_t jobset_pods(const struct jobset *js, size_t j)
{
    return js->pods ? js->pods[j] : 1;
}
/* Sets job j's pods (>= 1; j < js->n). */
void jobset_set_pods(struct jobset *js, size_t j, uint32_t pods);
/* True when some job has more than one pod. */
static inline bool jobset_has_pods(const struct jobset *js) { return js->pods != NULL; }

/* Run time of job jb alone on GPUs of relative speed `speed` whose step time for its
 * (model, batch, gpus) is step_s: duration_s / speed for jobs given by duration, else
 * epochs x ceil(samples / (batch x gpus)) x step_s, with samples derived from data_gib
 * (catalog_bytes_per_sample) when absent. */
double job_run_s(const struct job *jb, const struct catalog *cat, double step_s, double speed);
/* The same for a job of `pods` pods (its steps are over batch x gpus x pods samples),
 * whose every step takes step_s: job_run_s is pods 1. */
double job_run_pods_s(const struct job *jb, uint32_t pods, const struct catalog *cat,
                      double step_s, double speed);

/* CPU cores job jb keeps busy when its GPUs run at full solo speed, on GPUs whose step
 * time for its (model, batch, gpus) is step_s: its cpu_cores_used when given; else for
 * a catalogue model one core per GPU process plus samples/s x the model's input
 * pipeline cost per sample (catalog_cpu_ms_per_sample); else its cpus request. */
double job_cpu_cores(const struct job *jb, const struct catalog *cat, double step_s);
/* The same with the pipeline's measured cost per sample multiplied by cost_scale (the
 * config's cpu_cost_scale; job_cpu_cores is cost_scale 1). */
double job_cpu_cores_scaled(const struct job *jb, const struct catalog *cat, double step_s,
                            double cost_scale);

#endif
