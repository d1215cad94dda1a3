/* default (private): the default policy's index of nodes by class. Nodes of one site
 * whose GPU type, GPU count, capacity, requested CPU and memory (and, with
 * gpu_as_resource, free GPUs) are equal pass kube-scheduler's filter and get its score
 * alike for any job, so a bind scores one node per class, the class's lowest-numbered
 * node, instead of every node of the site. Only policies/default*.c include it. */
#ifndef CPN_DEFAULT_H
#define CPN_DEFAULT_H

#include "../sim/base/util.h"
#include "../sim/engine/policy.h"

/* What makes two nodes alike (no padding: compared with memcmp). */
struct dflt_ckey {
    uint32_t site, type, gpus, free_gpus; /* free_gpus only with gpu_as_resource, else 0 */
    double cpus, mem_gib, cpus_req, mem_req_gib;
};

/* Kubernetes quantities are whole milli-cores and bytes. */
#define DFLT_MILLI_PER_CPU 1000.0
#define DFLT_BYTES_PER_GIB 1073741824.0

/* llround(x), to the nearest integer with halves away from zero, for |x| < 2^63, without
 * the library call (a bind scores every class of a site that fits, two roundings each).
 * For x >= 0, x minus its truncation is exact, so comparing it with one half decides
 * exactly as llround does; a negative x rounds as its opposite. */
static inline int64_t dflt_llround(double x)
{
    if (x < 0)
        return -dflt_llround(-x);
    int64_t i = (int64_t)x;
    return i + (x - (double)i >= 0.5);
}

/* A class: its nodes in a binary min-heap by node index (default_nodes.c). */
struct dflt_class {
    struct dflt_ckey key;
    int64_t cap_milli, cap_bytes; /* its nodes' CPU and memory in Kubernetes units */
    uint32_t *nodes;              /* [cap_nodes], the heap in nodes[0..n_nodes) */
    uint32_t n_nodes, cap_nodes;
    uint32_t next;     /* the next class of its hash bucket, or of the free list */
    uint32_t site_pos; /* its position in its site's list */
    uint32_t bucket;   /* its hash bucket */
    uint32_t moved_to; /* the class its last node to leave it went to, or VIEW_NONE */
};

/* A class in its site's list, with the bind's memo (default.c, dflt_class_score): the
 * filter and score of the class's nodes for jobs of shape memo_shape (-1: filtered
 * out), or memo_shape VIEW_NONE. A class's key never changes while it lives. The memo
 * and the class's lowest-numbered node are kept in the list rather than on the class:
 * a bind reads them for every class of the site, and reads the class itself only for
 * one that may win while some nodes are excluded (dflt_class_first_but). */
struct dflt_site_ent {
    uint32_t cls;
    uint32_t memo_shape;
    int32_t memo_score;
    uint32_t first; /* the top of the class's heap */
};

struct dflt_nodes {
    struct dflt_class *cls;
    size_t n_cls, cap_cls;
    uint32_t free_cls;  /* list of free classes, through next */
    uint32_t *bucket;   /* [mask + 1] first class of each hash bucket, or VIEW_NONE */
    size_t mask;
    uint32_t *node_cls; /* [nodes] its class */
    uint32_t *node_pos; /* [nodes] its position in its class's heap */
    struct dflt_site_ent **site_cls; /* [sites] the classes of each site, in no order */
    uint32_t *site_n, *site_cap;
    size_t n_sites;
    /* The nodes whose bookkeeping changed since they were put in their class, a list
     * per site (dflt_nodes_touch): the next in the list, or VIEW_NONE at its end, or
     * DFLT_CLEAN for a node not listed; and each site's first, or VIEW_NONE. */
    uint32_t *dirty_next; /* [nodes] */
    uint32_t *site_dirty; /* [sites] */
};
#define DFLT_CLEAN (VIEW_NONE - 1)

/* The class's lowest-numbered node that is not one of excl[0..n_excl), or VIEW_NONE
 * when all its nodes are: O(n_excl^2), not a scan of the class. frontier is scratch of
 * n_excl + 2 entries. */
uint32_t dflt_class_first_but(const struct dflt_class *c, const uint32_t *excl, size_t n_excl,
                              uint32_t *frontier);

/* Node n's key as the view's bookkeeping gives it now. */
struct dflt_ckey dflt_key_of(const struct view *v, uint32_t n);

/* Puts every node of the view's cluster in its class. */
void dflt_nodes_init(struct dflt_nodes *x, const struct view *v);
void dflt_nodes_free(struct dflt_nodes *x);
/* Node n has a placement or a learnt end that changes its bookkeeping:
 * it moves to its new class when a bind next reads its site's classes
 * (dflt_nodes_settle). A node of a site that binds nothing meanwhile may change many
 * times, and moves once: on the 100k queue, a third of the learnt ends' moves went. */
void dflt_nodes_touch(struct dflt_nodes *x, const struct view *v, uint32_t n);
/* Moves the touched nodes of site `site` to the classes their bookkeeping now gives
 * them (before a bind there). */
void dflt_nodes_settle(struct dflt_nodes *x, const struct view *v, uint32_t site);
/* Aborts (CPN_ASSERT) unless every node is in the class its bookkeeping gives it, or
 * touched and listed in its site. */
void dflt_nodes_check(const struct dflt_nodes *x, const struct view *v);

#endif
