/* perf script --inline: addr2line's inlined frames (perf_inline.c), for perf_frames.c. */
#ifndef FORMATS_PERF_INLINE_H
#define FORMATS_PERF_INLINE_H
#include "util/buf.h"
#include <stddef.h>

/* --inline: appends "a;b;c" (root-most first) for the address pc (hex text) in the ELF file mod,
 * or nothing when addr2line does not know; with_context adds ":file:line" to each. Runs addr2line. */
void perf_addr2line(const char *pc, size_t pc_len, const char *mod, size_t mod_len, int with_context, buf_t *out);

#endif
