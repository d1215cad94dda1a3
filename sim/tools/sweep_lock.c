/* sweep_lock: one sweep at a time in a sweep directory (see sweep.h). Two sweeps on
 * one directory would both run every point and remove each other's temporaries. The
 * lock is flock(2) on a file in the directory: the kernel releases it when the
 * process ends, however it ends, so a killed sweep never leaves the directory locked
 * (a PID file alone would). A whole sweep locks exclusively; the per-point commands
 * that --emit writes (--only INDEX) run side by side in separate processes, so each
 * takes the directory's lock shared, which still keeps a whole sweep out, and its own
 * point's run.lock exclusively, so that a task submitted twice does not run one point
 * twice at once. Forked runs inherit the descriptor; the lock lasts while any of them
 * does. */
#include "sweep.h"
#include "sweep_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "../base/util.h"

/* The PID written in a lock file, when that process still lives; else 0. */
static long holder_pid(int fd)
{
    char buf[32];
    ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    char *end;
    long pid = strtol(buf, &end, 10);
    if (end == buf || pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno != EPERM))
        return 0;
    return pid;
}

/* Takes the flock of dir/name (op: LOCK_EX or LOCK_SH) into *fd. what names the
 * holder in the refusal. */
static int lock_file(const char *dir, const char *name, int op, int *fd, const char *what,
                     char *err, size_t errlen)
{
    int rc = cpn_mkdir_p(dir, err, errlen);
    if (rc)
        return rc;
    char *p = cpn_path_join(dir, name);
    int f = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (f < 0) {
        rc = cpn_fail(err, errlen, CPN_EIO, "%s: cannot open: %s", p, strerror(errno));
        free(p);
        return rc;
    }
    if (flock(f, op | LOCK_NB) != 0) {
        int e = errno;
        if (e == EWOULDBLOCK) {
            long pid = holder_pid(f);
            char who[48] = "";
            if (pid)
                snprintf(who, sizeof who, " (PID %ld)", pid);
            rc = cpn_fail(err, errlen, CPN_EINPUT,
                          "%s: %s%s; wait for it to end, or use another --out", dir, what, who);
        } else {
            rc = cpn_fail(err, errlen, CPN_EIO, "%s: cannot lock: %s", p, strerror(e));
        }
        close(f);
        free(p);
        return rc;
    }
    if (op == LOCK_EX) {
        /* Who holds it, for the message of the one refused. */
        char pid[32];
        int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
        if (ftruncate(f, 0) != 0 || pwrite(f, pid, (size_t)n, 0) != n)
            (void)0; /* the PID only adds to a message: the lock holds without it */
    }
    free(p);
    *fd = f;
    return CPN_OK;
}

int sweep_lock_take(const struct sweep_spec *sp, const char *out, size_t only,
                    struct sweep_lock *lk, char *err, size_t errlen)
{
    *lk = (struct sweep_lock){-1, -1, only == SIZE_MAX};
    if (only == SIZE_MAX)
        return lock_file(out, SWEEP_LOCK_FILE, LOCK_EX, &lk->dir_fd,
                         "another cpnsim sweep is working in this directory", err, errlen);
    int rc = lock_file(out, SWEEP_LOCK_FILE, LOCK_SH, &lk->dir_fd,
                       "a whole cpnsim sweep (not --only) is working in this directory", err,
                       errlen);
    if (rc)
        return rc;
    char *name = sweep_point_name(sp, only), *dir = sweep_run_dir(out, name);
    rc = lock_file(dir, SWEEP_RUN_LOCK_FILE, LOCK_EX, &lk->run_fd,
                   "another cpnsim is running this point", err, errlen);
    free(dir);
    free(name);
    if (rc)
        sweep_lock_release(lk);
    return rc;
}

void sweep_lock_release(struct sweep_lock *lk)
{
    /* An exclusive holder clears its PID first, so that no later refusal names it. */
    if (lk->run_fd >= 0) {
        if (ftruncate(lk->run_fd, 0) != 0)
            (void)0; /* a PID left behind is checked for life before it is named */
        close(lk->run_fd);
    }
    if (lk->dir_fd >= 0) {
        if (lk->dir_exclusive && ftruncate(lk->dir_fd, 0) != 0)
            (void)0;
        close(lk->dir_fd);
    }
    *lk = (struct sweep_lock){-1, -1, false};
}
