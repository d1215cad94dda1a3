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
    r->qprev = s->queue_tail;
    s->queue_next[j] = VIEW_NONE;
    if (s->queue_tail == VIEW_NONE)
        s->view.queue_head = j;
    else
        s->queue_next[s->queue_tail] = j;
    s->queue_tail = j;
    s->view.queue_len++;
    r->state = JS_QUEUED;
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

/* The node index's values for node n, from the view (bookkeeping and scrape). */
static void index_values(struct sim *s, uint32_t n, double *cpu, double *mem, uint32_t *idle)
{
    const struct node *nd = &s->cl->nodes[n];
    *cpu = nd->cpus - s->node_cpus_req[n];
    *mem = nd->mem_gib - s->node_mem_req_gib[n];
    *idle = 0;
    uint32_t free_gpus = 0;
    for (uint32_t g = nd->gpu_first; g < nd->gpu_first + nd->gpu_count; g++) {
        *idle += view_gpu_looks_idle(&s->view, g);
        free_gpus += s->gpu_assigned[g] == 0;
    }
    s->node_free_gpus[n] = free_gpus;
    uint64_t bit = (uint64_t)1 << (n % 64);
    if (free_gpus)
        s->free_node_bits[n / 64] |= bit;
    else
        s->free_node_bits[n / 64] &= ~bit;
}

/* Brings node n's entry of the index up to date (after its bookkeeping or, with live
 * metrics, its GPUs changed). */
void controller_index_refresh(struct sim *s, uint32_t n)
{
    double cpu, mem;
    uint32_t idle;
    index_values(s, n, &cpu, &mem, &idle);
    nodeidx_set(&s->nidx, n, cpu, mem, idle);
    uint32_t site = s->cl->nodes[n].site;
    s->site_idle_gpus[site] = s->site_idle_gpus[site] - s->node_idle[n] + idle;
    s->node_idle[n] = idle;
}

void controller_index_rebuild(struct sim *s)
{
    for (uint32_t n = 0; n < s->cl->n_nodes; n++) {
        double cpu, mem;
        uint32_t idle;
        index_values(s, n, &cpu, &mem, &idle);
        nodeidx_set_leaf(&s->nidx, n, cpu, mem, idle);
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
    double d = c->backoff_base_s * ldexp(1.0, (int)(kills > 60 ? 60 : kills) - 1);
    return d > c->backoff_cap_s ? c->backoff_cap_s : d;
}

/* The controller learns that job j ended: its bookkeeping releases the job; a
 * killed job that may still retry starts its back-off. */
static void learn(struct sim *s, uint32_t j)
{
    struct jobrt *r = &s->rt[j];
    const struct job *jb = &s->jobs->v[j];
    CPN_ASSERT(s->job_active[j]);
    s->node_cpus_req[r->node] -= jb->cpus;
    s->node_mem_req_gib[r->node] -= jb->mem_gib;
    if (s->node_cpus_req[r->node] < SIM_FIT_EPS)
        s->node_cpus_req[r->node] = 0;
    if (s->node_mem_req_gib[r->node] < SIM_FIT_EPS)
        s->node_mem_req_gib[r->node] = 0;
    for (uint32_t k = 0; k < sim_job_nslots(jb); k++) {
        uint32_t g = s->slots[s->slot_first[j] + k].gpu;
        s->gpu_assigned[g]--;
        s->gpu_assigned_mem_gib[g] -= r->bk_mem_gib;
        if (s->gpu_assigned[g] == 0 || s->gpu_assigned_mem_gib[g] < SIM_FIT_EPS)
            s->gpu_assigned_mem_gib[g] = 0;
    }
    s->job_active[j] = 0;
    s->view.active_jobs--;
    s->view.version++;
    controller_index_refresh(s, r->node);
    policy_call_job_event(s, j, POLICY_JOB_LEARNT);
    if (r->state == JS_KILLED) {
        r->state = JS_BACKOFF;
        s->backoff++;
        eq_push(&s->eq, s->now + backoff_delay(s, r->kills), EV_RETRY, j, r->attempts);
    }
    s->dirty = true;
}

void controller_notify_end(struct sim *s, uint32_t j)
{
    if (s->cl->cfg.completion == COMPLETION_EVENT) {
        learn(s, j);
        return;
    }
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
        controller_index_refresh(s, s->dirty_nodes[i]);
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

