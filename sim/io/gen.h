/* gen: the random job-queue generator, in the spirit of the original controller's:
 * models and batch sizes drawn from the catalogue's measured H100 set, epochs,
 * dataset sizes, GPU counts and origin sites drawn with GSL from a seeded RNG, and
 * submit times from an arrival process (batch, Poisson, or a diurnal Poisson whose
 * rate follows a 24-hour curve). A job mix read from a JSON spec (gen_mix) replaces
 * any of the default distributions. Same spec and seed give the same jobs. */
#ifndef CPN_GEN_H
#define CPN_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct catalog;
struct jobset;

enum gen_arrival { GEN_BATCH, GEN_POISSON, GEN_DIURNAL };

/* Hours in the diurnal curve. */
#define GEN_HOURS 24

/* A job mix read from a JSON spec (docs/jobs.md, "Job mixes"). Opaque. */
struct gen_mix;

struct gen_spec {
    size_t count;
    uint64_t seed;
    int arrival;                /* enum gen_arrival */
    double rate_per_s;          /* Poisson rate; for diurnal, the mean rate over a day */
    const char *const *origins; /* site names drawn uniformly for each job's origin; may be
                                   NULL when mix gives origins */
    size_t n_origins;
    const struct gen_mix *mix;  /* NULL: the default mix (gen_table in gen.c) */
    const double *hourly;       /* diurnal: GEN_HOURS relative rates from 00:00, time 0 being
                                   midnight; NULL: the mix's curve, else the default one */
    double distributed;         /* share of jobs that are distributed (several pods), in
                                   [0, 1]; 0: none, and nothing is drawn for it */
    uint32_t max_pods;          /* a distributed job's pods are uniform in 2 ... max_pods;
                                   0: the default (4) */
};

/* Appends spec->count jobs to out (initialised) and sets out->source (a description
 * of the spec) and out->sha256 (of the CSV trace_write_csv would write for out).
 * A share spec->distributed of the jobs, drawn from a second generator of their own,
 * have several pods (docs/jobs.md, "Distributed jobs"), so that the other draws are the
 * same whatever the share. Returns 0, or CPN_EINPUT with a message, leaving out
 * untouched, when the spec is invalid (count 0 or above 10^8, no origins or an empty
 * one, rate <= 0 for Poisson or diurnal, a curve with a negative or non-finite hour or
 * no positive one, a share outside [0, 1], max_pods 1 or above 2^31 - 1, or a
 * catalogue without H100-measured models). */
int gen_jobs(const struct gen_spec *spec, const struct catalog *cat, struct jobset *out,
             char *err, size_t errlen);

/* Reads a job-mix spec (JSON). Errors name the file, line and field
 * ("mix.json:7: models[1].weight: must be a number > 0"). Returns 0 with *out owned
 * by the caller (gen_mix_destroy), or CPN_EINPUT leaving *out untouched. */
int gen_mix_load(const char *path, const struct catalog *cat, struct gen_mix **out, char *err,
                 size_t errlen);
int gen_mix_load_buf(const char *name, const char *buf, size_t len, const struct catalog *cat,
                     struct gen_mix **out, char *err, size_t errlen);
void gen_mix_destroy(struct gen_mix *mix); /* NULL is a no-op */

/* Copies into spec what the mix file sets among count, arrival (with its rate and
 * curve) and origins, and sets spec->mix; fields the file leaves out are kept. The
 * pointers stay valid while the mix lives. */
void gen_mix_apply(const struct gen_mix *mix, struct gen_spec *spec);
/* Reads a distributed share as `cpnsim gen --distributed` takes it: a number from 0 to
 * 1. Returns 0, or -1 leaving *out untouched. */
int gen_parse_share(const char *s, double *out);
/* The default largest pods of a distributed job (gen_table's max_pods). */
uint32_t gen_default_max_pods(void);

/* True when the mix names its own origin sites. */
bool gen_mix_has_origins(const struct gen_mix *mix);

/* Reads an arrival process as `cpnsim gen --arrival` takes it: "batch", "poisson:RATE"
 * or "diurnal:RATE" with RATE > 0, into spec->arrival and spec->rate_per_s. Returns 0,
 * or -1 leaving spec untouched; GEN_ARRIVAL_RULE says what is allowed. */
int gen_parse_arrival(const char *s, struct gen_spec *spec);
#define GEN_ARRIVAL_RULE "must be 'batch', 'poisson:RATE' or 'diurnal:RATE' with RATE > 0"

/* The largest queue generated at once (gen_table's count_max). */
size_t gen_count_max(void);

#endif
