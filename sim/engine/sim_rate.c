/* sim_rate: the truth's rates and the accounting that follows them, for the loop in
 * sim.c. GPU time-slicing (a job goes at the slowest share of its GPUs), CPU
 * contention on a node (jobs' demand against the cores the background load of other
 * tenants leaves), the background load itself, the per-node lists of running jobs,
 * the marks of what a scrape must copy, and the integrals of busy GPUs and used
 * cores. Declared in sim_int.h. */
#include "sim_int.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_math.h>
#include <math.h>

#include "controller.h"
#include "../base/util.h"

/* ---- rates and GPU residency ---- */

/* The GPU-limited rate of job j: the slowest time-slicing share of its GPUs. */
double sim_gpu_rate(const struct sim *s, uint32_t j)
{
    const struct job *jb = &s->jobs->v[j];
    double rate = 1.0;
    for (uint32_t k = 0; k < sim_job_nslots(jb); k++) {
        double r = catalog_share_rate(s->cat, s->gpu_running[s->job_gpus[s->slot_first[j] + k]]);
        if (r < rate)
            rate = r;
    }
    return rate;
}

/* Brings a running job's remaining work and the time it lost to CPU contention up to
 * now, at the rate and CPU share it has had since its last update. */
void sim_catch_up(struct sim *s, struct jobrt *r)
{
    double dt = s->now - r->last_update_s;
    r->work_left_s -= r->rate * dt;
    if (r->work_left_s < 0)
        r->work_left_s = 0;
    r->cpu_lost_s += (1.0 - r->cpu_factor) * dt;
    r->last_update_s = s->now;
}

/* Sets a running job's GPU-limited rate and CPU share, bringing it up to date first
 * when they change its progress, and pushes its END event again when its rate changed. */
static void set_rate(struct sim *s, uint32_t j, double grate, double cfactor)
{
    struct jobrt *r = &s->rt[j];
    double rate = grate * cfactor;
    if (rate == r->rate && cfactor == r->cpu_factor) {
        r->gpu_rate = grate;
        return;
    }
    sim_catch_up(s, r);
    r->gpu_rate = grate;
    r->cpu_factor = cfactor;
    if (rate == r->rate)
        return;
    r->rate = rate;
    r->gen++;
    eq_schedule(&s->eq, s->key_end + j, s->now + r->work_left_s / rate, EV_END, j, r->gen);
}

/* Accumulates busy core-seconds up to now (before any change of cpu_used_total),
 * from the first submission on, the span the summary divides by. */
void sim_account_cpu(struct sim *s)
{
    if (s->now > s->cpu_since_s) {
        s->st.cpu_used_integral += s->cpu_used_total * (s->now - s->cpu_since_s);
        s->cpu_since_s = s->now;
    }
}

static void mark_node(struct sim *s, uint32_t n);

/* Calls fn(s, job) for every running job that shares a GPU with job j (j included when
 * it runs); a job sharing several is visited once per GPU shared. */
static void for_gpu_neighbours(struct sim *s, uint32_t j, void (*fn)(struct sim *, uint32_t))
{
    const struct job *jb = &s->jobs->v[j];
    for (uint32_t k = 0; k < sim_job_nslots(jb); k++) {
        uint32_t g = s->job_gpus[s->slot_first[j] + k];
        for (uint32_t e = s->gpu_resident[g]; e != VIEW_NONE; e = s->slots[e].next)
            if (s->rt[s->slots[e].job].state == JS_RUNNING)
                fn(s, s->slots[e].job);
    }
}

static void update_gpu_rate(struct sim *s, uint32_t j) { s->rt[j].gpu_rate = sim_gpu_rate(s, j); }

static void apply_rate(struct sim *s, uint32_t j)
{
    set_rate(s, j, s->rt[j].gpu_rate, s->node_factor[s->job_node[j]]);
}

/* Node n's CPU after its running jobs, their GPU sharing or its background changed:
 * each job's demand (cpu_cores at its GPU-limited rate), the share of that demand the
 * node can serve, the jobs' rates, and what a scrape reads. The cores available to
 * jobs are cpus x (1 - background); when the jobs ask more, each progresses at
 * available / demand of its GPU-limited rate (proportional sharing).
 *
 * When `changed` names a job that just started or stopped on its GPUs, only the jobs
 * sharing a GPU with it can have a new GPU-limited rate; the others' rates change only
 * if the node's share does. So only those are recomputed and, unless the share moved,
 * only their rates are set again: the cost of a start or an end is the jobs of its
 * GPUs, not of its node. changed VIEW_NONE (the background changed) recomputes all. */
