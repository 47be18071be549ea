/* A function's source and captured variables (postmortem/source.c): the lines of its body from
 * its script's source string (`source`), and the contexts its closure captures (`closure`). */
#ifndef POSTMORTEM_SOURCE_H
#define POSTMORTEM_SOURCE_H
#include "util/buf.h"
#include "v8/v8.h"
#include <stddef.h>
#include <stdint.h>

/* Called for each line: its number in the script and its text (UTF-8, no newline). */
typedef void (*pm_line_fn)(void *ctx, int line_no, const char *text, size_t len);
/* The lines of fi's definition from the script source src: from the line the definition starts on
   until its braces balance (strings and comments are not parsed: a brace in them can end it early
   or late) or max lines. UTF-16 surrogate pairs are joined, a lone one is U+FFFD. 0, or -1 when
   the source string is not wholly readable (the lines read so far were passed). */
int pm_function_lines(v8_t *v, const v8_function_t *fi, uint64_t src, long max, pm_line_fn cb, void *ctx);

/* fn itself when it is a function with a context, else for a SharedFunctionInfo one of its
   closures on the heap (a walk: *was_shared 1). 0, -1 when fn is a SharedFunctionInfo without a
   closure, -2 when it is neither. *context: the closure's context. */
int pm_closure_of(v8_t *v, uint64_t fn, uint64_t *closure, uint64_t *context, int *was_shared);
/* A captured value on one line, as `closure` shows it: util.inspect at depth 0, or when that
   takes more than a line, only its kind and name (address_too: with " @0xADDR" after it). */
void pm_value_line(v8_t *v, uint64_t value, int address_too, buf_t *b);

#endif
