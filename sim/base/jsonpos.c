/* jsonpos: cJSON keeps an object's members and an array's elements in document
 * order (duplicate keys included), so a pre-order walk of the tree meets the values
 * in the order in which they start in the text. After cJSON has accepted a text,
 * a tokenizer that only has to find where each value starts (it trusts cJSON on
 * everything else) scans the text again; pairing the two sequences gives every node
 * its line. The table is sorted by node address and searched with bsearch.
 *
 * The tokenizer mirrors cJSON's lexical rules: every byte <= 0x20 is white space,
 * a UTF-8 byte order mark is skipped, strings end at the first unescaped quote and
 * may hold raw newlines (counted), and a string followed by ':' is a key, not a
 * value. Each pairing also checks that the token's first byte fits the node's type,
 * so a text that is not the one parsed is detected rather than mislabelled. */
#include "jsonpos.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Bytes of text shown on each side of a syntax error. */
#define JPOS_SNIPPET_LEN 16

struct tok {
    const char *s;
    size_t len, i;
    int line;
    int depth; /* open objects and arrays */
    bool done; /* the first value has been read to its end */
};

static bool is_space(char c) { return (unsigned char)c <= ' '; }

static size_t skip_bom(const char *buf, size_t len)
{
    return len >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

static void count_line(struct tok *t)
{
    if (t->line < INT_MAX)
        t->line++;
}

/* Moves past the string whose opening quote is at t->i, counting raw newlines. */
static void skip_string(struct tok *t)
{
    t->i++;
    while (t->i < t->len && t->s[t->i] != '"') {
        if (t->s[t->i] == '\\' && t->i + 1 < t->len)
            t->i++;
        if (t->s[t->i] == '\n')
            count_line(t);
        t->i++;
    }
    if (t->i < t->len)
        t->i++;
}

/* Finds the next value start. Returns its first byte and sets *line, or returns 0
 * when the first value of the text has ended or the text is exhausted. */
static char tok_next(struct tok *t, int *line, size_t *off, size_t *len)
{
    *len = 0;
    while (!t->done && t->i < t->len) {
        char c = t->s[t->i];
        if (c == '\n') {
            count_line(t);
            t->i++;
        } else if (is_space(c) || c == ',' || c == ':') {
            t->i++;
        } else if (c == '}' || c == ']') {
            t->i++;
            if (--t->depth <= 0)
                t->done = true;
        } else if (c == '{' || c == '[') {
            *line = t->line;
            *off = t->i;
            t->i++;
            t->depth++;
            return c;
        } else if (c == '"') {
            int l = t->line;
            size_t at = t->i;
            skip_string(t);
            size_t k = t->i;
            while (k < t->len && is_space(t->s[k]))
                k++;
            if (k < t->len && t->s[k] == ':')
                continue; /* a key */
            if (t->depth == 0)
                t->done = true;
            *line = l;
            *off = at;
            return c;
        } else {
            /* A number or a literal: cJSON accepted it, so it runs to a delimiter. */
            *line = t->line;
            *off = t->i;
            while (t->i < t->len && !is_space(t->s[t->i]) && !strchr(",]}:", t->s[t->i]))
                t->i++;
            *len = t->i - *off;
            if (t->depth == 0)
                t->done = true;
            return c;
        }
    }
    return 0;
}

/* Whether a token starting with byte k can be the value of item. */
static bool kind_fits(char k, const cJSON *item)
{
    switch (k) {
    case 0: return false;
    case '{': return cJSON_IsObject(item);
    case '[': return cJSON_IsArray(item);
    case '"': return cJSON_IsString(item);
    case 't':
    case 'f': return cJSON_IsBool(item);
    case 'n': return cJSON_IsNull(item);
    default: return cJSON_IsNumber(item);
    }
}

/* Pairs item and its descendants, in pre-order, with the next value starts.
 * Returns false at the first disagreement. */
static bool walk(const cJSON *item, struct tok *t, struct jpos *pos, size_t *cap)
{
    int line = 0;
    size_t off = 0, len = 0;
    if (!kind_fits(tok_next(t, &line, &off, &len), item))
        return false;
    if ((pos->n & 0xffff) == 0 && jpos_stopping()) /* a million jobs' walk: 4 s */
        return false;
    cpn_grow((void **)&pos->ents, cap, pos->n + 1, sizeof *pos->ents);
    pos->ents[pos->n++] = (struct jpos_ent){.item = item, .line = line, .off = off, .len = len};
    for (const cJSON *ch = item->child; ch; ch = ch->next)
        if (!walk(ch, t, pos, cap))
            return false;
    return true;
}

static int ent_cmp(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t)((const struct jpos_ent *)a)->item;
    uintptr_t y = (uintptr_t)((const struct jpos_ent *)b)->item;
    return (x > y) - (x < y);
}

