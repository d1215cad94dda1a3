/* import_gavel: Gavel's tab-separated job trace, converted line by line, its job
 * types mapped onto catalogue models (docs/import.md). */
#include "import_conv.h"

#include "../engine/catalog.h"
#include "../base/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Gavel's job types and the catalogue's models (docs/catalogue.md). */
static const struct import_gavel {
    const char *gavel, *model;
} import_gavel_models[] = {
    {"ResNet-50", "resnet50"},   {"ResNet-18", "resnet18_cifar"}, {"Transformer", "transformer"},
    {"LM", "lstm_lm"},           {"Recommendation", "recommendation"},
    {"CycleGAN", "cyclegan"},    {"A3C", "a3c"},
};

/* ---- Gavel: tab-separated job_type, command, [working_directory,] num_steps_arg,
 *      needs_data_dir, total_steps, scale_factor, priority_weight, SLO,
 *      arrival_time ---- */

enum { GAVEL_FIELDS_OLD = 9, GAVEL_FIELDS = 10 };

/* What a job type converts to, remembered: a trace repeats a few dozen types (Gavel's
 * generator draws from 26), so each is parsed and looked up in the catalogue once. */
enum {
    GAVEL_MEMO = 64,      /* slots, a power of two; at most half are filled */
    GAVEL_MEMO_GPUS = 16, /* the memory fit is remembered for 1 to this many GPUs */
};

struct gavel_type {
    char text[IMP_NAME_BUF]; /* the trimmed job_type cell; "" marks a free slot */
    size_t len;
    int model;
    unsigned batch;
    double ran_on;                          /* catalog_gavel_min_mem_gib */
    double gpu_mem[GAVEL_MEMO_GPUS + 1];    /* gavel_fit_memory's answer by GPUs; NaN: not
                                               yet asked */
};

struct gavel_state {
    struct gavel_type memo[GAVEL_MEMO];
    size_t nmemo;
    struct gavel_type spare; /* a type the memo does not hold, for one line */
    bool have_origin;
    size_t origin; /* the origin's offset in the pool, stored once */
};

/* Gavel's table measured the job's model at its batch on some of its types (V100,
 * P100, K80): the job ran there, so its peak memory per GPU fit each of those GPUs.
 * The catalogue's peak (the H100 table's, or its regression for a model the H100 table
 * lacks) may not: ResNet-50 at batch 128 peaks at 16.2 GiB on the H100, above the
 * 16 GiB V100 and P100 Gavel ran it on. Such a job gets the smallest memory it ran on
 * as its gpu_mem_gib; one whose catalogue peak fits keeps the catalogue's (no column).
 * Returns the job's gpu_mem_gib, or -1 for none. */
static double gavel_fit_memory(const struct import_conv *m, int model, unsigned batch,
                               double ran_on, unsigned gpus)
{
    struct profile p;
    if (!isfinite(ran_on) ||
        catalog_lookup(m->cat, model, batch, CAT_H100, 1.0, gpus, &p) != CPN_OK)
        return -1;
    return p.mem_gib > ran_on ? ran_on : -1;
}

/* Parses a job type, "NAME (batch size B)" or "NAME", into its catalogue model and
 * batch. Returns 0 or CPN_EINPUT. */
static int gavel_type_parse(struct import_conv *m, const char *type, uint64_t line, int *model,
                            unsigned *batch)
{
    char name[IMP_NAME_BUF];
    *batch = (unsigned)import_assume.gavel_default_batch;
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
            return import_fail(m, line, "job_type", "'%.*s' is not 'NAME (batch size B)'",
                               IMP_SHOW_MAX, type);
        *batch = (unsigned)b;
    }
    if (nlen >= sizeof name)
        nlen = sizeof name - 1;
    memcpy(name, type, nlen);
    name[nlen] = '\0';
    *model = -1;
    for (size_t i = 0; i < sizeof import_gavel_models / sizeof *import_gavel_models; i++)
        if (strcmp(import_gavel_models[i].gavel, name) == 0)
            *model = catalog_model_find(m->cat, import_gavel_models[i].model);
    if (*model < 0)
        return import_fail(m, line, "job_type",
                           "unknown Gavel job type '%.*s' (known: ResNet-50, ResNet-18, "
                           "Transformer, LM, Recommendation, CycleGAN, A3C)",
                           IMP_SHOW_MAX, name);
    return CPN_OK;
}

/* The job type of the cell, from the memo, or parsed and remembered (in g->spare, valid
 * until the next line, when the memo cannot hold it: a cell too long, or too many
 * types). Returns it, or NULL with CPN_EINPUT in *rc and the message written. */
