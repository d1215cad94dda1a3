/* k8s: Kubernetes Job YAML, and Kubeflow's PyTorchJob.
 *
 * The YAML reader uses libyaml's document API, one document at a time, so memory
 * grows with the jobs, not the file. Every mapping is sorted into the keys it reads,
 * keys that cannot change a simulation (names, commands, environment, volumes) and
 * skips silently, and the rest, which it ignores with a warning because the simulator
 * does not model them (node selectors, affinity, tolerations...). Scalars
 * are typed as Kubernetes' YAML decoder types them (YAML 1.1: an unquoted 3 is a
 * number, yes is a boolean), so a manifest Kubernetes would reject is rejected here
 * too, with one exception: an unquoted number in an annotation, which the original
 * controller's own documented files use (`epoch: 100`), is read as its number with a
 * note. The values found go to sim/jobin, which applies the job CSV's rules.
 *
 * A document is a job when its kind is in k8s_kinds: a batch/v1 Job (of
 * spec.parallelism pods) or a kubeflow.org/v1 PyTorchJob (of its Master and Workers).
 * Both have the same metadata and annotations, and their Pod templates are read by the
 * same code (k_pod_template); only the spec around the templates differs.
 *
 * This file reads a job's fields (annotations, resources, spec) and drives libyaml;
 * the generic node helpers it reads them with (scalar types, typed readers, errors
 * and warnings) are in k8s_node.c, declared in k8s_int.h. */
#include "k8s.h"

#include "../engine/catalog.h"
#include "jobin.h"
#include "k8s_int.h"
#include "k8s_quantity.h"
#include "trace.h"
#include "../base/util.h"

#include <errno.h>
#include <inttypes.h>
#include <nettle/sha2.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

enum {
    K8S_MILLI = 1000,      /* millis in a unit */
};
#define K8S_BYTES_PER_GIB 1073741824.0
/* The simulator's default backoff_limit (sim/engine/cluster.c); a Job asking for another
 * is told that the cluster's value applies. */
#define K8S_SIM_BACKOFF_LIMIT 4


/* ---- annotations ---- */

enum kann_how { KA_TEXT, KA_SIZE };

/* The annotations read. model_name, data_size and epoch are the original
 * controller's; the others are cpnsim's, named after the job CSV's columns. */
static const struct kann {
    const char *key;
    int field; /* enum jobin_field */
    int how;   /* KA_TEXT: as a CSV cell; KA_SIZE: GiB, or a quantity of bytes */
} k8s_annotations[] = {
    {"model_name", JOBIN_MODEL, KA_TEXT},  {"data_size", JOBIN_DATA, KA_SIZE},
    {"epoch", JOBIN_EPOCHS, KA_TEXT},      {"batch_size", JOBIN_BATCH, KA_TEXT},
    {"origin", JOBIN_ORIGIN, KA_TEXT},     {"submit_s", JOBIN_SUBMIT, KA_TEXT},
    {"image_size", JOBIN_IMAGE, KA_SIZE},  {"duration_s", JOBIN_DURATION, KA_TEXT},
    {"gpu_mem_gib", JOBIN_GPU_MEM, KA_TEXT}, {"samples", JOBIN_SAMPLES, KA_TEXT},
    {"cpu_cores_used", JOBIN_CPU_USED, KA_TEXT},
};

/* Labels of the annotations ("metadata.annotations.epoch"), one per field: they live
 * until the job is added. */
struct klabels {
    char ann[JOBIN_NFIELDS][K8S_PATH_MAX];
};

/* An annotation given as a YAML number: Kubernetes refuses it (annotation values are
 * strings), but the original controller's documented files are written so, and the
 * simulator exists to replay them. Returns the number's text, as if it were quoted,
 * and remembers the first such value for one note per file. */
static const char *k_unquoted(struct k8s_reader *k, const yaml_node_t *n, const char *label)
{
    if (k->unquoted_n++ == 0) {
        snprintf(k->unquoted_path, sizeof k->unquoted_path, "%s", label);
        snprintf(k->unquoted_val, sizeof k->unquoted_val, "%s", k8s_str(n));
        k->unquoted_line = k8s_line(n);
    }
    return k8s_str(n);
}

