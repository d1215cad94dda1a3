/* import: converters from public traces of real clusters to cpnsim's inputs. Job
 * traces (Microsoft Philly, Alibaba openb, Gavel's trace format) become job sets;
 * machine lists (Philly, openb, Alibaba PAI) become cluster JSON. Each converter
 * fills the fields its source lacks by a documented assumption (docs/import.md) and
 * reports, with counts, every row it skipped and every value it changed or could not
 * keep: no row is dropped silently. It does not run simulations. */
#ifndef CPN_IMPORT_H
#define CPN_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct catalog;
struct jobset;

struct import_opts {
    const char *origin;   /* origin site of every job (openb, gavel); NULL: the format's name */
    unsigned max_gpus;    /* > 0: a job wider than this is folded onto this many GPUs, its
                             GPU time kept (duration, or steps, scaled); 0: kept as it is */
    unsigned pod_gpus;    /* > 0: a job wider than this becomes P = ceil(G / pod_gpus) pods
                             of ceil(G / P) GPUs each, its duration (or samples) kept; 0:
                             kept as it is. Not with max_gpus (docs/import.md) */
    const char *site;     /* the compute site of a converted cluster; NULL: the format's name */
    const struct jobset *origins_from; /* its jobs' origins become data-only sites of a
                                          converted cluster, linked to the compute site */
    double gpu_mem_gib;   /* > 0: every job's peak GPU memory per GPU (--gpu-mem-gib) */
    bool to_run;          /* the jobs go to a run (`run --jobs FORMAT:TRACE`), not to a file:
                             the report says they were converted, not written */
};

/* What a conversion did, for callers and tests. */
struct import_stats {
    size_t rows;    /* data rows read */
    size_t jobs;    /* jobs (or machines) written */
    size_t skipped; /* rows not converted, each counted under a reason in the report */
    size_t changed; /* jobs converted with a value changed (folded onto fewer GPUs, or
                       split into pods) */
};

/* True for philly, openb, gavel. */
bool import_is_job_format(const char *format);
/* True for philly-machines, openb-nodes, pai-machines. */
bool import_is_cluster_format(const char *format);

/* Splits a job source named as FORMAT:FILE (`cpnsim run --jobs gavel:TRACE`) when
 * FORMAT is a job format: returns the format's static name and sets *path to FILE.
 * Returns NULL, *path untouched, for anything else (a plain file name; ./gavel:x names
 * a file). */
const char *import_job_source(const char *spec, const char **path);

/* Converts a job trace. Writes the report (rows read, written, skipped per reason,
 * assumptions that matter) to report (NULL: none). Returns 0 with *out replaced
 * (jobs sorted by submit time, then source line; source = path), or CPN_EINPUT with
 * "file:line: column: what is wrong" for input that is malformed (as opposed to
 * valid but not representable, which is skipped and reported), leaving *out
 * untouched. */
int import_jobs(const char *format, const char *path, const struct import_opts *o,
                const struct catalog *cat, struct jobset *out, FILE *report,
                struct import_stats *st, char *err, size_t errlen);

/* Converts a machine list into cluster JSON (docs/cluster.md), written to *json (a
 * NUL-terminated string the caller frees). Same reporting and errors. */
int import_cluster(const char *format, const char *path, const struct import_opts *o,
                   char **json, FILE *report, struct import_stats *st, char *err,
                   size_t errlen);

#endif
