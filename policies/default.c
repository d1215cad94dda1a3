/* default: the Kubernetes default scheduler (kube-scheduler) as the grid operator ran
 * it, below a controller that only picks the site.
 *
 * Site. The site with the most GPUs that looked idle in the last scrape (ties: the
 * lowest site index), chosen afresh for each job. With a stale scrape every job of
 * one scheduling point goes to the same site, since the scrape does not change in
 * between; with live metrics (scrape_interval_s 0) each placement changes the counts,
 * so the jobs of one point may go to different sites.
 *
 * Inside the site, kube-scheduler's filter and score (docs/policies.md cites the
 * sources). Filter (NodeResourcesFit): the node's requested CPU and memory, by the
 * controller's bookkeeping, plus the job's must fit its capacity; with
 * gpu_as_resource also nvidia.com/gpu, counted as the node's GPUs that no job of the
 * bookkeeping uses. A node with fewer GPUs than the job uses is filtered out too: the
 * job's container could not start there; and so, as a node selector would, is a node
 * whose GPU type the job may not run on (view_job_runs_on). Score: LeastAllocated
 * (NodeResourcesFit's default strategy) plus BalancedAllocation, each on CPU and memory
 * with weight 1 and plugin weight 1, in kube-scheduler's integer arithmetic; the best
 * node is bound (kube-scheduler breaks ties at random; here the lowest node index wins,
 * so that runs repeat).
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
 * OOM back-off is a new pod of the Job: its attempts start again from zero.
 *
 * Pods. A job of several pods (docs/distributed.md) is submitted to one site: its first
 * pod goes to the site chosen as above, the others to that site's kube-scheduler, which
 * binds them one at a time, each a decision of its own with the filter and score above;
 * a bound pod holds its node's requests while the others wait (no gang). kube-scheduler
 * takes pods in order of creation, and the Job controller creates the pods of the jobs
 * that entered the queue at one instant side by side: the first pod of each, then the
 * second of each, and so on. So two jobs of two whole-node pods, submitted together on
 * two nodes, take a node each and wait for ever for the other (with gang_timeout_s 0):
 * the classic pod-by-pod deadlock. Without gpu_as_resource each pod's script starts on
 * cuda:0, so two pods of one job on one node would share its GPUs, which NCCL refuses:
 * a node that holds a pod of the job is filtered out, as a pod anti-affinity on the
 * host name would. The pods of a job not yet bound were tried, and failed, with the one
 * bound before them: they keep its count of failed attempts (its back-off), and the
 * next is tried, in its place in the pod queue, within the scheduling point where the
 * one before it was bound. A job whose attempt timed out (gang_timeout_s) leaves the
 * queue; it comes back after the engine's back-off as a new Job, its attempts from zero.
 *
 * Gang scheduling. With gang_scheduling (the coscheduling plugin of
 * kubernetes-sigs/scheduler-plugins: a PodGroup whose minMember is the job's pods),
 * a job's pods are bound all at once or not at all. They are filtered and scored one
 * after another as above, each seeing the requests (and, with gpu_as_resource, the
 * GPUs) of the pods of the decision before it; when every pod has a node, they are
 * bound in consecutive placements, and when one has none the job fails its attempt as
 * a job of one pod does. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "default.h"
#include "podfit.h"
#include "../sim/base/heap.h"

/* kube-scheduler's framework.MaxNodeScore: every score plugin scores 0..100. */
#define DFLT_MAX_NODE_SCORE 100

/* The queue is kept as cohorts: jobs of one shape (GPUs, CPU, memory, the GPU types
 * they may run on, pods) that failed equally often and at the same time (and whose
 * pods, if some are bound, are in the same site), and so share their back-off and
 * whether they are parked. A scheduling point usually retries most of a
 * long queue and most of it fails the same way; a cohort then fails as a whole in O(1)
 * instead of job by job, while the jobs actually tried are taken out one by one in
 * queue order. */

/* Nothing frees up within a scheduling point, so a failed bind of one shape means
 * that every job at least as large in GPUs, CPU and memory, and allowed on no more GPU
 * types, fails too, in that site.
 * Enough for the few shapes of real queues; further failures go unremembered and
 * their jobs are simply tried. */
#define DFLT_MEMO_MAX 16
/* Nodes scored between two looks at the stop flag (view_stopping). */
#define DFLT_STOP_EVERY 4096
/* More failed attempts than any back-off needs to reach its cap (doubling a positive
 * double overflows well before this). */
#define DFLT_MAX_TRIES_CLASS 4096

enum dflt_cohort_state { DFLT_FREE, DFLT_ELIGIBLE, DFLT_BACKOFF, DFLT_PARKED };

/* The policy's tunables (policy_ops.params). */
struct dflt_params {
    double kube_backoff_s;     /* first back-off of an unschedulable job */
    double kube_backoff_max_s; /* its ceiling */
    bool gang_scheduling;      /* a job's pods bound all at once or not at all */
};

/* clang-format off */
static const struct param dflt_params_table[] = {
    {.name = "kube_backoff_s", .kind = PARAM_DOUBLE,
     .offset = offsetof(struct dflt_params, kube_backoff_s), .def = 1,
     .b = PARAM_ABOVE(0),
     .meaning = "default policy: back-off (s) after a job's first failed scheduling attempt; "
                "doubles per attempt (kube-scheduler podInitialBackoffSeconds)"},
    {.name = "kube_backoff_max_s", .kind = PARAM_DOUBLE,
     .offset = offsetof(struct dflt_params, kube_backoff_max_s), .def = 10,
     .b = PARAM_ABOVE(0),
     .meaning = "default policy: back-off ceiling (s) (kube-scheduler podMaxBackoffSeconds)"},
    {.name = "gang_scheduling", .kind = PARAM_BOOL,
     .offset = offsetof(struct dflt_params, gang_scheduling), .def = 0,
     .meaning = "default policy: bind a distributed job's pods all at once or not at all (the "
                "coscheduling plugin); false: one at a time, each holding its node"},
};
/* clang-format on */

struct dflt_cohort {
    uint32_t root;        /* its jobs: a pairing heap by queue order (seq) */
    uint32_t shape;
    uint32_t tries;       /* failed attempts of each job, counted up to st->tries_cap */
    /* Its job of greatest seq, a leaf, or NONE when not known (dflt_cohort_append). Read
     * only while jobs are appended to it: as the fresh cohort of its shape until the next
     * scheduling point, or as a cohort failed into within one. */
    uint32_t tail;
    double backoff_until; /* no new attempt before this time */
    uint32_t fail_to;     /* the parked cohort its jobs failed into in this point, or NONE */
    uint32_t site;        /* the site its jobs' bound pods are in, or NONE (none bound) */
    uint8_t state;        /* enum dflt_cohort_state */
};

struct dflt_shape {
    uint32_t gpus;
    double cpus, mem_gib;
    uint32_t runs; /* its run set: the GPU types its jobs may run on (view_job_runs_on) */
    uint32_t pods;
};