static int k_annotations(struct k8s_reader *k, yaml_node_t *m, struct jobin_row *row,
                         struct klabels *lb)
{
    static const char path[] = "metadata.annotations";
    if (m->type != YAML_MAPPING_NODE)
        return k8s_fail(k, m, path, "must be a mapping (got %s)", k8s_type_names[k8s_type(m)]);
    struct k8s_field want[sizeof k8s_annotations / sizeof *k8s_annotations];
    size_t nk = sizeof want / sizeof *want;
    for (size_t i = 0; i < nk; i++)
        want[i] = (struct k8s_field){k8s_annotations[i].key, NULL};
    int rc = k8s_map(k, m, path, want, nk, NULL);
    for (size_t i = 0; i < nk && !rc; i++) {
        if (!want[i].val)
            continue;
        const struct kann *a = &k8s_annotations[i];
        char *label = lb->ann[a->field];
        k8s_path(label, path, a->key);
        const char *s = NULL;
        /* Only a plain number is read so: one tagged !!int is no legacy file's. */
        if (k8s_type(want[i].val) == KT_NUMBER && !k8s_tagged(want[i].val))
            s = k_unquoted(k, want[i].val, label);
        else if ((rc = k8s_string(k, want[i].val, label, true, &s)))
            break;
        struct jobin_val *v = &row->f[a->field];
        *v = (struct jobin_val){.kind = JOBIN_TEXT, .text = s, .line = k8s_line(want[i].val),
                                .label = label};
        double d;
        if (a->how == KA_SIZE && *s && cpn_parse_double(s, &d) != CPN_OK) {
            struct k8s_quantity q;
            uint64_t bytes = 0;
            rc = k8s_read_quantity(k, want[i].val, label, &q);
            if (!rc && k8s_quantity_scaled(&q, 0, &bytes) != CPN_OK)
                rc = k8s_fail(k, want[i].val, label, "'%.*s' is too large", K8S_SHOW_MAX, s);
            v->kind = JOBIN_NUM;
            v->num = (double)bytes / K8S_BYTES_PER_GIB;
        }
    }
    return rc;
}

/* ---- resources ---- */

enum kres { KR_CPU, KR_MEM, KR_GPU, KR_N };
static const char *const k8s_res_names[KR_N] = {"cpu", "memory", "nvidia.com/gpu"};

/* One container's requests or limits: millicores, bytes, milli-GPUs. */
struct kreq {
    bool set[KR_N];
    uint64_t v[KR_N];
    const yaml_node_t *node[KR_N];
};

static int k_reqs(struct k8s_reader *k, yaml_node_t *m, const char *path, struct kreq *out)
{
    struct k8s_field want[KR_N];
    for (int r = 0; r < KR_N; r++)
        want[r] = (struct k8s_field){k8s_res_names[r], NULL};
    int rc = k8s_map(k, m, path, want, KR_N, NULL);
    for (int r = 0; r < KR_N && !rc; r++) {
        if (!want[r].val)
            continue;
        char sub[K8S_PATH_MAX];
        k8s_path(sub, path, k8s_res_names[r]);
        struct k8s_quantity q;
        rc = k8s_read_quantity(k, want[r].val, sub, &q);
        if (rc)
            break;
        if (k8s_quantity_scaled(&q, r == KR_MEM ? 0 : 3, &out->v[r]) != CPN_OK)
            return k8s_fail(k, want[r].val, sub, "'%.*s' is too large", K8S_SHOW_MAX,
                            k8s_str(want[r].val));
        if (r == KR_GPU && out->v[r] % K8S_MILLI)
            return k8s_fail(k, want[r].val, sub, "must be a whole number of GPUs (got '%.*s')",
                            K8S_SHOW_MAX, k8s_str(want[r].val));
        out->set[r] = true;
        out->node[r] = want[r].val;
    }
    return rc;
}

/* The Pod's totals: the sum over containers of each request (a missing request
 * defaults to the limit, as Kubernetes defaults it). */
struct ktotal {
    uint64_t v[KR_N];
    bool gpu_set;
    const yaml_node_t *node[KR_N];   /* the first value given, for messages */
    char label[KR_N][K8S_PATH_MAX]; /* its path; "" when none was given */
};

