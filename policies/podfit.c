/* podfit: see podfit.h. */
#include "podfit.h"

#include <stdlib.h>
#include <string.h>

void podfit_init(struct podfit *f, const struct view *v)
{
    memset(f, 0, sizeof *f);
    f->max_pods = 1;
    for (uint32_t j = 0; j < v->n_jobs; j++)
        if (view_job(v, j).pods > f->max_pods)
            f->max_pods = view_job(v, j).pods;
    if (f->max_pods == 1)
        return;
    f->gpu_taken = cpn_calloc(v->cl->n_gpus ? v->cl->n_gpus : 1, sizeof *f->gpu_taken);
    f->cpus = cpn_calloc(v->cl->n_nodes ? v->cl->n_nodes : 1, sizeof *f->cpus);
    f->mem_gib = cpn_calloc(v->cl->n_nodes ? v->cl->n_nodes : 1, sizeof *f->mem_gib);
    f->pod = cpn_calloc(f->max_pods, sizeof *f->pod);
}

void podfit_free(struct podfit *f)
{
    free(f->gpu_taken);
    free(f->cpus);
    free(f->mem_gib);
    free(f->pod);
    memset(f, 0, sizeof *f);
}

/* Forgets what the pods found take (the engine's bookkeeping is about to show it). */
static void podfit_untake(struct podfit *f)
{
    for (uint32_t i = 0; i < f->n; i++) {
        const struct placement *p = &f->pod[i];
        f->cpus[p->node] = f->mem_gib[p->node] = 0;
        for (uint32_t k = 0; k < p->ngpus; k++)
            f->gpu_taken[p->gpu[k]] = 0;
    }
}

void podfit_clear(struct podfit *f)
{
    if (f->next == 0)
        podfit_untake(f);
    f->n = f->next = 0;
}

void podfit_add(struct podfit *f, const struct view *v, const struct placement *p)
{
    CPN_ASSERT(f->n < f->max_pods && f->next == 0);
    const struct view_job jb = view_job(v, p->job);
    f->pod[f->n++] = *p;
    f->cpus[p->node] += jb.cpus;
    f->mem_gib[p->node] += jb.mem_gib;
    for (uint32_t k = 0; k < p->ngpus; k++)
        f->gpu_taken[p->gpu[k]] = 1;
}

bool podfit_fits_requests(const struct podfit *f, const struct view *v, uint32_t n, uint32_t j)
{
    if (f->n == 0)
        return view_node_fits_requests(v, n, j);
    return view_node_fits_more(v, n, j, f->cpus[n], f->mem_gib[n]);
}

struct podfit_planned podfit_on_node(const struct podfit *f, const struct view *v, uint32_t n)
{
    struct podfit_planned pl = {0, 0, 0};
    if (f->n == f->next)
        return pl;
    pl.cpus = f->cpus[n];
    pl.mem_gib = f->mem_gib[n];
    const struct node *nd = &v->cl->nodes[n];
    for (uint32_t g = nd->gpu_first; g < nd->gpu_first + nd->gpu_count; g++)
        pl.gpus += f->gpu_taken[g] && v->gpu_assigned[g] == 0;
    return pl;
}

bool podfit_mem_fits(const struct podfit *f, const struct view *v, uint32_t j)
{
    if (f->n < 2)
        return true;
    double most = 0;
    for (uint32_t i = 0; i < f->n; i++) {
        struct view_estimate e;
        view_estimate(v, j, v->cl->nodes[f->pod[i].node].type, &e);
        if (e.mem_gib > most)
            most = e.mem_gib;
    }
    for (uint32_t i = 0; i < f->n; i++) {
        const struct placement *p = &f->pod[i];
        double gpu_mem = v->cl->types[v->cl->nodes[p->node].type].mem_gib;
        for (uint32_t k = 0; k < p->ngpus; k++)
            if (most > gpu_mem - v->gpu_assigned_mem_gib[p->gpu[k]] + VIEW_FIT_EPS)
                return false;
    }
    return true;
}

void podfit_nodes(const struct podfit *f, uint32_t *nodes)
{
    for (uint32_t i = 0; i < f->n; i++)
        nodes[i] = f->pod[i].node;
}

int podfit_next(struct podfit *f, struct placement *out)
{
    if (!podfit_pending(f))
        return 0;
    if (f->next == 0)
        podfit_untake(f);
    *out = f->pod[f->next++];
    if (f->next == f->n)
        f->n = f->next = 0;
    return 1;
}
