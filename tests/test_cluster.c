/* Tests of cluster (reading and validating cluster JSON, --set) and jsonpos (line
 * numbers of cJSON values). They run from the repository root: the file-based
 * tests read tests/data/cluster/. Catalogue-dependent speeds are avoided by passing
 * a NULL catalogue, which gives profiled types a speed of 1. */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/engine/catalog.h"
#include "../sim/engine/cluster.h"
#include "../sim/io/cluster_json.h"
#include "../sim/base/embed.h"
#include "../sim/base/jsonpos.h"
#include "../sim/base/util.h"

#define DATA "tests/data/cluster/"

static int load_str(const char *json, const char *const *sets, size_t n_sets, struct cluster **c,
                    char *err)
{
    return cluster_load_buf("t.json", json, strlen(json), sets, n_sets, NULL, c, err, CPN_ERR_LEN);
}

/* Loads json (with optional --set overrides) expecting CPN_EINPUT, *out untouched,
 * and a message containing want. */
static void expect_bad_set(const char *json, const char *const *sets, size_t n_sets,
                           const char *want)
{
    char err[CPN_ERR_LEN] = "";
    struct cluster dummy, *c = &dummy;
    int rc = load_str(json, sets, n_sets, &c, err);
    cr_assert_eq(rc, CPN_EINPUT, "accepted, wanted \"%s\":\n%s", want, json);
    cr_assert_eq(c, &dummy, "*out was changed on failure");
    cr_assert(strstr(err, want), "message \"%s\" lacks \"%s\"", err, want);
}

static void expect_bad(const char *json, const char *want) { expect_bad_set(json, NULL, 0, want); }

static struct cluster *load_ok_set(const char *json, const char *const *sets, size_t n_sets)
{
    char err[CPN_ERR_LEN] = "";
    struct cluster *c = NULL;
    int rc = load_str(json, sets, n_sets, &c, err);
    cr_assert_eq(rc, 0, "rejected: %s", err);
    cr_assert_not_null(c);
    return c;
}

/* A small valid cluster, seven lines long, that the bad cases below alter one line of. */
#define L1 "{\n"
#define L2 "\"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1}},\n"
#define L3 "\"sites\": [\n"
#define L4 "{\"name\": \"s\", \"nodes\": [\n"
#define L5 "{\"cpus\": 4, \"mem_gib\": 8, \"gpu_type\": \"G\", \"gpus\": 2}]}\n"
#define L6 "]\n"
#define L7 "}\n"

/* ---- Loading what is valid ---------------------------------------------------- */

