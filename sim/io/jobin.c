/* jobin: the job schema, for every reader of jobs.
 *
 * One table names the fields and one set of validators checks them, so the job CSV
 * (sim/io/trace.c), JSON, Kubernetes YAML and the importers apply the same rules with
 * the same words. A value comes either as text, parsed as a CSV cell (the CSV's
 * cells, the Kubernetes annotations), or as a number the input typed as one (JSON,
 * importers), which skips the parsing but not the bounds. The CSV checks its cells in
 * its header's order, the others in the table's. The first error stops the row and
 * nothing of it is kept.
 *
 * Jobs accumulate in a private jobset that jobin_finish hands over whole. Ids are
 * checked for uniqueness, and origin names are stored once, with open-addressing
 * hash sets over offsets into the set's string pool. While the ids come in strictly
 * increasing (shortlex) order (generated queues, imports, cpnsim's own outputs) no id can repeat
 * one before it, so the id set is built only at the first id out of order: a million
 * random probes into a set of 48 MB were the largest cost of reading a queue. */
#include "jobin.h"

#include "../engine/catalog.h"
#include "../engine/job.h"
#include "../base/util.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

enum {
    JOBIN_SHOW_MAX = 40,  /* longest value quoted in a message */
    JOBIN_SET_MIN = 64,   /* first size of a hash set (a power of two) */
    JOBIN_DIGITS_MIN = 15, /* %.15g first: short and exact for most values */
    JOBIN_DIGITS_MAX = 17, /* %.17g always reads back to the same double */
};
/* batch, epochs, gpus and pods must be below 2^31, as in the CSV, and so must a job's
 * GPUs over all its pods (gpus x pods). */
#define JOBIN_WHOLE_LIMIT UINT64_C(2147483648)
/* A typed number above 2^53 may not be the whole number that was written. */
#define JOBIN_EXACT_LIMIT 9007199254740992.0

static const struct jobin_def {
    const char *name;
    bool required;
} jobin_defs[JOBIN_NFIELDS] = {
    [JOBIN_ID] = {"id", true},           [JOBIN_SUBMIT] = {"submit_s", true},
    [JOBIN_MODEL] = {"model", true},     [JOBIN_BATCH] = {"batch", true},
    [JOBIN_EPOCHS] = {"epochs", true},   [JOBIN_DATA] = {"data_gib", true},
    [JOBIN_GPUS] = {"gpus", true},       [JOBIN_PODS] = {"pods", false},
    [JOBIN_CPUS] = {"cpus", true},
    [JOBIN_MEM] = {"mem_gib", true},     [JOBIN_IMAGE] = {"image_gib", true},
    [JOBIN_ORIGIN] = {"origin", true},   [JOBIN_DURATION] = {"duration_s", false},
    [JOBIN_GPU_MEM] = {"gpu_mem_gib", false}, [JOBIN_SAMPLES] = {"samples", false},
    [JOBIN_CPU_USED] = {"cpu_cores_used", false},
};

const char *jobin_field_name(int field)
{
    CPN_ASSERT(field >= 0 && field < JOBIN_NFIELDS);
    return jobin_defs[field].name;
}

int jobin_field_find(const char *name)
{
    for (int f = 0; f < JOBIN_NFIELDS; f++)
        if (strcmp(jobin_defs[f].name, name) == 0)
            return f;
    return -1;
}

bool jobin_field_required(int field)
{
    CPN_ASSERT(field >= 0 && field < JOBIN_NFIELDS);
    return jobin_defs[field].required;
}

void jobin_format_real(double v, char buf[JOBIN_REAL_BUF])
{
    if (v >= 0 && v < JOBIN_PLAIN_LIMIT && v == floor(v)) {
        snprintf(buf, JOBIN_REAL_BUF, "%.0f", v);
        return;
    }
    for (int digits = JOBIN_DIGITS_MIN; digits <= JOBIN_DIGITS_MAX; digits++) {
        snprintf(buf, JOBIN_REAL_BUF, "%.*g", digits, v);
        double back;
        if (cpn_parse_double(buf, &back) == CPN_OK && back == v)
            return;
    }
}

/* ------------------------------------------------------------------------- */
/* A set of pool strings: open addressing, linear probing, load at most 1/2. */

struct jset {
    struct jslot {
        uint32_t hash;
        uint32_t off1; /* pool offset + 1; 0 marks an empty slot */
        uint32_t val;
    } *slot;
    size_t cap, n;
};

