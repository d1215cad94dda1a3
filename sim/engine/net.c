/* net: routes, fluid flows with max-min fair sharing, and LRU caches.
 *
 * Model. A transfer pays its route's latency once, then its bytes flow. Each link's
 * bandwidth is shared max-min fairly among the flows crossing it, computed by
 * progressive filling: repeatedly the link with the smallest fair share (remaining
 * capacity / unfrozen flows) fixes the rate of its flows, which then use that much of
 * every other link they cross. This is the fluid model of SimGrid's LV08 without its
 * TCP corrections: there is no slow start, no congestion window, no loss, and a flow's
 * rate changes only when some flow starts or ends. Only the flows connected to the
 * changed one through shared links (transitively) are recomputed. When every route
 * in use is a single link (a full mesh), max-min sharing is processor sharing per
 * link, and each link keeps one event (its next flow end) on a virtual clock instead
 * of one rescheduled event per flow; not in a queue with distributed jobs, whose
 * all-reduce between sites is a flow that never ends, capped at the job's pace
 * (net_allreduce_begin; progressive filling freezes a capped flow at its cap when
 * that is below every share left).
 *
 * Units: sizes in GiB, bandwidth in GiB/s (links are given in Gbit/s = 1e9 bit/s),
 * times in seconds.
 *
 * Cache keys. A job's image is keyed by its model (jobs of one model share an image);
 * a job with no model has an image of its own. Its dataset is its own (jobs do not
 * name datasets yet), so datasets hit the cache only when a job is retried. Model
 * weights are a checkpoint of the job and always move. */
#include "net.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"
#include "cluster.h"
#include "eq.h"
#include "job.h"
#include "policy.h"
#include "ps_rec.h"
#include "routes.h"
#include "../base/heap.h"
#include "../base/util.h"

#define NET_BYTES_PER_GIB 1073741824.0
#define NET_BITS_PER_GBIT 1e9
#define NET_BITS_PER_BYTE 8.0
#define NET_BYTES_PER_PARAM 4.0 /* fp32 weights */
#define NET_NONE UINT32_MAX
/* Most routes a run keeps: origin sites x sites, 16 bytes each (1 GiB). A tree per
 * origin is what makes every site's route to every other at hand for the policies;
 * docs/reliability.md has the measurements behind the number. */
#define NET_MAX_ROUTES (1 << 26)
/* Buckets of the cache's hash table at first; it doubles whenever the entry slots
 * outnumber its buckets. Sized to the most entries the caches have held at once, not
 * to the jobs (2^20 buckets, 4 MiB, for a million), it stays in the processor's
 * caches, and an insertion or eviction no longer misses on its bucket. */
#define NET_CACHE_MIN_BUCKETS 256
/* Most slots of the memo of estimates' routes (est_route): 2 MiB. */
#define NET_EST_MEMO (1 << 16)
/* Links of a route a flow slot holds in itself; a longer route's links are in a block
 * of their own. Routes of one or two links are read with the slot, not after it. */
#define NET_FLOW_INLINE_LINKS 2
/* Key of a job's flow completion in the event queue (eq_schedule), from the range
 * net_create reserved. */
#define NET_KEY_DONE(n, j) ((n)->key_done + (uint32_t)(j))
/* Key of a link's next flow end in processor-sharing mode, from its own range. */
#define NET_KEY_LINK(n, l) ((n)->key_link + (uint32_t)(l))

static double gbps_to_gib_s(double gbps)
{
    return gbps * NET_BITS_PER_GBIT / NET_BITS_PER_BYTE / NET_BYTES_PER_GIB;
}

/* A flow slot. What a transfer reads at its start and end under processor sharing
 * comes first, in 64 bytes: at a million jobs the slot of a flow that ends is a cache
 * miss, and those bytes span two lines at most, where they had spanned three. */
struct flow {
    double remaining_gib;
    double begin_s;       /* when the transfer was started */
    double item_gib[2];
    uint32_t items[2];    /* image and dataset to cache at the end, NET_NONE if none */
    uint32_t job;
    uint32_t site;
    uint32_t nlinks;
    bool active;          /* latency paid: it shares links */
    bool frozen;
    bool persist;         /* a distributed job's all-reduce: never ends, capped at pace */
    /* Its route's links, origin first, and its index in each link's list of flows
     * (flow_links, flow_pos): in inl for a route of at most NET_FLOW_INLINE_LINKS
     * links, else in ext, the slot's block of 2 * ext_cap (net.blocks). */
    uint32_t inl[NET_FLOW_INLINE_LINKS];
    uint32_t inl_pos[NET_FLOW_INLINE_LINKS];
    uint32_t *ext;
    uint32_t ext_cap;
    uint32_t stamp;
    double rate;          /* GiB/s */
    double last_s;        /* when remaining_gib was last brought up to date */
    double new_rate;      /* scratch of the recomputation */
    double pace;          /* GiB/s an all-reduce flow's job sends over it (its cap) */
    double step_gib;      /* an all-reduce flow: the GiB a hop of its ring sends a step */
    uint32_t next;        /* an all-reduce flow: its job's next one, NET_NONE after the last */
    uint32_t from;        /* an all-reduce flow: its route's first site (site: its last) */
};

/* A slot's block for the links of a route longer than NET_FLOW_INLINE_LINKS: kept with
 * the slot while it is free and grown to the longest route it has carried, so that a
 * new flow on a short route writes its slot without reading it. */
struct flow_block {
    uint32_t *v;
    uint32_t cap;
};

/* The links of fl's route, origin first, and its index in each one's list of flows. */
static inline uint32_t *flow_links(struct flow *fl)
{
    return fl->nlinks <= NET_FLOW_INLINE_LINKS ? fl->inl : fl->ext;
}

static inline uint32_t *flow_pos(struct flow *fl)
{
    return fl->nlinks <= NET_FLOW_INLINE_LINKS ? fl->inl_pos : fl->ext + fl->ext_cap;
}

struct link_state {
    double cap;          /* GiB/s */
    double cap_left;     /* scratch */
    uint32_t unfrozen;   /* scratch */
    uint32_t stamp;
    uint32_t *flows;     /* active flow slots crossing it; processor sharing (below)
                          * keeps only their count, nflows, since it never reads them */
    size_t nflows, capflows;
    uint32_t n_ar;       /* of them, all-reduce flows */
    /* Processor sharing (every route one link): each of the link's flows moves at
     * cap / nflows, so all advance alike. vtime is the GiB each has moved since the
     * link was created; a flow ends when vtime reaches its vfinish. The link has one
     * event: the end of the flow whose vfinish is least (heap). */
    double vtime, vlast_s;
    struct heap heap;    /* of struct ps_rec (ps_rec.h), least vfinish first */
    uint32_t gen;
};

