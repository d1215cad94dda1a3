/* sweep_key: what makes a run directory a result of the spec that asks for it (see
 * sweep.h). A run's key is its inputs: the point's whole resolved configuration
 * (policy, predictor, seed, files, generated queue, every --set key and value, the
 * defaults filled in), the SHA-256 of each input file's bytes, and the cpnsim
 * version. The child that ran the point writes the key to RUNDIR/inputs.json after
 * summary.json, atomically, with the hashes the summary records of the bytes the run
 * read; the parent removes both before the run starts. A run is
 * reused only when inputs.json equals the key the spec asks for now and summary.json
 * holds every field a run writes, with its type, and agrees with the key (policy,
 * predictor, seed, version, the cluster's and jobs file's hashes). Anything else is
 * run again, and the reason is said. Files are named in the key as the spec writes
 * them (relative to the spec), so the same run matches whether the sweep was started
 * with a relative or an absolute spec path (an emitted cluster task). A jobs value
 * FORMAT:TRACE (a trace the run converts in memory) is named as written, and its hash
 * is the trace's, as the run's summary.json records it. */
#include "sweep.h"
#include "sweep_int.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../engine/cluster.h"
#include "../io/import.h"
#include "../base/util.h"

/* The file a run's key is kept in, beside summary.json. */
#define SWEEP_KEY_FILE "inputs.json"

struct sweep_inputs {
    const struct sweep_spec *sp;
    char ***hex;         /* [n_base + n_grid][n values]: the file's SHA-256 once read, or NULL */
    char default_cluster[65];
};

/* Key slot of a spec key: base keys first, then grid keys. */
static struct sweep_key *slot_key(const struct sweep_spec *sp, size_t s)
{
    return s < sp->n_base ? &sp->base[s] : &sp->grid[s - sp->n_base];
}

struct sweep_inputs *sweep_inputs_create(const struct sweep_spec *sp)
{
    struct sweep_inputs *in = cpn_calloc(1, sizeof *in);
    in->sp = sp;
    in->hex = cpn_calloc(sp->n_base + sp->n_grid + 1, sizeof *in->hex);
    for (size_t s = 0; s < sp->n_base + sp->n_grid; s++)
        in->hex[s] = cpn_calloc(slot_key(sp, s)->n, sizeof *in->hex[s]);
    size_t dlen;
    const char *dbuf = cluster_default_json(&dlen);
    cpn_sha256_hex(dbuf, dlen, in->default_cluster);
    return in;
}

void sweep_inputs_destroy(struct sweep_inputs *in)
{
    if (!in)
        return;
    for (size_t s = 0; s < in->sp->n_base + in->sp->n_grid; s++) {
        for (size_t i = 0; i < slot_key(in->sp, s)->n; i++)
            free(in->hex[s][i]);
        free(in->hex[s]);
    }
    free(in->hex);
    free(in);
}

int sweep_inputs_hash(struct sweep_inputs *in, size_t index, char *err, size_t errlen)
{
    const struct sweep_spec *sp = in->sp;
    size_t *c = cpn_calloc(sp->n_grid + 1, sizeof *c);
    if (sp->n_grid)
        sweep_point(sp, index, c);
    int rc = CPN_OK;
    for (size_t s = 0; !rc && s < sp->n_base + sp->n_grid; s++) {
        const struct sweep_key *k = slot_key(sp, s);
        bool in_grid = s >= sp->n_base;
        size_t i = in_grid ? c[s - sp->n_base] : 0;
        if ((k->kind != SWEEP_JOBS && k->kind != SWEEP_CLUSTER && k->kind != SWEEP_MIX) ||
            !k->arg[i] || in->hex[s][i])
            continue;
        /* Through cpn_read_file, so that /dev/zero or a binary file is refused at its
         * first NUL byte and nothing is read past CPN_READ_MAX. */
        char *buf, msg[CPN_ERR_LEN];
        size_t len;
        if (cpn_read_file(k->arg[i], &buf, &len, msg, sizeof msg) != 0) {
            char field[300];
            sweep_value_field(k, in_grid, i, field, sizeof field);
            rc = cpn_fail(err, errlen, CPN_EINPUT, "%s:%d: %s: %s", sp->path, k->lines[i], field,
                          msg);
            break;
        }
        in->hex[s][i] = cpn_malloc(65);
        cpn_sha256_hex(buf, len, in->hex[s][i]);
        free(buf);
    }
    free(c);
    return rc;
}

