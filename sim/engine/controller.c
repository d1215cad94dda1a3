/* controller: what the controller does, apart from the truth it cannot see: its
 * queue, its bookkeeping of what it placed, the view's node index, learning of ends
 * (at once, or at the next poll) and the metrics scrape. It keeps no state of its
 * own: everything hangs off struct sim (sim.h), whose loop in sim.c calls it. */
#include "controller.h"

#include <math.h>
#include <string.h>

#include "policy_call.h"
#include "../base/util.h"

/* ---- queue (doubly linked through queue_next, which the view shows, and qprev) ---- */

void controller_queue_append(struct sim *s, uint32_t j)
{
    struct jobrt *r = &s->rt[j];
    CPN_ASSERT(r->hpos == VIEW_NONE); /* in no share group: qprev is its group's field */
    r->qprev = s->queue_tail;
    s->queue_next[j] = VIEW_NONE;
    if (s->queue_tail == VIEW_NONE)
        s->view.queue_head = j;
    else
        s->queue_next[s->queue_tail] = j;
    s->queue_tail = j;
    s->view.queue_len++;
    r->state = JS_QUEUED;
    if (s->gang)
        s->gang->placed[j] = 0; /* a new attempt: none of its pods is placed */
}

void controller_queue_remove(struct sim *s, uint32_t j)
{
    struct jobrt *r = &s->rt[j];
    uint32_t next = s->queue_next[j];
    if (r->qprev == VIEW_NONE)
        s->view.queue_head = next;
    else
        s->queue_next[r->qprev] = next;
    if (next == VIEW_NONE)
        s->queue_tail = r->qprev;
    else
        s->rt[next].qprev = r->qprev;
    r->qprev = VIEW_NONE;
    s->queue_next[j] = VIEW_NONE;
    s->view.queue_len--;
}

/* ---- the view's node index ---- */

/* Node n's GPUs that look idle in the view (idle), or that no job of the bookkeeping
 * uses (!idle). Inlined, so each caller's loop tests one of the two. */
static inline uint32_t count_gpus(const struct sim *s, uint32_t n, bool idle)
{
    const struct node *nd = &s->cl->nodes[n];
    uint32_t count = 0;
    for (uint32_t g = nd->gpu_first, end = g + nd->gpu_count; g < end; g++)
        count += idle ? view_gpu_looks_idle(&s->view, g) : s->gpu_assigned[g] == 0;
    return count;
}

/* The node index's values for node n, from the view (bookkeeping and scrape). A node
 * the controller's filter refuses holds nothing a search may take: the index sees it
 * with no free CPU and no idle GPU (its idle GPUs still count in site_idle_gpus).
 * Its GPUs are counted again only when the view's may have changed (count_idle): else
 * the count is node_idle[n], the last refresh's. Its free GPUs are not counted at all:
 * node_free_gpus follows each change of gpu_assigned (the placement and the learning
 * of an end). Counting both at each of a run's refreshes had been 3% of a fifo run's
 * instructions, most of it for refreshes that followed the bookkeeping, not the view. */
static void index_values(struct sim *s, uint32_t n, bool count_idle, double *cpu, double *mem,
                         uint32_t *idle, uint32_t *idle_ix)
{
    const struct node *nd = &s->cl->nodes[n];
    *cpu = nd->cpus - s->node_cpus_req[n];
    *mem = nd->mem_gib - s->node_mem_req_gib[n];
    uint32_t free_gpus = s->node_free_gpus[n];
#ifdef CPN_CHECK_INDEXES
    CPN_ASSERT(free_gpus == count_gpus(s, n, false));
    CPN_ASSERT(count_idle || s->node_idle[n] == count_gpus(s, n, true));
#endif
    *idle = *idle_ix = count_idle ? count_gpus(s, n, true) : s->node_idle[n];
    if (!view_node_eligible(&s->view, n)) {
        *cpu = -1;
        *idle_ix = 0;
        free_gpus = 0;
    }
    uint64_t bit = (uint64_t)1 << (n % 64);
    if (free_gpus)
        s->free_node_bits[n / 64] |= bit;
    else
        s->free_node_bits[n / 64] &= ~bit;
}

