/* The object graph's build (v8_graph_build): one walk of the heap gives the nodes, and the
 * references of each object as the walk reads its page (graph_refs.c); the pages a build of the
 * same tracked copy may take from the last instead of walking them (graph_reuse.c); the sizes the
 * walk could not know, the read-only nodes, the chunk index (graph_index.c), and the roots
 * (graph_roots.c). The module records and global objects the roots need are noted as the walk
 * passes them, not found by a walk of their own. */
#include "util/bigmem.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/progress.h"
#include "util/xalloc.h"
#include "v8/graph_index.h"
#include "v8/graph_reuse.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    v8_graph_t *g;
    progress_t progress;
    int show;
    /* module records: the maps of JS objects seen (1 Module, 2 other) and the candidates'
       addresses, noted while the walk holds the objects' pages (not in a pass of their own) */
    u64map_t module_maps;
    struct {
        uint64_t map;
        uint32_t kind;
    } recent[64]; /* module_maps' recent answers, direct-mapped (no hashing per object) */
    uint64_t *modules;
    size_t nmodules, capmodules;
    uint64_t *globals; /* the global objects walked past (v8_note_global_objects) */
    size_t nglobals, capglobals;
    graph_refs_t refs; /* the references, found as the walk reads each page (graph_refs.h) */
    int fused;         /* edges scanned during the walk */
    uint32_t pend;     /* a node of unknown size, scanned once the walk shows where it ends; V8_NO_NODE */
    const unsigned char *pend_bytes;
    uint64_t pend_avail;
    uint64_t pend_extent; /* where the walk found the next object after it (v8_heap_object_t.extent) */
    v8_heap_stats_t st;
    graph_reuse_walk_t reuse; /* reusing: the reuse state's part (graph_reuse.h) */
} build_t;

static uint32_t inferred_size(v8_graph_t *g, const v8_graph_node_t *nd, uint64_t gap);

/* What the walk noted beyond the bytes of the pages it read (graph_reuse_page's noted). */
static uint64_t noted(const build_t *b) { return b->st.resyncs + b->nmodules + b->nglobals; }

/* The node of unknown size waiting (b->pend) ends gap bytes on (where the next object starts, or
   its page's area ends): sized as infer_sizes would, and scanned. */
static void finish_pending(build_t *b, uint64_t gap)
{
    if (b->pend == V8_NO_NODE) return;
    v8_graph_node_t *nd = &b->g->nodes[b->pend];
    if (b->pend_extent && b->pend_extent < gap) gap = b->pend_extent; /* free space after it */
    nd->size = inferred_size(b->g, nd, gap);
    graph_refs_scan_walked(&b->refs, b->pend, b->pend_bytes, b->pend_avail);
    b->pend = V8_NO_NODE;
}

static void page_done(void *ctx)
{
    build_t *b = ctx;
    if (b->fused && b->pend != V8_NO_NODE) finish_pending(b, b->pend_avail);
    graph_reuse_page_done(&b->reuse, noted(b));
}

static int reuse_page(void *ctx, uint64_t area_start, uint64_t area_end, int large)
{
    build_t *b = ctx;
    return graph_reuse_page(&b->reuse, area_start, area_end, large, noted(b));
}

/* A JS object whose map's constructor is Module: a candidate module record (checked later). */
static void note_module(build_t *b, const v8_heap_object_t *o)
{
    v8_graph_t *g = b->g;
    if (o->type != g->v->L.type_js_object) return;
    size_t r = (size_t)((o->map >> 3) ^ (o->map >> 9)) & 63;
    if (b->recent[r].map == o->map && o->map) {
        if (b->recent[r].kind != 1) return;
        XGROW(b->modules, b->capmodules, b->nmodules + 1);
        b->modules[b->nmodules++] = o->addr;
        return;
    }
    int found;
    uint32_t *kind = u64map_upsert(&b->module_maps, o->map, &found);
    if (!found) {
        buf_t nm = {0};
        *kind = 2;
        int is_module = v8_constructor_name(g->v, o->addr, &nm) == 0 && nm.data && !strcmp(nm.data, "Module");
        buf_free(&nm);
        kind = u64map_upsert(&b->module_maps, o->map, &found);
        *kind = is_module ? 1 : 2;
    }
    b->recent[r].map = o->map, b->recent[r].kind = *kind;
    if (*kind != 1) return;
    XGROW(b->modules, b->capmodules, b->nmodules + 1);
    b->modules[b->nmodules++] = o->addr;
}

