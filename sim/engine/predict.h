/* predict: what the controller believes about a job's step time and peak GPU memory
 * on a GPU type: random forest, linear, nearest neighbour, oracle (the catalogue's
 * truth) or noisy oracle, chosen by a spec string. Policies reach it only through
 * view_estimate (view.h); they never know which method answers. The simulated
 * truth always comes from the catalogue. */
#ifndef CPN_PREDICT_H
#define CPN_PREDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog.h"

struct predictor;

/* spec: "rf" (default), "linear", "nn", "oracle", "noisy:SIGMA". A learned method may
 * take options, each ":KEY=VALUE": margin=X (the memory margin, below) and
 * unseen=MODEL[+MODEL...] (catalogue models left out of training, so that the run
 * treats them as never seen). Trains what it needs on the catalogue, seeded with seed.
 * Returns 0, or CPN_EINPUT with a message for a bad spec. */
int predictor_create(struct predictor **out, const char *spec, const struct catalog *cat,
                     uint64_t seed, char *err, size_t errlen);
void predictor_destroy(struct predictor *p); /* NULL is a no-op */
const char *predictor_spec(const struct predictor *p);

/* predictor_create in two halves, so that a caller can do other work while the
 * predictor trains (the default forests take some 30 ms; a run reads its jobs
 * meanwhile): predictor_create_begin starts it on a thread of its own (where none can
 * be started, predictor_create_end does all of it), and never fails;
 * predictor_create_end waits for it and returns what predictor_create would have,
 * the same predictor to the bit. spec and cat are borrowed and must stay as they are
 * until predictor_create_end, which every begin must be followed by (it frees pc). */
struct predictor_pending;
struct predictor_pending *predictor_create_begin(const char *spec, const struct catalog *cat,
                                                 uint64_t seed);
int predictor_create_end(struct predictor_pending *pc, struct predictor **out, char *err,
                         size_t errlen);

/* Predicted step time and peak memory per GPU of (model, batch) on `gpus` GPUs of a
 * GPU type (catalogue type cat_type, or -1 with its speed relative to H100), with the
 * same meaning as catalog_lookup. The same arguments always give the same answer.
 * Returns 0, or CPN_EINPUT for arguments out of range. */
int predictor_profile(const struct predictor *p, int model, unsigned batch, int cat_type,
                      double speed, unsigned gpus, struct profile *out);

/* False for a model the predictor was never trained on (a policy runs such a job
 * alone on its first run). */
bool predictor_knows(const struct predictor *p, int model);

/* True for oracle and noisy:SIGMA, the references that may see a job's own truth: its
 * duration_s and gpu_mem_gib. The learned methods (rf, linear, nn) may not: for a job
 * given by duration they estimate from the history of completed jobs (view.c). */
bool predictor_sees_truth(const struct predictor *p);

/* The factor noisy:SIGMA applies to a job's own duration (what 0) or GPU memory (what
 * 1): exp(SIGMA z), z a standard normal drawn from a hash of (seed, key, what); 1 for
 * every other method. */
double predictor_job_noise(const struct predictor *p, uint64_t key, unsigned what);

/* The memory margin the predictor adds (0 for oracle and noisy). */
double predictor_mem_margin(const struct predictor *p);

/* The learned methods (rf, linear, nn) add a safety margin to their memory predictions:
 * predicted peak = learned estimate x (1 + margin), so that a policy trusting them does
 * not over-commit a GPU whenever the estimate is low. Each method's default is the
 * smallest of PREDICT_EVAL_MARGINS that, trained on the whole catalogue, predicts no
 * generated job's memory below the simulator's truth (docs/predictor.md): the forest
 * shrinks the largest batches of each model towards its others (without a margin 60% of
 * them are low, the worst by 30%), the nearest neighbour returns its measurements.
 * Linear, a baseline, gets the forest's: in simulation no margin makes it usable (at 0
 * it causes OOM kills, from +25% its largest jobs are predicted to fit on no GPU).
 * The spec "METHOD:margin=X" sets it per run. */
#define PREDICT_DEFAULT_MEM_MARGIN 0.5 /* rf, the default predictor, and linear */
#define PREDICT_NN_MEM_MARGIN 0.1

