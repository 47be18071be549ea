/* The references the walk finds (v8/): every object's tagged slots, scanned as the walk reads its
 * page (graph_refs_scan_walked) or, for a heap of too many chunks, after the walk
 * (graph_refs_scan).
 *
 * A slot's word names its target by address, and which node that is can be known only once every
 * node is: so the walk stores a compact address instead, the target chunk's ordinal among the
 * heap's chunks and the word in it (ORD_SHIFT bits: 32 bits in all, for up to MAX_ORD chunks,
 * 32 GiB), and resolve_edges turns it into the node's index (or drops it: no object starts there,
 * or one of V8's read-only space). Scanning as the walk goes reads each page once for its objects
 * and their references: a scan of its own read the whole heap a second time (a fifth of a live
 * process's census). A heap of more chunks is scanned after the walk, through the chunk index. */
#ifndef V8_GRAPH_REFS_H
#define V8_GRAPH_REFS_H
#include "v8/graph_internal.h"

#define ORD_SHIFT 15 /* CHUNK_SIZE / 8 words */
#define MAX_ORD (1u << (32 - ORD_SHIFT))
#define ORD_READ_ONLY 0x80000000u /* in chunk numbers: a chunk of V8's read-only space (no edge goes there) */
#define ORD_RECENT 256

/* The heap's chunks numbered, for compact addresses: address -> ordinal + 1, with
   ORD_READ_ONLY for a chunk of V8's read-only space. A reuse state keeps its numbers from one
   build to the next: the references it keeps name chunks by them (graph_reuse.c). */
typedef struct {
    u64map_t ord;
    uint64_t *chunk; /* ordinal -> address */
    uint32_t n;
    size_t cap;
} chunk_numbers_t;

/* One build's references: the graph they go into, the heap's chunks numbered (own_num, or the
   reuse state's), and whether compact addresses are stored (else nodes: the chunk index built). */
typedef struct {
    v8_graph_t *g;
    v8_edges_t *e;
    uint64_t *buf;                     /* an object's words read by themselves (past what the walk read) */
    chunk_numbers_t own_num, *num;     /* the heap's chunks: own_num, or the reuse state's */
    uint64_t recent_chunk[ORD_RECENT]; /* num's recent answers (1: none, never a chunk) */
    uint32_t recent_ord[ORD_RECENT];
    uint64_t heap_lo, heap_hi; /* the chunks' span */
    int compact;               /* targets stored as compact addresses (else as nodes: the chunk index is built) */
} graph_refs_t;

/* Before the walk: the heap's chunks numbered into num (chunks numbered before keep their
   numbers; NULL: f's own numbers), and their span; compact addresses unless there are too many. */
void graph_refs_begin(graph_refs_t *f, v8_graph_t *g, chunk_numbers_t *num);
/* Node i as the walk read it (bytes, avail of them): its references appended to g's edges. */
void graph_refs_scan_walked(graph_refs_t *f, uint32_t i, const unsigned char *bytes, uint64_t avail);
/* After the walk (its nodes sorted, the chunk index built): every node's references, a chunk's
   objects read at a time. */
void graph_refs_scan(graph_refs_t *f, int show_progress);
/* The compact addresses of the edges (g->first, tgt, slot) made node indices, into first, tgt and
   slot (g's own: in place); the edges to no node dropped. Their count. */
uint64_t graph_refs_resolve(const graph_refs_t *f, uint64_t *first, uint32_t *tgt, uint32_t *slot);
void graph_refs_end(graph_refs_t *f);

#endif
