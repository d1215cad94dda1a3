/* optimal_index: the optimal policy's estimates, the nodes' lists of running jobs,
 * the groups' segment trees and the branch-and-bound search for a job's best slot
 * (see the design note at the top of optimal.c). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "optimal.h"

/* ---- estimates (cached: they depend only on the job, the GPU type and the
 * view's est_version) ---- */

/* Drops job j's cached estimates (run, memory and CPU per type, known, len), and keeps
 * the ones asked from now on as of the current est_version. */
static void opt_est_drop(struct opt_state *st, const struct view *v, uint32_t j)
{
    st->est_ver[j] = v->est_version;
    for (size_t t = 0; t < v->cl->n_types; t++)
        st->est[(size_t)j * v->cl->n_types + t].run = NAN;
    st->known[j] = -1;
    st->len[j] = NAN;
}

/* Drops job j's cached estimates when they were asked before the estimates last
 * changed: the cache is kept per job and per est_version, so a change costs nothing
 * until a job is asked about again. (Inline: it is asked at every estimate.) */
static inline void opt_est_current(struct opt_state *st, const struct view *v, uint32_t j)
{
    if (st->est_ver[j] != v->est_version)
        opt_est_drop(st, v, j);
}

/* Asks view_estimate for job j on GPUs of a type into the cache's entry i. */
static void opt_est_ask(struct opt_state *st, const struct view *v, uint32_t j, uint32_t type,
                        size_t i)
{
    struct view_estimate e;
    view_estimate(v, j, type, &e);
    st->est[i] = (struct opt_est){.run = e.run_s, .mem = e.mem_gib, .cpu = e.cpu_cores};
    st->known[j] = e.known;
}

/* The cache's entry of job j on GPUs of a type, asked if it was not. */
static inline size_t opt_est_at(struct opt_state *st, const struct view *v, uint32_t j,
                                uint32_t type)
{
    size_t i = (size_t)j * v->cl->n_types + type;
    opt_est_current(st, v, j);
    if (isnan(st->est[i].run))
        opt_est_ask(st, v, j, type, i);
    return i;
}

void opt_est(struct opt_state *st, const struct view *v, uint32_t j, uint32_t type,
             double *run_s, double *mem_gib)
{
    size_t i = opt_est_at(st, v, j, type);
    *run_s = st->est[i].run;
    *mem_gib = st->est[i].mem;
}

double opt_run_on(struct opt_state *st, const struct view *v, uint32_t j, const uint32_t *nodes,
                  uint32_t pods)
{
    double run = 0, r, mem;
    if (pods == 1) {
        opt_est(st, v, j, v->cl->nodes[nodes[0]].type, &run, &mem);
        return run;
    }
    for (uint32_t k = 0; k < pods; k++) {
        opt_est(st, v, j, v->cl->nodes[nodes[k]].type, &r, &mem);
        run = fmax(run, r);
    }
    return run + view_allreduce_run_s(v, j, nodes, pods);
}

double opt_est_cpu(struct opt_state *st, const struct view *v, uint32_t j, uint32_t type)
{
    return st->est[opt_est_at(st, v, j, type)].cpu;
}

bool opt_unseen(struct opt_state *st, const struct view *v, uint32_t j)
{
    opt_est_current(st, v, j);
    if (st->known[j] < 0) {
        double run, mem;
        for (uint32_t t = 0; t < v->cl->n_types && st->known[j] < 0; t++)
            if (st->has_gpus[t])
                opt_est(st, v, j, t, &run, &mem);
    }
    return st->known[j] == 0;
}

/* Whether group g's largest node is big enough for job j's GPUs and requests (each
 * maximum may come from another node): a group that fails it has no node for the job. */
static bool opt_group_may_host(const struct opt_group *g, const struct view_job *jb)
{
    return g->max_gpus >= jb->gpus && g->max_cpus + VIEW_FIT_EPS >= jb->cpus &&
           g->max_mem_gib + VIEW_FIT_EPS >= jb->mem_gib;
}

/* Starts a pass over the groups for job j: no GPU type asked yet, unless the last pass
 * was of the same job at the same est_version. Its answers then stand (they depend on
 * nothing else), and a type it did not ask is asked at its first group as before: the
 * estimates it asked are cached, so asking again would change nothing, and the types
 * still to ask come in the same order. A reservation's two searches, and a job's
 * opt_len and its first search, ask each type once. */
static void opt_types_reset(struct opt_state *st, const struct view *v, uint32_t j)
{
    if (st->tp_job == j && st->tp_ver == v->est_version)
        return;
    st->tp_job = j;
    st->tp_ver = v->est_version;
    memset(st->tp_ok, -1, v->cl->n_types * sizeof *st->tp_ok);
}

/* Asks opt_type_ok's question of type t for job j, the first time in a pass. */
static void opt_type_ask(struct opt_state *st, const struct view *v, uint32_t j, uint32_t t)
{
    int8_t *runs = &st->runs_on[(size_t)j * v->cl->n_types + t];
    if (*runs < 0)
        *runs = view_job_runs_on(v, j, t);
    st->tp_ok[t] = 0;
    if (*runs) {
        size_t i = opt_est_at(st, v, j, t);
        st->tp_run[t] = st->est[i].run;
        st->tp_mem[t] = st->est[i].mem;
        st->tp_cpu[t] = st->est[i].cpu;
        st->tp_ok[t] = st->tp_mem[t] <= v->cl->types[t].mem_gib;
    }
}

/* Whether job j may run on GPU type t (view_job_runs_on) with its predicted memory
 * fitting a GPU there, and if so its estimates there in st->tp_run, tp_mem, tp_cpu.
 * Every group of a type gives the same answer, so a pass over the groups asks once
 * per type, at the type's first group: the estimates are then asked (and cached) in
 * the order a pass asking at every group would ask them. */
