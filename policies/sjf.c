/* sjf: shortest predicted job first, a reference baseline. At each scheduling point
 * the queue is taken in order of predicted run time (on the fastest node that could
 * take the job; ties in queue order) and every job that fits now is started, so a job
 * that does not fit never blocks the ones behind it. A job goes to the node, among
 * those with enough GPUs that no job of the bookkeeping uses and that hold its
 * predicted peak memory, where it is predicted to finish first (transfer + run; ties:
 * the lowest node index). Its CPU and memory requests must fit. It does not honour the
 * CPU threshold, reserve anything or run unseen models alone; long jobs may starve
 * while shorter ones keep arriving.
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
 * engine's index), in node order, as the walk over every node did. */
#include <math.h>
#include <stdlib.h>

#include "jobshape.h"
#include "../sim/engine/policy.h"

struct sjf_key {
    double len;
    uint64_t seq;
    uint32_t job;
};

/* The queued jobs of one shape (jobshape.h). */
struct sjf_shape {
    struct sjf_key *heap; /* its queued jobs, shortest (then earliest queued) first */
    size_t n, cap;
};

struct sjf_state {
    double *len;            /* [jobs] predicted run time on its fastest node; NAN until asked */
    /* Nodes deduplicated by what decides whether they could ever host a job. */
    uint32_t *hclass_node;  /* a node of each such class */
    size_t n_hclass;
    struct jobshape_table table;
    struct sjf_shape *shapes; /* [shapes], numbered by the table */
    size_t n_shapes, cap_shapes;
    uint32_t *job_shape;    /* [jobs] */
    uint64_t seq;           /* entries into the queue so far: queue order */
    uint32_t *ready;        /* this point's heap of shapes by their first job */
    size_t n_ready;
    double *type_run, *site_tr; /* per-search caches of one job's estimates */
    double *tmp_mem;        /* [types] per-search cache of one job's predicted memory */
};

static int sjf_init(void **state, const struct view *v, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    const struct cluster *cl = v->cl;
    size_t n = v->n_jobs ? v->n_jobs : 1, nn = cl->n_nodes ? cl->n_nodes : 1;
    size_t nt = cl->n_types ? cl->n_types : 1, ns = cl->n_sites ? cl->n_sites : 1;
    struct sjf_state *st = cpn_calloc(1, sizeof *st);
    st->len = cpn_calloc(n, sizeof *st->len);
    for (size_t j = 0; j < v->n_jobs; j++)
        st->len[j] = NAN;
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
    st->ready = cpn_calloc(1, sizeof *st->ready);
    st->type_run = cpn_calloc(nt, sizeof *st->type_run);
    st->site_tr = cpn_calloc(ns, sizeof *st->site_tr);
    st->tmp_mem = cpn_calloc(nt, sizeof *st->tmp_mem);
    *state = st;
    return 0;
}

static void sjf_destroy(void *state)
{
    struct sjf_state *st = state;
    if (!st)
        return;
    for (size_t s = 0; s < st->n_shapes; s++)
        free(st->shapes[s].heap);
    free(st->shapes);
    jobshape_free(&st->table);
    free(st->job_shape);
    free(st->ready);
    free(st->len);
    free(st->hclass_node);
    free(st->type_run);
    free(st->site_tr);
    free(st->tmp_mem);
    free(st);
}

/* True when node n could ever take job j; sets its predicted run time and memory. */
static bool sjf_can_host(const struct view *v, uint32_t j, uint32_t n, struct view_estimate *e)
{
    const struct node *nd = &v->cl->nodes[n];
    const struct view_job *jb = view_job(v, j);
    if (nd->gpu_count < jb->gpus || nd->cpus < jb->cpus || nd->mem_gib < jb->mem_gib)
        return false;
    view_estimate(v, j, nd->type, e);
    return e->mem_gib <= v->cl->types[nd->type].mem_gib;
}

/* Nodes alike in GPU count, CPUs, memory and GPU type give the same answer, so one of
 * each class stands for all. */
static double sjf_len(struct sjf_state *st, const struct view *v, uint32_t j)
{
    if (isnan(st->len[j])) {
        double best = INFINITY;
        struct view_estimate e;
        for (size_t c = 0; c < st->n_hclass; c++)
            if (sjf_can_host(v, j, st->hclass_node[c], &e) && e.run_s < best)
                best = e.run_s;
        st->len[j] = best;
    }
    return st->len[j];
}

static bool sjf_key_less(const struct sjf_key *x, const struct sjf_key *y)
{
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
        free(st->ready);
        st->ready = cpn_calloc(st->n_shapes, sizeof *st->ready);
    }
    return id;
}

