/* param: the one descriptor form of a named tunable (kind, place in its struct,
 * default, bounds, meaning), used by the run's config table (cluster.c) and by each
 * policy's parameter table (policy_ops.params). It stores values and prints help
 * lines; reading them from JSON or --set is the cluster reader's job. */
#ifndef CPN_PARAM_H
#define CPN_PARAM_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Allowed range of a number: [min, max], or (min, max] when min_open; whole numbers
 * only when whole. */
struct param_bound {
    double min, max;
    bool min_open, whole;
};
/* The two open-ended bounds the tables use: [x, inf) and (x, inf). */
#define PARAM_AT_LEAST(x) {.min = (x), .max = INFINITY}
#define PARAM_ABOVE(x) {.min = (x), .max = INFINITY, .min_open = true}

enum param_kind { PARAM_DOUBLE, PARAM_UINT, PARAM_BOOL, PARAM_ENUM };

/* One tunable, stored as a double, unsigned, bool or int (the enum's index) at
 * offset in the struct it belongs to. */
struct param {
    const char *name;
    enum param_kind kind;
    size_t offset;            /* into the struct the table describes */
    double def;               /* a number; 0 or 1 for a bool; the name index for an enum */
    struct param_bound b;     /* numeric kinds only */
    const char *const *names; /* enum kinds only: the value names, NULL-terminated */
    const char *inf_word;     /* PARAM_DOUBLE: a word that stands for infinity, or NULL */
    const char *meaning;
};

/* Stores v (a number, 0/1, or an enum's index) into p's field of base. */
void param_store(void *base, const struct param *p, double v);
/* Stores every default of table t[0..n) into base. */
void param_defaults(void *base, const struct param *t, size_t n);
/* One help line per parameter: name, default, meaning (the `run --help` layout). */
void param_help(FILE *f, const struct param *t, size_t n);

#endif
