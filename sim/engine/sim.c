/* sim: the simulation loop, its event handlers and the truth model's jobs; the truth's
 * rates (GPU time-slicing, CPU contention, background load) and the busy-time
 * accounting are in sim_rate.c (declared in sim_int.h); the controller's side is
 * controller.c.
 *
 * Truth. A placed job holds its node's CPU and memory requests and its GPUs from
 * placement to its end. While its data moves it is in TRANSFER; then it RUNS. A
 * running job has an amount of work (seconds at full speed on its GPU type) and a
 * rate: jobs sharing a GPU are time-sliced, each getting catalog_share_rate(k) of
 * it, and a job on several GPUs goes at the pace of its slowest share. Rates change
 * only when a job starts or stops on a GPU, and then only for the jobs on that GPU.
 * The jobs of a node on the same GPUs share one virtual clock and one END event
 * (sim_share.c), so a change costs the node's groups of jobs, not the jobs.
 * warmup_s after its start a job reaches its peak GPU memory;
 * if a GPU then holds more than it has, that job (the last to peak) is OOM-killed.
 *
 * Controller (controller.c). Policies see struct view: the last scrape (copied from the truth every
 * scrape_interval_s, or the live truth when it is 0) and the controller's
 * bookkeeping, which releases a job only when the controller learns that it ended:
 * at once with completion "event", else at the next poll (multiples of
 * poll_interval_s). A killed job is retried after its back-off, counted from when the
 * controller learns of the kill.
 *
 * Loop. Events of one instant are applied in (time, seq) order; then, if any was a
 * scheduling point (arrival, a learnt end, retry, scrape), the policy is asked for
 * placements until it makes none. This is the only loop; policies never see it. */
#include "sim.h"
#include "sim_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "net.h"
#include "controller.h"
#include "policy_call.h"
#include "../base/util.h"

const char *const job_state_name[JS_NSTATES] = {
    [JS_PENDING] = "pending", [JS_QUEUED] = "queued",   [JS_TRANSFER] = "transfer",
    [JS_RUNNING] = "running", [JS_KILLED] = "killed",   [JS_BACKOFF] = "backoff",
    [JS_DONE] = "done",       [JS_FAILED] = "failed",   [JS_STUCK] = "stuck",
    [JS_UNFINISHED] = "unfinished",
};

/* ---- background load of other tenants ---- */

/* Node n's background takes its value for the step that begins now; the next step's
 * event is pushed. */
static void on_background(struct sim *s, uint32_t n)
{
    const struct cpu_background *b = &s->cl->nodes[n].bg;
    double bg = sim_background(s, n, s->now);
    if (bg != s->node_bg[n]) {
        s->node_bg[n] = bg;
        sim_refresh_node(s, n, SIM_ALL_GPUS);
    }
    eq_push(&s->eq, (floor(s->now / b->step_s) + 1.0) * b->step_s, EV_BACKGROUND, n, 0);
}

/* The catalogue's profile of job j on node n's GPU type, into *p (zeros for a job with
 * no model: false). */
static bool job_profile(const struct sim *s, uint32_t j, uint32_t n, struct profile *p)
{
    const struct job *jb = &s->jobs->v[j];
    *p = (struct profile){0};
    if (jb->model < 0)
        return false;
    view_source_true_profile(s->view.src, s->cl, jb, s->cl->nodes[n].type, p);
    return true;
}

/* Work (seconds at full rate), peak memory and CPU demand (cores at full solo speed)
 * of job j on node n's GPU type. */
static void job_demand(const struct sim *s, uint32_t j, uint32_t n, double *work_s,
                       double *peak_gib, double *cpu_cores)
{
    const struct job *jb = &s->jobs->v[j];
    struct profile p;
    bool have_profile = job_profile(s, j, n, &p);
    *work_s = job_run_s(jb, s->cat, p.step_s, s->cl->types[s->cl->nodes[n].type].speed);
    *cpu_cores = job_cpu_cores_scaled(jb, s->cat, p.step_s, s->cl->cfg.cpu_cost_scale);
    if (jb->gpu_mem_gib >= 0)
        *peak_gib = jb->gpu_mem_gib;
    else
        *peak_gib = have_profile ? p.mem_gib : 0.0;
}

/* Seconds one step of distributed job j (all its pods placed) spends all-reducing
 * its gradients between its nodes (net_allreduce_s, which the view's estimate shares). */
static double gang_allreduce_s(const struct sim *s, uint32_t j)
{
    return net_allreduce_s(s->net, s->jobs->v[j].model, sim_gang_nodes(s, j), s->gang->placed[j]);
}

const uint32_t *sim_gang_nodes(const struct sim *s, uint32_t j)
{
    for (uint32_t k = 0; k < s->gang->placed[j]; k++)
        s->gang->nodes[k] = sim_pod_node(s, j, k);
    return s->gang->nodes;
}

/* Sets the rates of the running distributed jobs whose share of a WAN link changed
 * (net_allreduce_next_dirty). */
static void gang_wan_refresh(struct sim *s)
{
    if (!s->gang)
        return;
    /* A job has flows only while it runs (start_running to release): one marked, then
     * released, has none. */
    for (uint32_t j; (j = net_allreduce_next_dirty(s->net)) != UINT32_MAX;)
        if (net_allreduce_crosses(s->net, j))
            sim_gang_refresh(s, j);
}

/* job_demand for distributed job j, its pods all placed: a step takes as long as on
 * its slowest pod's GPU type plus its all-reduce (gang_allreduce_s); a job given by
 * duration runs it at its slowest pod's speed (the trace's duration already holds its
 * communication). Peak memory is the most any pod's type shows; CPU demand is per pod. */
static void gang_demand(const struct sim *s, uint32_t j, double *work_s, double *peak_gib,
                        double *cpu_cores)
{
    const struct job *jb = &s->jobs->v[j];
    uint32_t pods = s->gang->placed[j];
    double step_s = 0, mem = 0, speed = INFINITY;
    for (uint32_t k = 0; k < pods; k++) {
        uint32_t n = sim_pod_node(s, j, k);
        speed = fmin(speed, s->cl->types[s->cl->nodes[n].type].speed);
        struct profile p;
        if (job_profile(s, j, n, &p)) {
            step_s = fmax(step_s, p.step_s);
            mem = fmax(mem, p.mem_gib);
        }
    }
    s->gang->step_c_s[j] = step_s;
    s->gang->ar_free_s[j] = 0;
    if (jb->model >= 0) {
        double ar = gang_allreduce_s(s, j);
        step_s += ar;
        if (jb->duration_s < 0) /* the work is in steps: the WAN's share slows them */
            s->gang->ar_free_s[j] = ar;
    }
    *work_s = job_run_pods_s(jb, pods, s->cat, step_s, speed);
    *cpu_cores = job_cpu_cores_scaled(jb, s->cat, step_s, s->cl->cfg.cpu_cost_scale);
    *peak_gib = jb->gpu_mem_gib >= 0 ? jb->gpu_mem_gib : mem;
}