static int k_container(struct k8s_reader *k, yaml_node_t *c, const char *path, struct ktotal *tot)
{
    static const char *const inert[] = {
        "name", "command", "args", "env", "envFrom", "workingDir", "ports", "volumeMounts",
        "volumeDevices", "imagePullPolicy", "securityContext", "stdin", "stdinOnce", "tty",
        "terminationMessagePath", "terminationMessagePolicy", "livenessProbe", "readinessProbe",
        "startupProbe", "lifecycle", NULL};
    struct k8s_field want[] = {{"image", NULL}, {"resources", NULL}};
    int rc = k8s_map(k, c, path, want, 2, inert);
    if (rc)
        return rc;
    char sub[K8S_PATH_MAX];
    k8s_path(sub, path, "image");
    const char *image = NULL;
    if (!want[0].val)
        return k8s_fail(k, c, sub, "missing (a container needs an image)");
    rc = k8s_string(k, want[0].val, sub, false, &image);
    if (!rc && !*image)
        rc = k8s_fail(k, want[0].val, sub, "empty (a container needs an image)");
    if (rc || !want[1].val)
        return rc;

    char rpath[K8S_PATH_MAX];
    k8s_path(rpath, path, "resources");
    struct k8s_field rw[] = {{"requests", NULL}, {"limits", NULL}};
    rc = k8s_map(k, want[1].val, rpath, rw, 2, NULL);
    struct kreq req = {0}, lim = {0};
    char qpath[K8S_PATH_MAX], lpath[K8S_PATH_MAX];
    k8s_path(qpath, rpath, "requests");
    k8s_path(lpath, rpath, "limits");
    if (!rc && rw[0].val)
        rc = k_reqs(k, rw[0].val, qpath, &req);
    if (!rc && rw[1].val)
        rc = k_reqs(k, rw[1].val, lpath, &lim);
    for (int r = 0; r < KR_N && !rc; r++) {
        char rq[K8S_PATH_MAX], lm[K8S_PATH_MAX];
        k8s_path(rq, qpath, k8s_res_names[r]);
        k8s_path(lm, lpath, k8s_res_names[r]);
        if (r == KR_GPU && req.set[r] && !lim.set[r])
            return k8s_fail(k, req.node[r], rq,
                            "needs a limit too (Kubernetes does not overcommit extended "
                            "resources: give limits.%s)",
                            k8s_res_names[r]);
        if (r == KR_GPU && req.set[r] && req.v[r] != lim.v[r])
            return k8s_fail(k, req.node[r], rq, "must equal %s ('%.*s')", lm, K8S_SHOW_MAX,
                            k8s_str(lim.node[r]));
        if (req.set[r] && lim.set[r] && req.v[r] > lim.v[r])
            return k8s_fail(k, req.node[r], rq, "must be <= %s ('%.*s')", lm, K8S_SHOW_MAX,
                            k8s_str(lim.node[r]));
        bool use_req = req.set[r];
        if (!use_req && !lim.set[r])
            continue;
        uint64_t v = use_req ? req.v[r] : lim.v[r];
        if (tot->v[r] > K8S_INT64_MAX - v)
            return k8s_fail(k, use_req ? req.node[r] : lim.node[r], use_req ? rq : lm,
                            "the Pod's total is too large");
        tot->v[r] += v;
        if (!tot->node[r]) {
            tot->node[r] = use_req ? req.node[r] : lim.node[r];
            snprintf(tot->label[r], K8S_PATH_MAX, "%s", use_req ? rq : lm);
        }
        if (r == KR_GPU)
            tot->gpu_set = true;
    }
    return rc;
}

/* ---- one Job ---- */

/* What a job's spec gives: one Pod's requests, and how many Pods the job runs
 * together (docs/jobs.md, "Distributed jobs"). */
struct kspec {
    struct ktotal pod;
    uint64_t pods;
    const yaml_node_t *pods_node; /* where pods was given; NULL: 1 by default */
    char pods_label[K8S_PATH_MAX];
};

/* A backoffLimit (a Job's, a PyTorchJob's runPolicy's) at path: checked, and warned
 * about when it is not the cluster's. */
static int k_backoff(struct k8s_reader *k, const yaml_node_t *n, const char *path)
{
    uint64_t v;
    int rc = k8s_count(k, n, path, &v);
    if (!rc && v != K8S_SIM_BACKOFF_LIMIT)
        k8s_warn(k, n, path,
                 "the simulator applies the cluster's backoff_limit (default %d) to every "
                 "job; this Job's %" PRIu64 " is ignored",
                 K8S_SIM_BACKOFF_LIMIT, v);
    return rc;
}

/* A Pod template at path (a Job's spec.template, a PyTorchJob replica's template):
 * its containers' requests summed into tot. A Job's Pods must not restart for ever
 * (restartPolicy Never or OnFailure, as Kubernetes requires of a Job); the training
 * operator sets a PyTorchJob's Pods' policy from the replica's, so for one (job false)
 * the template's is not read. */
static int k_pod_template(struct k8s_reader *k, yaml_node_t *tmpl, const char *path, bool job,
                          struct ktotal *tot)
{
    struct k8s_field tw[] = {{"spec", NULL}};
    static const char *const tmpl_inert[] = {"metadata", NULL};
    char pspec[K8S_PATH_MAX], sub[K8S_PATH_MAX];
    k8s_path(pspec, path, "spec");
    int rc = k8s_map(k, tmpl, path, tw, 1, tmpl_inert);
    if (rc)
        return rc;
    if (!tw[0].val)
        return k8s_fail(k, tmpl, pspec, "missing (a Pod template needs a spec)");
    static const char *const pod_inert[] = {
        "volumes", "imagePullSecrets", "serviceAccountName", "serviceAccount",
        "terminationGracePeriodSeconds", "securityContext", "hostname", "subdomain",
        "dnsPolicy", "dnsConfig", "enableServiceLinks", "automountServiceAccountToken", NULL};
    struct k8s_field pw[] = {{"containers", NULL}, {"restartPolicy", NULL}};
    rc = k8s_map(k, tw[0].val, pspec, pw, 2, pod_inert);
    if (rc)
        return rc;
    if (pw[1].val && job) {
        const char *rp = NULL;
        k8s_path(sub, pspec, "restartPolicy");
        rc = k8s_string(k, pw[1].val, sub, false, &rp);
        if (!rc && strcmp(rp, "Never") != 0 && strcmp(rp, "OnFailure") != 0)
            rc = k8s_fail(k, pw[1].val, sub, "must be Never or OnFailure for a Job (got '%.*s')",
                          K8S_SHOW_MAX, rp);
        if (rc)
            return rc;
    }
    yaml_node_t *cs = pw[0].val;
    char cpath[K8S_PATH_MAX];
    k8s_path(cpath, pspec, "containers");
    if (!cs)
        return k8s_fail(k, tw[0].val, cpath, "missing (a Pod needs a container)");
    if (cs->type != YAML_SEQUENCE_NODE)
        return k8s_fail(k, cs, cpath, "must be a list (got %s)", k8s_type_names[k8s_type(cs)]);
    if (cs->data.sequence.items.start == cs->data.sequence.items.top)
        return k8s_fail(k, cs, cpath, "empty (a Pod needs a container)");
    size_t i = 0;
    for (yaml_node_item_t *it = cs->data.sequence.items.start; it < cs->data.sequence.items.top && !rc;
         it++, i++) {
        char item[K8S_PATH_MAX + 24]; /* the path and an index of up to 20 digits */
        snprintf(item, sizeof item, "%s[%zu]", cpath, i);
        rc = k_container(k, k8s_node(k, *it), item, tot);
    }
    return rc;
}