/* A growable array of cohort ids. */
struct dflt_ids {
    uint32_t *v;
    size_t n, cap;
};

/* A job's place in the queue: its queue order and the pairing-heap links of its
 * cohort, which a scheduling point reads together. One aligned 32-byte block per job:
 * as five arrays they had cost a cache miss each, on a queue that holds most of a
 * million jobs. */
struct dflt_job {
    uint64_t seq;   /* the place of its next pod in the pod queue: the queue order */
    uint32_t child; /* first child in the pairing heap */
    uint32_t sib;   /* next sibling */
    uint32_t prev;  /* its parent if it is the first child, else the previous sibling;
                     * NONE for a root (to take a timed-out job out) */
    uint32_t shape; /* its shape */
    uint8_t queued; /* in a cohort */
};
#define DFLT_JOB_ALIGN 32
_Static_assert(sizeof(struct dflt_job) == DFLT_JOB_ALIGN, "a job's block is one aligned block");

struct dflt_state {
    struct dflt_job *job; /* [jobs], DFLT_JOB_ALIGN-aligned in job_mem */
    void *job_mem;
    uint64_t next_seq;
    /* The pod queue: the pods of the jobs queued at one instant (between two scheduling
     * points, a round) interleave, pod k of each before pod k + 1 of any. A round of m
     * jobs, the most pods of any being P, takes seq base .. base + P m: pod k of its
     * i-th job is base + k m + i, so a job's next pod is span = m further on. */
    uint64_t *span;         /* [jobs] of several pods: its round's jobs */
    uint64_t round_base;    /* the first seq of the round being queued */
    uint32_t round_pods;    /* the most pods of a job queued in it */
    struct dflt_ids round_jobs; /* its jobs of several pods */

    struct dflt_shape *shapes;
    /* Run sets: [n_runs * types], 1 where the jobs may run on the type; set 0 is every
     * type, which most jobs have. */
    uint8_t *runs;
    size_t n_runs, cap_runs;
    uint32_t *fresh;       /* [shapes] cohort of jobs queued since the last point, or NONE */
    uint64_t *fresh_round; /* [shapes] the point before which fresh[] was made */

    struct dflt_cohort *co;
    size_t n_co, cap_co;
    uint32_t free_co; /* list of free cohorts, through root */

    /* Beyond tries_cap failures every back-off is kube_backoff_max_s: such jobs can
     * share a cohort whatever their exact count. */
    uint32_t tries_cap;

    struct dflt_ids elig;   /* eligible cohorts, between points and while one starts */
    struct heap boff;       /* cohorts (uint32_t) in back-off, by backoff_until */
    struct dflt_ids parked; /* parked cohorts, in no order */
    struct heap walk;       /* this point's cohorts (dflt_walk_ent), by their first job */
    struct dflt_ids aside;  /* this point's cohorts known to fail, set aside */
    uint64_t *sort_key; /* scratch for sorting the eligible cohorts */
    size_t cap_sort_key;

    uint32_t memo[DFLT_MEMO_MAX]; /* shapes that failed to bind in this point's site */
    size_t n_memo;
    uint32_t memo_site;
    /* With scrapes, this point's site (dflt_site at its first placement; VIEW_NONE
     * before): no scrape comes within a point, so every job of it goes there. Always
     * VIEW_NONE with live metrics, where each placement may change the site. Picked at
     * the first placement, not at dflt_begin: most points of a long run place nothing
     * (on the Philly trace, picking it at every begin cost 0.9% more instructions). */
    uint32_t point_site;
    uint64_t pos;   /* seq of the last job tried in this point; those before it in a
                     * set-aside cohort have, in effect, been tried and failed */
    uint64_t round; /* scheduling points begun */
    size_t learnt;      /* ends learnt so far (POLICY_JOB_LEARNT) */
    size_t learnt_seen; /* ends learnt, as of the last scheduling point */
    double scrape_s; /* time of the scrape seen at the last scheduling point */
    bool in_round;   /* place() was called in this scheduling point */
    struct dflt_nodes nodes; /* the nodes by class, for the binds */

    /* A bind's exceptions (jobs of several pods): nodes the filter refuses (its pods'
     * anti-affinity), and nodes a gang decision has put pods on (fit), judged by what
     * those pods would take there instead of by their class. */
    uint32_t *excl;     /* [fit.max_pods] */
    size_t n_excl;
    uint32_t *frontier; /* [fit.max_pods + 2] scratch of dflt_class_first_but */
    struct podfit fit;  /* a gang decision's pods, bound one per place */
};

static void dflt_ids_push(struct dflt_ids *a, uint32_t id)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 64;
        a->v = cpn_realloc(a->v, a->cap * sizeof *a->v);
    }
    a->v[a->n++] = id;
}

/* ---- pairing heaps of jobs, by seq ---- */

/* Merges two heaps (roots with no siblings). */
static uint32_t dflt_ph_link(struct dflt_state *st, uint32_t a, uint32_t b)
{
    if (a == VIEW_NONE)
        return b;
    if (b == VIEW_NONE)
        return a;
    if (st->job[b].seq < st->job[a].seq) {
        uint32_t t = a;
        a = b;
        b = t;
    }
    uint32_t c = st->job[a].child;
    st->job[b].sib = c;
    if (c != VIEW_NONE)
        st->job[c].prev = b;
    st->job[b].prev = a;
    st->job[a].prev = VIEW_NONE;
    st->job[a].child = b;
    return a;
}

/* Removes the root; returns the new root. The usual two passes: pairs left to right,
 * then merged right to left. */
static uint32_t dflt_ph_pop(struct dflt_state *st, uint32_t root)
{
    uint32_t acc = VIEW_NONE, x = st->job[root].child;
    st->job[root].child = VIEW_NONE;
    while (x != VIEW_NONE) {
        uint32_t a = x, b = st->job[a].sib, next = b == VIEW_NONE ? VIEW_NONE : st->job[b].sib;
        st->job[a].sib = VIEW_NONE;
        if (b != VIEW_NONE)
            st->job[b].sib = VIEW_NONE;
        uint32_t m = dflt_ph_link(st, a, b);
        st->job[m].sib = acc;
        acc = m;
        x = next;
    }
    uint32_t res = VIEW_NONE;
    while (acc != VIEW_NONE) {
        uint32_t next = st->job[acc].sib;
        st->job[acc].sib = VIEW_NONE;
        res = dflt_ph_link(st, res, acc);
        acc = next;
    }
    if (res != VIEW_NONE)
        st->job[res].prev = VIEW_NONE;
    return res;
}

/* Takes job x, which is not a root, out of its heap: its children, merged, take its
 * place among its siblings (their keys are no smaller than its, so no smaller than its
 * parent's). */
