/* The bad-inputs catalogue (tests/bad/, docs/reliability.md). Each file under
 * tests/bad/READER/ is an input that READER must refuse, and NAME.expect beside it (NAME
 * without its extension) holds the message it must produce: each non-empty line must
 * appear in standard error, with {file} standing for the input's path; most name file,
 * line and field. An optional NAME.args adds arguments to the command. Every case runs
 * the real command line (CPNSIM, default ./cpnsim) in a process of its own and must exit
 * with status 2, print no internal error, and create no file at all in the output
 * directory: no summary.json, no partial output, no temporary left behind. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../sim/base/util.h"
#include "helpers.h"

#define BAD_ROOT "tests/bad"
/* At least this many cases in all, and this many per reader. */
#define BAD_MIN_CASES 40
#define BAD_MIN_PER_READER 3

/* A reader: its directory under tests/bad and the command that feeds it a file.
 * {file} is the input, {out} an empty directory that must stay empty. */
static const struct bad_reader {
    const char *dir;
    const char *cmd;
} bad_readers[] = {
    {"cluster", "run --quiet --cluster {file} --out {out}"},
    {"jobs-csv", "run --quiet --jobs {file} --out {out}"},
    {"jobs-json", "run --quiet --jobs {file} --out {out}"},
    {"k8s", "run --quiet --jobs {file} --out {out}"},
    {"sweep", "sweep {file} --out {out}"},
    {"import-philly", "import philly {file} -o {out}/converted.csv"},
    {"import-openb", "import openb {file} -o {out}/converted.csv"},
    {"import-gavel", "import gavel {file} -o {out}/converted.csv"},
    {"import-philly-machines", "import philly-machines {file} -o {out}/converted.json"},
    {"import-openb-nodes", "import openb-nodes {file} -o {out}/converted.json"},
    {"import-pai-machines", "import pai-machines {file} -o {out}/converted.json"},
};
#define N_READERS (sizeof bad_readers / sizeof bad_readers[0])

struct bad_case {
    unsigned reader; /* index into bad_readers */
    char name[128];  /* file name within the reader's directory */
};

static const char *bin(void)
{
    const char *b = getenv("CPNSIM");
    return b ? b : "./cpnsim";
}

/* Sidecars and notes are not inputs. */
static bool is_input(const char *name)
{
    size_t n = strlen(name);
    if (name[0] == '.' || strcmp(name, "README.md") == 0)
        return false;
    return !(n > 7 && strcmp(name + n - 7, ".expect") == 0) &&
           !(n > 5 && strcmp(name + n - 5, ".args") == 0);
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The inputs of one reader, sorted; returns how many, names in *out (caller frees). */
static size_t list_inputs(const char *dir, char ***out)
{
    char path[256];
    snprintf(path, sizeof path, BAD_ROOT "/%s", dir);
    char **v = NULL;
    size_t n = 0, cap = 0;
    DIR *d = opendir(path);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (!is_input(e->d_name))
                continue;
            cpn_grow((void **)&v, &cap, n + 1, sizeof *v);
            v[n++] = cpn_strdup(e->d_name);
        }
        closedir(d);
    }
    if (n)
        qsort(v, n, sizeof *v, cmp_name);
    *out = v;
    return n;
}

