/* learn: the controller's table of observations of completed runs (learn.h). One open-
 * addressing hash table holds every key; each entry keeps its running sum or maximum and
 * count, and the published copy that the estimates read. */
#include "learn.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"

struct learn_entry {
    uint32_t kind; /* LEARN_NKINDS: empty */
    uint32_t a, b, c, d;
    uint32_t n, n_pub;
    double x, x_pub; /* sum (log kinds) or maximum */
};

struct learner {
    struct learn_entry *t;
    size_t cap, used;
};

#define LEARN_INITIAL 256

static bool is_max_kind(enum learn_kind k) { return k == LEARN_MEM || k == LEARN_RUN_MEM; }

static void clear(struct learn_entry *t, size_t cap)
{
    for (size_t i = 0; i < cap; i++)
        t[i] = (struct learn_entry){.kind = LEARN_NKINDS};
}

struct learner *learner_create(void)
{
    struct learner *l = cpn_calloc(1, sizeof *l);
    l->cap = LEARN_INITIAL;
    l->t = cpn_calloc(l->cap, sizeof *l->t);
    clear(l->t, l->cap);
    return l;
}

void learner_destroy(struct learner *l)
{
    if (!l)
        return;
    free(l->t);
    free(l);
}

/* The entry of the key, or the empty one where it belongs. */
static struct learn_entry *slot(struct learn_entry *t, size_t cap, uint32_t kind, uint32_t a,
                                uint32_t b, uint32_t c, uint32_t d)
{
    uint64_t h = cpn_mix64(((uint64_t)kind << 32 | a) ^ cpn_mix64((uint64_t)b << 32 | c) ^ cpn_mix64(d));
    for (size_t i = (size_t)h & (cap - 1);; i = (i + 1) & (cap - 1)) {
        struct learn_entry *e = &t[i];
        if (e->kind == LEARN_NKINDS ||
            (e->kind == kind && e->a == a && e->b == b && e->c == c && e->d == d))
            return e;
    }
}

bool learner_add(struct learner *l, enum learn_kind kind, uint32_t a, uint32_t b, uint32_t c,
                 uint32_t d, double x)
{
    CPN_ASSERT(kind < LEARN_NKINDS && isfinite(x));
    if ((l->used + 1) * 2 > l->cap) {
        struct learn_entry *old = l->t;
        size_t oldcap = l->cap;
        l->cap *= 2;
        l->t = cpn_calloc(l->cap, sizeof *l->t);
        clear(l->t, l->cap);
        for (size_t i = 0; i < oldcap; i++)
            if (old[i].kind != LEARN_NKINDS)
                *slot(l->t, l->cap, old[i].kind, old[i].a, old[i].b, old[i].c, old[i].d) = old[i];
        free(old);
    }
    struct learn_entry *e = slot(l->t, l->cap, kind, a, b, c, d);
    bool fresh = e->kind == LEARN_NKINDS;
    if (fresh) {
        *e = (struct learn_entry){.kind = kind, .a = a, .b = b, .c = c, .d = d};
        l->used++;
    }
    if (is_max_kind(kind))
        e->x = e->n == 0 || x > e->x ? x : e->x;
    else
        e->x += x;
    e->n++;
    return fresh;
}

bool learner_get(const struct learner *l, enum learn_kind kind, uint32_t a, uint32_t b,
                 uint32_t c, uint32_t d, double *out, uint32_t *n)
{
    const struct learn_entry *e =
        slot(l->t, l->cap, (uint32_t)kind, a, b, c, d); /* never full: at most half */
    if (e->kind == LEARN_NKINDS || e->n_pub == 0)
        return false;
    *out = is_max_kind(kind) ? e->x_pub : e->x_pub / e->n_pub;
    if (n)
        *n = e->n_pub;
    return true;
}

void learner_publish(struct learner *l)
{
    for (size_t i = 0; i < l->cap; i++) {
        l->t[i].n_pub = l->t[i].n;
        l->t[i].x_pub = l->t[i].x;
    }
}
