/* stats_csv: reading a sweep's CSV tables back whole (see stats.h), for the figures:
 * the header's names and every row's cells as strings, through the one CSV row
 * reader (base/csvrow.h). */
#include "stats.h"

#include <stdlib.h>
#include <string.h>

#include "../base/csvrow.h"
#include "../base/util.h"

/* ---- CSV input ------------------------------------------------------------------ */

struct csv_reader {
    struct stats_csv t;
    size_t cap_cell;
    bool header_done;
};

/* The header's names, then each row's cells, a short row padded with "" and a long
 * one cut to the header's width. */
static int on_row(void *ctx, const struct csvrow *row)
{
    struct csv_reader *r = ctx;
    if (!r->header_done) {
        r->t.col = cpn_malloc(row->n * sizeof *r->t.col);
        for (size_t i = 0; i < row->n; i++)
            r->t.col[i] = cpn_strdup(row->f[i]);
        r->t.n_cols = row->n;
        r->header_done = true;
        return CPN_OK;
    }
    size_t nc = r->t.n_cols, base = r->t.n_rows * nc;
    cpn_grow((void **)&r->t.cell, &r->cap_cell, base + nc, sizeof *r->t.cell);
    for (size_t i = 0; i < nc; i++)
        r->t.cell[base + i] = cpn_strdup(i < row->n ? row->f[i] : "");
    r->t.n_rows++;
    return CPN_OK;
}

int stats_csv_read(const char *path, struct stats_csv *t, char *err, size_t errlen)
{
    char *buf;
    size_t len;
    int rc = cpn_read_file(path, &buf, &len, err, errlen);
    if (rc)
        return rc;
    struct csvrow_reader p;
    struct csv_reader r = {0};
    csvrow_init(&p, CSVROW_TRIM, on_row, &r);
    bool bad = csvrow_feed(&p, buf, len) != CPN_OK || csvrow_finish(&p) != CPN_OK;
    if (bad) {
        rc = cpn_fail(err, errlen, CPN_EINPUT, "%s:%zu: %s", path, r.t.n_rows + 2,
                      csvrow_strerror(&p));
    } else if (!r.header_done) {
        rc = cpn_fail(err, errlen, CPN_EINPUT, "%s:1: no header row", path);
    }
    csvrow_free(&p);
    free(buf);
    if (rc) {
        stats_csv_free(&r.t);
        return rc;
    }
    *t = r.t;
    return CPN_OK;
}

void stats_csv_free(struct stats_csv *t)
{
    for (size_t i = 0; i < t->n_cols; i++)
        free(t->col[i]);
    for (size_t i = 0; i < t->n_rows * t->n_cols; i++)
        free(t->cell[i]);
    free(t->col);
    free(t->cell);
    memset(t, 0, sizeof *t);
}

int stats_csv_col(const struct stats_csv *t, const char *name)
{
    for (size_t i = 0; i < t->n_cols; i++)
        if (strcmp(t->col[i], name) == 0)
            return (int)i;
    return -1;
}

const char *stats_csv_get(const struct stats_csv *t, size_t r, int c)
{
    if (c < 0 || (size_t)c >= t->n_cols || r >= t->n_rows)
        return "";
    return t->cell[r * t->n_cols + (size_t)c];
}