static void dflt_ph_cut(struct dflt_state *st, uint32_t x)
{
    uint32_t p = st->job[x].prev, next = st->job[x].sib;
    uint32_t in = dflt_ph_pop(st, x); /* what takes its place: its children, or next */
    if (in != VIEW_NONE) {
        st->job[in].sib = next;
        st->job[in].prev = p;
        if (next != VIEW_NONE)
            st->job[next].prev = in;
    } else {
        in = next;
        if (next != VIEW_NONE)
            st->job[next].prev = p;
    }
    if (st->job[p].child == x)
        st->job[p].child = in;
    else
        st->job[p].sib = in;
    st->job[x].sib = st->job[x].prev = VIEW_NONE;
}

/* ---- cohorts ---- */

static uint32_t dflt_cohort_new(struct dflt_state *st, uint32_t shape, uint32_t tries,
                                double backoff_until, uint32_t site, enum dflt_cohort_state state)
{
    uint32_t c;
    if (st->free_co != VIEW_NONE) {
        c = st->free_co;
        st->free_co = st->co[c].root;
    } else {
        if (st->n_co == st->cap_co) {
            st->cap_co = st->cap_co ? 2 * st->cap_co : 64;
            st->co = cpn_realloc(st->co, st->cap_co * sizeof *st->co);
        }
        c = (uint32_t)st->n_co++;
    }
    st->co[c] = (struct dflt_cohort){.root = VIEW_NONE, .shape = shape, .tries = tries,
                                     .tail = VIEW_NONE,
                                     .backoff_until = backoff_until, .fail_to = VIEW_NONE,
                                     .site = site, .state = (uint8_t)state};
    return c;
}

/* The heap of root r, whose jobs all come after cohort c's in the queue, joins c; r_tail
 * is its job of greatest seq, a leaf, or NONE when not known. Jobs join a fresh cohort,
 * and one that jobs fail into, in queue order: linked below c's tail, each below the one
 * before it, they make a chain whose pops touch one job each, where as the root's
 * children the first pop had paired them all, a cache miss each at a million jobs. With
 * no known tail, r is linked with the root. */
static void dflt_cohort_append(struct dflt_state *st, uint32_t c, uint32_t r, uint32_t r_tail)
{
    uint32_t t = st->co[c].tail;
    CPN_ASSERT(!policy_check_indexes ||
               (st->job[r].sib == VIEW_NONE && st->job[r].prev == VIEW_NONE &&
                (t == VIEW_NONE ||
                 (st->job[t].child == VIEW_NONE && st->job[t].seq < st->job[r].seq))));
    if (t != VIEW_NONE) {
        st->job[t].child = r;
        st->job[r].prev = t;
    } else {
        st->co[c].root = dflt_ph_link(st, st->co[c].root, r);
    }
    st->co[c].tail = r_tail;
}

static void dflt_cohort_free(struct dflt_state *st, uint32_t c)
{
    st->co[c].state = DFLT_FREE;
    st->co[c].root = st->free_co;
    st->free_co = c;
}

/* The back-off heap orders cohorts by back-off (ties keep the heap's fixed order),
 * the walk by first job. The context is the state. */
static bool dflt_boff_before(const void *a, const void *b, const void *ctx)
{
    const struct dflt_state *st = ctx;
    return st->co[*(const uint32_t *)a].backoff_until < st->co[*(const uint32_t *)b].backoff_until;
}

/* A cohort in the walk, with the queue order of its first job (its root changes only
 * while it is the walk's first, and dflt_walk_again then puts it in its place). */
struct dflt_walk_ent {
    uint64_t seq;
    uint32_t co;
};

static bool dflt_walk_before(const void *a, const void *b, const void *ctx)
{
    (void)ctx;
    return ((const struct dflt_walk_ent *)a)->seq < ((const struct dflt_walk_ent *)b)->seq;
}

static const struct heap_ops dflt_boff_ops = {.size = sizeof(uint32_t), .less = dflt_boff_before};
static const struct heap_ops dflt_walk_ops = {.size = sizeof(struct dflt_walk_ent),
                                             .less = dflt_walk_before};

static void dflt_boff_push(struct dflt_state *st, uint32_t c)
{
    heap_push(&st->boff, &dflt_boff_ops, st, &c);
}

static uint32_t dflt_boff_pop(struct dflt_state *st)
{
    uint32_t top;
    heap_pop(&st->boff, &dflt_boff_ops, st, &top);
    return top;
}

/* Cohort c (not empty) joins the walk. */
static void dflt_walk_push(struct dflt_state *st, uint32_t c)
{
    struct dflt_walk_ent e = {.seq = st->job[st->co[c].root].seq, .co = c};
    heap_push(&st->walk, &dflt_walk_ops, NULL, &e);
}

/* The cohort of the walk whose first job comes first in the queue (the walk must not
 * be empty). */
static uint32_t dflt_walk_first(const struct dflt_state *st)
{
    return ((const struct dflt_walk_ent *)heap_at(&st->walk, &dflt_walk_ops, 0))->co;
}

/* The walk's first cohort leaves it. */
static void dflt_walk_pop(struct dflt_state *st)
{
    heap_pop(&st->walk, &dflt_walk_ops, NULL, NULL);
}

/* The walk's first cohort, c, had its first job taken out and has jobs left: it goes
 * where its new first job puts it, in one sift where a pop and a push took two. */
static void dflt_walk_again(struct dflt_state *st, uint32_t c)
{
    struct dflt_walk_ent e = {.seq = st->job[st->co[c].root].seq, .co = c};
    heap_replace(&st->walk, &dflt_walk_ops, NULL, 0, &e);
}

/* The cohort whose back-off ends first (the back-off heap must not be empty). */
static uint32_t dflt_boff_first(const struct dflt_state *st)
{
    return *(const uint32_t *)heap_at(&st->boff, &dflt_boff_ops, 0);
}

/* The run set of job j: the GPU types it may run on, numbered in the order first seen
 * after set 0 (every type). A few jobs of a few models are barred from a type, so a
 * linear search of the sets is enough. */
static uint32_t dflt_run_set(struct dflt_state *st, const struct view *v, uint32_t j)
{
    size_t nt = v->cl->n_types;
    cpn_grow((void **)&st->runs, &st->cap_runs, (st->n_runs + 1) * nt, 1);
    uint8_t *cand = &st->runs[st->n_runs * nt]; /* the free row after the last set */
    bool all = true;
    for (size_t t = 0; t < nt; t++)
        all &= (cand[t] = view_job_runs_on(v, j, (uint32_t)t)) != 0;
    if (all)
        return 0;
    for (size_t r = 1; r < st->n_runs; r++)
        if (memcmp(&st->runs[r * nt], cand, nt) == 0)
            return (uint32_t)r;
    return (uint32_t)st->n_runs++;
}

/* True when jobs of run set a may run only on types where those of run set b may. */
static bool dflt_runs_within(const struct dflt_state *st, size_t nt, uint32_t a, uint32_t b)
{
    for (size_t t = 0; a != b && t < nt; t++)
        if (st->runs[a * nt + t] && !st->runs[b * nt + t])
            return false;
    return true;
}

