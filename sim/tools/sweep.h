/* sweep: a parameter grid of runs. It reads the spec (docs/sweeps.md), expands the
 * Cartesian product in a fixed order and names each point's run directory
 * (sweep_spec.c); checks the values before anything runs (sweep_check.c); runs the
 * points that are not done, each in a forked child through run_simulation, N at once
 * (sweep_run.c), reusing a run only when its inputs are the ones asked for
 * (sweep_key.c) and with the sweep directory locked (sweep_lock.c); writes the job lists that hand the points to Slurm or GNU Parallel
 * (sweep_emit.c); and gathers the runs into tables (sweep_aggregate.c, with stats.h's
 * statistics). The command line is cmd_sweep.c's. */
#ifndef CPN_SWEEP_H
#define CPN_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "run.h"
#include "stats.h"

/* What a key sets in a run: one of run's options, or a --set key. */
enum sweep_kind {
    SWEEP_JOBS,
    SWEEP_CLUSTER,
    SWEEP_POLICY,
    SWEEP_PREDICTOR,
    SWEEP_SEED,
    SWEEP_COUNT,   /* the generated queue's options (run --count, --arrival, --mix) */
    SWEEP_ARRIVAL,
    SWEEP_MIX,
    SWEEP_SET, /* cpu_threshold too: `run --cpu-threshold X` is `--set cpu_threshold=X` */
};

/* One key of the spec with its values (one for a base key). */
struct sweep_key {
    char *name;
    int kind;   /* enum sweep_kind */
    int line;   /* of the key in the spec */
    size_t n;   /* values */
    char **raw; /* each value as the spec gives it (the text runs.csv shows):
                   numbers in shortest exact form, "default" for a JSON null */
    char **arg; /* what the run gets: a path resolved against the spec's directory
                   (NULL for null: the default), "KEY=VALUE" for a --set key, else
                   the raw text */
    const char **format; /* jobs only: an importer's job format (import.h) when the
                            value is FORMAT:TRACE, as `run --jobs` takes it, and arg is
                            then TRACE resolved; else NULL (a job file) */
    char **label; /* the value in directory names: filesystem-safe */
    int *lines;   /* of each value */
};

struct sweep_spec {
    char *path;                /* as given */
    struct sweep_key *base;    /* in spec order */
    size_t n_base;
    struct sweep_key *grid;    /* in spec order: the first varies slowest */
    size_t n_grid;
    size_t *baseline;          /* [n_baselines * n_grid]: baseline b's value index of
                                  grid key k at [b * n_grid + k], or SIZE_MAX for keys
                                  it does not name; NULL when there is none */
    size_t n_baselines;        /* the spec's, in its order, then --baseline's */
    size_t n_points;
    double time_limit_s;       /* wall seconds a run may take; 0: no limit */
};

/* Largest number of points a spec may expand to. */
#define SWEEP_MAX_POINTS 10000000u
/* Longest run directory name; longer names are cut and end in a hash of the whole. */
#define SWEEP_MAX_NAME 200

/* Parses a spec from a buffer. name is used in messages; relative paths resolve
 * against dir (NULL or "" for the current directory). Checks the spec's shape, the
 * key names' kinds, the values' types, that labels are unique per key and that the
 * baseline names grid values; not that files exist or that values are in range
 * (sweep_check does). Errors read "name:line: field: what is wrong". Returns 0 with
 * *out owned by the caller, or CPN_EINPUT leaving *out untouched. */
int sweep_spec_parse(const char *name, const char *buf, size_t len, const char *dir,
                     struct sweep_spec **out, char *err, size_t errlen);
/* The same from a file; relative paths resolve against the file's directory. */
int sweep_spec_load(const char *path, struct sweep_spec **out, char *err, size_t errlen);
void sweep_spec_destroy(struct sweep_spec *sp); /* NULL is a no-op */

/* Adds a baseline after the spec's, from "KEY=VALUE[,KEY=VALUE...]" (`sweep
 * --baseline`): each KEY a grid key other than the seed, each VALUE one of its values
 * as the spec writes it or as its label. A baseline equal to one already there is not
 * added again. Returns 0, or CPN_EINPUT with a message starting "--baseline: ". */
