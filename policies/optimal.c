/* optimal: the optimal-allocation policy. At each scheduling point it builds a plan
 * for the whole queue from the predictor's estimates and starts the jobs the plan
 * starts now; the rest stay queued and are planned again at the next scheduling point
 * (a job is never dropped).
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
 * so with exact predictions it never causes an OOM kill. Nodes whose last scraped CPU
 * utilisation is at or above cpu_threshold take no job until the next scrape.
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
 * Unseen models. A job whose model the predictor does not know runs alone: it starts
 * only on a node where nothing runs and, while it runs, nothing else starts there. The
 * predictor does not learn during a run, so this holds for every run of such a job.
 *
 * Cost. A scheduling point plans at most optimal_window jobs: the reservations first,
 * then jobs that have waited reserve_after_s (oldest first), then the first of the
 * configured order; a queue no longer than the window is planned whole, as above.
 * Nodes are grouped by site and GPU type, where a job's transfer and run estimates are
 * the same; groups are tried in order of transfer + run and a group that cannot beat
 * the best finish found is skipped, and inside a group the first node where the job
 * starts now ends the search. The plan's state of a node (when its GPUs free, what
 * this plan took) is built from the node's own running jobs the first time the plan
 * looks at it, so a plan costs what it touches, not the size of the cluster. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/util.h"
#include "policy.h"

/* Slack when comparing predicted times computed along different paths (seconds):
 * a rounding difference must not turn "can start now" into "wait". */
#define OPT_TIME_EPS_S 1e-6
/* Slack when adding requests or memory to what a node or GPU holds (floating sums),
 * as view_node_fits_requests allows. */
#define OPT_FIT_EPS 1e-9

struct opt_key {
    double key;   /* sort key, ascending */
    uint32_t pos; /* position in the queue, for ties */
    uint32_t job;
};

/* A job competing for the window: jobs that have waited reserve_after_s come first,
 * oldest first, then the others in the configured order. */
struct opt_cand {
    bool aged;
    double rank; /* submit time when aged, else the order's key */
    struct opt_key k;
};

/* A candidate place for one job. */
struct opt_slot {
    uint32_t node;
    bool now; /* it can start at once */
    double start, finish;
    uint32_t ngpus;
    uint32_t gpu[CLUSTER_MAX_NODE_GPUS];
};

/* Nodes of one site and one GPU type, in index order: a job's transfer and run
 * estimates are the same on all of them. The maxima reject a job no node can take. */
struct opt_group {
    uint32_t site, type;
    uint32_t first, count; /* into grp_nodes */
    uint32_t max_gpus;
    double max_cpus, max_mem_gib;
};

struct opt_state {
    struct opt_group *grp; /* [n_grp] */
    size_t n_grp;
    uint32_t *grp_nodes;   /* node indices, group after group */
    uint32_t *grp_order;   /* [n_grp] scratch: groups by transfer + run */
    double *grp_dur;       /* [n_grp] scratch: transfer + run of the job on the group */
    double *site_xfer;     /* [sites] scratch: transfer estimate of the job to each site */
    uint32_t *node_head;   /* [nodes] first job placed there by this policy, VIEW_NONE */
    uint32_t *job_next;    /* [jobs] next job of the same node's list */
    uint32_t *job_at;      /* [jobs] node whose list holds the job, VIEW_NONE */
    uint64_t *node_epoch;  /* [nodes] plan that last built the node's state */
    uint64_t epoch;        /* the current plan */
    uint64_t idle_version; /* view version of the last plan that started nothing */
    double idle_now;       /* its time */
    size_t idle_qlen;      /* its queue length */
    bool idle_valid;
    uint32_t *type_node; /* [types] a node with GPUs of each type, VIEW_NONE when none */
    double *est_run;     /* [jobs * types] predicted run time alone; NAN until asked */
    double *est_mem;     /* [jobs * types] predicted peak memory per GPU */
    int8_t *known;       /* [jobs] 1 known model, 0 unseen, -1 not asked yet */
    double *len;         /* [jobs] predicted run time on its fastest node; NAN until asked */
    double *pred_run;    /* [jobs] at its last placement */
    double *pred_xfer;   /* [jobs] at its last placement */
    uint32_t *res_node;  /* [jobs] node it holds a reservation on, VIEW_NONE */
    uint32_t *alone;     /* [nodes] an unseen-model job running alone there, VIEW_NONE */

