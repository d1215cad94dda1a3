/* view: the estimates a policy may ask for. They combine the predictor (or, without
 * one, the catalogue's truth) with the job's own description, and the network's
 * transfer estimate; the policy never learns which predictor answers. */
#include "view.h"

#include <math.h>
#include <stdlib.h>

#include "catalog.h"
#include "job.h"
#include "learn.h"
#include "net.h"
#include "nodeidx.h"
#include "predict.h"
#include "../base/util.h"

/* The learner's keys that a completed run of a catalogue model adds to, all of them
 * functions of (model, batch, type, gpus): a memo entry keeps their handles. */
enum memo_lkey {
    MEMO_LSTEP,       /* LEARN_STEP (model, batch, type, gpus) */
    MEMO_LSTEP_BGPUS, /* LEARN_STEP_BGPUS (model, batch, gpus) */
    MEMO_LSTEP_BATCH, /* LEARN_STEP_BATCH (model, batch) */
    MEMO_LSTEP_GPUS,  /* LEARN_STEP_GPUS (model, gpus) */
    MEMO_LSTEP_MODEL, /* LEARN_STEP_MODEL (model) */
    MEMO_LMEM,        /* LEARN_MEM (model, batch) */
    MEMO_LMEM_MODEL,  /* LEARN_MEM_MODEL (model) */
    MEMO_NLKEYS
};

/* Open addressing on (model, batch, type, gpus); grows at half full. */
struct memo_entry {
    int32_t model; /* -1 = empty */
    uint32_t batch, type, gpus;
    struct profile p;  /* the predictor's */
    bool known;
    bool lknown;       /* known, with what was learnt */
    bool lkeyed;       /* lkey holds the learner's handles */
    uint32_t lver;     /* the publication lp was learnt at (0: never) */
    struct profile lp; /* p corrected by what was learnt (learnt_profile) */
    /* The CPU demand (job_cpu_cores_scaled) of a job of the key that declares none, at
     * p's step time and at lp's (of lver): a function of the key and the step alone.
     * NAN until asked. */
    double cpu_cores, lcpu_cores;
    uint32_t lkey[MEMO_NLKEYS]; /* learner_key's handles of the entry's keys, once lkeyed */
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
    /* The catalogue's profiles by the same key (their entries' p, nothing learnt): the
     * truth the engine runs each placed job by (view_source_true_profile). */
    struct view_memo cat_memo;
    bool truth;            /* the oracle or noisy: may see a job's duration_s, gpu_mem_gib */
    struct learner *learn; /* what completed runs taught; NULL: learning is off */
    double prior_run_s;    /* a duration job's run time before any history */
    size_t runs, runs_pub; /* completions learnt from, and at the last publication */
    uint32_t pub_ver;      /* publications so far, from 1: the memo's learnt profiles' stamp */
    /* [jobs->n at creation] of a job given by its model, its steps over the run
     * (job_run_s at a step of 1 s), so that its run time on a type is this times the
     * type's step time; NAN until first asked. */
    double *steps;
    size_t n_steps;
};

#define VIEW_MEMO_INITIAL 1024

static void memo_clear(struct memo_entry *t, size_t cap)
{
    for (size_t i = 0; i < cap; i++)
        t[i].model = -1;
}

static void memo_init(struct view_memo *m)
{
    m->cap = VIEW_MEMO_INITIAL;
    m->t = cpn_calloc(m->cap, sizeof *m->t);
    memo_clear(m->t, m->cap);
}

struct view_source *view_source_create(const struct catalog *cat, const struct jobset *jobs,
                                       const struct predictor *pred, const struct net *net,
                                       bool learn, double prior_run_s)
{
    struct view_source *src = cpn_calloc(1, sizeof *src);
    bool truth = !pred || predictor_sees_truth(pred);
    *src = (struct view_source){.cat = cat, .jobs = jobs, .pred = pred, .net = net,
                                .truth = truth, .prior_run_s = prior_run_s, .pub_ver = 1,
                                .learn = learn && !truth ? learner_create() : NULL};
    src->n_steps = jobs ? jobs->n : 0;
    src->steps = cpn_malloc((src->n_steps ? src->n_steps : 1) * sizeof *src->steps);
    for (size_t j = 0; j < src->n_steps; j++)
        src->steps[j] = NAN;
    memo_init(&src->memo);
    memo_init(&src->cat_memo);
    return src;
}

void view_source_destroy(struct view_source *src)
{
    if (!src)
        return;
    free(src->memo.t);
    free(src->cat_memo.t);
    free(src->steps);
    learner_destroy(src->learn);
    free(src);
}

