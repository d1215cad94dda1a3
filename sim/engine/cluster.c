/* cluster: reads and validates cluster JSON. cJSON parses the text and jsonpos maps
 * each value to its line; --set overrides then replace top-level members of the
 * tree, so that one validation pass checks file values and overrides alike and
 * names either "file:line: field" or "--set KEY". Reading builds a fresh struct
 * cluster and hands it over only when everything is valid, so a failure leaves the
 * caller's pointer untouched and frees whatever was built.
 *
 * Node entries are expanded by their count into one node array (site order, then
 * entry order), and GPUs are numbered globally in node order, so a site's nodes and
 * GPUs are contiguous ranges. Totals are capped (CLUSTER_MAX_*) before anything is
 * allocated for them, so no count can overflow an index. Names (sites, GPU types)
 * are looked up through sorted indexes, which also find duplicates. */
#include "cluster.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "catalog.h"
#include "param.h"
#include "policy.h"
#include "../base/embed.h"
#include "../base/jsonpos.h"
#include "../base/util.h"

/* Caps on what one cluster may hold: far above any real deployment, low enough that
 * every index fits in uint32_t and the arrays fit in memory. */
#define CLUSTER_MAX_NODES 1000000u
#define CLUSTER_MAX_GPUS 10000000u
#define CLUSTER_MAX_SITES 100000u
#define CLUSTER_MAX_TYPES 100000u
#define CLUSTER_MAX_LINKS 1000000u
/* Smallest poll_interval_s (1 ms): see read_config. */
#define CLUSTER_MIN_POLL_S 1e-3

#define PATH_LEN 256 /* a field path such as sites[1].nodes[0].gpus */
#define LIST_LEN 448 /* a list of names quoted in a message (fits in CPN_ERR_LEN) */
#define WANT_LEN 96  /* a description such as "a whole number from 0 to 16" */

static const char default_source[] = "<default cluster>";

/* ---- The config table ---------------------------------------------------------- */

static const char *const completion_names[] = {
    [COMPLETION_POLL] = "poll", [COMPLETION_EVENT] = "event", NULL};
/* The run's tunables (struct cluster_config). A policy's own tunables are in its
 * parameter table (policy_ops.params); the reader accepts both, in the file and with
 * --set, and stores each registered policy's into its struct (cluster.policy_params). */
/* clang-format off */
#define OFF(field) offsetof(struct cluster_config, field)
#define AT_LEAST(x) {.min = (x), .max = INFINITY}
#define ABOVE(x) {.min = (x), .max = INFINITY, .min_open = true}

static const struct param cfg_keys[] = {
    {.name = "scrape_interval_s", .kind = PARAM_DOUBLE, .offset = OFF(scrape_interval_s), .def = 60,
     .b = AT_LEAST(0),
     .meaning = "metrics scrape period (s); 0 = the controller sees live metrics"},
    {.name = "poll_interval_s", .kind = PARAM_DOUBLE, .offset = OFF(poll_interval_s), .def = 60,
     .b = ABOVE(0), .meaning = "completion polling period (s) when completion is poll"},
    {.name = "completion", .kind = PARAM_ENUM, .offset = OFF(completion), .def = COMPLETION_POLL,
     .names = completion_names,
     .meaning = "how completions reach the controller: poll, or event (at once)"},
    {.name = "warmup_s", .kind = PARAM_DOUBLE, .offset = OFF(warmup_s), .def = 20, .b = AT_LEAST(0),
     .meaning = "time from a job's start to its peak GPU memory (s)"},
    {.name = "backoff_base_s", .kind = PARAM_DOUBLE, .offset = OFF(backoff_base_s), .def = 10,
     .b = ABOVE(0), .meaning = "first retry back-off after an OOM kill (s); doubles per retry"},
    {.name = "backoff_cap_s", .kind = PARAM_DOUBLE, .offset = OFF(backoff_cap_s), .def = 360,
     .b = ABOVE(0), .meaning = "back-off ceiling (s); at least backoff_base_s"},
    {.name = "backoff_limit", .kind = PARAM_UINT, .offset = OFF(backoff_limit), .def = 4,
     .b = {.min = 0, .max = 1000, .whole = true},
     .meaning = "retries after OOM kills before a job is Failed"},
    {.name = "cpu_threshold", .kind = PARAM_DOUBLE, .offset = OFF(cpu_threshold), .def = 0.7,
     .b = {.min = 0, .max = 1, .min_open = true},
     .meaning = "nodes whose scraped CPU utilisation is at or above it take no new jobs"},
    {.name = "gpu_as_resource", .kind = PARAM_BOOL, .offset = OFF(gpu_as_resource), .def = 0,
     .meaning = "whether jobs request nvidia.com/gpu (default policy)"},
    {.name = "horizon_s", .kind = PARAM_DOUBLE, .offset = OFF(horizon_s), .def = 0, .b = AT_LEAST(0),
     .meaning = "simulated time at which the run stops (s); 0 = none"},
    {.name = "timeline_interval_s", .kind = PARAM_DOUBLE, .offset = OFF(timeline_interval_s),
     .def = 60, .b = ABOVE(0), .meaning = "timeline row period (s) when scrape_interval_s is 0"},
    {.name = "link_gbps_scale", .kind = PARAM_DOUBLE, .offset = OFF(link_gbps_scale), .def = 1,
     .b = ABOVE(0), .meaning = "factor applied to every link's bandwidth (0.5 halves them)"},
    {.name = "max_timeline_rows", .kind = PARAM_UINT, .offset = OFF(max_timeline_rows),
     .def = 1e7, .b = {.min = 1, .max = 1e9, .whole = true},
     .meaning = "most timeline rows a run may take; a run that needs more is refused "
                "(docs/reliability.md)"},
};
/* clang-format on */
#define N_CFG (sizeof cfg_keys / sizeof cfg_keys[0])

