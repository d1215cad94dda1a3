/* trace: the job queue and its CSV form.
 *
 * The reader streams. The input is read in fixed-size chunks and fed to the CSV row
 * reader (sim/base/csvrow.c), which keeps only the record being read, so memory
 * grows with the jobs kept, not with the file. A message names the line on which the
 * offending field begins. A large regular file is read by two threads, each parsing
 * one part of it ("Two threads" below), with the result and messages of one.
 *
 * Each record's cells go as text to the job schema (sim/io/jobin.c), which checks
 * them in the header's column order, so the CSV, JSON and YAML readers and the
 * importers apply one set of rules. The first error stops the parse. Jobs are built
 * in a private set that is freed on failure, so the caller's set changes only on
 * success.
 *
 * The writer formats one row at a time into a reusable buffer and hands it to a sink:
 * a FILE for trace_write_csv, a SHA-256 context for trace_csv_sha256. Both therefore
 * see the same bytes, and a queue's digest equals that of the file it would be written
 * to. */
#include "trace.h"

#include "../engine/catalog.h"
#include "jobin.h"
#include "../base/csvrow.h"
#include "../base/util.h"

#include <csv.h>
#include <errno.h>
#include <stdatomic.h>
#include <unistd.h>
#include <inttypes.h>
#include <math.h>
#include <nettle/sha2.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Reader and writer tunables. */
enum {
    TRACE_CHUNK_BYTES = 64 * 1024, /* bytes read and parsed at a time */
    TRACE_SPLIT_MIN = 4 << 20,     /* a file from this size on is read by two threads */
    TRACE_SPLIT_MAX = 1 << 30,     /* and below this one (no part nears a 32-bit limit) */
    TRACE_RESERVE_MAX = 1 << 28,   /* no reservation above this many jobs: let it grow */
    TRACE_WHOLE_BUF = 24,          /* room for any uint64_t in decimal */
    TRACE_LABEL_BUF = 32,          /* room for "field N" and "column N" */
};

/* The header's marker for an x_* column, which is skipped. */
enum { TRACE_COL_IGNORED = -1 };

/* The part of the file the first thread reads: the file's bytes before the second
 * part, which is split at the first line end from this fraction of its size on. The
 * first thread also takes the digest of the whole file (about a tenth of the time a
 * byte takes to be parsed), so it takes less than half of the rows. */
#define TRACE_SPLIT_FRACTION 0.46

/* ------------------------------------------------------------------------- */
/* The reader. */

struct rd {
    const char *name;
    char *err;
    size_t errlen;
    int rc; /* the first error */
    struct csvrow_reader csv;

    /* The header. */
    bool have_header;
    size_t ncols;
    int *col_of; /* per header column: its enum jobin_field, or TRACE_COL_IGNORED */
    int *order;  /* the fields of the columns not ignored, in header order */
    size_t norder;
    char **hdr;  /* the header's names */
    /* The row handed to the job schema: the header sets each column's kind once
     * (fields without a column stay absent); each record sets texts and lines. */
    struct jobin_row row;

    struct jobin *b; /* the jobs read so far */
    size_t est_jobs; /* reserve_for's estimate of the file's jobs, 0 when it made none */
};

