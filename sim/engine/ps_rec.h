/* ps_rec: a job in a processor-sharing heap, least virtual finish first: a share
 * group's running jobs (sim_share.c) and a link's flows (net.c) keep one record each,
 * with the keys their comparisons read, so that a sift reads only the heap's array and
 * not the jobs' or flows' state (at a million jobs, a cache miss per comparison). */
#ifndef CPN_PS_REC_H
#define CPN_PS_REC_H

#include <stdbool.h>
#include <stdint.h>

struct ps_rec {
    double vfinish; /* the heap's virtual time at which it is done */
    uint32_t job;   /* ties on vfinish go to the lower job: a strict order, since a job
                     * has one record in a heap */
    union {
        uint32_t gen;  /* a share group's: the gen its END carries (fixed while it is in
                        * the group: a job's gen changes only once it has left) */
        uint32_t slot; /* a link's: its flow slot */
    };
};

/* heap_ops.less of either heap. */
static inline bool ps_rec_before(const void *a, const void *b, const void *ctx)
{
    (void)ctx;
    const struct ps_rec *x = a, *y = b;
    return x->vfinish < y->vfinish || (x->vfinish == y->vfinish && x->job < y->job);
}

#endif
