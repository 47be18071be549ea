#include "formats/svg_text.h"
#include <string.h>

static const char replacement[] = "\xEF\xBF\xBD";

/* Length of the valid UTF-8 sequence at s (1..4), or 0 when invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80) return 1;
    if (c >= 0xC2 && c <= 0xDF) len = 2, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF) len = 3, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4) len = 4, min = 0x10000;
    else return 0;
    if (n < len) return 0;
    unsigned cp = c & (0x7F >> len);
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
    /* U+FFFE/U+FFFF are not XML characters */
    if (cp == 0xFFFE || cp == 0xFFFF) return 0;
    return len;
}

/* Appends one character from s; returns the bytes consumed. */
static size_t put_char(buf_t *b, const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    switch (c) {
    case '&': buf_puts(b, "&amp;"); return 1;
    case '<': buf_puts(b, "&lt;"); return 1;
    case '>': buf_puts(b, "&gt;"); return 1;
    case '"': buf_puts(b, "&quot;"); return 1;
    case '\'': buf_puts(b, "&#39;"); return 1;
    case '\t': buf_putc(b, ' '); return 1;
    default: break;
    }
    if (c < 0x20 || c == 0x7F) {
        buf_puts(b, replacement);
        return 1;
    }
    size_t len = utf8_len(s, n);
    if (!len) {
        buf_puts(b, replacement);
        return 1;
    }
    buf_append(b, s, len);
    return len;
}

void svg_escape(buf_t *b, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) i += put_char(b, p + i, n - i);
}

void svg_escape_fit(buf_t *b, const char *s, size_t n, double max_chars)
{
    if (max_chars < 3) return;
    const unsigned char *p = (const unsigned char *)s;
    size_t chars = 0, i = 0;
    for (size_t k = 0; k < n; chars++) {
        size_t len = utf8_len(p + k, n - k);
        k += len ? len : 1;
    }
    if ((double)chars <= max_chars) {
        svg_escape(b, s, n);
        return;
    }
    size_t keep = (size_t)max_chars - 2;
    for (size_t c = 0; c < keep && i < n; c++) i += put_char(b, p + i, n - i);
    buf_puts(b, "..");
}

void svg_json_string_n(buf_t *b, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    buf_putc(b, '"');
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        if (c == '"' || c == '\\') buf_printf(b, "\\%c", c), i++;
        else if (c < 0x20 || c == 0x7f || c == '<' || c == '>' || c == '&')
            buf_printf(b, "\\u%04x", c < 0x20 || c == 0x7f ? 0xfffd : c), i++;
        else if (c < 0x80) buf_putc(b, (char)c), i++;
        else {
            size_t len = utf8_len(p + i, n - i);
            if (len) buf_append(b, p + i, len), i += len;
            else buf_puts(b, "\\ufffd"), i++;
        }
    }
    buf_putc(b, '"');
}

void svg_json_string(buf_t *b, const char *s) { svg_json_string_n(b, s, strlen(s)); }

size_t svg_char_count(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t chars = 0;
    for (size_t k = 0; k < n; chars++) {
        size_t len = utf8_len(p + k, n - k);
        k += len ? len : 1;
    }
    return chars;
}

static int is_ident(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

void svg_cxx_short(const char *s, size_t n, buf_t *noargs, buf_t *last2, buf_t *last1)
{
    static const char anon[] = "(anonymous namespace)";
    buf_t t = {0};
    int angle = 0, paren = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!angle && !paren && c == '(' && n - i >= sizeof anon - 1 && !memcmp(s + i, anon, sizeof anon - 1)) {
            i += sizeof anon - 2;
            if (i + 2 < n && s[i + 1] == ':' && s[i + 2] == ':') i += 2;
            continue;
        }
        /* operator(), operator<, operator<<=, operator->: the operator's characters are its name */
        if (!angle && !paren && t.len >= 8 && !memcmp(t.data + t.len - 8, "operator", 8) &&
            (t.len == 8 || !is_ident(t.data[t.len - 9]))) {
            if (c == '(' && i + 1 < n && s[i + 1] == ')') {
                buf_puts(&t, "()");
                i++;
                continue;
            }
            if (strchr("<>=!+-*/%^&|~[],", c)) {
                while (i < n && s[i] != '(' && strchr("<>=!+-*/%^&|~[], ", s[i])) buf_putc(&t, s[i++]);
                i--;
                continue;
            }
        }
        if (c == '<') angle++;
        else if (c == '>' && angle) angle--;
        else if (c == '(' && !angle) paren++;
        else if (c == ')' && paren) paren--;
        else if (!angle && !paren) buf_putc(&t, c);
    }
    /* trailing qualifiers of a member function: " const", " &&", " volatile" */
    for (;;) {
        while (t.len && (t.data[t.len - 1] == ' ' || t.data[t.len - 1] == '&')) t.len--;
        if (t.len >= 6 && !memcmp(t.data + t.len - 6, " const", 6)) t.len -= 6;
        else if (t.len >= 9 && !memcmp(t.data + t.len - 9, " volatile", 9)) t.len -= 9;
        else break;
    }
    if (t.len && t.len < n) buf_append(noargs, t.data, t.len);
    size_t prev = t.len && t.len < n ? t.len : n;
    /* the last two and the last ::-separated components */
    size_t c1 = t.len, c2 = t.len; /* starts of the last and the second last component */
    int seps = 0;
    for (size_t i = t.len; i-- > 1 && seps < 2;)
        if (t.data[i] == ':' && t.data[i - 1] == ':') {
            if (seps++ == 0) c1 = i + 1;
            else c2 = i + 1;
            i--;
        }
    if (seps >= 1) {
        if (seps == 2 && t.len - c2 < prev) {
            buf_append(last2, t.data + c2, t.len - c2);
            prev = t.len - c2;
        }
        if (t.len - c1 < prev && t.len > c1) buf_append(last1, t.data + c1, t.len - c1);
    }
    buf_free(&t);
}