int sweep_spec_add_baseline(struct sweep_spec *sp, const char *text, char *err, size_t errlen);

/* Checks the values that the points to run would use, as the run would: policies
 * by name, jobs files (or FORMAT:TRACE's trace) readable, clusters loaded with every
 * --set value, seeds, predictors. only: one point's index, or SIZE_MAX for all.
 * Returns 0, or CPN_EINPUT with a message naming the spec's line and field. */
int sweep_check(const struct sweep_spec *sp, size_t only, char *err, size_t errlen);

/* Point index -> the value index of each grid key (choice[n_grid]): the last key
 * varies fastest, as nested loops over the keys in spec order. */
void sweep_point(const struct sweep_spec *sp, size_t index, size_t *choice);
/* The point's run directory name: "KEY=LABEL" per grid key joined with ',' ("base"
 * when there is no grid key). Returns a string the caller frees. */
char *sweep_point_name(const struct sweep_spec *sp, size_t index);
/* The name of the point's group, the points that differ only in the seed: its name
 * without the seed key ("all" when the seed is the only grid key). The caller frees
 * it. */
char *sweep_group_name(const struct sweep_spec *sp, size_t index);

/* A run request for a point, with the storage its pointers borrow. */
struct sweep_req {
    struct run_request req;
    const char **sets;
};
/* Fills r for point index with out as the run directory; sweep_req_free releases it. */
void sweep_req_make(const struct sweep_spec *sp, size_t index, const char *out,
                    struct sweep_req *r);
void sweep_req_free(struct sweep_req *r);

/* The SHA-256 of each input file (jobs, cluster, mix) that the points use: part of
 * each run's key (sweep_key.c, docs/sweeps.md "Reuse"). A cache, filled as points
 * need it: a file is read when a point that uses it is checked against an earlier
 * run, never all at the start; a run that has just ended takes the hashes its
 * summary.json records. */
struct sweep_inputs;
struct sweep_inputs *sweep_inputs_create(const struct sweep_spec *sp); /* borrows sp */
void sweep_inputs_destroy(struct sweep_inputs *in); /* NULL is a no-op */
/* Hashes the files of point index not hashed yet. Each is read through cpn_read_file:
 * a NUL byte is refused as soon as it is read, and nothing past CPN_READ_MAX. Returns
 * 0, or CPN_EINPUT with "spec:line: field: file: what is wrong". */
int sweep_inputs_hash(struct sweep_inputs *in, size_t index, char *err, size_t errlen);

/* A lock on a sweep directory (sweep_lock.c), held while a command works in it. */
struct sweep_lock {
    int dir_fd; /* OUT/sweep.lock, or -1 */
    int run_fd; /* OUT/runs/NAME/run.lock for --only, or -1 */
    bool dir_exclusive;
};
/* The lock file in the sweep directory, and in a run directory for --only. */
#define SWEEP_LOCK_FILE "sweep.lock"
#define SWEEP_RUN_LOCK_FILE "run.lock"
/* Locks out (created when missing) with flock(2), which the kernel releases when the
 * process ends, however it ends. only == SIZE_MAX (a whole sweep, --aggregate,
 * --emit): out/sweep.lock exclusively, and the PID is written into it. A point
 * (--only, a cluster task): out/sweep.lock shared, so that the tasks of one array run
 * side by side while no whole sweep can, and that point's run.lock exclusively.
 * Never waits. Returns 0, CPN_EINPUT (held by another cpnsim: the message names the
 * directory and, when known, the holder's PID) or CPN_EIO. */
int sweep_lock_take(const struct sweep_spec *sp, const char *out, size_t only,
                    struct sweep_lock *lk, char *err, size_t errlen);
void sweep_lock_release(struct sweep_lock *lk);

/* How long a run stopped by the time limit has to end after SIGTERM before SIGKILL. */
#define SWEEP_KILL_GRACE_S 5.0

