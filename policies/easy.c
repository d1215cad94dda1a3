/* easy: EASY backfilling (Lifka 1995; Mu'alem and Feitelson 2001) over arrival order,
 * a reference baseline. The job at the head of the queue starts as soon as it fits.
 * When it does not, it gets a reservation: the node where enough GPUs are predicted
 * to be free soonest (the shadow time; ties: the lowest node index). Jobs behind it
 * may then start now (backfill) on any other node, and on the reserved node only if
 * they are predicted to end by the shadow time or use only GPUs the head will not
 * need then (the extra GPUs). Only the head has a reservation.
 *
 * A job fits a node when the job may run on its GPU type (view_job_runs_on), enough of
 * its GPUs are used by no job of the bookkeeping and hold its predicted peak memory,
 * and its CPU and memory requests fit; it takes the
 * first such node (first fit, as FIFO does) and its lowest-numbered such GPUs. A
 * running job's GPUs are predicted free when the controller expects to learn of its
 * end: start plus predicted run time, rounded up to the next completion poll (one
 * poll interval from now if that has passed). The predicted run time is the
 * controller's estimate now, asked afresh whenever the head is blocked: when the
 * controller has learnt from completed jobs since the job was placed, the new
 * estimate counts. The CPU threshold is the engine's
 * filter (cpu_filter below): the first fit and the backfill search skip nodes it
 * refuses now, while the reservation may name any node. It does not run unseen
 * models alone.
 *
 * Index. Whether a job fits any node now depends only on its shape: GPUs, CPU and
 * memory requests and its predicted per-GPU memory on each GPU type (a GPU no job uses
 * has no assigned memory). Within one scheduling point placements only take
 * resources, so a shape that fits no node fails for the rest of the point; the
 * backfill walk skips later jobs of that shape. Node searches look only at nodes with
 * enough GPUs that no job uses (view_next_free_node, the engine's index), in node
 * order. Shapes come from the estimates, which may change between scheduling points
 * (view.est_version): begin then numbers them afresh for the queued jobs, an O(queue)
 * rebuild only when they changed.
 *
 * Pods. A job of several pods (docs/distributed.md) starts with all its pods or waits:
 * each pod in turn takes the first fit, counting the GPUs, CPU and memory of the pods
 * before it (podfit.h), and every pod's GPUs must hold the job's predicted memory at its
 * largest over the pods' types. A head of P pods of k GPUs reserves the P earliest
 * pod slots: node n offers its m-th pod once m k of its GPUs are predicted free (and its
 * CPU and memory hold m pods); the shadow time is when the P-th earliest slot frees
 * (ties: the lowest node index), and each reserved node's extra GPUs are those free by
 * then less k per pod it holds. A backfilled job's pod may take a reserved node only if
 * the job is predicted to end by the shadow time or the pod fits in that node's extra
 * GPUs (which it then uses up): a job of several pods is predicted to end after the
 * transfers to each of its sites, one after another, plus its run on its slowest pod's
 * type plus its all-reduce (view_allreduce_run_s). A job of one pod behind a head of one
 * pod is judged exactly as before. */
#include <math.h>
#include <stdlib.h>

#include "jobshape.h"
#include "podfit.h"
#include "../sim/engine/policy.h"

/* The head's reservation: the nodes it holds pod slots on, with the GPUs of each that
 * are free by the shadow time and that the head will not need then. */
struct easy_res {
    double shadow;   /* INFINITY: no reservation */
    uint32_t n;      /* nodes reserved */
    uint32_t *node;  /* [max pods] */
    uint32_t *extra; /* [max pods] */
};

