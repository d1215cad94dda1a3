/* Tests of csvrow (the CSV row reader with line numbers): the lines it reports for
 * fields and records (line ends inside quoted fields, CR LF, lone CR, blank lines),
 * that any split of the input gives the same records, and its syntax errors. */
#include "../sim/base/csvrow.h"
#include "../sim/base/util.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

/* The records seen, one line per record: "L:f0|L:f1|...>END". */
struct seen {
    char text[1024];
    int stop_at; /* the record (1-based) whose function fails; 0: none */
    int nrec;
};

static int on_row(void *ctx, const struct csvrow *row)
{
    struct seen *s = ctx;
    size_t n = strlen(s->text);
    for (size_t k = 0; k < row->n; k++)
        n += (size_t)snprintf(s->text + n, sizeof s->text - n, "%s%llu:%s", k ? "|" : "",
                              (unsigned long long)row->line[k], row->f[k]);
    snprintf(s->text + n, sizeof s->text - n, ">%llu\n", (unsigned long long)row->end_line);
    return ++s->nrec == s->stop_at ? CPN_EIO : CPN_OK;
}

/* Parses text fed in pieces of `step` bytes (0: whole) and returns the status. */
static int parse(const char *text, size_t len, unsigned opts, size_t step, struct seen *s,
                 struct csvrow_reader *r)
{
    csvrow_init(r, opts, on_row, s);
    int rc = CPN_OK;
    for (size_t at = 0; at < len && !rc;) {
        size_t n = step && len - at > step ? step : len - at;
        rc = csvrow_feed(r, text + at, n);
        at += n;
    }
    if (!rc)
        rc = csvrow_finish(r);
    return rc;
}

/* Checks the records of text fed whole, then in pieces of 1 to 3 bytes (from
 * min_step: a BOM is recognised only when the first piece holds it whole). */
static void expect_from(const char *text, unsigned opts, size_t min_step, const char *want)
{
    size_t len = strlen(text);
    for (size_t step = 0; step <= 3; step = step ? step + 1 : min_step) {
        struct seen s = {0};
        struct csvrow_reader r;
        int rc = parse(text, len, opts, step, &s, &r);
        csvrow_free(&r);
        cr_assert_eq(rc, CPN_OK, "step %zu", step);
        cr_assert_str_eq(s.text, want, "step %zu: got \"%s\"", step, s.text);
    }
}

static void expect(const char *text, unsigned opts, const char *want)
{
    expect_from(text, opts, 1, want);
}

Test(csvrow, lines_of_fields_and_records)
{
    expect("a,b\n1,2\n", 0, "1:a|1:b>1\n2:1|2:2>2\n");
    /* A line end inside a quoted field counts; the next field begins on a later line. */
    expect("a,\"x\ny\",c\nd\n", 0, "1:a|1:x\ny|2:c>2\n3:d>3\n");
    /* CR LF, a lone CR and blank lines. */
    expect("a\r\n\r\nb\rc\n\n\nd", 0, "1:a>1\n3:b>3\n4:c>4\n7:d>7\n");
    /* CR LF inside a quoted field counts once. */
    expect("\"p\r\nq\",r\ns\n", 0, "1:p\r\nq|2:r>2\n3:s>3\n");
}

Test(csvrow, trim_and_bom)
{
    expect(" a , b \n", 0, "1: a |1: b >1\n");
    expect(" a , b \n", CSVROW_TRIM, "1:a|1:b>1\n");
    expect_from("\xEF\xBB\xBFh\n", CSVROW_BOM, 3, "1:h>1\n");
    expect("\xEF\xBB\xBFh\n", 0, "1:\xEF\xBB\xBFh>1\n");
}

static void expect_error(const char *text, size_t len, unsigned opts, int syntax, uint64_t line,
                         size_t field)
{
    struct seen s = {0};
    struct csvrow_reader r;
    int rc = parse(text, len, opts, 0, &s, &r);
    cr_assert_eq(rc, CPN_EINPUT);
    cr_assert_eq(csvrow_syntax(&r), syntax);
    cr_assert_eq(csvrow_line(&r), line, "line %llu", (unsigned long long)csvrow_line(&r));
    cr_assert_eq(csvrow_field_index(&r), field);
    cr_assert_not_null(csvrow_strerror(&r));
    csvrow_free(&r);
}

