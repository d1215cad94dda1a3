/* trace: the job queue and its CSV form.
 *
 * The reader streams. The input is read in fixed-size chunks and fed to libcsv,
 * whose callbacks deliver one field at a time and then signal the end of the record.
 * A record's fields are copied into a scratch buffer that the next record reuses, so
 * memory grows with the jobs kept, not with the file. libcsv does not count lines,
 * so the reader does: unquoted line ends arrive through the record callback
 * (CSV_REPALL_NL makes it report blank lines too, which are then skipped) and line
 * ends inside quoted fields are counted in the field's text. A message names the line
 * on which the offending field begins.
 *
 * The first error stops the parse. Jobs are read into a private jobset that is freed
 * on failure, so the caller's set changes only on success. Ids are checked for
 * uniqueness with an open-addressing hash set over pool offsets; a second set stores
 * each distinct origin name once in the pool.
 *
 * The writer formats one row at a time into a reusable buffer and hands it to a sink:
 * a FILE for trace_write_csv, a SHA-256 context for trace_csv_sha256. Both therefore
 * see the same bytes, and a queue's digest equals that of the file it would be written
 * to. */
#include "trace.h"

#include "../engine/catalog.h"
#include "../base/util.h"

#include <csv.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <nettle/sha2.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Reader and writer tunables. */
enum {
    TRACE_CHUNK_BYTES = 64 * 1024, /* bytes read and parsed at a time */
    TRACE_SHOW_MAX = 40,           /* longest cell value quoted in a message */
    TRACE_SET_MIN_SLOTS = 64,      /* first size of a hash set (a power of two) */
    TRACE_REAL_DIGITS_MIN = 15,    /* %.15g first: short and exact for most values */
    TRACE_REAL_DIGITS_MAX = 17,    /* %.17g always reads back to the same double */
    TRACE_REAL_BUF = 40,           /* room for any %.17g */
    TRACE_LABEL_BUF = 32,          /* room for "field N" and "column N" */
};
/* Whole numbers below this print the same with %.15g as plain integers. */
#define TRACE_REAL_PLAIN_LIMIT 1e15
/* batch, epochs and gpus must be below 2^31 so that they fit an int anywhere. */
#define TRACE_WHOLE_LIMIT UINT64_C(2147483648)
static const char trace_bom[] = "\xEF\xBB\xBF"; /* UTF-8 byte-order mark, skipped */

/* ------------------------------------------------------------------------- */
/* Columns. The enum order is the order trace_write_csv writes them in. */

enum col {
    COL_ID,
    COL_SUBMIT,
    COL_MODEL,
    COL_BATCH,
    COL_EPOCHS,
    COL_DATA,
    COL_GPUS,
    COL_CPUS,
    COL_MEM,
    COL_IMAGE,
    COL_ORIGIN,
    COL_DURATION,
    COL_GPU_MEM,
    COL_SAMPLES,
    COL_COUNT,
    COL_IGNORED = COL_COUNT, /* an x_* column */
};

static const struct col_def {
    const char *name;
    bool required;
} trace_cols[COL_COUNT] = {
    [COL_ID] = {"id", true},
    [COL_SUBMIT] = {"submit_s", true},
    [COL_MODEL] = {"model", true},
    [COL_BATCH] = {"batch", true},
    [COL_EPOCHS] = {"epochs", true},
    [COL_DATA] = {"data_gib", true},
    [COL_GPUS] = {"gpus", true},
    [COL_CPUS] = {"cpus", true},
    [COL_MEM] = {"mem_gib", true},
    [COL_IMAGE] = {"image_gib", true},
    [COL_ORIGIN] = {"origin", true},
    [COL_DURATION] = {"duration_s", false},
    [COL_GPU_MEM] = {"gpu_mem_gib", false},
    [COL_SAMPLES] = {"samples", false},
};

/* The model cell of a job that has no catalogue model (written for model -1). */
static const char trace_no_model[] = "-";

