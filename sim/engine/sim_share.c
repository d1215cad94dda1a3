/* sim_share: GPU time-slicing and CPU contention as processor sharing, for the loop in
 * sim.c (declared in sim_int.h).
 *
 * A running job goes at the slowest time-slicing share of its GPUs times its node's
 * CPU factor, so jobs of one node that hold exactly the same GPUs always go at the same
 * rate. They form a share group with one virtual clock: vtime, the work each of them
 * has done since the group began, advances at the group's rate. A job that starts
 * with w seconds of work is done when vtime reaches vfinish = vtime + w; the group
 * keeps its jobs in a min-heap by vfinish and only the least has an END event, the
 * group's (key_end + group). A start or an end on some GPUs changes the rate of the
 * groups that hold any of them, not of their jobs: the cost of a change is the
 * node's groups plus log k for the k jobs of the group, where a loop over the jobs
 * sharing the GPUs cost k (the per-link processor sharing of net.c does the same for
 * flows). A node's demand is the sum over its groups of their cores x GPU rate, and
 * the time its jobs lose to CPU contention is one integral per node of 1 - factor,
 * read at a job's start and end (a job never changes node while it runs). */
#include "sim_int.h"

#include <stdlib.h>

#include "controller.h"
#include "net.h"
#include "ps_rec.h"
#include "../base/util.h"

/* ---- a group's jobs, by virtual finish ---- */

/* A group's jobs are ps_rec records (ps_rec.h) with the generation their END carries,
 * so that the sifts and the group's END read no job's run-time state: through the jobs'
 * state every comparison and every END had read a line of some other job's, cache
 * misses that took most of the time of a start and of a rate change at a million jobs. */

/* A record landed at index i of its group's heap (the job's group is set first). */
static void job_moved(const void *e, size_t i, void *ctx)
{
    struct sim *s = ctx;
    const struct ps_rec *rec = e;
    struct jobrt *r = &s->rt[rec->job];
    r->hpos = (uint32_t)i;
    if (i == 0) {
        struct sim_group *G = &s->groups[r->group];
        G->top_vfinish = rec->vfinish;
        G->top_job = rec->job;
        G->top_gen = rec->gen;
    }
}

/* A new group's room, in jobs (it doubles as they come). */
#define GROUP_FIRST_JOBS 4

static const struct heap_ops group_ops = {
    .size = sizeof(struct ps_rec), .less = ps_rec_before, .moved = job_moved};

/* ---- groups ---- */

/* sim_pod_mask with the pod's node n at hand. */
static uint16_t pod_mask_on(const struct sim *s, uint32_t j, uint32_t k, uint32_t n)
{
    uint32_t first = s->cl->nodes[n].gpu_first, ns = sim_job_nslots(&s->jobs->v[j]);
    uint16_t mask = 0;
    for (uint32_t q = 0; q < ns; q++)
        mask = (uint16_t)(mask | 1u << (s->job_gpus[s->slot_first[j] + k * ns + q] - first));
    return mask;
}

uint16_t sim_pod_mask(const struct sim *s, uint32_t j, uint32_t k)
{
    return pod_mask_on(s, j, k, sim_pod_node(s, j, k));
}

/* The slowest time-slicing share of node n's GPUs of mask: the share of its most
 * shared GPU, as catalog_share_rate is 1 up to one job and 1 / (k x (1 + overhead))
 * from two on, which does not grow with k even rounded (the product is rounded up or
 * down monotonically, and so is its reciprocal). One share per group, where one per
 * GPU had cost a call each. */
static double mask_gpu_rate(const struct sim *s, uint32_t n, uint16_t mask)
{
    const uint32_t *running = &s->gpu_running[s->cl->nodes[n].gpu_first];
    uint32_t most = 0;
    /* The mask's set bits, lowest first, each cleared once read: a job's GPUs, not
     * every GPU of the node below its highest. */
    for (uint32_t m = mask; m != 0; m &= m - 1) {
        uint32_t k = running[__builtin_ctz(m)];
        most = k > most ? k : most;
    }
    double rate = catalog_share_rate(s->cat, most);
#ifdef CPN_CHECK_INDEXES /* the least of the GPUs' shares, as their slowest */
    double least = 1.0;
    for (uint32_t m = mask; m != 0; m &= m - 1) {
        double r = catalog_share_rate(s->cat, running[__builtin_ctz(m)]);
        least = r < least ? r : least;
    }
    CPN_ASSERT(rate == least);
#endif
    return rate;
}

