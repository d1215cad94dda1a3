/* sweep_check: the values a sweep's points would use, checked as the runs would
 * check them, before anything runs (see sweep.h): policies by name, jobs files (or
 * the traces of FORMAT:TRACE) and mix files readable, clusters loaded with every
 * --set value, predictors built. Each message names the spec's line and field. */
#include "sweep.h"
#include "sweep_int.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../engine/policy.h"
#include "../engine/catalog.h"
#include "../engine/cluster.h"
#include "../io/cluster_json.h"
#include "../io/gen.h"
#include "../engine/predict.h"
#include "../base/util.h"

/* ---- Checking values before running --------------------------------------------- */

void sweep_value_field(const struct sweep_key *k, bool in_grid, size_t i, char *buf, size_t n)
{
    if (in_grid)
        snprintf(buf, n, "grid.%s[%zu]", k->name, i);
    else
        snprintf(buf, n, "base.%s", k->name);
}

/* Turns a cluster or predictor error about a value into one that names the spec's
 * line and field; "--set KEY: " at its start is dropped (the field says it). */
static int spec_fail(const struct sweep_spec *sp, const struct sweep_key *k, bool in_grid,
                     size_t i, const char *msg, char *err, size_t errlen)
{
    char field[300];
    sweep_value_field(k, in_grid, i, field, sizeof field);
    size_t sl = strlen(k->name);
    if (strncmp(msg, "--set ", 6) == 0 && strncmp(msg + 6, k->name, sl) == 0 &&
        strncmp(msg + 6 + sl, ": ", 2) == 0)
        msg += 6 + sl + 2;
    char copy[CPN_ERR_LEN];
    snprintf(copy, sizeof copy, "%s", msg);
    return cpn_fail(err, errlen, CPN_EINPUT, "%s:%d: %s: %s", sp->path, k->lines[i], field, copy);
}

/* Whether the points to check use value i of grid key k. */
static bool uses(const size_t *only_choice, size_t k, size_t i)
{
    return !only_choice || only_choice[k] == i;
}

/* Base --set arguments, plus extra (NULL for none). Returns the count. */
static size_t base_sets(const struct sweep_spec *sp, const char **v, const char *extra)
{
    size_t n = 0;
    for (size_t k = 0; k < sp->n_base; k++)
        if (sp->base[k].kind == SWEEP_SET)
            v[n++] = sp->base[k].arg[0];
    if (extra)
        v[n++] = extra;
    return n;
}

/* A key and whether it is a grid key (for messages and --set handling). */
struct keyref {
    const struct sweep_key *k;
    bool in_grid;
};

static int check_value(const struct sweep_spec *sp, const struct keyref *r, size_t i,
                       const struct catalog *cat, const char *cluster, const char **sets,
                       char *err, size_t errlen)
{
    const struct sweep_key *k = r->k;
    char msg[CPN_ERR_LEN];
    switch (k->kind) {
    case SWEEP_POLICY:
        if (!policy_find(k->arg[i])) {
            int n = snprintf(msg, sizeof msg, "unknown policy '%s' (known:", k->arg[i]);
            for (size_t j = 0; j < policy_registry_len && n > 0 && (size_t)n < sizeof msg; j++)
                n += snprintf(msg + n, sizeof msg - (size_t)n, " %s", policy_registry[j]->name);
            if (n > 0 && (size_t)n < sizeof msg)
                snprintf(msg + n, sizeof msg - (size_t)n, ")");
            return spec_fail(sp, k, r->in_grid, i, msg, err, errlen);
        }
        return CPN_OK;
    case SWEEP_JOBS: /* a job file, or FORMAT:TRACE's trace (arg is its path) */
        if (k->arg[i] && access(k->arg[i], R_OK) != 0) {
            snprintf(msg, sizeof msg, "cannot read '%s': %s", k->arg[i], strerror(errno));
            return spec_fail(sp, k, r->in_grid, i, msg, err, errlen);
        }
        return CPN_OK;
    case SWEEP_MIX: {
        struct gen_mix *mix = NULL;
        if (k->arg[i] && gen_mix_load(k->arg[i], cat, &mix, msg, sizeof msg) != 0)
            return spec_fail(sp, k, r->in_grid, i, msg, err, errlen);
        gen_mix_destroy(mix);
        return CPN_OK;
    }
    case SWEEP_PREDICTOR: {
        struct predictor *pr = NULL;
        if (predictor_create(&pr, k->arg[i], cat, RUN_DEFAULT_SEED, msg, sizeof msg) != 0)
            return spec_fail(sp, k, r->in_grid, i, msg, err, errlen);
        predictor_destroy(pr);
        return CPN_OK;
    }
    case SWEEP_CLUSTER:
    case SWEEP_SET: {
        const char *path = k->kind == SWEEP_CLUSTER ? k->arg[i] : cluster;
        size_t n = base_sets(sp, sets, r->in_grid && k->kind == SWEEP_SET ? k->arg[i] : NULL);
        struct cluster *cl = NULL;
        if (cluster_load(path, sets, n, cat, &cl, msg, sizeof msg) != 0) {
            /* A message about the cluster file names that file; one about a --set
             * names the key, which the spec's field says better. */
            if (strncmp(msg, "--set ", 6) == 0 || k->kind == SWEEP_CLUSTER)
                return spec_fail(sp, k, r->in_grid, i, msg, err, errlen);
            return cpn_fail(err, errlen, CPN_EINPUT, "%s", msg);
        }
        cluster_destroy(cl);
        return CPN_OK;
    }
    default: return CPN_OK; /* seeds, counts and arrivals were checked when parsed */
    }
}