Test(cluster, default_cluster_loads)
{
    char err[CPN_ERR_LEN] = "";
    struct cluster *c = NULL;
    cr_assert_eq(cluster_load(NULL, NULL, 0, NULL, &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c->n_types, 3);
    cr_assert_eq(c->n_sites, 3);
    cr_assert_eq(c->n_nodes, 9); /* bj 2, sh 3, gz 2 + 2 */
    cr_assert_eq(c->n_gpus, 56); /* 2*8 + 3*8 + 2*4 + 2*4 */
    cr_assert_eq(c->n_links, 3);
    cr_assert_eq(c->max_node_gpus, 8);
    cr_assert_eq(c->controller_site, 0);
    cr_assert_str_eq(c->sites[0].name, "bj");
    cr_assert_str_eq(c->sites[2].name, "gz");
    cr_assert_eq(c->sites[1].node_first, 2);
    cr_assert_eq(c->sites[1].node_count, 3);
    cr_assert_eq(c->sites[1].gpu_first, 16);
    cr_assert_eq(c->sites[1].gpu_count, 24);
    cr_assert_eq(c->sites[2].node_first, 5);
    cr_assert_eq(c->sites[2].gpu_first, 40);
    cr_assert_eq(c->sites[2].gpu_count, 16);
    cr_assert_eq(c->sites[0].cache_gib, 500);
    /* gz: two P100 nodes then two V100 nodes. */
    cr_assert_eq(c->nodes[5].type, 2);
    cr_assert_eq(c->nodes[7].type, 1);
    cr_assert_eq(c->nodes[8].gpu_first, 52);
    cr_assert_eq(c->gpu_node[55], 8);
    cr_assert_str_eq(c->types[0].name, "H100-80G");
    cr_assert_eq(c->types[0].cat_type, CAT_H100);
    cr_assert_eq(c->types[1].cat_type, CAT_V100);
    cr_assert_eq(c->types[2].cat_type, CAT_P100);
    cr_assert_eq(c->types[2].mem_gib, 16);
    cr_assert_eq(c->types[0].speed, 1.0);
    cr_assert_eq(c->links[2].a, 1);
    cr_assert_eq(c->links[2].b, 2);
    cr_assert_eq(c->links[2].latency_ms, 25);
    cr_assert_eq(c->cfg.poll_interval_s, 60);
    cr_assert_eq(c->cfg.completion, COMPLETION_POLL);
    cr_assert_str_eq(c->source, "<default cluster>");
    char sha[65];
    size_t len;
    const char *json = cluster_default_json(&len);
    cr_assert_eq(len, EMBED_LEN(cpn_embed_default_cluster));
    cr_assert_eq(json[len], '\0');
    cpn_sha256_hex(json, len, sha);
    cr_assert_str_eq(c->sha256, sha);
    cr_assert_eq(cluster_site_find(c, "sh"), 1);
    cr_assert_eq(cluster_site_find(c, "nowhere"), -1);
    cluster_destroy(c);
}

Test(cluster, default_file_matches_embedded)
{
    char err[CPN_ERR_LEN] = "";
    struct cluster *a = NULL, *b = NULL;
    cr_assert_eq(cluster_load("traces/default-cluster.json", NULL, 0, NULL, &a, err, sizeof err), 0,
                 "%s", err);
    cr_assert_eq(cluster_load(NULL, NULL, 0, NULL, &b, err, sizeof err), 0, "%s", err);
    cr_assert_str_eq(a->sha256, b->sha256);
    cr_assert_str_eq(a->source, "traces/default-cluster.json");
    cr_assert_eq(a->n_gpus, b->n_gpus);
    cluster_destroy(a);
    cluster_destroy(b);
}

Test(cluster, node_and_gpu_numbering)
{
    char err[CPN_ERR_LEN] = "";
    struct cluster *c = NULL;
    cr_assert_eq(cluster_load(DATA "small.json", NULL, 0, NULL, &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c->n_sites, 3);
    cr_assert_eq(c->n_types, 2); /* x_unused is ignored */
    cr_assert_eq(c->n_nodes, 4);
    cr_assert_eq(c->n_gpus, 10);
    cr_assert_eq(c->max_node_gpus, 4);
    cr_assert_eq(c->controller_site, 2);
    cr_assert_eq(c->cfg.poll_interval_s, 30);
    cr_assert_eq(c->cfg.scrape_interval_s, 60);

    /* Site a: two 4-GPU nodes and a CPU-only node. */
    cr_assert_eq(c->sites[0].node_first, 0);
    cr_assert_eq(c->sites[0].node_count, 3);
    cr_assert_eq(c->sites[0].gpu_first, 0);
    cr_assert_eq(c->sites[0].gpu_count, 8);
    cr_assert_eq(c->nodes[1].gpu_first, 4);
    cr_assert_eq(c->nodes[1].gpu_count, 4);
    cr_assert_eq(c->nodes[1].cpus, 32);
    cr_assert_eq(c->nodes[2].gpu_count, 0);
    cr_assert_eq(c->nodes[2].gpu_first, 8);
    cr_assert_eq(c->nodes[2].mem_gib, 64);
    /* Site reg: a registry with no nodes. */
    cr_assert_eq(c->sites[1].node_count, 0);
    cr_assert_eq(c->sites[1].node_first, 3);
    cr_assert_eq(c->sites[1].gpu_count, 0);
    cr_assert_eq(c->sites[1].cache_gib, 0);
    /* Site b: one 2-GPU V100 node. */
    cr_assert_eq(c->sites[2].node_first, 3);
    cr_assert_eq(c->sites[2].gpu_first, 8);
    cr_assert_eq(c->nodes[3].site, 2);
    cr_assert_eq(c->nodes[3].type, 1);
    cr_assert_eq(c->nodes[3].gpu_first, 8);

    static const uint32_t want_node[10] = {0, 0, 0, 0, 1, 1, 1, 1, 3, 3};
    for (size_t g = 0; g < 10; g++)
        cr_assert_eq(c->gpu_node[g], want_node[g], "gpu %zu", g);
    for (size_t n = 0; n < c->n_nodes; n++)
        for (uint32_t k = 0; k < c->nodes[n].gpu_count; k++)
            cr_assert_eq(c->gpu_node[c->nodes[n].gpu_first + k], n);

    cr_assert_eq(c->types[0].cat_type, -1);
    cr_assert_eq(c->types[0].speed, 0.6);
    cr_assert_eq(c->types[1].cat_type, CAT_V100); /* matched by name */
    cr_assert_eq(c->types[1].speed, 1.0);         /* no catalogue given */
    cr_assert_eq(c->n_links, 2);
    cr_assert_eq(c->links[1].a, 1);
    cr_assert_eq(c->links[1].b, 2);
    cr_assert_eq(c->links[1].gbps, 2.5);
    cluster_destroy(c);
}

Test(cluster, x_keys_ignored_everywhere)
{
    struct cluster *c = load_ok_set(
        "{\"x_top\": 1, \"gpu_types\": {\"x_t\": 5, \"G\": {\"mem_gib\": 8, \"speed\": 2, \"x_a\": "
        "[]}},\n"
        "\"sites\": [{\"name\": \"s\", \"x_b\": null, \"nodes\": [{\"x_c\": \"?\", \"cpus\": 1,"
        " \"mem_gib\": 1, \"gpus\": 1, \"gpu_type\": \"G\"}]}, {\"name\": \"t\"}],\n"
        "\"links\": [{\"a\": \"s\", \"b\": \"t\", \"gbps\": 1, \"latency_ms\": 1, \"x_d\": {}}]}",
        NULL, 0);
    cr_assert_eq(c->n_types, 1);
    cr_assert_eq(c->types[0].speed, 2);
    cr_assert_eq(c->n_gpus, 1);
    cluster_destroy(c);
}

Test(cluster, config_defaults_and_help)
{
    struct cluster_config cfg;
    cluster_config_defaults(&cfg);
    cr_assert_eq(cfg.scrape_interval_s, 60);
    cr_assert_eq(cfg.poll_interval_s, 60);
    cr_assert_eq(cfg.completion, COMPLETION_POLL);
    cr_assert_eq(cfg.warmup_s, 20);
    cr_assert_eq(cfg.backoff_base_s, 10);
    cr_assert_eq(cfg.backoff_cap_s, 360);
    cr_assert_eq(cfg.backoff_limit, 4);
    cr_assert_eq(cfg.cpu_threshold, 0.7);
    cr_assert_eq(cfg.gpu_as_resource, false);
    cr_assert_eq(cfg.horizon_s, 0);
    cr_assert_eq(cfg.timeline_interval_s, 60);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    cluster_config_help(f);
    fclose(f);
    static const char *const keys[] = {
        "scrape_interval_s", "poll_interval_s", "completion",          "warmup_s",
        "backoff_base_s",    "backoff_cap_s",   "backoff_limit",       "cpu_threshold",
        "gpu_as_resource",   "horizon_s",       "timeline_interval_s", "controller_site"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        cr_assert(strstr(text, keys[i]), "help lacks %s", keys[i]);
    cr_assert(strstr(text, "cpu_threshold        0.7"), "%s", text);
    cr_assert(strstr(text, "completion           poll"), "%s", text);
    free(text);
}

Test(cluster, config_keys_from_file)
{
    struct cluster *c =
        load_ok_set("{\"scrape_interval_s\": 0, \"completion\": \"event\", \"warmup_s\": 5,"
                    " \"backoff_base_s\": 1, \"backoff_cap_s\": 1, \"backoff_limit\": 0,"
                    " \"cpu_threshold\": 1, \"gpu_as_resource\": true, \"horizon_s\": 3600,"
                    " \"timeline_interval_s\": 15,\n" L2 L3 L4 L5 L6 L7,
                    NULL, 0);
    cr_assert_eq(c->cfg.scrape_interval_s, 0);
    cr_assert_eq(c->cfg.completion, COMPLETION_EVENT);
    cr_assert_eq(c->cfg.warmup_s, 5);
    cr_assert_eq(c->cfg.backoff_cap_s, 1);
    cr_assert_eq(c->cfg.backoff_limit, 0);
    cr_assert_eq(c->cfg.cpu_threshold, 1);
    cr_assert_eq(c->cfg.gpu_as_resource, true);
    cr_assert_eq(c->cfg.horizon_s, 3600);
    cr_assert_eq(c->cfg.timeline_interval_s, 15);
    cr_assert_eq(c->controller_site, 0); /* default: the first site */
    cr_assert_str_eq(c->source, "t.json");
    cluster_destroy(c);
}

/* ---- --set -------------------------------------------------------------------- */

Test(cluster, set_overrides)
{
    static const char *const sets[] = {
        "poll_interval_s=10", "completion=event",  "gpu_as_resource=true", "backoff_limit=7",
        "controller_site=gz", "cpu_threshold=0.8", "poll_interval_s=12.5"};
    char err[CPN_ERR_LEN] = "";
    struct cluster *c = NULL;
    cr_assert_eq(cluster_load(NULL, sets, 7, NULL, &c, err, sizeof err), 0, "%s", err);
    cr_assert_eq(c->cfg.poll_interval_s, 12.5); /* the last --set of a key wins */
    cr_assert_eq(c->cfg.completion, COMPLETION_EVENT);
    cr_assert_eq(c->cfg.gpu_as_resource, true);
    cr_assert_eq(c->cfg.backoff_limit, 7);
    cr_assert_eq(c->cfg.cpu_threshold, 0.8);
    cr_assert_eq(c->controller_site, 2);
    cr_assert_eq(c->cfg.scrape_interval_s, 60);
    cluster_destroy(c);
}

Test(cluster, set_poll_interval_and_completion)
{
    static const char *const sets[] = {"poll_interval_s=10", "completion=event"};
    struct cluster *c = load_ok_set(L1 L2 L3 L4 L5 L6 L7, sets, 2);
    cr_assert_eq(c->cfg.poll_interval_s, 10);
    cr_assert_eq(c->cfg.completion, COMPLETION_EVENT);
    cluster_destroy(c);
}

Test(cluster, set_replaces_file_value_and_duplicates)
{
    static const char *const sets[] = {"warmup_s=3"};
    struct cluster *c =
        load_ok_set("{\"warmup_s\": 50, \"warmup_s\": 60,\n" L2 L3 L4 L5 L6 L7, sets, 1);
    cr_assert_eq(c->cfg.warmup_s, 3);
    cluster_destroy(c);
}

Test(cluster, set_bad_values)
{
    const char *doc = L1 L2 L3 L4 L5 L6 L7;
    static const char *const s1[] = {"poll_interval_s=abc"};
    expect_bad_set(doc, s1, 1, "--set poll_interval_s: must be a number > 0");
    static const char *const s2[] = {"poll_interval_s=-1"};
    expect_bad_set(doc, s2, 1, "--set poll_interval_s: must be a number > 0");
    static const char *const s3[] = {"poll_interval_s=0"};
    expect_bad_set(doc, s3, 1, "--set poll_interval_s: must be a number > 0");
    static const char *const s4[] = {"poll_interval_s="};
    expect_bad_set(doc, s4, 1, "--set poll_interval_s: must be a number > 0");
    static const char *const s5[] = {"poll_interval_s=nan"};
    expect_bad_set(doc, s5, 1, "--set poll_interval_s: must be a number");
    static const char *const s6[] = {"completion=sometimes"};
    expect_bad_set(doc, s6, 1, "--set completion: must be one of poll, event");
    static const char *const s7[] = {"gpu_as_resource=1"};
    expect_bad_set(doc, s7, 1, "--set gpu_as_resource: must be true or false");
    static const char *const s8[] = {"backoff_limit=2.5"};
    expect_bad_set(doc, s8, 1, "--set backoff_limit: must be a whole number from 0 to 1000");
    static const char *const s9[] = {"controller_site=mars"};
    expect_bad_set(doc, s9, 1, "--set controller_site: unknown site 'mars' (sites: s)");
    static const char *const s10[] = {"backoff_cap_s=5"};
    expect_bad_set(doc, s10, 1, "--set backoff_cap_s: must be >= backoff_base_s (10)");
    static const char *const s11[] = {"backoff_base_s=400"};
    expect_bad_set(doc, s11, 1, "--set backoff_base_s: must be <= backoff_cap_s (360)");
    static const char *const s12[] = {"cpu_threshold=nevr"};
    expect_bad_set(doc, s12, 1, "--set cpu_threshold: must be a number > 0, or never (got 'nevr')");
}

Test(cluster, set_unknown_key_and_syntax)
{
    const char *doc = L1 L2 L3 L4 L5 L6 L7;
    static const char *const s1[] = {"pol_interval_s=10"};
    expect_bad_set(doc, s1, 1,
                   "--set pol_interval_s: unknown key (known: scrape_interval_s, "
                   "poll_interval_s, completion");
    expect_bad_set(doc, s1, 1, "controller_site)");
    static const char *const s2[] = {"poll_interval_s"};
    expect_bad_set(doc, s2, 1, "--set poll_interval_s: expected KEY=VALUE");
    static const char *const s3[] = {"=5"};
    expect_bad_set(doc, s3, 1, "expected KEY=VALUE");
    static const char *const s4[] = {"sites=[]"};
    expect_bad_set(doc, s4, 1, "--set sites: unknown key");
}

Test(cluster, set_leaves_file_lines_intact)
{
    /* An override must not disturb the line numbers of the file's other errors. */
    static const char *const sets[] = {"poll_interval_s=10", "controller_site=s"};
    expect_bad_set(
        L1 L2 L3 L4 "{\"cpus\": 4, \"mem_gib\": 8, \"gpu_type\": \"G\", \"gpus\": -2}]}\n" L6 L7,
        sets, 2, "t.json:5: sites[0].nodes[0].gpus: must be a whole number from 0 to 16");
}

/* ---- Bad input: one case per mistake, each with its line and field -------------- */

Test(cluster, bad_file_names_line_and_field)
{
    char err[CPN_ERR_LEN] = "";
    struct cluster dummy, *c = &dummy;
    cr_assert_eq(cluster_load(DATA "bad_gpus.json", NULL, 0, NULL, &c, err, sizeof err),
                 CPN_EINPUT);
    cr_assert_eq(c, &dummy);
    cr_assert(strstr(err, DATA "bad_gpus.json:7: sites[0].nodes[0].gpus: must be a whole number "
                               "from 0 to 16 (got 17)"),
              "%s", err);

    cr_assert_eq(cluster_load(DATA "empty.json", NULL, 0, NULL, &c, err, sizeof err), CPN_EINPUT);
    cr_assert(strstr(err, DATA "empty.json:1: empty file"), "%s", err);

    cr_assert_eq(cluster_load(DATA "syntax.json", NULL, 0, NULL, &c, err, sizeof err), CPN_EINPUT);
    cr_assert(strstr(err, DATA "syntax.json:4: JSON syntax error"), "%s", err);

    cr_assert_eq(cluster_load(DATA "no-such-file.json", NULL, 0, NULL, &c, err, sizeof err),
                 CPN_EINPUT);
    cr_assert(strstr(err, "no-such-file.json"), "%s", err);
    cr_assert_eq(c, &dummy);
}

Test(cluster, bad_types_and_numbers)
{
    expect_bad(L1 L2 L3 L4
               "{\"cpus\": \"4\", \"mem_gib\": 8, \"gpu_type\": \"G\", \"gpus\": 2}]}\n" L6 L7,
               "t.json:5: sites[0].nodes[0].cpus: must be a number > 0 (got a string)");
    expect_bad(L1 L2 L3 L4
               "{\"cpus\": 4, \"mem_gib\": -8, \"gpu_type\": \"G\", \"gpus\": 2}]}\n" L6 L7,
               "t.json:5: sites[0].nodes[0].mem_gib: must be a number > 0 (got -8)");
    expect_bad(L1 L2 L3 L4
               "{\"cpus\": 4, \"mem_gib\": 8, \"gpu_type\": \"G\", \"gpus\": 1.5}]}\n" L6 L7,
               "t.json:5: sites[0].nodes[0].gpus: must be a whole number");
    expect_bad(L1 L2 L3 L4
               "{\"cpus\": 4, \"mem_gib\": 8, \"gpu_type\": \"G\", \"gpus\": 17}]}\n" L6 L7,
               "t.json:5: sites[0].nodes[0].gpus: must be a whole number from 0 to 16");
    expect_bad(
        L1 L2 L3 L4 "{\"cpus\": 1e999, \"mem_gib\": 8, \"gpu_type\": \"G\", \"gpus\": 2}]}\n" L6 L7,
        "t.json:5: sites[0].nodes[0].cpus: must be a number > 0 (got a number out of range)");
    expect_bad(L1 L2 L3 L4
               "{\"cpus\": null, \"mem_gib\": 8, \"gpu_type\": \"G\", \"gpus\": 2}]}\n" L6 L7,
               "t.json:5: sites[0].nodes[0].cpus: must be a number > 0 (got null)");
    expect_bad(
        L1 L2 L3 L4
        "{\"count\": 0, \"cpus\": 4, \"mem_gib\": 8, \"gpu_type\": \"G\", \"gpus\": 2}]}\n" L6 L7,
        "t.json:5: sites[0].nodes[0].count: must be a whole number from 1 to 1000000");
    expect_bad(L1 L2 L3 L4
               "{\"cpus\": NaN, \"mem_gib\": 8, \"gpu_type\": \"G\", \"gpus\": 2}]}\n" L6 L7,
               "t.json:5: JSON syntax error");
    expect_bad(L1 "\"gpu_types\": {\"G\": {\"mem_gib\": \"80\", \"speed\": 1}},\n" L3 L4 L5 L6 L7,
               "t.json:2: gpu_types.G.mem_gib: must be a number > 0 (got a string)");
    expect_bad(L1 "\"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 0}},\n" L3 L4 L5 L6 L7,
               "t.json:2: gpu_types.G.speed: must be a number > 0 (got 0)");
    expect_bad(L1 L2 L3 "{\"name\": \"s\", \"cache_gib\": -1, \"nodes\": [\n" L5 L6 L7,
               "t.json:4: sites[0].cache_gib: must be a number >= 0 (got -1)");
    expect_bad(L1 L2 L3 "{\"name\": \"s\", \"nodes\": {\n" L5 L6 L7, "t.json:5: JSON syntax error");
    expect_bad(L1 L2 L3 "{\"name\": \"s\", \"nodes\": 3},\n{\"name\": \"t\"}\n" L6 L7,
               "t.json:4: sites[0].nodes: must be an array of node entries (got a number)");
    expect_bad(L1 L2 L3 "{\"name\": \"s\", \"nodes\": [\n5]}\n" L6 L7,
               "t.json:5: sites[0].nodes[0]: must be an object (got a number)");
    expect_bad(L1 "\"completion\": \"sometimes\",\n" L2 L3 L4 L5 L6 L7,
               "t.json:2: completion: must be one of poll, event (got 'sometimes')");
    expect_bad(L1 "\"cpu_threshold\": 0,\n" L2 L3 L4 L5 L6 L7,
               "t.json:2: cpu_threshold: must be a number > 0, or \"never\" (got 0)");
    expect_bad(L1 "\"gpu_as_resource\": \"yes\",\n" L2 L3 L4 L5 L6 L7,
               "t.json:2: gpu_as_resource: must be true or false (got a string)");
    expect_bad(L1 "\"backoff_limit\": 1001,\n" L2 L3 L4 L5 L6 L7,
               "t.json:2: backoff_limit: must be a whole number from 0 to 1000");
    expect_bad(L1 "\"backoff_cap_s\": 5,\n" L2 L3 L4 L5 L6 L7,
               "t.json:2: backoff_cap_s: must be >= backoff_base_s (10)");
    expect_bad(L1 "\"scrape_interval_s\": -1,\n" L2 L3 L4 L5 L6 L7,
               "t.json:2: scrape_interval_s: must be a number >= 0");
}

Test(cluster, bad_missing_fields)
{
    expect_bad(L1 L2 L3 L4 "{\"mem_gib\": 8, \"gpu_type\": \"G\", \"gpus\": 2}]}\n" L6 L7,
               "t.json:5: sites[0].nodes[0].cpus: is required (a number > 0)");
    expect_bad(L1 L2 L3 L4 "{\"cpus\": 4, \"mem_gib\": 8, \"gpu_type\": \"G\"}]}\n" L6 L7,
               "t.json:5: sites[0].nodes[0].gpus: is required");
    expect_bad(L1 L2 L3 L4 "{\"cpus\": 4, \"mem_gib\": 8, \"gpus\": 2}]}\n" L6 L7,
               "t.json:5: sites[0].nodes[0].gpu_type: is required");
    expect_bad(L1 L2 L3 "{\"nodes\": [\n" L5 L6 L7, "t.json:4: sites[0].name: is required");
    expect_bad(L1 L2 L3 "{\"name\": \"\", \"nodes\": [\n" L5 L6 L7,
               "t.json:4: sites[0].name: must be a non-empty string");
    expect_bad(L1 L2 "\"x_sites\": []\n" L7, "t.json:1: sites: is required");
    expect_bad(L1 L2 "\"sites\": []\n" L7, "t.json:3: sites: must not be empty");
    expect_bad(L1 L2 "\"sites\": {}\n" L7, "t.json:3: sites: must be a non-empty array");
    expect_bad(L1 L3 L4 L5 L6 L7, "t.json:1: gpu_types: is required");
    expect_bad(L1 "\"gpu_types\": {\"G\": {\"speed\": 1}},\n" L3 L4 L5 L6 L7,
               "t.json:2: gpu_types.G.mem_gib: is required");
    expect_bad(L1 "\"gpu_types\": [],\n" L3 L4 L5 L6 L7, "t.json:2: gpu_types: must be an object");
    expect_bad(L1 "\"gpu_types\": {\"G\": 80},\n" L3 L4 L5 L6 L7,
               "t.json:2: gpu_types.G: must be an object (got a number)");
}

Test(cluster, bad_gpu_type_profiles)
{
    expect_bad(L1 "\"gpu_types\": {\"G\": {\"mem_gib\": 80}},\n" L3 L4 L5 L6 L7,
               "t.json:2: gpu_types.G.speed: required for a GPU type with no catalogue profile");
    expect_bad(
        L1 "\"gpu_types\": {\"H100-80G\": {\"mem_gib\": 80, \"profile\": \"none\"}},\n" L3 L4
           "{\"cpus\": 4, \"mem_gib\": 8, \"gpu_type\": \"H100-80G\", \"gpus\": 2}]}\n" L6 L7,
        "t.json:2: gpu_types.H100-80G.speed: required for a GPU type with no catalogue profile");
    expect_bad(
        L1 "\"gpu_types\": {\"G\": {\"mem_gib\": 80, \"profile\": \"a100\"}},\n" L3 L4 L5 L6 L7,
        "t.json:2: gpu_types.G.profile: unknown catalogue type 'a100' (expected one of h100, "
        "v100, p100, k80, none)");
    expect_bad(L1 "\"gpu_types\": {\"G\": {\"mem_gib\": 80, \"profile\": 1}},\n" L3 L4 L5 L6 L7,
               "t.json:2: gpu_types.G.profile: must be a non-empty string (got a number)");
    expect_bad(L1 "\"gpu_types\": {\"\": {\"mem_gib\": 80, \"speed\": 1}},\n" L3 L4 L5 L6 L7,
               "t.json:2: gpu_types: a GPU type name must not be empty");
    expect_bad(L1 "\"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1},\n"
                  "\"G\": {\"mem_gib\": 40, \"speed\": 1}},\n" L3 L4 L5 L6 L7,
               "t.json:3: gpu_types.G: duplicate GPU type name");

    /* A profile given explicitly, and one found from the name. */
    struct cluster *c =
        load_ok_set(L1 "\"gpu_types\": {\"G\": {\"mem_gib\": 80, \"profile\": \"K80\"},"
                       " \"p100-pcie\": {\"mem_gib\": 16}},\n" L3 L4 L5 L6 L7,
                    NULL, 0);
    cr_assert_eq(c->types[0].cat_type, CAT_K80);
    cr_assert_eq(c->types[1].cat_type, CAT_P100);
    cr_assert_eq(c->types[0].speed, 1.0);
    cluster_destroy(c);
}

Test(cluster, bad_names_and_references)
{
    expect_bad(L1 L2 L3 "{\"name\": \"s\"},\n{\"name\": \"t\"},\n{\"name\": \"s\"}\n" L6 L7,
               "t.json:6: sites[2].name: duplicate site name 's' (also sites[0].name)");
    expect_bad(L1 L2 L3 L4
               "{\"cpus\": 4, \"mem_gib\": 8, \"gpu_type\": \"H\", \"gpus\": 2}]}\n" L6 L7,
               "t.json:5: sites[0].nodes[0].gpu_type: unknown GPU type 'H' (gpu_types has G)");
    /* A GPU type named on a node without GPUs must still exist. */
    expect_bad(L1 L2 L3 L4
               "{\"cpus\": 4, \"mem_gib\": 8, \"gpu_type\": \"H\", \"gpus\": 0}]}\n" L6 L7,
               "t.json:5: sites[0].nodes[0].gpu_type: unknown GPU type 'H'");
    expect_bad(L1 "\"controller_site\": \"zz\",\n" L2 L3 L4 L5 L6 L7,
               "t.json:2: controller_site: unknown site 'zz' (sites: s)");
    expect_bad(L1 "\"controller_site\": 3,\n" L2 L3 L4 L5 L6 L7,
               "t.json:2: controller_site: must be a non-empty string (got a number)");
    expect_bad(
        L1 L2 L3 L4 L5
        "],\n\"links\": [{\"a\": \"s\",\n\"b\": \"t\", \"gbps\": 1, \"latency_ms\": 1}]\n" L7,
        "t.json:8: links[0].b: unknown site 't' (sites: s)");
    expect_bad(L1 L2 L3 L4 L5
               "],\n\"links\": [{\"a\": \"s\", \"b\": \"s\", \"gbps\": 1, \"latency_ms\": 1}]\n" L7,
               "t.json:7: links[0].b: must differ from a");
    expect_bad(L1 L2 L3 L4 L5
               ",{\"name\": \"t\"}],\n\"links\": [{\"a\": \"s\", \"b\": \"t\", \"gbps\": 1},\n"
               "{\"a\": \"s\", \"b\": \"t\", \"gbps\": 1, \"latency_ms\": 1}]\n" L7,
               "t.json:7: links[0].latency_ms: is required");
    expect_bad(L1 L2 L3 L4 L5 ",{\"name\": \"t\"}],\n\"links\": [{\"a\": \"s\", \"b\": \"t\", "
                              "\"gbps\": 1, \"latency_ms\": 0},\n"
                              "{\"a\": \"t\", \"b\": \"s\", \"gbps\": 2, \"latency_ms\": 1}]\n" L7,
               "t.json:8: links[1]: duplicate link between t and s (also links[0])");
    expect_bad(L1 L2 L3 L4 L5 ",{\"name\": \"t\"}],\n\"links\": [{\"a\": \"s\", \"b\": \"t\", "
                              "\"gbps\": 0, \"latency_ms\": 0}]\n" L7,
               "t.json:7: links[0].gbps: must be a number > 0 (got 0)");
    expect_bad(L1 L2 L3 L4 L5 "],\n\"links\": {}\n" L7, "t.json:7: links: must be an array");
}

Test(cluster, bad_keys)
{
    expect_bad(L1 L2 L3 "{\"name\": \"s\", \"nodse\": [\n" L5 L6 L7,
               "t.json:4: sites[0].nodse: unknown key (expected name, cache_gib, nodes");
    expect_bad(L1 "\"polling_interval_s\": 5,\n" L2 L3 L4 L5 L6 L7,
               "t.json:2: polling_interval_s: unknown key (expected controller_site, gpu_types");
    expect_bad(L1 L2 L3 L4
               "{\"cpus\": 4, \"mem_gib\": 8, \"gpu_type\": \"G\", \"gpu\": 2}]}\n" L6 L7,
               "t.json:5: sites[0].nodes[0].gpu: unknown key");
    expect_bad(L1 "\"gpu_types\": {\"G\": {\"mem_gb\": 80, \"speed\": 1}},\n" L3 L4 L5 L6 L7,
               "t.json:2: gpu_types.G.mem_gb: unknown key (expected mem_gib, speed, profile");
    expect_bad(L1 L2 L3 L4 L5 "],\n\"links\": [{\"a\": \"s\", \"to\": \"s\"}]\n" L7,
               "t.json:7: links[0].to: unknown key");
    expect_bad(
        L1 L2 L3 L4
        "{\"cpus\": 4, \"cpus\": 5, \"mem_gib\": 8, \"gpu_type\": \"G\", \"gpus\": 2}]}\n" L6 L7,
        "t.json:5: sites[0].nodes[0].cpus: duplicate key");
    expect_bad(L1 "\"poll_interval_s\": 5,\n\"poll_interval_s\": 6,\n" L2 L3 L4 L5 L6 L7,
               "t.json:3: poll_interval_s: duplicate key");
}

Test(cluster, bad_documents)
{
    expect_bad("", "t.json:1: empty file");
    expect_bad(" \n\t\n", "t.json:1: empty file");
    expect_bad("[1, 2]", "t.json:1: the top level must be a JSON object (got an array)");
    expect_bad("\n\n\"cluster\"", "t.json:3: the top level must be a JSON object (got a string)");
    expect_bad(L1 L2 L3 L4 L5 L6 L7 "{}\n", "t.json:8: unexpected text after the JSON value");
    expect_bad(L1 L2 L3 L4 L5 L6, "JSON syntax error");
    expect_bad(L1 L2 "\"sites\": [\n{\"name\": \"s\",}\n" L6 L7,
               "t.json:4: JSON syntax error near '{\"name\": \"s\",}'");
}

Test(cluster, caps_on_totals)
{
    expect_bad(L1 L2 L3 L4 "{\"count\": 1000000, \"cpus\": 4, \"mem_gib\": 8, \"gpus\": 0},\n"
                           "{\"count\": 1, \"cpus\": 4, \"mem_gib\": 8, \"gpus\": 0}]}\n" L6 L7,
               "t.json:6: sites[0].nodes[1].count: the cluster would have more than 1000000 nodes");
    expect_bad(
        L1 L2 L3 L4
        "{\"count\": 700000, \"cpus\": 4, \"mem_gib\": 8, \"gpu_type\": \"G\", \"gpus\": 16}]}\n" L6
            L7,
        "t.json:5: sites[0].nodes[0].gpus: the cluster would have more than 10000000 GPUs");
}

Test(cluster, destroy_null) { cluster_destroy(NULL); }

/* ---- jsonpos --------------------------------------------------------------------- */

/* Lines:               1    2                  3 (braces and an escaped quote in a string) */
static const char jdoc[] = "{\n"
                           "  \"a\": [1, [2,\n"
                           "    3], {\"b\": \"}{][,:\\\"\"},\n"
                           "    \"esc\\\\\", \"x\\u0041\"],\n"
                           "  \"a\": {\"x\": null, \"y\": true,\n"
                           "    \"z\": false},\n"
                           "  \"s\": \"line\n"
                           "break\", \"t\": -1.5e3,\n"
                           "  \"key\": \"value:\", \"k2\"  :\n"
                           "   {}\n"
                           "}\n";

Test(jsonpos, lines_of_nested_values)
{
    cJSON *root = NULL;
    struct jpos pos = {0};
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(jpos_parse("j.json", jdoc, strlen(jdoc), &root, &pos, err, sizeof err), 0, "%s",
                 err);
    cr_assert_eq(pos.n, 18);
    cr_assert_eq(jpos_line(&pos, root), 1);

    const cJSON *a = root->child;
    cr_assert_str_eq(a->string, "a");
    cr_assert_eq(jpos_line(&pos, a), 2);
    const cJSON *one = cJSON_GetArrayItem(a, 0), *inner = cJSON_GetArrayItem(a, 1);
    cr_assert_eq(jpos_line(&pos, one), 2);
    cr_assert_eq(jpos_line(&pos, inner), 2);
    cr_assert_eq(jpos_line(&pos, cJSON_GetArrayItem(inner, 0)), 2);
    cr_assert_eq(jpos_line(&pos, cJSON_GetArrayItem(inner, 1)), 3);
    const cJSON *obj = cJSON_GetArrayItem(a, 2);
    cr_assert_eq(jpos_line(&pos, obj), 3);
    cr_assert_str_eq(obj->child->valuestring, "}{][,:\"");
    cr_assert_eq(jpos_line(&pos, obj->child), 3);
    cr_assert_str_eq(cJSON_GetArrayItem(a, 3)->valuestring, "esc\\");
    cr_assert_eq(jpos_line(&pos, cJSON_GetArrayItem(a, 3)), 4);
    cr_assert_eq(jpos_line(&pos, cJSON_GetArrayItem(a, 4)), 4);

    /* The duplicate key: cJSON keeps both members, in order. */
    const cJSON *a2 = a->next;
    cr_assert_str_eq(a2->string, "a");
    cr_assert(cJSON_IsObject(a2));
    cr_assert_eq(jpos_line(&pos, a2), 5);
    cr_assert_eq(jpos_line(&pos, cJSON_GetObjectItemCaseSensitive(a2, "x")), 5);
    cr_assert_eq(jpos_line(&pos, cJSON_GetObjectItemCaseSensitive(a2, "y")), 5);
    cr_assert_eq(jpos_line(&pos, cJSON_GetObjectItemCaseSensitive(a2, "z")), 6);

    /* A raw newline inside a string: the string starts on 7, what follows is on 8. */
    const cJSON *s = a2->next, *t = s->next;
    cr_assert_str_eq(s->string, "s");
    cr_assert_eq(jpos_line(&pos, s), 7);
    cr_assert_eq(jpos_line(&pos, t), 8);
    cr_assert_eq(t->valuedouble, -1500);
    cr_assert_eq(jpos_line(&pos, t->next), 9);
    cr_assert_eq(jpos_line(&pos, t->next->next), 10); /* "k2"  :\n {} */

    /* A node that was not parsed has no line. */
    cJSON *fresh = cJSON_CreateNull();
    cr_assert_eq(jpos_line(&pos, fresh), 0);
    cr_assert_eq(jpos_line(&pos, NULL), 0);
    cJSON_Delete(fresh);
    jpos_free(&pos);
    cr_assert_eq(jpos_line(&pos, root), 0);
    cJSON_Delete(root);
}

Test(jsonpos, build_from_cjson_parse_and_bom)
{
    static const char doc[] = "\xEF\xBB\xBF[\n\"x\",\n\n{\"k\": [true]}]";
    cJSON *root = cJSON_ParseWithLength(doc, sizeof doc - 1);
    cr_assert_not_null(root);
    struct jpos pos;
    cr_assert_eq(jpos_build(&pos, root, doc, sizeof doc - 1), 0);
    cr_assert_eq(pos.n, 5);
    cr_assert_eq(jpos_line(&pos, root), 1);
    cr_assert_eq(jpos_line(&pos, root->child), 2);
    cr_assert_eq(jpos_line(&pos, root->child->next), 4);
    cr_assert_eq(jpos_line(&pos, root->child->next->child->child), 4);
    jpos_free(&pos);

    /* A text that is not the one parsed is detected, and gives no lines. */
    static const char other[] = "[1, 2]";
    cr_assert_eq(jpos_build(&pos, root, other, sizeof other - 1), CPN_EINPUT);
    cr_assert_eq(pos.n, 0);
    cr_assert_eq(jpos_line(&pos, root), 0);
    jpos_free(&pos);
    cJSON_Delete(root);
}

Test(jsonpos, scalar_top_level_and_trailing_text)
{
    static const char doc[] = "\n  42  \n";
    cJSON *root = NULL;
    struct jpos pos = {0};
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(jpos_parse("n", doc, sizeof doc - 1, &root, &pos, err, sizeof err), 0);
    cr_assert_eq(jpos_line(&pos, root), 2);
    jpos_free(&pos);
    cJSON_Delete(root);

    root = NULL;
    static const char two[] = "{}\n\n{}";
    cr_assert_eq(jpos_parse("n", two, sizeof two - 1, &root, &pos, err, sizeof err), CPN_EINPUT);
    cr_assert_null(root);
    cr_assert(strstr(err, "n:3: unexpected text after the JSON value"), "%s", err);
}

/* levels nested arrays around 1, each "[" on its own line after the first `flat`
 * levels, and a string holding brackets at the top, in a new buffer (caller frees). */
static char *nested(size_t levels, size_t flat, size_t *len)
{
    char *doc = malloc(3 * levels + 32);
    cr_assert_not_null(doc);
    size_t n = (size_t)sprintf(doc, "[\"[[{\\\"\", ");
    for (size_t i = 1; i < levels; i++)
        n += (size_t)sprintf(doc + n, i < flat ? "[" : "\n[");
    doc[n++] = '1';
    for (size_t i = 0; i < levels; i++)
        doc[n++] = ']';
    *len = n;
    return doc;
}

/* cJSON's nesting limit (1,000 levels) is named as such, at the line where level 1,001
 * opens; 1,000 levels parse, and a syntax error deep down is still a syntax error. */
Test(jsonpos, nesting_limit_is_named)
{
    cJSON *root = NULL;
    struct jpos pos = {0};
    char err[CPN_ERR_LEN] = "";
    size_t len;
    char *doc = nested(1000, 1000, &len);
    cr_assert_eq(jpos_parse("d", doc, len, &root, &pos, err, sizeof err), 0, "%s", err);
    jpos_free(&pos);
    cJSON_Delete(root);
    free(doc);

    root = NULL;
    doc = nested(1001, 998, &len); /* levels 999, 1000 and 1001 on lines 2, 3 and 4 */
    cr_assert_eq(jpos_parse("d", doc, len, &root, &pos, err, sizeof err), CPN_EINPUT);
    cr_assert_null(root);
    cr_assert_str_eq(err, "d:4: JSON nested deeper than 1000 levels of arrays and objects, the "
                          "most cpnsim reads");
    free(doc);

    doc = nested(1000, 1000, &len);
    doc[len - 1] = ','; /* [[...1]],  : a syntax error 1 level down */
    cr_assert_eq(jpos_parse("d", doc, len, &root, &pos, err, sizeof err), CPN_EINPUT);
    cr_assert(strstr(err, "d:1: JSON syntax error"), "%s", err);
    free(doc);
}

/* A stop flag given to jpos_set_stop ends a parse once set (cJSON's allocations fail
 * and it gives up), with CPN_ESTOP and nothing returned; clear, or taken back, the
 * same text parses. */
Test(jsonpos, stop_flag_ends_a_parse)
{
    static const char doc[] = "[{\"a\": [1, 2, {\"b\": \"c\"}]}, 3]";
    cJSON *root = NULL;
    struct jpos pos = {0};
    char err[CPN_ERR_LEN] = "";
    volatile sig_atomic_t stop = SIGINT;
    jpos_set_stop(&stop);
    cr_assert(jpos_stopping());
    cr_assert_eq(jpos_parse("s", doc, sizeof doc - 1, &root, &pos, err, sizeof err), CPN_ESTOP);
    cr_assert_null(root);
    cr_assert_str_eq(err, "s: stopped by signal 2 while reading it");
    stop = 0;
    cr_assert_eq(jpos_parse("s", doc, sizeof doc - 1, &root, &pos, err, sizeof err), 0, "%s", err);
    cr_assert_eq(pos.n, 8); /* every value, the root included */
    cJSON_Delete(root);
    jpos_free(&pos);
    stop = SIGINT;
    jpos_set_stop(NULL);
    cr_assert(!jpos_stopping());
    root = NULL;
    cr_assert_eq(jpos_parse("s", doc, sizeof doc - 1, &root, &pos, err, sizeof err), 0, "%s", err);
    cJSON_Delete(root);
    jpos_free(&pos);
}

Test(jsonpos, error_lines)
{
    static const char doc[] = "{\n  \"a\": 1,\n  \"b\": [1, 2,,]\n}";
    cJSON *root = NULL;
    struct jpos pos = {0};
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(jpos_parse("e.json", doc, sizeof doc - 1, &root, &pos, err, sizeof err),
                 CPN_EINPUT);
    cr_assert_null(root);
    cr_assert_eq(pos.n, 0);
    cr_assert(strstr(err, "e.json:3: JSON syntax error near '  \"b\": [1, 2,,]'"), "%s", err);

    /* The raw helper on cJSON's own error pointer. */
    const char *end = NULL;
    cr_assert_null(cJSON_ParseWithLengthOpts(doc, sizeof doc - 1, &end, 0));
    cr_assert_eq(jpos_line_at(doc, sizeof doc - 1, end), 3);
    cr_assert_eq(jpos_line_at(doc, sizeof doc - 1, doc), 1);
    cr_assert_eq(jpos_line_at(doc, sizeof doc - 1, doc + sizeof doc - 1), 4);
    cr_assert_eq(jpos_line_at(doc, sizeof doc - 1, NULL), 0);

    /* An unterminated string runs to the end of the text. */
    static const char open[] = "[\"abc\n\n";
    cr_assert_eq(jpos_parse("o", open, sizeof open - 1, &root, &pos, err, sizeof err), CPN_EINPUT);
    cr_assert(strstr(err, "o:"), "%s", err);
}

/* jpos_vfail takes a va_list, as the readers' own variadic error helpers pass on. */
static int jpos_fail_for_test(char *err, size_t errlen, const struct jpos *pos, const cJSON *at,
                              const char *field, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static int jpos_fail_for_test(char *err, size_t errlen, const struct jpos *pos, const cJSON *at,
                              const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = jpos_vfail(err, errlen, "f.json", pos, at, field, fmt, ap);
    va_end(ap);
    return rc;
}

Test(jsonpos, vfail_names_file_line_and_field)
{
    char err[CPN_ERR_LEN] = "";
    struct jpos pos = {0};
    cJSON *root = NULL;
    static const char doc[] = "{\n  \"k\": [1,\n    2]\n}";
    cr_assert_eq(jpos_parse("f.json", doc, sizeof doc - 1, &root, &pos, err, sizeof err), 0);
    const cJSON *two = cJSON_GetArrayItem(root->child, 1);
    cr_assert_eq(jpos_fail_for_test(err, sizeof err, &pos, two, "k[1]", "got %d (want %s)", 2,
                                    "1"),
                 CPN_EINPUT);
    cr_assert_str_eq(err, "f.json:3: k[1]: got 2 (want 1)");
    /* A node without a line (or none at all) gives line 0, as jpos_line does. */
    cr_assert_eq(jpos_fail_for_test(err, sizeof err, &pos, NULL, "k", "bad"), CPN_EINPUT);
    cr_assert_str_eq(err, "f.json:0: k: bad");
    jpos_free(&pos);
    cJSON_Delete(root);
}
