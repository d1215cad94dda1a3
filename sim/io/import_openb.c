/* import_openb: Alibaba's openb GPU-sharing trace, its pods and its nodes, converted
 * row by row (docs/import.md). */
#include "import_conv.h"

#include "../engine/catalog.h"
#include "../base/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- openb: name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, qos,
 *      pod_phase, creation_time, deletion_time, scheduled_time ---- */

enum { OB_NAME, OB_CPU, OB_MEM, OB_GPU, OB_GPU_MILLI, OB_SPEC, OB_PHASE, OB_CREATE, OB_DELETE,
       OB_SCHED, OB_QOS, OB_N };
static const char *const openb_cols[OB_N] = {
    "name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "pod_phase",
    "creation_time", "deletion_time", "scheduled_time", "qos"};
static const bool openb_req[OB_N] = {true, true, true, true, true, false, true, true, true, true,
                                     false};

int import_openb_row(void *ctx, char **f, size_t nf, uint64_t line)
{
    struct import_conv *m = ctx;
    if (!m->have_header)
        return import_header(m, f, nf, line, openb_cols, openb_req, OB_N);
    int rc = import_fields(m, nf, line);
    if (rc)
        return rc;
    m->rows++;
    double cpu, mem, created, deleted, sched = 0;
    uint64_t gpus, gmilli;
    const char *name = import_trim(f[m->col[OB_NAME]]);
    if (!*name)
        return import_fail(m, line, "name", "empty (the task's name becomes its id)");
    if ((rc = import_num(m, f, m->col[OB_CPU], "cpu_milli", line, &cpu)) ||
        (rc = import_num(m, f, m->col[OB_MEM], "memory_mib", line, &mem)) ||
        (rc = import_whole(m, f, m->col[OB_GPU], "num_gpu", line, &gpus)) ||
        (rc = import_whole(m, f, m->col[OB_GPU_MILLI], "gpu_milli", line, &gmilli)) ||
        (rc = import_num(m, f, m->col[OB_CREATE], "creation_time", line, &created)) ||
        (rc = import_num(m, f, m->col[OB_DELETE], "deletion_time", line, &deleted)))
        return rc;
    if (cpu < 0 || mem < 0)
        return import_fail(m, line, cpu < 0 ? "cpu_milli" : "memory_mib", "must be >= 0");
    const char *phase = import_trim(f[m->col[OB_PHASE]]);
    const char *sched_s = import_trim(f[m->col[OB_SCHED]]);
    if (gpus == 0) {
        import_tally_add(&m->t, true, "CPU-only task (num_gpu 0): the simulator models GPU jobs",
                         line);
        return CPN_OK;
    }
    if (!*sched_s) {
        import_tally_add(&m->t, true, "never scheduled (no scheduled_time, Pending): no run time",
                         line);
        return CPN_OK;
    }
    if ((rc = import_num(m, f, m->col[OB_SCHED], "scheduled_time", line, &sched)))
        return rc;
    if (!(deleted - sched > 0)) {
        import_tally_add(&m->t, true, "deletion_time <= scheduled_time: no run to replay", line);
        return CPN_OK;
    }
    if (gpus >= UINT32_MAX)
        return import_fail(m, line, "num_gpu", "too large");
    if (gpus == 1 && gmilli < IMP_MILLI)
        import_tally_add(&m->t, false,
                         "shares a GPU (gpu_milli < 1000): it takes a whole GPU here, time-sliced "
                         "only if a policy co-locates it",
                         line);
    if (m->col[OB_SPEC] >= 0 && *import_trim(f[m->col[OB_SPEC]]))
        import_tally_add(&m->t, false,
                         "gpu_spec (a GPU-type constraint) is not modeled: it may run on "
                         "any type",
                         line);
    if (strcmp(phase, "Running") == 0)
        import_tally_add(&m->t, false,
                         "still Running when the trace ended: its duration is a lower "
                         "bound",
                         line);
    else if (strcmp(phase, "Failed") == 0)
        import_tally_add(&m->t, false,
                         "Failed: its run up to the failure is replayed as a whole job", line);
    const char *origin = m->o->origin ? m->o->origin : "openb";
    struct import_job *r = import_push(m, sizeof *r);
    *r = (struct import_job){.gpu_mem_gib = -1,
                             .submit = created,
                             .duration = deleted - sched,
                             .line = line,
                             .gpus = (unsigned)gpus,
                             .batch = import_assume.batch,
                             .model = -1,
                             .cpus = cpu / IMP_MILLI,
                             .mem_gib = mem / IMP_MIB_PER_GIB,
                             .id = import_str(m, name, strlen(name)),
                             .origin = import_str(m, origin, strlen(origin))};
    import_wide(m, r);
    return CPN_OK;
}

/* ---- openb nodes: sn, cpu_milli, memory_mib, gpu, model ---- */

enum { ON_SN, ON_CPU, ON_MEM, ON_GPU, ON_MODEL, ON_N };
static const char *const on_cols[ON_N] = {"sn", "cpu_milli", "memory_mib", "gpu", "model"};
static const bool on_req[ON_N] = {true, true, true, true, true};

int import_openb_nodes_row(void *ctx, char **f, size_t nf, uint64_t line)
{
    struct import_cl *c = ctx;
    struct import_conv *m = &c->m;
    if (!m->have_header)
        return import_header(m, f, nf, line, on_cols, on_req, ON_N);
    int rc = import_fields(m, nf, line);
    if (rc)
        return rc;
    m->rows++;
    double cpu, mem;
    uint64_t gpus;
    const char *sn = import_trim(f[m->col[ON_SN]]);
    const char *model = import_trim(f[m->col[ON_MODEL]]);
    if (!*sn)
        return import_fail(m, line, "sn", "empty");
    if ((rc = import_num(m, f, m->col[ON_CPU], "cpu_milli", line, &cpu)) ||
        (rc = import_num(m, f, m->col[ON_MEM], "memory_mib", line, &mem)) ||
        (rc = import_whole(m, f, m->col[ON_GPU], "gpu", line, &gpus)))
        return rc;
    if (!(cpu > 0) || !(mem > 0))
        return import_fail(m, line, cpu > 0 ? "memory_mib" : "cpu_milli", "must be > 0");
    if (gpus && !*model)
        return import_fail(m, line, "model", "empty for a node with %" PRIu64 " GPUs", gpus);
    if (gpus && (rc = import_cl_type_ok(c, model, "model", line)))
        return rc;
    double tm = gpus ? import_cl_gpu_mem(c, model, line) : 0;
    return import_cl_add(c, sn, cpu / IMP_MILLI, mem / IMP_MIB_PER_GIB, (unsigned)gpus, model, tm,
                         line);
}