/* Shape ids: jobs with equal GPUs, CPU, memory, run set and pods share one. Open
 * addressing. */
static void dflt_find_shapes(struct dflt_state *st, const struct view *v)
{
    size_t nt = v->cl->n_types;
    cpn_grow((void **)&st->runs, &st->cap_runs, nt ? nt : 1, 1);
    memset(st->runs, 1, nt);
    st->n_runs = 1;
    size_t cap = 16;
    while (cap < 2 * v->n_jobs)
        cap *= 2;
    uint32_t *slot = cpn_malloc(cap * sizeof *slot);
    for (size_t i = 0; i < cap; i++)
        slot[i] = VIEW_NONE;
    size_t n_shapes = 0;
    st->shapes = cpn_calloc(v->n_jobs ? v->n_jobs : 1, sizeof *st->shapes);
    for (size_t j = 0; j < v->n_jobs; j++) {
        const struct view_job jd = view_job(v, (uint32_t)j), *jb = &jd;
        struct dflt_shape sh = {jb->gpus, jb->cpus, jb->mem_gib, dflt_run_set(st, v, (uint32_t)j),
                                jb->pods};
        uint64_t bc, bm;
        memcpy(&bc, &sh.cpus, sizeof bc);
        memcpy(&bm, &sh.mem_gib, sizeof bm);
        uint64_t h = (sh.gpus * 0x9E3779B97F4A7C15ull) ^ (bc * 0xC2B2AE3D27D4EB4Full) ^
                     (bm * 0x165667B19E3779F9ull) ^ ((uint64_t)sh.runs << 40) ^
                     ((uint64_t)(sh.pods - 1) << 20);
        size_t i = (size_t)(h ^ (h >> 31)) & (cap - 1);
        for (;; i = (i + 1) & (cap - 1)) {
            if (slot[i] == VIEW_NONE) {
                slot[i] = (uint32_t)n_shapes;
                st->shapes[n_shapes++] = sh;
                break;
            }
            const struct dflt_shape *o = &st->shapes[slot[i]];
            if (o->gpus == sh.gpus && memcmp(&o->cpus, &sh.cpus, sizeof sh.cpus) == 0 &&
                memcmp(&o->mem_gib, &sh.mem_gib, sizeof sh.mem_gib) == 0 && o->runs == sh.runs &&
                o->pods == sh.pods)
                break;
        }
        st->job[j].shape = slot[i];
    }
    free(slot);
    st->fresh = cpn_malloc((n_shapes ? n_shapes : 1) * sizeof *st->fresh);
    for (size_t i = 0; i < n_shapes; i++)
        st->fresh[i] = VIEW_NONE;
    st->fresh_round = cpn_calloc(n_shapes ? n_shapes : 1, sizeof *st->fresh_round);
}

static double dflt_backoff_s(const struct dflt_params *c, uint32_t tries);

static int dflt_init(void **state, const struct view *v, char *err, size_t errlen)
{
    (void)err;
    (void)errlen;
    size_t n = v->n_jobs ? v->n_jobs : 1;
    struct dflt_state *st = cpn_calloc(1, sizeof *st);
    st->job_mem = cpn_malloc(n * sizeof *st->job + DFLT_JOB_ALIGN);
    st->job = (struct dflt_job *)(((uintptr_t)st->job_mem + DFLT_JOB_ALIGN - 1) &
                                  ~(uintptr_t)(DFLT_JOB_ALIGN - 1));
    for (size_t j = 0; j < n; j++)
        st->job[j] = (struct dflt_job){.child = VIEW_NONE, .sib = VIEW_NONE, .prev = VIEW_NONE};
    dflt_find_shapes(st, v);
    st->free_co = VIEW_NONE;
    const struct dflt_params *cfg = v->params;
    st->tries_cap = 1;
    while (st->tries_cap < DFLT_MAX_TRIES_CLASS &&
           dflt_backoff_s(cfg, st->tries_cap) != cfg->kube_backoff_max_s)
        st->tries_cap++;
    st->scrape_s = -1;
    /* The classes leave out the controller's CPU filter, which kube-scheduler's
     * policy never gets (policy_ops.cpu_filter is false). */
    CPN_ASSERT(!v->cpu_filter);
    dflt_nodes_init(&st->nodes, v);
    st->round_pods = 1;
    podfit_init(&st->fit, v);
    if (st->fit.max_pods > 1) { /* what only jobs of several pods need */
        size_t np = st->fit.max_pods;
        st->span = cpn_calloc(n, sizeof *st->span);
        st->excl = cpn_malloc(np * sizeof *st->excl);
        st->frontier = cpn_malloc((np + 2) * sizeof *st->frontier);
    }
    *state = st;
    return 0;
}

static void dflt_destroy(void *state)
{
    struct dflt_state *st = state;
    if (!st)
        return;
    free(st->job_mem);
    free(st->span);
    free(st->round_jobs.v);
    free(st->excl);
    free(st->frontier);
    podfit_free(&st->fit);
    free(st->shapes);
    free(st->runs);
    free(st->fresh);
    free(st->fresh_round);
    free(st->co);
    free(st->elig.v);
    heap_free(&st->boff);
    free(st->parked.v);
    heap_free(&st->walk);
    free(st->aside.v);
    free(st->sort_key);
    dflt_nodes_free(&st->nodes);
    free(st);
}

/* kube-scheduler's calculateBackoffDuration: the initial back-off doubled for each
 * attempt after the first, never above the maximum. */
static double dflt_backoff_s(const struct dflt_params *c, uint32_t tries)
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

/* min(x, 1) for a quotient of two integers with a positive divisor (never NaN), where
 * it equals fmin(x, 1.0), without the library call. */
static double dflt_min1(double x) { return x < 1.0 ? x : 1.0; }

/* balancedResourceScorer of balanced_allocation.go for two resources: 100 times one
 * minus the standard deviation of the requested fractions, truncated. */
static int64_t dflt_balanced(int64_t req_a, int64_t cap_a, int64_t req_b, int64_t cap_b)
{
    double f[2];
    size_t k = 0;
    if (cap_a > 0)
        f[k++] = dflt_min1((double)req_a / (double)cap_a);
    if (cap_b > 0)
        f[k++] = dflt_min1((double)req_b / (double)cap_b);
    double sd = k == 2 ? fabs((f[0] - f[1]) / 2) : 0.0;
    return (int64_t)((1 - sd) * DFLT_MAX_NODE_SCORE);
}

/* The score for a job of shape jb of class c's nodes: LeastAllocated +
 * BalancedAllocation, both over the node's requested CPU and memory with the job's
 * added; the capacities in Kubernetes units are the class's. */
