/* report: formatting of run outputs. Times in CSV files are printed with three
 * decimals (milliseconds); summary numbers with cJSON's shortest exact form. The
 * order of summary fields is fixed, with the wall-clock fields last, so that two
 * runs of the same inputs differ only in those. */
#include "report.h"

#include <cjson/cJSON.h>
#include <csv.h>
#include <errno.h>
#include <gsl/gsl_statistics_double.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../engine/net.h"
#include "../engine/sim.h"
#include "../base/util.h"

/* A text cell, quoted (by libcsv) only when it holds a comma, a quote or a line end. */
static void put_text(FILE *f, const char *s)
{
    if (strpbrk(s, ",\"\r\n"))
        csv_fwrite(f, s, strlen(s));
    else
        fputs(s, f);
}

/* A text cell made of two parts (a site's name and a suffix), quoted as one cell: a
 * site may be named anything its file allows, commas and quotes included. jobs.csv
 * writes one per job, so the parts are joined (and allocated) only when the cell must
 * be quoted. */
static void put_text2(FILE *f, const char *a, const char *b)
{
    if (!strpbrk(a, ",\"\r\n") && !strpbrk(b, ",\"\r\n")) {
        fputs(a, f);
        fputs(b, f);
        return;
    }
    size_t na = strlen(a), nb = strlen(b);
    char *cell = cpn_calloc(na + nb + 1, 1);
    memcpy(cell, a, na);
    memcpy(cell + na, b, nb);
    put_text(f, cell);
    free(cell);
}

int report_timeline_header(void *ctx, const struct sim *s)
{
    FILE *f = ((struct report_timeline *)ctx)->f;
    static const char *const col[] = {"_gpu_util", "_gpu_mem_gib", "_cpu_util"};
    fputs("time_s,queue_len,running,transferring,busy_gpus", f);
    for (size_t i = 0; i < s->cl->n_sites; i++)
        for (size_t c = 0; c < sizeof col / sizeof col[0]; c++) {
            fputc(',', f);
            put_text2(f, s->cl->sites[i].name, col[c]);
        }
    fputc('\n', f);
    return ferror(f) ? -1 : 0;
}

/* Appends ",v" to the row being formatted, as "%zu" or "%u" would write it: a timeline
 * row an hour of a long run is tens of thousands of rows, and vsnprintf's parsing of the
 * format was most of a row's cost. */
static void cur_u(struct report_timeline *tl, uint64_t v)
{
    cpn_grow((void **)&tl->cur, &tl->cur_cap, tl->cur_len + 24, 1);
    tl->cur[tl->cur_len++] = ',';
    tl->cur_len += cpn_fmt_u64(tl->cur + tl->cur_len, v);
}

/* Appends ",v" with `decimals` decimals to the row being formatted, as "%.*f" would
 * write it (cpn_fmt_fixed: a long run formats millions of these). */
static void cur_fixed(struct report_timeline *tl, double v, int decimals)
{
    cpn_grow((void **)&tl->cur, &tl->cur_cap, tl->cur_len + CPN_FIXED_BUF + 2, 1);
    tl->cur[tl->cur_len++] = ',';
    tl->cur_len += cpn_fmt_fixed(tl->cur + tl->cur_len, v, decimals);
}

/* Writes one row: time t and the values in vals. */
static void put_row(FILE *f, double t, const char *vals, size_t len)
{
    char b[CPN_FIXED_BUF];
    fwrite(b, 1, cpn_fmt_fixed(b, t, 3), f);
    fwrite(vals, 1, len, f);
}