int jpos_build(struct jpos *pos, const cJSON *root, const char *buf, size_t len)
{
    struct tok t = {.s = buf, .len = len, .i = skip_bom(buf, len), .line = 1};
    struct jpos p = {0};
    size_t cap = 0;
    bool ok = root && walk(root, &t, &p, &cap);
    if (!ok) {
        free(p.ents);
        pos->ents = NULL;
        pos->n = 0;
        return CPN_EINPUT;
    }
    qsort(p.ents, p.n, sizeof *p.ents, ent_cmp);
    *pos = p;
    return CPN_OK;
}

void jpos_free(struct jpos *pos)
{
    if (!pos)
        return;
    free(pos->ents);
    pos->ents = NULL;
    pos->n = 0;
}

static const struct jpos_ent *find_ent(const struct jpos *pos, const cJSON *item)
{
    if (!pos || !pos->n || !item)
        return NULL;
    struct jpos_ent key = {.item = item};
    return bsearch(&key, pos->ents, pos->n, sizeof *pos->ents, ent_cmp);
}

int jpos_line(const struct jpos *pos, const cJSON *item)
{
    const struct jpos_ent *e = find_ent(pos, item);
    return e ? e->line : 0;
}

const char *jpos_number_text(const struct jpos *pos, const cJSON *item, const char *buf,
                             size_t *n)
{
    const struct jpos_ent *e = find_ent(pos, item);
    if (!e || !cJSON_IsNumber(item) || e->len == 0)
        return NULL;
    *n = e->len;
    return buf + e->off;
}

int jpos_line_at(const char *buf, size_t len, const char *at)
{
    if (!buf || !at)
        return 0;
    uintptr_t b = (uintptr_t)buf, a = (uintptr_t)at;
    if (a < b || a - b > len)
        return 0;
    size_t n = (size_t)(a - b);
    int line = 1;
    for (const char *p = buf; (p = memchr(p, '\n', n - (size_t)(p - buf))) != NULL; p++)
        if (line < INT_MAX)
            line++;
    return line;
}

/* Copies the text around at (JPOS_SNIPPET_LEN bytes on each side at most, within
 * its line) into out, with unprintable bytes shown as '?'. cJSON's error pointer
 * may sit just after the offending byte, so the text before it matters too. */
static void snippet(const char *buf, size_t len, const char *at, char out[2 * JPOS_SNIPPET_LEN + 1])
{
    size_t pos = (size_t)(at - buf), from = pos, to = pos, n = 0;
    while (from > 0 && pos - from < JPOS_SNIPPET_LEN && buf[from - 1] != '\n' &&
           buf[from - 1] != '\r')
        from--;
    while (to < len && to - pos < JPOS_SNIPPET_LEN && buf[to] != '\n' && buf[to] != '\r')
        to++;
    for (size_t i = from; i < to; i++) {
        unsigned char c = (unsigned char)buf[i];
        out[n++] = c >= ' ' && c < 0x7f ? (char)c : '?';
    }
    out[n] = '\0';
}

/* Whether buf[0..n) is a number as RFC 8259 writes one:
 * -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)? */
