/* cmd_import: `cpnsim import`, real traces into a job queue or a cluster. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/catalog.h"
#include "cmd.h"
#include "../io/import.h"
#include "../io/trace.h"
#include "../base/util.h"

static const char *const usage_import =
    "usage: cpnsim import FORMAT FILE [-o OUT] [--pod-gpus N | --max-gpus N]\n"
    "                     [--origin SITE] [--gpu-mem-gib X]\n"
    "       cpnsim import CLUSTER-FORMAT FILE [-o cluster.json] [--site NAME]\n"
    "                     [--origins-from JOBS]\n"
    "\n"
    "Converts a public trace. Job formats write the job CSV (JSON when OUT ends in\n"
    ".json):\n"
    "  philly   Philly jobs (philly_jobs_pollux.csv): timestamp, duration, num_gpus,\n"
    "           cluster; submit_s counts from the earliest job, the virtual cluster\n"
    "           is the origin site\n"
    "  openb    Alibaba openb tasks (openb_pod_list_*.csv): creation, scheduled and\n"
    "           deletion times, cpu_milli, memory_mib, num_gpu\n"
    "  gavel    Gavel's trace format: job type (model and batch), total steps,\n"
    "           scale factor (GPUs), arrival time\n"
    "Cluster formats write cluster JSON:\n"
    "  philly-machines  Philly's cluster_machine_list\n"
    "  openb-nodes      openb_node_list_*.csv\n"
    "  pai-machines     Alibaba PAI pai_machine_spec.csv\n"
    "\n"
    "  -o OUT              output file (written atomically); default standard output\n"
    "  --pod-gpus N        split a job wider than N GPUs into pods of at most N GPUs\n"
    "                      each (a distributed job: P = ceil(G / N) pods of ceil(G / P)\n"
    "                      GPUs), keeping its duration; the way to keep wide jobs\n"
    "                      (philly: --pod-gpus 8, its largest machine)\n"
    "  --max-gpus N        fold a job wider than N GPUs onto N, keeping its GPU time\n"
    "                      (duration x G / N); not with --pod-gpus\n"
    "  --origin SITE       origin of every job (openb: default openb; gavel: gavel)\n"
    "  --gpu-mem-gib X     every job's peak GPU memory per GPU, GiB (the gpu_mem_gib\n"
    "                      column), when you know it better than the catalogue\n"
    "  --site NAME         the converted cluster's compute site (default: the format's\n"
    "                      name: philly, openb or pai)\n"
    "  --origins-from JOBS add each origin of this job file (any format cpnsim reads) as\n"
    "                      a data-only site linked to the compute site\n"
    "Rows skipped, values changed and assumptions are reported on standard error with\n"
    "counts; docs/import.md explains each.\n";

struct import_out {
    const struct jobset *js;
    const struct catalog *cat;
    const char *path, *json;
};

static int write_out(FILE *f, const void *ctx)
{
    const struct import_out *o = ctx;
    if (o->json)
        return fputs(o->json, f) < 0 ? CPN_EIO : CPN_OK;
    return trace_write_any(f, o->path, o->js, o->cat);
}

int cmd_import(int argc, char **argv)
{
    static const struct option opts[] = {
        {"output", required_argument, 0, 'o'},   {"max-gpus", required_argument, 0, 'g'},
        {"origin", required_argument, 0, 'r'},   {"site", required_argument, 0, 's'},
        {"origins-from", required_argument, 0, 'f'}, {"help", no_argument, 0, 'h'},
        {"gpu-mem-gib", required_argument, 0, 'm'}, {"pod-gpus", required_argument, 0, 'p'},
        {0, 0, 0, 0}};
    struct import_opts io = {0};
    const char *out_path = NULL, *origins_path = NULL;
    uint64_t v;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out_path = optarg; break;
        case 'g':
            if (cpn_parse_u64(optarg, &v) != 0 || v == 0 || v > UINT32_MAX)
                return cmd_usage_error("import", "--max-gpus: must be a whole number >= 1");
            io.max_gpus = (unsigned)v;
            break;
        case 'p':
            if (cpn_parse_u64(optarg, &v) != 0 || v == 0 || v > UINT32_MAX)
                return cmd_usage_error("import", "--pod-gpus: must be a whole number >= 1");
            io.pod_gpus = (unsigned)v;
            break;
        case 'r':
            if (!*optarg)
                return cmd_usage_error("import", "--origin: empty site name");
            io.origin = optarg;
            break;
        case 's':
            if (!*optarg)
                return cmd_usage_error("import", "--site: empty site name");
            io.site = optarg;
            break;
        case 'f': origins_path = optarg; break;
        case 'm':
            if (cpn_parse_double(optarg, &io.gpu_mem_gib) != 0 || !(io.gpu_mem_gib > 0) ||
                io.gpu_mem_gib > TRACE_MAX_GIB)
                return cmd_usage_error("import", "--gpu-mem-gib: must be a number > 0 (GiB)");
            break;
        case 'h': fputs(usage_import, stdout); return 0;
        default: return cmd_usage_error("import", "unknown option");
        }
    }
    if (argc - optind != 2)
        return cmd_usage_error("import", "expected FORMAT and FILE");
    const char *format = argv[optind], *path = argv[optind + 1];
    if (cmd_check_path("import", "-o", out_path) || cmd_check_jobs_out("import", "-o", out_path) ||
        cmd_check_path("import", "FILE", path) ||
        cmd_check_path("import", "--origins-from", origins_path))
        return 2;
    if (cmd_same_file(path, out_path) || cmd_same_file(origins_path, out_path))
        return cmd_usage_error("import", "-o names an input file: refusing to overwrite it");
    bool jobs = import_is_job_format(format);
    if (!jobs && !import_is_cluster_format(format)) {
        char msg[200];
        snprintf(msg, sizeof msg,
                 "unknown format '%.40s': FORMAT is philly, openb, gavel, philly-machines, "
                 "openb-nodes or pai-machines",
                 format);
        return cmd_usage_error("import", msg);
    }
    if (jobs && (io.site || origins_path))
        return cmd_usage_error("import", "--site and --origins-from apply to cluster formats");
    if (!jobs && (io.max_gpus || io.pod_gpus || io.origin || io.gpu_mem_gib > 0))
        return cmd_usage_error("import", "--pod-gpus, --max-gpus, --origin and --gpu-mem-gib "
                                         "apply to job formats");
    /* A wide job is either split into pods or folded onto fewer GPUs, not both. */
    if (io.max_gpus && io.pod_gpus)
        return cmd_usage_error("import", "--pod-gpus and --max-gpus: give one (a wide job is "
                                         "split into pods, or folded onto fewer GPUs)");

    char err[CPN_ERR_LEN];
    struct catalog *cat = NULL;
    struct jobset js, origins;
    jobset_init(&js);
    jobset_init(&origins);
    char *json = NULL;
    int rc = catalog_create(&cat, err, sizeof err);
    if (!rc && origins_path) {
        rc = trace_read_any(origins_path, cat, &origins, NULL, err, sizeof err);
        io.origins_from = &origins;
    }
    if (!rc)
        rc = jobs ? import_jobs(format, path, &io, cat, &js, stderr, NULL, err, sizeof err)
                  : import_cluster(format, path, &io, &json, stderr, NULL, err, sizeof err);
    struct import_out o = {&js, cat, out_path ? out_path : "-", json};
    if (!rc) {
        if (out_path)
            rc = cmd_write_atomic(out_path, write_out, &o, err, sizeof err);
        else if (write_out(stdout, &o) != 0 || fflush(stdout) != 0)
            rc = cpn_fail(err, sizeof err, CPN_EIO, "standard output: write failed");
    }
    free(json);
    jobset_free(&js);
    jobset_free(&origins);
    catalog_destroy(cat);
    return rc ? cmd_fail(rc, err) : 0;
}
