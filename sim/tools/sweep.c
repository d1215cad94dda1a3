/* sweep: the parameter grid (see sweep.h).
 *
 * Order and names. Points are numbered as nested loops over the grid keys in the
 * order the spec lists them, the last key innermost; a point's run directory is
 * "KEY=LABEL,..." over the grid keys in the same order. Labels keep only
 * [A-Za-z0-9._+-] (a file's label is its base name without extension), so names
 * need no quoting and stay unique as long as each key's labels are, which parsing
 * checks.
 *
 * Running. Each point runs in a forked child that calls run_simulation(), rather
 * than exec'ing the binary: the child already holds the parsed spec, needs no path to
 * the executable or re-parsing of arguments, and a crash or an abort() on a broken
 * invariant ends one run, not the sweep. The parent blocks SIGINT, SIGTERM and SIGCHLD
 * and waits for them with sigtimedwait(), so there is no signal handler and no
 * global flag. run_simulation() writes summary.json last and atomically, so a run
 * directory with one is complete: that is the whole resume rule. A child killed
 * mid-way leaves no summary.json and is run again next time. */
#include "sweep.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "../engine/policy.h"
#include "../engine/catalog.h"
#include "../engine/cluster.h"
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
    char msg[CPN_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cpn_fail(p->err, p->errlen, CPN_EINPUT, "%s:%d: %s: %s", p->name,
                    jpos_line(&p->pos, at), field, msg);
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
    size_t n = strlen(dir) + strlen(path) + 2;
    char *s = cpn_malloc(n);
    snprintf(s, n, "%s/%s", dir, path);
    return s;
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

/* ---- Running -------------------------------------------------------------------- */

/* Progress bar width in characters, and how often the sweep wakes while nothing ends
 * (to redraw the bar's ETA, and to reap a child whose SIGCHLD it may have missed). */
#define SWEEP_BAR_WIDTH 30
#define SWEEP_TICK_NS 250000000L

static char *path_join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = cpn_malloc(n);
    snprintf(s, n, "%s/%s", a, b);
    return s;
}

static char *run_dir(const char *out, const char *name)
{
    size_t n = strlen(out) + strlen(name) + sizeof "/runs/";
    char *s = cpn_malloc(n);
    snprintf(s, n, "%s/runs/%s", out, name);
    return s;
}

static bool file_exists(const char *dir, const char *name)
{
    char *p = path_join(dir, name);
    struct stat sb;
    bool ok = stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
    free(p);
    return ok;
}

/* Removes the temporaries (".NAME.tmp.PID", util.h's afile) that a killed run left. */
static void clear_temporaries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' && strstr(e->d_name, ".tmp.")) {
            char *p = path_join(dir, e->d_name);
            remove(p);
            free(p);
        }
    }
    closedir(d);
}

/* The child: run the point, leave a message in error.txt on failure, exit with the
 * run's status. It never returns, and leaves through _exit so that the parent's
 * stdio buffers and exit handlers are not run twice. */
_Noreturn static void child_main(const struct sweep_spec *sp, size_t index, const char *dir,
                                 const struct sigaction *old_act, const sigset_t *old_mask)
{
    sigaction(SIGINT, &old_act[0], NULL);
    sigaction(SIGTERM, &old_act[1], NULL);
    sigaction(SIGCHLD, &old_act[2], NULL);
    sigprocmask(SIG_SETMASK, old_mask, NULL);
    struct sweep_req r;
    sweep_req_make(sp, index, dir, &r);
    char err[CPN_ERR_LEN];
    int rc = run_simulation(&r.req, NULL, err, sizeof err);
    char *ep = path_join(dir, "error.txt");
    if (rc) {
        FILE *f = fopen(ep, "w");
        if (f) {
            fprintf(f, "%s\n", err);
            fclose(f);
        }
    } else {
        remove(ep);
    }
    _exit(cpn_exit_status(rc));
}

struct slot {
    pid_t pid;
    size_t point;
    double t0;
};