int report_timeline_row(void *ctx, const struct sim *s)
{
    struct report_timeline *tl = ctx;
    tl->cur_len = 0;
    cur_u(tl, s->view.queue_len);
    cur_u(tl, s->running);
    cur_u(tl, s->active - s->running);
    cur_u(tl, s->busy_gpus);
    for (size_t i = 0; i < s->cl->n_sites; i++) {
        const struct site *st = &s->cl->sites[i];
        double util = st->gpu_count ? (double)s->site_busy[i] / st->gpu_count : 0.0;
        double mem = s->site_mem_gib[i];
        if (mem < 5e-4) /* sums kept incrementally: no "-0.000" from rounding */
            mem = 0;
        /* The site's CPU utilisation as a scrape now reads its nodes: busy cores (jobs'
         * and other tenants') over all its cores (sums the engine keeps: a row costs
         * O(sites), not O(nodes)). */
        double cpu = s->site_cpus[i] > 0 ? s->site_cpu_used[i] / s->site_cpus[i] : 0.0;
        if (cpu < 5e-5)
            cpu = 0; /* no "-0.0000" from rounding */
        cur_fixed(tl, util, 4);
        cur_fixed(tl, mem, 3);
        cur_fixed(tl, cpu, 4);
    }
    cpn_grow((void **)&tl->cur, &tl->cur_cap, tl->cur_len + 1, 1);
    tl->cur[tl->cur_len++] = '\n';
    /* A sample that reads as the last row did is held back: only the last of a run of
     * such samples is written, and only when a change (or the end) follows it. */
    if (tl->have_prev && tl->cur_len == tl->prev_len && memcmp(tl->cur, tl->prev, tl->cur_len) == 0) {
        tl->held = true;
        tl->held_t = s->now;
        return 0;
    }
    if (tl->held)
        put_row(tl->f, tl->held_t, tl->prev, tl->prev_len);
    put_row(tl->f, s->now, tl->cur, tl->cur_len);
    tl->held = false;
    tl->have_prev = true;
    char *swap = tl->prev;
    size_t swap_cap = tl->prev_cap;
    tl->prev = tl->cur;
    tl->prev_cap = tl->cur_cap;
    tl->prev_len = tl->cur_len;
    tl->cur = swap;
    tl->cur_cap = swap_cap;
    return ferror(tl->f) ? -1 : 0;
}

void report_timeline_skip(void *ctx, double t)
{
    struct report_timeline *tl = ctx;
    CPN_ASSERT(tl->have_prev);
    tl->held = true;
    tl->held_t = t;
}

int report_timeline_end(void *ctx, const struct sim *s)
{
    (void)s;
    struct report_timeline *tl = ctx;
    if (tl->held)
        put_row(tl->f, tl->held_t, tl->prev, tl->prev_len);
    tl->held = false;
    return ferror(tl->f) ? -1 : 0;
}

void report_timeline_init(struct report_timeline *tl, FILE *f)
{
    *tl = (struct report_timeline){.f = f};
    cpn_grow((void **)&tl->cur, &tl->cur_cap, 256, 1);
    cpn_grow((void **)&tl->prev, &tl->prev_cap, 256, 1);
}

void report_timeline_free(struct report_timeline *tl)
{
    free(tl->cur);
    free(tl->prev);
    *tl = (struct report_timeline){0};
}


/* jobs.csv's rows are formatted, text and numbers, into a buffer that is written a block
 * of rows at a time: a million-job run writes 15 million numbers, and fprintf's parsing
 * and exact conversion were a fifth of such a run, then the calls to fputs for its 4
 * million texts a tenth of writing the file. The text is fprintf's ("%.3f", "%u") to the
 * byte (cpn_fmt_fixed). */
struct cells {
    char *b;
    size_t n, cap;
};

/* Makes room for n more bytes (the call only when the buffer must grow: a row makes
 * thirty of these). */
static char *cells_reserve(struct cells *c, size_t n)
{
    if (c->n + n > c->cap)
        cpn_grow((void **)&c->b, &c->cap, c->n + n, 1);
    return c->b + c->n;
}

/* Makes room for one more number and the punctuation around it. */
static char *cells_room(struct cells *c) { return cells_reserve(c, CPN_FIXED_BUF + 8); }

static void cells_ch(struct cells *c, char ch) { *cells_room(c) = ch, c->n++; }

static void cells_u(struct cells *c, uint64_t v) { c->n += cpn_fmt_u64(cells_room(c), v); }

static void cells_ms(struct cells *c, double t) { c->n += cpn_fmt_fixed(cells_room(c), t, 3); }

/* ",t" with milliseconds, or "," for a time that is not (t < 0). */
static void cells_time(struct cells *c, double t)
{
    cells_ch(c, ',');
    if (t >= 0)
        cells_ms(c, t);
}

/* n bytes as they are. */
static void cells_put(struct cells *c, const char *s, size_t n)
{
    memcpy(cells_reserve(c, n), s, n);
    c->n += n;
}

/* Whether a text cell must be quoted: it holds a comma, a quote or a line end. */
static bool needs_quotes(const char *s) { return strpbrk(s, ",\"\r\n") != NULL; }

/* A text cell of n bytes, quoted (by libcsv, as put_text) only when it must be. */
static void cells_text_n(struct cells *c, const char *s, size_t n, bool quote)
{
    if (!quote) {
        cells_put(c, s, n);
        return;
    }
    size_t need = csv_write(NULL, 0, s, n);
    c->n += csv_write(cells_reserve(c, need), need, s, n);
}

/* A text cell (put_text). */
static void cells_text(struct cells *c, const char *s)
{
    cells_text_n(c, s, strlen(s), needs_quotes(s));
}

