/* predict: this version answers with the catalogue's truth ("oracle") only. */
#include "predict.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

struct predictor {
    const struct catalog *cat;
    char *spec;
};

int predictor_create(struct predictor **out, const char *spec, const struct catalog *cat,
                     uint64_t seed, char *err, size_t errlen)
{
    (void)seed;
    if (strcmp(spec, "oracle") != 0)
        return cpn_fail(err, errlen, CPN_EINPUT, "--predictor: unknown predictor '%s'", spec);
    struct predictor *p = cpn_calloc(1, sizeof *p);
    p->cat = cat;
    p->spec = cpn_strdup(spec);
    *out = p;
    return CPN_OK;
}

void predictor_destroy(struct predictor *p)
{
    if (!p)
        return;
    free(p->spec);
    free(p);
}

const char *predictor_spec(const struct predictor *p) { return p->spec; }

int predictor_profile(const struct predictor *p, int model, unsigned batch, int cat_type,
                      double speed, unsigned gpus, struct profile *out)
{
    return catalog_lookup(p->cat, model, batch, cat_type, speed, gpus, out);
}

bool predictor_knows(const struct predictor *p, int model)
{
    return model >= 0 && (size_t)model < catalog_model_count(p->cat);
}
