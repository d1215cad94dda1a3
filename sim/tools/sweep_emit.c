/* sweep_emit: the job lists that hand a sweep's points to Slurm (a job array) or
 * to GNU Parallel (one command a line), see sweep.h. */
#include "sweep.h"
#include "sweep_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/util.h"

/* ---- Emitting scripts for Slurm and GNU Parallel -------------------------------- */

/* Writes s in single quotes for sh. */
static void put_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    }
    fputc('\'', f);
}

/* Indices as Slurm's --array ranges: "0-3,5,7-9". */
static void put_ranges(FILE *f, const size_t *v, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && v[j + 1] == v[j] + 1)
            j++;
        fprintf(f, "%s%zu", i ? "," : "", v[i]);
        if (j > i)
            fprintf(f, "-%zu", v[j]);
        i = j + 1;
    }
}

struct emit_ctx {
    const char *bin, *spec, *out;
    const char *only; /* " --only ", after " --time-limit S" when the sweep has a limit */
    const size_t *todo;
    size_t n_todo, n_points;
    int kind;
};

/* Writes "BIN sweep SPEC --out OUT" and then tail: the one command line that both
 * the per-run commands and the aggregation step start with. */
static void put_command(FILE *f, const struct emit_ctx *e, const char *tail)
{
    put_quoted(f, e->bin);
    fputs(" sweep ", f);
    put_quoted(f, e->spec);
    fputs(" --out ", f);
    put_quoted(f, e->out);
    fputs(tail, f);
}

static int write_emit(FILE *f, const void *ctx)
{
    const struct emit_ctx *e = ctx;
    if (e->kind == SWEEP_EMIT_PARALLEL) {
        for (size_t i = 0; i < e->n_todo; i++) {
            put_command(f, e, e->only);
            fprintf(f, "%zu\n", e->todo[i]);
        }
        return ferror(f) ? -1 : 0;
    }
    fprintf(f,
            "#!/bin/sh\n"
            "# A Slurm job array for the cpnsim sweep %s: one task per run not yet done\n"
            "# (%zu of %zu). Each task runs `cpnsim sweep SPEC --only INDEX`; a run done\n"
            "# with the same inputs is skipped, so the array may be submitted again.\n"
            "# Array indices are the points' indices: Slurm's MaxArraySize must exceed %zu.\n"
            "#\n"
            "#   sbatch %s/sweep.sbatch\n"
            "#\n"
            "# When every task has ended, aggregate (or let Slurm do it):\n"
            "#   jid=$(sbatch --parsable %s/sweep.sbatch)\n"
            "#   sbatch --dependency=afterany:$jid --wrap ",
            e->spec, e->n_todo, e->n_points, e->todo[e->n_todo - 1], e->out, e->out);
    /* --wrap takes the command as one word: quoted whole, so that no quote, $ or `
     * of a path is read by the shell the line is pasted into. */
    char *cmd = NULL;
    size_t cmd_len = 0;
    FILE *m = open_memstream(&cmd, &cmd_len);
    if (!m)
        return -1;
    put_command(m, e, " --aggregate");
    if (fclose(m) != 0) {
        free(cmd);
        return -1;
    }
    put_quoted(f, cmd);
    free(cmd);
    fputc('\n', f);
    fputs("#SBATCH --job-name=cpnsim-sweep\n#SBATCH --array=", f);
    put_ranges(f, e->todo, e->n_todo);
    fprintf(f,
            "\n#SBATCH --ntasks=1\n"
            "#SBATCH --cpus-per-task=1\n"
            "#SBATCH --output=%s/slurm/%%A_%%a.out\n"
            "exec ",
            e->out);
    put_command(f, e, e->only);
    fputs("\"$SLURM_ARRAY_TASK_ID\"\n", f);
    return ferror(f) ? -1 : 0;
}

/* path made absolute against the current directory (the scripts run elsewhere), or
 * NULL when that cannot be found. The caller frees it. */