static int64_t dflt_score(const struct dflt_class *c, const struct dflt_shape *jb)
{
    int64_t cap_cpu = c->cap_milli, cap_mem = c->cap_bytes;
    int64_t req_cpu = dflt_llround((c->key.cpus_req + jb->cpus) * DFLT_MILLI_PER_CPU);
    int64_t req_mem = dflt_llround((c->key.mem_req_gib + jb->mem_gib) * DFLT_BYTES_PER_GIB);
    int64_t least = (dflt_least_requested(req_cpu, cap_cpu) + dflt_least_requested(req_mem, cap_mem)) / 2;
    /* BalancedAllocation skips pods that request nothing (best-effort pods). */
    int64_t balanced = jb->cpus > 0 || jb->mem_gib > 0 ? dflt_balanced(req_cpu, cap_cpu, req_mem, cap_mem) : 0;
    return least + balanced;
}

/* The site whose GPUs looked idle most in the last scrape; ties to the lowest index.
 * The engine keeps the per-site counts, so this costs O(sites), not O(GPUs). */
static uint32_t dflt_site(const struct view *v)
{
    uint32_t best = 0, best_idle = 0;
    for (uint32_t s = 0; s < v->cl->n_sites; s++) {
        uint32_t idle = v->site_idle_gpus[s];
        if (idle > best_idle) {
            best = s;
            best_idle = idle;
        }
    }
    return best;
}

/* True when a node of key k passes kube-scheduler's filter for a job of shape jb,
 * whose run set is runs (see dflt_bind). */
static inline bool dflt_key_fits(const struct dflt_ckey *k, const struct dflt_shape *jb,
                                 bool gpu_res, const uint8_t *runs)
{
    return !(k->gpus < jb->gpus || (gpu_res && k->free_gpus < jb->gpus) ||
             k->cpus_req + jb->cpus > k->cpus + VIEW_FIT_EPS ||
             k->mem_req_gib + jb->mem_gib > k->mem_gib + VIEW_FIT_EPS ||
             (k->gpus > 0 && !runs[k->type]));
}

/* The filter and score of class c for jobs of shape jb, whose run set is runs: -1
 * when its nodes do not pass the filter. */
static int32_t dflt_filter_score(const struct dflt_class *c, const struct dflt_shape *jb,
                                 bool gpu_res, const uint8_t *runs)
{
    return dflt_key_fits(&c->key, jb, gpu_res, runs) ? (int32_t)dflt_score(c, jb) : -1;
}

/* dflt_filter_score for jobs of shape s of the class of entry e of a site's list,
 * memoized there (the class's key never changes while it lives): the binds of a point
 * try a few shapes on the same classes again and again (on the 100k queue, 4 scores
 * in 5 were repeats). */
static int32_t dflt_class_score(const struct dflt_nodes *x, struct dflt_site_ent *e, uint32_t s,
                                const struct dflt_shape *jb, bool gpu_res, const uint8_t *runs)
{
    if (e->memo_shape != s) {
        e->memo_shape = s;
        e->memo_score = dflt_filter_score(&x->cls[e->cls], jb, gpu_res, runs);
    }
    return e->memo_score;
}

/* Node n as the pods of the gang decision so far would leave it: a class of its own. */
static struct dflt_class dflt_gang_class(const struct dflt_state *st, const struct view *v,
                                         uint32_t n)
{
    struct dflt_class c;
    memset(&c, 0, sizeof c);
    c.key = dflt_key_of(v, n);
    struct podfit_planned pl = podfit_on_node(&st->fit, v, n);
    c.key.cpus_req += pl.cpus;
    c.key.mem_req_gib += pl.mem_gib;
    if (v->cl->cfg.gpu_as_resource)
        c.key.free_gpus -= pl.gpus;
    c.cap_milli = dflt_llround(c.key.cpus * DFLT_MILLI_PER_CPU);
    c.cap_bytes = dflt_llround(c.key.mem_gib * DFLT_BYTES_PER_GIB);
    return c;
}

/* Filters and scores the site's nodes for job j (for its next pod) and fills *out with
 * the best one. Returns 1, or 0 when no node passes the filter. The nodes of a class
 * (default.h) pass the filter and score alike, so each class is judged by its
 * lowest-numbered node (the top of its heap): the bind costs O(classes of the site),
 * not O(nodes), and picks what a scan in cluster order would, the first node of the
 * best score. The filter is view_first_node's (requests fit, a GPU type the job may run
 * on) plus the node's GPU count and, with gpu_as_resource, its free GPUs. The nodes of
 * st->excl are filtered out (a class is then judged by its first node not among them);
 * with gpu_as_resource, those that a gang decision's earlier pods (st->fit) take from
 * are judged each by what those pods leave. */
static int dflt_bind(struct dflt_state *st, const struct view *v, uint32_t site, uint32_t j,
                     struct placement *out)
{
    /* What the filter and score read of the job, its shape, and the GPU types it may
     * run on, its shape's run set (view_job_runs_on). */
    uint32_t shape = st->job[j].shape;
    const struct dflt_shape *jb = &st->shapes[shape];
    bool gpu_res = v->cl->cfg.gpu_as_resource;
    struct dflt_nodes *x = &st->nodes;
    dflt_nodes_settle(x, v, site);
    const uint8_t *runs = &st->runs[(size_t)jb->runs * v->cl->n_types];
    uint32_t best = VIEW_NONE;
    int64_t best_score = -1;
    /* (The site's list, read once: a class's memo, stored in the loop, is of the type
     * of the list's length, which the compiler had read again at every class.) */
    struct dflt_site_ent *list = x->site_cls[site];
    const uint32_t n_list = x->site_n[site];
    for (uint32_t i0 = 0; i0 < n_list; i0 += DFLT_STOP_EVERY) {
        /* A site may hold a million classes: a stopped run ends the pass (what it
         * returns no longer matters: the run writes no result). */
        if (i0 > 0 && view_stopping(v))
            return 0;
        uint32_t end = n_list - i0 > DFLT_STOP_EVERY ? i0 + DFLT_STOP_EVERY : n_list;
        for (uint32_t i = i0; i < end; i++) {
            /* The filter on the class's key, which holds its nodes' capacity and
             * requests (view_node_fits_requests of any of its nodes). Only a class
             * that passes it with the best score so far is read. */
            int64_t score = dflt_class_score(x, &list[i], shape, jb, gpu_res, runs);
            if (score < 0 || score < best_score)
                continue;
            uint32_t n = st->n_excl ? dflt_class_first_but(&x->cls[list[i].cls], st->excl,
                                                           st->n_excl, st->frontier)
                                    : list[i].first;
            if (n != VIEW_NONE && (score > best_score || n < best)) {
                best = n;
                best_score = score;
            }
        }
    }
    for (uint32_t i = 0; gpu_res && i < st->fit.n; i++) { /* (a node again scores the same) */
        uint32_t n = st->fit.pod[i].node;
        struct dflt_class c = dflt_gang_class(st, v, n);
        if (!dflt_key_fits(&c.key, jb, gpu_res, runs))
            continue;
        int64_t score = dflt_score(&c, jb);
        if (score > best_score || (score == best_score && n < best)) {
            best = n;
            best_score = score;
        }
    }
    if (best == VIEW_NONE)
        return 0;
    const struct node *nd = &v->cl->nodes[best];
    uint32_t k = 0;
    for (uint32_t g = nd->gpu_first; g < nd->gpu_first + nd->gpu_count && k < jb->gpus; g++)
        if (!gpu_res || podfit_gpu_free(&st->fit, v, g))
            out->gpu[k++] = g;
    CPN_ASSERT(k == jb->gpus);
    out->job = j;
    out->node = best;
    out->ngpus = k;
    return 1;
}

