/* Tests of trace (the job CSV reader and writer) and gen (the queue generator).
 * Input files live in tests/data/jobs/; the tests run from the repository root. */
#include "../sim/engine/catalog.h"
#include "../sim/io/gen.h"
#include "../sim/io/trace.h"
#include "../sim/base/util.h"

#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOBS_DIR "tests/data/jobs/"
#define HEADER "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin\n"
#define ROW "j1,0,resnet50,64,1,1,1,4,24,5,bj\n"

static struct catalog *load_catalog(void)
{
    struct catalog *cat = NULL;
    char err[CPN_ERR_LEN] = "";
    int rc = catalog_create(&cat, err, sizeof err);
    cr_assert_eq(rc, CPN_OK, "catalog_create: %s", err);
    return cat;
}

static void assert_empty(const struct jobset *js)
{
    cr_assert_eq(js->n, 0);
    cr_assert_null(js->v);
    cr_assert_null(js->pool);
    cr_assert_null(js->source);
}

static void assert_has(const char *err, const char *want)
{
    cr_assert(strstr(err, want) != NULL, "message \"%s\" lacks \"%s\"", err, want);
}

/* Reads tests/data/jobs/FILE, expects CPN_EINPUT with a message that begins with
 * where ("FILE:LINE: COLUMN: ") and contains what, and an untouched empty set. */
static void expect_bad_file(const char *file, const char *where, const char *what)
{
    struct catalog *cat = load_catalog();
    char path[256], prefix[512], err[CPN_ERR_LEN] = "";
    snprintf(path, sizeof path, JOBS_DIR "%s", file);
    snprintf(prefix, sizeof prefix, JOBS_DIR "%s", where);
    struct jobset js;
    jobset_init(&js);
    int rc = trace_read_csv(path, cat, &js, NULL, err, sizeof err);
    cr_assert_eq(rc, CPN_EINPUT, "%s: rc %d (%s)", file, rc, err);
    cr_assert(strncmp(err, prefix, strlen(prefix)) == 0, "message \"%s\" does not begin \"%s\"",
              err, prefix);
    assert_has(err, what);
    assert_empty(&js);
    catalog_destroy(cat);
}

/* Same for a buffer named "buf.csv". */
static void expect_bad_buf(const char *csv, const char *where, const char *what)
{
    struct catalog *cat = load_catalog();
    char prefix[512], err[CPN_ERR_LEN] = "";
    snprintf(prefix, sizeof prefix, "buf.csv%s", where);
    struct jobset js;
    jobset_init(&js);
    int rc = trace_read_csv_buf("buf.csv", csv, strlen(csv), cat, &js, err, sizeof err);
    cr_assert_eq(rc, CPN_EINPUT, "rc %d for input:\n%s", rc, csv);
    cr_assert(strncmp(err, prefix, strlen(prefix)) == 0, "message \"%s\" does not begin \"%s\"",
              err, prefix);
    assert_has(err, what);
    assert_empty(&js);
    catalog_destroy(cat);
}

static int read_buf(const char *csv, const struct catalog *cat, struct jobset *js)
{
    char err[CPN_ERR_LEN] = "";
    int rc = trace_read_csv_buf("buf.csv", csv, strlen(csv), cat, js, err, sizeof err);
    cr_assert_eq(rc, CPN_OK, "%s", err);
    return rc;
}

/* Writes js as CSV into a malloc'd, NUL-terminated buffer. */
static char *write_mem(const struct jobset *js, const struct catalog *cat, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    cr_assert_not_null(f);
    cr_assert_eq(trace_write_csv(f, js, cat), CPN_OK);
    cr_assert_eq(fclose(f), 0);
    if (len)
        *len = n;
    return buf;
}

/* The same double, bit for bit except that NaN never occurs. */
static bool same_real(double a, double b) { return a == b && signbit(a) == signbit(b); }

static void assert_same_jobs(const struct jobset *a, const struct jobset *b)
{
    cr_assert_eq(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        const struct job *x = &a->v[i], *y = &b->v[i];
        cr_assert_str_eq(jobset_str(a, x->id), jobset_str(b, y->id), "job %zu", i);
        cr_assert_str_eq(jobset_str(a, x->origin), jobset_str(b, y->origin), "job %zu", i);
        cr_assert(same_real(x->submit_s, y->submit_s), "job %zu submit %.17g %.17g", i,
                  x->submit_s, y->submit_s);
        cr_assert(same_real(x->data_gib, y->data_gib), "job %zu", i);
        cr_assert(same_real(x->cpus, y->cpus), "job %zu", i);
        cr_assert(same_real(x->mem_gib, y->mem_gib), "job %zu", i);
        cr_assert(same_real(x->image_gib, y->image_gib), "job %zu", i);
        cr_assert(same_real(x->duration_s, y->duration_s), "job %zu", i);
        cr_assert(same_real(x->gpu_mem_gib, y->gpu_mem_gib), "job %zu", i);
        cr_assert_eq(x->samples, y->samples, "job %zu", i);
        cr_assert(same_real(x->cpu_cores_used, y->cpu_cores_used), "job %zu", i);
        cr_assert_eq(x->model, y->model, "job %zu", i);
        cr_assert_eq(x->batch, y->batch, "job %zu", i);
        cr_assert_eq(x->epochs, y->epochs, "job %zu", i);
        cr_assert_eq(x->gpus, y->gpus, "job %zu", i);
        cr_assert_eq(jobset_pods(a, i), jobset_pods(b, i), "job %zu", i);
    }
    cr_assert_eq(jobset_has_pods(a), jobset_has_pods(b));
}

/* ---- good input ---- */

