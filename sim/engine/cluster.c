/* cluster: the modeled datacenters (see cluster.h): the config table, with every
 * tunable's name, default, bounds and meaning in one place, the list of keys that
 * --set and the file's top level accept (the table's, then every registered policy's
 * parameters, then controller_site), and the cluster's lifetime and lookups. Reading
 * cluster JSON is sim/io/cluster_json.c's: it sees the keys through that list. */
#include "cluster.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "param.h"
#include "policy.h"
#include "../base/embed.h"
#include "../base/util.h"

/* ---- The config table ---------------------------------------------------------- */

static const char *const completion_names[] = {
    [COMPLETION_POLL] = "poll", [COMPLETION_EVENT] = "event", NULL};
/* The run's tunables (struct cluster_config). A policy's own tunables are in its
 * parameter table (policy_ops.params); the reader accepts both, in the file and with
 * --set, and stores each registered policy's into its struct (cluster.policy_params). */
/* clang-format off */
#define OFF(field) offsetof(struct cluster_config, field)

static const struct param cfg_keys[] = {
    {.name = "scrape_interval_s", .kind = PARAM_DOUBLE, .offset = OFF(scrape_interval_s), .def = 60,
     .b = PARAM_AT_LEAST(0),
     .meaning = "metrics scrape period (s); 0 = the controller sees live metrics"},
    {.name = "poll_interval_s", .kind = PARAM_DOUBLE, .offset = OFF(poll_interval_s), .def = 60,
     .b = PARAM_ABOVE(0), .meaning = "completion polling period (s) when completion is poll"},
    {.name = "completion", .kind = PARAM_ENUM, .offset = OFF(completion), .def = COMPLETION_POLL,
     .names = completion_names,
     .meaning = "how completions reach the controller: poll, or event (at once)"},
    {.name = "warmup_s", .kind = PARAM_DOUBLE, .offset = OFF(warmup_s), .def = 20, .b = PARAM_AT_LEAST(0),
     .meaning = "time from a job's start to its peak GPU memory (s)"},
    {.name = "backoff_base_s", .kind = PARAM_DOUBLE, .offset = OFF(backoff_base_s), .def = 10,
     .b = PARAM_ABOVE(0), .meaning = "first retry back-off after an OOM kill (s); doubles per retry"},
    {.name = "backoff_cap_s", .kind = PARAM_DOUBLE, .offset = OFF(backoff_cap_s), .def = 360,
     .b = PARAM_ABOVE(0), .meaning = "back-off ceiling (s); at least backoff_base_s"},
    {.name = "backoff_limit", .kind = PARAM_UINT, .offset = OFF(backoff_limit), .def = 4,
     .b = {.min = 0, .max = 1000, .whole = true},
     .meaning = "retries after OOM kills (and gang timeouts) before a job is Failed"},
    {.name = "gang_timeout_s", .kind = PARAM_DOUBLE, .offset = OFF(gang_timeout_s), .def = 1800,
     .b = PARAM_AT_LEAST(0),
     .meaning = "how long the placed pods of a distributed job wait for the rest before the "
                "attempt fails and is retried (s); 0 = forever (docs/distributed.md)"},
    {.name = "cpu_threshold", .kind = PARAM_DOUBLE, .offset = OFF(cpu_threshold), .def = 0.7,
     .b = PARAM_ABOVE(0), .inf_word = "never",
     .meaning = "nodes whose scraped CPU utilisation is at or above it take no new job from "
                "the controller's policies; never (or above 1): no node is refused (docs/cpu.md)"},
    {.name = "cpu_filter", .kind = PARAM_BOOL, .offset = OFF(cpu_filter), .def = 1,
     .meaning = "whether fifo, optimal, sjf and easy apply cpu_threshold (default, "
                "kube-scheduler's, never does)"},
    {.name = "cpu_cost_scale", .kind = PARAM_DOUBLE, .offset = OFF(cpu_cost_scale), .def = 1,
     .b = PARAM_AT_LEAST(0),
     .meaning = "multiplies every input pipeline's measured CPU cost per sample (jobs without "
                "cpu_cores_used; docs/cpu.md)"},
    {.name = "learn", .kind = PARAM_BOOL, .offset = OFF(learn), .def = 1,
     .meaning = "whether the learned predictors (rf, linear, nn) learn from completed runs "
                "(docs/predictor.md)"},
    {.name = "prior_run_s", .kind = PARAM_DOUBLE, .offset = OFF(prior_run_s), .def = 3600,
     .b = PARAM_ABOVE(0),
     .meaning = "a learned predictor's run time (s, at speed 1) of a job given by duration "
                "before any job of its origin and GPU count completed"},
    {.name = "gpu_as_resource", .kind = PARAM_BOOL, .offset = OFF(gpu_as_resource), .def = 0,
     .meaning = "whether jobs request nvidia.com/gpu (default policy)"},
    {.name = "horizon_s", .kind = PARAM_DOUBLE, .offset = OFF(horizon_s), .def = 0, .b = PARAM_AT_LEAST(0),
     .meaning = "simulated time at which the run stops (s); 0 = none"},
    {.name = "timeline_interval_s", .kind = PARAM_DOUBLE, .offset = OFF(timeline_interval_s),
     .def = 60, .b = PARAM_ABOVE(0), .meaning = "timeline row period (s) when scrape_interval_s is 0"},
    {.name = "link_gbps_scale", .kind = PARAM_DOUBLE, .offset = OFF(link_gbps_scale), .def = 1,
     .b = PARAM_ABOVE(0), .meaning = "factor applied to every link's bandwidth (0.5 halves them)"},
    {.name = "max_timeline_rows", .kind = PARAM_UINT, .offset = OFF(max_timeline_rows),
     .def = 1e7, .b = {.min = 1, .max = 1e9, .whole = true},
     .meaning = "most timeline rows a run may take; a run that needs more is refused "
                "(docs/reliability.md)"},
};
/* clang-format on */
#define N_CFG (sizeof cfg_keys / sizeof cfg_keys[0])

size_t cluster_config_count(void) { return N_CFG; }

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

size_t cluster_settable_count(void)
{
    size_t n = N_CFG + n_policy_params() + 1;
    CPN_ASSERT(n <= CLUSTER_MAX_SETTABLE);
    return n;
}

const struct param *cluster_settable(size_t k)
{
    if (k < N_CFG)
        return &cfg_keys[k];
    return k < N_CFG + n_policy_params() ? policy_param(k - N_CFG) : NULL;
}

const char *cluster_settable_name(size_t k)
{
    const struct param *p = cluster_settable(k);
    return p ? p->name : "controller_site";
}

size_t cluster_config_find(const char *name)
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