/* Most keys that --set accepts: the config keys, every registered policy's
 * parameters, then controller_site. */
#define CLUSTER_MAX_SETTABLE 64

/* Every registered policy's parameters, in registry order, as one list. */
static size_t n_policy_params(void)
{
    size_t n = 0;
    for (size_t i = 0; i < policy_registry_len; i++)
        n += policy_registry[i]->n_params;
    return n;
}

static const struct param *policy_param(size_t k)
{
    for (size_t i = 0; i < policy_registry_len; k -= policy_registry[i++]->n_params)
        if (k < policy_registry[i]->n_params)
            return &policy_registry[i]->params[k];
    cpn_panic(__FILE__, __LINE__, "policy parameter out of range");
}

static size_t n_settable(void)
{
    size_t n = N_CFG + n_policy_params() + 1;
    CPN_ASSERT(n <= CLUSTER_MAX_SETTABLE);
    return n;
}

/* The k-th settable key's descriptor; NULL for controller_site (the last). */
static const struct param *settable(size_t k)
{
    if (k < N_CFG)
        return &cfg_keys[k];
    return k < N_CFG + n_policy_params() ? policy_param(k - N_CFG) : NULL;
}

static const char *settable_name(size_t k)
{
    const struct param *p = settable(k);
    return p ? p->name : "controller_site";
}

static size_t cfg_find(const char *name)
{
    for (size_t k = 0; k < N_CFG; k++)
        if (strcmp(cfg_keys[k].name, name) == 0)
            return k;
    cpn_panic(__FILE__, __LINE__, "config key not in the table");
}

void cluster_config_defaults(struct cluster_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    param_defaults(cfg, cfg_keys, N_CFG);
}

void cluster_config_help(FILE *f)
{
    param_help(f, cfg_keys, N_CFG);
    for (size_t i = 0; i < policy_registry_len; i++)
        param_help(f, policy_registry[i]->params, policy_registry[i]->n_params);
    fprintf(f, "  %-20s %-7s %s\n", "controller_site", "(first)",
            "site where the controller runs; default the first site");
}

/* ---- Messages -------------------------------------------------------------------- */

/* What a reader is working on: the file name for messages, the line table, and the
 * items that --set put into the tree (so that their errors name "--set KEY"). */
struct ld {
    const char *name;
    struct jpos pos;
    const cJSON *set_item[CLUSTER_MAX_SETTABLE];
    char *err;
    size_t errlen;
};

/* Writes "NAME:LINE: PATH: message" (or "--set KEY: message" when at came from
 * --set) into the caller's buffer. at is the item the message is about (for a
 * missing field, the object that lacks it); path may be "". Returns CPN_EINPUT. */
__attribute__((format(printf, 4, 5))) static int bad(const struct ld *ld, const cJSON *at,
                                                     const char *path, const char *fmt, ...)
{
    char msg[CPN_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    for (size_t k = 0, n = n_settable(); at && k < n; k++)
        if (ld->set_item[k] == at)
            return cpn_fail(ld->err, ld->errlen, CPN_EINPUT, "--set %s: %s", settable_name(k), msg);
    const char *sep = *path ? ": " : "";
    int line = jpos_line(&ld->pos, at);
    if (line > 0)
        return cpn_fail(ld->err, ld->errlen, CPN_EINPUT, "%s:%d: %s%s%s", ld->name, line, path, sep,
                        msg);
    return cpn_fail(ld->err, ld->errlen, CPN_EINPUT, "%s: %s%s%s", ld->name, path, sep, msg);
}

/* Marks a path that did not fit in PATH_LEN bytes as cut short. */
static void path_fit(char out[PATH_LEN], int n)
{
    if (n < 0 || n >= PATH_LEN)
        memcpy(out + PATH_LEN - 4, "...", 4);
}

static void path_key(char out[PATH_LEN], const char *parent, const char *key)
{
    path_fit(out, snprintf(out, PATH_LEN, "%s%s%s", parent, *parent ? "." : "", key));
}

static void path_index(char out[PATH_LEN], const char *parent, size_t i)
{
    path_fit(out, snprintf(out, PATH_LEN, "%s[%zu]", parent, i));
}

static const char *type_name(const cJSON *it)
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

/* A comma-separated list of names for a message, cut short with "..." when full. */
struct namelist {
    char s[LIST_LEN];
    size_t n;
    bool full;
};

static void list_add(struct namelist *l, const char *name)
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

static void bound_text(const struct param_bound *b, char out[WANT_LEN])
{
    const char *what = b->whole ? "a whole number" : "a number";
    if (isfinite(b->max) && b->min_open)
        snprintf(out, WANT_LEN, "%s in (%.15g, %.15g]", what, b->min, b->max);
    else if (isfinite(b->max))
        snprintf(out, WANT_LEN, "%s from %.15g to %.15g", what, b->min, b->max);
    else
        snprintf(out, WANT_LEN, "%s %s %.15g", what, b->min_open ? ">" : ">=", b->min);
}

static bool in_bound(const struct param_bound *b, double v)
{
    if (!isfinite(v) || v < b->min || v > b->max || (b->min_open && v <= b->min))
        return false;
    return !b->whole || v == floor(v);
}

/* ---- Typed field readers ------------------------------------------------------- */

/* Checks obj's members against keys[0..n) and sets items[k] to the member named
 * keys[k], or NULL when absent. Members named x_* are ignored; any other unknown
 * member, and a repeated one, is an error. Returns 0 or CPN_EINPUT. */
static int take_fields(const struct ld *ld, const cJSON *obj, const char *path,
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
        char p[PATH_LEN];
        path_key(p, path, ch->string);
        if (k == n) {
            struct namelist l = {0};
            for (size_t j = 0; j < n; j++)
                list_add(&l, keys[j]);
            return bad(ld, ch, p, "unknown key (expected %s, or x_* for comments)", l.s);
        }
        if (items[k])
            return bad(ld, ch, p, "duplicate key");
        items[k] = ch;
    }
    return CPN_OK;
}

