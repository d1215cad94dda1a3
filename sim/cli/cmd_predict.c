/* cmd_predict: `cpnsim predict`, train the default predictor on the catalogue and say
 * what it learnt from; with --eval, cross-validate rf, linear and nn on the same folds
 * and print the error table of docs/predictor.md. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../engine/catalog.h"
#include "cmd.h"
#include "../engine/predict.h"
#include "../base/util.h"

#define PREDICT_DEFAULT_SEED 1

static const char *const usage_predict =
    "usage: cpnsim predict [--eval] [--seed N]\n"
    "\n"
    "Trains the random-forest predictor of step time and peak GPU memory on the profile\n"
    "catalogue's measured points and prints what it trained on, with its out-of-bag error.\n"
    "\n"
    "  --eval     leave-one-GPU-type-out and leave-one-model-out cross-validation of rf,\n"
    "             linear and nn on the same folds: mean and 90th-percentile absolute\n"
    "             percentage error of step time and memory, and the effect of the memory\n"
    "             safety margin (a Markdown table; docs/predictor.md explains it)\n"
    "  --seed N   seed of the forests (default 1)\n";

/* Prints "12.3%" into a cell, or "n/a" when nothing was evaluated. */
static void pct(FILE *f, double v, size_t n)
{
    if (n == 0 || isnan(v))
        fputs(" n/a |", f);
    else
        fprintf(f, " %.1f%% |", v);
}

static const char *cv_label(const char *cv)
{
    if (strcmp(cv, "type") == 0)
        return "GPU type";
    if (strcmp(cv, "model") == 0)
        return "model";
    return "nothing (vs the simulator's truth)";
}

/* Index in ev->margins of the method's default margin (it is one of them). */
static int default_margin_index(const struct predict_eval *ev, const char *method)
{
    for (int k = 0; k < PREDICT_EVAL_NMARGINS; k++)
        if (ev->margins[k] == predictor_default_margin(method))
            return k;
    return 0;
}

static void print_eval(FILE *f, const struct predict_eval *ev, uint64_t seed)
{
    fprintf(f,
            "Cross-validation on the catalogue's measured points: %zu step times, %zu memory "
            "peaks (H100 only); seed %llu.\n"
            "Error = |predicted - true| / true over the held-out points of all folds; low = "
            "share predicted below the truth.\n"
            "Memory is shown with each method's default margin; leaving a GPU type out "
            "leaves no memory to test (only the H100 has any).\n\n",
            ev->n_step_points, ev->n_mem_points, (unsigned long long)seed);
    fputs("| method | held out | folds | step n | step MAPE | step P90 | step low | margin | "
          "mem n | mem MAPE | mem P90 | mem low |\n"
          "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
          f);
    for (size_t r = 0; r < PREDICT_EVAL_METHODS * PREDICT_EVAL_CVS; r++) {
        const struct predict_eval_row *row = &ev->rows[r];
        int dm = default_margin_index(ev, row->method);
        const struct predict_eval_err *m = &row->mem[dm];
        fprintf(f, "| %s | %s | %zu | %zu |", row->method, cv_label(row->cv), row->folds,
                row->step.n);
        pct(f, row->step.mape, row->step.n);
        pct(f, row->step.p90, row->step.n);
        pct(f, row->step.low, row->step.n);
        fprintf(f, " +%.0f%% | %zu |", 100 * ev->margins[dm], m->n);
        pct(f, m->mape, m->n);
        pct(f, m->p90, m->n);
        pct(f, m->low, m->n);
        fputc('\n', f);
    }
    fputs("\nEffect of the memory margin: share of memory peaks predicted low / MAPE "
          "(* the method's default).\n\n| method | held out |",
          f);
    for (int k = 0; k < PREDICT_EVAL_NMARGINS; k++)
        fprintf(f, " +%.0f%% |", 100 * ev->margins[k]);
    fputs("\n|---|---|", f);
    for (int k = 0; k < PREDICT_EVAL_NMARGINS; k++)
        fputs("---:|", f);
    fputc('\n', f);
    for (size_t r = 0; r < PREDICT_EVAL_METHODS * PREDICT_EVAL_CVS; r++) {
        const struct predict_eval_row *row = &ev->rows[r];
        if (strcmp(row->cv, "type") == 0)
            continue; /* no memory to test */
        int dm = default_margin_index(ev, row->method);
        fprintf(f, "| %s | %s |", row->method, cv_label(row->cv));
        for (int k = 0; k < PREDICT_EVAL_NMARGINS; k++)
            fprintf(f, " %.0f%% / %.0f%%%s |", row->mem[k].low, row->mem[k].mape,
                    k == dm ? " *" : "");
        fputc('\n', f);
    }
    fprintf(f, "\n(%.2f s)\n", ev->wall_s);
}

