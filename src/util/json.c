#include "util/json.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_STRING ((size_t)256 << 20)

void json_init(json_t *j, input_t *in)
{
    memset(j, 0, sizeof *j);
    j->in = in;
    j->line = 1;
}

/* Gives the bytes read back to the input and looks at the next window; 0 at the end. */
static int refill(json_t *j)
{
    if (j->win) input_skip(j->in, (size_t)(j->p - j->win));
    const char *w;
    size_t n = input_peek(j->in, &w, 65536);
    j->win = j->p = w;
    j->e = w + n;
    return n > 0;
}

void json_free(json_t *j)
{
    if (j->win) input_skip(j->in, (size_t)(j->p - j->win));
    j->win = j->p = j->e = NULL;
    buf_free(&j->str);
}

void json_fail(json_t *j, const char *msg)
{
    if (!j->failed && j->quiet) snprintf(j->message, sizeof j->message, "line %ld: %s", j->line, msg);
    else if (!j->failed) diag_error(j->in->name, j->line, "%s", msg);
    j->failed = 1;
}

static inline int peekc(json_t *j)
{
    if (j->p == j->e && !refill(j)) return -1;
    return (unsigned char)*j->p;
}

static inline int getc_(json_t *j)
{
    int c = peekc(j);
    if (c < 0) return -1;
    j->p++;
    if (c == '\n') j->line++;
    return c;
}

static int skip_ws(json_t *j)
{
    for (;;) {
        if (j->p == j->e && !refill(j)) return -1;
        while (j->p < j->e && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r' || *j->p == '\t')) {
            if (*j->p == '\n') j->line++;
            j->p++;
        }
        if (j->p < j->e) return (unsigned char)*j->p;
    }
}

static int hex4(json_t *j, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        int c = getc_(j);
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0) return -1;
        v = v << 4 | (unsigned)d;
    }
    *out = v;
    return 0;
}

static int read_string(json_t *j)
{
    /* allocate on first use so an empty string is "" (never a NULL data pointer) */
    buf_clear(&j->str);
    buf_putc(&j->str, 0);
    j->str.len = 0;
    for (;;) {
        /* copy runs of plain characters at once */
        const char *run = j->p;
        while (j->p < j->e && *j->p != '"' && *j->p != '\\' && (unsigned char)*j->p >= 0x20) j->p++;
        if (j->p > run) {
            buf_append(&j->str, run, (size_t)(j->p - run));
            if (j->str.len > MAX_STRING) return json_fail(j, "string longer than 256 MiB"), -1;
            if (j->p == j->e) continue; /* the window ended inside the string */
        }
        int c = getc_(j);
        if (c < 0) return json_fail(j, "unterminated string (truncated file?)"), -1;
        if (c == '"') return 0;
        if (c < 0x20) return json_fail(j, "control character inside a string"), -1;
        if (c != '\\') {
            buf_putc(&j->str, (char)c);
            continue;
        }
        c = getc_(j);
        unsigned cp;
        switch (c) {
        case '"':
        case '\\':
        case '/': buf_putc(&j->str, (char)c); break;
        case 'b': buf_putc(&j->str, '\b'); break;
        case 'f': buf_putc(&j->str, '\f'); break;
        case 'n': buf_putc(&j->str, '\n'); break;
        case 'r': buf_putc(&j->str, '\r'); break;
        case 't': buf_putc(&j->str, '\t'); break;
        case 'u':
            if (hex4(j, &cp)) return json_fail(j, "bad \\u escape"), -1;
            if (cp >= 0xD800 && cp <= 0xDBFF && peekc(j) == '\\') {
                unsigned lo;
                getc_(j);
                if (getc_(j) != 'u' || hex4(j, &lo)) return json_fail(j, "bad \\u escape"), -1;
                if (lo >= 0xDC00 && lo <= 0xDFFF) cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                else buf_put_utf8(&j->str, 0xFFFD), cp = lo;
            }
            if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD; /* lone surrogate */
            buf_put_utf8(&j->str, cp);
            break;
        default: return json_fail(j, "bad escape in a string"), -1;
        }
    }
}

/* The short integer (-?[0-9]{1,15}: exact in a double) that s[0..n) starts with: its length, and
 * its value in *out; 0 when there is none or it has more digits. */
static size_t short_int(const char *s, size_t n, double *out)
{
    size_t neg = n > 0 && s[0] == '-', k = neg;
    uint64_t v = 0;
    for (; k < n && s[k] >= '0' && s[k] <= '9'; k++) {
        if (k - neg == 15) return 0;
        v = v * 10 + (uint64_t)(s[k] - '0');
    }
    if (k == neg) return 0;
    *out = neg ? -(double)v : (double)v;
    return k;
}

static int read_number(json_t *j, int first)
{
    char tmp[64];
    size_t n = 0;
    tmp[n++] = (char)first;
    for (;;) {
        if (j->p == j->e && !refill(j)) break;
        char c = *j->p;
        if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) break;
        if (n >= sizeof tmp - 1) return json_fail(j, "number too long"), -1;
        tmp[n++] = c;
        j->p++;
    }
    tmp[n] = 0;
    /* fast path: short integers (ids, samples, time deltas are nearly all of a profile) */
    if (short_int(tmp, n, &j->num) == n) return 0;
    char *end;
    j->num = strtod(tmp, &end);
    if (*end || !isfinite(j->num)) return json_fail(j, "malformed number"), -1;
    return 0;
}

