/* import_conv: what the trace converters share (sim/io/import*.c): the assumed
 * values, the counted reasons and notes, a converter's state, the rows of a job trace
 * and the groups of a machine list. Private to sim/io/import*.c; the public interface
 * is import.h. It reads no format itself. */
#ifndef CPN_IMPORT_CONV_H
#define CPN_IMPORT_CONV_H

#include "import.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct catalog;

enum {
    IMP_REASONS_MAX = 24, /* distinct skip reasons and notes of one conversion */
    IMP_SHOW_MAX = 40,    /* longest cell quoted in a message */
    IMP_ID_BUF = 64,
    IMP_NAME_BUF = 64,
};

/* Values for what the sources lack, each with its reason (docs/import.md). */
struct import_assume {
    double cpus, mem_gib;      /* a Philly or Gavel job's CPU and memory requests: none, so that
                                  only GPUs constrain placement, as in the simulators
                                  published with these traces (Philly and Gavel give none) */
    double data_gib, image_gib; /* nothing to move: every source is one datacenter and
                                   none records image or dataset sizes */
    unsigned batch, epochs;     /* placeholders of a duration job (the run time is given) */
    unsigned philly_machine_gpus; /* the largest Philly machine (cluster_machine_list) */
    double node_cpus_per_gpu;     /* Philly machines: cores and memory per GPU, placeholders */
    double node_mem_gib_per_gpu;  /* (the machine list has neither; Philly jobs ask for none) */
    double unknown_gpu_mem_gib; /* GPU types whose memory is undisclosed (openb G1-G3, PAI
                                   MISC): the smallest memory of the disclosed types, 16 GiB,
                                   so a memory-aware policy never over-commits them */
    double link_gbps, link_latency_ms; /* a data site (a Philly virtual cluster) to its compute
                                          site: the same datacenter */
    double gavel_default_batch; /* a Gavel job type without "(batch size B)" (CycleGAN, A3C):
                                   batch 1, as the catalogue reads Gavel's table */
};
extern const struct import_assume import_assume;

#define IMP_MIB_PER_GIB 1024.0
#define IMP_MILLI 1000.0
/* A run longer than this (about 31 years) is not a real job: skipped. */
#define IMP_DURATION_MAX 1e9

/* ---- Reasons and notes, counted ---- */

struct import_tally {
    struct {
        const char *what;
        size_t count;
        uint64_t first_line;
        bool skip; /* a skipped row, not a note */
    } r[IMP_REASONS_MAX];
    size_t n;
};

/* Counts a skipped row (skip) or a note under the reason `what` (a static string,
 * compared by address), remembering the line of its first row. */
void import_tally_add(struct import_tally *t, bool skip, const char *what, uint64_t line);

/* ---- A converter ---- */

/* A converter of one CSV record: the header first, then each data row. Returns 0 or
 * CPN_EINPUT with the message written. */
typedef int (*import_row_fn)(void *ctx, char **f, size_t nf, uint64_t line);

/* Trims blanks in place (the sources pad some cells) and returns the trimmed start. */
char *import_trim(char *s);

/* A converter's state. */
struct import_conv {
    const char *name;
    const struct import_opts *o;
    const struct catalog *cat;
    char *err;
    size_t errlen;
    struct import_tally t;
    size_t rows;
    bool have_header;
    int col[16];  /* column index of each wanted field, -1 when absent */
    size_t ncols; /* the header's field count */
    void *rows_v; /* the format's rows */
    size_t n, cap;
    size_t changed;
    char *pool;   /* NUL-terminated strings of the rows (ids, origins), one allocation */
    size_t pool_len, pool_cap;
};

