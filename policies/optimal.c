/* optimal: the optimal-allocation policy. At each scheduling point where the cluster
 * changed it builds a plan for the queue from the predictor's estimates and starts the
 * jobs the plan starts now; the rest stay queued and are planned again at the next
 * such point (a job is never dropped).
 *
 * Estimates. For job j on node n: run = predicted run time alone on n's GPU type,
 * transfer = the network's estimate of moving j's image and data to n's site, and
 * finish = start + transfer + run. A GPU is predicted free when the controller expects
 * to learn that its jobs ended: each running job's start plus its predicted run time,
 * rounded up to the next completion poll; a job already past that is expected within
 * one more poll interval.
 *
 * Slots. A job gets GPUs of its own: time-slicing two jobs costs about 9% of the
 * throughput (the co-location measurements), so sharing never finishes work sooner
 * than running the jobs one after the other. Its predicted peak memory must fit what
 * is free on each GPU as the controller knows it (GPU memory minus gpu_assigned_mem_gib),
 * so with exact predictions it never causes an OOM kill. Nodes the controller's CPU
 * filter refuses (scraped utilisation at or above cpu_threshold: view_node_eligible)
 * take no job until a scrape shows them below it.
 *
 * CPU. A job's run on a node is its predicted run alone times the slowdown the scrape
 * predicts there (view_cpu_slowdown: the busy cores the scrape saw, plus what this
 * scheduling point placed there, plus the job's predicted demand, over the node's
 * cores, when that exceeds 1; docs/cpu.md). It only lengthens a run, so the group
 * bounds below, computed without it, stay bounds.
 *
 * Plan. Jobs are taken in the configured order (optimal_order: by default largest
 * predicted GPU-time first, i.e. run time on the fastest node that could take the job
 * times its GPUs; docs/policies.md measures the alternatives) and each goes to the
 * node where it is predicted to finish first, now or later: this is list scheduling
 * with earliest-finish node choice, so a long job waits for a fast GPU rather than
 * take a slow one that would finish later. A job planned for later holds its GPUs
 * from its planned start; a job further down the order may start now on such a GPU
 * only if it is predicted to end before that start, so it never delays the plan.
 *
 * Reservations. A job of at least reserve_min_gpus GPUs that has waited
 * reserve_after_s since it was submitted is planned before all others, oldest first:
 * unless it can start now and finish no later, it reserves GPUs on the node where the
 * predictor says it would finish first once enough GPUs free there, after the
 * reservations made before it (on identical nodes this is the node that frees
 * soonest; on mixed ones a node that frees a little sooner but runs the job ten times
 * slower is not chosen). A job keeps its node unless another is strictly better. Other
 * jobs may start on reserved GPUs only if predicted to end before the reservation
 * starts (EASY backfilling), so they never delay it.
 *
 * Standing plan. The plan is made afresh when the cluster changed as the controller
 * sees it: it learnt that a job ended (or was killed), or a new scrape came in. At a
 * scheduling point with only new jobs in the queue (arrivals, returns from an OOM
 * back-off), the plan stands and each new job is fitted into it in queue order: it
 * starts at once when its best place is free now and it ends there before any planned
 * job needs the GPUs, and otherwise waits for the next plan. So between changes a new
 * job never delays the plan; jobs that age into reservations or into the window in
 * between are planned at the next change (with the default poll, within 60 s).
 *
 * Learning. The estimates may change between scheduling points, when the controller
 * learns from completed jobs (view.est_version grows). The next scheduling point then
 * re-keys the queue in the configured order (ties keep the queue's order) and predicts
 * the running jobs again: a GPU is predicted free from its job's start plus its run as
 * the controller predicts it now, not as it did when the job was placed, since the
 * newer estimate is the better guess (the transfer estimate stays the one made at
 * placement: that transfer was started then). Cached estimates are kept per job and
 * per est_version, so a change costs a pass over the queue and the nodes, and nothing
 * at a point where they did not change. A change does not by itself make a fresh
 * plan: the controller learns only when it learnt that jobs ended, which does.
 *
 * Unseen models. A job whose model the predictor does not know (view_estimate's known
 * is false) runs alone: it starts only on a node where nothing runs and, while it
 * runs, nothing else starts there. Such a job runs alone until the controller has
 * learnt the model from a completed run, after which view_estimate's known is true and
 * its jobs are placed like any other; one already running alone stays alone until it
 * ends.
 *
 * Cost. A plan covers at most optimal_window jobs: the reservations first, then jobs
 * that have waited reserve_after_s (oldest first), then the first of the configured
 * order; a queue no longer than the window is planned whole, as above. The queue is
 * kept in heaps (waited long enough, by submission; not yet, by the order; to age, by
 * submission), updated as jobs enter and leave, so choosing the window costs
 * O(window log queue), not a pass over the queue. Nodes are grouped by site and GPU
 * type, where a job's transfer and run estimates are the same; groups are tried in
 * order of transfer + run and a group that cannot beat the best finish found is
 * skipped. Inside a group a segment tree over its nodes keeps, for each k, the least
 * time at which k GPUs of a node may free (a lower bound of what the plan computes:
 * free GPUs count as now, busy ones as their running job's predicted end, booked ones
 * as their planned end), and a branch-and-bound search in node order visits only the
 * nodes whose bound could beat the best slot found so far. The plan's state of a node
 * (when its GPUs free, what this plan took) is built from the node's own running jobs
 * the first time the plan looks at it, so a plan costs what it touches, not the size
 * of the cluster. The engine's job events keep the lists and bounds current.
 *
 * Pods. A job of several pods (docs/distributed.md) is planned all at once: each pod's
 * place is searched in turn as a job of one pod's, with the pods before it booked, and
 * its finish there counts the ring all-reduce over its node and theirs (the view's
 * estimate, view_allreduce_run_s: nothing on a node that holds one of them, the site's
 * network within a site, the WAN between sites), so pods keep to one node, then one
 * site, unless waiting costs more. Two tries are made: every pod starting now, and
 * every pod at its best place now or later (a reservation's place, for a reserved job);
 * the job starts now when the first finishes no later (or the second would also start
 * now), else it is booked from when the last of the second's places frees to its
 * longest pod's finish, on all its pods' GPUs (a fresh job fitted into the standing
 * plan then waits, as a job of one pod would). A try fails unless every pod's GPUs hold
 * the job's predicted peak at its largest over its pods' types (the engine gives each
 * pod that peak), so it still never over-commits. The tries' bookings are taken back
 * (opt_undo). Its run is predicted on its slowest pod's type plus the all-reduce, its
 * transfer as its data moving to each of its pods' sites in turn; reserve_min_gpus and
 * the work order count the GPUs of all its pods. Each pod is an entry in its node's
 * list (opt_entry). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "optimal.h"

/* Queue orders (docs/policies.md compares them). */
enum opt_order { OPT_ORDER_LPT, OPT_ORDER_FIFO, OPT_ORDER_SPT, OPT_ORDER_WORK };
/* When to plan afresh: when the cluster changed (a learnt end, a new scrape), or at
 * every scheduling point. */
enum opt_replan { OPT_REPLAN_CHANGE, OPT_REPLAN_EVERY };

/* The policy's tunables (policy_ops.params). */
struct opt_params {
    unsigned reserve_min_gpus; /* jobs with this many GPUs may get a reservation */
    double reserve_after_s;    /* ... once they have waited this long */
    int order;                 /* enum opt_order */
    unsigned window;           /* most jobs planned per scheduling point */
    int replan;                /* enum opt_replan */
};