/* ------------------------------------------------------------------------- */
/* A set of pool strings: open addressing, linear probing, load at most 1/2. */

struct strset {
    struct strslot {
        uint32_t hash;
        uint32_t off1; /* pool offset + 1; 0 marks an empty slot */
        uint32_t val;  /* the user's value (a job index for ids) */
    } *slot;
    size_t cap, n; /* cap is 0 or a power of two */
};

static uint32_t str_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* Returns the slot holding s, or the empty slot where it would go. */
static struct strslot *strset_find(const struct strset *set, const char *pool, const char *s,
                                   uint32_t h)
{
    size_t mask = set->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        struct strslot *sl = &set->slot[i];
        if (!sl->off1 || (sl->hash == h && strcmp(pool + sl->off1 - 1, s) == 0))
            return sl;
    }
}

static void strset_grow(struct strset *set)
{
    if (2 * (set->n + 1) <= set->cap)
        return;
    struct strset big = {.cap = set->cap ? 2 * set->cap : TRACE_SET_MIN_SLOTS};
    big.slot = cpn_calloc(big.cap, sizeof *big.slot);
    for (size_t i = 0; i < set->cap; i++) {
        const struct strslot *sl = &set->slot[i];
        if (!sl->off1)
            continue;
        size_t mask = big.cap - 1, k = sl->hash & mask;
        while (big.slot[k].off1)
            k = (k + 1) & mask;
        big.slot[k] = *sl;
    }
    big.n = set->n;
    free(set->slot);
    *set = big;
}

/* Makes room for one more string and returns the slot holding s, or the empty slot
 * where s goes (fill it with strset_fill before the set changes again). */
static struct strslot *strset_slot(struct strset *set, const char *pool, const char *s)
{
    strset_grow(set);
    return strset_find(set, pool, s, str_hash(s));
}

/* Fills the empty slot returned for the pool string at off. */
static void strset_fill(struct strset *set, struct strslot *sl, const char *pool, uint32_t off,
                        uint32_t val)
{
    CPN_ASSERT(!sl->off1);
    sl->hash = str_hash(pool + off);
    sl->off1 = off + 1;
    sl->val = val;
    set->n++;
}

/* ------------------------------------------------------------------------- */
/* The reader. */

struct rd {
    const char *name;
    const struct catalog *cat;
    char *err;
    size_t errlen;
    int rc; /* the first error; later callbacks do nothing */

    struct csv_parser p;
    bool started;     /* the first bytes were seen (a BOM is skipped there) */
    uint64_t line;    /* line of the next byte to be parsed */
    bool pending_cr;  /* the last line end was an unquoted CR: a following LF is its pair */

    /* The current record: field k is buf + foff[k], beginning on line fline[k]. */
    char *buf;
    size_t buf_len, buf_cap;
    size_t *foff;
    uint64_t *fline;
    size_t nf, fcap;

    /* The header. */
    bool have_header;
    size_t ncols;
    enum col *col_of; /* per header column */
    char *hdr;        /* the header's names (a copy of buf) */
    size_t *hdr_off;

    struct jobset js; /* the jobs read so far */
    struct strset ids;     /* val: job index */
    struct strset origins; /* val unused */
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

/* The label of field k of the current record in messages: its header name, "header"
 * while the header is being read, or "field N" past the header's columns. */
static const char *rd_label(const struct rd *r, size_t k, char *tmp, size_t tmplen)
{
    if (!r->have_header)
        return "header";
    if (k < r->ncols)
        return r->hdr + r->hdr_off[k];
    snprintf(tmp, tmplen, "field %zu", k + 1);
    return tmp;
}

/* Counts the line ends in a field (CR LF, CR or LF each count once). Returns
 * SIZE_MAX when the field holds a NUL byte. One pass: fields are short. */
static size_t scan_field(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        if (ch > '\r')
            continue;
        if (ch == '\0')
            return SIZE_MAX;
        if (ch == '\r' || (ch == '\n' && (i == 0 || s[i - 1] != '\r')))
            c++;
    }
    return c;
}

