/* rf: a regression random forest on dense double matrices. It owns the trees (bootstrap
 * samples, a random subset of features per split, splits that most reduce the variance,
 * depth and leaf-size limits), trains them from a seed through a GSL generator, and
 * answers predictions without allocating. It knows nothing of GPUs, jobs or catalogues. */
#ifndef CPN_RF_H
#define CPN_RF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rf;

/* The tunables of a forest. Start from RF_PARAMS_DEFAULT and change what you need. */
struct rf_params {
    unsigned n_trees;   /* trees averaged */
    unsigned max_depth; /* a node at this depth is a leaf (the root is depth 0) */
    unsigned min_leaf;  /* each side of a split keeps at least this many samples */
    unsigned mtry;      /* features tried per split; 0 means max(1, p / 3) */
    bool bootstrap;     /* true: each tree grows on rows drawn with replacement; false: on all rows
                           (then the trees differ only by their feature draws, and there is no
                           out-of-bag estimate) */
    double sample_frac; /* bootstrap sample size as a fraction of the rows, in (0, 1] */
    uint64_t seed;      /* seeds the mt19937 generator that draws samples and features */
};

#define RF_DEFAULT_TREES 100
#define RF_DEFAULT_MAX_DEPTH 12
#define RF_DEFAULT_MIN_LEAF 1
#define RF_DEFAULT_MTRY 0
#define RF_DEFAULT_BOOTSTRAP true
#define RF_DEFAULT_SAMPLE_FRAC 1.0
#define RF_DEFAULT_SEED 1
#define RF_PARAMS_DEFAULT                                                                   \
    ((struct rf_params){.n_trees = RF_DEFAULT_TREES, .max_depth = RF_DEFAULT_MAX_DEPTH,     \
                        .min_leaf = RF_DEFAULT_MIN_LEAF, .mtry = RF_DEFAULT_MTRY,           \
                        .bootstrap = RF_DEFAULT_BOOTSTRAP,                                  \
                        .sample_frac = RF_DEFAULT_SAMPLE_FRAC, .seed = RF_DEFAULT_SEED})

/* Trains a forest on n rows of p features (x row-major, n * p values) and n targets.
 * Every value must be finite. When oob is not NULL it gets, for each row, the mean
 * prediction of the trees whose bootstrap sample left that row out (NaN when every tree
 * drew it). The same data, parameters and seed give the same forest bit for bit.
 * Returns 0, or CPN_EINPUT with a message (no rows, no features, a non-finite value,
 * a parameter out of range); *out is then untouched. */
int rf_train(struct rf **out, const double *x, size_t n, size_t p, const double *y,
             const struct rf_params *prm, double *oob, char *err, size_t errlen);
void rf_destroy(struct rf *f); /* NULL is a no-op */

/* Mean of the trees' leaf values for one row x of the features the forest was trained
 * on. Allocates nothing. */
double rf_predict(const struct rf *f, const double *x);

size_t rf_nodes(const struct rf *f); /* over all trees */

#endif