static int on_object(void *ctx, const v8_heap_object_t *o)
{
    build_t *b = ctx;
    v8_graph_t *g = b->g;
    if (!graph_room_for_nodes(g, 1)) return 1;
    if (b->fused) { /* the node before, if its size was unknown, ends here: its edges come first */
        if (b->pend != V8_NO_NODE) finish_pending(b, o->addr - g->nodes[b->pend].addr);
        g->first[g->n] = g->nedges;
    }
    if (b->reuse.pg) graph_reuse_note(&b->reuse, o);
    int js = v8_heap_is_js_type(g->h, o->type);
    uint16_t flags =
        (uint16_t)((o->large ? V8_NODE_LARGE : 0) | (o->prototype ? V8_NODE_PROTOTYPE : 0) | (js ? V8_NODE_JS : 0));
    g->nodes[g->n++] =
        (v8_graph_node_t){o->addr, o->size > UINT32_MAX ? UINT32_MAX : (uint32_t)o->size, (uint16_t)o->type, flags};
    if (b->fused) {
        if (o->size || o->large) graph_refs_scan_walked(&b->refs, (uint32_t)(g->n - 1), o->bytes, o->avail);
        else
            b->pend = (uint32_t)(g->n - 1), b->pend_bytes = o->bytes, b->pend_avail = o->avail,
            b->pend_extent = o->extent;
    }
    if (js) note_module(b, o);
    if (o->type == g->v->L.type_js_global_object) {
        XGROW(b->globals, b->capglobals, b->nglobals + 1);
        b->globals[b->nglobals++] = o->addr;
    }
    if (b->show && (g->n & 0xffff) == 0) progress_update(&b->progress, g->n, 0);
    return 0;
}

static int by_addr(const void *a, const void *b)
{
    const v8_graph_node_t *x = a, *y = b;
    return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The walk gives size 0 where V8's layout for the type is not known here (ScopeInfo, FeedbackVector,
 * types the metadata does not name: GlobalDictionary on Node 20 and 22, ...) and resyncs at the
 * next map word. Such an object ends where the next object starts. A type the metadata does not
 * name may be FixedArray-shaped (a Smi length after the map): when that length ends it before the
 * next object, it is believed. A length never drops a node the walk found: the second word of a
 * ScopeInfo (its flags) or of a FeedbackMetadata reads as a Smi too, and taking it for a length
 * dropped thousands of real objects behind it (the global object's PropertyCells among them, so
 * that what a global held looked unreachable, depending on where the allocator had put them). */
static void infer_sizes(v8_graph_t *g)
{
    for (size_t i = 0; i < g->n; i++) {
        v8_graph_node_t *nd = &g->nodes[i];
        if (nd->size != 0 || (nd->flags & V8_NODE_LARGE)) continue;
        /* the last object of a page ends with the page's area (the heap's last page too: an
           OrderedHashMap of Node 24 there, alone on its large page, was read as 8 bytes and its
           thousands of entries as unreachable) */
        uint64_t chunk_end = ((nd->addr - 1) & ~(uint64_t)(CHUNK_SIZE - 1)) + CHUNK_SIZE;
        uint64_t gap = i + 1 < g->n ? g->nodes[i + 1].addr - nd->addr : UINT64_MAX;
        if (gap > chunk_end - (nd->addr - 1)) {
            uint64_t area_end = v8_heap_area_end(g->h, nd->addr - 1);
            gap = area_end > nd->addr - 1 ? area_end - (nd->addr - 1) : 8;
            if (gap > chunk_end - (nd->addr - 1)) gap = chunk_end - (nd->addr - 1);
        }
        nd->size = inferred_size(g, nd, gap);
    }
}

/* The size of a node the walk could not size, gap bytes before the next object or its page's end. */
static uint32_t inferred_size(v8_graph_t *g, const v8_graph_node_t *nd, uint64_t gap)
{
    uint64_t w1, sz = gap;
    if (!v8_type_name(g->v, nd->type) && target_read_u64(g->v->t, nd->addr - 1 + 8, &w1) == 0 &&
        (w1 & 0xffffffffu) == 0 && (int64_t)w1 >= 0) {
        uint64_t asz = 16 + 8 * (w1 >> 32);
        if (asz <= gap) sz = asz;
    }
    return (uint32_t)(sz > (1u << 30) ? 1u << 30 : sz);
}

/* Nodes on V8's read-only pages: immortal (every isolate shares them), so no edge into one is
 * kept (every object's map or undefined would double the edges and nothing is learned of why
 * something is alive); each is a root of its own, "(read-only space)", and the heapsnapshot
 * writer, which names edges from the core, still writes the edges into them. */
static void mark_read_only(v8_graph_t *g)
{
    uint64_t ps, pe;
    for (size_t p = 0; v8_heap_page_range(g->h, p, &ps, &pe) == 0; p++) {
        if (!v8_heap_page_read_only(g->h, p)) continue;
        size_t lo = 0, hi = g->n;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (g->nodes[mid].addr - 1 < ps) lo = mid + 1;
            else hi = mid;
        }
        for (size_t i = lo; i < g->n && g->nodes[i].addr - 1 < pe; i++) g->nodes[i].flags |= V8_NODE_READ_ONLY;
    }
}

