/* cluster_json: reads and validates cluster JSON into the model of
 * sim/engine/cluster.h. cJSON parses the text and jsonpos maps each value to its
 * line; --set overrides then replace top-level members of the tree, so that one
 * validation pass checks file values and overrides alike and names either
 * "file:line: field" or "--set KEY". Reading builds a fresh struct cluster and hands
 * it over only when everything is valid, so a failure leaves the caller's pointer
 * untouched and frees whatever was built.
 *
 * Node entries are expanded by their count into one node array (site order, then
 * entry order), and GPUs are numbered globally in node order, so a site's nodes and
 * GPUs are contiguous ranges. Each node takes its entry's background_cpu, else its
 * site's. Totals are capped (CLUSTER_MAX_*) before anything is
 * allocated for them, so no count can overflow an index. Names (sites, GPU types)
 * are looked up through sorted indexes, which also find duplicates. The config keys
 * come from the engine's list (cluster_settable). */
#include "cluster_json.h"
#include "cluster_json_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

#include "../engine/catalog.h"
#include "../engine/cluster.h"
#include "../engine/param.h"
#include "../engine/policy.h"
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

static const char default_source[] = "<default cluster>";

/* ---- --set ------------------------------------------------------------------------- */

/* Applies "KEY=VALUE" overrides to the top-level object: each replaces every member
 * named KEY (moved to graveyard, so that no address in the line table is reused) or
 * adds one. The value's JSON type follows the key's kind. Returns 0 or CPN_EINPUT. */