    /* Scratch of one plan. */
    double *avail;       /* [gpus] when the GPU is predicted free of running and planned jobs */
    double *gap_end;     /* [gpus] start of the first job planned on a GPU free now, or INFINITY */
    uint8_t *free_now;   /* [gpus] free now and not taken by this plan */
    double *ready;       /* [nodes] earliest start allowed by the CPU threshold */
    double *cpus_now;    /* [nodes] CPU requests of this plan's placements */
    double *mem_now;     /* [nodes] their memory requests */
    uint8_t *done;       /* [jobs] handled in this plan */
    struct opt_key *order; /* [jobs] */
    struct opt_key *win;   /* [window] scratch: the jobs this plan takes */
    struct opt_cand *cand; /* [window] scratch: the best candidates for it so far */
    size_t window;         /* optimal_window, at most the number of jobs */
    struct placement *plan; /* [jobs] what this plan starts now */
    size_t plan_len, plan_next;
    bool planned;        /* a plan exists for this scheduling point */
};

static void *opt_alloc(size_t n, size_t size) { return cpn_calloc(n ? n : 1, size); }

static int opt_init(void **state, const struct view *v, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    const struct cluster *cl = v->cl;
    size_t nj = v->jobs->n, nt = cl->n_types;
    struct opt_state *st = cpn_calloc(1, sizeof *st);
    st->type_node = opt_alloc(nt, sizeof *st->type_node);
    for (size_t t = 0; t < nt; t++)
        st->type_node[t] = VIEW_NONE;
    for (uint32_t n = (uint32_t)cl->n_nodes; n-- > 0;)
        if (cl->nodes[n].gpu_count > 0)
            st->type_node[cl->nodes[n].type] = n;
    st->grp = opt_alloc(cl->n_sites * nt, sizeof *st->grp);
    st->grp_nodes = opt_alloc(cl->n_nodes, sizeof *st->grp_nodes);
    uint32_t k = 0;
    for (uint32_t si = 0; si < cl->n_sites; si++) {
        const struct site *site = &cl->sites[si];
        for (uint32_t t = 0; t < nt; t++) {
            struct opt_group g = {.site = si, .type = t, .first = k};
            for (uint32_t n = site->node_first; n < site->node_first + site->node_count; n++) {
                const struct node *nd = &cl->nodes[n];
                if (nd->gpu_count == 0 || nd->type != t)
                    continue;
                st->grp_nodes[k++] = n;
                g.max_gpus = nd->gpu_count > g.max_gpus ? nd->gpu_count : g.max_gpus;
                g.max_cpus = fmax(g.max_cpus, nd->cpus);
                g.max_mem_gib = fmax(g.max_mem_gib, nd->mem_gib);
            }
            g.count = k - g.first;
            if (g.count > 0)
                st->grp[st->n_grp++] = g;
        }
    }
    st->grp_order = opt_alloc(st->n_grp, sizeof *st->grp_order);
    st->grp_dur = opt_alloc(st->n_grp, sizeof *st->grp_dur);
    st->site_xfer = opt_alloc(cl->n_sites, sizeof *st->site_xfer);
    st->node_head = opt_alloc(cl->n_nodes, sizeof *st->node_head);
    st->node_epoch = opt_alloc(cl->n_nodes, sizeof *st->node_epoch);
    for (size_t n = 0; n < cl->n_nodes; n++)
        st->node_head[n] = VIEW_NONE;
    st->job_next = opt_alloc(nj, sizeof *st->job_next);
    st->job_at = opt_alloc(nj, sizeof *st->job_at);
    for (size_t j = 0; j < nj; j++)
        st->job_at[j] = VIEW_NONE;
    st->epoch = 1;
    st->est_run = opt_alloc(nj * nt, sizeof *st->est_run);
    st->est_mem = opt_alloc(nj * nt, sizeof *st->est_mem);
    for (size_t i = 0; i < nj * nt; i++)
        st->est_run[i] = NAN;
    st->known = opt_alloc(nj, sizeof *st->known);
    st->len = opt_alloc(nj, sizeof *st->len);
    st->res_node = opt_alloc(nj, sizeof *st->res_node);
    for (size_t j = 0; j < nj; j++) {
        st->known[j] = -1;
        st->len[j] = NAN;
        st->res_node[j] = VIEW_NONE;
    }
    st->pred_run = opt_alloc(nj, sizeof *st->pred_run);
    st->pred_xfer = opt_alloc(nj, sizeof *st->pred_xfer);
    st->alone = opt_alloc(cl->n_nodes, sizeof *st->alone);
    for (size_t n = 0; n < cl->n_nodes; n++)
        st->alone[n] = VIEW_NONE;
    st->avail = opt_alloc(cl->n_gpus, sizeof *st->avail);
    st->gap_end = opt_alloc(cl->n_gpus, sizeof *st->gap_end);
    st->free_now = opt_alloc(cl->n_gpus, sizeof *st->free_now);
    st->ready = opt_alloc(cl->n_nodes, sizeof *st->ready);
    st->cpus_now = opt_alloc(cl->n_nodes, sizeof *st->cpus_now);
    st->mem_now = opt_alloc(cl->n_nodes, sizeof *st->mem_now);
    st->done = opt_alloc(nj, sizeof *st->done);
    st->order = opt_alloc(nj, sizeof *st->order);
    st->plan = opt_alloc(nj, sizeof *st->plan);
    st->window = cl->cfg.optimal_window < nj ? cl->cfg.optimal_window : nj;
    st->win = opt_alloc(st->window, sizeof *st->win);
    st->cand = opt_alloc(st->window, sizeof *st->cand);
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
    free(st->grp_order);
    free(st->grp_dur);
    free(st->site_xfer);
    free(st->node_head);
    free(st->node_epoch);
    free(st->job_next);
    free(st->job_at);
    free(st->win);
    free(st->cand);
    free(st->type_node);
    free(st->est_run);
    free(st->est_mem);
    free(st->known);
    free(st->len);
    free(st->pred_run);
    free(st->pred_xfer);
    free(st->res_node);
    free(st->alone);
    free(st->avail);
    free(st->gap_end);
    free(st->free_now);
    free(st->ready);
    free(st->cpus_now);
    free(st->mem_now);
    free(st->done);
    free(st->order);
    free(st->plan);
    free(st);
}