v8_graph_t *v8_graph_build(v8_t *v, v8_heap_t *h, int show_progress)
{
    return v8_graph_build_reusing(v, h, show_progress, NULL);
}

v8_graph_t *v8_graph_build_reusing(v8_t *v, v8_heap_t *h, int show_progress, v8_graph_reuse_t *r)
{
    if (!v8_heap_found(h)) {
        diag_error(target_name(v->t), 0, "no V8 heap pages found in the target's memory");
        return NULL;
    }
    v8_graph_t *g = big_calloc(1, sizeof *g);
    g->v = v;
    g->h = h;
    g->names = strpool_new();
    /* the heap's words bound the nodes and the edges: reserve that much address space (only
       what is used is ever touched) and never copy the arrays while they grow */
    uint64_t ps, pe, words = 0;
    for (size_t i = 0; v8_heap_page_range(h, i, &ps, &pe) == 0; i++) words += (pe - ps) / 8;
    g->cap = words / 2 + 65536 < MAX_NODES ? words / 2 + 65536 : MAX_NODES;
    g->nodes_bytes = g->cap * sizeof *g->nodes;
    g->nodes = graph_big(g->nodes_bytes, 0);
    g->first = graph_big((g->cap + 1) * sizeof *g->first, 0);
    g->capedges = words + 65536;
    g->edges_bytes = g->capedges * sizeof *g->tgt;
    g->tgt = graph_big(g->edges_bytes, 0);
    g->slot = graph_big(g->edges_bytes, 0);
    build_t b = {0};
    b.g = g;
    b.show = show_progress;
    b.pend = V8_NO_NODE;
    u64map_init(&b.module_maps);
    graph_refs_begin(&b.refs, g, r ? graph_reuse_begin(&b.reuse, r, g) : NULL);
    b.fused = b.refs.compact;
    if (r) graph_reuse_numbered(&b.reuse);
    if (show_progress) progress_init(&b.progress, "walking the heap", "objects");
    big_mem_trace("build: start");
    graph_trace("build: start");
    int stopped = v8_heap_walk_pages(h, on_object, page_done, r && b.fused ? reuse_page : NULL, &b, &b.st);
    if (b.fused) {
        if (b.pend != V8_NO_NODE) finish_pending(&b, b.pend_avail); /* the walk stopped early */
        g->first[g->n] = g->nedges;
    }
    if (show_progress) progress_done(&b.progress);
    big_mem_trace("build: walked");
    graph_trace("build: walked");
    u64map_free(&b.module_maps);
    /* v8_global_object's search when no JS frame leads to it, done: a walk of its own was a third
       read of the heap (15% of a census) */
    if (!v->global_found) v8_note_global_objects(v, b.globals, b.nglobals);
    free(b.globals);
    /* pages come in address order from the mappings; make sure, and drop duplicates (the edges
       found as the walk went are then dropped too, and scanned again below) */
    int sorted = 1;
    for (size_t i = 1; i < g->n && sorted; i++) sorted = g->nodes[i - 1].addr < g->nodes[i].addr;
    if (!sorted) {
        qsort(g->nodes, g->n, sizeof *g->nodes, by_addr);
        size_t k = 0;
        for (size_t i = 0; i < g->n; i++)
            if (!k || g->nodes[k - 1].addr != g->nodes[i].addr) g->nodes[k++] = g->nodes[i];
        g->n = k;
        b.fused = 0;
        g->nedges = 0;
    }
    infer_sizes(g);
    mark_read_only(g);
    if (g->n) {
        g->lo = g->nodes[0].addr;
        g->hi = g->nodes[g->n - 1].addr;
    }
    graph_index_build(g);
    if (!b.fused) graph_refs_scan(&b.refs, show_progress); /* after the walk, a chunk's objects at a time */
    if (r && b.refs.compact) graph_reuse_end(&b.reuse, &b.refs, b.fused && !stopped);
    else if (b.refs.compact) g->nedges = graph_refs_resolve(&b.refs, g->first, g->tgt, g->slot);
    graph_refs_end(&b.refs);
    big_mem_trace("build: scanned");
    graph_trace("build: scanned");
    graph_find_roots(g, b.modules, b.nmodules);
    free(b.modules);
    v8_graph_release(g); /* what naming the module records and the roots read of the core */
    big_mem_trace("build: roots");
    graph_trace("build: roots");
    assert(v8_graph_check(g, NULL) == 0);
    return g;
}