static void print_summary(FILE *f, const struct predictor *p, uint64_t seed)
{
    struct predictor_info in;
    predictor_get_info(p, &in);
    size_t nf;
    const char *const *names = predictor_feature_names(p, &nf);
    fprintf(f, "predictor %s, seed %llu: trained on the profile catalogue in %.3f s\n",
            predictor_spec(p), (unsigned long long)seed, in.train_s);
    fprintf(f, "  step time: %zu measured one-GPU points (H100 table, Gavel's V100/P100/K80), "
               "out-of-bag error %.1f%%\n",
            in.n_step, in.oob_step_mape);
    fprintf(f, "  multi-GPU: %zu measured points of Gavel's (step on G GPUs / on one), "
               "out-of-bag error %.1f%%\n",
            in.n_multi, in.oob_multi_mape);
    fprintf(f, "  memory:    %zu measured points (H100 only), out-of-bag error %.1f%% before "
               "the +%.0f%% safety margin\n",
            in.n_mem, in.oob_mem_mape, 100 * predictor_default_margin("rf"));
    fprintf(f, "  forests:   %zu trees each; %zu, %zu and %zu nodes\n", in.rf_trees,
            in.rf_nodes_step, in.rf_nodes_multi, in.rf_nodes_mem);
    fprintf(f, "  features:  ");
    for (size_t j = 0; j < nf; j++)
        fprintf(f, "%s%s", j ? ", " : "", names[j]);
    fputs("\n`cpnsim predict --eval` cross-validates rf, linear and nn.\n", f);
}

int cmd_predict(int argc, char **argv)
{
    static const struct option opts[] = {{"eval", no_argument, 0, 'e'},
                                         {"seed", required_argument, 0, 's'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    bool eval = false;
    uint64_t seed = PREDICT_DEFAULT_SEED;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'e': eval = true; break;
        case 's':
            if (cpn_parse_u64(optarg, &seed) != 0)
                return cmd_usage_error("predict", "--seed: must be a whole number >= 0");
            break;
        case 'h': fputs(usage_predict, stdout); return 0;
        default: return cmd_usage_error("predict", "unknown option");
        }
    }
    if (optind < argc)
        return cmd_usage_error("predict", "unexpected argument");

    char err[CPN_ERR_LEN];
    struct catalog *cat = NULL;
    int rc = catalog_create(&cat, err, sizeof err);
    if (rc == CPN_OK && eval) {
        struct predict_eval ev;
        rc = predict_eval(cat, seed, 0, &ev, err, sizeof err);
        if (rc == CPN_OK)
            print_eval(stdout, &ev, seed);
    } else if (rc == CPN_OK) {
        struct predictor *p = NULL;
        rc = predictor_create(&p, "rf", cat, seed, err, sizeof err);
        if (rc == CPN_OK)
            print_summary(stdout, p, seed);
        predictor_destroy(p);
    }
    catalog_destroy(cat);
    return rc == CPN_OK ? 0 : cmd_fail(rc, err);
}
