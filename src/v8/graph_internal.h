/* The object graph's representation, shared by its files (v8/): graph_build.c builds it (with
 * graph_refs.c, graph_reuse.c and graph_roots.c), heap_graph.c answers lookups and retainers (through
 * graph_index.c's chunk index), graph_paths.c computes paths, reachability and dominators,
 * graph_cache.c saves it to a file and maps it back. Nothing outside v8/ includes this. */
#ifndef V8_GRAPH_INTERNAL_H
#define V8_GRAPH_INTERNAL_H
#include "util/hash.h"
#include "v8/graph.h"
#include "v8/v8_internal.h"

#define CHUNK_SIZE (256u * 1024u)
#define MAX_NODES 0xfffffff0u
#define MAX_SCAN_WORDS (1ull << 28) /* 2 GiB of slots in one object: more is corruption */
#define MAX_STACK_BYTES (64ull << 20)
#define MAX_NATIVE_BYTES (8ull << 30) /* native memory scanned for roots */

#define MAX_SCANS 8
typedef struct {
    uint32_t node;
    size_t n;
    uint32_t *holders, *slots;
} rscan_t;

/* The chunk index's word: 64 words of a chunk, a bit each where an object starts, and the rank
   of its first bit (a lookup reads one cache line, not a bitmap's and a rank array's). */
typedef struct {
    uint64_t bits;
    uint32_t rank; /* the bits set in the chunk before this word's */
    uint32_t unused;
} graph_index_word_t;

struct v8_graph {
    v8_t *v;
    v8_heap_t *h;
    v8_graph_node_t *nodes;
    size_t n, cap;
    uint64_t *first; /* n + 1: node i's edges are [first[i], first[i+1]) */
    uint32_t *tgt, *slot;
    uint64_t nedges, capedges;
    size_t nodes_bytes, edges_bytes; /* reserved (big_map) for nodes, and for tgt and slot each */
    uint64_t lo, hi;                 /* address range of the nodes */
    /* address -> node in O(1): per 256 KiB chunk a bitmap of object starts (one bit a word) with
       the rank of each bitmap word, and the index of the chunk's first node */
    u64map_t chunk_index;      /* chunk address -> k + 1 */
    graph_index_word_t *index; /* CHUNK_SIZE / 8 / 64 a chunk */
    uint32_t *chunk_first;
    size_t nchunks;
    uint32_t *chunk_flat; /* where the chunks span at most FLAT_CHUNKS: chunk k + 1 by (address -
                              flat_base) / CHUNK_SIZE, without chunk_index's hashing */
    uint64_t flat_base;
    size_t nflat;
    uint8_t *chunk_ro;   /* per chunk: none, all or some of its nodes read-only (graph_index.h) */
    uint64_t lookups;    /* v8_graph_is_object calls: a cached graph builds the index when many */
    uint64_t pass_chunk; /* v8_graph_pass: the chunk being read, and how many it left */
    uint64_t pass_moves;
    /* reverse edges: by a scan for the first queries, then an index */
    rscan_t scans[MAX_SCANS];
    size_t nscans;
    uint64_t *rfirst;
    uint32_t *rsrc, *rslot;
    /* roots */
    v8_graph_root_t *roots;
    size_t nroots, caproots;
    strpool_t *names;
    /* paths, on demand */
    uint32_t *dist, *parent, *pslot;
    uint8_t *level;
    /* dominators, on demand (dominators.c) */
    uint32_t *idom;
    uint64_t *retained;
    /* loaded from a cache file: the arrays above (but idom, retained) point into this mapping */
    void *map;
    size_t map_len;
    int trimmed;            /* v8_graph_trim: nodes and roots only */
    uint8_t *root_used;     /* without paths: v8_graph_root_used of each root */
    uint64_t *reach;        /* with root_used: the nodes reached, a bit each (v8_graph_reachable) */
    uint64_t *global_reach; /* built: what the global object, modules and script scopes reach (the
                               first level's marking, graph_roots.c; NULL from a cache file) */
    v8_graph_t **lent_to;   /* built reusing: its nodes are the reuse state's (graph_reuse.c), which
                               holds this graph at *lent_to, cleared when the graph is freed */
};

/* The graph's big arrays (graph_mem.c): memory a graph freed is kept for the next one (the kernel
 * would zero fresh pages again; watch --heap builds a graph every census). graph_big: bytes,
 * zeroed when zero; graph_big_grow: bigger, contents kept; graph_unbig: keeps it for the next
 * graph_big (or free()s what graph_big did not give). */
void *graph_big(size_t bytes, int zero);
void *graph_big_grow(void *p, size_t bytes);
void graph_unbig(void *p);
/* With NODESCOPE_GRAPH_TRACE set: the page faults, CPU time and memory mapped anew so far, on
 * stderr, at the phases of a graph's build (where a census's CPU goes). */
void graph_trace(const char *phase);
/* graph_roots.c: the roots of a graph whose nodes and edges are built (modules: the candidate
 * Module records the walk noted, by address). */
void graph_find_roots(v8_graph_t *g, uint64_t *modules, size_t nmodules);
/* heap_graph.c: a core's pages of [addr, +len) given back to the kernel once scanned (a core is
 * mmap'ed: they are read again from the file if needed). */
void graph_release_range(target_t *t, uint64_t addr, uint64_t len);
/* heap_graph.c, while a graph is built: room for more nodes than g->n (nodes and first grown
 * together; 0 when past MAX_NODES), and for more edges than g->nedges (past the reservation: a heap
 * of overlapping objects). */
int graph_room_for_nodes(v8_graph_t *g, size_t more);
void graph_room_for_edges(v8_graph_t *g, uint64_t more);

/* Shortest paths from the roots (graph_paths.c): dist, parent, pslot, level. */
void graph_compute_paths(v8_graph_t *g);

#endif
