/* sweep_aggregate: a sweep's run directories into its tables and sweep.json (see
 * sweep.h); the statistics themselves are stats.c's. */
#include "sweep.h"
#include "sweep_int.h"

#include <stdint.h>
#include <stdlib.h>

#include <cjson/cJSON.h>

#include "../base/util.h"

/* ---- Aggregation ---------------------------------------------------------------- */

/* sweep.json: what `cpnsim plot` needs to read a sweep's tables: the grid keys and
 * their values in order, which key is the seed, and the baseline. */
static int write_sweep_json(const struct sweep_spec *sp, const char *out, char *err,
                            size_t errlen)
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
    cJSON *bl = cJSON_AddObjectToObject(o, "baseline");
    for (size_t k = 0; sp->baseline && k < sp->n_grid; k++)
        if (sp->baseline[k] != SIZE_MAX)
            cJSON_AddStringToObject(bl, sp->grid[k].name, sp->grid[k].raw[sp->baseline[k]]);
    char *txt = cJSON_Print(o);
    cJSON_Delete(o);
    struct afile af = {0};
    int rc = afile_open(&af, out, "sweep.json", err, errlen);
    if (!rc) {
        fputs(txt, af.f);
        fputc('\n', af.f);
        rc = afile_commit(&af, err, errlen);
    }
    free(txt);
    return rc;
}

int sweep_aggregate(const struct sweep_spec *sp, const char *out, size_t *n_missing, char *err,
                    size_t errlen)
{
    size_t n = sp->n_points;
    const char **keys = cpn_calloc(sp->n_grid + 1, sizeof *keys);
    const char **bl = cpn_calloc(sp->n_grid + 1, sizeof *bl);
    const char **params = cpn_calloc(n * (sp->n_grid ? sp->n_grid : 1), sizeof *params);
    struct stats_run *runs = cpn_calloc(n, sizeof *runs);
    size_t *c = cpn_calloc(sp->n_grid + 1, sizeof *c);
    size_t seed_key = sp->n_grid;
    for (size_t k = 0; k < sp->n_grid; k++) {
        keys[k] = sp->grid[k].name;
        if (sp->grid[k].kind == SWEEP_SEED)
            seed_key = k;
        if (sp->baseline && sp->baseline[k] != SIZE_MAX)
            bl[k] = sp->grid[k].raw[sp->baseline[k]];
    }
    for (size_t i = 0; i < n; i++) {
        if (sp->n_grid)
            sweep_point(sp, i, c);
        for (size_t k = 0; k < sp->n_grid; k++)
            params[i * sp->n_grid + k] = sp->grid[k].raw[c[k]];
        runs[i].name = sweep_point_name(sp, i);
        runs[i].params = &params[i * sp->n_grid];
    }
    char *rdir = cpn_path_join(out, "runs");
    struct stats_sweep sw = {.keys = keys, .n_keys = sp->n_grid, .seed_key = seed_key,
                             .baseline = sp->baseline ? bl : NULL, .runs = runs, .n_runs = n,
                             .runs_dir = rdir};
    int rc = cpn_mkdir_p(out, err, errlen);
    if (!rc)
        rc = write_sweep_json(sp, out, err, errlen);
    if (!rc)
        rc = stats_aggregate(&sw, out, n_missing, err, errlen);
    for (size_t i = 0; i < n; i++)
        free((char *)(uintptr_t)runs[i].name);
    free(rdir);
    free(c);
    free(runs);
    free(params);
    free(bl);
    free(keys);
    return rc;
}