/* Writes "name:line: col: message" as the error. Returns CPN_EINPUT. */
int import_fail(const struct import_conv *m, uint64_t line, const char *col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Maps the header's names (trimmed) to the wanted columns; a required one missing
 * is an error. Other columns are ignored. Returns 0 or CPN_EINPUT. */
int import_header(struct import_conv *m, char **f, size_t nf, uint64_t line,
                  const char *const *want, const bool *required, size_t nwant);
/* Checks a data row's field count. Returns 0 or CPN_EINPUT. */
int import_fields(const struct import_conv *m, size_t nf, uint64_t line);
/* A number cell, a whole-number cell (blanks trimmed). Return 0 or CPN_EINPUT. */
int import_num(const struct import_conv *m, char **f, int col, const char *name, uint64_t line,
               double *out);
int import_whole(const struct import_conv *m, char **f, int col, const char *name, uint64_t line,
                 uint64_t *out);
/* Appends a zeroed row of `size` bytes to the converter's rows and returns it. */
void *import_push(struct import_conv *m, size_t size);
/* Copies the n bytes at s, and a NUL, into the converter's pool; returns their offset
 * (valid until the converter is freed: the pool may move as it grows). */
size_t import_str(struct import_conv *m, const char *s, size_t n);

/* ---- Job traces ---- */

/* One job read from a trace, before sorting. */
struct import_job {
    double submit;   /* in the source's clock */
    double duration; /* < 0: none (Gavel gives steps) */
    uint64_t line;
    uint64_t samples;
    unsigned gpus, batch; /* gpus: of each pod */
    unsigned pods;        /* 0 or 1: one pod */
    int model; /* -1: none */
    double cpus, mem_gib; /* of each pod */
    double gpu_mem_gib; /* < 0: none (the catalogue's, at run time) */
    size_t id, origin;  /* offsets in the converter's pool (import_str) */
};

/* Reshapes a job wider than the options allow: folds it onto --max-gpus GPUs, keeping
 * its GPU time, or splits it into pods of at most --pod-gpus GPUs, keeping its
 * duration. Counts and notes what it changed. */
void import_wide(struct import_conv *m, struct import_job *r);

/* The job converters (import_philly.c, import_openb.c, import_gavel.c); ctx is a
 * struct import_conv whose rows are struct import_job. */
int import_philly_row(void *ctx, char **f, size_t nf, uint64_t line);
int import_openb_row(void *ctx, char **f, size_t nf, uint64_t line);
/* Gavel's tab-separated lines, the whole (NUL-terminated, modified) text. */
int import_gavel_parse(struct import_conv *m, char *buf);

/* ---- Machine lists ---- */

/* One group of identical machines. */
struct import_machines {
    double cpus, mem_gib;
    unsigned gpus;
    char type[IMP_NAME_BUF]; /* "" when gpus is 0 */
    size_t count;
    uint64_t line;
};

/* A GPU type seen in a machine list. */
struct import_gpu_type {
    char name[IMP_NAME_BUF];
    double mem_gib;
};

/* A machine list being converted. */
struct import_cl {
    struct import_conv m;
    struct import_machines *g;
    size_t ng, gcap;
    struct import_gpu_type *t;
    size_t nt, tcap;
    struct import_id {
        char *id;
        uint64_t line;
    } *ids; /* machine ids, to catch duplicates (sorted at the end) */
    size_t nids, idcap;
    size_t machines;
};

/* Adds a machine to its group (or a new one), and its GPU type. Returns 0 or
 * CPN_EINPUT. */
int import_cl_add(struct import_cl *c, const char *id, double cpus, double mem_gib, unsigned gpus,
                  const char *type, double type_mem, uint64_t line);
/* Checks a GPU model's name as a gpu_types key. Returns 0 or CPN_EINPUT naming col. */
int import_cl_type_ok(const struct import_cl *c, const char *type, const char *col, uint64_t line);
/* The memory of a GPU model of the lists; undisclosed ones get the assumed size. */
double import_cl_gpu_mem(struct import_cl *c, const char *model, uint64_t line);

/* The machine-list converters; ctx is a struct import_cl. */
int import_philly_machines_row(void *ctx, char **f, size_t nf, uint64_t line);
int import_openb_nodes_row(void *ctx, char **f, size_t nf, uint64_t line);
int import_pai_machines_row(void *ctx, char **f, size_t nf, uint64_t line);

#endif
