/* Reusing the last build (v8/): watch --heap builds a graph each census from a tracked copy, and between two censuses a program
 * writes few of its heap's pages (0.2% in bench/watch_heap.sh's). A V8 page's walk gives its nodes
 * and their references from its bytes and from what the walk's map lookups answered for its
 * objects' maps (type, size, prototype bit): where not a byte of the page changed
 * (target_copy_unchanged) and none of the maps it names is answered otherwise now (each build looks
 * them up again: a map dies, slack tracking shrinks one), its nodes and compact references are
 * copied from the last build's arrays instead. Compact addresses name chunks by number: the reuse
 * state keeps the numbers, so a kept reference still means the same address; resolving references
 * to nodes is done afresh. A page is not reused when its walk depended on more: a large object
 * (scanned past its page), a resync or an object ended by a search for the next map (what it
 * passed over must still be no map), a module record or global object (noted for the roots).
 * What is kept: the last build's nodes (lent to its graph until freed), each node's first
 * reference as an offset in its page's, and its compact references (the graph gets its resolved
 * ones in arrays of its own). */
#ifndef V8_GRAPH_REUSE_H
#define V8_GRAPH_REUSE_H
#include "v8/graph_refs.h"

/* The reuse state's part in one build (graph_build.c holds it; zero when it builds without): the
   graph being built, whether what r kept may be taken, and the page being walked. */
typedef struct {
    v8_graph_reuse_t *r;
    v8_graph_t *g;
    int take;
    struct kept_page *pg; /* the page being walked, for graph_reuse_page_done (NULL: none) */
    int pg_large, pg_resync_after;
    uint64_t pg_noted;      /* what the build had noted beyond pages' bytes when the page began */
    uint64_t pg_recent[32]; /* the page's maps noted last, direct-mapped (0: none) */
} graph_reuse_walk_t;

/* Before the walk: whether what r kept may be taken (w->take); the chunk numbers the build's
   references use (r's, which it keeps). */
chunk_numbers_t *graph_reuse_begin(graph_reuse_walk_t *w, v8_graph_reuse_t *r, v8_graph_t *g);
/* Once the heap's chunks are numbered: a kept page for each. */
void graph_reuse_numbered(graph_reuse_walk_t *w);
/* Before the walk reads a page: 1 when its nodes and compact references were taken from what was
   kept (the page is not walked). noted: the build's count of what a page's walk depends on beyond
   the page's bytes (resyncs, module records, global objects), rising as the walk notes them. */
int graph_reuse_page(graph_reuse_walk_t *w, uint64_t area_start, uint64_t area_end, int large, uint64_t noted);
/* The walk of the page being walked (w->pg): object o's map noted. */
void graph_reuse_note(graph_reuse_walk_t *w, const v8_heap_object_t *o);
/* The page walked: where its nodes and references went, and whether it may be taken next time. */
void graph_reuse_page_done(graph_reuse_walk_t *w, uint64_t noted);
/* After the walk: the references resolved (graph_refs_resolve); where usable (all found as the
   walk went, in address order), the compact ones and the nodes kept for the next build. */
void graph_reuse_end(graph_reuse_walk_t *w, const graph_refs_t *f, int usable);

#endif
