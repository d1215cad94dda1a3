/* report: the output files of a run: summary.json, jobs.csv and timeline.csv
 * (README "Files"). It reads a finished (or running, for the timeline) simulation and
 * formats it; it owns no state. Files are written under temporary names and renamed
 * (afile in util.h); summary.json is written last, so its presence means the run
 * directory is complete. */
#ifndef CPN_REPORT_H
#define CPN_REPORT_H

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

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

/* Timeline CSV: a header, then one row per sample; ctx is the FILE written to. They
 * are the pair of a struct sim_sampler (sim/engine/sim.h). Return 0 or -1 on a write
 * error. */
int report_timeline_header(void *ctx, const struct sim *s);
int report_timeline_row(void *ctx, const struct sim *s);

/* jobs.csv of a finished run. Returns 0 or -1 on a write error. */
int report_jobs_csv(FILE *f, const struct sim *s);
/* summary.json of a finished run, as a NUL-terminated string the caller frees. */
char *report_summary_json(const struct sim *s, const struct report_meta *m);

/* Writes jobs.csv then summary.json into dir. Returns 0 or CPN_EIO with a message. */
int report_write_run(const char *dir, const struct sim *s, const struct report_meta *m,
                     char *err, size_t errlen);

#endif
