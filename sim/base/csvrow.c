/* csvrow: CSV records with line numbers.
 *
 * libcsv delivers one field at a time and then signals the end of the record, but
 * does not count lines, so the reader does: unquoted line ends arrive through the
 * record callback (CSV_REPALL_NL makes it report blank lines too, which are then
 * skipped) and line ends inside quoted fields are counted in the field's text. A
 * record's fields are copied into one buffer that the next record reuses, so memory
 * does not grow with the input: a caller can stream a file of any size through it in
 * fixed-size chunks.
 *
 * Most lines of a job file are plain: no quote, no CR, no NUL, ended by an LF. Such a
 * line means the same to libcsv as to a split at its commas, so while libcsv is
 * between records, plain lines are split here (one pass, no call per byte) and only
 * the others go through libcsv, which keeps every syntax rule and message: a million
 * rows took a quarter of a job file's read in csv_parse. */
#include "csvrow.h"

#include "util.h"

#include <stdlib.h>
#include <string.h>

static const char csvrow_bom[] = "\xEF\xBB\xBF"; /* UTF-8 byte-order mark */

/* Counts the line ends in a field (CR LF, CR or LF each count once). Returns
 * SIZE_MAX when the field holds a NUL byte and nul_fails. One pass: fields are short. */
static size_t scan_field(const char *s, size_t n, bool nul_fails)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch > '\r')
            continue;
        if (ch == '\0' && nul_fails)
            return SIZE_MAX;
        if (ch == '\r' || (ch == '\n' && (i == 0 || s[i - 1] != '\r')))
            c++;
    }
    return c;
}

/* Makes room for one more field in off, fline and f. */
static void fields_room(struct csvrow_reader *r)
{
    if (r->nf < r->fcap)
        return;
    size_t cap = r->fcap;
    cpn_grow((void **)&r->off, &cap, r->nf + 1, sizeof *r->off);
    r->fline = cpn_realloc(r->fline, cap * sizeof *r->fline);
    r->f = cpn_realloc(r->f, cap * sizeof *r->f);
    r->fcap = cap;
}

static void on_field(void *s, size_t n, void *data)
{
    struct csvrow_reader *r = data;
    if (r->rc)
        return;
    const char *f = n ? s : "";
    r->pending_cr = false;
    if (n > CSVROW_FIELD_MAX || r->len + n > CSVROW_RECORD_MAX) {
        r->syntax = CSVROW_TOO_LONG;
        r->rc = CPN_EINPUT;
        return;
    }
    size_t ends = scan_field(f, n, r->opts & CSVROW_NUL);
    if (ends == SIZE_MAX) {
        r->syntax = CSVROW_NUL_BYTE;
        r->rc = CPN_EINPUT;
        return;
    }
    fields_room(r);
    cpn_grow((void **)&r->buf, &r->cap, r->len + n + 1, 1);
    memcpy(r->buf + r->len, f, n);
    r->buf[r->len + n] = '\0';
    r->off[r->nf] = r->len;
    r->fline[r->nf] = r->line;
    r->len += n + 1;
    r->nf++;
    r->line += ends;
}

/* Hands the record gathered in buf to the caller's function. */
static void deliver(struct csvrow_reader *r)
{
    for (size_t k = 0; k < r->nf; k++)
        r->f[k] = r->buf + r->off[k];
    struct csvrow row = {.n = r->nf, .f = r->f, .line = r->fline, .end_line = r->line};
    r->rc = r->fn(r->ctx, &row);
    r->nf = 0;
    r->len = 0;
}

static void on_record(int c, void *data)
{
    struct csvrow_reader *r = data;
    if (r->rc)
        return;
    if (r->nf) /* a blank line delivers no field and is skipped */
        deliver(r);
    if (c == '\r') {
        r->line++;
        r->pending_cr = true;
    } else if (c == '\n') {
        if (!r->pending_cr)
            r->line++;
        r->pending_cr = false;
    }
}

/* libcsv's parser state between records (struct csv_parser.pstate; libcsv.c's
 * ROW_NOT_BEGUN). */
enum { CSVROW_LIBCSV_ROW_NOT_BEGUN = 0 };

/* Splits the plain lines from p on into records and delivers them, while libcsv is
 * between records (so they mean to it what they mean here). Returns where it stopped:
 * end, or the start of the first line that is not plain (blank, unended, with a
 * quote or CR, blanks when trimming, or longer than CSVROW_FIELD_MAX). An LF ends a
 * line, a comma a field; a NUL is text to libcsv too (with CSVROW_NUL it never gets
 * here). The line is copied whole and split where memchr finds its commas. */
