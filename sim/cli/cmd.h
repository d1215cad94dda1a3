/* cmd: the subcommands of the command line, one file each (cmd_*.c), and the small
 * helpers they share. main.c only dispatches. Each returns the process exit status:
 * 0 ok, 2 bad input or usage, 1 any other failure. */
#ifndef CPN_CMD_H
#define CPN_CMD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

int cmd_run(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_policies(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_predict(int argc, char **argv);

/* Prints "cpnsim CMD: MSG (see `cpnsim CMD --help`)" and returns 2. */
int cmd_usage_error(const char *cmd, const char *msg);
/* Prints "cpnsim: ERR" and returns the exit status of error code rc. */
int cmd_fail(int rc, const char *err);
/* Checks a path given to option OPT of CMD: an empty one is a usage error (it would
 * name the current directory, or the root once joined). Returns 0, or 2 after the
 * message. */
int cmd_check_path(const char *cmd, const char *opt, const char *path);
/* A usage error (2) for a job file to write whose name says Kubernetes YAML (.yaml,
 * .yml): run would read it as YAML, and jobs are written as CSV or JSON only. */
int cmd_check_jobs_out(const char *cmd, const char *opt, const char *path);
/* Whether writing `out` would replace the existing file `in` (the same file by device
 * and inode, whatever the paths say). Either may be NULL or not exist: then false. */
bool cmd_same_file(const char *in, const char *out);
/* An input read from the directory an output goes to: a usage error of CMD when
 * writing one of the names (a NULL-terminated list) into `dir` would replace `in`,
 * given to option OPT. Returns 0, or 2 after the message. */
int cmd_check_not_overwritten(const char *cmd, const char *opt, const char *in, const char *dir,
                              const char *const *names);
/* Writes a file atomically (temporary name, then rename) through a callback. */
int cmd_write_atomic(const char *path, int (*write)(FILE *f, const void *ctx), const void *ctx,
                     char *err, size_t errlen);

#endif
