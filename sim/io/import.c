/* import: real traces into cpnsim's job CSV and cluster JSON; the part the sources
 * share. Each source's converter has a file of its own (import_philly.c,
 * import_openb.c, import_gavel.c, import_pai.c; import_conv.h between them).
 *
 * Every source is read whole (the largest, Philly's, is 3.4 MB) and split into rows:
 * CSV through the CSV row reader (sim/base/csvrow.c) with line numbers counted as the
 * job CSV reader counts them, Gavel's tab-separated lines by hand. A converter then
 * looks at each row and either
 * turns it into a job, or skips it under a named reason, or converts it while noting
 * what it changed; the reasons and notes are counted and reported with the first
 * line of each, so nothing is dropped silently. Malformed input (a cell that is not
 * a number, a missing column) is an error with file, line and column: a trace that
 * does not parse is not guessed at.
 *
 * Jobs are built through sim/io/jobin.c, so an imported job satisfies exactly the rules
 * of the job CSV. Fields a source lacks take the values of import_assume below, each
 * with its reason; docs/import.md lists them per format.
 *
 * Machine lists become cluster JSON: identical machines are grouped into one node
 * entry with a count, GPU types get their memory from import_gpus, and every type has
 * speed 1.0 and no catalogue profile, because the traces' durations were measured on
 * those very GPUs and must replay unchanged. */
#include "import_conv.h"

#include "../engine/catalog.h"
#include "../engine/cluster.h"
#include "jobin.h"
#include "trace.h"
#include "../base/csvrow.h"
#include "../base/util.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Values for what the sources lack, each with its reason (docs/import.md). */
const struct import_assume import_assume = {
    .cpus = 0,
    .mem_gib = 0,
    .data_gib = 0,
    .image_gib = 0,
    .batch = 1,
    .epochs = 1,
    .philly_machine_gpus = 8,
    .node_cpus_per_gpu = 4,
    .node_mem_gib_per_gpu = 32,
    .unknown_gpu_mem_gib = 16,
    .link_gbps = 100,
    .link_latency_ms = 0.1,
    .gavel_default_batch = 1,
};

/* GPU memory of the models named in the machine lists (vendor figures, GB taken as
 * GiB). */
static const struct import_gpu {
    const char *name;
    double mem_gib;
} import_gpus[] = {
    {"P100", 16}, {"T4", 16}, {"V100", 16}, {"V100M16", 16}, {"V100M32", 32}, {"A10", 24},
};

/* ------------------------------------------------------------------------- */
/* Reasons and notes, counted. */

void import_tally_add(struct import_tally *t, bool skip, const char *what, uint64_t line)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->r[i].what == what) {
            t->r[i].count++;
            return;
        }
    CPN_ASSERT(t->n < IMP_REASONS_MAX);
    t->r[t->n].what = what;
    t->r[t->n].count = 1;
    t->r[t->n].first_line = line;
    t->r[t->n].skip = skip;
    t->n++;
}

static void tally_print(const struct import_tally *t, FILE *f, const char *cmd, const char *file)
{
    for (int pass = 0; pass < 2 && f; pass++)
        for (size_t i = 0; i < t->n; i++)
            if (t->r[i].skip == (pass == 0))
                fprintf(f, "cpnsim import %s: %s %zu %s: %s (first at %s:%" PRIu64 ")\n", cmd,
                        t->r[i].skip ? "skipped" : "note:", t->r[i].count,
                        t->r[i].count == 1 ? "row" : "rows", t->r[i].what, file,
                        t->r[i].first_line);
}

/* ------------------------------------------------------------------------- */
/* CSV rows with line numbers. */

struct icsv {
    import_row_fn fn;
    void *ctx;
};

static int icsv_row(void *ctx, const struct csvrow *row)
{
    const struct icsv *c = ctx;
    return c->fn(c->ctx, row->f, row->n, row->line[0]);
}

/* Calls fn on each non-blank record of buf with the line it begins on. Returns 0,
 * fn's error, or CPN_EINPUT for bad quoting. */
