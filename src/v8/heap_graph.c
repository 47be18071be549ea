/* The object graph of one heap: nodes from one heap walk, edges from every object's tagged slots,
 * roots, and shortest paths from the roots. This file: the graph as its users see it (nodes, edges,
 * retainers, lookups by address), its arrays grown while it is built and freed. Below it the chunk
 * index (graph_index.c); above it the roots (graph_roots.c), the references found as the walk reads
 * each page (graph_refs.c), the pages a build takes from the last (graph_reuse.c) and the build
 * itself (graph_build.c).
 *
 * Memory is what limits this on big cores (3.5 million objects, tens of millions of references):
 * nodes are one 16-byte record each in an array sorted by address (an address is found by binary
 * search), edges are CSR arrays of u32 node indices with the slot's word index beside them (the
 * slot names the edge later, through v8_edges_of: names are never stored), reverse edges and path
 * data are built only when asked for. No allocation per object.
 *
 * Roots, in the order paths prefer them (DevTools' "distance" goes through the global object and
 * ignores weak edges the same way): the main global object ("globalThis") and the records of
 * CommonJS modules (objects of class Module with a filename: "module /x/app.js") and script
 * contexts (a script's top-level `let`/`const`/`class`: "(script scope)") and ES module records
 * ("module file:///x/app.mjs", edges "export NAME"); then the
 * threads' stacks (every word that points at an object start, from the stack pointer up to the
 * native caller of the outermost V8 frame: the native frames above are native memory, their words
 * mostly what returned calls left there); then native memory: every word of the target's other writable mappings (the malloc heap where V8's
 * global handles and Node's persistent handles live, node's .data/.bss and the isolate's roots
 * table) that points at an object start. The last two are conservative: a stale word in native
 * memory can keep an object "alive" here that V8 would collect; such objects are reported as held
 * by native memory, never through a JavaScript path. Within those levels a path through one of
 * V8's caches (feedback, code, allocation sites) is taken only where no other path exists
 * (graph_paths.c). */
#include "util/bigmem.h"
#include "util/xalloc.h"
#include "v8/graph_index.h"
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

size_t v8_graph_node_count(const v8_graph_t *g) { return g->n; }
uint64_t v8_graph_edge_count(const v8_graph_t *g) { return g->nedges; }
/* A graph read from a cache file is checked where it is used, not all at once (the second query
 * must not touch hundreds of megabytes): an index out of range gives this empty node, a range
 * out of order no edges. */
static const v8_graph_node_t no_node = {1, 0, 0, 0};
const v8_graph_node_t *v8_graph_node(const v8_graph_t *g, uint32_t i) { return i < g->n ? &g->nodes[i] : &no_node; }
v8_heap_object_t v8_graph_object(const v8_graph_t *g, uint32_t i)
{
    const v8_graph_node_t *nd = v8_graph_node(g, i);
    return (v8_heap_object_t){
        nd->addr, 0, nd->type, nd->size, (nd->flags & V8_NODE_LARGE) != 0, (nd->flags & V8_NODE_PROTOTYPE) != 0,
        NULL,     0, 0};
}
size_t v8_graph_root_count(const v8_graph_t *g) { return g->nroots; }
const v8_graph_root_t *v8_graph_root(const v8_graph_t *g, size_t k) { return k < g->nroots ? &g->roots[k] : NULL; }

uint32_t v8_graph_find(const v8_graph_t *g, uint64_t addr)
{
    addr |= 1;
    if (!g->n || addr < g->lo || addr > g->hi) return V8_NO_NODE;
    if (g->nchunks) {
        uint32_t k;
        return find_indexed(g, addr, &k);
    }
    size_t lo = 0, hi = g->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (g->nodes[mid].addr < addr) lo = mid + 1;
        else hi = mid;
    }
    return lo < g->n && g->nodes[lo].addr == addr ? (uint32_t)lo : V8_NO_NODE;
}

int v8_graph_is_object(void *ctx, uint64_t addr)
{
    v8_graph_t *g = ctx;
    /* a graph from the cache answering one query: a binary search beats building the index */
    if (!g->index && g->n > 4096 && (!g->map || ++g->lookups > 100000)) graph_index_build(g);
    return v8_graph_find(g, addr) != V8_NO_NODE;
}

size_t v8_graph_edges(const v8_graph_t *g, uint32_t i, const uint32_t **targets, const uint32_t **slots)
{
    if (g->trimmed || i >= g->n || g->first[i] > g->first[i + 1] || g->first[i + 1] > g->nedges) return 0;
    *targets = g->tgt + g->first[i];
    *slots = g->slot + g->first[i];
    return (size_t)(g->first[i + 1] - g->first[i]);
}

