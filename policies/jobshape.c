/* jobshape: see jobshape.h. */
#include "jobshape.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>


void jobshape_init(struct jobshape_table *t, const struct view *v)
{
    const struct cluster *cl = v->cl;
    size_t nt = cl->n_types ? cl->n_types : 1;
    memset(t, 0, sizeof *t);
    t->n_types = cl->n_types;
    t->has_gpus = cpn_calloc(nt, sizeof *t->has_gpus);
    t->key_mem = cpn_calloc(nt, sizeof *t->key_mem);
    for (uint32_t n = 0; n < cl->n_nodes; n++)
        if (cl->nodes[n].gpu_count)
            t->has_gpus[cl->nodes[n].type] = 1;
    t->n_slot = 64;
    t->slot = cpn_malloc(t->n_slot * sizeof *t->slot);
    memset(t->slot, 0xff, t->n_slot * sizeof *t->slot);
}

void jobshape_free(struct jobshape_table *t)
{
    free(t->has_gpus);
    free(t->gpus);
    free(t->pods);
    free(t->req);
    free(t->mem);
    free(t->slot);
    free(t->key_mem);
    memset(t, 0, sizeof *t);
}

void jobshape_reset(struct jobshape_table *t)
{
    t->n = 0;
    memset(t->slot, 0xff, t->n_slot * sizeof *t->slot);
}

static uint64_t hash_double(uint64_t h, double d)
{
    uint64_t b;
    d = d == 0 ? 0 : d; /* -0 and 0 compare equal */
    memcpy(&b, &d, sizeof b);
    h ^= b + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
    return h * 0xff51afd7ed558ccdu;
}

static uint64_t shape_hash(const struct jobshape_table *t, uint32_t gpus, uint32_t pods,
                           const double *req, const double *mem)
{
    uint64_t h = hash_double((uint64_t)gpus | (uint64_t)(pods - 1) << 32, req[0]);
    h = hash_double(h, req[1]);
    for (size_t k = 0; k < t->n_types; k++)
        h = hash_double(h, mem[k]);
    return h;
}

static const double *shape_mem(const struct jobshape_table *t, size_t s)
{
    return &t->mem[s * (t->n_types ? t->n_types : 1)];
}

static bool shape_is(const struct jobshape_table *t, uint32_t s, uint32_t gpus, uint32_t pods,
                     const double *req)
{
    return t->gpus[s] == gpus && t->pods[s] == pods && t->req[2 * s] == req[0] &&
           t->req[2 * s + 1] == req[1] &&
           (t->n_types == 0 || memcmp(shape_mem(t, s), t->key_mem, t->n_types * sizeof(double)) == 0);
}

/* Job j's predicted peak memory per GPU on each type into mem[]; INFINITY on a type it
 * may not run on (view_job_runs_on), which no GPU holds, so that two jobs alike in all
 * else but where they may run have different shapes. */
static void shape_key_mem(const struct jobshape_table *t, const struct view *v, uint32_t j, double *mem)
{
    for (size_t k = 0; k < t->n_types; k++) {
        struct view_estimate e = {0};
        if (t->has_gpus[k] && !view_job_runs_on(v, j, (uint32_t)k))
            e.mem_gib = INFINITY;
        else if (t->has_gpus[k])
            view_estimate(v, j, (uint32_t)k, &e);
        mem[k] = e.mem_gib;
    }
}

void jobshape_check(const struct jobshape_table *t, const struct view *v, uint32_t j, uint32_t s)
{
    const struct view_job jd = view_job(v, j), *jb = &jd;
    CPN_ASSERT(s < t->n && t->gpus[s] == jb->gpus && t->pods[s] == jb->pods &&
               t->req[2 * s] == jb->cpus && t->req[2 * s + 1] == jb->mem_gib);
    double *mem = cpn_calloc(t->n_types ? t->n_types : 1, sizeof *mem);
    shape_key_mem(t, v, j, mem);
    for (size_t k = 0; k < t->n_types; k++)
        CPN_ASSERT(shape_mem(t, s)[k] == mem[k]);
    free(mem);
}

uint32_t jobshape_of(struct jobshape_table *t, const struct view *v, uint32_t j)
{
    const struct view_job jd = view_job(v, j), *jb = &jd;
    size_t nt = t->n_types, ntm = nt ? nt : 1;
    double req[2] = {jb->cpus, jb->mem_gib};
    shape_key_mem(t, v, j, t->key_mem);
    size_t mask = t->n_slot - 1;
    size_t i = (size_t)shape_hash(t, jb->gpus, jb->pods, req, t->key_mem) & mask;
    for (; t->slot[i] != UINT32_MAX; i = (i + 1) & mask)
        if (shape_is(t, t->slot[i], jb->gpus, jb->pods, req))
            return t->slot[i];
    uint32_t id = (uint32_t)t->n++;
    cpn_grow((void **)&t->gpus, &t->cap_gpus, t->n, sizeof *t->gpus);
    cpn_grow((void **)&t->pods, &t->cap_pods, t->n, sizeof *t->pods);
    cpn_grow((void **)&t->req, &t->cap_req, 2 * t->n, sizeof *t->req);
    cpn_grow((void **)&t->mem, &t->cap_mem, ntm * t->n, sizeof *t->mem);
    t->gpus[id] = jb->gpus;
    t->pods[id] = jb->pods;
    t->req[2 * id] = req[0];
    t->req[2 * id + 1] = req[1];
    memcpy(&t->mem[id * ntm], t->key_mem, nt * sizeof(double));
    t->slot[i] = id;
    if (t->n * 2 > t->n_slot) { /* grow and re-insert every shape */
        free(t->slot);
        t->n_slot *= 2;
        t->slot = cpn_malloc(t->n_slot * sizeof *t->slot);
        memset(t->slot, 0xff, t->n_slot * sizeof *t->slot);
        for (uint32_t s = 0; s < t->n; s++) {
            size_t k = (size_t)shape_hash(t, t->gpus[s], t->pods[s], &t->req[2 * s],
                                          shape_mem(t, s)) & (t->n_slot - 1);
            while (t->slot[k] != UINT32_MAX)
                k = (k + 1) & (t->n_slot - 1);
            t->slot[k] = s;
        }
    }
    return id;
}

bool jobshape_can_host(const struct view *v, uint32_t j, uint32_t n, struct view_estimate *e)
{
    const struct node *nd = &v->cl->nodes[n];
    const struct view_job jd = view_job(v, j), *jb = &jd;
    if (nd->gpu_count < jb->gpus || nd->cpus < jb->cpus || nd->mem_gib < jb->mem_gib)
        return false;
    if (nd->gpu_count > 0 && !view_job_runs_on(v, j, nd->type))
        return false;
    view_estimate(v, j, nd->type, e);
    return e->mem_gib <= v->cl->types[nd->type].mem_gib;
}