static void rd_on_field(void *s, size_t n, void *data)
{
    struct rd *r = data;
    if (r->rc)
        return;
    const char *f = n ? s : "";
    r->pending_cr = false;
    size_t ends = scan_field(f, n);
    if (ends == SIZE_MAX) {
        char tmp[TRACE_LABEL_BUF];
        rd_fail(r, r->line, rd_label(r, r->nf, tmp, sizeof tmp), "contains a NUL byte");
        return;
    }
    if (r->nf == r->fcap) { /* foff and fline share fcap */
        size_t cap = r->fcap;
        cpn_grow((void **)&r->foff, &cap, r->nf + 1, sizeof *r->foff);
        r->fline = cpn_realloc(r->fline, cap * sizeof *r->fline);
        r->fcap = cap;
    }
    cpn_grow((void **)&r->buf, &r->buf_cap, r->buf_len + n + 1, 1);
    memcpy(r->buf + r->buf_len, f, n);
    r->buf[r->buf_len + n] = '\0';
    r->foff[r->nf] = r->buf_len;
    r->fline[r->nf] = r->line;
    r->buf_len += n + 1;
    r->nf++;
    r->line += ends;
}

static const char *rd_field(const struct rd *r, size_t k) { return r->buf + r->foff[k]; }

static int rd_header(struct rd *r)
{
    size_t at[COL_COUNT];
    for (size_t c = 0; c < COL_COUNT; c++)
        at[c] = SIZE_MAX;
    r->ncols = r->nf;
    r->col_of = cpn_malloc(r->ncols * sizeof *r->col_of);
    r->hdr = cpn_malloc(r->buf_len);
    memcpy(r->hdr, r->buf, r->buf_len);
    r->hdr_off = cpn_malloc(r->ncols * sizeof *r->hdr_off);
    memcpy(r->hdr_off, r->foff, r->ncols * sizeof *r->hdr_off);
    r->have_header = true;

    for (size_t k = 0; k < r->ncols; k++) {
        const char *name = rd_field(r, k);
        if (!*name) {
            char tmp[TRACE_LABEL_BUF];
            snprintf(tmp, sizeof tmp, "column %zu", k + 1);
            return rd_fail(r, r->fline[k], tmp, "empty column name");
        }
        if (strncmp(name, "x_", 2) == 0) {
            r->col_of[k] = COL_IGNORED;
            continue;
        }
        size_t c = 0;
        while (c < COL_COUNT && strcmp(trace_cols[c].name, name) != 0)
            c++;
        if (c == COL_COUNT)
            return rd_fail(r, r->fline[k], name,
                           "unknown column (prefix it with x_ to have it ignored)");
        if (at[c] != SIZE_MAX)
            return rd_fail(r, r->fline[k], name, "duplicate column (also column %zu)",
                           at[c] + 1);
        at[c] = k;
        r->col_of[k] = (enum col)c;
    }
    for (size_t c = 0; c < COL_COUNT; c++)
        if (trace_cols[c].required && at[c] == SIZE_MAX)
            return rd_fail(r, r->fline[0], trace_cols[c].name, "missing required column");
    return CPN_OK;
}

static bool has_blank_edge(const char *s)
{
    size_t n = strlen(s);
    return n && (strchr(" \t", s[0]) || strchr(" \t", s[n - 1]));
}

/* A text cell: non-empty, no blanks around it. */
static int rd_text(struct rd *r, size_t k, const char *col)
{
    const char *s = rd_field(r, k);
    if (!*s)
        return rd_fail(r, r->fline[k], col, "empty (a value is required)");
    if (has_blank_edge(s))
        return rd_fail(r, r->fline[k], col, "blanks around '%.*s'", TRACE_SHOW_MAX, s);
    return CPN_OK;
}

/* A real cell: finite, >= 0 (> 0 when positive), at most max. An empty optional cell
 * leaves *out. */