/* Writes "name:line: column: message" as the error. Returns CPN_EINPUT. */
static int rd_fail(struct rd *r, uint64_t line, const char *column, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int rd_fail(struct rd *r, uint64_t line, const char *column, const char *fmt, ...)
{
    char msg[CPN_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->rc = cpn_fail(r->err, r->errlen, CPN_EINPUT, "%s:%" PRIu64 ": %s: %s", r->name, line,
                     column, msg);
    return r->rc;
}

/* The label of field k of a record in messages: its header name, "header" while the
 * header is being read, or "field N" past the header's columns. */
static const char *rd_label(const struct rd *r, size_t k, char *tmp, size_t tmplen)
{
    if (!r->have_header)
        return "header";
    if (k < r->ncols)
        return r->hdr[k];
    snprintf(tmp, tmplen, "field %zu", k + 1);
    return tmp;
}

static int rd_header(struct rd *r, const struct csvrow *row)
{
    size_t at[JOBIN_NFIELDS];
    for (size_t c = 0; c < JOBIN_NFIELDS; c++)
        at[c] = SIZE_MAX;
    r->ncols = row->n;
    r->col_of = cpn_malloc(r->ncols * sizeof *r->col_of);
    r->order = cpn_malloc(r->ncols * sizeof *r->order);
    r->hdr = cpn_malloc(r->ncols * sizeof *r->hdr);
    for (size_t k = 0; k < r->ncols; k++)
        r->hdr[k] = cpn_strdup(row->f[k]);
    r->have_header = true;

    for (size_t k = 0; k < r->ncols; k++) {
        const char *name = row->f[k];
        if (!*name) {
            char tmp[TRACE_LABEL_BUF];
            snprintf(tmp, sizeof tmp, "column %zu", k + 1);
            return rd_fail(r, row->line[k], tmp, "empty column name");
        }
        if (strncmp(name, "x_", 2) == 0) {
            r->col_of[k] = TRACE_COL_IGNORED;
            continue;
        }
        int c = jobin_field_find(name);
        if (c < 0)
            return rd_fail(r, row->line[k], name,
                           "unknown column (prefix it with x_ to have it ignored)");
        if (at[c] != SIZE_MAX)
            return rd_fail(r, row->line[k], name, "duplicate column (also column %zu)",
                           at[c] + 1);
        at[c] = k;
        r->col_of[k] = c;
        r->order[r->norder++] = c;
        r->row.f[c].kind = JOBIN_TEXT;
    }
    for (int c = 0; c < JOBIN_NFIELDS; c++)
        if (jobin_field_required(c) && at[c] == SIZE_MAX)
            return rd_fail(r, row->line[0], jobin_field_name(c), "missing required column");
    return CPN_OK;
}

/* The header, then one job per record. */
static int rd_on_row(void *ctx, const struct csvrow *row)
{
    struct rd *r = ctx;
    if (!r->have_header)
        return rd_header(r, row);
    char tmp[TRACE_LABEL_BUF];
    if (row->n < r->ncols)
        return rd_fail(r, row->line[row->n - 1], rd_label(r, row->n, tmp, sizeof tmp),
                       "missing (the row has %zu fields, the header %zu)", row->n, r->ncols);
    if (row->n > r->ncols)
        return rd_fail(r, row->line[r->ncols], rd_label(r, r->ncols, tmp, sizeof tmp),
                       "extra field (the row has %zu fields, the header %zu)", row->n, r->ncols);
    /* Every cell is text, checked by the job schema in the header's column order. */
    r->row.line = row->line[0];
    for (size_t k = 0; k < r->ncols; k++) {
        int c = r->col_of[k];
        if (c != TRACE_COL_IGNORED) {
            r->row.f[c].text = row->f[k];
            r->row.f[c].line = row->line[k];
        }
    }
    r->rc = jobin_add_in(r->b, &r->row, r->order, r->norder, r->err, r->errlen);
    return r->rc;
}

static void rd_begin(struct rd *r, const char *name, const struct catalog *cat, char *err,
                     size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->name = name;
    r->err = err;
    r->errlen = errlen;
    r->b = jobin_create(name, cat);
    /* Nothing is trimmed: blanks around a number are an error. */
    csvrow_init(&r->csv, CSVROW_NUL | CSVROW_BOM, rd_on_row, r);
}

/* Words a syntax error of the CSV row reader. */
static void rd_syntax(struct rd *r)
{
    char tmp[TRACE_LABEL_BUF];
    uint64_t line = csvrow_line(&r->csv);
    const char *label = rd_label(r, csvrow_field_index(&r->csv), tmp, sizeof tmp);
    switch (csvrow_syntax(&r->csv)) {
    case CSVROW_NUL_BYTE: rd_fail(r, line, label, "contains a NUL byte"); break;
    case CSVROW_TOO_LONG:
        rd_fail(r, line, label, "a field over %zu bytes or a row over %zu (not a job file?)",
                CSVROW_FIELD_MAX, CSVROW_RECORD_MAX);
        break;
    case CSVROW_BAD_QUOTING:
        rd_fail(r, line, label,
                "bad quoting (a quote inside an unquoted field, or text after a closing "
                "quote)");
        break;
    case CSVROW_UNTERMINATED:
        rd_fail(r, line, label, "unterminated quoted field (its closing quote is missing)");
        break;
    default: rd_fail(r, line, label, "%s", csvrow_strerror(&r->csv)); break;
    }
}

static void rd_feed(struct rd *r, const char *p, size_t n)
{
    if (!r->rc && csvrow_feed(&r->csv, p, n) && !r->rc)
        rd_syntax(r);
}

/* Finishes the parse, frees the reader and, on success, moves the jobs into out. */
static int rd_end(struct rd *r, const char sha256[65], struct jobset *out)
{
    if (!r->rc && csvrow_finish(&r->csv) && !r->rc)
        rd_syntax(r);
    if (!r->rc && !r->have_header)
        r->rc = cpn_fail(r->err, r->errlen, CPN_EINPUT, "%s: empty file (no header)", r->name);
    csvrow_free(&r->csv);
    for (size_t k = 0; r->hdr && k < r->ncols; k++)
        free(r->hdr[k]);
    free(r->hdr);
    free(r->col_of);
    free(r->order);
    if (r->rc) {
        jobin_destroy(r->b);
        return r->rc;
    }
    return jobin_finish(r->b, sha256, out, r->err, r->errlen);
}

/* Sizes the job array and string pool for a regular file from its first chunk: its
 * lines per byte times the file's size (a little over, so that the arrays are not
 * copied as they double; pages never touched cost no memory). */
static void reserve_for(struct rd *r, FILE *f, const char *chunk, size_t got)
{
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size <= got)
        return;
    size_t lines = 0, id_bytes = 0;
    for (const char *p = chunk, *end = chunk + got; (p = memchr(p, '\n', (size_t)(end - p)));) {
        lines++;
        const char *next = ++p;
        const char *comma = memchr(next, ',', (size_t)(end - next));
        id_bytes += comma ? (size_t)(comma - next) + 1 : 0;
    }
    if (lines < 2)
        return;
    double scale = (double)st.st_size / (double)got * 1.05;
    if (scale * (double)lines > (double)TRACE_RESERVE_MAX)
        return;
    r->est_jobs = (size_t)(scale * (double)lines) + 16;
    jobin_reserve(r->b, r->est_jobs, (size_t)(scale * (double)id_bytes) + 64);
}

/* ------------------------------------------------------------------------- */
/* Two threads. A large regular file is split at a line end: the caller's thread parses
 * the first part and takes the digest of all the bytes, while a second thread counts the
 * line ends before the split (the lines its messages name) and parses the rest with a
 * part of the job builder (jobin_part_create), whose jobs go straight into the job array
 * after the first part's. When the first part ends between records and the two parts'
 * ids are in order (jobin_part_fits), the parts join, or the second part's error is the
 * file's first; else (a quoted field across the split, ids out of order: no row of the
 * second part can be known to be no duplicate) the first thread reads the second part
 * again itself, so that every message and every job is the one a single reader gives. */

/* The second part and its thread's result. */
struct part {
    int fd;
    uint64_t split;       /* where it begins, just after a line end */
    size_t chunk;
    struct rd r;          /* its reader; the header's tables are the first part's */
    atomic_bool *abandon; /* set by the first thread: stop, the result is not wanted */
    int rc;               /* r.rc, or TRACE_PART_REDO */
    char err[CPN_ERR_LEN];
    struct cpn_thread *thread;
};

/* The second thread could not read its part (a read error, no room in the array): the
 * first thread reads it again, and meets the same error if there is one. */
enum { TRACE_PART_REDO = 2 };

/* Line ends as the CSV row reader counts them (CR LF, CR and LF once each) in n bytes,
 * *cr saying whether the byte before them was a CR. */
static uint64_t count_line_ends(const char *p, size_t n, bool *cr)
{
    uint64_t c = 0;
    if (!*cr && !memchr(p, '\r', n)) { /* memchr from line to line: a few ns a line */
        for (const char *e = p + n; (p = memchr(p, '\n', (size_t)(e - p))) != NULL; p++)
            c++;
        return c;
    }
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '\r')
            c++;
        else if (p[i] == '\n' && !*cr)
            c++;
        *cr = p[i] == '\r';
    }
    return c;
}