/* A gang decision (gang_scheduling) for job j of several pods, in site: finds a node
 * for each of its pods, each bind seeing what the pods before it take, and adds them to
 * st->fit. Without gpu_as_resource, a node takes one pod of the job (see Pods above).
 * Returns 1 with the first pod in *out, or 0 when some pod has no node. */
static int dflt_bind_gang(struct dflt_state *st, const struct view *v, uint32_t site, uint32_t j,
                          struct placement *out)
{
    const struct view_job jb = view_job(v, j);
    struct placement q;
    uint32_t p = 0;
    st->n_excl = 0;
    for (; p < jb.pods && dflt_bind(st, v, site, j, &q); p++) {
        podfit_add(&st->fit, v, &q);
        st->excl[st->n_excl++] = q.node; /* (a node may come again) */
    }
    st->n_excl = 0;
    if (p < jb.pods) {
        podfit_clear(&st->fit);
        return 0;
    }
    podfit_next(&st->fit, out); /* the engine's bookkeeping will show what they take */
    return 1;
}

/* Placement *out is made: its node moves to its new class once the engine has applied
 * it, before a bind next reads its site. Returns 1, what place returns. */
static int dflt_placed(struct dflt_state *st, const struct view *v, const struct placement *out)
{
    dflt_nodes_touch(&st->nodes, v, out->node);
    return 1;
}

/* Takes job j, whose attempt timed out, out of its cohort. A cohort it leaves empty
 * stays where it is until the next scheduling point frees it (dflt_begin). */
static void dflt_remove(struct dflt_state *st, uint32_t j)
{
    /* A job that times out has pods bound, so it is in no fresh cohort of this round,
     * the only ones whose tails are read between points (dflt_cohort.tail). */
    uint32_t s = st->job[j].shape, f = st->fresh[s];
    CPN_ASSERT(!policy_check_indexes || f == VIEW_NONE || st->fresh_round[s] != st->round ||
               st->co[f].tail != j);
    if (st->job[j].prev != VIEW_NONE) {
        dflt_ph_cut(st, j);
        return;
    }
    for (uint32_t c = 0; c < st->n_co; c++) /* it is a root: of which cohort (rare) */
        if (st->co[c].state != DFLT_FREE && st->co[c].root == j) {
            st->co[c].root = dflt_ph_pop(st, j);
            return;
        }
    CPN_ASSERT(0);
}

/* A new pod enters the queue (an arrival, or back from an OOM back-off): its attempts
 * start again from zero, and it goes to the queue's tail. Pods queued between two
 * scheduling points share a cohort per shape. A job whose attempt timed out leaves the
 * queue; learnt ends free what every pod of the job held. */
static void dflt_job_event(void *state, const struct view *v, uint32_t j, enum policy_job_event e)
{
    struct dflt_state *st = state;
    if (e == POLICY_JOB_LEARNT) { /* the bookkeeping released its requests and GPUs */
        st->learnt++;
        for (uint32_t k = 0; k < view_pods_held(v, j); k++)
            dflt_nodes_touch(&st->nodes, v, view_pod_node(v, j, k));
    }
    if (e == POLICY_JOB_TIMED_OUT) {
        CPN_ASSERT(st->job[j].queued && !st->in_round);
        dflt_remove(st, j);
        st->job[j].queued = 0;
    }
    if (e != POLICY_JOB_QUEUED)
        return;
    CPN_ASSERT(!st->job[j].queued && !st->in_round);
    st->job[j].queued = 1;
    st->job[j].seq = st->next_seq++;
    uint32_t pods = st->shapes[st->job[j].shape].pods;
    if (pods > 1) {
        dflt_ids_push(&st->round_jobs, j);
        if (pods > st->round_pods)
            st->round_pods = pods;
    }
    uint32_t s = st->job[j].shape;
    if (st->fresh[s] == VIEW_NONE || st->fresh_round[s] != st->round) {
        st->fresh[s] = dflt_cohort_new(st, s, 0, 0, VIEW_NONE, DFLT_ELIGIBLE);
        st->fresh_round[s] = st->round;
        dflt_ids_push(&st->elig, st->fresh[s]);
    }
    dflt_cohort_append(st, st->fresh[s], j, j);
}

/* True when eligible cohort a comes before cohort b: by shape, then tries, then site
 * (VIEW_NONE last), then id, which fixes the order of the cohorts that merge. */
static bool dflt_elig_before(const struct dflt_state *st, uint32_t a, uint32_t b)
{
    const struct dflt_cohort *x = &st->co[a], *y = &st->co[b];
    if (x->shape != y->shape)
        return x->shape < y->shape;
    if (x->tries != y->tries)
        return x->tries < y->tries;
    if (x->site != y->site)
        return x->site < y->site;
    return a < b;
}

/* From this many eligible cohorts on, two stable radix sorts (by site and id, then by
 * shape and tries) beat an insertion sort. Most scheduling points have one or two;
 * on the 100k queue, 1 in 700 has more than 128, up to 705. */
#define DFLT_SORT_RADIX_MIN 64

/* Sorts the eligible cohorts in dflt_elig_before's order, where qsort's calls of a
 * comparison function had cost 1.5% of a run. */
static void dflt_sort_elig(struct dflt_state *st)
{
    uint32_t *v = st->elig.v;
    size_t n = st->elig.n;
    if (n < DFLT_SORT_RADIX_MIN) {
        for (size_t i = 1; i < n; i++) {
            uint32_t c = v[i];
            size_t k = i;
            for (; k > 0 && dflt_elig_before(st, c, v[k - 1]); k--)
                v[k] = v[k - 1];
            v[k] = c;
        }
    } else {
        cpn_grow((void **)&st->sort_key, &st->cap_sort_key, n, sizeof *st->sort_key);
        uint64_t *key = st->sort_key;
        for (size_t i = 0; i < n; i++)
            key[i] = (uint64_t)st->co[v[i]].site << 32 | v[i];
        cpn_sort_by_key(key, v, n, NULL, NULL);
        for (size_t i = 0; i < n; i++)
            key[i] = (uint64_t)st->co[v[i]].shape << 32 | st->co[v[i]].tries;
        cpn_sort_by_key(key, v, n, NULL, NULL);
    }
    for (size_t i = 1; policy_check_indexes && i < n; i++)
        CPN_ASSERT(dflt_elig_before(st, v[i - 1], v[i]));
}

/* The jobs queued since the last scheduling point (a round, see dflt_state) close: the
 * pods of its jobs of several pods get their places in the pod queue. */