static bool json_number_ok(const char *b, size_t n)
{
    size_t i = 0;
    if (i < n && b[i] == '-')
        i++;
    if (i >= n || b[i] < '0' || b[i] > '9')
        return false;
    if (b[i] == '0')
        i++;
    else
        while (i < n && b[i] >= '0' && b[i] <= '9')
            i++;
    if (i < n && b[i] == '.') {
        size_t d = ++i;
        while (i < n && b[i] >= '0' && b[i] <= '9')
            i++;
        if (i == d)
            return false;
    }
    if (i < n && (b[i] == 'e' || b[i] == 'E')) {
        i++;
        if (i < n && (b[i] == '+' || b[i] == '-'))
            i++;
        size_t d = i;
        while (i < n && b[i] >= '0' && b[i] <= '9')
            i++;
        if (i == d)
            return false;
    }
    return i == n;
}

/* Finds the first value cJSON would accept but change: a number outside RFC 8259's
 * grammar or too small for a double (non-zero digits read as 0; one too large reads as
 * infinity, which every reader refuses with its field's name), or a
 * "\u0000" escape (cJSON ends the string there). Returns its position, with what is
 * wrong in why, or NULL. Strings are skipped whole; everything else that starts a
 * token with '-', a digit, '.', or '+' is a number token. */
static const char *first_changed_value(const char *buf, size_t len, const char **why)
{
    for (size_t i = 0; i < len;) {
        char c = buf[i];
        if (c == '"') {
            for (i++; i < len && buf[i] != '"'; i++) {
                if (buf[i] != '\\')
                    continue;
                if (i + 5 < len && buf[i + 1] == 'u' && memcmp(buf + i + 2, "0000", 4) == 0) {
                    *why = "a string holds \\u0000 (a NUL, which would cut it short)";
                    return buf + i;
                }
                i++; /* the escaped byte */
            }
            i++;
        } else if (c == '-' || c == '+' || c == '.' || (c >= '0' && c <= '9')) {
            size_t j = i;
            while (j < len && !is_space(buf[j]) && !strchr(",]}:", buf[j]))
                j++;
            if (!json_number_ok(buf + i, j - i)) {
                *why = "not a JSON number (no leading zeros, '+', hex, or bare '.')";
                return buf + i;
            }
            /* strtod wants a terminated copy (the text need not end at len); it reads a
             * number that rounds to 0 but is not 0 as 0 with ERANGE. */
            char small[64], *tmp = j - i < sizeof small ? small : cpn_malloc(j - i + 1);
            memcpy(tmp, buf + i, j - i);
            tmp[j - i] = '\0';
            errno = 0;
            bool underflow = strtod(tmp, NULL) == 0 && errno == ERANGE;
            if (tmp != small)
                free(tmp);
            if (underflow) {
                *why = "a number too small for a double (it would be read as 0)";
                return buf + i;
            }
            i = j;
        } else {
            i++;
        }
    }
    return NULL;
}

static const volatile sig_atomic_t *parse_stop; /* jpos_set_stop's flag */

void jpos_set_stop(const volatile sig_atomic_t *stop) { parse_stop = stop; }

bool jpos_stopping(void) { return parse_stop && *parse_stop; }

int jpos_stopped(const char *name, char *err, size_t errlen)
{
    return cpn_fail(err, errlen, CPN_ESTOP, "%s: stopped by signal %d while reading it", name,
                    parse_stop ? (int)*parse_stop : 0);
}

/* cJSON's allocator while a stop flag is given: it fails once the flag is set. */
static void *stop_malloc(size_t n) { return jpos_stopping() ? NULL : malloc(n); }

/* The nesting depth of arrays and objects open at `at` (strings skipped), to tell a
 * parse that cJSON gave up for its nesting limit from a syntax error: cJSON reports
 * both alike. */
