/* cmd: helpers shared by the subcommands. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/cluster.h"
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
