/* import: real traces into cpnsim's job CSV and cluster JSON.
 *
 * Every source is read whole (the largest, Philly's, is 3.4 MB) and split into rows:
 * CSV through libcsv with line numbers counted as the job CSV reader counts them,
 * Gavel's tab-separated lines by hand. A converter then looks at each row and either
 * turns it into a job, or skips it under a named reason, or converts it while noting
 * what it changed; the reasons and notes are counted and reported with the first
 * line of each, so nothing is dropped silently. Malformed input (a cell that is not
 * a number, a missing column) is an error with file, line and column: a trace that
 * does not parse is not guessed at.
 *
 * Jobs are built through sim/jobin, so an imported job satisfies exactly the rules
 * of the job CSV. Fields a source lacks take the values of import_assume below, each
 * with its reason; docs/import.md lists them per format.
 *
 * Machine lists become cluster JSON: identical machines are grouped into one node
 * entry with a count, GPU types get their memory from import_gpus, and every type has
 * speed 1.0 and no catalogue profile, because the traces' durations were measured on
 * those very GPUs and must replay unchanged. */
#include "import.h"

#include "../engine/catalog.h"
#include "../engine/cluster.h"
#include "jobin.h"
#include "trace.h"
#include "../base/csvrow.h"
#include "../base/util.h"

#include <cjson/cJSON.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    IMP_REASONS_MAX = 24, /* distinct skip reasons and notes of one conversion */
    IMP_SHOW_MAX = 40,    /* longest cell quoted in a message */
    IMP_ID_BUF = 64,
    IMP_NAME_BUF = 64,
};

/* Values for what the sources lack, each with its reason (docs/import.md). */
static const struct import_assume {
    double cpus, mem_gib;      /* a Philly or Gavel job's CPU and memory requests: none, so that
                                  only GPUs constrain placement, as in the simulators
                                  published with these traces (Philly and Gavel give none) */
    double data_gib, image_gib; /* nothing to move: every source is one datacenter and
                                   none records image or dataset sizes */
    unsigned batch, epochs;     /* placeholders of a duration job (the run time is given) */
    unsigned philly_machine_gpus; /* the largest Philly machine (cluster_machine_list) */
    double node_cpus_per_gpu;     /* Philly machines: cores and memory per GPU, placeholders */
    double node_mem_gib_per_gpu;  /* (the machine list has neither; Philly jobs ask for none) */
    double unknown_gpu_mem_gib; /* GPU types whose memory is undisclosed (openb G1-G3, PAI
                                   MISC): the smallest memory of the disclosed types, 16 GiB,
                                   so a memory-aware policy never over-commits them */
    double link_gbps, link_latency_ms; /* a data site (a Philly virtual cluster) to its compute
                                          site: the same datacenter */
    double gavel_default_batch; /* a Gavel job type without "(batch size B)" (CycleGAN, A3C):
                                   batch 1, as the catalogue reads Gavel's table */
} import_assume = {
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

#define IMP_MIB_PER_GIB 1024.0
#define IMP_MILLI 1000.0
/* A run longer than this (about 31 years) is not a real job: skipped. */
#define IMP_DURATION_MAX 1e9

/* GPU memory of the models named in the machine lists (vendor figures, GB taken as
 * GiB). */
static const struct import_gpu {
    const char *name;
    double mem_gib;
} import_gpus[] = {
    {"P100", 16}, {"T4", 16}, {"V100", 16}, {"V100M16", 16}, {"V100M32", 32}, {"A10", 24},
};

/* Gavel's job types and the catalogue's models (docs/catalogue.md). */
static const struct import_gavel {
    const char *gavel, *model;
} import_gavel_models[] = {
    {"ResNet-50", "resnet50"},       {"ResNet-18", "resnet18_cifar"}, {"Transformer", "transformer"},
    {"LM", "lstm_lm"},               {"Recommendation", "recommendation"},
    {"CycleGAN", "cyclegan"},        {"A3C", "a3c"},
};

/* ------------------------------------------------------------------------- */
/* Reasons and notes, counted. */

struct tally {
    struct {
        const char *what;
        size_t count;
        uint64_t first_line;
        bool skip; /* a skipped row, not a note */
    } r[IMP_REASONS_MAX];
    size_t n;
};

static void tally_add(struct tally *t, bool skip, const char *what, uint64_t line)
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

static void tally_print(const struct tally *t, FILE *f, const char *cmd, const char *file)
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

typedef int (*row_fn)(void *ctx, char **f, size_t nf, uint64_t line);

struct icsv {
    row_fn fn;
    void *ctx;
};

static int icsv_row(void *ctx, const struct csvrow *row)
{
    const struct icsv *c = ctx;
    return c->fn(c->ctx, row->f, row->n, row->line[0]);
}

/* Calls fn on each non-blank record of buf with the line it begins on. Returns 0,
 * fn's error, or CPN_EINPUT for bad quoting. */
static int icsv_parse(const char *name, const char *buf, size_t len, row_fn fn, void *ctx,
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
                                                               : "bad quoting");
    csvrow_free(&r);
    return rc;
}

