/* sim_int: the truth's rates and accounting (sim_rate.c), used by the simulation
 * loop and its event handlers (sim.c). Private to those two files: the interface is
 * sim.h. */
#ifndef CPN_SIM_INT_H
#define CPN_SIM_INT_H

#include "sim.h"

#include <stdint.h>

/* The GPU-limited rate of job j: the slowest time-slicing share of its GPUs. */
double sim_gpu_rate(const struct sim *s, uint32_t j);

/* Brings a running job's remaining work and the time it lost to CPU contention up to
 * now, at the rate and CPU share it has had since its last update. */
void sim_catch_up(struct sim *s, struct jobrt *r);

/* Accumulates busy core-seconds up to now (before any change of cpu_used_total),
 * from the first submission on, the span the summary divides by. */
void sim_account_cpu(struct sim *s);

/* Node n's CPU after its running jobs, their GPU sharing or its background changed:
 * recomputes the jobs' demand, the node's share, the jobs' rates (pushing their END
 * events again) and what a scrape reads. changed names the job that just started or
 * stopped on its GPUs, so that only the jobs sharing a GPU with it are recomputed
 * unless the share moved; VIEW_NONE (the background changed) recomputes all. */
void sim_refresh_node(struct sim *s, uint32_t n, uint32_t changed);

/* Adds running job j to its node's list of running jobs, or takes it out. */
void sim_node_run_link(struct sim *s, uint32_t j);
void sim_node_run_unlink(struct sim *s, uint32_t j);

/* The site of GPU g's node. */
uint32_t sim_site_of_gpu(const struct sim *s, uint32_t g);

/* Notes that GPU g's utilisation or memory changed since the last scrape. */
void sim_mark_gpu(struct sim *s, uint32_t g);

/* Sums the peak memory of the peaked jobs resident on GPU g into its memory and its
 * site's, and marks it for the next scrape. */
void sim_recompute_gpu_mem(struct sim *s, uint32_t g);

/* Accumulates GPU busy time up to t (before any change of busy_gpus). */
void sim_account_busy(struct sim *s, double t);

#endif