static int rd_real(struct rd *r, size_t k, const char *col, bool required, bool positive,
                   double max, double *out)
{
    const char *s = rd_field(r, k);
    double v;
    if (!*s)
        return required ? rd_fail(r, r->fline[k], col, "empty (a value is required)") : CPN_OK;
    if (cpn_parse_double(s, &v) != CPN_OK)
        return rd_fail(r, r->fline[k], col, "'%.*s' is not a finite number", TRACE_SHOW_MAX, s);
    if (positive ? !(v > 0) : !(v >= 0))
        return rd_fail(r, r->fline[k], col, "must be %s 0 (got '%.*s')", positive ? ">" : ">=",
                       TRACE_SHOW_MAX, s);
    if (v > max)
        return rd_fail(r, r->fline[k], col, "must be at most %g (got '%.*s')", max,
                       TRACE_SHOW_MAX, s);
    *out = v == 0 ? 0.0 : v; /* no negative zero */
    return CPN_OK;
}

/* A whole-number cell in [min, limit). An empty optional cell leaves *out. */
static int rd_whole(struct rd *r, size_t k, const char *col, bool required, uint64_t min,
                    uint64_t limit, uint64_t *out)
{
    const char *s = rd_field(r, k);
    uint64_t v;
    if (!*s)
        return required ? rd_fail(r, r->fline[k], col, "empty (a value is required)") : CPN_OK;
    if (cpn_parse_u64(s, &v) != CPN_OK)
        return rd_fail(r, r->fline[k], col, "'%.*s' is not a whole number >= %" PRIu64,
                       TRACE_SHOW_MAX, s, min);
    if (v < min)
        return rd_fail(r, r->fline[k], col, "must be >= %" PRIu64 " (got '%s')", min, s);
    if (limit && v >= limit)
        return rd_fail(r, r->fline[k], col, "must be below %" PRIu64 " (got '%s')", limit, s);
    *out = v;
    return CPN_OK;
}

static int rd_whole32(struct rd *r, size_t k, const char *col, uint32_t *out)
{
    uint64_t v = 0;
    int rc = rd_whole(r, k, col, true, 1, TRACE_WHOLE_LIMIT, &v);
    *out = (uint32_t)v;
    return rc;
}

/* The model cell: a catalogue model, or (only with a duration) empty or "-". */
static int rd_model(struct rd *r, size_t k, bool has_duration, int32_t *out)
{
    const char *s = rd_field(r, k);
    const char *col = trace_cols[COL_MODEL].name;
    if (!*s || strcmp(s, trace_no_model) == 0) {
        if (!has_duration)
            return rd_fail(r, r->fline[k], col, "a job without a model needs a duration_s");
        *out = -1;
        return CPN_OK;
    }
    int m = catalog_model_find(r->cat, s);
    if (m < 0)
        return rd_fail(r, r->fline[k], col, "unknown model '%.*s'", TRACE_SHOW_MAX, s);
    *out = m;
    return CPN_OK;
}

static uint32_t rd_line32(uint64_t line) { return line > UINT32_MAX ? UINT32_MAX : (uint32_t)line; }

/* Interns an origin name once per distinct name. */
static uint32_t rd_origin(struct rd *r, const char *s)
{
    struct strslot *sl = strset_slot(&r->origins, r->js.pool, s);
    if (sl->off1)
        return sl->off1 - 1;
    uint32_t off = jobset_intern(&r->js, s);
    strset_fill(&r->origins, sl, r->js.pool, off, 0);
    return off;
}