/* Trims blanks in place (the sources pad some cells). */
static char *trim(char *s)
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

struct imp {
    const char *name;
    const struct import_opts *o;
    const struct catalog *cat;
    char *err;
    size_t errlen;
    struct tally t;
    size_t rows;
    bool have_header;
    int col[16];  /* column index of each wanted field, -1 when absent */
    size_t ncols; /* the header's field count */
    void *rows_v; /* the format's rows */
    size_t n, cap;
    size_t changed;
};

static int imp_fail(const struct imp *m, uint64_t line, const char *col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int imp_fail(const struct imp *m, uint64_t line, const char *col, const char *fmt, ...)
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
static int imp_header(struct imp *m, char **f, size_t nf, uint64_t line, const char *const *want,
                      const bool *required, size_t nwant)
{
    CPN_ASSERT(nwant <= sizeof m->col / sizeof *m->col);
    m->have_header = true;
    m->ncols = nf;
    for (size_t w = 0; w < nwant; w++)
        m->col[w] = -1;
    for (size_t k = 0; k < nf; k++) {
        const char *name = trim(f[k]);
        size_t w = 0;
        while (w < nwant && strcmp(want[w], name) != 0)
            w++;
        if (w == nwant)
            continue;
        if (m->col[w] >= 0)
            return imp_fail(m, line, name, "duplicate column (also column %d)", m->col[w] + 1);
        m->col[w] = (int)k;
    }
    for (size_t w = 0; w < nwant; w++)
        if (required[w] && m->col[w] < 0)
            return imp_fail(m, line, want[w], "missing required column");
    return CPN_OK;
}

/* Checks a data row's field count. */
static int imp_fields(const struct imp *m, size_t nf, uint64_t line)
{
    if (nf != m->ncols)
        return imp_fail(m, line, "row", "has %zu fields, the header %zu", nf, m->ncols);
    return CPN_OK;
}

/* A number cell (blanks trimmed). */
static int imp_num(const struct imp *m, char **f, int col, const char *name, uint64_t line,
                   double *out)
{
    const char *s = trim(f[col]);
    if (cpn_parse_double(s, out) != CPN_OK)
        return imp_fail(m, line, name, "'%.*s' is not a finite number", IMP_SHOW_MAX, s);
    return CPN_OK;
}

/* A whole-number cell (blanks trimmed). */
static int imp_whole(const struct imp *m, char **f, int col, const char *name, uint64_t line,
                     uint64_t *out)
{
    const char *s = trim(f[col]);
    if (cpn_parse_u64(s, out) != CPN_OK)
        return imp_fail(m, line, name, "'%.*s' is not a whole number >= 0", IMP_SHOW_MAX, s);
    return CPN_OK;
}

static void *imp_push(struct imp *m, size_t size)
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
struct irow {
    double submit;   /* in the source's clock */
    double duration; /* < 0: none (Gavel gives steps) */
    uint64_t line;
    uint64_t samples;
    unsigned gpus, batch;
    int model; /* -1: none */
    double cpus, mem_gib;
    char *id, *origin;
};

static int irow_cmp(const void *a, const void *b)
{
    const struct irow *x = a, *y = b;
    if (x->submit != y->submit)
        return x->submit < y->submit ? -1 : 1;
    return x->line < y->line ? -1 : x->line > y->line;
}

static void irows_free(struct imp *m)
{
    struct irow *r = m->rows_v;
    for (size_t i = 0; i < m->n; i++) {
        free(r[i].id);
        free(r[i].origin);
    }
    free(m->rows_v);
    m->rows_v = NULL;
}

/* Folds a job wider than --max-gpus onto max_gpus GPUs, keeping its GPU time. */
static void irow_fold(struct imp *m, struct irow *r)
{
    static const char what[] = "folded onto --max-gpus GPUs, GPU time kept (duration or steps "
                               "scaled by gpus / max-gpus)";
    unsigned max = m->o ? m->o->max_gpus : 0;
    if (!max || r->gpus <= max)
        return;
    if (r->duration >= 0)
        r->duration = r->duration * r->gpus / max;
    /* A model job keeps its samples: with fewer GPUs each epoch takes more steps. */
    r->gpus = max;
    m->changed++;
    tally_add(&m->t, false, what, r->line);
}

/* Sorts the rows and builds the job set; the first submit time becomes 0. */
static int imp_build(struct imp *m, const char *sha256, struct jobset *out)
{
    struct irow *r = m->rows_v;
    if (m->n)
        qsort(r, m->n, sizeof *r, irow_cmp);
    double t0 = m->n ? r[0].submit : 0;
    struct jobin *b = jobin_create(m->name, m->cat);
    int rc = CPN_OK;
    for (size_t i = 0; i < m->n && !rc; i++) {
        struct jobin_row row = {.line = r[i].line > UINT32_MAX ? UINT32_MAX : (uint32_t)r[i].line};
        struct jobin_val *f = row.f;
        f[JOBIN_ID] = (struct jobin_val){.kind = JOBIN_TEXT, .text = r[i].id};
        f[JOBIN_SUBMIT] = (struct jobin_val){.kind = JOBIN_NUM, .num = r[i].submit - t0};
        f[JOBIN_MODEL] = (struct jobin_val){
            .kind = JOBIN_TEXT, .text = r[i].model >= 0 ? catalog_model_name(m->cat, r[i].model) : "-"};
        f[JOBIN_BATCH] = (struct jobin_val){.kind = JOBIN_NUM, .num = r[i].batch};
        f[JOBIN_EPOCHS] = (struct jobin_val){.kind = JOBIN_NUM, .num = import_assume.epochs};
        f[JOBIN_DATA] = (struct jobin_val){.kind = JOBIN_NUM, .num = import_assume.data_gib};
        f[JOBIN_GPUS] = (struct jobin_val){.kind = JOBIN_NUM, .num = r[i].gpus};
        f[JOBIN_CPUS] = (struct jobin_val){.kind = JOBIN_NUM, .num = r[i].cpus};
        f[JOBIN_MEM] = (struct jobin_val){.kind = JOBIN_NUM, .num = r[i].mem_gib};
        f[JOBIN_IMAGE] = (struct jobin_val){.kind = JOBIN_NUM, .num = import_assume.image_gib};
        f[JOBIN_ORIGIN] = (struct jobin_val){.kind = JOBIN_TEXT, .text = r[i].origin};
        if (r[i].duration >= 0)
            f[JOBIN_DURATION] = (struct jobin_val){.kind = JOBIN_NUM, .num = r[i].duration};
        if (r[i].samples)
            f[JOBIN_SAMPLES] = (struct jobin_val){.kind = JOBIN_NUM, .num = (double)r[i].samples};
        rc = jobin_add(b, &row, m->err, m->errlen);
    }
    if (rc) {
        jobin_destroy(b);
        return rc;
    }
    return jobin_finish(b, sha256, out, m->err, m->errlen);
}

/* ---- Philly: timestamp, duration, num_gpus, gpu_time, cluster ---- */

enum { PH_TS, PH_DUR, PH_GPUS, PH_GPU_TIME, PH_CLUSTER, PH_N };
static const char *const philly_cols[PH_N] = {"timestamp", "duration", "num_gpus", "gpu_time",
                                              "cluster"};
static const bool philly_req[PH_N] = {true, true, true, false, true};

/* Seconds since 1970-01-01 of "YYYY-MM-DD HH:MM:SS" (no time zone: the trace has
 * none, and only differences are used). Returns false when malformed. */
static bool parse_timestamp(const char *s, double *out)
{
    int y, mo, d, h, mi, se, n = 0;
    if (strlen(s) != 19 || sscanf(s, "%4d-%2d-%2d %2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &se, &n) != 6 ||
        n != 19)
        return false;
    static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] + (mo == 2 && leap) || h > 23 || mi > 59 ||
        se > 60 || h < 0 || mi < 0 || se < 0)
        return false;
    /* Days from civil (H. Hinnant's algorithm). */
    long yy = y - (mo <= 2);
    long era = (yy >= 0 ? yy : yy - 399) / 400;
    long yoe = yy - era * 400;
    long doy = (153 * (mo > 2 ? mo - 3 : mo + 9) + 2) / 5 + d - 1;
    long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    long days = era * 146097 + doe - 719468;
    *out = (double)days * 86400.0 + h * 3600.0 + mi * 60.0 + se;
    return true;
}

