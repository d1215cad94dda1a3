#include "helpers.h"

#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../sim/base/util.h"

/* run_create with a predictor spec (NULL: the oracle). */
/* Pods of the jobs of the next run (run_start_pods), in input order; NULL: one each. */
static const uint32_t *next_pods;

static void create(struct run *r, const char *cluster_json, const char *const *sets,
                   size_t n_sets, const char *jobs_csv, const struct policy_ops *pol,
                   const char *pred)
{
    char err[CPN_ERR_LEN] = "";
    memset(r, 0, sizeof *r);
    jobset_init(&r->js);
    cr_assert_eq(catalog_create(&r->cat, err, sizeof err), 0, "catalog: %s", err);
    cr_assert_eq(cluster_load_buf("test.json", cluster_json, strlen(cluster_json), sets, n_sets,
                                  r->cat, &r->cl, err, sizeof err),
                 0, "cluster: %s", err);
    cr_assert_eq(trace_read_csv_buf("test.csv", jobs_csv, strlen(jobs_csv), r->cat, &r->js, err,
                                    sizeof err),
                 0, "jobs: %s", err);
    for (size_t j = 0; next_pods && j < r->js.n; j++)
        jobset_set_pods(&r->js, j, next_pods[j]);
    next_pods = NULL;
    if (pred)
        cr_assert_eq(predictor_create(&r->pred, pred, r->cat, 1, err, sizeof err), 0,
                     "predictor: %s", err);
    cr_assert_eq(sim_create(&r->s, r->cl, r->cat, &r->js, pol, r->pred, NULL, err, sizeof err), 0,
                 "sim: %s", err);
}

void run_start(struct run *r, const char *cluster_json, const char *const *sets, size_t n_sets,
               const char *jobs_csv, const char *policy)
{
    run_start_pred(r, cluster_json, sets, n_sets, jobs_csv, policy, NULL);
}

void run_start_pred(struct run *r, const char *cluster_json, const char *const *sets,
                    size_t n_sets, const char *jobs_csv, const char *policy, const char *pred)
{
    const struct policy_ops *pol = policy_find(policy);
    cr_assert(pol, "no policy %s", policy);
    create(r, cluster_json, sets, n_sets, jobs_csv, pol, pred);
    char err[CPN_ERR_LEN] = "";
    cr_assert_eq(sim_run(r->s, err, sizeof err), 0, "run: %s", err);
}

void run_start_pods(struct run *r, const char *cluster_json, const char *const *sets,
                    size_t n_sets, const char *jobs_csv, const char *policy, const uint32_t *pods)
{
    next_pods = pods;
    run_start(r, cluster_json, sets, n_sets, jobs_csv, policy);
}

void run_create(struct run *r, const char *cluster_json, const char *const *sets, size_t n_sets,
                const char *jobs_csv, const struct policy_ops *pol)
{
    create(r, cluster_json, sets, n_sets, jobs_csv, pol, NULL);
}

void run_create_pods(struct run *r, const char *cluster_json, const char *const *sets,
                     size_t n_sets, const char *jobs_csv, const struct policy_ops *pol,
                     const uint32_t *pods)
{
    next_pods = pods;
    run_create(r, cluster_json, sets, n_sets, jobs_csv, pol);
}

void run_free(struct run *r)
{
    sim_destroy(r->s);
    predictor_destroy(r->pred);
    jobset_free(&r->js);
    cluster_destroy(r->cl);
    catalog_destroy(r->cat);
}

uint32_t run_job(const struct run *r, const char *id)
{
    for (size_t j = 0; j < r->js.n; j++)
        if (strcmp(jobset_str(&r->js, r->js.v[j].id), id) == 0)
            return (uint32_t)j;
    cr_assert_fail("no job %s", id);
    return 0;
}

double run_start_s(const struct run *r, const char *id) { return r->s->job_started_s[run_job(r, id)]; }

int sh(const char *fmt, ...)
{
    char cmd[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof cmd, fmt, ap);
    va_end(ap);
    int st = system(cmd);
    if (st == -1 || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

char *jobs_write_mem(const struct jobset *js, const struct catalog *cat, bool json)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    cr_assert_eq(json ? trace_write_json(f, js, cat) : trace_write_csv(f, js, cat), CPN_OK);
    cr_assert_eq(fclose(f), 0);
    return buf;
}

char *slurp(const char *path)
{
    char *buf, full[1024];
    size_t len;
    char err[CPN_ERR_LEN];
    if (strncmp(path, "$TMPD", 5) == 0 && getenv("TMPD")) {
        snprintf(full, sizeof full, "%s%s", getenv("TMPD"), path + 5);
        path = full;
    }
    return cpn_read_file(path, &buf, &len, err, sizeof err) == 0 ? buf : NULL;
}

const char *one_node_cluster(unsigned gpus, double mem_gib, double scrape_s, const char *completion)
{
    static char buf[1024];
    snprintf(buf, sizeof buf,
             "{\"scrape_interval_s\": %g, \"poll_interval_s\": 60, \"completion\": \"%s\",\n"
             " \"gpu_types\": {\"G\": {\"mem_gib\": %g, \"speed\": 1.0, \"profile\": \"none\"}},\n"
             " \"sites\": [{\"name\": \"a\", \"nodes\": [{\"count\": 1, \"cpus\": 64, \"mem_gib\": 512,\n"
             "   \"gpu_type\": \"G\", \"gpus\": %u}]}]}\n",
             scrape_s, completion, mem_gib, gpus);
    return buf;
}

int run_create_code(const char *cluster_json, const char *jobs_csv, char *err, size_t errlen)
{
    struct catalog *cat;
    struct cluster *cl;
    struct jobset js;
    jobset_init(&js);
    cr_assert_eq(catalog_create(&cat, err, errlen), 0);
    cr_assert_eq(cluster_load_buf("c.json", cluster_json, strlen(cluster_json), NULL, 0, cat, &cl,
                                  err, errlen),
                 0, "%s", err);
    cr_assert_eq(trace_read_csv_buf("j.csv", jobs_csv, strlen(jobs_csv), cat, &js, err, errlen), 0,
                 "%s", err);
    struct sim *s = NULL;
    int rc = sim_create(&s, cl, cat, &js, policy_find("fifo"), NULL, NULL, err, errlen);
    sim_destroy(s);
    jobset_free(&js);
    cluster_destroy(cl);
    catalog_destroy(cat);
    return rc;
}
