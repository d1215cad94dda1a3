/* cmd: the subcommands of the command line, one file each (cmd_*.c), and the small
 * helpers they share. main.c only dispatches. Each returns the process exit status:
 * 0 ok, 2 bad input or usage, 1 any other failure. */
#ifndef CPN_CMD_H
#define CPN_CMD_H

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
/* Writes a file atomically (temporary name, then rename) through a callback. */
int cmd_write_atomic(const char *path, int (*write)(FILE *f, const void *ctx), const void *ctx,
                     char *err, size_t errlen);

#endif