static int philly_row(void *ctx, char **f, size_t nf, uint64_t line)
{
    struct imp *m = ctx;
    if (!m->have_header)
        return imp_header(m, f, nf, line, philly_cols, philly_req, PH_N);
    int rc = imp_fields(m, nf, line);
    if (rc)
        return rc;
    m->rows++;
    double ts, dur, gpu_time = 0;
    uint64_t gpus;
    const char *tss = trim(f[m->col[PH_TS]]);
    if (!parse_timestamp(tss, &ts))
        return imp_fail(m, line, "timestamp", "'%.*s' is not a time 'YYYY-MM-DD HH:MM:SS'",
                        IMP_SHOW_MAX, tss);
    if ((rc = imp_num(m, f, m->col[PH_DUR], "duration", line, &dur)) ||
        (rc = imp_whole(m, f, m->col[PH_GPUS], "num_gpus", line, &gpus)))
        return rc;
    if (m->col[PH_GPU_TIME] >= 0 &&
        (rc = imp_num(m, f, m->col[PH_GPU_TIME], "gpu_time", line, &gpu_time)))
        return rc;
    const char *cl = trim(f[m->col[PH_CLUSTER]]);
    if (!*cl)
        return imp_fail(m, line, "cluster", "empty (the virtual cluster becomes the origin)");
    if (!(dur > 0) || dur > IMP_DURATION_MAX) {
        tally_add(&m->t, true, "duration not in (0, 1e9] s: no run to replay", line);
        return CPN_OK;
    }
    if (gpus == 0 || gpus >= UINT32_MAX) {
        tally_add(&m->t, true, "num_gpus 0 (or absurd): not a GPU job", line);
        return CPN_OK;
    }
    if (m->col[PH_GPU_TIME] >= 0 && fabs(gpu_time - dur * (double)gpus) > 1e-6 * (gpu_time + 1))
        tally_add(&m->t, false, "gpu_time differs from duration x num_gpus; duration used", line);
    if (!m->o->max_gpus && gpus > import_assume.philly_machine_gpus)
        tally_add(&m->t, false,
                  "more GPUs than the largest Philly machine (8): they cannot start on the "
                  "converted Philly cluster, and FIFO stops behind them (--max-gpus 8 folds them)",
                  line);
    struct irow *r = imp_push(m, sizeof *r);
    char id[IMP_ID_BUF];
    snprintf(id, sizeof id, "philly-%" PRIu64, line);
    *r = (struct irow){.submit = ts, .duration = dur, .line = line, .gpus = (unsigned)gpus,
                       .batch = import_assume.batch, .model = -1, .cpus = import_assume.cpus,
                       .mem_gib = import_assume.mem_gib, .id = cpn_strdup(id),
                       .origin = cpn_strdup(cl)};
    irow_fold(m, r);
    return CPN_OK;
}

