/* sim_rate: the accounting that follows the truth's rates, for the loop in sim.c: the
 * background load of other tenants, the marks of what a scrape must copy, GPU memory,
 * and the integrals of busy GPUs and used cores. The rates themselves (GPU
 * time-slicing and CPU contention) are in sim_share.c. Declared in sim_int.h, where the
 * marks and the busy GPUs' integral, a few stores each, are inline. */
#include "sim_int.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_math.h>
#include <math.h>

#include "../base/util.h"

/* ---- accounting ---- */

/* Accumulates busy core-seconds up to now (before any change of cpu_used_total),
 * from the first submission on, the span the summary divides by. */
void sim_account_cpu(struct sim *s)
{
    if (s->now > s->cpu_since_s) {
        s->st.cpu_used_integral += s->cpu_used_total * (s->now - s->cpu_since_s);
        s->cpu_since_s = s->now;
    }
}

/* ---- background load of other tenants ---- */

/* splitmix64: one step of its generator (the golden-ratio increment), then its finaliser. */
static uint64_t mix64(uint64_t x) { return cpn_mix64(x + 0x9E3779B97F4A7C15ull); }

/* A standard normal draw that depends only on (seed, node, step): a uniform in (0, 1)
 * from a hash of the three, through GSL's inverse normal CDF. Drawn this way the load
 * is the same whatever order events come in, so every policy of a run sees the same. */
static double bg_gauss(uint64_t seed, uint32_t n, uint64_t k)
{
    uint64_t h = mix64(seed ^ mix64(((uint64_t)n << 32) ^ mix64(k)));
    return gsl_cdf_ugaussian_Pinv(((double)(h >> 11) + 0.5) / 9007199254740992.0);
}

double sim_background(const struct sim *s, uint32_t n, double t)
{
    const struct cpu_background *b = &s->cl->nodes[n].bg;
    if (!cpu_background_varies(b))
        return b->mean;
    double k = floor(t / b->step_s), t0 = k * b->step_s;
    double x = b->mean;
    if (b->amplitude != 0)
        x += b->amplitude * sin(2.0 * M_PI * (t0 + b->phase_s) / b->period_s);
    if (b->noise != 0)
        x += b->noise * bg_gauss(s->seed, n, (uint64_t)k);
    return x < 0 ? 0 : x > CLUSTER_MAX_BACKGROUND ? CLUSTER_MAX_BACKGROUND : x;
}

void sim_release_gpu_mem(struct sim *s, uint32_t g, uint32_t site, double gib)
{
    double m = s->gpu_mem_gib[g] - gib;
    /* Subtracted, not summed again over the GPU's jobs (thousands when a policy piles
     * them onto one GPU); an idle GPU's memory is exactly 0, so rounding never makes
     * it look busy. */
    if (s->gpu_resident[g] == VIEW_NONE || m < VIEW_FIT_EPS)
        m = 0;
    s->site_mem_gib[site] += m - s->gpu_mem_gib[g];
    s->gpu_mem_gib[g] = m;
    sim_mark_gpu(s, g);
}