static int part_run(void *arg)
{
    struct part *pt = arg;
    struct rd *r = &pt->r;
    char *buf = cpn_malloc(pt->chunk);
    uint64_t lines = 0;
    bool cr = false;
    pt->rc = TRACE_PART_REDO;
    for (uint64_t off = 0; off < pt->split;) {
        size_t want = (size_t)(pt->split - off < pt->chunk ? pt->split - off : pt->chunk);
        ssize_t got = pread(pt->fd, buf, want, (off_t)off);
        if (got <= 0 || atomic_load(pt->abandon))
            goto out;
        lines += count_line_ends(buf, (size_t)got, &cr);
        off += (uint64_t)got;
    }
    /* Each record before the split ends on a line end of its own, the header's too: its
     * jobs are fewer than the line ends. */
    if (lines == 0 || !jobin_part_place(r->b, lines - 1))
        goto out;
    csvrow_start_at(&r->csv, lines + 1);
    for (uint64_t off = pt->split; !r->rc;) {
        if (atomic_load(pt->abandon))
            goto out;
        ssize_t got = pread(pt->fd, buf, pt->chunk, (off_t)off);
        if (got < 0)
            goto out;
        if (got == 0)
            break;
        rd_feed(r, buf, (size_t)got);
        off += (uint64_t)got;
    }
    if (!r->rc && csvrow_finish(&r->csv) && !r->rc)
        rd_syntax(r);
    pt->rc = r->rc;
out:
    free(buf);
    return 0;
}

