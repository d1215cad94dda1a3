/* sweep_spec: reading a sweep spec, and numbering and naming its points (see
 * sweep.h); sweep_check.c checks the values they use before anything runs.
 *
 * Order and names. Points are numbered as nested loops over the grid keys in the
 * order the spec lists them, the last key innermost; a point's run directory is
 * "KEY=LABEL,..." over the grid keys in the same order. Labels keep only
 * [A-Za-z0-9._+-] (a file's label is its base name without extension), so names
 * need no quoting and stay unique as long as each key's labels are, which parsing
 * checks. */
#include "sweep.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../io/gen.h"
#include "../io/import.h"
#include "../base/jsonpos.h"
#include "../base/util.h"

/* ---- The spec ------------------------------------------------------------------ */

/* The run options a key may name; any other key is a --set key. */
static const struct {
    const char *name;
    int kind;
} run_keys[] = {
    {"jobs", SWEEP_JOBS},           {"cluster", SWEEP_CLUSTER}, {"policy", SWEEP_POLICY},
    {"predictor", SWEEP_PREDICTOR}, {"seed", SWEEP_SEED},       {"count", SWEEP_COUNT},
    {"arrival", SWEEP_ARRIVAL},     {"mix", SWEEP_MIX},
};

/* Largest seed a JSON number written with an exponent or a fraction carries exactly;
 * seeds written in digits alone go to 2^64 - 1. */
#define SWEEP_MAX_SEED 9007199254740992.0