static const char *const opt_order_names[] = {
    [OPT_ORDER_LPT] = "lpt", [OPT_ORDER_FIFO] = "fifo", [OPT_ORDER_SPT] = "spt",
    [OPT_ORDER_WORK] = "work", NULL};
static const char *const opt_replan_names[] = {
    [OPT_REPLAN_CHANGE] = "change", [OPT_REPLAN_EVERY] = "every", NULL};

/* clang-format off */
#define OPT_PARAM(field) offsetof(struct opt_params, field)
static const struct param opt_params_table[] = {
    {.name = "reserve_min_gpus", .kind = PARAM_UINT, .offset = OPT_PARAM(reserve_min_gpus), .def = 4,
     .b = {.min = 1, .max = 1000, .whole = true},
     .meaning = "optimal policy: jobs needing at least this many GPUs may get a reservation"},
    {.name = "reserve_after_s", .kind = PARAM_DOUBLE, .offset = OPT_PARAM(reserve_after_s), .def = 1800,
     .b = PARAM_AT_LEAST(0),
     .meaning = "optimal policy: such a job gets a reservation once it has waited this long (s)"},
    {.name = "optimal_order", .kind = PARAM_ENUM, .offset = OPT_PARAM(order),
     .def = OPT_ORDER_WORK, .names = opt_order_names,
     .meaning = "optimal policy: queue order: work (largest predicted GPU-time first), lpt "
                "(longest predicted first), fifo, spt"},
    {.name = "optimal_window", .kind = PARAM_UINT, .offset = OPT_PARAM(window), .def = 128,
     .b = {.min = 1, .max = 1e9, .whole = true},
     .meaning = "optimal policy: most queued jobs planned at one scheduling point (reservations, "
                "then jobs waiting reserve_after_s, oldest first, then the queue order)"},
    {.name = "optimal_replan", .kind = PARAM_ENUM, .offset = OPT_PARAM(replan),
     .def = OPT_REPLAN_CHANGE, .names = opt_replan_names,
     .meaning = "optimal policy: plan afresh when the cluster changed (change: a learnt end or a "
                "new scrape; new jobs are fitted into the standing plan) or at every scheduling "
                "point (every)"},
};
/* clang-format on */

/* ---- the plan ---- */

/* Removes job j from the list of the node it was placed on, if any. */
static void opt_unlink(struct opt_state *st, uint32_t j)
{
    uint32_t n = st->job_at[j];
    if (n == VIEW_NONE)
        return;
    uint32_t *p = &st->node_head[n];
    while (*p != j)
        p = &st->job_next[*p];
    *p = st->job_next[j];
    st->job_at[j] = VIEW_NONE;
}


static void *opt_alloc(size_t n, size_t size) { return cpn_calloc(n ? n : 1, size); }

/* Whether groups a and b have one GPU type and the same maxima. */
static bool opt_group_same_shape(const struct opt_group *a, const struct opt_group *b)
{
    return a->type == b->type && a->max_gpus == b->max_gpus && a->max_cpus == b->max_cpus &&
           a->max_mem_gib == b->max_mem_gib;
}

/* A cache line (bytes). */
#define OPT_LINE 64

/* ---- the queue's orders ---- */

static bool opt_hent_less(const void *a, const void *b, const void *ctx)
{
    const struct opt_hent *x = a, *y = b;
    (void)ctx;
    if (x->k1 != y->k1)
        return x->k1 < y->k1;
    return x->k2 < y->k2;
}

/* Four children a record: a heap of the queue may hold most queued jobs, and a
 * shallower one misses the cache less at each push and pop. The order is strict (an
 * entry number is in an order once, and no key is NaN: submit times are finite and
 * opt_key_of gives none), so where records sit never changes the order they come out
 * in. */
static const struct heap_ops opt_hent_ops = {
    .size = sizeof(struct opt_hent), .less = opt_hent_less, .arity = 4};

/* True when entry e still stands for its job in an order of stage `stage`. */
static bool opt_current(const struct opt_state *st, const struct opt_hent *e, uint8_t stage)
{
    return st->stage[e->job] == stage && st->gen[e->job] == e->gen;
}

/* Adds entry e to q: to the run when it comes after the run's last entry (or the run
 * is empty), else to the heap. */
static void opt_queue_push(struct opt_queue *q, struct opt_hent e)
{
    if (q->head < q->n && !opt_hent_less(&q->run[q->n - 1], &e, NULL)) {
        heap_push(&q->side, &opt_hent_ops, NULL, &e);
        return;
    }
    if (q->n == q->cap && q->head > 0 && q->head >= q->n / 2) { /* the room its head left */
        memmove(q->run, q->run + q->head, (q->n - q->head) * sizeof *q->run);
        q->n -= q->head;
        q->head = 0;
    }
    if (q->n == q->cap)
        cpn_grow((void **)&q->run, &q->cap, q->n + 1, sizeof *q->run);
    q->run[q->n++] = e;
}

/* Whether q's least entry is the run's head (else the heap's top); q is not empty. */
static bool opt_queue_least_in_run(const struct opt_queue *q)
{
    return q->side.n == 0 || (q->head < q->n && opt_hent_less(&q->run[q->head],
                                                              heap_at(&q->side, &opt_hent_ops, 0), NULL));
}

/* Drops entries that no longer stand from the run's head and the heap's top; returns
 * q's least entry, or NULL when it is empty. */
static const struct opt_hent *opt_queue_top(const struct opt_state *st, struct opt_queue *q,
                                            uint8_t stage)
{
    while (q->head < q->n && !opt_current(st, &q->run[q->head], stage))
        q->head++;
    while (q->side.n > 0 && !opt_current(st, heap_at(&q->side, &opt_hent_ops, 0), stage))
        heap_pop(&q->side, &opt_hent_ops, NULL, NULL);
    if (q->head == q->n && q->side.n == 0)
        return NULL;
    return opt_queue_least_in_run(q) ? &q->run[q->head] : heap_at(&q->side, &opt_hent_ops, 0);
}

/* Removes q's least entry (opt_queue_top found it). */
static void opt_queue_pop(struct opt_queue *q)
{
    if (opt_queue_least_in_run(q))
        q->head++;
    else
        heap_pop(&q->side, &opt_hent_ops, NULL, NULL);
}

/* How many entries q holds, current or not: the run's and the heap's. */
static size_t opt_queue_len(const struct opt_queue *q) { return q->n - q->head + q->side.n; }

/* Entry k < opt_queue_len(q) of q, for the checks that read every entry: the run's
 * first, in order, then the heap's, in no order. */
static const struct opt_hent *opt_queue_at(const struct opt_queue *q, size_t k)
{
    size_t in_run = q->n - q->head;
    return k < in_run ? &q->run[q->head + k] : heap_at(&q->side, &opt_hent_ops, k - in_run);
}

/* Empties q (its memory is kept). */
static void opt_queue_clear(struct opt_queue *q) { q->head = q->n = q->side.n = 0; }

static void opt_queue_free(struct opt_queue *q)
{
    free(q->run);
    heap_free(&q->side);
}

/* Drops the entries that no longer stand once they outnumber the live ones, so that
 * an order stays O(queue) however many jobs have come and gone. The run keeps its
 * order as it is filtered. */