/* Starts the second part at the first line end from `at` on (at least where the first
 * thread is, `pos`), when the file is one to split: returns NULL when it is not, or when
 * no thread could start. */
static struct part *part_start(struct rd *r, FILE *f, const struct trace_read_opts *o,
                               uint64_t pos, atomic_bool *abandon)
{
    struct stat st;
    int fd = fileno(f);
    if (o->split == TRACE_SPLIT_NEVER || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size >= TRACE_SPLIT_MAX ||
        (o->split == TRACE_SPLIT_AUTO && st.st_size < TRACE_SPLIT_MIN))
        return NULL;
    uint64_t size = (uint64_t)st.st_size;
    uint64_t at = o->split_at ? o->split_at : (uint64_t)((double)size * TRACE_SPLIT_FRACTION);
    if (at < pos)
        at = pos;
    char probe[4096];
    ssize_t got = at < size ? pread(fd, probe, sizeof probe, (off_t)at) : 0;
    const char *nl = got > 0 ? memchr(probe, '\n', (size_t)got) : NULL;
    if (!nl || at + (uint64_t)(nl - probe) + 1 >= size)
        return NULL;
    /* Room for every job, reserved now (a quarter more than the estimate; pages never
     * touched cost nothing): the second part writes into the array. */
    size_t jobs = r->est_jobs ? r->est_jobs + r->est_jobs / 4 : (size_t)(size / 8) + 16;
    jobin_reserve(r->b, jobs, 0);
    struct part *pt = cpn_calloc(1, sizeof *pt);
    pt->fd = fd;
    pt->split = at + (uint64_t)(nl - probe) + 1;
    pt->chunk = o->chunk_bytes ? o->chunk_bytes : TRACE_CHUNK_BYTES;
    pt->abandon = abandon;
    /* The second part's reader: no byte-order mark, the first part's header. */
    struct rd *q = &pt->r;
    q->name = r->name;
    q->err = pt->err;
    q->errlen = sizeof pt->err;
    q->b = jobin_part_create(r->b);
    csvrow_init(&q->csv, CSVROW_NUL, rd_on_row, q);
    q->have_header = true;
    q->ncols = r->ncols;
    q->col_of = r->col_of;
    q->order = r->order;
    q->norder = r->norder;
    q->hdr = r->hdr;
    q->row = r->row;
    pt->thread = cpn_thread_start(part_run, pt);
    if (!pt->thread) {
        jobin_destroy(q->b);
        csvrow_free(&q->csv);
        free(pt);
        return NULL;
    }
    return pt;
}