struct parse {
    const char *name;
    const char *buf; /* the spec's text, for numbers as written (seeds) */
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

static bool is_file_kind(int kind)
{
    return kind == SWEEP_JOBS || kind == SWEEP_CLUSTER || kind == SWEEP_MIX;
}

/* The keys whose values are whole numbers: the seed, and the generated queue's count. */
static bool is_whole_kind(int kind) { return kind == SWEEP_SEED || kind == SWEEP_COUNT; }

/* What a whole-number key accepts, for messages, in buf. Returns buf. */
static const char *whole_rule(int kind, char buf[64])
{
    if (kind == SWEEP_COUNT)
        snprintf(buf, 64, "a whole number from 1 to %zu", gen_count_max());
    else
        snprintf(buf, 64, "a whole number from 0 to %" PRIu64 " (2^64 - 1)", UINT64_MAX);
    return buf;
}

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
    char num[32], rule[64];
    const char *raw = NULL;
    if (cJSON_IsNull(v)) {
        if (!is_file_kind(k->kind))
            return bad(p, v, field,
                       "null is allowed only for jobs, cluster and mix (the default)");
        raw = "default";
    } else if (cJSON_IsString(v)) {
        if (is_whole_kind(k->kind))
            return bad(p, v, field, "must be %s (got a string)", whole_rule(k->kind, rule));
        raw = v->valuestring;
        if (!*raw)
            return bad(p, v, field, "must not be empty");
        for (const char *c = raw; *c; c++)
            if ((unsigned char)*c < 0x20)
                return bad(p, v, field, "must not hold control characters");
        struct gen_spec g = {0};
        if (k->kind == SWEEP_ARRIVAL && gen_parse_arrival(raw, &g) != 0)
            return bad(p, v, field, GEN_ARRIVAL_RULE " (got '%s')", raw);
    } else if (cJSON_IsNumber(v)) {
        size_t tn = 0;
        const char *text = jpos_number_text(&p->pos, v, p->buf, &tn);
        if (k->kind == SWEEP_SEED && text && tn < sizeof num && strspn(text, "0123456789") >= tn) {
            /* Digits alone: the seed as written, exactly (a double would round seeds
             * above 2^53, and the run would draw another queue). */
            memcpy(num, text, tn);
            num[tn] = '\0';
            uint64_t seed;
            if (cpn_parse_u64(num, &seed) != 0)
                return bad(p, v, field, "must be %s (got %s)", whole_rule(k->kind, rule), num);
            snprintf(num, sizeof num, "%" PRIu64, seed); /* no leading zeros */
        } else if (is_whole_kind(k->kind)) {
            double d = v->valuedouble;
            double lo = k->kind == SWEEP_COUNT ? 1 : 0;
            double hi = k->kind == SWEEP_COUNT ? (double)gen_count_max() : SWEEP_MAX_SEED;
            if (d < lo || d != floor(d) || d > hi)
                return bad(p, v, field, "must be %s (got %g)", whole_rule(k->kind, rule), d);
            snprintf(num, sizeof num, "%.0f", d);
        } else if (k->kind != SWEEP_SET) {
            return bad(p, v, field, "must be a string");
        } else {
            stats_fmt(v->valuedouble, num);
        }
        raw = num;
    } else if (cJSON_IsBool(v)) {
        if (k->kind != SWEEP_SET)
            return bad(p, v, field, "must be a %s", is_whole_kind(k->kind) ? "number" : "string");
        raw = cJSON_IsTrue(v) ? "true" : "false";
    } else {
        return bad(p, v, field, "must be a string, a number%s",
                   is_file_kind(k->kind) ? " or null" : " or a boolean");
    }
    /* A jobs value FORMAT:TRACE names a trace that the run converts in memory, as
     * `cpnsim run --jobs` does: the file is TRACE, and it alone is resolved, labelled,
     * checked and hashed (./gavel:x.csv names a file, as for run). */
    const char *file = raw;
    const char *format = k->kind == SWEEP_JOBS && cJSON_IsString(v)
                             ? import_job_source(raw, &file) : NULL;
    if (format && !*file)
        return bad(p, v, field, "'%s' names no trace file (give %s:TRACE)", raw, format);
    k->raw[i] = cpn_strdup(raw);
    k->lines[i] = jpos_line(&p->pos, v);
    k->label[i] = make_label(file, is_file_kind(k->kind) && !cJSON_IsNull(v));
    if (k->kind == SWEEP_JOBS)
        k->format[i] = format;
    if (is_file_kind(k->kind)) {
        k->arg[i] = cJSON_IsNull(v) ? NULL : resolve_path(p->dir, file);
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
    k->format = cpn_calloc(n, sizeof *k->format);
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
    free(k->format);
    free(k->name);
}

static int check_key_name(const struct parse *p, const cJSON *m, const char *section)
{
    char field[256];
    snprintf(field, sizeof field, "%s.%s", section, m->string);
    if (!key_name_ok(m->string))
        return bad(p, m, field,
                   "not a key: a key is a run option (jobs, cluster, policy, predictor, seed, "
                   "count, arrival, mix, cpu_threshold) or a --set key");
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

/* Whether baseline row b equals an earlier one; sets *same to that one. */
static bool baseline_repeats(const struct sweep_spec *sp, size_t b, size_t *same)
{
    for (size_t e = 0; e < b; e++) {
        size_t k = 0;
        while (k < sp->n_grid && sp->baseline[e * sp->n_grid + k] == sp->baseline[b * sp->n_grid + k])
            k++;
        if (k == sp->n_grid) {
            *same = e;
            return true;
        }
    }
    return false;
}

/* Reads one baseline object into row b of sp->baseline. prefix names it in messages:
 * "baseline", or "baseline[i]" in an array. */
static int parse_one_baseline(const struct parse *p, const cJSON *bl, struct sweep_spec *sp,
                              size_t b, const char *prefix)
{
    if (!cJSON_IsObject(bl) || cJSON_GetArraySize(bl) == 0)
        return bad(p, bl, prefix, "must be an object of KEY: VALUE naming grid values");
    size_t *row = &sp->baseline[b * sp->n_grid];
    const cJSON *m;
    cJSON_ArrayForEach(m, bl)
    {
        char field[300];
        snprintf(field, sizeof field, "%s.%s", prefix, m->string);
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
        row[k] = i;
    }
    size_t same;
    if (baseline_repeats(sp, b, &same))
        return bad(p, bl, prefix, "the same as baseline[%zu]", same);
    return CPN_OK;
}

/* The baseline: one object, or an array of them (several baselines, in order). */
static int parse_baseline(const struct parse *p, const cJSON *bl, struct sweep_spec *sp)
{
    bool many = cJSON_IsArray(bl);
    size_t n = many ? (size_t)cJSON_GetArraySize(bl) : 1;
    if (n == 0)
        return bad(p, bl, "baseline", "must be an object of KEY: VALUE, or an array of them");
    size_t ng = sp->n_grid ? sp->n_grid : 1;
    sp->baseline = cpn_malloc(n * ng * sizeof *sp->baseline);
    for (size_t i = 0; i < n * ng; i++)
        sp->baseline[i] = SIZE_MAX;
    sp->n_baselines = n;
    if (!many)
        return parse_one_baseline(p, bl, sp, 0, "baseline");
    size_t b = 0;
    const cJSON *e;
    cJSON_ArrayForEach(e, bl)
    {
        char prefix[32];
        snprintf(prefix, sizeof prefix, "baseline[%zu]", b);
        int rc = parse_one_baseline(p, e, sp, b++, prefix);
        if (rc)
            return rc;
    }
    return CPN_OK;
}

int sweep_spec_add_baseline(struct sweep_spec *sp, const char *text, char *err, size_t errlen)
{
    size_t ng = sp->n_grid ? sp->n_grid : 1, b = sp->n_baselines;
    sp->baseline = cpn_realloc(sp->baseline, (b + 1) * ng * sizeof *sp->baseline);
    size_t *row = &sp->baseline[b * sp->n_grid];
    for (size_t k = 0; k < ng; k++)
        row[k] = SIZE_MAX;
    char *copy = cpn_strdup(text), *save = NULL;
    int rc = CPN_OK;
    bool any = false;
    for (char *tok = strtok_r(copy, ",", &save); tok && !rc; tok = strtok_r(NULL, ",", &save)) {
        char *eq = strchr(tok, '=');
        size_t k = 0;
        if (eq)
            *eq = '\0';
        while (eq && k < sp->n_grid && strcmp(sp->grid[k].name, tok) != 0)
            k++;
        if (!eq) {
            rc = cpn_fail(err, errlen, CPN_EINPUT, "--baseline: '%s': must be KEY=VALUE", tok);
        } else if (k == sp->n_grid) {
            rc = cpn_fail(err, errlen, CPN_EINPUT, "--baseline: %s: not a grid key", tok);
        } else if (sp->grid[k].kind == SWEEP_SEED) {
            rc = cpn_fail(err, errlen, CPN_EINPUT,
                          "--baseline: %s: the baseline is paired seed by seed; it cannot fix "
                          "the seed", tok);
        } else if (row[k] != SIZE_MAX) {
            rc = cpn_fail(err, errlen, CPN_EINPUT, "--baseline: %s: given twice", tok);
        } else {
            const struct sweep_key *key = &sp->grid[k];
            size_t i = 0;
            while (i < key->n && strcmp(key->raw[i], eq + 1) != 0 &&
                   strcmp(key->label[i], eq + 1) != 0)
                i++;
            if (i == key->n)
                rc = cpn_fail(err, errlen, CPN_EINPUT,
                              "--baseline: %s: '%s' is not one of grid.%s's values", tok, eq + 1,
                              tok);
            row[k] = i;
            any = true;
        }
    }
    free(copy);
    if (!rc && !any)
        rc = cpn_fail(err, errlen, CPN_EINPUT, "--baseline: must be KEY=VALUE[,KEY=VALUE...]");
    size_t same;
    if (!rc && !baseline_repeats(sp, b, &same))
        sp->n_baselines++;
    if (sp->n_baselines == 0) {
        free(sp->baseline);
        sp->baseline = NULL;
    }
    return rc;
}

/* A queue is a jobs file or generated: count, arrival and mix describe a generated
 * one, so a spec that also names a jobs file is an error at the first of them. */
static int check_queue_keys(const struct parse *p, const struct sweep_spec *sp)
{
    const struct sweep_key *file = NULL;
    for (size_t k = 0; k < sp->n_base + sp->n_grid && !file; k++) {
        const struct sweep_key *key = k < sp->n_base ? &sp->base[k] : &sp->grid[k - sp->n_base];
        for (size_t i = 0; key->kind == SWEEP_JOBS && i < key->n && !file; i++)
            if (key->arg[i])
                file = key;
    }
    for (size_t k = 0; file && k < sp->n_base + sp->n_grid; k++) {
        bool in_base = k < sp->n_base;
        const struct sweep_key *key = in_base ? &sp->base[k] : &sp->grid[k - sp->n_base];
        if (key->kind == SWEEP_COUNT || key->kind == SWEEP_ARRIVAL || key->kind == SWEEP_MIX)
            return cpn_fail(p->err, p->errlen, CPN_EINPUT,
                            "%s:%d: %s.%s: describes a generated queue, but jobs names a file "
                            "(line %d); give count, arrival and mix with \"jobs\": null or no "
                            "jobs key",
                            p->name, key->line, in_base ? "base" : "grid", key->name, file->line);
    }
    return CPN_OK;
}

int sweep_spec_parse(const char *name, const char *buf, size_t len, const char *dir,
                     struct sweep_spec **out, char *err, size_t errlen)
{
    struct parse p = {.name = name, .buf = buf, .dir = dir, .err = err, .errlen = errlen};
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
                strcmp(m->string, "baseline") && strcmp(m->string, "description") &&
                strcmp(m->string, "time_limit_s")) {
                rc = bad(&p, m, m->string,
                         "unknown field (known: base, grid, baseline, time_limit_s, "
                         "description)");
                break;
            }
        }
    }
    const cJSON *base = cJSON_GetObjectItemCaseSensitive(root, "base");
    const cJSON *grid = cJSON_GetObjectItemCaseSensitive(root, "grid");
    const cJSON *bl = cJSON_GetObjectItemCaseSensitive(root, "baseline");
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(root, "description");
    const cJSON *limit = cJSON_GetObjectItemCaseSensitive(root, "time_limit_s");
    if (!rc && desc && !cJSON_IsString(desc))
        rc = bad(&p, desc, "description", "must be a string");
    if (!rc && limit) {
        if (!cJSON_IsNumber(limit) || !(limit->valuedouble > 0) || !isfinite(limit->valuedouble))
            rc = bad(&p, limit, "time_limit_s", "must be a number of seconds > 0");
        else
            sp->time_limit_s = limit->valuedouble;
    }
    if (!rc && base)
        rc = parse_base(&p, base, sp);
    if (!rc && grid)
        rc = parse_grid(&p, grid, sp);
    if (!rc)
        rc = check_queue_keys(&p, sp);
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

