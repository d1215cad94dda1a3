/* sweep_run: running the points of a sweep that are not done yet (see sweep.h).
 *
 * Each point runs in a forked child that calls run_simulation(), rather
 * than exec'ing the binary: the child already holds the parsed spec, needs no path to
 * the executable or re-parsing of arguments, and a crash or an abort() on a broken
 * invariant ends one run, not the sweep. The parent blocks SIGINT, SIGTERM and SIGCHLD
 * and waits for them with sigtimedwait(), so there is no signal handler and no
 * global flag. run_simulation() writes summary.json atomically, and the child then
 * writes the run's key (its inputs, sweep_key.c) to inputs.json, so a run directory
 * whose summary.json is valid and whose key is the one the spec asks for now is
 * complete and reusable: that is the whole resume rule. Any other is run again, and
 * the sweep says why. Before a point runs, its old summary.json and inputs.json are
 * removed, so a child killed mid-way leaves nothing that looks done. */
#include "sweep.h"
#include "sweep_int.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/util.h"

/* ---- Running -------------------------------------------------------------------- */

/* Progress bar width in characters, and how often the sweep wakes while nothing ends
 * (to redraw the bar's ETA, and to reap a child whose SIGCHLD it may have missed). */
#define SWEEP_BAR_WIDTH 30
#define SWEEP_TICK_NS 250000000L

char *sweep_run_dir(const char *out, const char *name)
{
    size_t n = strlen(out) + strlen(name) + sizeof "/runs/";
    char *s = cpn_malloc(n);
    snprintf(s, n, "%s/runs/%s", out, name);
    return s;
}

bool sweep_file_exists(const char *dir, const char *name)
{
    char *p = cpn_path_join(dir, name);
    struct stat sb;
    bool ok = stat(p, &sb) == 0 && S_ISREG(sb.st_mode);
    free(p);
    return ok;
}


/* The child: run the point, leave a message in error.txt on failure, exit with the
 * run's status. It never returns, and leaves through _exit so that the parent's
 * stdio buffers and exit handlers are not run twice. */
_Noreturn static void child_main(const struct sweep_spec *sp, struct sweep_inputs *in,
                                 size_t index, const char *dir, const struct sigaction *old_act,
                                 const sigset_t *old_mask)
{
    sigaction(SIGINT, &old_act[0], NULL);
    sigaction(SIGTERM, &old_act[1], NULL);
    sigaction(SIGCHLD, &old_act[2], NULL);
    sigprocmask(SIG_SETMASK, old_mask, NULL);
    struct sweep_req r;
    sweep_req_make(sp, index, dir, &r);
    char err[CPN_ERR_LEN];
    int rc = run_simulation(&r.req, NULL, err, sizeof err);
    if (!rc && (rc = sweep_key_write(sp, in, index, dir, err, sizeof err)) != 0)
        sweep_run_clear(dir); /* a summary without its key would be run again anyway */
    char *ep = cpn_path_join(dir, "error.txt");
    if (rc) {
        FILE *f = fopen(ep, "w");
        if (f) {
            fprintf(f, "%s\n", err);
            fclose(f);
        }
    } else {
        remove(ep);
    }
    _exit(cpn_exit_status(rc));
}

struct slot {
    pid_t pid;
    size_t point;
    double t0;
    double term_s; /* when the time limit sent it SIGTERM; 0: not yet */
    bool killed;   /* and SIGKILL after the grace */
};

struct runner {
    const struct sweep_spec *sp;
    const struct sweep_opts *o;
    struct sweep_tally *t;
    size_t n_todo, finished; /* runs to do now, and of those ended (done or failed) */
    double t0;
    bool bar_drawn;
};

static void fmt_duration(double s, char *buf, size_t n)
{
    if (!(s >= 0) || s > 1e8) {
        snprintf(buf, n, "--");
        return;
    }
    unsigned long v = (unsigned long)(s + 0.5);
    if (v >= 3600)
        snprintf(buf, n, "%luh%02lum", v / 3600, v / 60 % 60);
    else if (v >= 60)
        snprintf(buf, n, "%lum%02lus", v / 60, v % 60);
    else
        snprintf(buf, n, "%lus", v);
}