/* A job's transfer under max-min sharing, as its EV_FLOW_DONE events find it. Its flow
 * slot and its generation are read together, so they share a record (one cache miss,
 * not two). Processor sharing needs neither: its events name the flow's slot or link. */
struct net_job {
    uint32_t flow;       /* its flow slot or NET_NONE */
    uint32_t gen;        /* generation of its flow events */
};

/* The route part of a transfer estimate from an origin row to a site: the route's
 * latency and the share one more flow would get on it (route_share, SHARE_ONE_MORE),
 * as of flow_ver. */
struct est_route {
    uint64_t ver;        /* the net's flow_ver when made; 0: never */
    double latency_s;
    double share;
    size_t key;          /* row x sites + site */
};

struct cache_entry {
    uint32_t item, site;
    double gib;
    uint32_t prev, next; /* LRU list of its site: head is most recent */
    uint32_t hnext;      /* hash chain */
};

struct site_cache {
    double cap_gib, used_gib;
    uint32_t head, tail;
};

struct net {
    const struct cluster *cl;
    const struct catalog *cat;
    const struct jobset *js;
    const uint32_t *origin;
    struct eq *eq;
    uint32_t key_done, key_link; /* its eq keys: flow of job j, link l (eq_reserve_keys) */
    size_t n_sites;

    struct routes routes; /* a tree per origin site, built by net_build_routes; with
                           * distributed jobs, per site with GPUs too (their all-reduce) */
    int32_t *row_of;      /* [sites] row in routes, -1 when it has none */
    uint32_t *origins;    /* [rows] site of each row: the origins, then those others */
    size_t n_rows;
    size_t n_origin_rows; /* the rows of origin sites, the first: transfers use only them */

    struct link_state *links;
    struct flow *flows;   /* pool */
    struct flow_block *blocks; /* [capflows] each slot's block for long routes */
    size_t nflows, capflows, capblocks;
    /* The free slots, the last freed on top: a new flow takes a slot without reading
     * it, where a list through the slots read the free one (a cache miss). Room for
     * every slot. */
    uint32_t *free_slots;
    size_t n_free, cap_free;
    struct net_job *jobs; /* [jobs] under max-min sharing (not ps), NULL otherwise */
    uint32_t stamp;
    uint32_t *comp_flows, *comp_links; /* scratch of a recomputation */
    size_t comp_cap_f, comp_cap_l;

    bool ps;              /* every route used is one link: processor sharing per link */
    uint32_t n_models;
    struct site_cache *caches;
    struct cache_entry *entries;
    size_t nentries, capentries;
    uint32_t free_entry;
    uint32_t *buckets;    /* [nbuckets] hash chains; at least as many as entry slots */
    size_t nbuckets;
    /* The all-reduce of distributed jobs whose ring crosses sites (net_allreduce_begin),
     * allocated when the queue has distributed jobs: each job's flows (NET_NONE when
     * none), and the jobs whose share of a link changed since net_allreduce_next_dirty
     * last emptied the list. */
    uint32_t *ar_head;    /* [jobs] */
    uint8_t *ar_marked;   /* [jobs] in ar_dirty */
    uint32_t *ar_dirty;
    size_t n_dirty, cap_dirty, dirty_at;
    uint64_t *item_cached; /* bit i: item i was cached at some site (it may have been
                            * evicted since); [models + 2 * jobs] bits. Most jobs' data is
                            * never cached, and a look-up that needs no hash probe saves a
                            * cache miss per site the policies ask about */
    /* Bit m x sites + s: model m's image is in site s's cache now. Jobs of a model share
     * its image, so it is cached at most sites, and the estimates ask about it for
     * every site they weigh: a bit, where cache_find would probe the hash. */
    uint64_t *image_at;
    double *weights_gib;   /* [models] the weights a job of each model moves */

    /* Grows whenever a link's count of flows changes, which is all of a route's share
     * that changes (capacities are fixed). The policies ask for the same routes' shares
     * for job after job between two such changes: est_route keeps the last answer of
     * each (origin row, site), a direct-mapped memo of est_mask + 1 slots (as many as
     * routes up to NET_EST_MEMO, so that a small WAN never shares a slot). */
    uint64_t flow_ver;
    struct est_route *est_route;
    size_t est_mask;

    struct net_stats st;
};

/* ---- routes ---- */

static const struct routes_entry *route_of(const struct net *n, uint32_t from, uint32_t to)
{
    int32_t row = n->row_of[from];
    CPN_ASSERT(row >= 0 && n->routes.e);
    return routes_get(&n->routes, (uint32_t)row, to);
}

/* One step back along the route from `from`: the link by which its tree reaches *at,
 * and *at moved to that link's other end. A route's links are read from its last to
 * its first, nlinks such steps from the destination. */
static uint32_t route_back(const struct net *n, uint32_t from, uint32_t *at)
{
    uint32_t l = route_of(n, from, *at)->via;
    const struct link *lk = &n->cl->links[l];
    *at = lk->a == *at ? lk->b : lk->a;
    return l;
}

/* What route_share reads of each link: its whole capacity, the share one more flow
 * would get (its capacity over its active flows plus one), or the share each of its
 * flows has now (its capacity over them). */
enum share_mode { SHARE_FULL, SHARE_ONE_MORE, SHARE_NOW };

/* Least capacity along the route from `from` to `to` (walking its tree back from
 * `to`), read of each link as `mode` says. */
static double route_share(const struct net *n, uint32_t from, uint32_t to, enum share_mode mode)
{
    double share = INFINITY;
    for (uint32_t k = route_of(n, from, to)->nlinks, at = to; k > 0; k--) {
        const struct link_state *ls = &n->links[route_back(n, from, &at)];
        double s = ls->cap;
        if (mode == SHARE_ONE_MORE)
            s = ls->cap / (double)(ls->nflows + 1);
        else if (mode == SHARE_NOW && ls->nflows > 1)
            s = ls->cap / (double)ls->nflows;
        if (s < share)
            share = s;
    }
    return share;
}

bool net_route(const struct net *n, uint32_t from, uint32_t to, double *latency_s,
               double *bottleneck_gib_s)
{
    if (n->row_of[from] < 0)
        return false;
    const struct routes_entry *r = route_of(n, from, to);
    if (!isfinite(r->latency_s))
        return false;
    *latency_s = r->latency_s;
    *bottleneck_gib_s = route_share(n, from, to, SHARE_FULL);
    return true;
}

/* ---- the all-reduce of distributed jobs ---- */

/* Pods whose distinct nodes net_allreduce_s lists on its stack; more take a block. */
#define NET_RING_STACK 64

/* The ring of a distributed job's all-reduce: the distinct nodes of pod_nodes[0..pods),
 * in pod order, into nodes (room for pods). Returns their count. */
