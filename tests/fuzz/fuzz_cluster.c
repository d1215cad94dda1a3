/* Fuzzes the cluster JSON reader (cluster_load_buf), with one of a few --set lists
 * chosen by the input's length so that overrides replace and add members too. A
 * cluster that loads must satisfy the invariants the engine relies on. */
#include "fuzz.h"

#include "../../sim/engine/cluster.h"
#include "../../sim/io/cluster_json.h"

static const char *const sets_a[] = {"horizon_s=100", "completion=event"};
static const char *const sets_b[] = {"controller_site=bj", "scrape_interval_s=0",
                                     "scrape_interval_s=5"};
static const char *const sets_c[] = {"backoff_base_s=1e9"};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_catalog();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *const *sets = NULL;
    size_t n_sets = 0;
    switch (size % 4) {
    case 1: sets = sets_a; n_sets = 2; break;
    case 2: sets = sets_b; n_sets = 3; break;
    case 3: sets = sets_c; n_sets = 1; break;
    default: break;
    }
    struct cluster *cl = NULL;
    char err[CPN_ERR_LEN] = "";
    int rc = cluster_load_buf("fuzz.json", (const char *)data, size, sets, n_sets, fuzz_catalog(),
                              &cl, err, sizeof err);
    if (rc != 0) {
        FUZZ_CHECK(rc == CPN_EINPUT && cl == NULL, "rc %d", rc);
        if (strncmp(err, "--set ", 6) != 0)
            fuzz_check_message("fuzz.json", err);
        return 0;
    }
    FUZZ_CHECK(cl->n_sites > 0 && cl->controller_site < cl->n_sites, "sites");
    size_t gpus = 0;
    for (size_t n = 0; n < cl->n_nodes; n++) {
        const struct node *nd = &cl->nodes[n];
        FUZZ_CHECK(nd->site < cl->n_sites && nd->gpu_count <= CLUSTER_MAX_NODE_GPUS, "node %zu", n);
        FUZZ_CHECK(nd->gpu_count == 0 || nd->type < cl->n_types, "node %zu type", n);
        FUZZ_CHECK(nd->gpu_first == gpus && nd->cpus > 0 && nd->mem_gib > 0, "node %zu", n);
        for (uint32_t g = 0; g < nd->gpu_count; g++)
            FUZZ_CHECK(cl->gpu_node[nd->gpu_first + g] == n, "gpu of node %zu", n);
        gpus += nd->gpu_count;
    }
    FUZZ_CHECK(gpus == cl->n_gpus, "GPU count");
    for (size_t l = 0; l < cl->n_links; l++)
        FUZZ_CHECK(cl->links[l].a < cl->n_sites && cl->links[l].b < cl->n_sites &&
                       cl->links[l].a != cl->links[l].b,
                   "link %zu", l);
    cluster_destroy(cl);
    return 0;
}
