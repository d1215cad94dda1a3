/* import_philly: Microsoft Philly's job trace (the Pollux version) and its machine
 * list, converted row by row (docs/import.md). */
#include "import_conv.h"

#include "../engine/catalog.h"
#include "../base/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

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
    if (strlen(s) != 19 ||
        sscanf(s, "%4d-%2d-%2d %2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &se, &n) != 6 || n != 19)
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

int import_philly_row(void *ctx, char **f, size_t nf, uint64_t line)
{
    struct import_conv *m = ctx;
    if (!m->have_header)
        return import_header(m, f, nf, line, philly_cols, philly_req, PH_N);
    int rc = import_fields(m, nf, line);
    if (rc)
        return rc;
    m->rows++;
    double ts, dur, gpu_time = 0;
    uint64_t gpus;
    const char *tss = import_trim(f[m->col[PH_TS]]);
    if (!parse_timestamp(tss, &ts))
        return import_fail(m, line, "timestamp", "'%.*s' is not a time 'YYYY-MM-DD HH:MM:SS'",
                           IMP_SHOW_MAX, tss);
    if ((rc = import_num(m, f, m->col[PH_DUR], "duration", line, &dur)) ||
        (rc = import_whole(m, f, m->col[PH_GPUS], "num_gpus", line, &gpus)))
        return rc;
    if (m->col[PH_GPU_TIME] >= 0 &&
        (rc = import_num(m, f, m->col[PH_GPU_TIME], "gpu_time", line, &gpu_time)))
        return rc;
    const char *cl = import_trim(f[m->col[PH_CLUSTER]]);
    if (!*cl)
        return import_fail(m, line, "cluster", "empty (the virtual cluster becomes the origin)");
    if (!(dur > 0) || dur > IMP_DURATION_MAX) {
        import_tally_add(&m->t, true, "duration not in (0, 1e9] s: no run to replay", line);
        return CPN_OK;
    }
    if (gpus == 0 || gpus >= UINT32_MAX) {
        import_tally_add(&m->t, true, "num_gpus 0 (or absurd): not a GPU job", line);
        return CPN_OK;
    }
    if (m->col[PH_GPU_TIME] >= 0 && fabs(gpu_time - dur * (double)gpus) > 1e-6 * (gpu_time + 1))
        import_tally_add(&m->t, false, "gpu_time differs from duration x num_gpus; duration used",
                         line);
    struct import_job *r = import_push(m, sizeof *r);
    char id[IMP_ID_BUF];
    snprintf(id, sizeof id, "philly-%" PRIu64, line);
    *r = (struct import_job){.gpu_mem_gib = -1,
                             .submit = ts,
                             .duration = dur,
                             .line = line,
                             .gpus = (unsigned)gpus,
                             .batch = import_assume.batch,
                             .model = -1,
                             .cpus = import_assume.cpus,
                             .mem_gib = import_assume.mem_gib,
                             .id = import_str(m, id, strlen(id)),
                             .origin = import_str(m, cl, strlen(cl))};
    import_wide(m, r);
    /* A job folded with --max-gpus is as wide as asked, whatever that is. */
    if (!m->o->max_gpus && r->gpus > import_assume.philly_machine_gpus)
        import_tally_add(
            &m->t, false,
            "more GPUs than the largest Philly machine (8): they cannot start on the "
            "converted Philly cluster, and FIFO stops behind them (--pod-gpus 8 splits them "
            "into pods of 8 or fewer; --max-gpus 8 folds them)",
            line);
    return CPN_OK;
}

/* ---- Philly machines: machineId, number of GPUs, single GPU mem ---- */

enum { PM_ID, PM_GPUS, PM_MEM, PM_N };
static const char *const pm_cols[PM_N] = {"machineId", "number of GPUs", "single GPU mem"};
static const bool pm_req[PM_N] = {true, true, true};

int import_philly_machines_row(void *ctx, char **f, size_t nf, uint64_t line)
{
    struct import_cl *c = ctx;
    struct import_conv *m = &c->m;
    if (!m->have_header)
        return import_header(m, f, nf, line, pm_cols, pm_req, PM_N);
    int rc = import_fields(m, nf, line);
    if (rc)
        return rc;
    m->rows++;
    uint64_t gpus;
    const char *id = import_trim(f[m->col[PM_ID]]);
    if (!*id)
        return import_fail(m, line, "machineId", "empty");
    if ((rc = import_whole(m, f, m->col[PM_GPUS], "number of GPUs", line, &gpus)))
        return rc;
    char *mem_s = import_trim(f[m->col[PM_MEM]]), num[IMP_NAME_BUF];
    size_t n = strlen(mem_s);
    double mem = 0;
    bool ok = n >= 3 && n < sizeof num && strcasecmp(mem_s + n - 2, "GB") == 0;
    if (ok) {
        memcpy(num, mem_s, n - 2);
        num[n - 2] = '\0';
        ok = cpn_parse_double(num, &mem) == CPN_OK && mem > 0;
    }
    if (!ok)
        return import_fail(m, line, "single GPU mem", "'%.*s' is not a size like '12GB'",
                           IMP_SHOW_MAX, mem_s);
    char type[IMP_NAME_BUF];
    snprintf(type, sizeof type, "GPU-%gGB", mem);
    return import_cl_add(c, id, import_assume.node_cpus_per_gpu * (double)(gpus ? gpus : 1),
                         import_assume.node_mem_gib_per_gpu * (double)(gpus ? gpus : 1),
                         (unsigned)gpus, type, mem, line);
}
