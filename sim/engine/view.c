/* view: the estimates a policy may ask for. They combine the predictor (or, without
 * one, the catalogue's truth) with the job's own description, and the network's
 * transfer estimate; the policy never learns which predictor answers. */
#include "view.h"

#include <stdlib.h>

#include "catalog.h"
#include "job.h"
#include "net.h"
#include "nodeidx.h"
#include "predict.h"
#include "../base/util.h"

/* Open addressing on (model, batch, type, gpus); grows at half full. */
struct memo_entry {
    int32_t model; /* -1 = empty */
    uint32_t batch, type, gpus;
    struct profile p;
    bool known;
};

/* A memo of predictions by (model, batch, GPU type, GPU count): a prediction is a pure
 * function of those, and the forest is far slower than a look-up. */
struct view_memo {
    struct memo_entry *t;
    size_t cap, n;
};

struct view_source {
    const struct catalog *cat;
    const struct jobset *jobs;
    const struct predictor *pred;
    const struct net *net;
    struct view_memo memo;
};

#define VIEW_MEMO_INITIAL 1024

static void memo_clear(struct memo_entry *t, size_t cap)
{
    for (size_t i = 0; i < cap; i++)
        t[i].model = -1;
}

struct view_source *view_source_create(const struct catalog *cat, const struct jobset *jobs,
                                       const struct predictor *pred, const struct net *net)
{
    struct view_source *src = cpn_calloc(1, sizeof *src);
    *src = (struct view_source){.cat = cat, .jobs = jobs, .pred = pred, .net = net};
    src->memo.cap = VIEW_MEMO_INITIAL;
    src->memo.t = cpn_calloc(src->memo.cap, sizeof *src->memo.t);
    memo_clear(src->memo.t, src->memo.cap);
    return src;
}

void view_source_destroy(struct view_source *src)
{
    if (!src)
        return;
    free(src->memo.t);
    free(src);
}

/* The slot holding (model, batch, type, gpus), or the empty slot where it belongs. */
static struct memo_entry *memo_slot(struct view_memo *m, int32_t model, uint32_t batch,
                                    uint32_t type, uint32_t gpus)
{
    uint64_t h = ((uint64_t)(uint32_t)model * 0x9E3779B97F4A7C15ull) ^
                 ((uint64_t)batch * 0xC2B2AE3D27D4EB4Full) ^ ((uint64_t)type << 32) ^ gpus;
    size_t i = (size_t)(h ^ (h >> 29)) & (m->cap - 1);
    for (;; i = (i + 1) & (m->cap - 1)) {
        struct memo_entry *e = &m->t[i];
        if (e->model < 0 || (e->model == model && e->batch == batch && e->type == type &&
                             e->gpus == gpus))
            return e;
    }
}

static void memo_grow(struct view_memo *m)
{
    struct memo_entry *old = m->t;
    size_t oldcap = m->cap;
    m->cap *= 2;
    m->t = cpn_calloc(m->cap, sizeof *m->t);
    memo_clear(m->t, m->cap);
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].model >= 0)
            *memo_slot(m, old[i].model, old[i].batch, old[i].type, old[i].gpus) = old[i];
    free(old);
}

/* The predicted profile of (model, batch, gpus) on a cluster GPU type, memoised. */
static void predicted_profile(const struct view *v, const struct job *jb, uint32_t type,
                              struct profile *p, bool *known)
{
    struct view_source *src = v->src;
    struct memo_entry *e = memo_slot(&src->memo, jb->model, jb->batch, type, jb->gpus);
    if (e->model >= 0) {
        *p = e->p;
        *known = e->known;
        return;
    }
    const struct gpu_type *gt = &v->cl->types[type];
    int rc = src->pred ? predictor_profile(src->pred, jb->model, jb->batch, gt->cat_type, gt->speed,
                                           jb->gpus, p)
                       : catalog_lookup(src->cat, jb->model, jb->batch, gt->cat_type, gt->speed,
                                        jb->gpus, p);
    CPN_ASSERT(rc == 0);
    *known = src->pred ? predictor_knows(src->pred, jb->model) : true;
    *e = (struct memo_entry){.model = jb->model, .batch = jb->batch, .type = type,
                             .gpus = jb->gpus, .p = *p, .known = *known};
    if (++src->memo.n * 2 > src->memo.cap)
        memo_grow(&src->memo);
}