static uint32_t ring_nodes(const uint32_t *pod_nodes, uint32_t pods, uint32_t *nodes)
{
    uint32_t nn = 0;
    for (uint32_t k = 0; k < pods; k++) {
        uint32_t m = 0;
        while (m < nn && nodes[m] != pod_nodes[k])
            m++;
        if (m == nn)
            nodes[nn++] = pod_nodes[k];
    }
    return nn;
}

/* Bytes each hop of a ring of nn nodes sends a step: 2 (nn - 1) / nn of the gradients
 * of catalogue model `model` (fp32). */
static double ring_hop_bytes(const struct net *n, int32_t model, uint32_t nn)
{
    double grad = catalog_model_params_m(n->cat, model) * 1e6 * NET_BYTES_PER_PARAM;
    return 2.0 * (nn - 1) / nn * grad;
}

/* net_allreduce_s, with the hops between sites read as `mode` says (route_share). */
static double ring_allreduce_s(const struct net *n, int32_t model, const uint32_t *pod_nodes,
                               uint32_t pods, enum share_mode mode)
{
    if (model < 0)
        return 0;
    uint32_t stack[NET_RING_STACK];
    uint32_t *nodes = pods <= NET_RING_STACK ? stack : cpn_malloc(pods * sizeof *nodes);
    uint32_t nn = ring_nodes(pod_nodes, pods, nodes);
    double bytes_s = INFINITY, lat_s = 0;
    for (uint32_t m = 0; nn > 1 && m < nn; m++) {
        const struct node *a = &n->cl->nodes[nodes[m]], *b = &n->cl->nodes[nodes[(m + 1) % nn]];
        double bw, lat = 0;
        if (a->site == b->site) {
            bw = n->cl->sites[a->site].net_gbps * NET_BITS_PER_GBIT / NET_BITS_PER_BYTE;
        } else {
            const struct routes_entry *r = route_of(n, a->site, b->site);
            CPN_ASSERT(isfinite(r->latency_s));
            lat = r->latency_s;
            bw = route_share(n, a->site, b->site, mode) * NET_BYTES_PER_GIB;
        }
        bytes_s = fmin(bytes_s, bw);
        lat_s = fmax(lat_s, lat);
    }
    if (nodes != stack)
        free(nodes);
    if (nn < 2)
        return 0;
    return ring_hop_bytes(n, model, nn) / bytes_s + 2.0 * (nn - 1) * lat_s;
}

double net_allreduce_s(const struct net *n, int32_t model, const uint32_t *pod_nodes,
                       uint32_t pods)
{
    return ring_allreduce_s(n, model, pod_nodes, pods, SHARE_FULL);
}

double net_allreduce_now_s(const struct net *n, int32_t model, const uint32_t *pod_nodes,
                           uint32_t pods)
{
    return ring_allreduce_s(n, model, pod_nodes, pods, SHARE_NOW);
}

/* ---- caches: an LRU list per site, one hash table over (site, item) ---- */

static size_t cache_hash(const struct net *n, uint32_t site, uint32_t item)
{
    uint64_t k = ((uint64_t)site << 32 | item) * 0x9E3779B97F4A7C15ull;
    return (size_t)(k >> 32) & (n->nbuckets - 1);
}

static uint32_t cache_find(const struct net *n, uint32_t site, uint32_t item)
{
    if (!(n->item_cached[item / 64] >> (item % 64) & 1))
        return NET_NONE;
    for (uint32_t e = n->buckets[cache_hash(n, site, item)]; e != NET_NONE; e = n->entries[e].hnext)
        if (n->entries[e].site == site && n->entries[e].item == item)
            return e;
    return NET_NONE;
}

/* Sets whether model `item`'s image is in site's cache (image_at). */
static void image_bit(struct net *n, uint32_t site, uint32_t item, bool on)
{
    size_t b = (size_t)item * n->n_sites + site;
    uint64_t bit = (uint64_t)1 << (b % 64);
    n->image_at[b / 64] = on ? n->image_at[b / 64] | bit : n->image_at[b / 64] & ~bit;
}

/* Whether site's cache holds item now: cache_find, but a bit for a model's image
 * unless `fresh` (the checks' look at the hash alone). */
static inline bool cache_has(const struct net *n, uint32_t site, uint32_t item, bool fresh)
{
    if (fresh || item >= n->n_models)
        return cache_find(n, site, item) != NET_NONE;
    size_t b = (size_t)item * n->n_sites + site;
    return n->image_at[b / 64] >> (b % 64) & 1;
}

static void lru_unlink(struct net *n, uint32_t e)
{
    struct cache_entry *ce = &n->entries[e];
    struct site_cache *c = &n->caches[ce->site];
    if (ce->prev != NET_NONE)
        n->entries[ce->prev].next = ce->next;
    else
        c->head = ce->next;
    if (ce->next != NET_NONE)
        n->entries[ce->next].prev = ce->prev;
    else
        c->tail = ce->prev;
    ce->prev = ce->next = NET_NONE;
}

static void lru_push_front(struct net *n, uint32_t e)
{
    struct cache_entry *ce = &n->entries[e];
    struct site_cache *c = &n->caches[ce->site];
    ce->prev = NET_NONE;
    ce->next = c->head;
    if (c->head != NET_NONE)
        n->entries[c->head].prev = e;
    c->head = e;
    if (c->tail == NET_NONE)
        c->tail = e;
}

static void cache_evict(struct net *n, uint32_t site)
{
    struct site_cache *c = &n->caches[site];
    uint32_t e = c->tail;
    struct cache_entry *ce = &n->entries[e];
    lru_unlink(n, e);
    uint32_t *pp = &n->buckets[cache_hash(n, site, ce->item)];
    while (*pp != e)
        pp = &n->entries[*pp].hnext;
    *pp = ce->hnext;
    c->used_gib -= ce->gib;
    if (ce->item < n->n_models)
        image_bit(n, site, ce->item, false);
    if (c->head == NET_NONE)
        c->used_gib = 0;
    ce->hnext = n->free_entry;
    n->free_entry = e;
    n->st.evictions++;
}

/* A look-up that counts as a hit or miss and refreshes a hit's recency. */
static bool cache_lookup(struct net *n, uint32_t site, uint32_t item)
{
    uint32_t e = cache_find(n, site, item);
    if (e == NET_NONE) {
        n->st.misses++;
        return false;
    }
    n->st.hits++;
    lru_unlink(n, e);
    lru_push_front(n, e);
    return true;
}

/* Doubles the hash table, so that it has at least a bucket per cache entry ever
 * made: its size follows what the caches hold, not the number of jobs. A chain's
 * order changes; no answer does. */
