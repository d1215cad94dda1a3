/* sweep_spec: reading a sweep spec, numbering and naming its points, and checking
 * the values they use before anything runs (see sweep.h).
 *
 * Order and names. Points are numbered as nested loops over the grid keys in the
 * order the spec lists them, the last key innermost; a point's run directory is
 * "KEY=LABEL,..." over the grid keys in the same order. Labels keep only
 * [A-Za-z0-9._+-] (a file's label is its base name without extension), so names
 * need no quoting and stay unique as long as each key's labels are, which parsing
 * checks. */
#include "sweep.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "../engine/policy.h"
#include "../engine/catalog.h"
#include "../engine/cluster.h"
#include "../io/cluster_json.h"
#include "../base/jsonpos.h"
#include "../engine/predict.h"
#include "../base/util.h"

/* ---- The spec ------------------------------------------------------------------ */

/* The run options a key may name; any other key is a --set key. */
static const struct {
    const char *name;
    int kind;
} run_keys[] = {
    {"jobs", SWEEP_JOBS},           {"cluster", SWEEP_CLUSTER}, {"policy", SWEEP_POLICY},
    {"predictor", SWEEP_PREDICTOR}, {"seed", SWEEP_SEED},
};

/* Largest seed a JSON number carries exactly. */
#define SWEEP_MAX_SEED 9007199254740992.0

struct parse {
    const char *name;
    struct jpos pos;
    const char *dir;
    char *err;
    size_t errlen;
};

__attribute__((format(printf, 4, 5))) static int bad(const struct parse *p, const cJSON *at,
                                                     const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = jpos_vfail(p->err, p->errlen, p->name, &p->pos, at, field, fmt, ap);
    va_end(ap);
    return rc;
}

static bool key_name_ok(const char *s)
{
    if (!*s)
        return false;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_'))
            return false;
    return true;
}

static int kind_of(const char *name)
{
    for (size_t i = 0; i < sizeof run_keys / sizeof run_keys[0]; i++)
        if (strcmp(run_keys[i].name, name) == 0)
            return run_keys[i].kind;
    return SWEEP_SET;
}

static bool is_file_kind(int kind) { return kind == SWEEP_JOBS || kind == SWEEP_CLUSTER; }

/* The label of a value: only [A-Za-z0-9._+-], other bytes as '_'; a file's base name
 * without its extension; never empty, never starting with '.'. */
static char *make_label(const char *raw, bool is_file)
{
    const char *s = raw;
    size_t n = strlen(raw);
    if (is_file) {
        const char *slash = strrchr(raw, '/');
        if (slash)
            s = slash + 1;
        n = strlen(s);
        const char *dot = strrchr(s, '.');
        if (dot && dot > s)
            n = (size_t)(dot - s);
    }
    char *l = cpn_malloc(n + 2), *o = l;
    if (n == 0 || s[0] == '.')
        *o++ = '_';
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '.' || c == '_' || c == '+' || c == '-';
        *o++ = ok ? c : '_';
    }
    *o = '\0';
    return l;
}

static char *resolve_path(const char *dir, const char *path)
{
    if (path[0] == '/' || !dir || !*dir || strcmp(dir, ".") == 0)
        return cpn_strdup(path);
    return cpn_path_join(dir, path);
}

/* Reads one value of key k (index i) from item into k's arrays. field names it in
 * messages. */
