/* The engine as a queue: an ideal-controller FIFO run on c identical single-GPU
 * nodes, with Poisson arrivals and exponential run times, is an M/M/c queue, whose
 * mean wait is given by the Erlang C formula: Wq = C(c, a) / (c mu - lambda), with
 * a = lambda / mu. */
#include <criterion/criterion.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_gamma.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../sim/base/util.h"
#include "helpers.h"

static double erlang_c(unsigned c, double a)
{
    double sum = 0;
    for (unsigned k = 0; k < c; k++)
        sum += pow(a, k) / gsl_sf_fact(k);
    double top = pow(a, c) / gsl_sf_fact(c) * (c / (c - a));
    return top / (sum + top);
}

static void check_mmc(unsigned c, double lambda, double mu, size_t n, size_t warm, double tol)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 12345);
    size_t cap = n * 128 + 256, len = 0;
    char *csv = cpn_malloc(cap);
    len += (size_t)snprintf(csv + len, cap - len,
                            "id,submit_s,model,batch,epochs,data_gib,gpus,cpus,mem_gib,image_gib,"
                            "origin,duration_s,gpu_mem_gib\n");
    double t = 0;
    for (size_t i = 0; i < n; i++) {
        t += gsl_ran_exponential(rng, 1 / lambda);
        len += (size_t)snprintf(csv + len, cap - len, "j%zu,%.17g,-,1,1,0,1,1,1,0,a,%.17g,0\n", i, t,
                                gsl_ran_exponential(rng, 1 / mu));
    }
    gsl_rng_free(rng);

    char cluster[1024];
    snprintf(cluster, sizeof cluster,
             "{\"scrape_interval_s\": 0, \"completion\": \"event\", \"timeline_interval_s\": 1e9,"
             " \"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1.0, \"profile\": \"none\"}},"
             " \"sites\": [{\"name\": \"a\", \"nodes\": [{\"count\": %u, \"cpus\": 8, \"mem_gib\": 64,"
             " \"gpu_type\": \"G\", \"gpus\": 1}]}]}",
             c);
    struct run r;
    run_start(&r, cluster, NULL, 0, csv, "fifo");
    free(csv);
    cr_assert_eq(r.s->st.completed, n);
    double wait = 0;
    for (size_t j = warm; j < n; j++)
        wait += r.s->job_started_s[j] - r.js.v[j].submit_s;
    wait /= (double)(n - warm);
    double a = lambda / mu, want = erlang_c(c, a) / (c * mu - lambda);
    cr_log_info("M/M/%u rho=%.2f: mean wait %.3f s, Erlang C %.3f s (%.2f%%)", c, a / c, wait, want,
                100 * (wait - want) / want);
    cr_assert(fabs(wait - want) <= tol * want, "M/M/%u: mean wait %.4f, Erlang C says %.4f", c, wait,
              want);
    run_free(&r);
}

/* 4 servers at 70% load: Wq = C(4, 2.8) * 100 / 1.2 = about 35.7 s. 600,000 jobs give a
 * standard error of about 1% (2M jobs come within 0.4%); the seed is fixed, so the check is deterministic. */
Test(mmc, erlang_c_mean_wait_c4, .timeout = 60)
{
    check_mmc(4, 0.028, 0.01, 600000, 10000, 0.05);
}

/* 8 servers at 80% load. */
Test(mmc, erlang_c_mean_wait_c8, .timeout = 60)
{
    check_mmc(8, 0.064, 0.01, 600000, 10000, 0.05);
}
