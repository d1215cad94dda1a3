/* Tests of the job CSV read by two threads (sim/io/trace.c, "Two threads"): whatever the
 * split, the jobs, their pool, the digest and every message are those of one reader. */
#include "../sim/engine/catalog.h"
#include "../sim/io/trace.h"
#include "../sim/base/util.h"

#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define HEADER "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin"

static struct catalog *load_catalog(void)
{
    struct catalog *cat = NULL;
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(catalog_create(&cat, err, sizeof err), CPN_OK, "catalog_create: %s", err);
    return cat;
}

/* A growable text. */
struct text {
    char *s;
    size_t len, cap;
};

static void put(struct text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct text *t, const char *fmt, ...)
{
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
        va_end(ap);
        cr_assert_geq(n, 0);
        if ((size_t)n < t->cap - t->len) {
            t->len += (size_t)n;
            return;
        }
        t->cap = 2 * (t->cap + (size_t)n);
        t->s = realloc(t->s, t->cap);
        cr_assert_not_null(t->s);
    }
}

/* Writes the text to a temporary file whose name goes to path (PATH_MAX bytes). */
static void to_file(const struct text *t, char *path)
{
    strcpy(path, "/tmp/cpnsim_test_split_XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, t->s, t->len), (ssize_t)t->len);
    cr_assert_eq(close(fd), 0);
}

/* One read of path: its code, message, jobs and the way it went. */
struct got {
    int rc, how;
    char err[CPN_ERR_LEN];
    struct jobset js;
};

static void read_as(const char *path, const struct catalog *cat, int split, uint64_t at,
                    size_t chunk, struct got *g)
{
    jobset_init(&g->js);
    g->err[0] = '\0';
    struct trace_read_opts o = {.split = split, .split_at = at, .chunk_bytes = chunk};
    g->rc = trace_read_csv_opts(path, cat, &g->js, NULL, &o, g->err, sizeof g->err);
    g->how = o.how;
}

/* The two reads gave the same code, message, jobs (bytes of each, pool, pods) and
 * digest. */
static void assert_same(const struct got *a, const struct got *b, const char *what)
{
    cr_assert_eq(a->rc, b->rc, "%s: rc %d and %d (%s | %s)", what, a->rc, b->rc, a->err, b->err);
    cr_assert_str_eq(a->err, b->err, "%s", what);
    cr_assert_eq(a->js.n, b->js.n, "%s", what);
    if (a->js.n)
        cr_assert(memcmp(a->js.v, b->js.v, a->js.n * sizeof *a->js.v) == 0, "%s: jobs differ", what);
    cr_assert_eq(a->js.pool_len, b->js.pool_len, "%s", what);
    if (a->js.pool_len)
        cr_assert(memcmp(a->js.pool, b->js.pool, a->js.pool_len) == 0, "%s: pools differ", what);
    cr_assert_eq(a->js.pods != NULL, b->js.pods != NULL, "%s", what);
    if (a->js.pods)
        cr_assert(memcmp(a->js.pods, b->js.pods, a->js.n * sizeof *a->js.pods) == 0, "%s", what);
    cr_assert_str_eq(a->js.sha256, b->js.sha256, "%s", what);
}

/* Reads path with one thread, then split at each of `nsplits` places across it (read in
 * chunks of 1 KiB or 97 bytes, so that the header's chunk ends early), and checks each read against the first. Returns how many
 * reads kept the second thread's part (TRACE_READ_SPLIT). */
static int compare_splits(const char *path, size_t len, const struct catalog *cat, int nsplits,
                          const char **one_err)
{
    static struct got one;
    read_as(path, cat, TRACE_SPLIT_NEVER, 0, 0, &one);
    cr_assert_eq(one.how, TRACE_READ_ONE);
    if (one_err)
        *one_err = one.err;
    int kept = 0;
    for (int k = 1; k <= nsplits; k++) {
        struct got two;
        uint64_t at = (uint64_t)len * (uint64_t)k / (uint64_t)(nsplits + 1);
        read_as(path, cat, TRACE_SPLIT_ALWAYS, at, k % 3 == 0 ? 97 : 1024, &two);
        char what[64];
        snprintf(what, sizeof what, "split at %llu", (unsigned long long)at);
        assert_same(&one, &two, what);
        kept += two.how == TRACE_READ_SPLIT;
        jobset_free(&two.js);
    }
    jobset_free(&one.js);
    return kept;
}

/* A queue with the awkward parts of the format: optional columns, pods on some jobs,
 * origins that first appear late, CR LF line ends, blank lines, quoted cells (some over
 * two lines) and an ignored column. */
static void awkward_queue(struct text *t, int rows, bool pods)
{
    put(t, "\xEF\xBB\xBFx_note,%s,duration_s%s\r\n", HEADER, pods ? ",pods" : "");
    for (int i = 0; i < rows; i++) {
        const char *note = i % 50 == 7 ? "\"two\nlines\"" : i % 11 == 0 ? "\"a,b\"" : "n";
        int site = i < rows / 2 ? i % 3 : i % 3 + (i * 7) % 5;
        put(t, "%s,job%06d,%d.%d,%s,64,2,1.5,%d,4,24,5,\"s%d\",%s%s%s%s", note, i, i, i % 10,
            i % 5 == 0 ? "" : "resnet50", 1 + i % 4, site, i % 5 == 0 ? "100" : "",
            pods ? "," : "", pods ? (i % 13 == 0 ? "2" : "") : "", i % 4 == 0 ? "\n" : "\r\n");
        if (i % 97 == 0)
            put(t, "\n");
    }
}

Test(trace_split, same_jobs_as_one_reader)
{
    struct catalog *cat = load_catalog();
    for (int pods = 0; pods < 2; pods++) {
        struct text t = {0};
        awkward_queue(&t, 3000, pods);
        char path[64];
        to_file(&t, path);
        const char *err;
        int kept = compare_splits(path, t.len, cat, 23, &err);
        cr_assert_str_eq(err, "");
        /* Most splits fall between records (not inside a quoted note). */
        cr_assert_gt(kept, 12, "%d of 23 splits kept", kept);
        remove(path);
        free(t.s);
    }
    catalog_destroy(cat);
}

Test(trace_split, a_large_file_is_read_by_two_threads)
{
    /* Over 4 MiB: the plain read takes two threads, and a bad field in the second part
     * is reported with its line, as one thread reports it. */
    struct catalog *cat = load_catalog();
    struct text t = {0};
    put(&t, "%s\n", HEADER);
    const int rows = 100000;
    for (int i = 0; i < rows; i++)
        put(&t, "j%07d,%d.125,resnet50,64,3,2.5,1,4,24,5,site%d\n", i, i, i % 8);
    cr_assert_gt(t.len, (size_t)4 << 20);
    char path[64];
    to_file(&t, path);
    struct got one, two;
    read_as(path, cat, TRACE_SPLIT_NEVER, 0, 0, &one);
    read_as(path, cat, TRACE_SPLIT_AUTO, 0, 0, &two);
    cr_assert_eq(two.how, TRACE_READ_SPLIT);
    cr_assert_eq(one.js.n, (size_t)rows);
    assert_same(&one, &two, "good");
    jobset_free(&one.js);
    jobset_free(&two.js);
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN];
    cr_assert_eq(trace_read_csv(path, cat, &js, NULL, err, sizeof err), CPN_OK, "%s", err);
    cr_assert_eq(js.n, (size_t)rows);
    jobset_free(&js);

    /* Row 70000 (line 70002) gets a bad batch. */
    char *row = strstr(t.s, "\nj0070000,") + 1;
    char *batch = strstr(row, ",64,");
    memcpy(batch + 1, "6x", 2);
    to_file(&t, path);
    read_as(path, cat, TRACE_SPLIT_AUTO, 0, 0, &two);
    cr_assert_eq(two.how, TRACE_READ_SPLIT);
    cr_assert_eq(two.rc, CPN_EINPUT);
    char want[256];
    snprintf(want, sizeof want, "%s:70002: batch: '6x' is not a whole number >= 1", path);
    cr_assert_str_eq(two.err, want);
    read_as(path, cat, TRACE_SPLIT_NEVER, 0, 0, &one);
    assert_same(&one, &two, "bad batch");
    /* With a bad cell in the first part too, that one is the file's first. */
    row = strstr(t.s, "\nj0020000,") + 1;
    memcpy(strstr(row, ",64,") + 1, "6y", 2);
    to_file(&t, path);
    read_as(path, cat, TRACE_SPLIT_AUTO, 0, 0, &two);
    cr_assert_eq(two.how, TRACE_READ_SPLIT_ABANDONED);
    snprintf(want, sizeof want, "%s:20002: batch: '6y' is not a whole number >= 1", path);
    cr_assert_str_eq(two.err, want);
    cr_assert_eq(two.js.n, 0);
    remove(path);
    free(t.s);
    catalog_destroy(cat);
}

