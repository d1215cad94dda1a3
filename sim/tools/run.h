/* run: one simulation from inputs to a run directory, as a library call: load the
 * catalogue, cluster (with overrides) and jobs (or convert a trace, as `cpnsim import`,
 * or generate a queue, as `cpnsim gen`),
 * build the predictor, simulate with the named policy, write timeline.csv, jobs.csv
 * and summary.json (last). `cpnsim run` and sweeps both use it. */
#ifndef CPN_RUN_H
#define CPN_RUN_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Defaults of a run's request (the model's tunables live in cluster.c's table). */
#define RUN_DEFAULT_POLICY "fifo"
#define RUN_DEFAULT_PREDICTOR "rf"
#define RUN_DEFAULT_SEED 1
#define RUN_DEFAULT_JOBS 100
/* A run shows progress once it has taken this much wall time, then at most once per
 * RUN_PROGRESS_EVERY_S. */
#define RUN_PROGRESS_AFTER_S 2.0
#define RUN_PROGRESS_EVERY_S 0.25

struct run_request {
    const char *cluster;   /* NULL: the embedded default cluster */
    const char *jobs;      /* NULL: a generated queue, drawn with the seed, as below */
    /* NULL: jobs is a job file (CSV, JSON or YAML, trace.h); else an importer's job
     * format (philly, openb, gavel: import.h), and jobs is converted in memory with the
     * importer's defaults, the jobs `cpnsim import FORMAT FILE` would write. */
    const char *jobs_format;
    FILE *import_report;   /* where that conversion reports what it read and skipped;
                              NULL: nowhere */
    /* The generated queue's options, as `cpnsim gen`'s (only without jobs): */
    size_t count;          /* jobs; 0: the mix's count, else RUN_DEFAULT_JOBS */
    const char *arrival;   /* gen --arrival; NULL: the mix's, else batch */
    const char *mix;       /* gen --spec: a job-mix JSON file; NULL: the default mix */
    const char *policy;
    const char *predictor;
    uint64_t seed;
    const char *const *sets; /* KEY=VALUE overrides */
    size_t n_sets;
    const char *out;         /* run directory, created when missing */
    /* The origin of jobs whose file names none (JOBIN_DEFAULT_ORIGIN, sim/io/jobin.h);
     * NULL: the cluster's controller_site. An unknown site is CPN_EINPUT. */
    const char *origin;
    /* NULL, or where a run still going after progress_after_s seconds of wall time shows
     * its progress: one line rewritten in place (\r), cleared at the end. cmd_run.c
     * passes stderr when it is a terminal; sweeps pass nothing. */
    FILE *progress;
    double progress_after_s;
    /* NULL, or a flag that a SIGINT/SIGTERM handler sets to the signal's number: the
     * simulation then stops at its next event and the run fails with CPN_ESTOP, writing
     * no summary.json and removing its temporaries (cmd_run.c). */
    const volatile sig_atomic_t *stop;
};

/* What the caller may print about a finished run. */
struct run_result {
    size_t jobs, completed, failed, stuck;
    uint64_t oom_events, events;
    bool deadlock;
    double makespan_s; /* < 0 when not every job ended */
    double wall_s;
};

/* The progress line: simulated time, jobs ended of all, events per second. Writes at
 * most len bytes (NUL included) into buf. */
void run_progress_format(char *buf, size_t len, double sim_s, size_t ended, size_t jobs,
                         double events_per_s);

/* Runs one simulation. Returns 0, CPN_EINPUT (bad input: message names file, line,
 * field), CPN_EIO (an output could not be written) or CPN_ESTOP (req->stop was set);
 * on failure no summary.json is left in req->out. */
int run_simulation(const struct run_request *req, struct run_result *res, char *err,
                   size_t errlen);

#endif