static void opt_queue_compact(const struct opt_state *st, struct opt_queue *q, uint8_t stage,
                              size_t live)
{
    if (opt_queue_len(q) <= 2 * live + 1024)
        return;
    size_t m = 0;
    for (size_t i = q->head; i < q->n; i++)
        if (opt_current(st, &q->run[i], stage))
            q->run[m++] = q->run[i];
    q->head = 0;
    q->n = m;
    struct opt_hent *v = q->side.v;
    m = 0;
    for (size_t i = 0; i < q->side.n; i++)
        if (opt_current(st, &v[i], stage))
            v[m++] = v[i];
    q->side.n = m;
    heap_heapify(&q->side, &opt_hent_ops, NULL);
}

static int opt_init(void **state, const struct view *v, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    const struct cluster *cl = v->cl;
    size_t nj = v->n_jobs, nt = cl->n_types;
    struct opt_state *st = cpn_calloc(1, sizeof *st);
    st->has_gpus = opt_alloc(nt, sizeof *st->has_gpus);
    for (uint32_t n = 0; n < cl->n_nodes; n++)
        if (cl->nodes[n].gpu_count > 0)
            st->has_gpus[cl->nodes[n].type] = 1;
    st->grp = opt_alloc(cl->n_sites * nt, sizeof *st->grp);
    st->grp_nodes = opt_alloc(cl->n_nodes, sizeof *st->grp_nodes);
    st->node_grp = opt_alloc(cl->n_nodes, sizeof *st->node_grp);
    st->node_pos = opt_alloc(cl->n_nodes, sizeof *st->node_pos);
    for (size_t n = 0; n < cl->n_nodes; n++)
        st->node_grp[n] = VIEW_NONE;
    uint32_t k = 0;
    size_t tree = 0;
    for (uint32_t si = 0; si < cl->n_sites; si++) {
        const struct site *site = &cl->sites[si];
        for (uint32_t t = 0; t < nt; t++) {
            struct opt_group g = {.site = si, .type = t, .first = k};
            for (uint32_t n = site->node_first; n < site->node_first + site->node_count; n++) {
                const struct node *nd = &cl->nodes[n];
                if (nd->gpu_count == 0 || nd->type != t)
                    continue;
                st->node_grp[n] = (uint32_t)st->n_grp;
                st->node_pos[n] = k - g.first;
                st->grp_nodes[k++] = n;
                g.uniform = g.max_gpus == 0 || (g.uniform && nd->gpu_count == g.max_gpus &&
                                                nd->cpus == g.max_cpus && nd->mem_gib == g.max_mem_gib);
                g.max_gpus = nd->gpu_count > g.max_gpus ? nd->gpu_count : g.max_gpus;
                g.max_cpus = fmax(g.max_cpus, nd->cpus);
                g.max_mem_gib = fmax(g.max_mem_gib, nd->mem_gib);
            }
            g.count = k - g.first;
            if (g.count == 0)
                continue;
            for (g.leaves = 1; g.leaves < g.count; g.leaves *= 2)
                ;
            g.tree = tree;
            tree += 2 * (size_t)g.leaves * 2 * g.max_gpus;
            st->grp[st->n_grp++] = g;
        }
    }
    /* A tree node and its sibling take 32 bytes at a multiple of 32 from the start
     * (opt_tree_k), and a search reads both: from a line's start, they share one. */
    st->tree_mem = opt_alloc(tree * sizeof *st->tree + OPT_LINE, 1);
    st->tree = (double *)(((uintptr_t)st->tree_mem + OPT_LINE - 1) & ~(uintptr_t)(OPT_LINE - 1));
    /* A uniform group with the type and maxima of an earlier uniform group gives a job
     * the same answer in opt_len (its type is then asked already): opt_len looks only
     * at the first of such groups. Groups of one type and the same maxima, uniform or
     * not, form a class, whose first group answers for all whether they may take a job. */
    st->len_grp = opt_alloc(st->n_grp, sizeof *st->len_grp);
    st->grp_cls = opt_alloc(st->n_grp, sizeof *st->grp_cls);
    st->cls_grp = opt_alloc(st->n_grp, sizeof *st->cls_grp);
    st->cls_ok = opt_alloc(st->n_grp, sizeof *st->cls_ok);
    for (uint32_t gi = 0; gi < st->n_grp; gi++) {
        const struct opt_group *g = &st->grp[gi];
        bool dup = false;
        for (size_t q = 0; q < st->n_len_grp && g->uniform && !dup; q++) {
            const struct opt_group *r = &st->grp[st->len_grp[q]];
            dup = r->uniform && opt_group_same_shape(r, g);
        }
        if (!dup)
            st->len_grp[st->n_len_grp++] = gi;
        size_t c = 0;
        while (c < st->n_cls && !opt_group_same_shape(&st->grp[st->cls_grp[c]], g))
            c++;
        if (c == st->n_cls)
            st->cls_grp[st->n_cls++] = gi;
        st->grp_cls[gi] = (uint32_t)c;
    }
    for (size_t gi = 0; gi < st->n_grp; gi++)
        st->max_k = st->grp[gi].max_gpus > st->max_k ? st->grp[gi].max_gpus : st->max_k;
    st->roots = opt_alloc((size_t)st->max_k * st->n_grp * 2, sizeof *st->roots);
    for (size_t q = 0; q < (size_t)st->max_k * st->n_grp * 2; q++)
        st->roots[q] = INFINITY;
    for (size_t q = 0; q < tree; q++)
        st->tree[q] = INFINITY; /* no node has the GPUs (opt_leaf_set) */
    st->stale = opt_alloc(cl->n_nodes, sizeof *st->stale);
    st->is_stale = opt_alloc(cl->n_nodes, sizeof *st->is_stale);
    st->grp_order = opt_alloc(st->n_grp + OPT_GTOP, sizeof *st->grp_order); /* (see opt_order_groups) */
    st->site_xfer = opt_alloc(cl->n_sites, sizeof *st->site_xfer);
    st->grp_sites = opt_alloc(cl->n_sites, sizeof *st->grp_sites);
    for (size_t gi = 0; gi < st->n_grp; gi++) /* (groups come site by site) */
        if (st->n_grp_sites == 0 || st->grp_sites[st->n_grp_sites - 1] != st->grp[gi].site)
            st->grp_sites[st->n_grp_sites++] = st->grp[gi].site;
    st->xfer_job = VIEW_NONE;
    st->tp_job = VIEW_NONE;
    st->grp_job = VIEW_NONE;
    st->tp_ok = opt_alloc(nt, sizeof *st->tp_ok);
    st->tp_run = opt_alloc(nt, sizeof *st->tp_run);
    st->tp_mem = opt_alloc(nt, sizeof *st->tp_mem);
    st->tp_cpu = opt_alloc(nt, sizeof *st->tp_cpu);
    st->node_head = opt_alloc(cl->n_nodes, sizeof *st->node_head);
    st->node_epoch = opt_alloc(cl->n_nodes, sizeof *st->node_epoch);
    for (size_t n = 0; n < cl->n_nodes; n++)
        st->node_head[n] = VIEW_NONE;
    /* One entry per pod in the nodes' lists: a job's own index for its first pod, and
     * past the jobs, pod_base[j] + k - 1 for pod k of a job of several. */
    size_t ne = nj;
    st->n_jobs = (uint32_t)nj;
    st->max_pods = 1;
    st->pod_base = opt_alloc(nj, sizeof *st->pod_base);
    st->pod_gpus = opt_alloc(nj, sizeof *st->pod_gpus);
    for (uint32_t j = 0; j < nj; j++) {
        uint32_t pods = view_job(v, j).pods;
        st->pod_base[j] = (uint32_t)(ne - nj);
        ne += pods - 1;
        if (pods > st->max_pods)
            st->max_pods = pods;
    }
    st->ent_job = opt_alloc(ne - nj, sizeof *st->ent_job);
    for (uint32_t j = 0; j < nj; j++)
        for (uint32_t q = 1; q < view_job(v, j).pods; q++)
            st->ent_job[st->pod_base[j] + q - 1] = j;
    st->job_next = opt_alloc(ne, sizeof *st->job_next);
    st->job_at = opt_alloc(ne, sizeof *st->job_at);
    for (size_t e = 0; e < ne; e++)
        st->job_at[e] = VIEW_NONE;
    st->g_nodes = opt_alloc(st->max_pods + 1, sizeof *st->g_nodes);
    st->g_slot = opt_alloc(st->max_pods, sizeof *st->g_slot);
    st->g_now = opt_alloc(st->max_pods, sizeof *st->g_now);
    st->g_undo = opt_alloc(st->max_pods, sizeof *st->g_undo);
    if (st->max_pods > 1)
        st->run_moved = opt_alloc(nj, sizeof *st->run_moved);
    st->epoch = 1;
    st->need_plan = true;
    st->est = opt_alloc(nj * nt, sizeof *st->est);
    st->runs_on = opt_alloc(nj * nt, sizeof *st->runs_on);
    memset(st->runs_on, -1, nj * nt * sizeof *st->runs_on);
    st->known = opt_alloc(nj, sizeof *st->known);
    st->len = opt_alloc(nj, sizeof *st->len);
    /* No job's estimates are cached yet: the first ask of each drops its row (NAN, as
     * opt_est_drop leaves it), so a job's cache lines are first written when it is
     * asked about, not all at start. */
    st->est_ver = opt_alloc(nj, sizeof *st->est_ver);
    for (size_t j = 0; j < nj; j++)
        st->est_ver[j] = OPT_EST_NEVER;
    st->est_seen = v->est_version;
    st->res_node = opt_alloc(nj, sizeof *st->res_node);
    for (size_t j = 0; j < nj; j++)
        st->res_node[j] = VIEW_NONE;
    st->pred_run = opt_alloc(nj, sizeof *st->pred_run);
    st->pred_xfer = opt_alloc(nj, sizeof *st->pred_xfer);
    st->alone = opt_alloc(cl->n_nodes, sizeof *st->alone);
    for (size_t n = 0; n < cl->n_nodes; n++)
        st->alone[n] = VIEW_NONE;
    st->entry = opt_alloc(nj, sizeof *st->entry);
    st->gen = opt_alloc(nj, sizeof *st->gen);
    st->stage = opt_alloc(nj, sizeof *st->stage);
    st->fresh = opt_alloc(nj, sizeof *st->fresh);
    st->fresh_gen = opt_alloc(nj, sizeof *st->fresh_gen);
    st->avail = opt_alloc(cl->n_gpus, sizeof *st->avail);
    st->gap_end = opt_alloc(cl->n_gpus, sizeof *st->gap_end);
    st->free_now = opt_alloc(cl->n_gpus, sizeof *st->free_now);
    st->ready = opt_alloc(cl->n_nodes, sizeof *st->ready);
    st->cpus_now = opt_alloc(cl->n_nodes, sizeof *st->cpus_now);
    st->mem_now = opt_alloc(cl->n_nodes, sizeof *st->mem_now);
    st->cpu_now = opt_alloc(cl->n_nodes, sizeof *st->cpu_now);
    st->done = opt_alloc(nj, sizeof *st->done);
    st->plan = opt_alloc(ne, sizeof *st->plan); /* (every pod of every job at most) */
    const struct opt_params *par = v->params;
    st->window = par->window < nj ? par->window : nj;
    st->win = opt_alloc(st->window, sizeof *st->win);
    for (uint32_t n = 0; n < cl->n_nodes; n++)
        if (st->node_grp[n] != VIEW_NONE)
            opt_leaf_base(st, v, n);
    *state = st;
    return 0;
}

