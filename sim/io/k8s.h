/* k8s: Kubernetes Job YAML. Reads multi-document batch/v1 Job YAML (libyaml) into
 * jobs, as the original controller read its submissions, and Kubeflow PyTorchJobs,
 * with resource quantities read by k8s_quantity.h. It knows the catalogue (through
 * sim/io/jobin.h) but not the cluster. */
#ifndef CPN_K8S_H
#define CPN_K8S_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Deepest nesting of mappings and lists read, the document's root included
 * (docs/jobs.md): a Job's deepest field (a node affinity's values) is 13 levels down;
 * deeper YAML is refused while it is parsed. */
#define K8S_DEPTH_MAX 100

struct catalog;
struct jobset;

/* Reads a multi-document YAML file of batch/v1 Jobs and kubeflow.org/v1 PyTorchJobs
 * (docs/jobs.md, "Kubernetes Job YAML"): metadata.name is the id; metadata.annotations
 * give model_name, data_size, epoch, batch_size, origin, submit_s, image_size,
 * duration_s, gpu_mem_gib, samples and cpu_cores_used; a Pod's containers' resources
 * (requests, else limits) give cpu, memory and nvidia.com/gpu, of each pod; a Job's
 * spec.parallelism above 1, or a PyTorchJob's Master and Worker replicas, give the
 * job's pods (out->pods). A Job without an origin annotation gets JOBIN_DEFAULT_ORIGIN
 * (jobin.h), which the run replaces. Documents of other kinds are skipped with a warning;
 * fields that the simulator does not model are ignored with a warning; an annotation
 * given as an unquoted number (Kubernetes refuses it) is read as that number, with one
 * note for the file; all are written to warn (NULL: not written), grouped, after a
 * successful read. Malformed values are errors
 * "file:line: path: what is wrong". Streams the file one document at a time.
 * Returns 0 with *out replaced, or CPN_EINPUT leaving *out untouched; sets
 * out->source and out->sha256 (of the file's bytes). Mappings and lists nested deeper
 * than 100 levels and files over CPN_READ_MAX are refused as they are read; a set *stop
 * (NULL: none) ends the read within 16 KiB or one YAML event with CPN_ESTOP. */
int k8s_read_jobs(const char *path, const struct catalog *cat, struct jobset *out, FILE *warn,
                  const volatile sig_atomic_t *stop, char *err, size_t errlen);
/* Same from a buffer; name is used in messages. */
int k8s_read_jobs_buf(const char *name, const char *buf, size_t len, const struct catalog *cat,
                      struct jobset *out, FILE *warn, char *err, size_t errlen);

#endif
