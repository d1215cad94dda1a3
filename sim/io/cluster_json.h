/* cluster_json: the cluster JSON format (docs/cluster.md): reads and validates a
 * cluster file, or the embedded default cluster, with --set overrides, into the
 * model of sim/engine/cluster.h. It owns the format and its messages; the model, the
 * config table and the default cluster's bytes are the engine's. */
#ifndef CPN_CLUSTER_JSON_H
#define CPN_CLUSTER_JSON_H

#include <stddef.h>

struct catalog;
struct cluster;

/* Reads a cluster. path NULL means the embedded default cluster. sets are "KEY=VALUE"
 * overrides of top-level keys applied before validation. cat resolves each GPU type's
 * catalogue profile ("profile" field, else by name prefix) and gives the default
 * "speed" of catalogue types; a type with no profile must give "speed". Errors name
 * the file, line and field ("c.json:12: sites[1].nodes[0].gpus: must be a whole
 * number >= 0"); a bad --set names "--set KEY". Returns 0 with *out owned by the
 * caller (cluster_destroy), or CPN_EINPUT leaving *out untouched. */
int cluster_load(const char *path, const char *const *sets, size_t n_sets,
                 const struct catalog *cat, struct cluster **out, char *err, size_t errlen);
/* Same from a buffer; name is used in messages. */
int cluster_load_buf(const char *name, const char *buf, size_t len, const char *const *sets,
                     size_t n_sets, const struct catalog *cat, struct cluster **out, char *err,
                     size_t errlen);

#endif