Test(trace, good_file)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "";
    int rc = trace_read_csv(JOBS_DIR "good.csv", cat, &js, NULL, err, sizeof err);
    cr_assert_eq(rc, CPN_OK, "%s", err);
    cr_assert_eq(js.n, 4);
    cr_assert_str_eq(js.source, JOBS_DIR "good.csv");

    /* The digest is that of the file's bytes. */
    char *bytes;
    size_t len;
    cr_assert_eq(cpn_read_file(JOBS_DIR "good.csv", &bytes, &len, err, sizeof err), CPN_OK);
    char hex[65];
    cpn_sha256_hex(bytes, len, hex);
    cr_assert_str_eq(js.sha256, hex);
    free(bytes);

    const struct job *j = js.v;
    cr_assert_str_eq(jobset_str(&js, j[0].id), "j1");
    cr_assert_str_eq(jobset_str(&js, j[0].origin), "bj");
    cr_assert_eq(j[0].model, catalog_model_find(cat, "resnet50"));
    cr_assert_eq(j[0].batch, 64);
    cr_assert_eq(j[0].epochs, 3);
    cr_assert_eq(j[0].data_gib, 12.5);
    cr_assert_eq(j[0].gpus, 1);
    cr_assert_eq(j[0].cpus, 4);
    cr_assert_eq(j[0].mem_gib, 24);
    cr_assert_eq(j[0].image_gib, 5.5);
    cr_assert_lt(j[0].duration_s, 0);
    cr_assert_lt(j[0].gpu_mem_gib, 0);
    cr_assert_eq(j[0].samples, 0);
    cr_assert_eq(j[0].line, 2);

    /* A quoted id with a comma; a quoted x_ cell spanning two lines. */
    cr_assert_str_eq(jobset_str(&js, j[1].id), "j2,b");
    cr_assert_eq(j[1].model, catalog_model_find(cat, "bert_base"));
    cr_assert_eq(j[1].submit_s, 10.25);
    cr_assert_eq(j[1].gpu_mem_gib, 30.5);
    cr_assert_eq(j[1].samples, 120000);
    cr_assert_eq(j[1].line, 3);

    /* After the two-line cell and a blank line, lines still count right. */
    cr_assert_str_eq(jobset_str(&js, j[2].id), "j3");
    cr_assert_eq(j[2].model, -1);
    cr_assert_eq(j[2].duration_s, 3600);
    cr_assert_eq(j[2].data_gib, 0);
    cr_assert_eq(j[2].line, 6);

    cr_assert_eq(j[3].model, catalog_model_find(cat, "vgg16"));
    cr_assert_eq(j[3].submit_s, 1000);
    cr_assert_eq(j[3].duration_s, 7200.5);
    cr_assert_eq(j[3].line, 7);

    /* Origins are stored once. */
    cr_assert_eq(j[0].origin, j[3].origin);
    jobset_free(&js);
    assert_empty(&js);
    catalog_destroy(cat);
}

/* A signal's flag ends a read at its next chunk (a CSV of 2 GiB takes half a minute)
 * with CPN_ESTOP, keeping the set untouched; a clear flag reads the file whole. */
Test(trace, stop_flag_ends_the_read)
{
    struct catalog *cat = load_catalog();
    char err[CPN_ERR_LEN] = "";
    struct jobset js;
    jobset_init(&js);
    volatile sig_atomic_t stop = SIGTERM;
    cr_assert_eq(trace_read_csv(JOBS_DIR "good.csv", cat, &js, &stop, err, sizeof err),
                 CPN_ESTOP);
    cr_assert_str_eq(err, JOBS_DIR "good.csv: stopped by signal 15 while reading it");
    assert_empty(&js);
    stop = 0;
    cr_assert_eq(trace_read_csv(JOBS_DIR "good.csv", cat, &js, &stop, err, sizeof err), CPN_OK,
                 "%s", err);
    cr_assert_gt(js.n, 0);
    jobset_free(&js);
    catalog_destroy(cat);
}

Test(trace, good_buffer_variants)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    /* CRLF line ends, a byte-order mark, repeated x_ columns, empty model with a
     * duration, gpus far beyond any node (a run-time matter), samples 0. */
    read_buf("\xEF\xBB\xBF" "x_a,id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,"
             "image_gib,origin,x_a,samples,duration_s\r\n"
             "\r\n"
             "1,\"j\r\n1\",0,,1,1,0,2147483647,0,0,0,bj,2,0,5\r\n"
             "1,j2,1.5e2,resnet50,64,1,1,1,4,24,5,bj,2,,\r\n",
             cat, &js);
    cr_assert_eq(js.n, 2);
    cr_assert_str_eq(jobset_str(&js, js.v[0].id), "j\r\n1");
    cr_assert_eq(js.v[0].model, -1);
    cr_assert_eq(js.v[0].gpus, 2147483647u);
    cr_assert_eq(js.v[0].line, 3);
    cr_assert_eq(js.v[1].line, 5);
    cr_assert_eq(js.v[1].submit_s, 150);
    cr_assert_str_eq(js.source, "buf.csv");
    jobset_free(&js);

    /* No final line end. */
    read_buf(HEADER "j1,0,resnet50,64,1,1,1,4,24,5,bj", cat, &js);
    cr_assert_eq(js.n, 1);
    jobset_free(&js);
    catalog_destroy(cat);
}

Test(trace, success_replaces_and_failure_keeps)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    read_buf(HEADER ROW "j2,0,resnet50,64,1,1,1,4,24,5,bj\n", cat, &js);
    cr_assert_eq(js.n, 2);
    read_buf(HEADER ROW, cat, &js);
    cr_assert_eq(js.n, 1);
    char err[CPN_ERR_LEN];
    const char *bad = HEADER "j1,0,nope,64,1,1,1,4,24,5,bj\n";
    cr_assert_eq(trace_read_csv_buf("b", bad, strlen(bad), cat, &js, err, sizeof err), CPN_EINPUT);
    cr_assert_eq(js.n, 1);
    cr_assert_str_eq(jobset_str(&js, js.v[0].id), "j1");
    jobset_free(&js);
    catalog_destroy(cat);
}

/* ---- bad input: files ---- */

Test(trace, bad_missing_column)
{
    expect_bad_file("bad_missing_column.csv", "bad_missing_column.csv:1: origin: ",
                    "missing required column");
}

Test(trace, bad_unknown_column)
{
    expect_bad_file("bad_unknown_column.csv", "bad_unknown_column.csv:1: priority: ",
                    "unknown column");
}