static void opt_destroy(void *state)
{
    struct opt_state *st = state;
    if (!st)
        return;
    free(st->grp);
    free(st->grp_nodes);
    free(st->len_grp);
    free(st->grp_cls);
    free(st->cls_grp);
    free(st->cls_ok);
    free(st->grp_order);
    free(st->site_xfer);
    free(st->grp_sites);
    free(st->tp_ok);
    free(st->tp_run);
    free(st->tp_mem);
    free(st->tp_cpu);
    free(st->node_grp);
    free(st->node_pos);
    free(st->tree_mem);
    free(st->roots);
    free(st->stale);
    free(st->is_stale);
    free(st->node_head);
    free(st->node_epoch);
    free(st->job_next);
    free(st->job_at);
    free(st->pod_base);
    free(st->pod_gpus);
    free(st->ent_job);
    free(st->g_nodes);
    free(st->g_slot);
    free(st->g_now);
    free(st->g_undo);
    free(st->run_moved);
    free(st->win);
    heap_free(&st->front);
    free(st->has_gpus);
    free(st->est);
    free(st->runs_on);
    free(st->known);
    free(st->len);
    free(st->est_ver);
    free(st->pred_run);
    free(st->pred_xfer);
    free(st->res_node);
    free(st->alone);
    free(st->entry);
    free(st->gen);
    free(st->stage);
    opt_queue_free(&st->young);
    opt_queue_free(&st->aging);
    opt_queue_free(&st->aged);
    opt_queue_free(&st->big);
    free(st->fresh);
    free(st->fresh_gen);
    free(st->avail);
    free(st->gap_end);
    free(st->free_now);
    free(st->ready);
    free(st->cpus_now);
    free(st->mem_now);
    free(st->cpu_now);
    free(st->done);
    free(st->plan);
    free(st);
}
/* Books slot s for job j in the plan: at once (a placement) or later (its GPUs are
 * held from its start; a GPU free now keeps the gap before it). */
static void opt_book(struct opt_state *st, const struct view *v, uint32_t j, const struct opt_slot *s)
{
    const struct node *nd = &v->cl->nodes[s->node];
    bool alone = opt_unseen(st, v, j);
    uint32_t gpus[CLUSTER_MAX_NODE_GPUS], k = 0;
    if (alone)
        for (uint32_t g = nd->gpu_first; g < nd->gpu_first + nd->gpu_count; g++)
            gpus[k++] = g;
    else
        for (uint32_t q = 0; q < s->ngpus; q++)
            gpus[k++] = s->gpu[q];
    for (uint32_t q = 0; q < k; q++) {
        uint32_t g = gpus[q];
        if (s->now) {
            st->free_now[g] = 0;
        } else if (st->avail[g] <= v->now && s->start < st->gap_end[g]) {
            st->gap_end[g] = s->start;
        }
        st->avail[g] = s->finish;
    }
    opt_leaf_plan(st, v, s->node);
    st->done[j] = st->epoch;
    if (!s->now)
        return;
    const struct view_job jd = view_job(v, j), *jb = &jd;
    st->cpus_now[s->node] += jb->cpus;
    st->mem_now[s->node] += jb->mem_gib;
    st->cpu_now[s->node] += opt_est_cpu(st, v, j, v->cl->nodes[s->node].type);
    struct placement *p = &st->plan[st->plan_len++];
    memset(p, 0, sizeof *p);
    p->job = j;
    p->node = s->node;
    p->ngpus = s->ngpus;
    memcpy(p->gpu, s->gpu, s->ngpus * sizeof s->gpu[0]);
}

