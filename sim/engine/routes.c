/* routes: Dijkstra from each origin with a lazy binary heap of (latency, hops, site).
 *
 * The order of the settled sites and of the offers they make is that of the plain
 * O(sites^2) scan this replaces, so every route is the same to the bit: a site is
 * settled at the least (latency, hops), ties on the lower site index (the heap's
 * order, whose records never tie); a settled site offers its links in index order
 * (the adjacency is built in link order), and an offer replaces the current one only
 * when strictly better (lower latency, or equal latency and fewer hops), so among
 * equal offers the first one made, on the lowest link index, wins. A site improved
 * twice has a stale record in the heap, with a larger key than its current one; it
 * pops after the site is settled and is skipped. */
#include "routes.h"

#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "cluster.h"
#include "../base/heap.h"
#include "../base/util.h"

#define ROUTES_NONE UINT32_MAX
/* Links looked at between two checks of the stop flag: a few milliseconds of work. */
#define ROUTES_STOP_CHECK_LINKS (1u << 20)

struct offer {
    double latency_s;
    uint32_t hops;
    uint32_t site;
};

static bool offer_less(const void *a, const void *b, const void *ctx)
{
    (void)ctx;
    const struct offer *x = a, *y = b;
    if (x->latency_s != y->latency_s)
        return x->latency_s < y->latency_s;
    if (x->hops != y->hops)
        return x->hops < y->hops;
    return x->site < y->site;
}

static const struct heap_ops offer_ops = {.size = sizeof(struct offer), .less = offer_less};

static uint32_t comp_find(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

void routes_init(struct routes *r, const struct cluster *cl)
{
    size_t ns = cl->n_sites, nl = cl->n_links;
    *r = (struct routes){.cl = cl, .n_sites = ns};
    r->comp = cpn_malloc(ns * sizeof *r->comp);
    for (uint32_t s = 0; s < ns; s++)
        r->comp[s] = s;
    r->adj_start = cpn_calloc(ns + 1, sizeof *r->adj_start);
    r->adj = cpn_malloc(2 * nl * sizeof *r->adj);
    for (size_t l = 0; l < nl; l++) {
        r->adj_start[cl->links[l].a + 1]++;
        r->adj_start[cl->links[l].b + 1]++;
        uint32_t a = comp_find(r->comp, cl->links[l].a), b = comp_find(r->comp, cl->links[l].b);
        r->comp[a > b ? a : b] = a < b ? a : b;
    }
    for (size_t s = 0; s < ns; s++)
        r->adj_start[s + 1] += r->adj_start[s];
    uint32_t *fill = cpn_malloc(ns * sizeof *fill);
    for (size_t s = 0; s < ns; s++)
        fill[s] = r->adj_start[s];
    for (uint32_t l = 0; l < nl; l++) {
        const struct link *lk = &cl->links[l];
        double lat = lk->latency_ms / 1000.0;
        r->adj[fill[lk->a]++] = (struct routes_adj){.latency_s = lat, .site = lk->b, .link = l};
        if (lk->b != lk->a)
            r->adj[fill[lk->b]++] = (struct routes_adj){.latency_s = lat, .site = lk->a, .link = l};
    }
    free(fill);
    for (uint32_t s = 0; s < ns; s++)
        r->comp[s] = comp_find(r->comp, s);
}

void routes_free(struct routes *r)
{
    free(r->comp);
    free(r->adj_start);
    free(r->adj);
    free(r->e);
    *r = (struct routes){0};
}

bool routes_connected(const struct routes *r, uint32_t a, uint32_t b)
{
    return r->comp[a] == r->comp[b];
}

/* Fills row (one entry per site) with the tree of src. Returns false when *stop was
 * set on the way (the row is then incomplete). *work counts links looked at. */
static bool dijkstra(const struct routes *r, uint32_t src, struct routes_entry *row,
                     struct heap *h, bool *done, const volatile sig_atomic_t *stop,
                     uint64_t *work)
{
    const struct cluster *cl = r->cl;
    size_t ns = cl->n_sites;
    for (size_t i = 0; i < ns; i++) {
        row[i] = (struct routes_entry){.latency_s = INFINITY, .nlinks = UINT32_MAX,
                                       .via = ROUTES_NONE};
        done[i] = false;
    }
    row[src].latency_s = 0;
    row[src].nlinks = 0;
    h->n = 0;
    heap_push(h, &offer_ops, NULL, &(struct offer){.latency_s = 0, .hops = 0, .site = src});
    while (h->n) {
        struct offer o;
        heap_pop(h, &offer_ops, NULL, &o);
        uint32_t u = o.site;
        if (done[u])
            continue;
        done[u] = true;
        uint32_t end = r->adj_start[u + 1];
        *work += end - r->adj_start[u];
        double du = row[u].latency_s;
        uint32_t hops = row[u].nlinks + 1;
        for (uint32_t k = r->adj_start[u]; k < end; k++) {
            const struct routes_adj *a = &r->adj[k];
            uint32_t v = a->site;
            if (done[v])
                continue;
            double d = du + a->latency_s;
            if (d < row[v].latency_s || (d == row[v].latency_s && hops < row[v].nlinks)) {
                row[v] = (struct routes_entry){.latency_s = d, .nlinks = hops, .via = a->link};
                heap_push(h, &offer_ops, NULL, &(struct offer){.latency_s = d, .hops = row[v].nlinks, .site = v});
            }
        }
        if (*work >= ROUTES_STOP_CHECK_LINKS) {
            *work = 0;
            if (stop && *stop)
                return false;
        }
    }
    for (size_t i = 0; i < ns; i++)
        if (!done[i])
            row[i].nlinks = 0;
    return true;
}

int routes_build(struct routes *r, const uint32_t *origins, size_t n_rows,
                 const volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    size_t ns = r->cl->n_sites;
    free(r->e);
    r->e = cpn_malloc(n_rows * ns * sizeof *r->e);
    r->n_rows = n_rows;
    struct heap h = {0};
    bool *done = cpn_malloc(ns * sizeof *done);
    uint64_t work = 0;
    int rc = CPN_OK;
    for (size_t row = 0; row < n_rows && rc == CPN_OK; row++)
        if ((stop && *stop) || !dijkstra(r, origins[row], &r->e[row * ns], &h, done, stop, &work))
            rc = cpn_fail(err, errlen, CPN_ESTOP,
                          "stopped by signal %d while computing routes (origin %zu of %zu)",
                          (int)*stop, row + 1, n_rows);
    heap_free(&h);
    free(done);
    if (rc != CPN_OK) {
        free(r->e);
        r->e = NULL;
        r->n_rows = 0;
    }
    return rc;
}