/* A Job's spec: its Pod template, and its Pods: spec.parallelism when above 1, the
 * workers of one distributed job, which run together and once, so that
 * spec.completions, when given, must equal it. A Job of one Pod that asks for other
 * completions (Pods in turn) or a parallelism of 0 runs one Pod, with a warning. */
static int k_job_spec(struct k8s_reader *k, yaml_node_t *spec, struct kspec *out)
{
    static const char *const spec_inert[] = {"ttlSecondsAfterFinished", "selector",
                                             "manualSelector", "completionMode", NULL};
    struct k8s_field sw[] = {
        {"template", NULL}, {"backoffLimit", NULL}, {"parallelism", NULL}, {"completions", NULL}};
    int rc = k8s_map(k, spec, "spec", sw, 4, spec_inert);
    if (rc)
        return rc;
    if (sw[1].val && (rc = k_backoff(k, sw[1].val, "spec.backoffLimit")))
        return rc;
    uint64_t par = 1, comp = 1;
    if (sw[2].val && (rc = k8s_count(k, sw[2].val, "spec.parallelism", &par)))
        return rc;
    if (sw[3].val && (rc = k8s_count(k, sw[3].val, "spec.completions", &comp)))
        return rc;
    if (par > 1) {
        if (sw[3].val && comp != par)
            return k8s_fail(k, sw[3].val, "spec.completions",
                            "must equal spec.parallelism (%" PRIu64 ") in a Job of several Pods: "
                            "cpnsim runs them together, once, as the workers of one job (got "
                            "%" PRIu64 ")",
                            par, comp);
        out->pods = par;
        out->pods_node = sw[2].val;
        snprintf(out->pods_label, sizeof out->pods_label, "spec.parallelism");
    } else {
        if (sw[2].val && par != 1)
            k8s_warn(k, sw[2].val, "spec.parallelism",
                     "a Job of parallelism 0 starts no Pod until it is raised; the simulator "
                     "runs it as 1");
        if (sw[3].val && comp != 1)
            k8s_warn(k, sw[3].val, "spec.completions",
                     "the simulator runs a Job's Pods together and once (spec.parallelism of "
                     "them); %" PRIu64 " completions in turn are not modeled: one Pod runs",
                     comp);
    }
    if (!sw[0].val)
        return k8s_fail(k, spec, "spec.template", "missing (a Job needs a Pod template)");
    return k_pod_template(k, sw[0].val, "spec.template", true, &out->pod);
}

/* ---- one PyTorchJob ---- */

/* The GPUs of one Pod: its nvidia.com/gpu, else 1 (docs/jobs.md: a Pod that asks for
 * none runs on one GPU, as in the original deployment). */
static uint64_t k_pod_gpus(const struct ktotal *t)
{
    return t->gpu_set ? t->v[KR_GPU] / K8S_MILLI : 1;
}

/* One replica type of a PyTorchJob at path (spec.pytorchReplicaSpecs.Master or
 * .Worker): its Pods (replicas, 1 when absent, as the training operator defaults it)
 * into *n and *n_node (NULL when absent), one Pod's requests into tot. */
static int k_replica(struct k8s_reader *k, yaml_node_t *rs, const char *path, uint64_t *n,
                     const yaml_node_t **n_node, struct ktotal *tot)
{
    struct k8s_field rw[] = {{"replicas", NULL}, {"template", NULL}, {"restartPolicy", NULL}};
    char sub[K8S_PATH_MAX];
    int rc = k8s_map(k, rs, path, rw, 3, NULL);
    if (rc)
        return rc;
    *n = 1;
    *n_node = rw[0].val;
    k8s_path(sub, path, "replicas");
    if (rw[0].val && (rc = k8s_count(k, rw[0].val, sub, n)))
        return rc;
    if (rw[2].val) {
        /* The operator restarts Pods by this policy; the simulator retries a job by the
         * cluster's backoff_limit, so it is only checked. */
        const char *rp = NULL;
        k8s_path(sub, path, "restartPolicy");
        rc = k8s_string(k, rw[2].val, sub, false, &rp);
        if (!rc && strcmp(rp, "Always") != 0 && strcmp(rp, "OnFailure") != 0 &&
            strcmp(rp, "Never") != 0 && strcmp(rp, "ExitCode") != 0)
            rc = k8s_fail(k, rw[2].val, sub,
                          "must be Always, OnFailure, Never or ExitCode (got '%.*s')",
                          K8S_SHOW_MAX, rp);
        if (rc)
            return rc;
    }
    k8s_path(sub, path, "template");
    if (!rw[1].val)
        return k8s_fail(k, rs, sub, "missing (a replica needs a Pod template)");
    return k_pod_template(k, rw[1].val, sub, false, tot);
}

