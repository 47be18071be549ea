/* Text for SVG/XML output: whatever bytes a frame name holds (markup, quotes,
 * invalid UTF-8, control characters) come out as well-formed, inert text. */
#ifndef FORMATS_SVG_TEXT_H
#define FORMATS_SVG_TEXT_H
#include "util/buf.h"
#include <stddef.h>

/* XML-escapes s[0..n): & < > " ' as entities, invalid UTF-8 and control characters as U+FFFD. */
void svg_escape(buf_t *b, const char *s, size_t n);
/* The same, cut to at most max_chars characters, ending in ".." when cut; nothing when fewer than 3 fit. */
void svg_escape_fit(buf_t *b, const char *s, size_t n, double max_chars);
/* A JSON string literal, safe inside XML text (also escapes < > &). */
void svg_json_string(buf_t *b, const char *s);
/* The same for s[0..n), which may hold any bytes (invalid UTF-8 becomes U+FFFD). */
void svg_json_string_n(buf_t *b, const char *s, size_t n);
/* Characters in s[0..n) (code points; an invalid byte counts as one). */
size_t svg_char_count(const char *s, size_t n);
/* Shorter labels for a C++ symbol, each appended to its buffer: `noargs` without template
 * arguments, parameter lists, (anonymous namespace) and trailing qualifiers
 * ("v8::internal::Heap::CollectGarbage"), `last2` its last two ::-components
 * ("Heap::CollectGarbage"), `last1` the last one ("CollectGarbage"). A buffer stays empty
 * when its form is no shorter than the one before it (or than s). */
void svg_cxx_short(const char *s, size_t n, buf_t *noargs, buf_t *last2, buf_t *last1);

#endif
