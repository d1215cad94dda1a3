/* jsonpos: line numbers for the values of a cJSON tree, so that readers can name
 * "file:line: field" in their errors although cJSON records no positions. It parses
 * with cJSON, then scans the same text with a small tokenizer and pairs each value's
 * line with the tree's nodes in pre-order. It does not validate any schema. */
#ifndef CPN_JSONPOS_H
#define CPN_JSONPOS_H

#include <cjson/cJSON.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

struct jpos_ent {
    const cJSON *item;
    int line;
    size_t off, len; /* where the value's text starts in the buffer, and for a number or
                      * a literal its length (0 for strings, objects and arrays) */
};

/* A table from tree node to the line (1-based) where its value starts, sorted by
 * node address. A zeroed struct is an empty table. */
struct jpos {
    struct jpos_ent *ents;
    size_t n;
};

/* Parses buf[0..len) (which need not be NUL-terminated) as one JSON value and
 * builds its line table. name is used in messages. Returns 0 with *root owned by
 * the caller (cJSON_Delete) and *pos filled (jpos_free); or CPN_EINPUT with
 * "name:LINE: what is wrong" in err for an empty text, a syntax error or text after
 * the value, leaving *root and *pos untouched. It is stricter than cJSON where cJSON
 * would change a value in silence: a NUL byte, a number RFC 8259 does not allow (a
 * leading zero, "1.", ".5", "+1", hex), one too small for a double (1e-400 would
 * read as 0), and "\u0000" in a string (it would end the string there) are refused. */
int jpos_parse(const char *name, const char *buf, size_t len, cJSON **root, struct jpos *pos,
               char *err, size_t errlen);

/* A flag set by a signal handler (NULL: none) that ends every later jpos_parse as soon
 * as it is set, with CPN_ESTOP and "name: stopped by signal N while reading it": while
 * it is given, cJSON allocates through a hook that fails once the flag is set, and
 * cJSON gives up a parse whose allocation fails. A run sets it for its reading. */
void jpos_set_stop(const volatile sig_atomic_t *stop);
/* Whether the flag given to jpos_set_stop is set (a caller's long pass over a tree),
 * and the CPN_ESTOP such a pass then returns, its message naming file and signal. */
bool jpos_stopping(void);
int jpos_stopped(const char *name, char *err, size_t errlen);

/* Builds the table of a tree that cJSON parsed from buf[0..len) (text after the
 * first value is ignored). Returns 0; or CPN_EINPUT when text and tree disagree
 * (not the text that was parsed), with an empty table so that every line is 0. */
int jpos_build(struct jpos *pos, const cJSON *root, const char *buf, size_t len);
void jpos_free(struct jpos *pos); /* leaves an empty table; a zeroed table is fine */

/* Line where item's value starts, or 0 when the item is not in the table (a node
 * added to the tree after the table was built). */
int jpos_line(const struct jpos *pos, const cJSON *item);

/* The text of a number item as written (not NUL-terminated: *n bytes), from the buffer
 * that was parsed; NULL when the item is not a number in the table. cJSON keeps
 * numbers as doubles, which cannot hold every whole number above 2^53 (seeds). */
const char *jpos_number_text(const struct jpos *pos, const cJSON *item, const char *buf,
                             size_t *n);

/* Line (1-based) of a position in buf[0..len]; 0 when at lies outside it. Turns a
 * cJSON parse failure (cJSON_GetErrorPtr, or the return_parse_end of
 * cJSON_ParseWithLengthOpts) into a line number. */
int jpos_line_at(const char *buf, size_t len, const char *at);

/* Writes "name:LINE: field: message" into err, LINE being at's (0 when unknown) and
 * the message fmt formatted with ap, and returns CPN_EINPUT: the error of a reader
 * whose fields are named by a path alone. The caller owns ap (va_end). */
int jpos_vfail(char *err, size_t errlen, const char *name, const struct jpos *pos,
               const cJSON *at, const char *field, const char *fmt, va_list ap)
    __attribute__((format(printf, 7, 0)));

#endif
