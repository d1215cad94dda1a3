/* cluster_json_int: what the cluster reader's two files share: the state of one
 * read, the messages that name "file:line: field" or "--set KEY", typed field
 * readers and sorted name indexes (cluster_json_fields.c), used by the reader of the
 * format itself (cluster_json.c). Not part of cluster_json.h's interface: nothing
 * outside sim/io/cluster_json*.c includes it. */
#ifndef CPN_CLUSTER_JSON_INT_H
#define CPN_CLUSTER_JSON_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "../base/jsonpos.h"
#include "../engine/cluster.h"
#include "../engine/param.h"

#define CJ_PATH_LEN 256 /* a field path such as sites[1].nodes[0].gpus */
#define CJ_LIST_LEN 448 /* a list of names quoted in a message (fits in CPN_ERR_LEN) */
#define CJ_WANT_LEN 96  /* a description such as "a whole number from 0 to 16" */

/* What a reader is working on: the file name for messages, the line table, and the
 * items that --set put into the tree (so that their errors name "--set KEY"). */
struct cj_ld {
    const char *name;
    struct jpos pos;
    const cJSON *set_item[CLUSTER_MAX_SETTABLE];
    char *err;
    size_t errlen;
};

/* Keys that --set accepts: the config keys, then controller_site (the last). */

/* Writes "NAME:LINE: PATH: message" (or "--set KEY: message" when at came from
 * --set) into the caller's buffer. at is the item the message is about (for a
 * missing field, the object that lacks it); path may be "". Returns CPN_EINPUT. */
__attribute__((format(printf, 4, 5))) int cj_bad(const struct cj_ld *ld, const cJSON *at,
                                                 const char *path, const char *fmt, ...);

/* "parent.key" and "parent[i]", cut short with "..." when longer than CJ_PATH_LEN. */
void cj_path_key(char out[CJ_PATH_LEN], const char *parent, const char *key);
void cj_path_index(char out[CJ_PATH_LEN], const char *parent, size_t i);
/* "a string", "a number", ...: what an item is, for messages. */
const char *cj_type_name(const cJSON *it);

/* A comma-separated list of names for a message, cut short with "..." when full. */
struct cj_namelist {
    char s[CJ_LIST_LEN];
    size_t n;
    bool full;
};

void cj_list_add(struct cj_namelist *l, const char *name);
/* What a bound allows, in words ("a whole number from 0 to 16"). */
/* True when v is within bound b (finite, in range, whole when asked). */
bool cj_in_bound(const struct param_bound *b, double v);
void cj_bound_text(const struct param_bound *b, char out[CJ_WANT_LEN]);

/* Checks obj's members against keys[0..n) and sets items[k] to the member named
 * keys[k], or NULL when absent. Members named x_* are ignored; any other unknown
 * member, and a repeated one, is an error. Returns 0 or CPN_EINPUT. */
int cj_take_fields(const struct cj_ld *ld, const cJSON *obj, const char *path,
                   const char *const keys[], size_t n, const cJSON *items[]);
/* Reads a number within b. An absent item (member of obj, at path) takes *def, or
 * is an error when def is NULL. Returns 0 with *out set, or CPN_EINPUT. */
int cj_get_num(const struct cj_ld *ld, const cJSON *obj, const cJSON *item, const char *path,
               const struct param_bound *b, const double *def, double *out);
/* Reads background_cpu, the other tenants' CPU load (docs/cluster.md): a number from 0
 * to CLUSTER_MAX_BACKGROUND (a constant load), or an object {mean, amplitude, period_s,
 * phase_s, noise, step_s} in which only mean is required. An absent item leaves *out,
 * the default of the enclosing level. Returns 0 with *out set, or CPN_EINPUT leaving
 * it untouched. */
int cj_get_background(const struct cj_ld *ld, const cJSON *item, const char *path,
                      struct cpu_background *out);
/* Reads a non-empty string; absent is an error when required, else *out is NULL. */
int cj_get_str(const struct cj_ld *ld, const cJSON *obj, const cJSON *item, const char *path,
               bool required, const char **out);
/* Returns 0 when item is an object, else CPN_EINPUT naming path. */
int cj_need_object(const struct cj_ld *ld, const cJSON *item, const char *path);
/* Members of an array or object. */
size_t cj_array_len(const cJSON *a);

/* A name and its position in document order, in an index sorted by name. */
struct cj_name_ix {
    const char *name;
    uint32_t i; /* position in document order */
};

/* Sorts ix[0..n) by name. Returns true when some name repeats, with *dup the first
 * repeat in document order and *orig the occurrence before it. */
bool cj_ix_sort(struct cj_name_ix *ix, size_t n, uint32_t *dup, uint32_t *orig);
/* Position of a name in a sorted index without repeats, or -1. */
long cj_ix_find(const struct cj_name_ix *ix, size_t n, const char *name);

#endif