static int literal(json_t *j, const char *rest)
{
    for (const char *r = rest; *r; r++)
        if (getc_(j) != *r) return json_fail(j, "unexpected word; expected true, false or null"), -1;
    return 0;
}

json_token_t json_next(json_t *j)
{
    if (j->failed) return JSON_ERROR;
    int c = skip_ws(j);
    if (c < 0) {
        if (j->depth) return json_fail(j, "unexpected end of file (truncated JSON?)"), JSON_ERROR;
        return JSON_EOF;
    }
    int in_obj = j->depth && j->stack[j->depth - 1] == '{';
    /* closers */
    if (c == '}' || c == ']') {
        if (!j->depth || j->stack[j->depth - 1] != (c == '}' ? '{' : '[') || j->expect_value)
            return json_fail(j, "unbalanced or misplaced bracket"), JSON_ERROR;
        getc_(j);
        j->depth--;
        j->need_comma = 1;
        return c == '}' ? JSON_OBJECT_END : JSON_ARRAY_END;
    }
    if (j->need_comma && j->depth) {
        if (c != ',') return json_fail(j, in_obj ? "expected ',' or '}'" : "expected ',' or ']'"), JSON_ERROR;
        getc_(j);
        c = skip_ws(j);
        if (c < 0) return json_fail(j, "unexpected end of file (truncated JSON?)"), JSON_ERROR;
        j->need_comma = 0;
    } else if (j->need_comma && !j->depth) {
        return json_fail(j, "text after the end of the JSON value"), JSON_ERROR;
    }
    if (in_obj && !j->expect_value) {
        if (c != '"') return json_fail(j, "expected a member name in quotes"), JSON_ERROR;
        getc_(j);
        if (read_string(j)) return JSON_ERROR;
        if (skip_ws(j) != ':') return json_fail(j, "expected ':' after a member name"), JSON_ERROR;
        getc_(j);
        j->expect_value = 1;
        return JSON_KEY;
    }
    j->expect_value = 0;
    getc_(j);
    json_token_t t;
    switch (c) {
    case '{':
    case '[':
        if (j->depth >= JSON_MAX_DEPTH) return json_fail(j, "nesting deeper than 512 levels"), JSON_ERROR;
        j->stack[j->depth++] = (unsigned char)c;
        j->need_comma = 0;
        return c == '{' ? JSON_OBJECT_START : JSON_ARRAY_START;
    case '"': t = read_string(j) ? JSON_ERROR : JSON_STRING; break;
    case 't': t = literal(j, "rue") ? JSON_ERROR : JSON_TRUE; break;
    case 'f': t = literal(j, "alse") ? JSON_ERROR : JSON_FALSE; break;
    case 'n': t = literal(j, "ull") ? JSON_ERROR : JSON_NULL; break;
    default:
        if (c == '-' || (c >= '0' && c <= '9')) t = read_number(j, c) ? JSON_ERROR : JSON_NUMBER;
        else return json_fail(j, "unexpected character; this is not JSON"), JSON_ERROR;
    }
    j->need_comma = 1;
    return t;
}

/* In an array: a [','] short integer read in place, when the window surely holds it and what
 * follows (profiles are millions of these); 0 leaves anything else to json_next. */
static int take_short_int(json_t *j, double *out)
{
    const char *q = j->p;
    if (j->e - q < 32) return 0; /* near the window's end: json_next refills */
    if (j->need_comma) {
        if (*q != ',') return 0;
        q++;
    }
    size_t k = short_int(q, (size_t)(j->e - q), out);
    if (!k || q[k] == '.' || q[k] == 'e' || q[k] == 'E') return 0;
    j->p = q + k;
    j->need_comma = 1;
    return 1;
}

json_token_t json_read_numbers(json_t *j, double **arr, size_t *n, size_t *cap)
{
    if (j->failed) return JSON_ERROR;
    if (!j->depth || j->stack[j->depth - 1] != '[') return json_fail(j, "expected an array"), JSON_ERROR;
    for (;;) {
        double d;
        if (!take_short_int(j, &d)) {
            json_token_t t = json_next(j);
            if (t != JSON_NUMBER) return t;
            d = j->num;
        }
        if (*n == *cap) XGROW(*arr, *cap, *n + 1);
        (*arr)[(*n)++] = d;
    }
}

int json_skip(json_t *j, json_token_t first)
{
    if (first != JSON_OBJECT_START && first != JSON_ARRAY_START) return first == JSON_ERROR ? -1 : 0;
    int target = j->depth - 1;
    while (j->depth > target) {
        json_token_t t = json_next(j);
        if (t == JSON_ERROR || t == JSON_EOF) return -1;
    }
    return 0;
}

void json_put_string(buf_t *b, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    buf_putc(b, '"');
    for (size_t i = 0; i < n; i++) {
        unsigned c = p[i];
        if (c == '"' || c == '\\') buf_putc(b, '\\'), buf_putc(b, (char)c);
        else if (c == '\n') buf_puts(b, "\\n");
        else if (c == '\t') buf_puts(b, "\\t");
        else if (c < 0x20 || c == 0x7f) buf_printf(b, "\\u%04x", c);
        else if (c < 0x80) buf_putc(b, (char)c);
        else {
            /* copy valid UTF-8 sequences, replace anything else */
            size_t len = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
            int ok = len && i + len <= n;
            for (size_t k = 1; ok && k < len; k++) ok = (p[i + k] & 0xC0) == 0x80;
            if (ok) buf_append(b, p + i, len), i += len - 1;
            else buf_puts(b, "\\ufffd");
        }
    }
    buf_putc(b, '"');
}