/* ---- jobs of several pods ---- */

/* opt_book of slot s of job j (a pod), with what it overwrites kept in *u. The slot's
 * node has its state for this plan (the search touched it). */
static void opt_book_undoable(struct opt_state *st, const struct view *v, uint32_t j,
                              const struct opt_slot *s, struct opt_undo *u)
{
    const struct node *nd = &v->cl->nodes[s->node];
    u->node = s->node;
    u->ngpus = nd->gpu_count;
    for (uint32_t q = 0; q < nd->gpu_count; q++) {
        uint32_t g = nd->gpu_first + q;
        u->avail[q] = st->avail[g];
        u->gap_end[q] = st->gap_end[g];
        u->free_now[q] = st->free_now[g];
    }
    u->cpus_now = st->cpus_now[s->node];
    u->mem_now = st->mem_now[s->node];
    u->cpu_now = st->cpu_now[s->node];
    u->plan_len = st->plan_len;
    opt_book(st, v, j, s);
}

/* Takes back the booking *u recorded (the last one not yet taken back). */
static void opt_unbook(struct opt_state *st, const struct view *v, const struct opt_undo *u)
{
    const struct node *nd = &v->cl->nodes[u->node];
    for (uint32_t q = 0; q < u->ngpus; q++) {
        uint32_t g = nd->gpu_first + q;
        st->avail[g] = u->avail[q];
        st->gap_end[g] = u->gap_end[q];
        st->free_now[g] = u->free_now[q];
    }
    st->cpus_now[u->node] = u->cpus_now;
    st->mem_now[u->node] = u->mem_now;
    st->cpu_now[u->node] = u->cpu_now;
    st->plan_len = u->plan_len;
    opt_leaf_plan(st, v, u->node);
}

/* Until when a pod's GPUs are held while opt_gang_try looks for the job's other pods:
 * later than any plan, so that no other pod of the job is planned on them, yet finite,
 * so that the node bounds (where INFINITY means no node has the GPUs) still hold. A pod
 * that could start only then has no place. */
#define OPT_GANG_HELD_S 1e300

/* How opt_gang_try looks for each pod: where it starts now, now or later (the plan's
 * earliest finish), or as a reservation. */
enum opt_gang_how { OPT_GANG_NOW, OPT_GANG_ANY, OPT_GANG_RESERVE };

/* Finds a slot for each pod of job j in turn into slots[], each search seeing the pods
 * before it booked (held for good, unless they start now) and counting the all-reduce
 * between their nodes (opt_visit), then takes the bookings back. Returns whether every
 * pod has one, with the job's start (its last pod's) and finish (start plus its longest
 * pod's transfer and run, with the all-reduce of all its pods). */
static bool opt_gang_try(struct opt_state *st, const struct view *v, uint32_t j,
                         enum opt_gang_how how, struct opt_slot *slots, double *start,
                         double *finish)
{
    uint32_t pods = view_job(v, j).pods, p = 0;
    double t0 = v->now, dur = 0;
    bool ok = true;
    st->g_n = 0;
    for (; p < pods && ok; p++) {
        struct opt_slot *s = &slots[p];
        ok = how == OPT_GANG_RESERVE ? opt_reserve_slot(st, v, j, s)
                                     : opt_best_slot(st, v, j, how == OPT_GANG_NOW, s);
        if (!ok || !(s->start < OPT_GANG_HELD_S)) {
            ok = false;
            break;
        }
        struct opt_slot held = *s;
        if (how != OPT_GANG_NOW) { /* no other pod of it may take these GPUs later */
            held.now = false;
            held.finish = OPT_GANG_HELD_S;
        }
        opt_book_undoable(st, v, j, &held, &st->g_undo[p]);
        st->g_nodes[st->g_n++] = s->node;
        t0 = fmax(t0, s->start);
        dur = fmax(dur, s->finish - s->start);
    }
    /* Every pod's GPUs must hold the job's predicted peak at its largest over its pods'
     * types: the engine gives each pod that (sim.c, gang_demand). */
    double most = 0, run, mem;
    for (uint32_t q = 0; ok && q < pods; q++) {
        opt_est(st, v, j, v->cl->nodes[slots[q].node].type, &run, &mem);
        most = fmax(most, mem);
    }
    for (uint32_t q = 0; ok && q < pods; q++)
        for (uint32_t i = 0; ok && i < slots[q].ngpus; i++) {
            uint32_t g = slots[q].gpu[i];
            double held = how == OPT_GANG_NOW ? v->gpu_assigned_mem_gib[g] : 0;
            ok = most <= v->cl->types[v->cl->nodes[slots[q].node].type].mem_gib - held + VIEW_FIT_EPS;
        }
    while (p-- > 0)
        opt_unbook(st, v, &st->g_undo[p]);
    st->g_n = 0;
    *start = t0;
    *finish = t0 + dur;
    return ok;
}

/* What opt_book_gang is planning for: a fresh plan, a job fitted into the standing plan
 * (it starts now or waits), or a reservation. */
enum opt_gang_mode { OPT_GANG_PLAN, OPT_GANG_FRESH, OPT_GANG_RESERVED };

/* Books job j of several pods, all of them at once: at once, when each pod can start
 * now and the job finishes no later than with the pods' best places (or reservations)
 * found now or later; else, unless it is a fresh job (which starts now or waits), at
 * the time the last of those places frees, each pod holding its GPUs from then to the
 * job's finish. A place now must also end before the first job planned on its GPUs. */
static void opt_book_gang(struct opt_state *st, const struct view *v, uint32_t j,
                          enum opt_gang_mode mode)
{
    uint32_t pods = view_job(v, j).pods;
    uint64_t done = st->done[j];
    double s_now, f_now, s_later, f_later;
    bool can_now = opt_gang_try(st, v, j, OPT_GANG_NOW, st->g_now, &s_now, &f_now);
    bool can_later = opt_gang_try(st, v, j, mode == OPT_GANG_RESERVED ? OPT_GANG_RESERVE : OPT_GANG_ANY,
                                  st->g_slot, &s_later, &f_later);
    for (uint32_t p = 0; can_now && p < pods; p++)
        for (uint32_t q = 0; q < st->g_now[p].ngpus; q++)
            can_now = f_now <= st->gap_end[st->g_now[p].gpu[q]] + OPT_TIME_EPS_S;
    /* (Places found "later" that free now cannot all start now: only the try at now
     * may place the job now.) */
    bool now = can_now && (!can_later || f_now <= f_later + OPT_TIME_EPS_S ||
                           s_later <= v->now + OPT_TIME_EPS_S);
    if (!now && (!can_later || mode == OPT_GANG_FRESH)) {
        st->done[j] = done; /* nothing booked: as a job of one pod that fits nowhere */
        return;
    }
    for (uint32_t p = 0; p < pods; p++) {
        struct opt_slot s = now ? st->g_now[p] : st->g_slot[p];
        s.start = now ? v->now : s_later;
        s.finish = now ? f_now : f_later;
        s.now = now;
        opt_book(st, v, j, &s);
    }
    if (mode == OPT_GANG_RESERVED)
        st->res_node[j] = now ? VIEW_NONE : st->g_slot[0].node;
}

static int opt_cmp_key(const void *a, const void *b)
{
    const struct opt_key *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->pos < y->pos ? -1 : (x->pos > y->pos);
}

/* The order of opt_take's frontier: indices into the heap's records (ctx), by their
 * records' order. */