/* Reads a number within b. An absent item (member of obj, at path) takes *def, or
 * is an error when def is NULL. Returns 0 with *out set, or CPN_EINPUT. */
static int get_num(const struct ld *ld, const cJSON *obj, const cJSON *item, const char *path,
                   const struct param_bound *b, const double *def, double *out)
{
    if (!item && def) {
        *out = *def;
        return CPN_OK;
    }
    if (item && cJSON_IsNumber(item) && in_bound(b, item->valuedouble)) {
        *out = item->valuedouble;
        return CPN_OK;
    }
    char want[WANT_LEN];
    bound_text(b, want);
    if (!item)
        return bad(ld, obj, path, "is required (%s)", want);
    if (!cJSON_IsNumber(item))
        return bad(ld, item, path, "must be %s (got %s)", want, type_name(item));
    if (!isfinite(item->valuedouble))
        return bad(ld, item, path, "must be %s (got a number out of range)", want);
    return bad(ld, item, path, "must be %s (got %.15g)", want, item->valuedouble);
}

/* Reads a non-empty string; absent is an error when required, else *out is NULL. */
static int get_str(const struct ld *ld, const cJSON *obj, const cJSON *item, const char *path,
                   bool required, const char **out)
{
    if (!item) {
        if (required)
            return bad(ld, obj, path, "is required (a non-empty string)");
        *out = NULL;
        return CPN_OK;
    }
    if (!cJSON_IsString(item) || !item->valuestring[0])
        return bad(ld, item, path, "must be a non-empty string (got %s)",
                   cJSON_IsString(item) ? "\"\"" : type_name(item));
    *out = item->valuestring;
    return CPN_OK;
}

static int need_object(const struct ld *ld, const cJSON *item, const char *path)
{
    if (cJSON_IsObject(item))
        return CPN_OK;
    return bad(ld, item, path, "must be an object (got %s)", type_name(item));
}

/* ---- Name indexes -------------------------------------------------------------- */

struct name_ix {
    const char *name;
    uint32_t i; /* position in document order */
};

static int ix_cmp(const void *a, const void *b)
{
    const struct name_ix *x = a, *y = b;
    int r = strcmp(x->name, y->name);
    return r ? r : (x->i > y->i) - (x->i < y->i);
}

static int ix_name_cmp(const void *key, const void *b)
{
    return strcmp(key, ((const struct name_ix *)b)->name);
}

/* Sorts ix[0..n) by name. Returns true when some name repeats, with *dup the first
 * repeat in document order and *orig the occurrence before it. */
