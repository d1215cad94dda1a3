/* k8s_node: the Job YAML reader's generic helpers for YAML nodes: how Kubernetes'
 * YAML 1.1 decoder types a scalar, errors and warnings that name file, line and field
 * path, the sorting of a mapping's keys, and the typed scalar readers (string, count,
 * quantity, DNS name). What they read a Job's fields into is k8s.c's. */
#include "k8s_int.h"

#include "../base/util.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *const k8s_type_names[] = {
    [KT_MAPPING] = "a mapping", [KT_SEQUENCE] = "a list", [KT_STRING] = "a string",
    [KT_NUMBER] = "a number",   [KT_BOOL] = "a boolean",  [KT_NULL] = "null",
};

/* Plain scalars that YAML 1.1 (Kubernetes' decoder) reads as null or a boolean. */
static const char *const kt_nulls[] = {"", "~", "null", "Null", "NULL"};
static const char *const kt_bools[] = {"y",   "Y",   "yes", "Yes", "YES", "n",     "N",
                                       "no",  "No",  "NO",  "true", "True", "TRUE", "false",
                                       "False", "FALSE", "on",  "On",  "ON",  "off",   "Off",
                                       "OFF"};

static bool kt_in(const char *s, const char *const *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, set[i]) == 0)
            return true;
    return false;
}

const char *k8s_str(const yaml_node_t *n) { return (const char *)n->data.scalar.value; }

/* The prefix of the YAML core schema's tags, as libyaml resolves !!int. */
#define KT_TAG_PREFIX "tag:yaml.org,2002:"

/* The scalar tags Kubernetes' decoder resolves, and the type each gives. */
static const struct {
    const char *name;
    enum k8s_ytype type;
} kt_tags[] = {
    {"str", KT_STRING}, {"int", KT_NUMBER}, {"float", KT_NUMBER},
    {"bool", KT_BOOL},  {"null", KT_NULL},
};

/* The type YAML 1.1 gives s written as a plain scalar. */
static enum k8s_ytype kt_plain(const char *s)
{
    double d;
    if (kt_in(s, kt_nulls, sizeof kt_nulls / sizeof *kt_nulls))
        return KT_NULL;
    if (kt_in(s, kt_bools, sizeof kt_bools / sizeof *kt_bools))
        return KT_BOOL;
    if (cpn_parse_double(s, &d) == CPN_OK || strcmp(s, ".inf") == 0 || strcmp(s, "-.inf") == 0 ||
        strcmp(s, ".nan") == 0)
        return KT_NUMBER;
    return KT_STRING;
}

/* True when s is a decimal integer: an optional sign, then digits only. */
static bool kt_integer(const char *s)
{
    if (*s == '+' || *s == '-')
        s++;
    size_t n = strspn(s, "0123456789");
    return n > 0 && !s[n];
}

bool k8s_tagged(const yaml_node_t *n)
{
    const char *tag = (const char *)n->tag;
    return tag && strcmp(tag, "?") != 0 && strcmp(tag, "!") != 0;
}

/* The core-schema name of n's tag ("int" for !!int), or NULL for another tag. */
static const char *kt_core_tag(const yaml_node_t *n)
{
    const char *tag = (const char *)n->tag;
    size_t np = sizeof KT_TAG_PREFIX - 1;
    return k8s_tagged(n) && strncmp(tag, KT_TAG_PREFIX, np) == 0 ? tag + np : NULL;
}

enum k8s_ytype k8s_type(const yaml_node_t *n)
{
    if (n->type == YAML_MAPPING_NODE)
        return KT_MAPPING;
    if (n->type == YAML_SEQUENCE_NODE)
        return KT_SEQUENCE;
    const char *core = kt_core_tag(n);
    for (size_t i = 0; core && i < sizeof kt_tags / sizeof *kt_tags; i++)
        if (strcmp(core, kt_tags[i].name) == 0)
            return kt_tags[i].type;
    /* Untagged: a plain scalar is typed by its text, a quoted one is a string; a
     * local tag (!foo) leaves the text a string, as go-yaml leaves it. */
    if (!k8s_tagged(n) && strcmp((const char *)n->tag, "?") == 0 &&
        n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE)
        return kt_plain(k8s_str(n));
    return KT_STRING;
}

