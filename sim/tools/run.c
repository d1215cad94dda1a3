/* run: one simulation as a library call (see run.h). Every object is created and
 * destroyed here, on every path. */
#include "run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/policy.h"
#include "../engine/catalog.h"
#include "../engine/cluster.h"
#include "../io/cluster_json.h"
#include "../io/gen.h"
#include "../io/import.h"
#include "../io/jobin.h"
#include "../engine/predict.h"
#include "../io/report.h"
#include "../engine/sim.h"
#include "../io/trace.h"
#include "../base/jsonpos.h"
#include "../base/util.h"

/* The queue of a run without a jobs file, drawn as `cpnsim gen` draws it: the mix's
 * distributions (the default ones without a mix), count and arrival from the request
 * before the mix's, origins from the mix, else the cluster's sites. Without options it
 * is RUN_DEFAULT_JOBS jobs in a batch (seed 1 gives traces/q100.csv). */
static int generate_queue(const struct run_request *req, const struct catalog *cat,
                          const struct cluster *cl, struct jobset *js, char *err, size_t errlen)
{
    struct gen_spec spec = {.seed = req->seed, .arrival = GEN_BATCH};
    struct gen_mix *mix = NULL;
    int rc = req->mix ? gen_mix_load(req->mix, cat, &mix, err, errlen) : CPN_OK;
    if (rc)
        return rc;
    const char **origins = cluster_site_names(cl);
    spec.origins = origins;
    spec.n_origins = cl->n_sites;
    if (mix)
        gen_mix_apply(mix, &spec);
    if (req->count)
        spec.count = req->count;
    else if (!spec.count)
        spec.count = RUN_DEFAULT_JOBS;
    if (req->arrival && gen_parse_arrival(req->arrival, &spec) != 0)
        rc = cpn_fail(err, errlen, CPN_EINPUT, "--arrival: %s", GEN_ARRIVAL_RULE);
    if (!rc)
        rc = gen_jobs(&spec, cat, js, err, errlen);
    free(origins);
    gen_mix_destroy(mix);
    return rc;
}

/* The run's jobs from a file: a job file as trace_read_any reads it, or a trace that an
 * importer converts in memory, as `cpnsim import` would write it (so the run is the run
 * of that file, without writing and reading it back). */
static int read_jobs(const struct run_request *req, const struct catalog *cat,
                     struct jobset *js, char *err, size_t errlen)
{
    if (!req->jobs_format)
        return trace_read_any(req->jobs, cat, js, req->stop, err, errlen);
    const struct import_opts defaults = {.to_run = true};
    return import_jobs(req->jobs_format, req->jobs, &defaults, cat, js, req->import_report,
                       NULL, err, errlen);
}

/* Jobs whose file names no origin get req->origin, else the controller's site. An
 * --origin that names no site is an error even when no job needs it. */
static int fill_default_origin(const struct run_request *req, const struct cluster *cl,
                               struct jobset *js, char *err, size_t errlen)
{
    const char *site = cl->sites[cl->controller_site].name;
    if (req->origin) {
        if (cluster_site_find(cl, req->origin) < 0) {
            int n = snprintf(err, errlen, "--origin: unknown site '%s' (sites of %s:",
                             req->origin, cl->source);
            for (size_t i = 0; i < cl->n_sites && n > 0 && (size_t)n < errlen; i++)
                n += snprintf(err + n, errlen - (size_t)n, " %s", cl->sites[i].name);
            if (n > 0 && (size_t)n < errlen)
                snprintf(err + n, errlen - (size_t)n, ")");
            return CPN_EINPUT;
        }
        site = req->origin;
    }
    bool interned = false;
    uint32_t off = 0;
    for (size_t j = 0; j < js->n; j++) {
        if (strcmp(jobset_str(js, js->v[j].origin), JOBIN_DEFAULT_ORIGIN) != 0)
            continue;
        if (!interned) {
            off = jobset_intern(js, site);
            interned = true;
        }
        js->v[j].origin = off;
    }
    return CPN_OK;
}