static int icsv_parse(const char *name, const char *buf, size_t len, import_row_fn fn, void *ctx,
                      char *err, size_t errlen)
{
    struct icsv c = {fn, ctx};
    struct csvrow_reader r;
    csvrow_init(&r, CSVROW_TRIM | CSVROW_BOM, icsv_row, &c);
    int rc = csvrow_feed(&r, buf, len);
    if (!rc)
        rc = csvrow_finish(&r);
    if (rc && csvrow_syntax(&r) != CSVROW_SYNTAX_OK)
        rc = cpn_fail(err, errlen, CPN_EINPUT, "%s:%" PRIu64 ": CSV: %s", name, csvrow_line(&r),
                      csvrow_syntax(&r) == CSVROW_UNTERMINATED ? "unterminated quoted field"
                      : csvrow_syntax(&r) == CSVROW_TOO_LONG   ? "a field over 1 MiB or a line over 16 MiB"
                                                               : "bad quoting");
    csvrow_free(&r);
    return rc;
}

/* Trims blanks in place (the sources pad some cells). */
char *import_trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

/* ------------------------------------------------------------------------- */
/* A converter's state. */

int import_fail(const struct import_conv *m, uint64_t line, const char *col, const char *fmt, ...)
{
    char msg[CPN_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cpn_fail(m->err, m->errlen, CPN_EINPUT, "%s:%" PRIu64 ": %s: %s", m->name, line, col,
                    msg);
}

/* Maps the header's names (trimmed) to the wanted columns; a required one missing
 * is an error. Other columns are ignored (reported once). */
int import_header(struct import_conv *m, char **f, size_t nf, uint64_t line,
                  const char *const *want, const bool *required, size_t nwant)
{
    CPN_ASSERT(nwant <= sizeof m->col / sizeof *m->col);
    m->have_header = true;
    m->ncols = nf;
    for (size_t w = 0; w < nwant; w++)
        m->col[w] = -1;
    for (size_t k = 0; k < nf; k++) {
        const char *name = import_trim(f[k]);
        size_t w = 0;
        while (w < nwant && strcmp(want[w], name) != 0)
            w++;
        if (w == nwant)
            continue;
        if (m->col[w] >= 0)
            return import_fail(m, line, name, "duplicate column (also column %d)", m->col[w] + 1);
        m->col[w] = (int)k;
    }
    for (size_t w = 0; w < nwant; w++)
        if (required[w] && m->col[w] < 0)
            return import_fail(m, line, want[w], "missing required column");
    return CPN_OK;
}

/* Checks a data row's field count. */
int import_fields(const struct import_conv *m, size_t nf, uint64_t line)
{
    if (nf != m->ncols)
        return import_fail(m, line, "row", "has %zu fields, the header %zu", nf, m->ncols);
    return CPN_OK;
}

/* The outcome of parsing cell s as `what` ("a finite number"): CPN_OK, or the
 * message every numeric cell of an import gives. */
static int imp_cell(const struct import_conv *m, int rc, const char *s, const char *what,
                    const char *name, uint64_t line)
{
    if (rc != CPN_OK)
        return import_fail(m, line, name, "'%.*s' is not %s", IMP_SHOW_MAX, s, what);
    return CPN_OK;
}

/* A number cell (blanks trimmed). */
int import_num(const struct import_conv *m, char **f, int col, const char *name, uint64_t line,
               double *out)
{
    const char *s = import_trim(f[col]);
    return imp_cell(m, cpn_parse_double(s, out), s, "a finite number", name, line);
}

/* A whole-number cell (blanks trimmed). */
int import_whole(const struct import_conv *m, char **f, int col, const char *name, uint64_t line,
                 uint64_t *out)
{
    const char *s = import_trim(f[col]);
    return imp_cell(m, cpn_parse_u64(s, out), s, "a whole number >= 0", name, line);
}

size_t import_str(struct import_conv *m, const char *s, size_t n)
{
    size_t off = m->pool_len;
    cpn_grow((void **)&m->pool, &m->pool_cap, off + n + 1, 1);
    memcpy(m->pool + off, s, n);
    m->pool[off + n] = '\0';
    m->pool_len = off + n + 1;
    return off;
}

void *import_push(struct import_conv *m, size_t size)
{
    cpn_grow(&m->rows_v, &m->cap, m->n + 1, size);
    void *p = (char *)m->rows_v + m->n * size;
    memset(p, 0, size);
    m->n++;
    return p;
}

/* ------------------------------------------------------------------------- */
/* Jobs. */

/* One job read from a trace, before sorting. */

static int irow_cmp(const void *a, const void *b)
{
    const struct import_job *x = a, *y = b;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

static void irows_free(struct import_conv *m)
{
    free(m->rows_v);
    m->rows_v = NULL;
    free(m->pool);
    m->pool = NULL;
}

/* Splits a job of G GPUs, more than --pod-gpus N, into P = ceil(G / N) pods of
 * ceil(G / P) GPUs (the fewest pods of at most N GPUs, and the GPUs spread evenly over
 * them), each with a P-th of its CPU and memory requests. The duration is kept: a
 * trace's duration is the run of the whole job, its communication included. Where
 * P x ceil(G / P) exceeds G the job holds more GPUs than it had, for that duration. */
static void import_split(struct import_conv *m, struct import_job *r, unsigned n)
{
    static const char what[] = "split into pods of at most --pod-gpus GPUs (P = ceil(gpus / "
                               "pod-gpus) pods of ceil(gpus / P) GPUs), duration kept";
    static const char more[] = "split into pods holding more GPUs than num_gpus (pods x GPUs per "
                               "pod rounded up): GPU time grows by that ratio";
    unsigned pods = (unsigned)((r->gpus + (uint64_t)n - 1) / n);
    unsigned per = (unsigned)((r->gpus + (uint64_t)pods - 1) / pods);
    if ((uint64_t)pods * per > r->gpus)
        import_tally_add(&m->t, false, more, r->line);
    r->cpus /= pods;
    r->mem_gib /= pods;
    r->gpus = per;
    r->pods = pods;
    m->changed++;
    import_tally_add(&m->t, false, what, r->line);
}

void import_wide(struct import_conv *m, struct import_job *r)
{
    static const char what[] = "folded onto --max-gpus GPUs, GPU time kept (duration or steps "
                               "scaled by gpus / max-gpus)";
    unsigned max = m->o ? m->o->max_gpus : 0;
    unsigned pod = m->o ? m->o->pod_gpus : 0;
    CPN_ASSERT(!(max && pod));
    if (pod && r->gpus > pod) {
        import_split(m, r, pod);
        return;
    }
    if (!max || r->gpus <= max)
        return;
    if (r->duration >= 0)
        r->duration = r->duration * r->gpus / max;
    /* A model job keeps its samples: with fewer GPUs each epoch takes more steps. */
    r->gpus = max;
    m->changed++;
    import_tally_add(&m->t, false, what, r->line);
}

/* Sorts the rows and builds the job set; the first submit time becomes 0. */
static int imp_build(struct import_conv *m, const char *sha256, struct jobset *out)
{
    struct import_job *r = m->rows_v;
    /* Traces are usually in time order already (Gavel's always): a check in one pass
     * spares the sort. The order is total (lines are unique), so either way it is the
     * same. */
    size_t sorted = 1;
    while (sorted < m->n && irow_cmp(&r[sorted - 1], &r[sorted]) < 0)
        sorted++;
    if (sorted < m->n)
        qsort(r, m->n, sizeof *r, irow_cmp);
    double t0 = m->n ? r[0].submit : 0;
    struct jobin *b = jobin_create(m->name, m->cat);
    size_t idlen = 0;
    for (size_t i = 0; i < m->n; i++)
        idlen += strlen(m->pool + r[i].id) + 1;
    jobin_reserve(b, m->n, idlen + 4096); /* ids, and room for the origin names */
    int rc = CPN_OK;
    for (size_t i = 0; i < m->n && !rc; i++) {
        struct jobin_row row = {.line = r[i].line > UINT32_MAX ? UINT32_MAX : (uint32_t)r[i].line};
        struct jobin_val *f = row.f;
        f[JOBIN_ID] = (struct jobin_val){.kind = JOBIN_TEXT, .text = m->pool + r[i].id};
        f[JOBIN_SUBMIT] = (struct jobin_val){.kind = JOBIN_NUM, .num = r[i].submit - t0};
        f[JOBIN_MODEL] = (struct jobin_val){
            .kind = JOBIN_TEXT,
            .text = r[i].model >= 0 ? catalog_model_name(m->cat, r[i].model) : JOBIN_NO_MODEL};
        f[JOBIN_BATCH] = (struct jobin_val){.kind = JOBIN_NUM, .num = r[i].batch};
        f[JOBIN_EPOCHS] = (struct jobin_val){.kind = JOBIN_NUM, .num = import_assume.epochs};
        f[JOBIN_DATA] = (struct jobin_val){.kind = JOBIN_NUM, .num = import_assume.data_gib};
        f[JOBIN_GPUS] = (struct jobin_val){.kind = JOBIN_NUM, .num = r[i].gpus};
        if (r[i].pods > 1)
            f[JOBIN_PODS] = (struct jobin_val){.kind = JOBIN_NUM, .num = r[i].pods};
        f[JOBIN_CPUS] = (struct jobin_val){.kind = JOBIN_NUM, .num = r[i].cpus};
        f[JOBIN_MEM] = (struct jobin_val){.kind = JOBIN_NUM, .num = r[i].mem_gib};
        f[JOBIN_IMAGE] = (struct jobin_val){.kind = JOBIN_NUM, .num = import_assume.image_gib};
        f[JOBIN_ORIGIN] = (struct jobin_val){.kind = JOBIN_TEXT, .text = m->pool + r[i].origin};
        if (r[i].duration >= 0)
            f[JOBIN_DURATION] = (struct jobin_val){.kind = JOBIN_NUM, .num = r[i].duration};
        if (r[i].samples)
            f[JOBIN_SAMPLES] = (struct jobin_val){.kind = JOBIN_NUM, .num = (double)r[i].samples};
        double gmem = m->o->gpu_mem_gib > 0 ? m->o->gpu_mem_gib : r[i].gpu_mem_gib;
        if (gmem >= 0)
            f[JOBIN_GPU_MEM] = (struct jobin_val){.kind = JOBIN_NUM, .num = gmem};
        rc = jobin_add(b, &row, m->err, m->errlen);
    }
    if (rc) {
        jobin_destroy(b);
        return rc;
    }
    return jobin_finish(b, sha256, out, m->err, m->errlen);
}

bool import_is_job_format(const char *format)
{
    return strcmp(format, "philly") == 0 || strcmp(format, "openb") == 0 ||
           strcmp(format, "gavel") == 0;
}

const char *import_job_source(const char *spec, const char **path)
{
    static const char *const formats[] = {"philly", "openb", "gavel"};
    for (size_t i = 0; spec && i < sizeof formats / sizeof *formats; i++) {
        size_t n = strlen(formats[i]);
        if (strncmp(spec, formats[i], n) == 0 && spec[n] == ':') {
            *path = spec + n + 1;
            return formats[i];
        }
    }
    return NULL;
}

bool import_is_cluster_format(const char *format)
{
    return strcmp(format, "philly-machines") == 0 || strcmp(format, "openb-nodes") == 0 ||
           strcmp(format, "pai-machines") == 0;
}

static void imp_init(struct import_conv *m, const char *name, const struct import_opts *o,
                     const struct catalog *cat, char *err, size_t errlen)
{
    static const struct import_opts none;
    memset(m, 0, sizeof *m);
    m->name = name;
    m->o = o ? o : &none;
    m->cat = cat;
    m->err = err;
    m->errlen = errlen;
}

/* Reads the file to convert into *buf (the caller frees it) and *len. The
 * converters work on C strings, which would end silently at a NUL byte: a file
 * holding one is rejected, naming its line, and nothing is left to free. Returns 0,
 * cpn_read_file's error or CPN_EINPUT. */
static int imp_read_text(const char *path, char **buf, size_t *len, char *err, size_t errlen)
{
    int rc = cpn_read_file(path, buf, len, err, errlen);
    if (rc)
        return rc;
    const char *nul = memchr(*buf, '\0', *len);
    if (!nul)
        return CPN_OK;
    uint64_t line = 1;
    for (const char *p = *buf; p < nul; p++)
        line += *p == '\n';
    free(*buf);
    *buf = NULL;
    return cpn_fail(err, errlen, CPN_EINPUT, "%s:%" PRIu64 ": a NUL byte (not a text file)", path,
                    line);
}

int import_jobs(const char *format, const char *path, const struct import_opts *o,
                const struct catalog *cat, struct jobset *out, FILE *report,
                struct import_stats *st, char *err, size_t errlen)
{
    if (!import_is_job_format(format))
        return cpn_fail(err, errlen, CPN_EINPUT,
                        "import: unknown job format '%s' (philly, openb or gavel)", format);
    char *buf = NULL;
    size_t len = 0;
    int rc = imp_read_text(path, &buf, &len, err, errlen);
    if (rc)
        return rc;
    char hex[65];
    cpn_sha256_hex(buf, len, hex);
    struct import_conv m;
    imp_init(&m, path, o, cat, err, errlen);
    if (strcmp(format, "gavel") == 0) {
        rc = import_gavel_parse(&m, buf);
    } else {
        rc = icsv_parse(path, buf, len, format[0] == 'p' ? import_philly_row : import_openb_row, &m,
                        err, errlen);
        if (!rc && !m.have_header)
            rc = cpn_fail(err, errlen, CPN_EINPUT, "%s: empty file (no header)", path);
    }
    free(buf);
    size_t jobs = m.n;
    if (!rc)
        rc = imp_build(&m, hex, out);
    if (!rc && report) {
        size_t skipped = m.rows - jobs;
        fprintf(report, "cpnsim import %s: %s: %zu rows read, %zu jobs %s, %zu skipped\n",
                format, path, m.rows, jobs, m.o->to_run ? "converted" : "written", skipped);
        tally_print(&m.t, report, format, path);
    }
    if (!rc && st)
        *st = (struct import_stats){m.rows, jobs, m.rows - jobs, m.changed};
    irows_free(&m);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* Clusters. */

/* Adds a machine to its group (or a new one), and its GPU type. */
int import_cl_add(struct import_cl *c, const char *id, double cpus, double mem_gib, unsigned gpus,
                  const char *type, double type_mem, uint64_t line)
{
    if (gpus > CLUSTER_MAX_NODE_GPUS)
        return import_fail(&c->m, line, "gpus",
                           "%u GPUs on one machine: the simulator allows at most %d", gpus,
                           CLUSTER_MAX_NODE_GPUS);
    c->machines++;
    cpn_grow((void **)&c->ids, &c->idcap, c->nids + 1, sizeof *c->ids);
    c->ids[c->nids++] = (struct import_id){cpn_strdup(id), line};
    if (gpus && *type) {
        size_t i = 0;
        while (i < c->nt && strcmp(c->t[i].name, type) != 0)
            i++;
        if (i == c->nt) {
            cpn_grow((void **)&c->t, &c->tcap, c->nt + 1, sizeof *c->t);
            snprintf(c->t[c->nt].name, IMP_NAME_BUF, "%s", type);
            c->t[c->nt].mem_gib = type_mem;
            c->nt++;
        }
    }
    for (size_t i = 0; i < c->ng; i++) {
        struct import_machines *g = &c->g[i];
        if (g->cpus == cpus && g->mem_gib == mem_gib && g->gpus == gpus &&
            strcmp(g->type, gpus ? type : "") == 0) {
            g->count++;
            return CPN_OK;
        }
    }
    cpn_grow((void **)&c->g, &c->gcap, c->ng + 1, sizeof *c->g);
    struct import_machines *g = &c->g[c->ng++];
    *g = (struct import_machines){
        .cpus = cpus, .mem_gib = mem_gib, .gpus = gpus, .count = 1, .line = line};
    snprintf(g->type, sizeof g->type, "%s", gpus ? type : "");
    return CPN_OK;
}

/* A GPU model's name becomes a gpu_types key of the converted cluster: one that starts
 * with x_ would be read back as a comment, and a longer one would be cut short (and two
 * such could merge). Returns 0, or CPN_EINPUT naming the column. */
int import_cl_type_ok(const struct import_cl *c, const char *type, const char *col, uint64_t line)
{
    if (strncmp(type, "x_", 2) == 0)
        return import_fail(&c->m, line, col,
                           "'%.*s': a GPU type may not start with x_ (cluster "
                           "JSON keeps x_* keys for comments)",
                           IMP_SHOW_MAX, type);
    if (strlen(type) >= IMP_NAME_BUF)
        return import_fail(&c->m, line, col, "'%.*s...': a GPU type name is longer than %d bytes",
                           IMP_SHOW_MAX, type, IMP_NAME_BUF - 1);
    return CPN_OK;
}

/* The memory of a GPU model of the lists; undisclosed ones get the assumed size. */
double import_cl_gpu_mem(struct import_cl *c, const char *model, uint64_t line)
{
    for (size_t i = 0; i < sizeof import_gpus / sizeof *import_gpus; i++)
        if (strcmp(import_gpus[i].name, model) == 0)
            return import_gpus[i].mem_gib;
    import_tally_add(
        &c->m.t, false,
        "GPU model with undisclosed memory (openb G1-G3, PAI MISC, or unknown): 16 GiB "
        "assumed",
        line);
    return import_assume.unknown_gpu_mem_gib;
}

/* By id, then line. */
static int cmp_iid(const void *a, const void *b)
{
    const struct import_id *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* The cluster JSON of the groups, with the data sites of o->origins_from. */
static char *cl_json(const struct import_cl *c, const char *site, const char *format,
                     const char *path)
{
    cJSON *root = cJSON_CreateObject();
    char note[CPN_ERR_LEN];
    snprintf(note, sizeof note, "converted by `cpnsim import %s` from %s: %zu machines", format,
             path, c->machines);
    cJSON_AddStringToObject(root, "x_source", note);
    cJSON_AddStringToObject(root, "x_assumptions",
                            "GPU types have speed 1 and no catalogue profile, so that trace "
                            "durations replay unchanged; see docs/import.md");
    cJSON_AddStringToObject(root, "controller_site", site);
    cJSON *types = cJSON_AddObjectToObject(root, "gpu_types");
    for (size_t i = 0; i < c->nt; i++) {
        cJSON *t = cJSON_AddObjectToObject(types, c->t[i].name);
        cJSON_AddNumberToObject(t, "mem_gib", c->t[i].mem_gib);
        cJSON_AddNumberToObject(t, "speed", 1);
        cJSON_AddStringToObject(t, "profile", "none");
    }
    cJSON *sites = cJSON_AddArrayToObject(root, "sites");
    cJSON *s = cJSON_CreateObject();
    cJSON_AddStringToObject(s, "name", site);
    cJSON *nodes = cJSON_AddArrayToObject(s, "nodes");
    for (size_t i = 0; i < c->ng; i++) {
        const struct import_machines *g = &c->g[i];
        cJSON *n = cJSON_CreateObject();
        cJSON_AddNumberToObject(n, "count", (double)g->count);
        cJSON_AddNumberToObject(n, "cpus", g->cpus);
        cJSON_AddNumberToObject(n, "mem_gib", g->mem_gib);
        if (g->gpus)
            cJSON_AddStringToObject(n, "gpu_type", g->type);
        cJSON_AddNumberToObject(n, "gpus", g->gpus);
        cJSON_AddItemToArray(nodes, n);
    }
    cJSON_AddItemToArray(sites, s);
    cJSON *links = cJSON_AddArrayToObject(root, "links");
    const struct jobset *js = c->m.o->origins_from;
    /* Each distinct origin once, in the order the jobs first name it. */
    for (size_t j = 0; js && j < js->n; j++) {
        const char *o = jobset_str(js, js->v[j].origin);
        /* A Kubernetes job without an origin (JOBIN_DEFAULT_ORIGIN) comes from the
         * run's --origin or controller site: no data site of its own. */
        bool seen = strcmp(o, site) == 0 || strcmp(o, JOBIN_DEFAULT_ORIGIN) == 0;
        for (size_t k = 0; k < j && !seen; k++)
            seen = js->v[k].origin == js->v[j].origin;
        if (seen)
            continue;
        cJSON *d = cJSON_CreateObject();
        cJSON_AddStringToObject(d, "name", o);
        cJSON_AddStringToObject(d, "x_role", "data site: an origin of the jobs, no nodes");
        cJSON_AddItemToArray(sites, d);
        cJSON *l = cJSON_CreateObject();
        cJSON_AddStringToObject(l, "a", o);
        cJSON_AddStringToObject(l, "b", site);
        cJSON_AddNumberToObject(l, "gbps", import_assume.link_gbps);
        cJSON_AddNumberToObject(l, "latency_ms", import_assume.link_latency_ms);
        cJSON_AddItemToArray(links, l);
    }
    char *text = cJSON_Print(root);
    CPN_ASSERT(text);
    cJSON_Delete(root);
    size_t n = strlen(text);
    char *out = cpn_malloc(n + 2);
    memcpy(out, text, n);
    out[n] = '\n';
    out[n + 1] = '\0';
    cJSON_free(text);
    return out;
}

int import_cluster(const char *format, const char *path, const struct import_opts *o,
                   char **json, FILE *report, struct import_stats *st, char *err,
                   size_t errlen)
{
    if (!import_is_cluster_format(format))
        return cpn_fail(err, errlen, CPN_EINPUT,
                        "import: unknown cluster format '%s' (philly-machines, openb-nodes or "
                        "pai-machines)",
                        format);
    char *buf = NULL;
    size_t len = 0;
    int rc = imp_read_text(path, &buf, &len, err, errlen);
    if (rc)
        return rc;
    struct import_cl c;
    memset(&c, 0, sizeof c);
    imp_init(&c.m, path, o, NULL, err, errlen);
    import_row_fn fn = format[0] == 'p' && format[1] == 'h' ? import_philly_machines_row
                       : format[0] == 'o'                   ? import_openb_nodes_row
                                                            : import_pai_machines_row;
    rc = icsv_parse(path, buf, len, fn, &c, err, errlen);
    free(buf);
    if (!rc && c.machines == 0)
        rc = cpn_fail(err, errlen, CPN_EINPUT, "%s: no machines", path);
    if (!rc) {
        qsort(c.ids, c.nids, sizeof *c.ids, cmp_iid); /* nids > 0: there are machines */
        for (size_t i = 1; i < c.nids && !rc; i++)
            if (strcmp(c.ids[i].id, c.ids[i - 1].id) == 0)
                rc = import_fail(&c.m, c.ids[i].line, "machine",
                                 "'%.*s' is listed twice (also line %" PRIu64 ")", IMP_SHOW_MAX,
                                 c.ids[i].id, c.ids[i - 1].line);
    }
    const char *site = o && o->site ? o->site : format[0] == 'p' && format[1] == 'h' ? "philly"
                                              : format[0] == 'o'                     ? "openb"
                                                                                     : "pai";
    if (!rc && !*site)
        rc = cpn_fail(err, errlen, CPN_EINPUT, "import: --site: empty site name");
    if (!rc) {
        *json = cl_json(&c, site, format, path);
        if (report) {
            size_t gpus = 0;
            for (size_t i = 0; i < c.ng; i++)
                gpus += c.g[i].count * c.g[i].gpus;
            fprintf(report,
                    "cpnsim import %s: %s: %zu machines (%zu GPUs) in %zu node entries, %zu GPU "
                    "types, site '%s'\n",
                    format, path, c.machines, gpus, c.ng, c.nt, site);
            tally_print(&c.m.t, report, format, path);
        }
        if (st)
            *st = (struct import_stats){c.m.rows, c.machines, 0, 0};
    }
    for (size_t i = 0; i < c.nids; i++)
        free(c.ids[i].id);
    free(c.ids);
    free(c.g);
    free(c.t);
    return rc;
}