int k8s_check_tag(struct k8s_reader *k, const yaml_node_t *n)
{
    const char *core = kt_core_tag(n);
    if (!core)
        return CPN_OK;
    if (strcmp(core, "binary") == 0 || strcmp(core, "timestamp") == 0)
        return k8s_fail(k, n, "YAML", "the tag !!%s is not read by cpnsim (write the value as a "
                        "string)", core);
    size_t i = 0, nt = sizeof kt_tags / sizeof *kt_tags;
    while (i < nt && strcmp(core, kt_tags[i].name) != 0)
        i++;
    if (i == nt)
        return k8s_fail(k, n, "YAML",
                        "a value cannot be tagged !!%s (a value's tag is !!str, !!int, !!float, "
                        "!!bool or !!null)", core);
    const char *s = k8s_str(n);
    enum k8s_ytype want = kt_tags[i].type, got = kt_plain(s);
    bool ok = want == KT_STRING || (got == want && (strcmp(core, "int") != 0 || kt_integer(s)));
    if (!ok)
        return k8s_fail(k, n, "YAML",
                        "'%.*s' is not a valid !!%s (Kubernetes refuses it: cannot decode %s as "
                        "!!%s)", K8S_SHOW_MAX, s, core, k8s_type_names[got], core);
    return CPN_OK;
}

uint32_t k8s_line(const yaml_node_t *n)
{
    size_t l = n->start_mark.line + 1;
    return l > UINT32_MAX ? UINT32_MAX : (uint32_t)l;
}

yaml_node_t *k8s_node(const struct k8s_reader *k, int index)
{
    yaml_node_t *n = yaml_document_get_node(k->doc, index);
    CPN_ASSERT(n);
    return n;
}

