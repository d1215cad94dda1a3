/* default: the Kubernetes default scheduler (kube-scheduler) as the grid operator ran
 * it, below a controller that only picks the site.
 *
 * Site. The site with the most GPUs that looked idle in the last scrape (ties: the
 * lowest site index). Every job of one scheduling point goes there, since the scrape
 * does not change in between.
 *
 * Inside the site, kube-scheduler's filter and score (docs/policies.md cites the
 * sources). Filter (NodeResourcesFit): the node's requested CPU and memory, by the
 * controller's bookkeeping, plus the job's must fit its capacity; with
 * gpu_as_resource also nvidia.com/gpu, counted as the node's GPUs that no job of the
 * bookkeeping uses. A node with fewer GPUs than the job uses is filtered out too: the
 * job's container could not start there. Score: LeastAllocated (NodeResourcesFit's
 * default strategy) plus BalancedAllocation, each on CPU and memory with weight 1 and
 * plugin weight 1, in kube-scheduler's integer arithmetic; the best node is bound
 * (kube-scheduler breaks ties at random; here the lowest node index wins, so that runs
 * repeat).
 *
 * GPUs. With gpu_as_resource the device plugin hands the job the lowest-numbered GPUs
 * no job uses. Without it, as in the original deployment, jobs request no GPU: every
 * container sees all the node's GPUs and a training script starts on cuda:0, so a job
 * of k GPUs uses the node's first k GPUs whatever already runs there. Jobs then share
 * GPUs and OOM kills follow.
 *
 * Queue. No head-of-line blocking: each job is tried in queue order; one that fits
 * nowhere is unschedulable. It gets kube-scheduler's per-pod back-off (kube_backoff_s
 * after its first failed attempt, doubling per attempt up to kube_backoff_max_s) and
 * waits in the unschedulable pool until a cluster event that could make it fit (the
 * controller learns that a job ended, or a new scrape may change the site); it is then
 * retried once its back-off has passed. A wake-up is asked for only for such jobs,
 * so a job that can never fit does not keep a deadlocked run alive. A job back from an
 * OOM back-off is a new pod of the Job: its attempts start again from zero. */
#include <math.h>
#include <stdlib.h>

#include "../sim/util.h"
#include "policy.h"

/* kube-scheduler's framework.MaxNodeScore: every score plugin scores 0..100. */
#define DFLT_MAX_NODE_SCORE 100
/* Kubernetes quantities are whole milli-cores and bytes. */
#define DFLT_MILLI_PER_CPU 1000.0
#define DFLT_BYTES_PER_GIB 1073741824.0

struct dflt_state {
    uint32_t *tries;       /* [jobs] failed scheduling attempts of the current pod */
    uint32_t *pod;         /* [jobs] v->attempts when tries was counted: the pod's identity */
    double *backoff_until; /* [jobs] no new attempt before this time */
    uint8_t *parked;       /* [jobs] unschedulable, waiting for a cluster event */
    size_t placed;         /* placements made so far */
    size_t learnt;         /* ends learnt, as of the last scheduling point */
    double scrape_s;       /* time of the scrape seen at the last scheduling point */
    bool in_round;         /* place() was called in this scheduling point */
};

static int dflt_init(void **state, const struct view *v, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    size_t n = v->jobs->n;
    struct dflt_state *st = cpn_calloc(1, sizeof *st);
    st->tries = cpn_calloc(n ? n : 1, sizeof *st->tries);
    st->pod = cpn_calloc(n ? n : 1, sizeof *st->pod);
    st->backoff_until = cpn_calloc(n ? n : 1, sizeof *st->backoff_until);
    st->parked = cpn_calloc(n ? n : 1, sizeof *st->parked);
    st->scrape_s = -1;
    *state = st;
    return 0;
}

static void dflt_destroy(void *state)
{
    struct dflt_state *st = state;
    if (!st)
        return;
    free(st->tries);
    free(st->pod);
    free(st->backoff_until);
    free(st->parked);
    free(st);
}