static int apply_sets(struct cj_ld *ld, cJSON *root, cJSON *graveyard, const char *const *sets,
                      size_t n_sets)
{
    for (size_t s = 0; s < n_sets; s++) {
        const char *arg = sets[s];
        const char *eq = strchr(arg, '=');
        if (!eq || eq == arg)
            return cpn_fail(ld->err, ld->errlen, CPN_EINPUT, "--set %s: expected KEY=VALUE", arg);
        size_t klen = (size_t)(eq - arg), k = 0, n = cluster_settable_count();
        while (k < n && (strlen(cluster_settable_name(k)) != klen ||
                         memcmp(cluster_settable_name(k), arg, klen) != 0))
            k++;
        if (k == n) {
            struct cj_namelist l = {0};
            for (size_t j = 0; j < n; j++)
                cj_list_add(&l, cluster_settable_name(j));
            return cpn_fail(ld->err, ld->errlen, CPN_EINPUT, "--set %.*s: unknown key (known: %s)",
                            klen > 64 ? 64 : (int)klen, arg, l.s);
        }
        const char *key = cluster_settable_name(k), *value = eq + 1;
        const struct param *kp = cluster_settable(k);
        cJSON *item;
        if (kp && kp->inf_word && strcmp(value, kp->inf_word) == 0) {
            item = cJSON_CreateString(value);
        } else if (kp && (kp->kind == PARAM_DOUBLE || kp->kind == PARAM_UINT)) {
            double v;
            if (cpn_parse_double(value, &v) != CPN_OK) {
                char want[CJ_WANT_LEN];
                cj_bound_text(&kp->b, want);
                return cpn_fail(ld->err, ld->errlen, CPN_EINPUT,
                                "--set %s: must be %s%s%s (got '%s')", key, want,
                                kp->inf_word ? ", or " : "", kp->inf_word ? kp->inf_word : "",
                                value);
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
static int read_param(const struct cj_ld *ld, const cJSON *root, const cJSON *it,
                      const struct param *k, void *base)
{
    double v = k->def;
    int rc = CPN_OK;
    switch (k->kind) {
    case PARAM_DOUBLE:
    case PARAM_UINT:
        if (k->inf_word && it && !(cJSON_IsNumber(it) && cj_in_bound(&k->b, it->valuedouble))) {
            if (cJSON_IsString(it) && strcmp(it->valuestring, k->inf_word) == 0) {
                v = INFINITY; /* the word */
                break;
            }
            char want[CJ_WANT_LEN], got[64];
            cj_bound_text(&k->b, want);
            if (cJSON_IsNumber(it))
                snprintf(got, sizeof got, "%.15g", it->valuedouble);
            else
                snprintf(got, sizeof got, "%s", cj_type_name(it));
            return cj_bad(ld, it, k->name, "must be %s, or \"%s\" (got %s)", want, k->inf_word,
                          got);
        }
        rc = cj_get_num(ld, root, it, k->name, &k->b, &k->def, &v);
        break;
    case PARAM_BOOL:
        if (it && !cJSON_IsBool(it))
            return cj_bad(ld, it, k->name, "must be true or false (got %s)", cj_type_name(it));
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
            struct cj_namelist l = {0};
            for (int j = 0; k->names[j]; j++)
                cj_list_add(&l, k->names[j]);
            if (cJSON_IsString(it))
                return cj_bad(ld, it, k->name, "must be one of %s (got '%s')", l.s,
                              it->valuestring);
            return cj_bad(ld, it, k->name, "must be one of %s (got %s)", l.s, cj_type_name(it));
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
static int read_policy_params(const struct cj_ld *ld, const cJSON *root,
                              const cJSON *const items[], struct cluster *c)
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

static int read_config(const struct cj_ld *ld, const cJSON *root, const cJSON *const items[],
                       struct cluster_config *cfg)
{
    cluster_config_defaults(cfg);
    for (size_t i = 0; i < cluster_config_count(); i++) {
        int rc = read_param(ld, root, items[i], cluster_settable(i), cfg);
        if (rc)
            return rc;
    }
    /* Polls fall on multiples of the interval: a tinier one loses them to rounding. */
    if (cfg->poll_interval_s < CLUSTER_MIN_POLL_S)
        return cj_bad(ld, items[cluster_config_find("poll_interval_s")], "poll_interval_s",
                      "must be at least %g s (got %g)", CLUSTER_MIN_POLL_S, cfg->poll_interval_s);
    if (cfg->backoff_cap_s < cfg->backoff_base_s) {
        const cJSON *cap = items[cluster_config_find("backoff_cap_s")];
        if (cap)
            return cj_bad(ld, cap, "backoff_cap_s", "must be >= backoff_base_s (%g)",
                          cfg->backoff_base_s);
        return cj_bad(ld, items[cluster_config_find("backoff_base_s")], "backoff_base_s",
                      "must be <= backoff_cap_s (%g)", cfg->backoff_cap_s);
    }
    return CPN_OK;
}

/* Resolves a GPU type's catalogue profile into *cat_type. */
static int read_profile(const struct cj_ld *ld, const cJSON *item, const char *path,
                        const char *name, int *cat_type)
{
    if (!item) {
        *cat_type = catalog_type_match(name);
        return CPN_OK;
    }
    const char *p;
    int rc = cj_get_str(ld, NULL, item, path, false, &p);
    if (rc)
        return rc;
    if (strcasecmp(p, "none") == 0) {
        *cat_type = -1;
        return CPN_OK;
    }
    struct cj_namelist l = {0};
    for (int t = 0; t < CAT_NTYPES; t++) {
        if (strcasecmp(p, catalog_type_name(t)) == 0) {
            *cat_type = t;
            return CPN_OK;
        }
        cj_list_add(&l, catalog_type_name(t));
    }
    cj_list_add(&l, "none");
    return cj_bad(ld, item, path, "unknown catalogue type '%s' (expected one of %s)", p, l.s);
}

static int read_gpu_types(const struct cj_ld *ld, const cJSON *root, const cJSON *gt,
                          const struct catalog *cat, struct cluster *c, struct cj_name_ix **ix_out)
{
    static const char *const keys[] = {"mem_gib", "speed", "profile"};
    enum { K_MEM, K_SPEED, K_PROFILE, K_N };
    if (!gt)
        return cj_bad(ld, root, "gpu_types", "is required (an object of GPU types by name)");
    if (!cJSON_IsObject(gt))
        return cj_bad(ld, gt, "gpu_types", "must be an object of GPU types by name (got %s)",
                      cj_type_name(gt));
    size_t n = 0;
    for (const cJSON *ch = gt->child; ch; ch = ch->next)
        n += strncmp(ch->string, "x_", 2) != 0;
    if (n > CLUSTER_MAX_TYPES)
        return cj_bad(ld, gt, "gpu_types", "more than %u GPU types", CLUSTER_MAX_TYPES);
    c->types = cpn_calloc(n, sizeof *c->types);
    struct cj_name_ix *ix = cpn_calloc(n, sizeof *ix);
    const cJSON **where = cpn_calloc(n, sizeof *where);
    int rc = CPN_OK;
    for (const cJSON *ch = gt->child; ch && !rc; ch = ch->next) {
        if (strncmp(ch->string, "x_", 2) == 0)
            continue;
        char path[CJ_PATH_LEN], p[CJ_PATH_LEN];
        cj_path_key(path, "gpu_types", ch->string);
        const cJSON *it[K_N];
        if (!ch->string[0]) {
            rc = cj_bad(ld, ch, "gpu_types", "a GPU type name must not be empty");
            break;
        }
        if ((rc = cj_need_object(ld, ch, path)) ||
            (rc = cj_take_fields(ld, ch, path, keys, K_N, it)))
            break;
        struct gpu_type t = {0};
        static const struct param_bound positive = PARAM_ABOVE(0);
        cj_path_key(p, path, "mem_gib");
        if ((rc = cj_get_num(ld, ch, it[K_MEM], p, &positive, NULL, &t.mem_gib)))
            break;
        cj_path_key(p, path, "profile");
        if ((rc = read_profile(ld, it[K_PROFILE], p, ch->string, &t.cat_type)))
            break;
        cj_path_key(p, path, "speed");
        if (it[K_SPEED]) {
            if ((rc = cj_get_num(ld, ch, it[K_SPEED], p, &positive, NULL, &t.speed)))
                break;
        } else if (t.cat_type >= 0) {
            t.speed = cat ? catalog_type_speed(cat, t.cat_type) : 1.0;
            CPN_ASSERT(t.speed > 0 && isfinite(t.speed));
        } else {
            rc = cj_bad(ld, ch, p, "required for a GPU type with no catalogue profile");
            break;
        }
        t.name = cpn_strdup(ch->string);
        where[c->n_types] = ch;
        ix[c->n_types] = (struct cj_name_ix){.name = t.name, .i = (uint32_t)c->n_types};
        c->types[c->n_types++] = t;
    }
    uint32_t dup, orig;
    if (!rc && cj_ix_sort(ix, n, &dup, &orig)) {
        char path[CJ_PATH_LEN];
        cj_path_key(path, "gpu_types", c->types[dup].name);
        rc = cj_bad(ld, where[dup], path, "duplicate GPU type name");
    }
    free(where);
    if (rc) {
        free(ix);
        return rc;
    }
    *ix_out = ix;
    return CPN_OK;
}

/* Reads one node entry of site s and appends its count nodes and their GPUs. Their
 * background load is the entry's background_cpu, else the site's (site_bg). */
static int read_node_entry(const struct cj_ld *ld, const cJSON *e, const char *path, uint32_t s,
                           const struct cpu_background *site_bg, const struct cj_name_ix *type_ix,
                           struct cluster *c, size_t *node_cap, size_t *gpu_cap)
{
    static const char *const keys[] = {"count", "cpus", "mem_gib", "gpu_type", "gpus",
                                       "background_cpu"};
    enum { K_COUNT, K_CPUS, K_MEM, K_TYPE, K_GPUS, K_BG, K_N };
    static const struct param_bound count_b = {.min = 1, .max = CLUSTER_MAX_NODES, .whole = true};
    static const struct param_bound positive = PARAM_ABOVE(0);
    static const struct param_bound gpus_b = {.min = 0, .max = CLUSTER_MAX_NODE_GPUS,
                                                .whole = true};
    static const double one = 1;
    const cJSON *it[K_N];
    char p[CJ_PATH_LEN];
    int rc;
    if ((rc = cj_need_object(ld, e, path)) || (rc = cj_take_fields(ld, e, path, keys, K_N, it)))
        return rc;
    double count, cpus, mem, gpus;
    const char *type_name_s;
    cj_path_key(p, path, "count");
    if ((rc = cj_get_num(ld, e, it[K_COUNT], p, &count_b, &one, &count)))
        return rc;
    cj_path_key(p, path, "cpus");
    if ((rc = cj_get_num(ld, e, it[K_CPUS], p, &positive, NULL, &cpus)))
        return rc;
    cj_path_key(p, path, "mem_gib");
    if ((rc = cj_get_num(ld, e, it[K_MEM], p, &positive, NULL, &mem)))
        return rc;
    cj_path_key(p, path, "gpus");
    if ((rc = cj_get_num(ld, e, it[K_GPUS], p, &gpus_b, NULL, &gpus)))
        return rc;
    cj_path_key(p, path, "gpu_type");
    if ((rc = cj_get_str(ld, e, it[K_TYPE], p, gpus > 0, &type_name_s)))
        return rc;
    uint32_t type = 0;
    if (type_name_s) {
        long t = cj_ix_find(type_ix, c->n_types, type_name_s);
        if (t < 0) {
            struct cj_namelist l = {0};
            for (size_t j = 0; j < c->n_types; j++)
                cj_list_add(&l, c->types[j].name);
            return cj_bad(ld, it[K_TYPE], p, "unknown GPU type '%s' (gpu_types has %s)",
                          type_name_s, c->n_types ? l.s : "none");
        }
        type = (uint32_t)t;
    }
    struct cpu_background bg = *site_bg;
    cj_path_key(p, path, "background_cpu");
    if ((rc = cj_get_background(ld, it[K_BG], p, &bg)))
        return rc;
    size_t n = (size_t)count, g = (size_t)gpus;
    if (n > CLUSTER_MAX_NODES - c->n_nodes) {
        cj_path_key(p, path, "count");
        return cj_bad(ld, it[K_COUNT] ? it[K_COUNT] : e, p,
                      "the cluster would have more than %u nodes", CLUSTER_MAX_NODES);
    }
    if (n * g > CLUSTER_MAX_GPUS - c->n_gpus) {
        cj_path_key(p, path, "gpus");
        return cj_bad(ld, it[K_GPUS], p, "the cluster would have more than %u GPUs",
                      CLUSTER_MAX_GPUS);
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
                                     .gpu_count = (uint32_t)g,
                                     .bg = bg};
        for (size_t k = 0; k < g; k++)
            c->gpu_node[c->n_gpus++] = id;
    }
    if (g > c->max_node_gpus)
        c->max_node_gpus = (uint32_t)g;
    return CPN_OK;
}

static int read_sites(const struct cj_ld *ld, const cJSON *root, const cJSON *sa,
                      const struct cj_name_ix *type_ix, struct cluster *c, struct cj_name_ix **ix_out)
{
    static const char *const keys[] = {"name", "cache_gib", "nodes", "background_cpu", "net_gbps"};
    enum { K_NAME, K_CACHE, K_NODES, K_BG, K_NET, K_N };
    static const struct param_bound cache_b = PARAM_AT_LEAST(0);
    static const struct param_bound net_b = {.min = 0, .max = 1e9, .min_open = true};
    static const double zero = 0, net_def = CLUSTER_SITE_NET_GBPS;
    if (!sa)
        return cj_bad(ld, root, "sites", "is required (a non-empty array of sites)");
    if (!cJSON_IsArray(sa))
        return cj_bad(ld, sa, "sites", "must be a non-empty array of sites (got %s)",
                      cj_type_name(sa));
    size_t n = cj_array_len(sa);
    if (n == 0)
        return cj_bad(ld, sa, "sites", "must not be empty (a cluster needs a site)");
    if (n > CLUSTER_MAX_SITES)
        return cj_bad(ld, sa, "sites", "more than %u sites", CLUSTER_MAX_SITES);
    c->sites = cpn_calloc(n, sizeof *c->sites);
    struct cj_name_ix *ix = cpn_calloc(n, sizeof *ix);
    const cJSON **where = cpn_calloc(n, sizeof *where);
    size_t node_cap = 0, gpu_cap = 0;
    int rc = CPN_OK;
    const cJSON *so = sa->child;
    for (size_t i = 0; i < n && !rc; i++, so = so->next) {
        char path[CJ_PATH_LEN], p[CJ_PATH_LEN];
        cj_path_index(path, "sites", i);
        const cJSON *it[K_N];
        const char *name;
        double cache, net;
        if ((rc = cj_need_object(ld, so, path)) ||
            (rc = cj_take_fields(ld, so, path, keys, K_N, it)))
            break;
        cj_path_key(p, path, "name");
        if ((rc = cj_get_str(ld, so, it[K_NAME], p, true, &name)))
            break;
        cj_path_key(p, path, "cache_gib");
        if ((rc = cj_get_num(ld, so, it[K_CACHE], p, &cache_b, &zero, &cache)))
            break;
        cj_path_key(p, path, "net_gbps");
        if ((rc = cj_get_num(ld, so, it[K_NET], p, &net_b, &net_def, &net)))
            break;
        struct cpu_background site_bg = {0}; /* no other tenant unless given */
        cj_path_key(p, path, "background_cpu");
        if ((rc = cj_get_background(ld, it[K_BG], p, &site_bg)))
            break;
        struct site *st = &c->sites[c->n_sites++];
        st->name = cpn_strdup(name);
        st->cache_gib = cache;
        st->net_gbps = net;
        st->node_first = (uint32_t)c->n_nodes;
        st->gpu_first = (uint32_t)c->n_gpus;
        where[i] = it[K_NAME];
        ix[i] = (struct cj_name_ix){.name = st->name, .i = (uint32_t)i};
        const cJSON *nodes = it[K_NODES];
        cj_path_key(p, path, "nodes");
        if (nodes && !cJSON_IsArray(nodes)) {
            rc = cj_bad(ld, nodes, p, "must be an array of node entries (got %s)",
                        cj_type_name(nodes));
            break;
        }
        size_t j = 0;
        for (const cJSON *e = nodes ? nodes->child : NULL; e && !rc; e = e->next, j++) {
            char ep[CJ_PATH_LEN];
            cj_path_index(ep, p, j);
            rc = read_node_entry(ld, e, ep, (uint32_t)i, &site_bg, type_ix, c, &node_cap,
                                 &gpu_cap);
        }
        st->node_count = (uint32_t)(c->n_nodes - st->node_first);
        st->gpu_count = (uint32_t)(c->n_gpus - st->gpu_first);
    }
    uint32_t dup, orig;
    if (!rc && cj_ix_sort(ix, n, &dup, &orig)) {
        char path[CJ_PATH_LEN];
        snprintf(path, sizeof path, "sites[%u].name", dup);
        rc = cj_bad(ld, where[dup], path, "duplicate site name '%s' (also sites[%u].name)",
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
static int read_site_ref(const struct cj_ld *ld, const cJSON *obj, const cJSON *item,
                         const char *path, const struct cj_name_ix *site_ix,
                         const struct cluster *c, uint32_t *site)
{
    const char *name;
    int rc = cj_get_str(ld, obj, item, path, true, &name);
    if (rc)
        return rc;
    long s = cj_ix_find(site_ix, c->n_sites, name);
    if (s < 0) {
        struct cj_namelist l = {0};
        for (size_t j = 0; j < c->n_sites; j++)
            cj_list_add(&l, c->sites[j].name);
        return cj_bad(ld, item, path, "unknown site '%s' (sites: %s)", name, l.s);
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

static int read_links(const struct cj_ld *ld, const cJSON *la, const struct cj_name_ix *site_ix,
                      struct cluster *c)
{
    static const char *const keys[] = {"a", "b", "gbps", "latency_ms"};
    enum { K_A, K_B, K_GBPS, K_LAT, K_N };
    static const struct param_bound gbps_b = PARAM_ABOVE(0), lat_b = PARAM_AT_LEAST(0);
    if (!la)
        return CPN_OK;
    if (!cJSON_IsArray(la))
        return cj_bad(ld, la, "links", "must be an array of links (got %s)", cj_type_name(la));
    size_t n = cj_array_len(la);
    if (n > CLUSTER_MAX_LINKS)
        return cj_bad(ld, la, "links", "more than %u links", CLUSTER_MAX_LINKS);
    c->links = cpn_calloc(n, sizeof *c->links);
    const cJSON **where = cpn_calloc(n, sizeof *where);
    int rc = CPN_OK;
    const cJSON *lo = la->child;
    for (size_t i = 0; i < n && !rc; i++, lo = lo->next) {
        char path[CJ_PATH_LEN], p[CJ_PATH_LEN];
        cj_path_index(path, "links", i);
        const cJSON *it[K_N];
        struct link l = {0};
        if ((rc = cj_need_object(ld, lo, path)) ||
            (rc = cj_take_fields(ld, lo, path, keys, K_N, it)))
            break;
        cj_path_key(p, path, "a");
        if ((rc = read_site_ref(ld, lo, it[K_A], p, site_ix, c, &l.a)))
            break;
        cj_path_key(p, path, "b");
        if ((rc = read_site_ref(ld, lo, it[K_B], p, site_ix, c, &l.b)))
            break;
        if (l.a == l.b) {
            rc = cj_bad(ld, it[K_B], p, "must differ from a (a link joins two sites)");
            break;
        }
        cj_path_key(p, path, "gbps");
        if ((rc = cj_get_num(ld, lo, it[K_GBPS], p, &gbps_b, NULL, &l.gbps)))
            break;
        cj_path_key(p, path, "latency_ms");
        if ((rc = cj_get_num(ld, lo, it[K_LAT], p, &lat_b, NULL, &l.latency_ms)))
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
            char path[CJ_PATH_LEN];
            cj_path_index(path, "links", dup);
            rc = cj_bad(ld, where[dup], path, "duplicate link between %s and %s (also links[%u])",
                        c->sites[c->links[dup].a].name, c->sites[c->links[dup].b].name, orig);
        }
    }
    free(where);
    return rc;
}

/* Validates the whole tree into c (freshly zeroed). Returns 0 or CPN_EINPUT; on
 * failure c holds whatever was built, for cluster_destroy. */
static int read_cluster(const struct cj_ld *ld, const cJSON *root, const struct catalog *cat,
                        struct cluster *c)
{
    enum { K_CONTROLLER, K_TYPES, K_SITES, K_LINKS, K_CFG };
    const char *keys[K_CFG + CLUSTER_MAX_SETTABLE] = {"controller_site", "gpu_types", "sites",
                                                      "links"};
    size_t n_set = cluster_settable_count();
    size_t n_keys = K_CFG + n_set - 1; /* controller_site is already first */
    for (size_t k = 0; k + 1 < n_set; k++)
        keys[K_CFG + k] = cluster_settable_name(k);
    const cJSON *it[K_CFG + CLUSTER_MAX_SETTABLE];
    struct cj_name_ix *type_ix = NULL, *site_ix = NULL;
    int rc = cj_take_fields(ld, root, "", keys, n_keys, it);
    if (!rc)
        rc = read_config(ld, root, it + K_CFG, &c->cfg);
    if (!rc)
        rc = read_policy_params(ld, root, it + K_CFG + cluster_config_count(), c);
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
    struct cj_ld ld = {.name = name ? name : "<buffer>", .err = err, .errlen = errlen};
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
        rc = cj_bad(&ld, root, "", "the top level must be a JSON object (got %s)",
                    cj_type_name(root));
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
