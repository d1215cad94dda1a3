/* Prints a Gavel-format job trace (docs/import.md, "gavel") for the benchmark's Gavel
 * cases, deterministic from its seed. Usage: gavel_gen N [SEED] [JOBS_PER_HOUR].
 *
 * Each of the N jobs draws, as Gavel's own trace generator does:
 *   - its job type uniformly from Gavel's 26 (the model and batch pairs its throughput
 *     table measured on one V100, read here from the catalogue's measured points);
 *   - its scale factor from Gavel's Philly-like split, 1 GPU 70%, 2 GPUs 10%, 4 GPUs
 *     20% (Gavel gives 5% of its jobs 8 GPUs; those are 4 here: the trace stays within
 *     the 1, 2 and 4 GPUs of the benchmark's issue, and fits a 4-GPU node);
 *   - its run time on V100s from Gavel's Philly-like durations: 10^U(1.5, 3) minutes
 *     for 80% of the jobs and 10^U(3, 4) for the rest; its total_steps are that run
 *     time times the type's aggregate V100 throughput at its scale factor, so that the
 *     import replays it for that time on V100s;
 *   - its arrival from a Poisson process of JOBS_PER_HOUR (default 2) jobs an hour.
 * Priority weight 1 and no SLO (-1), which cpnsim does not model anyway. The random
 * stream is GSL's MT19937 seeded with SEED (default 1). */
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/util.h"
#include "../sim/engine/catalog.h"

#define GAVEL_DEFAULT_SEED 1
#define GAVEL_DEFAULT_JOBS_PER_HOUR 2.0
#define GAVEL_MAX_TYPES 64

/* How Gavel's trace names a catalogue model, and the command its jobs run (the
 * importer ignores the command; it is there so the trace reads as Gavel's). A model
 * Gavel measured at one batch only is named without "(batch size B)". */
static const struct gavel_name {
    const char *model, *gavel, *command;
    int with_batch;
} gavel_names[] = {
    {"resnet50", "ResNet-50", "cd %s/imagenet && python3 main.py", 1},
    {"resnet18_cifar", "ResNet-18", "cd %s/cifar10 && python3 main.py", 1},
    {"transformer", "Transformer", "cd %s/translation && python3 train.py", 1},
    {"lstm_lm", "LM", "cd %s/language_modeling && python3 main.py", 1},
    {"recommendation", "Recommendation", "cd %s/recommendation && python3 train.py", 1},
    {"cyclegan", "CycleGAN", "cd %s/cyclegan && python3 cyclegan.py", 0},
    {"a3c", "A3C", "cd %s/a3c && python3 main.py", 0},
};

/* One job type: a Gavel name, its model's command and batch, and its V100 step time
 * at 1, 2 and 4 GPUs (index by log2 of the scale factor). */
struct gavel_type {
    char name[64];
    const char *command;
    double step_s[3];
};

static const struct gavel_name *gavel_name_of(const char *model)
{
    for (size_t i = 0; i < sizeof gavel_names / sizeof *gavel_names; i++)
        if (strcmp(gavel_names[i].model, model) == 0)
            return &gavel_names[i];
    return NULL;
}

/* Fills types with the (model, batch) pairs Gavel measured on one V100, in the
 * catalogue's order; returns how many, or 0 on an error (printed). */
static size_t gavel_types(const struct catalog *cat, struct gavel_type *types)
{
    size_t np = catalog_points(cat, NULL, 0), n = 0;
    struct catalog_point *pts = cpn_malloc(np * sizeof *pts);
    catalog_points(cat, pts, np);
    for (size_t i = 0; i < np; i++) {
        const struct catalog_point *p = &pts[i];
        if (p->type != CAT_V100 || p->gpus != 1)
            continue;
        const struct gavel_name *g = gavel_name_of(catalog_model_name(cat, p->model));
        if (!g || n == GAVEL_MAX_TYPES) {
            fprintf(stderr, "gavel_gen: catalogue model %s has no Gavel name\n",
                    catalog_model_name(cat, p->model));
            n = 0;
            break;
        }
        struct gavel_type *t = &types[n++];
        if (g->with_batch)
            snprintf(t->name, sizeof t->name, "%s (batch size %u)", g->gavel, p->batch);
        else
            snprintf(t->name, sizeof t->name, "%s", g->gavel);
        t->command = g->command;
        for (unsigned k = 0; k < 3; k++) {
            struct profile prof;
            if (catalog_lookup(cat, p->model, p->batch, CAT_V100, 1.0, 1u << k, &prof) != CPN_OK) {
                fprintf(stderr, "gavel_gen: no V100 step time for %s\n", t->name);
                free(pts);
                return 0;
            }
            t->step_s[k] = prof.step_s;
        }
    }
    free(pts);
    return n;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argc > 4) {
        fprintf(stderr, "usage: gavel_gen N [SEED] [JOBS_PER_HOUR]\n");
        return 2;
    }
    char *end;
    unsigned long long n = strtoull(argv[1], &end, 10);
    unsigned long seed = argc > 2 ? strtoul(argv[2], NULL, 10) : GAVEL_DEFAULT_SEED;
    double per_hour = argc > 3 ? atof(argv[3]) : GAVEL_DEFAULT_JOBS_PER_HOUR;
    if (*end || !(per_hour > 0)) {
        fprintf(stderr, "gavel_gen: N must be a whole number and JOBS_PER_HOUR > 0\n");
        return 2;
    }
    char err[CPN_ERR_LEN];
    struct catalog *cat;
    if (catalog_create(&cat, err, sizeof err)) {
        fprintf(stderr, "gavel_gen: %s\n", err);
        return 1;
    }
    struct gavel_type types[GAVEL_MAX_TYPES];
    size_t nt = gavel_types(cat, types);
    catalog_destroy(cat);
    if (nt == 0)
        return 1;
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, seed);
    double t = 0;
    for (unsigned long long i = 0; i < n; i++) {
        const struct gavel_type *ty = &types[gsl_rng_uniform_int(rng, nt)];
        double r = gsl_rng_uniform(rng);
        unsigned k = r < 0.7 ? 0 : r < 0.8 ? 1 : 2;
        double lo = 1.5, hi = 3;
        if (gsl_rng_uniform(rng) >= 0.8)
            lo = 3, hi = 4;
        double run_s = 60 * pow(10, lo + (hi - lo) * gsl_rng_uniform(rng));
        /* Gavel's step count is over all workers: run time x aggregate throughput,
         * which is scale factor / step time of one step on all of them. */
        double steps = ceil(run_s * (double)(1u << k) / ty->step_s[k]);
        printf("%s\t%s\t%%s/gpusched\t--num_steps\t1\t%.0f\t%u\t1\t-1\t%.6f\n", ty->name,
               ty->command, steps, 1u << k, t);
        t += gsl_ran_exponential(rng, 3600 / per_hour);
    }
    gsl_rng_free(rng);
    return fflush(stdout) || ferror(stdout) ? 1 : 0;
}