struct easy_state {
    uint32_t *active;      /* jobs placed and maybe still running */
    size_t n_active, cap_active;
    double *free_s;        /* [gpus] when each GPU is predicted free */
    /* Shapes: (gpus, cpus, mem_gib, predicted per-GPU memory per type). */
    struct jobshape_table shapes;
    uint32_t *job_shape;   /* [jobs] */
    uint64_t *shape_failed; /* [shapes]: the point at which it last fitted no node */
    size_t n_failed, cap_failed;
    uint64_t point;        /* scheduling points so far (starts at 1) */
    uint64_t est_seen;     /* the view's est_version the shapes were found with */
    struct podfit fit;     /* the pods of a job of several found so far */
    struct easy_res res, left; /* the head's reservation; what a backfill leaves of it */
    double *slot_t;        /* [max pods] a multi-pod head's earliest pod slots: time */
    uint32_t *slot_node;   /*            and node, earliest first */
    uint32_t *pod_nodes;   /* [max pods] scratch: a job's pods' nodes */
};

static int easy_init(void **state, const struct view *v, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    struct easy_state *st = cpn_calloc(1, sizeof *st);
    st->free_s = cpn_calloc(v->cl->n_gpus ? v->cl->n_gpus : 1, sizeof *st->free_s);
    st->job_shape = cpn_calloc(v->n_jobs ? v->n_jobs : 1, sizeof *st->job_shape);
    jobshape_init(&st->shapes, v);
    st->point = 1;
    st->est_seen = v->est_version;
    podfit_init(&st->fit, v);
    size_t np = st->fit.max_pods;
    st->res.node = cpn_calloc(np, sizeof *st->res.node);
    st->res.extra = cpn_calloc(np, sizeof *st->res.extra);
    st->left.node = cpn_calloc(np, sizeof *st->left.node);
    st->left.extra = cpn_calloc(np, sizeof *st->left.extra);
    st->slot_t = cpn_calloc(np, sizeof *st->slot_t);
    st->slot_node = cpn_calloc(np, sizeof *st->slot_node);
    st->pod_nodes = cpn_calloc(np, sizeof *st->pod_nodes);
    *state = st;
    return 0;
}

static void easy_destroy(void *state)
{
    struct easy_state *st = state;
    if (!st)
        return;
    free(st->active);
    free(st->free_s);
    free(st->job_shape);
    free(st->shape_failed);
    jobshape_free(&st->shapes);
    podfit_free(&st->fit);
    free(st->res.node);
    free(st->res.extra);
    free(st->left.node);
    free(st->left.extra);
    free(st->slot_t);
    free(st->slot_node);
    free(st->pod_nodes);
    free(st);
}

/* Predicted free time of every GPU from the jobs running now. */
static void easy_free_times(struct easy_state *st, const struct view *v)
{
    const struct cluster_config *c = &v->cl->cfg;
    double later = v->now + c->poll_interval_s;
    for (size_t g = 0; g < v->cl->n_gpus; g++)
        st->free_s[g] = v->now;
    size_t k = 0;
    for (size_t i = 0; i < st->n_active; i++) {
        uint32_t a = st->active[i];
        if (!v->job_active[a])
            continue;
        st->active[k++] = a;
        struct view_estimate e;
        view_estimate(v, a, v->cl->nodes[v->job_node[a]].type, &e);
        double start = v->job_started_s[a] >= 0
                           ? v->job_started_s[a]
                           : v->job_placed_s[a] + view_transfer_estimate_s(v, a, v->cl->nodes[v->job_node[a]].site);
        uint32_t pods = view_pods_held(v, a);
        double t = start + e.run_s;
        if (pods > 1) { /* (its estimate is on its first pod's type; the all-reduce adds) */
            for (uint32_t q = 0; q < pods; q++)
                st->pod_nodes[q] = view_pod_node(v, a, q);
            t += view_allreduce_run_s(v, a, st->pod_nodes, pods);
        }
        if (c->completion == COMPLETION_POLL)
            t = ceil(t / c->poll_interval_s) * c->poll_interval_s;
        if (t <= v->now)
            t = later;
        for (uint32_t q = 0, ng = pods * view_job(v, a).gpus; q < ng; q++) {
            uint32_t g = v->job_gpus[v->job_gpu_first[a] + q];
            st->free_s[g] = fmax(st->free_s[g], t);
        }
    }
    st->n_active = k;
    for (size_t g = 0; g < v->cl->n_gpus; g++)
        if (v->gpu_assigned[g] && st->free_s[g] <= v->now)
            st->free_s[g] = later; /* busy by the bookkeeping, though no estimate says so */
}

