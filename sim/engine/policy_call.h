/* policy_call: the one block of wrappers through which the engine calls a policy's
 * hooks (policy.h). They fill in absent optional hooks, check what a hook returns (a
 * placement must name resources that exist) and, with policy_check_indexes, have the
 * policy verify its own indexes. They own no state; the run's state is struct sim's. */
#ifndef CPN_POLICY_CALL_H
#define CPN_POLICY_CALL_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"

struct sim;

/* init: 0, or the policy's negative code with its message in err. */
int policy_call_init(struct sim *s, char *err, size_t errlen);
void policy_call_begin(struct sim *s);
/* place: 1 with *out a valid placement, or 0 when it places nothing more now. A
 * placement is valid when it names a queued job, a node that exists, as many GPUs as
 * the job asks and no more than the node holds, each on the node and given once, of a
 * GPU type the job may run on (view_job_runs_on), and CPU and memory requests that fit
 * what the node really has free, on a node the controller's CPU filter lets take a job
 * (view_node_eligible); an invalid one, or
 * a result other than 0 or 1, aborts naming the policy and what is wrong. */
int policy_call_place(struct sim *s, struct placement *out);
/* end: the wake-up time the policy asks for (INFINITY for none). */
double policy_call_end(struct sim *s);
void policy_call_job_event(struct sim *s, uint32_t j, enum policy_job_event e);
void policy_call_destroy(struct sim *s); /* also when init failed or was never called */

#endif
