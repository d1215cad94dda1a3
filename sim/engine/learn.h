/* learn: what the controller learns from the jobs it ran (issue 15; docs/predictor.md,
 * "Learning during a run"). Observations are summaries of completed runs, kept per key:
 * a catalogue model's step time per (model, batch, GPU type, GPUs), the ratio of
 * observed to predicted step per (model, batch, GPUs), (model, batch), (model, GPUs)
 * and model, its peak GPU memory per
 * (model, batch) and the ratio to the prediction per model, and for jobs given by
 * duration their run time per (origin, GPUs) and per GPU count. Observations count at
 * once in the table; what the estimates read is the published copy, which changes only
 * at learner_publish, so that estimates change a bounded number of times per run. */
#ifndef CPN_LEARN_H
#define CPN_LEARN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum learn_kind {
    LEARN_STEP,       /* (model, batch, type, gpus): log observed step time */
    LEARN_STEP_BGPUS, /* (model, batch, gpus): log(observed / predicted step), any type */
    LEARN_STEP_BATCH, /* (model, batch): the same, any type and GPU count */
    LEARN_STEP_GPUS,  /* (model, gpus): the same, any batch and type */
    LEARN_STEP_MODEL, /* (model): the same, any batch, type and GPU count */
    LEARN_MEM,        /* (model, batch): observed peak per GPU (the maximum) */
    LEARN_MEM_MODEL,  /* (model): log(observed peak / predicted peak before the margin) */
    LEARN_RUN,        /* (origin, gpus): log run time at speed 1 of a duration job */
    LEARN_RUN_GPUS,   /* (gpus): the same over every origin */
    LEARN_RUN_MEM,    /* (origin, gpus): observed peak per GPU of a model-less job (max) */
    LEARN_NKINDS
};

struct learner;

struct learner *learner_create(void);
void learner_destroy(struct learner *l); /* NULL is a no-op */

/* The handle of the key (kind, a, b, c, d; unused parts 0), making it, with no
 * observation, when it is new. A handle stays valid for the learner's life, so a caller
 * that adds to the same keys often may keep it and skip the look-up (learner_add_at). */
uint32_t learner_key(struct learner *l, enum learn_kind kind, uint32_t a, uint32_t b, uint32_t c,
                     uint32_t d);

/* Adds one observation x to the key of a handle from learner_key: to its mean (log
 * kinds) or its maximum (LEARN_MEM, LEARN_RUN_MEM). Returns true when the key had no
 * observation before. */
bool learner_add_at(struct learner *l, uint32_t key, double x);

/* learner_add_at of the key (kind, a, b, c, d). */
bool learner_add(struct learner *l, enum learn_kind kind, uint32_t a, uint32_t b, uint32_t c,
                 uint32_t d, double x);

/* The published value of a key: the mean of its observations (log kinds) or their
 * maximum; false when nothing of it is published. */
bool learner_get(const struct learner *l, enum learn_kind kind, uint32_t a, uint32_t b,
                 uint32_t c, uint32_t d, double *out, uint32_t *n);

/* Makes every observation so far what learner_get reads. */
void learner_publish(struct learner *l);

#endif