static int read_value(const struct parse *p, struct sweep_key *k, size_t i, const cJSON *v,
                      const char *field)
{
    char num[32];
    const char *raw = NULL;
    if (cJSON_IsNull(v)) {
        if (!is_file_kind(k->kind))
            return bad(p, v, field, "null is allowed only for jobs and cluster (the default)");
        raw = "default";
    } else if (cJSON_IsString(v)) {
        if (k->kind == SWEEP_SEED)
            return bad(p, v, field, "must be a whole number >= 0 (got a string)");
        raw = v->valuestring;
        if (!*raw)
            return bad(p, v, field, "must not be empty");
        for (const char *c = raw; *c; c++)
            if ((unsigned char)*c < 0x20)
                return bad(p, v, field, "must not hold control characters");
    } else if (cJSON_IsNumber(v)) {
        if (k->kind == SWEEP_SEED) {
            double d = v->valuedouble;
            if (d < 0 || d != floor(d) || d > SWEEP_MAX_SEED)
                return bad(p, v, field, "must be a whole number >= 0 (got %g)", d);
            snprintf(num, sizeof num, "%.0f", d);
        } else if (k->kind != SWEEP_SET) {
            return bad(p, v, field, "must be a string");
        } else {
            stats_fmt(v->valuedouble, num);
        }
        raw = num;
    } else if (cJSON_IsBool(v)) {
        if (k->kind != SWEEP_SET)
            return bad(p, v, field, "must be a %s", k->kind == SWEEP_SEED ? "number" : "string");
        raw = cJSON_IsTrue(v) ? "true" : "false";
    } else {
        return bad(p, v, field, "must be a string, a number%s",
                   is_file_kind(k->kind) ? " or null" : " or a boolean");
    }
    k->raw[i] = cpn_strdup(raw);
    k->lines[i] = jpos_line(&p->pos, v);
    k->label[i] = make_label(raw, is_file_kind(k->kind) && !cJSON_IsNull(v));
    if (is_file_kind(k->kind)) {
        k->arg[i] = cJSON_IsNull(v) ? NULL : resolve_path(p->dir, raw);
    } else if (k->kind == SWEEP_SET) {
        size_t n = strlen(k->name) + strlen(raw) + 2;
        k->arg[i] = cpn_malloc(n);
        snprintf(k->arg[i], n, "%s=%s", k->name, raw);
    } else {
        k->arg[i] = cpn_strdup(raw);
    }
    return CPN_OK;
}

static void key_alloc(struct sweep_key *k, const char *name, size_t n, int line)
{
    k->name = cpn_strdup(name);
    k->kind = kind_of(name);
    k->line = line;
    k->n = n;
    k->raw = cpn_calloc(n, sizeof *k->raw);
    k->arg = cpn_calloc(n, sizeof *k->arg);
    k->label = cpn_calloc(n, sizeof *k->label);
    k->lines = cpn_calloc(n, sizeof *k->lines);
}

static void key_free(struct sweep_key *k)
{
    for (size_t i = 0; i < k->n; i++) {
        free(k->raw[i]);
        free(k->arg[i]);
        free(k->label[i]);
    }
    free(k->raw);
    free(k->arg);
    free(k->label);
    free(k->lines);
    free(k->name);
}

static int check_key_name(const struct parse *p, const cJSON *m, const char *section)
{
    char field[256];
    snprintf(field, sizeof field, "%s.%s", section, m->string);
    if (!key_name_ok(m->string))
        return bad(p, m, field,
                   "not a key: a key is a run option (jobs, cluster, policy, predictor, seed, "
                   "cpu_threshold) or a --set key");
    return CPN_OK;
}

static int parse_base(const struct parse *p, const cJSON *base, struct sweep_spec *sp)
{
    if (!cJSON_IsObject(base))
        return bad(p, base, "base", "must be an object of KEY: VALUE");
    size_t n = (size_t)cJSON_GetArraySize(base);
    sp->base = cpn_calloc(n, sizeof *sp->base);
    const cJSON *m;
    cJSON_ArrayForEach(m, base)
    {
        int rc = check_key_name(p, m, "base");
        if (rc)
            return rc;
        for (size_t j = 0; j < sp->n_base; j++)
            if (strcmp(sp->base[j].name, m->string) == 0)
                return bad(p, m, "base", "key '%s' is given twice", m->string);
        struct sweep_key *k = &sp->base[sp->n_base++];
        key_alloc(k, m->string, 1, jpos_line(&p->pos, m));
        char field[256];
        snprintf(field, sizeof field, "base.%s", m->string);
        if ((rc = read_value(p, k, 0, m, field)) != 0)
            return rc;
    }
    return CPN_OK;
}