/* "KEY=LABEL" over the grid keys of value choices c but key `skip` (n_grid: none),
 * joined with ','; cut, ending in a hash of the whole, when longer than
 * SWEEP_MAX_NAME. Returns a string the caller frees ("" when no key is named). */
static char *join_labels(const struct sweep_spec *sp, const size_t *c, size_t skip)
{
    size_t len = 1;
    for (size_t k = 0; k < sp->n_grid; k++)
        len += strlen(sp->grid[k].name) + strlen(sp->grid[k].label[c[k]]) + 2;
    char *s = cpn_malloc(len);
    s[0] = '\0';
    for (size_t k = 0; k < sp->n_grid; k++) {
        if (k == skip)
            continue;
        if (s[0])
            strcat(s, ",");
        strcat(s, sp->grid[k].name);
        strcat(s, "=");
        strcat(s, sp->grid[k].label[c[k]]);
    }
    if (strlen(s) > SWEEP_MAX_NAME) {
        /* Too long for some file systems: keep a readable head, end in a hash of the
         * whole name so that names stay distinct. */
        char hex[65];
        cpn_sha256_hex(s, strlen(s), hex);
        snprintf(s + SWEEP_MAX_NAME - 17, 18, "~%.16s", hex);
    }
    return s;
}

/* The point's name without key skip, or `empty` when that leaves no key. */
static char *point_label(const struct sweep_spec *sp, size_t index, size_t skip,
                         const char *empty)
{
    size_t *c = cpn_calloc(sp->n_grid ? sp->n_grid : 1, sizeof *c);
    if (sp->n_grid)
        sweep_point(sp, index, c);
    char *s = join_labels(sp, c, skip);
    free(c);
    if (!s[0]) {
        free(s);
        s = cpn_strdup(empty);
    }
    return s;
}

