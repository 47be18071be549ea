/* The JSON writer (util/json_writer.h): tracks the open containers and whether each needs a
 * comma before its next value; strings go through json_put_string, the tree's one escaper. */
#include "util/json_writer.h"
#include "util/json.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void misuse(const char *what)
{
    fprintf(stderr, "nodescope: json_writer: %s (a bug)\n", what);
    abort();
}

void jw_init(jw_t *w, buf_t *out)
{
    memset(w, 0, sizeof *w);
    w->out = out;
}

/* Before any value: the comma, the key and its colon (in an object), the newline (in a lines
 * array). */
static void value_start(jw_t *w, const char *key)
{
    if (w->depth == 0) {
        if (key) misuse("a key outside any object");
        if (w->values) misuse("a second top-level value");
        return;
    }
    int d = w->depth - 1;
    if (w->kind[d] == '{' && !key) misuse("an object member without a key");
    if (w->kind[d] == '[' && key) misuse("an array element with a key");
    if (w->started[d]) buf_puts(w->out, w->spaced && !w->lines[d] ? ", " : ",");
    if (w->lines[d]) {
        buf_putc(w->out, '\n');
        if (w->indent) buf_puts(w->out, w->indent);
    }
    w->started[d] = 1;
    if (key) {
        json_put_string(w->out, key, strlen(key));
        buf_puts(w->out, w->spaced ? ": " : ":");
    }
}

static void value_end(jw_t *w)
{
    if (w->depth == 0) w->values++;
}

static void begin(jw_t *w, const char *key, char kind, int lines)
{
    value_start(w, key);
    if (w->depth == JW_MAX_DEPTH) misuse("nesting deeper than JW_MAX_DEPTH");
    buf_putc(w->out, kind);
    w->kind[w->depth] = (unsigned char)kind;
    w->started[w->depth] = 0;
    w->lines[w->depth] = (unsigned char)lines;
    w->depth++;
}

void jw_object_begin(jw_t *w, const char *key) { begin(w, key, '{', 0); }
void jw_array_begin(jw_t *w, const char *key) { begin(w, key, '[', 0); }
void jw_array_begin_lines(jw_t *w, const char *key) { begin(w, key, '[', 1); }

void jw_end(jw_t *w)
{
    if (w->depth == 0) misuse("jw_end with nothing open");
    w->depth--;
    buf_putc(w->out, w->kind[w->depth] == '{' ? '}' : ']');
    value_end(w);
}

void jw_newline(jw_t *w) { buf_putc(w->out, '\n'); }

void jw_string_n(jw_t *w, const char *key, const char *s, size_t n)
{
    value_start(w, key);
    json_put_string(w->out, s, n);
    value_end(w);
}

void jw_string(jw_t *w, const char *key, const char *s)
{
    if (!s) jw_null(w, key);
    else jw_string_n(w, key, s, strlen(s));
}

void jw_int(jw_t *w, const char *key, long long v)
{
    value_start(w, key);
    if (v < 0) {
        buf_putc(w->out, '-');
        buf_put_u64(w->out, 0ULL - (unsigned long long)v); /* LLONG_MIN too */
    } else {
        buf_put_u64(w->out, (unsigned long long)v);
    }
    value_end(w);
}

void jw_uint(jw_t *w, const char *key, unsigned long long v)
{
    value_start(w, key);
    buf_put_u64(w->out, v);
    value_end(w);
}

void jw_double(jw_t *w, const char *key, double v)
{
    value_start(w, key);
    if (isfinite(v)) buf_printf(w->out, "%.17g", v);
    else buf_puts(w->out, "null");
    value_end(w);
}

void jw_fixed(jw_t *w, const char *key, int decimals, double v)
{
    value_start(w, key);
    if (isfinite(v)) buf_printf(w->out, "%.*f", decimals, v);
    else buf_puts(w->out, "null");
    value_end(w);
}

void jw_bool(jw_t *w, const char *key, int v)
{
    value_start(w, key);
    buf_puts(w->out, v ? "true" : "false");
    value_end(w);
}

void jw_address(jw_t *w, const char *key, unsigned long long v)
{
    value_start(w, key);
    buf_puts(w->out, "\"0x");
    buf_put_hex(w->out, v);
    buf_putc(w->out, '"');
    value_end(w);
}

void jw_null(jw_t *w, const char *key)
{
    value_start(w, key);
    buf_puts(w->out, "null");
    value_end(w);
}

int jw_complete(const jw_t *w) { return w->depth == 0 && w->values > 0; }
