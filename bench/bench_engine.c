/* The engine's own cost, measured in one process per case so that each case's peak
 * RSS is its own. Cases (the first argument):
 *   engine N    a no-op policy replays N jobs of fixed duration (100 s, Poisson arrivals
 *               at 1/s) on an ideal controller (live metrics, completion events) and a
 *               1024-GPU single-site cluster, so nothing waits and nothing moves over the
 *               WAN: every event is an arrival, a start (transfer done), a peak or an end.
 *   heap N      a minimal hand-written binary min-heap of (time, seq): push N uniformly
 *               random times, then pop them all. The floor for any event queue.
 *   eq N        the same push/pop loop through sim/engine/eq.c (the engine's event queue).
 *   hold N K    the hand heap in steady state at the engine's queue size: K events in
 *               the heap, then N times pop the earliest and push one a random time
 *               later (the classic "hold" model; the engine's heap holds a few hundred).
 *   q100 POLICY [SECONDS]  the default cluster and traces/q100.csv, run in-process again
 *               and again for about SECONDS (default 1): the wall time of one run.
 * Each prints one line of key=value pairs: case, jobs, events, wall_s (the timed loop
 * only, not the set-up), runs (q100) and peak_rss_kib (getrusage of this process).
 * The no-op policy lives here, not in the registry: it is not a scheduling policy. */
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "../sim/engine/policy.h"
#include "../sim/engine/catalog.h"
#include "../sim/engine/cluster.h"
#include "../sim/io/cluster_json.h"
#include "../sim/engine/eq.h"
#include "../sim/engine/sim.h"
#include "../sim/io/trace.h"
#include "../sim/base/util.h"

#define ENGINE_NODES 128          /* of 8 GPUs: 1024 GPUs */
#define ENGINE_NODE_GPUS 8
#define ENGINE_DURATION_S 100.0   /* each job's run time */
#define ENGINE_RATE_PER_S 1.0     /* arrivals: about 100 jobs run at once */
#define ENGINE_TIMELINE_S 1e9     /* no timeline rows during the run */
#define Q100_CLUSTER "traces/default-cluster.json"
#define Q100_JOBS "traces/q100.csv"

/* The no-op policy: the queue's head goes to the next GPU in round-robin order. With
 * 1024 GPUs and about 100 jobs running, a GPU is reused only long after its last job
 * ended, so no two jobs ever share one. */
struct noop_state {
    uint32_t next_gpu;
};

static int noop_init(void **state, const struct view *v, char *err, size_t errlen)
{
    (void)v;
    (void)err;
    (void)errlen;
    *state = cpn_calloc(1, sizeof(struct noop_state));
    return 0;
}

static int noop_place(void *state, const struct view *v, struct placement *out)
{
    struct noop_state *st = state;
    if (v->queue_head == VIEW_NONE)
        return 0;
    uint32_t g = st->next_gpu;
    st->next_gpu = (uint32_t)((g + 1) % v->cl->n_gpus);
    out->job = v->queue_head;
    out->node = g / ENGINE_NODE_GPUS;
    out->ngpus = 1;
    out->gpu[0] = g;
    return 1;
}

static void noop_destroy(void *state) { free(state); }

static const struct policy_ops noop_policy = {
    .name = "noop",
    .summary = "bench only: queue head to the next GPU round-robin",
    .init = noop_init,
    .place = noop_place,
    .destroy = noop_destroy,
};

static long peak_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

static void print_case(const char *name, size_t jobs, uint64_t events, double wall_s, size_t runs)
{
    printf("case=%s jobs=%zu events=%llu wall_s=%.6f runs=%zu peak_rss_kib=%ld\n", name, jobs,
           (unsigned long long)events, wall_s, runs, peak_rss_kib());
}

