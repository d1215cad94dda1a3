/* learn: the controller's table of observations of completed runs (learn.h). Every key
 * has one entry in a dense array, where it stays for the learner's life, so that its
 * index is a handle a caller may keep (learner_key) and add to without hashing again;
 * an open-addressing index of entry numbers finds a key's entry. Each entry keeps its
 * running sum or maximum and count, and the published copy that the estimates read. */
#include "learn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"

struct learn_entry {
    uint32_t kind;
    uint32_t a, b, c, d;
    uint32_t n, n_pub;
    double x, x_pub; /* sum (log kinds) or maximum */
};

struct learner {
    struct learn_entry *v; /* [n]: the keys in the order they were first asked for */
    size_t n, v_cap;
    uint32_t *idx;         /* [cap]: entry number + 1 of a key; 0 marks an empty slot */
    size_t cap;            /* a power of 2, at least twice n */
    unsigned shift;        /* 64 - log2(cap): a hash's top bits pick the slot */
};

#define LEARN_INITIAL 256
#define LEARN_INITIAL_SHIFT 56 /* 64 - log2(LEARN_INITIAL) */

static bool is_max_kind(enum learn_kind k) { return k == LEARN_MEM || k == LEARN_RUN_MEM; }

struct learner *learner_create(void)
{
    struct learner *l = cpn_calloc(1, sizeof *l);
    l->cap = LEARN_INITIAL;
    l->shift = LEARN_INITIAL_SHIFT;
    l->idx = cpn_calloc(l->cap, sizeof *l->idx);
    l->v_cap = LEARN_INITIAL / 2;
    l->v = cpn_malloc(l->v_cap * sizeof *l->v);
    return l;
}

void learner_destroy(struct learner *l)
{
    if (!l)
        return;
    free(l->idx);
    free(l->v);
    free(l);
}

/* The key's hash: two multiplications, whose top bits depend on every bit of the key.
 * (Where a key sits changes nothing a reader sees: only whether it is found.) */
static uint64_t key_hash(uint32_t kind, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
    uint64_t h = ((uint64_t)a << 32 | b) * 0x9E3779B97F4A7C15ull;
    uint64_t cdk = ((uint64_t)c << 32 | d) ^ (uint64_t)kind << 27;
    return (h ^ (h >> 29) ^ cdk) * 0xC2B2AE3D27D4EB4Full;
}

/* The index slot of the key: the one naming its entry, or the empty one where it
 * belongs (the index is never more than half full). */
static uint32_t *index_slot(const struct learner *l, uint32_t kind, uint32_t a, uint32_t b,
                            uint32_t c, uint32_t d)
{
    size_t mask = l->cap - 1;
    for (size_t i = (size_t)(key_hash(kind, a, b, c, d) >> l->shift);; i = (i + 1) & mask) {
        uint32_t k = l->idx[i];
        if (k == 0)
            return &l->idx[i];
        const struct learn_entry *e = &l->v[k - 1];
        if (e->kind == kind && e->a == a && e->b == b && e->c == c && e->d == d)
            return &l->idx[i];
    }
}

/* Doubles the index and places every entry again. */
static void index_grow(struct learner *l)
{
    free(l->idx);
    l->cap *= 2;
    l->shift--;
    l->idx = cpn_calloc(l->cap, sizeof *l->idx);
    for (size_t k = 0; k < l->n; k++) {
        const struct learn_entry *e = &l->v[k];
        *index_slot(l, e->kind, e->a, e->b, e->c, e->d) = (uint32_t)(k + 1);
    }
}

uint32_t learner_key(struct learner *l, enum learn_kind kind, uint32_t a, uint32_t b, uint32_t c,
                     uint32_t d)
{
    CPN_ASSERT(kind < LEARN_NKINDS);
    uint32_t *s = index_slot(l, (uint32_t)kind, a, b, c, d);
    if (*s)
        return *s - 1;
    CPN_ASSERT(l->n < UINT32_MAX - 1);
    if (l->n == l->v_cap) {
        l->v_cap *= 2;
        l->v = cpn_realloc(l->v, l->v_cap * sizeof *l->v);
    }
    uint32_t k = (uint32_t)l->n++;
    l->v[k] = (struct learn_entry){.kind = (uint32_t)kind, .a = a, .b = b, .c = c, .d = d};
    *s = k + 1;
    if (l->n * 2 > l->cap)
        index_grow(l);
    return k;
}

bool learner_add_at(struct learner *l, uint32_t key, double x)
{
    CPN_ASSERT(key < l->n && isfinite(x));
    struct learn_entry *e = &l->v[key];
    bool fresh = e->n == 0;
    if (is_max_kind((enum learn_kind)e->kind))
        e->x = fresh || x > e->x ? x : e->x;
    else
        e->x += x;
    e->n++;
    return fresh;
}

bool learner_add(struct learner *l, enum learn_kind kind, uint32_t a, uint32_t b, uint32_t c,
                 uint32_t d, double x)
{
    return learner_add_at(l, learner_key(l, kind, a, b, c, d), x);
}

bool learner_get(const struct learner *l, enum learn_kind kind, uint32_t a, uint32_t b,
                 uint32_t c, uint32_t d, double *out, uint32_t *n)
{
    CPN_ASSERT(kind < LEARN_NKINDS);
    uint32_t k = *index_slot(l, (uint32_t)kind, a, b, c, d);
    if (k == 0 || l->v[k - 1].n_pub == 0)
        return false;
    const struct learn_entry *e = &l->v[k - 1];
    *out = is_max_kind(kind) ? e->x_pub : e->x_pub / e->n_pub;
    if (n)
        *n = e->n_pub;
    return true;
}

void learner_publish(struct learner *l)
{
    for (size_t k = 0; k < l->n; k++) {
        l->v[k].n_pub = l->v[k].n;
        l->v[k].x_pub = l->v[k].x;
    }
}