Test(trace, bad_duplicate_column)
{
    expect_bad_file("bad_duplicate_column.csv", "bad_duplicate_column.csv:1: gpus: ",
                    "duplicate column");
}

Test(trace, bad_not_number)
{
    expect_bad_file("bad_not_number.csv", "bad_not_number.csv:4: submit_s: ",
                    "'abc' is not a finite number");
}

Test(trace, bad_negative)
{
    expect_bad_file("bad_negative.csv", "bad_negative.csv:4: data_gib: ", "'-1'");
}

Test(trace, bad_nan) { expect_bad_file("bad_nan.csv", "bad_nan.csv:2: cpus: ", "'nan'"); }

Test(trace, bad_inf) { expect_bad_file("bad_inf.csv", "bad_inf.csv:3: mem_gib: ", "'inf'"); }

Test(trace, bad_gpus_fraction)
{
    expect_bad_file("bad_gpus_fraction.csv", "bad_gpus_fraction.csv:3: gpus: ",
                    "'1.5' is not a whole number");
}

Test(trace, bad_unknown_model)
{
    expect_bad_file("bad_unknown_model.csv", "bad_unknown_model.csv:2: model: ",
                    "unknown model 'resnet9000'");
}

Test(trace, bad_duplicate_id)
{
    expect_bad_file("bad_duplicate_id.csv", "bad_duplicate_id.csv:5: id: ",
                    "duplicate id 'j7' (first at line 3)");
}

Test(trace, bad_field_count)
{
    expect_bad_file("bad_field_count.csv", "bad_field_count.csv:3: origin: ", "11");
}

Test(trace, bad_unterminated_quote)
{
    expect_bad_file("bad_unterminated_quote.csv", "bad_unterminated_quote.csv:3: origin: ",
                    "unterminated");
}

Test(trace, bad_empty_file)
{
    expect_bad_file("empty.csv", "empty.csv: ", "empty file (no header)");
}

Test(trace, bad_header_only) { expect_bad_file("header_only.csv", "header_only.csv: ", "no jobs"); }

Test(trace, bad_missing_file)
{
    expect_bad_file("does_not_exist.csv", "does_not_exist.csv: ", "cannot open");
}

Test(trace, bad_directory) { expect_bad_file("", ": ", "read error"); }

/* ---- bad input: buffers ---- */

Test(trace, bad_numbers)
{
    expect_bad_buf(HEADER "j1,0,resnet50,64,1,1e999,1,4,24,5,bj\n", ":2: data_gib: ", "1e999");
    expect_bad_buf(HEADER "j1,-inf,resnet50,64,1,1,1,4,24,5,bj\n", ":2: submit_s: ", "-inf");
    expect_bad_buf(HEADER "j1,NaN,resnet50,64,1,1,1,4,24,5,bj\n", ":2: submit_s: ", "NaN");
    expect_bad_buf(HEADER "j1, 0,resnet50,64,1,1,1,4,24,5,bj\n", ":2: submit_s: ", "' 0'");
    expect_bad_buf(HEADER "j1,0,resnet50,64,1,1,1 ,4,24,5,bj\n", ":2: gpus: ", "'1 '");
    expect_bad_buf(HEADER "j1,0,resnet50,64,1,1,1,4,24,-1,bj\n", ":2: image_gib: ", ">= 0");
    expect_bad_buf(HEADER "j1,0,resnet50,64,1,1,1,4,,5,bj\n", ":2: mem_gib: ", "empty");
    expect_bad_buf(HEADER "j1,0,resnet50,64,-1,1,1,4,24,5,bj\n", ":2: epochs: ", "'-1'");
    expect_bad_buf(HEADER "j1,0,resnet50,0,1,1,1,4,24,5,bj\n", ":2: batch: ", ">= 1");
    expect_bad_buf(HEADER "j1,0,resnet50,64,1,1,0,4,24,5,bj\n", ":2: gpus: ", ">= 1");
    expect_bad_buf(HEADER "j1,0,resnet50,64,1,1,2147483648,4,24,5,bj\n", ":2: gpus: ",
                   "below 2147483648");
    expect_bad_buf(HEADER "j1,0,resnet50,64,1,1,1e1,4,24,5,bj\n", ":2: gpus: ", "whole");
    expect_bad_buf(HEADER "j1,0,resnet50,64,1,1,+1,4,24,5,bj\n", ":2: gpus: ", "whole");
    expect_bad_buf(HEADER "j1,0,resnet50,abc,1,1,1,4,24,5,bj\n", ":2: batch: ", "'abc'");
}

Test(trace, bad_optional_columns)
{
    const char *h = "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,"
                    "duration_s,gpu_mem_gib,samples\n";
    char csv[512];
    snprintf(csv, sizeof csv, "%sj1,0,-,1,1,0,1,0,0,0,bj,0,,\n", h);
    expect_bad_buf(csv, ":2: duration_s: ", "> 0");
    snprintf(csv, sizeof csv, "%sj1,0,resnet50,1,1,0,1,0,0,0,bj,,-2,\n", h);
    expect_bad_buf(csv, ":2: gpu_mem_gib: ", ">= 0");
    snprintf(csv, sizeof csv, "%sj1,0,resnet50,1,1,0,1,0,0,0,bj,,,1.5\n", h);
    expect_bad_buf(csv, ":2: samples: ", "whole");
    snprintf(csv, sizeof csv, "%sj1,0,resnet50,1,1,0,1,0,0,0,bj,,,-3\n", h);
    expect_bad_buf(csv, ":2: samples: ", "'-3'");
    snprintf(csv, sizeof csv, "%sj1,0,-,1,1,0,1,0,0,0,bj,,,\n", h);
    expect_bad_buf(csv, ":2: model: ", "duration_s");
    snprintf(csv, sizeof csv, "%sj1,0,,1,1,0,1,0,0,0,bj,,,\n", h);
    expect_bad_buf(csv, ":2: model: ", "duration_s");
    snprintf(csv, sizeof csv, "%sj1,0,notamodel,1,1,0,1,0,0,0,bj,60,,\n", h);
    expect_bad_buf(csv, ":2: model: ", "unknown model 'notamodel'");
}

