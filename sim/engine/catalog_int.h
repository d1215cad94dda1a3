/* catalog_int: the catalogue's representation and tables, shared by the readers of
 * the embedded measurements (catalog_load.c) and the derivation rules and queries
 * (catalog.c). Private to those two files: the interface is catalog.h. */
#ifndef CPN_CATALOG_INT_H
#define CPN_CATALOG_INT_H

#include "catalog.h"

#include <stdbool.h>
#include <stddef.h>

/* Names of the embedded files, used in messages for whichever buffer is read. */
#define CAT_PROFILE_NAME "data/h100_profile.csv"
#define CAT_GAVEL_NAME "data/gavel/simulation_throughputs.json"
#define CAT_COLOCATE_NAME "data/h100_colocate.csv"
#define CAT_CPU_NAME "data/cpu_pipeline.csv"

/* The tunables of the derivation rules, with their defaults, in one place. */
struct cat_tunables {
    const char *reference_model; /* measured on every type: it sets the type speeds */
    double mem_floor_frac;       /* below the smallest batch, memory >= this x mem(bmin) */
    unsigned colocate_sharers;   /* jobs per GPU in each co-location measurement */
    unsigned gavel_default_batch; /* batch of Gavel entries without "(batch size B)" */
};
extern const struct cat_tunables cat_tun;

#define CAT_MS_PER_S 1000.0
#define CAT_MIB_PER_GIB 1024.0
#define CAT_KIB 1024.0

/* GPU counts of Gavel's table; efficiency is 1 on one GPU by definition. */
enum { CAT_NCOUNTS = 4 };
extern const unsigned cat_gpu_counts[CAT_NCOUNTS];

extern const char *const cat_type_names[CAT_NTYPES];

/* Bytes of one training sample per model family, to turn a dataset's GiB into samples. */
struct cat_family {
    const char *name;
    double bytes_per_sample;
};
enum { CAT_NFAMILIES = 7 };
extern const struct cat_family cat_families[CAT_NFAMILIES];

/* Gavel's model names and the catalogue models they are. The parameter counts are
 * approximate published figures, used only for models absent from the H100 table. */
struct cat_gavel_model {
    const char *gavel;
    const char *model;
    const char *family;
    double params_m;
};
enum { CAT_NGAVEL = 7 };
extern const struct cat_gavel_model cat_gavel_models[CAT_NGAVEL];

/* One measured input pipeline of data/cpu_pipeline.csv. */
struct cat_pipe {
    char *name;
    double ms_per_sample; /* CPU milliseconds of one process per training sample, > 0 */
};

/* Which measured pipeline a model's input pipeline is taken to be: a rule names a model
 * (an exception) or a family, and the pipeline, or CAT_PIPE_NONE for a model whose CPU
 * cost per sample is taken to be 0. A model takes its own rule, else its family's. */
#define CAT_PIPE_NONE "none"
struct cat_pipe_rule {
    const char *model;  /* NULL for a family's rule */
    const char *family; /* NULL for a model's rule */
    const char *pipeline;
};
enum { CAT_NPIPE_RULES = 8 };
extern const struct cat_pipe_rule cat_pipe_rules[CAT_NPIPE_RULES];

/* Coefficients of log(mem_gib) = a + b log(params_m) + c log(batch). */
enum { CAT_MEM_NCOEF = 3 };

/* One (model, batch) measured on at least one type. */
struct cat_point {
    unsigned batch;
    double step_s[CAT_NTYPES];           /* alone on one GPU; 0 when not measured */
    double thr[CAT_NTYPES][CAT_NCOUNTS]; /* Gavel steps/s on G GPUs (aggregate); 0: none */
};

/* A (batch, type, GPU count) that Gavel's table measured at zero throughput: the model
 * cannot run so (docs/catalogue.md, "Measured zeros"). Kept apart from the points, which
 * hold only what a lookup can use. */
struct cat_zero {
    unsigned batch;
    int type;      /* enum cat_type */
    unsigned gpus;
};

/* Peak reserved memory measured on the H100 at one batch. */
struct cat_mem {
    unsigned batch;
    double gib;
};

struct cat_model {
    char *name;
    const char *family; /* points into cat_families */
    double bytes_per_sample; /* its family's, read at each placement: no search by name */
    double params_m;
    bool on_h100;
    struct cat_point *pts; /* ascending batch once loaded */
    size_t npts, cap;
    unsigned *batches;    /* the points' batches, for catalog_model_batches */
    struct cat_mem *mem;  /* ascending batch; empty for models not on the H100 table */
    size_t nmem, memcap;
    struct cat_zero *zeros; /* Gavel's measured zeros of the model, in table order */
    size_t nzeros, zerocap;
    const char *pipeline; /* a cat_pipe's name, or CAT_PIPE_NONE */
    double cpu_ms;        /* its ms per sample; 0 for CAT_PIPE_NONE */
};

struct catalog {
    struct cat_model *models;
    size_t nmodels, cap;
    double speed[CAT_NTYPES];
    double eff[CAT_NTYPES][CAT_NCOUNTS]; /* median efficiency per type and GPU count */
    double mem_coef[CAT_MEM_NCOEF];
    double share_overhead;
    struct cat_pipe *pipes; /* data/cpu_pipeline.csv, in file order */
    size_t npipes, pipecap;
};

/* ---- models and points (catalog.c) ---- */

/* The family called name, or NULL. */
const struct cat_family *cat_family_find(const char *name);
/* Index of the model called name, or -1. */
int cat_model_index(const struct catalog *c, const char *name);
/* Appends a model with no points; family is the name of one of cat_families. */
struct cat_model *cat_model_add(struct catalog *c, const char *name, const char *family,
                                double params_m);
/* The point of `batch`, added (with nothing measured) when absent. */
struct cat_point *cat_point_get(struct cat_model *m, unsigned batch);
/* True when Gavel's table measured (batch, type, gpus) of the model at zero. */
bool cat_zero_find(const struct cat_model *m, unsigned batch, int type, unsigned gpus);

/* ---- the embedded tables' readers (catalog_load.c) ---- */

/* Each reads its table from buf (named in messages by its embedded file) into c.
 * Return 0, or CPN_EINPUT with "name:line: ..." in err. */
int cat_profile_load(struct catalog *c, const char *buf, char *err, size_t errlen);
int cat_gavel_load(struct catalog *c, const char *buf, char *err, size_t errlen);
int cat_colocate_load(struct catalog *c, const char *buf, char *err, size_t errlen);
int cat_cpu_load(struct catalog *c, const char *buf, char *err, size_t errlen);

#endif
