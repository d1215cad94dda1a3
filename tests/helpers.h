/* Test helpers: build a run from inline cluster JSON and job CSV, run it, and read
 * back per-job results. Each test runs in its own process (Criterion), so a helper
 * may abort the test with cr_assert on any error. */
#ifndef CPN_TEST_HELPERS_H
#define CPN_TEST_HELPERS_H

#include <stdbool.h>

#include "../sim/engine/policy.h"
#include "../sim/engine/catalog.h"
#include "../sim/engine/cluster.h"
#include "../sim/io/cluster_json.h"
#include "../sim/engine/predict.h"
#include "../sim/engine/sim.h"
#include "../sim/io/trace.h"

struct run {
    struct catalog *cat;
    struct cluster *cl;
    struct jobset js;
    struct predictor *pred; /* NULL: the catalogue's truth (the oracle) */
    struct sim *s;
};

/* Loads cluster JSON and job CSV from strings (sets may be NULL), creates the sim with
 * the named policy, runs it to the end. Asserts on any error. */
void run_start(struct run *r, const char *cluster_json, const char *const *sets, size_t n_sets,
               const char *jobs_csv, const char *policy);
/* The same with a predictor spec (--predictor; NULL: the oracle, as run_start), trained
 * with seed 1. */
void run_start_pred(struct run *r, const char *cluster_json, const char *const *sets,
                    size_t n_sets, const char *jobs_csv, const char *policy, const char *pred);
/* As run_start, with job j (in input order) of pods[j] pods. */
void run_start_pods(struct run *r, const char *cluster_json, const char *const *sets,
                    size_t n_sets, const char *jobs_csv, const char *policy, const uint32_t *pods);
/* As run_start with the policy's ops, but stops before sim_run: the caller may reach
 * r->s (and r->js) first, then runs it. */
void run_create(struct run *r, const char *cluster_json, const char *const *sets, size_t n_sets,
                const char *jobs_csv, const struct policy_ops *pol);
/* As run_create, with job j (in input order) of pods[j] pods. */
void run_create_pods(struct run *r, const char *cluster_json, const char *const *sets,
                     size_t n_sets, const char *jobs_csv, const struct policy_ops *pol,
                     const uint32_t *pods);
void run_free(struct run *r);
/* Loads the cluster (as "c.json") and the jobs (as "j.csv") and creates a fifo sim
 * from them (asserting that both load); returns sim_create's code and message. */
int run_create_code(const char *cluster_json, const char *jobs_csv, char *err, size_t errlen);
/* Index of the job with that id (asserts it exists). */
uint32_t run_job(const struct run *r, const char *id);
/* When the last attempt of the job with that id started (sim.job_started_s; -1 when
 * none). */
double run_start_s(const struct run *r, const char *id);

/* Runs a shell command; returns its exit status (or -1). */
int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Reads a whole file into a string the caller frees (NULL when missing). A leading
 * "$TMPD" is replaced by that environment variable. */
char *slurp(const char *path);

/* Writes js as the job CSV (json false) or JSON into a string the caller frees. */
char *jobs_write_mem(const struct jobset *js, const struct catalog *cat, bool json);

/* A one-node cluster with `gpus` GPUs of `mem` GiB, no catalogue profile, speed 1,
 * scrape and completion as given ("event" or "poll"), as JSON in a static buffer. */
const char *one_node_cluster(unsigned gpus, double mem_gib, double scrape_s, const char *completion);

#endif
