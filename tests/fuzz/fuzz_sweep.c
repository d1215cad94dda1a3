/* Fuzzes the sweep spec reader (sweep_spec_parse) and the naming of the first and
 * last points of a spec that parses. */
#include "fuzz.h"

#include "../../sim/tools/sweep.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sweep_spec *sp = NULL;
    char err[CPN_ERR_LEN] = "";
    int rc = sweep_spec_parse("fuzz.json", (const char *)data, size, "/nonexistent", &sp, err,
                              sizeof err);
    if (rc != 0) {
        FUZZ_CHECK(rc == CPN_EINPUT && sp == NULL, "rc %d", rc);
        fuzz_check_message("fuzz.json", err);
        return 0;
    }
    FUZZ_CHECK(sp->n_points >= 1 && sp->n_points <= SWEEP_MAX_POINTS, "%zu points", sp->n_points);
    size_t last[] = {0, sp->n_points - 1};
    for (size_t i = 0; i < 2; i++) {
        char *name = sweep_point_name(sp, last[i]);
        FUZZ_CHECK(name && name[0] && strlen(name) <= SWEEP_MAX_NAME && !strchr(name, '/'),
                   "point %zu name '%s'", last[i], name ? name : "(null)");
        free(name);
    }
    sweep_spec_destroy(sp);
    return 0;
}