int k8s_fail(struct k8s_reader *k, const yaml_node_t *n, const char *path, const char *fmt, ...)
{
    char msg[CPN_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return cpn_fail(k->err, k->errlen, CPN_EINPUT, "%s:%" PRIu32 ": %s: %s", k->name, k8s_line(n),
                    path, msg);
}

/* Records a warning; the same path and message again only counts. */
void k8s_warn(struct k8s_reader *k, const yaml_node_t *n, const char *path, const char *fmt, ...)
{
    char msg[CPN_ERR_LEN], text[CPN_ERR_LEN + K8S_PATH_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(text, sizeof text, "%s: %s", path, msg);
    for (size_t i = 0; i < k->nwarn; i++)
        if (strcmp(k->warns[i].text, text) == 0) {
            k->warns[i].count++;
            return;
        }
    if (k->nwarn == K8S_WARN_MAX) {
        k->warn_more++;
        return;
    }
    cpn_grow((void **)&k->warns, &k->capwarn, k->nwarn + 1, sizeof *k->warns);
    k->warns[k->nwarn++] = (struct k8s_warning){cpn_strdup(text), k8s_line(n), 1};
}

/* out = path.key (just key at the top), cut to K8S_PATH_MAX - 1 bytes. */
void k8s_path(char *out, const char *path, const char *key)
{
    size_t n = 0;
    const char *parts[] = {path, *path ? "." : "", key};
    for (size_t i = 0; i < 3; i++)
        for (const char *c = parts[i]; *c && n + 1 < K8S_PATH_MAX; c++)
            out[n++] = *c;
    out[n] = '\0';
}

/* Sorts the keys of mapping m (at path) into those in want (their values stored),
 * those in inert (no effect on a simulation: skipped) and the rest (ignored with a
 * warning). A non-mapping, a key that is not a string, and a repeated key are
 * errors. */
int k8s_map(struct k8s_reader *k, yaml_node_t *m, const char *path, struct k8s_field *want,
            size_t nwant, const char *const *inert)
{
    if (m->type != YAML_MAPPING_NODE)
        return k8s_fail(k, m, path, "must be a mapping (got %s)", k8s_type_names[k8s_type(m)]);
    for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
        yaml_node_t *kn = k8s_node(k, p->key);
        if (kn->type != YAML_SCALAR_NODE)
            return k8s_fail(k, kn, path, "a key must be a name (got %s)",
                            k8s_type_names[k8s_type(kn)]);
        const char *key = k8s_str(kn);
        char sub[K8S_PATH_MAX];
        k8s_path(sub, path, key);
        for (yaml_node_pair_t *q = m->data.mapping.pairs.start; q < p; q++) {
            yaml_node_t *qn = k8s_node(k, q->key);
            if (qn->type == YAML_SCALAR_NODE && strcmp(k8s_str(qn), key) == 0)
                return k8s_fail(k, kn, sub, "duplicate key (also line %" PRIu32 ")", k8s_line(qn));
        }
        size_t i = 0;
        while (i < nwant && strcmp(want[i].key, key) != 0)
            i++;
        if (i < nwant) {
            want[i].val = k8s_node(k, p->value);
            continue;
        }
        bool quiet = false;
        for (const char *const *s = inert; s && *s && !quiet; s++)
            quiet = strcmp(*s, key) == 0;
        if (!quiet)
            k8s_warn(k, kn, sub, "not modeled by the simulator; ignored");
    }
    return CPN_OK;
}

/* A string value (quoted, or plain that YAML reads as text); null is "" when
 * null_ok. Returns 0 with *out set, or CPN_EINPUT. */
int k8s_string(struct k8s_reader *k, const yaml_node_t *n, const char *path, bool null_ok,
               const char **out)
{
    enum k8s_ytype t = k8s_type(n);
    if (t == KT_NULL && null_ok) {
        *out = "";
        return CPN_OK;
    }
    if (t != KT_STRING) {
        if (n->type == YAML_SCALAR_NODE && k8s_tagged(n))
            return k8s_fail(k, n, path,
                            "must be a string (got %s '%.*s' tagged !!%s; Kubernetes rejects it: "
                            "give it without the tag, quoted)",
                            k8s_type_names[t], K8S_SHOW_MAX, k8s_str(n), kt_core_tag(n));
        if (n->type == YAML_SCALAR_NODE)
            return k8s_fail(k, n, path,
                            "must be a string (got %s '%.*s'; Kubernetes rejects it: quote it)",
                            k8s_type_names[t], K8S_SHOW_MAX, k8s_str(n));
        return k8s_fail(k, n, path, "must be a string (got %s)", k8s_type_names[t]);
    }
    if (strlen(k8s_str(n)) != n->data.scalar.length)
        return k8s_fail(k, n, path, "contains a NUL byte");
    *out = k8s_str(n);
    return CPN_OK;
}

/* A whole number >= 0 given as a YAML number (an int32 field of the Job). */
int k8s_count(struct k8s_reader *k, const yaml_node_t *n, const char *path, uint64_t *out)
{
    enum k8s_ytype t = k8s_type(n);
    if (t != KT_NUMBER)
        return k8s_fail(k, n, path, "must be a number (got %s)", k8s_type_names[t]);
    if (cpn_parse_u64(k8s_str(n), out) != CPN_OK || *out > INT32_MAX)
        return k8s_fail(k, n, path, "must be a whole number from 0 to %d (got '%.*s')", INT32_MAX,
                        K8S_SHOW_MAX, k8s_str(n));
    return CPN_OK;
}

/* A quantity: a string or a number (Kubernetes accepts both); null is zero. */
int k8s_read_quantity(struct k8s_reader *k, const yaml_node_t *n, const char *path,
                      struct k8s_quantity *q)
{
    enum k8s_ytype t = k8s_type(n);
    if (t == KT_NULL) {
        return k8s_quantity_parse("0", q, NULL, 0);
    }
    if (t != KT_STRING && t != KT_NUMBER)
        return k8s_fail(k, n, path, "must be a quantity (got %s)", k8s_type_names[t]);
    char why[CPN_ERR_LEN];
    if (k8s_quantity_parse(k8s_str(n), q, why, sizeof why) != CPN_OK)
        return k8s_fail(k, n, path, "%s", why);
    if (q->negative)
        return k8s_fail(k, n, path, "must be >= 0 (got '%.*s')", K8S_SHOW_MAX, k8s_str(n));
    return CPN_OK;
}

/* A DNS-1123 subdomain: dot-separated labels of lower-case letters, digits and
 * inner hyphens, at most 253 characters; Kubernetes requires it of a Job's name. */
bool k8s_dns_subdomain(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > K8S_NAME_MAX)
        return false;
    for (const char *p = s;;) {
        size_t len = strcspn(p, ".");
        if (len == 0)
            return false;
        for (size_t i = 0; i < len; i++) {
            char c = p[i];
            bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      (c == '-' && i > 0 && i + 1 < len);
            if (!ok)
                return false;
        }
        if (!p[len])
            return true;
        p += len + 1;
    }
}