static void cache_rehash(struct net *n)
{
    size_t nb = n->nbuckets * 2;
    uint32_t *b = cpn_malloc(nb * sizeof *b);
    for (size_t i = 0; i < nb; i++)
        b[i] = NET_NONE;
    size_t old_nb = n->nbuckets;
    uint32_t *old = n->buckets;
    n->buckets = b;
    n->nbuckets = nb;
    for (size_t i = 0; i < old_nb; i++)
        for (uint32_t e = old[i], next; e != NET_NONE; e = next) {
            struct cache_entry *ce = &n->entries[e];
            next = ce->hnext;
            size_t h = cache_hash(n, ce->site, ce->item);
            ce->hnext = b[h];
            b[h] = e;
        }
    free(old);
}

static void cache_insert(struct net *n, uint32_t site, uint32_t item, double gib)
{
    struct site_cache *c = &n->caches[site];
    if (gib > c->cap_gib || cache_find(n, site, item) != NET_NONE)
        return;
    while (c->used_gib + gib > c->cap_gib && c->tail != NET_NONE)
        cache_evict(n, site);
    uint32_t e = n->free_entry;
    if (e != NET_NONE) {
        n->free_entry = n->entries[e].hnext;
    } else {
        cpn_grow((void **)&n->entries, &n->capentries, n->nentries + 1, sizeof *n->entries);
        e = (uint32_t)n->nentries++;
        if (n->nentries > n->nbuckets)
            cache_rehash(n);
    }
    size_t h = cache_hash(n, site, item);
    n->entries[e] = (struct cache_entry){.item = item, .site = site, .gib = gib,
                                         .prev = NET_NONE, .next = NET_NONE, .hnext = n->buckets[h]};
    n->buckets[h] = e;
    n->item_cached[item / 64] |= (uint64_t)1 << (item % 64);
    if (item < n->n_models)
        image_bit(n, site, item, true);
    lru_push_front(n, e);
    c->used_gib += gib;
}

/* ---- items of a job ---- */

static uint32_t image_item(const struct net *n, uint32_t j)
{
    int32_t m = n->js->v[j].model;
    return m >= 0 ? (uint32_t)m : n->n_models + j;
}

static uint32_t data_item(const struct net *n, uint32_t j)
{
    return n->n_models + (uint32_t)n->js->n + j;
}

static double weights_gib(const struct net *n, uint32_t j)
{
    int32_t m = n->js->v[j].model;
    return m >= 0 ? n->weights_gib[m] : 0;
}

/* What job j moves and from where, as its estimates read it: the parts that no site
 * changes, worked out once for all the sites a policy weighs. */
struct est_job {
    uint32_t origin, image, data; /* its origin site and its items */
    double weights_gib, image_gib, data_gib;
    size_t row;                   /* its origin's row x sites: est_route's key less the site */
};

static inline void est_job_of(const struct net *n, uint32_t j, struct est_job *e)
{
    const struct job *jb = &n->js->v[j];
    e->origin = n->origin[j];
    e->image = image_item(n, j);
    e->data = data_item(n, j);
    e->weights_gib = weights_gib(n, j);
    e->image_gib = jb->image_gib;
    e->data_gib = jb->data_gib;
    e->row = (size_t)n->row_of[e->origin] * n->n_sites;
}

/* net_job_gib of the job e, reading the caches as cache_has does. */
static inline double job_gib(const struct net *n, const struct est_job *e, uint32_t site,
                             bool fresh)
{
    if (e->origin == site)
        return 0;
    double gib = e->weights_gib;
    if (e->image_gib > 0 && !cache_has(n, site, e->image, fresh))
        gib += e->image_gib;
    if (e->data_gib > 0 && !cache_has(n, site, e->data, fresh))
        gib += e->data_gib;
    return gib;
}

double net_job_gib(const struct net *n, uint32_t j, uint32_t site)
{
    struct est_job e;
    est_job_of(n, j, &e);
    return job_gib(n, &e, site, false);
}

/* ---- flows and max-min sharing ---- */

/* Marks job j's all-reduce for net_allreduce_next_dirty: its share of a link changed. */
static void ar_mark(struct net *n, uint32_t j)
{
    if (n->ar_marked[j])
        return;
    n->ar_marked[j] = 1;
    cpn_grow((void **)&n->ar_dirty, &n->cap_dirty, n->n_dirty + 1, sizeof *n->ar_dirty);
    n->ar_dirty[n->n_dirty++] = j;
}

/* The flows of link l changed in number: each all-reduce flow on it has a new share. */
static void link_counted(struct net *n, const struct link_state *ls)
{
    for (size_t q = 0; ls->n_ar > 0 && q < ls->nflows; q++) {
        const struct flow *fl = &n->flows[ls->flows[q]];
        if (fl->persist)
            ar_mark(n, fl->job);
    }
}

static void link_add(struct net *n, uint32_t l, uint32_t f, uint32_t hop)
{
    struct link_state *ls = &n->links[l];
    cpn_grow((void **)&ls->flows, &ls->capflows, ls->nflows + 1, sizeof *ls->flows);
    flow_pos(&n->flows[f])[hop] = (uint32_t)ls->nflows;
    ls->flows[ls->nflows++] = f;
    n->flow_ver++;
    ls->n_ar += n->flows[f].persist;
    link_counted(n, ls);
}

static void link_remove(struct net *n, uint32_t l, uint32_t f, uint32_t hop)
{
    struct link_state *ls = &n->links[l];
    uint32_t at = flow_pos(&n->flows[f])[hop], last = ls->flows[--ls->nflows];
    n->flow_ver++;
    if (last != f) {
        ls->flows[at] = last;
        struct flow *lf = &n->flows[last];
        const uint32_t *links = flow_links(lf);
        for (uint32_t k = 0; k < lf->nlinks; k++)
            if (links[k] == l)
                flow_pos(lf)[k] = at;
    }
    ls->n_ar -= n->flows[f].persist;
    link_counted(n, ls);
}

/* Adds link l to the component of this recompute (the first nl links of
 * comp_links) unless the stamp shows it is there already. Returns the new count.
 * Static inline so that the per-event loops of recompute pay no call. */
static inline size_t comp_add_link(struct net *n, uint32_t l, uint32_t stamp, size_t nl)
{
    if (n->links[l].stamp == stamp)
        return nl;
    n->links[l].stamp = stamp;
    cpn_grow((void **)&n->comp_links, &n->comp_cap_l, nl + 1, sizeof *n->comp_links);
    n->comp_links[nl] = l;
    return nl + 1;
}

/* Fixes fl's rate at `rate` in progressive filling: it takes that much of each of its
 * links. */