char *sweep_point_name(const struct sweep_spec *sp, size_t index)
{
    return point_label(sp, index, sp->n_grid, "base");
}

char *sweep_group_name(const struct sweep_spec *sp, size_t index)
{
    size_t seed = 0;
    while (seed < sp->n_grid && sp->grid[seed].kind != SWEEP_SEED)
        seed++;
    return point_label(sp, index, seed, "all");
}

/* The key that gives a point (value choices c) the run option of this kind, from base
 * or grid, with the index of its value in *i; NULL when the spec does not name it. */
static const struct sweep_key *point_key(const struct sweep_spec *sp, const size_t *c, int kind,
                                         size_t *i)
{
    for (size_t k = 0; k < sp->n_base; k++)
        if (sp->base[k].kind == kind) {
            *i = 0;
            return &sp->base[k];
        }
    for (size_t k = 0; k < sp->n_grid; k++)
        if (sp->grid[k].kind == kind) {
            *i = c[k];
            return &sp->grid[k];
        }
    return NULL;
}

/* The arg that a point gives the run option of this kind; NULL when the spec does not
 * name it, or names it with null (the default). */
static const char *point_arg(const struct sweep_spec *sp, const size_t *c, int kind)
{
    size_t i;
    const struct sweep_key *k = point_key(sp, c, kind, &i);
    return k ? k->arg[i] : NULL;
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
    size_t ji;
    const struct sweep_key *jk = point_key(sp, c, SWEEP_JOBS, &ji);
    if (jk) { /* a job file, or a trace converted in memory (FORMAT:TRACE) */
        r->req.jobs = jk->arg[ji];
        r->req.jobs_format = jk->format[ji];
    }
    r->req.policy = (s = point_arg(sp, c, SWEEP_POLICY)) != NULL ? s : RUN_DEFAULT_POLICY;
    r->req.predictor = (s = point_arg(sp, c, SWEEP_PREDICTOR)) != NULL ? s : RUN_DEFAULT_PREDICTOR;
    uint64_t seed = RUN_DEFAULT_SEED;
    if ((s = point_arg(sp, c, SWEEP_SEED)) != NULL)
        CPN_ASSERT(cpn_parse_u64(s, &seed) == 0); /* parsing made it a whole number */
    r->req.seed = seed;
    uint64_t count = 0;
    if ((s = point_arg(sp, c, SWEEP_COUNT)) != NULL)
        CPN_ASSERT(cpn_parse_u64(s, &count) == 0 && count <= SIZE_MAX);
    r->req.count = (size_t)count;
    r->req.arrival = point_arg(sp, c, SWEEP_ARRIVAL);
    r->req.mix = point_arg(sp, c, SWEEP_MIX);
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
