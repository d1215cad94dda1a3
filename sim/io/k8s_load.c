/* k8s_load: builds one YAML document from libyaml's events, as yaml_parser_load
 * would, with three differences the Job reader needs. Nesting deeper than
 * K8S_DEPTH_MAX is refused as soon as the parser reaches it: libyaml's own loader
 * has no limit, and its scanner does work in proportion to the depth for every
 * token, so 100,000 levels took minutes and 1,000,000 levels a quarter of an hour
 * before anything could be said. The stop flag is read once per event, so SIGINT or
 * SIGTERM ends a long parse at once. And a scalar keeps whether it had an explicit
 * tag: libyaml's loader gives an untagged scalar the tag !!str, so `!!str 1` and
 * `"1"` could not be told from each other, nor `!!int "1"` checked. Here an untagged
 * scalar gets the non-specific tag "?" (its type then comes from its text and style,
 * k8s_type), and an explicit one keeps the tag the parser resolved. */
#include "k8s_int.h"

#include "../base/util.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* An anchor defined so far in the document, and the node it names. */
struct kanchor {
    char *name;
    int node;
};

/* A collection being built: its node, and for a mapping the key waiting for its
 * value (0 when none). */
struct kframe {
    int node;
    int key;
    char *anchor; /* registered when the collection ends */
};

struct kload {
    struct k8s_reader *k;
    yaml_document_t *doc;
    struct kframe *stack;
    size_t depth, cap;
    struct kanchor *anchors;
    size_t nanchor, capanchor;
};

static int kl_syntax(const struct k8s_reader *k, const yaml_parser_t *p)
{
    const char *problem = p->problem ? p->problem : "malformed YAML";
    if (p->error == YAML_READER_ERROR)
        return cpn_fail(k->err, k->errlen, CPN_EINPUT, "%s:%zu: YAML: %s (byte %zu)", k->name,
                        p->mark.line + 1, problem, p->problem_offset);
    if (p->context)
        return cpn_fail(k->err, k->errlen, CPN_EINPUT,
                        "%s:%zu: YAML syntax error: %s (%s that starts at line %zu)", k->name,
                        p->problem_mark.line + 1, problem, p->context, p->context_mark.line + 1);
    return cpn_fail(k->err, k->errlen, CPN_EINPUT, "%s:%zu: YAML syntax error: %s", k->name,
                    p->problem_mark.line + 1, problem);
}

static void kl_anchor(struct kload *l, const yaml_char_t *name, int node)
{
    if (!name)
        return;
    cpn_grow((void **)&l->anchors, &l->capanchor, l->nanchor + 1, sizeof *l->anchors);
    l->anchors[l->nanchor++] = (struct kanchor){cpn_strdup((const char *)name), node};
}

/* The node an alias names: the latest anchor of that name (YAML lets a name be
 * given again), or 0. */
static int kl_alias(const struct kload *l, const yaml_char_t *name)
{
    for (size_t i = l->nanchor; i-- > 0;)
        if (strcmp(l->anchors[i].name, (const char *)name) == 0)
            return l->anchors[i].node;
    return 0;
}

/* Adds node to the collection being built (the root needs nothing). */
static void kl_attach(struct kload *l, int node)
{
    if (!l->depth)
        return;
    struct kframe *f = &l->stack[l->depth - 1];
    yaml_node_t *parent = yaml_document_get_node(l->doc, f->node);
    if (parent->type == YAML_SEQUENCE_NODE) {
        CPN_ASSERT(yaml_document_append_sequence_item(l->doc, f->node, node));
    } else if (!f->key) {
        f->key = node;
    } else {
        CPN_ASSERT(yaml_document_append_mapping_pair(l->doc, f->node, f->key, node));
        f->key = 0;
    }
}

/* Records where node id starts: libyaml's document API leaves every mark at zero. */
static void kl_mark(struct kload *l, int id, const yaml_event_t *e)
{
    yaml_node_t *n = yaml_document_get_node(l->doc, id);
    n->start_mark = e->start_mark;
}

/* The tag a node is stored with: the explicit one, else "?" (non-specific). */
static yaml_char_t *kl_tag(yaml_char_t *tag)
{
    static yaml_char_t none[] = "?";
    return tag ? tag : none;
}

/* Handles one event of a document. Returns 0, 1 when the document ended, or
 * CPN_EINPUT. */