/* A PyTorchJob's spec (Kubeflow's training operator, kubeflow.org/v1): one job of
 * Master.replicas + Worker.replicas Pods. The Master, when given, is one Pod; cpnsim's
 * Pods of a job are alike, so the Master's and the Workers' requests must be equal. */
static int k_pytorch_spec(struct k8s_reader *k, yaml_node_t *spec, struct kspec *out)
{
    static const char base[] = "spec.pytorchReplicaSpecs";
    struct k8s_field sw[] = {{"pytorchReplicaSpecs", NULL}, {"runPolicy", NULL}};
    int rc = k8s_map(k, spec, "spec", sw, 2, NULL);
    if (rc)
        return rc;
    if (sw[1].val) {
        static const char *const run_inert[] = {"cleanPodPolicy", "ttlSecondsAfterFinished",
                                                NULL};
        struct k8s_field bw[] = {{"backoffLimit", NULL}};
        if ((rc = k8s_map(k, sw[1].val, "spec.runPolicy", bw, 1, run_inert)))
            return rc;
        if (bw[0].val && (rc = k_backoff(k, bw[0].val, "spec.runPolicy.backoffLimit")))
            return rc;
    }
    if (!sw[0].val)
        return k8s_fail(k, spec, base, "missing (a PyTorchJob needs its Master and Workers)");
    struct k8s_field rw[] = {{"Master", NULL}, {"Worker", NULL}};
    if ((rc = k8s_map(k, sw[0].val, base, rw, 2, NULL)))
        return rc;
    if (!rw[0].val && !rw[1].val)
        return k8s_fail(k, sw[0].val, base, "needs a Master or a Worker");
    static const char *const names[2] = {"Master", "Worker"};
    struct ktotal tot[2];
    memset(tot, 0, sizeof tot);
    uint64_t n[2] = {0, 0};
    const yaml_node_t *n_node[2] = {NULL, NULL};
    char path[2][K8S_PATH_MAX];
    for (int r = 0; r < 2; r++) {
        k8s_path(path[r], base, names[r]);
        if (rw[r].val && (rc = k_replica(k, rw[r].val, path[r], &n[r], &n_node[r], &tot[r])))
            return rc;
    }
    char sub[K8S_PATH_MAX];
    k8s_path(sub, path[0], "replicas");
    if (rw[0].val && n[0] != 1)
        return k8s_fail(k, n_node[0], sub, "must be 1 (a PyTorchJob has one Master; got %" PRIu64 ")",
                        n[0]);
    k8s_path(sub, path[1], "replicas");
    if (n[0] + n[1] == 0)
        return k8s_fail(k, n_node[1] ? n_node[1] : rw[1].val, sub,
                        "a PyTorchJob without a Master needs at least one Worker (got 0)");
    if (rw[0].val && rw[1].val && n[1] > 0) {
        /* The first request that differs, in the order cpu, memory, GPUs. */
        uint64_t a[KR_N] = {tot[0].v[KR_CPU], tot[0].v[KR_MEM], k_pod_gpus(&tot[0])};
        uint64_t b[KR_N] = {tot[1].v[KR_CPU], tot[1].v[KR_MEM], k_pod_gpus(&tot[1])};
        for (int r = 0; r < KR_N; r++) {
            if (a[r] == b[r])
                continue;
            char tmpl[K8S_PATH_MAX];
            k8s_path(tmpl, path[1], "template");
            double scale = r == KR_CPU ? K8S_MILLI : r == KR_MEM ? K8S_BYTES_PER_GIB : 1;
            const char *unit = r == KR_CPU ? " cores" : r == KR_MEM ? " GiB" : "";
            return k8s_fail(k, tot[1].node[r] ? tot[1].node[r] : rw[1].val,
                            tot[1].label[r][0] ? tot[1].label[r] : tmpl,
                            "a Worker's %s is %g%s and the Master's %g%s: cpnsim's Pods of one "
                            "job are alike, so the Master and the Workers must request the same "
                            "cpu, memory and nvidia.com/gpu",
                            k8s_res_names[r], (double)b[r] / scale, unit, (double)a[r] / scale,
                            unit);
        }
    }
    int use = rw[0].val ? 0 : 1;
    out->pod = tot[use];
    out->pods = n[0] + n[1];
    if (rw[1].val) {
        out->pods_node = n_node[1] ? n_node[1] : rw[1].val;
        snprintf(out->pods_label, sizeof out->pods_label, "%s", sub);
    }
    return CPN_OK;
}