struct runner {
    const struct sweep_spec *sp;
    const struct sweep_opts *o;
    struct sweep_tally *t;
    size_t n_todo, finished; /* runs to do now, and of those ended (done or failed) */
    double t0;
    bool bar_drawn;
};

static void fmt_duration(double s, char *buf, size_t n)
{
    if (!(s >= 0) || s > 1e8) {
        snprintf(buf, n, "--");
        return;
    }
    unsigned long v = (unsigned long)(s + 0.5);
    if (v >= 3600)
        snprintf(buf, n, "%luh%02lum", v / 3600, v / 60 % 60);
    else if (v >= 60)
        snprintf(buf, n, "%lum%02lus", v / 60, v % 60);
    else
        snprintf(buf, n, "%lus", v);
}

/* Remaining time: the mean wall time per ended run so far, times the runs left, over
 * the runs at once. Unknown until one has ended. */
static double eta_s(const struct runner *ru)
{
    if (ru->finished == 0)
        return -1;
    double per = (cpn_wall_s() - ru->t0) / (double)ru->finished;
    return per * (double)(ru->n_todo - ru->finished);
}

static void draw_bar(struct runner *ru)
{
    FILE *f = ru->o->progress;
    if (!f || !ru->o->tty)
        return;
    size_t total = ru->t->total, done = ru->t->done_before + ru->finished;
    size_t fill = total ? done * SWEEP_BAR_WIDTH / total : SWEEP_BAR_WIDTH;
    char bar[SWEEP_BAR_WIDTH + 1], eta[32];
    for (size_t i = 0; i < SWEEP_BAR_WIDTH; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[SWEEP_BAR_WIDTH] = '\0';
    fmt_duration(eta_s(ru), eta, sizeof eta);
    fprintf(f, "\r[%s] %zu/%zu done, %zu failed, ETA %s\033[K", bar, done, total, ru->t->failed,
            eta);
    fflush(f);
    ru->bar_drawn = true;
}

/* A line of its own: on a terminal it replaces the bar, which is drawn again after. */
__attribute__((format(printf, 2, 3))) static void say(struct runner *ru, const char *fmt, ...)
{
    FILE *f = ru->o->progress;
    if (!f)
        return;
    if (ru->o->tty && ru->bar_drawn)
        fputs("\r\033[K", f);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fflush(f);
    ru->bar_drawn = false;
}

static char *read_error(const char *dir)
{
    char *p = path_join(dir, "error.txt"), *buf = NULL;
    size_t len;
    char err[CPN_ERR_LEN];
    if (cpn_read_file(p, &buf, &len, err, sizeof err) == 0) {
        while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
            buf[--len] = '\0';
    }
    free(p);
    return buf;
}

/* A child has ended with wait status st. */
static void ended(struct runner *ru, const struct slot *s, int st, int stopping)
{
    char *name = sweep_point_name(ru->sp, s->point);
    char *dir = run_dir(ru->o->out, name);
    bool ok = WIFEXITED(st) && WEXITSTATUS(st) == 0 && file_exists(dir, "summary.json");
    bool by_us = stopping && WIFSIGNALED(st) &&
                 (WTERMSIG(st) == SIGTERM || WTERMSIG(st) == SIGKILL || WTERMSIG(st) == stopping);
    if (!ok)
        clear_temporaries(dir);
    if (by_us) {
        /* Stopped on request: neither done nor failed; the next sweep redoes it. */
    } else if (ok) {
        ru->t->ran++;
        ru->finished++;
        if (!ru->o->tty)
            say(ru, "sweep: [%zu/%zu] done %s (%.2f s)\n", ru->t->done_before + ru->finished,
                ru->t->total, name, cpn_wall_s() - s->t0);
    } else {
        ru->t->failed++;
        ru->finished++;
        int sev = WIFEXITED(st) && WEXITSTATUS(st) == 2 ? 2 : 1;
        if (ru->t->worst != 2)
            ru->t->worst = sev;
        char *msg = read_error(dir);
        if (WIFSIGNALED(st))
            say(ru, "sweep: FAILED %s: killed by signal %d\n", name, WTERMSIG(st));
        else
            say(ru, "sweep: FAILED %s: %s\n", name, msg ? msg : "no summary.json written");
        free(msg);
    }
    free(dir);
    free(name);
}

static int start(struct runner *ru, struct slot *s, size_t point, const struct sigaction *old_act,
                 const sigset_t *old_mask, char *err, size_t errlen)
{
    char *name = sweep_point_name(ru->sp, point);
    char *dir = run_dir(ru->o->out, name);
    int rc = cpn_mkdir_p(dir, err, errlen);
    if (!rc) {
        clear_temporaries(dir);
        fflush(NULL); /* or the child would write the parent's buffered output again */
        pid_t pid = fork();
        if (pid == 0)
            child_main(ru->sp, point, dir, old_act, old_mask);
        if (pid < 0)
            rc = cpn_fail(err, errlen, CPN_EIO, "cannot start a run: fork: %s", strerror(errno));
        *s = (struct slot){.pid = pid, .point = point, .t0 = cpn_wall_s()};
    }
    free(dir);
    free(name);
    return rc;
}

/* The signal disposition for SIGCHLD while the sweep waits: a handler that does
 * nothing, so that the signal is neither ignored (which would reap children for us)
 * nor lost; sigtimedwait takes it while it is blocked. */
static void on_sigchld(int sig) { (void)sig; }

int sweep_execute(const struct sweep_spec *sp, const struct sweep_opts *o, struct sweep_tally *t,
                  char *err, size_t errlen)
{
    CPN_ASSERT(o->jobs >= 1);
    *t = (struct sweep_tally){0};
    struct runner ru = {.sp = sp, .o = o, .t = t, .t0 = cpn_wall_s()};
    size_t first = o->only == SIZE_MAX ? 0 : o->only;
    size_t last = o->only == SIZE_MAX ? sp->n_points : o->only + 1;
    size_t *todo = cpn_calloc(last - first, sizeof *todo);
    for (size_t i = first; i < last; i++) {
        char *name = sweep_point_name(sp, i);
        char *dir = run_dir(o->out, name);
        if (file_exists(dir, "summary.json"))
            t->done_before++;
        else
            todo[ru.n_todo++] = i;
        free(dir);
        free(name);
    }
    t->total = last - first;
    if (o->progress)
        fprintf(o->progress, "sweep: %zu run%s in %s/runs: %zu done before, %zu to run, %u at a time\n",
                t->total, t->total == 1 ? "" : "s", o->out, t->done_before, ru.n_todo,
                o->jobs);

    /* Signals: a SIGINT or SIGTERM that the caller ignores stays ignored. */
    struct sigaction old_act[3], act = {0};
    sigset_t wait_set, old_mask;
    sigemptyset(&wait_set);
    sigaction(SIGINT, NULL, &old_act[0]);
    sigaction(SIGTERM, NULL, &old_act[1]);
    if (old_act[0].sa_handler != SIG_IGN)
        sigaddset(&wait_set, SIGINT);
    if (old_act[1].sa_handler != SIG_IGN)
        sigaddset(&wait_set, SIGTERM);
    sigaddset(&wait_set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &wait_set, &old_mask);
    act.sa_handler = on_sigchld;
    sigemptyset(&act.sa_mask);
    sigaction(SIGCHLD, &act, &old_act[2]);

    struct slot *slots = cpn_calloc(o->jobs, sizeof *slots);
    size_t n_running = 0, next = 0;
    int stopping = 0, rc = 0;
    draw_bar(&ru);
    for (;;) {
        while (!stopping && !rc && n_running < o->jobs && next < ru.n_todo) {
            rc = start(&ru, &slots[n_running], todo[next], old_act, &old_mask, err, errlen);
            if (!rc) {
                n_running++;
                next++;
            }
        }
        if (n_running == 0)
            break;
        bool any = false;
        for (size_t i = 0; i < n_running;) {
            int st;
            pid_t p = waitpid(slots[i].pid, &st, WNOHANG);
            if (p == slots[i].pid || (p < 0 && errno == ECHILD)) {
                if (p < 0)
                    st = 0x7f00; /* lost: count it as failed */
                ended(&ru, &slots[i], st, stopping);
                slots[i] = slots[--n_running];
                any = true;
            } else {
                i++;
            }
        }
        if (any) {
            draw_bar(&ru);
            continue;
        }
        if (rc && !stopping) {
            /* A run could not be started: stop the others as on SIGTERM. */
            stopping = SIGTERM;
            for (size_t i = 0; i < n_running; i++)
                kill(slots[i].pid, SIGTERM);
        }
        struct timespec ts = {0, SWEEP_TICK_NS};
        int sig = sigtimedwait(&wait_set, NULL, &ts);
        if (sig == SIGINT || sig == SIGTERM) {
            /* The first asks the children to stop; a second insists. */
            for (size_t i = 0; i < n_running; i++)
                kill(slots[i].pid, stopping ? SIGKILL : SIGTERM);
            if (!stopping) {
                stopping = sig;
                t->signal = sig;
                say(&ru, "sweep: %s: stopping %zu running run%s\n",
                    sig == SIGINT ? "interrupted" : "terminated", n_running,
                    n_running == 1 ? "" : "s");
            }
        }
        draw_bar(&ru);
    }
    if (o->progress && o->tty && ru.bar_drawn)
        fputc('\n', o->progress);
    sigaction(SIGCHLD, &old_act[2], NULL);
    /* Signals that arrived after the first stay pending; consume them so that the
     * caller decides what a stop means (cmd_sweep re-raises the first). */
    struct timespec zero = {0, 0};
    while (sigtimedwait(&wait_set, NULL, &zero) > 0)
        ;
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    free(slots);
    free(todo);
    return rc;
}

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
    char *rdir = path_join(out, "runs");
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

/* ---- Emitting scripts for Slurm and GNU Parallel -------------------------------- */

/* Writes s in single quotes for sh. */
static void put_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    }
    fputc('\'', f);
}

