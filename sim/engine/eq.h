/* eq: the event queue, two 4-ary min-heaps of compact event records (keyed and
 * pushed events) ordered by (time, seq), its own rather than base/heap.h's generic
 * one (eq.c says why). seq is a counter that only grows, so events at equal times pop
 * in insertion order and every run is deterministic. It owns the records, not the
 * jobs they name (jobs are referred to by index). */
#ifndef CPN_EQ_H
#define CPN_EQ_H

#include <stddef.h>
#include <stdint.h>

enum ev_kind {
    EV_ARRIVAL,       /* the next job in submit order arrives */
    EV_TRANSFER_DONE, /* a placed job's image, model and data are at its site */
    EV_PEAK,          /* a running job reaches its peak GPU memory (end of warm-up) */
    EV_END,           /* a running job finishes its work */
    EV_RETRY,         /* an OOM-killed job's back-off is over: it is queued again */
    EV_SAMPLE,        /* a metrics scrape (and timeline row) */
    EV_POLL,          /* the controller polls the jobs it assigned */
    EV_HORIZON,       /* the optional end of simulated time */
    EV_WAKEUP,        /* a scheduling point the policy asked for */
    EV_FLOW_START,    /* a transfer's latency is paid: its flow joins the links */
    EV_FLOW_DONE,     /* a transfer's flow has moved its last byte */
    EV_LINK_DONE,     /* a link's next flow (processor-sharing mode) has ended */
    EV_BACKGROUND,    /* a node's background CPU load takes its next step's value */
    EV_GANG_TIMEOUT,  /* a distributed job's placed pods waited gang_timeout_s for the rest */
    EV_NKINDS
};
extern const char *const ev_kind_name[EV_NKINDS];

struct event {
    double t;      /* finite and >= 0 */
    uint64_t seq;
    uint32_t kind; /* enum ev_kind */
    uint32_t job;  /* job index; the link index for EV_LINK_DONE, the node for EV_BACKGROUND; 0 when the kind names none */
    uint32_t gen;  /* the job's generation when pushed: stale events are dropped */
    uint32_t key;  /* EQ_NOKEY, or the key of an updatable event (eq_schedule) */
};

#define EQ_NOKEY UINT32_MAX

/* Keys per page of the key table (a power of two), and freed pages kept for reuse. */
#define EQ_PAGE_BITS 10
#define EQ_PAGE_KEYS ((uint32_t)1 << EQ_PAGE_BITS)
#define EQ_SPARE_PAGES 8

/* A heap of events, ev[0..n) with ev[0] the earliest, and room for cap. ev points 3
 * events into an allocation aligned to 128 bytes (mem), so that the 4 children of
 * every event fill one aligned 128-byte block; ev[n..cap) hold a sentinel (eq.c). */
struct eq_heap {
    struct event *ev;
    size_t n, cap;
    void *mem;
};

/* Keyed events: at most one event per key is in the queue; scheduling it again moves
 * it instead of adding another, so the queue holds only live events (a job's END and
 * a flow's completion change often). They have a heap of their own, apart from the
 * pushed events (eq.c says why). */
struct eq {
    struct eq_heap keyed;  /* the events of keys (eq_schedule) */
    struct eq_heap pushed; /* the events without a key (eq_push) */
    uint64_t next_seq;
    /* The keyed heap's index of each key's event, EQ_NOKEY when none, in pages of
     * EQ_PAGE_KEYS keys. A page exists only while one of its keys has an event: a run
     * reserves keys for every job, but few jobs have an event at a time. */
    uint32_t **page;      /* [npages] NULL when no key of the page has an event */
    uint32_t *page_live;  /* [npages] keys of the page that have an event */
    uint32_t *spare[EQ_SPARE_PAGES]; /* freed pages, every entry EQ_NOKEY */
    size_t nspare;
    size_t nkeys, npages;
    /* The pending event of the stream (eq_push_stream), beside the heaps; valid while
     * has_stream. */
    struct event stream;
    int has_stream;
};

void eq_init(struct eq *q);
/* Reserves n fresh keys for updatable events and returns the first: the caller owns
 * keys first..first+n-1 and may eq_schedule and eq_cancel only those. Each module that
 * keys events reserves its own range (the engine a job's END, the network a flow's
 * completion and a link's next event), so no layout of keys is shared by convention.
 * Keys only find an event in the heap; they never affect the order of events. */
uint32_t eq_reserve_keys(struct eq *q, size_t n);
void eq_free(struct eq *q);
/* Adds an event; t must be finite and >= 0. */
void eq_push(struct eq *q, double t, enum ev_kind kind, uint32_t job, uint32_t gen);
/* Adds the next event of the queue's one stream: events of which at most one is
 * pending at a time (the next job to arrive, whose handler pushes the one after). It
 * waits beside the heap, neither sifted in nor out, and pops in its (t, seq) order
 * among the heap's events as a pushed one would. t as for eq_push. */
void eq_push_stream(struct eq *q, double t, enum ev_kind kind, uint32_t job, uint32_t gen);
/* Adds the event of `key`, or moves it when the key has one already; the moved event
 * takes a new seq, so it orders as if it had just been pushed. */
void eq_schedule(struct eq *q, uint32_t key, double t, enum ev_kind kind, uint32_t job,
                 uint32_t gen);
/* Removes the event of `key`, if any. */
void eq_cancel(struct eq *q, uint32_t key);
/* Removes the earliest event into *out. Returns 1, or 0 when the queue is empty. */
int eq_pop(struct eq *q, struct event *out);
/* The earliest event without removing it, or NULL when empty. */
const struct event *eq_peek(const struct eq *q);
static inline size_t eq_size(const struct eq *q)
{
    return q->keyed.n + q->pushed.n + (q->has_stream != 0);
}

#endif
