/* net: the wide-area network. Sites joined by links (bandwidth, latency); routes
 * are lowest-latency paths; concurrent transfers share each link max-min fairly as
 * fluid flows (rates recomputed when a flow starts or ends); per-site LRU caches of
 * images and datasets. It owns flows and caches, not jobs. */
#ifndef CPN_NET_H
#define CPN_NET_H

#include <stddef.h>
#include <stdint.h>

struct net;
struct jobset;

/* Estimated seconds to move job j's image, model and data to `site` if started now,
 * as the controller can know it: link parameters, cache contents and the flows it
 * started. 0 when nothing needs to move. */
double net_estimate_job_s(const struct net *n, const struct jobset *js, uint32_t j, uint32_t site);

#endif
