/* view: what the controller knows, and all that a policy may read. The cluster's
 * static description, the submitted jobs, the queue, the last metrics scrape and the
 * controller's own bookkeeping of what it assigned. It never shows the truth except
 * through a scrape (with scrape_interval_s 0 the scrape arrays are the live ones).
 * The engine owns every array; policies only read them. */
#ifndef CPN_VIEW_H
#define CPN_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog.h"
#include "cluster.h"
#include "trace.h"

#define VIEW_NONE UINT32_MAX

struct view {
    double now;
    const struct cluster *cl; /* topology and config (cl->cfg.cpu_threshold, ...) */
    const struct catalog *cat;
    const struct jobset *jobs; /* what was submitted (jobs->v[j]) */

    /* The queue of jobs waiting for a placement, in order of (re-)entry: arrivals and
     * jobs back from an OOM back-off are appended. Iterate with
     * for (j = v->queue_head; j != VIEW_NONE; j = v->queue_next[j]). */
    uint32_t queue_head;
    const uint32_t *queue_next; /* [jobs] */
    size_t queue_len;
    const uint32_t *attempts; /* [jobs]: placements so far of each job */

    /* The last scrape, taken at scrape_time_s. */
    double scrape_time_s;
    const double *node_cpu_util;    /* [nodes] 0..1 */
    const double *gpu_util;         /* [gpus] 0..1: 1 when a job is computing on it */
    const double *gpu_mem_used_gib; /* [gpus] */

    /* Bookkeeping: jobs the controller placed and does not yet know have ended. */
    const double *node_cpus_req;    /* [nodes] CPU cores they requested */
    const double *node_mem_req_gib; /* [nodes] host memory they requested */
    const uint32_t *gpu_assigned;   /* [gpus] how many of them use each GPU */
};

static inline const struct job *view_job(const struct view *v, uint32_t j) { return &v->jobs->v[j]; }

/* True when the node's requested CPU and memory, by the controller's bookkeeping,
 * leave room for job j's requests. */
static inline bool view_node_fits_requests(const struct view *v, uint32_t node, uint32_t j)
{
    const struct node *n = &v->cl->nodes[node];
    const struct job *jb = view_job(v, j);
    return v->node_cpus_req[node] + jb->cpus <= n->cpus + 1e-9 &&
           v->node_mem_req_gib[node] + jb->mem_gib <= n->mem_gib + 1e-9;
}

/* True when the last scrape showed the GPU idle: no utilisation and no memory in use. */
static inline bool view_gpu_looks_idle(const struct view *v, uint32_t gpu)
{
    return v->gpu_util[gpu] <= 0.0 && v->gpu_mem_used_gib[gpu] <= 0.0;
}

/* True when the node's scraped CPU utilisation is below the threshold. */
static inline bool view_node_below_cpu_threshold(const struct view *v, uint32_t node)
{
    return v->node_cpu_util[node] < v->cl->cfg.cpu_threshold;
}

#endif
