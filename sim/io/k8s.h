/* k8s: Kubernetes Job YAML. Reads multi-document batch/v1 Job YAML (libyaml) into
 * jobs, as the original controller read its submissions, with resource quantities
 * read by k8s_quantity.h. It knows the catalogue (through sim/io/jobin.h) but not
 * the cluster. */
#ifndef CPN_K8S_H
#define CPN_K8S_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct catalog;
struct jobset;

/* Reads a multi-document YAML file of batch/v1 Jobs (docs/jobs.md, "Kubernetes Job
 * YAML"): metadata.name is the id; metadata.annotations give model_name, data_size,
 * epoch, batch_size, origin, submit_s, image_size, duration_s, gpu_mem_gib, samples
 * and cpu_cores_used; the containers' resources (requests, else limits) give cpu,
 * memory and nvidia.com/gpu. A Job without an origin annotation gets JOBIN_DEFAULT_ORIGIN
 * (jobin.h), which the run replaces. Documents of other kinds are skipped with a warning;
 * fields that the simulator does not model are ignored with a warning; an annotation
 * given as an unquoted number (Kubernetes refuses it) is read as that number, with one
 * note for the file; all are written to warn (NULL: not written), grouped, after a
 * successful read. Malformed values are errors
 * "file:line: path: what is wrong". Streams the file one document at a time.
 * Returns 0 with *out replaced, or CPN_EINPUT leaving *out untouched; sets
 * out->source and out->sha256 (of the file's bytes). */
int k8s_read_jobs(const char *path, const struct catalog *cat, struct jobset *out, FILE *warn,
                  char *err, size_t errlen);
/* Same from a buffer; name is used in messages. */
int k8s_read_jobs_buf(const char *name, const char *buf, size_t len, const struct catalog *cat,
                      struct jobset *out, FILE *warn, char *err, size_t errlen);

#endif
