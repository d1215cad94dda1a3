/* controller: the controller's side of a run (its queue, bookkeeping, the view's node
 * index, learning of ends, scrapes), as functions over struct sim. It owns no state
 * and never changes the truth; the loop and the truth are sim.c's. */
#ifndef CPN_CONTROLLER_H
#define CPN_CONTROLLER_H

#include <stdint.h>

#include "sim.h"

struct predictor;

/* Allocates the controller's state in s (its bookkeeping, the scrape, the view and
 * its index, the policy's parameters), after the jobs and the truth; pred is what the
 * policy is told (NULL: the catalogue's truth). sim_destroy frees it. */
void controller_init(struct sim *s, const struct predictor *pred);

/* Appends job j to the queue (state QUEUED), or takes it out. */
void controller_queue_append(struct sim *s, uint32_t j);
void controller_queue_remove(struct sim *s, uint32_t j);
/* Brings node n's entry of the view's index up to date (after its bookkeeping or, with
 * live metrics, its GPUs changed); rebuild: every node's. */
void controller_index_refresh(struct sim *s, uint32_t n);
void controller_index_rebuild(struct sim *s);
/* Node n's truth changed (a job peaked or ended there), not the bookkeeping:
 * refreshes its entry when the view shows the truth (live metrics). */
void controller_truth_changed(struct sim *s, uint32_t n);
/* Job j ended (done or killed): the controller learns it at once with completion
 * "event", else at the next poll (controller_poll), when its bookkeeping releases
 * the job and a killed job that may retry starts its back-off. */
void controller_notify_end(struct sim *s, uint32_t j);
void controller_poll(struct sim *s);
/* Copies into the scrape what changed in the truth since the last one. */
void controller_scrape(struct sim *s);

#endif