/* The value of key in mapping m, or NULL. */
static yaml_node_t *k_lookup(const struct k8s_reader *k, const yaml_node_t *m, const char *key)
{
    if (m->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = k8s_node(k, p->key);
        if (kn->type == YAML_SCALAR_NODE && strcmp(k8s_str(kn), key) == 0)
            return k8s_node(k, p->value);
    }
    return NULL;
}

/* The kinds of object read as jobs, each with its apiVersion and its spec's reader. */
static const struct kkind {
    const char *kind, *api;
    int (*spec)(struct k8s_reader *k, yaml_node_t *spec, struct kspec *out);
} k8s_kinds[] = {
    {"Job", "batch/v1", k_job_spec},
    {"PyTorchJob", "kubeflow.org/v1", k_pytorch_spec},
};

static int k_document(struct k8s_reader *k, yaml_node_t *root)
{
    if (root->type == YAML_SCALAR_NODE && k8s_type(root) == KT_NULL)
        return k8s_fail(k, root, "document",
                        "empty document (remove the extra '---', or give a Job)");
    if (root->type != YAML_MAPPING_NODE)
        return k8s_fail(k, root, "document", "must be a Kubernetes object, a mapping (got %s)",
                        k8s_type_names[k8s_type(root)]);
    const char *kind = NULL, *api = NULL;
    yaml_node_t *kn = k_lookup(k, root, "kind");
    if (!kn)
        return k8s_fail(k, root, "kind", "missing (every Kubernetes object names its kind)");
    int rc = k8s_string(k, kn, "kind", false, &kind);
    if (rc)
        return rc;
    const struct kkind *kk = NULL;
    for (size_t i = 0; i < sizeof k8s_kinds / sizeof *k8s_kinds && !kk; i++)
        if (strcmp(kind, k8s_kinds[i].kind) == 0)
            kk = &k8s_kinds[i];
    if (!kk) {
        k8s_warn(k, kn, "kind", "'%.*s' is not a Job or a PyTorchJob; the document is skipped",
                 K8S_SHOW_MAX, kind);
        return CPN_OK;
    }
    const char *what = kk->kind;
    struct k8s_field top[] = {
        {"apiVersion", NULL}, {"kind", NULL}, {"metadata", NULL}, {"spec", NULL}};
    static const char *const top_inert[] = {"status", NULL};
    rc = k8s_map(k, root, "", top, 4, top_inert);
    if (rc)
        return rc;
    if (!top[0].val)
        return k8s_fail(k, root, "apiVersion", "missing (a %s is %s)", what, kk->api);
    if ((rc = k8s_string(k, top[0].val, "apiVersion", false, &api)))
        return rc;
    if (strcmp(api, kk->api) != 0)
        return k8s_fail(k, top[0].val, "apiVersion", "must be %s for a %s (got '%.*s')", kk->api,
                        what, K8S_SHOW_MAX, api);
    if (!top[2].val)
        return k8s_fail(k, root, "metadata", "missing (a %s needs metadata.name)", what);
    if (!top[3].val)
        return k8s_fail(k, root, "spec", "missing (a %s needs a spec)", what);

    static const char *const meta_inert[] = {"namespace", "labels", "uid", "resourceVersion",
                                             "generation", "creationTimestamp", "managedFields",
                                             "ownerReferences", "finalizers", NULL};
    struct k8s_field mw[] = {{"name", NULL}, {"annotations", NULL}};
    if ((rc = k8s_map(k, top[2].val, "metadata", mw, 2, meta_inert)))
        return rc;
    if (!mw[0].val)
        return k8s_fail(k, top[2].val, "metadata.name", "missing (the %s's name is its id)",
                        what);
    const char *name = NULL;
    if ((rc = k8s_string(k, mw[0].val, "metadata.name", false, &name)))
        return rc;
    if (!k8s_dns_subdomain(name))
        return k8s_fail(k, mw[0].val, "metadata.name",
                        "'%.*s' is not a valid %s name (lower-case letters, digits, '-' and '.', "
                        "at most 253 characters, starting and ending with a letter or digit)",
                        K8S_SHOW_MAX, name, what);

    struct jobin_row row = {.line = k8s_line(root)};
    struct klabels lb;
    memset(&lb, 0, sizeof lb);
    row.f[JOBIN_ID] = (struct jobin_val){.kind = JOBIN_TEXT, .text = name,
                                         .line = k8s_line(mw[0].val), .label = "metadata.name"};
    if (mw[1].val && (rc = k_annotations(k, mw[1].val, &row, &lb)))
        return rc;
    /* Without an origin annotation the job comes from the run's default origin, the
     * controller's site unless --origin says otherwise (run.h). */
    if (row.f[JOBIN_ORIGIN].kind == JOBIN_ABSENT)
        row.f[JOBIN_ORIGIN] = (struct jobin_val){.kind = JOBIN_DEFAULT};
    struct kspec sp;
    memset(&sp, 0, sizeof sp);
    sp.pods = 1;
    if ((rc = kk->spec(k, top[3].val, &sp)))
        return rc;
    const struct ktotal *tot = &sp.pod;

    /* Defaults for what the manifest does not say (docs/jobs.md). */
    struct jobin_val *f = row.f;
    bool has_duration = f[JOBIN_DURATION].kind != JOBIN_ABSENT && f[JOBIN_DURATION].text[0];
    if (f[JOBIN_SUBMIT].kind == JOBIN_ABSENT)
        f[JOBIN_SUBMIT] = (struct jobin_val){.kind = JOBIN_NUM, .num = 0};
    if (f[JOBIN_IMAGE].kind == JOBIN_ABSENT)
        f[JOBIN_IMAGE] = (struct jobin_val){.kind = JOBIN_NUM, .num = 0};
    if (has_duration && f[JOBIN_EPOCHS].kind == JOBIN_ABSENT)
        f[JOBIN_EPOCHS] = (struct jobin_val){.kind = JOBIN_NUM, .num = 1};
    if (has_duration && f[JOBIN_DATA].kind == JOBIN_ABSENT)
        f[JOBIN_DATA] = (struct jobin_val){.kind = JOBIN_NUM, .num = 0};
    if (f[JOBIN_BATCH].kind == JOBIN_ABSENT) {
        /* The model's smallest measured batch; 1 when there is no model (jobin then
         * reports a missing or unknown model). */
        int m = f[JOBIN_MODEL].kind == JOBIN_TEXT ? catalog_model_find(k->cat, f[JOBIN_MODEL].text)
                                                  : -1;
        size_t nb = 0;
        const unsigned *bs = m >= 0 ? catalog_model_batches(k->cat, m, &nb) : NULL;
        f[JOBIN_BATCH] = (struct jobin_val){.kind = JOBIN_NUM, .num = nb ? bs[0] : 1};
    }
    for (int r = 0; r < JOBIN_NFIELDS; r++) {
        if (f[r].kind == JOBIN_ABSENT && !f[r].label) {
            /* A required annotation that is missing is named as one. */
            const char *key = NULL;
            for (size_t a = 0; a < sizeof k8s_annotations / sizeof *k8s_annotations; a++)
                if (k8s_annotations[a].field == r)
                    key = k8s_annotations[a].key;
            if (key) {
                k8s_path(lb.ann[r], "metadata.annotations", key);
                f[r].label = lb.ann[r];
                f[r].line = k8s_line(mw[1].val ? mw[1].val : top[2].val);
            }
        }
    }
    /* Requests are a Pod's: a job of several Pods asks for them in each. */
    f[JOBIN_CPUS] = (struct jobin_val){.kind = JOBIN_NUM, .num = (double)tot->v[KR_CPU] / K8S_MILLI,
                                       .line = tot->node[KR_CPU] ? k8s_line(tot->node[KR_CPU]) : 0,
                                       .label = tot->label[KR_CPU][0] ? tot->label[KR_CPU] : NULL};
    f[JOBIN_MEM] = (struct jobin_val){.kind = JOBIN_NUM,
                                      .num = (double)tot->v[KR_MEM] / K8S_BYTES_PER_GIB,
                                      .line = tot->node[KR_MEM] ? k8s_line(tot->node[KR_MEM]) : 0,
                                      .label = tot->label[KR_MEM][0] ? tot->label[KR_MEM] : NULL};
    /* Without nvidia.com/gpu a Job runs on one GPU, as in the original deployment,
     * where Jobs did not request GPUs as a resource. */
    f[JOBIN_GPUS] = (struct jobin_val){
        .kind = JOBIN_NUM, .num = (double)k_pod_gpus(tot),
        .line = tot->node[KR_GPU] ? k8s_line(tot->node[KR_GPU]) : 0,
        .label = tot->label[KR_GPU][0] ? tot->label[KR_GPU] : NULL};
    if (sp.pods_node)
        f[JOBIN_PODS] = (struct jobin_val){.kind = JOBIN_NUM, .num = (double)sp.pods,
                                           .line = k8s_line(sp.pods_node),
                                           .label = sp.pods_label};
    return jobin_add(k->b, &row, k->err, k->errlen);
}