/* The slowest time-slicing share of the GPUs of a group. */
static double group_gpu_rate(const struct sim *s, const struct sim_group *G)
{
    return mask_gpu_rate(s, G->node, G->mask);
}

/* Brings a group's virtual clock up to now, at the rate it has had since. */
static void group_advance(struct sim *s, struct sim_group *G)
{
    if (s->now > G->vlast_s) {
        G->vtime += G->rate * (s->now - G->vlast_s);
        G->vlast_s = s->now;
    }
}

/* Node n's lost time up to now, at the factor it has had since. */
static void node_lost_advance(struct sim *s, uint32_t n)
{
    if (s->now > s->node_lost_since_s[n]) {
        s->node_lost_s[n] += (1.0 - s->node_factor[n]) * (s->now - s->node_lost_since_s[n]);
        s->node_lost_since_s[n] = s->now;
    }
}

/* A new empty group on node n (in its list unless gang). */
static uint32_t group_new(struct sim *s, uint32_t n, uint16_t mask, bool gang)
{
    uint32_t g = s->free_group;
    if (g != VIEW_NONE) {
        s->free_group = s->groups[g].next;
    } else {
        cpn_grow((void **)&s->groups, &s->cap_groups, s->n_groups + 1, sizeof *s->groups);
        g = (uint32_t)s->n_groups++;
        /* Room for GROUP_FIRST_JOBS records, the bytes that the first 16 bare indices
         * took (cpn_grow starts at 16): most groups hold one job (every job with GPUs
         * of its own), and 16 records would add 192 bytes to each of thousands. */
        s->groups[g].heap = (struct heap){
            .v = cpn_malloc(GROUP_FIRST_JOBS * sizeof(struct ps_rec)), .cap = GROUP_FIRST_JOBS};
    }
    CPN_ASSERT(g < s->jobs->n); /* a group holds a running job: its key is in range */
    struct sim_group *G = &s->groups[g];
    G->vtime = G->gpu_rate = G->rate = G->cores = 0;
    G->vlast_s = s->now;
    G->node = n;
    G->mask = mask;
    G->moved = 0;
    G->gang = gang;
    G->prev = G->next = VIEW_NONE;
    if (gang)
        return g;
    G->next = s->node_group_head[n];
    if (G->next != VIEW_NONE)
        s->groups[G->next].prev = g;
    s->node_group_head[n] = g;
    return g;
}

/* The group of node n holding exactly the GPUs of mask, made (empty) if none does. */
static uint32_t group_get(struct sim *s, uint32_t n, uint16_t mask)
{
    for (uint32_t g = s->node_group_head[n]; g != VIEW_NONE; g = s->groups[g].next)
        if (s->groups[g].mask == mask)
            return g;
    return group_new(s, n, mask, false);
}

/* Takes an empty group out of its node's list and its END event out of the queue. */
static void group_free(struct sim *s, uint32_t g)
{
    struct sim_group *G = &s->groups[g];
    if (!G->gang) {
        if (G->prev == VIEW_NONE)
            s->node_group_head[G->node] = G->next;
        else
            s->groups[G->prev].next = G->next;
        if (G->next != VIEW_NONE)
            s->groups[G->next].prev = G->prev;
    }
    eq_cancel(&s->eq, s->key_end + g);
    G->next = s->free_group;
    s->free_group = g;
}

void sim_share_join(struct sim *s, uint32_t j)
{
    struct jobrt *r = &s->rt[j];
    /* Not queued (group is qprev's field): a queued job has a qprev or heads the queue. */
    CPN_ASSERT(r->qprev == VIEW_NONE && s->view.queue_head != j);
    uint32_t n = s->job_node[j];
    uint32_t pods = sim_pods_placed(s, j);
    uint32_t g = pods > 1 ? group_new(s, n, 0, true) : group_get(s, n, pod_mask_on(s, j, 0, n));
    struct sim_group *G = &s->groups[g];
    for (uint32_t k = 0; pods > 1 && k < pods; k++) { /* into its nodes' lists of pods */
        uint32_t e = s->slot_first[j] + k * sim_job_nslots(&s->jobs->v[j]);
        uint32_t *head = &s->gang->node_head[sim_pod_node(s, j, k)];
        s->gang->pod_prev[e] = VIEW_NONE;
        s->gang->pod_next[e] = *head;
        if (*head != VIEW_NONE)
            s->gang->pod_prev[*head] = e;
        *head = e;
    }
    group_advance(s, G);
    node_lost_advance(s, n);
    r->lost_mark_s = s->node_lost_s[n];
    r->vfinish = G->vtime + r->work_left_s;
    r->group = g;
    G->cores += r->cpu_cores;
    G->moved = 1;
    struct ps_rec rec = {.vfinish = r->vfinish, .job = j, .gen = r->gen};
    heap_push(&G->heap, &group_ops, s, &rec);
}