Test(csvrow, syntax_errors)
{
    expect_error("a,b\n1,x\"y\n", 10, 0, CSVROW_BAD_QUOTING, 2, 1);
    /* An unterminated field is reported on the line where it begins. */
    expect_error("a,b\n1,\"x\ny\n", 11, 0, CSVROW_UNTERMINATED, 2, 1);
    expect_error("a,b\n1,x\0y\n", 10, CSVROW_NUL, CSVROW_NUL_BYTE, 2, 1);
}

Test(csvrow, nul_allowed_without_the_option)
{
    struct seen s = {0};
    struct csvrow_reader r;
    cr_assert_eq(parse("a\0b\n", 4, 0, 0, &s, &r), CPN_OK);
    cr_assert_eq(csvrow_syntax(&r), CSVROW_SYNTAX_OK);
    csvrow_free(&r);
}

Test(csvrow, the_function_stops_the_parse)
{
    struct seen s = {.stop_at = 2};
    struct csvrow_reader r;
    int rc = parse("a\nb\nc\nd\n", 8, 0, 0, &s, &r);
    cr_assert_eq(rc, CPN_EIO);
    cr_assert_eq(csvrow_syntax(&r), CSVROW_SYNTAX_OK);
    cr_assert_eq(s.nrec, 2);
    cr_assert_eq(csvrow_feed(&r, "e\n", 2), CPN_EIO);
    cr_assert_eq(csvrow_finish(&r), CPN_EIO);
    cr_assert_eq(s.nrec, 2);
    csvrow_free(&r);
}

/* What a parse gave: the records, then the status and where it stopped. */
static void outcome(const char *text, size_t len, unsigned opts, size_t step, char *out,
                    size_t outlen)
{
    struct seen s = {0};
    struct csvrow_reader r;
    int rc = parse(text, len, opts, step, &s, &r);
    snprintf(out, outlen, "%s#rc %d syntax %d line %llu field %zu", s.text, rc, csvrow_syntax(&r),
             (unsigned long long)csvrow_line(&r), csvrow_field_index(&r));
    csvrow_free(&r);
}

/* Plain lines (no quote, no CR) are split by csvrow itself when they arrive whole, and
 * by libcsv when the input comes a byte at a time: random inputs of plain and other
 * lines give the same records, errors, lines and fields both ways. */
Test(csvrow, plain_lines_read_as_libcsv_reads_them)
{
    /* Short fields and every kind of byte; and long runs of text, which are split a
     * word at a time. */
    static const char *const alphabets[] = {"ab,,,\n\n\"\r \t",
                                            "abcdefghijklmnopqrstuvwxyz0123456789.,\n\" \r"};
    static const unsigned opts[] = {0, CSVROW_TRIM, CSVROW_NUL, CSVROW_TRIM | CSVROW_NUL};
    uint32_t x = 12345;
    for (int t = 0; t < 20000; t++) {
        char text[160];
        size_t len = 0;
        const char *alphabet = alphabets[t % 2];
        size_t na = strlen(alphabet);
        x = x * 1664525u + 1013904223u;
        size_t want = (x >> 8) % sizeof text;
        for (; len < want; len++) {
            x = x * 1664525u + 1013904223u;
            text[len] = alphabet[(x >> 8) % na];
        }
        for (size_t o = 0; o < sizeof opts / sizeof opts[0]; o++) {
            char whole[4096], bytes[4096];
            outcome(text, len, opts[o], 0, whole, sizeof whole);
            outcome(text, len, opts[o], 1, bytes, sizeof bytes);
            cr_assert_str_eq(whole, bytes, "input \"%.*s\", options %u", (int)len, text, opts[o]);
        }
    }
}