static bool opt_front_less(const void *a, const void *b, const void *ctx)
{
    const struct opt_hent *v = ctx;
    return opt_hent_less(&v[*(const size_t *)a], &v[*(const size_t *)b], NULL);
}

static const struct heap_ops opt_front_ops = {.size = sizeof(size_t), .less = opt_front_less};

static double opt_order_key(struct opt_state *st, const struct view *v, uint32_t j);

static int opt_hent_cmp(const void *a, const void *b)
{
    return opt_hent_less(a, b, NULL) ? -1 : opt_hent_less(b, a, NULL);
}

/* Checks a take against sorting every entry of q (policy_check_indexes): out[0..m)
 * must be the first current entries of jobs this plan has not handled, up to want. */
static void opt_check_take(const struct opt_state *st, const struct opt_queue *q, uint8_t stage,
                           size_t want, const struct opt_key *out, size_t m)
{
    size_t len = opt_queue_len(q), all = 0;
    struct opt_hent *e = cpn_calloc(len + 1, sizeof *e);
    for (size_t k = 0; k < len; k++) {
        const struct opt_hent *x = opt_queue_at(q, k);
        if (opt_current(st, x, stage) && st->done[x->job] != st->epoch)
            e[all++] = *x;
    }
    qsort(e, all, sizeof *e, opt_hent_cmp);
    CPN_ASSERT(m == (all < want ? all : want));
    for (size_t k = 0; k < m; k++)
        CPN_ASSERT(out[k].job == e[k].job && out[k].pos == e[k].k2);
    free(e);
}

/* Takes up to `want` current entries of order q in order, skipping jobs this plan has
 * handled, and appends their jobs to out; returns how many it appended. The order is
 * left as it is (but for entries that no longer stand at its least, which go): the run
 * is read from its head, and the heap's records in order by a best-first walk from the
 * root, whose frontier (the children of the records read so far) is a small heap of
 * its own; the two are merged. So a take costs O(taken log taken) rather than a pop
 * and a push back of each entry taken, each O(log queue) and a miss of the cache at
 * every level. */
static size_t opt_take(struct opt_state *st, const struct view *v, struct opt_queue *q,
                       uint8_t stage, size_t want, struct opt_key *out)
{
    size_t m = 0;
    if (want == 0 || opt_queue_top(st, q, stage) == NULL)
        return 0;
    const struct opt_hent *side = q->side.v;
    size_t r = q->head, i = 0;
    st->front.n = 0;
    if (q->side.n > 0)
        heap_push(&st->front, &opt_front_ops, q->side.v, &i);
    while (m < want && (r < q->n || st->front.n > 0)) {
        const struct opt_hent *x;
        const size_t *next = st->front.n > 0 ? heap_at(&st->front, &opt_front_ops, 0) : NULL;
        if (!next || (r < q->n && opt_hent_less(&q->run[r], &side[*next], NULL))) {
            x = &q->run[r++];
        } else {
            heap_pop(&st->front, &opt_front_ops, q->side.v, &i);
            for (size_t c = 4 * i + 1; c <= 4 * i + 4 && c < q->side.n; c++)
                heap_push(&st->front, &opt_front_ops, q->side.v, &c);
            x = &side[i];
        }
        if (!opt_current(st, x, stage) || st->done[x->job] == st->epoch)
            continue;
        out[m++] = (struct opt_key){.key = opt_order_key(st, v, x->job), .pos = x->k2, .job = x->job};
    }
    if (policy_check_indexes)
        opt_check_take(st, q, stage, want, out, m);
    return m;
}

/* Moves the jobs that have now waited reserve_after_s from the young heaps to the
 * aged ones. */
static void opt_age(struct opt_state *st, const struct view *v)
{
    const struct opt_params *c = v->params;
    size_t big_before = st->n_big;
    const struct opt_hent *e;
    while ((e = opt_queue_top(st, &st->aging, OPT_YOUNG)) != NULL &&
           v->now - view_job(v, e->job).submit_s >= c->reserve_after_s) {
        struct opt_hent x = *e;
        opt_queue_pop(&st->aging);
        st->stage[x.job] = OPT_AGED;
        x.k1 = view_job(v, x.job).submit_s;
        opt_queue_push(&st->aged, x);
        if (opt_gpus(v, x.job) >= c->reserve_min_gpus) {
            opt_queue_push(&st->big, x);
            st->n_big++;
        }
    }
    /* A job that joins the reservations (the oldest `window` of them) changes the plan:
     * the next scheduling point plans afresh, so a wide job is not starved by arrivals
     * fitted into a standing plan. */
    if (st->n_big > big_before && big_before < st->window)
        st->need_plan = true;
}

/* Reservations: jobs of many GPUs that have waited too long, oldest first, at most
 * the window. Returns how many were planned. */
static size_t opt_plan_reservations(struct opt_state *st, const struct view *v)
{
    size_t m = opt_take(st, v, &st->big, OPT_AGED, st->window, st->win);
    for (size_t i = 0; i < m; i++) {
        uint32_t j = st->win[i].job;
        if (view_job(v, j).pods > 1) {
            opt_book_gang(st, v, j, OPT_GANG_RESERVED);
            continue;
        }
        struct opt_slot res, now;
        bool can_res = opt_reserve_slot(st, v, j, &res);
        bool can_now = opt_best_slot(st, v, j, true, &now);
        if (can_now && (!can_res || now.finish <= res.finish + OPT_TIME_EPS_S)) {
            st->res_node[j] = VIEW_NONE;
            opt_book(st, v, j, &now);
        } else if (can_res) {
            st->res_node[j] = res.node;
            opt_book(st, v, j, &res);
        }
    }
    return m;
}

/* Builds a fresh plan: reservations first, then the other jobs of the window (those
 * that waited reserve_after_s, oldest first, then the configured order) in the
 * configured order. */
static void opt_plan(struct opt_state *st, const struct view *v)
{
    st->epoch++;
    st->need_plan = false;
    st->plan_scrape_s = v->scrape_time_s;
    for (size_t i = 0; i < st->n_stale; i++) {
        st->is_stale[st->stale[i]] = 0;
        opt_leaf_base(st, v, st->stale[i]);
    }
    st->n_stale = 0;
    opt_queue_compact(st, &st->young, OPT_YOUNG, v->queue_len);
    opt_queue_compact(st, &st->aging, OPT_YOUNG, v->queue_len);
    opt_queue_compact(st, &st->aged, OPT_AGED, v->queue_len);
    opt_queue_compact(st, &st->big, OPT_AGED, v->queue_len);
    size_t room = st->window - opt_plan_reservations(st, v);
    size_t m = opt_take(st, v, &st->aged, OPT_AGED, room, st->win);
    m += opt_take(st, v, &st->young, OPT_YOUNG, room - m, st->win + m);
    qsort(st->win, m, sizeof *st->win, opt_cmp_key);
    for (size_t i = 0; i < m && !view_stopping(v); i++) { /* a stopped run plans no more */
        struct opt_slot s;
        if (view_job(v, st->win[i].job).pods > 1)
            opt_book_gang(st, v, st->win[i].job, OPT_GANG_PLAN);
        else if (opt_best_slot(st, v, st->win[i].job, false, &s))
            opt_book(st, v, st->win[i].job, &s);
    }
}

/* Fits the jobs queued since the last scheduling point into the standing plan, in
 * queue order: each starts now only where the plan's best place for it is free now. */
