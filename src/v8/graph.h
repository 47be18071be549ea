/* The object graph of one heap (v8/heap_graph.c and the graph_*.c beside it, v8/dominators.c):
 * nodes, references, roots, paths, dominators, the cache file, and the pages a census's build
 * takes from the last. Its own header, apart from v8.h: what v8/ answers of one object needs none
 * of it; postmortem/'s whole-heap answers include it. (graph_internal.h is its private half.)
 * CONTRACT (owned by v8/, consumed by postmortem/ and cli/). */
#ifndef V8_GRAPH_H
#define V8_GRAPH_H
#include "v8/v8.h"

/* The graph: every object of one heap walk (nodes sorted by address), and the references
 * between them from a scan of every tagged slot (CSR arrays of node indices; a slot's word index
 * names the edge later, through v8_edges_of). Roots by preference: the main global object, module
 * records, thread stacks, then native memory (global and persistent handles, the isolate's roots).
 * Built in one pass without per-object allocation; memory ~16 bytes a node, ~8 an edge. */
typedef struct v8_graph v8_graph_t;
typedef struct {
    uint64_t addr; /* tagged */
    uint32_t size; /* shallow size (capped at 4 GiB) */
    uint16_t type;
    uint16_t flags; /* V8_NODE_* */
} v8_graph_node_t;
enum { V8_NODE_LARGE = 1, V8_NODE_PROTOTYPE = 2, V8_NODE_JS = 4, V8_NODE_READ_ONLY = 8 };
typedef enum { V8_ROOT_GLOBAL, V8_ROOT_MODULE, V8_ROOT_STACK, V8_ROOT_NATIVE, V8_ROOT_LEVELS } v8_root_level_t;
/* the names of the native roots that are V8's snapshot object caches (every element one root) */
#define V8_ROOT_STARTUP_CACHE "(Startup object cache)"
#define V8_ROOT_SHAREABLE_CACHE "(Shareable object cache)"
typedef struct {
    uint32_t node;
    v8_root_level_t level;
    const char *name; /* "globalThis", "module /x/app.js", "(stack of thread 1)", "(native: libnode.so)" */
} v8_graph_root_t;
#define V8_NO_NODE UINT32_MAX
/* Builds the graph of h's heap; progress on stderr when show_progress. NULL (message printed)
 * when there is no heap. */
v8_graph_t *v8_graph_build(v8_t *v, v8_heap_t *h, int show_progress);
/* What one graph's build keeps for the next build of the same process's tracked copy (watch
 * --heap: a graph a census): each V8 page's nodes and references, kept where no byte of the page
 * changed since (target_copy_unchanged) and every map its objects name is what it was, are taken
 * as they were instead of walked again. It keeps the last graph's nodes and its references before
 * they were resolved to nodes: 24 bytes a node and 8 a reference. A graph built with it must be
 * freed before the next build with it. */
typedef struct v8_graph_reuse v8_graph_reuse_t;
v8_graph_reuse_t *v8_graph_reuse_new(void);
/* Its graph (if not freed yet) keeps its nodes. */
void v8_graph_reuse_free(v8_graph_reuse_t *r);
/* v8_graph_build, taking what r kept where it may, and keeping this graph's for the next. */
v8_graph_t *v8_graph_build_reusing(v8_t *v, v8_heap_t *h, int show_progress, v8_graph_reuse_t *r);
/* Of the last build with r: pages taken from what was kept, pages walked, why nothing kept could be
 * taken (NULL: it could, or nothing was kept); and the bytes r keeps. */
void v8_graph_reuse_stats(const v8_graph_reuse_t *r, size_t *reused, size_t *walked, uint64_t *kept_bytes,
                          const char **why);
/* 0 when a and b have the same nodes, references and roots; else -1 and the first difference
 * appended to why (may be NULL): a graph built reusing a kept one against one built afresh. */
int v8_graph_same(const v8_graph_t *a, const v8_graph_t *b, buf_t *why);
void v8_graph_free(v8_graph_t *g);
/* 0 when the graph's invariants hold (nodes in address order, edge offsets and targets, roots,
 * paths one step apart); else -1 and what is wrong appended to why (may be NULL). */
int v8_graph_check(const v8_graph_t *g, buf_t *why);
size_t v8_graph_node_count(const v8_graph_t *g);
uint64_t v8_graph_edge_count(const v8_graph_t *g);
const v8_graph_node_t *v8_graph_node(const v8_graph_t *g, uint32_t i);
/* Node i as a heap object (without its map, or the bytes a walk read): for v8_edges_of. */
v8_heap_object_t v8_graph_object(const v8_graph_t *g, uint32_t i);
/* The node whose object starts at addr (tagged or not), or V8_NO_NODE. */
uint32_t v8_graph_find(const v8_graph_t *g, uint64_t addr);
/* Node i's edges: targets[k] and slots[k] (the slot's word index in the object; bit 31: weak). */
#define V8_SLOT_WEAK 0x80000000u
size_t v8_graph_edges(const v8_graph_t *g, uint32_t i, const uint32_t **targets, const uint32_t **slots);
/* The nodes holding a reference to i (reverse edges, built on first use): holders[k] with the
 * slot in the holder. */
size_t v8_graph_retainers(v8_graph_t *g, uint32_t i, const uint32_t **holders, const uint32_t **slots);
size_t v8_graph_root_count(const v8_graph_t *g);
const v8_graph_root_t *v8_graph_root(const v8_graph_t *g, size_t k);
/* 1 when root k is how its node is first reached, by a breadth-first marking level by level (as
 * v8_graph_distance's first pass, without its detour around V8's caches): a root found in native
 * memory pointing at an object the global object already reaches adds nothing, and would make the
 * synthetic root dominate everything it points at. Dominators and snapshots use only these. */