static int rd_row(struct rd *r)
{
    char tmp[TRACE_LABEL_BUF];
    if (r->nf < r->ncols)
        return rd_fail(r, r->fline[r->nf - 1], rd_label(r, r->nf, tmp, sizeof tmp),
                       "missing (the row has %zu fields, the header %zu)", r->nf, r->ncols);
    if (r->nf > r->ncols)
        return rd_fail(r, r->fline[r->ncols], rd_label(r, r->ncols, tmp, sizeof tmp),
                       "extra field (the row has %zu fields, the header %zu)", r->nf, r->ncols);
    if (r->js.n >= UINT32_MAX)
        return rd_fail(r, r->fline[0], "id", "too many jobs");

    struct job j = {.duration_s = -1, .gpu_mem_gib = -1, .line = rd_line32(r->fline[0])};
    bool has_duration = false;
    size_t id_k = 0, origin_k = 0;
    struct strslot *id_slot = NULL;
    for (size_t k = 0; k < r->ncols; k++)
        if (r->col_of[k] == COL_DURATION)
            has_duration = *rd_field(r, k) != '\0';

    for (size_t k = 0; k < r->ncols && !r->rc; k++) {
        enum col c = r->col_of[k];
        if (c == COL_IGNORED)
            continue;
        const char *col = trace_cols[c].name;
        uint64_t samples = 0;
        switch (c) {
        case COL_ID:
            id_k = k;
            if (rd_text(r, k, col) == CPN_OK) {
                id_slot = strset_slot(&r->ids, r->js.pool, rd_field(r, k));
                if (id_slot->off1)
                    rd_fail(r, r->fline[k], col, "duplicate id '%.*s' (first at line %" PRIu32 ")",
                            TRACE_SHOW_MAX, rd_field(r, k), r->js.v[id_slot->val].line);
            }
            break;
        case COL_ORIGIN:
            origin_k = k;
            rd_text(r, k, col);
            break;
        case COL_MODEL: rd_model(r, k, has_duration, &j.model); break;
        case COL_SUBMIT: rd_real(r, k, col, true, false, TRACE_MAX_TIME_S, &j.submit_s); break;
        case COL_DATA: rd_real(r, k, col, true, false, TRACE_MAX_GIB, &j.data_gib); break;
        case COL_CPUS: rd_real(r, k, col, true, false, TRACE_MAX_CPUS, &j.cpus); break;
        case COL_MEM: rd_real(r, k, col, true, false, TRACE_MAX_GIB, &j.mem_gib); break;
        case COL_IMAGE: rd_real(r, k, col, true, false, TRACE_MAX_GIB, &j.image_gib); break;
        case COL_DURATION: rd_real(r, k, col, false, true, TRACE_MAX_TIME_S, &j.duration_s); break;
        case COL_GPU_MEM: rd_real(r, k, col, false, false, TRACE_MAX_GIB, &j.gpu_mem_gib); break;
        case COL_BATCH: rd_whole32(r, k, col, &j.batch); break;
        case COL_EPOCHS: rd_whole32(r, k, col, &j.epochs); break;
        case COL_GPUS: rd_whole32(r, k, col, &j.gpus); break;
        case COL_SAMPLES:
            if (rd_whole(r, k, col, false, 0, 0, &samples) == CPN_OK)
                j.samples = samples;
            break;
        case COL_COUNT: cpn_panic(__FILE__, __LINE__, "unreachable column"); break;
        }
    }
    if (r->rc)
        return r->rc;

    const char *id = rd_field(r, id_k), *origin = rd_field(r, origin_k);
    if (r->js.pool_len + strlen(id) + strlen(origin) + 2 > UINT32_MAX)
        return rd_fail(r, r->fline[id_k], "id", "the ids and origins exceed 4 GiB");
    j.id = jobset_intern(&r->js, id);
    j.origin = rd_origin(r, origin);
    size_t idx = jobset_push(&r->js, &j);
    strset_fill(&r->ids, id_slot, r->js.pool, j.id, (uint32_t)idx);
    return CPN_OK;
}

static void rd_on_record(int c, void *data)
{
    struct rd *r = data;
    if (r->rc)
        return;
    if (r->nf) { /* a blank line delivers no field and is skipped */
        if (r->have_header)
            rd_row(r);
        else
            rd_header(r);
        r->nf = 0;
        r->buf_len = 0;
    }
    if (c == '\r') {
        r->line++;
        r->pending_cr = true;
    } else if (c == '\n') {
        if (!r->pending_cr)
            r->line++;
        r->pending_cr = false;
    }
}