/* A distributed job's columns of jobs.csv: its pods; the nodes of the pods its last
 * attempt placed, separated by ';'; their GPUs (on each node, as gpu_ids), pods
 * separated by '|'; the attempts its gang timeout failed. */
static void pod_cells(struct cells *c, const struct sim *s, uint32_t j)
{
    const struct job *jb = &s->jobs->v[j];
    uint32_t placed = s->job_node[j] == VIEW_NONE ? 0 : sim_pods_placed(s, j);
    uint32_t ns = sim_job_nslots(jb);
    cells_ch(c, ',');
    cells_u(c, jobset_pods(s->jobs, j));
    cells_ch(c, ',');
    /* Each node as the node column names it (its site's name, "-n", its index in the
     * site), whole: ';', the name, "-n" and up to 10 digits. */
    size_t cap = 1;
    for (uint32_t k = 0; k < placed; k++)
        cap += strlen(s->cl->sites[s->cl->nodes[sim_pod_node(s, j, k)].site].name) + 13;
    char *nodes = cpn_malloc(cap), *p = nodes;
    *p = '\0';
    for (uint32_t k = 0; k < placed; k++) {
        uint32_t n = sim_pod_node(s, j, k);
        const struct site *st = &s->cl->sites[s->cl->nodes[n].site];
        p += snprintf(p, cap - (size_t)(p - nodes), "%s%s-n%u", k ? ";" : "", st->name,
                      n - st->node_first);
    }
    cells_text(c, nodes);
    free(nodes);
    cells_ch(c, ',');
    for (uint32_t k = 0; k < placed; k++) {
        uint32_t first = s->cl->nodes[sim_pod_node(s, j, k)].gpu_first;
        for (uint32_t q = 0; q < ns; q++) {
            if (k || q)
                cells_ch(c, q ? ';' : '|');
            cells_u(c, s->job_gpus[s->slot_first[j] + k * ns + q] - first);
        }
    }
    cells_ch(c, ',');
    cells_u(c, s->gang ? s->gang->timeouts[j] : 0);
}

/* What every row of jobs.csv needs. */
struct jobs_csv {
    const struct sim *s;
    bool pods;
    bool *plain_site; /* which sites' names are written as they are (most) */
};

/* Job j's row. */
static void job_row(struct cells *c, const struct jobs_csv *jc, size_t j)
{
    const struct sim *s = jc->s;
    const struct jobset *js = s->jobs;
    const struct cluster *cl = s->cl;
    const struct job *jb = &js->v[j];
    const struct jobrt *r = &s->rt[j];
    cells_text(c, jobset_str(js, jb->id));
    cells_ch(c, ',');
    if (jb->model >= 0) {
        const char *model = catalog_model_name(s->cat, jb->model);
        cells_put(c, model, strlen(model));
        cells_ch(c, ',');
        cells_u(c, jb->batch);
    } else {
        cells_ch(c, '-');
        cells_ch(c, ',');
    }
    cells_ch(c, ',');
    cells_ms(c, jb->submit_s);
    cells_ch(c, ',');
    if (s->job_node[j] != VIEW_NONE) {
        const struct node *nd = &cl->nodes[s->job_node[j]];
        const struct site *st = &cl->sites[nd->site];
        uint32_t nodeno = s->job_node[j] - st->node_first;
        size_t len = strlen(st->name);
        if (jc->plain_site[nd->site]) {
            cells_put(c, st->name, len);
            cells_ch(c, ',');
            cells_put(c, st->name, len);
            cells_put(c, "-n", 2);
            cells_u(c, nodeno);
        } else { /* the node's cell quoted whole, as put_text2 quotes it */
            cells_text_n(c, st->name, len, true);
            cells_ch(c, ',');
            char suffix[24];
            int ns = snprintf(suffix, sizeof suffix, "-n%u", nodeno);
            char *cell = cpn_malloc(len + (size_t)ns + 1);
            memcpy(cell, st->name, len);
            memcpy(cell + len, suffix, (size_t)ns + 1);
            cells_text_n(c, cell, len + (size_t)ns, true);
            free(cell);
        }
        cells_ch(c, ',');
        cells_u(c, jb->gpus);
        cells_ch(c, ',');
        for (uint32_t k = 0; k < jb->gpus && k < CLUSTER_MAX_NODE_GPUS; k++) {
            if (k)
                cells_ch(c, ';');
            cells_u(c, s->job_gpus[s->slot_first[j] + k] - nd->gpu_first);
        }
    } else { /* no site, no node */
        cells_ch(c, ',');
        cells_ch(c, ',');
        cells_u(c, jb->gpus);
        cells_ch(c, ',');
    }
    cells_time(c, s->job_placed_s[j]);
    double start_s = s->job_started_s[j];
    cells_time(c, start_s);
    cells_time(c, r->end_s);
    bool ended = r->state == JS_DONE || r->state == JS_FAILED;
    cells_time(c, start_s >= 0 ? start_s - jb->submit_s : -1);
    cells_time(c, ended ? r->end_s - jb->submit_s : -1);
    cells_ch(c, ',');
    cells_ms(c, r->cpu_lost_s);
    cells_time(c, isnan(s->pred_run_s[j]) ? -1 : s->pred_run_s[j]);
    cells_ch(c, ',');
    cells_u(c, r->kills);
    cells_ch(c, ',');
    cells_u(c, s->attempts[j]);
    cells_ch(c, ',');
    const char *state = job_state_name[r->state];
    cells_put(c, state, strlen(state));
    if (jc->pods)
        pod_cells(c, s, (uint32_t)j);
    cells_ch(c, '\n');
}