static void flow_freeze(struct net *n, struct flow *fl, double rate)
{
    fl->frozen = true;
    fl->new_rate = rate;
    const uint32_t *links = flow_links(fl);
    for (uint32_t k = 0; k < fl->nlinks; k++) {
        struct link_state *ls = &n->links[links[k]];
        ls->cap_left -= rate;
        ls->unfrozen--;
    }
}

/* Recomputes max-min fair rates of every active flow connected, through shared
 * links, to the given links, and pushes the completion of each flow whose rate
 * changed. */
static void recompute(struct net *n, const uint32_t *seed, uint32_t nseed, double now)
{
    uint32_t stamp = ++n->stamp;
    size_t nf = 0, nl = 0;
    bool capped = false; /* some flow of the component is an all-reduce, capped at its pace */
    for (uint32_t k = 0; k < nseed; k++)
        nl = comp_add_link(n, seed[k], stamp, nl);
    for (size_t i = 0; i < nl; i++) {
        struct link_state *ls = &n->links[n->comp_links[i]];
        for (size_t q = 0; q < ls->nflows; q++) {
            uint32_t f = ls->flows[q];
            struct flow *fl = &n->flows[f];
            if (fl->stamp == stamp)
                continue;
            fl->stamp = stamp;
            cpn_grow((void **)&n->comp_flows, &n->comp_cap_f, nf + 1, sizeof *n->comp_flows);
            n->comp_flows[nf++] = f;
            capped |= fl->persist;
            const uint32_t *links = flow_links(fl);
            for (uint32_t k = 0; k < fl->nlinks; k++)
                nl = comp_add_link(n, links[k], stamp, nl);
        }
    }
    /* Progressive filling. */
    for (size_t i = 0; i < nl; i++) {
        struct link_state *ls = &n->links[n->comp_links[i]];
        ls->cap_left = ls->cap;
        ls->unfrozen = (uint32_t)ls->nflows;
    }
    for (size_t i = 0; i < nf; i++)
        n->flows[n->comp_flows[i]].frozen = false;
    for (;;) {
        struct link_state *best = NULL;
        double share = INFINITY;
        for (size_t i = 0; i < nl; i++) {
            struct link_state *ls = &n->links[n->comp_links[i]];
            if (ls->unfrozen == 0)
                continue;
            double s = ls->cap_left / ls->unfrozen;
            if (s < share) {
                share = s;
                best = ls;
            }
        }
        if (!best)
            break;
        if (share < 0)
            share = 0;
        /* An all-reduce flow whose pace is below every share left takes its pace, and
         * the others fill what it leaves (max-min with a cap: it is a flow whose
         * demand is met). */
        struct flow *cap_fl = NULL;
        for (size_t i = 0; capped && i < nf; i++) {
            struct flow *fl = &n->flows[n->comp_flows[i]];
            if (fl->persist && !fl->frozen && fl->pace < share &&
                (!cap_fl || fl->pace < cap_fl->pace))
                cap_fl = fl;
        }
        if (cap_fl) {
            flow_freeze(n, cap_fl, cap_fl->pace);
            continue;
        }
        for (size_t q = 0; q < best->nflows; q++) {
            struct flow *fl = &n->flows[best->flows[q]];
            if (!fl->frozen)
                flow_freeze(n, fl, share);
        }
    }
    for (size_t i = 0; i < nf; i++) {
        uint32_t f = n->comp_flows[i];
        struct flow *fl = &n->flows[f];
        if (fl->new_rate == fl->rate)
            continue;
        if (fl->persist) { /* it never ends: no event */
            fl->rate = fl->new_rate;
            continue;
        }
        fl->remaining_gib -= fl->rate * (now - fl->last_s);
        if (fl->remaining_gib < 0)
            fl->remaining_gib = 0;
        fl->last_s = now;
        fl->rate = fl->new_rate;
        uint32_t gen = ++n->jobs[fl->job].gen;
        if (fl->rate > 0)
            eq_schedule(n->eq, NET_KEY_DONE(n, fl->job), now + fl->remaining_gib / fl->rate,
                        EV_FLOW_DONE, fl->job, gen);
        else
            eq_cancel(n->eq, NET_KEY_DONE(n, fl->job));
    }
}

/* ---- processor sharing: one event per link ---- */

/* The order is strict, so a 4-ary heap pops the records a binary one would. */
static const struct heap_ops ps_ops = {.size = sizeof(struct ps_rec), .less = ps_rec_before, .arity = 4};

static const struct ps_rec *ps_top(const struct link_state *ls)
{
    return heap_at(&ls->heap, &ps_ops, 0);
}

/* Brings the link's virtual time up to now. */
static void ps_advance(struct link_state *ls, double now)
{
    if (ls->nflows)
        ls->vtime += (now - ls->vlast_s) * ls->cap / (double)ls->nflows;
    ls->vlast_s = now;
}

/* (Re)schedules the link's one event: the end of its least-vfinish flow. */
static void ps_schedule(struct net *n, uint32_t l, double now)
{
    struct link_state *ls = &n->links[l];
    if (ls->heap.n == 0) {
        eq_cancel(n->eq, NET_KEY_LINK(n, l));
        return;
    }
    double left = ps_top(ls)->vfinish - ls->vtime;
    double dt = left > 0 ? left * (double)ls->nflows / ls->cap : 0;
    eq_schedule(n->eq, NET_KEY_LINK(n, l), now + dt, EV_LINK_DONE, l, ++ls->gen);
}

/* Puts slot f on the free list (its links stay readable until it is taken again). */
static void flow_release(struct net *n, uint32_t f)
{
    n->flows[f].active = n->flows[f].persist = false;
    n->free_slots[n->n_free++] = f;
}

/* Removes a finished flow: caches its items, counts it, frees its slot. */
static void flow_finish(struct net *n, uint32_t f, double now)
{
    struct flow *fl = &n->flows[f];
    for (int i = 0; i < 2; i++)
        if (fl->items[i] != NET_NONE)
            cache_insert(n, fl->site, fl->items[i], fl->item_gib[i]);
    n->st.transfer_s_sum += now - fl->begin_s;
    flow_release(n, f);
}

uint32_t net_link_done(struct net *n, uint32_t l, uint32_t gen, double now)
{
    struct link_state *ls = &n->links[l];
    if (!n->ps || gen != ls->gen || ls->heap.n == 0)
        return NET_NONE;
    ps_advance(ls, now);
    /* The ending flow's slot is a cache miss at a million jobs: what flow_finish
     * touches of it, begin_s to persist (two lines at most), loads while the heap
     * pops (perf, 1M jobs under default: flow_finish 2.0% -> 1.4% of the samples). */
    const struct flow *ending = &n->flows[ps_top(ls)->slot];
    __builtin_prefetch(&ending->begin_s);
    __builtin_prefetch(&ending->persist);
    struct ps_rec top;
    heap_pop(&ls->heap, &ps_ops, NULL, &top);
    uint32_t f = top.slot, j = top.job;
    ls->nflows--;
    n->flow_ver++;
    flow_finish(n, f, now);
    ps_schedule(n, l, now);
    return j;
}

