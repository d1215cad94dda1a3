/* k8s: Kubernetes inputs. Parses resource quantities exactly as Kubernetes does
 * (resource.Quantity: 1500m, 2Gi, 1e3, 0.5) and reads multi-document batch/v1 Job
 * YAML (libyaml) into jobs, as the original controller read its submissions. It
 * knows the catalogue (through sim/jobin) but not the cluster. */
#ifndef CPN_K8S_H
#define CPN_K8S_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct catalog;
struct jobset;

/* Longest quantity text accepted (Kubernetes has no limit; real ones are short). */
#define K8S_QUANTITY_MAX 64

enum k8s_format { K8S_DECIMAL_SI, K8S_BINARY_SI, K8S_DECIMAL_EXPONENT };

/* A parsed quantity, exactly: (-1 if negative) x digits x 10^exp10 x 2^exp2. */
struct k8s_quantity {
    bool negative;
    char digits[K8S_QUANTITY_MAX + 1]; /* decimal digits, no leading zeros; "0" for zero */
    int exp10;
    int exp2;    /* 10, 20, ... 60 for Ki ... Ei */
    int format;  /* enum k8s_format, as Kubernetes would keep it */
};

/* Parses s by Kubernetes' grammar: an optional sign, digits with an optional
 * decimal point (1, 1.5, .5, 1.), then a suffix: none, a decimal SI unit (n u m k M
 * G T P E), a binary SI unit (Ki Mi Gi Ti Pi Ei) or a decimal exponent (e3, E-2).
 * Returns 0 with *q set; or CPN_EINPUT with why (of whylen bytes) saying what is
 * wrong ("unknown unit 'GB'..."), leaving *q untouched. */
int k8s_quantity_parse(const char *s, struct k8s_quantity *q, char *why, size_t whylen);

/* The magnitude times 10^scale, rounded up to a whole number as Kubernetes rounds:
 * scale 0 is Quantity.Value() (bytes of a memory quantity), scale 3 is
 * MilliValue() (millicores of a CPU quantity). Returns 0, or CPN_EINPUT when the
 * result exceeds 2^63 - 1. The sign is q->negative. */
int k8s_quantity_scaled(const struct k8s_quantity *q, int scale, uint64_t *out);

/* Reads a multi-document YAML file of batch/v1 Jobs (docs/jobs.md, "Kubernetes Job
 * YAML"): metadata.name is the id; metadata.annotations give model_name, data_size,
 * epoch, batch_size, origin, submit_s, image_size, duration_s, gpu_mem_gib and
 * samples; the containers' resources (requests, else limits) give cpu, memory and
 * nvidia.com/gpu. Documents of other kinds are skipped with a warning; fields that
 * the simulator does not model are ignored with a warning; both are written to warn
 * (NULL: not written), grouped, after a successful read. Malformed values are errors
 * "file:line: path: what is wrong". Streams the file one document at a time.
 * Returns 0 with *out replaced, or CPN_EINPUT leaving *out untouched; sets
 * out->source and out->sha256 (of the file's bytes). */
int k8s_read_jobs(const char *path, const struct catalog *cat, struct jobset *out, FILE *warn,
                  char *err, size_t errlen);
/* Same from a buffer; name is used in messages. */
int k8s_read_jobs_buf(const char *name, const char *buf, size_t len, const struct catalog *cat,
                      struct jobset *out, FILE *warn, char *err, size_t errlen);

#endif