static char *absolute(const char *path)
{
    if (path[0] == '/')
        return cpn_strdup(path);
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd))
        return NULL;
    const char *p = path;
    while (p[0] == '.' && p[1] == '/')
        p += 2;
    return cpn_path_join(cwd, strcmp(p, ".") == 0 ? "" : p);
}

int sweep_emit(const struct sweep_spec *sp, struct sweep_inputs *in, int kind,
               const char *bin, const char *out, size_t *n_tasks, char **path, char *err,
               size_t errlen)
{
    int rc = cpn_mkdir_p(out, err, errlen);
    if (rc)
        return rc;
    char *abs_out = absolute(out), *abs_spec = absolute(sp->path);
    if (!abs_out || !abs_spec) {
        rc = cpn_fail(err, errlen, CPN_EIO, "cannot find the current directory: %s",
                      strerror(errno));
        free(abs_out);
        free(abs_spec);
        return rc;
    }
    /* Every command is one line of the script or the list: a line end in a path would
     * end it and start another command (one that the path spells out). */
    const char *named[] = {bin, abs_spec, abs_out};
    for (size_t i = 0; i < sizeof named / sizeof named[0]; i++)
        if (strpbrk(named[i], "\n\r")) {
            rc = cpn_fail(err, errlen, CPN_EINPUT,
                          "%s: a path with a line end cannot be written into %s", named[i],
                          kind == SWEEP_EMIT_SLURM ? "a Slurm script" : "a GNU Parallel list");
            free(abs_out);
            free(abs_spec);
            return rc;
        }
    /* Slurm reads #SBATCH lines as words, with % patterns: such paths cannot be said. */
    if (kind == SWEEP_EMIT_SLURM && strpbrk(abs_out, " \t\n%\"'\\")) {
        rc = cpn_fail(err, errlen, CPN_EINPUT,
                      "--out %s: Slurm's #SBATCH lines cannot name a path with blanks, quotes "
                      "or '%%'",
                      abs_out);
        free(abs_out);
        free(abs_spec);
        return rc;
    }
    size_t *todo = cpn_calloc(sp->n_points, sizeof *todo), n = 0;
    for (size_t i = 0; i < sp->n_points; i++) {
        char *name = sweep_point_name(sp, i);
        char *dir = sweep_run_dir(abs_out, name), why[CPN_ERR_LEN];
        if (sweep_run_state(sp, in, i, dir, why, sizeof why) != SWEEP_RUN_DONE)
            todo[n++] = i;
        free(dir);
        free(name);
    }
    /* A --time-limit given to this command goes on to every task. */
    char only[64] = " --only ", num[32];
    if (sp->time_limit_s > 0)
        snprintf(only, sizeof only, " --time-limit %s --only ", stats_fmt(sp->time_limit_s, num));
    struct emit_ctx e = {.bin = bin, .spec = abs_spec, .out = abs_out, .only = only, .todo = todo,
                         .n_todo = n, .n_points = sp->n_points, .kind = kind};
    *n_tasks = n;
    *path = NULL;
    if (n > 0) {
        const char *fname = kind == SWEEP_EMIT_SLURM ? "sweep.sbatch" : "parallel.txt";
        if (kind == SWEEP_EMIT_SLURM) {
            /* Slurm does not create the directory of --output. */
            char *sd = cpn_path_join(abs_out, "slurm");
            rc = cpn_mkdir_p(sd, err, errlen);
            free(sd);
        }
        char *p = cpn_path_join(abs_out, fname);
        struct afile af = {0};
        if (!rc)
            rc = afile_open(&af, abs_out, fname, err, errlen);
        if (!rc) {
            if (write_emit(af.f, &e) != 0) {
                afile_abort(&af);
                rc = cpn_fail(err, errlen, CPN_EIO, "%s: write failed", p);
            } else {
                rc = afile_commit(&af, err, errlen);
            }
        }
        if (!rc && kind == SWEEP_EMIT_SLURM)
            chmod(p, 0755);
        if (!rc)
            *path = p;
        else
            free(p);
    }
    free(todo);
    free(abs_out);
    free(abs_spec);
    return rc;
}