Test(trace, bad_text_cells)
{
    expect_bad_buf(HEADER ",0,resnet50,64,1,1,1,4,24,5,bj\n", ":2: id: ", "empty");
    expect_bad_buf(HEADER "j1,0,resnet50,64,1,1,1,4,24,5,\n", ":2: origin: ", "empty");
    expect_bad_buf(HEADER " j1,0,resnet50,64,1,1,1,4,24,5,bj\n", ":2: id: ", "blanks");
    expect_bad_buf(HEADER "j1,0,resnet50,64,1,1,1,4,24,5,bj \n", ":2: origin: ", "blanks");
    expect_bad_buf(HEADER "j1,0,,64,1,1,1,4,24,5,bj\n", ":2: model: ", "duration_s");
}

/* A row with several bad cells is reported at the first in the header's column
 * order, whatever the order of the fields in the job schema. */
Test(trace, first_bad_cell_in_column_order)
{
    const char *reordered = "gpus,origin,id,submit_s,model,batch,epochs,data_gib,cpus,mem_gib,"
                            "image_gib\n";
    char csv[512];
    snprintf(csv, sizeof csv, "%s0,bj,,0,resnet50,64,1,1,4,24,5\n", reordered);
    expect_bad_buf(csv, ":2: gpus: ", "must be >= 1");
    snprintf(csv, sizeof csv, "%s1,bj,,-1,resnet50,64,1,1,4,24,5\n", reordered);
    expect_bad_buf(csv, ":2: id: ", "empty");
    expect_bad_buf(HEADER "j1,-1,resnet50,0,1,1,1,4,24,5,bj\n", ":2: submit_s: ", ">= 0");
}

Test(trace, bad_structure)
{
    /* Quoting errors name the field they occur in. */
    expect_bad_buf(HEADER ROW "j\"2,0,resnet50,64,1,1,1,4,24,5,bj\n", ":3: id: ", "quot");
    expect_bad_buf(HEADER ROW "\"j2\"x,0,resnet50,64,1,1,1,4,24,5,bj\n", ":3: id: ", "quot");
    expect_bad_buf(HEADER ROW "\"j2\" ,0,resnet50,64,1,1,1,4,24,5,bj\n", ":3: id: ", "quot");
    /* An unterminated quote is reported on the line where it opens. */
    expect_bad_buf(HEADER ROW "j2,\"0\n\n\n", ":3: submit_s: ", "unterminated");
    /* Too many fields name the first extra one. */
    expect_bad_buf(HEADER ROW "j2,0,resnet50,64,1,1,1,4,24,5,bj,x\n", ":3: field 12: ", "extra");
    /* A line of only blanks is a one-field row, not a blank line. */
    expect_bad_buf(HEADER ROW " \n", ":3: submit_s: ", "missing");
    /* Line numbers stay right after a quoted cell with CR LF inside and CR LF ends. */
    expect_bad_buf("id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,x_n\r\n"
                   "j1,0,resnet50,64,1,1,1,4,24,5,bj,\"a\r\nb\r\nc\"\r\n"
                   "\r\n"
                   "j2,0,resnet50,64,1,1,1,4,24,5,bj,\r\n"
                   "j3,0,resnet50,64,1,1,1,x,24,5,bj,\r\n",
                   ":7: cpus: ", "'x'");
    /* Header problems. */
    expect_bad_buf("id,submit_s,Model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin\n" ROW,
                   ":1: Model: ", "unknown column");
    expect_bad_buf("id ,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin\n"
                   ROW,
                   ":1: id : ", "unknown column");
    expect_bad_buf("id,,submit_s\n" ROW, ":1: column 2: ", "empty column name");
    expect_bad_buf("\n\n" HEADER "j1,0,resnet50\n", ":4: batch: ", "missing");
    expect_bad_buf("\n\n\n", ": ", "empty file (no header)");
    expect_bad_buf("", ": ", "empty file (no header)");
    expect_bad_buf(HEADER "\n\n", ": ", "no jobs");
    /* A NUL byte inside a cell. */
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "";
    const char nul[] = HEADER "j\0001,0,resnet50,64,1,1,1,4,24,5,bj\n";
    cr_assert_eq(trace_read_csv_buf("buf.csv", nul, sizeof nul - 1, cat, &js, err, sizeof err),
                 CPN_EINPUT);
    assert_has(err, "buf.csv:2: id: ");
    assert_has(err, "NUL");
    assert_empty(&js);
    catalog_destroy(cat);
}

Test(trace, duplicate_id_after_ids_in_order)
{
    /* Ids in increasing order need no set until one breaks the order (jobin.c); the
     * duplicate of an early id after 3,000 ordered ones is still found, with its line,
     * and so is one right after its first (the order's own check). */
    struct catalog *cat = load_catalog();
    size_t cap = 1 << 20, len = 0;
    char *csv = malloc(cap);
    len += (size_t)snprintf(csv + len, cap - len, "%s", HEADER);
    for (int i = 0; i < 3000; i++)
        len += (size_t)snprintf(csv + len, cap - len, "j%05d,0,resnet50,64,1,1,1,4,24,5,s\n", i);
    size_t keep = len;
    len += (size_t)snprintf(csv + len, cap - len, "j00017,0,resnet50,64,1,1,1,4,24,5,s\n");
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(trace_read_csv_buf("ordered.csv", csv, len, cat, &js, err, sizeof err), CPN_EINPUT);
    assert_has(err, "ordered.csv:3002: id: duplicate id 'j00017' (first at line 19)");
    len = keep + (size_t)snprintf(csv + keep, cap - keep, "j02999,0,resnet50,64,1,1,1,4,24,5,s\n");
    cr_assert_eq(trace_read_csv_buf("ordered.csv", csv, len, cat, &js, err, sizeof err), CPN_EINPUT);
    assert_has(err, "ordered.csv:3002: id: duplicate id 'j02999' (first at line 3001)");
    /* An id out of order that repeats nothing is fine, and so are later ones. */
    len = keep + (size_t)snprintf(csv + keep, cap - keep,
                                  "a,0,resnet50,64,1,1,1,4,24,5,s\nz,0,resnet50,64,1,1,1,4,24,5,s\n");
    read_buf(csv, cat, &js);
    cr_assert_eq(js.n, 3002);
    jobset_free(&js);
    free(csv);
    catalog_destroy(cat);
}

