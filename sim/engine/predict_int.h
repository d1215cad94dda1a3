/* predict_int: the predictor's state as its two files see it: the front end and the
 * learned methods (predict.c) and the cross-validation of `cpnsim predict --eval`
 * (predict_eval.c). Not part of predict.h's interface: nothing outside
 * sim/engine/predict*.c includes it. */
#ifndef CPN_PREDICT_INT_H
#define CPN_PREDICT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog.h"
#include "predict.h"

struct rf;

enum pred_kind { PRED_ORACLE, PRED_NOISY, PRED_RF, PRED_LINEAR, PRED_NN };

/* Benchmark scores per GPU type (the reference models are pred_bench in predict.c). */
enum { PRED_NBENCH = 3 };

/* Feature layout: these, then one column per model family. */
enum {
    PF_LOG_PARAMS,
    PF_LOG_BATCH,
    PF_LOG2_GPUS,
    PF_LOG_GPU_MEM, /* first feature of the GPU type */
    PF_LOG_SPEED,
    PF_BENCH,
    PF_NBASE = PF_BENCH + PRED_NBENCH,
};
enum { PRED_MAX_FAMILIES = 16, PRED_MAX_FEATURES = PF_NBASE + PRED_MAX_FAMILIES };
enum { PRED_NAME_LEN = 48 };

/* One learned target (normalised log step, log multi-GPU factor or log memory) by one
 * method. */
struct pred_model {
    bool trained;
    size_t n;                         /* training rows */
    struct rf *rf;                    /* rf */
    double lin[PRED_MAX_FEATURES + 1]; /* linear: intercept, then one per feature */
    double *nn_x, *nn_y;              /* nn: the training rows, standardised */
    double nn_mean[PRED_MAX_FEATURES], nn_scale[PRED_MAX_FEATURES]; /* scale 0: ignored */
    double oob_mape;
};

struct predictor {
    const struct catalog *cat;
    char *spec;
    enum pred_kind kind;
    double sigma;      /* noisy */
    double mem_margin; /* learned methods */
    uint64_t seed;
    unsigned rf_trees;
    size_t nmodels;
    bool *known;   /* [nmodels] the model has training points */
    bool *unseen;  /* [nmodels] left out of training by the spec's unseen= option */
    bool *measured; /* [nmodels * CAT_NTYPES] one-GPU training points of the model on the type */
    int *fam;      /* [nmodels] family column of each model */
    size_t nfam, p;
    char names[PRED_MAX_FEATURES][PRED_NAME_LEN];
    const char *name_ptr[PRED_MAX_FEATURES];
    double type_x[CAT_NTYPES][PF_NBASE]; /* the type's features (the rest are 0) */
    struct pred_model step, multi, mem;
    double train_s;
};

/* The training table (pred_data_build says what it holds). */
struct pred_data {
    struct catalog_point *pts;
    size_t n;
    double *x, *ystep, *ymulti, *ymem;
};

/* Fills d from the catalogue's measured points; pred_data_free releases it. */
void pred_data_build(const struct predictor *p, struct pred_data *d);
void pred_data_free(struct pred_data *d);

/* A predictor of the spec with nothing trained. Returns 0, or CPN_EINPUT with a message. */
int pred_new(struct predictor **out, const char *spec, const struct catalog *cat, uint64_t seed,
             const struct predictor_opts *o, char *err, size_t errlen);
/* Trains the three models on the rows of d with use[i]. The step model needs rows; the
 * multi-GPU model without rows is left out (factor 1); the memory model without rows is
 * left untrained when need_mem is false, else it is CPN_EINPUT. */
int pred_train(struct predictor *p, const struct pred_data *d, const bool *use, bool need_mem,
               char *err, size_t errlen);

/* The learned step time of (model, batch) on gpus GPUs of catalogue type t, and the
 * learned peak memory per GPU before the margin. */
double pred_learned_step_s(const struct predictor *p, int model, unsigned batch, unsigned gpus,
                           int t);
double pred_learned_mem_gib(const struct predictor *p, int model, unsigned batch, unsigned gpus,
                            int t);

#endif