/* ---- estimates (cached: they depend only on the job and the GPU type) ---- */

static void opt_est(struct opt_state *st, const struct view *v, uint32_t j, uint32_t type,
                    double *run_s, double *mem_gib)
{
    size_t i = (size_t)j * v->cl->n_types + type;
    if (isnan(st->est_run[i])) {
        struct view_estimate e;
        view_estimate(v, j, st->type_node[type], &e);
        st->est_run[i] = e.run_s;
        st->est_mem[i] = e.mem_gib;
        st->known[j] = e.known;
    }
    *run_s = st->est_run[i];
    *mem_gib = st->est_mem[i];
}

/* True when node n could ever take job j: enough GPUs holding its predicted memory,
 * and CPU and memory capacity for its requests. Sets its predicted run time and peak
 * memory per GPU there. */
static bool opt_can_host(struct opt_state *st, const struct view *v, uint32_t j, uint32_t n,
                         double *run_s, double *mem_gib)
{
    const struct node *nd = &v->cl->nodes[n];
    const struct job *jb = view_job(v, j);
    if (nd->gpu_count < jb->gpus || nd->cpus + OPT_FIT_EPS < jb->cpus ||
        nd->mem_gib + OPT_FIT_EPS < jb->mem_gib)
        return false;
    opt_est(st, v, j, nd->type, run_s, mem_gib);
    return *mem_gib <= v->cl->types[nd->type].mem_gib;
}

static bool opt_unseen(struct opt_state *st, const struct view *v, uint32_t j)
{
    if (st->known[j] < 0) {
        double run, mem;
        for (uint32_t t = 0; t < v->cl->n_types && st->known[j] < 0; t++)
            if (st->type_node[t] != VIEW_NONE)
                opt_est(st, v, j, t, &run, &mem);
    }
    return st->known[j] == 0;
}

/* Predicted run time on the fastest node that could take the job; INFINITY when
 * none can. */