static int rd_space(unsigned char c)
{
    (void)c;
    return 0; /* nothing is trimmed: blanks around a number are an error */
}

static void rd_begin(struct rd *r, const char *name, const struct catalog *cat, char *err,
                     size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->name = name;
    r->cat = cat;
    r->err = err;
    r->errlen = errlen;
    r->line = 1;
    jobset_init(&r->js);
    CPN_ASSERT(csv_init(&r->p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL | CSV_REPALL_NL) ==
               0);
    csv_set_space_func(&r->p, rd_space);
    csv_set_realloc_func(&r->p, cpn_realloc);
    csv_set_free_func(&r->p, free);
}

static void rd_feed(struct rd *r, const char *p, size_t n)
{
    if (r->rc)
        return;
    if (!r->started) {
        r->started = true;
        size_t bom = sizeof trace_bom - 1;
        if (n >= bom && memcmp(p, trace_bom, bom) == 0) {
            p += bom;
            n -= bom;
        }
    }
    size_t done = csv_parse(&r->p, p, n, rd_on_field, rd_on_record, r);
    if (done < n && !r->rc) {
        char tmp[TRACE_LABEL_BUF];
        int e = csv_error(&r->p);
        if (e == CSV_EPARSE)
            rd_fail(r, r->line, rd_label(r, r->nf, tmp, sizeof tmp),
                    "bad quoting (a quote inside an unquoted field, or text after a closing "
                    "quote)");
        else
            rd_fail(r, r->line, rd_label(r, r->nf, tmp, sizeof tmp), "%s", csv_strerror(e));
    }
}

/* Finishes the parse, frees the reader and, on success, moves the jobs into out. */
static int rd_end(struct rd *r, const char sha256[65], struct jobset *out)
{
    if (!r->rc && csv_fini(&r->p, rd_on_field, rd_on_record, r) != 0 && !r->rc) {
        char tmp[TRACE_LABEL_BUF];
        rd_fail(r, r->line, rd_label(r, r->nf, tmp, sizeof tmp),
                "unterminated quoted field (its closing quote is missing)");
    }
    if (!r->rc && !r->have_header)
        r->rc = cpn_fail(r->err, r->errlen, CPN_EINPUT, "%s: empty file (no header)", r->name);
    if (!r->rc && r->js.n == 0)
        r->rc = cpn_fail(r->err, r->errlen, CPN_EINPUT, "%s: no jobs", r->name);
    csv_free(&r->p);
    free(r->buf);
    free(r->foff);
    free(r->fline);
    free(r->col_of);
    free(r->hdr);
    free(r->hdr_off);
    free(r->ids.slot);
    free(r->origins.slot);
    if (r->rc) {
        jobset_free(&r->js);
        return r->rc;
    }
    r->js.source = cpn_strdup(r->name);
    memcpy(r->js.sha256, sha256, sizeof r->js.sha256);
    jobset_free(out);
    *out = r->js;
    return CPN_OK;
}

static void hex_digest(struct sha256_ctx *ctx, char out[65])
{
    uint8_t d[SHA256_DIGEST_SIZE];
    sha256_digest(ctx, sizeof d, d);
    for (size_t i = 0; i < sizeof d; i++)
        snprintf(out + 2 * i, 3, "%02x", d[i]);
}