/* Fills *out with job j (its next pod) on node n now if it fits there, besides the
 * pods found so far (st->fit). Returns 1 or 0. */
static int easy_fit_node(const struct easy_state *st, const struct view *v, uint32_t j, uint32_t n,
                         struct placement *out)
{
    const struct node *nd = &v->cl->nodes[n];
    const struct view_job jd = view_job(v, j), *jb = &jd;
    struct view_estimate e;
    if (!podfit_fits_requests(&st->fit, v, n, j) || !jobshape_can_host(v, j, n, &e))
        return 0;
    double gpu_mem = v->cl->types[nd->type].mem_gib;
    uint32_t k = 0;
    for (uint32_t g = nd->gpu_first; g < nd->gpu_first + nd->gpu_count && k < jb->gpus; g++)
        if (podfit_gpu_free(&st->fit, v, g) && e.mem_gib <= gpu_mem - v->gpu_assigned_mem_gib[g])
            out->gpu[k++] = g;
    if (k < jb->gpus)
        return 0;
    out->job = j;
    out->node = n;
    out->ngpus = k;
    return 1;
}

/* The head's reservation: the node where enough GPUs free soonest, that shadow time,
 * and the GPUs of the node free by then that the head will not need. Returns the
 * node, or VIEW_NONE when no node could ever take the head. */
static uint32_t easy_reserve(const struct easy_state *st, const struct view *v, uint32_t head,
                             double *shadow_s, uint32_t *extra)
{
    uint32_t best = VIEW_NONE, k = view_job(v, head).gpus;
    for (uint32_t n = 0; n < v->cl->n_nodes; n++) {
        const struct node *nd = &v->cl->nodes[n];
        struct view_estimate e;
        if (!jobshape_can_host(v, head, n, &e))
            continue;
        /* The k-th smallest free time of the node's GPUs. */
        double t = INFINITY;
        for (uint32_t g = nd->gpu_first; g < nd->gpu_first + nd->gpu_count; g++) {
            uint32_t earlier = 0;
            for (uint32_t h = nd->gpu_first; h < nd->gpu_first + nd->gpu_count; h++)
                earlier += st->free_s[h] < st->free_s[g] || (st->free_s[h] == st->free_s[g] && h < g);
            if (earlier == k - 1)
                t = st->free_s[g];
        }
        if (best == VIEW_NONE || t < *shadow_s) {
            best = n;
            *shadow_s = t;
        }
    }
    if (best == VIEW_NONE)
        return best;
    const struct node *nd = &v->cl->nodes[best];
    uint32_t by_then = 0;
    for (uint32_t g = nd->gpu_first; g < nd->gpu_first + nd->gpu_count; g++)
        by_then += st->free_s[g] <= *shadow_s;
    *extra = by_then - k;
    return best;
}

/* The reservation of a head of several pods (see Pods above) into st->res: the
 * P earliest pod slots over the nodes that could ever take a pod of it. Each node's
 * slots are its m-th pod, free when its m k-th GPU is; a node offers no more pods than
 * its GPUs, CPUs and memory hold. No reservation (shadow INFINITY) when the cluster
 * cannot hold P pods. */
