/* sjf: shortest predicted job first, a reference baseline. At each scheduling point
 * the queue is taken in order of predicted run time (on the fastest node that could
 * take the job; ties in queue order) and every job that fits now is started, so a job
 * that does not fit never blocks the ones behind it. A job goes to the node, among
 * those with enough GPUs that no job of the bookkeeping uses and that hold its
 * predicted peak memory, where it is predicted to finish first (transfer + run; ties:
 * the lowest node index). Its CPU and memory requests must fit. It does not honour the
 * CPU threshold, reserve anything or run unseen models alone; long jobs may starve
 * while shorter ones keep arriving. */
#include <math.h>
#include <stdlib.h>

#include "../sim/util.h"
#include "policy.h"

struct sjf_key {
    double len;
    uint32_t pos, job;
};

struct sjf_state {
    double *len;           /* [jobs] predicted run time on its fastest node; NAN until asked */
    struct sjf_key *order; /* [jobs] this scheduling point's queue, shortest first */
    size_t n_order, next;  /* its length, and the first entry not yet tried */
    bool sorted;           /* order holds this scheduling point's queue */
};

static int sjf_init(void **state, const struct view *v, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    size_t n = v->jobs->n ? v->jobs->n : 1;
    struct sjf_state *st = cpn_calloc(1, sizeof *st);
    st->len = cpn_calloc(n, sizeof *st->len);
    for (size_t j = 0; j < v->jobs->n; j++)
        st->len[j] = NAN;
    st->order = cpn_calloc(n, sizeof *st->order);
    *state = st;
    return 0;
}

static void sjf_destroy(void *state)
{
    struct sjf_state *st = state;
    if (!st)
        return;
    free(st->len);
    free(st->order);
    free(st);
}

/* True when node n could ever take job j; sets its predicted run time and memory. */
static bool sjf_can_host(const struct view *v, uint32_t j, uint32_t n, struct view_estimate *e)
{
    const struct node *nd = &v->cl->nodes[n];
    const struct job *jb = view_job(v, j);
    if (nd->gpu_count < jb->gpus || nd->cpus < jb->cpus || nd->mem_gib < jb->mem_gib)
        return false;
    view_estimate(v, j, n, e);
    return e->mem_gib <= v->cl->types[nd->type].mem_gib;
}

static double sjf_len(struct sjf_state *st, const struct view *v, uint32_t j)
{
    if (isnan(st->len[j])) {
        double best = INFINITY;
        struct view_estimate e;
        for (uint32_t n = 0; n < v->cl->n_nodes; n++)
            if (sjf_can_host(v, j, n, &e) && e.run_s < best)
                best = e.run_s;
        st->len[j] = best;
    }
    return st->len[j];
}

static int sjf_cmp(const void *a, const void *b)
{
    const struct sjf_key *x = a, *y = b;
    if (x->len != y->len)
        return x->len < y->len ? -1 : 1;
    return x->pos < y->pos ? -1 : (x->pos > y->pos);
}

/* Fills *out with job j's place of earliest predicted finish among nodes where it can
 * start now. Returns 1, or 0 when there is none. */
static int sjf_fit(const struct view *v, uint32_t j, struct placement *out)
{
    const struct job *jb = view_job(v, j);
    double best = INFINITY;
    int found = 0;
    for (uint32_t n = 0; n < v->cl->n_nodes; n++) {
        const struct node *nd = &v->cl->nodes[n];
        struct view_estimate e;
        if (!view_node_fits_requests(v, n, j) || !sjf_can_host(v, j, n, &e))
            continue;
        double finish = view_transfer_estimate_s(v, j, nd->site) + e.run_s;
        if (finish >= best)
            continue;
        double gpu_mem = v->cl->types[nd->type].mem_gib;
        uint32_t k = 0, gpu[CLUSTER_MAX_NODE_GPUS];
        for (uint32_t g = nd->gpu_first; g < nd->gpu_first + nd->gpu_count && k < jb->gpus; g++)
            if (v->gpu_assigned[g] == 0 && e.mem_gib <= gpu_mem - v->gpu_assigned_mem_gib[g])
                gpu[k++] = g;
        if (k < jb->gpus)
            continue;
        best = finish;
        found = 1;
        out->job = j;
        out->node = n;
        out->ngpus = k;
        for (uint32_t q = 0; q < k; q++)
            out->gpu[q] = gpu[q];
    }
    return found;
}

static int sjf_place(void *state, const struct view *v, struct placement *out)
{
    struct sjf_state *st = state;
    if (!st->sorted) {
        /* Placing a job only takes resources, so one pass over the order per
         * scheduling point tries every job once. */
        st->n_order = st->next = 0;
        uint32_t pos = 0;
        for (uint32_t j = v->queue_head; j != VIEW_NONE; j = v->queue_next[j], pos++)
            st->order[st->n_order++] = (struct sjf_key){sjf_len(st, v, j), pos, j};
        qsort(st->order, st->n_order, sizeof *st->order, sjf_cmp);
        st->sorted = true;
    }
    while (st->next < st->n_order) {
        uint32_t j = st->order[st->next++].job;
        if (sjf_fit(v, j, out))
            return 1;
    }
    return 0;
}

/* Called at the end of every scheduling point: the next one sorts afresh. */
static double sjf_wakeup(void *state, const struct view *v)
{
    (void)v;
    ((struct sjf_state *)state)->sorted = false;
    return INFINITY;
}

const struct policy_ops sjf_policy = {
    .name = "sjf",
    .never_overcommits = true,
    .summary = "shortest predicted job first, no head-of-line blocking, earliest-finish node "
               "among free GPUs that hold its predicted memory",
    .init = sjf_init,
    .place = sjf_place,
    .wakeup = sjf_wakeup,
    .destroy = sjf_destroy,
};