static uint32_t jset_hash(const char *s)
{
    uint32_t h = 2166136261u; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static struct jslot *jset_find(const struct jset *set, const char *pool, const char *s,
                               uint32_t h)
{
    size_t mask = set->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        struct jslot *sl = &set->slot[i];
        if (!sl->off1 || (sl->hash == h && strcmp(pool + sl->off1 - 1, s) == 0))
            return sl;
    }
}

/* Makes room for one more string; returns s's slot or the empty one where it goes. */
static struct jslot *jset_slot(struct jset *set, const char *pool, const char *s)
{
    if (2 * (set->n + 1) > set->cap) {
        struct jset big = {.cap = set->cap ? 2 * set->cap : JOBIN_SET_MIN, .n = set->n};
        big.slot = cpn_calloc(big.cap, sizeof *big.slot);
        for (size_t i = 0; i < set->cap; i++) {
            if (!set->slot[i].off1)
                continue;
            size_t k = set->slot[i].hash & (big.cap - 1);
            while (big.slot[k].off1)
                k = (k + 1) & (big.cap - 1);
            big.slot[k] = set->slot[i];
        }
        free(set->slot);
        *set = big;
    }
    return jset_find(set, pool, s, jset_hash(s));
}

/* ------------------------------------------------------------------------- */

struct jobin {
    char *name;
    const struct catalog *cat;
    struct jobset js;
    struct jset ids;     /* val: job index; empty while `sorted` */
    struct jset origins; /* val unused */
    /* The catalogue models met so far (val: the model's index), by name, their names
     * in mnames: the catalogue finds a name by comparing it with each of its models in
     * turn, a few hundred instructions a row. */
    struct jset models;
    char *mnames;
    size_t mnames_len, mnames_cap;
    bool sorted;         /* every id so far comes after the one before (ids_after) */
    size_t last_id_len;  /* the length of the last job's id */
    /* A part (jobin_part_create): its jobs go into its whole's job array, from index
     * part_at (part_base and part_cap are that array and its capacity), which it never
     * grows; an id out of order defers the row, and the id of its first row, once
     * checked, is kept for the join (first_id). */
    bool part;
    struct job *part_base;
    size_t part_cap, part_at;
    char *first_id;
    size_t first_id_len;
};

struct jobin *jobin_create(const char *name, const struct catalog *cat)
{
    struct jobin *b = cpn_calloc(1, sizeof *b);
    b->name = cpn_strdup(name);
    b->cat = cat;
    jobset_init(&b->js);
    b->sorted = true;
    return b;
}

void jobin_reserve(struct jobin *b, size_t jobs, size_t pool_bytes)
{
    cpn_grow((void **)&b->js.v, &b->js.cap, jobs, sizeof *b->js.v);
    cpn_grow((void **)&b->js.pool, &b->js.pool_cap, pool_bytes, 1);
}

/* Puts the id of job idx into the id set, at slot sl (jset_slot's answer for it). */
static void ids_fill(struct jobin *b, struct jslot *sl, uint32_t id, size_t idx)
{
    sl->hash = jset_hash(b->js.pool + id);
    sl->off1 = id + 1;
    sl->val = (uint32_t)idx;
    b->ids.n++;
}

/* Whether id comes after prev in shortlex order (shorter first, then byte by byte): a
 * strict total order in which numbered ids increase whether or not they are padded
 * (gavel-9, gavel-10; j0000009, j0000010). */
static bool ids_after(const char *id, size_t a, const char *prev, size_t b)
{
    return a != b ? a > b : memcmp(id, prev, a) > 0;
}

/* The slot of a new row's id in the id set, or NULL when the ids are still in
 * increasing order and this one continues it (so it cannot be a duplicate). The
 * first id out of order builds the set from the ids before it. */
static struct jslot *ids_slot(struct jobin *b, const char *id, size_t len)
{
    if (b->sorted) {
        if (b->js.n == 0 ||
            ids_after(id, len, jobset_str(&b->js, b->js.v[b->js.n - 1].id), b->last_id_len))
            return NULL;
        b->sorted = false;
        for (size_t k = 0; k < b->js.n; k++)
            ids_fill(b, jset_slot(&b->ids, b->js.pool, jobset_str(&b->js, b->js.v[k].id)),
                     b->js.v[k].id, k);
    }
    return jset_slot(&b->ids, b->js.pool, id);
}

