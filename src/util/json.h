/* A streaming JSON pull parser over an input_t: tokens one at a time, so a
 * 500 MB profile is read with memory for what the reader keeps, not a DOM of
 * the whole file. Nesting depth and string length are bounded; errors name the
 * file, line and what was expected. Also the string escaping writers need. */
#ifndef UTIL_JSON_H
#define UTIL_JSON_H
#include "util/buf.h"
#include "util/input.h"
#include <stddef.h>

typedef enum {
    JSON_ERROR = -1,
    JSON_EOF = 0,
    JSON_OBJECT_START,
    JSON_OBJECT_END,
    JSON_ARRAY_START,
    JSON_ARRAY_END,
    JSON_KEY,    /* an object member name; text in j->str */
    JSON_STRING, /* text in j->str (UTF-8, unescaped, NUL-terminated; may contain NULs: use str.len) */
    JSON_NUMBER, /* value in j->num */
    JSON_TRUE,
    JSON_FALSE,
    JSON_NULL,
} json_token_t;

#define JSON_MAX_DEPTH 512

typedef struct {
    input_t *in;
    /* the parser scans the input's buffer in place: [p, e) is unread, [win, p) read but not yet
     * given back to the input (input_skip) */
    const char *win, *p, *e;
    buf_t str;
    double num;
    int depth;
    unsigned char stack[JSON_MAX_DEPTH]; /* '{' or '[' per level */
    int expect_value;                    /* inside an object, after a key */
    int need_comma;                      /* a value was completed at this level */
    long line;
    int failed;
    int quiet;         /* set by the caller: json_fail keeps the message in message[] instead of printing it */
    char message[160]; /* with quiet: "line N: what" of the first failure */
} json_t;

void json_init(json_t *j, input_t *in);
void json_free(json_t *j);
/* The next token; on JSON_ERROR a message naming in->name and the line was printed. */
json_token_t json_next(json_t *j);
/* In an array whose '[' was just returned: appends its numbers to *arr (growing *cap, an
 * XGROW array) until a token that is not a number, which it returns: JSON_ARRAY_END at the
 * array's end, JSON_ERROR (reported) on malformed JSON, or another token the caller reports. */
json_token_t json_read_numbers(json_t *j, double **arr, size_t *n, size_t *cap);
/* Skips the value whose first token was just returned (no-op for scalars). 0 or -1. */
int json_skip(json_t *j, json_token_t first);
/* Prints "FILE:LINE: error: MSG" and puts the parser in the failed state. */
void json_fail(json_t *j, const char *msg);

/* Appends s[0..n) as a JSON string literal (with quotes), escaping as JSON requires;
 * invalid UTF-8 becomes U+FFFD. */
void json_put_string(buf_t *b, const char *s, size_t n);

#endif