/* Waits for the second part and frees it, its jobs joined to r's or not. */
static void part_end(struct part *pt)
{
    if (pt->thread)
        cpn_thread_join(pt->thread);
    jobin_destroy(pt->r.b);
    csvrow_free(&pt->r.csv);
    free(pt);
}

int trace_read_csv(const char *path, const struct catalog *cat, struct jobset *out,
                   const volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    return trace_read_csv_opts(path, cat, out, stop, NULL, err, errlen);
}

/* Reads f into the reader from where it is to `end` (or its end), in chunks, feeding the
 * parse (when parse) and the digest (when sha). Returns false on a read error (errno in
 * *read_errno), or with r->rc set (a parse error, or a signal: CPN_ESTOP). */
static bool read_span(struct rd *r, FILE *f, char *chunk, size_t chunk_bytes, uint64_t *pos,
                      uint64_t end, bool parse, struct sha256_ctx *sha,
                      const volatile sig_atomic_t *stop, int *read_errno)
{
    while (!r->rc && *pos < end) {
        if (stop && *stop) { /* a chunk is a millisecond: 2 GiB of CSV is half a minute */
            r->rc = cpn_fail(r->err, r->errlen, CPN_ESTOP,
                             "%s: stopped by signal %d while reading it", r->name, (int)*stop);
            break;
        }
        size_t want = end - *pos < chunk_bytes ? (size_t)(end - *pos) : chunk_bytes;
        errno = 0;
        size_t got = fread(chunk, 1, want, f);
        if (got == 0) {
            *read_errno = errno;
            return !ferror(f);
        }
        if (sha)
            sha256_update(sha, got, (const uint8_t *)chunk);
        if (*pos == 0 && parse)
            reserve_for(r, f, chunk, got);
        if (parse)
            rd_feed(r, chunk, got);
        *pos += got;
    }
    return true;
}