/* ---- openb: name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, qos,
 *      pod_phase, creation_time, deletion_time, scheduled_time ---- */

enum { OB_NAME, OB_CPU, OB_MEM, OB_GPU, OB_GPU_MILLI, OB_SPEC, OB_PHASE, OB_CREATE, OB_DELETE,
       OB_SCHED, OB_QOS, OB_N };
static const char *const openb_cols[OB_N] = {
    "name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "pod_phase",
    "creation_time", "deletion_time", "scheduled_time", "qos"};
static const bool openb_req[OB_N] = {true, true, true, true, true, false, true, true, true, true,
                                     false};

static int openb_row(void *ctx, char **f, size_t nf, uint64_t line)
{
    struct imp *m = ctx;
    if (!m->have_header)
        return imp_header(m, f, nf, line, openb_cols, openb_req, OB_N);
    int rc = imp_fields(m, nf, line);
    if (rc)
        return rc;
    m->rows++;
    double cpu, mem, created, deleted, sched = 0;
    uint64_t gpus, gmilli;
    const char *name = trim(f[m->col[OB_NAME]]);
    if (!*name)
        return imp_fail(m, line, "name", "empty (the task's name becomes its id)");
    if ((rc = imp_num(m, f, m->col[OB_CPU], "cpu_milli", line, &cpu)) ||
        (rc = imp_num(m, f, m->col[OB_MEM], "memory_mib", line, &mem)) ||
        (rc = imp_whole(m, f, m->col[OB_GPU], "num_gpu", line, &gpus)) ||
        (rc = imp_whole(m, f, m->col[OB_GPU_MILLI], "gpu_milli", line, &gmilli)) ||
        (rc = imp_num(m, f, m->col[OB_CREATE], "creation_time", line, &created)) ||
        (rc = imp_num(m, f, m->col[OB_DELETE], "deletion_time", line, &deleted)))
        return rc;
    if (cpu < 0 || mem < 0)
        return imp_fail(m, line, cpu < 0 ? "cpu_milli" : "memory_mib", "must be >= 0");
    const char *phase = trim(f[m->col[OB_PHASE]]);
    const char *sched_s = trim(f[m->col[OB_SCHED]]);
    if (gpus == 0) {
        tally_add(&m->t, true, "CPU-only task (num_gpu 0): the simulator models GPU jobs", line);
        return CPN_OK;
    }
    if (!*sched_s) {
        tally_add(&m->t, true, "never scheduled (no scheduled_time, Pending): no run time", line);
        return CPN_OK;
    }
    if ((rc = imp_num(m, f, m->col[OB_SCHED], "scheduled_time", line, &sched)))
        return rc;
    if (!(deleted - sched > 0)) {
        tally_add(&m->t, true, "deletion_time <= scheduled_time: no run to replay", line);
        return CPN_OK;
    }
    if (gpus >= UINT32_MAX)
        return imp_fail(m, line, "num_gpu", "too large");
    if (gpus == 1 && gmilli < IMP_MILLI)
        tally_add(&m->t, false,
                  "shares a GPU (gpu_milli < 1000): it takes a whole GPU here, time-sliced "
                  "only if a policy co-locates it",
                  line);
    if (m->col[OB_SPEC] >= 0 && *trim(f[m->col[OB_SPEC]]))
        tally_add(&m->t, false, "gpu_spec (a GPU-type constraint) is not modeled: it may run on "
                                "any type",
                  line);
    if (strcmp(phase, "Running") == 0)
        tally_add(&m->t, false, "still Running when the trace ended: its duration is a lower "
                                "bound",
                  line);
    else if (strcmp(phase, "Failed") == 0)
        tally_add(&m->t, false, "Failed: its run up to the failure is replayed as a whole job",
                  line);
    struct irow *r = imp_push(m, sizeof *r);
    *r = (struct irow){.submit = created, .duration = deleted - sched, .line = line,
                       .gpus = (unsigned)gpus, .batch = import_assume.batch, .model = -1,
                       .cpus = cpu / IMP_MILLI, .mem_gib = mem / IMP_MIB_PER_GIB,
                       .id = cpn_strdup(name),
                       .origin = cpn_strdup(m->o->origin ? m->o->origin : "openb")};
    irow_fold(m, r);
    return CPN_OK;
}

