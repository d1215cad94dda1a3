/* job: the job array and its string pool, and a job's run time and CPU demand. */
#include "job.h"

#include "catalog.h"
#include "../base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void jobset_init(struct jobset *js) { memset(js, 0, sizeof *js); }

void jobset_free(struct jobset *js)
{
    free(js->v);
    free(js->pods);
    free(js->pool);
    free(js->source);
    jobset_init(js);
}

uint32_t jobset_intern(struct jobset *js, const char *s) { return jobset_intern_n(js, s, strlen(s)); }

uint32_t jobset_intern_n(struct jobset *js, const char *s, size_t len)
{
    size_t n = len + 1;
    CPN_ASSERT(js->pool_len <= UINT32_MAX && n <= (size_t)UINT32_MAX - js->pool_len);
    cpn_grow((void **)&js->pool, &js->pool_cap, js->pool_len + n, 1);
    memcpy(js->pool + js->pool_len, s, n);
    uint32_t off = (uint32_t)js->pool_len;
    js->pool_len += n;
    return off;
}

size_t jobset_push(struct jobset *js, const struct job *j)
{
    cpn_grow((void **)&js->v, &js->cap, js->n + 1, sizeof *js->v);
    js->v[js->n] = *j;
    if (js->pods) {
        cpn_grow((void **)&js->pods, &js->pods_cap, js->n + 1, sizeof *js->pods);
        js->pods[js->n] = 1;
    }
    return js->n++;
}

void jobset_set_pods(struct jobset *js, size_t j, uint32_t pods)
{
    CPN_ASSERT(j < js->n && pods >= 1);
    if (!js->pods) {
        if (pods == 1)
            return;
        cpn_grow((void **)&js->pods, &js->pods_cap, js->n, sizeof *js->pods);
        for (size_t i = 0; i < js->n; i++)
            js->pods[i] = 1;
    }
    js->pods[j] = pods;
}

/* Bytes in a GiB: dataset sizes turn into samples with it. */
#define TRACE_GIB 1073741824.0

double job_run_s(const struct job *jb, const struct catalog *cat, double step_s, double speed)
{
    return job_run_pods_s(jb, 1, cat, step_s, speed);
}

double job_run_pods_s(const struct job *jb, uint32_t pods, const struct catalog *cat,
                      double step_s, double speed)
{
    if (jb->duration_s >= 0)
        return jb->duration_s / speed;
    double samples = (double)jb->samples;
    if (samples <= 0)
        samples = ceil(jb->data_gib * TRACE_GIB / catalog_bytes_per_sample(cat, jb->model));
    if (samples < 1)
        samples = 1;
    double steps = ceil(samples / ((double)jb->batch * (double)jb->gpus * (double)pods));
    return (double)jb->epochs * steps * step_s;
}

/* Milliseconds in a second: the catalogue gives CPU cost per sample in ms. */
#define JOB_MS_PER_S 1000.0

double job_cpu_cores(const struct job *jb, const struct catalog *cat, double step_s)
{
    return job_cpu_cores_scaled(jb, cat, step_s, 1.0);
}

double job_cpu_cores_scaled(const struct job *jb, const struct catalog *cat, double step_s,
                            double cost_scale)
{
    if (jb->cpu_cores_used > 0)
        return jb->cpu_cores_used;
    if (jb->model < 0)
        return jb->cpus;
    CPN_ASSERT(cat && step_s > 0);
    /* One step feeds batch samples to each of the gpus processes; each process also
     * keeps one core busy driving its GPU, whatever its input costs. */
    double gpus = (double)jb->gpus;
    double samples_per_s = (double)jb->batch * gpus / step_s;
    return gpus + samples_per_s * catalog_cpu_ms_per_sample(cat, jb->model) * cost_scale /
                      JOB_MS_PER_S;
}