Test(trace, duplicate_id_among_many)
{
    /* Enough rows to make the id set grow several times. */
    struct catalog *cat = load_catalog();
    size_t cap = 1 << 20, len = 0;
    char *csv = malloc(cap);
    len += (size_t)snprintf(csv + len, cap - len, "%s", HEADER);
    for (int i = 0; i < 5000; i++)
        len += (size_t)snprintf(csv + len, cap - len, "id%d,0,resnet50,64,1,1,1,4,24,5,s%d\n", i,
                                i % 7);
    len += (size_t)snprintf(csv + len, cap - len, "id4321,0,resnet50,64,1,1,1,4,24,5,bj\n");
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(trace_read_csv_buf("many.csv", csv, len, cat, &js, err, sizeof err), CPN_EINPUT);
    assert_has(err, "many.csv:5002: id: duplicate id 'id4321' (first at line 4323)");
    assert_empty(&js);
    /* Without the duplicate all load, with 7 distinct origins stored once each. */
    csv[len - strlen("id4321,0,resnet50,64,1,1,1,4,24,5,bj\n")] = '\0';
    read_buf(csv, cat, &js);
    cr_assert_eq(js.n, 5000);
    cr_assert_str_eq(jobset_str(&js, js.v[4999].id), "id4999");
    cr_assert_eq(js.v[7].origin, js.v[0].origin);
    jobset_free(&js);
    free(csv);
    catalog_destroy(cat);
}