int trace_read_csv(const char *path, const struct catalog *cat, struct jobset *out, char *err,
                   size_t errlen)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return cpn_fail(err, errlen, CPN_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    struct rd r;
    rd_begin(&r, path, cat, err, errlen);
    struct sha256_ctx sha;
    sha256_init(&sha);
    char *chunk = cpn_malloc(TRACE_CHUNK_BYTES);
    int read_errno = 0;
    while (!r.rc) {
        errno = 0;
        size_t got = fread(chunk, 1, TRACE_CHUNK_BYTES, f);
        if (got == 0) {
            read_errno = errno;
            break;
        }
        sha256_update(&sha, got, (const uint8_t *)chunk);
        rd_feed(&r, chunk, got);
    }
    if (!r.rc && ferror(f))
        r.rc = cpn_fail(err, errlen, CPN_EINPUT, "%s: read error: %s", path,
                        read_errno ? strerror(read_errno) : "unknown");
    fclose(f);
    free(chunk);
    char hex[65] = "";
    if (!r.rc)
        hex_digest(&sha, hex);
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

/* A number in the shortest %g form (15, 16 or 17 digits) that reads back to the same
 * double. Whole numbers below 10^15, which %.15g prints as plain integers, skip printf. */
static void sb_real(struct sbuf *b, double v)
{
    if (v >= 0 && v < TRACE_REAL_PLAIN_LIMIT && v == floor(v)) {
        sb_whole(b, (uint64_t)v);
        return;
    }
    char s[TRACE_REAL_BUF];
    for (int digits = TRACE_REAL_DIGITS_MIN; digits <= TRACE_REAL_DIGITS_MAX; digits++) {
        snprintf(s, sizeof s, "%.*g", digits, v);
        double back;
        if (digits == TRACE_REAL_DIGITS_MAX ||
            (cpn_parse_double(s, &back) == CPN_OK && back == v))
            break;
    }
    sb_puts(b, s);
}

static void sb_whole(struct sbuf *b, uint64_t v)
{
    char s[TRACE_REAL_BUF];
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
    bool has[COL_COUNT];
    for (size_t c = 0; c < COL_COUNT; c++)
        has[c] = trace_cols[c].required;
    for (size_t i = 0; i < js->n; i++) {
        const struct job *j = &js->v[i];
        has[COL_DURATION] |= j->duration_s >= 0;
        has[COL_GPU_MEM] |= j->gpu_mem_gib >= 0;
        has[COL_SAMPLES] |= j->samples > 0;
    }
    struct sbuf b = {0};
    for (size_t c = 0, first = 1; c < COL_COUNT; c++) {
        if (!has[c])
            continue;
        if (!first)
            sb_puts(&b, ",");
        sb_puts(&b, trace_cols[c].name);
        first = 0;
    }
    sb_puts(&b, "\n");
    put(ctx, b.s, b.len);

    for (size_t i = 0; i < js->n; i++) {
        const struct job *j = &js->v[i];
        b.len = 0;
        for (size_t c = 0, first = 1; c < COL_COUNT; c++) {
            if (!has[c])
                continue;
            if (!first)
                sb_puts(&b, ",");
            first = 0;
            switch ((enum col)c) {
            case COL_ID: sb_text(&b, jobset_str(js, j->id)); break;
            case COL_SUBMIT: sb_real(&b, j->submit_s); break;
            case COL_MODEL:
                sb_text(&b, j->model < 0 ? trace_no_model : catalog_model_name(cat, j->model));
                break;
            case COL_BATCH: sb_whole(&b, j->batch); break;
            case COL_EPOCHS: sb_whole(&b, j->epochs); break;
            case COL_DATA: sb_real(&b, j->data_gib); break;
            case COL_GPUS: sb_whole(&b, j->gpus); break;
            case COL_CPUS: sb_real(&b, j->cpus); break;
            case COL_MEM: sb_real(&b, j->mem_gib); break;
            case COL_IMAGE: sb_real(&b, j->image_gib); break;
            case COL_ORIGIN: sb_text(&b, jobset_str(js, j->origin)); break;
            case COL_DURATION:
                if (j->duration_s >= 0)
                    sb_real(&b, j->duration_s);
                break;
            case COL_GPU_MEM:
                if (j->gpu_mem_gib >= 0)
                    sb_real(&b, j->gpu_mem_gib);
                break;
            case COL_SAMPLES:
                if (j->samples > 0)
                    sb_whole(&b, j->samples);
                break;
            case COL_COUNT: cpn_panic(__FILE__, __LINE__, "unreachable column"); break;
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
    hex_digest(&sha, out);
}