static size_t depth_at(const char *buf, const char *at)
{
    size_t depth = 0;
    bool in_string = false;
    for (const char *p = buf; p < at; p++) {
        if (in_string) {
            if (*p == '\\' && p + 1 < at)
                p++;
            else if (*p == '"')
                in_string = false;
        } else if (*p == '"') {
            in_string = true;
        } else if (*p == '[' || *p == '{') {
            depth++;
        } else if ((*p == ']' || *p == '}') && depth > 0) {
            depth--;
        }
    }
    return depth;
}

int jpos_parse(const char *name, const char *buf, size_t len, cJSON **root, struct jpos *pos,
               char *err, size_t errlen)
{
    if (!name)
        name = "<input>";
    size_t i = skip_bom(buf, len);
    while (i < len && is_space(buf[i]))
        i++;
    if (i == len)
        return cpn_fail(err, errlen, CPN_EINPUT, "%s:1: empty file", name);
    /* JSON text never holds a NUL byte, and cJSON would end a string at one silently. */
    const char *nul = memchr(buf, '\0', len);
    if (nul)
        return cpn_fail(err, errlen, CPN_EINPUT, "%s:%d: a NUL byte (JSON text has none)", name,
                        jpos_line_at(buf, len, nul));

    const char *end = NULL;
    if (parse_stop)
        cJSON_InitHooks(&(cJSON_Hooks){.malloc_fn = stop_malloc, .free_fn = free});
    cJSON *r = cJSON_ParseWithLengthOpts(buf, len, &end, 0);
    if (parse_stop)
        cJSON_InitHooks(NULL); /* malloc, free and realloc again */
    if (jpos_stopping()) {
        cJSON_Delete(r);
        return jpos_stopped(name, err, errlen);
    }
    const char *why = NULL, *changed = r ? first_changed_value(buf, len, &why) : NULL;
    if (changed) {
        cJSON_Delete(r);
        char near[2 * JPOS_SNIPPET_LEN + 1] = "";
        snippet(buf, len, changed, near);
        return cpn_fail(err, errlen, CPN_EINPUT, "%s:%d: %s: '%s'", name,
                        jpos_line_at(buf, len, changed), why, near);
    }
    if (!r) {
        int line = jpos_line_at(buf, len, end);
        if (end && end < buf + len && (*end == '[' || *end == '{') &&
            depth_at(buf, end) >= CJSON_NESTING_LIMIT)
            return cpn_fail(err, errlen, CPN_EINPUT,
                            "%s:%d: JSON nested deeper than %d levels of arrays and objects, the "
                            "most cpnsim reads",
                            name, line > 0 ? line : 1, CJSON_NESTING_LIMIT);
        char near[2 * JPOS_SNIPPET_LEN + 1] = "";
        if (line > 0)
            snippet(buf, len, end, near);
        if (near[0])
            return cpn_fail(err, errlen, CPN_EINPUT, "%s:%d: JSON syntax error near '%s'", name,
                            line > 0 ? line : 1, near);
        return cpn_fail(err, errlen, CPN_EINPUT, "%s:%d: JSON syntax error", name,
                        line > 0 ? line : 1);
    }
    size_t rest = end ? (size_t)(end - buf) : len;
    while (rest < len && is_space(buf[rest]))
        rest++;
    if (rest < len) {
        cJSON_Delete(r);
        return cpn_fail(err, errlen, CPN_EINPUT, "%s:%d: unexpected text after the JSON value",
                        name, jpos_line_at(buf, len, buf + rest));
    }
    /* A disagreement would be a tokenizer bug; the document is still valid, and its
     * messages then merely lack line numbers. */
    (void)jpos_build(pos, r, buf, len);
    if (jpos_stopping()) {
        cJSON_Delete(r);
        jpos_free(pos);
        return jpos_stopped(name, err, errlen);
    }
    *root = r;
    return CPN_OK;
}

int jpos_vfail(char *err, size_t errlen, const char *name, const struct jpos *pos,
               const cJSON *at, const char *field, const char *fmt, va_list ap)
{
    char msg[CPN_ERR_LEN];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return cpn_fail(err, errlen, CPN_EINPUT, "%s:%d: %s: %s", name, jpos_line(pos, at), field,
                    msg);
}