Test(trace, chunk_boundaries)
{
    /* Over 64 KiB, every row two lines long: fields and line ends straddle the reader's
     * chunk boundaries, and line numbers must still be right. */
    struct catalog *cat = load_catalog();
    const int rows = 3000;
    size_t cap = 1 << 20, len = 0;
    char *csv = malloc(cap);
    len += (size_t)snprintf(csv + len, cap - len, "x_note,%s", HEADER);
    for (int i = 0; i < rows; i++)
        len += (size_t)snprintf(csv + len, cap - len,
                                "\"note %d,\nsecond line\",job-%d,%d.25,resnet50,64,1,1,1,4,24,5,bj\n",
                                i, i, i);
    cr_assert_gt(len, 2 * 65536);
    char path[] = "/tmp/cpnsim_test_trace_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "wb");
    cr_assert_eq(fwrite(csv, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
    struct jobset a, b;
    jobset_init(&a);
    jobset_init(&b);
    char err[CPN_ERR_LEN] = "";
    int rc = trace_read_csv(path, cat, &a, NULL, err, sizeof err);
    remove(path);
    cr_assert_eq(rc, CPN_OK, "%s", err);
    cr_assert_eq(a.n, (size_t)rows);
    for (int i = 0; i < rows; i++) {
        cr_assert_eq(a.v[i].line, (uint32_t)(2 + 2 * i));
        cr_assert_eq(a.v[i].submit_s, i + 0.25);
    }
    cr_assert_eq(trace_read_csv_buf("same", csv, len, cat, &b, err, sizeof err), CPN_OK);
    assert_same_jobs(&a, &b);
    cr_assert_str_eq(a.sha256, b.sha256);
    free(csv);
    jobset_free(&a);
    jobset_free(&b);
    catalog_destroy(cat);
}

/* ---- writing ---- */

Test(trace, round_trip_file)
{
    struct catalog *cat = load_catalog();
    struct jobset a, b;
    jobset_init(&a);
    jobset_init(&b);
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(trace_read_csv(JOBS_DIR "good.csv", cat, &a, NULL, err, sizeof err), CPN_OK, "%s",
                 err);
    size_t len;
    char *csv = write_mem(&a, cat, &len);
    cr_assert(strncmp(csv, "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,"
                           "origin,duration_s,gpu_mem_gib,samples\n",
                      strlen("id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_"
                             "gib,origin,duration_s,gpu_mem_gib,samples\n")) == 0,
              "%s", csv);
    assert_has(csv, "\"j2,b\"");
    assert_has(csv, "\nj3,20,-,1,1,0,4,16,96,7,gz,3600,,\n");
    read_buf(csv, cat, &b);
    assert_same_jobs(&a, &b);
    /* Writing again gives the same bytes, and the digest matches them. */
    size_t len2;
    char *csv2 = write_mem(&b, cat, &len2);
    cr_assert_eq(len, len2);
    cr_assert(memcmp(csv, csv2, len) == 0);
    char hex[65], hex2[65];
    trace_csv_sha256(&b, cat, hex);
    cpn_sha256_hex(csv2, len2, hex2);
    cr_assert_str_eq(hex, hex2);
    cr_assert_str_eq(b.sha256, hex2);
    free(csv);
    free(csv2);
    jobset_free(&a);
    jobset_free(&b);
    catalog_destroy(cat);
}

Test(trace, round_trip_awkward_values)
{
    struct catalog *cat = load_catalog();
    struct jobset a, b;
    jobset_init(&a);
    jobset_init(&b);
    /* Subnormals are left out: cpn_parse_double rejects them (strtod reports ERANGE).
     * Every value is within the readers' bounds (TRACE_MAX_GIB is the smallest). */
    const double vals[] = {0.1, 1.0 / 3, 2.0 / 3, 1e-300, 2.2250738585072014e-308,
                           999999999.99999988, 123456789.12345678, TRACE_MAX_GIB, 999999999.0,
                           900719925.4740993, 0.30000000000000004, 1e8, 5e-5, 12.5, 0};
    const size_t nv = sizeof vals / sizeof vals[0];
    for (size_t i = 0; i < nv; i++) {
        char id[32];
        snprintf(id, sizeof id, "a \"quoted\"\nid %zu", i);
        struct job j = {
            .submit_s = vals[i],
            .data_gib = vals[(i + 1) % nv],
            .cpus = vals[(i + 2) % nv],
            .mem_gib = vals[(i + 3) % nv],
            .image_gib = vals[(i + 4) % nv],
            .duration_s = i % 3 ? vals[(i + 5) % nv] + 1 : -1,
            .gpu_mem_gib = i % 2 ? vals[(i + 6) % nv] : -1,
            .samples = i % 4 ? UINT64_MAX - i : 0,
            .cpu_cores_used = vals[(i + 7) % nv], /* 0 (absent) once */
            .model = i % 5 ? catalog_model_find(cat, "resnet50") : -1,
            .batch = (uint32_t)(i + 1),
            .epochs = 2147483647u,
            .gpus = (uint32_t)(1 + i % 8),
        };
        if (j.model < 0 && j.duration_s < 0)
            j.duration_s = 60;
        j.id = jobset_intern(&a, id);
        j.origin = jobset_intern(&a, i % 2 ? "site,with,commas" : "bj");
        jobset_push(&a, &j);
    }
    char *csv = write_mem(&a, cat, NULL);
    read_buf(csv, cat, &b);
    assert_same_jobs(&a, &b);
    char *csv2 = write_mem(&b, cat, NULL);
    cr_assert_str_eq(csv, csv2);
    free(csv);
    free(csv2);
    jobset_free(&a);
    jobset_free(&b);
    catalog_destroy(cat);
}

Test(trace, write_omits_absent_optional_columns)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    read_buf(HEADER ROW, cat, &js);
    char *csv = write_mem(&js, cat, NULL);
    cr_assert_str_eq(csv, HEADER ROW);
    free(csv);
    jobset_free(&js);
    catalog_destroy(cat);
}

/* ---- pods (distributed jobs) ---- */

/* pods is optional: empty means 1, and it is written after gpus only when some job has
 * more than one pod, 1 in every other row. */
Test(trace, pods_column)
{
    struct catalog *cat = load_catalog();
    struct jobset js, back;
    jobset_init(&js);
    jobset_init(&back);
    const char *h = "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,"
                    "pods\n";
    char csv[512];
    snprintf(csv, sizeof csv,
             "%sj1,0,resnet50,64,1,1,1,4,24,5,bj,\n"
             "j2,0,resnet50,64,1,1,8,32,192,5,bj,4\n"
             "j3,0,resnet50,64,1,1,2,8,48,5,bj,1\n",
             h);
    read_buf(csv, cat, &js);
    cr_assert_eq(js.n, 3);
    cr_assert(jobset_has_pods(&js));
    cr_assert_eq(jobset_pods(&js, 0), 1, "an empty cell is one pod");
    cr_assert_eq(jobset_pods(&js, 1), 4);
    cr_assert_eq(jobset_pods(&js, 2), 1);
    cr_assert_eq(js.v[1].gpus, 8, "gpus are a pod's");
    cr_assert_eq(js.v[1].cpus, 32, "so are cpus");
    cr_assert_eq(js.v[1].mem_gib, 192, "and mem_gib");
    char *out = write_mem(&js, cat, NULL);
    cr_assert_str_eq(out, "id,submit_s,model,batch,epochs,data_gib,gpus,pods,cpus,mem_gib,"
                          "image_gib,origin\n"
                          "j1,0,resnet50,64,1,1,1,1,4,24,5,bj\n"
                          "j2,0,resnet50,64,1,1,8,4,32,192,5,bj\n"
                          "j3,0,resnet50,64,1,1,2,1,8,48,5,bj\n");
    read_buf(out, cat, &back);
    assert_same_jobs(&js, &back);
    char *again = write_mem(&back, cat, NULL);
    cr_assert_str_eq(out, again);
    free(out);
    free(again);

    /* A pods column of ones (or empty cells) stores nothing and is not written back. */
    snprintf(csv, sizeof csv, "%sj1,0,resnet50,64,1,1,1,4,24,5,bj,1\nj2,0,resnet50,64,1,1,1,4,"
                              "24,5,bj,\n", h);
    read_buf(csv, cat, &js);
    cr_assert_null(js.pods);
    cr_assert_eq(jobset_pods(&js, 1), 1);
    out = write_mem(&js, cat, NULL);
    cr_assert_str_eq(out, HEADER ROW "j2,0,resnet50,64,1,1,1,4,24,5,bj\n");
    free(out);
    /* Without the column, no array at all; and in any column order. */
    read_buf(HEADER ROW, cat, &js);
    cr_assert_null(js.pods);
    read_buf("pods,gpus,id,submit_s,model,batch,epochs,data_gib,cpus,mem_gib,image_gib,origin\n"
             "3,4,j1,0,resnet50,64,1,1,16,96,5,bj\n",
             cat, &js);
    cr_assert_eq(jobset_pods(&js, 0), 3);
    cr_assert_eq(js.v[0].gpus, 4);
    jobset_free(&js);
    jobset_free(&back);
    catalog_destroy(cat);
}

/* pods follows gpus' rules and words; a job's GPUs over all its pods stay below 2^31. */
Test(trace, bad_pods)
{
    const char *h = "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,origin,"
                    "pods\n";
    char csv[512];
    snprintf(csv, sizeof csv, "%sj1,0,resnet50,64,1,1,1,4,24,5,bj,0\n", h);
    expect_bad_buf(csv, ":2: pods: ", "must be >= 1 (got '0')");
    snprintf(csv, sizeof csv, "%sj1,0,resnet50,64,1,1,1,4,24,5,bj,-1\n", h);
    expect_bad_buf(csv, ":2: pods: ", "'-1' is not a whole number >= 1");
    snprintf(csv, sizeof csv, "%sj1,0,resnet50,64,1,1,1,4,24,5,bj,1.5\n", h);
    expect_bad_buf(csv, ":2: pods: ", "'1.5' is not a whole number >= 1");
    snprintf(csv, sizeof csv, "%sj1,0,resnet50,64,1,1,1,4,24,5,bj,2147483648\n", h);
    expect_bad_buf(csv, ":2: pods: ", "must be below 2147483648 (got '2147483648')");
    snprintf(csv, sizeof csv, "%sj1,0,resnet50,64,1,1,1,4,24,5,bj, 2\n", h);
    expect_bad_buf(csv, ":2: pods: ", "' 2'");
    snprintf(csv, sizeof csv, "%sj1,0,resnet50,64,1,1,65536,4,24,5,bj,32768\n", h);
    expect_bad_buf(csv, ":2: pods: ",
                   "32768 pods of 65536 GPUs are 2147483648 GPUs: must be below 2147483648");
    /* The largest job that fits: 2^31 - 1 GPUs in all. */
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    snprintf(csv, sizeof csv, "%sj1,0,resnet50,64,1,1,1,4,24,5,bj,2147483647\n", h);
    read_buf(csv, cat, &js);
    cr_assert_eq(jobset_pods(&js, 0), 2147483647u);
    jobset_free(&js);
    catalog_destroy(cat);
    /* The product is checked whichever of the two columns comes first, and named pods. */
    expect_bad_buf("pods,gpus,id,submit_s,model,batch,epochs,data_gib,cpus,mem_gib,image_gib,"
                   "origin\n2,1073741824,j1,0,resnet50,64,1,1,4,24,5,bj\n",
                   ":2: pods: ", "2 pods of 1073741824 GPUs are 2147483648 GPUs");
    /* Every job needs a GPU in each pod: gpus 0 is refused for any job. */
    snprintf(csv, sizeof csv, "%sj1,0,resnet50,64,1,1,0,4,24,5,bj,4\n", h);
    expect_bad_buf(csv, ":2: gpus: ", "must be >= 1 (got '0')");
}

/* ---- the generator ---- */

static const char *const test_origins[] = {"bj", "sh", "gz"};

static struct gen_spec spec_of(size_t count, uint64_t seed, int arrival, double rate)
{
    return (struct gen_spec){.count = count,
                             .seed = seed,
                             .arrival = arrival,
                             .rate_per_s = rate,
                             .origins = test_origins,
                             .n_origins = 3};
}

static char *gen_csv(const struct gen_spec *sp, const struct catalog *cat, struct jobset *js)
{
    char err[CPN_ERR_LEN] = "";
    jobset_init(js);
    cr_assert_eq(gen_jobs(sp, cat, js, err, sizeof err), CPN_OK, "%s", err);
    return write_mem(js, cat, NULL);
}

Test(gen, same_seed_same_bytes)
{
    struct catalog *cat = load_catalog();
    struct gen_spec sp = spec_of(500, 42, GEN_POISSON, 0.1);
    struct jobset a, b, c;
    char *x = gen_csv(&sp, cat, &a), *y = gen_csv(&sp, cat, &b);
    cr_assert_str_eq(x, y);
    cr_assert_str_eq(a.sha256, b.sha256);
    char hex[65];
    cpn_sha256_hex(x, strlen(x), hex);
    cr_assert_str_eq(a.sha256, hex, "the digest is that of the CSV");
    cr_assert_str_eq(a.source, "<generated: 500 jobs, seed 42, poisson:0.1>");
    sp.seed = 43;
    char *z = gen_csv(&sp, cat, &c);
    cr_assert_str_neq(x, z);
    cr_assert_str_neq(a.sha256, c.sha256);
    free(x);
    free(y);
    free(z);
    jobset_free(&a);
    jobset_free(&b);
    jobset_free(&c);
    catalog_destroy(cat);
}

Test(gen, batch_arrivals_at_zero)
{
    struct catalog *cat = load_catalog();
    struct gen_spec sp = spec_of(100, 1, GEN_BATCH, 0);
    struct jobset js;
    char *csv = gen_csv(&sp, cat, &js);
    cr_assert_eq(js.n, 100);
    for (size_t i = 0; i < js.n; i++)
        cr_assert_eq(js.v[i].submit_s, 0);
    cr_assert_str_eq(jobset_str(&js, js.v[0].id), "j0001");
    cr_assert_str_eq(jobset_str(&js, js.v[99].id), "j0100");
    cr_assert_str_eq(js.source, "<generated: 100 jobs, seed 1, batch>");
    free(csv);
    jobset_free(&js);
    catalog_destroy(cat);
}

Test(gen, poisson_mean_gap)
{
    /* 20,000 gaps of mean 2 s: the sample mean's standard error is 2/sqrt(20000) =
     * 0.014 s, so 3% (0.06 s, over 4 standard errors) is a safe tolerance. */
    struct catalog *cat = load_catalog();
    const double rate = 0.5, tol = 0.03;
    struct gen_spec sp = spec_of(20000, 7, GEN_POISSON, rate);
    struct jobset js;
    char *csv = gen_csv(&sp, cat, &js);
    double prev = 0;
    for (size_t i = 0; i < js.n; i++) {
        cr_assert_geq(js.v[i].submit_s, prev);
        prev = js.v[i].submit_s;
    }
    cr_assert_gt(js.v[0].submit_s, 0);
    double mean_gap = js.v[js.n - 1].submit_s / (double)js.n;
    cr_assert(fabs(mean_gap - 1 / rate) < tol / rate, "mean gap %g, expected %g", mean_gap,
              1 / rate);
    free(csv);
    jobset_free(&js);
    catalog_destroy(cat);
}

Test(gen, jobs_follow_the_distributions)
{
    struct catalog *cat = load_catalog();
    const size_t n = 20000;
    struct gen_spec sp = spec_of(n, 3, GEN_BATCH, 0);
    struct jobset js;
    char *csv = gen_csv(&sp, cat, &js);
    size_t per_gpus[9] = {0}, per_origin[3] = {0};
    size_t *per_model = calloc(catalog_model_count(cat), sizeof *per_model);
    for (size_t i = 0; i < n; i++) {
        const struct job *j = &js.v[i];
        cr_assert_geq(j->model, 0);
        cr_assert(catalog_model_on_h100(cat, j->model));
        per_model[j->model]++;
        size_t nb;
        const unsigned *b = catalog_model_batches(cat, j->model, &nb);
        bool batch_ok = false;
        for (size_t k = 0; k < nb; k++)
            batch_ok |= b[k] == j->batch;
        cr_assert(batch_ok, "batch %u of %s", j->batch, catalog_model_name(cat, j->model));
        cr_assert(j->gpus == 1 || j->gpus == 2 || j->gpus == 4 || j->gpus == 8);
        per_gpus[j->gpus]++;
        /* Per family: dataset GiB and epochs ranges of gen.c's table. */
        static const struct { const char *fam; double lo, hi; unsigned emax; } fr[] = {
            {"vision", 2, 40, 10}, {"detection", 1, 10, 3}, {"nlp", 0.05, 0.5, 3}, {"lm", 0.01, 0.1, 2}};
        const char *fam = catalog_model_family(cat, j->model);
        size_t f = 0;
        while (f < 4 && strcmp(fam, fr[f].fam) != 0)
            f++;
        cr_assert_lt(f, 4, "unexpected family %s", fam);
        cr_assert(j->epochs >= 1 && j->epochs <= fr[f].emax);
        cr_assert_geq(j->data_gib, fr[f].lo);
        cr_assert_leq(j->data_gib, fr[f].hi);
        cr_assert_eq(j->data_gib, round(j->data_gib * 100) / 100);
        cr_assert(j->image_gib >= 3 && j->image_gib <= 12);
        cr_assert_eq(j->image_gib, round(j->image_gib * 100) / 100);
        cr_assert_eq(j->cpus, 4.0 * j->gpus);
        cr_assert_eq(j->mem_gib, 24.0 * j->gpus);
        cr_assert_lt(j->duration_s, 0);
        cr_assert_lt(j->gpu_mem_gib, 0);
        const char *o = jobset_str(&js, j->origin);
        for (size_t k = 0; k < 3; k++)
            per_origin[k] += strcmp(o, test_origins[k]) == 0;
    }
    /* Frequencies within 0.02 of the weights (standard errors are below 0.004). */
    const double w[9] = {[1] = 0.6, [2] = 0.2, [4] = 0.15, [8] = 0.05};
    for (size_t g = 1; g <= 8; g++)
        cr_assert(fabs((double)per_gpus[g] / (double)n - w[g]) < 0.02, "gpus %zu: %zu", g,
                  per_gpus[g]);
    size_t on_h100 = 0;
    for (size_t m = 0; m < catalog_model_count(cat); m++)
        on_h100 += catalog_model_on_h100(cat, (int)m);
    for (size_t m = 0; m < catalog_model_count(cat); m++)
        if (catalog_model_on_h100(cat, (int)m))
            cr_assert(fabs((double)per_model[m] / (double)n - 1.0 / (double)on_h100) < 0.02,
                      "model %s: %zu", catalog_model_name(cat, (int)m), per_model[m]);
    for (size_t k = 0; k < 3; k++)
        cr_assert(fabs((double)per_origin[k] / (double)n - 1.0 / 3) < 0.02);
    free(per_model);
    free(csv);
    jobset_free(&js);
    catalog_destroy(cat);
}

Test(gen, generated_jobs_read_back)
{
    struct catalog *cat = load_catalog();
    struct gen_spec sp = spec_of(12345, 99, GEN_POISSON, 3.0);
    struct jobset js, back;
    jobset_init(&back);
    char *csv = gen_csv(&sp, cat, &js);
    cr_assert_str_eq(jobset_str(&js, js.v[0].id), "j00001");
    cr_assert_str_eq(jobset_str(&js, js.v[12344].id), "j12345");
    read_buf(csv, cat, &back);
    assert_same_jobs(&js, &back);
    cr_assert_str_eq(js.sha256, back.sha256);
    for (size_t i = 0; i < js.n; i++)
        cr_assert_eq(js.v[i].line, back.v[i].line);
    free(csv);
    jobset_free(&js);
    jobset_free(&back);
    catalog_destroy(cat);
}

static void expect_bad_spec(struct gen_spec sp, const char *what)
{
    struct catalog *cat = load_catalog();
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(gen_jobs(&sp, cat, &js, err, sizeof err), CPN_EINPUT, "expected: %s", what);
    assert_has(err, what);
    assert_empty(&js);
    catalog_destroy(cat);
}

Test(gen, invalid_specs)
{
    expect_bad_spec(spec_of(0, 1, GEN_BATCH, 0), "count");
    expect_bad_spec(spec_of(100000001, 1, GEN_BATCH, 0), "count");
    expect_bad_spec(spec_of(10, 1, GEN_POISSON, 0), "rate");
    expect_bad_spec(spec_of(10, 1, GEN_POISSON, -1), "rate");
    expect_bad_spec(spec_of(10, 1, GEN_POISSON, NAN), "rate");
    expect_bad_spec(spec_of(10, 1, 7, 1), "arrival");
    struct gen_spec sp = spec_of(10, 1, GEN_BATCH, 0);
    sp.n_origins = 0;
    expect_bad_spec(sp, "origin");
    sp.origins = NULL;
    expect_bad_spec(sp, "origin");
    const char *const blank[] = {"bj", ""};
    sp.origins = blank;
    sp.n_origins = 2;
    expect_bad_spec(sp, "origin 2");
}

/* A field that never ends (a quoted field of 2 MB, newlines in it) is refused at the
 * reader's limit, naming the line where it begins, instead of being read whole. */
Test(trace, an_endless_field_is_refused_at_its_limit)
{
    struct catalog *cat = load_catalog();
    size_t n = 2u << 20, len = 0;
    char *csv = malloc(n + 256);
    len += (size_t)snprintf(csv, 256, "%s\"", HEADER);
    for (size_t i = 0; i < n / 2; i++, len += 2)
        memcpy(csv + len, "x\n", 2);
    len += (size_t)snprintf(csv + len, 64, "\",0,resnet50,64,1,1,1,4,24,5,bj\n");
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(trace_read_csv_buf("long.csv", csv, len, cat, &js, err, sizeof err), CPN_EINPUT);
    assert_has(err, "long.csv:2: id: a field over 1048576 bytes");
    assert_empty(&js);
    free(csv);
    catalog_destroy(cat);
}