/* The fields of a key that a run option fills, in the order inputs.json lists them;
 * a file's hash follows its name. */
static const struct {
    int kind;
    const char *name, *sha;
} key_fields[] = {
    {SWEEP_POLICY, "policy", NULL},   {SWEEP_PREDICTOR, "predictor", NULL},
    {SWEEP_SEED, "seed", NULL},       {SWEEP_JOBS, "jobs", "jobs_sha256"},
    {SWEEP_CLUSTER, "cluster", "cluster_sha256"},
    {SWEEP_COUNT, "count", NULL},     {SWEEP_ARRIVAL, "arrival", NULL},
    {SWEEP_MIX, "mix", "mix_sha256"},
};
#define N_KEY_FIELDS (sizeof key_fields / sizeof key_fields[0])

/* The key field that a run option (not a --set key) fills. */
static size_t field_of(int kind)
{
    size_t f = 0;
    while (f < N_KEY_FIELDS && key_fields[f].kind != kind)
        f++;
    CPN_ASSERT(f < N_KEY_FIELDS);
    return f;
}

/* The key of point index: a JSON object the caller deletes. */
static cJSON *key_json(const struct sweep_spec *sp, const struct sweep_inputs *in, size_t index)
{
    size_t *c = cpn_calloc(sp->n_grid + 1, sizeof *c);
    if (sp->n_grid)
        sweep_point(sp, index, c);
    /* Each run option's value (NULL: the default) and hash, run defaults first. */
    const char *val[N_KEY_FIELDS] = {0}, *sha[N_KEY_FIELDS] = {0};
    char seed[24];
    snprintf(seed, sizeof seed, "%u", (unsigned)RUN_DEFAULT_SEED);
    val[field_of(SWEEP_POLICY)] = RUN_DEFAULT_POLICY;
    val[field_of(SWEEP_PREDICTOR)] = RUN_DEFAULT_PREDICTOR;
    val[field_of(SWEEP_SEED)] = seed;
    /* The embedded cluster's, when the spec names none. */
    sha[field_of(SWEEP_CLUSTER)] = in->default_cluster;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "version", CPN_VERSION);
    cJSON *sets = cJSON_CreateObject();
    for (size_t s = 0; s < sp->n_base + sp->n_grid; s++) {
        const struct sweep_key *k = slot_key(sp, s);
        size_t i = s < sp->n_base ? 0 : c[s - sp->n_base];
        if (k->kind == SWEEP_SET) {
            cJSON_AddStringToObject(sets, k->name, k->raw[i]);
            continue;
        }
        size_t f = field_of(k->kind);
        bool is_null = key_fields[f].sha && !k->arg[i];
        val[f] = is_null ? NULL : k->raw[i];
        if (key_fields[f].sha)
            sha[f] = is_null && k->kind == SWEEP_CLUSTER ? in->default_cluster : in->hex[s][i];
    }
    for (size_t f = 0; f < N_KEY_FIELDS; f++) {
        cJSON_AddItemToObject(o, key_fields[f].name,
                              val[f] ? cJSON_CreateString(val[f]) : cJSON_CreateNull());
        if (key_fields[f].sha)
            cJSON_AddItemToObject(o, key_fields[f].sha,
                                  sha[f] ? cJSON_CreateString(sha[f]) : cJSON_CreateNull());
    }
    cJSON_AddItemToObject(o, "set", sets);
    free(c);
    return o;
}