/* Brings node n's entry of the index up to date; count_idle as for index_values. */
static void index_refresh(struct sim *s, uint32_t n, bool count_idle)
{
    double cpu, mem;
    uint32_t idle, idle_ix;
    index_values(s, n, count_idle, &cpu, &mem, &idle, &idle_ix);
    nodeidx_set(&s->nidx, n, cpu, mem, idle_ix);
    uint32_t site = s->cl->nodes[n].site;
    s->site_idle_gpus[site] = s->site_idle_gpus[site] - s->node_idle[n] + idle;
    s->node_idle[n] = idle;
}

/* With scrapes the view's GPUs change only at a scrape (controller_scrape counts
 * them); with live metrics they are the truth, which may have changed with the
 * bookkeeping (a placement) or without it. */
void controller_index_refresh(struct sim *s, uint32_t n)
{
    index_refresh(s, n, s->cl->cfg.scrape_interval_s <= 0);
}

/* With scrapes the view's GPUs and CPU utilisation change only at a scrape, which
 * refreshes every node whose truth changed since the last one (the change marked it
 * dirty): a refresh now would find the node's entry as it is, at the cost of a count
 * over its GPUs, at every peak and end. The checked build makes sure. */
void controller_truth_changed(struct sim *s, uint32_t n)
{
    if (s->cl->cfg.scrape_interval_s <= 0) {
        controller_index_refresh(s, n);
        return;
    }
#ifdef CPN_CHECK_INDEXES
    double cpu, mem;
    uint32_t idle, idle_ix;
    index_values(s, n, true, &cpu, &mem, &idle, &idle_ix);
    const struct nodeidx_leaf *lf = &s->nidx.leaf[n];
    CPN_ASSERT(cpu == lf->cpu && mem == lf->mem && idle_ix == lf->idle && idle == s->node_idle[n]);
#endif
}

void controller_index_rebuild(struct sim *s)
{
    for (uint32_t n = 0; n < s->cl->n_nodes; n++) {
        double cpu, mem;
        uint32_t idle, idle_ix;
        s->node_free_gpus[n] = count_gpus(s, n, false);
        index_values(s, n, true, &cpu, &mem, &idle, &idle_ix);
        nodeidx_set_leaf(&s->nidx, n, cpu, mem, idle_ix);
        s->node_idle[n] = idle;
    }
    nodeidx_rebuild(&s->nidx);
    memset(s->site_idle_gpus, 0, s->cl->n_sites * sizeof *s->site_idle_gpus);
    for (uint32_t n = 0; n < s->cl->n_nodes; n++)
        s->site_idle_gpus[s->cl->nodes[n].site] += s->node_idle[n];
}

/* ---- learning of ends ---- */

static double backoff_delay(const struct sim *s, unsigned kills)
{
    const struct cluster_config *c = &s->cl->cfg;
    /* 2^(kills - 1), exactly as ldexp makes it (-1 to 59: 0.5 or a whole power of
     * two), without a call into libm. */
    int e = (int)(kills > 60 ? 60 : kills) - 1;
    double d = c->backoff_base_s * (e < 0 ? 0.5 : (double)((uint64_t)1 << e));
    return d > c->backoff_cap_s ? c->backoff_cap_s : d;
}

/* The controller learns that job j ended: its bookkeeping releases the job; a
 * killed job that may still retry starts its back-off. */