/* The GPUs of pod k of running job j as a mask of its node's GPUs: a job of one pod
 * holds exactly its share group's GPUs, whose mask the group keeps (sim_pod_mask would
 * read the job's slots again); a distributed job's group spans nodes and has none. */
static uint16_t running_pod_mask(const struct sim *s, uint32_t j, uint32_t k, uint32_t pods)
{
    return pods == 1 ? s->groups[s->rt[j].group].mask : sim_pod_mask(s, j, k);
}

/* Releases everything job j holds in the truth (at its end, done, or kill). */
static void release(struct sim *s, uint32_t j, bool done)
{
    struct jobrt *r = &s->rt[j];
    const struct job *jb = &s->jobs->v[j];
    bool was_running = r->state == JS_RUNNING;
    uint32_t pods = sim_pods_placed(s, j), ns = sim_job_nslots(jb);
    /* A job of one pod: its GPUs' mask, read from its group before it leaves it. */
    uint16_t mask = was_running && pods == 1 ? running_pod_mask(s, j, 0, 1) : 0;
    sim_account_busy(s, s->now);
    for (uint32_t k = 0; ns > 0 && k < pods; k++) {
        /* A pod's GPUs are on its node: their site is read once. */
        uint32_t site = s->cl->nodes[sim_pod_node(s, j, k)].site;
        for (uint32_t e = s->slot_first[j] + k * ns, end = e + ns; e < end; e++) {
            struct slot *sl = &s->slots[e];
            uint32_t g = s->job_gpus[e];
            if (s->gpu_crowded[g]) /* some job was on it beside this one (apply_placement) */
                r->shared = 1;
            if (sl->prev == VIEW_NONE)
                s->gpu_resident[g] = sl->next;
            else
                s->slots[sl->prev].next = sl->next;
            if (sl->next != VIEW_NONE)
                s->slots[sl->next].prev = sl->prev;
            sl->next = sl->prev = VIEW_NONE;
            if (was_running && --s->gpu_running[g] == 0) {
                s->busy_gpus--;
                s->site_busy[site]--;
            }
            if (s->gpu_resident[g] == VIEW_NONE)
                s->gpu_util[g] = 0.0;
            if (r->peaked)
                sim_release_gpu_mem(s, g, site, r->peak_gib);
            else
                sim_mark_gpu(s, g);
        }
    }
    r->peaked = 0;
    for (uint32_t k = 0; k < pods; k++) {
        uint32_t n = sim_pod_node(s, j, k);
        s->node_cpus_held[n] -= jb->cpus;
        s->node_mem_held[n] -= jb->mem_gib;
        if (--s->node_jobs[n] == 0)
            s->node_cpus_held[n] = s->node_mem_held[n] = 0;
    }
    if (was_running) {
        if (pods > 1)
            net_allreduce_end(s->net, j, s->now);
        sim_share_leave(s, j, done);
        s->running--;
    }
    r->gen++;
    s->active--;
    s->last_change_s = s->now;
    s->view.version++;
    for (uint32_t k = 0; k < pods; k++) {
        uint32_t n = sim_pod_node(s, j, k);
        if (was_running)
            sim_refresh_node(s, n, pods == 1 ? mask : sim_pod_mask(s, j, k));
        controller_truth_changed(s, n);
    }
    gang_wan_refresh(s);
}

/* Job j, done or failed, may complete a longer prefix of ended jobs: s->final is told
 * how long (sim.h). Each job is looked at once over the run. */
static void final_advance(struct sim *s, uint32_t j)
{
    if (!s->final || j != s->final_jobs)
        return;
    size_t k = j + 1, n = s->jobs->n;
    while (k < n && (s->rt[k].state == JS_DONE || s->rt[k].state == JS_FAILED))
        k++;
    s->final_jobs = k;
    s->final->ended(s->final->ctx, k);
}

static void job_ends(struct sim *s, uint32_t j, enum job_state st)
{
    struct jobrt *r = &s->rt[j];
    release(s, j, st == JS_DONE);
    r->end_s = s->now;
    r->state = (uint8_t)st;
    if (st == JS_DONE || st == JS_FAILED) {
        s->terminal++;
        if (st == JS_DONE)
            s->st.completed++;
        else
            s->st.failed++;
        if (s->now > s->st.last_end_s)
            s->st.last_end_s = s->now;
        final_advance(s, j);
    }
    controller_notify_end(s, j);
}

/* Job j's attempt failed (an OOM kill or its gang timeout): it ends killed, to back off
 * and retry, or failed once its failures are more than backoff_limit allows. */
static void attempt_fails(struct sim *s, uint32_t j)
{
    job_ends(s, j, sim_failures(s, j) > s->cl->cfg.backoff_limit ? JS_FAILED : JS_KILLED);
}

static void oom_kill(struct sim *s, uint32_t j)
{
    struct jobrt *r = &s->rt[j];
    s->st.oom_events++;
    if (r->kills == 0)
        s->st.oom_jobs++;
    if (r->kills < UINT16_MAX)
        r->kills++;
    attempt_fails(s, j);
}

/* The placed pods of distributed job j waited gang_timeout_s for the rest: the
 * attempt fails (torch.distributed's rendezvous times out), every pod is released,
 * and the job backs off and retries as an OOM-killed one does. */
static void gang_timeout(struct sim *s, uint32_t j)
{
    s->st.gang_timeouts++;
    if (s->gang->timeouts[j] < UINT16_MAX)
        s->gang->timeouts[j]++;
    s->gang->waiting--;
    controller_queue_remove(s, j);
    policy_call_job_event(s, j, POLICY_JOB_TIMED_OUT);
    attempt_fails(s, j);
}

/* ---- event handlers ---- */