static double opt_len(struct opt_state *st, const struct view *v, uint32_t j)
{
    if (isnan(st->len[j])) {
        const struct job *jb = view_job(v, j);
        double best = INFINITY, run, mem;
        for (size_t i = 0; i < st->n_grp; i++) {
            const struct opt_group *g = &st->grp[i];
            if (g->max_gpus < jb->gpus || g->max_cpus + OPT_FIT_EPS < jb->cpus ||
                g->max_mem_gib + OPT_FIT_EPS < jb->mem_gib)
                continue;
            opt_est(st, v, j, g->type, &run, &mem);
            if (run >= best || mem > v->cl->types[g->type].mem_gib)
                continue;
            for (uint32_t q = 0; q < g->count; q++)
                if (opt_can_host(st, v, j, st->grp_nodes[g->first + q], &run, &mem)) {
                    best = run;
                    break;
                }
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
    while (*p != VIEW_NONE) {
        uint32_t a = *p;
        if (!v->job_active[a] || v->job_node[a] != n) {
            *p = st->job_next[a];
            st->job_at[a] = VIEW_NONE;
            continue;
        }
        p = &st->job_next[a];
        double start = v->job_started_s[a] >= 0 ? v->job_started_s[a]
                                                : v->job_placed_s[a] + st->pred_xfer[a];
        double free_s = opt_learn_s(v, start + st->pred_run[a]);
        if (free_s <= now)
            free_s = later; /* past its predicted end: expected within a poll */
        if (st->alone[n] == a) {
            for (uint32_t g = g0; g < g1; g++) {
                st->avail[g] = fmax(st->avail[g], free_s);
                st->free_now[g] = 0;
            }
        }
        for (uint32_t q = 0; q < view_job(v, a)->gpus; q++) {
            uint32_t g = v->job_gpus[v->job_gpu_first[a] + q];
            st->avail[g] = fmax(st->avail[g], free_s);
        }
    }
    for (uint32_t g = g0; g < g1; g++)
        if (!st->free_now[g] && st->avail[g] <= now)
            st->avail[g] = later; /* busy by the bookkeeping, though no estimate says so */
    if (st->alone[n] != VIEW_NONE && !v->job_active[st->alone[n]])
        st->alone[n] = VIEW_NONE;
    st->cpus_now[n] = st->mem_now[n] = 0;
    /* A node at or above the CPU threshold may be eligible at the next scrape; with
     * live metrics, when a job on it ends, guessed as one poll interval. */
    double next_scrape = v->scrape_time_s + cl->cfg.scrape_interval_s;
    if (view_node_below_cpu_threshold(v, n))
        st->ready[n] = now;
    else if (cl->cfg.scrape_interval_s > 0 && next_scrape > now)
        st->ready[n] = next_scrape;
    else
        st->ready[n] = later;
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
    uint32_t take = all ? nd->gpu_count : k;
    uint8_t used[CLUSTER_MAX_NODE_GPUS] = {0};
    double t = 0;
    for (uint32_t i = 0; i < take; i++) {
        uint32_t best = VIEW_NONE;
        for (uint32_t q = 0; q < nd->gpu_count; q++)
            if (!used[q] && (best == VIEW_NONE || av[q] < av[best]))
                best = q;
        used[best] = 1;
        if (i < k)
            gpu[i] = nd->gpu_first + best;
        t = av[best] > t ? av[best] : t;
    }
    return t;
}

/* Whether job j can start on node n now, lasting dur seconds; fills gpu[] if so. */
static bool opt_fits_now(const struct opt_state *st, const struct view *v, uint32_t j,
                         uint32_t n, double dur, double mem, bool alone, uint32_t *gpu)
{
    const struct node *nd = &v->cl->nodes[n];
    const struct job *jb = view_job(v, j);
    double now = v->now, gpu_mem = v->cl->types[nd->type].mem_gib;
    if (st->ready[n] > now || st->alone[n] != VIEW_NONE)
        return false;
    if (v->node_cpus_req[n] + st->cpus_now[n] + jb->cpus > nd->cpus + OPT_FIT_EPS ||
        v->node_mem_req_gib[n] + st->mem_now[n] + jb->mem_gib > nd->mem_gib + OPT_FIT_EPS)
        return false;
    /* Alone: no job of the bookkeeping or of this plan on the node (every job holds a
     * GPU, so the GPU test below finds them; requests catch them sooner). */
    if (alone && (v->node_cpus_req[n] + st->cpus_now[n] > 0 ||
                  v->node_mem_req_gib[n] + st->mem_now[n] > 0))
        return false;
    uint32_t k = 0;
    for (uint32_t g = nd->gpu_first; g < nd->gpu_first + nd->gpu_count; g++) {
        bool ok = st->free_now[g] && now + dur <= st->gap_end[g] + OPT_TIME_EPS_S &&
                  mem <= gpu_mem - v->gpu_assigned_mem_gib[g] + OPT_FIT_EPS;
        if (ok && k < jb->gpus)
            gpu[k++] = g;
        else if (!ok && alone)
            return false;
    }
    return k == jb->gpus;
}

/* Sorts the groups that could take job j by its transfer + run there, into
 * grp_order; returns how many there are. Transfer estimates are asked once per site. */
static size_t opt_order_groups(struct opt_state *st, const struct view *v, uint32_t j)
{
    const struct cluster *cl = v->cl;
    const struct job *jb = view_job(v, j);
    for (size_t si = 0; si < cl->n_sites; si++)
        st->site_xfer[si] = NAN;
    size_t m = 0;
    for (uint32_t i = 0; i < st->n_grp; i++) {
        const struct opt_group *g = &st->grp[i];
        double run, mem;
        if (g->max_gpus < jb->gpus || g->max_cpus + OPT_FIT_EPS < jb->cpus ||
            g->max_mem_gib + OPT_FIT_EPS < jb->mem_gib)
            continue;
        opt_est(st, v, j, g->type, &run, &mem);
        if (mem > cl->types[g->type].mem_gib)
            continue;
        if (isnan(st->site_xfer[g->site]))
            st->site_xfer[g->site] = view_transfer_estimate_s(v, j, g->site);
        double dur = st->site_xfer[g->site] + run;
        st->grp_dur[i] = dur;
        size_t k = m++;
        for (; k > 0 && st->grp_dur[st->grp_order[k - 1]] > dur; k--)
            st->grp_order[k] = st->grp_order[k - 1];
        st->grp_order[k] = i;
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

/* The best place for job j: earliest predicted finish over all nodes, starting now
 * or later (ties: starting now, then the lowest node index). With now_only, only
 * places where it can start at once. Returns false when no node could ever take it.
 * Groups are tried by transfer + run; one whose earliest possible finish (starting now)
 * is later than the best found cannot win, nor can the rest of a group after a node
 * where the job starts now. */
static bool opt_best_slot(struct opt_state *st, const struct view *v, uint32_t j, bool now_only,
                          struct opt_slot *best)
{
    const struct cluster *cl = v->cl;
    const struct job *jb = view_job(v, j);
    bool alone = opt_unseen(st, v, j), found = false;
    size_t m = opt_order_groups(st, v, j);
    for (size_t i = 0; i < m; i++) {
        const struct opt_group *g = &st->grp[st->grp_order[i]];
        double dur = st->grp_dur[st->grp_order[i]];
        if (found && v->now + dur > best->finish)
            break;
        for (uint32_t q = 0; q < g->count; q++) {
            uint32_t n = st->grp_nodes[g->first + q];
            double run, mem;
            if (!opt_can_host(st, v, j, n, &run, &mem))
                continue;
            opt_touch(st, v, n);
            const struct node *nd = &cl->nodes[n];
            struct opt_slot c = {.node = n, .ngpus = jb->gpus};
            if (opt_fits_now(st, v, j, n, dur, mem, alone, c.gpu)) {
                c.now = true;
                c.start = v->now;
            } else if (now_only) {
                continue;
            } else {
                c.start = fmax(st->ready[n], opt_first_free(st, nd, jb->gpus, alone, c.gpu));
                if (c.start <= v->now) /* free GPUs, but its requests do not fit yet */
                    c.start = v->now + cl->cfg.poll_interval_s;
            }
            c.finish = c.start + dur;
            if (!found || opt_slot_better(&c, best)) {
                *best = c;
                found = true;
            }
            if (c.now)
                break; /* the group's other nodes finish no sooner and come later */
        }
    }
    return found;
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
    st->done[j] = 1;
    if (!s->now)
        return;
    const struct job *jb = view_job(v, j);
    st->cpus_now[s->node] += jb->cpus;
    st->mem_now[s->node] += jb->mem_gib;
    struct placement *p = &st->plan[st->plan_len++];
    memset(p, 0, sizeof *p);
    p->job = j;
    p->node = s->node;
    p->ngpus = s->ngpus;
    memcpy(p->gpu, s->gpu, s->ngpus * sizeof s->gpu[0]);
}

static int opt_cmp_key(const void *a, const void *b)
{
    const struct opt_key *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->pos < y->pos ? -1 : (x->pos > y->pos);
}

/* Reservations: jobs of many GPUs that have waited too long, oldest first, at most
 * the window. Returns how many were planned. */
static size_t opt_plan_reservations(struct opt_state *st, const struct view *v)
{
    const struct cluster_config *c = &v->cl->cfg;
    size_t m = 0;
    uint32_t pos = 0;
    for (uint32_t j = v->queue_head; j != VIEW_NONE; j = v->queue_next[j], pos++) {
        const struct job *jb = view_job(v, j);
        if (jb->gpus >= c->reserve_min_gpus && v->now - jb->submit_s >= c->reserve_after_s)
            st->order[m++] = (struct opt_key){.key = jb->submit_s, .pos = pos, .job = j};
        else
            st->res_node[j] = VIEW_NONE;
    }
    qsort(st->order, m, sizeof *st->order, opt_cmp_key);
    if (m > st->window)
        m = st->window; /* the others wait for their turn, oldest first */
    for (size_t i = 0; i < m; i++) {
        uint32_t j = st->order[i].job;
        const struct job *jb = view_job(v, j);
        bool alone = opt_unseen(st, v, j);
        /* The node where enough GPUs free soonest for it, counting how long it runs
         * there; it keeps its node on a tie, else the lowest index wins. */
        struct opt_slot res = {.node = VIEW_NONE, .ngpus = jb->gpus};
        size_t ng = opt_order_groups(st, v, j);
        for (size_t gi = 0; gi < ng; gi++) {
            const struct opt_group *g = &st->grp[st->grp_order[gi]];
            double dur = st->grp_dur[st->grp_order[gi]];
            if (res.node != VIEW_NONE && v->now + dur > res.finish)
                break;
            for (uint32_t q = 0; q < g->count; q++) {
                uint32_t n = st->grp_nodes[g->first + q];
                double run, mem;
                if (!opt_can_host(st, v, j, n, &run, &mem))
                    continue;
                opt_touch(st, v, n);
                const struct node *nd = &v->cl->nodes[n];
                uint32_t gpu[CLUSTER_MAX_NODE_GPUS] = {0};
                double t = fmax(st->ready[n], opt_first_free(st, nd, jb->gpus, alone, gpu));
                double fin = t + dur;
                bool better = res.node == VIEW_NONE || fin < res.finish;
                if (!better && fin == res.finish && res.node != st->res_node[j])
                    better = n == st->res_node[j] || n < res.node;
                if (better) {
                    res.node = n;
                    res.start = t;
                    res.finish = fin;
                    memcpy(res.gpu, gpu, sizeof gpu);
                }
            }
        }
        struct opt_slot now;
        bool can_now = opt_best_slot(st, v, j, true, &now);
        if (can_now && (res.node == VIEW_NONE || now.finish <= res.finish + OPT_TIME_EPS_S)) {
            st->res_node[j] = VIEW_NONE;
            opt_book(st, v, j, &now);
        } else if (res.node != VIEW_NONE) {
            st->res_node[j] = res.node;
            opt_book(st, v, j, &res);
        }
    }
    return m;
}

/* True when a goes into the window before b. */
static bool opt_cand_before(const struct opt_cand *a, const struct opt_cand *b)
{
    if (a->aged != b->aged)
        return a->aged;
    if (a->rank != b->rank)
        return a->rank < b->rank;
    return a->k.pos < b->k.pos;
}

/* Restores the max-heap (by opt_cand_before: the root goes last) below i. */
static void opt_cand_sift(struct opt_cand *h, size_t len, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, w = i;
        if (l < len && opt_cand_before(&h[w], &h[l]))
            w = l;
        if (r < len && opt_cand_before(&h[w], &h[r]))
            w = r;
        if (w == i)
            return;
        struct opt_cand t = h[i];
        h[i] = h[w];
        h[w] = t;
        i = w;
    }
}

/* Builds the plan of this scheduling point: reservations first, then the other jobs
 * of the window in the configured order. */
static void opt_plan(struct opt_state *st, const struct view *v)
{
    const struct cluster_config *cfg = &v->cl->cfg;
    st->plan_len = st->plan_next = 0;
    st->planned = true;
    if (st->idle_valid && st->idle_version == v->version && st->idle_now == v->now &&
        st->idle_qlen == v->queue_len)
        return; /* the same view and queue as a plan that started nothing */
    st->epoch++;
    for (uint32_t j = v->queue_head; j != VIEW_NONE; j = v->queue_next[j])
        st->done[j] = 0;
    size_t room = st->window - opt_plan_reservations(st, v);
    size_t m = 0;
    uint32_t pos = 0;
    int order = cfg->optimal_order;
    struct opt_cand *heap = st->cand;
    for (uint32_t j = v->queue_head; j != VIEW_NONE && room > 0; j = v->queue_next[j], pos++) {
        if (st->done[j])
            continue;
        const struct job *jb = view_job(v, j);
        double len = opt_len(st, v, j), key = 0;
        if (isinf(len))
            key = INFINITY; /* fits nowhere: last, it will not be placed */
        else if (order == OPTIMAL_ORDER_LPT)
            key = -len;
        else if (order == OPTIMAL_ORDER_SPT)
            key = len;
        else if (order == OPTIMAL_ORDER_WORK)
            key = -len * jb->gpus;
        struct opt_cand c = {.aged = v->now - jb->submit_s >= cfg->reserve_after_s,
                             .k = {.key = key, .pos = pos, .job = j}};
        c.rank = c.aged ? jb->submit_s : key;
        if (m < room) {
            heap[m++] = c;
            if (m == room)
                for (size_t i = m / 2; i-- > 0;)
                    opt_cand_sift(heap, m, i);
        } else if (opt_cand_before(&c, &heap[0])) {
            heap[0] = c;
            opt_cand_sift(heap, m, 0);
        }
    }
    for (size_t i = 0; i < m; i++)
        st->win[i] = heap[i].k;
    qsort(st->win, m, sizeof *st->win, opt_cmp_key);
    for (size_t i = 0; i < m; i++) {
        struct opt_slot s;
        if (opt_best_slot(st, v, st->win[i].job, false, &s))
            opt_book(st, v, st->win[i].job, &s);
    }
    st->idle_valid = st->plan_len == 0;
    st->idle_version = v->version;
    st->idle_now = v->now;
    st->idle_qlen = v->queue_len;
}

static int opt_place(void *state, const struct view *v, struct placement *out)
{
    struct opt_state *st = state;
    if (!st->planned)
        opt_plan(st, v);
    if (st->plan_next == st->plan_len)
        return 0;
    *out = st->plan[st->plan_next++];
    uint32_t j = out->job;
    const struct node *nd = &v->cl->nodes[out->node];
    double mem;
    opt_est(st, v, j, nd->type, &st->pred_run[j], &mem);
    st->pred_xfer[j] = view_transfer_estimate_s(v, j, nd->site);
    if (opt_unseen(st, v, j))
        st->alone[out->node] = j;
    st->res_node[j] = VIEW_NONE;
    opt_unlink(st, j);
    st->job_next[j] = st->node_head[out->node];
    st->node_head[out->node] = j;
    st->job_at[j] = out->node;
    return 1;
}

/* Called at the end of every scheduling point: the next one plans afresh. */
static double opt_wakeup(void *state, const struct view *v)
{
    (void)v;
    struct opt_state *st = state;
    st->planned = false;
    return INFINITY;
}

const struct policy_ops optimal_policy = {
    .name = "optimal",
    .never_overcommits = true,
    .summary = "plans the queue by predicted finish time (transfer + run) without over-committing "
               "GPU memory; CPU threshold; reservations for long-waiting many-GPU jobs",
    .init = opt_init,
    .place = opt_place,
    .wakeup = opt_wakeup,
    .destroy = opt_destroy,
};
