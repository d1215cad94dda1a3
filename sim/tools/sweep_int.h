/* sweep_int: the paths inside a sweep directory, shared by the sweep's own files
 * (sweep_run.c, sweep_aggregate.c, sweep_emit.c). Not part of sweep.h's interface:
 * nothing outside sim/tools/sweep_*.c includes it. */
#ifndef CPN_SWEEP_INT_H
#define CPN_SWEEP_INT_H

#include <stdbool.h>

/* A point's run directory, "out/runs/name"; the caller frees it. */
char *sweep_run_dir(const char *out, const char *name);
/* Whether dir/name exists and is a regular file. */
bool sweep_file_exists(const char *dir, const char *name);

#endif
