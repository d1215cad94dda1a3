/* gen: the random job-queue generator, in the spirit of the original controller's:
 * models and batch sizes drawn from the catalogue's measured H100 set, epochs,
 * dataset sizes, GPU counts and origin sites drawn with GSL from a seeded RNG.
 * Same spec and seed give the same jobs. */
#ifndef CPN_GEN_H
#define CPN_GEN_H

#include <stddef.h>
#include <stdint.h>

struct catalog;
struct jobset;

enum gen_arrival { GEN_BATCH, GEN_POISSON };

struct gen_spec {
    size_t count;
    uint64_t seed;
    int arrival;         /* enum gen_arrival */
    double rate_per_s;   /* Poisson arrival rate */
    const char *const *origins; /* site names drawn uniformly for each job's origin */
    size_t n_origins;
};

/* Appends spec->count jobs to out (initialised) and sets out->source (a description
 * of the spec) and out->sha256 (of the CSV trace_write_csv would write for out).
 * Returns 0, or CPN_EINPUT with a message, leaving out untouched, when the spec is
 * invalid (count 0 or above 10^8, no origins or an empty one, rate <= 0 for Poisson,
 * or a catalogue without H100-measured models). */
int gen_jobs(const struct gen_spec *spec, const struct catalog *cat, struct jobset *out,
             char *err, size_t errlen);

#endif