/* ---- the stream ---- */

struct kin {
    FILE *f;
    struct sha256_ctx sha;
    const volatile sig_atomic_t *stop;
    size_t total;
    int read_errno;
    bool failed, too_big, stopped;
};

/* libyaml's reader: a failed read, a file over CPN_READ_MAX and a stop request end
 * the parse (libyaml then reports a reader error, which k_stream replaces). Called
 * for every 16 KiB, so a stop is seen at once even inside one long scalar. */
static int k_read(void *data, unsigned char *buffer, size_t size, size_t *size_read)
{
    struct kin *in = data;
    if (in->stop && *in->stop) {
        in->stopped = true;
        return 0;
    }
    errno = 0;
    size_t got = fread(buffer, 1, size, in->f);
    if (got == 0 && ferror(in->f)) {
        in->failed = true;
        in->read_errno = errno;
        return 0;
    }
    in->total += got;
    if (in->total > CPN_READ_MAX) {
        in->too_big = true;
        return 0;
    }
    sha256_update(&in->sha, got, buffer);
    *size_read = got;
    return 1;
}

/* The error of a parse that k_read ended, or rc. */
static int k_read_error(const char *name, const struct kin *in, int rc, char *err, size_t errlen)
{
    if (!in || rc == CPN_OK)
        return rc;
    if (in->stopped || (in->stop && *in->stop))
        return cpn_fail(err, errlen, CPN_ESTOP, "%s: stopped by signal %d", name,
                        (int)*in->stop);
    if (in->too_big)
        return cpn_fail_too_large(name, err, errlen);
    if (in->failed)
        return cpn_fail(err, errlen, CPN_EINPUT, "%s: read error: %s", name,
                        strerror(in->read_errno));
    return rc;
}

