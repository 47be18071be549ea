/* Bulk reads that bypass input_t's line buffer: for readers that split the input
 * into large blocks themselves (parallel perf script folding). */
#ifndef UTIL_INPUT_BULK_H
#define UTIL_INPUT_BULK_H
#include "util/input.h"

/* Up to n bytes into dst: first whatever input_t has buffered (peeked bytes), then
 * straight from the file descriptor, without the intermediate copy of input_read.
 * Returns the count, 0 at end of input, -1 on error (message printed). */
ssize_t input_read_bulk(input_t *in, void *dst, size_t n);

#endif