static void sjf_heap_push(struct sjf_shape *s, struct sjf_key key)
{
    cpn_grow((void **)&s->heap, &s->cap, s->n + 1, sizeof *s->heap);
    size_t i = s->n++;
    while (i > 0 && sjf_key_less(&key, &s->heap[(i - 1) / 2])) {
        s->heap[i] = s->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    s->heap[i] = key;
}

static void sjf_heap_pop(struct sjf_shape *s)
{
    struct sjf_key last = s->heap[--s->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= s->n)
            break;
        if (c + 1 < s->n && sjf_key_less(&s->heap[c + 1], &s->heap[c]))
            c++;
        if (!sjf_key_less(&s->heap[c], &last))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    if (s->n)
        s->heap[i] = last;
}

static bool sjf_ready_less(const struct sjf_state *st, uint32_t a, uint32_t b)
{
    return sjf_key_less(&st->shapes[a].heap[0], &st->shapes[b].heap[0]);
}

static void sjf_ready_down(struct sjf_state *st, size_t i)
{
    uint32_t x = st->ready[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= st->n_ready)
            break;
        if (c + 1 < st->n_ready && sjf_ready_less(st, st->ready[c + 1], st->ready[c]))
            c++;
        if (!sjf_ready_less(st, st->ready[c], x))
            break;
        st->ready[i] = st->ready[c];
        i = c;
    }
    st->ready[i] = x;
}

/* Fills *out with job j's place of earliest predicted finish among nodes where it can
 * start now. Returns 1, or 0 when there is none. Nodes with no GPU free are skipped:
 * they cannot take a job that needs one. */
static int sjf_fit(struct sjf_state *st, const struct view *v, uint32_t j, struct placement *out)
{
    const struct view_job *jb = view_job(v, j);
    double best = INFINITY;
    int found = 0;
    for (size_t t = 0; t < v->cl->n_types; t++)
        st->type_run[t] = NAN;
    for (size_t s = 0; s < v->cl->n_sites; s++)
        st->site_tr[s] = NAN;
    for (uint32_t n = view_next_free_node(v, 0, jb->gpus); n != VIEW_NONE;
         n = view_next_free_node(v, n + 1, jb->gpus)) {
        const struct node *nd = &v->cl->nodes[n];
        if (!view_node_fits_requests(v, n, j))
            continue;
        if (nd->gpu_count < jb->gpus || nd->cpus < jb->cpus || nd->mem_gib < jb->mem_gib)
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
            if (v->gpu_assigned[g] == 0 && e_mem <= gpu_mem - v->gpu_assigned_mem_gib[g])
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

/* A scheduling point begins: the walk starts afresh over the shapes with queued jobs. */
static void sjf_begin(void *state, const struct view *v)
{
    (void)v;
    struct sjf_state *st = state;
    st->n_ready = 0;
    for (uint32_t s = 0; s < st->n_shapes; s++)
        if (st->shapes[s].n)
            st->ready[st->n_ready++] = s;
    for (size_t i = st->n_ready / 2; i-- > 0;)
        sjf_ready_down(st, i);
}

static int sjf_place(void *state, const struct view *v, struct placement *out)
{
    struct sjf_state *st = state;
    while (st->n_ready) {
        uint32_t s = st->ready[0];
        struct sjf_shape *sh = &st->shapes[s];
        if (sjf_fit(st, v, sh->heap[0].job, out)) {
            sjf_heap_pop(sh);
            if (sh->n)
                sjf_ready_down(st, 0);
            else {
                st->ready[0] = st->ready[--st->n_ready];
                sjf_ready_down(st, 0);
            }
            return 1;
        }
        /* No job of this shape fits anywhere until the next scheduling point. */
        st->ready[0] = st->ready[--st->n_ready];
        if (st->n_ready)
            sjf_ready_down(st, 0);
    }
    return 0;
}

static void sjf_job_event(void *state, const struct view *v, uint32_t j, enum policy_job_event e)
{
    struct sjf_state *st = state;
    if (e == POLICY_JOB_QUEUED) {
        uint32_t s = sjf_shape_of(st, v, j);
        st->job_shape[j] = s;
        sjf_heap_push(&st->shapes[s], (struct sjf_key){sjf_len(st, v, j), st->seq++, j});
    }
}

/* The shapes' heaps hold exactly the queued jobs, each under its own shape, in heap
 * order. */
static void sjf_check(const void *state, const struct view *v)
{
    const struct sjf_state *st = state;
    size_t held = 0;
    for (uint32_t s = 0; s < st->n_shapes; s++) {
        const struct sjf_shape *sh = &st->shapes[s];
        for (size_t k = 0; k < sh->n; k++) {
            CPN_ASSERT(st->job_shape[sh->heap[k].job] == s);
            CPN_ASSERT(k == 0 || !sjf_key_less(&sh->heap[k], &sh->heap[(k - 1) / 2]));
        }
        held += sh->n;
    }
    CPN_ASSERT(held == v->queue_len);
    for (uint32_t j = v->queue_head; j != VIEW_NONE; j = v->queue_next[j])
        jobshape_check(&st->table, v, j, st->job_shape[j]);
}

const struct policy_ops sjf_policy = {
    .name = "sjf",
    .never_overcommits = true,
    .summary = "shortest predicted job first, no head-of-line blocking, earliest-finish node "
               "among free GPUs that hold its predicted memory",
    .init = sjf_init,
    .begin = sjf_begin,
    .place = sjf_place,
    .job_event = sjf_job_event,
    .check = sjf_check,
    .destroy = sjf_destroy,
};
