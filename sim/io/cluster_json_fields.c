/* cluster_json_fields: the cluster reader's messages, typed field readers and name
 * indexes (see cluster_json_int.h). Every message names "file:line: field", or
 * "--set KEY" for a value that came from --set. */
#include "cluster_json_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"

/* ---- Messages -------------------------------------------------------------------- */

/* Writes "NAME:LINE: PATH: message" (or "--set KEY: message" when at came from
 * --set) into the caller's buffer. at is the item the message is about (for a
 * missing field, the object that lacks it); path may be "". Returns CPN_EINPUT. */
int cj_bad(const struct cj_ld *ld, const cJSON *at, const char *path, const char *fmt, ...)
{
    char msg[CPN_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (size_t k = 0, n = cluster_settable_count(); at && k < n; k++)
        if (ld->set_item[k] == at)
            return cpn_fail(ld->err, ld->errlen, CPN_EINPUT, "--set %s: %s", cluster_settable_name(k),
                            msg);
    const char *sep = *path ? ": " : "";
    int line = jpos_line(&ld->pos, at);
    if (line > 0)
        return cpn_fail(ld->err, ld->errlen, CPN_EINPUT, "%s:%d: %s%s%s", ld->name, line, path, sep,
                        msg);
    return cpn_fail(ld->err, ld->errlen, CPN_EINPUT, "%s: %s%s%s", ld->name, path, sep, msg);
}

/* Marks a path that did not fit in CJ_PATH_LEN bytes as cut short. */
static void cj_path_fit(char out[CJ_PATH_LEN], int n)
{
    if (n < 0 || n >= CJ_PATH_LEN)
        memcpy(out + CJ_PATH_LEN - 4, "...", 4);
}

void cj_path_key(char out[CJ_PATH_LEN], const char *parent, const char *key)
{
    cj_path_fit(out, snprintf(out, CJ_PATH_LEN, "%s%s%s", parent, *parent ? "." : "", key));
}

void cj_path_index(char out[CJ_PATH_LEN], const char *parent, size_t i)
{
    cj_path_fit(out, snprintf(out, CJ_PATH_LEN, "%s[%zu]", parent, i));
}

const char *cj_type_name(const cJSON *it)
{
    if (cJSON_IsString(it))
        return "a string";
    if (cJSON_IsNumber(it))
        return "a number";
    if (cJSON_IsBool(it))
        return "a boolean";
    if (cJSON_IsNull(it))
        return "null";
    if (cJSON_IsArray(it))
        return "an array";
    if (cJSON_IsObject(it))
        return "an object";
    return "an unknown value";
}

void cj_list_add(struct cj_namelist *l, const char *name)
{
    if (l->full)
        return;
    const char *sep = l->n ? ", " : "";
    size_t need = strlen(sep) + strlen(name);
    if (l->n + need + sizeof ", ..." > sizeof l->s) {
        snprintf(l->s + l->n, sizeof l->s - l->n, "%s...", sep);
        l->full = true;
        return;
    }
    snprintf(l->s + l->n, sizeof l->s - l->n, "%s%s", sep, name);
    l->n += need;
}

void cj_bound_text(const struct param_bound *b, char out[CJ_WANT_LEN])
{
    const char *what = b->whole ? "a whole number" : "a number";
    if (!isfinite(b->min) && !isfinite(b->max))
        snprintf(out, CJ_WANT_LEN, "%s", what); /* any finite value */
    else if (isfinite(b->max) && b->min_open)
        snprintf(out, CJ_WANT_LEN, "%s in (%.15g, %.15g]", what, b->min, b->max);
    else if (isfinite(b->max))
        snprintf(out, CJ_WANT_LEN, "%s from %.15g to %.15g", what, b->min, b->max);
    else
        snprintf(out, CJ_WANT_LEN, "%s %s %.15g", what, b->min_open ? ">" : ">=", b->min);
}

bool cj_in_bound(const struct param_bound *b, double v)
{
    if (!isfinite(v) || v < b->min || v > b->max || (b->min_open && v <= b->min))
        return false;
    return !b->whole || v == floor(v);
}

/* ---- Typed field readers ------------------------------------------------------- */

/* Checks obj's members against keys[0..n) and sets items[k] to the member named
 * keys[k], or NULL when absent. Members named x_* are ignored; any other unknown
 * member, and a repeated one, is an error. Returns 0 or CPN_EINPUT. */
int cj_take_fields(const struct cj_ld *ld, const cJSON *obj, const char *path,
                       const char *const keys[], size_t n, const cJSON *items[])
{
    for (size_t k = 0; k < n; k++)
        items[k] = NULL;
    for (const cJSON *ch = obj->child; ch; ch = ch->next) {
        if (strncmp(ch->string, "x_", 2) == 0)
            continue;
        size_t k = 0;
        while (k < n && strcmp(keys[k], ch->string) != 0)
            k++;
        char p[CJ_PATH_LEN];
        cj_path_key(p, path, ch->string);
        if (k == n) {
            struct cj_namelist l = {0};
            for (size_t j = 0; j < n; j++)
                cj_list_add(&l, keys[j]);
            return cj_bad(ld, ch, p, "unknown key (expected %s, or x_* for comments)", l.s);
        }
        if (items[k])
            return cj_bad(ld, ch, p, "duplicate key");
        items[k] = ch;
    }
    return CPN_OK;
}

/* Reads a number within b. An absent item (member of obj, at path) takes *def, or
 * is an error when def is NULL. Returns 0 with *out set, or CPN_EINPUT. */
int cj_get_num(const struct cj_ld *ld, const cJSON *obj, const cJSON *item, const char *path,
                   const struct param_bound *b, const double *def, double *out)
{
    if (!item && def) {
        *out = *def;
        return CPN_OK;
    }
    if (item && cJSON_IsNumber(item) && cj_in_bound(b, item->valuedouble)) {
        *out = item->valuedouble;
        return CPN_OK;
    }
    char want[CJ_WANT_LEN];
    cj_bound_text(b, want);
    if (!item)
        return cj_bad(ld, obj, path, "is required (%s)", want);
    if (!cJSON_IsNumber(item))
        return cj_bad(ld, item, path, "must be %s (got %s)", want, cj_type_name(item));
    if (!isfinite(item->valuedouble))
        return cj_bad(ld, item, path, "must be %s (got a number out of range)", want);
    return cj_bad(ld, item, path, "must be %s (got %.15g)", want, item->valuedouble);
}

/* Reads a non-empty string; absent is an error when required, else *out is NULL. */
int cj_get_str(const struct cj_ld *ld, const cJSON *obj, const cJSON *item, const char *path,
                   bool required, const char **out)
{
    if (!item) {
        if (required)
            return cj_bad(ld, obj, path, "is required (a non-empty string)");
        *out = NULL;
        return CPN_OK;
    }
    if (!cJSON_IsString(item) || !item->valuestring[0])
        return cj_bad(ld, item, path, "must be a non-empty string (got %s)",
                      cJSON_IsString(item) ? "\"\"" : cj_type_name(item));
    *out = item->valuestring;
    return CPN_OK;
}

/* The defaults of background_cpu's object form: a daily cycle, redrawn every five
 * minutes, longer than the default 60 s scrape so that a scraped load lasts a while. */
#define CJ_BG_PERIOD_S 86400.0
#define CJ_BG_STEP_S 300.0

int cj_get_background(const struct cj_ld *ld, const cJSON *item, const char *path,
                      struct cpu_background *out)
{
    static const char *const keys[] = {"mean", "amplitude", "period_s", "phase_s", "noise",
                                       "step_s"};
    enum { K_MEAN, K_AMP, K_PERIOD, K_PHASE, K_NOISE, K_STEP, K_N };
    static const struct param_bound mean_b = {.min = 0, .max = CLUSTER_MAX_BACKGROUND};
    static const struct param_bound nonneg = PARAM_AT_LEAST(0), positive = PARAM_ABOVE(0);
    static const struct param_bound any = {.min = -INFINITY, .max = INFINITY};
    static const double zero = 0, period = CJ_BG_PERIOD_S, step = CJ_BG_STEP_S;
    if (!item)
        return CPN_OK;
    struct cpu_background bg = {0};
    if (cJSON_IsNumber(item)) {
        /* The constant form: no cycle, no noise, so period_s and step_s stay unused. */
        int rc = cj_get_num(ld, NULL, item, path, &mean_b, NULL, &bg.mean);
        if (!rc)
            *out = bg;
        return rc;
    }
    if (!cJSON_IsObject(item))
        return cj_bad(ld, item, path,
                      "must be a number from 0 to %g or an object with a mean (got %s)",
                      CLUSTER_MAX_BACKGROUND, cj_type_name(item));
    const cJSON *it[K_N];
    int rc = cj_take_fields(ld, item, path, keys, K_N, it);
    const struct {
        const struct param_bound *b;
        const double *def; /* NULL: required */
        double *to;
    } f[K_N] = {
        [K_MEAN] = {&mean_b, NULL, &bg.mean},
        [K_AMP] = {&nonneg, &zero, &bg.amplitude},
        [K_PERIOD] = {&positive, &period, &bg.period_s},
        [K_PHASE] = {&any, &zero, &bg.phase_s},
        [K_NOISE] = {&nonneg, &zero, &bg.noise},
        [K_STEP] = {&positive, &step, &bg.step_s},
    };
    for (int k = 0; k < K_N && !rc; k++) {
        char p[CJ_PATH_LEN];
        cj_path_key(p, path, keys[k]);
        rc = cj_get_num(ld, item, it[k], p, f[k].b, f[k].def, f[k].to);
    }
    if (!rc)
        *out = bg;
    return rc;
}

int cj_need_object(const struct cj_ld *ld, const cJSON *item, const char *path)
{
    if (cJSON_IsObject(item))
        return CPN_OK;
    return cj_bad(ld, item, path, "must be an object (got %s)", cj_type_name(item));
}

/* ---- Name indexes -------------------------------------------------------------- */

static int cj_ix_cmp(const void *a, const void *b)
{
    const struct cj_name_ix *x = a, *y = b;
    int r = strcmp(x->name, y->name);
    return r ? r : (x->i > y->i) - (x->i < y->i);
}

static int cj_ix_name_cmp(const void *key, const void *b)
{
    return strcmp(key, ((const struct cj_name_ix *)b)->name);
}

/* Sorts ix[0..n) by name. Returns true when some name repeats, with *dup the first
 * repeat in document order and *orig the occurrence before it. */
bool cj_ix_sort(struct cj_name_ix *ix, size_t n, uint32_t *dup, uint32_t *orig)
{
    qsort(ix, n, sizeof *ix, cj_ix_cmp);
    bool found = false;
    for (size_t j = 1; j < n; j++)
        if (strcmp(ix[j - 1].name, ix[j].name) == 0 && (!found || ix[j].i < *dup)) {
            *dup = ix[j].i;
            *orig = ix[j - 1].i;
            found = true;
        }
    return found;
}

/* Position of a name in a sorted index without repeats, or -1. */
long cj_ix_find(const struct cj_name_ix *ix, size_t n, const char *name)
{
    const struct cj_name_ix *e = n ? bsearch(name, ix, n, sizeof *ix, cj_ix_name_cmp) : NULL;
    return e ? (long)e->i : -1;
}

size_t cj_array_len(const cJSON *a)
{
    size_t n = 0;
    for (const cJSON *ch = a->child; ch; ch = ch->next)
        n++;
    return n;
}