/* Indices as Slurm's --array ranges: "0-3,5,7-9". */
static void put_ranges(FILE *f, const size_t *v, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        fprintf(f, "%s%zu", i ? "," : "", v[i]);
        if (j > i)
            fprintf(f, "-%zu", v[j]);
        i = j + 1;
    }
}

struct emit_ctx {
    const char *bin, *spec, *out;
    const size_t *todo;
    size_t n_todo, n_points;
    int kind;
};

static void put_command(FILE *f, const struct emit_ctx *e)
{
    put_quoted(f, e->bin);
    fputs(" sweep ", f);
    put_quoted(f, e->spec);
    fputs(" --out ", f);
    put_quoted(f, e->out);
    fputs(" --only ", f);
}

static int write_emit(FILE *f, const void *ctx)
{
    const struct emit_ctx *e = ctx;
    if (e->kind == SWEEP_EMIT_PARALLEL) {
        for (size_t i = 0; i < e->n_todo; i++) {
            put_command(f, e);
            fprintf(f, "%zu\n", e->todo[i]);
        }
        return ferror(f) ? -1 : 0;
    }
    fprintf(f,
            "#!/bin/sh\n"
            "# A Slurm job array for the cpnsim sweep %s: one task per run not yet done\n"
            "# (%zu of %zu). Each task runs `cpnsim sweep SPEC --only INDEX`; a run whose\n"
            "# summary.json exists is skipped, so the array may be submitted again.\n"
            "# Array indices are the points' indices: Slurm's MaxArraySize must exceed %zu.\n"
            "#\n"
            "#   sbatch %s/sweep.sbatch\n"
            "#\n"
            "# When every task has ended, aggregate (or let Slurm do it):\n"
            "#   jid=$(sbatch --parsable %s/sweep.sbatch)\n"
            "#   sbatch --dependency=afterany:$jid --wrap \"",
            e->spec, e->n_todo, e->n_points, e->todo[e->n_todo - 1], e->out, e->out);
    put_quoted(f, e->bin);
    fputs(" sweep ", f);
    put_quoted(f, e->spec);
    fputs(" --out ", f);
    put_quoted(f, e->out);
    fputs(" --aggregate\"\n", f);
    fputs("#SBATCH --job-name=cpnsim-sweep\n#SBATCH --array=", f);
    put_ranges(f, e->todo, e->n_todo);
    fprintf(f,
            "\n#SBATCH --ntasks=1\n"
            "#SBATCH --cpus-per-task=1\n"
            "#SBATCH --output=%s/slurm/%%A_%%a.out\n"
            "exec ",
            e->out);
    put_command(f, e);
    fputs("\"$SLURM_ARRAY_TASK_ID\"\n", f);
    return ferror(f) ? -1 : 0;
}