static void opt_fit_fresh(struct opt_state *st, const struct view *v)
{
    for (size_t i = 0; i < st->n_fresh && !view_stopping(v); i++) { /* (a million, at once) */
        uint32_t j = st->fresh[i];
        if (st->stage[j] == OPT_OUT || st->gen[j] != st->fresh_gen[i] || st->done[j] == st->epoch)
            continue;
        struct opt_slot s;
        if (view_job(v, j).pods > 1)
            opt_book_gang(st, v, j, OPT_GANG_FRESH);
        else if (opt_best_slot(st, v, j, false, &s) && s.now)
            opt_book(st, v, j, &s);
    }
}

/* The key in the configured order (smallest first) of job j whose predicted run time
 * on its fastest node is len. */
static double opt_key_of(const struct view *v, uint32_t j, double len)
{
    if (isinf(len))
        return INFINITY; /* fits nowhere: last, it will not be placed */
    switch ((enum opt_order)((const struct opt_params *)v->params)->order) {
    case OPT_ORDER_LPT:
        return -len;
    case OPT_ORDER_SPT:
        return len;
    case OPT_ORDER_WORK:
        return -len * opt_gpus(v, j);
    case OPT_ORDER_FIFO:
        break;
    }
    return 0;
}

/* Job j's key in the configured order, of the current estimates. It is a function of
 * the job's length, which opt_len keeps with the job's other cached estimates, so it is
 * not kept itself. A job that waited reserve_after_s is ordered by submission in its
 * heaps: when the estimates change, its length is asked again only when a plan takes
 * it (opt_take), not for every such job at once (opt_rebuild), and that first asks its
 * estimates by opt_len as opt_rebuild would have, in the same order (which sets the
 * job's known flag), so they come out the same. */
static double opt_order_key(struct opt_state *st, const struct view *v, uint32_t j)
{
    return opt_key_of(v, j, opt_len(st, v, j));
}

/* The estimates changed (see "Learning" above): every queued job that has not waited
 * reserve_after_s gets its key in the configured order afresh, in queue order, and the
 * young heap is built again from them (its entry numbers keep the queue's order on
 * ties; the other heaps are by submission, and a job in them gets its key when a plan
 * takes it: opt_order_key). Each running job is predicted again, and a node whose
 * jobs' predicted ends moved has its bound rebuilt. O(queue + nodes). */
/* Running job a's predicted run time as the estimates give it now (opt_run_on its
 * pods' nodes, gathered in st->g_nodes). */
static double opt_pred_run_now(struct opt_state *st, const struct view *v, uint32_t a)
{
    uint32_t pods = view_pods_held(v, a);
    for (uint32_t k = 0; k < pods; k++)
        st->g_nodes[k] = view_pod_node(v, a, k);
    return opt_run_on(st, v, a, st->g_nodes, pods);
}

static void opt_rebuild(struct opt_state *st, const struct view *v)
{
    opt_queue_clear(&st->young);
    for (uint32_t j = v->queue_head; j != VIEW_NONE; j = v->queue_next[j]) {
        if (st->stage[j] != OPT_YOUNG)
            continue; /* keyed when a plan takes it (opt_order_key) */
        opt_queue_push(&st->young, (struct opt_hent){.k1 = opt_order_key(st, v, j),
                                                    .k2 = st->entry[j], .job = j, .gen = st->gen[j]});
    }
    bool pods_moved = false;
    for (uint32_t n = 0; n < v->cl->n_nodes; n++) {
        bool moved = false;
        for (uint32_t a = st->node_head[n]; a != VIEW_NONE; a = st->job_next[a]) {
            double run, mem;
            if (a >= st->n_jobs || !v->job_active[a] || v->job_node[a] != n)
                continue; /* a later pod (its job is seen at its first), or it ended */
            if (view_pods_held(v, a) > 1) {
                run = opt_pred_run_now(st, v, a);
                st->run_moved[a] = run != st->pred_run[a];
                pods_moved |= st->run_moved[a];
            } else {
                opt_est(st, v, a, v->cl->nodes[n].type, &run, &mem);
            }
            moved |= run != st->pred_run[a];
            st->pred_run[a] = run;
        }
        if (moved)
            opt_node_changed(st, v, n);
    }
    /* The later pods' nodes of the jobs of several pods whose predicted run moved. */
    for (uint32_t n = 0; pods_moved && n < v->cl->n_nodes; n++) {
        bool moved = false;
        for (uint32_t a = st->node_head[n]; a != VIEW_NONE; a = st->job_next[a])
            moved |= a >= st->n_jobs && st->run_moved[opt_entry_job(st, a)];
        if (moved)
            opt_node_changed(st, v, n);
    }
    for (uint32_t j = 0; pods_moved && j < st->n_jobs; j++)
        st->run_moved[j] = 0;
    st->est_seen = v->est_version;
}

static void opt_job_event(void *state, const struct view *v, uint32_t j, enum policy_job_event e)
{
    struct opt_state *st = state;
    if (e == POLICY_JOB_QUEUED) { /* a new pod: to the young heaps, and to fit in */
        st->gen[j]++;
        st->entry[j] = st->seq++;
        st->stage[j] = OPT_YOUNG;
        struct opt_hent x = {.k1 = opt_order_key(st, v, j), .k2 = st->entry[j], .job = j,
                             .gen = st->gen[j]};
        opt_queue_push(&st->young, x);
        x.k1 = view_job(v, j).submit_s;
        opt_queue_push(&st->aging, x);
        st->fresh[st->n_fresh] = j;
        st->fresh_gen[st->n_fresh++] = st->gen[j];
        return;
    }
    uint32_t n = v->job_node[j];
    if (n == VIEW_NONE || st->job_at[j] != n)
        return;
    if (e == POLICY_JOB_LEARNT)
        st->need_plan = true;
    opt_node_changed(st, v, n);
    for (uint32_t k = 1; k < view_pods_held(v, j); k++) { /* its later pods' nodes */
        uint32_t m = view_pod_node(v, j, k);
        if (st->job_at[opt_entry(st, j, k)] == m)
            opt_node_changed(st, v, m);
    }
}

/* A scheduling point begins: with jobs queued, plan afresh or fit the new jobs into
 * the standing plan; place then hands out what this plan starts now. An empty queue
 * leaves the plan as it stands (the next jobs are fitted into it). */
static void opt_begin(void *state, const struct view *v)
{
    struct opt_state *st = state;
    st->point++;
    if (v->est_version != st->est_seen)
        opt_rebuild(st, v);
    if (v->queue_len == 0)
        return;
    st->plan_len = st->plan_next = 0;
    opt_age(st, v);
    if (st->need_plan || v->scrape_time_s != st->plan_scrape_s ||
        ((const struct opt_params *)v->params)->replan == OPT_REPLAN_EVERY)
        opt_plan(st, v);
    else
        opt_fit_fresh(st, v);
    st->n_fresh = 0;
}