/* A part's id check: its first id is kept for the join; each later one must come after
 * the one before, else the row is deferred (the part's ids are checked against each
 * other and its whole's only when they are all in order, jobin_part_fits). */
static int part_id(struct jobin *b, const char *id, size_t len)
{
    if (b->js.n == 0) {
        if (!b->first_id) {
            b->first_id = cpn_malloc(len + 1);
            memcpy(b->first_id, id, len + 1);
            b->first_id_len = len;
        }
        return CPN_OK;
    }
    if (ids_after(id, len, jobset_str(&b->js, b->js.v[b->js.n - 1].id), b->last_id_len))
        return CPN_OK;
    b->sorted = false;
    return JOBIN_DEFER;
}

/* Model `name`'s catalogue index, or -1 when the catalogue has no such model. */
static int model_find(struct jobin *b, const char *name)
{
    struct jslot *sl = jset_slot(&b->models, b->mnames, name);
    if (sl->off1)
        return (int)sl->val;
    int m = catalog_model_find(b->cat, name);
    if (m < 0)
        return m;
    size_t off = b->mnames_len, n = strlen(name) + 1;
    cpn_grow((void **)&b->mnames, &b->mnames_cap, off + n, 1);
    memcpy(b->mnames + off, name, n);
    b->mnames_len = off + n;
    *sl = (struct jslot){.hash = jset_hash(name), .off1 = (uint32_t)off + 1, .val = (uint32_t)m};
    b->models.n++;
    return m;
}

void jobin_destroy(struct jobin *b)
{
    if (!b)
        return;
    if (b->part)
        b->js.v = NULL; /* its whole's */
    free(b->first_id);
    jobset_free(&b->js);
    free(b->ids.slot);
    free(b->origins.slot);
    free(b->models.slot);
    free(b->mnames);
    free(b->name);
    free(b);
}


/* The state of one jobin_add. */
struct jrow {
    struct jobin *b;
    const struct jobin_row *row;
    char *err;
    size_t errlen;
};