/* path made absolute against the current directory (the scripts run elsewhere), or
 * NULL when that cannot be found. The caller frees it. */
static char *absolute(const char *path)
{
    if (path[0] == '/')
        return cpn_strdup(path);
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return NULL;
    const char *p = path;
    while (p[0] == '.' && p[1] == '/')
        p += 2;
    return path_join(cwd, strcmp(p, ".") == 0 ? "" : p);
}

int sweep_emit(const struct sweep_spec *sp, int kind, const char *bin, const char *out,
               size_t *n_tasks, char **path, char *err, size_t errlen)
{
    int rc = cpn_mkdir_p(out, err, errlen);
    if (rc)
        return rc;
    char *abs_out = absolute(out), *abs_spec = absolute(sp->path);
    if (!abs_out || !abs_spec) {
        rc = cpn_fail(err, errlen, CPN_EIO, "cannot find the current directory: %s",
                      strerror(errno));
        free(abs_out);
        free(abs_spec);
        return rc;
    }
    /* Slurm reads #SBATCH lines as words, with % patterns: such paths cannot be said. */
    if (kind == SWEEP_EMIT_SLURM && strpbrk(abs_out, " \t\n%\"'\\")) {
        rc = cpn_fail(err, errlen, CPN_EINPUT,
                      "--out %s: Slurm's #SBATCH lines cannot name a path with blanks, quotes "
                      "or '%%'",
                      abs_out);
        free(abs_out);
        free(abs_spec);
        return rc;
    }
    size_t *todo = cpn_calloc(sp->n_points, sizeof *todo), n = 0;
    for (size_t i = 0; i < sp->n_points; i++) {
        char *name = sweep_point_name(sp, i);
        char *dir = run_dir(abs_out, name);
        if (!file_exists(dir, "summary.json"))
            todo[n++] = i;
        free(dir);
        free(name);
    }
    struct emit_ctx e = {.bin = bin, .spec = abs_spec, .out = abs_out, .todo = todo,
                         .n_todo = n, .n_points = sp->n_points, .kind = kind};
    *n_tasks = n;
    *path = NULL;
    if (n > 0) {
        const char *fname = kind == SWEEP_EMIT_SLURM ? "sweep.sbatch" : "parallel.txt";
        if (kind == SWEEP_EMIT_SLURM) {
            /* Slurm does not create the directory of --output. */
            char *sd = path_join(abs_out, "slurm");
            rc = cpn_mkdir_p(sd, err, errlen);
            free(sd);
        }
        char *p = path_join(abs_out, fname);
        struct afile af = {0};
        if (!rc)
            rc = afile_open(&af, abs_out, fname, err, errlen);
        if (!rc) {
            if (write_emit(af.f, &e) != 0) {
                afile_abort(&af);
                rc = cpn_fail(err, errlen, CPN_EIO, "%s: write failed", p);
            } else {
                rc = afile_commit(&af, err, errlen);
            }
        }
        if (!rc && kind == SWEEP_EMIT_SLURM)
            chmod(p, 0755);
        if (!rc)
            *path = p;
        else
            free(p);
    }
    free(todo);
    free(abs_out);
    free(abs_spec);
    return rc;
}