int trace_read_csv_opts(const char *path, const struct catalog *cat, struct jobset *out,
                        const volatile sig_atomic_t *stop, struct trace_read_opts *o,
                        char *err, size_t errlen)
{
    struct trace_read_opts dflt = {0};
    if (!o)
        o = &dflt;
    o->how = TRACE_READ_ONE;
    FILE *f = fopen(path, "rb");
    if (!f)
        return cpn_fail(err, errlen, CPN_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    struct rd r;
    rd_begin(&r, path, cat, err, errlen);
    struct sha256_ctx sha;
    sha256_init(&sha);
    size_t chunk_bytes = o->chunk_bytes ? o->chunk_bytes : TRACE_CHUNK_BYTES;
    char *chunk = cpn_malloc(chunk_bytes);
    int read_errno = 0;
    bool read_ok = true;
    uint64_t pos = 0;
    struct part *pt = NULL;
    atomic_bool abandon;
    atomic_init(&abandon, false);
    /* The header, chunk by chunk, then the second part's thread if the file is one to
     * split, then the first part. */
    while (read_ok && !r.rc && !r.have_header) {
        uint64_t was = pos;
        read_ok = read_span(&r, f, chunk, chunk_bytes, &pos, pos + chunk_bytes, true, &sha, stop,
                            &read_errno);
        if (pos == was)
            break;
    }
    if (read_ok && !r.rc && r.have_header)
        pt = part_start(&r, f, o, pos, &abandon);
    uint64_t split = pt ? pt->split : UINT64_MAX;
    if (read_ok && !r.rc)
        read_ok = read_span(&r, f, chunk, chunk_bytes, &pos, split, true, &sha, stop, &read_errno);
    if (pt) {
        /* The digest of the second part's bytes while its thread parses them. */
        bool first_ok = read_ok && !r.rc && pos == split;
        if (first_ok)
            read_ok = read_span(&r, f, chunk, chunk_bytes, &pos, UINT64_MAX, false, &sha, stop,
                                &read_errno);
        if (!first_ok || r.rc)
            atomic_store(&abandon, true);
        cpn_thread_join(pt->thread);
        pt->thread = NULL;
        if (!first_ok || r.rc) {
            o->how = TRACE_READ_SPLIT_ABANDONED;
        } else if ((pt->rc == CPN_OK || pt->rc == CPN_EINPUT) &&
                   csvrow_between_records(&r.csv) && jobin_part_fits(r.b, pt->r.b)) {
            o->how = TRACE_READ_SPLIT;
            if (pt->rc == CPN_OK) {
                jobin_part_append(r.b, pt->r.b);
                pt->r.b = NULL;
            } else {
                r.rc = cpn_fail(err, errlen, CPN_EINPUT, "%s", pt->err);
            }
            /* A read error while taking the digest is the file's first error only when
             * the second part has none. */
            if (!read_ok && r.rc)
                read_ok = true;
        } else if (read_ok) {
            /* The first thread reads the second part itself, as if there had been no
             * split; the digest is already taken. */
            o->how = TRACE_READ_SPLIT_REDONE;
            read_ok = fseeko(f, (off_t)split, SEEK_SET) == 0;
            read_errno = read_ok ? 0 : errno;
            pos = split;
            if (read_ok)
                read_ok = read_span(&r, f, chunk, chunk_bytes, &pos, UINT64_MAX, true, NULL,
                                    stop, &read_errno);
        } /* else the digest's read error, which the second part's bytes also hold */
        part_end(pt);
    }
    if (!r.rc && !read_ok)
        r.rc = cpn_fail(err, errlen, CPN_EINPUT, "%s: read error: %s", path,
                        read_errno ? strerror(read_errno) : "unknown");
    fclose(f);
    free(chunk);
    char hex[65] = "";
    if (!r.rc)
        cpn_sha256_digest_hex(&sha, hex);
    return rd_end(&r, hex, out);
}

int trace_read_csv_buf(const char *name, const char *buf, size_t len, const struct catalog *cat,
                       struct jobset *out, char *err, size_t errlen)
{
    struct rd r;
    rd_begin(&r, name, cat, err, errlen);
    rd_feed(&r, buf, len);
    char hex[65];
    cpn_sha256_hex(buf, len, hex);
    return rd_end(&r, hex, out);
}

/* ------------------------------------------------------------------------- */
/* The writer. */

/* A growable line buffer. */
struct sbuf {
    char *s;
    size_t len, cap;
};

static void sb_put(struct sbuf *b, const char *s, size_t n)
{
    cpn_grow((void **)&b->s, &b->cap, b->len + n + 1, 1);
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
}

static void sb_puts(struct sbuf *b, const char *s) { sb_put(b, s, strlen(s)); }

/* A text cell, quoted by libcsv only when it holds a comma, a quote or a line end. */
static void sb_text(struct sbuf *b, const char *s)
{
    size_t n = strlen(s);
    if (!strpbrk(s, ",\"\r\n")) {
        sb_put(b, s, n);
        return;
    }
    size_t need = csv_write(NULL, 0, s, n);
    cpn_grow((void **)&b->s, &b->cap, b->len + need + 1, 1);
    b->len += csv_write(b->s + b->len, need, s, n);
    b->s[b->len] = '\0';
}

static void sb_whole(struct sbuf *b, uint64_t v);

/* A number in the shortest form that reads back to the same double
 * (jobin_format_real). Whole numbers below 10^15, which that prints as plain digits,
 * skip printf: most cells of a queue are whole. */
static void sb_real(struct sbuf *b, double v)
{
    if (v >= 0 && v < JOBIN_PLAIN_LIMIT && v == floor(v)) {
        sb_whole(b, (uint64_t)v);
        return;
    }
    char s[JOBIN_REAL_BUF];
    jobin_format_real(v, s);
    sb_puts(b, s);
}

static void sb_whole(struct sbuf *b, uint64_t v)
{
    char s[TRACE_WHOLE_BUF];
    size_t i = sizeof s;
    do {
        s[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    sb_put(b, s + i, sizeof s - i);
}

/* Writes the CSV a line at a time to put(ctx, bytes, n). */
static void trace_emit(const struct jobset *js, const struct catalog *cat,
                       void (*put)(void *ctx, const char *s, size_t n), void *ctx)
{
    bool has[JOBIN_NFIELDS];
    for (int c = 0; c < JOBIN_NFIELDS; c++)
        has[c] = jobin_field_required(c);
    for (size_t i = 0; i < js->n; i++) {
        const struct job *j = &js->v[i];
        has[JOBIN_DURATION] |= j->duration_s >= 0;
        has[JOBIN_GPU_MEM] |= j->gpu_mem_gib >= 0;
        has[JOBIN_SAMPLES] |= j->samples > 0;
        has[JOBIN_CPU_USED] |= j->cpu_cores_used > 0;
    }
    /* pods only when some job has more than one: a set of one-pod jobs has no array. */
    has[JOBIN_PODS] = jobset_has_pods(js);
    struct sbuf b = {0};
    for (int c = 0, first = 1; c < JOBIN_NFIELDS; c++) {
        if (!has[c])
            continue;
        if (!first)
            sb_puts(&b, ",");
        sb_puts(&b, jobin_field_name(c));
        first = 0;
    }
    sb_puts(&b, "\n");
    put(ctx, b.s, b.len);

    for (size_t i = 0; i < js->n; i++) {
        const struct job *j = &js->v[i];
        b.len = 0;
        for (int c = 0, first = 1; c < JOBIN_NFIELDS; c++) {
            if (!has[c])
                continue;
            if (!first)
                sb_puts(&b, ",");
            first = 0;
            switch ((enum jobin_field)c) {
            case JOBIN_ID: sb_text(&b, jobset_str(js, j->id)); break;
            case JOBIN_SUBMIT: sb_real(&b, j->submit_s); break;
            case JOBIN_MODEL:
                sb_text(&b, j->model < 0 ? JOBIN_NO_MODEL : catalog_model_name(cat, j->model));
                break;
            case JOBIN_BATCH: sb_whole(&b, j->batch); break;
            case JOBIN_EPOCHS: sb_whole(&b, j->epochs); break;
            case JOBIN_DATA: sb_real(&b, j->data_gib); break;
            case JOBIN_GPUS: sb_whole(&b, j->gpus); break;
            case JOBIN_PODS: sb_whole(&b, jobset_pods(js, i)); break;
            case JOBIN_CPUS: sb_real(&b, j->cpus); break;
            case JOBIN_MEM: sb_real(&b, j->mem_gib); break;
            case JOBIN_IMAGE: sb_real(&b, j->image_gib); break;
            case JOBIN_ORIGIN: sb_text(&b, jobset_str(js, j->origin)); break;
            case JOBIN_DURATION:
                if (j->duration_s >= 0)
                    sb_real(&b, j->duration_s);
                break;
            case JOBIN_GPU_MEM:
                if (j->gpu_mem_gib >= 0)
                    sb_real(&b, j->gpu_mem_gib);
                break;
            case JOBIN_SAMPLES:
                if (j->samples > 0)
                    sb_whole(&b, j->samples);
                break;
            case JOBIN_CPU_USED:
                if (j->cpu_cores_used > 0)
                    sb_real(&b, j->cpu_cores_used);
                break;
            case JOBIN_NFIELDS: cpn_panic(__FILE__, __LINE__, "unreachable column"); break;
            }
        }
        sb_puts(&b, "\n");
        put(ctx, b.s, b.len);
    }
    free(b.s);
}

static void put_file(void *ctx, const char *s, size_t n) { fwrite(s, 1, n, ctx); }

static void put_sha(void *ctx, const char *s, size_t n)
{
    sha256_update(ctx, n, (const uint8_t *)s);
}

int trace_write_csv(FILE *f, const struct jobset *js, const struct catalog *cat)
{
    trace_emit(js, cat, put_file, f);
    return ferror(f) ? CPN_EIO : CPN_OK;
}

void trace_csv_sha256(const struct jobset *js, const struct catalog *cat, char out[65])
{
    struct sha256_ctx sha;
    sha256_init(&sha);
    trace_emit(js, cat, put_sha, &sha);
    cpn_sha256_digest_hex(&sha, out);
}