/* Reads dir/name as JSON; NULL when it is missing or not JSON. */
static cJSON *read_json(const char *dir, const char *name);

int sweep_key_write(const struct sweep_spec *sp, struct sweep_inputs *in, size_t index,
                    const char *dir, char *err, size_t errlen)
{
    /* The jobs file's and the cluster's hashes are those of the bytes the run read, as
     * its summary.json records them: no second read of a file of a million jobs (1.3 s
     * of SHA-256 for 65 MB), and no file changed between a hash and the run. The mix,
     * which the summary does not record, is hashed here. */
    cJSON *sum = read_json(dir, "summary.json");
    size_t *c = cpn_calloc(sp->n_grid + 1, sizeof *c);
    if (sp->n_grid)
        sweep_point(sp, index, c);
    for (size_t s = 0; s < sp->n_base + sp->n_grid; s++) {
        const struct sweep_key *k = slot_key(sp, s);
        size_t i = s < sp->n_base ? 0 : c[s - sp->n_base];
        const cJSON *h = cJSON_GetObjectItemCaseSensitive(
            sum, k->kind == SWEEP_JOBS ? "jobs_sha256" : "cluster_sha256");
        if ((k->kind == SWEEP_JOBS || k->kind == SWEEP_CLUSTER) && k->arg[i] && !in->hex[s][i] &&
            cJSON_IsString(h) && strlen(h->valuestring) == 64)
            in->hex[s][i] = cpn_strdup(h->valuestring);
    }
    free(c);
    cJSON_Delete(sum);
    int rc = sweep_inputs_hash(in, index, err, errlen);
    if (rc)
        return rc;
    return sweep_write_json(dir, SWEEP_KEY_FILE, key_json(sp, in, index), err, errlen);
}

int sweep_write_json(const char *dir, const char *name, cJSON *o, char *err, size_t errlen)
{
    char *txt = cJSON_Print(o);
    cJSON_Delete(o);
    struct afile af = {0};
    int rc = afile_open(&af, dir, name, err, errlen);
    if (!rc) {
        fputs(txt, af.f);
        fputc('\n', af.f);
        rc = afile_commit(&af, err, errlen);
    }
    free(txt);
    return rc;
}

/* A key value as words: "not set", "default" (null), or the text; a hash by its
 * first 12 digits. */
static const char *said(const cJSON *v, char *buf, size_t n)
{
    if (!v)
        return "not set";
    if (cJSON_IsNull(v))
        return "default";
    if (!cJSON_IsString(v))
        return "not a string";
    snprintf(buf, n, "%s", v->valuestring);
    if (strlen(buf) == 64 && strspn(buf, "0123456789abcdef") == 64)
        snprintf(buf + 12, n - 12, "...");
    return buf;
}

/* Writes into why what differs between the key asked for (want) and the one found
 * (got), the first difference only; prefix goes before a field's name ("set "). Returns
 * whether they differ. */
