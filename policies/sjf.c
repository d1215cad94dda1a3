/* sjf: shortest predicted job first, a reference baseline. At each scheduling point
 * the queue is taken in order of predicted run time (on the fastest node that could
 * take the job; ties in queue order) and every job that fits now is started, so a job
 * that does not fit never blocks the ones behind it. A job goes to the node, among
 * those with enough GPUs that no job of the bookkeeping uses and that hold its
 * predicted peak memory, of a GPU type it may run on (view_job_runs_on), where it is
 * predicted to finish first (transfer + run; ties: the lowest node index). Its CPU and
 * memory requests must fit. The CPU threshold is the engine's filter (cpu_filter
 * below): the node search skips nodes it refuses. It does not reserve anything or run
 * unseen models alone; long jobs may starve while shorter ones keep arriving.
 *
 * Index. Whether a job fits anywhere depends only on its shape: GPUs, CPU and memory
 * requests and its predicted per-GPU memory on each GPU type (a GPU no job uses has no
 * assigned memory, so it holds the job exactly when the type does). Within one
 * scheduling point placements only take resources, so a shape that fails once fails
 * for the rest of the point, and so does every queued job of that shape. The queue is
 * therefore kept in shapes, each a heap of its jobs by (run time, order of entry); at
 * a scheduling point a heap of the shapes by their first job replays the walk of the
 * whole queue in order, testing each shape at most once per failure. The node search
 * looks only at nodes with enough GPUs that no job uses (view_next_free_node, the
 * engine's index), in node order, as the walk over every node did. Lengths and shapes
 * come from the estimates, which may change between scheduling points as the
 * controller learns (view.est_version): begin then numbers the shapes afresh and
 * re-keys the queued jobs in queue order, an O(queue) rebuild only when they changed.
 *
 * Pods. A job of several pods (docs/distributed.md) starts with all its pods or waits:
 * each pod in turn goes where a job of one pod would, counting the GPUs, CPU and memory
 * of the pods before it (podfit.h: a node takes several when it has room); if one finds
 * no node, or a pod's GPUs would not hold the job's predicted memory at its largest over
 * the pods' types, the job does not fit now, as a job of one pod that fits nowhere, and
 * its shape (which counts pods) is skipped for the rest of the point. Otherwise the
 * pods are placed in consecutive place calls. The all-reduce between pods is not
 * weighed (optimal weighs it). */
#include <math.h>
#include <stdlib.h>

#include "jobshape.h"
#include "podfit.h"
#include "../sim/engine/policy.h"

struct sjf_key {
    double len;
    uint64_t seq;
    uint32_t job;
};

/* The queued jobs of one shape (jobshape.h). */
struct sjf_shape {
    struct heap heap; /* its queued jobs (sjf_key), shortest (then earliest queued) first */
};

struct sjf_state {
    uint64_t est_seen;      /* the view's est_version the queue was keyed by */
    /* Nodes deduplicated by what decides whether they could ever host a job. */
    uint32_t *hclass_node;  /* a node of each such class */
    size_t n_hclass;
    struct jobshape_table table;
    struct sjf_shape *shapes; /* [shapes], numbered by the table */
    size_t n_shapes, cap_shapes;
    uint32_t *job_shape;    /* [jobs] */
    uint64_t seq;           /* entries into the queue so far: queue order */
    struct heap ready;      /* this point's shapes (uint32_t) by their first job */
    double *type_run, *site_tr; /* per-search caches of one job's estimates */
    double *tmp_mem;        /* [types] per-search cache of one job's predicted memory */
    struct podfit fit;      /* the pods of a job of several found so far */
};