/* Two threads write jobs.csv, a block of rows at a time: each takes the next block,
 * formats it into its own buffer, and writes it when the block before it has been
 * written (the threads take turns at the file), so that each formats while the other
 * writes. The writer's own thread starts as the run does: a block becomes ready when
 * its jobs and all those before it have ended for good (report_jobs_ended), so that
 * most of the file is written while the run goes on, and no formatted block waits in
 * memory for an earlier one. When the run ends every block is ready, and the caller's
 * thread takes the rest in turn with it. A block goes to the file's descriptor in one
 * write call (a block is larger than the FILE's buffer would make a call), and the disk
 * is asked to start writing every few blocks, so that the fsync of the commit finds
 * most of the file written. */
struct report_jobs {
    struct afile af;  /* the file, when report_jobs_open opened it */
    struct jobs_csv jc;
    FILE *f;
    int fd;           /* f's descriptor, written directly; -1: fwrite to f (no descriptor) */
    int werr;         /* the errno of the first write that failed, else 0 */
    size_t block_rows, blocks;
    struct cpn_thread *thread; /* the writer's thread; NULL: the caller writes every block */
    size_t ready_rows;/* ended jobs that make one more block ready (the run's thread's) */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t ready;     /* blocks whose rows are final */
    size_t taken;     /* blocks a thread has taken to format */
    size_t next;      /* the block to be written next */
    bool stop;        /* the run failed: no more blocks */
};

/* Blocks between two starts of the disk's writing: 1 to 2 MiB of a large run's
 * jobs.csv (docs/performance.md, "Fifth pass"). */
enum { REPORT_WRITEBACK_BLOCKS = 8 };

/* Writes n bytes of block k (the caller's turn). */
static void jobs_put(struct report_jobs *w, size_t k, const char *b, size_t n)
{
    if (w->fd < 0) {
        fwrite(b, 1, n, w->f);
        return;
    }
    while (n && !w->werr) {
        ssize_t r = write(w->fd, b, n);
        if (r < 0 && errno != EINTR)
            w->werr = errno ? errno : EIO;
        if (r > 0) {
            b += r;
            n -= (size_t)r;
        }
    }
    if (!w->werr && k % REPORT_WRITEBACK_BLOCKS == REPORT_WRITEBACK_BLOCKS - 1)
        cpn_start_writeback(w->fd);
}

/* Takes, formats and writes blocks while there are any to take: the writer's thread
 * waits for blocks to become ready; the caller's thread comes when all are. Returns
 * when every block has been taken, or the writer stops. */
static void jobs_work(struct report_jobs *w)
{
    struct cells c = {0};
    size_t n = w->jc.s->jobs->n;
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->stop && w->taken == w->ready && w->taken < w->blocks)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->stop || w->taken == w->blocks)
            break;
        size_t k = w->taken++;
        pthread_mutex_unlock(&w->mu);
        c.n = 0;
        size_t end = (k + 1) * w->block_rows < n ? (k + 1) * w->block_rows : n;
        for (size_t j = k * w->block_rows; j < end; j++)
            job_row(&c, &w->jc, j);
        pthread_mutex_lock(&w->mu);
        while (!w->stop && w->next != k)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->stop)
            break;
        pthread_mutex_unlock(&w->mu);
        jobs_put(w, k, c.b, c.n);
        pthread_mutex_lock(&w->mu);
        w->next = k + 1;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    free(c.b);
}

static int jobs_thread(void *arg)
{
    jobs_work(arg);
    return 0;
}