/* ---- Gavel: tab-separated job_type, command, [working_directory,] num_steps_arg,
 *      needs_data_dir, total_steps, scale_factor, priority_weight, SLO,
 *      arrival_time ---- */

enum { GAVEL_FIELDS_OLD = 9, GAVEL_FIELDS = 10 };

static int gavel_line(struct imp *m, char *s, uint64_t line)
{
    char *f[GAVEL_FIELDS + 1];
    size_t nf = 0;
    for (char *p = s;; p++) {
        char *tab = strchr(p, '\t');
        if (nf <= GAVEL_FIELDS)
            f[nf] = p;
        nf++;
        if (!tab)
            break;
        *tab = '\0';
        p = tab;
    }
    if (nf != GAVEL_FIELDS && nf != GAVEL_FIELDS_OLD)
        return imp_fail(m, line, "line",
                        "has %zu tab-separated fields (Gavel's trace format has 10, or 9 without "
                        "working_directory)",
                        nf);
    m->rows++;
    size_t k = nf == GAVEL_FIELDS ? 1 : 0; /* shift past working_directory */
    char *type = trim(f[0]);
    /* "NAME (batch size B)" or "NAME". */
    char name[IMP_NAME_BUF];
    unsigned batch = (unsigned)import_assume.gavel_default_batch;
    const char *bs = strstr(type, " (batch size ");
    size_t nlen = bs ? (size_t)(bs - type) : strlen(type);
    if (bs) {
        uint64_t b = 0;
        char tmp[IMP_NAME_BUF];
        snprintf(tmp, sizeof tmp, "%s", bs + strlen(" (batch size "));
        size_t tl = strlen(tmp);
        bool ok = tl >= 2 && tmp[tl - 1] == ')';
        if (ok) {
            tmp[tl - 1] = '\0';
            ok = cpn_parse_u64(tmp, &b) == CPN_OK && b > 0 && b < UINT32_MAX;
        }
        if (!ok)
            return imp_fail(m, line, "job_type", "'%.*s' is not 'NAME (batch size B)'",
                            IMP_SHOW_MAX, type);
        batch = (unsigned)b;
    }
    if (nlen >= sizeof name)
        nlen = sizeof name - 1;
    memcpy(name, type, nlen);
    name[nlen] = '\0';
    int model = -1;
    for (size_t i = 0; i < sizeof import_gavel_models / sizeof *import_gavel_models; i++)
        if (strcmp(import_gavel_models[i].gavel, name) == 0)
            model = catalog_model_find(m->cat, import_gavel_models[i].model);
    if (model < 0)
        return imp_fail(m, line, "job_type",
                        "unknown Gavel job type '%.*s' (known: ResNet-50, ResNet-18, "
                        "Transformer, LM, Recommendation, CycleGAN, A3C)",
                        IMP_SHOW_MAX, name);
    uint64_t steps, scale;
    double prio, slo, arrival;
    int rc;
    if ((rc = imp_whole(m, f, (int)(4 + k), "total_steps", line, &steps)) ||
        (rc = imp_whole(m, f, (int)(5 + k), "scale_factor", line, &scale)) ||
        (rc = imp_num(m, f, (int)(6 + k), "priority_weight", line, &prio)) ||
        (rc = imp_num(m, f, (int)(7 + k), "SLO", line, &slo)) ||
        (rc = imp_num(m, f, (int)(8 + k), "arrival_time", line, &arrival)))
        return rc;
    if (arrival < 0)
        return imp_fail(m, line, "arrival_time", "must be >= 0");
    if (scale == 0 || scale >= UINT32_MAX)
        return imp_fail(m, line, "scale_factor", "must be a whole number >= 1");
    if (steps == 0) {
        tally_add(&m->t, true, "total_steps 0: nothing to run", line);
        return CPN_OK;
    }
    /* steps x batch x GPUs samples in one epoch make exactly total_steps steps. */
    if (steps > UINT64_MAX / batch / scale)
        return imp_fail(m, line, "total_steps", "too large");
    if (prio != 1)
        tally_add(&m->t, false, "priority_weight other than 1 is not modeled", line);
    if (slo >= 0)
        tally_add(&m->t, false, "SLO (a deadline) is not modeled", line);
    struct irow *r = imp_push(m, sizeof *r);
    char id[IMP_ID_BUF];
    snprintf(id, sizeof id, "gavel-%" PRIu64, line);
    *r = (struct irow){.submit = arrival, .duration = -1, .line = line, .gpus = (unsigned)scale,
                       .batch = batch, .model = model, .samples = steps * batch * scale,
                       .cpus = import_assume.cpus, .mem_gib = import_assume.mem_gib,
                       .id = cpn_strdup(id),
                       .origin = cpn_strdup(m->o->origin ? m->o->origin : "gavel")};
    irow_fold(m, r);
    return CPN_OK;
}