static struct gavel_type *gavel_type(struct import_conv *m, struct gavel_state *g,
                                     const char *type, uint64_t line, int *rc)
{
    size_t len = strlen(type);
    struct gavel_type *t = &g->spare;
    if (len > 0 && len < IMP_NAME_BUF) {
        uint32_t h = 2166136261u; /* FNV-1a */
        for (size_t i = 0; i < len; i++)
            h = (h ^ (unsigned char)type[i]) * 16777619u;
        size_t k = h & (GAVEL_MEMO - 1);
        while (g->memo[k].len && (g->memo[k].len != len || memcmp(g->memo[k].text, type, len)))
            k = (k + 1) & (GAVEL_MEMO - 1);
        if (g->memo[k].len)
            return &g->memo[k];
        if (g->nmemo < GAVEL_MEMO / 2)
            t = &g->memo[k];
    }
    int model = -1;
    unsigned batch = 0;
    *rc = gavel_type_parse(m, type, line, &model, &batch);
    if (*rc)
        return NULL;
    *t = (struct gavel_type){.model = model, .batch = batch,
                             .ran_on = catalog_gavel_min_mem_gib(m->cat, model, batch)};
    for (size_t k = 0; k <= GAVEL_MEMO_GPUS; k++)
        t->gpu_mem[k] = NAN;
    if (t != &g->spare) {
        memcpy(t->text, type, len);
        t->len = len;
        g->nmemo++;
    }
    return t;
}

static int gavel_line(struct import_conv *m, struct gavel_state *g, char *s, uint64_t line)
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
        return import_fail(
            m, line, "line",
            "has %zu tab-separated fields (Gavel's trace format has 10, or 9 without "
            "working_directory)",
            nf);
    m->rows++;
    size_t k = nf == GAVEL_FIELDS ? 1 : 0; /* shift past working_directory */
    int rc;
    struct gavel_type *type = gavel_type(m, g, import_trim(f[0]), line, &rc);
    if (!type)
        return rc;
    uint64_t steps, scale;
    double prio, slo, arrival;
    if ((rc = import_whole(m, f, (int)(4 + k), "total_steps", line, &steps)) ||
        (rc = import_whole(m, f, (int)(5 + k), "scale_factor", line, &scale)) ||
        (rc = import_num(m, f, (int)(6 + k), "priority_weight", line, &prio)) ||
        (rc = import_num(m, f, (int)(7 + k), "SLO", line, &slo)) ||
        (rc = import_num(m, f, (int)(8 + k), "arrival_time", line, &arrival)))
        return rc;
    if (arrival < 0)
        return import_fail(m, line, "arrival_time", "must be >= 0");
    if (scale == 0 || scale >= UINT32_MAX)
        return import_fail(m, line, "scale_factor", "must be a whole number >= 1");
    if (steps == 0) {
        import_tally_add(&m->t, true, "total_steps 0: nothing to run", line);
        return CPN_OK;
    }
    /* Gavel counts a job's steps over all its workers: S steps on G GPUs take S / thr(G)
     * seconds, thr(G) being the table's aggregate steps per second. Each worker's step
     * takes batch samples, so the job trains on S x batch samples; in cpnsim's terms
     * (a step feeds batch samples to each of the G GPUs) that is S / G steps of
     * G / thr(G) seconds each: S / thr(G) in all, as Gavel replays it. */
    if (steps > UINT64_MAX / type->batch)
        return import_fail(m, line, "total_steps", "too large");
    if (prio != 1)
        import_tally_add(&m->t, false, "priority_weight other than 1 is not modeled", line);
    if (slo >= 0)
        import_tally_add(&m->t, false, "SLO (a deadline) is not modeled", line);
    if (!g->have_origin) {
        const char *o = m->o->origin ? m->o->origin : "gavel";
        g->origin = import_str(m, o, strlen(o));
        g->have_origin = true;
    }
    static const char prefix[] = "gavel-";
    char id[sizeof prefix + 20];
    memcpy(id, prefix, sizeof prefix - 1);
    size_t idlen = sizeof prefix - 1 + cpn_fmt_u64(id + sizeof prefix - 1, line);
    struct import_job *r = import_push(m, sizeof *r);
    *r = (struct import_job){.gpu_mem_gib = -1,
                             .submit = arrival,
                             .duration = -1,
                             .line = line,
                             .gpus = (unsigned)scale,
                             .batch = type->batch,
                             .model = type->model,
                             .samples = steps * type->batch,
                             .cpus = import_assume.cpus,
                             .mem_gib = import_assume.mem_gib,
                             .id = import_str(m, id, idlen),
                             .origin = g->origin};
    import_wide(m, r);
    if (r->gpus <= GAVEL_MEMO_GPUS) {
        if (isnan(type->gpu_mem[r->gpus]))
            type->gpu_mem[r->gpus] =
                gavel_fit_memory(m, type->model, type->batch, type->ran_on, r->gpus);
        r->gpu_mem_gib = type->gpu_mem[r->gpus];
    } else {
        r->gpu_mem_gib = gavel_fit_memory(m, type->model, type->batch, type->ran_on, r->gpus);
    }
    return CPN_OK;
}

int import_gavel_parse(struct import_conv *m, char *buf)
{
    struct gavel_state *g = cpn_calloc(1, sizeof *g);
    uint64_t line = 1;
    int rc = CPN_OK;
    for (char *p = buf; *p && !rc; line++) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        rc = *import_trim(p) ? gavel_line(m, g, p, line) : CPN_OK;
        if (!nl)
            break;
        p = nl + 1;
    }
    free(g);
    return rc;
}
