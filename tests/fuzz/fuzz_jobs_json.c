/* Fuzzes the job JSON reader (trace_read_json_buf). A queue that reads must write
 * back as CSV and read again unchanged. */
#include "fuzz.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_catalog();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "";
    int rc = trace_read_json_buf("fuzz.json", (const char *)data, size, fuzz_catalog(), &js, err,
                                 sizeof err);
    if (rc != 0) {
        FUZZ_CHECK(rc == CPN_EINPUT && js.n == 0 && js.v == NULL, "rc %d", rc);
        fuzz_check_message("fuzz.json", err);
        return 0;
    }
    FUZZ_CHECK(js.n > 0, "success with no jobs");
    fuzz_check_csv_roundtrip(&js);
    jobset_free(&js);
    return 0;
}