static int gavel_parse(struct imp *m, char *buf)
{
    uint64_t line = 1;
    for (char *p = buf; *p; line++) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        int rc = *trim(p) ? gavel_line(m, p, line) : CPN_OK;
        if (rc)
            return rc;
        if (!nl)
            break;
        p = nl + 1;
    }
    return CPN_OK;
}

bool import_is_job_format(const char *format)
{
    return strcmp(format, "philly") == 0 || strcmp(format, "openb") == 0 ||
           strcmp(format, "gavel") == 0;
}

bool import_is_cluster_format(const char *format)
{
    return strcmp(format, "philly-machines") == 0 || strcmp(format, "openb-nodes") == 0 ||
           strcmp(format, "pai-machines") == 0;
}

static void imp_init(struct imp *m, const char *name, const struct import_opts *o,
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

/* The converters work on C strings, which would end silently at a NUL byte: a file
 * holding one is rejected, naming its line. Returns 0 or CPN_EINPUT. */
static int imp_no_nul(const char *path, const char *buf, size_t len, char *err, size_t errlen)
{
    const char *nul = memchr(buf, '\0', len);
    if (!nul)
        return CPN_OK;
    uint64_t line = 1;
    for (const char *p = buf; p < nul; p++)
        line += *p == '\n';
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
    int rc = cpn_read_file(path, &buf, &len, err, errlen);
    if (rc)
        return rc;
    if ((rc = imp_no_nul(path, buf, len, err, errlen))) {
        free(buf);
        return rc;
    }
    char hex[65];
    cpn_sha256_hex(buf, len, hex);
    struct imp m;
    imp_init(&m, path, o, cat, err, errlen);
    if (strcmp(format, "gavel") == 0) {
        rc = gavel_parse(&m, buf);
    } else {
        rc = icsv_parse(path, buf, len, format[0] == 'p' ? philly_row : openb_row, &m, err,
                        errlen);
        if (!rc && !m.have_header)
            rc = cpn_fail(err, errlen, CPN_EINPUT, "%s: empty file (no header)", path);
    }
    free(buf);
    size_t jobs = m.n;
    if (!rc)
        rc = imp_build(&m, hex, out);
    if (!rc && report) {
        size_t skipped = m.rows - jobs;
        fprintf(report, "cpnsim import %s: %s: %zu rows read, %zu jobs written, %zu skipped\n",
                format, path, m.rows, jobs, skipped);
        tally_print(&m.t, report, format, path);
    }
    if (!rc && st)
        *st = (struct import_stats){m.rows, jobs, m.rows - jobs, m.changed};
    irows_free(&m);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* Clusters. */

/* One group of identical machines. */
struct imach {
    double cpus, mem_gib;
    unsigned gpus;
    char type[IMP_NAME_BUF]; /* "" when gpus is 0 */
    size_t count;
    uint64_t line;
};

/* A GPU type seen in a machine list. */
struct itype {
    char name[IMP_NAME_BUF];
    double mem_gib;
};

struct cl {
    struct imp m;
    struct imach *g;
    size_t ng, gcap;
    struct itype *t;
    size_t nt, tcap;
    struct iid {
        char *id;
        uint64_t line;
    } *ids; /* machine ids, to catch duplicates (sorted at the end) */
    size_t nids, idcap;
    size_t machines;
};

/* Adds a machine to its group (or a new one), and its GPU type. */
static int cl_add(struct cl *c, const char *id, double cpus, double mem_gib, unsigned gpus,
                  const char *type, double type_mem, uint64_t line)
{
    if (gpus > CLUSTER_MAX_NODE_GPUS)
        return imp_fail(&c->m, line, "gpus",
                        "%u GPUs on one machine: the simulator allows at most %d", gpus,
                        CLUSTER_MAX_NODE_GPUS);
    c->machines++;
    cpn_grow((void **)&c->ids, &c->idcap, c->nids + 1, sizeof *c->ids);
    c->ids[c->nids++] = (struct iid){cpn_strdup(id), line};
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
        struct imach *g = &c->g[i];
        if (g->cpus == cpus && g->mem_gib == mem_gib && g->gpus == gpus &&
            strcmp(g->type, gpus ? type : "") == 0) {
            g->count++;
            return CPN_OK;
        }
    }
    cpn_grow((void **)&c->g, &c->gcap, c->ng + 1, sizeof *c->g);
    struct imach *g = &c->g[c->ng++];
    *g = (struct imach){.cpus = cpus, .mem_gib = mem_gib, .gpus = gpus, .count = 1, .line = line};
    snprintf(g->type, sizeof g->type, "%s", gpus ? type : "");
    return CPN_OK;
}

/* A GPU model's name becomes a gpu_types key of the converted cluster: one that starts
 * with x_ would be read back as a comment, and a longer one would be cut short (and two
 * such could merge). Returns 0, or CPN_EINPUT naming the column. */
static int cl_type_ok(const struct cl *c, const char *type, const char *col, uint64_t line)
{
    if (strncmp(type, "x_", 2) == 0)
        return imp_fail(&c->m, line, col, "'%.*s': a GPU type may not start with x_ (cluster "
                        "JSON keeps x_* keys for comments)", IMP_SHOW_MAX, type);
    if (strlen(type) >= IMP_NAME_BUF)
        return imp_fail(&c->m, line, col, "'%.*s...': a GPU type name is longer than %d bytes",
                        IMP_SHOW_MAX, type, IMP_NAME_BUF - 1);
    return CPN_OK;
}

/* The memory of a GPU model of the lists; undisclosed ones get the assumed size. */
static double cl_gpu_mem(struct cl *c, const char *model, uint64_t line)
{
    for (size_t i = 0; i < sizeof import_gpus / sizeof *import_gpus; i++)
        if (strcmp(import_gpus[i].name, model) == 0)
            return import_gpus[i].mem_gib;
    tally_add(&c->m.t, false,
              "GPU model with undisclosed memory (openb G1-G3, PAI MISC, or unknown): 16 GiB "
              "assumed",
              line);
    return import_assume.unknown_gpu_mem_gib;
}

/* ---- Philly machines: machineId, number of GPUs, single GPU mem ---- */

enum { PM_ID, PM_GPUS, PM_MEM, PM_N };
static const char *const pm_cols[PM_N] = {"machineId", "number of GPUs", "single GPU mem"};
static const bool pm_req[PM_N] = {true, true, true};

static int pm_row(void *ctx, char **f, size_t nf, uint64_t line)
{
    struct cl *c = ctx;
    struct imp *m = &c->m;
    if (!m->have_header)
        return imp_header(m, f, nf, line, pm_cols, pm_req, PM_N);
    int rc = imp_fields(m, nf, line);
    if (rc)
        return rc;
    m->rows++;
    uint64_t gpus;
    const char *id = trim(f[m->col[PM_ID]]);
    if (!*id)
        return imp_fail(m, line, "machineId", "empty");
    if ((rc = imp_whole(m, f, m->col[PM_GPUS], "number of GPUs", line, &gpus)))
        return rc;
    char *mem_s = trim(f[m->col[PM_MEM]]), num[IMP_NAME_BUF];
    size_t n = strlen(mem_s);
    double mem = 0;
    bool ok = n >= 3 && n < sizeof num && strcasecmp(mem_s + n - 2, "GB") == 0;
    if (ok) {
        memcpy(num, mem_s, n - 2);
        num[n - 2] = '\0';
        ok = cpn_parse_double(num, &mem) == CPN_OK && mem > 0;
    }
    if (!ok)
        return imp_fail(m, line, "single GPU mem", "'%.*s' is not a size like '12GB'",
                        IMP_SHOW_MAX, mem_s);
    char type[IMP_NAME_BUF];
    snprintf(type, sizeof type, "GPU-%gGB", mem);
    return cl_add(c, id, import_assume.node_cpus_per_gpu * (double)(gpus ? gpus : 1),
                  import_assume.node_mem_gib_per_gpu * (double)(gpus ? gpus : 1), (unsigned)gpus,
                  type, mem, line);
}

/* ---- openb nodes: sn, cpu_milli, memory_mib, gpu, model ---- */

enum { ON_SN, ON_CPU, ON_MEM, ON_GPU, ON_MODEL, ON_N };
static const char *const on_cols[ON_N] = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};
static const bool on_req[ON_N] = {true, true, true, true, true};

