/* Hashing and two small hash tables used everywhere:
 *   - strpool: interns byte strings; equal strings get the same stable pointer,
 *     so later code compares names by pointer.
 *   - u64map: open addressing map from a 64-bit key to a 32-bit value. */
#ifndef UTIL_HASH_H
#define UTIL_HASH_H
#include <stddef.h>
#include <stdint.h>

uint64_t hash_bytes(const void *p, size_t n);
static inline uint64_t hash_u64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

/* The slot of key in a direct-mapped table of 2^bits slots (Fibonacci hashing: the product's top
 * bits; addresses that differ only in their low bits spread). The small per-address answer caches
 * (symbols, CFI, code look-up misses, bytecode owners) index with it. */
static inline size_t hash_slot(uint64_t key, unsigned bits)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> (64 - bits));
}

typedef struct strpool strpool_t;
strpool_t *strpool_new(void);
void strpool_free(strpool_t *sp);
/* The interned copy (NUL-terminated) of s[0..n). */
const char *strpool_intern(strpool_t *sp, const char *s, size_t n);
const char *strpool_cstr(strpool_t *sp, const char *s);
size_t strpool_count(const strpool_t *sp);

/* A slot holds key, value and whether it is used together: a lookup touches one cache line
 * (three parallel arrays cost up to three misses; in a deep perf script's folding the maps
 * are far larger than the cache). */
typedef struct {
    uint64_t key;
    uint32_t val;
    uint32_t used;
} u64map_slot_t;

typedef struct {
    u64map_slot_t *slots;
    size_t cap, count;
} u64map_t;

void u64map_init(u64map_t *m);
void u64map_free(u64map_t *m);
/* Room for n keys without rehashing. */
void u64map_reserve(u64map_t *m, size_t n);
/* Returns a pointer to the value slot for key; *found tells whether it existed
 * (a new slot's value is 0). The pointer is valid until the next insert. */
uint32_t *u64map_upsert(u64map_t *m, uint64_t key, int *found);
/* Returns 1 and sets *val when key exists. */
int u64map_get(const u64map_t *m, uint64_t key, uint32_t *val);

#endif