/* The first `blocks` blocks are ready to be written. */
static void jobs_ready(struct report_jobs *w, size_t blocks)
{
    pthread_mutex_lock(&w->mu);
    if (blocks > w->ready) {
        w->ready = blocks;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
}

/* Writes jobs.csv's header to f and readies the rows' writer, its thread started when
 * `thread` and there are two blocks or more (and a thread can start). */
static void jobs_begin(struct report_jobs *w, FILE *f, const struct sim *s, size_t block_rows,
                       bool thread)
{
    const struct cluster *cl = s->cl;
    w->jc = (struct jobs_csv){.s = s, .pods = jobset_has_pods(s->jobs)};
    fputs("id,model,batch,submit_s,site,node,gpus,gpu_ids,transfer_start_s,start_s,end_s,wait_s,jct_s,"
          "cpu_lost_s,pred_run_s,oom_kills,attempts,status",
          f);
    fputs(w->jc.pods ? ",pods,pod_nodes,pod_gpu_ids,gang_timeouts\n" : "\n", f);
    w->jc.plain_site = cpn_malloc((cl->n_sites ? cl->n_sites : 1) * sizeof *w->jc.plain_site);
    for (size_t i = 0; i < cl->n_sites; i++)
        w->jc.plain_site[i] = !needs_quotes(cl->sites[i].name);
    /* The header through f, then the rows to its descriptor. */
    w->f = f;
    w->fd = fflush(f) == 0 ? fileno(f) : -1;
    w->block_rows = block_rows ? block_rows : 1;
    w->blocks = (s->jobs->n + w->block_rows - 1) / w->block_rows;
    w->ready_rows = w->block_rows < s->jobs->n ? w->block_rows : s->jobs->n;
    pthread_mutex_init(&w->mu, NULL);
    pthread_cond_init(&w->cv, NULL);
    if (thread && w->blocks >= 2)
        w->thread = cpn_thread_start(jobs_thread, w);
}

/* Stops the writer's thread, if any (when stop, before it takes another block), and
 * frees what jobs_begin took. */
static void jobs_end(struct report_jobs *w, bool stop)
{
    if (stop) {
        pthread_mutex_lock(&w->mu);
        w->stop = true;
        pthread_cond_broadcast(&w->cv);
        pthread_mutex_unlock(&w->mu);
    }
    if (w->thread)
        cpn_thread_join(w->thread);
    w->thread = NULL;
    pthread_cond_destroy(&w->cv);
    pthread_mutex_destroy(&w->mu);
    free(w->jc.plain_site);
    w->jc.plain_site = NULL;
}

/* Writes the rows not yet written, every job's row being final. Returns 0, or -1 with
 * errno on a write error. */
static int jobs_finish(struct report_jobs *w)
{
    jobs_ready(w, w->blocks);
    jobs_work(w);
    jobs_end(w, false);
    if (w->werr) {
        errno = w->werr;
        return -1;
    }
    return ferror(w->f) ? -1 : 0;
}

void report_jobs_ended(void *ctx, size_t k)
{
    struct report_jobs *w = ctx;
    /* Only this thread writes ready: its check needs no lock. */
    if (k < w->ready_rows || !w->thread)
        return;
    size_t n = w->jc.s->jobs->n, blocks = k == n ? w->blocks : k / w->block_rows;
    w->ready_rows = (blocks + 1) * w->block_rows < n ? (blocks + 1) * w->block_rows : n;
    jobs_ready(w, blocks);
}

int report_jobs_csv_blocks(FILE *f, const struct sim *s, size_t block_rows, bool threads)
{
    struct report_jobs w = {0};
    jobs_begin(&w, f, s, block_rows, threads);
    return jobs_finish(&w);
}

int report_jobs_csv(FILE *f, const struct sim *s)
{
    return report_jobs_csv_blocks(f, s, REPORT_JOBS_BLOCK, true);
}

int report_jobs_open(struct report_jobs **out, const char *dir, const struct sim *s,
                     size_t block_rows, char *err, size_t errlen)
{
    struct report_jobs *w = cpn_calloc(1, sizeof *w);
    int rc = afile_open(&w->af, dir, "jobs.csv", err, errlen);
    if (rc) {
        free(w);
        return rc;
    }
    jobs_begin(w, w->af.f, s, block_rows, true);
    *out = w;
    return CPN_OK;
}

void report_jobs_abort(struct report_jobs *jobs)
{
    if (!jobs)
        return;
    jobs_end(jobs, true);
    afile_abort(&jobs->af);
    free(jobs);
}

static void add_num_or_null(cJSON *o, const char *k, bool ok, double v)
{
    if (ok)
        cJSON_AddNumberToObject(o, k, v);
    else
        cJSON_AddNullToObject(o, k);
}

/* The prediction errors of the completed jobs, in the order the predictions were made
 * (their last placements): the factor by which the predicted run alone there missed the
 * true one, exp |ln(predicted / true)| (1 is exact, 2 is half or twice), and its median
 * over all, the first tenth and the last tenth (docs/predictor.md, "Learning during a
 * run"). Completion order would not do: the last jobs to end are the longest. t and u
 * are room for a number per job, which the summary's times have used before. */
static void add_prediction_errors(cJSON *o, const struct sim *s, double *t, double *u)
{
    /* The completed jobs by (placement time, index): a stable sort by time of jobs in
     * index order (-0 taken as +0, so that equal times keep that order). */
    size_t n = 0;
    uint32_t *job = cpn_malloc((s->jobs->n + 1) * sizeof *job);
    for (size_t j = 0; j < s->jobs->n; j++)
        if (s->rt[j].state == JS_DONE && s->alone_run_s[j] > 0) {
            t[n] = s->job_placed_s[j] == 0 ? 0.0 : s->job_placed_s[j];
            job[n++] = (uint32_t)j;
        }
    cpn_sort_doubles_with(t, job, n, u, NULL);
    double *err = u, *tmp = t;
    for (size_t i = 0; i < n; i++)
        err[i] = fabs(log(s->pred_run_s[job[i]] / s->alone_run_s[job[i]]));
    free(job);
    size_t tenth = (n + 9) / 10;
    const struct {
        const char *key;
        size_t from, count;
    } parts[] = {{"pred_factor_median", 0, n},
                 {"pred_factor_first_tenth", 0, tenth},
                 {"pred_factor_last_tenth", n - tenth, tenth}};
    for (size_t k = 0; k < sizeof parts / sizeof parts[0]; k++) {
        memcpy(tmp, err + parts[k].from, parts[k].count * sizeof *tmp);
        add_num_or_null(o, parts[k].key, parts[k].count > 0,
                        parts[k].count ? exp(cpn_median_doubles(tmp, parts[k].count)) : 0);
    }
}

/* A JSON string of s that is valid UTF-8 whatever s holds: ids, paths and --set values
 * are bytes, and cJSON copies them as they are. Each byte that does not begin a
 * well-formed UTF-8 sequence (RFC 3629: no overlong forms, no surrogates, nothing past
 * U+10FFFF) becomes the six characters "\\xHH", so the bytes can still be read off. */
static cJSON *json_text(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s), bad = 0;
    for (size_t i = 0; i < n;) {
        size_t k = cpn_utf8_seq(u + i, n - i);
        bad += k == 0;
        i += k ? k : 1;
    }
    if (bad == 0)
        return cJSON_CreateString(s);
    char *t = cpn_calloc(n + 4 * bad + 1, 1), *w = t;
    for (size_t i = 0; i < n;) {
        size_t k = cpn_utf8_seq(u + i, n - i);
        if (k) {
            memcpy(w, u + i, k);
            w += k;
            i += k;
        } else {
            w += sprintf(w, "\\x%02X", u[i]);
            i++;
        }
    }
    cJSON *j = cJSON_CreateString(t);
    free(t);
    return j;
}