static int on_row(void *ctx, char **f, size_t nf, uint64_t line)
{
    struct cl *c = ctx;
    struct imp *m = &c->m;
    if (!m->have_header)
        return imp_header(m, f, nf, line, on_cols, on_req, ON_N);
    int rc = imp_fields(m, nf, line);
    if (rc)
        return rc;
    m->rows++;
    double cpu, mem;
    uint64_t gpus;
    const char *sn = trim(f[m->col[ON_SN]]);
    const char *model = trim(f[m->col[ON_MODEL]]);
    if (!*sn)
        return imp_fail(m, line, "sn", "empty");
    if ((rc = imp_num(m, f, m->col[ON_CPU], "cpu_milli", line, &cpu)) ||
        (rc = imp_num(m, f, m->col[ON_MEM], "memory_mib", line, &mem)) ||
        (rc = imp_whole(m, f, m->col[ON_GPU], "gpu", line, &gpus)))
        return rc;
    if (!(cpu > 0) || !(mem > 0))
        return imp_fail(m, line, cpu > 0 ? "memory_mib" : "cpu_milli", "must be > 0");
    if (gpus && !*model)
        return imp_fail(m, line, "model", "empty for a node with %" PRIu64 " GPUs", gpus);
    if (gpus && (rc = cl_type_ok(c, model, "model", line)))
        return rc;
    double tm = gpus ? cl_gpu_mem(c, model, line) : 0;
    return cl_add(c, sn, cpu / IMP_MILLI, mem / IMP_MIB_PER_GIB, (unsigned)gpus, model, tm, line);
}

