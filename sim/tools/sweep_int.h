/* sweep_int: the paths inside a sweep directory and the state of a run directory,
 * shared by the sweep's own files (sweep_run.c, sweep_aggregate.c, sweep_emit.c,
 * sweep_key.c, sweep_lock.c). Not part of sweep.h's interface:
 * nothing outside sim/tools/sweep_*.c includes it. */
#ifndef CPN_SWEEP_INT_H
#define CPN_SWEEP_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "sweep.h"

/* A point's run directory, "out/runs/name"; the caller frees it. */
char *sweep_run_dir(const char *out, const char *name);
/* Whether dir/name exists and is a regular file. */
bool sweep_file_exists(const char *dir, const char *name);

/* Where a value sits in the spec, for messages: "base.KEY" or "grid.KEY[i]". */
void sweep_value_field(const struct sweep_key *k, bool in_grid, size_t i, char *buf, size_t n);

/* What a point's run directory holds (sweep_key.c). */
enum sweep_run_state {
    SWEEP_RUN_MISSING, /* no summary.json: not run, or stopped before its end */
    SWEEP_RUN_DONE,    /* a valid summary.json of the inputs the spec asks for now */
    SWEEP_RUN_STALE,   /* a summary.json of other inputs, or one not valid */
};
/* The state of point index's run directory dir, against the inputs the spec asks for
 * now (in, whose cache gets the point's files' hashes). With in NULL, its own
 * inputs.json is trusted (the run just made it) and only the summary is checked. For a
 * stale run, why says what is wrong ("inputs changed since it ran (policy: fifo then,
 * sjf now)"); else it is "". */
int sweep_run_state(const struct sweep_spec *sp, struct sweep_inputs *in, size_t index,
                    const char *dir, char *why, size_t n);
/* Writes point index's key to dir/inputs.json, atomically, once the point has run
 * there: the jobs file's and the cluster's hashes are taken from its summary.json (the
 * bytes the run read), a mix file is hashed. Returns 0, CPN_EINPUT (a mix that cannot
 * be read) or CPN_EIO. */
int sweep_key_write(const struct sweep_spec *sp, struct sweep_inputs *in, size_t index,
                    const char *dir, char *err, size_t errlen);
/* Writes o as dir/name, atomically, and deletes o. Returns 0 or CPN_EIO. */
struct cJSON;
int sweep_write_json(const char *dir, const char *name, struct cJSON *o, char *err, size_t errlen);
/* Removes dir's summary.json and inputs.json, before the point runs there again: a run
 * that then fails leaves nothing that looks done. */
void sweep_run_clear(const char *dir);

#endif