/* A queue of `rows` plain rows with ids in order; `edit` then changes some. */
static void plain_queue(struct text *t, int rows)
{
    t->len = 0;
    put(t, "%s\n", HEADER);
    for (int i = 0; i < rows; i++)
        put(t, "j%05d,%d,resnet50,64,1,1,1,4,24,5,s%d\n", i, i, i % 3);
}

/* The row of id j<i> (its first byte). */
static char *row_of(struct text *t, int i)
{
    char key[16];
    snprintf(key, sizeof key, "\nj%05d,", i);
    char *p = strstr(t->s, key);
    cr_assert_not_null(p, "no row %d", i);
    return p + 1;
}

Test(trace_split, errors_are_the_first_in_the_file)
{
    struct catalog *cat = load_catalog();
    const int rows = 2000;
    /* Each case changes rows of the plain queue (in place: the same length) and is read
     * split at 20 places; every read must give one reader's message. */
    static const struct {
        int row;
        const char *from, *to;
    } edits[][2] = {
        {{0, NULL, NULL}},                                        /* none */
        {{1500, "resnet50", "resnet5x"}},                         /* unknown model */
        {{1500, "j01500", "j00100"}},                             /* duplicate of part 1 */
        {{1500, "j01500", "j01400"}},                             /* duplicate in part 2 */
        {{1500, "j01500", "j01499"}},                             /* of the row before */
        {{1500, "j01500", "a0150"}},                              /* out of order, no dup */
        {{1500, "j01500", "a0150"}, {1700, "resnet50", "resnet5x"}}, /* ... then bad */
        {{1700, "j01700", "j01600"}, {1500, "resnet50", "resnet5x"}}, /* bad, then dup */
        {{300, "j00300", "a0030"}},                               /* part 1 out of order */
        {{300, "j00300", "a0030"}, {1500, "j01500", "a0030"}},    /* ... and its duplicate */
        {{1500, ",64,1,", ",64,1\n"}},                           /* a missing field */
        {{1500, ",64,", ",\"\","}},                              /* an empty quoted batch */
        {{1500, "resnet50", "\"resn\0"}},                        /* a NUL byte */
        {{1999, ",s", ",\""}},                                  /* an unterminated quote */
        {{1000, "j01000", "j01000,x"}},                           /* an extra field (longer) */
        {{200, "resnet50", "resnet5x"}, {1500, "resnet50", "resnet5y"}},
    };
    struct text t = {0};
    for (size_t e = 0; e < sizeof edits / sizeof *edits; e++) {
        plain_queue(&t, rows);
        for (int k = 0; k < 2 && edits[e][k].from; k++) {
            char *row = row_of(&t, edits[e][k].row);
            char *at = strstr(row, edits[e][k].from);
            cr_assert_not_null(at);
            size_t nf = strlen(edits[e][k].from), nt = strlen(edits[e][k].to);
            if (strcmp(edits[e][k].to, "\"resn") == 0)
                nt = 6; /* the NUL byte too */
            memmove(at + nt, at + nf, t.len - (size_t)(at - t.s) - nf + 1);
            memcpy(at, edits[e][k].to, nt);
            t.len = t.len - nf + nt;
        }
        char path[64];
        to_file(&t, path);
        const char *err;
        compare_splits(path, t.len, cat, 20, &err);
        /* Ids out of order repeating none are no error. */
        bool good = e == 0 || e == 5 || e == 8;
        cr_assert_eq(err[0] == '\0', good, "case %zu: '%s'", e, err);
        remove(path);
    }
    free(t.s);
    catalog_destroy(cat);
}