static void start_running(struct sim *s, uint32_t j)
{
    struct jobrt *r = &s->rt[j];
    const struct job *jb = &s->jobs->v[j];
    sim_account_busy(s, s->now);
    r->state = JS_RUNNING;
    s->running++;
    s->job_started_s[j] = s->now;
    uint32_t pods = sim_pods_placed(s, j), ns = sim_job_nslots(jb);
    for (uint32_t k = 0; ns > 0 && k < pods; k++) {
        uint32_t site = s->cl->nodes[sim_pod_node(s, j, k)].site; /* of all the pod's GPUs */
        for (uint32_t e = s->slot_first[j] + k * ns, end = e + ns; e < end; e++)
            if (s->gpu_running[s->job_gpus[e]]++ == 0) {
                s->busy_gpus++;
                s->site_busy[site]++;
            }
    }
    if (pods > 1 && s->gang->ar_free_s[j] > 0) /* its ring's flows between sites */
        net_allreduce_begin(s->net, j, jb->model, sim_gang_nodes(s, j), pods, s->now);
    sim_share_join(s, j);
    s->last_change_s = s->now;
    s->view.version++;
    for (uint32_t k = 0; k < pods; k++) /* pushes its group's END */
        sim_refresh_node(s, sim_pod_node(s, j, k), running_pod_mask(s, j, k, pods));
    gang_wan_refresh(s);
    policy_call_job_event(s, j, POLICY_JOB_STARTED);
    eq_push(&s->eq, s->now + s->cl->cfg.warmup_s, EV_PEAK, j, r->gen);
}

static void on_peak(struct sim *s, uint32_t j)
{
    struct jobrt *r = &s->rt[j];
    r->peaked = 1;
    bool over = false;
    uint32_t pods = sim_pods_placed(s, j), ns = sim_job_nslots(&s->jobs->v[j]);
    for (uint32_t k = 0; ns > 0 && k < pods; k++) {
        /* A pod's GPUs are on its node: its site and its GPUs' memory are read once. */
        const struct node *nd = &s->cl->nodes[sim_pod_node(s, j, k)];
        double cap = s->cl->types[nd->type].mem_gib;
        for (uint32_t e = s->slot_first[j] + k * ns, end = e + ns; e < end; e++) {
            uint32_t g = s->job_gpus[e];
            s->gpu_mem_gib[g] += r->peak_gib;
            s->site_mem_gib[nd->site] += r->peak_gib;
            sim_mark_gpu(s, g);
            if (s->gpu_mem_gib[g] > cap + VIEW_FIT_EPS)
                over = true;
        }
    }
    s->last_change_s = s->now;
    s->view.version++;
    for (uint32_t k = 0; k < pods; k++)
        controller_truth_changed(s, sim_pod_node(s, j, k));
    if (over)
        oom_kill(s, j);
}

/* Time between timeline rows: the scrape interval, or timeline_interval_s when the
 * controller sees live metrics. */
static double sample_interval_s(const struct cluster *cl)
{
    return cl->cfg.scrape_interval_s > 0 ? cl->cfg.scrape_interval_s : cl->cfg.timeline_interval_s;
}

/* The failure of a run that reached max_timeline_rows with jobs unfinished: how far it
 * got, and the likelier cause. Idle stretches cost one row each (on_sample), so the
 * rows ran out on samples that each saw a change or a waiting queue. Jobs time-slicing
 * one GPU each run that many times slower, and without gpu_as_resource the default
 * policy piles a node's jobs onto its first GPUs; that is named when the busiest GPU
 * runs more than one job (one scan, at the failure only). Otherwise jobs wait in the
 * queue behind one too long to follow, or on a slow link. */
