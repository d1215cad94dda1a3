/* trace: the job queue's file formats. Reads the job CSV
 * (streaming, via libcsv) and writes it back. It knows the catalogue (to resolve
 * model names) but not the cluster: origin sites stay names until the run resolves
 * them. */
#ifndef CPN_TRACE_H
#define CPN_TRACE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "../engine/job.h"

struct catalog;

/* Reads a job CSV (docs/jobs.md): a header row naming the columns in any order;
 * id, submit_s, model, batch, epochs, data_gib, gpus, cpus, mem_gib, image_gib,
 * origin are required; pods, duration_s, gpu_mem_gib, samples, cpu_cores_used are
 * optional (pods 1 when absent or empty; out->pods stays NULL while every job has one
 * pod); columns named x_* are ignored; any other column is an error. model may be
 * empty or "-" only when duration_s is given. Ids must be unique. Errors read
 * "file:line: column: what is wrong". Returns 0 with *out filled (it must be initialised; anything it held is
 * freed and replaced), or CPN_EINPUT leaving *out untouched (so empty when freshly
 * initialised). Sets out->source to path and out->sha256 to the digest of the bytes.
 * A set *stop (a signal's number; NULL: none) ends the read at the next 64-KiB chunk
 * with CPN_ESTOP. */
int trace_read_csv(const char *path, const struct catalog *cat, struct jobset *out,
                   const volatile sig_atomic_t *stop, char *err, size_t errlen);
/* How trace_read_csv_opts reads (tests compare the ways). */
enum trace_split {
    TRACE_SPLIT_AUTO,  /* two threads for a regular file of 4 MiB to 1 GiB */
    TRACE_SPLIT_NEVER, /* one */
    TRACE_SPLIT_ALWAYS, /* two for any regular file with a line end after split_at */
};
/* What it did. */
enum trace_read_how {
    TRACE_READ_ONE,             /* one thread */
    TRACE_READ_SPLIT,           /* two, each reading its part */
    TRACE_READ_SPLIT_REDONE,    /* two, then the first read the second's part again (a
                                 * quoted field across the split, ids out of order) */
    TRACE_READ_SPLIT_ABANDONED, /* two, and the first part ended the read (an error) */
};
struct trace_read_opts {
    int split;          /* enum trace_split */
    uint64_t split_at;  /* the second part begins after the first line end from here on;
                         * 0: at 46% of the file */
    size_t chunk_bytes; /* read at a time; 0: 64 KiB */
    int how;            /* out: enum trace_read_how */
};
/* trace_read_csv, read as o says (NULL: as trace_read_csv reads, which is with two
 * threads for a regular file of 4 MiB to 1 GiB: sim/io/trace.c, "Two threads"). The
 * result, message and digest are the same whichever way it reads. */
int trace_read_csv_opts(const char *path, const struct catalog *cat, struct jobset *out,
                        const volatile sig_atomic_t *stop, struct trace_read_opts *o,
                        char *err, size_t errlen);
/* Same from a buffer; name is used in messages. */
int trace_read_csv_buf(const char *name, const char *buf, size_t len, const struct catalog *cat,
                       struct jobset *out, char *err, size_t errlen);
/* Writes the jobs as CSV with the columns above (optional ones only when any job has
 * them: pods when js->pods is set, for every job). Returns 0 or CPN_EIO. */
int trace_write_csv(FILE *f, const struct jobset *js, const struct catalog *cat);
/* SHA-256 (64 hex digits and a NUL) of the bytes trace_write_csv would write, computed
 * without writing them: a generated queue's digest equals that of its file. */
void trace_csv_sha256(const struct jobset *js, const struct catalog *cat, char out[65]);

/* ---- Other job formats (sim/io/trace_json.c, sim/io/k8s.c; docs/jobs.md) ---- */

/* Reads jobs as JSON: an array of objects whose keys are the CSV's columns (x_*
 * keys ignored), numbers as JSON numbers, text as JSON strings, null for an absent
 * optional value. Same rules, messages and contract as trace_read_csv. */
int trace_read_json(const char *path, const struct catalog *cat, struct jobset *out, char *err,
                    size_t errlen);
int trace_read_json_buf(const char *name, const char *buf, size_t len, const struct catalog *cat,
                        struct jobset *out, char *err, size_t errlen);
/* Writes the jobs as that JSON, one object per line (pods only for a job of more than
 * one). Returns 0 or CPN_EIO. */
int trace_write_json(FILE *f, const struct jobset *js, const struct catalog *cat);
/* True when a job file's name says Kubernetes YAML (.yaml or .yml, any case), the
 * format trace_read_any reads it in; none is ever written. */
bool trace_path_is_yaml(const char *path);
/* Reads a job file by its extension (any case): .json (trace_read_json), .yaml or
 * .yml (Kubernetes Job YAML, k8s_read_jobs, with its warnings on stderr), anything
 * else (.csv, a pipe) as CSV (trace_read_csv). Same contract as trace_read_csv; a set
 * *stop (a signal's number; NULL: none) ends a CSV or YAML read with CPN_ESTOP (a JSON
 * read takes its flag from jpos_set_stop). */
int trace_read_any(const char *path, const struct catalog *cat, struct jobset *out,
                   const volatile sig_atomic_t *stop, char *err, size_t errlen);
/* Writes JSON when path ends in .json, else CSV. Returns 0 or CPN_EIO. */
int trace_write_any(FILE *f, const char *path, const struct jobset *js, const struct catalog *cat);

#endif