int sweep_check(const struct sweep_spec *sp, size_t only, char *err, size_t errlen)
{
    size_t *oc = NULL;
    if (only != SIZE_MAX) {
        CPN_ASSERT(only < sp->n_points);
        oc = cpn_calloc(sp->n_grid ? sp->n_grid : 1, sizeof *oc);
        if (sp->n_grid)
            sweep_point(sp, only, oc);
    }
    struct catalog *cat = NULL;
    int rc = catalog_create(&cat, err, errlen);
    const char **sets = cpn_calloc(sp->n_base + 2, sizeof *sets);
    /* --set values are checked against the first cluster the points use. */
    const char *cluster = NULL;
    for (size_t k = 0; k < sp->n_base; k++)
        if (sp->base[k].kind == SWEEP_CLUSTER)
            cluster = sp->base[k].arg[0];
    for (size_t k = 0; k < sp->n_grid; k++)
        if (sp->grid[k].kind == SWEEP_CLUSTER)
            cluster = sp->grid[k].arg[oc ? oc[k] : 0];
    bool cluster_checked = false;
    for (size_t k = 0; !rc && k < sp->n_base; k++) {
        struct keyref r = {&sp->base[k], false};
        cluster_checked |= sp->base[k].kind == SWEEP_CLUSTER;
        rc = check_value(sp, &r, 0, cat, cluster, sets, err, errlen);
    }
    for (size_t k = 0; !rc && k < sp->n_grid; k++) {
        struct keyref r = {&sp->grid[k], true};
        cluster_checked |= sp->grid[k].kind == SWEEP_CLUSTER;
        for (size_t i = 0; !rc && i < sp->grid[k].n; i++)
            if (uses(oc, k, i))
                rc = check_value(sp, &r, i, cat, cluster, sets, err, errlen);
    }
    if (!rc && !cluster_checked) {
        /* No cluster key: the base --set values still need a check on the default. */
        struct cluster *cl = NULL;
        char msg[CPN_ERR_LEN];
        size_t n = base_sets(sp, sets, NULL);
        if (cluster_load(NULL, sets, n, cat, &cl, msg, sizeof msg) != 0) {
            rc = cpn_fail(err, errlen, CPN_EINPUT, "%s", msg);
            for (size_t k = 0; k < sp->n_base; k++) {
                size_t sl = strlen(sp->base[k].name);
                if (sp->base[k].kind == SWEEP_SET && strncmp(msg, "--set ", 6) == 0 &&
                    strncmp(msg + 6, sp->base[k].name, sl) == 0 && msg[6 + sl] == ':')
                    rc = spec_fail(sp, &sp->base[k], false, 0, msg, err, errlen);
            }
        }
        cluster_destroy(cl);
    }
    free(sets);
    catalog_destroy(cat);
    free(oc);
    return rc;
}
