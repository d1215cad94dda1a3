/* sweep_aggregate: a sweep's run directories into its tables and sweep.json (see
 * sweep.h), what the seed varies in each group, and the runs not done; the
 * statistics themselves are stats.c's. */
#include "sweep.h"
#include "sweep_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../engine/catalog.h"
#include "../engine/cluster.h"
#include "../io/cluster_json.h"
#include "../base/util.h"

/* ---- What the seed varies -------------------------------------------------------- */

/* The point of index's group whose seed takes its first value: the group's first
 * point in point order. */
static size_t group_first_point(const struct sweep_spec *sp, size_t index, size_t *c)
{
    if (sp->n_grid == 0)
        return index;
    sweep_point(sp, index, c);
    size_t first = 0;
    for (size_t k = 0; k < sp->n_grid; k++)
        first = first * sp->grid[k].n + (sp->grid[k].kind == SWEEP_SEED ? 0 : c[k]);
    return first;
}

/* Whether the predictor spec names a method that draws from the seed: the forest of
 * rf, the noise of noisy (linear, nn and oracle are fitted or read without it). */
static bool predictor_seeded(const char *spec)
{
    size_t n = strcspn(spec, ":");
    return (n == 2 && strncmp(spec, "rf", 2) == 0) || (n == 5 && strncmp(spec, "noisy", 5) == 0);
}

/* Whether a run's cluster has a node with noisy background load: 1, 0, or -1 when
 * it cannot be loaded. Cached by cluster path and --set values, which many groups
 * share. */
struct bg_cache {
    const struct catalog *cat;
    char **key;
    int *val;
    size_t n, cap_key, cap_val;
};

static int cluster_background(struct bg_cache *bc, const struct run_request *req)
{
    size_t len = strlen(req->cluster ? req->cluster : "") + 2;
    for (size_t i = 0; i < req->n_sets; i++)
        len += strlen(req->sets[i]) + 1;
    char *key = cpn_malloc(len);
    snprintf(key, len, "%s\x1f", req->cluster ? req->cluster : "");
    for (size_t i = 0; i < req->n_sets; i++) {
        strcat(key, req->sets[i]);
        strcat(key, "\x1f");
    }
    for (size_t i = 0; i < bc->n; i++)
        if (strcmp(bc->key[i], key) == 0) {
            free(key);
            return bc->val[i];
        }
    struct cluster *cl = NULL;
    char err[CPN_ERR_LEN];
    int v = -1;
    if (bc->cat && cluster_load(req->cluster, req->sets, req->n_sets, bc->cat, &cl, err,
                                sizeof err) == 0) {
        v = 0;
        for (size_t i = 0; i < cl->n_nodes; i++)
            v |= cl->nodes[i].bg.noise != 0;
    }
    cluster_destroy(cl);
    cpn_grow((void **)&bc->key, &bc->cap_key, bc->n + 1, sizeof *bc->key);
    cpn_grow((void **)&bc->val, &bc->cap_val, bc->n + 1, sizeof *bc->val);
    bc->key[bc->n] = key;
    bc->val[bc->n++] = v;
    return v;
}

/* What the seed varies in point index's run. Returns a string the caller frees. */
static char *point_varies(const struct sweep_spec *sp, size_t index, struct bg_cache *bc)
{
    struct sweep_req r;
    sweep_req_make(sp, index, "", &r);
    int background = cluster_background(bc, &r.req);
    char buf[128];
    snprintf(buf, sizeof buf, "%s%s%s%s", r.req.jobs ? "" : "+queue",
             predictor_seeded(r.req.predictor) ? "+predictor" : "",
             background > 0 ? "+background_load" : "", background < 0 ? "+unknown" : "");
    sweep_req_free(&r);
    return cpn_strdup(buf[0] ? buf + 1 : "nothing"); /* without the leading '+' */
}

char **sweep_seed_varies(const struct sweep_spec *sp)
{
    char **v = cpn_calloc(sp->n_points, sizeof *v);
    size_t *c = cpn_calloc(sp->n_grid + 1, sizeof *c);
    struct catalog *cat = NULL;
    char err[CPN_ERR_LEN];
    if (catalog_create(&cat, err, sizeof err) != 0)
        cat = NULL;
    struct bg_cache bc = {.cat = cat};
    /* A group's points share its first point's string. */
    for (size_t i = 0; i < sp->n_points; i++) {
        size_t first = group_first_point(sp, i, c);
        v[i] = first < i ? v[first] : point_varies(sp, i, &bc);
    }
    for (size_t i = 0; i < bc.n; i++)
        free(bc.key[i]);
    free(bc.key);
    free(bc.val);
    catalog_destroy(cat);
    free(c);
    return v;
}