static const char *plain_lines(struct csvrow_reader *r, const char *p, const char *end)
{
    int trim = (r->opts & CSVROW_TRIM) != 0;
    while (p < end && !r->rc) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl ? (size_t)(nl - p) : 0;
        if (n == 0 || n > CSVROW_FIELD_MAX)
            return p;
        /* libcsv's line? (memchr looks at 32 bytes a step: a job row is two or three) */
        if (memchr(p, '"', n) || memchr(p, '\r', n) ||
            (trim && (memchr(p, ' ', n) || memchr(p, '\t', n))))
            return p;
        if (n + 1 > r->cap)
            cpn_grow((void **)&r->buf, &r->cap, n + 1, 1);
        memcpy(r->buf, p, n);
        r->buf[n] = '\0';
        if (r->nf >= r->fcap)
            fields_room(r);
        r->off[0] = 0;
        r->fline[0] = r->line;
        r->nf = 1;
        for (char *c = memchr(r->buf, ',', n); c; c = memchr(c, ',', n - (size_t)(c - r->buf))) {
            *c++ = '\0';
            if (r->nf >= r->fcap)
                fields_room(r);
            r->off[r->nf] = (size_t)(c - r->buf);
            r->fline[r->nf] = r->line;
            r->nf++;
        }
        r->len = n + 1;
        r->pending_cr = false;
        deliver(r);
        r->line++;
        p = nl + 1;
    }
    return p;
}

static int no_space(unsigned char c)
{
    (void)c;
    return 0;
}

void csvrow_init(struct csvrow_reader *r, unsigned opts, csvrow_fn fn, void *ctx)
{
    memset(r, 0, sizeof *r);
    r->fn = fn;
    r->ctx = ctx;
    r->opts = opts;
    r->line = 1;
    CPN_ASSERT(csv_init(&r->p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL | CSV_REPALL_NL) ==
               0);
    if (!(opts & CSVROW_TRIM))
        csv_set_space_func(&r->p, no_space);
    csv_set_realloc_func(&r->p, cpn_realloc);
    csv_set_free_func(&r->p, free);
}

int csvrow_feed(struct csvrow_reader *r, const char *buf, size_t n)
{
    if (r->rc)
        return r->rc;
    if (!r->started) {
        r->started = true;
        size_t bom = sizeof csvrow_bom - 1;
        if ((r->opts & CSVROW_BOM) && n >= bom && memcmp(buf, csvrow_bom, bom) == 0) {
            buf += bom;
            n -= bom;
        }
    }
    /* libcsv hands a field over only when it ends: a NUL is looked for as the bytes
     * come (the bytes before it are parsed first, so that the line is right), and a
     * field or record that never ends is stopped at its limit instead of filling
     * memory (/dev/zero, a file of one unending quoted field). */
    const char *nul = (r->opts & CSVROW_NUL) ? memchr(buf, '\0', n) : NULL;
    const char *end = nul ? nul : buf + n;
    for (const char *p = buf; p < end && !r->rc;) {
        if (r->p.pstate == CSVROW_LIBCSV_ROW_NOT_BEGUN)
            p = plain_lines(r, p, end);
        if (p == end || r->rc)
            break;
        /* libcsv takes the next line (or what is left), in or out of a quoted field. */
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t seg = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);
        size_t done = csv_parse(&r->p, p, seg, on_field, on_record, r);
        if (done < seg && !r->rc) {
            r->csv_err = csv_error(&r->p);
            r->syntax = r->csv_err == CSV_EPARSE ? CSVROW_BAD_QUOTING : CSVROW_LIBCSV;
            r->rc = CPN_EINPUT;
        }
        p += seg;
    }
    if (!r->rc && nul) {
        r->syntax = CSVROW_NUL_BYTE;
        r->rc = CPN_EINPUT;
    }
    /* A field still open at the end of the bytes (on_field checks the fields that ended,
     * and with them the record). */
    if (!r->rc && r->p.entry_pos > CSVROW_FIELD_MAX) {
        r->syntax = CSVROW_TOO_LONG;
        r->rc = CPN_EINPUT;
    }
    return r->rc;
}

int csvrow_finish(struct csvrow_reader *r)
{
    if (!r->rc && csv_fini(&r->p, on_field, on_record, r) != 0 && !r->rc) {
        r->csv_err = csv_error(&r->p);
        r->syntax = CSVROW_UNTERMINATED;
        r->rc = CPN_EINPUT;
    }
    return r->rc;
}

void csvrow_start_at(struct csvrow_reader *r, uint64_t line)
{
    CPN_ASSERT(!r->started);
    r->started = true;
    r->line = line;
}

bool csvrow_between_records(const struct csvrow_reader *r)
{
    return !r->rc && r->nf == 0 && r->p.pstate == CSVROW_LIBCSV_ROW_NOT_BEGUN &&
           r->p.entry_pos == 0;
}

void csvrow_free(struct csvrow_reader *r)
{
    csv_free(&r->p);
    free(r->buf);
    free(r->off);
    free(r->fline);
    free(r->f);
    r->buf = NULL;
    r->off = NULL;
    r->fline = NULL;
    r->f = NULL;
}

int csvrow_syntax(const struct csvrow_reader *r) { return r->syntax; }

const char *csvrow_strerror(const struct csvrow_reader *r) { return csv_strerror(r->csv_err); }

uint64_t csvrow_line(const struct csvrow_reader *r) { return r->line; }

size_t csvrow_field_index(const struct csvrow_reader *r) { return r->nf; }
