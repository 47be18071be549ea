/* The chunk index's build and release (graph_index.h: what it is, and its lookups). */
#include "v8/graph_index.h"
#include "util/bigmem.h"
#include "util/xalloc.h"
#include <stdlib.h>

#define FLAT_CHUNKS (1u << 22) /* a 1 TiB span: 16 MiB of index */

void graph_index_build(v8_graph_t *g)
{
    u64map_init(&g->chunk_index);
    size_t cap = 0;
    uint64_t last = 1;
    for (size_t i = 0; i < g->n; i++) {
        uint64_t chunk = (g->nodes[i].addr - 1) & ~(uint64_t)(CHUNK_SIZE - 1);
        if (chunk == last) continue; /* in address order: a chunk's nodes are together */
        last = chunk;
        int found;
        uint32_t *slot = u64map_upsert(&g->chunk_index, chunk, &found);
        if (!found) {
            if (g->nchunks == cap) {
                cap = cap ? cap * 2 : 256;
                g->chunk_first = big_realloc(g->chunk_first, cap * sizeof *g->chunk_first);
            }
            g->chunk_first[g->nchunks] = (uint32_t)i;
            *slot = (uint32_t)++g->nchunks;
        }
    }
    g->index = graph_big(g->nchunks * CHUNK_WORDS * sizeof *g->index, 1);
    uint64_t prev = 1;
    uint32_t k = 0;
    for (size_t i = 0; i < g->n; i++) { /* in address order: a chunk's nodes are together */
        uint64_t a = g->nodes[i].addr - 1, chunk = a & ~(uint64_t)(CHUNK_SIZE - 1);
        if (chunk != prev) u64map_get(&g->chunk_index, chunk, &k), prev = chunk;
        uint64_t w = (a - chunk) / 8;
        g->index[(size_t)(k - 1) * CHUNK_WORDS + (w >> 6)].bits |= 1ull << (w & 63);
    }
    if (g->n) {
        uint64_t lo = (g->nodes[0].addr - 1) & ~(uint64_t)(CHUNK_SIZE - 1);
        uint64_t span = (((g->nodes[g->n - 1].addr - 1) & ~(uint64_t)(CHUNK_SIZE - 1)) - lo) / CHUNK_SIZE + 1;
        if (span <= FLAT_CHUNKS) {
            g->flat_base = lo;
            g->nflat = (size_t)span;
            g->chunk_flat = graph_big(g->nflat * sizeof *g->chunk_flat, 1);
            for (size_t c = 0; c < g->nchunks; c++) {
                uint64_t f = (((g->nodes[g->chunk_first[c]].addr - 1) & ~(uint64_t)(CHUNK_SIZE - 1)) - lo) / CHUNK_SIZE;
                if (f < g->nflat) g->chunk_flat[f] = (uint32_t)c + 1; /* a cache file's nodes may be out of order */
            }
        }
    }
    g->chunk_ro = xcalloc(g->nchunks ? g->nchunks : 1, 1);
    for (size_t c = 0; c < g->nchunks; c++) {
        size_t end = c + 1 < g->nchunks ? g->chunk_first[c + 1] : g->n, ro = 0, i;
        for (i = g->chunk_first[c]; i < end && i < g->n; i++) ro += (g->nodes[i].flags & V8_NODE_READ_ONLY) != 0;
        size_t count = i > g->chunk_first[c] ? i - g->chunk_first[c] : 0;
        g->chunk_ro[c] = !count ? RO_SOME : !ro ? RO_NONE : ro == count ? RO_ALL : RO_SOME; /* not sure: per node */
    }
    for (size_t c = 0; c < g->nchunks; c++) {
        uint32_t r = 0;
        for (size_t j = 0; j < CHUNK_WORDS; j++) {
            g->index[c * CHUNK_WORDS + j].rank = r;
            r += pop64(g->index[c * CHUNK_WORDS + j].bits);
        }
    }
}

void graph_index_free(v8_graph_t *g)
{
    u64map_free(&g->chunk_index);
    graph_unbig(g->index);
    graph_unbig(g->chunk_flat);
    free(g->chunk_ro);
    g->chunk_flat = NULL;
    g->chunk_ro = NULL;
    g->nflat = 0;
    free(g->chunk_first);
    g->nchunks = 0;
}