static void add_text(cJSON *o, const char *key, const char *s) { cJSON_AddItemToObject(o, key, json_text(s)); }

/* The job times of a summary, in one pass over the jobs: the JCT and the wait of each
 * completed job, in job order, in jct[0..*nd) and wait[0..*nd); and at the top of jct,
 * in jct[n - *nr .. n), each other job submitted by the run's end, counted to the end.
 * jct and wait hold n numbers, the count of jobs. */
static void job_times(const struct sim *s, double *jct, double *wait, size_t *nd, size_t *nr)
{
    size_t n = s->jobs->n, d = 0, r = 0;
    for (size_t j = 0; j < n; j++) {
        const struct jobrt *rt = &s->rt[j];
        double submit = s->jobs->v[j].submit_s;
        if (rt->state == JS_DONE) {
            jct[d] = rt->end_s - submit;
            wait[d++] = s->job_started_s[j] - submit;
        } else if (submit <= s->now) {
            jct[n - ++r] = s->now - submit;
        }
    }
    *nd = d;
    *nr = r;
}

/* The mean and percentiles of n times sorted in increasing order (0 when n is 0). The
 * mean is taken over the sorted times, as it always was, so that its last digits do
 * not move. */
struct times {
    double mean, p50, p95, p99;
};

static void times_of_sorted(struct times *o, const double *t, size_t n)
{
    *o = (struct times){0};
    if (n == 0)
        return;
    o->mean = gsl_stats_mean(t, 1, n);
    o->p50 = gsl_stats_quantile_from_sorted_data(t, 1, n, 0.50);
    o->p95 = gsl_stats_quantile_from_sorted_data(t, 1, n, 0.95);
    o->p99 = gsl_stats_quantile_from_sorted_data(t, 1, n, 0.99);
}