int v8_graph_root_used(v8_graph_t *g, size_t k);
/* For a pass over every node in order that reads their memory (naming edges): call with each node
 * index; a core's pages of the chunk the pass has left are handed back (the core is mmap'ed, and
 * the whole heap would otherwise stay resident). i = V8_NO_NODE at the end. */
void v8_graph_pass(v8_graph_t *g, uint32_t i);
/* Hands back the core's heap pages (and the cache file's) now: for a reader that touches much of
 * the heap from one node (a 3.5-million-element array's targets). */
void v8_graph_release(v8_graph_t *g);
/* Frees what only edge and path queries use (edges, reverse edges, paths, dominators): for a
 * writer that names edges from the core (v8_edges_of) and needs the nodes and roots alone. After
 * it edges, retainers, paths and dominators answer nothing, root_used 0, and the graph cannot be
 * saved; nodes, find, is_object, roots and pass are as before. */
void v8_graph_trim(v8_graph_t *g);
/* For v8_edges_of: 1 when addr starts a node of g (ctx is the graph). */
int v8_graph_is_object(void *g, uint64_t addr);
/* Shortest paths from the roots, by root preference (everything reachable from the global object
 * and the modules first, then from stacks, native memory; paths through V8's caches only where
 * nothing else reaches: v8_graph_path_internal), over strong edges: computed on first use.
 * The node's distance (V8_NO_NODE: unreachable), the level of the root it was reached from, and
 * its parent on the path with the slot of the parent's edge (the root itself: parent V8_NO_NODE,
 * *root_index set). */
uint32_t v8_graph_distance(v8_graph_t *g, uint32_t i);
int v8_graph_parent(v8_graph_t *g, uint32_t i, uint32_t *parent, uint32_t *slot, uint32_t *root_index);
v8_root_level_t v8_graph_level(v8_graph_t *g, uint32_t i);
/* 1 when the node's path goes through one of V8's caches (a FeedbackVector, Code, an
 * AllocationSite, ...): nothing the program holds reaches it. Paths avoid caches while they can. */
#define V8_LEVEL_INTERNAL 0x80
int v8_graph_path_internal(v8_graph_t *g, uint32_t i);
/* The nodes some root reaches over strong edges (v8_graph_distance is not V8_NO_NODE), one bit a
 * node (bit i % 64 of word i / 64), for the caller to free; NULL once trimmed. The rest is garbage
 * the next GC would collect, which V8's own heap snapshot leaves out. */
uint64_t *v8_graph_reachable(v8_graph_t *g);
/* What the program holds: the nodes the global object, the modules, the script scopes and the
 * threads' JavaScript frames reach over strong edges, one bit a node as above (free it); and in
 * *native_only how many more only native memory reaches. One breadth-first pass without paths
 * (a census's: a path through V8's caches counts here, where v8_graph_level would prefer a stale
 * native word); NULL once trimmed. */
uint64_t *v8_graph_held(v8_graph_t *g, uint64_t *native_only);

/* A cache of the graph (nodes, edges, roots, paths) in one file, read back by mmap:
 * the second query on a core answers without walking the heap. key identifies the core (the
 * caller's hash of its path, size, mtime and first pages); a file of another key, version or
 * size is refused (-1 / NULL, no message). Save writes a temporary file and renames it. */
int v8_graph_save(v8_graph_t *g, const char *path, uint64_t key, const char *origin);
v8_graph_t *v8_graph_load(v8_t *v, v8_heap_t *h, const char *path, uint64_t key);
/* The origin (the core's path) a cache file of this version was saved with, and the file's size;
 * -1 for anything else (another version, a partial file). */
int v8_graph_cache_origin(const char *path, buf_t *origin, uint64_t *bytes);

/* Dominators over the graph from a synthetic root whose children are the roots (strong edges
 * only): the immediate dominator of every node (V8_NO_NODE: unreachable or a child of the
 * synthetic root) and retained sizes; computed on first use. */
int v8_graph_dominators(v8_graph_t *g);
uint32_t v8_graph_idom(v8_graph_t *g, uint32_t i);
uint64_t v8_graph_retained(v8_graph_t *g, uint32_t i);
/* The algorithm by itself, for tests: n nodes, node 0 the root, CSR successors (first[n+1],
 * succ[]); idom[i] (idom[0] = 0, V8_NO_NODE when unreachable). 0, or -1 out of memory. */
int v8_dominators_compute(uint32_t n, const uint64_t *first, const uint32_t *succ, uint32_t *idom);
/* retained[i] = size[i] + the retained sizes of the nodes i immediately dominates. */
void v8_dominators_retained(uint32_t n, const uint32_t *idom, const uint64_t *size, uint64_t *retained);
/* Both over the object graph as stored, without a copy: node 0 a synthetic root whose successors
 * are roots[] (already numbered + 1), node x > 0 the graph's node x - 1 (n of them), its
 * successors tgt[first[x-1]..first[x]) + 1 but those whose slot is V8_SLOT_WEAK; ranges and
 * targets checked (a cached graph). idom[0..n] and retained[0..n] (sizes from nodes). */
int v8_dominators_graph(uint32_t n, const uint64_t *first, const uint32_t *tgt, const uint32_t *slot, uint64_t nedges,
                        const uint32_t *roots, size_t nroots, const v8_graph_node_t *nodes, uint32_t *idom,
                        uint64_t *retained);

#endif