/* The slot holding (model, batch, type, gpus), or the empty slot where it belongs. */
static inline struct memo_entry *memo_slot(struct view_memo *m, int32_t model, uint32_t batch,
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

/* noisy:SIGMA's factor on job j's own duration (what 0) or memory (what 1); 1 for the
 * oracle (no predictor). */
static double view_job_noise(const struct view_source *src, uint32_t j, unsigned what)
{
    return src->pred ? predictor_job_noise(src->pred, j, what) : 1.0;
}

/* memo_entry_of's entry made: the memo grows first if it would be over half full. */
static struct memo_entry *memo_make(struct view_memo *m, const struct predictor *pred,
                                    const struct catalog *cat, const struct cluster *cl,
                                    const struct job *jb, uint32_t type)
{
    if ((m->n + 1) * 2 > m->cap)
        memo_grow(m);
    struct memo_entry *e = memo_slot(m, jb->model, jb->batch, type, jb->gpus);
    const struct gpu_type *gt = &cl->types[type];
    struct profile p;
    int rc = pred ? predictor_profile(pred, jb->model, jb->batch, gt->cat_type, gt->speed,
                                      jb->gpus, &p)
                  : catalog_lookup(cat, jb->model, jb->batch, gt->cat_type, gt->speed, jb->gpus, &p);
    CPN_ASSERT(rc == 0);
    bool known = pred ? predictor_knows(pred, jb->model) : true;
    *e = (struct memo_entry){.model = jb->model, .batch = jb->batch, .type = type,
                             .gpus = jb->gpus, .p = p, .known = known, .cpu_cores = NAN,
                             .lcpu_cores = NAN};
    m->n++;
    return e;
}

/* The entry of (model, batch, gpus) on a cluster GPU type in memo m, with its profile
 * made on first use: pred's prediction, or the catalogue's when pred is NULL. The
 * pointer is valid until the next call on m. (Inline: nearly every call finds it.) */
static inline struct memo_entry *memo_entry_of(struct view_memo *m, const struct predictor *pred,
                                               const struct catalog *cat,
                                               const struct cluster *cl, const struct job *jb,
                                               uint32_t type)
{
    struct memo_entry *e = memo_slot(m, jb->model, jb->batch, type, jb->gpus);
    return e->model >= 0 ? e : memo_make(m, pred, cat, cl, jb, type);
}

/* The memo's entry of (model, batch, gpus) on a cluster GPU type, with the predicted
 * profile (made on first use). The pointer is valid until the next call. */
static struct memo_entry *predicted_entry(struct view_source *src, const struct cluster *cl,
                                          const struct job *jb, uint32_t type)
{
    return memo_entry_of(&src->memo, src->pred, src->cat, cl, jb, type);
}

void view_source_true_profile(struct view_source *src, const struct cluster *cl,
                              const struct job *jb, uint32_t type, struct profile *out)
{
    CPN_ASSERT(jb->model >= 0);
    *out = memo_entry_of(&src->cat_memo, NULL, src->cat, cl, jb, type)->p;
}

/* The learnt corrections of a catalogue model's predicted profile on a cluster type.
 * Step time: a measured step of the same (model, batch, type, GPUs), else the predicted
 * step times the mean log observed/predicted ratio of the same (model, batch, GPUs) on
 * other types, else of the (model, batch). For a model the predictor was trained on,
 * that is all: its errors differ from batch to batch (on the default queues the forest
 * is 6x high at one batch of ResNet-50 and right at another), so a ratio learnt at one
 * batch would spoil the others. For a model it never saw, whose error is mostly the
 * model's own, the ratio of the (model, GPUs), else of the model, applies too. Memory,
 * alike: the largest peak seen of the (model, batch); else, for a model it never saw, the
 * prediction times the model's observed/predicted ratio (before the margin, which
 * stays). (A ratio learnt at ResNet-50's batch 16 cost an OOM kill at its batch 128.) A
 * model seen in any completed run is known. */
static void learnt_profile(const struct learner *l, const struct job *jb, uint32_t type,
                           struct profile *p, bool *known)
{
    double x;
    uint32_t m = (uint32_t)jb->model;
    bool seen = learner_get(l, LEARN_STEP_MODEL, m, 0, 0, 0, &x, NULL);
    if (learner_get(l, LEARN_STEP, m, jb->batch, type, jb->gpus, &x, NULL))
        p->step_s = exp(x);
    else if (learner_get(l, LEARN_STEP_BGPUS, m, jb->batch, jb->gpus, 0, &x, NULL) ||
             learner_get(l, LEARN_STEP_BATCH, m, jb->batch, 0, 0, &x, NULL) ||
             (!*known && (learner_get(l, LEARN_STEP_GPUS, m, jb->gpus, 0, 0, &x, NULL) ||
                          learner_get(l, LEARN_STEP_MODEL, m, 0, 0, 0, &x, NULL))))
        p->step_s *= exp(x);
    if (learner_get(l, LEARN_MEM, m, jb->batch, 0, 0, &x, NULL)) {
        p->mem_gib = x;
        seen = true;
    } else if (learner_get(l, LEARN_MEM_MODEL, m, 0, 0, 0, &x, NULL)) {
        if (!*known)
            p->mem_gib *= exp(x);
        seen = true;
    }
    *known = *known || seen;
}

/* How much the prior counts against the history, in completed jobs. */
#define VIEW_PRIOR_WEIGHT 1.0

/* The run time at speed 1 that the controller expects of a job given by duration, from
 * what it has learnt: the geometric mean of the completed runs of its (origin, GPUs),
 * else of its GPU count, shrunk towards the prior with the weight of one run; the
 * prior alone before any such run completed (docs/predictor.md). */
static double history_run_s(const struct view_source *src, const struct job *jb)
{
    double lg = log(src->prior_run_s), x;
    uint32_t n = 0;
    if (src->learn && (learner_get(src->learn, LEARN_RUN, jb->origin, jb->gpus, 0, 0, &x, &n) ||
                       learner_get(src->learn, LEARN_RUN_GPUS, jb->gpus, 0, 0, 0, &x, &n)))
        lg = (VIEW_PRIOR_WEIGHT * lg + (double)n * x) / (VIEW_PRIOR_WEIGHT + (double)n);
    return exp(lg);
}

/* The most GPU memory of any GPU type of the cluster. */
static double largest_gpu_mem(const struct view *v)
{
    double m = 0;
    for (uint32_t t = 0; t < v->cl->n_types; t++)
        m = fmax(m, v->cl->types[t].mem_gib);
    return m;
}

/* view_job_steps worked out, and kept. */
static double view_job_steps_of(struct view_source *src, uint32_t j)
{
    const struct job *jb = &src->jobs->v[j];
    double steps = job_run_pods_s(jb, jobset_pods(src->jobs, j), src->cat, 1.0, 1.0);
    if (j < src->n_steps)
        src->steps[j] = steps;
    return steps;
}

/* Job j's steps over its run (it has a model): job_run_pods_s at a step of 1 s, the
 * product of its epochs and steps per epoch (each over batch x gpus x pods samples),
 * which job_run_pods_s multiplies by the step time. So this times a step time is, to
 * the bit, job_run_pods_s at that step time (job_run_s for a job of one pod). Kept per
 * job, since finding the steps costs a catalogue look-up by family name. (Inline: every
 * estimate asks, and nearly every ask finds it kept.) */
static inline double view_job_steps(struct view_source *src, uint32_t j)
{
    return j < src->n_steps && !isnan(src->steps[j]) ? src->steps[j] : view_job_steps_of(src, j);
}

/* The CPU demand that job jb's source would predict at a step of step_s were its
 * measured cpu_cores_used absent (as a predictor takes it: view_estimate). */
static double declared_cpu_cores(const struct view *v, const struct job *jb, double step_s)
{
    struct job declared = *jb;
    declared.cpu_cores_used = 0;
    return job_cpu_cores_scaled(&declared, v->src->cat, step_s, v->cl->cfg.cpu_cost_scale);
}

void view_estimate(const struct view *v, uint32_t j, uint32_t type, struct view_estimate *out)
{
    struct view_source *src = v->src;
    const struct job *jb = &src->jobs->v[j];
    double speed = v->cl->types[type].speed;
    struct profile p = {0};
    double *cpu = NULL; /* the memo's CPU demand of the job's key at p's step */
    out->known = true;
    if (jb->model >= 0) {
        struct memo_entry *e = predicted_entry(v->src, v->cl, jb, type);
        if (src->learn && e->lver != src->pub_ver) { /* learnt anew since: correct it again */
            e->lp = e->p;
            e->lknown = e->known;
            learnt_profile(src->learn, jb, type, &e->lp, &e->lknown);
            e->lver = src->pub_ver;
            e->lcpu_cores = NAN;
        }
        p = src->learn ? e->lp : e->p;
        out->known = src->learn ? e->lknown : e->known;
        cpu = src->learn ? &e->lcpu_cores : &e->cpu_cores;
    }
    /* A job's own duration and GPU memory are the truth: only the oracle and noisy see
     * them. The learned methods go by the job's model and the history. */
    if (jb->duration_s >= 0)
        out->run_s = (src->truth ? jb->duration_s * view_job_noise(src, j, 0)
                                 : history_run_s(src, jb)) / speed;
    else
        out->run_s = view_job_steps(src, j) * p.step_s;
    double x;
    if (jb->gpu_mem_gib >= 0 && src->truth)
        out->mem_gib = jb->gpu_mem_gib * view_job_noise(src, j, 1);
    else if (jb->model >= 0 || jb->gpu_mem_gib < 0)
        out->mem_gib = p.mem_gib; /* a model-less job that needs none: 0, and it is known */
    else if (src->learn && learner_get(src->learn, LEARN_RUN_MEM, jb->origin, jb->gpus, 0, 0, &x, NULL))
        out->mem_gib = x * (1.0 + predictor_mem_margin(src->pred));
    else
        out->known = false, out->mem_gib = 0; /* a model-less job's memory nobody has seen */
    /* A learned prediction that fits on no GPU type of the cluster is distrusted (the
     * margin, or a model it never saw, can push it there): the job is treated as unseen
     * and given whole GPUs of the largest memory there is, so that a policy runs it
     * alone there and its run teaches the controller what it takes, instead of never
     * placing it. */
    if (!src->truth && out->mem_gib > v->cl->types[type].mem_gib) {
        double most = largest_gpu_mem(v);
        if (out->mem_gib > most) {
            out->mem_gib = most;
            out->known = false;
        }
    }
    /* A predictor does not see the job's measured cpu_cores_used: it derives the demand
     * from the model and its predicted step time, as the engine does from the truth. A
     * job of a model whose demand is so derived (a predictor's, or one that declares
     * none) has its key's, which the memo keeps beside the step it is of: working it out
     * costs more than the rest of an estimate that the memo answers. */
    if (cpu && (src->pred || !(jb->cpu_cores_used > 0))) {
        if (isnan(*cpu))
            *cpu = declared_cpu_cores(v, jb, p.step_s);
        out->cpu_cores = *cpu;
    } else if (src->pred && jb->cpu_cores_used > 0) {
        out->cpu_cores = declared_cpu_cores(v, jb, p.step_s);
    } else {
        out->cpu_cores = job_cpu_cores_scaled(jb, src->cat, p.step_s, v->cl->cfg.cpu_cost_scale);
    }
}

/* Fills the memo entry's handles of its learner keys (their entries made, with no
 * observation, when new: a key without one reads as unknown, as an absent one). A
 * completed run then adds to them without hashing its keys again. */
static void memo_learner_keys(struct learner *l, struct memo_entry *e)
{
    uint32_t m = (uint32_t)e->model;
    e->lkey[MEMO_LSTEP] = learner_key(l, LEARN_STEP, m, e->batch, e->type, e->gpus);
    e->lkey[MEMO_LSTEP_BGPUS] = learner_key(l, LEARN_STEP_BGPUS, m, e->batch, e->gpus, 0);
    e->lkey[MEMO_LSTEP_BATCH] = learner_key(l, LEARN_STEP_BATCH, m, e->batch, 0, 0);
    e->lkey[MEMO_LSTEP_GPUS] = learner_key(l, LEARN_STEP_GPUS, m, e->gpus, 0, 0);
    e->lkey[MEMO_LSTEP_MODEL] = learner_key(l, LEARN_STEP_MODEL, m, 0, 0, 0);
    e->lkey[MEMO_LMEM] = learner_key(l, LEARN_MEM, m, e->batch, 0, 0);
    e->lkey[MEMO_LMEM_MODEL] = learner_key(l, LEARN_MEM_MODEL, m, 0, 0, 0);
    e->lkeyed = true;
}

bool view_source_learn(struct view_source *src, const struct cluster *cl, uint32_t j,
                       uint32_t type, double run_s, double peak_gib)
{
    if (!src->learn)
        return false;
    const struct job *jb = &src->jobs->v[j];
    double speed = cl->types[type].speed;
    struct learner *l = src->learn;
    bool fresh = false;
    bool timed = run_s > 0; /* NaN: a run that shared its GPUs teaches no run time */
    if (jb->duration_s >= 0) {
        if (timed) {
            double lrun = log(run_s * speed); /* at speed 1, as duration_s is */
            fresh |= learner_add(l, LEARN_RUN, jb->origin, jb->gpus, 0, 0, lrun);
            fresh |= learner_add(l, LEARN_RUN_GPUS, jb->gpus, 0, 0, 0, lrun);
        }
        if (jb->model < 0 && jb->gpu_mem_gib >= 0)
            learner_add(l, LEARN_RUN_MEM, jb->origin, jb->gpus, 0, 0, peak_gib);
    }
    if (jb->model >= 0) {
        struct memo_entry *e = predicted_entry(src, cl, jb, type);
        if (!e->lkeyed)
            memo_learner_keys(l, e);
        const uint32_t *k = e->lkey;
        if (timed && jb->duration_s < 0) { /* its steps are known from what it declares */
            double step = run_s / view_job_steps(src, j);
            double ratio = log(step / e->p.step_s); /* observed over predicted */
            learner_add_at(l, k[MEMO_LSTEP], log(step));
            learner_add_at(l, k[MEMO_LSTEP_BGPUS], ratio);
            learner_add_at(l, k[MEMO_LSTEP_BATCH], ratio);
            learner_add_at(l, k[MEMO_LSTEP_GPUS], ratio);
            fresh |= learner_add_at(l, k[MEMO_LSTEP_MODEL], ratio);
        }
        if (peak_gib > 0) {
            learner_add_at(l, k[MEMO_LMEM], peak_gib);
            fresh |= learner_add_at(l, k[MEMO_LMEM_MODEL],
                                    log(peak_gib * (1.0 + predictor_mem_margin(src->pred)) / e->p.mem_gib));
        }
    }
    /* Estimates change when a model or history key is first seen, and otherwise each
     * time the completions learnt from have doubled: a bounded number of times per run
     * (policies rebuild what they derived from estimates each time). */
    src->runs++;
    if (!fresh && src->runs < 2 * src->runs_pub)
        return false;
    learner_publish(l);
    src->runs_pub = src->runs;
    src->pub_ver++;
    return true;
}

struct view_job view_job(const struct view *v, uint32_t j)
{
    CPN_ASSERT(j < v->n_jobs);
    const struct job *jb = &v->src->jobs->v[j];
    return (struct view_job){
        .submit_s = jb->submit_s, .cpus = jb->cpus, .mem_gib = jb->mem_gib, .gpus = jb->gpus,
        .pods = jobset_pods(v->src->jobs, j)};
}

bool view_job_runs_on(const struct view *v, uint32_t j, uint32_t type)
{
    CPN_ASSERT(j < v->n_jobs && type < v->cl->n_types);
    const struct job *jb = &v->src->jobs->v[j];
    int cat_type = v->cl->types[type].cat_type;
    return jb->model < 0 || cat_type < 0 ||
           catalog_runs_on(v->src->cat, jb->model, jb->batch, cat_type, jb->gpus);
}

double view_allreduce_run_s(const struct view *v, uint32_t j, const uint32_t *pod_nodes,
                            uint32_t pods)
{
    const struct job *jb = &v->src->jobs->v[j];
    if (!v->src->net || jb->model < 0 || jb->duration_s >= 0)
        return 0.0;
    double step = net_allreduce_s(v->src->net, jb->model, pod_nodes, pods);
    return step > 0 ? view_job_steps(v->src, j) * step : 0.0;
}

double view_transfer_estimate_s(const struct view *v, uint32_t j, uint32_t site)
{
    if (!v->src->net)
        return 0.0;
    return net_estimate_job_s(v->src->net, v->src->jobs, j, site);
}

void view_transfer_estimates_s(const struct view *v, uint32_t j, const uint32_t *sites,
                               size_t count, double *out)
{
    if (v->src->net) {
        net_estimate_job_sites_s(v->src->net, j, sites, count, out);
        return;
    }
    for (size_t i = 0; i < count; i++)
        out[sites[i]] = 0.0;
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
    const struct view_job jd = view_job(v, j), *jb = &jd;
    for (uint32_t n = from; n < v->cl->n_nodes; n++) {
        if (v->nodeidx) {
            n = nodeidx_first(v->nodeidx, n, jb->cpus, jb->mem_gib, idle_gpus);
            if (n == UINT32_MAX)
                return VIEW_NONE;
        }
        /* The index is conservative: check exactly. */
        if (view_node_fits_requests(v, n, j) && (idle_gpus == 0 || idle_gpus_of(v, n) >= idle_gpus) &&
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