/* How to run the points. */
struct sweep_opts {
    const char *out;   /* the sweep directory; runs go to out/runs/NAME */
    unsigned jobs;     /* runs at once (>= 1) */
    size_t only;       /* one point, or SIZE_MAX for all */
    struct sweep_inputs *inputs; /* the files' hashes (sweep_inputs_create) */
    FILE *progress;    /* stderr, usually */
    bool tty;          /* progress as a redrawn bar rather than lines */
    double time_limit_s; /* a run still going after this many wall seconds is stopped
                            (SIGTERM, then SIGKILL after SWEEP_KILL_GRACE_S) and
                            counted failed; 0: no limit */
};

/* What happened. */
struct sweep_tally {
    size_t total;        /* points considered */
    size_t done_before;  /* found done (a valid summary.json of the same inputs): skipped */
    size_t stale;        /* found with a summary.json of other inputs, or not valid: rerun */
    size_t ran;          /* finished now */
    size_t failed;       /* ended without a summary.json */
    int worst;           /* 0; 2 when a run failed on bad input; 1 for other failures */
    int signal;          /* SIGINT or SIGTERM when stopped by one, else 0 */
};

/* Runs the points not yet done. Blocks SIGINT, SIGTERM and SIGCHLD while it works
 * and waits for them with sigtimedwait, so it needs no handler state: on SIGINT or
 * SIGTERM it stops starting runs, sends SIGTERM to the running children, waits for
 * them, clears their temporary files and returns with t->signal set. A child that
 * fails leaves its message in RUNDIR/error.txt. Returns 0 (failures and a stop are
 * in *t), or CPN_EIO when a directory cannot be made. */
int sweep_execute(const struct sweep_spec *sp, const struct sweep_opts *o, struct sweep_tally *t,
                  char *err, size_t errlen);

/* Aggregates the runs of out/runs/ that are done for the spec's inputs (in) into out/runs.csv, summary.csv, groups.csv, timing.csv and,
 * with baselines, baseline.csv and paired.csv (stats_aggregate), and writes
 * out/sweep.json. Warnings (a group whose seeds gave identical results) go to warn
 * (NULL: nowhere). *n_missing counts points not done: without a summary, or with
 * one of other inputs (left out of every table). Returns 0, or CPN_EINPUT or CPN_EIO
 * as stats_aggregate. */
int sweep_aggregate(const struct sweep_spec *sp, struct sweep_inputs *in, const char *out,
                    FILE *warn, size_t *n_missing, char *err, size_t errlen);

/* Most runs not done that sweep_list_missing names one by one. */
#define SWEEP_MAX_LISTED 20
/* Writes the name of each point not done in out/runs, one a line indented by two
 * spaces (a stale one followed by why), the first SWEEP_MAX_LISTED and then "and N
 * more". */
void sweep_list_missing(const struct sweep_spec *sp, struct sweep_inputs *in,
                        const char *out, FILE *f);

/* What the seed varies in each point's run (docs/sweeps.md): "queue" (the queue is
 * generated), "predictor" (rf's forest, noisy's noise), "background_load" (a node of
 * the cluster has noisy background_cpu), joined with '+', or "nothing"; "unknown"
 * joins them when the cluster cannot be loaded. Returns [n_points] strings; free them
 * with sweep_seed_varies_free. */
char **sweep_seed_varies(const struct sweep_spec *sp);
void sweep_seed_varies_free(const struct sweep_spec *sp, char **v);
/* Writes one line to f saying what the seed varies, per distinct answer with its
 * number of groups; nothing when the seed is not a grid key of two or more values. */
void sweep_note_seed(const struct sweep_spec *sp, char *const *varies, FILE *f);

enum sweep_emit { SWEEP_EMIT_SLURM, SWEEP_EMIT_PARALLEL };
/* Writes out/sweep.sbatch (a Slurm array with one task per point not yet done, each
 * `BIN sweep SPEC --out OUT --only INDEX`) or out/parallel.txt (one such command a
 * line, for GNU Parallel), with absolute paths, and sets *n_tasks. A point is done as
 * sweep_execute judges it (in). *path receives the file's path (caller frees).
 * Returns 0 or CPN_EIO. */
int sweep_emit(const struct sweep_spec *sp, struct sweep_inputs *in, int kind,
               const char *bin, const char *out, size_t *n_tasks, char **path, char *err,
               size_t errlen);

#endif