static int sjf_init(void **state, const struct view *v, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    const struct cluster *cl = v->cl;
    size_t n = v->n_jobs ? v->n_jobs : 1, nn = cl->n_nodes ? cl->n_nodes : 1;
    size_t nt = cl->n_types ? cl->n_types : 1, ns = cl->n_sites ? cl->n_sites : 1;
    struct sjf_state *st = cpn_calloc(1, sizeof *st);
    st->est_seen = v->est_version;
    st->job_shape = cpn_calloc(n, sizeof *st->job_shape);
    st->hclass_node = cpn_calloc(nn, sizeof *st->hclass_node);
    for (uint32_t i = 0; i < cl->n_nodes; i++) {
        const struct node *a = &cl->nodes[i];
        size_t c = 0;
        for (; c < st->n_hclass; c++) {
            const struct node *b = &cl->nodes[st->hclass_node[c]];
            if (a->gpu_count == b->gpu_count && a->cpus == b->cpus && a->mem_gib == b->mem_gib &&
                a->type == b->type)
                break;
        }
        if (c == st->n_hclass)
            st->hclass_node[st->n_hclass++] = i;
    }
    jobshape_init(&st->table, v);
    st->type_run = cpn_calloc(nt, sizeof *st->type_run);
    st->site_tr = cpn_calloc(ns, sizeof *st->site_tr);
    st->tmp_mem = cpn_calloc(nt, sizeof *st->tmp_mem);
    podfit_init(&st->fit, v);
    *state = st;
    return 0;
}

static void sjf_destroy(void *state)
{
    struct sjf_state *st = state;
    if (!st)
        return;
    for (size_t s = 0; s < st->n_shapes; s++)
        heap_free(&st->shapes[s].heap);
    free(st->shapes);
    jobshape_free(&st->table);
    free(st->job_shape);
    heap_free(&st->ready);
    free(st->hclass_node);
    free(st->type_run);
    free(st->site_tr);
    free(st->tmp_mem);
    podfit_free(&st->fit);
    free(st);
}

/* Job j's predicted run time on its fastest node that could take it, INFINITY when
 * none could. Nodes alike in GPU count, CPUs, memory and GPU type give the same
 * answer, so one of each class stands for all. Asked when the job enters the queue
 * and again when the estimates change, never cached: a job back from an OOM back-off
 * is keyed by the estimates of then. */
static double sjf_len(const struct sjf_state *st, const struct view *v, uint32_t j)
{
    double best = INFINITY;
    struct view_estimate e;
    for (size_t c = 0; c < st->n_hclass; c++)
        if (jobshape_can_host(v, j, st->hclass_node[c], &e) && e.run_s < best)
            best = e.run_s;
    return best;
}

static bool sjf_key_less(const void *a, const void *b, const void *ctx)
{
    const struct sjf_key *x = a, *y = b;
    (void)ctx;
    if (x->len != y->len)
        return x->len < y->len;
    return x->seq < y->seq;
}

/* The shape of job j, with an empty heap of jobs when new. */
static uint32_t sjf_shape_of(struct sjf_state *st, const struct view *v, uint32_t j)
{
    uint32_t id = jobshape_of(&st->table, v, j);
    if (id >= st->n_shapes) {
        cpn_grow((void **)&st->shapes, &st->cap_shapes, id + 1, sizeof *st->shapes);
        st->shapes[id] = (struct sjf_shape){0};
        st->n_shapes = id + 1;
        heap_reserve(&st->ready, st->n_shapes, sizeof(uint32_t));
    }
    return id;
}

static const struct heap_ops sjf_key_ops = {.size = sizeof(struct sjf_key), .less = sjf_key_less};

/* The shape's first job (the shape must have one). */
static const struct sjf_key *sjf_first(const struct sjf_shape *s)
{
    return heap_at(&s->heap, &sjf_key_ops, 0);
}

/* Shapes by their first jobs; the context is the state. */
static bool sjf_ready_less(const void *a, const void *b, const void *ctx)
{
    const struct sjf_state *st = ctx;
    return sjf_key_less(sjf_first(&st->shapes[*(const uint32_t *)a]),
                        sjf_first(&st->shapes[*(const uint32_t *)b]), NULL);
}

static const struct heap_ops sjf_ready_ops = {.size = sizeof(uint32_t), .less = sjf_ready_less};

