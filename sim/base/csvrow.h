/* csvrow: CSV records with their line numbers, over libcsv. Owns the parse state, the
 * fields of the record being read (copied and NUL-terminated, in a buffer the next
 * record reuses) and the line counting. It does not know what the columns mean and
 * words no message: its users do, with the line and field it reports. */
#ifndef CPN_CSVROW_H
#define CPN_CSVROW_H

#include <csv.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One record, handed to the caller's function. Blank lines deliver none. */
struct csvrow {
    size_t n;             /* its fields, at least 1 */
    char **f;             /* f[k]: field k, NUL-terminated; the function may change the text
                             in place; valid until it returns */
    const uint64_t *line; /* line[k]: the line on which field k begins */
    uint64_t end_line;    /* the line on which the record ends */
};

/* Called once per record. Returns 0 to go on, or an error code that stops the parse
 * and is returned by csvrow_feed or csvrow_finish. */
typedef int (*csvrow_fn)(void *ctx, const struct csvrow *row);

/* Options of csvrow_init. */
enum csvrow_opt {
    CSVROW_TRIM = 1, /* blanks around unquoted fields are dropped (libcsv's default) */
    CSVROW_NUL = 2,  /* a NUL byte in a field is a syntax error (CSVROW_NUL_BYTE) */
    CSVROW_BOM = 4,  /* a UTF-8 byte-order mark at the very start is skipped (when the
                        first csvrow_feed holds all of it) */
};

/* What stopped a parse that the caller's function did not stop. */
enum csvrow_syntax {
    CSVROW_SYNTAX_OK,
    CSVROW_BAD_QUOTING,  /* a quote inside an unquoted field, or text after a closing one */
    CSVROW_UNTERMINATED, /* the input ended inside a quoted field */
    CSVROW_NUL_BYTE,     /* with CSVROW_NUL */
    CSVROW_LIBCSV,       /* any other libcsv error (csvrow_strerror) */
    CSVROW_TOO_LONG,     /* a field over CSVROW_FIELD_MAX bytes, or a record over
                            CSVROW_RECORD_MAX */
};

/* The longest field and record a reader accepts: a job row is a hundred bytes, and the
 * longest line of the traces cpnsim imports a few kilobytes. */
#define CSVROW_FIELD_MAX ((size_t)1 << 20)
#define CSVROW_RECORD_MAX ((size_t)16 << 20)

/* The reader's state; the caller owns it (usually on the stack). Read it only
 * through the functions below. */
struct csvrow_reader {
    struct csv_parser p;
    csvrow_fn fn;
    void *ctx;
    unsigned opts;
    int rc;             /* the first error; later input is ignored */
    int syntax;         /* enum csvrow_syntax */
    int csv_err;        /* libcsv's error code, for csvrow_strerror */
    bool started;       /* the first bytes were seen (a BOM is skipped there) */
    bool pending_cr;    /* the last line end was an unquoted CR: a following LF is its pair */
    uint64_t line;      /* line of the next byte to be parsed */
    char *buf;          /* the record's fields, field k at buf + off[k] */
    size_t len, cap;
    size_t *off;
    uint64_t *fline;
    char **f;
    size_t nf, fcap;    /* off, fline and f share fcap */
};

/* Starts a parse with the options (enum csvrow_opt) that calls fn(ctx, record) for
 * each non-blank record. Line ends are LF, CR LF or CR; those inside quoted fields
 * count too. */
void csvrow_init(struct csvrow_reader *r, unsigned opts, csvrow_fn fn, void *ctx);
/* Parses the next n bytes (any split of the input works). Returns 0, fn's error, or
 * CPN_EINPUT on a syntax error (csvrow_syntax says which). After an error it does
 * nothing and returns that error again. */
int csvrow_feed(struct csvrow_reader *r, const char *buf, size_t n);
/* Ends the input, delivering a last record without a line end. Same returns. */
int csvrow_finish(struct csvrow_reader *r);
/* For a reader that starts in the middle of an input, just after a line end (a part
 * read on another thread): the next byte is on line `line`, and no byte-order mark is
 * looked for. Call it before the first csvrow_feed. */
void csvrow_start_at(struct csvrow_reader *r, uint64_t line);
/* True when the bytes fed so far end between records: no field and no quote is open,
 * so what follows begins a record (the reader has not stopped). */
bool csvrow_between_records(const struct csvrow_reader *r);
/* Frees the reader's memory; r may then be initialised again. */
void csvrow_free(struct csvrow_reader *r);

/* The syntax error that stopped the parse (enum csvrow_syntax), CSVROW_SYNTAX_OK
 * when none did. */
int csvrow_syntax(const struct csvrow_reader *r);
/* libcsv's words for a syntax error ("error parsing data while strict check
 * enabled", also for CSVROW_UNTERMINATED). */
const char *csvrow_strerror(const struct csvrow_reader *r);
/* The line on which the field being read begins (where a syntax error is), or of the
 * next byte when no field is open. */
uint64_t csvrow_line(const struct csvrow_reader *r);
/* The index in its record of the field being read. */
size_t csvrow_field_index(const struct csvrow_reader *r);

#endif