static void free_list(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void free_cases(struct criterion_test_params *p) { cr_free(p->params); }

ParameterizedTestParameters(bad, input)
{
    /* No cr_assert here: the generator runs in Criterion's runner, not in a test. */
    char **names[N_READERS];
    size_t k[N_READERS], n = 0;
    for (unsigned r = 0; r < N_READERS; r++)
        n += k[r] = list_inputs(bad_readers[r].dir, &names[r]);
    struct bad_case *cases = cr_malloc((n ? n : 1) * sizeof *cases);
    if (!cases)
        abort();
    size_t at = 0;
    for (unsigned r = 0; r < N_READERS; r++) {
        for (size_t i = 0; i < k[r]; i++) {
            cases[at] = (struct bad_case){.reader = r};
            snprintf(cases[at].name, sizeof cases[at].name, "%s", names[r][i]);
            at++;
        }
        free_list(names[r], k[r]);
    }
    return cr_make_param_array(struct bad_case, cases, n, free_cases);
}

/* Path of a sidecar: the input's path without its extension, then suffix. */
static void sidecar(const char *input, const char *suffix, char *out, size_t len)
{
    snprintf(out, len, "%s", input);
    char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    if (dot && (!slash || dot > slash))
        *dot = '\0';
    size_t n = strlen(out);
    snprintf(out + n, len - n, "%s", suffix);
}

/* Copies s into out with each {key} replaced by its value. */
static void expand(const char *s, const char *file, const char *outdir, char *out, size_t len)
{
    size_t n = 0;
    while (*s && n + 1 < len) {
        const char *v = NULL;
        if (strncmp(s, "{file}", 6) == 0)
            v = file;
        else if (strncmp(s, "{out}", 5) == 0)
            v = outdir;
        if (v) {
            n += (size_t)snprintf(out + n, len - n, "%s", v);
            s += strncmp(s, "{file}", 6) == 0 ? 6 : 5;
        } else {
            out[n++] = *s++;
        }
    }
    out[n < len ? n : len - 1] = '\0';
}

ParameterizedTest(struct bad_case *c, bad, input, .timeout = 60)
{
    const struct bad_reader *r = &bad_readers[c->reader];
    char file[512], expect_path[512], args_path[512], scratch[] = "/tmp/cpn_bad_XXXXXX";
    snprintf(file, sizeof file, BAD_ROOT "/%s/%s", r->dir, c->name);
    sidecar(file, ".expect", expect_path, sizeof expect_path);
    sidecar(file, ".args", args_path, sizeof args_path);
    char *expect = slurp(expect_path);
    cr_assert_not_null(expect, "%s: no %s", file, expect_path);
    char *args = slurp(args_path); /* optional */
    if (args)
        args[strcspn(args, "\n")] = '\0';

    cr_assert_not_null(mkdtemp(scratch));
    char outdir[600], cmd[2048], full[4096];
    snprintf(outdir, sizeof outdir, "%s/out", scratch);
    cr_assert_eq(sh("mkdir -p %s", outdir), 0);
    expand(r->cmd, file, outdir, cmd, sizeof cmd);
    snprintf(full, sizeof full, "%s %s %s >%s/stdout 2>%s/stderr", bin(), cmd, args ? args : "",
             scratch, scratch);
    int status = sh("%s", full);

    char errpath[700];
    snprintf(errpath, sizeof errpath, "%s/stderr", scratch);
    char *err = slurp(errpath);
    cr_assert_not_null(err);
    cr_expect_eq(status, 2, "%s: exit status %d (want 2); stderr:\n%s", file, status, err);
    cr_expect_null(strstr(err, "internal error"), "%s: %s", file, err);
    cr_expect_null(strstr(err, "Sanitizer"), "%s: %s", file, err);
    for (char *line = strtok(expect, "\n"); line; line = strtok(NULL, "\n")) {
        char want[1024];
        expand(line, file, outdir, want, sizeof want);
        cr_expect_not_null(strstr(err, want), "%s: stderr lacks \"%s\"; it was:\n%s", file, want,
                           err);
    }
    cr_expect_eq(sh("test -z \"$(find %s -type f)\"", outdir), 0,
                 "%s: files were left in the output directory: %s", file, outdir);
    sh("rm -rf %s", scratch);
    free(err);
    free(args);
    free(expect);
}

/* The catalogue itself: enough cases, every reader covered, every input with its
 * message and every message with its input. */
Test(bad, catalogue_is_complete)
{
    size_t total = 0;
    for (unsigned r = 0; r < N_READERS; r++) {
        char **names;
        size_t k = list_inputs(bad_readers[r].dir, &names);
        cr_expect_geq(k, BAD_MIN_PER_READER, "%s: %zu cases, want at least %d",
                      bad_readers[r].dir, k, BAD_MIN_PER_READER);
        for (size_t i = 0; i < k; i++) {
            char file[512], expect[512];
            snprintf(file, sizeof file, BAD_ROOT "/%s/%s", bad_readers[r].dir, names[i]);
            sidecar(file, ".expect", expect, sizeof expect);
            cr_expect_eq(access(expect, R_OK), 0, "%s has no %s", file, expect);
        }
        total += k;
        free_list(names, k);
        /* Each sidecar belongs to exactly one input. */
        cr_expect_eq(sh("cd " BAD_ROOT "/%s && for e in *.expect *.args; do [ -e \"$e\" ] || "
                        "continue; b=${e%%.*}; n=$(ls \"$b\".* | grep -cv '\\.expect$\\|\\.args$'); "
                        "[ \"$n\" -eq 1 ] || { echo \"$e: $n inputs\" >&2; exit 1; }; done",
                        bad_readers[r].dir),
                     0, "%s: a sidecar without exactly one input", bad_readers[r].dir);
    }
    cr_expect_geq(total, BAD_MIN_CASES, "%zu cases, want at least %d", total, BAD_MIN_CASES);
}