/* Fills *out with job j's place (of its next pod) of earliest predicted finish among
 * nodes where it can start now, besides the pods found so far (st->fit). Returns 1, or
 * 0 when there is none. Nodes with no GPU free are skipped: they cannot take a job that
 * needs one. */
static int sjf_fit(struct sjf_state *st, const struct view *v, uint32_t j, struct placement *out)
{
    const struct view_job jd = view_job(v, j), *jb = &jd;
    double best = INFINITY;
    int found = 0;
    for (size_t t = 0; t < v->cl->n_types; t++)
        st->type_run[t] = NAN;
    for (size_t s = 0; s < v->cl->n_sites; s++)
        st->site_tr[s] = NAN;
    for (uint32_t n = view_next_free_node(v, 0, jb->gpus); n != VIEW_NONE;
         n = view_next_free_node(v, n + 1, jb->gpus)) {
        const struct node *nd = &v->cl->nodes[n];
        if (!podfit_fits_requests(&st->fit, v, n, j))
            continue;
        if (nd->gpu_count < jb->gpus || nd->cpus < jb->cpus || nd->mem_gib < jb->mem_gib)
            continue;
        if (nd->gpu_count > 0 && !view_job_runs_on(v, j, nd->type))
            continue;
        double gpu_mem = v->cl->types[nd->type].mem_gib;
        double e_mem;
        if (isnan(st->type_run[nd->type])) {
            struct view_estimate e;
            view_estimate(v, j, nd->type, &e);
            st->type_run[nd->type] = e.run_s;
            st->tmp_mem[nd->type] = e.mem_gib;
        }
        e_mem = st->tmp_mem[nd->type];
        if (!(e_mem <= gpu_mem))
            continue;
        if (isnan(st->site_tr[nd->site]))
            st->site_tr[nd->site] = view_transfer_estimate_s(v, j, nd->site);
        double finish = st->site_tr[nd->site] + st->type_run[nd->type];
        if (finish >= best)
            continue;
        uint32_t k = 0, gpu[CLUSTER_MAX_NODE_GPUS];
        for (uint32_t g = nd->gpu_first; g < nd->gpu_first + nd->gpu_count && k < jb->gpus; g++)
            if (podfit_gpu_free(&st->fit, v, g) && e_mem <= gpu_mem - v->gpu_assigned_mem_gib[g])
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

/* Fills *out with job j's first pod when all its pods fit now (each where sjf_fit puts
 * it, after the ones before it), the others waiting in st->fit. Returns 1, or 0 when
 * the job does not fit now. */
static int sjf_fit_job(struct sjf_state *st, const struct view *v, uint32_t j, struct placement *out)
{
    uint32_t pods = view_job(v, j).pods;
    if (pods == 1)
        return sjf_fit(st, v, j, out);
    struct placement p;
    for (uint32_t k = 0; k < pods; k++) {
        if (!sjf_fit(st, v, j, &p)) {
            podfit_clear(&st->fit);
            return 0;
        }
        podfit_add(&st->fit, v, &p);
    }
    if (!podfit_mem_fits(&st->fit, v, j)) {
        podfit_clear(&st->fit);
        return 0;
    }
    return podfit_next(&st->fit, out);
}

/* Job j enters its shape's heap, after every job queued before it. */
static void sjf_enqueue(struct sjf_state *st, const struct view *v, uint32_t j)
{
    uint32_t s = sjf_shape_of(st, v, j);
    st->job_shape[j] = s;
    struct sjf_key key = {sjf_len(st, v, j), st->seq++, j};
    heap_push(&st->shapes[s].heap, &sjf_key_ops, NULL, &key);
}

/* The estimates changed: a queued job's length and shape may differ, so the shapes are
 * numbered afresh and the queue re-keyed, in queue order (the order of entry, so ties
 * keep their order). O(queue). */
static void sjf_rebuild(struct sjf_state *st, const struct view *v)
{
    for (size_t s = 0; s < st->n_shapes; s++)
        heap_free(&st->shapes[s].heap);
    st->n_shapes = 0;
    jobshape_reset(&st->table);
    for (uint32_t j = v->queue_head; j != VIEW_NONE; j = v->queue_next[j])
        sjf_enqueue(st, v, j);
    st->est_seen = v->est_version;
}

/* A scheduling point begins: the queue is re-keyed if the estimates changed, and the
 * walk starts afresh over the shapes with queued jobs. */
static void sjf_begin(void *state, const struct view *v)
{
    struct sjf_state *st = state;
    if (v->est_version != st->est_seen)
        sjf_rebuild(st, v);
    st->ready.n = 0;
    for (uint32_t s = 0; s < st->n_shapes; s++)
        if (st->shapes[s].heap.n)
            ((uint32_t *)st->ready.v)[st->ready.n++] = s;
    heap_heapify(&st->ready, &sjf_ready_ops, st);
}

static int sjf_place(void *state, const struct view *v, struct placement *out)
{
    struct sjf_state *st = state;
    if (podfit_next(&st->fit, out)) /* the other pods of the job placed last */
        return 1;
    while (st->ready.n && !view_stopping(v)) { /* each shape may cost a pass over the nodes */
        uint32_t s = *(const uint32_t *)heap_at(&st->ready, &sjf_ready_ops, 0);
        struct sjf_shape *sh = &st->shapes[s];
        if (sjf_fit_job(st, v, sjf_first(sh)->job, out)) {
            heap_pop(&sh->heap, &sjf_key_ops, NULL, NULL);
            if (sh->heap.n) /* its first job is another: it moves down */
                heap_replace(&st->ready, &sjf_ready_ops, st, 0, &s);
            else
                heap_pop(&st->ready, &sjf_ready_ops, st, NULL);
            return 1;
        }
        /* No job of this shape fits anywhere until the next scheduling point. */
        heap_pop(&st->ready, &sjf_ready_ops, st, NULL);
    }
    return 0;
}

static void sjf_job_event(void *state, const struct view *v, uint32_t j, enum policy_job_event e)
{
    struct sjf_state *st = state;
    if (e == POLICY_JOB_QUEUED)
        sjf_enqueue(st, v, j);
}

/* The shapes' heaps hold exactly the queued jobs, each under its own shape and keyed
 * by its length as the estimates give it now, in heap order. */
static void sjf_check(const void *state, const struct view *v)
{
    const struct sjf_state *st = state;
    size_t held = 0;
    CPN_ASSERT(st->est_seen == v->est_version);
    for (uint32_t s = 0; s < st->n_shapes; s++) {
        const struct sjf_shape *sh = &st->shapes[s];
        for (size_t k = 0; k < sh->heap.n; k++) {
            const struct sjf_key *e = heap_at(&sh->heap, &sjf_key_ops, k);
            CPN_ASSERT(st->job_shape[e->job] == s && e->len == sjf_len(st, v, e->job));
            CPN_ASSERT(k == 0 || !sjf_key_less(e, heap_at(&sh->heap, &sjf_key_ops, (k - 1) / 2), NULL));
        }
        held += sh->heap.n;
    }
    /* (A job whose pods a stopped run left half placed is in no heap.) */
    CPN_ASSERT(held + podfit_pending(&st->fit) == v->queue_len);
    for (uint32_t j = v->queue_head; j != VIEW_NONE; j = v->queue_next[j])
        jobshape_check(&st->table, v, j, st->job_shape[j]);
}

const struct policy_ops sjf_policy = {
    .name = "sjf",
    .never_overcommits = true,
    .cpu_filter = true,
    .places_pods = true,
    .summary = "shortest predicted job first, no head-of-line blocking, earliest-finish node "
               "among free GPUs that hold its predicted memory",
    .init = sjf_init,
    .begin = sjf_begin,
    .place = sjf_place,
    .job_event = sjf_job_event,
    .check = sjf_check,
    .destroy = sjf_destroy,
};