/* kube-scheduler's calculateBackoffDuration: the initial back-off doubled for each
 * attempt after the first, never above the maximum. */
static double dflt_backoff_s(const struct cluster_config *c, uint32_t tries)
{
    double d = c->kube_backoff_s;
    for (uint32_t i = 1; i < tries; i++) {
        if (d > c->kube_backoff_max_s - d)
            return c->kube_backoff_max_s;
        d += d;
    }
    return d < c->kube_backoff_max_s ? d : c->kube_backoff_max_s;
}

/* leastRequestedScore of least_allocated.go: the unused share of a resource on a
 * 0..100 scale, in integers. */
static int64_t dflt_least_requested(int64_t requested, int64_t capacity)
{
    if (capacity <= 0 || requested > capacity)
        return 0;
    return (capacity - requested) * DFLT_MAX_NODE_SCORE / capacity;
}

/* balancedResourceScorer of balanced_allocation.go for two resources: 100 times one
 * minus the standard deviation of the requested fractions, truncated. */
static int64_t dflt_balanced(int64_t req_a, int64_t cap_a, int64_t req_b, int64_t cap_b)
{
    double f[2];
    size_t k = 0;
    if (cap_a > 0)
        f[k++] = fmin((double)req_a / (double)cap_a, 1.0);
    if (cap_b > 0)
        f[k++] = fmin((double)req_b / (double)cap_b, 1.0);
    double sd = k == 2 ? fabs((f[0] - f[1]) / 2) : 0.0;
    return (int64_t)((1 - sd) * DFLT_MAX_NODE_SCORE);
}

/* The node's score for job j: LeastAllocated + BalancedAllocation, both over the
 * node's requested CPU and memory with the job's added. */
static int64_t dflt_score(const struct view *v, uint32_t n, uint32_t j)
{
    const struct node *nd = &v->cl->nodes[n];
    const struct job *jb = view_job(v, j);
    int64_t cap_cpu = llround(nd->cpus * DFLT_MILLI_PER_CPU);
    int64_t cap_mem = llround(nd->mem_gib * DFLT_BYTES_PER_GIB);
    int64_t req_cpu = llround((v->node_cpus_req[n] + jb->cpus) * DFLT_MILLI_PER_CPU);
    int64_t req_mem = llround((v->node_mem_req_gib[n] + jb->mem_gib) * DFLT_BYTES_PER_GIB);
    int64_t least = (dflt_least_requested(req_cpu, cap_cpu) + dflt_least_requested(req_mem, cap_mem)) / 2;
    /* BalancedAllocation skips pods that request nothing (best-effort pods). */
    int64_t balanced = jb->cpus > 0 || jb->mem_gib > 0 ? dflt_balanced(req_cpu, cap_cpu, req_mem, cap_mem) : 0;
    return least + balanced;
}

/* GPUs of the node no job of the bookkeeping uses: nvidia.com/gpu still allocatable. */
static uint32_t dflt_free_gpus(const struct view *v, const struct node *nd)
{
    uint32_t k = 0;
    for (uint32_t g = nd->gpu_first; g < nd->gpu_first + nd->gpu_count; g++)
        k += v->gpu_assigned[g] == 0;
    return k;
}

/* The site whose GPUs looked idle most in the last scrape; ties to the lowest index. */
static uint32_t dflt_site(const struct view *v)
{
    uint32_t best = 0, best_idle = 0;
    for (uint32_t s = 0; s < v->cl->n_sites; s++) {
        const struct site *si = &v->cl->sites[s];
        uint32_t idle = 0;
        for (uint32_t g = si->gpu_first; g < si->gpu_first + si->gpu_count; g++)
            idle += view_gpu_looks_idle(v, g);
        if (idle > best_idle) {
            best = s;
            best_idle = idle;
        }
    }
    return best;
}