/* A flow slot (the last freed, else a new one) on the route r from `from` to `to`:
 * its links set, nothing to cache, not active, its rate, pace and stamp 0, no next
 * flow; the caller sets the rest. Returns the slot. It stores those fields one by one,
 * where a compound literal was zeroed with `rep stos`, which waited for the free
 * slot's cache lines (a miss at a million jobs) that plain stores leave to the store
 * buffer. */
static uint32_t flow_new(struct net *n, uint32_t from, uint32_t to,
                         const struct routes_entry *r)
{
    uint32_t f;
    if (n->n_free > 0) {
        f = n->free_slots[--n->n_free];
    } else {
        cpn_grow((void **)&n->flows, &n->capflows, n->nflows + 1, sizeof *n->flows);
        cpn_grow((void **)&n->blocks, &n->capblocks, n->nflows + 1, sizeof *n->blocks);
        cpn_grow((void **)&n->free_slots, &n->cap_free, n->nflows + 1, sizeof *n->free_slots);
        f = (uint32_t)n->nflows++;
        n->blocks[f] = (struct flow_block){.v = NULL, .cap = 0};
    }
    CPN_ASSERT(isfinite(r->latency_s));
    struct flow *fl = &n->flows[f];
    fl->items[0] = fl->items[1] = NET_NONE;
    fl->nlinks = r->nlinks;
    fl->active = fl->frozen = fl->persist = false;
    fl->stamp = 0;
    fl->rate = fl->pace = 0;
    fl->next = NET_NONE;
    if (r->nlinks > NET_FLOW_INLINE_LINKS) {
        struct flow_block *b = &n->blocks[f];
        if (b->cap < r->nlinks) {
            b->cap = r->nlinks;
            b->v = cpn_realloc(b->v, 2 * (size_t)b->cap * sizeof *b->v);
        }
        fl->ext = b->v;
        fl->ext_cap = b->cap;
    }
    uint32_t *links = flow_links(fl);
    for (uint32_t k = r->nlinks, at = to; k > 0; k--)
        links[k - 1] = route_back(n, from, &at);
    return f;
}

bool net_transfer_begin(struct net *n, uint32_t j, uint32_t site, double now)
{
    const struct job *jb = &n->js->v[j];
    uint32_t origin = n->origin[j];
    n->st.transfer_count++;
    if (origin == site)
        return false;
    uint32_t img = image_item(n, j), dat = data_item(n, j);
    double gib = weights_gib(n, j);
    bool move_img = jb->image_gib > 0 && !cache_lookup(n, site, img);
    if (move_img)
        gib += jb->image_gib;
    bool move_dat = jb->data_gib > 0 && !cache_lookup(n, site, dat);
    if (move_dat)
        gib += jb->data_gib;
    if (gib <= 0)
        return false;
    const struct routes_entry *r = route_of(n, origin, site);
    uint32_t f = flow_new(n, origin, site, r);
    struct flow *fl = &n->flows[f];
    fl->remaining_gib = gib;
    fl->begin_s = now;
    fl->last_s = now;
    fl->job = j;
    fl->site = site;
    if (move_img) {
        fl->items[0] = img;
        fl->item_gib[0] = jb->image_gib;
    }
    if (move_dat) {
        fl->items[1] = dat;
        fl->item_gib[1] = jb->data_gib;
    }
    n->st.transfers++;
    n->st.moved_gib += gib;
    /* The event names the slot, which the flow keeps until it ends: no transfer is
     * called off, so it is never stale. */
    eq_push(n->eq, now + r->latency_s, EV_FLOW_START, j, f);
    return true;
}

void net_flow_start(struct net *n, uint32_t j, uint32_t f, double now)
{
    CPN_ASSERT(f < n->nflows);
    struct flow *fl = &n->flows[f];
    CPN_ASSERT(fl->job == j && !fl->active && !fl->persist);
    fl->active = true;
    fl->last_s = now;
    const uint32_t *links = flow_links(fl);
    if (n->ps) {
        /* Every route is one link, and no flow is ever recomputed: the link counts
         * its flows, and its heap orders them. */
        CPN_ASSERT(fl->nlinks == 1);
        uint32_t l = links[0];
        struct link_state *ls = &n->links[l];
        ps_advance(ls, now);
        struct ps_rec rec = {.vfinish = ls->vtime + fl->remaining_gib, .job = j, .slot = f};
        ls->nflows++;
        n->flow_ver++;
        heap_push(&ls->heap, &ps_ops, NULL, &rec);
        ps_schedule(n, l, now);
        return;
    }
    n->jobs[j].flow = f;
    for (uint32_t k = 0; k < fl->nlinks; k++)
        link_add(n, links[k], f, k);
    recompute(n, links, fl->nlinks, now);
}

bool net_flow_done(struct net *n, uint32_t j, uint32_t gen, double now)
{
    uint32_t f = n->jobs[j].flow;
    if (f == NET_NONE || gen != n->jobs[j].gen || !n->flows[f].active)
        return false;
    struct flow *fl = &n->flows[f];
    const uint32_t *links = flow_links(fl);
    for (uint32_t k = 0; k < fl->nlinks; k++)
        link_remove(n, links[k], f, k);
    n->jobs[j].flow = NET_NONE;
    n->jobs[j].gen++;
    /* The freed slot keeps its links until it is reused, after this recompute. */
    flow_finish(n, f, now);
    recompute(n, links, fl->nlinks, now);
    return true;
}

/* The route part of an estimate from `from` to `to`, read afresh: its latency, and
 * its share unless the latency is infinite (no route). */
static void est_route_fill(const struct net *n, uint32_t from, uint32_t to, struct est_route *r)
{
    r->latency_s = route_of(n, from, to)->latency_s;
    r->share = isfinite(r->latency_s) ? route_share(n, from, to, SHARE_ONE_MORE) : INFINITY;
}

/* net_estimate_job_s of the job e, with the route part from the memo (brought up to
 * date; the memo is no part of the network's state, so a const net fills it) and the
 * caches read by cache_has; or, when `fresh`, all of it read afresh. */
static inline double estimate_s(const struct net *n, const struct est_job *e, uint32_t site,
                                bool fresh)
{
    double gib = job_gib(n, e, site, fresh);
    if (gib <= 0)
        return 0;
    struct est_route now, *r = &now;
    if (fresh) {
        est_route_fill(n, e->origin, site, r);
    } else {
        size_t key = e->row + site;
        r = &n->est_route[key & n->est_mask];
        if (r->ver != n->flow_ver || r->key != key) {
            r->ver = n->flow_ver;
            r->key = key;
            est_route_fill(n, e->origin, site, r);
        }
    }
    if (!isfinite(r->latency_s))
        return INFINITY;
    return r->latency_s + gib / r->share;
}