static void learn(struct sim *s, uint32_t j)
{
    struct jobrt *r = &s->rt[j];
    const struct job *jb = &s->jobs->v[j];
    CPN_ASSERT(s->job_active[j]);
    uint32_t pods = sim_pods_placed(s, j);
    for (uint32_t k = 0; k < pods; k++) {
        uint32_t n = sim_pod_node(s, j, k);
        s->node_cpus_req[n] -= jb->cpus;
        s->node_mem_req_gib[n] -= jb->mem_gib;
        if (s->node_cpus_req[n] < VIEW_FIT_EPS)
            s->node_cpus_req[n] = 0;
        if (s->node_mem_req_gib[n] < VIEW_FIT_EPS)
            s->node_mem_req_gib[n] = 0;
    }
    for (uint32_t k = 0; k < pods * sim_job_nslots(jb); k++) {
        uint32_t g = s->job_gpus[s->slot_first[j] + k];
        bool freed = --s->gpu_assigned[g] == 0;
        s->node_free_gpus[s->cl->gpu_node[g]] += freed;
        s->gpu_assigned_mem_gib[g] -= r->bk_mem_gib;
        if (freed || s->gpu_assigned_mem_gib[g] < VIEW_FIT_EPS)
            s->gpu_assigned_mem_gib[g] = 0;
    }
    s->job_active[j] = 0;
    s->view.active_jobs--;
    s->view.version++;
    /* A distributed job's run says little of the job on one node: its all-reduce is in
     * it. It teaches nothing, as a run that shared a GPU does not. */
    if (r->state == JS_DONE &&
        view_source_learn(s->view.src, s->cl, j, s->cl->nodes[s->job_node[j]].type,
                          r->shared || pods > 1 ? NAN : r->end_s - s->job_started_s[j],
                          r->peak_gib))
        s->view.est_version++;
    for (uint32_t k = 0; k < pods; k++)
        controller_index_refresh(s, sim_pod_node(s, j, k));
    policy_call_job_event(s, j, POLICY_JOB_LEARNT);
    if (r->state == JS_KILLED) {
        r->state = JS_BACKOFF;
        s->backoff++;
        eq_push(&s->eq, s->now + backoff_delay(s, sim_failures(s, j)), EV_RETRY, j, r->gen);
    }
    s->dirty = true;
}

void controller_notify_end(struct sim *s, uint32_t j)
{
    if (s->cl->cfg.completion == COMPLETION_EVENT) {
        learn(s, j);
        return;
    }
    if (s->unlearnt == s->unlearnt_cap) /* (a call only when full) */
        cpn_grow((void **)&s->unlearnt_list, &s->unlearnt_cap, s->unlearnt + 1, sizeof(uint32_t));
    s->unlearnt_list[s->unlearnt++] = j;
    if (!s->poll_scheduled) {
        double dt = s->cl->cfg.poll_interval_s;
        /* Once now / dt passes 2^53 the next multiple may round below now. */
        eq_push(&s->eq, fmax((floor(s->now / dt) + 1.0) * dt, s->now), EV_POLL, 0, 0);
        s->poll_scheduled = true;
    }
}

/* ---- scrapes ---- */

/* Copies into the scrape what changed in the truth since the last one. */
void controller_scrape(struct sim *s)
{
    for (size_t i = 0; i < s->n_dirty_gpus; i++) {
        uint32_t g = s->dirty_gpus[i];
        s->scr_gpu_util[g] = s->gpu_util[g];
        s->scr_gpu_mem[g] = s->gpu_mem_gib[g];
        s->gpu_dirty[g] = 0;
    }
    s->n_dirty_gpus = 0;
    for (size_t i = 0; i < s->n_dirty_nodes; i++) {
        uint32_t n = s->dirty_nodes[i];
        s->scr_node_cpu_util[n] = s->node_cpu_util[n];
        s->node_dirty[n] = 0;
    }
    s->view.scrape_time_s = s->now;
    s->view.version++;
    for (size_t i = 0; i < s->n_dirty_nodes; i++)
        index_refresh(s, s->dirty_nodes[i], true);
    s->n_dirty_nodes = 0;
}

void controller_poll(struct sim *s)
{
    s->poll_scheduled = false;
    size_t n = s->unlearnt;
    s->unlearnt = 0;
    for (size_t i = 0; i < n; i++)
        learn(s, s->unlearnt_list[i]);
}


/* ---- set-up ---- */

