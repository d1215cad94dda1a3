/* The body of the importer harnesses (fuzz_import_*.c): each defines
 * FUZZ_IMPORT_FORMAT (a job format of import_jobs, or a cluster format of
 * import_cluster) and includes this file. The importers read only files, so the input
 * goes into an unlinked temporary file named by /proc/self/fd/N. A converted queue must
 * write back as CSV and read again unchanged; a converted cluster must load. */
#ifndef CPN_FUZZ_IMPORT_H
#define CPN_FUZZ_IMPORT_H

#include "fuzz.h"

#include <unistd.h>

#include "../../sim/engine/cluster.h"
#include "../../sim/io/cluster_json.h"
#include "../../sim/io/import.h"

/* The input file: created once (libFuzzer's entry point takes no context) and
 * unlinked at once, so that nothing is left behind, then rewritten for each input. */
static const char *input_path(int *fd_out)
{
    static int fd = -1;   /* set once */
    static char path[64]; /* set once */
    if (fd < 0) {
        /* In memory (tmpfs) where there is one: rewriting a file on a disk file
         * system waits for its writeback and slows fuzzing tenfold. */
        const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
        char tmpl[256];
        snprintf(tmpl, sizeof tmpl, "%s/cpnsim-fuzz-XXXXXX", dir && *dir ? dir : "/tmp");
        fd = mkstemp(tmpl);
        FUZZ_CHECK(fd >= 0 && unlink(tmpl) == 0, "mkstemp %s", tmpl);
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    }
    *fd_out = fd;
    return path;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_catalog();
    int fd;
    input_path(&fd);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int fd;
    const char *path = input_path(&fd);
    FUZZ_CHECK(ftruncate(fd, 0) == 0, "ftruncate");
    FUZZ_CHECK(size == 0 || pwrite(fd, data, size, 0) == (ssize_t)size, "pwrite");
    char err[CPN_ERR_LEN] = "";
    /* Odd lengths fold wide jobs onto 8 GPUs, so that both paths are fuzzed. */
    struct import_opts o = {.max_gpus = size % 2 ? 8 : 0};
    if (import_is_job_format(FUZZ_IMPORT_FORMAT)) {
        struct jobset js;
        jobset_init(&js);
        struct import_stats st;
        int rc = import_jobs(FUZZ_IMPORT_FORMAT, path, &o, fuzz_catalog(), &js, NULL, &st, err,
                             sizeof err);
        if (rc != 0) {
            FUZZ_CHECK(rc == CPN_EINPUT && js.n == 0 && js.v == NULL, "rc %d", rc);
            fuzz_check_message(path, err);
            return 0;
        }
        FUZZ_CHECK(st.jobs == js.n && st.rows >= st.jobs, "stats");
        if (js.n > 0)
            fuzz_check_csv_roundtrip(&js);
        jobset_free(&js);
    } else {
        char *json = NULL;
        int rc = import_cluster(FUZZ_IMPORT_FORMAT, path, &o, &json, NULL, NULL, err, sizeof err);
        if (rc != 0) {
            FUZZ_CHECK(rc == CPN_EINPUT && json == NULL, "rc %d", rc);
            fuzz_check_message(path, err);
            return 0;
        }
        struct cluster *cl = NULL;
        rc = cluster_load_buf("converted.json", json, strlen(json), NULL, 0, fuzz_catalog(), &cl,
                              err, sizeof err);
        FUZZ_CHECK(rc == 0, "the converted cluster does not load: %s\n%s", err, json);
        cluster_destroy(cl);
        free(json);
    }
    return 0;
}

#endif