static inline bool opt_type_ok(struct opt_state *st, const struct view *v, uint32_t j, uint32_t t)
{
    if (st->tp_ok[t] < 0)
        opt_type_ask(st, v, j, t);
    return st->tp_ok[t] == 1;
}

/* Whether a node of group g has the GPUs, CPU and memory for job j's requests, given
 * that its GPU type suits the job (opt_type_ok): a uniform group's nodes are all its
 * maxima, which opt_group_may_host checked. */
static bool opt_group_hosts(const struct opt_state *st, const struct view *v,
                            const struct opt_group *g, const struct view_job *jb)
{
    if (g->uniform)
        return true;
    for (uint32_t q = 0; q < g->count; q++) {
        const struct node *nd = &v->cl->nodes[st->grp_nodes[g->first + q]];
        if (nd->gpu_count >= jb->gpus && nd->cpus + VIEW_FIT_EPS >= jb->cpus &&
            nd->mem_gib + VIEW_FIT_EPS >= jb->mem_gib)
            return true;
    }
    return false;
}

/* Predicted run time on the fastest node that could take the job; INFINITY when
 * none can. A group left out of len_grp answers as an earlier group of len_grp does
 * (same type and maxima, uniform), so the types are asked in the order a pass over
 * every group would ask them and the least run time is the same. */
double opt_len(struct opt_state *st, const struct view *v, uint32_t j)
{
    opt_est_current(st, v, j);
    if (isnan(st->len[j])) {
        const struct view_job jd = view_job(v, j), *jb = &jd;
        double best = INFINITY;
        opt_types_reset(st, v, j);
        for (size_t i = 0; i < st->n_len_grp; i++) {
            const struct opt_group *g = &st->grp[st->len_grp[i]];
            if (opt_group_may_host(g, jb) && opt_type_ok(st, v, j, g->type) &&
                st->tp_run[g->type] < best && opt_group_hosts(st, v, g, jb))
                best = st->tp_run[g->type];
        }
        st->len[j] = best;
    }
    return st->len[j];
}

/* When the controller will learn of an end at time t. */
static double opt_learn_s(const struct view *v, double t)
{
    const struct cluster_config *c = &v->cl->cfg;
    if (c->completion == COMPLETION_EVENT)
        return t;
    return ceil(t / c->poll_interval_s) * c->poll_interval_s;
}

/* ---- the jobs running on a node ---- */

/* Whether entry a of node n's list, a later pod of a job of several, is still in the
 * bookkeeping there. */
static bool opt_pod_live(const struct opt_state *st, const struct view *v, uint32_t n, uint32_t a)
{
    uint32_t j = opt_entry_job(st, a), k = opt_entry_pod(st, a);
    return v->job_active[j] && k < view_pods_held(v, j) && view_pod_node(v, j, k) == n;
}

/* Whether entry a of node n's list (a pod) is still in the bookkeeping there: a job's
 * first pod inline (gcc had called all of it, once per entry). */
static inline bool opt_entry_live(const struct opt_state *st, const struct view *v, uint32_t n,
                                  uint32_t a)
{
    if (a < st->n_jobs)
        return v->job_active[a] && v->job_node[a] == n;
    return opt_pod_live(st, v, n, a);
}

/* The next entry (a pod) of node n's list that is still in the bookkeeping, from *p on
 * (pods that left it leave the list), and *p past it; VIEW_NONE at the end. (Inline,
 * as opt_job_free_s: a node's state is built from its list, one call per job; gcc
 * called it, 1.35 M calls of 36 instructions on the 100k queue.) */
static inline __attribute__((always_inline)) uint32_t opt_list_next(struct opt_state *st, const struct view *v, uint32_t n,
                                     uint32_t **p)
{
    while (**p != VIEW_NONE) {
        uint32_t a = **p;
        if (opt_entry_live(st, v, n, a)) {
            *p = &st->job_next[a];
            return a;
        }
        **p = st->job_next[a];
        st->job_at[a] = VIEW_NONE;
    }
    return VIEW_NONE;
}

/* When the controller expects to learn that running job a ended: its start (or its
 * placement plus the transfer estimate, while its data moves) plus its predicted run
 * time, at the next poll; a job already past that within one more poll interval. */
static inline double opt_job_free_s(const struct opt_state *st, const struct view *v, uint32_t a)
{
    double start = v->job_started_s[a] >= 0 ? v->job_started_s[a]
                                            : v->job_placed_s[a] + st->pred_xfer[a];
    double free_s = opt_learn_s(v, start + st->pred_run[a]);
    return free_s <= v->now ? v->now + v->cl->cfg.poll_interval_s : free_s;
}

/* ---- the groups' segment trees ---- */

/* Group g's tree for jobs of k + 1 GPUs: node i's pair at [2 i] (see opt_leaf_set). */
static inline double *opt_tree_k(const struct opt_state *st, const struct opt_group *g, uint32_t k)
{
    return &st->tree[g->tree + (size_t)k * 4 * g->leaves];
}

/* Sorts t[0..n) ascending, or descending when `down` (at most 16 GPUs); inline, so each
 * caller's direction is a constant. Descending makes the moves of sorting the negated
 * values ascending (-a > -b exactly when a < b, NaN comparing false both ways). */
static inline void opt_sort(double *t, uint32_t n, bool down)
{
    for (uint32_t a = 1; a < n; a++) {
        double x = t[a];
        uint32_t b = a;
        for (; b > 0 && (down ? t[b - 1] < x : t[b - 1] > x); b--)
            t[b] = t[b - 1];
        t[b] = x;
    }
}