static int kl_event(struct kload *l, const yaml_event_t *e)
{
    struct k8s_reader *k = l->k;
    int id = 0;
    switch (e->type) {
    case YAML_SCALAR_EVENT: {
        const yaml_char_t *tag = e->data.scalar.tag;
        if (e->data.scalar.length > INT_MAX) /* libyaml's document API counts in int */
            return cpn_fail(k->err, k->errlen, CPN_EINPUT, "%s:%zu: YAML: a value of %zu bytes",
                            k->name, e->start_mark.line + 1, e->data.scalar.length);
        id = yaml_document_add_scalar(l->doc, kl_tag(e->data.scalar.tag), e->data.scalar.value,
                                      (int)e->data.scalar.length, e->data.scalar.style);
        CPN_ASSERT(id);
        kl_mark(l, id, e);
        if (tag) {
            int rc = k8s_check_tag(k, yaml_document_get_node(l->doc, id));
            if (rc)
                return rc;
        }
        kl_anchor(l, e->data.scalar.anchor, id);
        kl_attach(l, id);
        return 0;
    }
    case YAML_ALIAS_EVENT:
        id = kl_alias(l, e->data.alias.anchor);
        if (!id)
            return cpn_fail(k->err, k->errlen, CPN_EINPUT,
                            "%s:%zu: YAML: alias '*%s' names no anchor defined before it (an "
                            "anchor cannot be used inside its own value)",
                            k->name, e->start_mark.line + 1, (const char *)e->data.alias.anchor);
        kl_attach(l, id);
        return 0;
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        if (l->depth >= K8S_DEPTH_MAX)
            return cpn_fail(k->err, k->errlen, CPN_EINPUT,
                            "%s:%zu: YAML nested deeper than %d levels, the most cpnsim reads (a "
                            "Kubernetes Job's deepest field is 13 levels down; docs/jobs.md)",
                            k->name, e->start_mark.line + 1, K8S_DEPTH_MAX);
        bool seq = e->type == YAML_SEQUENCE_START_EVENT;
        id = seq ? yaml_document_add_sequence(l->doc, kl_tag(e->data.sequence_start.tag),
                                              e->data.sequence_start.style)
                 : yaml_document_add_mapping(l->doc, kl_tag(e->data.mapping_start.tag),
                                             e->data.mapping_start.style);
        CPN_ASSERT(id);
        kl_mark(l, id, e);
        kl_attach(l, id);
        const yaml_char_t *anchor = seq ? e->data.sequence_start.anchor
                                        : e->data.mapping_start.anchor;
        cpn_grow((void **)&l->stack, &l->cap, l->depth + 1, sizeof *l->stack);
        l->stack[l->depth++] =
            (struct kframe){id, 0, anchor ? cpn_strdup((const char *)anchor) : NULL};
        return 0;
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT: {
        CPN_ASSERT(l->depth > 0);
        struct kframe *f = &l->stack[--l->depth];
        kl_anchor(l, (const yaml_char_t *)f->anchor, f->node);
        free(f->anchor);
        return 0;
    }
    case YAML_DOCUMENT_END_EVENT:
        return 1;
    default:
        return 0;
    }
}

int k8s_load(struct k8s_reader *k, yaml_parser_t *p, yaml_document_t *doc, bool *got)
{
    struct kload l = {.k = k, .doc = doc};
    bool open = false;
    int rc = 0;
    *got = false;
    while (rc == 0) {
        if (k->stop && *k->stop) {
            rc = cpn_fail(k->err, k->errlen, CPN_ESTOP, "%s: stopped by signal %d", k->name,
                          (int)*k->stop);
            break;
        }
        yaml_event_t e;
        if (!yaml_parser_parse(p, &e)) {
            rc = kl_syntax(k, p);
            break;
        }
        if (e.type == YAML_STREAM_END_EVENT || e.type == YAML_NO_EVENT) {
            yaml_event_delete(&e);
            break;
        }
        if (e.type == YAML_DOCUMENT_START_EVENT) {
            CPN_ASSERT(yaml_document_initialize(doc, NULL, NULL, NULL, 1, 1));
            open = true;
        } else if (open) {
            rc = kl_event(&l, &e);
        }
        yaml_event_delete(&e);
    }
    for (size_t i = 0; i < l.depth; i++)
        free(l.stack[i].anchor);
    free(l.stack);
    for (size_t i = 0; i < l.nanchor; i++)
        free(l.anchors[i].name);
    free(l.anchors);
    if (rc == 1) {
        *got = true;
        return CPN_OK;
    }
    if (open)
        yaml_document_delete(doc);
    return rc;
}