void controller_init(struct sim *s, const struct predictor *pred)
{
    const struct cluster *cl = s->cl;
    const struct jobset *jobs = s->jobs;
    size_t n = jobs->n, ng = cl->n_gpus, nn = cl->n_nodes, nslots = s->n_slots;
    s->scr_gpu_util = cpn_calloc(ng, sizeof(double));
    s->scr_gpu_mem = cpn_calloc(ng, sizeof(double));
    s->scr_node_cpu_util = cpn_calloc(nn, sizeof(double));
    s->node_cpus_req = cpn_calloc(nn, sizeof(double));
    s->node_mem_req_gib = cpn_calloc(nn, sizeof(double));
    s->gpu_assigned = cpn_calloc(ng, sizeof(uint32_t));
    s->attempts = cpn_calloc(n, sizeof(uint32_t));
    s->queue_next = cpn_malloc((n ? n : 1) * sizeof(uint32_t));
    for (size_t j = 0; j < n; j++)
        s->queue_next[j] = VIEW_NONE;
    s->queue_tail = VIEW_NONE;
    s->gpu_assigned_mem_gib = cpn_calloc(ng, sizeof(double));
    s->job_active = cpn_calloc(n, sizeof(uint8_t));
    s->job_node = cpn_calloc(n, sizeof(uint32_t));
    s->job_placed_s = cpn_calloc(n, sizeof(double));
    s->pred_run_s = cpn_calloc(n, sizeof(double));
    s->alone_run_s = cpn_calloc(n, sizeof(double));
    s->job_started_s = cpn_calloc(n, sizeof(double));
    s->job_gpus = cpn_calloc(nslots, sizeof(uint32_t));
    for (size_t j = 0; j < n; j++) {
        s->job_node[j] = VIEW_NONE;
        s->job_placed_s[j] = s->job_started_s[j] = -1;
        s->pred_run_s[j] = s->alone_run_s[j] = NAN;
    }
    for (size_t e = 0; e < nslots; e++)
        s->job_gpus[e] = VIEW_NONE;
    s->dirty_gpus = cpn_malloc((ng ? ng : 1) * sizeof(uint32_t));
    s->dirty_nodes = cpn_malloc((nn ? nn : 1) * sizeof(uint32_t));
    s->gpu_dirty = cpn_calloc(ng, 1);
    s->node_dirty = cpn_calloc(nn, 1);
    s->site_idle_gpus = cpn_calloc(cl->n_sites, sizeof(uint32_t));
    s->node_idle = cpn_calloc(nn ? nn : 1, sizeof(uint32_t));
    s->node_free_gpus = cpn_calloc(nn ? nn : 1, sizeof(uint32_t));
    s->free_node_bits = cpn_calloc((nn + 63) / 64 + 1, sizeof(uint64_t));
    bool live = cl->cfg.scrape_interval_s <= 0;
    s->view = (struct view){
        .now = 0,
        .cl = cl,
        .n_jobs = n,
        .src = view_source_create(s->cat, jobs, pred, s->net, cl->cfg.learn, cl->cfg.prior_run_s),
        .queue_head = VIEW_NONE,
        .queue_next = s->queue_next,
        .queue_len = 0,
        .attempts = s->attempts,
        .scrape_time_s = 0,
        .node_cpu_util = live ? s->node_cpu_util : s->scr_node_cpu_util,
        .gpu_util = live ? s->gpu_util : s->scr_gpu_util,
        .gpu_mem_used_gib = live ? s->gpu_mem_gib : s->scr_gpu_mem,
        .site_idle_gpus = s->site_idle_gpus,
        .node_cpus_req = s->node_cpus_req,
        .node_mem_req_gib = s->node_mem_req_gib,
        .gpu_assigned = s->gpu_assigned,
        .node_free_gpus = s->node_free_gpus,
        .free_node_bits = s->free_node_bits,
        .gpu_assigned_mem_gib = s->gpu_assigned_mem_gib,
        .active_jobs = 0,
        .job_active = s->job_active,
        .job_node = s->job_node,
        .job_placed_s = s->job_placed_s,
        .job_started_s = s->job_started_s,
        .job_gpu_first = s->slot_first,
        .job_gpus = s->job_gpus,
        .pods_placed = s->gang ? s->gang->placed : NULL,
        .nodeidx = &s->nidx,
    };
    nodeidx_init(&s->nidx, nn);
    controller_index_rebuild(s);
    s->view.cpu_filter = s->pol->cpu_filter && cl->cfg.cpu_filter;
    s->view.params = cluster_policy_params(cl, s->pol);
    if (!s->view.params && s->pol->n_params > 0) { /* a policy not in the registry */
        s->pol_params = cpn_calloc(1, s->pol->params_size);
        param_defaults(s->pol_params, s->pol->params, s->pol->n_params);
        s->view.params = s->pol_params;
    }
}