static int parse_grid(const struct parse *p, const cJSON *grid, struct sweep_spec *sp)
{
    if (!cJSON_IsObject(grid))
        return bad(p, grid, "grid", "must be an object of KEY: [VALUE, ...]");
    size_t n = (size_t)cJSON_GetArraySize(grid);
    sp->grid = cpn_calloc(n, sizeof *sp->grid);
    sp->n_points = 1;
    const cJSON *m;
    cJSON_ArrayForEach(m, grid)
    {
        int rc = check_key_name(p, m, "grid");
        if (rc)
            return rc;
        char field[256];
        snprintf(field, sizeof field, "grid.%s", m->string);
        for (size_t j = 0; j < sp->n_grid; j++)
            if (strcmp(sp->grid[j].name, m->string) == 0)
                return bad(p, m, "grid", "key '%s' is given twice", m->string);
        for (size_t j = 0; j < sp->n_base; j++)
            if (strcmp(sp->base[j].name, m->string) == 0)
                return bad(p, m, field, "is also in base; give a key in one of them");
        if (!cJSON_IsArray(m) || cJSON_GetArraySize(m) == 0)
            return bad(p, m, field, "must be a non-empty array of values");
        size_t nv = (size_t)cJSON_GetArraySize(m);
        struct sweep_key *k = &sp->grid[sp->n_grid++];
        key_alloc(k, m->string, nv, jpos_line(&p->pos, m));
        size_t i = 0;
        const cJSON *v;
        cJSON_ArrayForEach(v, m)
        {
            char vf[300];
            snprintf(vf, sizeof vf, "%s[%zu]", field, i);
            if ((rc = read_value(p, k, i, v, vf)) != 0)
                return rc;
            for (size_t j = 0; j < i; j++)
                if (strcmp(k->label[j], k->label[i]) == 0)
                    return bad(p, v, vf,
                               strcmp(k->raw[j], k->raw[i]) == 0
                                   ? "'%s' is listed twice"
                                   : "'%s' gives the same directory name as an earlier value",
                               k->raw[i]);
            i++;
        }
        if (sp->n_points > SWEEP_MAX_POINTS / nv)
            return bad(p, m, field, "the grid has more than %u points", SWEEP_MAX_POINTS);
        sp->n_points *= nv;
    }
    return CPN_OK;
}

static int parse_baseline(const struct parse *p, const cJSON *bl, struct sweep_spec *sp)
{
    if (!cJSON_IsObject(bl) || cJSON_GetArraySize(bl) == 0)
        return bad(p, bl, "baseline", "must be an object of KEY: VALUE naming grid values");
    sp->baseline = cpn_calloc(sp->n_grid ? sp->n_grid : 1, sizeof *sp->baseline);
    for (size_t k = 0; k < sp->n_grid; k++)
        sp->baseline[k] = SIZE_MAX;
    const cJSON *m;
    cJSON_ArrayForEach(m, bl)
    {
        char field[256];
        snprintf(field, sizeof field, "baseline.%s", m->string);
        size_t k = 0;
        while (k < sp->n_grid && strcmp(sp->grid[k].name, m->string) != 0)
            k++;
        if (k == sp->n_grid)
            return bad(p, m, field, "not a grid key (the baseline picks values of grid keys)");
        if (sp->grid[k].kind == SWEEP_SEED)
            return bad(p, m, field, "the baseline is paired seed by seed; it cannot fix the seed");
        /* Read the value as the key reads its values, then find it among them. */
        struct sweep_key tmp;
        key_alloc(&tmp, m->string, 1, 0);
        int rc = read_value(p, &tmp, 0, m, field);
        size_t i = 0;
        if (!rc) {
            while (i < sp->grid[k].n && strcmp(sp->grid[k].raw[i], tmp.raw[0]) != 0)
                i++;
            if (i == sp->grid[k].n)
                rc = bad(p, m, field, "'%s' is not one of grid.%s's values", tmp.raw[0],
                         m->string);
        }
        key_free(&tmp);
        if (rc)
            return rc;
        sp->baseline[k] = i;
    }
    return CPN_OK;
}

