/* fuzz: what the libFuzzer harnesses (tests/fuzz/fuzz_*.c, one per reader) share.
 * Each harness feeds one input to one reader through its buffer (or, for readers
 * that only take a path, through an in-memory file), frees everything it got back,
 * and aborts when a property that must hold for every input fails (a message names
 * file, line and field; what was read writes back and reads again the same). It owns
 * no simulation state. `make fuzz` builds and runs them (docs/reliability.md). */
#ifndef CPN_FUZZ_H
#define CPN_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/engine/catalog.h"
#include "../../sim/io/trace.h"
#include "../../sim/base/util.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Aborts with a message when a property fails: libFuzzer reports it as a crash and
 * keeps the input. */
#define FUZZ_CHECK(c, ...)                                                                   \
    do {                                                                                     \
        if (!(c)) {                                                                          \
            fprintf(stderr, "fuzz: %s:%d: property failed: %s: ", __FILE__, __LINE__, #c); \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fputc('\n', stderr);                                                             \
            abort();                                                                         \
        }                                                                                    \
    } while (0)

/* The catalogue, built once: libFuzzer's entry point takes no context argument, so
 * the harness keeps it behind this function. It is never changed after it is built. */
static inline const struct catalog *fuzz_catalog(void)
{
    static struct catalog *cat; /* set once, then only read */
    if (!cat) {
        char err[CPN_ERR_LEN];
        if (catalog_create(&cat, err, sizeof err) != 0) {
            fprintf(stderr, "fuzz: catalogue: %s\n", err);
            abort();
        }
    }
    return cat;
}

/* A failing reader's message must be non-empty and start with the input's name. */
static inline void fuzz_check_message(const char *name, const char *err)
{
    FUZZ_CHECK(err[0] != '\0', "empty error message");
    FUZZ_CHECK(strncmp(err, name, strlen(name)) == 0, "message does not name the input: %s", err);
}

/* The same jobs, field by field (doubles compared bit for bit through ==, ids and
 * origins as strings). */
static inline void fuzz_check_same_jobs(const struct jobset *a, const struct jobset *b)
{
    FUZZ_CHECK(a->n == b->n, "%zu jobs became %zu", a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        const struct job *x = &a->v[i], *y = &b->v[i];
        FUZZ_CHECK(strcmp(jobset_str(a, x->id), jobset_str(b, y->id)) == 0, "job %zu: id", i);
        FUZZ_CHECK(strcmp(jobset_str(a, x->origin), jobset_str(b, y->origin)) == 0,
                   "job %zu: origin", i);
        FUZZ_CHECK(x->submit_s == y->submit_s && x->data_gib == y->data_gib &&
                       x->cpus == y->cpus && x->mem_gib == y->mem_gib &&
                       x->image_gib == y->image_gib && x->duration_s == y->duration_s &&
                       x->gpu_mem_gib == y->gpu_mem_gib && x->samples == y->samples &&
                       x->model == y->model && x->batch == y->batch && x->epochs == y->epochs &&
                       x->gpus == y->gpus,
                   "job %zu (%s): a value changed", i, jobset_str(a, x->id));
        FUZZ_CHECK(jobset_pods(a, i) == jobset_pods(b, i), "job %zu (%s): pods changed", i,
                   jobset_str(a, x->id));
    }
}

/* Writes js as job CSV and reads it back: a queue that was read must survive the
 * trip unchanged (cpnsim gen and import write queues this way). */
static inline void fuzz_check_csv_roundtrip(const struct jobset *js)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    FUZZ_CHECK(f != NULL, "open_memstream");
    int wrc = trace_write_csv(f, js, fuzz_catalog());
    FUZZ_CHECK(fclose(f) == 0 && wrc == 0, "trace_write_csv failed");
    struct jobset back;
    jobset_init(&back);
    char err[CPN_ERR_LEN] = "";
    int rc = trace_read_csv_buf("roundtrip.csv", text, len, fuzz_catalog(), &back, err, sizeof err);
    FUZZ_CHECK(rc == 0, "the written CSV does not read back: %s\n%s", err, text);
    fuzz_check_same_jobs(js, &back);
    jobset_free(&back);
    free(text);
}

#endif