void sweep_seed_varies_free(const struct sweep_spec *sp, char **v)
{
    size_t *c = cpn_calloc(sp->n_grid + 1, sizeof *c);
    for (size_t i = 0; v && i < sp->n_points; i++)
        if (group_first_point(sp, i, c) == i)
            free(v[i]);
    free(c);
    free(v);
}

/* The seed key's index, or n_grid. */
static size_t seed_key(const struct sweep_spec *sp)
{
    size_t k = 0;
    while (k < sp->n_grid && sp->grid[k].kind != SWEEP_SEED)
        k++;
    return k;
}

void sweep_note_seed(const struct sweep_spec *sp, char *const *varies, FILE *f)
{
    size_t sk = seed_key(sp);
    if (sk == sp->n_grid || sp->grid[sk].n < 2)
        return; /* one run per group: nothing to vary between */
    size_t *c = cpn_calloc(sp->n_grid, sizeof *c);
    /* Each distinct answer with its number of groups and its first group, in order. */
    struct answer {
        const char *what;
        size_t groups, first;
    } *tally = cpn_calloc(sp->n_points, sizeof *tally);
    size_t nt = 0;
    for (size_t i = 0; i < sp->n_points; i++) {
        if (group_first_point(sp, i, c) != i)
            continue;
        size_t t = 0;
        while (t < nt && strcmp(tally[t].what, varies[i]) != 0)
            t++;
        if (t == nt)
            tally[nt++] = (struct answer){varies[i], 0, i};
        tally[t].groups++;
    }
    fprintf(f, "sweep: the seed varies");
    for (size_t t = 0; t < nt; t++) {
        char *g = sweep_group_name(sp, tally[t].first);
        fprintf(f, "%s %s in %zu group%s (%s%s)", t ? ";" : "", tally[t].what, tally[t].groups,
                tally[t].groups == 1 ? "" : "s", tally[t].groups == 1 ? "" : "the first: ", g);
        free(g);
    }
    fputc('\n', f);
    free(tally);
    free(c);
}

/* ---- Aggregation ---------------------------------------------------------------- */

/* Baseline b as a JSON object of KEY: VALUE. */
static cJSON *baseline_json(const struct sweep_spec *sp, size_t b)
{
    cJSON *bl = cJSON_CreateObject();
    for (size_t k = 0; b < sp->n_baselines && k < sp->n_grid; k++) {
        size_t v = sp->baseline[b * sp->n_grid + k];
        if (v != SIZE_MAX)
            cJSON_AddStringToObject(bl, sp->grid[k].name, sp->grid[k].raw[v]);
    }
    return bl;
}

/* sweep.json: what `cpnsim plot` needs to read a sweep's tables: the grid keys and
 * their values in order, the baseline (the first; every one under "baselines"), and
 * per group what the seed varies. */
static int write_sweep_json(const struct sweep_spec *sp, char *const *varies, const char *out,
                            char *err, size_t errlen)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "spec", sp->path);
    cJSON_AddNumberToObject(o, "points", (double)sp->n_points);
    cJSON *keys = cJSON_AddArrayToObject(o, "keys");
    for (size_t k = 0; k < sp->n_grid; k++) {
        cJSON *e = cJSON_CreateObject();
        cJSON_AddStringToObject(e, "name", sp->grid[k].name);
        cJSON *vals = cJSON_AddArrayToObject(e, "values");
        cJSON *labels = cJSON_AddArrayToObject(e, "labels");
        for (size_t i = 0; i < sp->grid[k].n; i++) {
            cJSON_AddItemToArray(vals, cJSON_CreateString(sp->grid[k].raw[i]));
            cJSON_AddItemToArray(labels, cJSON_CreateString(sp->grid[k].label[i]));
        }
        cJSON_AddItemToArray(keys, e);
    }
    cJSON_AddItemToObject(o, "baseline", baseline_json(sp, 0));
    cJSON *bls = cJSON_AddArrayToObject(o, "baselines");
    for (size_t b = 0; b < sp->n_baselines; b++)
        cJSON_AddItemToArray(bls, baseline_json(sp, b));
    cJSON *groups = cJSON_AddArrayToObject(o, "groups");
    size_t *c = cpn_calloc(sp->n_grid + 1, sizeof *c);
    for (size_t i = 0; i < sp->n_points; i++) {
        if (group_first_point(sp, i, c) != i)
            continue;
        cJSON *g = cJSON_CreateObject();
        char *name = sweep_group_name(sp, i);
        cJSON_AddStringToObject(g, "name", name);
        cJSON_AddStringToObject(g, "seed_varies", varies[i]);
        cJSON_AddItemToArray(groups, g);
        free(name);
    }
    free(c);
    return sweep_write_json(out, "sweep.json", o, err, errlen);
}