/* The bits of x (a value that compares equal may differ: -0, NaN). */
static inline uint64_t opt_bits(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

/* Sets node n's leaf and updates the ancestors (t and gap are filled past the node's
 * GPUs). Per GPU, t ascending: a lower bound of when it frees (-INFINITY: free now and
 * nothing planned on it); gap descending (opt_sort of each): when the first job planned
 * on it starts if it is free now (INFINITY: none), -INFINITY if busy. A node can start
 * a job of k GPUs lasting d now only if its k-th greatest gap is at least now + d, and
 * later no sooner than its k-th least t.
 *
 * A group keeps a tree per k (opt_tree_k), each node a pair: the least k-th t of the
 * nodes below and their greatest k-th gap negated (INFINITY, both, when none has k
 * GPUs). A search for k GPUs reads only its k's tree, where a node is 16 bytes and two
 * siblings share a cache line, and the top levels of every group fit in a few lines. A
 * parent is the least of its children value by value: the greatest of two gaps is the
 * least of their negations to the bit (negating flips the sign bit only). A tree node
 * whose values come out bit for bit as they were leaves its ancestors as they are (each
 * is a function of its two children only): most rebuilds of a node change nothing, or
 * nothing above a level or two. The same holds tree by tree, and a booking moves only a
 * few of a node's k-th values: each level is worked out only for the k whose pair
 * changed at the level below. */
static void opt_leaf_set(struct opt_state *st, const struct view *v, uint32_t n,
                         double t[CLUSTER_MAX_NODE_GPUS], double gap[CLUSTER_MAX_NODE_GPUS])
{
    struct opt_group *g = &st->grp[st->node_grp[n]];
    uint32_t K = g->max_gpus;
    double *tree = opt_tree_k(st, g, 0);
    size_t per_k = 4 * (size_t)g->leaves, i = g->leaves + st->node_pos[n];
    for (uint32_t k = v->cl->nodes[n].gpu_count; k < K; k++) { /* GPUs it lacks: none has k */
        t[k] = INFINITY;
        gap[k] = -INFINITY;
    }
    uint32_t changed = 0; /* bit k: the pair of the tree of k + 1 GPUs changed */
    for (uint32_t k = 0; k < K; k++) {
        double *x = tree + k * per_k + 2 * i;
        double lo = t[k], ngap = -gap[k];
        uint64_t diff = (opt_bits(lo) ^ opt_bits(x[0])) | (opt_bits(ngap) ^ opt_bits(x[1]));
        changed |= (uint32_t)(diff != 0) << k;
        x[0] = lo;
        x[1] = ngap;
    }
    if (changed == 0)
        return;
    st->tree_gen++;
    for (i /= 2; i > 0 && changed != 0; i /= 2) {
        uint32_t up = 0;
        for (uint32_t m = changed; m != 0; m &= m - 1) {
            uint32_t k = (uint32_t)__builtin_ctz(m);
            double *restrict p = tree + k * per_k + 2 * i;
            const double *restrict c = tree + k * per_k + 4 * i; /* children 2i, 2i + 1 */
            double lo = c[0] < c[2] ? c[0] : c[2], ngap = c[1] < c[3] ? c[1] : c[3];
            uint64_t diff = (opt_bits(lo) ^ opt_bits(p[0])) | (opt_bits(ngap) ^ opt_bits(p[1]));
            up |= (uint32_t)(diff != 0) << k;
            p[0] = lo;
            p[1] = ngap;
        }
        changed = up;
    }
    uint32_t gi = st->node_grp[n]; /* the roots that changed */
    for (; changed != 0; changed &= changed - 1) {
        uint32_t k = (uint32_t)__builtin_ctz(changed);
        memcpy(&st->roots[((size_t)k * st->n_grp + gi) * 2], tree + k * per_k + 2, 2 * sizeof *tree);
    }
}

/* fmax(x, now) for a start bound x and a now that is not NaN, inline: it is asked at
 * every tree node a search looks at, and a call costs more than the comparison. (Only
 * a tie of -0 and +0 could come out with another sign than fmax's; a bound is only
 * compared, and added to a duration, so not even that would change a decision.) */
static inline double opt_not_before(double x, double now) { return x > now ? x : now; }

/* The least start that a node below a tree node (x, its pair in the tree of k GPUs)
 * could give a job of k GPUs lasting dur, never before now; *can_now tells whether one
 * of them may take it at once (k GPUs free now with a gap of dur before any planned
 * job). A job running alone, or taking no GPU, has no bound: the caller passes bounded
 * (k > 0 and not alone), and x is read only when it is true. A reservation waits for
 * its GPUs, gaps or not. end_now is now + dur, worked out once by a caller that asks
 * at many tree nodes. */
static inline double opt_bound_at(const double *x, double now, double end_now, bool bounded,
                                  bool reserve, bool *can_now)
{
    *can_now = true;
    if (!bounded)
        return now;
    if (!reserve) {
        *can_now = end_now <= -x[1] + OPT_TIME_EPS_S;
        if (*can_now)
            return now;
    }
    return opt_not_before(x[0], now);
}

/* Node n's bound from its running jobs alone (no plan): a GPU no job of the policy's
 * list holds may free now (-INFINITY); a busy one at its job's predicted end, or, past
 * that, a poll interval from now, as a plan now would compute it. A later plan puts a
 * past end a poll interval from its own time, later still, so the bound holds as time
 * passes. Jobs that left the bookkeeping leave the list. */
void opt_leaf_base(struct opt_state *st, const struct view *v, uint32_t n)
{
    const struct node *nd = &v->cl->nodes[n];
    double t[CLUSTER_MAX_NODE_GPUS], gap[CLUSTER_MAX_NODE_GPUS];
    for (uint32_t q = 0; q < nd->gpu_count; q++)
        t[q] = -INFINITY;
    uint32_t *p = &st->node_head[n];
    for (uint32_t e; (e = opt_list_next(st, v, n, &p)) != VIEW_NONE;) {
        uint32_t a = opt_entry_job(st, e), k = st->pod_gpus[a];
        uint32_t first = v->job_gpu_first[a] + opt_entry_pod(st, e) * k;
        double free_s = opt_job_free_s(st, v, a);
        if (st->alone[n] == a)
            for (uint32_t q = 0; q < nd->gpu_count; q++)
                t[q] = fmax(t[q], free_s);
        for (uint32_t q = 0; q < k; q++) {
            uint32_t g = v->job_gpus[first + q] - nd->gpu_first;
            t[g] = fmax(t[g], free_s);
        }
    }
    /* t holds no NaN (fmax drops one), so its -INFINITY come first once sorted: the gaps
     * then come out in descending order, as a sort of them would leave them. */
    opt_sort(t, nd->gpu_count, false);
    for (uint32_t q = 0; q < nd->gpu_count; q++)
        gap[q] = t[q] == -INFINITY ? INFINITY : -INFINITY;
    opt_leaf_set(st, v, n, t, gap);
}

/* Node n's bound from this plan's state of it (after a booking): a GPU free now with
 * nothing planned on it frees now; one free now may take a job now that ends before the
 * first job planned on it starts; otherwise a GPU frees at avail. */
void opt_leaf_plan(struct opt_state *st, const struct view *v, uint32_t n)
{
    const struct node *nd = &v->cl->nodes[n];
    double t[CLUSTER_MAX_NODE_GPUS], gap[CLUSTER_MAX_NODE_GPUS];
    for (uint32_t q = 0; q < nd->gpu_count; q++) {
        uint32_t g = nd->gpu_first + q;
        bool open = st->free_now[g] && isinf(st->gap_end[g]);
        t[q] = open ? -INFINITY : st->avail[g];
        gap[q] = st->free_now[g] ? st->gap_end[g] : -INFINITY;
    }
    opt_sort(t, nd->gpu_count, false);
    opt_sort(gap, nd->gpu_count, true);
    opt_leaf_set(st, v, n, t, gap);
    if (!st->is_stale[n]) {
        st->is_stale[n] = 1;
        st->stale[st->n_stale++] = n;
    }
}

/* Marks node n's bound for a rebuild from its running jobs: at once, unless the
 * standing plan has built its state (the bound then matches that state until the next
 * plan). */
void opt_node_changed(struct opt_state *st, const struct view *v, uint32_t n)
{
    if (st->node_grp[n] == VIEW_NONE || st->is_stale[n])
        return;
    if (st->node_epoch[n] == st->epoch) {
        st->is_stale[n] = 1;
        st->stale[st->n_stale++] = n;
    } else {
        opt_leaf_base(st, v, n);
    }
}

/* Builds node n's state for the current plan, once per plan: when each of its GPUs is
 * predicted free of the jobs running there (by the bookkeeping), and nothing taken by
 * this plan yet. Jobs that have left the bookkeeping leave the node's list. */
static void opt_touch(struct opt_state *st, const struct view *v, uint32_t n)
{
    if (st->node_epoch[n] == st->epoch)
        return;
    st->node_epoch[n] = st->epoch;
    const struct cluster *cl = v->cl;
    const struct node *nd = &cl->nodes[n];
    double now = v->now, later = now + cl->cfg.poll_interval_s;
    uint32_t g0 = nd->gpu_first, g1 = nd->gpu_first + nd->gpu_count;
    for (uint32_t g = g0; g < g1; g++) {
        st->avail[g] = now;
        st->gap_end[g] = INFINITY;
        st->free_now[g] = v->gpu_assigned[g] == 0;
    }
    uint32_t *p = &st->node_head[n];
    for (uint32_t e; (e = opt_list_next(st, v, n, &p)) != VIEW_NONE;) {
        uint32_t a = opt_entry_job(st, e), k = st->pod_gpus[a];
        uint32_t first = v->job_gpu_first[a] + opt_entry_pod(st, e) * k;
        double free_s = opt_job_free_s(st, v, a);
        if (st->alone[n] == a) {
            for (uint32_t g = g0; g < g1; g++) {
                st->avail[g] = fmax(st->avail[g], free_s);
                st->free_now[g] = 0;
            }
        }
        for (uint32_t q = 0; q < k; q++) {
            uint32_t g = v->job_gpus[first + q];
            st->avail[g] = fmax(st->avail[g], free_s);
        }
    }
    for (uint32_t g = g0; g < g1; g++)
        if (!st->free_now[g] && st->avail[g] <= now)
            st->avail[g] = later; /* busy by the bookkeeping, though no estimate says so */
    if (st->alone[n] != VIEW_NONE && !v->job_active[st->alone[n]])
        st->alone[n] = VIEW_NONE;
    st->cpus_now[n] = st->mem_now[n] = st->cpu_now[n] = 0;
    /* A node at or above the CPU threshold may be eligible at the next scrape; with
     * live metrics, when a job on it ends, guessed as one poll interval. */
    double next_scrape = v->scrape_time_s + cl->cfg.scrape_interval_s;
    if (view_node_eligible(v, n))
        st->ready[n] = now;
    else if (cl->cfg.scrape_interval_s > 0 && next_scrape > now)
        st->ready[n] = next_scrape;
    else
        st->ready[n] = later;
}

/* The first `take` of node GPUs' free times av[0..n) in the order of a repeated
 * selection of the least of the rest (ties: the lowest index), into ord[]. */
static void opt_select_free(const double *av, uint32_t n, uint32_t take, uint32_t *ord)
{
    uint8_t used[CLUSTER_MAX_NODE_GPUS] = {0};
    for (uint32_t i = 0; i < take; i++) {
        uint32_t best = VIEW_NONE;
        for (uint32_t q = 0; q < n; q++)
            if (!used[q] && (best == VIEW_NONE || av[q] < av[best]))
                best = q;
        used[best] = 1;
        ord[i] = best;
    }
}

/* The k GPUs of node n that free first (ties: lowest index) into gpu[], and the time
 * the last of them frees. With all, every GPU of the node counts (a job running alone). */
static double opt_first_free(const struct opt_state *st, const struct node *nd, uint32_t k,
                             bool all, uint32_t *gpu)
{
    const double *av = &st->avail[nd->gpu_first];
    if (!all && k == 1) { /* the common case: one pass */
        uint32_t best = 0;
        for (uint32_t q = 1; q < nd->gpu_count; q++)
            if (av[q] < av[best])
                best = q;
        gpu[0] = nd->gpu_first + best;
        return av[best];
    }
    /* Without NaN, opt_select_free's order is a stable sort's, which one insertion pass
     * keeping the first `take` gives, most GPUs turned away by one comparison (the
     * selection took `take` passes over the node). A NaN compares false both ways, and
     * the selection's order is then its own: it is asked. */
    uint32_t n = nd->gpu_count, take = all ? n : k, ord[CLUSTER_MAX_NODE_GPUS];
    bool nan = false;
    for (uint32_t q = 0; q < n; q++)
        nan |= isnan(av[q]);
    if (nan) {
        opt_select_free(av, n, take, ord);
    } else {
        uint32_t m = 0;
        for (uint32_t q = 0; take > 0 && q < n; q++) {
            if (m == take && !(av[q] < av[ord[m - 1]]))
                continue;
            uint32_t b = m < take ? m++ : m - 1; /* (when full, the last drops out) */
            for (; b > 0 && av[ord[b - 1]] > av[q]; b--)
                ord[b] = ord[b - 1];
            ord[b] = q;
        }
        if (policy_check_indexes) {
            uint32_t sel[CLUSTER_MAX_NODE_GPUS];
            opt_select_free(av, n, take, sel);
            CPN_ASSERT(memcmp(sel, ord, take * sizeof *ord) == 0);
        }
    }
    double t = 0;
    for (uint32_t i = 0; i < take; i++) {
        if (i < k)
            gpu[i] = nd->gpu_first + ord[i];
        t = av[ord[i]] > t ? av[ord[i]] : t;
    }
    return t;
}

/* Whether job j can start on node n now, lasting dur seconds; fills gpu[] if so. */
static bool opt_fits_now(const struct opt_state *st, const struct view *v,
                         const struct view_job *jb, uint32_t n, double dur, double mem, bool alone,
                         uint32_t *gpu)
{
    const struct node *nd = &v->cl->nodes[n];
    double now = v->now, gpu_mem = v->cl->types[nd->type].mem_gib;
    if (st->ready[n] > now || st->alone[n] != VIEW_NONE || !view_node_eligible(v, n))
        return false; /* (the scrape may be live: a standing plan checks it again) */
    if (v->node_cpus_req[n] + st->cpus_now[n] + jb->cpus > nd->cpus + VIEW_FIT_EPS ||
        v->node_mem_req_gib[n] + st->mem_now[n] + jb->mem_gib > nd->mem_gib + VIEW_FIT_EPS)
        return false;
    /* Alone: no job of the bookkeeping or of this plan on the node (every job holds a
     * GPU, so the GPU test below finds them; requests catch them sooner). */
    if (alone && (v->node_cpus_req[n] + st->cpus_now[n] > 0 ||
                  v->node_mem_req_gib[n] + st->mem_now[n] > 0))
        return false;
    uint32_t k = 0;
    for (uint32_t g = nd->gpu_first; g < nd->gpu_first + nd->gpu_count; g++) {
        bool ok = st->free_now[g] && now + dur <= st->gap_end[g] + OPT_TIME_EPS_S &&
                  mem <= gpu_mem - v->gpu_assigned_mem_gib[g] + VIEW_FIT_EPS;
        if (ok && k < jb->gpus)
            gpu[k++] = g;
        else if (!ok && alone)
            return false;
    }
    return k == jb->gpus;
}

/* The i-th group of grp_order[0..m) in order of lb, ties to the lower group index,
 * given that grp_order[0..i) already are the first i: the least of the rest is moved
 * to position i. A search usually stops after a few groups, so ordering them one at
 * a time costs less than sorting them all. */
static uint32_t opt_group_at(struct opt_state *st, size_t i, size_t m)
{
    struct opt_gkey *o = st->grp_order;
    if (!st->grp_sorted) {
        size_t b = i;
        double lb = o[i].lb;
        uint32_t grp = o[i].grp;
        for (size_t q = i + 1; q < m; q++)
            if (o[q].lb < lb || (o[q].lb == lb && o[q].grp < grp)) { /* (opt_gkey_less) */
                b = q;
                lb = o[q].lb;
                grp = o[q].grp;
            }
        struct opt_gkey t = o[i];
        o[i] = o[b];
        o[b] = t;
    }
    if (st->grp_placed < i + 1)
        st->grp_placed = i + 1;
    return o[i].grp;
}

/* One search for job j in one group: what the visited nodes are compared with. */
struct opt_search {
    uint32_t job;
    struct view_job jb; /* what it declares (asked once per search) */
    double dur;      /* transfer + run on the group, with no CPU contention: a bound */
    double run;      /* the run part of it */
    double cpu;      /* the CPU cores the job would keep busy on the group */
    double mem;      /* its predicted peak memory per GPU there */
    bool uniform;    /* the group is uniform: its nodes are all as large as its maxima */
    bool alone;      /* an unseen model: needs the whole node, the bounds do not apply */
    bool now_only;   /* only places where it starts at once */
    bool reserve;    /* a reservation: start when enough GPUs free, ties to res_node */
    bool found;
    struct opt_slot best;
};

/* The order of the groups a search looks at: by bound, ties to the lower group index. */
static inline bool opt_gkey_less(const struct opt_gkey *a, const struct opt_gkey *b)
{
    return a->lb < b->lb || (a->lb == b->lb && a->grp < b->grp);
}

/* The transfer + run of the job of the last list of groups on group g, from its
 * transfers to each site and its run times on each type (st->site_xfer and tp_run: a
 * loop over the groups passes them in locals, which its stores cannot alias). */
static inline double opt_group_dur(const struct opt_group *g, const double *xfer,
                                   const double *run)
{
    return xfer[g->site] + run[g->type];
}

/* Lists in grp_order the groups that could take job j, with the bound of its finish
 * there (transfer + run after the tree's bound); returns how many there are. Transfer
 * estimates are asked once per site, all sites of groups in one call, into site_xfer. A search usually looks at
 * two or three groups of some 25, so the first OPT_GTOP in order are kept sorted as
 * they are listed (each of the others costs one comparison) and put first:
 * opt_group_at orders the rest only if a search gets that far (grp_placed tells how
 * many are in place). */
static size_t opt_order_groups(struct opt_state *st, const struct view *v, const struct opt_search *s)
{
    const struct view_job *jb = &s->jb;
    uint32_t j = s->job;
    bool alone = s->alone;
    if (st->xfer_job != j || st->xfer_point != st->point) {
        view_transfer_estimates_s(v, j, st->grp_sites, st->n_grp_sites, st->site_xfer);
        st->xfer_job = j;
        st->xfer_point = st->point;
    }
    struct opt_gkey top[OPT_GTOP], *rest = st->grp_order + OPT_GTOP;
    size_t nt = 0, nr = 0;
    bool nan_lb = false;
    opt_types_reset(st, v, j);
    /* A class's first group answers for the class, and the classes come in the order of
     * their first groups: the types are asked in the order a pass asking at every group
     * would ask them. */
    for (size_t c = 0; c < st->n_cls; c++) {
        const struct opt_group *g = &st->grp[st->cls_grp[c]];
        st->cls_ok[c] = opt_group_may_host(g, jb) && opt_type_ok(st, v, j, g->type);
    }
    /* The roots' row of the job's k (read only where a group may take it, so it has one),
     * and now, are the same for every group. */
    uint32_t gpus = jb->gpus;
    bool bounded = gpus > 0 && !alone;
    const double *row =
        bounded && gpus <= st->max_k ? &st->roots[(size_t)(gpus - 1) * st->n_grp * 2] : NULL;
    double now = v->now;
    /* What the loop reads is in locals: its stores might alias the state's fields, which
     * the compiler would then load again for every group (it did: st->grp, site_xfer and
     * tp_run at each). */
    const uint32_t *cls = st->grp_cls;
    const uint8_t *cls_ok = st->cls_ok;
    const struct opt_group *grp = st->grp;
    const double *xfer = st->site_xfer, *run = st->tp_run;
    uint32_t n_grp = (uint32_t)st->n_grp;
    for (uint32_t i = 0; i < n_grp; i++) {
        if (!cls_ok[cls[i]])
            continue;
        double dur = opt_group_dur(&grp[i], xfer, run);
        /* No slot of the group finishes before its tree's bound (or now) plus dur. */
        bool can_now;
        double lb = opt_bound_at(bounded ? row + 2 * (size_t)i : NULL, now, now + dur, bounded,
                                 false, &can_now) + dur;
        nan_lb |= isnan(lb);
        /* The groups come in index order, so e is after every group listed before it
         * on a tie: opt_gkey_less(&e, x) is e.lb < x->lb for each of them. */
        struct opt_gkey e = {.lb = lb, .grp = i};
        if (nt == OPT_GTOP && !(lb < top[OPT_GTOP - 1].lb)) {
            rest[nr++] = e;
            continue;
        }
        if (nt == OPT_GTOP)
            rest[nr++] = top[--nt];
        size_t q = nt++;
        for (; q > 0 && lb < top[q - 1].lb; q--)
            top[q] = top[q - 1];
        top[q] = e;
    }
    memcpy(st->grp_order, top, nt * sizeof top[0]);
    size_t m = nt + nr;
    st->grp_placed = nt;
    /* A NaN bound compares as neither before nor after: the groups are then sorted at
     * once as they always were, by insertion in index order (it stops at a NaN), from
     * index order (all the group indices differ). */
    st->grp_sorted = nan_lb;
    for (size_t q = 1; nan_lb && q < m; q++) {
        struct opt_gkey x = st->grp_order[q];
        size_t k = q;
        for (; k > 0 && st->grp_order[k - 1].grp > x.grp; k--)
            st->grp_order[k] = st->grp_order[k - 1];
        st->grp_order[k] = x;
    }
    for (size_t q = 1; nan_lb && q < m; q++) {
        struct opt_gkey x = st->grp_order[q];
        size_t k = q;
        for (; k > 0 && st->grp_order[k - 1].lb > x.lb; k--)
            st->grp_order[k] = st->grp_order[k - 1];
        st->grp_order[k] = x;
    }
    return m;
}

/* True when candidate c beats b: earlier finish, then starting now, then the lower
 * node index (the order a scan of all nodes by index would give). */
static bool opt_slot_better(const struct opt_slot *c, const struct opt_slot *b)
{
    if (c->finish != b->finish)
        return c->finish < b->finish;
    if (c->now != b->now)
        return c->now;
    return c->node < b->node;
}

/* ---- branch and bound over a group's nodes ---- */

/* Points search s at group gi: the job's estimates there. */
static void opt_search_group_set(const struct opt_state *st, struct opt_search *s, uint32_t gi)
{
    uint32_t t = st->grp[gi].type;
    s->dur = opt_group_dur(&st->grp[gi], st->site_xfer, st->tp_run);
    s->run = st->tp_run[t];
    s->cpu = st->tp_cpu[t];
    s->mem = st->tp_mem[t];
    s->uniform = st->grp[gi].uniform;
}

/* The first position in its group below tree node i (at depth d, 2^d <= i < 2^(d+1),
 * it covers positions i x 2^(h-d) - leaves on, where leaves = 2^h). */
static inline uint32_t opt_subtree_lo(uint32_t i, uint32_t leaves)
{
    uint32_t d = 31 - (uint32_t)__builtin_clz(i), h = (uint32_t)__builtin_ctz(leaves);
    return (i << (h - d)) - leaves;
}

/* Whether a node of the subtree at tree node i of a group (its nodes' indices in
 * nodes[], in position order), whose start bound is lb, where a job may (can_now) or
 * may not start at once, could beat the best slot found so far. The subtree's lowest
 * node index, nodes[opt_subtree_lo(i)], breaks a tie: it is looked up only then. */
static inline bool opt_could_beat(const struct opt_state *st, const struct opt_search *s,
                                  double lb, bool can_now, const uint32_t *nodes, uint32_t i,
                                  uint32_t leaves)
{
    if (s->now_only && !can_now)
        return false;
    if (!s->found)
        return true;
    double f = lb + s->dur;
    if (f != s->best.finish)
        return f < s->best.finish;
    uint32_t lo = nodes[opt_subtree_lo(i, leaves)];
    if (s->reserve) /* ties keep the node held, else go to the lowest index */
        return s->best.node != st->res_node[s->job] && lo < s->best.node;
    if (can_now != s->best.now)
        return can_now;
    return lo < s->best.node;
}

/* Evaluates node n exactly for the search, as the plan's state of it says. Its group
 * is one that opt_order_groups listed: the job may run on its GPU type and its
 * predicted memory fits a GPU there (opt_type_ok), and the group's maxima hold its
 * requests. So all that is left of "could the node ever take it" is the node's own
 * size, and in a uniform group not even that. */
static void opt_visit(struct opt_state *st, const struct view *v, struct opt_search *s, uint32_t n)
{
    const struct cluster *cl = v->cl;
    const struct view_job *jb = &s->jb;
    const struct node *nd = &cl->nodes[n];
    if (!s->uniform && (nd->gpu_count < jb->gpus || nd->cpus + VIEW_FIT_EPS < jb->cpus ||
                        nd->mem_gib + VIEW_FIT_EPS < jb->mem_gib))
        return;
    opt_touch(st, v, n);
    /* Its GPUs are filled where it is placed (opt_fits_now, opt_first_free), the first
     * ngpus: the array is not cleared for each node visited. */
    struct opt_slot c;
    c.node = n;
    c.now = false;
    c.ngpus = jb->gpus;
    /* Its run there slowed by the CPU contention the scrape predicts (never faster, so
     * s->dur stays a bound of what any node of the group gives); for a later pod of a
     * job of several, lengthened by the all-reduce over this node and those of the pods
     * before it (none on their nodes, most across the WAN: pods keep together). */
    double dur = s->dur + s->run * (view_cpu_slowdown(v, n, s->cpu, st->cpu_now[n]) - 1.0);
    if (st->g_n > 0) {
        st->g_nodes[st->g_n] = n;
        dur += view_allreduce_run_s(v, s->job, st->g_nodes, st->g_n + 1);
    }
    if (s->reserve) {
        c.start = fmax(st->ready[n], opt_first_free(st, nd, jb->gpus, s->alone, c.gpu));
        c.finish = c.start + dur;
        bool better = !s->found || c.finish < s->best.finish;
        if (!better && c.finish == s->best.finish && s->best.node != st->res_node[s->job])
            better = n == st->res_node[s->job] || n < s->best.node;
        if (better) {
            s->best = c;
            s->found = true;
        }
        return;
    }
    if (opt_fits_now(st, v, jb, n, dur, s->mem, s->alone, c.gpu)) {
        c.now = true;
        c.start = v->now;
    } else if (s->now_only) {
        return;
    } else {
        c.start = fmax(st->ready[n], opt_first_free(st, nd, jb->gpus, s->alone, c.gpu));
        if (c.start <= v->now) /* free GPUs, but its requests do not fit yet */
            c.start = v->now + cl->cfg.poll_interval_s;
    }
    c.finish = c.start + dur;
    if (!s->found || opt_slot_better(&c, &s->best)) {
        s->best = c;
        s->found = true;
    }
}

/* Visits, in node order, the nodes of group gi that could beat the best found so far:
 * a subtree is skipped when its bound (the least time k GPUs of one of its nodes may
 * free, and never before now) cannot. The bound is opt_bound_at's, with what does not
 * change within the group worked out once: the tree of k GPUs is found once, and
 * now + dur, which opt_bound's gap test would add up at every tree node, is the same sum
 * each time. A subtree still to look at is its tree index alone (opt_subtree_lo gives
 * its first position). For k > 0 a subtree wholly past the group's nodes holds
 * INFINITY, as one where no node has k GPUs, so its test of x[0] skips it: the position
 * is worked out only for k = 0, at a leaf, and on a tie of finishes. */
static void opt_search_group(struct opt_state *st, const struct view *v, uint32_t gi,
                             struct opt_search *s)
{
    struct opt_group *g = &st->grp[gi];
    uint32_t k = s->jb.gpus;
    if (k > g->max_gpus)
        return; /* no node of the group has k GPUs */
    const double *tree = opt_tree_k(st, g, k > 0 ? k - 1 : 0); /* (read only for k > 0) */
    const uint32_t *nodes = &st->grp_nodes[g->first];
    bool bounded = k > 0 && !s->alone; /* (else there is no bound: now) */
    double now = v->now, end_now = v->now + s->dur;
    uint32_t leaves = g->leaves;
    uint32_t stack[64]; /* depth-first: at most two per level */
    size_t top = 0;
    stack[top++] = 1;
    while (top > 0) {
        uint32_t i = stack[--top];
        const double *x = tree + 2 * (size_t)i;
        if (k > 0 ? x[0] == INFINITY : opt_subtree_lo(i, leaves) >= g->count)
            continue; /* no node below has k GPUs, or none is of the group */
        bool can_now;
        double lb = opt_bound_at(x, now, end_now, bounded, s->reserve, &can_now);
        if (!opt_could_beat(st, s, lb, can_now, nodes, i, leaves))
            continue;
        if (i >= leaves) {
            opt_visit(st, v, s, nodes[i - leaves]);
            continue;
        }
        /* The child with the lower bound first: a good slot found early prunes more. */
        uint32_t l = 2 * i, r = 2 * i + 1;
        bool r_first = bounded && tree[2 * (size_t)r] < tree[2 * (size_t)l];
        stack[top++] = r_first ? l : r;
        stack[top++] = r_first ? r : l;
    }
}

/* Checks a search against visiting every node of the m ordered groups, as a plan
 * without the trees would (policy_check_indexes): the bounds may only skip nodes
 * that cannot win. The check must leave the plan as it found it, or a checked run
 * would schedule differently: visiting a node builds its state for the plan
 * (opt_touch) as of now, once per plan, and a standing plan that reaches the node
 * only at a later scheduling point must still build it then. So the nodes' plan
 * epochs, their running-alone marks and the job's known flag are put back after.
 * (The other per-node scratch is rebuilt by the next touch; pruning ended jobs off a
 * node's list changes nothing a later walk would see.) The copies of the trees' roots
 * that listed the groups must also be their roots, bit for bit. */
static void opt_check_search(struct opt_state *st, const struct view *v, const struct opt_search *s0,
                             size_t m, const struct opt_search *got)
{
    size_t nn = v->cl->n_nodes;
    uint64_t *epoch = cpn_calloc(nn ? nn : 1, sizeof *epoch);
    uint32_t *alone = cpn_calloc(nn ? nn : 1, sizeof *alone);
    memcpy(epoch, st->node_epoch, nn * sizeof *epoch);
    memcpy(alone, st->alone, nn * sizeof *alone);
    int8_t known = st->known[s0->job];
    struct opt_search all = *s0;
    if (all.reserve && st->res_node[all.job] != VIEW_NONE)
        for (size_t i = 0; i < m; i++)
            if (st->grp_order[i].grp == st->node_grp[st->res_node[all.job]]) {
                opt_search_group_set(st, &all, st->grp_order[i].grp);
                opt_visit(st, v, &all, st->res_node[all.job]);
            }
    for (size_t i = 0; i < m; i++) {
        const struct opt_group *g = &st->grp[opt_group_at(st, i, m)];
        opt_search_group_set(st, &all, st->grp_order[i].grp);
        for (uint32_t q = 0; q < g->count; q++)
            opt_visit(st, v, &all, st->grp_nodes[g->first + q]);
    }
    memcpy(st->node_epoch, epoch, nn * sizeof *epoch);
    memcpy(st->alone, alone, nn * sizeof *alone);
    st->known[s0->job] = known;
    free(epoch);
    free(alone);
    for (uint32_t gi = 0; gi < st->n_grp; gi++)
        for (uint32_t k = 0; k < st->grp[gi].max_gpus; k++)
            CPN_ASSERT(memcmp(&st->roots[((size_t)k * st->n_grp + gi) * 2],
                              opt_tree_k(st, &st->grp[gi], k) + 2, 2 * sizeof(double)) == 0);
    CPN_ASSERT(all.found == got->found);
    if (all.found)
        CPN_ASSERT(all.best.node == got->best.node && all.best.now == got->best.now &&
                   all.best.start == got->best.start && all.best.finish == got->best.finish);
}

/* Runs search s (its job and mode set) over the groups that could take the job, in
 * order of their bound, and stops at a group whose bound is later than the best finish
 * found. A reservation looks at the node it holds first, so that ties keep it. Fills
 * *out and returns true when a node could take the job. */
static bool opt_run_search(struct opt_state *st, const struct view *v, struct opt_search s,
                           struct opt_slot *out)
{
    const struct opt_search s0 = s;
    /* The list of groups (and the order found of it so far) depends on the job, the
     * point (now, and the transfers), the estimates and the trees: a search of the same
     * job with none of them changed since the last one (a reservation's try at starting
     * now, after its reservation was searched) takes it as it stands, provided the
     * types' answers it reads (tp_run, ...) are still the job's. */
    size_t m = st->grp_m;
    if (st->grp_job != s.job || st->grp_point != st->point || st->grp_ver != v->est_version ||
        st->grp_tree != st->tree_gen || st->tp_job != s.job || st->tp_ver != v->est_version) {
        m = st->grp_m = opt_order_groups(st, v, &s);
        st->grp_job = s.job;
        st->grp_point = st->point;
        st->grp_ver = v->est_version;
        st->grp_tree = st->tree_gen;
    }
    uint32_t held = s.reserve ? st->res_node[s.job] : VIEW_NONE;
    if (held != VIEW_NONE)
        for (size_t i = 0; i < m; i++)
            if (st->grp_order[i].grp == st->node_grp[held]) {
                opt_search_group_set(st, &s, st->grp_order[i].grp);
                opt_visit(st, v, &s, held);
            }
    for (size_t i = 0; i < m; i++) {
        uint32_t gi = i < st->grp_placed ? st->grp_order[i].grp : opt_group_at(st, i, m);
        if (s.found && st->grp_order[i].lb > s.best.finish)
            break;
        opt_search_group_set(st, &s, gi);
        opt_search_group(st, v, gi, &s);
    }
    if (policy_check_indexes)
        opt_check_search(st, v, &s0, m, &s);
    if (s.found)
        *out = s.best;
    return s.found;
}

/* The best place for job j: earliest predicted finish over all nodes, starting now
 * or later (ties: starting now, then the lowest node index). With now_only, only
 * places where it can start at once. Returns false when no node could ever take it. */
bool opt_best_slot(struct opt_state *st, const struct view *v, uint32_t j, bool now_only,
                   struct opt_slot *best)
{
    struct opt_search s = {.job = j, .jb = view_job(v, j), .alone = opt_unseen(st, v, j),
                           .now_only = now_only};
    return opt_run_search(st, v, s, best);
}

/* The reservation for job j: the node where enough GPUs free for it soonest, counting
 * how long it runs there; it keeps its node on a tie, else the lowest index wins. */
bool opt_reserve_slot(struct opt_state *st, const struct view *v, uint32_t j,
                      struct opt_slot *res)
{
    struct opt_search s = {.job = j, .jb = view_job(v, j), .alone = opt_unseen(st, v, j),
                           .reserve = true};
    return opt_run_search(st, v, s, res);
}