int sweep_spec_parse(const char *name, const char *buf, size_t len, const char *dir,
                     struct sweep_spec **out, char *err, size_t errlen)
{
    struct parse p = {.name = name, .dir = dir, .err = err, .errlen = errlen};
    cJSON *root = NULL;
    int rc = jpos_parse(name, buf, len, &root, &p.pos, err, errlen);
    if (rc)
        return rc;
    struct sweep_spec *sp = cpn_calloc(1, sizeof *sp);
    sp->path = cpn_strdup(name);
    sp->n_points = 1;
    if (!cJSON_IsObject(root)) {
        rc = bad(&p, root, "spec", "must be an object with base, grid and baseline");
    } else {
        const cJSON *m;
        cJSON_ArrayForEach(m, root)
        {
            if (strcmp(m->string, "base") && strcmp(m->string, "grid") &&
                strcmp(m->string, "baseline") && strcmp(m->string, "description")) {
                rc = bad(&p, m, m->string,
                         "unknown field (known: base, grid, baseline, description)");
                break;
            }
        }
    }
    const cJSON *base = cJSON_GetObjectItemCaseSensitive(root, "base");
    const cJSON *grid = cJSON_GetObjectItemCaseSensitive(root, "grid");
    const cJSON *bl = cJSON_GetObjectItemCaseSensitive(root, "baseline");
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(root, "description");
    if (!rc && desc && !cJSON_IsString(desc))
        rc = bad(&p, desc, "description", "must be a string");
    if (!rc && base)
        rc = parse_base(&p, base, sp);
    if (!rc && grid)
        rc = parse_grid(&p, grid, sp);
    if (!rc && bl)
        rc = parse_baseline(&p, bl, sp);
    cJSON_Delete(root);
    jpos_free(&p.pos);
    if (rc) {
        sweep_spec_destroy(sp);
        return rc;
    }
    *out = sp;
    return CPN_OK;
}

int sweep_spec_load(const char *path, struct sweep_spec **out, char *err, size_t errlen)
{
    char *buf;
    size_t len;
    int rc = cpn_read_file(path, &buf, &len, err, errlen);
    if (rc)
        return rc;
    char *dir = cpn_strdup(path), *slash = strrchr(dir, '/');
    if (slash)
        slash[slash == dir ? 1 : 0] = '\0';
    else
        dir[0] = '\0';
    rc = sweep_spec_parse(path, buf, len, dir, out, err, errlen);
    free(dir);
    free(buf);
    return rc;
}

void sweep_spec_destroy(struct sweep_spec *sp)
{
    if (!sp)
        return;
    for (size_t i = 0; i < sp->n_base; i++)
        key_free(&sp->base[i]);
    for (size_t i = 0; i < sp->n_grid; i++)
        key_free(&sp->grid[i]);
    free(sp->base);
    free(sp->grid);
    free(sp->baseline);
    free(sp->path);
    free(sp);
}

/* ---- Points --------------------------------------------------------------------- */

void sweep_point(const struct sweep_spec *sp, size_t index, size_t *choice)
{
    CPN_ASSERT(index < sp->n_points);
    for (size_t k = sp->n_grid; k-- > 0;) {
        choice[k] = index % sp->grid[k].n;
        index /= sp->grid[k].n;
    }
}