/* The estimate read afresh, for the checks (out of the estimates' way). */
static __attribute__((noinline)) double estimate_fresh_s(const struct net *n, uint32_t j,
                                                         uint32_t site)
{
    struct est_job e;
    est_job_of(n, j, &e);
    return estimate_s(n, &e, site, true);
}

/* The estimate of job j (e) to site, from the memo and the image bits; the checks
 * compare it with a fresh one. */
static inline double estimate_checked_s(const struct net *n, const struct est_job *e, uint32_t j,
                                        uint32_t site)
{
    double s = estimate_s(n, e, site, false);
    if (policy_check_indexes) { /* the memo and the image bits answer as a fresh look */
        double f = estimate_fresh_s(n, j, site);
        CPN_ASSERT(memcmp(&s, &f, sizeof s) == 0);
    }
    return s;
}

double net_estimate_job_s(const struct net *n, const struct jobset *js, uint32_t j, uint32_t site)
{
    (void)js;
    struct est_job e;
    est_job_of(n, j, &e);
    return estimate_checked_s(n, &e, j, site);
}

void net_estimate_job_sites_s(const struct net *n, uint32_t j, const uint32_t *sites, size_t count,
                              double *out)
{
    struct est_job e;
    est_job_of(n, j, &e);
    for (size_t i = 0; i < count; i++)
        out[sites[i]] = estimate_checked_s(n, &e, j, sites[i]);
}

/* ---- the all-reduce of distributed jobs between sites ---- */

void net_allreduce_begin(struct net *n, uint32_t j, int32_t model, const uint32_t *pod_nodes,
                         uint32_t pods, double now)
{
    if (model < 0 || !n->ar_head)
        return;
    CPN_ASSERT(n->ar_head[j] == NET_NONE);
    uint32_t stack[NET_RING_STACK];
    uint32_t *nodes = pods <= NET_RING_STACK ? stack : cpn_malloc(pods * sizeof *nodes);
    uint32_t nn = ring_nodes(pod_nodes, pods, nodes);
    for (uint32_t m = 0; nn > 1 && m < nn; m++) {
        uint32_t a = n->cl->nodes[nodes[m]].site, b = n->cl->nodes[nodes[(m + 1) % nn]].site;
        if (a == b)
            continue;
        /* One flow per pair of sites the ring crosses, whichever way: its hops between
         * them go in opposite directions, and links carry both at once. */
        bool dup = false;
        for (uint32_t f = n->ar_head[j]; f != NET_NONE && !dup; f = n->flows[f].next)
            dup = (n->flows[f].from == a && n->flows[f].site == b) ||
                  (n->flows[f].from == b && n->flows[f].site == a);
        if (dup)
            continue;
        uint32_t f = flow_new(n, a, b, route_of(n, a, b));
        struct flow *fl = &n->flows[f];
        fl->from = a;
        fl->site = b;
        fl->job = j;
        fl->active = fl->persist = true;
        fl->begin_s = fl->last_s = now;
        fl->step_gib = ring_hop_bytes(n, model, nn) / NET_BYTES_PER_GIB;
        fl->next = n->ar_head[j];
        n->ar_head[j] = f;
        const uint32_t *links = flow_links(fl);
        for (uint32_t k = 0; k < fl->nlinks; k++)
            link_add(n, links[k], f, k);
        recompute(n, links, fl->nlinks, now);
    }
    if (nodes != stack)
        free(nodes);
}

void net_allreduce_end(struct net *n, uint32_t j, double now)
{
    if (!n->ar_head)
        return;
    for (uint32_t f = n->ar_head[j], next; f != NET_NONE; f = next) {
        struct flow *fl = &n->flows[f];
        next = fl->next;
        const uint32_t *links = flow_links(fl);
        for (uint32_t k = 0; k < fl->nlinks; k++)
            link_remove(n, links[k], f, k);
        flow_release(n, f);
        /* The freed slot keeps its links until it is reused, after this recompute. */
        recompute(n, links, fl->nlinks, now);
    }
    n->ar_head[j] = NET_NONE;
}

bool net_allreduce_crosses(const struct net *n, uint32_t j)
{
    return n->ar_head && n->ar_head[j] != NET_NONE;
}

void net_allreduce_pace(struct net *n, uint32_t j, double rate, double step_s, double now)
{
    if (!n->ar_head)
        return;
    for (uint32_t f = n->ar_head[j]; f != NET_NONE; f = n->flows[f].next) {
        struct flow *fl = &n->flows[f];
        double pace = fl->step_gib * rate / step_s;
        if (fl->pace == pace)
            continue;
        fl->pace = pace;
        recompute(n, flow_links(fl), fl->nlinks, now);
    }
}

uint32_t net_allreduce_next_dirty(struct net *n)
{
    if (!n->ar_head || n->dirty_at == n->n_dirty) {
        n->n_dirty = n->dirty_at = 0;
        return UINT32_MAX;
    }
    uint32_t j = n->ar_dirty[n->dirty_at++];
    n->ar_marked[j] = 0;
    return j;
}

const struct net_stats *net_stats(const struct net *n) { return &n->st; }

int net_build_routes(struct net *n, const volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    if (n->routes.e)
        return CPN_OK;
    int rc = routes_build(&n->routes, n->origins, n->n_rows, stop, err, errlen);
    if (rc != CPN_OK)
        return rc;
    size_t entries = n->n_origin_rows * n->n_sites;
    /* The all-reduce flows of distributed jobs are capped at their pace, which per-link
     * processor sharing cannot hold: a queue with them shares links by max-min. */
    n->ps = n->ar_head == NULL;
    for (size_t i = 0; i < entries; i++)
        if (n->routes.e[i].nlinks > 1)
            n->ps = false;
    if (!n->ps) {
        n->jobs = cpn_malloc(n->js->n * sizeof *n->jobs);
        for (size_t j = 0; j < n->js->n; j++)
            n->jobs[j] = (struct net_job){.flow = NET_NONE, .gen = 0};
    }
    size_t slots = 1;
    while (slots < entries && slots < NET_EST_MEMO)
        slots *= 2;
    n->est_route = cpn_calloc(slots, sizeof *n->est_route);
    n->est_mask = slots - 1;
    return CPN_OK;
}

/* ---- set-up ---- */