static void dflt_close_round(struct dflt_state *st)
{
    uint64_t m = st->next_seq - st->round_base;
    for (size_t i = 0; i < st->round_jobs.n; i++)
        st->span[st->round_jobs.v[i]] = m;
    st->next_seq = st->round_base + st->round_pods * m;
    st->round_base = st->next_seq;
    st->round_jobs.n = 0;
    st->round_pods = 1;
}

/* A scheduling point begins: a learnt end or a new scrape is a cluster
 * event that moves every unschedulable job to the back-off queue; then the jobs whose
 * back-off has passed become eligible. Eligible cohorts of one shape, count of failures
 * and site merge: from here on they behave alike. (Cohorts that timed-out jobs left
 * empty are freed here.) */
static void dflt_begin(void *state, const struct view *v)
{
    struct dflt_state *st = state;
    dflt_close_round(st);
    st->in_round = true;
    st->round++;
    st->n_memo = 0;
    st->pos = 0;
    bool event = st->learnt > st->learnt_seen || v->scrape_time_s != st->scrape_s;
    st->learnt_seen = st->learnt;
    st->scrape_s = v->scrape_time_s;
    st->point_site = VIEW_NONE;
    if (event) {
        for (size_t i = 0; i < st->parked.n; i++) {
            uint32_t c = st->parked.v[i];
            if (st->co[c].backoff_until <= v->now) {
                st->co[c].state = DFLT_ELIGIBLE;
                dflt_ids_push(&st->elig, c);
            } else {
                st->co[c].state = DFLT_BACKOFF;
                dflt_boff_push(st, c);
            }
        }
        st->parked.n = 0;
    }
    while (st->boff.n > 0 && st->co[dflt_boff_first(st)].backoff_until <= v->now) {
        uint32_t c = dflt_boff_pop(st);
        st->co[c].state = DFLT_ELIGIBLE;
        dflt_ids_push(&st->elig, c);
    }
    dflt_sort_elig(st);
    st->walk.n = 0;
    for (size_t i = 0; i < st->elig.n;) {
        uint32_t c = st->elig.v[i++];
        for (; i < st->elig.n; i++) {
            uint32_t d = st->elig.v[i];
            if (st->co[d].shape != st->co[c].shape || st->co[d].tries != st->co[c].tries ||
                st->co[d].site != st->co[c].site)
                break;
            st->co[c].root = dflt_ph_link(st, st->co[c].root, st->co[d].root);
            dflt_cohort_free(st, d);
        }
        if (st->co[c].root != VIEW_NONE)
            dflt_walk_push(st, c);
        else
            dflt_cohort_free(st, c);
    }
    st->elig.n = 0;
}

/* True when a job of shape s is known to fail in this point's site: a shape no larger
 * failed, whose jobs may run on every type those of s may. A shape's pods count only
 * with gang_scheduling; else each attempt binds one pod. */
static bool dflt_known_to_fail(const struct dflt_state *st, const struct view *v, uint32_t s)
{
    const struct dflt_shape *sh = &st->shapes[s];
    bool gang = ((const struct dflt_params *)v->params)->gang_scheduling;
    for (size_t i = 0; i < st->n_memo; i++) {
        const struct dflt_shape *m = &st->shapes[st->memo[i]];
        if (m->gpus <= sh->gpus && m->cpus <= sh->cpus && m->mem_gib <= sh->mem_gib &&
            (!gang || m->pods <= sh->pods) && dflt_runs_within(st, v->cl->n_types, sh->runs, m->runs))
            return true;
    }
    return false;
}

/* The parked cohort that cohort c's jobs fail into at this point: one more failure,
 * and the back-off kube-scheduler gives it, from now. */
static uint32_t dflt_fail_to(struct dflt_state *st, const struct view *v, uint32_t c)
{
    if (st->co[c].fail_to == VIEW_NONE) {
        uint32_t tries = st->co[c].tries + 1;
        double until = v->now + dflt_backoff_s(v->params, tries);
        if (tries > st->tries_cap)
            tries = st->tries_cap;
        uint32_t f = dflt_cohort_new(st, st->co[c].shape, tries, until, st->co[c].site, DFLT_PARKED);
        dflt_ids_push(&st->parked, f);
        st->co[c].fail_to = f;
    }
    return st->co[c].fail_to;
}

/* Job j, just taken out of cohort c, failed to bind. */
static void dflt_fail_one(struct dflt_state *st, const struct view *v, uint32_t c, uint32_t j)
{
    dflt_cohort_append(st, dflt_fail_to(st, v, c), j, j); /* (dflt_fail_to may move st->co) */
}

/* Every job left in cohort c (out of the walk) fails. */
static void dflt_fail_all(struct dflt_state *st, const struct view *v, uint32_t c)
{
    uint32_t f = dflt_fail_to(st, v, c);
    dflt_cohort_append(st, f, st->co[c].root, VIEW_NONE); /* (c's jobs, not in order) */
    dflt_cohort_free(st, c);
}

/* With live metrics a placement may change the site, and what failed in the old one
 * may fit in the new one: the set-aside cohorts go back to the walk, less their jobs
 * before the walk's position, which were in effect tried in the old site. */
static void dflt_change_site(struct dflt_state *st, const struct view *v, uint32_t site)
{
    st->n_memo = 0;
    st->memo_site = site;
    for (size_t i = 0; i < st->aside.n; i++) {
        uint32_t c = st->aside.v[i];
        while (st->co[c].root != VIEW_NONE && st->job[st->co[c].root].seq < st->pos) {
            uint32_t j = st->co[c].root;
            st->co[c].root = dflt_ph_pop(st, j);
            dflt_fail_one(st, v, c, j);
        }
        if (st->co[c].root == VIEW_NONE)
            dflt_cohort_free(st, c);
        else
            dflt_walk_push(st, c);
    }
    st->aside.n = 0;
}