Test(trace_split, the_split_lines_are_right)
{
    /* Every row of the second part fails where one reader says, CR LF line ends and
     * quoted line ends before it included: the second thread counts them. */
    struct catalog *cat = load_catalog();
    struct text t = {0};
    put(&t, "%s,x_n\r\n", HEADER);
    for (int i = 0; i < 400; i++)
        put(&t, "j%05d,%d,resnet50,64,1,1,1,4,24,5,s,%s\r\n", i, i, i % 9 ? "" : "\"a\r\nb\rc\"");
    put(&t, "j99999,1,resnet50,64,1,1,1,4,24,5,s,\"\n\nx\",extra\r\n");
    char path[64];
    to_file(&t, path);
    const char *err;
    int kept = compare_splits(path, t.len, cat, 30, &err);
    cr_assert_gt(kept, 20);
    char want[256];
    /* Line 2 + 400 rows + 2 line ends in each of 45 notes, and 2 in the last row's. */
    snprintf(want, sizeof want,
             "%s:494: field 13: extra field (the row has 13 fields, the header 12)", path);
    cr_assert_str_eq(err, want);
    remove(path);
    free(t.s);
    catalog_destroy(cat);
}

Test(trace_split, a_quoted_field_across_the_split)
{
    /* A split inside a quoted field: the first thread reads the second part again. */
    struct catalog *cat = load_catalog();
    struct text t = {0};
    put(&t, "x_n,%s\n", HEADER);
    for (int i = 0; i < 100; i++)
        put(&t, "%s,j%05d,%d,resnet50,64,1,1,1,4,24,5,s\n", i == 50 ? "\"1\n2\n3\n4\n5\"" : "",
            i, i);
    char path[64];
    to_file(&t, path);
    struct got one, two;
    read_as(path, cat, TRACE_SPLIT_NEVER, 0, 0, &one);
    uint64_t at = (uint64_t)(strstr(t.s, "\"1\n2") - t.s) + 3;
    read_as(path, cat, TRACE_SPLIT_ALWAYS, at, 64, &two);
    cr_assert_eq(two.how, TRACE_READ_SPLIT_REDONE);
    assert_same(&one, &two, "quoted");
    cr_assert_eq(two.js.n, 100);
    jobset_free(&one.js);
    jobset_free(&two.js);
    remove(path);
    free(t.s);
    catalog_destroy(cat);
}

Test(trace_split, a_signal_stops_a_split_read)
{
    struct catalog *cat = load_catalog();
    struct text t = {0};
    plain_queue(&t, 3000);
    char path[64];
    to_file(&t, path);
    volatile sig_atomic_t stop = SIGINT;
    struct jobset js;
    jobset_init(&js);
    struct trace_read_opts o = {.split = TRACE_SPLIT_ALWAYS, .split_at = 100};
    char err[CPN_ERR_LEN], want[128];
    cr_assert_eq(trace_read_csv_opts(path, cat, &js, &stop, &o, err, sizeof err), CPN_ESTOP);
    snprintf(want, sizeof want, "%s: stopped by signal 2 while reading it", path);
    cr_assert_str_eq(err, want);
    cr_assert_eq(js.n, 0);
    stop = 0;
    cr_assert_eq(trace_read_csv_opts(path, cat, &js, &stop, &o, err, sizeof err), CPN_OK);
    cr_assert_eq(o.how, TRACE_READ_SPLIT);
    cr_assert_eq(js.n, 3000);
    jobset_free(&js);
    remove(path);
    free(t.s);
    catalog_destroy(cat);
}