void view_estimate(const struct view *v, uint32_t j, uint32_t type, struct view_estimate *out)
{
    const struct job *jb = &v->src->jobs->v[j];
    struct profile p = {0};
    out->known = true;
    if (jb->model >= 0)
        predicted_profile(v, jb, type, &p, &out->known);
    else
        out->known = jb->gpu_mem_gib >= 0;
    out->run_s = job_run_s(jb, v->src->cat, p.step_s, v->cl->types[type].speed);
    out->mem_gib = jb->gpu_mem_gib >= 0 ? jb->gpu_mem_gib : p.mem_gib;
    /* A predictor does not see the job's measured cpu_cores_used: it derives the demand
     * from the model and its predicted step time, as the engine does from the truth. */
    struct job declared = *jb;
    if (v->src->pred)
        declared.cpu_cores_used = 0;
    out->cpu_cores = job_cpu_cores_scaled(&declared, v->src->cat, p.step_s, v->cl->cfg.cpu_cost_scale);
}

bool view_job_runs_on(const struct view *v, uint32_t j, uint32_t type)
{
    CPN_ASSERT(j < v->n_jobs && type < v->cl->n_types);
    const struct job *jb = &v->src->jobs->v[j];
    int cat_type = v->cl->types[type].cat_type;
    return jb->model < 0 || cat_type < 0 ||
           catalog_runs_on(v->src->cat, jb->model, jb->batch, cat_type, jb->gpus);
}

double view_transfer_estimate_s(const struct view *v, uint32_t j, uint32_t site)
{
    if (!v->src->net)
        return 0.0;
    return net_estimate_job_s(v->src->net, v->src->jobs, j, site);
}

static uint32_t idle_gpus_of(const struct view *v, uint32_t node)
{
    const struct node *nd = &v->cl->nodes[node];
    uint32_t idle = 0;
    for (uint32_t g = nd->gpu_first; g < nd->gpu_first + nd->gpu_count; g++)
        idle += view_gpu_looks_idle(v, g);
    return idle;
}

uint32_t view_first_node(const struct view *v, uint32_t from, uint32_t j, uint32_t idle_gpus)
{
    const struct view_job *jb = view_job(v, j);
    for (uint32_t n = from; n < v->cl->n_nodes; n++) {
        if (v->nodeidx) {
            n = nodeidx_first(v->nodeidx, n, jb->cpus, jb->mem_gib, idle_gpus);
            if (n == UINT32_MAX)
                return VIEW_NONE;
        }
        /* The index is conservative: check exactly. */
        if (view_node_fits_requests(v, n, j) && idle_gpus_of(v, n) >= idle_gpus &&
            view_node_eligible(v, n) &&
            (v->cl->nodes[n].gpu_count == 0 || view_job_runs_on(v, j, v->cl->nodes[n].type)))
            return n;
    }
    return VIEW_NONE;
}

uint32_t view_next_free_node(const struct view *v, uint32_t from, uint32_t gpus)
{
    /* (The engine's bits leave out the nodes the filter refuses; the test below keeps
     * a view without them right.) */
    if (from >= v->cl->n_nodes)
        return VIEW_NONE;
    if (gpus == 0) {
        while (from < v->cl->n_nodes && !view_node_eligible(v, from))
            from++;
        return from < v->cl->n_nodes ? from : VIEW_NONE;
    }
    if (v->free_node_bits) { /* a word scan skips 64 nodes without a free GPU at a time */
        size_t w = from / 64, words = (v->cl->n_nodes + 63) / 64;
        uint64_t bits = v->free_node_bits[w] & (~(uint64_t)0 << (from % 64));
        for (;;) {
            while (!bits) {
                if (++w >= words)
                    return VIEW_NONE;
                bits = v->free_node_bits[w];
            }
            uint32_t n = (uint32_t)(w * 64 + (size_t)__builtin_ctzll(bits));
            if (n >= v->cl->n_nodes)
                return VIEW_NONE;
            if (v->node_free_gpus[n] >= gpus && view_node_eligible(v, n))
                return n;
            bits &= bits - 1;
        }
    }
    for (uint32_t n = from; n < v->cl->n_nodes; n++) { /* a view without the engine's counts */
        const struct node *nd = &v->cl->nodes[n];
        uint32_t k = 0;
        for (uint32_t g = nd->gpu_first; g < nd->gpu_first + nd->gpu_count; g++)
            k += v->gpu_assigned[g] == 0;
        if (k >= gpus && view_node_eligible(v, n))
            return n;
    }
    return VIEW_NONE;
}