static void build_reverse(v8_graph_t *g)
{
    /* a graph from the cache file is untrusted: targets and ranges checked */
    g->rfirst = big_calloc(g->n + 1, sizeof *g->rfirst);
    for (uint64_t k = 0; k < g->nedges; k++)
        if (g->tgt[k] < g->n) g->rfirst[g->tgt[k] + 1]++;
    for (size_t i = 0; i < g->n; i++) g->rfirst[i + 1] += g->rfirst[i];
    g->rsrc = big_malloc((g->nedges ? g->nedges : 1) * sizeof *g->rsrc);
    g->rslot = big_malloc((g->nedges ? g->nedges : 1) * sizeof *g->rslot);
    uint64_t *fill = big_malloc((g->n + 1) * sizeof *fill);
    memcpy(fill, g->rfirst, (g->n + 1) * sizeof *fill);
    for (size_t i = 0; i < g->n; i++) {
        if (g->first[i] > g->first[i + 1] || g->first[i + 1] > g->nedges) continue;
        for (uint64_t k = g->first[i]; k < g->first[i + 1]; k++) {
            if (g->tgt[k] >= g->n) continue;
            uint64_t at = fill[g->tgt[k]]++;
            g->rsrc[at] = (uint32_t)i;
            g->rslot[at] = g->slot[k];
        }
    }
    free(fill);
}

/* The holders of node i by one scan of the edge targets (tens of milliseconds): a query about
 * one object needs no reverse index, whose arrays (16 bytes a node and 8 an edge, all touched)
 * cost more to build, and to store in the cache, than the scans of a session. */
static void scan_retainers(v8_graph_t *g, uint32_t x, rscan_t *r)
{
    size_t cap = 0;
    r->node = x;
    r->n = 0;
    r->holders = r->slots = NULL;
    for (uint64_t k = 0; k < g->nedges; k++) {
        if (g->tgt[k] != x) continue;
        /* the node whose range holds edge k: the last i with first[i] <= k */
        size_t lo = 0, hi = g->n;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (g->first[mid + 1] <= k) lo = mid + 1;
            else hi = mid;
        }
        if (lo >= g->n || g->first[lo] > k || k >= g->first[lo + 1]) continue; /* a corrupt cache */
        if (r->n == cap) {
            cap = cap ? cap * 2 : 16;
            r->holders = xrealloc(r->holders, cap * sizeof *r->holders);
            r->slots = xrealloc(r->slots, cap * sizeof *r->slots);
        }
        r->holders[r->n] = (uint32_t)lo;
        r->slots[r->n++] = g->slot[k];
    }
}

size_t v8_graph_retainers(v8_graph_t *g, uint32_t i, const uint32_t **holders, const uint32_t **slots)
{
    if (g->trimmed || i >= g->n) return 0;
    if (!g->rfirst) {
        for (size_t k = 0; k < g->nscans; k++)
            if (g->scans[k].node == i) {
                *holders = g->scans[k].holders;
                *slots = g->scans[k].slots;
                return g->scans[k].n;
            }
        if (g->nscans < MAX_SCANS) { /* a few queries: scans; more (refs of backing stores): the index */
            rscan_t *r = &g->scans[g->nscans++];
            scan_retainers(g, i, r);
            *holders = r->holders;
            *slots = r->slots;
            return r->n;
        }
        build_reverse(g);
    }
    if (g->rfirst[i] > g->rfirst[i + 1] || g->rfirst[i + 1] > g->nedges) return 0;
    *holders = g->rsrc + g->rfirst[i];
    *slots = g->rslot + g->rfirst[i];
    return (size_t)(g->rfirst[i + 1] - g->rfirst[i]);
}

/* ---- the arrays ---- */

/* Room for more nodes than n (nodes and first grown together); 0 when past MAX_NODES. */
int graph_room_for_nodes(v8_graph_t *g, size_t more)
{
    if (g->n + more > MAX_NODES) return 0;
    if (g->n + more <= g->cap) return 1;
    size_t cap = g->cap;
    while (cap < g->n + more) cap = cap * 2 < MAX_NODES ? cap * 2 : MAX_NODES;
    g->nodes = graph_big_grow(g->nodes, cap * sizeof *g->nodes);
    g->nodes_bytes = cap * sizeof *g->nodes;
    g->first = graph_big_grow(g->first, (cap + 1) * sizeof *g->first);
    g->cap = cap;
    return 1;
}

/* Room for more edges (past the reservation: a heap of overlapping objects). */
void graph_room_for_edges(v8_graph_t *g, uint64_t more)
{
    if (g->nedges + more <= g->capedges) return;
    uint64_t cap = g->capedges ? g->capedges : 65536;
    while (cap < g->nedges + more) cap *= 2;
    g->tgt = graph_big_grow(g->tgt, cap * sizeof *g->tgt);
    g->slot = graph_big_grow(g->slot, cap * sizeof *g->slot);
    g->edges_bytes = cap * sizeof *g->tgt;
    g->capedges = cap;
}