static int bench_engine(size_t n)
{
    char err[CPN_ERR_LEN];
    char json[1024];
    snprintf(json, sizeof json,
             "{\"scrape_interval_s\": 0, \"completion\": \"event\", \"timeline_interval_s\": %g,"
             " \"gpu_types\": {\"G\": {\"mem_gib\": 80, \"speed\": 1, \"profile\": \"none\"}},"
             " \"sites\": [{\"name\": \"s0\", \"nodes\": [{\"count\": %d, \"cpus\": 64,"
             " \"mem_gib\": 512, \"gpu_type\": \"G\", \"gpus\": %d}]}], \"links\": []}",
             ENGINE_TIMELINE_S, ENGINE_NODES, ENGINE_NODE_GPUS);
    struct catalog *cat;
    struct cluster *cl;
    if (catalog_create(&cat, err, sizeof err) ||
        cluster_load_buf("bench-engine", json, strlen(json), NULL, 0, cat, &cl, err, sizeof err)) {
        fprintf(stderr, "bench_engine: %s\n", err);
        return 1;
    }
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 1);
    struct jobset js;
    jobset_init(&js);
    uint32_t id = jobset_intern(&js, "x"), origin = jobset_intern(&js, "s0");
    double t = 0;
    for (size_t i = 0; i < n; i++) {
        t += -log(1 - gsl_rng_uniform(rng)) / ENGINE_RATE_PER_S;
        struct job j = {.submit_s = t, .cpus = 1, .mem_gib = 1, .duration_s = ENGINE_DURATION_S,
                        .gpu_mem_gib = 1, .id = id, .origin = origin, .model = -1, .batch = 1,
                        .epochs = 1, .gpus = 1};
        jobset_push(&js, &j);
    }
    struct sim *s;
    int rc = sim_create(&s, cl, cat, &js, &noop_policy, NULL, NULL, err, sizeof err);
    double w0 = cpn_wall_s();
    if (!rc)
        rc = sim_run(s, err, sizeof err);
    double wall = cpn_wall_s() - w0;
    if (rc) {
        fprintf(stderr, "bench_engine: %s\n", err);
        return 1;
    }
    if (s->st.completed != n)
        fprintf(stderr, "bench_engine: only %zu of %zu jobs completed\n", s->st.completed, n);
    print_case("engine", n, s->st.events, wall, 1);
    int bad = s->st.completed != n;
    sim_destroy(s);
    jobset_free(&js);
    gsl_rng_free(rng);
    cluster_destroy(cl);
    catalog_destroy(cat);
    return bad;
}

/* A minimal binary min-heap on (t, seq), the floor the engine's queue is held against. */
struct hnode {
    double t;
    uint64_t seq;
};

static int hless(const struct hnode *a, const struct hnode *b)
{
    return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void hpush(struct hnode *h, size_t *n, struct hnode x)
{
    size_t i = (*n)++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!hless(&x, &h[p]))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = x;
}

static struct hnode hpop(struct hnode *h, size_t *n)
{
    struct hnode top = h[0], x = h[--*n];
    size_t i = 0, m = *n;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= m)
            break;
        if (c + 1 < m && hless(&h[c + 1], &h[c]))
            c++;
        if (!hless(&h[c], &x))
            break;
        h[i] = h[c];
        i = c;
    }
    if (m)
        h[i] = x;
    return top;
}

static int bench_heap(size_t n, int use_eq)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 1);
    double *times = cpn_malloc(n * sizeof *times);
    for (size_t i = 0; i < n; i++)
        times[i] = gsl_rng_uniform(rng) * 1e6;
    double last = -1, sum = 0;
    int sorted = 1;
    double w0, wall;
    if (use_eq) {
        struct eq q;
        eq_init(&q);
        w0 = cpn_wall_s();
        for (size_t i = 0; i < n; i++)
            eq_push(&q, times[i], EV_ARRIVAL, (uint32_t)i, 0);
        struct event ev;
        while (eq_pop(&q, &ev)) {
            sorted &= ev.t >= last;
            last = ev.t;
            sum += ev.t;
        }
        wall = cpn_wall_s() - w0;
        eq_free(&q);
    } else {
        struct hnode *h = cpn_malloc(n * sizeof *h);
        size_t hn = 0;
        w0 = cpn_wall_s();
        for (size_t i = 0; i < n; i++)
            hpush(h, &hn, (struct hnode){.t = times[i], .seq = i});
        while (hn) {
            struct hnode x = hpop(h, &hn);
            sorted &= x.t >= last;
            last = x.t;
            sum += x.t;
        }
        wall = cpn_wall_s() - w0;
        free(h);
    }
    /* One push and one pop count as one event, as an event in the engine is. */
    print_case(use_eq ? "eq" : "heap", 0, n, wall, 1);
    fprintf(stderr, "checksum %.0f\n", sum); /* keeps the loop from being optimised away */
    free(times);
    gsl_rng_free(rng);
    return !sorted;
}

