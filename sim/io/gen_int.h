/* gen_int: the job mix as the generator (gen.c) and the mix reader (gen_mix.c) both
 * see it: its distributions and fields, and the generator's limits the reader
 * checks against. Not part of gen.h's interface: nothing outside sim/io/gen*.c
 * includes it. */
#ifndef CPN_GEN_INT_H
#define CPN_GEN_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_randist.h>

#include "gen.h"

/* Whole-number draws (batch, epochs, GPUs) must be below 2^31, as in the job CSV. */
#define GEN_WHOLE_LIMIT 2147483648.0

/* Distributions of a mix. */

enum gen_dist_kind { GD_NONE, GD_CONST, GD_UNIFORM, GD_LOGNORMAL, GD_EMPIRICAL };

struct gen_dist {
    int kind;           /* enum gen_dist_kind; GD_NONE: use the default */
    double a, b;        /* const: a; uniform: [a, b]; lognormal: median a, sigma b */
    double lo, hi;      /* lognormal: draws are clamped to [lo, hi] */
    double *values;     /* empirical: the values ... */
    size_t n;
    gsl_ran_discrete_t *pick; /* ... and their weights */
};

struct gen_model_mix {
    int model;
    double weight;
    struct gen_dist batch, epochs, data;
};

struct gen_mix {
    char *name;
    struct gen_model_mix *models;
    size_t n_models;
    bool equal_weights;
    gsl_ran_discrete_t *model_pick;
    struct gen_dist gpus, epochs, data, image;
    bool has_cpus, has_mem;
    double cpus_per_gpu, mem_gib_per_gpu;
    bool has_count, has_arrival, has_hourly, has_distributed;
    double distributed;         /* share of distributed jobs */
    uint32_t max_pods;          /* 0: not given */
    struct gen_dist pod_gpus;   /* a distributed job's GPUs per pod; GD_NONE: gen_table's */
    size_t count;
    int arrival;
    double rate_per_s;
    double hourly[GEN_HOURS];
    char **origins;
    size_t n_origins;
    gsl_ran_discrete_t *origin_pick; /* NULL: uniform */
};

#endif