/* Options of predictor_create_opts; start from PREDICTOR_OPTS_DEFAULT. */
struct predictor_opts {
    double mem_margin;  /* < 0: the method's default; the spec's ":margin=X" overrides it */
    unsigned rf_trees;  /* trees of each forest; 0 means the default */
    int exclude_model;  /* a catalogue model left out of training, or -1 */
    int exclude_type;   /* a catalogue type left out of training, or -1 */
};
#define PREDICTOR_OPTS_DEFAULT                                                              \
    ((struct predictor_opts){.mem_margin = -1, .rf_trees = 0, .exclude_model = -1,          \
                             .exclude_type = -1})

/* The memory margin a learned method ("rf", "linear", "nn") uses by default; 0 for
 * oracle, noisy and unknown names. */
double predictor_default_margin(const char *method);

/* predictor_create with options: training can leave a model or a GPU type out (the
 * predictor then does not know that model). Returns 0, or CPN_EINPUT with a message for
 * a bad spec or when what is left measures no memory. */
int predictor_create_opts(struct predictor **out, const char *spec, const struct catalog *cat,
                          uint64_t seed, const struct predictor_opts *o, char *err,
                          size_t errlen);

/* Names of the features, in the order the learned methods use them; *n gets the count.
 * Valid while p lives. */
const char *const *predictor_feature_names(const struct predictor *p, size_t *n);

/* What a predictor was trained on, for `cpnsim predict`. The oob figures are the
 * forest's out-of-bag mean absolute percentage errors (rf only; NaN otherwise). */
struct predictor_info {
    size_t n_step, n_multi, n_mem; /* training points: one-GPU steps, multi-GPU, memory */
    size_t n_features;
    size_t rf_trees, rf_nodes_step, rf_nodes_multi, rf_nodes_mem;
    double train_s; /* wall-clock time to train, for information only */
    double oob_step_mape, oob_multi_mape, oob_mem_mape; /* in percent; memory without the margin */
};
void predictor_get_info(const struct predictor *p, struct predictor_info *out);

/* ---- cross-validation (`cpnsim predict --eval`) ---- */

enum { PREDICT_EVAL_METHODS = 3 /* rf, linear, nn */, PREDICT_EVAL_CVS = 3 /* type, model, none */ };
/* Memory margins whose effect the evaluation reports, the default among them. */
#define PREDICT_EVAL_MARGINS {0.0, 0.1, 0.25, 0.5, 1.0}
enum { PREDICT_EVAL_NMARGINS = 5 };

/* Error of held-out predictions: absolute percentage errors |pred - true| / true. */
struct predict_eval_err {
    size_t n;    /* held-out measured points (0: nothing to evaluate) */
    double mape; /* mean, in percent */
    double p90;  /* 90th percentile, in percent */
    double low;  /* percent of predictions below the truth */
};

struct predict_eval_row {
    const char *method; /* "rf", "linear", "nn" */
    /* "type": leave one GPU type out; "model": leave one model out; "none": trained on
     * every point and compared with the simulator's truth (catalog_lookup) for the jobs
     * `cpnsim gen` draws (the H100 table's models at their listed batches; step time on
     * every type and 1, 2, 4, 8 GPUs; memory), which is what a policy is told */
    const char *cv;
    size_t folds;
    struct predict_eval_err step;
    struct predict_eval_err mem[PREDICT_EVAL_NMARGINS]; /* at each of PREDICT_EVAL_MARGINS */
};

struct predict_eval {
    struct predict_eval_row rows[PREDICT_EVAL_METHODS * PREDICT_EVAL_CVS];
    double margins[PREDICT_EVAL_NMARGINS];
    size_t n_step_points, n_mem_points; /* measured points in the catalogue */
    double wall_s;
};

/* Leave-one-GPU-type-out and leave-one-model-out cross-validation of rf, linear and nn
 * on the same folds, against the catalogue's measured points. rf_trees 0 means the
 * default forest (fewer trees make it faster, for tests). Returns 0, or CPN_EINPUT
 * when the catalogue has too few points. */
int predict_eval(const struct catalog *cat, uint64_t seed, unsigned rf_trees,
                 struct predict_eval *out, char *err, size_t errlen);

#endif
