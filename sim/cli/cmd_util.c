/* cmd: helpers shared by the subcommands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../engine/cluster.h"
#include "../io/trace.h"
#include "cmd.h"
#include "../base/util.h"

int cmd_usage_error(const char *cmd, const char *msg)
{
    fprintf(stderr, "cpnsim %s: %s\n(see `cpnsim %s --help`)\n", cmd, msg, cmd);
    return 2;
}

int cmd_fail(int rc, const char *err)
{
    fprintf(stderr, "cpnsim: %s\n", err);
    return cpn_exit_status(rc);
}

int cmd_check_path(const char *cmd, const char *opt, const char *path)
{
    if (path && path[0] == '\0') {
        char msg[128];
        snprintf(msg, sizeof msg, "%s: an empty path", opt);
        return cmd_usage_error(cmd, msg);
    }
    return 0;
}

int cmd_check_jobs_out(const char *cmd, const char *opt, const char *path)
{
    if (!path || !trace_path_is_yaml(path))
        return 0;
    char msg[160];
    snprintf(msg, sizeof msg,
             "%s: jobs are written as CSV, or JSON for a name ending in .json, never as "
             "Kubernetes YAML: name the file .csv or .json",
             opt);
    return cmd_usage_error(cmd, msg);
}

bool cmd_same_file(const char *in, const char *out)
{
    struct stat a, b;
    return in && out && stat(in, &a) == 0 && stat(out, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}

int cmd_check_not_overwritten(const char *cmd, const char *opt, const char *in, const char *dir,
                              const char *const *names)
{
    for (size_t i = 0; in && dir && names[i]; i++) {
        char *out = cpn_path_join(dir, names[i]);
        bool same = cmd_same_file(in, out);
        free(out);
        if (same) {
            char msg[CPN_ERR_LEN];
            snprintf(msg, sizeof msg, "%s %s is the %s this run would write into %s: refusing to "
                     "overwrite an input; write the results elsewhere",
                     opt, in, names[i], dir);
            return cmd_usage_error(cmd, msg);
        }
    }
    return 0;
}

int cmd_write_atomic(const char *path, int (*write)(FILE *f, const void *ctx), const void *ctx,
                     char *err, size_t errlen)
{
    char *dir = cpn_strdup(path), *slash = strrchr(dir, '/');
    const char *name = path;
    if (slash) {
        *slash = '\0';
        name = slash + 1;
    }
    struct afile af = {0};
    int rc = afile_open(&af, slash ? (dir[0] ? dir : "/") : ".", name, err, errlen);
    if (!rc) {
        if (write(af.f, ctx) != 0) {
            afile_abort(&af);
            rc = cpn_fail(err, errlen, CPN_EIO, "%s: write failed", path);
        } else {
            rc = afile_commit(&af, err, errlen);
        }
    }
    free(dir);
    return rc;
}