static void easy_reserve_pods(struct easy_state *st, const struct view *v, uint32_t head)
{
    const struct view_job jb = view_job(v, head);
    uint32_t k = jb.gpus, want = jb.pods, have = 0;
    for (uint32_t n = 0; n < v->cl->n_nodes; n++) {
        const struct node *nd = &v->cl->nodes[n];
        struct view_estimate e;
        if (!jobshape_can_host(v, head, n, &e))
            continue;
        double t[CLUSTER_MAX_NODE_GPUS];
        uint32_t ng = nd->gpu_count;
        for (uint32_t q = 0; q < ng; q++) { /* its GPUs' free times, ascending */
            double x = st->free_s[nd->gpu_first + q];
            uint32_t b = q;
            for (; b > 0 && t[b - 1] > x; b--)
                t[b] = t[b - 1];
            t[b] = x;
        }
        uint32_t cap = ng / k;
        if (jb.cpus > 0 && nd->cpus / jb.cpus < cap)
            cap = (uint32_t)(nd->cpus / jb.cpus + VIEW_FIT_EPS);
        if (jb.mem_gib > 0 && nd->mem_gib / jb.mem_gib < cap)
            cap = (uint32_t)(nd->mem_gib / jb.mem_gib + VIEW_FIT_EPS);
        for (uint32_t m = 1; m <= cap; m++) { /* into the earliest `want`, by time then node */
            double x = t[m * k - 1];
            if (have == want && !(x < st->slot_t[want - 1]))
                break;
            uint32_t b = have < want ? have++ : want - 1;
            for (; b > 0 && st->slot_t[b - 1] > x; b--) {
                st->slot_t[b] = st->slot_t[b - 1];
                st->slot_node[b] = st->slot_node[b - 1];
            }
            st->slot_t[b] = x;
            st->slot_node[b] = n;
        }
    }
    struct easy_res *r = &st->res;
    r->n = 0;
    r->shadow = INFINITY;
    if (have < want)
        return;
    r->shadow = st->slot_t[want - 1];
    for (uint32_t i = 0; i < want; i++) {
        uint32_t n = st->slot_node[i], q = 0;
        while (q < r->n && r->node[q] != n)
            q++;
        if (q == r->n) {
            const struct node *nd = &v->cl->nodes[n];
            uint32_t by_then = 0;
            for (uint32_t g = nd->gpu_first; g < nd->gpu_first + nd->gpu_count; g++)
                by_then += st->free_s[g] <= r->shadow;
            r->node[r->n] = n;
            r->extra[r->n++] = by_then;
        }
        r->extra[q] -= k;
    }
}

/* Whether a pod of `gpus` GPUs of a job predicted to end at `end` may start now on node
 * n without delaying the head: n is not reserved, or the job ends by the shadow time,
 * or the pod fits in n's extra GPUs (which it then uses up in *r when take). */
static bool easy_allowed(struct easy_res *r, uint32_t n, double end, uint32_t gpus, bool take)
{
    for (uint32_t i = 0; i < r->n; i++) {
        if (r->node[i] != n)
            continue;
        if (end <= r->shadow)
            return true;
        if (gpus > r->extra[i])
            return false;
        if (take)
            r->extra[i] -= gpus;
        return true;
    }
    return true;
}

static void easy_res_copy(struct easy_res *to, const struct easy_res *from)
{
    to->shadow = from->shadow;
    to->n = from->n;
    for (uint32_t i = 0; i < from->n; i++) {
        to->node[i] = from->node[i];
        to->extra[i] = from->extra[i];
    }
}

/* When job j, whose pods are those found (st->fit), is predicted to end if they start
 * now: its data moves to each of their sites in turn, then it runs at its slowest
 * pod's type, plus its all-reduce between them. */
