/* sim_int: the truth's rates (sim_share.c) and accounting (sim_rate.c), used by the
 * simulation loop and its event handlers (sim.c). Private to those three files: the
 * interface is sim.h. */
#ifndef CPN_SIM_INT_H
#define CPN_SIM_INT_H

#include "sim.h"

#include <stdbool.h>
#include <stdint.h>

/* Accumulates busy core-seconds up to now (before any change of cpu_used_total),
 * from the first submission on, the span the summary divides by. */
void sim_account_cpu(struct sim *s);

/* ---- GPU time-slicing and CPU contention (sim_share.c) ---- */

/* The `changed` of sim_refresh_node when every GPU of the node may have changed. */
#define SIM_ALL_GPUS UINT16_MAX

/* The GPUs of pod k of job j as a mask of its node's GPUs (sim_pod_node; bit i:
 * gpu_first + i). */
uint16_t sim_pod_mask(const struct sim *s, uint32_t j, uint32_t k);

/* The nodes of distributed job j's placed pods, in pod order, in a scratch array that
 * the next call overwrites. */
const uint32_t *sim_gang_nodes(const struct sim *s, uint32_t j);

/* Sets running distributed job j's rate again (its pods' GPU shares and CPU factors,
 * and its all-reduce's share of the WAN), after the network marked it. */
void sim_gang_refresh(struct sim *s, uint32_t j);

/* Job j starts running (its work in work_left_s, its GPUs counted in gpu_running): it
 * joins the share group of its node and GPUs. Call sim_refresh_node next, which
 * pushes the group's END event. */
void sim_share_join(struct sim *s, uint32_t j);

/* Running job j stops: done (it finished its work) or killed. Adds the time it lost
 * to CPU contention to cpu_lost_s and takes it out of its group (freed when empty).
 * Call sim_refresh_node next, once its GPUs no longer count it. */
void sim_share_leave(struct sim *s, uint32_t j, bool done);

/* Brings running job j's cpu_lost_s up to now (at the horizon). */
void sim_share_settle(struct sim *s, uint32_t j);

/* Node n's CPU after its running jobs, their GPU sharing or its background changed:
 * recomputes the jobs' demand, the node's share, the rates of the share groups that
 * hold a GPU of the mask `changed` (all of them when the share moved), pushing their
 * END events again, and what a scrape reads. */
void sim_refresh_node(struct sim *s, uint32_t n, uint16_t changed);

/* Frees the share groups (at sim_destroy). */
void sim_share_free(struct sim *s);

/* ---- accounting (sim_rate.c) ---- */

/* The marks below are inline: every start, peak and end of a job calls them for each
 * of its GPUs, and each is a test and a store or two. */

/* Notes that node n's CPU use changed since the last scrape. */
static inline void sim_mark_node(struct sim *s, uint32_t n)
{
    if (!s->node_dirty[n]) {
        s->node_dirty[n] = 1;
        s->dirty_nodes[s->n_dirty_nodes++] = n;
    }
}

/* The site of GPU g's node. */
static inline uint32_t sim_site_of_gpu(const struct sim *s, uint32_t g)
{
    return s->cl->nodes[s->cl->gpu_node[g]].site;
}

/* Notes that GPU g's utilisation or memory changed since the last scrape. */
static inline void sim_mark_gpu(struct sim *s, uint32_t g)
{
    if (!s->gpu_dirty[g]) {
        s->gpu_dirty[g] = 1;
        s->dirty_gpus[s->n_dirty_gpus++] = g;
    }
    sim_mark_node(s, s->cl->gpu_node[g]);
}

/* Takes gib (a peaked job's memory leaving it) off GPU g's memory and its site's (site:
 * sim_site_of_gpu, which the caller has at hand for all of a pod's GPUs), and marks it
 * for the next scrape. */
void sim_release_gpu_mem(struct sim *s, uint32_t g, uint32_t site, double gib);

/* Accumulates GPU busy time up to t (before any change of busy_gpus). Inline as the
 * marks are: every start and end of a job calls it. */
static inline void sim_account_busy(struct sim *s, double t)
{
    s->st.gpu_busy_integral += (double)s->busy_gpus * (t - s->busy_since_s);
    s->busy_since_s = t;
}

#endif
