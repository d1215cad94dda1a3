/* view: the estimates a policy may ask for. They combine the predictor (or, without
 * one, the catalogue's truth) with the job's own description, and the network's
 * transfer estimate; the policy never learns which predictor answers. */
#include "view.h"

#include "net.h"
#include "predict.h"
#include "util.h"

void view_estimate(const struct view *v, uint32_t j, uint32_t node, struct view_estimate *out)
{
    const struct job *jb = view_job(v, j);
    const struct gpu_type *gt = &v->cl->types[v->cl->nodes[node].type];
    struct profile p = {0};
    out->known = true;
    if (jb->model >= 0) {
        int rc = v->pred ? predictor_profile(v->pred, jb->model, jb->batch, gt->cat_type, gt->speed,
                                             jb->gpus, &p)
                         : catalog_lookup(v->cat, jb->model, jb->batch, gt->cat_type, gt->speed,
                                          jb->gpus, &p);
        CPN_ASSERT(rc == 0);
        if (v->pred)
            out->known = predictor_knows(v->pred, jb->model);
    } else {
        out->known = jb->gpu_mem_gib >= 0;
    }
    out->run_s = job_run_s(jb, v->cat, p.step_s, gt->speed);
    out->mem_gib = jb->gpu_mem_gib >= 0 ? jb->gpu_mem_gib : p.mem_gib;
}

double view_transfer_estimate_s(const struct view *v, uint32_t j, uint32_t site)
{
    if (!v->net)
        return 0.0;
    return net_estimate_job_s(v->net, v->jobs, j, site);
}