static int dflt_place(void *state, const struct view *v, struct placement *out)
{
    struct dflt_state *st = state;
    CPN_ASSERT(st->in_round);
    if (podfit_next(&st->fit, out)) { /* the rest of a gang decision's pods */
        if (!podfit_pending(&st->fit))
            st->job[out->job].queued = 0;
        return dflt_placed(st, v, out);
    }
    uint32_t site = st->point_site;
    if (site == VIEW_NONE) {
        site = dflt_site(v);
        if (v->cl->cfg.scrape_interval_s > 0)
            st->point_site = site;
    }
    CPN_ASSERT(!policy_check_indexes || site == dflt_site(v));
    if (site != st->memo_site)
        dflt_change_site(st, v, site);
    const struct dflt_params *par = v->params;
    bool gpu_res = v->cl->cfg.gpu_as_resource;
    /* The eligible jobs in queue order, cohort by cohort; a cohort whose shape is known
     * to fail is set aside whole. Each bind may score a whole site: a stopped run ends
     * the walk, and the point (dflt_end then leaves the walk as it is). */
    while (st->walk.n > 0) {
        if (view_stopping(v))
            return 0;
        uint32_t c = dflt_walk_first(st);
        CPN_ASSERT(st->co[c].state == DFLT_ELIGIBLE && st->co[c].root != VIEW_NONE);
        /* A job with pods bound is bound in their site: what failed in this point's site
         * says nothing of another. */
        uint32_t at = st->co[c].site == VIEW_NONE ? site : st->co[c].site;
        if (at == site && dflt_known_to_fail(st, v, st->co[c].shape)) {
            dflt_walk_pop(st);
            dflt_ids_push(&st->aside, c);
            continue;
        }
        uint32_t j = st->co[c].root, tries = st->co[c].tries;
        st->co[c].root = dflt_ph_pop(st, j);
        st->pos = st->job[j].seq;
        uint32_t pods = st->shapes[st->job[j].shape].pods, placed = view_pods_placed(v, j);
        bool gang = par->gang_scheduling && pods > 1;
        for (uint32_t k = 0; !gpu_res && k < placed; k++) /* its pods' anti-affinity */
            st->excl[st->n_excl++] = view_pod_node(v, j, k);
        bool anti = st->n_excl > 0;
        int bound = gang ? dflt_bind_gang(st, v, at, j, out) : dflt_bind(st, v, at, j, out);
        st->n_excl = 0;
        if (!bound) {
            if (at == site && !anti && st->n_memo < DFLT_MEMO_MAX)
                st->memo[st->n_memo++] = st->job[j].shape;
            dflt_fail_one(st, v, c, j);
        }
        if (st->co[c].root != VIEW_NONE) {
            dflt_walk_again(st, c);
        } else {
            dflt_walk_pop(st);
            dflt_cohort_free(st, c);
        }
        if (!bound)
            continue;
        if (!gang && placed + 1 < pods) {
            /* Its next pod, in its place in the pod queue, with its failures so far,
             * bound in this pod's site. */
            st->job[j].seq += st->span[j];
            uint32_t d = dflt_cohort_new(st, st->job[j].shape, tries, 0,
                                         v->cl->nodes[out->node].site, DFLT_ELIGIBLE);
            st->co[d].root = j;
            dflt_walk_push(st, d);
        } else if (!gang) {
            st->job[j].queued = 0;
        }
        return dflt_placed(st, v, out);
    }
    /* The rest of the queue would have been tried in this site and failed. */
    for (size_t i = 0; i < st->aside.n; i++)
        dflt_fail_all(st, v, st->aside.v[i]);
    st->aside.n = 0;
    return 0;
}

/* Ends the scheduling point; asks to be called when the first job in the back-off
 * queue may be retried. Parked jobs wait for an event and ask for nothing. */
static double dflt_end(void *state, const struct view *v)
{
    struct dflt_state *st = state;
    st->in_round = false;
    /* Every cohort of the point was tried or set aside and failed: the ones that
     * failed into a cohort of this point are done with it. */
    CPN_ASSERT((st->walk.n == 0 && st->aside.n == 0 && !podfit_pending(&st->fit)) ||
               view_stopping(v));
    return st->boff.n > 0 ? st->co[dflt_boff_first(st)].backoff_until : INFINITY;
}

/* The jobs the policy counts as queued are exactly the view's queue. */
static void dflt_check(const void *state, const struct view *v)
{
    const struct dflt_state *st = state;
    size_t queued = 0;
    for (size_t j = 0; j < v->n_jobs; j++)
        queued += st->job[j].queued;
    CPN_ASSERT(queued == v->queue_len);
    size_t nt = v->cl->n_types;
    for (uint32_t j = v->queue_head; j != VIEW_NONE; j = v->queue_next[j]) {
        CPN_ASSERT(st->job[j].queued);
        const uint8_t *runs = &st->runs[(size_t)st->shapes[st->job[j].shape].runs * nt];
        for (uint32_t t = 0; t < nt; t++)
            CPN_ASSERT(runs[t] == view_job_runs_on(v, j, t));
    }
    for (size_t i = 0; i < st->walk.n; i++) {
        const struct dflt_walk_ent *e = heap_at(&st->walk, &dflt_walk_ops, i);
        CPN_ASSERT(st->co[e->co].root != VIEW_NONE && e->seq == st->job[st->co[e->co].root].seq);
    }
    /* The pairing heaps' back links, which take a timed-out job out, hold. Between
     * points, the jobs queued since the last one are in the fresh cohort of their shape,
     * whose tail, when known, is a leaf and comes after them. */
    for (uint32_t j = v->queue_head; j != VIEW_NONE; j = v->queue_next[j]) {
        uint32_t p = st->job[j].prev;
        CPN_ASSERT(p == VIEW_NONE || st->job[p].child == j || st->job[p].sib == j);
        CPN_ASSERT(st->job[j].child == VIEW_NONE || st->job[st->job[j].child].prev == j);
        uint32_t s = st->job[j].shape, f = st->fresh[s];
        if (st->in_round || st->job[j].seq < st->round_base)
            continue;
        CPN_ASSERT(f != VIEW_NONE && st->fresh_round[s] == st->round);
        uint32_t t = st->co[f].tail;
        CPN_ASSERT(t == VIEW_NONE || (st->job[t].child == VIEW_NONE && st->job[t].shape == s &&
                                      st->job[t].seq >= st->job[j].seq));
    }
    dflt_nodes_check(&st->nodes, v);
    /* A live class's first node is its heap's top, and its memoized filter and score
     * are what its key gives now. */
    for (size_t site = 0; site < st->nodes.n_sites; site++)
        for (uint32_t i = 0; i < st->nodes.site_n[site]; i++) {
            const struct dflt_site_ent *e = &st->nodes.site_cls[site][i];
            const struct dflt_class *cl = &st->nodes.cls[e->cls];
            CPN_ASSERT(cl->n_nodes > 0 && cl->key.site == site && cl->site_pos == i &&
                       e->first == cl->nodes[0]);
            if (e->memo_shape == VIEW_NONE)
                continue;
            const struct dflt_shape *sh = &st->shapes[e->memo_shape];
            CPN_ASSERT(e->memo_score == dflt_filter_score(cl, sh, v->cl->cfg.gpu_as_resource,
                                                          &st->runs[(size_t)sh->runs * nt]));
        }
}

const struct policy_ops default_policy = {
    .name = "default",
    .places_pods = true,
    .summary = "Kubernetes default scheduler in the site with the most idle GPUs: filter on "
               "requests, LeastAllocated + BalancedAllocation, back-off, no head-of-line blocking",
    .init = dflt_init,
    .begin = dflt_begin,
    .place = dflt_place,
    .end = dflt_end,
    .job_event = dflt_job_event,
    .check = dflt_check,
    .params = dflt_params_table,
    .n_params = sizeof dflt_params_table / sizeof dflt_params_table[0],
    .params_size = sizeof(struct dflt_params),
    .destroy = dflt_destroy,
};