void run_progress_format(char *buf, size_t len, double sim_s, size_t ended, size_t jobs,
                         double events_per_s)
{
    /* Simulated time in the largest unit it fills, so that a glance tells hours from
     * years. */
    static const struct {
        const char *name;
        double s;
    } units[] = {{"years", 365 * 86400.0}, {"days", 86400}, {"h", 3600}, {"min", 60}};
    const char *unit = "s";
    double t = sim_s;
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (sim_s >= units[i].s) {
            unit = units[i].name;
            t = sim_s / units[i].s;
            break;
        }
    snprintf(buf, len, "cpnsim: simulated %.1f %s, %zu of %zu jobs ended, %.3g events/s", t,
             unit, ended, jobs, events_per_s);
}

/* The state of the progress line of one run. */
struct run_progress {
    FILE *f;
    double t0, after_s, last_s;
    uint64_t last_events;
    bool shown;
};

static void run_progress_report(void *ctx, const struct sim *s)
{
    struct run_progress *p = ctx;
    double now = cpn_wall_s();
    if (now - p->t0 < p->after_s || (p->shown && now - p->last_s < RUN_PROGRESS_EVERY_S))
        return;
    double since = p->shown ? p->last_s : p->t0;
    double rate = now > since ? (double)(s->st.events - p->last_events) / (now - since) : 0;
    char line[CPN_ERR_LEN];
    run_progress_format(line, sizeof line, s->now, s->terminal, s->jobs->n, rate);
    /* \r returns to the line's start and ESC [K erases what a longer line left. */
    fprintf(p->f, "\r%s\033[K", line);
    fflush(p->f);
    p->shown = true;
    p->last_s = now;
    p->last_events = s->st.events;
}

/* CPN_ESTOP, naming the phase just ended, when a signal arrived during it; else rc
 * (the readers check the flag as they go, but not every step of them). */
static int stop_after(const struct run_request *req, int rc, const char *phase, char *err,
                      size_t errlen)
{
    if (rc || !req->stop || !*req->stop)
        return rc;
    return cpn_fail(err, errlen, CPN_ESTOP, "stopped by signal %d while %s", (int)*req->stop,
                    phase);
}

