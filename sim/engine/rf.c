/* rf: a regression random forest (Breiman 2001). Each tree grows on a bootstrap sample
 * of the rows; at each node it looks at a random subset of the features and takes the
 * threshold that most reduces the sum of squared errors of the targets, until the node
 * reaches the depth limit, cannot keep min_leaf samples on each side, or has nothing
 * left to explain. A prediction is the mean of the trees' leaves.
 *
 * All trees live in one flat node array; a node's children are always stored after it,
 * which makes a prediction a short loop with no allocation. Every random draw comes
 * from one mt19937 generator seeded once, and ties
 * in sorting break on the row index, so a seed fixes the forest bit for bit. */
#include "rf.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"

#define RF_LEAF (-1)
/* A split must remove more than this fraction of the node's squared error: smaller
 * gains are rounding noise, and splitting on them would make trees depend on it. */
#define RF_MIN_GAIN_FRAC 1e-12
/* Format tag and version of a saved forest. */
#define RF_MAGIC "cpnsim-rf"
#define RF_FILE_VERSION 1

struct rf_node {
    int32_t feature; /* RF_LEAF, or the feature tested: x[feature] <= value goes left */
    uint32_t left, right;
    double value; /* threshold of a split, or the prediction of a leaf */
};

struct rf {
    size_t p;
    size_t ntrees;
    uint32_t *roots;
    struct rf_node *nodes;
    size_t nnodes, cap;
};

/* A row with its value on the feature being sorted. */
struct rf_pair {
    double v;
    uint32_t row;
};

/* What growing the trees needs; allocated once per training. A tree's sample is idx[]
 * (rows, repeated when drawn twice); for each feature j, ord[j * m ..] lists the sample
 * positions sorted by that feature. A node owns the same range [lo, hi) of every
 * feature's list, so finding the best threshold is one scan, and splitting a node is a
 * stable partition of each list: the rows are sorted once per training, each tree's
 * lists are read off that order in linear time, and no node sorts anything. */
struct rf_build {
    const double *x, *y;
    size_t n, p, m;
    const struct rf_params *prm;
    unsigned mtry;
    gsl_rng *rng;
    size_t *feat;          /* [p] the features, shuffled in part at each split */
    uint32_t *idx;         /* [m] the rows of the tree's sample */
    uint32_t *ord;         /* [p * m] sample positions by feature value */
    uint32_t *tmp;         /* [max(m, n)] scratch */
    unsigned char *left;   /* [m] 1 when the position goes left at the current split */
    unsigned char *live;   /* [levels * p] 1 when feature j varies on the node at that depth */
    uint32_t *gsorted;     /* [p * n] rows by feature value, sorted once */
    uint32_t *rowstart;    /* [n + 1] where each row's positions start in rowpos */
    uint32_t *rowpos;      /* [m] the sample's positions grouped by row */
    double *xs;            /* [p * m] feature j of sample position i at xs[j * m + i] */
    double *ys;            /* [m] the target of sample position i */
    struct rf_pair *pairs; /* [n] sort scratch */
    struct rf *f;
};

void rf_destroy(struct rf *f)
{
    if (!f)
        return;
    free(f->roots);
    free(f->nodes);
    free(f);
}

static uint32_t node_new(struct rf *f)
{
    CPN_ASSERT(f->nnodes < UINT32_MAX);
    cpn_grow((void **)&f->nodes, &f->cap, f->nnodes + 1, sizeof *f->nodes);
    f->nodes[f->nnodes] = (struct rf_node){.feature = RF_LEAF};
    return (uint32_t)f->nnodes++;
}

