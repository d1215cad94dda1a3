/* Fuzzes the Kubernetes Job YAML reader (k8s_read_jobs_buf), its warnings written to
 * /dev/null. A queue that reads must write back as CSV and read again unchanged, once
 * its jobs without an origin have one, as a run gives them (--origin, else the
 * controller's site): a CSV always names the origin. */
#include "fuzz.h"

#include <string.h>

#include "../../sim/io/jobin.h"
#include "../../sim/io/k8s.h"

/* Where warnings go: opened once (libFuzzer's entry point takes no context). */
static FILE *warn_sink(void)
{
    static FILE *f; /* set once, then only written to */
    if (!f)
        f = fopen("/dev/null", "w");
    FUZZ_CHECK(f != NULL, "/dev/null");
    return f;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_catalog();
    warn_sink();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "";
    int rc = k8s_read_jobs_buf("fuzz.yaml", (const char *)data, size, fuzz_catalog(), &js,
                               warn_sink(), err, sizeof err);
    if (rc != 0) {
        FUZZ_CHECK(rc == CPN_EINPUT && js.n == 0 && js.v == NULL, "rc %d", rc);
        fuzz_check_message("fuzz.yaml", err);
        return 0;
    }
    FUZZ_CHECK(js.n > 0, "success with no jobs");
    uint32_t site = jobset_intern(&js, "bj");
    for (size_t j = 0; j < js.n; j++)
        if (strcmp(jobset_str(&js, js.v[j].origin), JOBIN_DEFAULT_ORIGIN) == 0)
            js.v[j].origin = site;
    fuzz_check_csv_roundtrip(&js);
    jobset_free(&js);
    return 0;
}
