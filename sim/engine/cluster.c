/* cluster: the modeled datacenters (see cluster.h): the config table, with every
 * tunable's name, default, bounds and meaning in one place, and the cluster's
 * lifetime and lookups. Reading cluster JSON is sim/io/cluster_json.c's: it sees the
 * table only through cluster_config_key, cluster_config_find and cluster_config_store. */
#include "cluster.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/embed.h"
#include "../base/util.h"

/* ---- The config table ---------------------------------------------------------- */

/* Allowed range of a number: [min, max], or (min, max] when min_open; whole numbers
 * only when whole. */
struct bound {
    double min, max;
    bool min_open, whole;
};

enum cfg_kind { CFG_DOUBLE, CFG_UINT, CFG_BOOL, CFG_ENUM };

static const char *const completion_names[] = {
    [COMPLETION_POLL] = "poll", [COMPLETION_EVENT] = "event", NULL};
static const char *const optimal_order_names[] = {
    [OPTIMAL_ORDER_LPT] = "lpt", [OPTIMAL_ORDER_FIFO] = "fifo", [OPTIMAL_ORDER_SPT] = "spt",
    [OPTIMAL_ORDER_WORK] = "work", NULL};
static const char *const optimal_replan_names[] = {
    [OPTIMAL_REPLAN_CHANGE] = "change", [OPTIMAL_REPLAN_EVERY] = "every", NULL};

struct cfg_key {
    const char *name;
    enum cfg_kind kind;
    size_t offset;            /* into struct cluster_config */
    double def;               /* a number; 0 or 1 for a bool; the name index for an enum */
    struct bound b;           /* numeric kinds only */
    const char *const *names; /* enum kinds only: the value names, NULL-terminated */
    const char *meaning;
};

/* clang-format off */
#define OFF(field) offsetof(struct cluster_config, field)
#define AT_LEAST(x) {.min = (x), .max = INFINITY}
#define ABOVE(x) {.min = (x), .max = INFINITY, .min_open = true}

static const struct cfg_key cfg_keys[] = {
    {.name = "scrape_interval_s", .kind = CFG_DOUBLE, .offset = OFF(scrape_interval_s), .def = 60,
     .b = AT_LEAST(0),
     .meaning = "metrics scrape period (s); 0 = the controller sees live metrics"},
    {.name = "poll_interval_s", .kind = CFG_DOUBLE, .offset = OFF(poll_interval_s), .def = 60,
     .b = ABOVE(0), .meaning = "completion polling period (s) when completion is poll"},
    {.name = "completion", .kind = CFG_ENUM, .offset = OFF(completion), .def = COMPLETION_POLL,
     .names = completion_names,
     .meaning = "how completions reach the controller: poll, or event (at once)"},
    {.name = "warmup_s", .kind = CFG_DOUBLE, .offset = OFF(warmup_s), .def = 20, .b = AT_LEAST(0),
     .meaning = "time from a job's start to its peak GPU memory (s)"},
    {.name = "backoff_base_s", .kind = CFG_DOUBLE, .offset = OFF(backoff_base_s), .def = 10,
     .b = ABOVE(0), .meaning = "first retry back-off after an OOM kill (s); doubles per retry"},
    {.name = "backoff_cap_s", .kind = CFG_DOUBLE, .offset = OFF(backoff_cap_s), .def = 360,
     .b = ABOVE(0), .meaning = "back-off ceiling (s); at least backoff_base_s"},
    {.name = "backoff_limit", .kind = CFG_UINT, .offset = OFF(backoff_limit), .def = 4,
     .b = {.min = 0, .max = 1000, .whole = true},
     .meaning = "retries after OOM kills before a job is Failed"},
    {.name = "cpu_threshold", .kind = CFG_DOUBLE, .offset = OFF(cpu_threshold), .def = 0.7,
     .b = {.min = 0, .max = 1, .min_open = true},
     .meaning = "nodes whose scraped CPU utilisation is at or above it take no new jobs"},
    {.name = "gpu_as_resource", .kind = CFG_BOOL, .offset = OFF(gpu_as_resource), .def = 0,
     .meaning = "whether jobs request nvidia.com/gpu (default policy)"},
    {.name = "horizon_s", .kind = CFG_DOUBLE, .offset = OFF(horizon_s), .def = 0, .b = AT_LEAST(0),
     .meaning = "simulated time at which the run stops (s); 0 = none"},
    {.name = "timeline_interval_s", .kind = CFG_DOUBLE, .offset = OFF(timeline_interval_s),
     .def = 60, .b = ABOVE(0), .meaning = "timeline row period (s) when scrape_interval_s is 0"},
    {.name = "link_gbps_scale", .kind = CFG_DOUBLE, .offset = OFF(link_gbps_scale), .def = 1,
     .b = ABOVE(0), .meaning = "factor applied to every link's bandwidth (0.5 halves them)"},
    {.name = "kube_backoff_s", .kind = CFG_DOUBLE, .offset = OFF(kube_backoff_s), .def = 1,
     .b = ABOVE(0),
     .meaning = "default policy: back-off (s) after a job's first failed scheduling attempt; "
                "doubles per attempt (kube-scheduler podInitialBackoffSeconds)"},
    {.name = "kube_backoff_max_s", .kind = CFG_DOUBLE, .offset = OFF(kube_backoff_max_s),
     .def = 10, .b = ABOVE(0),
     .meaning = "default policy: back-off ceiling (s) (kube-scheduler podMaxBackoffSeconds)"},
    {.name = "reserve_min_gpus", .kind = CFG_UINT, .offset = OFF(reserve_min_gpus), .def = 4,
     .b = {.min = 1, .max = 1000, .whole = true},
     .meaning = "optimal policy: jobs needing at least this many GPUs may get a reservation"},
    {.name = "reserve_after_s", .kind = CFG_DOUBLE, .offset = OFF(reserve_after_s), .def = 1800,
     .b = AT_LEAST(0),
     .meaning = "optimal policy: such a job gets a reservation once it has waited this long (s)"},
    {.name = "optimal_order", .kind = CFG_ENUM, .offset = OFF(optimal_order),
     .def = OPTIMAL_ORDER_WORK, .names = optimal_order_names,
     .meaning = "optimal policy: queue order: work (largest predicted GPU-time first), lpt "
                "(longest predicted first), fifo, spt"},
    {.name = "max_timeline_rows", .kind = CFG_UINT, .offset = OFF(max_timeline_rows),
     .def = 1e7, .b = {.min = 1, .max = 1e9, .whole = true},
     .meaning = "most timeline rows a run may take; a run that needs more is refused "
                "(docs/reliability.md)"},
    {.name = "optimal_window", .kind = CFG_UINT, .offset = OFF(optimal_window), .def = 128,
     .b = {.min = 1, .max = 1e9, .whole = true},
     .meaning = "optimal policy: most queued jobs planned at one scheduling point (reservations, "
                "then jobs waiting reserve_after_s, oldest first, then the queue order)"},
    {.name = "optimal_replan", .kind = CFG_ENUM, .offset = OFF(optimal_replan),
     .def = OPTIMAL_REPLAN_CHANGE, .names = optimal_replan_names,
     .meaning = "optimal policy: plan afresh when the cluster changed (change: a learnt end or a "
                "new scrape; new jobs are fitted into the standing plan) or at every scheduling "
                "point (every)"},
};
/* clang-format on */
#define N_CFG (sizeof cfg_keys / sizeof cfg_keys[0])

