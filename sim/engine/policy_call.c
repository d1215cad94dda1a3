/* policy_call: the engine's checked wrappers over a policy's hooks, in the manner of
 * SQLite's sqlite3Os* wrappers over a VFS: the loop in sim.c never calls a hook
 * directly. Each wrapper brings the view's clock up to date, supplies the default of
 * an absent optional hook, checks the hook's result and, when policy_check_indexes is
 * on, calls the policy's check hook at the two moments its indexes must agree with
 * the view: when a scheduling point has begun and when it has ended. With the test
 * switch policy_churn_estimates, the wrapper of begin grows the view's est_version
 * first, as if the estimates had changed (policy.h). */
#include "policy_call.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "../base/util.h"

#ifdef CPN_CHECK_INDEXES
bool policy_check_indexes = true;
#else
bool policy_check_indexes = false;
#endif

bool policy_churn_estimates = false;

static void check_indexes(const struct sim *s)
{
    if (policy_check_indexes && s->pol->check)
        s->pol->check(s->pol_state, &s->view);
}

int policy_call_init(struct sim *s, char *err, size_t errlen)
{
    CPN_ASSERT(s->pol && s->pol->place && s->pol_state == NULL);
    s->view.now = s->now;
    return s->pol->init ? s->pol->init(&s->pol_state, &s->view, err, errlen) : 0;
}

void policy_call_begin(struct sim *s)
{
    s->view.now = s->now;
    if (policy_churn_estimates)
        s->view.est_version++;
    if (s->pol->begin)
        s->pol->begin(s->pol_state, &s->view);
    check_indexes(s);
}

/* Why placement p is invalid now, as a sentence into why (returns false), or true
 * when it is valid (policy_call.h says what that takes). */
static bool placement_ok(const struct sim *s, const struct placement *p, char *why, size_t whylen)
{
    const struct cluster *cl = s->cl;
    why[0] = '\0';
    if (p->job >= s->jobs->n) {
        snprintf(why, whylen, "job %u does not exist", p->job);
        return false;
    }
    const struct job *jb = &s->jobs->v[p->job];
    if (s->rt[p->job].state != JS_QUEUED)
        snprintf(why, whylen, "job %u is not queued", p->job);
    else if (p->node >= cl->n_nodes)
        snprintf(why, whylen, "node %u does not exist", p->node);
    else if (p->ngpus != jb->gpus)
        snprintf(why, whylen, "job %u asks %u GPUs, placement gives %u", p->job, jb->gpus,
                 p->ngpus);
    else if (p->ngpus > cl->nodes[p->node].gpu_count) /* before p->gpu[] is read */
        snprintf(why, whylen, "placement gives %u GPUs, node %u holds %u", p->ngpus, p->node,
                 cl->nodes[p->node].gpu_count);
    if (why[0])
        return false;
    const struct node *nd = &cl->nodes[p->node];
    for (uint32_t k = 0; k < p->ngpus; k++) {
        if (p->gpu[k] < nd->gpu_first || p->gpu[k] >= nd->gpu_first + nd->gpu_count) {
            snprintf(why, whylen, "GPU %u is not on node %u", p->gpu[k], p->node);
            return false;
        }
        for (uint32_t m = 0; m < k; m++)
            if (p->gpu[m] == p->gpu[k]) {
                snprintf(why, whylen, "GPU %u given twice", p->gpu[k]);
                return false;
            }
        /* Pods of one job on one GPU: NCCL refuses to start ("Duplicate GPU detected"). */
        uint32_t held = sim_pods_placed(s, p->job) * sim_job_nslots(jb);
        for (uint32_t e = 0; s->gang && e < held; e++)
            if (s->job_gpus[s->slot_first[p->job] + e] == p->gpu[k]) {
                snprintf(why, whylen, "GPU %u already holds a pod of job %u", p->gpu[k], p->job);
                return false;
            }
    }
    if (p->ngpus > 0 && !view_job_runs_on(&s->view, p->job, nd->type)) {
        snprintf(why, whylen,
                 "job %u (%s, batch %u, %u GPUs) cannot run on node %u's GPU type %s: its "
                 "source measured it at zero throughput there (view_job_runs_on)",
                 p->job, catalog_model_name(s->cat, jb->model), jb->batch, jb->gpus, p->node,
                 cl->types[nd->type].name);
        return false;
    }
    if (!view_node_eligible(&s->view, p->node)) {
        snprintf(why, whylen,
                 "node %u's scraped CPU utilisation %.4g is at or above cpu_threshold %.4g "
                 "(the controller's node filter)",
                 p->node, s->view.node_cpu_util[p->node], cl->cfg.cpu_threshold);
        return false;
    }
    if (s->node_cpus_held[p->node] + jb->cpus > nd->cpus + VIEW_FIT_EPS ||
        s->node_mem_held[p->node] + jb->mem_gib > nd->mem_gib + VIEW_FIT_EPS) {
        snprintf(why, whylen, "node %u has not the CPU or memory job %u requests", p->node, p->job);
        return false;
    }
    return true;
}

/* A bad placement, or a result other than 0 or 1, is a bug in the policy: it aborts
 * with details. */
int policy_call_place(struct sim *s, struct placement *out)
{
    char why[256];
    s->view.now = s->now;
    memset(out, 0, sizeof *out);
    CPN_ASSERT(s->view.queue_len > 0);
    int rc = s->pol->place(s->pol_state, &s->view, out);
    if (rc == 0)
        return 0;
    if (rc != 1)
        snprintf(why, sizeof why, "place returned %d, not 0 or 1", rc);
    else if (placement_ok(s, out, why, sizeof why))
        return 1;
    fprintf(stderr, "cpnsim: policy '%s' made an invalid placement at t=%.3f: %s\n", s->pol->name,
            s->now, why);
    abort();
}

double policy_call_end(struct sim *s)
{
    s->view.now = s->now;
    double t = s->pol->end ? s->pol->end(s->pol_state, &s->view) : INFINITY;
    CPN_ASSERT(!isnan(t));
    check_indexes(s);
    return t;
}

void policy_call_job_event(struct sim *s, uint32_t j, enum policy_job_event e)
{
    CPN_ASSERT(j < s->jobs->n);
    if (s->pol->job_event) {
        s->view.now = s->now;
        s->pol->job_event(s->pol_state, &s->view, j, e);
    }
}

void policy_call_destroy(struct sim *s)
{
    if (s->pol && s->pol->destroy)
        s->pol->destroy(s->pol_state);
    s->pol_state = NULL;
}