char *report_summary_json(const struct sim *s, const struct report_meta *m)
{
    const struct jobset *js = s->jobs;
    const struct sim_stats *st = &s->st;
    /* JCT and wait over completed jobs; and JCT over every submitted job (jall): a
     * completed job to its completion, a failed, stuck or unfinished one to the run's
     * end, as if it had completed last (it never did). A policy cannot look faster for
     * failing jobs, nor for failing them early. Jobs submitted after the run's end (a
     * horizon) are left out of jall. jall's times are the completed jobs' and the rest:
     * the rest are sorted and merged with the sorted JCTs, which gives the array a sort
     * of them all would (job times are never NaN nor -0). Two arrays serve in turn, and
     * then the prediction errors, so that they do not add up in the run's peak memory
     * and their pages are touched once. */
    size_t nj = js->n, nd, nr;
    double *t = cpn_malloc((nj + 1) * sizeof *t), *u = cpn_malloc((nj + 1) * sizeof *u);
    job_times(s, t, u, &nd, &nr);
    struct times jct, jall, wait = {.mean = nd ? gsl_stats_mean(u, 1, nd) : 0};
    cpn_sort_doubles(t, nd, u);
    times_of_sorted(&jct, t, nd);
    size_t na = nd + nr;
    if (nr == 0) {
        jall = jct;
    } else {
        cpn_sort_doubles(t + nj - nr, nr, u);
        cpn_merge_doubles(t, nd, t + nj - nr, nr, u);
        times_of_sorted(&jall, u, na);
    }
    bool all_ended = st->completed + st->failed == js->n;
    double span = st->last_end_s - st->first_submit_s;
    if (!all_ended)
        span = s->now - st->first_submit_s;

    cJSON *o = cJSON_CreateObject();
    add_text(o, "policy", m->policy);
    /* The seed as the whole number it is: a double would round seeds above 2^53, and a
     * rerun with the recorded seed would draw another queue. */
    char seed[24];
    snprintf(seed, sizeof seed, "%" PRIu64, m->seed);
    cJSON_AddRawToObject(o, "seed", seed);
    add_text(o, "predictor", m->predictor);
    cJSON_AddNumberToObject(o, "jobs", (double)js->n);
    cJSON_AddNumberToObject(o, "completed", (double)st->completed);
    cJSON_AddNumberToObject(o, "failed", (double)st->failed);
    cJSON_AddNumberToObject(o, "stuck", (double)st->stuck);
    cJSON_AddNumberToObject(o, "unfinished", (double)st->unfinished);
    cJSON_AddNumberToObject(o, "oom_events", (double)st->oom_events);
    cJSON_AddNumberToObject(o, "oom_jobs", (double)st->oom_jobs);
    cJSON_AddNumberToObject(o, "gang_timeouts", (double)st->gang_timeouts);
    cJSON_AddBoolToObject(o, "deadlock", st->deadlock);
    cJSON_AddBoolToObject(o, "horizon_reached", st->horizon_reached);
    add_num_or_null(o, "makespan_s", all_ended, span);
    add_num_or_null(o, "jct_mean_s", nd > 0, jct.mean);
    add_num_or_null(o, "jct_p50_s", nd > 0, jct.p50);
    add_num_or_null(o, "jct_p95_s", nd > 0, jct.p95);
    add_num_or_null(o, "jct_p99_s", nd > 0, jct.p99);
    add_num_or_null(o, "jct_all_mean_s", na > 0, jall.mean);
    add_num_or_null(o, "jct_all_p50_s", na > 0, jall.p50);
    add_num_or_null(o, "jct_all_p95_s", na > 0, jall.p95);
    cJSON_AddNumberToObject(o, "not_completed", (double)(js->n - st->completed));
    add_num_or_null(o, "wait_mean_s", nd > 0, wait.mean);
    double gpu_util = span > 0 && s->cl->n_gpus ? st->gpu_busy_integral / ((double)s->cl->n_gpus * span) : 0;
    cJSON_AddNumberToObject(o, "gpu_util_mean", gpu_util);
    /* CPU over the same span: busy cores (jobs' and other tenants') over all cores. */
    double cpus = 0;
    for (size_t n = 0; n < s->cl->n_nodes; n++)
        cpus += s->cl->nodes[n].cpus;
    cJSON_AddNumberToObject(o, "cpu_util_mean",
                            span > 0 && cpus > 0 ? st->cpu_used_integral / (cpus * span) : 0);
    cJSON_AddNumberToObject(o, "cpu_lost_gpu_s", st->cpu_lost_gpu_s);
    cJSON_AddNumberToObject(o, "cpu_slowed_jobs", (double)st->cpu_slowed_jobs);
    add_prediction_errors(o, s, t, u);
    free(t);
    free(u);
    const struct net_stats *ns = net_stats(s->net);
    cJSON_AddNumberToObject(o, "transfer_gib", ns->moved_gib);
    cJSON_AddNumberToObject(o, "transfers", (double)ns->transfers);
    cJSON_AddNumberToObject(o, "transfer_mean_s",
                            ns->transfer_count ? ns->transfer_s_sum / (double)ns->transfer_count : 0);
    uint64_t lookups = ns->hits + ns->misses;
    add_num_or_null(o, "cache_hit_rate", lookups > 0, lookups ? (double)ns->hits / (double)lookups : 0);
    cJSON_AddNumberToObject(o, "cache_hits", (double)ns->hits);
    cJSON_AddNumberToObject(o, "cache_misses", (double)ns->misses);
    cJSON_AddNumberToObject(o, "cache_evictions", (double)ns->evictions);
    cJSON_AddNumberToObject(o, "placements", (double)st->placements);
    cJSON_AddNumberToObject(o, "events", (double)st->events);
    cJSON *stuck = cJSON_AddArrayToObject(o, "stuck_jobs");
    for (size_t j = 0; st->stuck && j < js->n; j++)
        if (s->rt[j].state == JS_STUCK)
            cJSON_AddItemToArray(stuck, json_text(jobset_str(js, js->v[j].id)));
    add_text(o, "cluster", s->cl->source);
    add_text(o, "jobs_file", js->source);
    cJSON_AddStringToObject(o, "cluster_sha256", s->cl->sha256);
    cJSON_AddStringToObject(o, "jobs_sha256", js->sha256);
    cJSON *sets = cJSON_AddArrayToObject(o, "overrides");
    for (size_t i = 0; i < m->n_sets; i++)
        cJSON_AddItemToArray(sets, json_text(m->sets[i]));
    cJSON_AddStringToObject(o, "version", CPN_VERSION);
    /* Wall-clock fields last: they are the only ones that differ between repeats. */
    cJSON_AddNumberToObject(o, "wall_s", m->wall_s);
    cJSON_AddNumberToObject(o, "events_per_s", m->wall_s > 0 ? (double)st->events / m->wall_s : 0);
    char *txt = cJSON_Print(o);
    cJSON_Delete(o);
    return txt;
}