int sweep_aggregate(const struct sweep_spec *sp, struct sweep_inputs *in, const char *out,
                    FILE *warn, size_t *n_missing, char *err, size_t errlen)
{
    size_t n = sp->n_points, nk = sp->n_grid;
    const char **keys = cpn_calloc(nk + 1, sizeof *keys);
    const char **bl = cpn_calloc(sp->n_baselines * nk + 1, sizeof *bl);
    const char **params = cpn_calloc(n * (nk ? nk : 1), sizeof *params);
    struct stats_run *runs = cpn_calloc(n, sizeof *runs);
    size_t *c = cpn_calloc(nk + 1, sizeof *c);
    char **varies = sweep_seed_varies(sp);
    for (size_t k = 0; k < nk; k++) {
        keys[k] = sp->grid[k].name;
        for (size_t b = 0; b < sp->n_baselines; b++) {
            size_t v = sp->baseline[b * nk + k];
            bl[b * nk + k] = v == SIZE_MAX ? NULL : sp->grid[k].raw[v];
        }
    }
    for (size_t i = 0; i < n; i++) {
        if (nk)
            sweep_point(sp, i, c);
        for (size_t k = 0; k < nk; k++)
            params[i * nk + k] = sp->grid[k].raw[c[k]];
        runs[i] = (struct stats_run){.name = sweep_point_name(sp, i), .params = &params[i * nk],
                                     .group = sweep_group_name(sp, i), .varies = varies[i]};
        /* A summary of other inputs, or one not valid, is no result of this spec. */
        char *dir = sweep_run_dir(out, runs[i].name), why[CPN_ERR_LEN];
        runs[i].absent = sweep_run_state(sp, in, i, dir, why, sizeof why) == SWEEP_RUN_STALE;
        free(dir);
    }
    char *rdir = cpn_path_join(out, "runs");
    struct stats_sweep sw = {.keys = keys, .n_keys = nk, .seed_key = seed_key(sp),
                             .baseline = sp->n_baselines ? bl : NULL,
                             .n_baselines = sp->n_baselines, .runs = runs, .n_runs = n,
                             .runs_dir = rdir, .warn = warn};
    int rc = cpn_mkdir_p(out, err, errlen);
    if (!rc)
        rc = write_sweep_json(sp, varies, out, err, errlen);
    if (!rc)
        rc = stats_aggregate(&sw, out, n_missing, err, errlen);
    for (size_t i = 0; i < n; i++) {
        free((char *)(uintptr_t)runs[i].name);
        free((char *)(uintptr_t)runs[i].group);
    }
    sweep_seed_varies_free(sp, varies);
    free(rdir);
    free(c);
    free(runs);
    free(params);
    free(bl);
    free(keys);
    return rc;
}

void sweep_list_missing(const struct sweep_spec *sp, struct sweep_inputs *in,
                        const char *out, FILE *f)
{
    size_t n = 0;
    for (size_t i = 0; i < sp->n_points; i++) {
        char *name = sweep_point_name(sp, i), *dir = sweep_run_dir(out, name), why[CPN_ERR_LEN];
        int state = sweep_run_state(sp, in, i, dir, why, sizeof why);
        if (state != SWEEP_RUN_DONE && n++ < SWEEP_MAX_LISTED)
            fprintf(f, "  %s%s%s\n", name, why[0] ? ": " : "", why);
        free(dir);
        free(name);
    }
    if (n > SWEEP_MAX_LISTED)
        fprintf(f, "  and %zu more\n", n - SWEEP_MAX_LISTED);
}
