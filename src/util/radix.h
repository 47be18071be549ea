/* LSD radix sort of 64-bit keys carrying 32-bit values; stable, O(n), and
 * skips byte positions where every key agrees (addresses share high bytes).
 * Used where qsort's comparator calls dominate (million-entry perf maps). */
#ifndef UTIL_RADIX_H
#define UTIL_RADIX_H
#include <stddef.h>
#include <stdint.h>

/* Sorts keys ascending, permuting vals alongside (vals may be NULL). */
void radix_sort_u64(uint64_t *keys, uint32_t *vals, size_t n);

#endif
