#include "util/buf.h"
#include "util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void buf_reserve(buf_t *b, size_t extra)
{
    size_t need = b->len + extra + 1;
    if (need > b->cap) XGROW(b->data, b->cap, need);
}

void buf_append(buf_t *b, const void *p, size_t n)
{
    buf_reserve(b, n);
    memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = 0;
}

void buf_puts(buf_t *b, const char *s) { buf_append(b, s, strlen(s)); }

size_t utf8_encode(uint32_t cp, char o[4])
{
    if (cp < 0x80) return o[0] = (char)cp, 1;
    if (cp < 0x800) return o[0] = (char)(0xC0 | cp >> 6), o[1] = (char)(0x80 | (cp & 63)), 2;
    if (cp < 0x10000)
        return o[0] = (char)(0xE0 | cp >> 12), o[1] = (char)(0x80 | (cp >> 6 & 63)), o[2] = (char)(0x80 | (cp & 63)), 3;
    o[0] = (char)(0xF0 | cp >> 18), o[1] = (char)(0x80 | (cp >> 12 & 63)), o[2] = (char)(0x80 | (cp >> 6 & 63));
    o[3] = (char)(0x80 | (cp & 63));
    return 4;
}

void buf_put_utf8(buf_t *b, uint32_t cp)
{
    char o[4];
    buf_append(b, o, utf8_encode(cp, o));
}

void buf_putc(buf_t *b, char c)
{
    buf_reserve(b, 1);
    b->data[b->len++] = c;
    b->data[b->len] = 0;
}

void buf_vprintf(buf_t *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0) return;
    buf_reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void buf_printf(buf_t *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void buf_clear(buf_t *b)
{
    b->len = 0;
    if (b->data) b->data[0] = 0;
}

void buf_free(buf_t *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

void buf_put_u64(buf_t *b, unsigned long long v)
{
    char tmp[24];
    int i = 24;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    buf_append(b, tmp + i, (size_t)(24 - i));
}

void buf_put_hex(buf_t *b, unsigned long long v)
{
    char tmp[16];
    int i = 16;
    do {
        tmp[--i] = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    buf_append(b, tmp + i, (size_t)(16 - i));
}

void buf_put_weight(buf_t *b, double w)
{
    if (w >= 0 && w < 1.8e19 && w == floor(w)) {
        buf_put_u64(b, (unsigned long long)w);
    } else {
        buf_printf(b, "%.6g", w);
    }
}