/* Filters and scores the site's nodes for job j and fills *out with the best one.
 * Returns 1, or 0 when no node passes the filter. */
static int dflt_bind(const struct view *v, uint32_t site, uint32_t j, struct placement *out)
{
    const struct site *si = &v->cl->sites[site];
    const struct job *jb = view_job(v, j);
    bool gpu_res = v->cl->cfg.gpu_as_resource;
    uint32_t best = VIEW_NONE;
    int64_t best_score = -1;
    for (uint32_t n = si->node_first; n < si->node_first + si->node_count; n++) {
        const struct node *nd = &v->cl->nodes[n];
        if (nd->gpu_count < jb->gpus || !view_node_fits_requests(v, n, j))
            continue;
        if (gpu_res && dflt_free_gpus(v, nd) < jb->gpus)
            continue;
        int64_t score = dflt_score(v, n, j);
        if (score > best_score) {
            best = n;
            best_score = score;
        }
    }
    if (best == VIEW_NONE)
        return 0;
    const struct node *nd = &v->cl->nodes[best];
    uint32_t k = 0;
    for (uint32_t g = nd->gpu_first; g < nd->gpu_first + nd->gpu_count && k < jb->gpus; g++)
        if (!gpu_res || v->gpu_assigned[g] == 0)
            out->gpu[k++] = g;
    CPN_ASSERT(k == jb->gpus);
    out->job = j;
    out->node = best;
    out->ngpus = k;
    return 1;
}

/* At the first call of a scheduling point: a learnt end or a new scrape is a cluster
 * event that moves every unschedulable job to the back-off queue. */
static void dflt_begin_round(struct dflt_state *st, const struct view *v)
{
    st->in_round = true;
    size_t learnt = st->placed - v->active_jobs;
    bool event = learnt > st->learnt || v->scrape_time_s != st->scrape_s;
    st->learnt = learnt;
    st->scrape_s = v->scrape_time_s;
    for (uint32_t j = v->queue_head; j != VIEW_NONE; j = v->queue_next[j]) {
        if (st->pod[j] != v->attempts[j]) { /* a new pod: back from an OOM back-off */
            st->pod[j] = v->attempts[j];
            st->tries[j] = 0;
            st->backoff_until[j] = 0;
            st->parked[j] = 0;
        } else if (event) {
            st->parked[j] = 0;
        }
    }
}

static int dflt_place(void *state, const struct view *v, struct placement *out)
{
    struct dflt_state *st = state;
    if (!st->in_round)
        dflt_begin_round(st, v);
    uint32_t site = dflt_site(v);
    for (uint32_t j = v->queue_head; j != VIEW_NONE; j = v->queue_next[j]) {
        if (st->parked[j] || st->backoff_until[j] > v->now)
            continue;
        if (dflt_bind(v, site, j, out)) {
            st->placed++;
            return 1;
        }
        st->tries[j]++;
        st->backoff_until[j] = v->now + dflt_backoff_s(&v->cl->cfg, st->tries[j]);
        st->parked[j] = 1;
    }
    return 0;
}

/* Ends the scheduling point; asks to be called when the first job in the back-off
 * queue may be retried. */
static double dflt_wakeup(void *state, const struct view *v)
{
    struct dflt_state *st = state;
    st->in_round = false;
    double t = INFINITY;
    for (uint32_t j = v->queue_head; j != VIEW_NONE; j = v->queue_next[j])
        if (!st->parked[j] && st->pod[j] == v->attempts[j] && st->backoff_until[j] > v->now &&
            st->backoff_until[j] < t)
            t = st->backoff_until[j];
    return t;
}

const struct policy_ops default_policy = {
    .name = "default",
    .summary = "Kubernetes default scheduler in the site with the most idle GPUs: filter on "
               "requests, LeastAllocated + BalancedAllocation, back-off, no head-of-line blocking",
    .init = dflt_init,
    .place = dflt_place,
    .wakeup = dflt_wakeup,
    .destroy = dflt_destroy,
};