/* Value order, ties by row: a total order, the same on every platform. */
static int pair_cmp(const void *a, const void *b)
{
    const struct rf_pair *x = a, *y = b;
    if (x->v != y->v)
        return x->v < y->v ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

static double xval(const struct rf_build *b, uint32_t pos, size_t j)
{
    return b->xs[j * b->m + pos];
}

/* Sorts the rows by each feature once per training: gsorted[j * n ..] lists the rows by
 * (value of feature j, row). */
static void sort_rows(struct rf_build *b)
{
    for (size_t j = 0; j < b->p; j++) {
        for (uint32_t i = 0; i < b->n; i++)
            b->pairs[i] = (struct rf_pair){.v = b->x[(size_t)i * b->p + j], .row = i};
        qsort(b->pairs, b->n, sizeof *b->pairs, pair_cmp);
        for (size_t i = 0; i < b->n; i++)
            b->gsorted[j * b->n + i] = b->pairs[i].row;
    }
}

/* Each feature's list of the tree's sample positions, in (value, row, position) order:
 * the rows in their global order, each followed by its positions in the sample. */
static void presort(struct rf_build *b)
{
    memset(b->rowstart, 0, (b->n + 1) * sizeof *b->rowstart);
    for (uint32_t i = 0; i < b->m; i++)
        b->rowstart[b->idx[i] + 1]++;
    for (size_t r = 0; r < b->n; r++)
        b->rowstart[r + 1] += b->rowstart[r];
    memcpy(b->tmp, b->rowstart, b->n * sizeof *b->tmp); /* next free slot of each row */
    for (uint32_t i = 0; i < b->m; i++)
        b->rowpos[b->tmp[b->idx[i]]++] = i;
    /* The sample's values by position, so that the scans below read them in place. */
    for (uint32_t i = 0; i < b->m; i++) {
        const double *row = &b->x[(size_t)b->idx[i] * b->p];
        for (size_t j = 0; j < b->p; j++)
            b->xs[j * b->m + i] = row[j];
        b->ys[i] = b->y[b->idx[i]];
    }
    for (size_t j = 0; j < b->p; j++) {
        uint32_t *o = &b->ord[j * b->m];
        const uint32_t *g = &b->gsorted[j * b->n];
        size_t k = 0;
        for (size_t i = 0; i < b->n; i++)
            for (uint32_t q = b->rowstart[g[i]]; q < b->rowstart[g[i] + 1]; q++)
                o[k++] = b->rowpos[q];
    }
}

/* The best threshold on feature j for the node [lo, hi): sets *score to the largest
 * SL^2/nL + SR^2/nR over thresholds that leave min_leaf samples on each side, and
 * returns false when the feature is constant on the node (no threshold at all). */
static bool best_split(const struct rf_build *b, size_t lo, size_t hi, size_t j,
                       double *score, double *thr)
{
    const uint32_t *o = &b->ord[j * b->m];
    size_t cnt = hi - lo;
    if (!(xval(b, o[lo], j) < xval(b, o[hi - 1], j)))
        return false;
    double total = 0;
    for (size_t i = lo; i < hi; i++)
        total += b->ys[o[i]];
    double left = 0;
    size_t minl = b->prm->min_leaf;
    *score = -INFINITY;
    for (size_t i = lo; i + 1 < hi; i++) {
        left += b->ys[o[i]];
        size_t nl = i + 1 - lo, nr = cnt - nl;
        double v = xval(b, o[i], j), next = xval(b, o[i + 1], j);
        if (nl < minl || nr < minl || !(v < next))
            continue;
        double right = total - left;
        double s = left * left / (double)nl + right * right / (double)nr;
        if (s > *score) {
            *score = s;
            /* The midpoint, unless it rounds up onto the next value (adjacent doubles). */
            double t = v + (next - v) / 2;
            *thr = t < next ? t : v;
        }
    }
    return true;
}

/* Grows the subtree of the node [lo, hi) and returns its root. */
static uint32_t grow(struct rf_build *b, size_t lo, size_t hi, unsigned depth)
{
    uint32_t me = node_new(b->f);
    size_t cnt = hi - lo;
    const uint32_t *o0 = b->ord; /* any feature's list holds the node's samples */
    double mean = 0, sse = 0;
    for (size_t i = lo; i < hi; i++)
        mean += b->ys[o0[i]];
    mean /= (double)cnt;
    for (size_t i = lo; i < hi; i++) {
        double d = b->ys[o0[i]] - mean;
        sse += d * d;
    }
    b->f->nodes[me].value = mean;
    if (depth >= b->prm->max_depth || cnt < 2 * (size_t)b->prm->min_leaf || !(sse > 0))
        return me;

    /* A feature constant on a node is constant on all of its descendants: they neither
     * scan it nor keep its list in order, which is most of the work deep in a tree. The
     * first feature's list is kept in order all the same: it is the one the sums above
     * are taken over. */
    unsigned char *live = &b->live[depth * b->p];
    for (size_t j = 0; j < b->p; j++) {
        const uint32_t *o = &b->ord[j * b->m];
        live[j] = (depth == 0 || live[j - b->p]) && xval(b, o[lo], j) < xval(b, o[hi - 1], j);
    }

    /* Features in random order until mtry of them vary on these samples (constant ones
     * do not count, as in scikit-learn), or all have been tried. */
    double sum = mean * (double)cnt;
    double base = sum * sum / (double)cnt;
    double best = -INFINITY, best_thr = 0;
    size_t best_j = 0, tried = 0;
    for (size_t k = 0; k < b->p && tried < b->mtry; k++) {
        size_t r = k + (size_t)gsl_rng_uniform_int(b->rng, (unsigned long)(b->p - k));
        size_t j = b->feat[r];
        b->feat[r] = b->feat[k];
        b->feat[k] = j;
        double s = -INFINITY, t = 0;
        if (!live[j] || !best_split(b, lo, hi, j, &s, &t))
            continue;
        tried++;
        if (s > best) {
            best = s;
            best_thr = t;
            best_j = j;
        }
    }
    if (!(best - base > RF_MIN_GAIN_FRAC * sse))
        return me;

    /* Samples with x <= threshold go left; every feature's list is partitioned stably,
     * so each stays sorted within both children. */
    size_t nl = 0;
    for (size_t i = lo; i < hi; i++) {
        uint32_t pos = o0[i];
        b->left[pos] = xval(b, pos, best_j) <= best_thr;
        nl += b->left[pos];
    }
    CPN_ASSERT(nl > 0 && nl < cnt);
    for (size_t j = 0; j < b->p; j++) {
        if (!live[j] && j > 0)
            continue;
        uint32_t *o = &b->ord[j * b->m];
        size_t l = lo, r = 0;
        for (size_t i = lo; i < hi; i++) {
            /* Both stores, one kept: no branch to mispredict on a coin-flip test. */
            uint32_t pos = o[i];
            size_t go = b->left[pos];
            o[l] = pos;
            b->tmp[r] = pos;
            l += go;
            r += 1 - go;
        }
        memcpy(&o[l], b->tmp, r * sizeof *o);
    }
    uint32_t l = grow(b, lo, lo + nl, depth + 1);
    uint32_t r = grow(b, lo + nl, hi, depth + 1);
    struct rf_node *nd = &b->f->nodes[me];
    nd->feature = (int32_t)best_j;
    nd->value = best_thr;
    nd->left = l;
    nd->right = r;
    return me;
}

static double tree_predict(const struct rf *f, uint32_t root, const double *x)
{
    const struct rf_node *nd = &f->nodes[root];
    while (nd->feature != RF_LEAF)
        nd = &f->nodes[x[nd->feature] <= nd->value ? nd->left : nd->right];
    return nd->value;
}

double rf_predict(const struct rf *f, const double *x)
{
    double s = 0;
    for (size_t t = 0; t < f->ntrees; t++)
        s += tree_predict(f, f->roots[t], x);
    return s / (double)f->ntrees;
}

int rf_train(struct rf **out, const double *x, size_t n, size_t p, const double *y,
             const struct rf_params *prm, double *oob, char *err, size_t errlen)
{
    CPN_ASSERT(out && prm);
    if (n == 0 || p == 0)
        return cpn_fail(err, errlen, CPN_EINPUT, "rf: no %s to train on", n ? "features" : "rows");
    if (n >= UINT32_MAX || p > INT32_MAX)
        return cpn_fail(err, errlen, CPN_EINPUT, "rf: %zu rows of %zu features are too many", n,
                        p);
    if (prm->n_trees == 0 || prm->min_leaf == 0 || !(prm->sample_frac > 0) ||
        !(prm->sample_frac <= 1))
        return cpn_fail(err, errlen, CPN_EINPUT,
                        "rf: n_trees and min_leaf must be >= 1 and 0 < sample_frac <= 1");
    for (size_t i = 0; i < n * p; i++)
        if (!isfinite(x[i]))
            return cpn_fail(err, errlen, CPN_EINPUT, "rf: x[%zu][%zu] is not finite", i / p,
                            i % p);
    for (size_t i = 0; i < n; i++)
        if (!isfinite(y[i]))
            return cpn_fail(err, errlen, CPN_EINPUT, "rf: y[%zu] is not finite", i);

    size_t m = prm->bootstrap ? (size_t)llround(prm->sample_frac * (double)n) : n;
    if (m == 0)
        m = 1;
    if (m > SIZE_MAX / p)
        return cpn_fail(err, errlen, CPN_EINPUT, "rf: %zu rows of %zu features are too many", n,
                        p);
    struct rf *f = cpn_calloc(1, sizeof *f);
    f->p = p;
    f->ntrees = prm->n_trees;
    f->roots = cpn_calloc(f->ntrees, sizeof *f->roots);
    struct rf_build b = {.x = x, .y = y, .n = n, .p = p, .m = m, .prm = prm, .f = f,
                         .mtry = prm->mtry ? prm->mtry : (unsigned)(p / 3 ? p / 3 : 1),
                         .rng = gsl_rng_alloc(gsl_rng_mt19937)};
    if (!b.rng)
        cpn_panic(__FILE__, __LINE__, "gsl_rng_alloc failed");
    /* mt19937 takes an unsigned long seed; fold the high half in so every bit counts. */
    gsl_rng_set(b.rng, (unsigned long)(prm->seed ^ (prm->seed >> 32)));
    b.feat = cpn_calloc(p, sizeof *b.feat);
    for (size_t j = 0; j < p; j++)
        b.feat[j] = j;
    b.pairs = cpn_calloc(n, sizeof *b.pairs);
    b.idx = cpn_calloc(m, sizeof *b.idx);
    b.ord = cpn_calloc(p * m, sizeof *b.ord);
    b.tmp = cpn_calloc(n, sizeof *b.tmp); /* m <= n */
    b.left = cpn_calloc(m, sizeof *b.left);
    /* A node that splits is above the depth limit and holds more samples than its depth. */
    size_t levels = prm->max_depth < m ? prm->max_depth : m;
    b.live = cpn_calloc(levels * p + 1, sizeof *b.live);
    b.gsorted = cpn_calloc(p * n, sizeof *b.gsorted);
    b.rowstart = cpn_calloc(n + 1, sizeof *b.rowstart);
    b.rowpos = cpn_calloc(m, sizeof *b.rowpos);
    b.xs = cpn_calloc(p * m, sizeof *b.xs);
    b.ys = cpn_calloc(m, sizeof *b.ys);
    sort_rows(&b);
    uint32_t *idx = b.idx;
    unsigned *inbag = oob ? cpn_calloc(n, sizeof *inbag) : NULL;
    double *oob_sum = oob ? cpn_calloc(n, sizeof *oob_sum) : NULL;
    size_t *oob_cnt = oob ? cpn_calloc(n, sizeof *oob_cnt) : NULL;

    for (size_t t = 0; t < f->ntrees; t++) {
        if (inbag)
            memset(inbag, 0, n * sizeof *inbag);
        for (size_t i = 0; i < m; i++) {
            idx[i] = prm->bootstrap ? (uint32_t)gsl_rng_uniform_int(b.rng, (unsigned long)n)
                                    : (uint32_t)i;
            if (inbag)
                inbag[idx[i]]++;
        }
        presort(&b);
        f->roots[t] = grow(&b, 0, m, 0);
        for (size_t i = 0; oob && i < n; i++)
            if (!inbag[i]) {
                oob_sum[i] += tree_predict(f, f->roots[t], &x[i * p]);
                oob_cnt[i]++;
            }
    }
    for (size_t i = 0; oob && i < n; i++)
        oob[i] = oob_cnt[i] ? oob_sum[i] / (double)oob_cnt[i] : NAN;

    free(oob_cnt);
    free(oob_sum);
    free(inbag);
    free(b.ys);
    free(b.xs);
    free(b.rowpos);
    free(b.rowstart);
    free(b.gsorted);
    free(b.live);
    free(b.left);
    free(b.tmp);
    free(b.ord);
    free(b.idx);
    free(b.pairs);
    free(b.feat);
    gsl_rng_free(b.rng);
    *out = f;
    return CPN_OK;
}

size_t rf_nodes(const struct rf *f) { return f->nnodes; }
