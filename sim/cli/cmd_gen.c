/* cmd_gen: `cpnsim gen`, the job-queue generator's command line. */
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "../engine/catalog.h"
#include "../engine/cluster.h"
#include "../io/cluster_json.h"
#include "cmd.h"
#include "../io/gen.h"
#include "../io/trace.h"
#include "../base/util.h"

#define GEN_DEFAULT_SEED 1

static const char *const usage_gen =
    "usage: cpnsim gen --count N [--seed N] [--arrival batch|poisson:RATE|diurnal:RATE]\n"
    "                  [--distributed FRAC [--max-pods N]] [--spec MIX.json]\n"
    "                  [--cluster FILE] [-o FILE]\n"
    "\n"
    "Generates a job queue: models and batch sizes from the measured catalogue,\n"
    "epochs, dataset sizes, GPU counts and origin sites drawn from a seeded RNG. batch\n"
    "(default) submits every job at time 0; poisson:RATE draws exponential gaps with\n"
    "RATE jobs per second; diurnal:RATE is a Poisson process whose rate follows a\n"
    "24-hour curve (time 0 is midnight) with mean RATE. --spec reads a job mix (JSON,\n"
    "docs/jobs.md; traces/mix-example.json): model weights and distributions of batch,\n"
    "epochs, dataset size, image size and GPUs, origins, and optionally count and\n"
    "arrival; options given here override the spec. Origins are the spec's, else the\n"
    "cluster's sites (default: the embedded default cluster). Writes CSV, or JSON when\n"
    "FILE ends in .json, to FILE (atomically) or standard output.\n"
    "\n"
    "  --distributed FRAC  the share of jobs (0 to 1, default 0) that are distributed:\n"
    "                      of several pods, each a whole node's worth of 8 GPUs (a\n"
    "                      spec's pod_gpus otherwise), with the CPU and memory of 8\n"
    "                      GPUs each; the queue gets a pods column. Chosen by a\n"
    "                      generator of their own: the other draws stay the same\n"
    "  --max-pods N        a distributed job's pods are uniform in 2..N (default 4)\n";

struct gen_out {
    const struct jobset *js;
    const struct catalog *cat;
    const char *path;
};

static int write_jobs(FILE *f, const void *ctx)
{
    const struct gen_out *o = ctx;
    return trace_write_any(f, o->path, o->js, o->cat);
}

int cmd_gen(int argc, char **argv)
{
    static const struct option opts[] = {
        {"count", required_argument, 0, 'n'},   {"seed", required_argument, 0, 's'},
        {"arrival", required_argument, 0, 'a'}, {"cluster", required_argument, 0, 'c'},
        {"spec", required_argument, 0, 'm'},    {"output", required_argument, 0, 'o'},
        {"help", no_argument, 0, 'h'},          {"distributed", required_argument, 0, 'd'},
        {"max-pods", required_argument, 0, 'p'}, {0, 0, 0, 0}};
    /* Options given here override the spec file's; cli holds them until it is read. */
    struct gen_spec cli = {.seed = GEN_DEFAULT_SEED, .arrival = GEN_BATCH};
    bool cli_arrival = false, cli_distributed = false;
    const char *cluster_path = NULL, *out_path = NULL, *mix_path = NULL;
    uint64_t v;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (cpn_parse_u64(optarg, &v) != 0 || v == 0)
                return cmd_usage_error("gen", "--count: must be a whole number >= 1");
            cli.count = (size_t)v;
            break;
        case 's':
            if (cpn_parse_u64(optarg, &cli.seed) != 0)
                return cmd_usage_error("gen", "--seed: must be a whole number >= 0");
            break;
        case 'a':
            if (gen_parse_arrival(optarg, &cli) != 0)
                return cmd_usage_error("gen", "--arrival: " GEN_ARRIVAL_RULE);
            cli_arrival = true;
            break;
        case 'd':
            if (gen_parse_share(optarg, &cli.distributed) != 0)
                return cmd_usage_error("gen", "--distributed: must be a number from 0 to 1");
            cli_distributed = true;
            break;
        case 'p':
            if (cpn_parse_u64(optarg, &v) != 0 || v < 2 || v > INT32_MAX)
                return cmd_usage_error("gen",
                                       "--max-pods: must be a whole number from 2 to 2147483647");
            cli.max_pods = (uint32_t)v;
            break;
        case 'c': cluster_path = optarg; break;
        case 'm': mix_path = optarg; break;
        case 'o': out_path = optarg; break;
        case 'h': fputs(usage_gen, stdout); return 0;
        default: return cmd_usage_error("gen", "unknown option");
        }
    }
    if (optind < argc)
        return cmd_usage_error("gen", "unexpected argument");
    if (cli.count == 0 && !mix_path)
        return cmd_usage_error("gen", "--count is required");
    if (cmd_check_path("gen", "-o", out_path) || cmd_check_jobs_out("gen", "-o", out_path) ||
        cmd_check_path("gen", "--spec", mix_path) ||
        cmd_check_path("gen", "--cluster", cluster_path))
        return 2;
    if (cmd_same_file(mix_path, out_path) || cmd_same_file(cluster_path, out_path))
        return cmd_usage_error("gen", "-o names an input file (--spec or --cluster): refusing to "
                                      "overwrite it");

    char err[CPN_ERR_LEN];
    struct catalog *cat = NULL;
    struct cluster *cl = NULL;
    struct gen_mix *mix = NULL;
    struct jobset js;
    jobset_init(&js);
    const char **origins = NULL;
    struct gen_spec spec = {.seed = cli.seed, .arrival = GEN_BATCH};
    int rc = catalog_create(&cat, err, sizeof err);
    if (!rc && mix_path)
        rc = gen_mix_load(mix_path, cat, &mix, err, sizeof err);
    if (!rc && mix)
        gen_mix_apply(mix, &spec);
    if (cli.count)
        spec.count = cli.count;
    if (cli_arrival) {
        spec.arrival = cli.arrival;
        spec.rate_per_s = cli.rate_per_s;
    }
    if (cli_distributed)
        spec.distributed = cli.distributed;
    if (cli.max_pods)
        spec.max_pods = cli.max_pods;
    if (!rc && spec.count == 0)
        rc = cpn_fail(err, sizeof err, CPN_EINPUT,
                      "gen: --count is required (%s gives no count)", mix_path);
    if (!rc && !(mix && gen_mix_has_origins(mix))) {
        rc = cluster_load(cluster_path, NULL, 0, cat, &cl, err, sizeof err);
        if (!rc) {
            origins = cluster_site_names(cl);
            spec.origins = origins;
            spec.n_origins = cl->n_sites;
        }
    }
    if (!rc)
        rc = gen_jobs(&spec, cat, &js, err, sizeof err);
    if (!rc) {
        if (out_path)
            rc = cmd_write_atomic(out_path, write_jobs, &(struct gen_out){&js, cat, out_path}, err,
                                  sizeof err);
        else if (trace_write_csv(stdout, &js, cat) != 0 || fflush(stdout) != 0)
            rc = cpn_fail(err, sizeof err, CPN_EIO, "standard output: write failed");
    }
    free(origins);
    jobset_free(&js);
    gen_mix_destroy(mix);
    cluster_destroy(cl);
    catalog_destroy(cat);
    return rc ? cmd_fail(rc, err) : 0;
}