/* sim_share_settle for job j (its run-time state r) on node n: static, so that a
 * leave, at every end, pays no call. */
static void settle(struct sim *s, struct jobrt *r, uint32_t n)
{
    node_lost_advance(s, n);
    r->cpu_lost_s += s->node_lost_s[n] - r->lost_mark_s;
    r->lost_mark_s = s->node_lost_s[n];
}

void sim_share_settle(struct sim *s, uint32_t j) { settle(s, &s->rt[j], s->job_node[j]); }

void sim_share_leave(struct sim *s, uint32_t j, bool done)
{
    struct jobrt *r = &s->rt[j];
    uint32_t g = r->group;
    struct sim_group *G = &s->groups[g];
    group_advance(s, G);
    /* A job that ends (the group's least finish) has done its work, whatever the
     * rounding of vtime says: the group's clock is at its finish, so a job with the
     * same finish ends now too. */
    if (done && r->hpos == 0 && G->vtime < r->vfinish)
        G->vtime = r->vfinish;
    settle(s, r, s->job_node[j]);
    heap_remove(&G->heap, &group_ops, s, r->hpos, NULL);
    G->cores -= r->cpu_cores;
    for (uint32_t k = 0; G->gang && k < sim_pods_placed(s, j); k++) {
        uint32_t e = s->slot_first[j] + k * sim_job_nslots(&s->jobs->v[j]);
        uint32_t prev = s->gang->pod_prev[e], next = s->gang->pod_next[e];
        if (prev == VIEW_NONE)
            s->gang->node_head[sim_pod_node(s, j, k)] = next;
        else
            s->gang->pod_next[prev] = next;
        if (next != VIEW_NONE)
            s->gang->pod_prev[next] = prev;
    }
    G->moved = 1;
    r->group = r->hpos = VIEW_NONE;
    if (G->heap.n == 0)
        group_free(s, g);
}

/* Sets a group's rate (bringing its clock up to date first) and pushes its END event
 * again when the rate or its least job changed. */
static void group_set_rate(struct sim *s, uint32_t g, double rate)
{
    struct sim_group *G = &s->groups[g];
    if (rate == G->rate && !G->moved)
        return;
    group_advance(s, G);
    G->rate = rate;
    G->moved = 0;
#ifdef CPN_CHECK_INDEXES /* the group's copy of its least record, and the record's of its job */
    const struct ps_rec *top = heap_at(&G->heap, &group_ops, 0);
    CPN_ASSERT(G->top_vfinish == top->vfinish && G->top_job == top->job &&
               G->top_gen == top->gen && top->vfinish == s->rt[top->job].vfinish &&
               top->gen == s->rt[top->job].gen && s->rt[top->job].group == g);
#endif
    double left = G->top_vfinish - G->vtime;
    if (rate > 0)
        eq_schedule(&s->eq, s->key_end + g, s->now + (left > 0 ? left : 0) / rate, EV_END,
                    G->top_job, G->top_gen);
    else
        eq_cancel(&s->eq, s->key_end + g);
}

/* ---- distributed jobs ---- */

/* The slowest time-slicing share of the GPUs of pod k of job j. */
static double pod_gpu_rate(const struct sim *s, uint32_t j, uint32_t k)
{
    return mask_gpu_rate(s, sim_pod_node(s, j, k), sim_pod_mask(s, j, k));
}

/* Pod e (named by its first slot): its job and its index in the job. */
static void pod_of(const struct sim *s, uint32_t e, uint32_t *j, uint32_t *k)
{
    *j = s->slots[e].job;
    *k = (e - s->slot_first[*j]) / sim_job_nslots(&s->jobs->v[*j]);
}

/* A distributed job's pods step together: it goes at the rate of its slowest pod,
 * each pod at its GPUs' share times its node's CPU factor. A ring that crosses sites
 * shares the WAN: its work counts steps of c + a0 seconds (compute, and the all-reduce
 * with the links to itself), and a step takes c + a now (a at its flows' share of the
 * links, net_allreduce_now_s), so the rate is scaled by (c + a0) / (c + a), exactly 1
 * while nothing else crosses its links. Its flows carry a hop's bytes a step at the
 * steps per second that gives, which is their pace. */