int net_create(struct net **out, const struct cluster *cl, const struct catalog *cat,
               const struct jobset *js, const uint32_t *origin_site, struct eq *eq, char *err,
               size_t errlen)
{
    size_t ns = cl->n_sites;
    int32_t *row_of = cpn_malloc(ns * sizeof *row_of);
    for (size_t i = 0; i < ns; i++)
        row_of[i] = -1;
    size_t rows = 0;
    uint32_t *first_job = cpn_malloc(ns * sizeof *first_job);
    for (size_t j = 0; j < js->n; j++)
        if (row_of[origin_site[j]] < 0) {
            row_of[origin_site[j]] = (int32_t)rows++;
            first_job[origin_site[j]] = (uint32_t)j;
        }
    size_t origin_rows = rows;
    /* The ring of a distributed job's all-reduce may join any two sites with GPUs
     * (net_allreduce_s): each gets a tree of its own. They are all in the component of
     * the origins (checked below), so every such route exists. */
    for (uint32_t s = 0; jobset_has_pods(js) && s < ns; s++)
        if (row_of[s] < 0 && cl->sites[s].gpu_count > 0)
            row_of[s] = (int32_t)rows++;
    uint32_t *origins = cpn_malloc((rows ? rows : 1) * sizeof *origins);
    for (uint32_t s = 0; s < ns; s++)
        if (row_of[s] >= 0)
            origins[row_of[s]] = s;
    int rc = CPN_OK;
    if (origin_rows * ns <= NET_MAX_ROUTES && rows * ns > NET_MAX_ROUTES)
        rc = cpn_fail(err, errlen, CPN_EINPUT,
                      "%s: %zu sites with GPUs or origins x %zu sites = %zu routes, more than "
                      "the %d a run of distributed jobs (%s) can hold: their all-reduce needs "
                      "the routes between every two sites with GPUs; use fewer sites",
                      cl->source, rows, ns, rows * ns, NET_MAX_ROUTES, js->source);
    if (origin_rows * ns > NET_MAX_ROUTES) {
        const struct job *jb = &js->v[first_job[origins[origin_rows - 1]]];
        rc = cpn_fail(err, errlen, CPN_EINPUT,
                      "%s: %zu origin sites x %zu sites = %zu routes, more than the %d a run "
                      "can hold (%d MiB of routes); the %zu origins are the sites the jobs of %s "
                      "name (the last new one: '%s', job '%s' at %s:%u): use fewer origins or "
                      "fewer sites",
                      cl->source, origin_rows, ns, origin_rows * ns, NET_MAX_ROUTES,
                      (int)((size_t)NET_MAX_ROUTES * sizeof(struct routes_entry) >> 20), origin_rows,
                      js->source, cl->sites[origins[origin_rows - 1]].name, jobset_str(js, jb->id),
                      js->source, jb->line);
    }
    struct routes rt;
    routes_init(&rt, cl);
    for (size_t row = 0; row < origin_rows && rc == CPN_OK; row++) {
        uint32_t s = origins[row];
        for (uint32_t d = 0; d < ns && rc == CPN_OK; d++) {
            if (routes_connected(&rt, s, d) || cl->sites[d].gpu_count == 0)
                continue;
            const struct job *jb = &js->v[first_job[s]];
            rc = cpn_fail(err, errlen, CPN_EINPUT,
                          "%s: links: no route from site '%s' to site '%s', which has GPUs "
                          "(site '%s' is the origin of job '%s' at %s:%u)",
                          cl->source, cl->sites[s].name, cl->sites[d].name, cl->sites[s].name,
                          jobset_str(js, jb->id), js->source, jb->line);
        }
    }
    free(first_job);
    if (rc != CPN_OK) {
        routes_free(&rt);
        free(origins);
        free(row_of);
        return rc;
    }

    struct net *n = cpn_calloc(1, sizeof *n);
    n->cl = cl;
    n->cat = cat;
    n->js = js;
    n->origin = origin_site;
    n->eq = eq;
    n->key_done = eq_reserve_keys(eq, js->n);
    n->key_link = eq_reserve_keys(eq, cl->n_links);
    n->n_sites = ns;
    n->routes = rt;
    n->row_of = row_of;
    n->origins = origins;
    n->n_rows = rows;
    n->n_origin_rows = origin_rows;
    n->links = cpn_calloc(cl->n_links, sizeof *n->links);
    for (size_t l = 0; l < cl->n_links; l++)
        n->links[l].cap = gbps_to_gib_s(cl->links[l].gbps * cl->cfg.link_gbps_scale);
    n->flow_ver = 1; /* a memo slot of version 0 was never made */
    if (jobset_has_pods(js)) {
        n->ar_head = cpn_malloc(js->n * sizeof *n->ar_head);
        for (size_t j = 0; j < js->n; j++)
            n->ar_head[j] = NET_NONE;
        n->ar_marked = cpn_calloc(js->n, 1);
    }
    n->n_models = (uint32_t)catalog_model_count(cat);
    n->caches = cpn_calloc(ns, sizeof *n->caches);
    for (size_t s = 0; s < ns; s++) {
        n->caches[s].cap_gib = cl->sites[s].cache_gib;
        n->caches[s].head = n->caches[s].tail = NET_NONE;
    }
    n->free_entry = NET_NONE;
    n->nbuckets = NET_CACHE_MIN_BUCKETS;
    n->buckets = cpn_malloc(n->nbuckets * sizeof *n->buckets);
    n->item_cached = cpn_calloc((n->n_models + 2 * js->n + 1 + 63) / 64, sizeof *n->item_cached);
    n->image_at = cpn_calloc(((size_t)n->n_models * ns + 63) / 64 + 1, sizeof *n->image_at);
    n->weights_gib = cpn_malloc(((size_t)n->n_models + 1) * sizeof *n->weights_gib);
    for (uint32_t m = 0; m < n->n_models; m++)
        n->weights_gib[m] = catalog_model_params_m(cat, (int)m) * 1e6 * NET_BYTES_PER_PARAM / NET_BYTES_PER_GIB;
    for (size_t b = 0; b < n->nbuckets; b++)
        n->buckets[b] = NET_NONE;
    *out = n;
    return CPN_OK;
}

void net_destroy(struct net *n)
{
    if (!n)
        return;
    for (size_t l = 0; l < n->cl->n_links; l++) {
        free(n->links[l].flows);
        heap_free(&n->links[l].heap);
    }
    free(n->links);
    routes_free(&n->routes);
    free(n->row_of);
    free(n->origins);
    for (size_t f = 0; f < n->nflows; f++)
        free(n->blocks[f].v);
    free(n->blocks);
    free(n->flows);
    free(n->free_slots);
    free(n->jobs);
    free(n->comp_flows);
    free(n->comp_links);
    free(n->caches);
    free(n->entries);
    free(n->buckets);
    free(n->item_cached);
    free(n->est_route);
    free(n->image_at);
    free(n->weights_gib);
    free(n->ar_head);
    free(n->ar_marked);
    free(n->ar_dirty);
    free(n);
}