static int timeline_full(const struct sim *s, char *err, size_t errlen)
{
    const struct cluster *cl = s->cl;
    uint32_t most = 0, gpu = 0;
    for (uint32_t g = 0; g < cl->n_gpus; g++)
        if (s->gpu_running[g] > most) {
            most = s->gpu_running[g];
            gpu = g;
        }
    char msg[CPN_ERR_LEN];
    int n = snprintf(msg, sizeof msg,
                     "%s: reached max_timeline_rows (%u samples of %g s taken, an idle "
                     "stretch skipped counting as one) at simulated time %.6g s "
                     "(%.3g days), %zu of %zu jobs ended (%zu failed); ",
                     s->jobs->source, cl->cfg.max_timeline_rows, sample_interval_s(cl), s->now,
                     s->now / 86400, s->terminal, s->jobs->n, s->st.failed);
    size_t used = n > 0 && (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1;
    if (most > 1) {
        uint32_t node = cl->gpu_node[gpu];
        const struct node *nd = &cl->nodes[node];
        snprintf(msg + used, sizeof msg - used,
                 "GPU %u of node %s-n%u runs %u jobs at once: GPU sharing stretches the run. "
                 "Set gpu_as_resource=true (the default policy then gives every job GPUs of "
                 "its own), a larger max_timeline_rows (up to 1e9), or horizon_s",
                 gpu - nd->gpu_first, cl->sites[nd->site].name,
                 node - cl->sites[nd->site].node_first, most);
    } else {
        snprintf(msg + used, sizeof msg - used,
                 "the samples kept seeing jobs wait or the cluster change (jobs running, "
                 "moving data, other tenants' varying load) for longer than the simulator "
                 "can follow: check duration_s, epochs, samples and data_gib in %s and the "
                 "link speeds and background loads in %s, or set a "
                 "larger max_timeline_rows (up to 1e9), or horizon_s",
                 s->jobs->source, cl->source);
    }
    return cpn_fail(err, errlen, CPN_EINPUT, "%s", msg);
}

/* True when the sample now being taken, and every one before the next event, would
 * change nothing the last sample did not already show or do. Nothing was popped since
 * the last sample (this one aside) and nothing placed: no event changed the truth, the
 * queue or the bookkeeping, so a scrape copies nothing new (the truth's marks are
 * empty) and a row reads what the last one read. Each of those samples would also be a
 * scheduling point (a scrape sets dirty), which may decide differently than the last
 * only because time passed (estimates of remaining time, back-offs, EASY's shadow
 * time): so with scrapes the queue must be empty, and then no policy is asked to place
 * anything (its begin and end see the same view, and the scrape time it last saw is
 * the view's: the skipped scrapes never happen). A wake-up asked for with an empty
 * queue places nothing either. With live metrics samples are not scheduling points,
 * and the queue may hold jobs. */
static bool sample_is_idle(const struct sim *s)
{
    if (s->samples == 0 || s->popped != s->sample_popped + 1 ||
        s->st.placements != s->sample_placements)
        return false;
    return s->cl->cfg.scrape_interval_s <= 0 ||
           (s->view.queue_len == 0 && s->n_dirty_gpus == 0 && s->n_dirty_nodes == 0);
}

/* The index of the first sample at or after time t (at least from): sample k falls at
 * k x dt, computed as the loop computes it. UINT64_MAX when it is past 2^53 samples,
 * where k x dt is no longer exact. */
static uint64_t first_sample_from(double t, double dt, uint64_t from)
{
    double k = ceil(t / dt);
    if (!(k < 0x1p53))
        return UINT64_MAX;
    uint64_t i = (uint64_t)k;
    while (i > 0 && (double)(i - 1) * dt >= t)
        i--;
    while ((double)i * dt < t)
        i++;
    return i > from ? i : from;
}

/* A sample: a scrape (with scrape_interval_s), a timeline row, and the next sample.
 * When this one is idle (sample_is_idle), the ones before the next event would each
 * read and decide what this one does: the next sample is pushed at the first multiple
 * of the interval at or after that event, and the sampler is told of the last sample
 * skipped. The summary's event count still counts the skipped samples, as events that
 * changed nothing, so it does not depend on the skipping. */
static int on_sample(struct sim *s, char *err, size_t errlen)
{
    if (s->rows + 1 > s->cl->cfg.max_timeline_rows)
        return timeline_full(s, err, errlen);
    s->rows++;
    bool idle = sample_is_idle(s);
    double dt;
    if (s->cl->cfg.scrape_interval_s > 0) {
        controller_scrape(s);
        s->dirty = true;
        dt = s->cl->cfg.scrape_interval_s;
    } else {
        dt = s->cl->cfg.timeline_interval_s;
    }
    if (s->sampler && s->sampler->sample(s->sampler->ctx, s) != 0)
        return cpn_fail(err, errlen, CPN_EIO, "timeline.csv: write failed: %s", strerror(errno));
    s->samples++;
    s->sample_popped = s->popped;
    s->sample_placements = s->st.placements;
    const struct event *next = eq_peek(&s->eq);
    if (idle && next && next->t > s->now) {
        uint64_t k = first_sample_from(next->t, dt, s->samples);
        if (k != UINT64_MAX && k > s->samples) {
            if (s->rows + 1 > s->cl->cfg.max_timeline_rows)
                return timeline_full(s, err, errlen);
            s->rows++;
            if (s->sampler)
                s->sampler->skip(s->sampler->ctx, (double)(k - 1) * dt);
            s->st.events += k - s->samples;
            s->samples = k;
        }
    }
    eq_push(&s->eq, (double)s->samples * dt, EV_SAMPLE, 0, 0);
    return 0;
}

/* The k-th job to arrive: arrival_order[k], or k when the input is in submit order. */
static inline uint32_t sim_arrival(const struct sim *s, size_t k)
{
    return s->arrival_order ? s->arrival_order[k] : (uint32_t)k;
}

/* The arrivals are the event queue's stream: one is pending at a time, each pushed by
 * the one before. */
static void push_next_arrival(struct sim *s)
{
    if (s->next_arrival < s->jobs->n) {
        uint32_t j = sim_arrival(s, s->next_arrival);
        eq_push_stream(&s->eq, s->jobs->v[j].submit_s, EV_ARRIVAL, j, 0);
    }
}

/* The data of distributed job j has reached the site of its pod xfer_pod: starts
 * moving it to the next site that holds one of its pods and that it has not reached
 * yet, one site after another (the network holds one transfer per job). Returns
 * false when every such site has it. */
static bool gang_next_transfer(struct sim *s, uint32_t j)
{
    uint32_t pods = s->gang->placed[j];
    for (uint32_t k = s->gang->xfer_pod[j] + 1; k < pods; k++) {
        uint32_t site = s->cl->nodes[sim_pod_node(s, j, k)].site;
        bool reached = false;
        for (uint32_t m = 0; m < k && !reached; m++)
            reached = s->cl->nodes[sim_pod_node(s, j, m)].site == site;
        if (reached)
            continue;
        s->gang->xfer_pod[j] = k;
        if (net_transfer_begin(s->net, j, site, s->now))
            return true;
    }
    return false;
}

/* Job j's data is where its pods are: it starts, unless a distributed job's data has
 * another site to reach. */
static void transfer_done(struct sim *s, uint32_t j)
{
    if (s->gang && s->gang->placed[j] > 1 && gang_next_transfer(s, j))
        return;
    start_running(s, j);
}

/* Applies one event. Returns 1 when it was current (not stale), 0 when dropped,
 * negative on an output error. */
static int handle(struct sim *s, const struct event *ev, char *err, size_t errlen)
{
    uint32_t j = ev->job;
    /* j is a job in the events of a job only (a link, a node or nothing in the others):
     * its run-time state is read in their cases. Such an event carries the job's gen,
     * which its release bumps at each end of an attempt: an event of an attempt that
     * has ended is stale, and a new attempt (a placement) comes only after the end of
     * the one before, so gen and state, on the job's one line, tell whether it is
     * current. The events pushed at a placement or a back-off had carried attempts[j],
     * which a placement bumps, a line of its own to read beside the state. */
    switch ((enum ev_kind)ev->kind) {
    case EV_ARRIVAL:
        s->next_arrival++;
        controller_queue_append(s, j);
        policy_call_job_event(s, j, POLICY_JOB_QUEUED);
        s->dirty = true;
        push_next_arrival(s);
        return 1;
    case EV_TRANSFER_DONE:
        if (s->rt[j].state != JS_TRANSFER || ev->gen != s->rt[j].gen)
            return 0;
        transfer_done(s, j);
        return 1;
    case EV_PEAK:
        if (s->rt[j].state != JS_RUNNING || ev->gen != s->rt[j].gen || s->rt[j].peaked)
            return 0;
        on_peak(s, j);
        return 1;
    case EV_END:
        if (s->rt[j].state != JS_RUNNING || ev->gen != s->rt[j].gen)
            return 0;
        job_ends(s, j, JS_DONE);
        return 1;
    case EV_RETRY:
        if (s->rt[j].state != JS_BACKOFF || ev->gen != s->rt[j].gen)
            return 0;
        s->backoff--;
        controller_queue_append(s, j);
        policy_call_job_event(s, j, POLICY_JOB_QUEUED);
        s->dirty = true;
        return 1;
    case EV_SAMPLE: {
        int rc = on_sample(s, err, errlen);
        return rc < 0 ? rc : 1;
    }
    case EV_POLL:
        controller_poll(s);
        return 1;
    case EV_HORIZON:
        s->st.horizon_reached = true;
        return 1;
    case EV_FLOW_START:
        net_flow_start(s->net, j, ev->gen, s->now);
        gang_wan_refresh(s); /* one more flow on its links */
        return 1;
    case EV_FLOW_DONE:
        if (!net_flow_done(s->net, j, ev->gen, s->now))
            return 0;
        gang_wan_refresh(s);
        CPN_ASSERT(s->rt[j].state == JS_TRANSFER);
        transfer_done(s, j);
        return 1;
    case EV_LINK_DONE: {
        uint32_t done = net_link_done(s->net, ev->job, ev->gen, s->now);
        if (done == UINT32_MAX)
            return 0;
        CPN_ASSERT(s->rt[done].state == JS_TRANSFER);
        transfer_done(s, done);
        return 1;
    }
    case EV_GANG_TIMEOUT:
        if (s->rt[j].state != JS_QUEUED || ev->gen != s->rt[j].gen || s->gang->placed[j] == 0)
            return 0; /* all its pods were placed, or the attempt is over */
        gang_timeout(s, j);
        return 1;
    case EV_BACKGROUND:
        on_background(s, j);
        if (s->cl->cfg.scrape_interval_s <= 0)
            s->dirty = true; /* the live view changed: a scheduling point */
        return 1;
    case EV_WAKEUP:
        if (ev->t != s->wakeup_at)
            return 0; /* superseded by an earlier one */
        s->wakeup_at = INFINITY;
        s->dirty = true;
        return 1;
    case EV_NKINDS:
        break;
    }
    cpn_panic(__FILE__, __LINE__, "unknown event kind");
}

/* ---- placements ---- */

static void apply_placement(struct sim *s, const struct placement *p)
{
    uint32_t j = p->job;
    struct jobrt *r = &s->rt[j];
    const struct job *jb = &s->jobs->v[j];
    uint32_t pods = jobset_pods(s->jobs, j), pod = s->gang ? s->gang->placed[j] : 0;
    if (pod == 0) { /* the attempt's first (or only) pod */
        s->attempts[j]++;
        r->end_s = -1;
        r->shared = 0;
        struct view_estimate est;
        view_estimate(&s->view, j, s->cl->nodes[p->node].type, &est);
        r->bk_mem_gib = est.mem_gib;
        s->pred_run_s[j] = est.run_s;
        s->job_active[j] = 1;
        s->job_node[j] = p->node;
        s->job_placed_s[j] = s->now;
        s->job_started_s[j] = -1;
        s->view.active_jobs++;
        s->active++;
        s->st.placements++;
    }
    for (uint32_t k = 0; k < p->ngpus; k++) {
        uint32_t e = s->slot_first[j] + pod * sim_job_nslots(jb) + k, g = p->gpu[k];
        struct slot *sl = &s->slots[e];
        s->job_gpus[e] = g;
        sl->prev = VIEW_NONE;
        sl->next = s->gpu_resident[g];
        if (sl->next != VIEW_NONE)
            s->slots[sl->next].prev = e;
        s->gpu_resident[g] = e;
        s->gpu_util[g] = 1.0;
        sim_mark_gpu(s, g);
        /* Another job is on the GPU: neither run is a run alone. (The controller knows it
         * in hindsight, from the start and end times of the jobs it placed there.) Each
         * job learns it as it leaves (release): the GPU stays crowded until it is empty
         * again, so a job that was alone, then joined, then alone again still counts as
         * shared, and marking the job already there, a cache miss on its state at a
         * million jobs, is left to it. */
        s->gpu_crowded[g] = sl->next != VIEW_NONE;
        s->node_free_gpus[p->node] -= s->gpu_assigned[g]++ == 0;
        s->gpu_assigned_mem_gib[g] += r->bk_mem_gib;
    }
    s->node_cpus_held[p->node] += jb->cpus;
    s->node_mem_held[p->node] += jb->mem_gib;
    s->node_jobs[p->node]++;
    s->node_cpus_req[p->node] += jb->cpus;
    s->node_mem_req_gib[p->node] += jb->mem_gib;
    controller_index_refresh(s, p->node);
    s->last_change_s = s->now;
    s->view.version++;
    if (s->gang)
        s->gang->placed[j] = pod + 1;
    if (pods > 1) {
        if (pod + 1 < pods) { /* it stays queued, holding what it has, for the rest */
            if (pod == 0) {
                s->gang->waiting++;
                if (s->cl->cfg.gang_timeout_s > 0)
                    eq_push(&s->eq, s->now + s->cl->cfg.gang_timeout_s, EV_GANG_TIMEOUT, j,
                            r->gen);
            }
            return;
        }
        if (pod > 0)
            s->gang->waiting--;
        s->gang->xfer_pod[j] = 0;
    }
    controller_queue_remove(s, j);
    r->state = JS_TRANSFER;
    if (pods > 1)
        gang_demand(s, j, &r->work_left_s, &r->peak_gib, &r->cpu_cores);
    else
        job_demand(s, j, p->node, &r->work_left_s, &r->peak_gib, &r->cpu_cores);
    s->alone_run_s[j] = r->work_left_s;
    if (!net_transfer_begin(s->net, j, s->cl->nodes[s->job_node[j]].site, s->now))
        eq_push(&s->eq, s->now, EV_TRANSFER_DONE, j, r->gen);
}

/* True when nothing can change any more unless the policy places a job: jobs are
 * queued, nothing holds resources (but the placed pods of distributed jobs that wait
 * for ever), backs off, awaits learning or is yet to arrive, and no wake-up is
 * pending. stalled() adds that the view is as fresh as the truth and that no varying
 * background load could change the answer: either none varies, or the filter refuses
 * no node (so the load is not what holds the queue). */
static bool waiting(const struct sim *s)
{
    /* Jobs whose pods are partly placed hold resources but run nothing: with no gang
     * timeout, they wait for ever. */
    size_t holding = s->gang && s->cl->cfg.gang_timeout_s <= 0 ? s->gang->waiting : 0;
    return s->view.queue_len > 0 && s->active == holding && s->backoff == 0 &&
           s->unlearnt == 0 && s->next_arrival == s->jobs->n && !isfinite(s->wakeup_at);
}

/* True when the controller's filter refuses some node now. While waiting, nothing
 * runs, so only other tenants' load can make it refuse one. */
static bool filter_refuses_a_node(const struct sim *s)
{
    for (uint32_t n = 0; s->view.cpu_filter && n < s->cl->n_nodes; n++)
        if (!view_node_eligible(&s->view, n))
            return true;
    return false;
}

static bool stalled(const struct sim *s)
{
    bool fresh = s->cl->cfg.scrape_interval_s <= 0 || s->view.scrape_time_s >= s->last_change_s;
    return waiting(s) && fresh && (!isfinite(s->bg_patience_s) || !filter_refuses_a_node(s));
}

/* One scheduling point: asks the policy for placements until it makes none, or until
 * the run is stopped (a point that places a million jobs takes long, and a stopped
 * run writes no result, so what it leaves undone changes no output). */
static void schedule(struct sim *s)
{
    s->dirty = false;
    s->view.now = s->now;
    size_t placed = 0, limit = s->view.queue_len * (s->gang ? s->gang->max_pods : 1);
    struct placement p;
    policy_call_begin(s);
    while (s->view.queue_len > 0 && !view_stopping(&s->view) && policy_call_place(s, &p)) {
        apply_placement(s, &p);
        CPN_ASSERT(++placed <= limit);
    }
    double t = policy_call_end(s);
    if (view_stopping(&s->view))
        return; /* sim_run stops before the next event: no wake-up, and no deadlock */
    if (isfinite(t) && t > s->now && t < s->wakeup_at) {
        s->wakeup_at = t;
        eq_push(&s->eq, t, EV_WAKEUP, 0, 0);
    }
    /* (Placements of some pods of a job may leave it stalled too.) */
    if (stalled(s))
        s->st.deadlock = true;
    /* With a varying background, a queue that only other tenants' load could unblock
     * waits bg_patience_s for it (docs/cpu.md), then is declared stuck. */
    if (placed > 0 || !waiting(s))
        s->stall_since_s = -1;
    else if (s->stall_since_s < 0)
        s->stall_since_s = s->now;
    else if (s->now - s->stall_since_s >= s->bg_patience_s)
        s->st.deadlock = true;
}

/* ---- set-up and run ---- */

struct arrival_key {
    double t;
    uint32_t job;
};

static int cmp_arrival(const void *a, const void *b)
{
    const struct arrival_key *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->job < y->job ? -1 : (x->job > y->job);
}

/* Checks the jobs against the cluster and the row limit; fills *origin (the caller
 * frees it) with each job's origin site. Returns 0 or CPN_EINPUT with a message. */
static int check_jobs(const struct cluster *cl, const struct jobset *jobs,
                      const struct policy_ops *pol, uint32_t **origin, char *err, size_t errlen)
{
    size_t n = jobs->n;
    if (n >= VIEW_NONE)
        return cpn_fail(err, errlen, CPN_EINPUT, "%s: too many jobs (%zu)", jobs->source, n);
    /* Samples are taken from time 0: a submission later than max_timeline_rows sample
     * intervals (before the horizon) is refused. An idle stretch before it would now
     * be skipped (on_sample), but such times are mostly a mistake (Unix timestamps), and
     * a queue waiting through them would take every sample. */
    double dt = sample_interval_s(cl), until = cl->cfg.horizon_s > 0 ? cl->cfg.horizon_s : INFINITY;
    for (size_t j = 0; j < n; j++) {
        const struct job *jb = &jobs->v[j];
        if (jb->submit_s <= until && jb->submit_s / dt >= cl->cfg.max_timeline_rows)
            return cpn_fail(err, errlen, CPN_EINPUT,
                            "%s:%u: submit_s: %.6g s is %.3g timeline rows (one per %g s) after "
                            "time 0, more than a run may take (max_timeline_rows, %u): make "
                            "submit times start near 0, or set horizon_s or a longer "
                            "scrape_interval_s",
                            jobs->source, jb->line, jb->submit_s, jb->submit_s / dt, dt,
                            cl->cfg.max_timeline_rows);
    }
    for (size_t j = 0; jobset_has_pods(jobs) && j < n; j++) {
        uint32_t pods = jobset_pods(jobs, j);
        if (pods > 1 && !pol->places_pods)
            return cpn_fail(err, errlen, CPN_EINPUT,
                            "%s:%u: pods: a job of %u pods, which policy %s does not place (it "
                            "places jobs of one pod; docs/distributed.md lists the policies "
                            "that place distributed jobs)",
                            jobs->source, jobs->v[j].line, pods, pol->name);
        if (pods > 1 && jobs->v[j].gpus == 0)
            return cpn_fail(err, errlen, CPN_EINPUT,
                            "%s:%u: pods: a job of %u pods must have gpus of at least 1",
                            jobs->source, jobs->v[j].line, pods);
        if ((uint64_t)pods * sim_job_nslots(&jobs->v[j]) >= VIEW_NONE / 2)
            return cpn_fail(err, errlen, CPN_EINPUT, "%s:%u: pods: %u pods of %u GPUs: too many",
                            jobs->source, jobs->v[j].line, pods, jobs->v[j].gpus);
    }
    /* Readers store each origin name once in the pool, so a job's site is found by the
     * name's offset among the few offsets met so far: finding it by name compares the
     * name with each site's, and a million such searches were a fifth of the set-up. */
    enum { SEEN_MAX = 16 };
    uint32_t seen_off[SEEN_MAX], seen_site[SEEN_MAX];
    size_t nseen = 0;
    uint32_t *o = cpn_calloc(n, sizeof *o);
    for (size_t j = 0; j < n; j++) {
        uint32_t off = jobs->v[j].origin;
        size_t k = 0;
        while (k < nseen && seen_off[k] != off)
            k++;
        if (k < nseen) {
            o[j] = seen_site[k];
            continue;
        }
        const char *name = jobset_str(jobs, off);
        int site = cluster_site_find(cl, name);
        if (site < 0) {
            free(o);
            return cpn_fail(err, errlen, CPN_EINPUT, "%s:%u: origin: unknown site '%s' (not in %s)",
                            jobs->source,
                            jobs->v[j].origin_line ? jobs->v[j].origin_line : jobs->v[j].line,
                            name, cl->source);
        }
        o[j] = (uint32_t)site;
        if (nseen < SEEN_MAX) {
            seen_off[nseen] = off;
            seen_site[nseen++] = o[j];
        }
    }
    *origin = o;
    return CPN_OK;
}

/* The jobs' run-time state, GPU slots and arrival order. */
static void init_jobs(struct sim *s)
{
    const struct jobset *jobs = s->jobs;
    size_t n = jobs->n;
    s->rt = cpn_malloc_aligned(SIM_CACHE_LINE, n * sizeof *s->rt);
    s->slot_first = cpn_calloc(n, sizeof *s->slot_first);
    size_t nslots = 0;
    /* One pass over the job array (a hundred megabytes for a million jobs) for all it
     * gives: the slots, the run-time state, and whether the queue is in submit order. */
    bool in_order = true;
    for (size_t j = 0; j < n; j++) {
        s->slot_first[j] = (uint32_t)nslots;
        nslots += (size_t)jobset_pods(jobs, j) * sim_job_nslots(&jobs->v[j]);
        if (j > 0 && !(jobs->v[j - 1].submit_s <= jobs->v[j].submit_s))
            in_order = false;
        /* (group shares qprev's field) */
        s->rt[j] = (struct jobrt){.end_s = -1, .qprev = VIEW_NONE, .hpos = VIEW_NONE,
                                  .state = JS_PENDING};
    }
    CPN_ASSERT(nslots < VIEW_NONE);
    s->n_slots = nslots;
    s->slots = cpn_calloc(nslots, sizeof *s->slots);
    if (jobset_has_pods(jobs)) {
        struct sim_gangs *G = s->gang = cpn_calloc(1, sizeof *G);
        G->placed = cpn_calloc(n, sizeof *G->placed);
        for (size_t j = 0; j < n; j++)
            if (jobset_pods(jobs, j) > G->max_pods)
                G->max_pods = jobset_pods(jobs, j);
        G->xfer_pod = cpn_calloc(n, sizeof *G->xfer_pod);
        G->timeouts = cpn_calloc(n, sizeof *G->timeouts);
        G->node_head = cpn_malloc(s->cl->n_nodes * sizeof *G->node_head);
        for (size_t i = 0; i < s->cl->n_nodes; i++)
            G->node_head[i] = VIEW_NONE;
        G->pod_next = cpn_calloc(nslots ? nslots : 1, sizeof *G->pod_next);
        G->pod_prev = cpn_calloc(nslots ? nslots : 1, sizeof *G->pod_prev);
        G->step_c_s = cpn_calloc(n, sizeof *G->step_c_s);
        G->ar_free_s = cpn_calloc(n, sizeof *G->ar_free_s);
        G->nodes = cpn_calloc(G->max_pods, sizeof *G->nodes);
    }
    for (size_t j = 0; j < n; j++) {
        size_t end = j + 1 < n ? s->slot_first[j + 1] : nslots;
        for (size_t e = s->slot_first[j]; e < end; e++)
            s->slots[e] = (struct slot){.job = (uint32_t)j, .next = VIEW_NONE, .prev = VIEW_NONE};
    }
    /* A queue already in submit order (generated, imported and most hand-written
     * ones) is its own arrival order: the sort, its keys' memory and the order's are
     * skipped (arrival_order stays NULL). */
    if (in_order)
        return;
    s->arrival_order = cpn_calloc(n, sizeof *s->arrival_order);
    struct arrival_key *keys = cpn_calloc(n, sizeof *keys);
    for (size_t j = 0; j < n; j++)
        keys[j] = (struct arrival_key){jobs->v[j].submit_s, (uint32_t)j};
    qsort(keys, n, sizeof *keys, cmp_arrival);
    for (size_t j = 0; j < n; j++)
        s->arrival_order[j] = keys[j].job;
    free(keys);
}

/* The truth of the GPUs, nodes and sites, all idle. */
static void init_truth(struct sim *s)
{
    const struct cluster *cl = s->cl;
    size_t ng = cl->n_gpus, nn = cl->n_nodes;
    s->gpu_resident = cpn_calloc(ng, sizeof *s->gpu_resident);
    for (size_t g = 0; g < ng; g++)
        s->gpu_resident[g] = VIEW_NONE;
    s->gpu_crowded = cpn_calloc(ng, sizeof *s->gpu_crowded);
    s->gpu_running = cpn_calloc(ng, sizeof *s->gpu_running);
    s->gpu_mem_gib = cpn_calloc(ng, sizeof *s->gpu_mem_gib);
    s->gpu_util = cpn_calloc(ng, sizeof *s->gpu_util);
    s->node_cpus_held = cpn_calloc(nn, sizeof(double));
    s->node_mem_held = cpn_calloc(nn, sizeof(double));
    s->node_group_head = cpn_malloc((nn ? nn : 1) * sizeof(uint32_t));
    for (size_t n = 0; n < nn; n++)
        s->node_group_head[n] = VIEW_NONE;
    s->free_group = VIEW_NONE;
    s->node_lost_s = cpn_calloc(nn, sizeof(double));
    s->node_lost_since_s = cpn_calloc(nn, sizeof(double));
    s->node_demand = cpn_calloc(nn, sizeof(double));
    s->node_factor = cpn_malloc((nn ? nn : 1) * sizeof(double));
    for (size_t n = 0; n < nn; n++)
        s->node_factor[n] = 1.0;
    s->node_bg = cpn_calloc(nn, sizeof(double));
    s->node_cpu_used = cpn_calloc(nn, sizeof(double));
    s->node_cpu_util = cpn_calloc(nn, sizeof(double));
    /* How long a queue may wait on other tenants' load alone: a full period of the
     * slowest varying background and one step more (ten when it is noisy). */
    s->bg_patience_s = INFINITY;
    for (size_t n = 0; n < nn; n++) {
        const struct cpu_background *b = &cl->nodes[n].bg;
        if (!cpu_background_varies(b))
            continue;
        double p = (b->amplitude != 0 ? b->period_s : 0) + b->step_s * (b->noise != 0 ? 10 : 1);
        s->bg_patience_s = isfinite(s->bg_patience_s) ? fmax(s->bg_patience_s, p) : p;
    }
    s->stall_since_s = -1;
    s->node_jobs = cpn_calloc(nn, sizeof(uint32_t));
    s->site_busy = cpn_calloc(cl->n_sites, sizeof(uint32_t));
    s->site_mem_gib = cpn_calloc(cl->n_sites, sizeof(double));
    s->site_cpu_used = cpn_calloc(cl->n_sites, sizeof(double));
    s->site_cpus = cpn_calloc(cl->n_sites, sizeof(double));
    for (size_t n = 0; n < nn; n++)
        s->site_cpus[cl->nodes[n].site] += cl->nodes[n].cpus;
}

int sim_create(struct sim **out, const struct cluster *cl, const struct catalog *cat,
               const struct jobset *jobs, const struct policy_ops *pol,
               const struct predictor *pred, const struct sim_sampler *sampler, char *err,
               size_t errlen)
{
    uint32_t *origin = NULL;
    int rc = check_jobs(cl, jobs, pol, &origin, err, errlen);
    if (rc != 0)
        return rc;
    struct sim *s = cpn_calloc(1, sizeof *s);
    s->cl = cl;
    s->cat = cat;
    s->jobs = jobs;
    s->pol = pol;
    s->sampler = sampler;
    eq_init(&s->eq);
    s->key_end = eq_reserve_keys(&s->eq, jobs->n);
    s->origin_site = origin;
    rc = net_create(&s->net, cl, cat, jobs, origin, &s->eq, err, errlen);
    if (rc != 0) {
        eq_free(&s->eq);
        free(origin);
        free(s);
        return rc;
    }
    init_jobs(s);
    init_truth(s);
    controller_init(s, pred);
    s->st.first_submit_s = jobs->n ? jobs->v[sim_arrival(s, 0)].submit_s : 0;
    s->now = s->busy_since_s = 0;
    s->st.last_end_s = s->st.first_submit_s;
    s->cpu_since_s = s->st.first_submit_s;
    s->wakeup_at = INFINITY;
    s->seed = 1;
    rc = policy_call_init(s, err, errlen);
    if (rc != 0) {
        sim_destroy(s);
        return rc;
    }
    *out = s;
    return CPN_OK;
}

int sim_run(struct sim *s, char *err, size_t errlen)
{
    /* Other tenants' load at time 0, before the first scrape reads it. */
    for (uint32_t n = 0; n < s->cl->n_nodes; n++) {
        const struct cpu_background *b = &s->cl->nodes[n].bg;
        s->node_bg[n] = sim_background(s, n, 0.0);
        sim_refresh_node(s, n, SIM_ALL_GPUS);
        if (cpu_background_varies(b))
            eq_push(&s->eq, b->step_s, EV_BACKGROUND, n, 0);
    }
    /* Routes first: on a large cluster they are a long phase that a signal stops. */
    if (s->net) {
        int rc = net_build_routes(s->net, s->stop, err, errlen);
        if (rc != 0)
            return rc;
    }
    /* The first scrape precedes the first arrivals at time 0. */
    eq_push(&s->eq, 0.0, EV_SAMPLE, 0, 0);
    push_next_arrival(s);
    if (s->cl->cfg.horizon_s > 0)
        eq_push(&s->eq, s->cl->cfg.horizon_s, EV_HORIZON, 0, 0);
    if (s->sampler && s->sampler->begin(s->sampler->ctx, s) != 0)
        return cpn_fail(err, errlen, CPN_EIO, "timeline.csv: write failed: %s", strerror(errno));

    s->view.stop = s->stop; /* the policies see the flag too (view_stopping) */
    for (;;) {
        /* A scheduling point once no event is left at this time (the queue is asked
         * only then: its earliest is the least of three). */
        if (s->dirty && !s->st.horizon_reached && !view_stopping(&s->view)) {
            const struct event *top = eq_peek(&s->eq);
            if (!top || top->t > s->now)
                schedule(s);
        }
        if (view_stopping(&s->view))
            return cpn_fail(err, errlen, CPN_ESTOP, "stopped by signal %d at simulated time %.3f s",
                            (int)*s->stop, s->now);
        if (s->terminal == s->jobs->n || s->st.deadlock || s->st.horizon_reached)
            break;
        struct event ev;
        if (!eq_pop(&s->eq, &ev))
            break;
        CPN_ASSERT(ev.t >= s->now);
        s->popped++;
        s->now = ev.t;
        int rc = handle(s, &ev, err, errlen);
        if (rc < 0)
            return rc;
        s->st.events += (uint64_t)rc;
        if (s->progress && (s->popped & (SIM_PROGRESS_EVERY - 1)) == 0)
            s->progress->report(s->progress->ctx, s);
    }
    if (s->sampler && s->sampler->end(s->sampler->ctx, s) != 0)
        return cpn_fail(err, errlen, CPN_EIO, "timeline.csv: write failed: %s", strerror(errno));

    sim_account_busy(s, s->now);
    sim_account_cpu(s);
    for (size_t j = 0; j < s->jobs->n; j++) {
        struct jobrt *r = &s->rt[j];
        if (r->state == JS_RUNNING) { /* at the horizon */
            sim_share_settle(s, (uint32_t)j);
            r->end_s = -1; /* no end (the field held lost_mark_s) */
        }
        if (r->cpu_lost_s > 0) {
            s->st.cpu_lost_gpu_s += r->cpu_lost_s * (double)s->jobs->v[j].gpus *
                                    (double)jobset_pods(s->jobs, j);
            s->st.cpu_slowed_jobs++;
        }
        if (r->state == JS_DONE || r->state == JS_FAILED)
            continue;
        if (s->st.deadlock && r->state == JS_QUEUED) {
            r->state = JS_STUCK;
            s->st.stuck++;
        } else {
            r->state = JS_UNFINISHED;
            s->st.unfinished++;
        }
    }
    return CPN_OK;
}

/* Frees what of the distributed jobs' state only the loop needs (the running pods'
 * lists, the steps an attempt began with, the scratch of pods' nodes). NULL is a
 * no-op. */
static void gang_free_loop(struct sim_gangs *G)
{
    if (!G)
        return;
    free(G->node_head);
    free(G->pod_next);
    free(G->pod_prev);
    free(G->step_c_s);
    free(G->ar_free_s);
    free(G->nodes);
    G->node_head = G->pod_next = G->pod_prev = G->nodes = NULL;
    G->step_c_s = G->ar_free_s = NULL;
}

void sim_release_loop(struct sim *s)
{
    if (!s)
        return;
    policy_call_destroy(s);
    view_source_destroy(s->view.src);
    s->view.src = NULL;
    free(s->queue_next);
    s->queue_next = NULL;
    s->view.queue_next = NULL;
    nodeidx_free(&s->nidx);
    eq_free(&s->eq);
    free(s->origin_site);
    s->origin_site = NULL;
    free(s->arrival_order);
    s->arrival_order = NULL;
    free(s->slots);
    s->slots = NULL;
    gang_free_loop(s->gang); /* the outputs read placed and timeouts */
    free(s->unlearnt_list);
    s->unlearnt_list = NULL;
    s->unlearnt_cap = 0;
    free(s->job_active);
    s->job_active = NULL;
}

void sim_destroy(struct sim *s)
{
    if (!s)
        return;
    policy_call_destroy(s);
    free(s->pol_params);
    net_destroy(s->net);
    view_source_destroy(s->view.src);
    nodeidx_free(&s->nidx);
    free(s->dirty_gpus);
    free(s->dirty_nodes);
    free(s->gpu_dirty);
    free(s->node_dirty);
    free(s->site_busy);
    free(s->site_idle_gpus);
    free(s->node_idle);
    free(s->node_free_gpus);
    free(s->free_node_bits);
    free(s->site_mem_gib);
    free(s->site_cpu_used);
    free(s->site_cpus);
    eq_free(&s->eq);
    free(s->rt);
    free(s->origin_site);
    free(s->arrival_order);
    free(s->slots);
    free(s->slot_first);
    free(s->gpu_resident);
    free(s->gpu_crowded);
    free(s->gpu_running);
    free(s->gpu_mem_gib);
    free(s->gpu_util);
    free(s->node_cpus_held);
    free(s->node_mem_held);
    free(s->node_group_head);
    free(s->node_lost_s);
    free(s->node_lost_since_s);
    sim_share_free(s);
    if (s->gang) {
        gang_free_loop(s->gang);
        free(s->gang->placed);
        free(s->gang->xfer_pod);
        free(s->gang->timeouts);
        free(s->gang);
    }
    free(s->node_demand);
    free(s->node_factor);
    free(s->node_bg);
    free(s->node_cpu_used);
    free(s->node_cpu_util);
    free(s->node_jobs);
    free(s->scr_gpu_util);
    free(s->scr_gpu_mem);
    free(s->scr_node_cpu_util);
    free(s->node_cpus_req);
    free(s->node_mem_req_gib);
    free(s->gpu_assigned);
    free(s->attempts);
    free(s->queue_next);
    free(s->unlearnt_list);
    free(s->gpu_assigned_mem_gib);
    free(s->job_active);
    free(s->job_node);
    free(s->job_placed_s);
    free(s->pred_run_s);
    free(s->alone_run_s);
    free(s->job_started_s);
    free(s->job_gpus);
    free(s);
}
