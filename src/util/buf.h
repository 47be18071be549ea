/* Growable byte buffer, always NUL-terminated after data[len]. */
#ifndef UTIL_BUF_H
#define UTIL_BUF_H
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    char *data;
    size_t len, cap;
} buf_t;

void buf_reserve(buf_t *b, size_t extra);
void buf_append(buf_t *b, const void *p, size_t n);
void buf_puts(buf_t *b, const char *s);
void buf_putc(buf_t *b, char c);
void buf_printf(buf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void buf_vprintf(buf_t *b, const char *fmt, va_list ap);
void buf_clear(buf_t *b);
void buf_free(buf_t *b);
/* Append a decimal; faster than printf on hot paths (writers of large outputs). */
void buf_put_u64(buf_t *b, unsigned long long v);
/* Lower-case hex without 0x. */
void buf_put_hex(buf_t *b, unsigned long long v);
/* Append a weight: integral values without a fraction, others with up to 6 significant decimals. */
void buf_put_weight(buf_t *b, double w);
/* A code point as UTF-8 (1-4 bytes, no checks: a lone surrogate is encoded as it is). */
size_t utf8_encode(uint32_t cp, char out[4]);
void buf_put_utf8(buf_t *b, uint32_t cp);

#endif