/* The reader sizes its arrays by CLUSTER_CONFIG_MAX_KEYS. */
_Static_assert(N_CFG <= CLUSTER_CONFIG_MAX_KEYS,
               "CLUSTER_CONFIG_MAX_KEYS is below the table's size");

size_t cluster_config_count(void) { return N_CFG; }

void cluster_config_key(size_t i, struct cluster_cfg_desc *out)
{
    static const int kinds[] = {[CFG_DOUBLE] = CLUSTER_CFG_DOUBLE, [CFG_UINT] = CLUSTER_CFG_UINT,
                                [CFG_BOOL] = CLUSTER_CFG_BOOL, [CFG_ENUM] = CLUSTER_CFG_ENUM};
    CPN_ASSERT(i < N_CFG);
    const struct cfg_key *k = &cfg_keys[i];
    *out = (struct cluster_cfg_desc){
        .name = k->name,
        .kind = kinds[k->kind],
        .def = k->def,
        .b = {.min = k->b.min, .max = k->b.max, .min_open = k->b.min_open, .whole = k->b.whole},
        .names = k->names,
    };
}

size_t cluster_config_find(const char *name)
{
    for (size_t k = 0; k < N_CFG; k++)
        if (strcmp(cfg_keys[k].name, name) == 0)
            return k;
    cpn_panic(__FILE__, __LINE__, "config key not in the table");
}

static void cfg_store(struct cluster_config *cfg, const struct cfg_key *k, double v)
{
    char *p = (char *)cfg + k->offset;
    switch (k->kind) {
    case CFG_DOUBLE: *(double *)(void *)p = v; break;
    case CFG_UINT: *(unsigned *)(void *)p = (unsigned)v; break;
    case CFG_BOOL: *(bool *)(void *)p = v != 0; break;
    case CFG_ENUM: *(int *)(void *)p = (int)v; break;
    }
}

void cluster_config_store(struct cluster_config *cfg, size_t i, double v)
{
    CPN_ASSERT(i < N_CFG);
    cfg_store(cfg, &cfg_keys[i], v);
}

void cluster_config_defaults(struct cluster_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    for (size_t k = 0; k < N_CFG; k++)
        cfg_store(cfg, &cfg_keys[k], cfg_keys[k].def);
}

void cluster_config_help(FILE *f)
{
    for (size_t i = 0; i < N_CFG; i++) {
        const struct cfg_key *k = &cfg_keys[i];
        char def[32];
        switch (k->kind) {
        case CFG_DOUBLE: snprintf(def, sizeof def, "%g", k->def); break;
        case CFG_UINT: snprintf(def, sizeof def, "%u", (unsigned)k->def); break;
        case CFG_BOOL: snprintf(def, sizeof def, "%s", k->def != 0 ? "true" : "false"); break;
        case CFG_ENUM: snprintf(def, sizeof def, "%s", k->names[(int)k->def]); break;
        }
        fprintf(f, "  %-20s %-7s %s\n", k->name, def, k->meaning);
    }
    fprintf(f, "  %-20s %-7s %s\n", "controller_site", "(first)",
            "site where the controller runs; default the first site");
}

/* ---- The model ------------------------------------------------------------------ */

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
    free(c);
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