/* ---- PAI machines: machine, gpu_type, cap_cpu, cap_mem, cap_gpu (no header) ---- */

enum { PAI_FIELDS = 5 };

static int pai_row(void *ctx, char **f, size_t nf, uint64_t line)
{
    struct cl *c = ctx;
    struct imp *m = &c->m;
    if (nf != PAI_FIELDS)
        return imp_fail(m, line, "row",
                        "has %zu fields (machine, gpu_type, cap_cpu, cap_mem, cap_gpu)", nf);
    if (!m->have_header) {
        m->have_header = true;
        if (strcmp(trim(f[0]), "machine") == 0)
            return CPN_OK; /* a header row (pai_machine_spec.header, prepended) */
    }
    static const int cols[PAI_FIELDS] = {0, 1, 2, 3, 4};
    m->rows++;
    double cpu, mem;
    uint64_t gpus;
    const char *id = trim(f[cols[0]]), *type = trim(f[cols[1]]);
    int rc;
    if (!*id)
        return imp_fail(m, line, "machine", "empty");
    if ((rc = imp_num(m, f, cols[2], "cap_cpu", line, &cpu)) ||
        (rc = imp_num(m, f, cols[3], "cap_mem", line, &mem)) ||
        (rc = imp_whole(m, f, cols[4], "cap_gpu", line, &gpus)))
        return rc;
    if (!(cpu > 0) || !(mem > 0))
        return imp_fail(m, line, cpu > 0 ? "cap_mem" : "cap_cpu", "must be > 0");
    if (gpus && (!*type || strcmp(type, "CPU") == 0))
        return imp_fail(m, line, "gpu_type", "'%s' for a machine with %" PRIu64 " GPUs", type,
                        gpus);
    if (gpus && (rc = cl_type_ok(c, type, "gpu_type", line)))
        return rc;
    double tm = gpus ? cl_gpu_mem(c, type, line) : 0;
    return cl_add(c, id, cpu, mem, (unsigned)gpus, type, tm, line);
}

/* By id, then line. */
static int cmp_iid(const void *a, const void *b)
{
    const struct iid *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x->line > y->line) - (x->line < y->line);
}

/* The cluster JSON of the groups, with the data sites of o->origins_from. */
static char *cl_json(const struct cl *c, const char *site, const char *format, const char *path)
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
        const struct imach *g = &c->g[i];
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
        bool seen = strcmp(o, site) == 0;
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
    int rc = cpn_read_file(path, &buf, &len, err, errlen);
    if (rc)
        return rc;
    if ((rc = imp_no_nul(path, buf, len, err, errlen))) {
        free(buf);
        return rc;
    }
    struct cl c;
    memset(&c, 0, sizeof c);
    imp_init(&c.m, path, o, NULL, err, errlen);
    row_fn fn = format[0] == 'p' && format[1] == 'h' ? pm_row : format[0] == 'o' ? on_row : pai_row;
    rc = icsv_parse(path, buf, len, fn, &c, err, errlen);
    free(buf);
    if (!rc && c.machines == 0)
        rc = cpn_fail(err, errlen, CPN_EINPUT, "%s: no machines", path);
    if (!rc) {
        qsort(c.ids, c.nids, sizeof *c.ids, cmp_iid); /* nids > 0: there are machines */
        for (size_t i = 1; i < c.nids && !rc; i++)
            if (strcmp(c.ids[i].id, c.ids[i - 1].id) == 0)
                rc = imp_fail(&c.m, c.ids[i].line, "machine", "'%.*s' is listed twice (also line %" PRIu64 ")",
                              IMP_SHOW_MAX, c.ids[i].id, c.ids[i - 1].line);
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
