/* predict: what the controller believes about a job's step time and peak GPU memory
 * on a GPU type: random forest, linear, nearest neighbour, oracle (the catalogue's
 * truth) or noisy oracle, chosen by a spec string. Policies reach it only through
 * view_estimate (view.h); they never know which method answers. The simulated
 * truth always comes from the catalogue. */
#ifndef CPN_PREDICT_H
#define CPN_PREDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog.h"

struct predictor;

/* spec: "rf" (default), "linear", "nn", "oracle", "noisy:SIGMA". Trains what it needs
 * on the catalogue, seeded with seed. Returns 0, or CPN_EINPUT with a message for a
 * bad spec. */
int predictor_create(struct predictor **out, const char *spec, const struct catalog *cat,
                     uint64_t seed, char *err, size_t errlen);
void predictor_destroy(struct predictor *p); /* NULL is a no-op */
const char *predictor_spec(const struct predictor *p);

/* Predicted step time and peak memory per GPU of (model, batch) on `gpus` GPUs of a
 * GPU type (catalogue type cat_type, or -1 with its speed relative to H100), with the
 * same meaning as catalog_lookup. The same arguments always give the same answer.
 * Returns 0, or CPN_EINPUT for arguments out of range. */
int predictor_profile(const struct predictor *p, int model, unsigned batch, int cat_type,
                      double speed, unsigned gpus, struct profile *out);

/* False for a model the predictor was never trained on (a policy runs such a job
 * alone on its first run). */
bool predictor_knows(const struct predictor *p, int model);

#endif
