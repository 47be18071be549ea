/* The graph's chunk index (v8/): address -> node in O(1). Per 256 KiB chunk of the heap a bitmap
 * of object starts (a bit a word) with the rank of each bitmap word, and the index of the chunk's
 * first node; the node at an address is its chunk's first plus the bits set before its own. The
 * lookups are inline here: resolving every edge of a census counts bits by the million. Built from
 * a graph's nodes (graph_index_build), for a built graph or one read from the cache file. */
#ifndef V8_GRAPH_INDEX_H
#define V8_GRAPH_INDEX_H
#include "v8/graph_internal.h"

#define CHUNK_WORDS (CHUNK_SIZE / 8 / 64)
enum { RO_NONE, RO_ALL, RO_SOME }; /* chunk_ro: its nodes on V8's read-only pages */

/* The bits set in x: without -mpopcnt, __builtin_popcountll is a call (a tenth of a census) */
static inline uint32_t pop64(uint64_t x)
{
#ifdef __POPCNT__
    return (uint32_t)__builtin_popcountll(x);
#else
    x = x - ((x >> 1) & 0x5555555555555555ull);
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
    return (uint32_t)((x * 0x0101010101010101ull) >> 56);
#endif
}

/* Through the chunk index: the node that starts at word w of indexed chunk k, V8_NO_NODE when none.
   hw (a constant where it is inlined): count with the popcnt instruction, in a function compiled
   for it (GRAPH_POPCNT, graph_refs.c). */
static inline __attribute__((always_inline)) uint32_t node_in_chunk_by(const v8_graph_t *g, uint32_t k, uint32_t w,
                                                                       int hw)
{
    const graph_index_word_t *x = &g->index[(size_t)k * CHUNK_WORDS + (w >> 6)];
    if (!((x->bits >> (w & 63)) & 1)) return V8_NO_NODE;
    uint64_t below = (w & 63) ? x->bits & ((1ull << (w & 63)) - 1) : 0;
    return g->chunk_first[k] + x->rank + (hw ? (uint32_t)__builtin_popcountll(below) : pop64(below));
}
static inline uint32_t node_in_chunk(const v8_graph_t *g, uint32_t k, uint32_t w)
{
    return node_in_chunk_by(g, k, w, 0);
}

/* Through the chunk index (built): the indexed chunk k of the chunk at address chunk; 0 when none. */
static inline int find_chunk(const v8_graph_t *g, uint64_t chunk, uint32_t *k)
{
    if (g->chunk_flat) {
        uint64_t f = (chunk - g->flat_base) / CHUNK_SIZE;
        if (chunk < g->flat_base || f >= g->nflat || !(*k = g->chunk_flat[f])) return 0;
    } else if (!u64map_get(&g->chunk_index, chunk, k)) {
        return 0;
    }
    (*k)--;
    return 1;
}

/* Through the chunk index (built): the node at addr (tagged), V8_NO_NODE when none; *chunk_k the
 * index of its chunk. */
static inline uint32_t find_indexed(const v8_graph_t *g, uint64_t addr, uint32_t *chunk_k)
{
    uint64_t a = addr - 1, chunk = a & ~(uint64_t)(CHUNK_SIZE - 1);
    if (!find_chunk(g, chunk, chunk_k)) return V8_NO_NODE;
    return node_in_chunk(g, *chunk_k, (uint32_t)((a - chunk) / 8));
}

/* The index of g's nodes (in address order; a cache file's may not be: checked), with chunk_ro. */
void graph_index_build(v8_graph_t *g);
void graph_index_free(v8_graph_t *g);

#endif