static int jr_fail(const struct jrow *r, int f, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int jr_fail(const struct jrow *r, int f, const char *fmt, ...)
{
    char msg[CPN_ERR_LEN];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const struct jobin_val *v = &r->row->f[f];
    uint64_t line = v->line ? v->line : r->row->line;
    return cpn_fail(r->err, r->errlen, CPN_EINPUT, "%s:%" PRIu64 ": %s: %s", r->b->name, line,
                    v->label ? v->label : jobin_defs[f].name, msg);
}

/* The value as a message shows it: the text, or the number in its shortest form. */
static const char *jr_show(const struct jobin_val *v, char buf[JOBIN_REAL_BUF])
{
    if (v->kind == JOBIN_TEXT)
        return v->text;
    jobin_format_real(v->num, buf);
    return buf;
}

/* True when the value is given and not an empty text. */
static bool jr_given(const struct jobin_val *v)
{
    return v->kind == JOBIN_NUM || (v->kind == JOBIN_TEXT && v->text[0]);
}

static bool is_blank(char c) { return c == ' ' || c == '\t'; }

/* Whether s, of length n, begins or ends with a blank. */
static bool has_blank_edge(const char *s, size_t n)
{
    return n && (is_blank(s[0]) || is_blank(s[n - 1]));
}

/* A required text field; *len (when not NULL) gets its length. */
static int jr_text(const struct jrow *r, int f, const char **out, size_t *len)
{
    const struct jobin_val *v = &r->row->f[f];
    if (v->kind == JOBIN_ABSENT)
        return jr_fail(r, f, "missing (a value is required)");
    if (v->kind == JOBIN_NUM)
        return jr_fail(r, f, "must be text (got a number)");
    if (!v->text[0])
        return jr_fail(r, f, "empty (a value is required)");
    size_t n = strlen(v->text);
    if (has_blank_edge(v->text, n))
        return jr_fail(r, f, "blanks around '%.*s'", JOBIN_SHOW_MAX, v->text);
    *out = v->text;
    if (len)
        *len = n;
    return CPN_OK;
}

/* A numeric field that is absent or empty: fine (leaving the caller's value) when
 * the field is optional, else the "a value is required" failure. */
static int jr_not_given(const struct jrow *r, int f)
{
    if (!jobin_defs[f].required)
        return CPN_OK;
    return jr_fail(r, f, r->row->f[f].kind == JOBIN_ABSENT ? "missing (a value is required)"
                                                           : "empty (a value is required)");
}

/* The largest value of a real field (TRACE_MAX_* in sim/engine/job.h). */
static double jr_max(int f)
{
    if (f == JOBIN_SUBMIT || f == JOBIN_DURATION)
        return TRACE_MAX_TIME_S;
    return f == JOBIN_CPUS || f == JOBIN_CPU_USED ? TRACE_MAX_CPUS : TRACE_MAX_GIB;
}

/* A real field: finite, >= 0 (> 0 when positive), at most jr_max(f). An absent
 * optional one leaves *out. */
static int jr_real(const struct jrow *r, int f, bool positive, double *out)
{
    const struct jobin_val *v = &r->row->f[f];
    char buf[JOBIN_REAL_BUF];
    if (!jr_given(v))
        return jr_not_given(r, f);
    double x = v->num;
    if (v->kind == JOBIN_TEXT ? cpn_parse_double(v->text, &x) != CPN_OK : !isfinite(x))
        return jr_fail(r, f, "'%.*s' is not a finite number", JOBIN_SHOW_MAX, jr_show(v, buf));
    if (positive ? !(x > 0) : !(x >= 0))
        return jr_fail(r, f, "must be %s 0 (got '%.*s')", positive ? ">" : ">=", JOBIN_SHOW_MAX,
                       jr_show(v, buf));
    if (x > jr_max(f))
        return jr_fail(r, f, "must be at most %g (got '%.*s')", jr_max(f), JOBIN_SHOW_MAX,
                       jr_show(v, buf));
    *out = x == 0 ? 0.0 : x; /* no negative zero */
    return CPN_OK;
}

/* A whole-number field in [min, limit) (limit 0: none). An absent optional one
 * leaves *out. */
static int jr_whole(const struct jrow *r, int f, uint64_t min, uint64_t limit, uint64_t *out)
{
    const struct jobin_val *v = &r->row->f[f];
    char buf[JOBIN_REAL_BUF];
    if (!jr_given(v))
        return jr_not_given(r, f);
    uint64_t x = 0;
    if (v->kind == JOBIN_TEXT) {
        if (cpn_parse_u64(v->text, &x) != CPN_OK)
            return jr_fail(r, f, "'%.*s' is not a whole number >= %" PRIu64, JOBIN_SHOW_MAX,
                           jr_show(v, buf), min);
    } else {
        if (!isfinite(v->num) || v->num != floor(v->num) || v->num < 0)
            return jr_fail(r, f, "'%.*s' is not a whole number >= %" PRIu64, JOBIN_SHOW_MAX,
                           jr_show(v, buf), min);
        if (v->num > JOBIN_EXACT_LIMIT)
            return jr_fail(r, f,
                           "must be at most %.0f (got '%s'; larger whole numbers are not exact "
                           "as typed numbers)",
                           JOBIN_EXACT_LIMIT, jr_show(v, buf));
        x = (uint64_t)v->num;
    }
    if (x < min)
        return jr_fail(r, f, "must be >= %" PRIu64 " (got '%s')", min, jr_show(v, buf));
    if (limit && x >= limit)
        return jr_fail(r, f, "must be below %" PRIu64 " (got '%s')", limit, jr_show(v, buf));
    *out = x;
    return CPN_OK;
}

/* A whole-number field in [1, 2^31). An absent optional one leaves *out. */
static int jr_whole32(const struct jrow *r, int f, uint32_t *out)
{
    uint64_t x = *out;
    int rc = jr_whole(r, f, 1, JOBIN_WHOLE_LIMIT, &x);
    *out = (uint32_t)x;
    return rc;
}

/* The model: a catalogue model, or (only with a duration) absent, empty or "-". */
static int jr_model(const struct jrow *r, bool has_duration, int32_t *out)
{
    const struct jobin_val *v = &r->row->f[JOBIN_MODEL];
    if (v->kind == JOBIN_NUM)
        return jr_fail(r, JOBIN_MODEL, "must be text (got a number)");
    if (v->kind == JOBIN_ABSENT || !v->text[0] || strcmp(v->text, JOBIN_NO_MODEL) == 0) {
        if (!has_duration)
            return jr_fail(r, JOBIN_MODEL, "a job without a model needs a duration_s");
        *out = -1;
        return CPN_OK;
    }
    int m = model_find(r->b, v->text);
    if (m < 0)
        return jr_fail(r, JOBIN_MODEL, "unknown model '%.*s'", JOBIN_SHOW_MAX, v->text);
    *out = m;
    return CPN_OK;
}

/* What one row's fields have given so far. */
struct jvals {
    struct job j;
    const char *id, *origin;
    size_t id_len;
    uint64_t samples;
    uint32_t pods;         /* 1 until the pods field says otherwise */
    struct jslot *id_slot; /* the id's empty slot in b->ids; NULL while the ids are sorted */
};

/* Checks that the job's GPUs over all its pods stay below 2^31, once both gpus and
 * pods are read (gpus is 0 until it is; pods is 1 until it is, and gpus alone is below
 * 2^31). A job of several pods needs GPUs in each: gpus is at least 1 for every job.
 * The message names pods, the field that multiplies. */
static int jr_pods_fit(const struct jrow *r, const struct jvals *v)
{
    uint64_t total = (uint64_t)v->j.gpus * v->pods;
    if (total < JOBIN_WHOLE_LIMIT)
        return CPN_OK;
    return jr_fail(r, JOBIN_PODS,
                   "%" PRIu32 " pods of %" PRIu32 " GPUs are %" PRIu64
                   " GPUs: must be below %" PRIu64,
                   v->pods, v->j.gpus, total, JOBIN_WHOLE_LIMIT);
}

/* Checks field f of the row into v. Returns 0 or CPN_EINPUT. */
static int jr_field(const struct jrow *r, int f, bool has_duration, struct jvals *v)
{
    struct jobin *b = r->b;
    struct job *j = &v->j;
    int rc;
    switch ((enum jobin_field)f) {
    case JOBIN_ID:
        rc = jr_text(r, JOBIN_ID, &v->id, &v->id_len);
        if (rc)
            return rc;
        if (b->part)
            return part_id(b, v->id, v->id_len);
        v->id_slot = ids_slot(b, v->id, v->id_len);
        if (v->id_slot && v->id_slot->off1)
            return jr_fail(r, JOBIN_ID, "duplicate id '%.*s' (first at line %" PRIu32 ")",
                           JOBIN_SHOW_MAX, v->id, b->js.v[v->id_slot->val].line);
        return CPN_OK;
    case JOBIN_SUBMIT: return jr_real(r, f, false, &j->submit_s);
    case JOBIN_MODEL: return jr_model(r, has_duration, &j->model);
    case JOBIN_BATCH: return jr_whole32(r, f, &j->batch);
    case JOBIN_EPOCHS: return jr_whole32(r, f, &j->epochs);
    case JOBIN_DATA: return jr_real(r, f, false, &j->data_gib);
    case JOBIN_GPUS: return (rc = jr_whole32(r, f, &j->gpus)) ? rc : jr_pods_fit(r, v);
    case JOBIN_PODS: return (rc = jr_whole32(r, f, &v->pods)) ? rc : jr_pods_fit(r, v);
    case JOBIN_CPUS: return jr_real(r, f, false, &j->cpus);
    case JOBIN_MEM: return jr_real(r, f, false, &j->mem_gib);
    case JOBIN_IMAGE: return jr_real(r, f, false, &j->image_gib);
    case JOBIN_ORIGIN:
        if (r->row->f[f].kind == JOBIN_DEFAULT) {
            v->origin = JOBIN_DEFAULT_ORIGIN;
            return CPN_OK;
        }
        return jr_text(r, JOBIN_ORIGIN, &v->origin, NULL);
    case JOBIN_DURATION: return jr_real(r, f, true, &j->duration_s);
    case JOBIN_GPU_MEM: return jr_real(r, f, false, &j->gpu_mem_gib);
    case JOBIN_SAMPLES: return jr_whole(r, f, 0, 0, &v->samples);
    case JOBIN_CPU_USED: return jr_real(r, f, true, &j->cpu_cores_used);
    case JOBIN_NFIELDS: break;
    }
    cpn_panic(__FILE__, __LINE__, "unreachable job field");
    return CPN_EINPUT;
}

int jobin_add(struct jobin *b, const struct jobin_row *row, char *err, size_t errlen)
{
    return jobin_add_in(b, row, NULL, 0, err, errlen);
}

int jobin_add_in(struct jobin *b, const struct jobin_row *row, const int *order, size_t norder,
                 char *err, size_t errlen)
{
    /* A part that has filled its room defers the rest (its whole reads it again). */
    if (b->part && b->js.n == b->js.cap)
        return JOBIN_DEFER;
    struct jrow r = {b, row, err, errlen};
    struct jvals v = {
        .j = {.duration_s = -1, .gpu_mem_gib = -1,
              .line = row->line > UINT32_MAX ? UINT32_MAX : (uint32_t)row->line},
        .pods = 1,
    };
    for (int f = 0; f < JOBIN_NFIELDS; f++)
        CPN_ASSERT(row->f[f].kind != JOBIN_DEFAULT || f == JOBIN_ORIGIN);
    bool has_duration = jr_given(&row->f[JOBIN_DURATION]);
    size_t n = order ? norder : JOBIN_NFIELDS;
    int rc = CPN_OK;
    for (size_t k = 0; k < n && !rc; k++)
        rc = jr_field(&r, order ? order[k] : (int)k, has_duration, &v);
    /* A reader with an order names every required field in it (the CSV's header). */
    if (!rc)
        CPN_ASSERT(v.id && v.origin);
    const struct jobin_val *o = &row->f[JOBIN_ORIGIN];
    if (o->kind == JOBIN_TEXT && o->line != row->line)
        v.j.origin_line = o->line > UINT32_MAX ? UINT32_MAX : (uint32_t)o->line;
    if (!rc && b->js.n >= UINT32_MAX)
        rc = jr_fail(&r, JOBIN_ID, "too many jobs");
    if (!rc && b->js.pool_len + v.id_len + strlen(v.origin) + 2 > UINT32_MAX)
        rc = jr_fail(&r, JOBIN_ID, "the ids and origins exceed 4 GiB");
    if (rc)
        return rc;
    struct job j = v.j;
    j.samples = v.samples;

    j.id = jobset_intern_n(&b->js, v.id, v.id_len);
    struct jslot *os = jset_slot(&b->origins, b->js.pool, v.origin);
    if (os->off1) {
        j.origin = os->off1 - 1;
    } else {
        j.origin = jobset_intern(&b->js, v.origin);
        os->hash = jset_hash(v.origin);
        os->off1 = j.origin + 1;
        b->origins.n++;
    }
    size_t idx = jobset_push(&b->js, &j);
    /* One pod stores nothing while no job has more (jobset_set_pods). */
    jobset_set_pods(&b->js, idx, v.pods);
    b->last_id_len = v.id_len;
    /* The id's slot is still valid: only the origin set grew since. */
    if (v.id_slot)
        ids_fill(b, v.id_slot, j.id, idx);
    return CPN_OK;
}

int jobin_finish(struct jobin *b, const char sha256[65], struct jobset *out, char *err,
                 size_t errlen)
{
    if (b->js.n == 0) {
        int rc = cpn_fail(err, errlen, CPN_EINPUT, "%s: no jobs", b->name);
        jobin_destroy(b);
        return rc;
    }
    b->js.source = cpn_strdup(b->name);
    memcpy(b->js.sha256, sha256, sizeof b->js.sha256);
    jobset_free(out);
    *out = b->js;
    jobset_init(&b->js);
    jobin_destroy(b);
    return CPN_OK;
}

/* ------------------------------------------------------------------------- */
/* Parts: the second half of a large job CSV, read on a thread of its own. */

struct jobin *jobin_part_create(const struct jobin *whole)
{
    CPN_ASSERT(!whole->part);
    struct jobin *p = jobin_create(whole->name, whole->cat);
    p->part = true;
    p->part_base = whole->js.v;
    p->part_cap = whole->js.cap;
    return p;
}

bool jobin_part_place(struct jobin *p, size_t at)
{
    CPN_ASSERT(p->part && p->js.n == 0 && !p->js.v);
    if (!p->part_base || at >= p->part_cap)
        return false;
    p->part_at = at;
    p->js.v = p->part_base + at;
    p->js.cap = p->part_cap - at;
    return true;
}

bool jobin_part_fits(const struct jobin *whole, const struct jobin *p)
{
    CPN_ASSERT(p->part && !whole->part);
    if (!p->js.v || whole->js.v != p->part_base || whole->js.n > p->part_at || !p->sorted)
        return false;
    if (!p->first_id || whole->js.n == 0)
        return true;
    if (!whole->sorted)
        return false;
    const char *last = jobset_str(&whole->js, whole->js.v[whole->js.n - 1].id);
    return ids_after(p->first_id, p->first_id_len, last, whole->last_id_len);
}

/* A part's origin name: where it is in the part's pool, and where it goes. */
struct part_origin {
    uint32_t off, len; /* in the part's pool (len without the NUL) */
    uint32_t to;       /* its offset in the whole's pool */
    bool dropped;      /* the whole has it already: the part's copy is left out */
};

static int part_origin_cmp(const void *a, const void *b)
{
    uint32_t x = ((const struct part_origin *)a)->off, y = ((const struct part_origin *)b)->off;
    return (x > y) - (x < y);
}

/* The part's origin at pool offset off (it is one of the n in po, sorted by offset). */
static const struct part_origin *part_origin_at(const struct part_origin *po, size_t n,
                                                uint32_t off)
{
    size_t lo = 0, hi = n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (po[mid].off <= off)
            lo = mid;
        else
            hi = mid;
    }
    CPN_ASSERT(n && po[lo].off == off);
    return &po[lo];
}