/* Remaining time: the mean wall time per ended run so far, times the runs left, over
 * the runs at once. Unknown until one has ended. */
static double eta_s(const struct runner *ru)
{
    if (ru->finished == 0)
        return -1;
    double per = (cpn_wall_s() - ru->t0) / (double)ru->finished;
    return per * (double)(ru->n_todo - ru->finished);
}

static void draw_bar(struct runner *ru)
{
    FILE *f = ru->o->progress;
    if (!f || !ru->o->tty)
        return;
    size_t total = ru->t->total, done = ru->t->done_before + ru->finished;
    size_t fill = total ? done * SWEEP_BAR_WIDTH / total : SWEEP_BAR_WIDTH;
    char bar[SWEEP_BAR_WIDTH + 1], eta[32];
    for (size_t i = 0; i < SWEEP_BAR_WIDTH; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[SWEEP_BAR_WIDTH] = '\0';
    fmt_duration(eta_s(ru), eta, sizeof eta);
    fprintf(f, "\r[%s] %zu/%zu done, %zu failed, ETA %s\033[K", bar, done, total, ru->t->failed,
            eta);
    fflush(f);
    ru->bar_drawn = true;
}

/* A line of its own: on a terminal it replaces the bar, which is drawn again after. */
__attribute__((format(printf, 2, 3))) static void say(struct runner *ru, const char *fmt, ...)
{
    FILE *f = ru->o->progress;
    if (!f)
        return;
    if (ru->o->tty && ru->bar_drawn)
        fputs("\r\033[K", f);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(f, fmt, ap);
    va_end(ap);
    fflush(f);
    ru->bar_drawn = false;
}

static char *read_error(const char *dir)
{
    char *p = cpn_path_join(dir, "error.txt"), *buf = NULL;
    size_t len;
    char err[CPN_ERR_LEN];
    if (cpn_read_file(p, &buf, &len, err, sizeof err) == 0) {
        while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
            buf[--len] = '\0';
    }
    free(p);
    return buf;
}

/* Leaves the time limit's message in a stopped run's error.txt, as a run that fails
 * leaves its own. */
static void write_time_limit_error(const char *dir, double limit_s, char *msg, size_t n)
{
    snprintf(msg, n, "exceeded the time limit of %g s", limit_s);
    char *ep = cpn_path_join(dir, "error.txt");
    FILE *f = fopen(ep, "w");
    if (f) {
        fprintf(f, "%s\n", msg);
        fclose(f);
    }
    free(ep);
}

/* A child has ended with wait status st. */
static void ended(struct runner *ru, const struct slot *s, int st, int stopping)
{
    char *name = sweep_point_name(ru->sp, s->point);
    char *dir = sweep_run_dir(ru->o->out, name);
    char why[CPN_ERR_LEN] = "";
    bool exited = WIFEXITED(st) && WEXITSTATUS(st) == 0;
    /* The child wrote inputs.json from the spec: only the summary is checked here, and
     * the files are not read again. */
    bool ok = exited && sweep_run_state(ru->sp, NULL, s->point, dir, why, sizeof why) ==
                            SWEEP_RUN_DONE;
    bool by_us = stopping && WIFSIGNALED(st) &&
                 (WTERMSIG(st) == SIGTERM || WTERMSIG(st) == SIGKILL || WTERMSIG(st) == stopping);
    if (!ok)
        afile_remove_stale(dir);
    if (!ok && s->term_s > 0) {
        /* Stopped by the time limit: a failure, with its cause in error.txt. */
        char msg[128];
        write_time_limit_error(dir, ru->o->time_limit_s, msg, sizeof msg);
        ru->t->failed++;
        ru->finished++;
        if (ru->t->worst != 2)
            ru->t->worst = 1;
        say(ru, "sweep: FAILED %s: %s\n", name, msg);
    } else if (by_us) {
        /* Stopped on request: neither done nor failed; the next sweep redoes it. */
    } else if (ok) {
        ru->t->ran++;
        ru->finished++;
        if (!ru->o->tty)
            say(ru, "sweep: [%zu/%zu] done %s (%.2f s)\n", ru->t->done_before + ru->finished,
                ru->t->total, name, cpn_wall_s() - s->t0);
    } else {
        ru->t->failed++;
        ru->finished++;
        int sev = WIFEXITED(st) && WEXITSTATUS(st) == 2 ? 2 : 1;
        if (ru->t->worst != 2)
            ru->t->worst = sev;
        char *msg = read_error(dir);
        if (WIFSIGNALED(st))
            say(ru, "sweep: FAILED %s: killed by signal %d\n", name, WTERMSIG(st));
        else if (exited) /* ran, but what it left is not a run of its inputs */
            say(ru, "sweep: FAILED %s: %s\n", name, why[0] ? why : "no summary.json written");
        else
            say(ru, "sweep: FAILED %s: %s\n", name, msg ? msg : "no summary.json written");
        free(msg);
    }
    free(dir);
    free(name);
}

static int start(struct runner *ru, struct slot *s, size_t point, const struct sigaction *old_act,
                 const sigset_t *old_mask, char *err, size_t errlen)
{
    char *name = sweep_point_name(ru->sp, point);
    char *dir = sweep_run_dir(ru->o->out, name);
    int rc = cpn_mkdir_p(dir, err, errlen);
    if (!rc) {
        afile_remove_stale(dir);
        sweep_run_clear(dir);
        fflush(NULL); /* or the child would write the parent's buffered output again */
        pid_t pid = fork();
        if (pid == 0)
            child_main(ru->sp, ru->o->inputs, point, dir, old_act, old_mask);
        if (pid < 0)
            rc = cpn_fail(err, errlen, CPN_EIO, "cannot start a run: fork: %s", strerror(errno));
        *s = (struct slot){.pid = pid, .point = point, .t0 = cpn_wall_s()};
    }
    free(dir);
    free(name);
    return rc;
}

/* Sends SIGTERM to each run that has gone on longer than the time limit, and SIGKILL
 * to one that SIGTERM has not ended within SWEEP_KILL_GRACE_S. */
static void enforce_time_limit(const struct sweep_opts *o, struct slot *slots, size_t n)
{
    if (!(o->time_limit_s > 0))
        return;
    double now = cpn_wall_s();
    for (size_t i = 0; i < n; i++) {
        struct slot *s = &slots[i];
        if (s->term_s == 0 && now - s->t0 > o->time_limit_s) {
            kill(s->pid, SIGTERM);
            s->term_s = now;
        } else if (s->term_s > 0 && !s->killed && now - s->term_s > SWEEP_KILL_GRACE_S) {
            kill(s->pid, SIGKILL);
            s->killed = true;
        }
    }
}

/* The signal disposition for SIGCHLD while the sweep waits: a handler that does
 * nothing, so that the signal is neither ignored (which would reap children for us)
 * nor lost; sigtimedwait takes it while it is blocked. */
static void on_sigchld(int sig) { (void)sig; }

int sweep_execute(const struct sweep_spec *sp, const struct sweep_opts *o, struct sweep_tally *t,
                  char *err, size_t errlen)
{
    CPN_ASSERT(o->jobs >= 1);
    *t = (struct sweep_tally){0};
    struct runner ru = {.sp = sp, .o = o, .t = t, .t0 = cpn_wall_s()};
    size_t first = o->only == SIZE_MAX ? 0 : o->only;
    size_t last = o->only == SIZE_MAX ? sp->n_points : o->only + 1;
    size_t *todo = cpn_calloc(last - first, sizeof *todo);
    for (size_t i = first; i < last; i++) {
        char *name = sweep_point_name(sp, i);
        char *dir = sweep_run_dir(o->out, name);
        char why[CPN_ERR_LEN];
        int state = sweep_run_state(sp, o->inputs, i, dir, why, sizeof why);
        if (state == SWEEP_RUN_DONE) {
            t->done_before++;
        } else {
            todo[ru.n_todo++] = i;
            if (state == SWEEP_RUN_STALE) {
                /* Never an old result for new inputs, and never in silence. */
                t->stale++;
                if (o->progress)
                    fprintf(o->progress, "sweep: runs/%s: %s; running again\n", name, why);
            }
        }
        free(dir);
        free(name);
    }
    t->total = last - first;
    char stale[64] = "";
    if (t->stale)
        snprintf(stale, sizeof stale, " (%zu of them again, named above)", t->stale);
    if (o->progress)
        fprintf(o->progress,
                "sweep: %zu run%s in %s/runs: %zu done before, %zu to run%s, %u at a time\n",
                t->total, t->total == 1 ? "" : "s", o->out, t->done_before, ru.n_todo, stale,
                o->jobs);

    /* Signals: a SIGINT or SIGTERM that the caller ignores stays ignored. */
    struct sigaction old_act[3], act = {0};
    sigset_t wait_set, old_mask;
    sigemptyset(&wait_set);
    sigaction(SIGINT, NULL, &old_act[0]);
    sigaction(SIGTERM, NULL, &old_act[1]);
    if (old_act[0].sa_handler != SIG_IGN)
        sigaddset(&wait_set, SIGINT);
    if (old_act[1].sa_handler != SIG_IGN)
        sigaddset(&wait_set, SIGTERM);
    sigaddset(&wait_set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &wait_set, &old_mask);
    act.sa_handler = on_sigchld;
    sigemptyset(&act.sa_mask);
    sigaction(SIGCHLD, &act, &old_act[2]);

    struct slot *slots = cpn_calloc(o->jobs, sizeof *slots);
    size_t n_running = 0, next = 0;
    int stopping = 0, rc = 0;
    draw_bar(&ru);
    for (;;) {
        while (!stopping && !rc && n_running < o->jobs && next < ru.n_todo) {
            rc = start(&ru, &slots[n_running], todo[next], old_act, &old_mask, err, errlen);
            if (!rc) {
                n_running++;
                next++;
            }
        }
        if (n_running == 0)
            break;
        bool any = false;
        for (size_t i = 0; i < n_running;) {
            int st;
            pid_t p = waitpid(slots[i].pid, &st, WNOHANG);
            if (p == slots[i].pid || (p < 0 && errno == ECHILD)) {
                if (p < 0)
                    st = 0x7f00; /* lost: count it as failed */
                ended(&ru, &slots[i], st, stopping);
                slots[i] = slots[--n_running];
                any = true;
            } else {
                i++;
            }
        }
        if (any) {
            draw_bar(&ru);
            continue;
        }
        enforce_time_limit(ru.o, slots, n_running);
        if (rc && !stopping) {
            /* A run could not be started: stop the others as on SIGTERM. */
            stopping = SIGTERM;
            for (size_t i = 0; i < n_running; i++)
                kill(slots[i].pid, SIGTERM);
        }
        struct timespec ts = {0, SWEEP_TICK_NS};
        int sig = sigtimedwait(&wait_set, NULL, &ts);
        if (sig == SIGINT || sig == SIGTERM) {
            /* The first asks the children to stop; a second insists. */
            for (size_t i = 0; i < n_running; i++)
                kill(slots[i].pid, stopping ? SIGKILL : SIGTERM);
            if (!stopping) {
                stopping = sig;
                t->signal = sig;
                say(&ru, "sweep: %s: stopping %zu running run%s\n",
                    sig == SIGINT ? "interrupted" : "terminated", n_running,
                    n_running == 1 ? "" : "s");
            }
        }
        draw_bar(&ru);
    }
    if (o->progress && o->tty && ru.bar_drawn)
        fputc('\n', o->progress);
    sigaction(SIGCHLD, &old_act[2], NULL);
    /* Signals that arrived after the first stay pending; consume them so that the
     * caller decides what a stop means (cmd_sweep re-raises the first). */
    struct timespec zero = {0, 0};
    while (sigtimedwait(&wait_set, NULL, &zero) > 0)
        ;
    sigprocmask(SIG_SETMASK, &old_mask, NULL);
    free(slots);
    free(todo);
    return rc;
}
