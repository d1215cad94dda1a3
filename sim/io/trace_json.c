/* trace_json: the job queue as JSON, and trace_read_any, which picks a reader by the
 * file's extension.
 *
 * The JSON form is an array of objects whose keys are the job CSV's columns
 * (docs/jobs.md). The reader parses the whole file with cJSON (sim/jsonpos gives each
 * value its line), checks the types JSON adds (a number must be a JSON number, text
 * a JSON string; null is an absent optional value), and hands the values to
 * sim/jobin, which applies the CSV's rules with the CSV's messages. Unlike the CSV
 * reader it holds the whole file in memory: CSV remains the format for very large
 * queues.
 *
 * The writer prints one object per line with the keys in the CSV's column order,
 * optional keys only when the job has the value, and numbers in the CSV writer's
 * shortest exact form, so CSV -> JSON -> CSV gives back the same bytes. */
#include "trace.h"

#include "jobin.h"
#include "../base/jsonpos.h"
#include "k8s.h"
#include "../engine/catalog.h"
#include "../base/util.h"

#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum {
    TJ_SHOW_MAX = 40, /* longest key quoted in a message */
};

/* The name of a JSON value's type, for "must be a number (got a string)". */
static const char *tj_type_name(const cJSON *v)
{
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsBool(v))
        return cJSON_IsTrue(v) ? "true" : "false";
    if (cJSON_IsNull(v))
        return "null";
    if (cJSON_IsArray(v))
        return "an array";
    return "an object";
}

/* True for the fields whose values are text (id, model, origin). */
static bool tj_text_field(int f) { return f == JOBIN_ID || f == JOBIN_MODEL || f == JOBIN_ORIGIN; }

/* Reads one job object into row. Returns 0 or CPN_EINPUT. */
static int tj_object(const char *name, const cJSON *obj, const struct jpos *pos,
                     struct jobin_row *row, char *err, size_t errlen)
{
    int line = jpos_line(pos, obj);
    memset(row, 0, sizeof *row);
    row->line = line > 0 ? (uint32_t)line : 0;
    bool seen[JOBIN_NFIELDS] = {false};
    for (const cJSON *m = obj->child; m; m = m->next) {
        int ml = jpos_line(pos, m);
        const char *key = m->string;
        if (strncmp(key, "x_", 2) == 0)
            continue;
        int f = jobin_field_find(key);
        if (f < 0)
            return cpn_fail(err, errlen, CPN_EINPUT,
                            "%s:%d: %.*s: unknown key (prefix it with x_ to have it ignored)",
                            name, ml, TJ_SHOW_MAX, key);
        struct jobin_val *v = &row->f[f];
        if (seen[f])
            return cpn_fail(err, errlen, CPN_EINPUT, "%s:%d: %s: duplicate key (also line %u)",
                            name, ml, key, (unsigned)v->line);
        seen[f] = true;
        v->line = ml > 0 ? (uint32_t)ml : row->line;
        if (cJSON_IsNull(m)) {
            v->kind = JOBIN_TEXT; /* as an empty CSV cell: absent if optional */
            v->text = "";
        } else if (tj_text_field(f) ? cJSON_IsString(m) : cJSON_IsNumber(m)) {
            v->kind = cJSON_IsString(m) ? JOBIN_TEXT : JOBIN_NUM;
            v->text = m->valuestring;
            v->num = m->valuedouble;
        } else {
            return cpn_fail(err, errlen, CPN_EINPUT, "%s:%d: %s: must be %s (got %s)", name, ml,
                            key, tj_text_field(f) ? "a string" : "a number", tj_type_name(m));
        }
    }
    return CPN_OK;
}

int trace_read_json_buf(const char *name, const char *buf, size_t len, const struct catalog *cat,
                        struct jobset *out, char *err, size_t errlen)
{
    cJSON *root = NULL;
    struct jpos pos = {0};
    int rc = jpos_parse(name, buf, len, &root, &pos, err, errlen);
    if (rc)
        return rc;
    if (!cJSON_IsArray(root)) {
        rc = cpn_fail(err, errlen, CPN_EINPUT,
                      "%s:%d: top level: expected an array of job objects (got %s)", name,
                      jpos_line(&pos, root), tj_type_name(root));
        cJSON_Delete(root);
        jpos_free(&pos);
        return rc;
    }
    struct jobin *b = jobin_create(name, cat);
    size_t i = 0;
    for (const cJSON *el = root->child; el && !rc; el = el->next, i++) {
        if (!cJSON_IsObject(el)) {
            rc = cpn_fail(err, errlen, CPN_EINPUT, "%s:%d: [%zu]: expected a job object (got %s)",
                          name, jpos_line(&pos, el), i, tj_type_name(el));
            break;
        }
        if ((i & 4095) == 0 && jpos_stopping()) {
            rc = jpos_stopped(name, err, errlen);
            break;
        }
        struct jobin_row row;
        rc = tj_object(name, el, &pos, &row, err, errlen);
        if (!rc)
            rc = jobin_add(b, &row, err, errlen);
    }
    cJSON_Delete(root);
    jpos_free(&pos);
    if (rc) {
        jobin_destroy(b);
        return rc;
    }
    char hex[65];
    cpn_sha256_hex(buf, len, hex);
    return jobin_finish(b, hex, out, err, errlen);
}