char *sweep_point_name(const struct sweep_spec *sp, size_t index)
{
    if (sp->n_grid == 0)
        return cpn_strdup("base");
    size_t *c = cpn_calloc(sp->n_grid, sizeof *c);
    sweep_point(sp, index, c);
    size_t len = 1;
    for (size_t k = 0; k < sp->n_grid; k++)
        len += strlen(sp->grid[k].name) + strlen(sp->grid[k].label[c[k]]) + 2;
    char *s = cpn_malloc(len);
    s[0] = '\0';
    for (size_t k = 0; k < sp->n_grid; k++) {
        if (k)
            strcat(s, ",");
        strcat(s, sp->grid[k].name);
        strcat(s, "=");
        strcat(s, sp->grid[k].label[c[k]]);
    }
    free(c);
    if (strlen(s) > SWEEP_MAX_NAME) {
        /* Too long for some file systems: keep a readable head, end in a hash of the
         * whole name so that names stay distinct. */
        char hex[65];
        cpn_sha256_hex(s, strlen(s), hex);
        snprintf(s + SWEEP_MAX_NAME - 17, 18, "~%.16s", hex);
    }
    return s;
}

/* The arg that a point (value choices c) gives the run option of this kind, from base
 * or grid; NULL when the spec does not name it, or names it with null (the default). */
static const char *point_arg(const struct sweep_spec *sp, const size_t *c, int kind)
{
    for (size_t k = 0; k < sp->n_base; k++)
        if (sp->base[k].kind == kind)
            return sp->base[k].arg[0];
    for (size_t k = 0; k < sp->n_grid; k++)
        if (sp->grid[k].kind == kind)
            return sp->grid[k].arg[c[k]];
    return NULL;
}

void sweep_req_make(const struct sweep_spec *sp, size_t index, const char *out,
                    struct sweep_req *r)
{
    size_t *c = cpn_calloc(sp->n_grid ? sp->n_grid : 1, sizeof *c);
    if (sp->n_grid)
        sweep_point(sp, index, c);
    memset(r, 0, sizeof *r);
    r->sets = cpn_calloc(sp->n_base + sp->n_grid + 1, sizeof *r->sets);
    size_t ns = 0;
    for (size_t k = 0; k < sp->n_base; k++)
        if (sp->base[k].kind == SWEEP_SET)
            r->sets[ns++] = sp->base[k].arg[0];
    for (size_t k = 0; k < sp->n_grid; k++)
        if (sp->grid[k].kind == SWEEP_SET)
            r->sets[ns++] = sp->grid[k].arg[c[k]];
    const char *s;
    r->req.cluster = point_arg(sp, c, SWEEP_CLUSTER);
    r->req.jobs = point_arg(sp, c, SWEEP_JOBS);
    r->req.policy = (s = point_arg(sp, c, SWEEP_POLICY)) != NULL ? s : RUN_DEFAULT_POLICY;
    r->req.predictor = (s = point_arg(sp, c, SWEEP_PREDICTOR)) != NULL ? s : RUN_DEFAULT_PREDICTOR;
    uint64_t seed = RUN_DEFAULT_SEED;
    if ((s = point_arg(sp, c, SWEEP_SEED)) != NULL)
        CPN_ASSERT(cpn_parse_u64(s, &seed) == 0); /* parsing made it a whole number */
    r->req.seed = seed;
    r->req.sets = r->sets;
    r->req.n_sets = ns;
    r->req.out = out;
    free(c);
}

void sweep_req_free(struct sweep_req *r)
{
    free(r->sets);
    r->sets = NULL;
}

/* ---- Checking values before running --------------------------------------------- */

/* Where a value sits in the spec, for messages: "base.KEY" or "grid.KEY[i]". */
static void value_field(const struct sweep_key *k, bool in_grid, size_t i, char *buf, size_t n)
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
    value_field(k, in_grid, i, field, sizeof field);
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
    case SWEEP_JOBS:
        if (k->arg[i] && access(k->arg[i], R_OK) != 0) {
            snprintf(msg, sizeof msg, "cannot read '%s': %s", k->arg[i], strerror(errno));
            return spec_fail(sp, k, r->in_grid, i, msg, err, errlen);
        }
        return CPN_OK;
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
    default: return CPN_OK; /* seeds were checked when parsed */
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
