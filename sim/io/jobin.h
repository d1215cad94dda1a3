/* jobin: the job schema. Owns the one table of job fields and their rules
 * (docs/jobs.md, bounds in sim/engine/job.h), and builds a job set from field values
 * that a reader has pulled out of its input (the job CSV, JSON and Kubernetes YAML
 * readers, the trace importers): it checks every field, that ids are unique, and
 * stores each origin name once. It does not parse any file format. */
#ifndef CPN_JOBIN_H
#define CPN_JOBIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct catalog;
struct jobset;

/* The fields of a job, in the job CSV's column order. */
enum jobin_field {
    JOBIN_ID,
    JOBIN_SUBMIT,
    JOBIN_MODEL,
    JOBIN_BATCH,
    JOBIN_EPOCHS,
    JOBIN_DATA,
    JOBIN_GPUS,
    JOBIN_PODS,
    JOBIN_CPUS,
    JOBIN_MEM,
    JOBIN_IMAGE,
    JOBIN_ORIGIN,
    JOBIN_DURATION,
    JOBIN_GPU_MEM,
    JOBIN_SAMPLES,
    JOBIN_CPU_USED,
    JOBIN_NFIELDS,
};

/* The CSV column name of a field ("submit_s"). */
const char *jobin_field_name(int field);
/* The field of a CSV column name, or -1. */
int jobin_field_find(const char *name);
/* True for the fields that must be given (id ... origin). */
bool jobin_field_required(int field);

enum jobin_kind {
    JOBIN_ABSENT, /* not given: an error for a required field */
    JOBIN_NUM,    /* a number the input typed as one (JSON, an importer) */
    JOBIN_TEXT,   /* text, read as the CSV reader reads a cell (numbers strictly) */
    JOBIN_DEFAULT, /* origin only: the input names none, and the run's default applies (the
                    * job's origin is then JOBIN_DEFAULT_ORIGIN) */
};

/* The origin name of a job whose input names none (a Kubernetes Job without an origin
 * annotation). It is not a site's name (a site's name is never empty): the run replaces
 * it with its default origin, --origin or the cluster's controller_site (run.h). */
#define JOBIN_DEFAULT_ORIGIN ""

/* One field's value. */
struct jobin_val {
    int kind;          /* enum jobin_kind */
    double num;        /* JOBIN_NUM */
    const char *text;  /* JOBIN_TEXT (borrowed until jobin_add returns) */
    uint64_t line;     /* where the value starts; 0: the row's line */
    const char *label; /* the field's name in messages; NULL: the CSV column name */
};

/* One job's fields, indexed by enum jobin_field. */
struct jobin_row {
    uint64_t line; /* where the job starts, for messages and struct job's line (which
                    * saturates at UINT32_MAX) */
    struct jobin_val f[JOBIN_NFIELDS];
};

struct jobin;

/* A builder for the jobs of the input called `name` (used in messages). */
struct jobin *jobin_create(const char *name, const struct catalog *cat);
void jobin_destroy(struct jobin *b); /* NULL is a no-op */
/* Makes room for about `jobs` jobs and `pool_bytes` bytes of ids and origin names at
 * once (a reader that knows its input's size), instead of growing by doubling. */
void jobin_reserve(struct jobin *b, size_t jobs, size_t pool_bytes);

/* Checks a row's fields in the table's order (the model must be in the catalogue, or
 * absent, empty or "-" when a duration is given; ids are unique; a job's GPUs over all
 * its pods, gpus x pods, are below 2^31) and appends the job, with its pods when it has
 * more than one (jobset_set_pods: a set whose jobs all have one pod carries no pods
 * array). A JOBIN_NUM value of a whole-number field must be integral. Returns 0, or
 * CPN_EINPUT with "name:line: field: what is wrong" in err, adding nothing. */
int jobin_add(struct jobin *b, const struct jobin_row *row, char *err, size_t errlen);
/* Same, checking only the fields listed in order, in that order, so that the first
 * error reported is the first in the input (the CSV reader passes its header's
 * columns). The list must name id and origin. */
int jobin_add_in(struct jobin *b, const struct jobin_row *row, const int *order, size_t norder,
                 char *err, size_t errlen);

/* ---- Parts: one input read by two threads (the job CSV, sim/io/trace.c) ----
 *
 * A reader may hand the second part of its input, from a record boundary on, to another
 * thread with a part of its builder (the whole). The part's jobs go straight into the
 * whole's job array from an index at which the whole's jobs cannot have arrived (the
 * whole must not grow its array meanwhile: reserve it first); its ids and origin names
 * go into its own pool. Its rows are checked as the whole would check them, but for
 * duplicate ids: while every id comes after the one before, no id can repeat an earlier
 * one, and any row with an id out of order, or for which the part has no room left, is
 * deferred (JOBIN_DEFER, no message): the reader then reads the part's input again
 * with the whole, as if there had been no part. */
enum { JOBIN_DEFER = 1 };
/* A part of whole, whose job array (reserved, not grown from now on) it writes into
 * once placed. Only whole's name, catalogue and array are read, here. */
struct jobin *jobin_part_create(const struct jobin *whole);
/* Puts the part's first job at index `at` of the whole's array: false when the array
 * has no room there (the part is then of no use). Before the part's first row. */
bool jobin_part_place(struct jobin *p, size_t at);
/* Whether the part's rows may follow whole's (both done): the part was placed at or
 * after whole's jobs, deferred nothing, and its first id (when one was checked) comes
 * after whole's last, all of whose ids are in order. Then the part's error, if it had
 * one, is the input's first; else jobin_part_append joins them. */
bool jobin_part_fits(const struct jobin *whole, const struct jobin *p);
/* Appends the part's jobs to whole (jobin_part_fits must hold), as if whole had read
 * them (the same jobs, pool and pods), and destroys the part. */
void jobin_part_append(struct jobin *whole, struct jobin *p);

/* Moves the jobs into *out (initialised; what it held is freed), with source `name`
 * and the given digest of the input bytes, and destroys the builder. With no jobs
 * it fails with "name: no jobs", leaves *out untouched and destroys the builder too.
 * Returns 0 or CPN_EINPUT. */
int jobin_finish(struct jobin *b, const char sha256[65], struct jobset *out, char *err,
                 size_t errlen);

/* The model cell of a job that has no catalogue model (model -1). */
#define JOBIN_NO_MODEL "-"
/* Whole numbers below this print the same with %.15g as plain digits. */
#define JOBIN_PLAIN_LIMIT 1e15

/* Writes v in the shortest form (15, 16 or 17 significant digits; a whole number
 * below 10^15 as plain digits) that reads back to the same double: the form the
 * CSV and JSON writers use. buf needs JOBIN_REAL_BUF bytes. */
#define JOBIN_REAL_BUF 40
void jobin_format_real(double v, char buf[JOBIN_REAL_BUF]);

#endif