int trace_read_json(const char *path, const struct catalog *cat, struct jobset *out, char *err,
                    size_t errlen)
{
    char *buf = NULL;
    size_t len = 0;
    int rc = cpn_read_file(path, &buf, &len, err, errlen);
    if (rc)
        return rc;
    rc = trace_read_json_buf(path, buf, len, cat, out, err, errlen);
    free(buf);
    return rc;
}

/* ------------------------------------------------------------------------- */
/* The writer. */

/* Writes s as a JSON string: quotes, backslashes and control bytes escaped, other
 * bytes (UTF-8) as they are. */
static void tj_put_string(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20)
                fprintf(f, "\\u%04x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

static void tj_put_key(FILE *f, int field, bool first)
{
    fputs(first ? "{" : ", ", f);
    tj_put_string(f, jobin_field_name(field));
    fputs(": ", f);
}

static void tj_put_real(FILE *f, double v)
{
    char buf[JOBIN_REAL_BUF];
    jobin_format_real(v, buf);
    fputs(buf, f);
}

int trace_write_json(FILE *f, const struct jobset *js, const struct catalog *cat)
{
    fputs("[\n", f);
    for (size_t i = 0; i < js->n; i++) {
        const struct job *j = &js->v[i];
        fputs("  ", f);
        tj_put_key(f, JOBIN_ID, true);
        tj_put_string(f, jobset_str(js, j->id));
        tj_put_key(f, JOBIN_SUBMIT, false);
        tj_put_real(f, j->submit_s);
        tj_put_key(f, JOBIN_MODEL, false);
        tj_put_string(f, j->model < 0 ? JOBIN_NO_MODEL : catalog_model_name(cat, j->model));
        tj_put_key(f, JOBIN_BATCH, false);
        fprintf(f, "%u", (unsigned)j->batch);
        tj_put_key(f, JOBIN_EPOCHS, false);
        fprintf(f, "%u", (unsigned)j->epochs);
        tj_put_key(f, JOBIN_DATA, false);
        tj_put_real(f, j->data_gib);
        tj_put_key(f, JOBIN_GPUS, false);
        fprintf(f, "%u", (unsigned)j->gpus);
        if (jobset_pods(js, i) > 1) {
            tj_put_key(f, JOBIN_PODS, false);
            fprintf(f, "%u", (unsigned)jobset_pods(js, i));
        }
        tj_put_key(f, JOBIN_CPUS, false);
        tj_put_real(f, j->cpus);
        tj_put_key(f, JOBIN_MEM, false);
        tj_put_real(f, j->mem_gib);
        tj_put_key(f, JOBIN_IMAGE, false);
        tj_put_real(f, j->image_gib);
        tj_put_key(f, JOBIN_ORIGIN, false);
        tj_put_string(f, jobset_str(js, j->origin));
        if (j->duration_s >= 0) {
            tj_put_key(f, JOBIN_DURATION, false);
            tj_put_real(f, j->duration_s);
        }
        if (j->gpu_mem_gib >= 0) {
            tj_put_key(f, JOBIN_GPU_MEM, false);
            tj_put_real(f, j->gpu_mem_gib);
        }
        if (j->samples > 0) {
            tj_put_key(f, JOBIN_SAMPLES, false);
            fprintf(f, "%llu", (unsigned long long)j->samples);
        }
        if (j->cpu_cores_used > 0) {
            tj_put_key(f, JOBIN_CPU_USED, false);
            tj_put_real(f, j->cpu_cores_used);
        }
        fputs(i + 1 < js->n ? "},\n" : "}\n", f);
    }
    fputs("]\n", f);
    return ferror(f) ? CPN_EIO : CPN_OK;
}

/* ------------------------------------------------------------------------- */

/* True when path ends with ext (".json"), ignoring case. */
static bool tj_has_ext(const char *path, const char *ext)
{
    size_t n = strlen(path), e = strlen(ext);
    return n > e && strcasecmp(path + n - e, ext) == 0;
}

bool trace_path_is_yaml(const char *path)
{
    return tj_has_ext(path, ".yaml") || tj_has_ext(path, ".yml");
}

int trace_read_any(const char *path, const struct catalog *cat, struct jobset *out,
                   const volatile sig_atomic_t *stop, char *err, size_t errlen)
{
    if (tj_has_ext(path, ".json"))
        return trace_read_json(path, cat, out, err, errlen);
    if (trace_path_is_yaml(path))
        return k8s_read_jobs(path, cat, out, stderr, stop, err, errlen);
    /* .csv, and any other name: CSV was the only format before, and a pipe such as
     * --jobs <(cpnsim gen ...) has no extension. */
    return trace_read_csv(path, cat, out, stop, err, errlen);
}

int trace_write_any(FILE *f, const char *path, const struct jobset *js, const struct catalog *cat)
{
    return tj_has_ext(path, ".json") ? trace_write_json(f, js, cat) : trace_write_csv(f, js, cat);
}