static double easy_pods_end(struct easy_state *st, const struct view *v, uint32_t j)
{
    double xfer = 0, run = 0;
    for (uint32_t i = 0; i < st->fit.n; i++) {
        const struct node *nd = &v->cl->nodes[st->fit.pod[i].node];
        bool seen = false;
        for (uint32_t q = 0; q < i && !seen; q++)
            seen = v->cl->nodes[st->fit.pod[q].node].site == nd->site;
        if (!seen)
            xfer += view_transfer_estimate_s(v, j, nd->site);
        struct view_estimate e;
        view_estimate(v, j, nd->type, &e);
        run = fmax(run, e.run_s);
    }
    podfit_nodes(&st->fit, st->pod_nodes);
    return v->now + xfer + run + view_allreduce_run_s(v, j, st->pod_nodes, st->fit.n);
}

/* Finds a node for every pod of job j now, each the first fit after the pods before it,
 * and with res also one where the pod does not delay the head (easy_allowed, the job's
 * end checked again once all its pods are found). Returns 1 with the first pod in *out
 * and the others in st->fit, or 0. */
static int easy_fit_pods(struct easy_state *st, const struct view *v, uint32_t j,
                         const struct easy_res *res, struct placement *out)
{
    const struct view_job jb = view_job(v, j);
    if (res)
        easy_res_copy(&st->left, res);
    for (uint32_t p = 0; p < jb.pods; p++) {
        struct placement q;
        int found = 0;
        for (uint32_t n = view_next_free_node(v, 0, jb.gpus); n != VIEW_NONE && !found;
             n = view_next_free_node(v, n + 1, jb.gpus)) {
            if (!easy_fit_node(st, v, j, n, &q))
                continue;
            found = 1;
            if (res) { /* this pod alone: its own transfer and run */
                struct view_estimate e;
                view_estimate(v, j, v->cl->nodes[n].type, &e);
                double end = v->now + view_transfer_estimate_s(v, j, v->cl->nodes[n].site) + e.run_s;
                found = easy_allowed(&st->left, n, end, jb.gpus, true);
            }
        }
        if (!found) {
            podfit_clear(&st->fit);
            return 0;
        }
        podfit_add(&st->fit, v, &q);
    }
    bool ok = podfit_mem_fits(&st->fit, v, j);
    if (ok && res) {
        double end = easy_pods_end(st, v, j);
        easy_res_copy(&st->left, res);
        for (uint32_t i = 0; ok && i < st->fit.n; i++)
            ok = easy_allowed(&st->left, st->fit.pod[i].node, end, jb.gpus, true);
    }
    if (!ok) {
        podfit_clear(&st->fit);
        return 0;
    }
    return podfit_next(&st->fit, out);
}

/* The shape of job j, with room for its failure mark when new. */
static uint32_t easy_shape_of(struct easy_state *st, const struct view *v, uint32_t j)
{
    uint32_t id = jobshape_of(&st->shapes, v, j);
    if (id >= st->n_failed) {
        cpn_grow((void **)&st->shape_failed, &st->cap_failed, id + 1, sizeof *st->shape_failed);
        st->shape_failed[id] = 0;
        st->n_failed = id + 1;
    }
    return id;
}