static void gang_set_rate(struct sim *s, uint32_t j)
{
    double rate = INFINITY;
    for (uint32_t k = 0; k < s->gang->placed[j]; k++) {
        double r = pod_gpu_rate(s, j, k) * s->node_factor[sim_pod_node(s, j, k)];
        if (r < rate)
            rate = r;
    }
    if (net_allreduce_crosses(s->net, j)) {
        double c = s->gang->step_c_s[j], a0 = s->gang->ar_free_s[j];
        double a = net_allreduce_now_s(s->net, s->jobs->v[j].model, sim_gang_nodes(s, j),
                                       s->gang->placed[j]);
        net_allreduce_pace(s->net, j, rate, c + a, s->now);
        rate *= (c + a0) / (c + a);
    }
    group_set_rate(s, s->rt[j].group, rate);
}

void sim_gang_refresh(struct sim *s, uint32_t j) { gang_set_rate(s, j); }

/* Node n's CPU after its running jobs, their GPU sharing or its background changed:
 * each job's demand (cpu_cores at its GPU-limited rate), the share of that demand the
 * node can serve, the groups' rates, and what a scrape reads. The cores available to
 * jobs are cpus x (1 - background); when the jobs ask more, each progresses at
 * available / demand of its GPU-limited rate (proportional sharing).
 *
 * When a job just started or stopped on the GPUs of `changed`, only the groups that
 * hold one of them can have a new GPU-limited rate; the others' rates change only if
 * the node's share does. So only those are recomputed and, unless the share moved,
 * only their rates are set again. SIM_ALL_GPUS (the background changed) sets all. */
void sim_refresh_node(struct sim *s, uint32_t n, uint16_t changed)
{
    const struct node *nd = &s->cl->nodes[n];
    /* (The groups' array, read once: no group is made or freed here, and through s the
     * compiler had read it again after every call.) */
    struct sim_group *groups = s->groups;
    double demand = 0;
    for (uint32_t g = s->node_group_head[n]; g != VIEW_NONE; g = groups[g].next) {
        struct sim_group *G = &groups[g];
        if (G->mask & changed)
            G->gpu_rate = group_gpu_rate(s, G);
        demand += G->cores * G->gpu_rate;
    }
    uint32_t pod0 = s->gang ? s->gang->node_head[n] : VIEW_NONE;
    for (uint32_t e = pod0, j, k; e != VIEW_NONE; e = s->gang->pod_next[e]) {
        pod_of(s, e, &j, &k);
        demand += s->rt[j].cpu_cores * pod_gpu_rate(s, j, k);
    }
    double avail = nd->cpus * (1.0 - s->node_bg[n]);
    double factor = demand > avail ? avail / demand : 1.0;
    bool all = changed == SIM_ALL_GPUS || factor != s->node_factor[n];
    if (factor != s->node_factor[n]) {
        node_lost_advance(s, n);
        s->node_factor[n] = factor;
    }
    for (uint32_t g = s->node_group_head[n]; g != VIEW_NONE; g = groups[g].next)
        if (all || (groups[g].mask & changed))
            group_set_rate(s, g, groups[g].gpu_rate * factor);
    for (uint32_t e = pod0, j, k; e != VIEW_NONE; e = s->gang->pod_next[e]) {
        pod_of(s, e, &j, &k);
        if (all || (sim_pod_mask(s, j, k) & changed))
            gang_set_rate(s, j);
    }
    double used = (demand < avail ? demand : avail) + nd->cpus * s->node_bg[n];
    if (used != s->node_cpu_used[n] || demand != s->node_demand[n]) {
        sim_account_cpu(s);
        s->cpu_used_total += used - s->node_cpu_used[n];
        s->site_cpu_used[nd->site] += used - s->node_cpu_used[n];
        s->node_cpu_used[n] = used;
        s->node_demand[n] = demand;
        double u = nd->cpus > 0 ? used / nd->cpus : 0.0;
        if (u != s->node_cpu_util[n]) {
            s->node_cpu_util[n] = u;
            sim_mark_node(s, n);
            if (s->cl->cfg.scrape_interval_s <= 0) { /* live metrics: the view changed */
                s->view.version++;
                controller_index_refresh(s, n);
            }
        }
    }
}

void sim_share_free(struct sim *s)
{
    for (size_t g = 0; g < s->n_groups; g++)
        heap_free(&s->groups[g].heap);
    free(s->groups);
}
