/* A JSON writer into a buf_t, in the manner of git's json-writer: begin and end objects and
 * arrays, write members (with a key) or elements (key NULL); the writer puts the commas and
 * the colons, and escapes strings. Compact output (no spaces) unless the caller sets `spaced`
 * (", " between values and ": " after keys, as `core objects --json`); an array begun with
 * jw_array_begin_lines puts a newline and `indent` before each element (one row a line, as
 * `top --json`).
 *
 * Values:
 *   strings   json_put_string's escaping (util/json.h), the one the whole tree uses, so output
 *             moved onto the writer keeps its bytes: '"', '\\', "\n" and "\t" escaped by name,
 *             other control characters and DEL as \u00XX, UTF-8 sequences copied, and each byte
 *             that starts no complete sequence (a stray continuation byte, the lead of a truncated
 *             sequence, 0xC0, 0xC1) written as \ufffd, one per byte. (It checks the shape of a
 *             sequence, not its value: overlong forms, surrogates and leads 0xF5-0xFF followed by
 *             continuation bytes are copied; making it strict changes output, so it is left to a
 *             change of its own.)
 *   numbers   integers exactly; doubles as "%.17g" (they read back the same), or with a fixed
 *             number of decimals (jw_fixed); JSON has no NaN or infinity: those are written null.
 * Misuse (a member without a key, an element with one, jw_end with nothing open, nesting
 * deeper than JW_MAX_DEPTH) is a bug in the caller: the program stops with a message. */
#ifndef UTIL_JSON_WRITER_H
#define UTIL_JSON_WRITER_H
#include "util/buf.h"
#include <stddef.h>

#define JW_MAX_DEPTH 512

typedef struct {
    buf_t *out;                          /* appended to */
    int depth;                           /* containers open */
    unsigned char kind[JW_MAX_DEPTH];    /* '{' or '[' per level */
    unsigned char started[JW_MAX_DEPTH]; /* a value already written at this level: the next needs a comma */
    unsigned char lines[JW_MAX_DEPTH];   /* this array puts a newline before each element */
    int values;                          /* complete values written at the top level */
    /* layout, set by the caller after jw_init (both off by default) */
    int spaced;         /* ", " and ": " instead of "," and ":" */
    const char *indent; /* after the newline before each element of a lines array */
} jw_t;

void jw_init(jw_t *w, buf_t *out);

/* key: the member's name inside an object; NULL for an array's element or the top-level value. */
void jw_object_begin(jw_t *w, const char *key);
void jw_array_begin(jw_t *w, const char *key);
void jw_array_begin_lines(jw_t *w, const char *key);
/* Closes the innermost open object or array. */
void jw_end(jw_t *w);
/* A newline where it stands (whitespace between tokens: the document means the same), e.g.
 * before the "]" of a lines array whose text ends on a line of its own. */
void jw_newline(jw_t *w);

void jw_string(jw_t *w, const char *key, const char *s); /* s NULL: null */
void jw_string_n(jw_t *w, const char *key, const char *s, size_t n);
void jw_int(jw_t *w, const char *key, long long v);
void jw_uint(jw_t *w, const char *key, unsigned long long v);
void jw_double(jw_t *w, const char *key, double v);
void jw_fixed(jw_t *w, const char *key, int decimals, double v);
void jw_bool(jw_t *w, const char *key, int v);
/* An address as the JSON of every command writes it: the string "0x" and lower-case hex, no
 * padding ("0x1f2e3d"). */
void jw_address(jw_t *w, const char *key, unsigned long long v);
void jw_null(jw_t *w, const char *key);

/* 1 when every container begun was ended and at least one value was written. */
int jw_complete(const jw_t *w);

#endif