void jobin_part_append(struct jobin *whole, struct jobin *p)
{
    CPN_ASSERT(jobin_part_fits(whole, p));
    struct jobset *w = &whole->js, *q = &p->js;
    size_t n1 = w->n, n2 = q->n;
    if (n2 && w->v + n1 != q->v)
        memmove(w->v + n1, q->v, n2 * sizeof *w->v);

    /* The part's pool is its ids and the first use of each origin name in it, in its
     * order: appended to the whole's without the names the whole has, it is the pool
     * one builder would have made of the two in turn. */
    size_t no = 0;
    struct part_origin *po = cpn_malloc((p->origins.n ? p->origins.n : 1) * sizeof *po);
    for (size_t i = 0; i < p->origins.cap; i++) {
        const struct jslot *sl = &p->origins.slot[i];
        if (sl->off1)
            po[no++] = (struct part_origin){.off = sl->off1 - 1,
                                            .len = (uint32_t)strlen(q->pool + sl->off1 - 1)};
    }
    qsort(po, no, sizeof *po, part_origin_cmp);
    size_t base = w->pool_len; /* the whole's pool before the part's */
    cpn_grow((void **)&w->pool, &w->pool_cap, w->pool_len + q->pool_len, 1);
    size_t from = 0;
    for (size_t k = 0; k < no; k++) {
        const char *name = q->pool + po[k].off;
        struct jslot *sl = jset_slot(&whole->origins, w->pool, name);
        size_t upto = sl->off1 ? po[k].off : po[k].off + po[k].len + 1;
        memcpy(w->pool + w->pool_len, q->pool + from, upto - from);
        w->pool_len += upto - from;
        from = po[k].off + po[k].len + 1;
        if (sl->off1) {
            po[k].to = sl->off1 - 1;
            po[k].dropped = true;
        } else {
            po[k].to = (uint32_t)(w->pool_len - po[k].len - 1);
            *sl = (struct jslot){.hash = jset_hash(name), .off1 = po[k].to + 1};
            whole->origins.n++;
        }
    }
    memcpy(w->pool + w->pool_len, q->pool + from, q->pool_len - from);
    w->pool_len += q->pool_len - from;
    /* An id moves by the whole's pool, less the names dropped before it. */
    size_t k = 0, dropped = 0;
    for (size_t i = 0; i < n2; i++) {
        struct job *j = &w->v[n1 + i];
        for (; k < no && po[k].off < j->id; k++)
            dropped += po[k].dropped ? po[k].len + 1 : 0;
        j->id = (uint32_t)(base + j->id - dropped);
        j->origin = part_origin_at(po, no, j->origin)->to;
    }
    free(po);

    if (w->pods || q->pods) {
        bool had = w->pods != NULL;
        cpn_grow((void **)&w->pods, &w->pods_cap, n1 + n2, sizeof *w->pods);
        for (size_t i = 0; !had && i < n1; i++)
            w->pods[i] = 1;
        for (size_t i = 0; i < n2; i++)
            w->pods[n1 + i] = q->pods ? q->pods[i] : 1;
    }
    w->n = n1 + n2;
    if (n2)
        whole->last_id_len = p->last_id_len;
    jobin_destroy(p);
}
