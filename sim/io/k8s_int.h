/* k8s_int: the Job YAML reader's state and its typed readers of YAML nodes, shared
 * by the generic node helpers (k8s_node.c) and the reader of a Job's fields
 * (k8s.c). Private to those two files: the interface is k8s.h. */
#ifndef CPN_K8S_INT_H
#define CPN_K8S_INT_H

#include "k8s.h"
#include "k8s_quantity.h"

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <yaml.h>

struct catalog;
struct jobin;

enum {
    K8S_PATH_MAX = 256,    /* longest field path in a message */
    K8S_SHOW_MAX = 40,     /* longest value quoted in a message */
    K8S_WARN_MAX = 200,    /* distinct warnings kept; more are only counted */
    K8S_NAME_MAX = 253,    /* longest DNS-1123 subdomain (a Job's name) */
};

/* One distinct warning, printed once with how many times it was given. */
struct k8s_warning {
    char *text; /* "path: message" */
    uint32_t line;
    size_t count;
};

/* The reader of one file: where errors go, the document being read, the jobs
 * found so far and the warnings kept. */
struct k8s_reader {
    const char *name;
    const struct catalog *cat;
    char *err;
    size_t errlen;
    yaml_document_t *doc;
    const volatile sig_atomic_t *stop; /* a set flag stops the parse (CPN_ESTOP); NULL: none */
    struct jobin *b;
    struct k8s_warning *warns;
    size_t nwarn, capwarn, warn_more;
    /* The first annotation given as an unquoted number, and how many there were. */
    char unquoted_path[K8S_PATH_MAX];
    char unquoted_val[K8S_SHOW_MAX + 1];
    uint32_t unquoted_line;
    size_t unquoted_n;
};

/* The type of a YAML node as Kubernetes' YAML 1.1 decoder reads it. */
enum k8s_ytype { KT_MAPPING, KT_SEQUENCE, KT_STRING, KT_NUMBER, KT_BOOL, KT_NULL };

/* The name of each type as messages say it ("a mapping", "null"). */
extern const char *const k8s_type_names[];

/* A key of a mapping and where its value goes. */
struct k8s_field {
    const char *key;
    yaml_node_t *val;
};

/* Loads the next document of p into doc (k8s_load.c): *got is false at the end of the
 * stream. Nesting deeper than K8S_DEPTH_MAX and a tag its scalar does not fit
 * (k8s_check_tag) are errors; a set k->stop stops it. Returns 0 (doc to be deleted
 * by the caller when *got), CPN_EINPUT or CPN_ESTOP (doc untouched). */
int k8s_load(struct k8s_reader *k, yaml_parser_t *p, yaml_document_t *doc, bool *got);

/* Checks scalar n's explicit tag as Kubernetes' YAML decoder (go-yaml) does: !!str
 * takes any text; !!int, !!float, !!bool and !!null only a text of that type (an
 * integer is a float too); !!binary and !!timestamp are not read by cpnsim; any
 * other tag (a local !tag) leaves a string. Returns 0 or CPN_EINPUT. */
int k8s_check_tag(struct k8s_reader *k, const yaml_node_t *n);

/* True when scalar n was given an explicit tag (other than the non-specific !). */
bool k8s_tagged(const yaml_node_t *n);

/* The text of scalar node n. */
const char *k8s_str(const yaml_node_t *n);

/* The type of node n: a plain scalar is typed by its text (3 is a number, yes a
 * boolean, ~ null); a quoted one is always a string; an explicit tag gives its type
 * (!!str 3 is a string, !!int "3" a number). */
enum k8s_ytype k8s_type(const yaml_node_t *n);

/* The 1-based line where node n starts. */
uint32_t k8s_line(const yaml_node_t *n);

/* The node at index of the document being read; it must exist. */
yaml_node_t *k8s_node(const struct k8s_reader *k, int index);

/* Sets k's error to "file:line: path: message" and returns CPN_EINPUT. */
int k8s_fail(struct k8s_reader *k, const yaml_node_t *n, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Records a warning; the same path and message again only counts. */
void k8s_warn(struct k8s_reader *k, const yaml_node_t *n, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* out = path.key (just key at the top), cut to K8S_PATH_MAX - 1 bytes. */
void k8s_path(char *out, const char *path, const char *key);

/* Sorts the keys of mapping m (at path) into those in want (their values stored),
 * those in inert (no effect on a simulation: skipped) and the rest (ignored with a
 * warning). A non-mapping, a key that is not a string, and a repeated key are
 * errors. */
int k8s_map(struct k8s_reader *k, yaml_node_t *m, const char *path, struct k8s_field *want,
            size_t nwant, const char *const *inert);

/* A string value (quoted, or plain that YAML reads as text); null is "" when
 * null_ok. Returns 0 with *out set, or CPN_EINPUT. */
int k8s_string(struct k8s_reader *k, const yaml_node_t *n, const char *path, bool null_ok,
               const char **out);

/* A whole number >= 0 given as a YAML number (an int32 field of the Job). */
int k8s_count(struct k8s_reader *k, const yaml_node_t *n, const char *path, uint64_t *out);

/* A quantity: a string or a number (Kubernetes accepts both); null is zero. */
int k8s_read_quantity(struct k8s_reader *k, const yaml_node_t *n, const char *path,
                      struct k8s_quantity *q);

/* A DNS-1123 subdomain: dot-separated labels of lower-case letters, digits and
 * inner hyphens, at most 253 characters; Kubernetes requires it of a Job's name. */
bool k8s_dns_subdomain(const char *s);

#endif