static bool key_differs(const cJSON *want, const cJSON *got, const char *prefix, char *why,
                        size_t n)
{
    char a[96], b[96];
    const cJSON *w;
    cJSON_ArrayForEach(w, want)
    {
        const cJSON *g = cJSON_GetObjectItemCaseSensitive(got, w->string);
        if (cJSON_IsObject(w)) {
            if (!cJSON_IsObject(g)) {
                snprintf(why, n, "inputs changed since it ran (%s: missing from %s)", w->string,
                         SWEEP_KEY_FILE);
                return true;
            }
            if (key_differs(w, g, "set ", why, n))
                return true;
            continue;
        }
        if (g && cJSON_Compare(w, g, true))
            continue;
        size_t nl = strlen(w->string);
        const cJSON *file = NULL;
        if (nl > 7 && strcmp(w->string + nl - 7, "_sha256") == 0) {
            char base[32];
            snprintf(base, sizeof base, "%.*s", (int)(nl - 7), w->string);
            file = cJSON_GetObjectItemCaseSensitive(want, base);
        }
        /* A file by its name; jobs as FORMAT:TRACE by the trace's. */
        const char *path = NULL;
        if (cJSON_IsString(file) &&
            (strcmp(file->string, "jobs") != 0 || !import_job_source(file->valuestring, &path)))
            path = file->valuestring;
        if (path) /* the same file name, other bytes */
            snprintf(why, n, "inputs changed since it ran (the bytes of %s changed: SHA-256 %s then, "
                     "%s now)", path, said(g, b, sizeof b), said(w, a, sizeof a));
        else
            snprintf(why, n, "inputs changed since it ran (%s%s: %s then, %s now)", prefix,
                     w->string, said(g, b, sizeof b), said(w, a, sizeof a));
        return true;
    }
    const cJSON *g;
    cJSON_ArrayForEach(g, got)
    {
        if (!cJSON_GetObjectItemCaseSensitive(want, g->string)) {
            snprintf(why, n, "inputs changed since it ran (%s%s: %s then, not set now)", prefix,
                     g->string, said(g, b, sizeof b));
            return true;
        }
    }
    /* Same keys and values: their order does not matter, since each --set key names
     * its own parameter of the cluster (cluster_settable). */
    return false;
}

/* A summary field and the JSON types it may take. */
enum { T_NUM = 1, T_NULL = 2, T_BOOL = 4, T_STR = 8, T_ARR = 16 };
static const struct {
    const char *name;
    int types;
} summary_fields[] = {
    {"policy", T_STR},           {"seed", T_NUM},
    {"predictor", T_STR},        {"jobs", T_NUM},
    {"completed", T_NUM},        {"failed", T_NUM},
    {"stuck", T_NUM},            {"unfinished", T_NUM},
    {"oom_events", T_NUM},       {"oom_jobs", T_NUM},
    {"gang_timeouts", T_NUM},
    {"deadlock", T_BOOL},        {"horizon_reached", T_BOOL},
    {"makespan_s", T_NUM | T_NULL},     {"jct_mean_s", T_NUM | T_NULL},
    {"jct_p50_s", T_NUM | T_NULL},      {"jct_p95_s", T_NUM | T_NULL},
    {"jct_p99_s", T_NUM | T_NULL},      {"jct_all_mean_s", T_NUM | T_NULL},
    {"jct_all_p50_s", T_NUM | T_NULL},  {"jct_all_p95_s", T_NUM | T_NULL},
    {"not_completed", T_NUM},    {"wait_mean_s", T_NUM | T_NULL},
    {"gpu_util_mean", T_NUM},    {"cpu_util_mean", T_NUM},
    {"cpu_lost_gpu_s", T_NUM},   {"cpu_slowed_jobs", T_NUM},
    {"pred_factor_median", T_NUM | T_NULL},
    {"pred_factor_first_tenth", T_NUM | T_NULL},
    {"pred_factor_last_tenth", T_NUM | T_NULL},
    {"transfer_gib", T_NUM},     {"transfers", T_NUM},
    {"transfer_mean_s", T_NUM},  {"cache_hit_rate", T_NUM | T_NULL},
    {"cache_hits", T_NUM},       {"cache_misses", T_NUM},
    {"cache_evictions", T_NUM},  {"placements", T_NUM},
    {"events", T_NUM},           {"stuck_jobs", T_ARR},
    {"cluster", T_STR},          {"jobs_file", T_STR},
    {"cluster_sha256", T_STR},   {"jobs_sha256", T_STR},
    {"overrides", T_ARR},        {"version", T_STR},
    {"wall_s", T_NUM},           {"events_per_s", T_NUM},
};

static bool has_type(const cJSON *v, int types)
{
    return ((types & T_NUM) && cJSON_IsNumber(v)) || ((types & T_NULL) && cJSON_IsNull(v)) ||
           ((types & T_BOOL) && cJSON_IsBool(v)) || ((types & T_STR) && cJSON_IsString(v)) ||
           ((types & T_ARR) && cJSON_IsArray(v));
}

