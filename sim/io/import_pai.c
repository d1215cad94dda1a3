/* import_pai: Alibaba PAI's machine list (no header), converted row by row
 * (docs/import.md). */
#include "import_conv.h"

#include "../base/util.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- PAI machines: machine, gpu_type, cap_cpu, cap_mem, cap_gpu (no header) ---- */

enum { PAI_FIELDS = 5 };

int import_pai_machines_row(void *ctx, char **f, size_t nf, uint64_t line)
{
    struct import_cl *c = ctx;
    struct import_conv *m = &c->m;
    if (nf != PAI_FIELDS)
        return import_fail(m, line, "row",
                           "has %zu fields (machine, gpu_type, cap_cpu, cap_mem, cap_gpu)", nf);
    if (!m->have_header) {
        m->have_header = true;
        if (strcmp(import_trim(f[0]), "machine") == 0)
            return CPN_OK; /* a header row (pai_machine_spec.header, prepended) */
    }
    static const int cols[PAI_FIELDS] = {0, 1, 2, 3, 4};
    m->rows++;
    double cpu, mem;
    uint64_t gpus;
    const char *id = import_trim(f[cols[0]]), *type = import_trim(f[cols[1]]);
    int rc;
    if (!*id)
        return import_fail(m, line, "machine", "empty");
    if ((rc = import_num(m, f, cols[2], "cap_cpu", line, &cpu)) ||
        (rc = import_num(m, f, cols[3], "cap_mem", line, &mem)) ||
        (rc = import_whole(m, f, cols[4], "cap_gpu", line, &gpus)))
        return rc;
    if (!(cpu > 0) || !(mem > 0))
        return import_fail(m, line, cpu > 0 ? "cap_mem" : "cap_cpu", "must be > 0");
    if (gpus && (!*type || strcmp(type, "CPU") == 0))
        return import_fail(m, line, "gpu_type", "'%s' for a machine with %" PRIu64 " GPUs", type,
                           gpus);
    if (gpus && (rc = import_cl_type_ok(c, type, "gpu_type", line)))
        return rc;
    double tm = gpus ? import_cl_gpu_mem(c, type, line) : 0;
    return import_cl_add(c, id, cpu, mem, (unsigned)gpus, type, tm, line);
}
