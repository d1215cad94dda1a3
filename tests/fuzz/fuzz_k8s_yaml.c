/* Fuzzes the Kubernetes Job YAML reader (k8s_read_jobs_buf), its warnings written to
 * /dev/null. Once, at the start, an input one byte over the reader's size limit
 * (CPN_READ_MAX, 2 GiB: more than libFuzzer ever gives) must be refused as cpnsim
 * refuses such a file, without being read (its pages are never touched). Its seeds
 * include YAML nested just past K8S_DEPTH_MAX. A queue that reads must write back as CSV and read again unchanged, once
 * its jobs without an origin have one, as a run gives them (--origin, else the
 * controller's site): a CSV always names the origin. */
#include "fuzz.h"

#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

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
    /* A read-only private map of /dev/zero: address space, no memory. */
    size_t len = CPN_READ_MAX + 1;
    int fd = open("/dev/zero", O_RDONLY);
    FUZZ_CHECK(fd >= 0, "/dev/zero");
    void *big = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    FUZZ_CHECK(big != MAP_FAILED, "mmap of %zu bytes", len);
    close(fd);
    struct jobset js;
    jobset_init(&js);
    char err[CPN_ERR_LEN] = "";
    int rc = k8s_read_jobs_buf("fuzz.yaml", big, len, fuzz_catalog(), &js, NULL, err, sizeof err);
    FUZZ_CHECK(rc == CPN_EINPUT && js.n == 0 && strstr(err, "fuzz.yaml: larger than 2048 MiB"),
               "an input over the size limit: rc %d: %s", rc, err);
    munmap(big, len);
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