static void k_print_warnings(const struct k8s_reader *k, FILE *warn)
{
    for (size_t i = 0; i < k->nwarn && warn; i++) {
        const struct k8s_warning *w = &k->warns[i];
        fprintf(warn, "cpnsim: warning: %s:%" PRIu32 ": %s", k->name, w->line, w->text);
        if (w->count > 1)
            fprintf(warn, " (%zu times)", w->count);
        fputc('\n', warn);
    }
    if (k->warn_more && warn)
        fprintf(warn, "cpnsim: warning: %s: %zu more warnings not shown\n", k->name, k->warn_more);
    if (k->unquoted_n && warn) {
        fprintf(warn,
                "cpnsim: note: %s:%" PRIu32 ": %s: Kubernetes would refuse this: annotation "
                "values must be strings; read as %s",
                k->name, k->unquoted_line, k->unquoted_path, k->unquoted_val);
        if (k->unquoted_n > 1)
            fprintf(warn, " (and %zu more unquoted numbers in this file's annotations)",
                    k->unquoted_n - 1);
        fputc('\n', warn);
    }
}

/* Reads every document of the parser's input. */
static int k_stream(const char *name, yaml_parser_t *p, const struct kin *in,
                    const struct catalog *cat, struct jobset *out, FILE *warn,
                    const char *sha_hex, char *err, size_t errlen)
{
    struct k8s_reader k = {.name = name, .cat = cat, .err = err, .errlen = errlen,
                           .stop = in ? in->stop : NULL};
    k.b = jobin_create(name, cat);
    int rc = CPN_OK;
    size_t docs = 0;
    for (;;) {
        yaml_document_t doc;
        bool got = false;
        rc = k_read_error(name, in, k8s_load(&k, p, &doc, &got), err, errlen);
        if (rc || !got)
            break;
        yaml_node_t *root = yaml_document_get_root_node(&doc);
        if (!root) {
            yaml_document_delete(&doc);
            break;
        }
        docs++;
        k.doc = &doc;
        rc = k_document(&k, root);
        yaml_document_delete(&doc);
        if (rc)
            break;
    }
    /* Warnings are shown when every document was read, even if none was a Job. */
    bool read_all = rc == CPN_OK;
    if (!rc && docs == 0)
        rc = cpn_fail(err, errlen, CPN_EINPUT, "%s: empty file (no YAML document)", name);
    char hex[65] = "";
    if (sha_hex) {
        memcpy(hex, sha_hex, sizeof hex);
    } else if (in) {
        struct sha256_ctx c = in->sha;
        cpn_sha256_digest_hex(&c, hex);
    }
    if (!rc) {
        rc = jobin_finish(k.b, hex, out, err, errlen);
        k.b = NULL;
    }
    if (read_all)
        k_print_warnings(&k, warn);
    jobin_destroy(k.b);
    for (size_t i = 0; i < k.nwarn; i++)
        free(k.warns[i].text);
    free(k.warns);
    return rc;
}

int k8s_read_jobs_buf(const char *name, const char *buf, size_t len, const struct catalog *cat,
                      struct jobset *out, FILE *warn, char *err, size_t errlen)
{
    if (len > CPN_READ_MAX)
        return cpn_fail_too_large(name, err, errlen);
    yaml_parser_t p;
    CPN_ASSERT(yaml_parser_initialize(&p));
    yaml_parser_set_input_string(&p, (const unsigned char *)buf, len);
    char hex[65];
    cpn_sha256_hex(buf, len, hex);
    int rc = k_stream(name, &p, NULL, cat, out, warn, hex, err, errlen);
    yaml_parser_delete(&p);
    return rc;
}

int k8s_read_jobs(const char *path, const struct catalog *cat, struct jobset *out, FILE *warn,
                  const volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    struct kin in = {.f = fopen(path, "rb"), .stop = stop};
    if (!in.f)
        return cpn_fail(err, errlen, CPN_EINPUT, "%s: cannot open: %s", path, strerror(errno));
    if (cpn_file_too_large(in.f)) { /* as cpn_read_file: unread (it parsed 2 GiB first) */
        fclose(in.f);
        return cpn_fail_too_large(path, err, errlen);
    }
    sha256_init(&in.sha);
    yaml_parser_t p;
    CPN_ASSERT(yaml_parser_initialize(&p));
    yaml_parser_set_input(&p, k_read, &in);
    int rc = k_stream(path, &p, &in, cat, out, warn, NULL, err, errlen);
    yaml_parser_delete(&p);
    fclose(in.f);
    return rc;
}
