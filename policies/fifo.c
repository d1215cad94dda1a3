/* fifo: the baseline of the original controller. Strict arrival order with
 * head-of-line blocking: only the job at the head of the queue is considered, and
 * while it cannot be placed nothing behind it is. The head job goes to the first
 * node (in cluster order) that has enough GPUs that looked idle in the last scrape
 * and whose CPU and memory requests, by the controller's bookkeeping, still fit;
 * it takes the first such GPUs. It does not look at GPU memory or transfer cost,
 * and it does not see placements made since the last scrape: that is how two jobs
 * land on one GPU and run out of memory. The CPU threshold is the engine's filter
 * (cpu_filter below): the node search skips nodes it refuses, so fifo never checks
 * the threshold itself.
 *
 * A job of several pods is placed pod by pod, each as above, as GPUs look idle; while
 * its next pod finds no node, the job waits at the head holding the pods it has
 * placed (no gang semantics: that is how it can wait for ever, docs/distributed.md).
 * A pod never takes a GPU that holds one of the job's pods already.
 *
 * The node is found with the engine's node index (view_first_node), not a scan; a
 * failed search is remembered until the view changes (view.version), so arrivals
 * behind a blocked head cost nothing. */
#include <stdlib.h>

#include "../sim/engine/policy.h"

struct fifo_state {
    uint64_t blocked_version; /* view version of the last failed search */
    uint32_t blocked_job;     /* the head job it failed for, VIEW_NONE for none */
};

static int fifo_init(void **state, const struct view *v, char *err, size_t errlen)
{
    (void)v;
    (void)err;
    (void)errlen;
    struct fifo_state *st = cpn_calloc(1, sizeof *st);
    st->blocked_job = VIEW_NONE;
    *state = st;
    return 0;
}

static void fifo_destroy(void *state) { free(state); }

/* True when GPU g holds one of the pods of queued job j (of gpus GPUs each) placed
 * so far. */
static bool holds_pod(const struct view *v, uint32_t j, uint32_t gpus, uint32_t g)
{
    const uint32_t *held = v->job_gpus + v->job_gpu_first[j];
    for (uint32_t e = 0; e < view_pods_placed(v, j) * gpus; e++)
        if (held[e] == g)
            return true;
    return false;
}

static int fifo_place(void *state, const struct view *v, struct placement *out)
{
    struct fifo_state *st = state;
    uint32_t j = v->queue_head;
    if (j == VIEW_NONE)
        return 0;
    if (st->blocked_job == j && st->blocked_version == v->version)
        return 0;
    const struct view_job jd = view_job(v, j), *jb = &jd;
    if (jb->gpus <= v->cl->max_node_gpus) {
        for (uint32_t n = view_first_node(v, 0, j, jb->gpus); n != VIEW_NONE;
             n = view_first_node(v, n + 1, j, jb->gpus)) {
            const struct node *nd = &v->cl->nodes[n];
            uint32_t k = 0;
            for (uint32_t g = nd->gpu_first; g < nd->gpu_first + nd->gpu_count && k < jb->gpus; g++)
                if (view_gpu_looks_idle(v, g) && !holds_pod(v, j, jb->gpus, g))
                    out->gpu[k++] = g;
            if (k == jb->gpus) {
                out->job = j;
                out->node = n;
                out->ngpus = k;
                return 1;
            }
        }
    }
    /* Blocked: the head waits, and so does everything behind it. */
    st->blocked_job = j;
    st->blocked_version = v->version;
    return 0;
}

const struct policy_ops fifo_policy = {
    .name = "fifo",
    .cpu_filter = true,
    .places_pods = true,
    .summary = "arrival order, head-of-line blocking, first node whose GPUs looked idle in the "
               "last scrape (memory- and transfer-unaware; the baseline)",
    .init = fifo_init,
    .place = fifo_place,
    .destroy = fifo_destroy,
};
