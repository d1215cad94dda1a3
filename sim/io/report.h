/* report: the output files of a run: summary.json, jobs.csv and timeline.csv
 * (README "Files"). It reads a finished (or running, for the timeline) simulation and
 * formats it; it owns no state. Files are written under temporary names and renamed
 * (afile in util.h); summary.json is written last, so its presence means the run
 * directory is complete. */
#ifndef CPN_REPORT_H
#define CPN_REPORT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct afile;
struct sim;

/* What the summary records about the run besides the simulation itself. */
struct report_meta {
    const char *policy;
    uint64_t seed;
    const char *predictor;
    const char *const *sets; /* the --set overrides, as given */
    size_t n_sets;
    double wall_s; /* set by the caller after the run */
    /* Set (to the signal's number) by a signal handler that asks the run to stop; NULL
     * when none is installed. Checked before each output is committed, so that a run
     * stopped while it writes leaves no summary.json. */
    const volatile sig_atomic_t *stop;
};

/* Timeline CSV: a header, then one row per sample that differs from the sample
 * before it in any column but the time, each preceded by the last sample that did not
 * (the one before it, unless that was written), plus the first and the last sample of
 * the run (README "Files"). Joining the rows with lines or steps draws what every sample
 * would, and a time-weighted mean over the rows is unchanged. The four hooks are those
 * of a struct sim_sampler (sim/engine/sim.h); ctx is a struct report_timeline. They
 * return 0 or -1 on a write error. */
struct report_timeline {
    FILE *f;                  /* borrowed */
    char *cur, *prev;         /* a row's values (every column but the time), formatted */
    size_t cur_len, cur_cap, prev_len, prev_cap;
    double held_t;            /* the time of the sample held back */
    bool have_prev, held;     /* prev holds the last row written; a sample is held */
};
void report_timeline_init(struct report_timeline *tl, FILE *f);
void report_timeline_free(struct report_timeline *tl);
int report_timeline_header(void *ctx, const struct sim *s);
int report_timeline_row(void *ctx, const struct sim *s);
void report_timeline_skip(void *ctx, double t);
int report_timeline_end(void *ctx, const struct sim *s);

/* jobs.csv of a run, written as the run goes: opened before it (report_jobs_open), its
 * rows formatted and written in order by a thread of its own as a prefix of the jobs
 * ends for good (report_jobs_ended, the hook of a struct sim_final, sim/engine/sim.h),
 * and the rest when the run has ended (report_write_run). The bytes are those of
 * report_jobs_csv. */
struct report_jobs;
/* Rows per block of jobs.csv: about 128 KiB of a million-job run's. */
enum { REPORT_JOBS_BLOCK = 2048 };
/* Opens dir/jobs.csv under a temporary name, writes its header and starts the writer's
 * thread, which writes block_rows rows at a time (none where no thread can start, nor
 * for a run of fewer than two blocks: it is then all written at the end). s must
 * outlive it. Returns 0 with *out, or CPN_EIO with a message. */
int report_jobs_open(struct report_jobs **out, const char *dir, const struct sim *s,
                     size_t block_rows, char *err, size_t errlen);
/* sim_final's hook, on the run's thread (ctx: a struct report_jobs): jobs 0 .. k-1 have
 * ended for good. */
void report_jobs_ended(void *ctx, size_t k);
/* Stops and joins the writer's thread, removes the temporary and frees jobs: for a run
 * that failed or was stopped. NULL is a no-op. */
void report_jobs_abort(struct report_jobs *jobs);

/* jobs.csv of a finished run. Returns 0 or -1 on a write error. */
int report_jobs_csv(FILE *f, const struct sim *s);
/* The same, formatted block_rows rows at a time, by two threads (threads) or one: the
 * bytes are the same (report_jobs_csv: blocks of 2,048 rows, two threads). */
int report_jobs_csv_blocks(FILE *f, const struct sim *s, size_t block_rows, bool threads);
/* summary.json of a finished run, as a NUL-terminated string the caller frees. */
char *report_summary_json(const struct sim *s, const struct report_meta *m);

/* Writes jobs.csv then summary.json into dir, and commits timeline (the run's
 * timeline.csv, written and still open; NULL when there is none) beside jobs.csv: the
 * disk writes each file while the next is formatted, and summary.json, which says the
 * directory is complete, is committed last, after both. jobs is the run's jobs.csv as
 * report_jobs_open began it, which this finishes and frees; NULL: it is written whole
 * here. timeline is committed whatever else fails. Returns 0, or CPN_EIO (the first
 * file that failed, in that order) or CPN_ESTOP with a message. */
int report_write_run(const char *dir, const struct sim *s, const struct report_meta *m,
                     struct afile *timeline, struct report_jobs *jobs, char *err,
                     size_t errlen);

#endif