void sim_refresh_node(struct sim *s, uint32_t n, uint32_t changed)
{
    const struct node *nd = &s->cl->nodes[n];
    if (changed == VIEW_NONE)
        for (uint32_t j = s->node_run_head[n]; j != VIEW_NONE; j = s->rt[j].rnext)
            update_gpu_rate(s, j);
    else
        for_gpu_neighbours(s, changed, update_gpu_rate);
    double demand = 0;
    for (uint32_t j = s->node_run_head[n]; j != VIEW_NONE; j = s->rt[j].rnext)
        demand += s->rt[j].cpu_cores * s->rt[j].gpu_rate;
    double avail = nd->cpus * (1.0 - s->node_bg[n]);
    double factor = demand > avail ? avail / demand : 1.0;
    if (changed == VIEW_NONE || factor != s->node_factor[n]) {
        s->node_factor[n] = factor;
        for (uint32_t j = s->node_run_head[n]; j != VIEW_NONE; j = s->rt[j].rnext)
            apply_rate(s, j);
    } else {
        for_gpu_neighbours(s, changed, apply_rate);
    }
    double used = (demand < avail ? demand : avail) + nd->cpus * s->node_bg[n];
    if (used != s->node_cpu_used[n] || demand != s->node_demand[n]) {
        sim_account_cpu(s);
        s->cpu_used_total += used - s->node_cpu_used[n];
        s->site_cpu_used[nd->site] += used - s->node_cpu_used[n];
        s->node_cpu_used[n] = used;
        s->node_demand[n] = demand;
        double u = nd->cpus > 0 ? used / nd->cpus : 0.0;
        if (u != s->node_cpu_util[n]) {
            s->node_cpu_util[n] = u;
            mark_node(s, n);
            if (s->cl->cfg.scrape_interval_s <= 0) { /* live metrics: the view changed */
                s->view.version++;
                controller_index_refresh(s, n);
            }
        }
    }
}

/* Adds running job j to its node's list, or takes it out. */
void sim_node_run_link(struct sim *s, uint32_t j)
{
    uint32_t n = s->job_node[j];
    struct jobrt *r = &s->rt[j];
    r->rprev = VIEW_NONE;
    r->rnext = s->node_run_head[n];
    if (r->rnext != VIEW_NONE)
        s->rt[r->rnext].rprev = j;
    s->node_run_head[n] = j;
}

void sim_node_run_unlink(struct sim *s, uint32_t j)
{
    struct jobrt *r = &s->rt[j];
    if (r->rprev == VIEW_NONE)
        s->node_run_head[s->job_node[j]] = r->rnext;
    else
        s->rt[r->rprev].rnext = r->rnext;
    if (r->rnext != VIEW_NONE)
        s->rt[r->rnext].rprev = r->rprev;
    r->rnext = r->rprev = VIEW_NONE;
}

/* ---- background load of other tenants ---- */

/* splitmix64: one step of its generator (the golden-ratio increment), then its finaliser. */
static uint64_t mix64(uint64_t x) { return cpn_mix64(x + 0x9E3779B97F4A7C15ull); }

/* A standard normal draw that depends only on (seed, node, step): a uniform in (0, 1)
 * from a hash of the three, through GSL's inverse normal CDF. Drawn this way the load
 * is the same whatever order events come in, so every policy of a run sees the same. */
static double bg_gauss(uint64_t seed, uint32_t n, uint64_t k)
{
    uint64_t h = mix64(seed ^ mix64(((uint64_t)n << 32) ^ mix64(k)));
    return gsl_cdf_ugaussian_Pinv(((double)(h >> 11) + 0.5) / 9007199254740992.0);
}

double sim_background(const struct sim *s, uint32_t n, double t)
{
    const struct cpu_background *b = &s->cl->nodes[n].bg;
    if (!cpu_background_varies(b))
        return b->mean;
    double k = floor(t / b->step_s), t0 = k * b->step_s;
    double x = b->mean;
    if (b->amplitude != 0)
        x += b->amplitude * sin(2.0 * M_PI * (t0 + b->phase_s) / b->period_s);
    if (b->noise != 0)
        x += b->noise * bg_gauss(s->seed, n, (uint64_t)k);
    return x < 0 ? 0 : x > CLUSTER_MAX_BACKGROUND ? CLUSTER_MAX_BACKGROUND : x;
}

uint32_t sim_site_of_gpu(const struct sim *s, uint32_t g)
{
    return s->cl->nodes[s->cl->gpu_node[g]].site;
}

static void mark_node(struct sim *s, uint32_t n)
{
    if (!s->node_dirty[n]) {
        s->node_dirty[n] = 1;
        s->dirty_nodes[s->n_dirty_nodes++] = n;
    }
}

/* Notes that GPU g's utilisation or memory changed since the last scrape. */
void sim_mark_gpu(struct sim *s, uint32_t g)
{
    if (!s->gpu_dirty[g]) {
        s->gpu_dirty[g] = 1;
        s->dirty_gpus[s->n_dirty_gpus++] = g;
    }
    mark_node(s, s->cl->gpu_node[g]);
}

void sim_recompute_gpu_mem(struct sim *s, uint32_t g)
{
    double m = 0;
    for (uint32_t e = s->gpu_resident[g]; e != VIEW_NONE; e = s->slots[e].next)
        if (s->rt[s->slots[e].job].peaked)
            m += s->rt[s->slots[e].job].peak_gib;
    s->site_mem_gib[sim_site_of_gpu(s, g)] += m - s->gpu_mem_gib[g];
    s->gpu_mem_gib[g] = m;
    sim_mark_gpu(s, g);
}

/* Accumulates GPU busy time up to now (before any change of busy_gpus). */
void sim_account_busy(struct sim *s, double t)
{
    s->st.gpu_busy_integral += (double)s->busy_gpus * (t - s->busy_since_s);
    s->busy_since_s = t;
}