/* Whether summary sum is a whole run's, of the inputs in key (as inputs.json holds it):
 * every field with its type, and the fields the key also names equal to it. Writes the first fault to why. */
static bool summary_valid(const cJSON *sum, const cJSON *key, char *why, size_t n)
{
    if (!cJSON_IsObject(sum)) {
        snprintf(why, n, "its summary.json is not valid (%s)", sum ? "not a JSON object" : "not JSON");
        return false;
    }
    for (size_t i = 0; i < sizeof summary_fields / sizeof summary_fields[0]; i++) {
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(sum, summary_fields[i].name);
        if (!v || !has_type(v, summary_fields[i].types)) {
            snprintf(why, n, "its summary.json is not valid (%s: %s)", summary_fields[i].name,
                     v ? "of the wrong type" : "missing");
            return false;
        }
    }
    /* The run's own record of what it read must agree with the key: a file that
     * changed between hashing and reading shows here. */
    static const char *const same[] = {"policy", "predictor", "version", "cluster_sha256",
                                       "jobs_sha256"};
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++) {
        const cJSON *k = cJSON_GetObjectItemCaseSensitive(key, same[i]);
        const cJSON *v = cJSON_GetObjectItemCaseSensitive(sum, same[i]);
        if (cJSON_IsString(k) && !cJSON_Compare(k, v, true)) {
            snprintf(why, n, "its summary.json does not match its inputs (%s)", same[i]);
            return false;
        }
    }
    const cJSON *ks = cJSON_GetObjectItemCaseSensitive(key, "seed");
    uint64_t seed;
    if (!cJSON_IsString(ks) || cpn_parse_u64(ks->valuestring, &seed) != 0 ||
        cJSON_GetObjectItemCaseSensitive(sum, "seed")->valuedouble != (double)seed) {
        snprintf(why, n, "its summary.json does not match its inputs (seed)");
        return false;
    }
    return true;
}

static cJSON *read_json(const char *dir, const char *name)
{
    char *p = cpn_path_join(dir, name), *buf, err[CPN_ERR_LEN];
    size_t len;
    cJSON *j = NULL;
    if (cpn_read_file(p, &buf, &len, err, sizeof err) == 0) {
        /* Strict: text after the value (a summary written twice) is not valid. */
        j = strlen(buf) == len ? cJSON_ParseWithOpts(buf, NULL, true) : NULL;
        free(buf);
    }
    free(p);
    return j;
}

int sweep_run_state(const struct sweep_spec *sp, struct sweep_inputs *in, size_t index,
                    const char *dir, char *why, size_t n)
{
    why[0] = '\0';
    if (!sweep_file_exists(dir, "summary.json"))
        return SWEEP_RUN_MISSING;
    char msg[CPN_ERR_LEN];
    cJSON *want = NULL, *got = read_json(dir, SWEEP_KEY_FILE), *sum = NULL;
    int state = SWEEP_RUN_STALE;
    if (!got)
        snprintf(why, n, "no record of the inputs it ran with (%s missing or not valid)",
                 SWEEP_KEY_FILE);
    else if (in && sweep_inputs_hash(in, index, msg, sizeof msg) != 0)
        snprintf(why, n, "its inputs cannot be read now: %s", msg);
    else if ((!in || !key_differs(want = key_json(sp, in, index), got, "", why, n)) &&
             summary_valid(sum = read_json(dir, "summary.json"), got, why, n))
        state = SWEEP_RUN_DONE;
    cJSON_Delete(sum);
    cJSON_Delete(got);
    cJSON_Delete(want);
    return state;
}

void sweep_run_clear(const char *dir)
{
    static const char *const names[] = {"summary.json", SWEEP_KEY_FILE};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        char *p = cpn_path_join(dir, names[i]);
        remove(p);
        free(p);
    }
}