void graph_release_range(target_t *t, uint64_t addr, uint64_t len)
{
    const void *p = target_direct(t, addr, len);
    if (!p) return;
    uintptr_t lo = ((uintptr_t)p + 4095) & ~(uintptr_t)4095, hi = ((uintptr_t)p + len) & ~(uintptr_t)4095;
    if (hi > lo) madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

void v8_graph_pass(v8_graph_t *g, uint32_t i)
{
    if (!g->n || strcmp(target_kind(g->v->t), "core")) return;
    uint64_t chunk = i < g->n ? (g->nodes[i].addr - 1) & ~(uint64_t)(CHUNK_SIZE - 1) : 0;
    if (chunk == g->pass_chunk) return;
    g->pass_chunk = chunk;
    /* naming reads maps, descriptors, backing stores and strings all over the heap: every 32
       chunks, hand back everything between the first and the last object in one call (the core
       is one file mapping, laid out in address order) */
    if (++g->pass_moves % 32 && i != V8_NO_NODE) return;
    v8_graph_release(g);
}

void v8_graph_release(v8_graph_t *g)
{
    if (!g->n || strcmp(target_kind(g->v->t), "core")) return;
    if (g->map) madvise(g->map, g->map_len, MADV_DONTNEED); /* the cache file's pages too */
    const char *lo = target_direct(g->v->t, g->lo - 1, 8), *hi = target_direct(g->v->t, g->hi - 1, 8);
    if (!lo || !hi || hi <= lo) return;
    uintptr_t a = ((uintptr_t)lo + 4095) & ~(uintptr_t)4095, b = ((uintptr_t)hi) & ~(uintptr_t)4095;
    if (b > a) madvise((void *)a, b - a, MADV_DONTNEED);
}

/* The forward edges of a graph built here (not loaded from a cache file). */
static void free_edges(v8_graph_t *g)
{
    graph_unbig(g->first);
    graph_unbig(g->tgt); /* graph_big's, or malloc's (graph_cache.c's reverse build) */
    graph_unbig(g->slot);
    g->edges_bytes = 0;
}

/* A graph built reusing lends its nodes to the reuse state, which keeps them for the next build
   (and holds the graph at *lent_to until it is freed). */
static void free_nodes(v8_graph_t *g)
{
    if (g->lent_to) *g->lent_to = NULL, g->lent_to = NULL;
    else graph_unbig(g->nodes);
    g->nodes = NULL;
}

void v8_graph_trim(v8_graph_t *g)
{
    if (!g || g->trimmed) return;
    g->trimmed = 1;
    for (size_t k = 0; k < g->nscans; k++) {
        free(g->scans[k].holders);
        free(g->scans[k].slots);
    }
    g->nscans = 0;
    free(g->rfirst);
    free(g->rsrc);
    free(g->rslot);
    free(g->idom);
    free(g->retained);
    free(g->global_reach);
    g->rfirst = NULL, g->rsrc = g->rslot = NULL, g->idom = NULL, g->retained = NULL, g->global_reach = NULL;
    if (g->map) { /* the file's pages are clean: handed back, nothing freed */
        madvise(g->map, g->map_len, MADV_DONTNEED);
    } else {
        free_edges(g);
        graph_unbig(g->dist);
        graph_unbig(g->parent);
        graph_unbig(g->pslot);
        graph_unbig(g->level);
    }
    g->first = NULL, g->tgt = g->slot = NULL, g->dist = g->parent = g->pslot = NULL, g->level = NULL;
    g->nedges = 0;
}

void v8_graph_free(v8_graph_t *g)
{
    if (!g) return;
    free(g->root_used);
    free(g->reach);
    free(g->global_reach);
    graph_index_free(g);
    for (size_t k = 0; k < g->nscans; k++) {
        free(g->scans[k].holders);
        free(g->scans[k].slots);
    }
    if (g->map) {
        free(g->rfirst);
        free(g->rsrc);
        free(g->rslot);
        munmap(g->map, g->map_len);
        strpool_free(g->names);
        free(g->roots);
        free(g->idom);
        free(g->retained);
        free(g);
        return;
    }
    free_nodes(g);
    free_edges(g);
    free(g->rfirst);
    free(g->rsrc);
    free(g->rslot);
    free(g->roots);
    strpool_free(g->names);
    graph_unbig(g->dist);
    graph_unbig(g->parent);
    graph_unbig(g->pslot);
    graph_unbig(g->level);
    free(g->idom);
    free(g->retained);
    free(g);
}