int run_simulation(const struct run_request *req, struct run_result *res, char *err,
                   size_t errlen)
{
    const struct policy_ops *pol = policy_find(req->policy);
    if (!pol) {
        int n = snprintf(err, errlen, "--policy: unknown policy '%s'; known:", req->policy);
        for (size_t i = 0; i < policy_registry_len && n > 0 && (size_t)n < errlen; i++)
            n += snprintf(err + n, errlen - (size_t)n, " %s", policy_registry[i]->name);
        return CPN_EINPUT;
    }
    if (req->jobs_format && !req->jobs)
        return cpn_fail(err, errlen, CPN_EINPUT, "a job format (%s) without a jobs file",
                        req->jobs_format);
    if (req->jobs && (req->count || req->arrival || req->mix))
        return cpn_fail(err, errlen, CPN_EINPUT,
                        "%s: describes a generated queue; it cannot go with --jobs",
                        req->count ? "--count" : req->arrival ? "--arrival" : "--mix");
    struct catalog *cat = NULL;
    struct cluster *cl = NULL;
    struct predictor *pred = NULL;
    struct sim *s = NULL;
    struct jobset js;
    jobset_init(&js);
    struct afile tl = {0};
    int rc = catalog_create(&cat, err, errlen);
    /* The predictor trains while the cluster and the jobs are read. */
    struct predictor_pending *training =
        rc ? NULL : predictor_create_begin(req->predictor, cat, req->seed);
    jpos_set_stop(req->stop); /* a signal ends a JSON parse of the cluster or the jobs */
    if (!rc)
        rc = stop_after(req,
                        cluster_load(req->cluster, req->sets, req->n_sets, cat, &cl, err, errlen),
                        "reading the cluster", err, errlen);
    if (!rc)
        rc = stop_after(req,
                        req->jobs ? read_jobs(req, cat, &js, err, errlen)
                                  : generate_queue(req, cat, cl, &js, err, errlen),
                        "reading the jobs", err, errlen);
    jpos_set_stop(NULL);
    if (!rc)
        rc = fill_default_origin(req, cl, &js, err, errlen);
    if (training) {
        char perr[CPN_ERR_LEN];
        int prc = predictor_create_end(training, &pred, perr, sizeof perr);
        if (!rc && prc)
            rc = cpn_fail(err, errlen, prc, "%s", perr);
    }
    if (!rc)
        rc = cpn_mkdir_p(req->out, err, errlen);
    if (!rc) {
        /* An old summary.json would make a half-rewritten directory look complete. */
        size_t n = strlen(req->out) + sizeof "/summary.json";
        char *old = cpn_malloc(n);
        snprintf(old, n, "%s/summary.json", req->out);
        remove(old);
        free(old);
        afile_remove_stale(req->out); /* a killed run's, beside the results to come */
        rc = afile_open(&tl, req->out, "timeline.csv", err, errlen);
    }
    struct report_timeline rows;
    report_timeline_init(&rows, tl.f);
    struct sim_sampler timeline = {report_timeline_header, report_timeline_row,
                                   report_timeline_skip, report_timeline_end, &rows};
    if (!rc)
        rc = sim_create(&s, cl, cat, &js, pol, pred, &timeline, err, errlen);
    /* jobs.csv is written as the run goes, as its jobs end for good. */
    struct report_jobs *jobs = NULL;
    if (!rc)
        rc = report_jobs_open(&jobs, req->out, s, REPORT_JOBS_BLOCK, err, errlen);
    struct sim_final final = {report_jobs_ended, jobs};
    if (!rc) {
        s->stop = req->stop;
        s->seed = req->seed;
        s->final = &final;
    }
    double t0 = cpn_wall_s();
    struct run_progress prog = {.f = req->progress, .t0 = t0, .after_s = req->progress_after_s};
    struct sim_progress hook = {run_progress_report, &prog};
    if (!rc && req->progress)
        s->progress = &hook;
    if (!rc && (rc = sim_run(s, err, errlen)) == CPN_EIO) {
        /* the timeline: name its directory, as afile does */
        char msg[CPN_ERR_LEN];
        snprintf(msg, sizeof msg, "%s", err);
        cpn_fail(err, errlen, CPN_EIO, "%s/%s", req->out, msg);
    }
    if (prog.shown) {
        fputs("\r\033[K", prog.f);
        fflush(prog.f);
    }
    if (!rc && req->stop && *req->stop) /* a signal after the last event */
        rc = cpn_fail(err, errlen, CPN_ESTOP, "stopped by signal %d", (int)*req->stop);
    double wall = cpn_wall_s() - t0;
    if (rc) { /* else report_write_run commits them */
        afile_abort(&tl);
        report_jobs_abort(jobs);
    }
    struct report_meta m = {.policy = pol->name, .seed = req->seed, .predictor = req->predictor,
                            .sets = req->sets, .n_sets = req->n_sets, .wall_s = wall,
                            .stop = req->stop};
    if (!rc) {
        sim_release_loop(s); /* before the outputs' arrays: a run's peak memory was there */
        rc = report_write_run(req->out, s, &m, &tl, jobs, err, errlen);
    }
    if (!rc && res) {
        const struct sim_stats *st = &s->st;
        *res = (struct run_result){
            .jobs = js.n, .completed = st->completed, .failed = st->failed, .stuck = st->stuck,
            .oom_events = st->oom_events, .events = st->events, .deadlock = st->deadlock,
            .makespan_s = st->completed + st->failed == js.n ? st->last_end_s - st->first_submit_s : -1,
            .wall_s = wall};
    }
    sim_destroy(s);
    report_timeline_free(&rows);
    predictor_destroy(pred);
    jobset_free(&js);
    cluster_destroy(cl);
    catalog_destroy(cat);
    return rc;
}