static int opt_place(void *state, const struct view *v, struct placement *out)
{
    struct opt_state *st = state;
    if (st->plan_next == st->plan_len)
        return 0;
    *out = st->plan[st->plan_next++];
    uint32_t j = out->job, k = view_pods_placed(v, j), pods = view_job(v, j).pods;
    const struct node *nd = &v->cl->nodes[out->node];
    if (k == 0 && pods == 1) {
        double mem;
        opt_est(st, v, j, nd->type, &st->pred_run[j], &mem);
        st->pred_xfer[j] = view_transfer_estimate_s(v, j, nd->site);
    } else if (k == 0) {
        /* Its pods are the plan's next placements: its run on their nodes, and its data
         * moving to each of their sites in turn. */
        st->pred_xfer[j] = 0;
        for (uint32_t q = 0; q < pods; q++) {
            const struct placement *pq = &st->plan[st->plan_next - 1 + q];
            CPN_ASSERT(st->plan_next - 1 + q < st->plan_len && pq->job == j);
            uint32_t site = v->cl->nodes[pq->node].site, r = 0;
            while (r < q && v->cl->nodes[st->g_nodes[r]].site != site)
                r++;
            if (r == q)
                st->pred_xfer[j] += view_transfer_estimate_s(v, j, site);
            st->g_nodes[q] = pq->node;
        }
        st->pred_run[j] = opt_run_on(st, v, j, st->g_nodes, pods);
    }
    if (opt_unseen(st, v, j))
        st->alone[out->node] = j;
    if (k == 0) {
        st->res_node[j] = VIEW_NONE;
        if (st->stage[j] == OPT_AGED &&
            opt_gpus(v, j) >= ((const struct opt_params *)v->params)->reserve_min_gpus)
            st->n_big--;
        st->stage[j] = OPT_OUT;
    }
    uint32_t e = opt_entry(st, j, k);
    st->pod_gpus[j] = (uint8_t)out->ngpus; /* (the engine checks it is the job's gpus) */
    opt_unlink(st, e);
    st->job_next[e] = st->node_head[out->node];
    st->node_head[out->node] = e;
    st->job_at[e] = out->node;
    return 1;
}

/* A scheduling point ends. The bookkeeping now holds this point's
 * placements, so the standing plan stops counting their requests twice. */
static double opt_end(void *state, const struct view *v)
{
    (void)v;
    struct opt_state *st = state;
    for (size_t i = 0; i < st->plan_len; i++)
        st->cpus_now[st->plan[i].node] = st->mem_now[st->plan[i].node] =
            st->cpu_now[st->plan[i].node] = 0;
    return INFINITY;
}

/* Aborts unless job j's cached estimates are of the current est_version and each
 * estimate cached equals what view_estimate answers now. */
static void opt_check_est(const struct opt_state *st, const struct view *v, uint32_t j)
{
    CPN_ASSERT(st->est_ver[j] == v->est_version);
    for (uint32_t t = 0; t < v->cl->n_types; t++) {
        size_t i = (size_t)j * v->cl->n_types + t;
        if (isnan(st->est[i].run))
            continue;
        struct view_estimate e;
        view_estimate(v, j, t, &e);
        CPN_ASSERT(st->est[i].run == e.run_s && st->est[i].mem == e.mem_gib &&
                   st->est[i].cpu == e.cpu_cores && st->known[j] == e.known);
    }
}

/* Aborts unless order q's run ascends, each current entry of the young order (by the
 * configured order) has its job's key of the current estimates, and no current entry
 * of the aging order has waited reserve_after_s (opt_age moved them all). */
static void opt_check_queue(const struct opt_state *st, const struct view *v,
                            const struct opt_queue *q, uint8_t stage)
{
    for (size_t k = q->head; k + 1 < q->n; k++)
        CPN_ASSERT(opt_hent_less(&q->run[k], &q->run[k + 1], NULL));
    for (size_t k = 0; k < opt_queue_len(q); k++) {
        const struct opt_hent *x = opt_queue_at(q, k);
        if (!opt_current(st, x, stage))
            continue;
        if (q == &st->young)
            CPN_ASSERT(x->k1 == opt_key_of(v, x->job, st->len[x->job]));
        if (q == &st->aging)
            CPN_ASSERT(v->now - view_job(v, x->job).submit_s <
                       ((const struct opt_params *)v->params)->reserve_after_s);
    }
}

/* The queue's stages and the nodes' lists of running jobs agree with the view: a job
 * is in a stage exactly while queued, n_big counts the aged jobs of reserve_min_gpus
 * GPUs or more, and every job of the bookkeeping is on its node's list with its
 * pods' GPUs (pod_gpus). What comes from the estimates follows the current ones: a
 * queued job's young-order entry and cached estimates (for a job that waited
 * reserve_after_s, once a plan took it since they changed: opt_order_key), and a
 * running job's predicted run. (The node index is checked search by search:
 * opt_check_search.) */
static void opt_check(const void *state, const struct view *v)
{
    const struct opt_state *st = state;
    size_t staged = 0, big = 0, listed = 0;
    CPN_ASSERT(st->est_seen == v->est_version);
    for (uint32_t j = 0; j < v->n_jobs; j++) {
        staged += st->stage[j] != OPT_OUT;
        big += st->stage[j] == OPT_AGED && opt_gpus(v, j) >= ((const struct opt_params *)v->params)->reserve_min_gpus;
        CPN_ASSERT(!v->job_active[j] || st->pod_gpus[j] == view_job(v, j).gpus);
        if (v->job_active[j] && view_pods_held(v, j) == 1) {
            struct view_estimate e;
            view_estimate(v, j, v->cl->nodes[v->job_node[j]].type, &e);
            CPN_ASSERT(st->job_at[j] == v->job_node[j] && st->pred_run[j] == e.run_s);
        } else if (v->job_active[j]) { /* every pod listed; the run on the slowest, and more */
            double run = 0;
            for (uint32_t k = 0; k < view_pods_held(v, j); k++) {
                uint32_t n = view_pod_node(v, j, k);
                struct view_estimate e;
                view_estimate(v, j, v->cl->nodes[n].type, &e);
                run = fmax(run, e.run_s);
                st->g_nodes[k] = n;
                CPN_ASSERT(st->job_at[opt_entry(st, j, k)] == n);
            }
            run += view_allreduce_run_s(v, j, st->g_nodes, view_pods_held(v, j));
            CPN_ASSERT(st->pred_run[j] == run);
        }
    }
    CPN_ASSERT(staged == v->queue_len && big == st->n_big);
    for (uint32_t j = v->queue_head; j != VIEW_NONE; j = v->queue_next[j]) {
        CPN_ASSERT(st->stage[j] != OPT_OUT);
        if (st->stage[j] == OPT_AGED && (st->est_ver[j] != v->est_version || isnan(st->len[j])))
            continue; /* not taken since the estimates changed: keyed when taken */
        opt_check_est(st, v, j);
    }
    opt_check_queue(st, v, &st->young, OPT_YOUNG);
    opt_check_queue(st, v, &st->aging, OPT_YOUNG);
    opt_check_queue(st, v, &st->aged, OPT_AGED);
    opt_check_queue(st, v, &st->big, OPT_AGED);
    for (uint32_t n = 0; n < v->cl->n_nodes; n++)
        for (uint32_t a = st->node_head[n]; a != VIEW_NONE; a = st->job_next[a]) {
            CPN_ASSERT(st->job_at[a] == n);
            listed += a < st->n_jobs && v->job_active[a];
        }
    CPN_ASSERT(listed == v->active_jobs);
}

const struct policy_ops optimal_policy = {
    .name = "optimal",
    .never_overcommits = true,
    .cpu_filter = true,
    .places_pods = true,
    .summary = "plans the queue by predicted finish time (transfer + run) without over-committing "
               "GPU memory, predicting CPU slowdown; reservations for long-waiting many-GPU jobs",
    .init = opt_init,
    .begin = opt_begin,
    .place = opt_place,
    .end = opt_end,
    .job_event = opt_job_event,
    .check = opt_check,
    .params = opt_params_table,
    .n_params = sizeof opt_params_table / sizeof opt_params_table[0],
    .params_size = sizeof(struct opt_params),
    .destroy = opt_destroy,
};
