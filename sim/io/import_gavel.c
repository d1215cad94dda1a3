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

/* Gavel's table measured the job's model at its batch on some of its types (V100,
 * P100, K80): the job ran there, so its peak memory per GPU fit each of those GPUs.
 * The catalogue's peak (the H100 table's, or its regression for a model the H100 table
 * lacks) may not: ResNet-50 at batch 128 peaks at 16.2 GiB on the H100, above the
 * 16 GiB V100 and P100 Gavel ran it on. Such a job gets the smallest memory it ran on
 * as its gpu_mem_gib; one whose catalogue peak fits keeps the catalogue's (no column). */
static void gavel_fit_memory(struct import_conv *m, struct import_job *r)
{
    double ran_on = catalog_gavel_min_mem_gib(m->cat, r->model, r->batch);
    struct profile p;
    if (!isfinite(ran_on) ||
        catalog_lookup(m->cat, r->model, r->batch, CAT_H100, 1.0, r->gpus, &p) != CPN_OK)
        return;
    if (p.mem_gib > ran_on)
        r->gpu_mem_gib = ran_on;
}

static int gavel_line(struct import_conv *m, char *s, uint64_t line)
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
    char *type = import_trim(f[0]);
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
            return import_fail(m, line, "job_type", "'%.*s' is not 'NAME (batch size B)'",
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
        return import_fail(m, line, "job_type",
                           "unknown Gavel job type '%.*s' (known: ResNet-50, ResNet-18, "
                           "Transformer, LM, Recommendation, CycleGAN, A3C)",
                           IMP_SHOW_MAX, name);
    uint64_t steps, scale;
    double prio, slo, arrival;
    int rc;
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
    if (steps > UINT64_MAX / batch)
        return import_fail(m, line, "total_steps", "too large");
    if (prio != 1)
        import_tally_add(&m->t, false, "priority_weight other than 1 is not modeled", line);
    if (slo >= 0)
        import_tally_add(&m->t, false, "SLO (a deadline) is not modeled", line);
    struct import_job *r = import_push(m, sizeof *r);
    char id[IMP_ID_BUF];
    snprintf(id, sizeof id, "gavel-%" PRIu64, line);
    *r = (struct import_job){.gpu_mem_gib = -1,
                             .submit = arrival,
                             .duration = -1,
                             .line = line,
                             .gpus = (unsigned)scale,
                             .batch = batch,
                             .model = model,
                             .samples = steps * batch,
                             .cpus = import_assume.cpus,
                             .mem_gib = import_assume.mem_gib,
                             .id = cpn_strdup(id),
                             .origin = cpn_strdup(m->o->origin ? m->o->origin : "gavel")};
    import_fold(m, r);
    gavel_fit_memory(m, r);
    return CPN_OK;
}

int import_gavel_parse(struct import_conv *m, char *buf)
{
    uint64_t line = 1;
    for (char *p = buf; *p; line++) {
        char *nl = strchr(p, '\n');
        if (nl)
            *nl = '\0';
        int rc = *import_trim(p) ? gavel_line(m, p, line) : CPN_OK;
        if (rc)
            return rc;
        if (!nl)
            break;
        p = nl + 1;
    }
    return CPN_OK;
}