static bool ix_sort(struct name_ix *ix, size_t n, uint32_t *dup, uint32_t *orig)
{
    qsort(ix, n, sizeof *ix, ix_cmp);
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
static long ix_find(const struct name_ix *ix, size_t n, const char *name)
{
    const struct name_ix *e = n ? bsearch(name, ix, n, sizeof *ix, ix_name_cmp) : NULL;
    return e ? (long)e->i : -1;
}

static size_t array_len(const cJSON *a)
{
    size_t n = 0;
    for (const cJSON *ch = a->child; ch; ch = ch->next)
        n++;
    return n;
}

/* ---- --set ------------------------------------------------------------------------- */

/* Applies "KEY=VALUE" overrides to the top-level object: each replaces every member
 * named KEY (moved to graveyard, so that no address in the line table is reused) or
 * adds one. The value's JSON type follows the key's kind. Returns 0 or CPN_EINPUT. */
static int apply_sets(struct ld *ld, cJSON *root, cJSON *graveyard, const char *const *sets,
                      size_t n_sets)
{
    for (size_t s = 0; s < n_sets; s++) {
        const char *arg = sets[s];
        const char *eq = strchr(arg, '=');
        if (!eq || eq == arg)
            return cpn_fail(ld->err, ld->errlen, CPN_EINPUT, "--set %s: expected KEY=VALUE", arg);
        size_t klen = (size_t)(eq - arg), k = 0, n = n_settable();
        while (k < n &&
               (strlen(settable_name(k)) != klen || memcmp(settable_name(k), arg, klen) != 0))
            k++;
        if (k == n) {
            struct namelist l = {0};
            for (size_t j = 0; j < n; j++)
                list_add(&l, settable_name(j));
            return cpn_fail(ld->err, ld->errlen, CPN_EINPUT, "--set %.*s: unknown key (known: %s)",
                            klen > 64 ? 64 : (int)klen, arg, l.s);
        }
        const char *key = settable_name(k), *value = eq + 1;
        const struct param *kp = settable(k);
        cJSON *item;
        if (kp && (kp->kind == PARAM_DOUBLE || kp->kind == PARAM_UINT)) {
            double v;
            if (cpn_parse_double(value, &v) != CPN_OK) {
                char want[WANT_LEN];
                bound_text(&kp->b, want);
                return cpn_fail(ld->err, ld->errlen, CPN_EINPUT, "--set %s: must be %s (got '%s')",
                                key, want, value);
            }
            item = cJSON_CreateNumber(v);
        } else if (kp && kp->kind == PARAM_BOOL) {
            if (strcmp(value, "true") != 0 && strcmp(value, "false") != 0)
                return cpn_fail(ld->err, ld->errlen, CPN_EINPUT,
                                "--set %s: must be true or false (got '%s')", key, value);
            item = cJSON_CreateBool(strcmp(value, "true") == 0);
        } else {
            item = cJSON_CreateString(value);
        }
        CPN_ASSERT(item);
        cJSON *ch = root->child;
        while (ch) {
            cJSON *next = ch->next;
            if (strcmp(ch->string, key) == 0) {
                cJSON_bool moved =
                    cJSON_AddItemToArray(graveyard, cJSON_DetachItemViaPointer(root, ch));
                CPN_ASSERT(moved);
            }
            ch = next;
        }
        cJSON_bool added = cJSON_AddItemToObject(root, key, item);
        CPN_ASSERT(added);
        ld->set_item[k] = item;
    }
    return CPN_OK;
}

/* ---- The reader ---------------------------------------------------------------- */

/* Reads the value of parameter k from item it (absent: its default) into base.
 * Returns 0 or CPN_EINPUT. */
static int read_param(const struct ld *ld, const cJSON *root, const cJSON *it,
                      const struct param *k, void *base)
{
    double v = k->def;
    int rc = CPN_OK;
    switch (k->kind) {
    case PARAM_DOUBLE:
    case PARAM_UINT: rc = get_num(ld, root, it, k->name, &k->b, &k->def, &v); break;
    case PARAM_BOOL:
        if (it && !cJSON_IsBool(it))
            return bad(ld, it, k->name, "must be true or false (got %s)", type_name(it));
        if (it)
            v = cJSON_IsTrue(it) ? 1 : 0;
        break;
    case PARAM_ENUM:
        if (!it)
            break;
        v = -1;
        for (int j = 0; k->names[j] && cJSON_IsString(it); j++)
            if (strcmp(k->names[j], it->valuestring) == 0)
                v = j;
        if (v < 0) {
            struct namelist l = {0};
            for (int j = 0; k->names[j]; j++)
                list_add(&l, k->names[j]);
            if (cJSON_IsString(it))
                return bad(ld, it, k->name, "must be one of %s (got '%s')", l.s, it->valuestring);
            return bad(ld, it, k->name, "must be one of %s (got %s)", l.s, type_name(it));
        }
        break;
    }
    if (rc)
        return rc;
    param_store(base, k, v);
    return CPN_OK;
}

/* Reads every registered policy's parameters (items: theirs, in registry order) into
 * c->policy_params. Returns 0 or CPN_EINPUT. */
static int read_policy_params(const struct ld *ld, const cJSON *root, const cJSON *const items[],
                              struct cluster *c)
{
    c->policy_params = cpn_calloc(policy_registry_len ? policy_registry_len : 1,
                                  sizeof *c->policy_params);
    for (size_t i = 0, k = 0; i < policy_registry_len; i++) {
        const struct policy_ops *pol = policy_registry[i];
        if (pol->n_params == 0)
            continue;
        c->policy_params[i] = cpn_calloc(1, pol->params_size);
        for (size_t q = 0; q < pol->n_params; q++, k++) {
            int rc = read_param(ld, root, items[k], &pol->params[q], c->policy_params[i]);
            if (rc)
                return rc;
        }
    }
    return CPN_OK;
}

static int read_config(const struct ld *ld, const cJSON *root, const cJSON *const items[],
                       struct cluster_config *cfg)
{
    cluster_config_defaults(cfg);
    for (size_t i = 0; i < N_CFG; i++) {
        int rc = read_param(ld, root, items[i], &cfg_keys[i], cfg);
        if (rc)
            return rc;
    }
    /* Polls fall on multiples of the interval: a tinier one loses them to rounding. */
    if (cfg->poll_interval_s < CLUSTER_MIN_POLL_S)
        return bad(ld, items[cfg_find("poll_interval_s")], "poll_interval_s",
                   "must be at least %g s (got %g)", CLUSTER_MIN_POLL_S, cfg->poll_interval_s);
    if (cfg->backoff_cap_s < cfg->backoff_base_s) {
        const cJSON *cap = items[cfg_find("backoff_cap_s")];
        if (cap)
            return bad(ld, cap, "backoff_cap_s", "must be >= backoff_base_s (%g)",
                       cfg->backoff_base_s);
        return bad(ld, items[cfg_find("backoff_base_s")], "backoff_base_s",
                   "must be <= backoff_cap_s (%g)", cfg->backoff_cap_s);
    }
    return CPN_OK;
}

/* Resolves a GPU type's catalogue profile into *cat_type. */
static int read_profile(const struct ld *ld, const cJSON *item, const char *path, const char *name,
                        int *cat_type)
{
    if (!item) {
        *cat_type = catalog_type_match(name);
        return CPN_OK;
    }
    const char *p;
    int rc = get_str(ld, NULL, item, path, false, &p);
    if (rc)
        return rc;
    if (strcasecmp(p, "none") == 0) {
        *cat_type = -1;
        return CPN_OK;
    }
    struct namelist l = {0};
    for (int t = 0; t < CAT_NTYPES; t++) {
        if (strcasecmp(p, catalog_type_name(t)) == 0) {
            *cat_type = t;
            return CPN_OK;
        }
        list_add(&l, catalog_type_name(t));
    }
    list_add(&l, "none");
    return bad(ld, item, path, "unknown catalogue type '%s' (expected one of %s)", p, l.s);
}

static int read_gpu_types(const struct ld *ld, const cJSON *root, const cJSON *gt,
                          const struct catalog *cat, struct cluster *c, struct name_ix **ix_out)
{
    static const char *const keys[] = {"mem_gib", "speed", "profile"};
    enum { K_MEM, K_SPEED, K_PROFILE, K_N };
    if (!gt)
        return bad(ld, root, "gpu_types", "is required (an object of GPU types by name)");
    if (!cJSON_IsObject(gt))
        return bad(ld, gt, "gpu_types", "must be an object of GPU types by name (got %s)",
                   type_name(gt));
    size_t n = 0;
    for (const cJSON *ch = gt->child; ch; ch = ch->next)
        n += strncmp(ch->string, "x_", 2) != 0;
    if (n > CLUSTER_MAX_TYPES)
        return bad(ld, gt, "gpu_types", "more than %u GPU types", CLUSTER_MAX_TYPES);
    c->types = cpn_calloc(n, sizeof *c->types);
    struct name_ix *ix = cpn_calloc(n, sizeof *ix);
    const cJSON **where = cpn_calloc(n, sizeof *where);
    int rc = CPN_OK;
    for (const cJSON *ch = gt->child; ch && !rc; ch = ch->next) {
        if (strncmp(ch->string, "x_", 2) == 0)
            continue;
        char path[PATH_LEN], p[PATH_LEN];
        path_key(path, "gpu_types", ch->string);
        const cJSON *it[K_N];
        if (!ch->string[0]) {
            rc = bad(ld, ch, "gpu_types", "a GPU type name must not be empty");
            break;
        }
        if ((rc = need_object(ld, ch, path)) || (rc = take_fields(ld, ch, path, keys, K_N, it)))
            break;
        struct gpu_type t = {0};
        static const struct param_bound positive = ABOVE(0);
        path_key(p, path, "mem_gib");
        if ((rc = get_num(ld, ch, it[K_MEM], p, &positive, NULL, &t.mem_gib)))
            break;
        path_key(p, path, "profile");
        if ((rc = read_profile(ld, it[K_PROFILE], p, ch->string, &t.cat_type)))
            break;
        path_key(p, path, "speed");
        if (it[K_SPEED]) {
            if ((rc = get_num(ld, ch, it[K_SPEED], p, &positive, NULL, &t.speed)))
                break;
        } else if (t.cat_type >= 0) {
            t.speed = cat ? catalog_type_speed(cat, t.cat_type) : 1.0;
            CPN_ASSERT(t.speed > 0 && isfinite(t.speed));
        } else {
            rc = bad(ld, ch, p, "required for a GPU type with no catalogue profile");
            break;
        }
        t.name = cpn_strdup(ch->string);
        where[c->n_types] = ch;
        ix[c->n_types] = (struct name_ix){.name = t.name, .i = (uint32_t)c->n_types};
        c->types[c->n_types++] = t;
    }
    uint32_t dup, orig;
    if (!rc && ix_sort(ix, n, &dup, &orig)) {
        char path[PATH_LEN];
        path_key(path, "gpu_types", c->types[dup].name);
        rc = bad(ld, where[dup], path, "duplicate GPU type name");
    }
    free(where);
    if (rc) {
        free(ix);
        return rc;
    }
    *ix_out = ix;
    return CPN_OK;
}

/* Reads one node entry of site s and appends its count nodes and their GPUs. */
static int read_node_entry(const struct ld *ld, const cJSON *e, const char *path, uint32_t s,
                           const struct name_ix *type_ix, struct cluster *c, size_t *node_cap,
                           size_t *gpu_cap)
{
    static const char *const keys[] = {"count", "cpus", "mem_gib", "gpu_type", "gpus"};
    enum { K_COUNT, K_CPUS, K_MEM, K_TYPE, K_GPUS, K_N };
    static const struct param_bound count_b = {.min = 1, .max = CLUSTER_MAX_NODES, .whole = true};
    static const struct param_bound positive = ABOVE(0);
    static const struct param_bound gpus_b = {.min = 0, .max = CLUSTER_MAX_NODE_GPUS, .whole = true};
    static const double one = 1;
    const cJSON *it[K_N];
    char p[PATH_LEN];
    int rc;
    if ((rc = need_object(ld, e, path)) || (rc = take_fields(ld, e, path, keys, K_N, it)))
        return rc;
    double count, cpus, mem, gpus;
    const char *type_name_s;
    path_key(p, path, "count");
    if ((rc = get_num(ld, e, it[K_COUNT], p, &count_b, &one, &count)))
        return rc;
    path_key(p, path, "cpus");
    if ((rc = get_num(ld, e, it[K_CPUS], p, &positive, NULL, &cpus)))
        return rc;
    path_key(p, path, "mem_gib");
    if ((rc = get_num(ld, e, it[K_MEM], p, &positive, NULL, &mem)))
        return rc;
    path_key(p, path, "gpus");
    if ((rc = get_num(ld, e, it[K_GPUS], p, &gpus_b, NULL, &gpus)))
        return rc;
    path_key(p, path, "gpu_type");
    if ((rc = get_str(ld, e, it[K_TYPE], p, gpus > 0, &type_name_s)))
        return rc;
    uint32_t type = 0;
    if (type_name_s) {
        long t = ix_find(type_ix, c->n_types, type_name_s);
        if (t < 0) {
            struct namelist l = {0};
            for (size_t j = 0; j < c->n_types; j++)
                list_add(&l, c->types[j].name);
            return bad(ld, it[K_TYPE], p, "unknown GPU type '%s' (gpu_types has %s)", type_name_s,
                       c->n_types ? l.s : "none");
        }
        type = (uint32_t)t;
    }
    size_t n = (size_t)count, g = (size_t)gpus;
    if (n > CLUSTER_MAX_NODES - c->n_nodes) {
        path_key(p, path, "count");
        return bad(ld, it[K_COUNT] ? it[K_COUNT] : e, p,
                   "the cluster would have more than %u nodes", CLUSTER_MAX_NODES);
    }
    if (n * g > CLUSTER_MAX_GPUS - c->n_gpus) {
        path_key(p, path, "gpus");
        return bad(ld, it[K_GPUS], p, "the cluster would have more than %u GPUs", CLUSTER_MAX_GPUS);
    }
    cpn_grow((void **)&c->nodes, node_cap, c->n_nodes + n, sizeof *c->nodes);
    cpn_grow((void **)&c->gpu_node, gpu_cap, c->n_gpus + n * g, sizeof *c->gpu_node);
    for (size_t r = 0; r < n; r++) {
        uint32_t id = (uint32_t)c->n_nodes++;
        c->nodes[id] = (struct node){.site = s,
                                     .type = g ? type : 0,
                                     .cpus = cpus,
                                     .mem_gib = mem,
                                     .gpu_first = (uint32_t)c->n_gpus,
                                     .gpu_count = (uint32_t)g};
        for (size_t k = 0; k < g; k++)
            c->gpu_node[c->n_gpus++] = id;
    }
    if (g > c->max_node_gpus)
        c->max_node_gpus = (uint32_t)g;
    return CPN_OK;
}

static int read_sites(const struct ld *ld, const cJSON *root, const cJSON *sa,
                      const struct name_ix *type_ix, struct cluster *c, struct name_ix **ix_out)
{
    static const char *const keys[] = {"name", "cache_gib", "nodes"};
    enum { K_NAME, K_CACHE, K_NODES, K_N };
    static const struct param_bound cache_b = AT_LEAST(0);
    static const double zero = 0;
    if (!sa)
        return bad(ld, root, "sites", "is required (a non-empty array of sites)");
    if (!cJSON_IsArray(sa))
        return bad(ld, sa, "sites", "must be a non-empty array of sites (got %s)", type_name(sa));
    size_t n = array_len(sa);
    if (n == 0)
        return bad(ld, sa, "sites", "must not be empty (a cluster needs a site)");
    if (n > CLUSTER_MAX_SITES)
        return bad(ld, sa, "sites", "more than %u sites", CLUSTER_MAX_SITES);
    c->sites = cpn_calloc(n, sizeof *c->sites);
    struct name_ix *ix = cpn_calloc(n, sizeof *ix);
    const cJSON **where = cpn_calloc(n, sizeof *where);
    size_t node_cap = 0, gpu_cap = 0;
    int rc = CPN_OK;
    const cJSON *so = sa->child;
    for (size_t i = 0; i < n && !rc; i++, so = so->next) {
        char path[PATH_LEN], p[PATH_LEN];
        path_index(path, "sites", i);
        const cJSON *it[K_N];
        const char *name;
        double cache;
        if ((rc = need_object(ld, so, path)) || (rc = take_fields(ld, so, path, keys, K_N, it)))
            break;
        path_key(p, path, "name");
        if ((rc = get_str(ld, so, it[K_NAME], p, true, &name)))
            break;
        path_key(p, path, "cache_gib");
        if ((rc = get_num(ld, so, it[K_CACHE], p, &cache_b, &zero, &cache)))
            break;
        struct site *st = &c->sites[c->n_sites++];
        st->name = cpn_strdup(name);
        st->cache_gib = cache;
        st->node_first = (uint32_t)c->n_nodes;
        st->gpu_first = (uint32_t)c->n_gpus;
        where[i] = it[K_NAME];
        ix[i] = (struct name_ix){.name = st->name, .i = (uint32_t)i};
        const cJSON *nodes = it[K_NODES];
        path_key(p, path, "nodes");
        if (nodes && !cJSON_IsArray(nodes)) {
            rc = bad(ld, nodes, p, "must be an array of node entries (got %s)", type_name(nodes));
            break;
        }
        size_t j = 0;
        for (const cJSON *e = nodes ? nodes->child : NULL; e && !rc; e = e->next, j++) {
            char ep[PATH_LEN];
            path_index(ep, p, j);
            rc = read_node_entry(ld, e, ep, (uint32_t)i, type_ix, c, &node_cap, &gpu_cap);
        }
        st->node_count = (uint32_t)(c->n_nodes - st->node_first);
        st->gpu_count = (uint32_t)(c->n_gpus - st->gpu_first);
    }
    uint32_t dup, orig;
    if (!rc && ix_sort(ix, n, &dup, &orig)) {
        char path[PATH_LEN];
        snprintf(path, sizeof path, "sites[%u].name", dup);
        rc = bad(ld, where[dup], path, "duplicate site name '%s' (also sites[%u].name)",
                 c->sites[dup].name, orig);
    }
    free(where);
    if (rc) {
        free(ix);
        return rc;
    }
    *ix_out = ix;
    return CPN_OK;
}

/* Reads a site name (a member of obj at path) into *site. */
static int read_site_ref(const struct ld *ld, const cJSON *obj, const cJSON *item, const char *path,
                         const struct name_ix *site_ix, const struct cluster *c, uint32_t *site)
{
    const char *name;
    int rc = get_str(ld, obj, item, path, true, &name);
    if (rc)
        return rc;
    long s = ix_find(site_ix, c->n_sites, name);
    if (s < 0) {
        struct namelist l = {0};
        for (size_t j = 0; j < c->n_sites; j++)
            list_add(&l, c->sites[j].name);
        return bad(ld, item, path, "unknown site '%s' (sites: %s)", name, l.s);
    }
    *site = (uint32_t)s;
    return CPN_OK;
}

struct link_key {
    uint32_t lo, hi, i;
};

static int link_cmp(const void *a, const void *b)
{
    const struct link_key *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    if (x->hi != y->hi)
        return x->hi < y->hi ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static int read_links(const struct ld *ld, const cJSON *la, const struct name_ix *site_ix,
                      struct cluster *c)
{
    static const char *const keys[] = {"a", "b", "gbps", "latency_ms"};
    enum { K_A, K_B, K_GBPS, K_LAT, K_N };
    static const struct param_bound gbps_b = ABOVE(0), lat_b = AT_LEAST(0);
    if (!la)
        return CPN_OK;
    if (!cJSON_IsArray(la))
        return bad(ld, la, "links", "must be an array of links (got %s)", type_name(la));
    size_t n = array_len(la);
    if (n > CLUSTER_MAX_LINKS)
        return bad(ld, la, "links", "more than %u links", CLUSTER_MAX_LINKS);
    c->links = cpn_calloc(n, sizeof *c->links);
    const cJSON **where = cpn_calloc(n, sizeof *where);
    int rc = CPN_OK;
    const cJSON *lo = la->child;
    for (size_t i = 0; i < n && !rc; i++, lo = lo->next) {
        char path[PATH_LEN], p[PATH_LEN];
        path_index(path, "links", i);
        const cJSON *it[K_N];
        struct link l = {0};
        if ((rc = need_object(ld, lo, path)) || (rc = take_fields(ld, lo, path, keys, K_N, it)))
            break;
        path_key(p, path, "a");
        if ((rc = read_site_ref(ld, lo, it[K_A], p, site_ix, c, &l.a)))
            break;
        path_key(p, path, "b");
        if ((rc = read_site_ref(ld, lo, it[K_B], p, site_ix, c, &l.b)))
            break;
        if (l.a == l.b) {
            rc = bad(ld, it[K_B], p, "must differ from a (a link joins two sites)");
            break;
        }
        path_key(p, path, "gbps");
        if ((rc = get_num(ld, lo, it[K_GBPS], p, &gbps_b, NULL, &l.gbps)))
            break;
        path_key(p, path, "latency_ms");
        if ((rc = get_num(ld, lo, it[K_LAT], p, &lat_b, NULL, &l.latency_ms)))
            break;
        where[i] = lo;
        c->links[c->n_links++] = l;
    }
    if (!rc && n > 1) {
        struct link_key *k = cpn_calloc(n, sizeof *k);
        for (size_t i = 0; i < n; i++) {
            uint32_t a = c->links[i].a, b = c->links[i].b;
            k[i] = (struct link_key){.lo = a < b ? a : b, .hi = a < b ? b : a, .i = (uint32_t)i};
        }
        qsort(k, n, sizeof *k, link_cmp);
        size_t dup = n;
        uint32_t orig = 0;
        for (size_t j = 1; j < n; j++)
            if (k[j].lo == k[j - 1].lo && k[j].hi == k[j - 1].hi && (dup == n || k[j].i < dup)) {
                dup = k[j].i;
                orig = k[j - 1].i;
            }
        free(k);
        if (dup < n) {
            char path[PATH_LEN];
            path_index(path, "links", dup);
            rc = bad(ld, where[dup], path, "duplicate link between %s and %s (also links[%u])",
                     c->sites[c->links[dup].a].name, c->sites[c->links[dup].b].name, orig);
        }
    }
    free(where);
    return rc;
}

/* Validates the whole tree into c (freshly zeroed). Returns 0 or CPN_EINPUT; on
 * failure c holds whatever was built, for cluster_destroy. */
static int read_cluster(const struct ld *ld, const cJSON *root, const struct catalog *cat,
                        struct cluster *c)
{
    enum { K_CONTROLLER, K_TYPES, K_SITES, K_LINKS, K_CFG };
    const char *keys[K_CFG + CLUSTER_MAX_SETTABLE] = {"controller_site", "gpu_types", "sites", "links"};
    size_t n_keys = K_CFG + n_settable() - 1; /* controller_site is already first */
    for (size_t k = 0; k + 1 < n_settable(); k++)
        keys[K_CFG + k] = settable_name(k);
    const cJSON *it[K_CFG + CLUSTER_MAX_SETTABLE];
    struct name_ix *type_ix = NULL, *site_ix = NULL;
    int rc = take_fields(ld, root, "", keys, n_keys, it);
    if (!rc)
        rc = read_config(ld, root, it + K_CFG, &c->cfg);
    if (!rc)
        rc = read_policy_params(ld, root, it + K_CFG + N_CFG, c);
    if (!rc)
        rc = read_gpu_types(ld, root, it[K_TYPES], cat, c, &type_ix);
    if (!rc)
        rc = read_sites(ld, root, it[K_SITES], type_ix, c, &site_ix);
    if (!rc)
        rc = read_links(ld, it[K_LINKS], site_ix, c);
    if (!rc && it[K_CONTROLLER])
        rc = read_site_ref(ld, root, it[K_CONTROLLER], "controller_site", site_ix, c,
                           &c->controller_site);
    free(type_ix);
    free(site_ix);
    return rc;
}

int cluster_load_buf(const char *name, const char *buf, size_t len, const char *const *sets,
                     size_t n_sets, const struct catalog *cat, struct cluster **out, char *err,
                     size_t errlen)
{
    CPN_ASSERT(out && (buf || len == 0) && (sets || n_sets == 0));
    struct ld ld = {.name = name ? name : "<buffer>", .err = err, .errlen = errlen};
    if (!buf)
        buf = "";
    cJSON *root = NULL;
    int rc = jpos_parse(ld.name, buf, len, &root, &ld.pos, err, errlen);
    if (rc)
        return rc;
    cJSON *graveyard = cJSON_CreateArray();
    CPN_ASSERT(graveyard);
    struct cluster *c = cpn_calloc(1, sizeof *c);
    if (!cJSON_IsObject(root))
        rc = bad(&ld, root, "", "the top level must be a JSON object (got %s)", type_name(root));
    if (!rc)
        rc = apply_sets(&ld, root, graveyard, sets, n_sets);
    if (!rc)
        rc = read_cluster(&ld, root, cat, c);
    cJSON_Delete(root);
    cJSON_Delete(graveyard);
    jpos_free(&ld.pos);
    if (rc) {
        cluster_destroy(c);
        return rc;
    }
    c->source = cpn_strdup(ld.name);
    cpn_sha256_hex(buf, len, c->sha256);
    *out = c;
    return CPN_OK;
}

int cluster_load(const char *path, const char *const *sets, size_t n_sets,
                 const struct catalog *cat, struct cluster **out, char *err, size_t errlen)
{
    if (!path) {
        size_t len;
        const char *buf = cluster_default_json(&len);
        return cluster_load_buf(default_source, buf, len, sets, n_sets, cat, out, err, errlen);
    }
    char *buf;
    size_t len;
    int rc = cpn_read_file(path, &buf, &len, err, errlen);
    if (rc)
        return rc;
    rc = cluster_load_buf(path, buf, len, sets, n_sets, cat, out, err, errlen);
    free(buf);
    return rc;
}

void cluster_destroy(struct cluster *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_types; i++)
        free(c->types[i].name);
    for (size_t i = 0; i < c->n_sites; i++)
        free(c->sites[i].name);
    free(c->types);
    free(c->sites);
    free(c->nodes);
    free(c->gpu_node);
    free(c->links);
    free(c->source);
    for (size_t i = 0; c->policy_params && i < policy_registry_len; i++)
        free(c->policy_params[i]);
    free(c->policy_params);
    free(c);
}

const void *cluster_policy_params(const struct cluster *c, const struct policy_ops *pol)
{
    for (size_t i = 0; c->policy_params && i < policy_registry_len; i++)
        if (pol->n_params > 0 && policy_registry[i]->params == pol->params)
            return c->policy_params[i];
    return NULL;
}

int cluster_site_find(const struct cluster *c, const char *name)
{
    for (size_t i = 0; i < c->n_sites; i++)
        if (strcmp(c->sites[i].name, name) == 0)
            return (int)i;
    return -1;
}

const char **cluster_site_names(const struct cluster *c)
{
    const char **v = cpn_calloc(c->n_sites, sizeof *v);
    for (size_t i = 0; i < c->n_sites; i++)
        v[i] = c->sites[i].name;
    return v;
}

const char *cluster_default_json(size_t *len)
{
    if (len)
        *len = EMBED_LEN(cpn_embed_default_cluster);
    return cpn_embed_default_cluster;
}