static int bench_hold(size_t n, size_t k)
{
    gsl_rng *rng = gsl_rng_alloc(gsl_rng_mt19937);
    gsl_rng_set(rng, 1);
    double *gaps = cpn_malloc(n * sizeof *gaps);
    for (size_t i = 0; i < n; i++)
        gaps[i] = gsl_rng_uniform(rng) * 100;
    struct hnode *h = cpn_malloc((k + 1) * sizeof *h);
    size_t hn = 0;
    uint64_t seq = 0;
    for (size_t i = 0; i < k; i++)
        hpush(h, &hn, (struct hnode){.t = gsl_rng_uniform(rng) * 100, .seq = seq++});
    double last = -1, sum = 0;
    int sorted = 1;
    double w0 = cpn_wall_s();
    for (size_t i = 0; i < n; i++) {
        struct hnode x = hpop(h, &hn);
        sorted &= x.t >= last;
        last = x.t;
        sum += x.t;
        hpush(h, &hn, (struct hnode){.t = x.t + gaps[i], .seq = seq++});
    }
    double wall = cpn_wall_s() - w0;
    print_case("hold", 0, n, wall, 1);
    fprintf(stderr, "checksum %.0f\n", sum);
    free(h);
    free(gaps);
    gsl_rng_free(rng);
    return !sorted;
}

static int bench_q100(const char *name, double seconds)
{
    char err[CPN_ERR_LEN];
    const struct policy_ops *pol = policy_find(name);
    if (!pol) {
        fprintf(stderr, "bench_engine: no policy %s\n", name);
        return 1;
    }
    struct catalog *cat;
    struct cluster *cl;
    struct jobset js;
    jobset_init(&js);
    if (catalog_create(&cat, err, sizeof err) ||
        cluster_load(Q100_CLUSTER, NULL, 0, cat, &cl, err, sizeof err) ||
        trace_read_csv(Q100_JOBS, cat, &js, NULL, err, sizeof err)) {
        fprintf(stderr, "bench_engine: %s\n", err);
        return 1;
    }
    size_t runs = 0;
    uint64_t events = 0;
    double total = 0, best = INFINITY;
    while (total < seconds || runs < 3) {
        struct sim *s;
        double w0 = cpn_wall_s();
        int rc = sim_create(&s, cl, cat, &js, pol, NULL, NULL, err, sizeof err);
        if (!rc)
            rc = sim_run(s, err, sizeof err);
        double w = cpn_wall_s() - w0;
        if (rc) {
            fprintf(stderr, "bench_engine: %s: %s\n", name, err);
            return 1;
        }
        events = s->st.events;
        sim_destroy(s);
        total += w;
        best = w < best ? w : best;
        runs++;
    }
    char label[64];
    snprintf(label, sizeof label, "q100-%s", name);
    /* The mean over many runs: one run is too short for the clock alone. */
    print_case(label, js.n, events, total / (double)runs, runs);
    jobset_free(&js);
    cluster_destroy(cl);
    catalog_destroy(cat);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_engine engine|heap|eq N | hold N K | q100 POLICY [SECONDS]\n");
        return 2;
    }
    if (!strcmp(argv[1], "q100"))
        return bench_q100(argv[2], argc > 3 ? atof(argv[3]) : 1.0);
    size_t n = (size_t)strtoull(argv[2], NULL, 10);
    if (!strcmp(argv[1], "engine"))
        return bench_engine(n);
    if (!strcmp(argv[1], "heap"))
        return bench_heap(n, 0);
    if (!strcmp(argv[1], "hold"))
        return bench_hold(n, argc > 3 ? (size_t)strtoull(argv[3], NULL, 10) : 256);
    if (!strcmp(argv[1], "eq"))
        return bench_heap(n, 1);
    fprintf(stderr, "bench_engine: unknown case %s\n", argv[1]);
    return 2;
}
