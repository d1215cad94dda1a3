/* trace: the job queue. Jobs live in one array (struct jobset) with their strings in
 * one pool; everything else refers to a job by its index. Reads the job CSV
 * (streaming, via libcsv) and writes it back. It knows the catalogue (to resolve
 * model names) but not the cluster: origin sites stay names until the run resolves
 * them. */
#ifndef CPN_TRACE_H
#define CPN_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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
    double submit_s;
    double data_gib;    /* dataset size */
    double cpus;        /* CPU cores requested */
    double mem_gib;     /* host memory requested */
    double image_gib;   /* container image size */
    double duration_s;  /* run time on a GPU of speed 1.0; < 0 when absent */
    double gpu_mem_gib; /* peak GPU memory per GPU; < 0 when absent (from the catalogue) */
    uint64_t samples;   /* dataset samples; 0 when absent (derived from data_gib) */
    uint32_t id;        /* offset of the id string in the pool */
    uint32_t origin;    /* offset of the origin site name in the pool */
    uint32_t line;      /* line in the input file, for messages */
    int32_t model;      /* catalogue model index; -1 only for duration jobs with no model */
    uint32_t batch;     /* per-GPU batch size */
    uint32_t epochs;
    uint32_t gpus;      /* GPUs on one node */
};

struct jobset {
    struct job *v;
    size_t n, cap;
    char *pool; /* NUL-terminated strings: ids and origin names */
    size_t pool_len, pool_cap;
    char *source;    /* file name, or a description such as "<generated: 100 jobs, seed 1>" */
    char sha256[65]; /* of the input bytes */
};

void jobset_init(struct jobset *js);
void jobset_free(struct jobset *js);
/* Adds a string to the pool and returns its offset. */
uint32_t jobset_intern(struct jobset *js, const char *s);
static inline const char *jobset_str(const struct jobset *js, uint32_t off) { return js->pool + off; }
/* Appends a job (copied) and returns its index. */
size_t jobset_push(struct jobset *js, const struct job *j);

/* Run time of job jb alone on GPUs of relative speed `speed` whose step time for its
 * (model, batch, gpus) is step_s: duration_s / speed for jobs given by duration, else
 * epochs x ceil(samples / (batch x gpus)) x step_s, with samples derived from data_gib
 * (catalog_bytes_per_sample) when absent. */
double job_run_s(const struct job *jb, const struct catalog *cat, double step_s, double speed);

/* Reads a job CSV (DESIGN.md §3): a header row naming the columns in any order;
 * id, submit_s, model, batch, epochs, data_gib, gpus, cpus, mem_gib, image_gib,
 * origin are required; duration_s, gpu_mem_gib, samples are optional; columns named
 * x_* are ignored; any other column is an error. model may be empty or "-" only when
 * duration_s is given. Ids must be unique. Errors read "file:line: column: what is
 * wrong". Returns 0 with *out filled (it must be initialised; anything it held is
 * freed and replaced), or CPN_EINPUT leaving *out untouched (so empty when freshly
 * initialised). Sets out->source to path and out->sha256 to the digest of the bytes. */
int trace_read_csv(const char *path, const struct catalog *cat, struct jobset *out, char *err,
                   size_t errlen);
/* Same from a buffer; name is used in messages. */
int trace_read_csv_buf(const char *name, const char *buf, size_t len, const struct catalog *cat,
                       struct jobset *out, char *err, size_t errlen);
/* Writes the jobs as CSV with the columns above (optional ones only when any job has
 * them). Returns 0 or CPN_EIO. */
int trace_write_csv(FILE *f, const struct jobset *js, const struct catalog *cat);
/* SHA-256 (64 hex digits and a NUL) of the bytes trace_write_csv would write, computed
 * without writing them: a generated queue's digest equals that of its file. */
void trace_csv_sha256(const struct jobset *js, const struct catalog *cat, char out[65]);

/* ---- Other job formats (sim/trace_json.c, sim/k8s.c; docs/jobs.md) ---- */

/* Reads jobs as JSON: an array of objects whose keys are the CSV's columns (x_*
 * keys ignored), numbers as JSON numbers, text as JSON strings, null for an absent
 * optional value. Same rules, messages and contract as trace_read_csv. */
int trace_read_json(const char *path, const struct catalog *cat, struct jobset *out, char *err,
                    size_t errlen);
int trace_read_json_buf(const char *name, const char *buf, size_t len, const struct catalog *cat,
                        struct jobset *out, char *err, size_t errlen);
/* Writes the jobs as that JSON, one object per line. Returns 0 or CPN_EIO. */
int trace_write_json(FILE *f, const struct jobset *js, const struct catalog *cat);
/* Reads a job file by its extension (any case): .json (trace_read_json), .yaml or
 * .yml (Kubernetes Job YAML, k8s_read_jobs, with its warnings on stderr), anything
 * else (.csv, a pipe) as CSV (trace_read_csv). Same contract as trace_read_csv. */
int trace_read_any(const char *path, const struct catalog *cat, struct jobset *out, char *err,
                   size_t errlen);
/* Writes JSON when path ends in .json, else CSV. Returns 0 or CPN_EIO. */
int trace_write_any(FILE *f, const char *path, const struct jobset *js, const struct catalog *cat);

#endif