static int easy_place(void *state, const struct view *v, struct placement *out)
{
    struct easy_state *st = state;
    if (podfit_next(&st->fit, out)) /* the other pods of the job placed last */
        return 1;
    uint32_t head = v->queue_head;
    if (head == VIEW_NONE)
        return 0;
    uint32_t hg = view_job(v, head).gpus, hp = view_job(v, head).pods;
    int placed = 0;
    if (hp > 1)
        placed = easy_fit_pods(st, v, head, NULL, out);
    for (uint32_t n = view_next_free_node(v, 0, hg); hp == 1 && n != VIEW_NONE && !placed;
         n = view_next_free_node(v, n + 1, hg))
        placed = easy_fit_node(st, v, head, n, out);
    if (!placed) {
        easy_free_times(st, v);
        if (hp > 1) {
            easy_reserve_pods(st, v, head);
        } else {
            double shadow = INFINITY;
            uint32_t extra = 0, rn = easy_reserve(st, v, head, &shadow, &extra);
            st->res.shadow = shadow;
            st->res.n = rn != VIEW_NONE;
            st->res.node[0] = rn;
            st->res.extra[0] = extra;
        }
        /* The backfill pass may try the whole queue: a stopped run ends it (view.h). */
        for (uint32_t j = v->queue_next[head]; j != VIEW_NONE && !placed && !view_stopping(v);
             j = v->queue_next[j]) {
            uint32_t s = st->job_shape[j], jg = view_job(v, j).gpus;
            if (st->shape_failed[s] == st->point)
                continue;
            if (view_job(v, j).pods > 1) {
                struct placement q;
                int fits = easy_fit_pods(st, v, j, NULL, &q);
                podfit_clear(&st->fit); /* (that asked only whether its pods fit) */
                if (!fits) /* they fit nowhere now: no job of its shape will */
                    st->shape_failed[s] = st->point;
                else
                    placed = easy_fit_pods(st, v, j, &st->res, out);
                continue;
            }
            int fits = 0;
            for (uint32_t n = view_next_free_node(v, 0, jg); n != VIEW_NONE && !placed;
                 n = view_next_free_node(v, n + 1, jg)) {
                if (!easy_fit_node(st, v, j, n, out))
                    continue;
                fits = 1;
                struct view_estimate e;
                view_estimate(v, j, v->cl->nodes[n].type, &e);
                double end = v->now + view_transfer_estimate_s(v, j, v->cl->nodes[n].site) + e.run_s;
                placed = easy_allowed(&st->res, n, end, jg, false);
            }
            if (!fits) /* fits no node: no job of its shape will until the next point */
                st->shape_failed[s] = st->point;
        }
    }
    if (placed) {
        cpn_grow((void **)&st->active, &st->cap_active, st->n_active + 1, sizeof *st->active);
        st->active[st->n_active++] = out->job;
    }
    return placed;
}

/* A scheduling point begins: when the estimates changed, a queued job's predicted
 * memory, and so its shape, may differ: the shapes are found afresh, in queue order.
 * The failure marks go with the old numbering (they only ever hold within a point). */
static void easy_begin(void *state, const struct view *v)
{
    struct easy_state *st = state;
    if (v->est_version == st->est_seen)
        return;
    jobshape_reset(&st->shapes);
    st->n_failed = 0;
    for (uint32_t j = v->queue_head; j != VIEW_NONE; j = v->queue_next[j])
        st->job_shape[j] = easy_shape_of(st, v, j);
    st->est_seen = v->est_version;
}

static void easy_job_event(void *state, const struct view *v, uint32_t j, enum policy_job_event e)
{
    struct easy_state *st = state;
    if (e == POLICY_JOB_QUEUED)
        st->job_shape[j] = easy_shape_of(st, v, j);
}

/* A scheduling point ends: shapes that failed may fit at the next. */
static double easy_end(void *state, const struct view *v)
{
    (void)v;
    ((struct easy_state *)state)->point++;
    return INFINITY;
}

/* Every queued job's shape is still its shape (the index the skipping relies on), as
 * the estimates give it now. */
static void easy_check(const void *state, const struct view *v)
{
    const struct easy_state *st = state;
    CPN_ASSERT(st->est_seen == v->est_version);
    for (uint32_t j = v->queue_head; j != VIEW_NONE; j = v->queue_next[j])
        jobshape_check(&st->shapes, v, j, st->job_shape[j]);
}

const struct policy_ops easy_policy = {
    .name = "easy",
    .never_overcommits = true,
    .cpu_filter = true,
    .places_pods = true,
    .summary = "EASY backfilling over arrival order: the head job reserves the node that frees "
               "soonest, later jobs start if they do not delay it (first fit)",
    .init = easy_init,
    .begin = easy_begin,
    .place = easy_place,
    .end = easy_end,
    .job_event = easy_job_event,
    .check = easy_check,
    .destroy = easy_destroy,
};
