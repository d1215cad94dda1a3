/* routes: the lowest-latency paths between sites, ties broken on fewer hops and then
 * on the lower link index. It keeps one shortest-path tree per origin site (each
 * site's latency, hop count and last link), computed by Dijkstra over an adjacency
 * list with a binary heap, and the sites' connected components. It owns the trees;
 * it borrows the cluster. A route's links are read by walking its tree backwards. */
#ifndef CPN_ROUTES_H
#define CPN_ROUTES_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cluster;

/* Route from an origin to one site: latency (INFINITY when no route exists), number
 * of links, and the last link (UINT32_MAX for the origin itself and for no route). */
struct routes_entry {
    double latency_s;
    uint32_t nlinks;
    uint32_t via;
};

/* A link as seen from one of its ends: the site at the other end, the link's index
 * and its latency in seconds (latency_ms / 1000, computed once). */
struct routes_adj {
    double latency_s;
    uint32_t site;
    uint32_t link;
};

struct routes {
    const struct cluster *cl;
    size_t n_sites;
    size_t n_rows;                 /* origins with a tree */
    uint32_t *comp;                /* [sites] connected component */
    uint32_t *adj_start;           /* links of site s: adj[adj_start[s] .. adj_start[s+1]) */
    struct routes_adj *adj;        /* in link order, so that a pass reads memory in a row */
    struct routes_entry *e;        /* [row * sites + site], NULL until routes_build */
};

/* Indexes the cluster's links (adjacency and components): O(sites + links). */
void routes_init(struct routes *r, const struct cluster *cl);
void routes_free(struct routes *r);

/* Whether a route joins sites a and b (the same connected component). */
bool routes_connected(const struct routes *r, uint32_t a, uint32_t b);

/* Computes the tree of every origin (origins[row] is the site of row), O(links log
 * sites) each. Checks *stop (when not NULL) between origins and every few million
 * links looked at: once it is non-zero, frees the trees and returns CPN_ESTOP with a
 * message. Returns 0 otherwise. */
int routes_build(struct routes *r, const uint32_t *origins, size_t n_rows,
                 const volatile sig_atomic_t *stop, char *err, size_t errlen);

/* The route from the origin of `row` to site `to` (routes_build done). */
static inline const struct routes_entry *routes_get(const struct routes *r, uint32_t row,
                                                     uint32_t to)
{
    return &r->e[(size_t)row * r->n_sites + to];
}

#endif