/* CPN_ESTOP when a signal asked the run to stop, else 0. */
static int stopped(const struct report_meta *m, char *err, size_t errlen)
{
    if (m->stop && *m->stop)
        return cpn_fail(err, errlen, CPN_ESTOP, "stopped by signal %d while writing the outputs",
                        (int)*m->stop);
    return CPN_OK;
}

int report_write_run(const char *dir, const struct sim *s, const struct report_meta *m,
                     struct afile *timeline, struct report_jobs *jobs, char *err, size_t errlen)
{
    if (timeline)
        afile_commit_start(timeline);
    char *txt = NULL;
    int rc = jobs ? CPN_OK : report_jobs_open(&jobs, dir, s, REPORT_JOBS_BLOCK, err, errlen);
    if (!rc && jobs_finish(jobs) != 0) {
        int e = errno;
        afile_abort(&jobs->af);
        rc = cpn_fail(err, errlen, CPN_EIO, "%s/jobs.csv: write failed: %s", dir, strerror(e));
    } else if (!rc && (rc = stopped(m, err, errlen)) != 0) {
        afile_abort(&jobs->af);
    } else if (!rc) {
        /* The summary is worked out while the disk takes jobs.csv. */
        afile_commit_start(&jobs->af);
        txt = report_summary_json(s, m);
    }
    /* The timeline's error first: its file comes first in the directory's order. */
    char terr[CPN_ERR_LEN] = "";
    int trc = timeline ? afile_commit_finish(timeline, terr, sizeof terr) : CPN_OK;
    if (jobs && jobs->af.bg) {
        int jrc = afile_commit_finish(&jobs->af, trc ? NULL : err, errlen);
        rc = rc ? rc : jrc;
    }
    free(jobs);
    if (trc) {
        free(txt);
        return cpn_fail(err, errlen, trc, "%s", terr);
    }
    if (rc) {
        free(txt);
        return rc;
    }
    struct afile af = {0};
    if ((rc = afile_open(&af, dir, "summary.json", err, errlen)) != 0) {
        free(txt);
        return rc;
    }
    fputs(txt, af.f);
    fputc('\n', af.f);
    free(txt);
    if ((rc = stopped(m, err, errlen)) != 0) {
        afile_abort(&af);
        return rc;
    }
    return afile_commit(&af, err, errlen);
}
