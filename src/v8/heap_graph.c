/* The object graph of one heap: nodes from one heap walk, edges from every object's tagged slots
 * (scanned as the walk reads its page: "references" below), roots, and shortest paths from the
 * roots.
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
#include "util/buf.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/progress.h"
#include "util/xalloc.h"
#include "v8/graph_internal.h"
#include <assert.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

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

#define CHUNK_WORDS (CHUNK_SIZE / 8 / 64)
/* compact addresses (the references' section below) */
#define ORD_SHIFT 15 /* CHUNK_SIZE / 8 words */
#define MAX_ORD (1u << (32 - ORD_SHIFT))
#define ORD_READ_ONLY 0x80000000u  /* in chunk numbers: a chunk of V8's read-only space (no edge goes there) */
#define FLAT_CHUNKS (1u << 22)     /* a 1 TiB span: 16 MiB of index */
#define SCAN_BUF_WORDS 8192        /* an object's words read at a time, past what the walk read */
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
   for it (GRAPH_POPCNT). */
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

/* The loop that counts bits by the million (every edge's target resolved) is built twice: for the
   baseline x86-64 (no popcnt: a software count) and for CPUs with popcnt (all since 2008), chosen
   at run time. A steady census of a 1 GB heap: 1.15 s of CPU with the software count, 1.08 s. */
#if defined(__x86_64__) && !defined(__POPCNT__)
#define GRAPH_POPCNT __attribute__((target("popcnt")))
static int have_popcnt(void) { return __builtin_cpu_supports("popcnt"); }
#else
#define GRAPH_POPCNT
static int have_popcnt(void) { return 0; }
#endif

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

static void build_chunk_index(v8_graph_t *g);
int v8_graph_is_object(void *ctx, uint64_t addr)
{
    v8_graph_t *g = ctx;
    /* a graph from the cache answering one query: a binary search beats building the index */
    if (!g->index && g->n > 4096 && (!g->map || ++g->lookups > 100000)) build_chunk_index(g);
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

/* ---- building ---- */

/* The heap's chunks numbered, for compact addresses (below): address -> ordinal + 1, with
   ORD_READ_ONLY for a chunk of V8's read-only space. A reuse state keeps its numbers from one
   build to the next: the references it keeps name chunks by them. */
typedef struct {
    u64map_t ord;
    uint64_t *chunk; /* ordinal -> address */
    uint32_t n;
    size_t cap;
} chunk_numbers_t;

/* What a build learned of one V8 page (by its chunk's ordinal): where its nodes and compact
   references are in that build's arrays. */
typedef struct {
    uint64_t area_start, area_end;
    uint64_t edge_first, nedges;
    uint32_t node_first, nnodes;
    uint64_t build;     /* the build that made it (0: none) */
    int ok;             /* its walk may be reused: one page's objects that depend on nothing else noted */
    uint64_t dep_first; /* the maps its objects name: the reuse state's deps[dep_first, +ndeps) */
    uint32_t ndeps;
} kept_page_t;

struct v8_graph_reuse {
    chunk_numbers_t num;
    kept_page_t *pages; /* by ordinal */
    size_t cap_pages;
    uint64_t builds;     /* builds made with it */
    uint64_t generation; /* the tracked copy's freeze the kept arrays were built from (0: none kept) */
    /* the last build's nodes (its graph's, until freed: lent) and compact references; a node's
       first reference as an offset from its page's first (a page holds at most 32,768 words) */
    v8_graph_node_t *nodes;
    uint16_t *first; /* kept allocated (cap_first), written again after each walk */
    size_t cap_first;
    uint32_t *tgt, *slot;
    size_t n;
    uint64_t nedges;
    v8_graph_t *lent;
    /* the maps the kept pages' objects name (per page, duplicates possible), this build's being
       made in deps_next; what the walk's lookups answered for each; those answered otherwise
       now (a page naming one is walked again) */
    uint64_t *deps, *deps_next;
    size_t ndeps, cap_deps, ndeps_next, cap_deps_next;
    v8_map_fact_t *facts;
    size_t nfacts, cap_facts;
    u64map_t changed;
    size_t reused, walked; /* pages, by the last build */
    size_t maps_changed;   /* by the last build's lookups: the pages naming them were walked */
    char why_buf[128];
    const char *why; /* why the last build could take nothing kept, or NULL */
};

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
    /* references: found as the walk reads each page (below, "compact addresses") */
    v8_edges_t *e;
    uint64_t *buf;                 /* an object's words read by themselves (past what the walk read) */
    chunk_numbers_t own_num, *num; /* the heap's chunks: own_num, or the reuse state's */
#define ORD_RECENT 256
    uint64_t recent_chunk[ORD_RECENT]; /* num's recent answers (1: none, never a chunk) */
    uint32_t recent_ord[ORD_RECENT];
    uint64_t heap_lo, heap_hi; /* the chunks' span */
    int compact;               /* targets stored as compact addresses (else as nodes: the chunk index is built) */
    int fused;                 /* edges scanned during the walk */
    uint32_t pend;             /* a node of unknown size, scanned once the walk shows where it ends; V8_NO_NODE */
    const unsigned char *pend_bytes;
    uint64_t pend_avail;
    uint64_t pend_extent; /* where the walk found the next object after it (v8_heap_object_t.extent) */
    /* reusing (reuse_page): the reuse state, whether what it kept may be taken, and the page
       being walked, with the counts when it began */
    v8_graph_reuse_t *r;
    int take;
    v8_heap_stats_t st;
    kept_page_t *pg;
    int pg_large, pg_resync_after;
    size_t pg_modules, pg_globals, pg_resyncs;
    uint64_t pg_recent[32]; /* the page's maps noted last, direct-mapped (0: none) */
} build_t;

static void scan_walked(build_t *b, uint32_t i, const unsigned char *bytes, uint64_t avail);
static void room_for_edges(v8_graph_t *g, uint64_t more);
static uint32_t inferred_size(v8_graph_t *g, const v8_graph_node_t *nd, uint64_t gap);

/* The node of unknown size waiting (b->pend) ends gap bytes on (where the next object starts, or
   its page's area ends): sized as infer_sizes would, and scanned. */
static void finish_pending(build_t *b, uint64_t gap)
{
    if (b->pend == V8_NO_NODE) return;
    v8_graph_node_t *nd = &b->g->nodes[b->pend];
    if (b->pend_extent && b->pend_extent < gap) gap = b->pend_extent; /* free space after it */
    nd->size = inferred_size(b->g, nd, gap);
    scan_walked(b, b->pend, b->pend_bytes, b->pend_avail);
    b->pend = V8_NO_NODE;
}

static void page_done(void *ctx)
{
    build_t *b = ctx;
    if (b->fused && b->pend != V8_NO_NODE) finish_pending(b, b->pend_avail);
    kept_page_t *p = b->pg;
    if (!p) return;
    /* kept: where its nodes and references went, and whether the walk of its bytes found all
       there is (a large object's references are read past its page; a resync looked for maps;
       module records and global objects are noted for the roots) */
    p->nnodes = (uint32_t)(b->g->n - p->node_first);
    p->nedges = b->g->nedges - p->edge_first;
    p->ok = !b->pg_large && !b->pg_resync_after && b->st.resyncs == b->pg_resyncs && b->nmodules == b->pg_modules &&
            b->nglobals == b->pg_globals && p->nedges <= UINT16_MAX;
    p->ndeps = (uint32_t)(b->r->ndeps_next - p->dep_first);
    p->build = b->r->builds;
    b->pg = NULL;
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

/* Room for more nodes than n (nodes and first grown together); 0 when past MAX_NODES. */
static int room_for_nodes(v8_graph_t *g, size_t more)
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

/* Whether a map the kept page p's objects name is answered otherwise now. */
static int names_changed(const v8_graph_reuse_t *r, const kept_page_t *p)
{
    uint32_t x;
    for (uint32_t k = 0; r->changed.count && k < p->ndeps; k++)
        if (u64map_get(&r->changed, r->deps[p->dep_first + k], &x)) return 1;
    return 0;
}

/* The walk of the page being walked (b->pg): the map of o, noted; and whether its end was found by
   a search for the next map (what that search passed over must still be no map). */
static void note_page_object(build_t *b, const v8_heap_object_t *o)
{
    v8_graph_reuse_t *r = b->r;
    if (o->extent) b->pg_resync_after = 1;
    size_t k = (size_t)((o->map >> 3) ^ (o->map >> 11)) & 31;
    if (b->pg_recent[k] == o->map) return;
    b->pg_recent[k] = o->map;
    XGROW(r->deps_next, r->cap_deps_next, r->ndeps_next + 1);
    r->deps_next[r->ndeps_next++] = o->map;
}

/* Before the walk reads a page: its nodes and compact references as the last build found them,
   where it may take them (b->take: the copy is the freeze after that build's, and the maps it
   named are unchanged), this build's page of the same bounds, kept ok, and not a byte of it
   changed; then 1 and the page is not walked. Else the page is noted for page_done. */
static int reuse_page(void *ctx, uint64_t area_start, uint64_t area_end, int large)
{
    build_t *b = ctx;
    v8_graph_reuse_t *r = b->r;
    v8_graph_t *g = b->g;
    uint64_t chunk = area_start & ~(uint64_t)(CHUNK_SIZE - 1);
    uint32_t ord;
    b->pg = NULL;
    if (!u64map_get(&b->num->ord, chunk, &ord)) return 0;
    ord &= ~ORD_READ_ONLY;
    kept_page_t *p = &r->pages[ord - 1];
    if (b->take && p->build == r->builds - 1 && p->ok && p->area_start == area_start && p->area_end == area_end &&
        !large && p->node_first + (uint64_t)p->nnodes <= r->n && p->edge_first + p->nedges <= r->nedges &&
        p->dep_first + p->ndeps <= r->ndeps && target_copy_unchanged(g->v->t, area_start, area_end - area_start) &&
        !names_changed(r, p) && room_for_nodes(g, p->nnodes)) {
        room_for_edges(g, p->nedges);
        XGROW(r->deps_next, r->cap_deps_next, r->ndeps_next + p->ndeps);
        memcpy(&r->deps_next[r->ndeps_next], &r->deps[p->dep_first], p->ndeps * sizeof *r->deps);
        p->dep_first = r->ndeps_next;
        r->ndeps_next += p->ndeps;
        memcpy(&g->nodes[g->n], &r->nodes[p->node_first], p->nnodes * sizeof *g->nodes);
        for (uint32_t j = 0; j < p->nnodes; j++) g->first[g->n + j] = g->nedges + r->first[p->node_first + j];
        memcpy(&g->tgt[g->nedges], &r->tgt[p->edge_first], p->nedges * sizeof *g->tgt);
        memcpy(&g->slot[g->nedges], &r->slot[p->edge_first], p->nedges * sizeof *g->slot);
        p->node_first = (uint32_t)g->n;
        p->edge_first = g->nedges;
        p->build = r->builds;
        g->n += p->nnodes;
        g->nedges += p->nedges;
        r->reused++;
        return 1;
    }
    *p = (kept_page_t){area_start, area_end, g->nedges, 0, (uint32_t)g->n, 0, 0, 0, r->ndeps_next, 0};
    b->pg = p;
    b->pg_large = large;
    b->pg_resync_after = 0;
    memset(b->pg_recent, 0, sizeof b->pg_recent);
    b->pg_modules = b->nmodules, b->pg_globals = b->nglobals, b->pg_resyncs = b->st.resyncs;
    r->walked++;
    return 0;
}

static int on_object(void *ctx, const v8_heap_object_t *o)
{
    build_t *b = ctx;
    v8_graph_t *g = b->g;
    if (!room_for_nodes(g, 1)) return 1;
    if (b->fused) { /* the node before, if its size was unknown, ends here: its edges come first */
        if (b->pend != V8_NO_NODE) finish_pending(b, o->addr - g->nodes[b->pend].addr);
        g->first[g->n] = g->nedges;
    }
    if (b->pg) note_page_object(b, o);
    int js = v8_heap_is_js_type(g->h, o->type);
    uint16_t flags =
        (uint16_t)((o->large ? V8_NODE_LARGE : 0) | (o->prototype ? V8_NODE_PROTOTYPE : 0) | (js ? V8_NODE_JS : 0));
    g->nodes[g->n++] =
        (v8_graph_node_t){o->addr, o->size > UINT32_MAX ? UINT32_MAX : (uint32_t)o->size, (uint16_t)o->type, flags};
    if (b->fused) {
        if (o->size || o->large) scan_walked(b, (uint32_t)(g->n - 1), o->bytes, o->avail);
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

static void build_chunk_index(v8_graph_t *g)
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

static void free_chunk_index(v8_graph_t *g)
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

/* Room for more edges (past the reservation: a heap of overlapping objects). */
static void room_for_edges(v8_graph_t *g, uint64_t more)
{
    if (g->nedges + more <= g->capedges) return;
    uint64_t cap = g->capedges ? g->capedges : 65536;
    while (cap < g->nedges + more) cap *= 2;
    g->tgt = graph_big_grow(g->tgt, cap * sizeof *g->tgt);
    g->slot = graph_big_grow(g->slot, cap * sizeof *g->slot);
    g->edges_bytes = cap * sizeof *g->tgt;
    g->capedges = cap;
}

static void add_edge(v8_graph_t *g, uint32_t t, uint32_t slot)
{
    if (g->nedges == g->capedges) room_for_edges(g, 1);
    g->tgt[g->nedges] = t;
    g->slot[g->nedges++] = slot;
}

/* ---- references ----
 * A slot's word names its target by address, and which node that is can be known only once every
 * node is: so the walk stores a compact address instead, the target chunk's ordinal among the
 * heap's chunks and the word in it (ORD_SHIFT bits: 32 bits in all, for up to MAX_ORD chunks,
 * 32 GiB), and resolve_edges turns it into the node's index (or drops it: no object starts there,
 * or one of V8's read-only space). Scanning as the walk goes reads each page once for its objects
 * and their references: a scan of its own read the whole heap a second time (a fifth of a live
 * process's census). A heap of more chunks is scanned after the walk, through the chunk index. */

/* Bytes [lo, hi) of the target at data (a page as the walk read it, or a chunk's objects), when hi > lo. */
typedef struct {
    const uint64_t *data;
    uint64_t lo, hi;
} chunk_buf_t;

/* The word in slot (a word index) of the object being scanned: an edge when it may point at an object. */
static inline void candidate(build_t *b, uint64_t word, uint64_t slot)
{
    if ((word & 1) == 0 || word < b->heap_lo || word >= b->heap_hi) return;
    uint32_t weak = (word & 3) == 3 ? V8_SLOT_WEAK : 0, t;
    uint32_t sl = (uint32_t)(slot < 0x7fffffff ? slot : 0x7fffffff) | weak;
    uint64_t a = word & ~(uint64_t)3, chunk = a & ~(uint64_t)(CHUNK_SIZE - 1);
    v8_graph_t *g = b->g;
    if (b->compact) {
        /* most references stay near: a direct-mapped cache of chunk_ord's answers first */
        size_t r = (size_t)(chunk >> 18) & (ORD_RECENT - 1);
        uint32_t ord;
        if (b->recent_chunk[r] == chunk) ord = b->recent_ord[r];
        else if (!u64map_get(&b->num->ord, chunk, &ord)) return;
        else b->recent_chunk[r] = chunk, b->recent_ord[r] = ord;
        if (ord & ORD_READ_ONLY) return;
        add_edge(g, ((ord - 1) << ORD_SHIFT) | (uint32_t)((a - chunk) / 8), sl);
        return;
    }
    uint32_t ck;
    if (a + 1 > g->hi || (t = find_indexed(g, a + 1, &ck)) == V8_NO_NODE) return;
    uint8_t ro = g->chunk_ro[ck];
    if (ro == RO_ALL || (ro == RO_SOME && (g->nodes[t].flags & V8_NODE_READ_ONLY))) return;
    add_edge(g, t, sl);
}

/* The references in node i's tagged slots: from cb where it holds them, else read. */
static void scan_node(build_t *b, uint32_t i, const chunk_buf_t *cb)
{
    v8_graph_t *g = b->g;
    const v8_graph_node_t *nd = &g->nodes[i];
    uint64_t end = v8_edges_tagged_end(b->e, nd->type, nd->size);
    uint64_t words = end / 8, base = nd->addr - 1;
    if (words > MAX_SCAN_WORDS) words = MAX_SCAN_WORDS;
    for (uint64_t w0 = 0; w0 < words; w0 += SCAN_BUF_WORDS) {
        uint64_t cnt = words - w0 < SCAN_BUF_WORDS ? words - w0 : SCAN_BUF_WORDS;
        uint64_t at = base + 8 * w0;
        const uint64_t *p =
            at >= cb->lo && at + cnt * 8 <= cb->hi ? cb->data + (at - cb->lo) / 8 : target_direct(g->v->t, at, cnt * 8);
        if (!p) {
            if (target_read(g->v->t, at, b->buf, cnt * 8) != 0) return;
            p = b->buf;
        }
        for (uint64_t k = 0; k < cnt; k++) candidate(b, p[k], w0 + k);
    }
}

/* Node i as the walk read it: bytes, avail of them. */
static void scan_walked(build_t *b, uint32_t i, const unsigned char *bytes, uint64_t avail)
{
    v8_graph_t *g = b->g;
    uint64_t at = g->nodes[i].addr - 1;
    chunk_buf_t cb = {(const uint64_t *)(const void *)bytes, at, bytes ? at + avail : at};
    scan_node(b, i, &cb);
    /* a core's large object, read past its header: its pages handed back (the walk's own reads
       are counted and released by the walk) */
    if ((g->nodes[i].flags & V8_NODE_LARGE) && !strcmp(target_kind(g->v->t), "core"))
        graph_release_range(g->v->t, at, g->nodes[i].size);
}

/* The compact addresses of the edges (g->first, tgt, slot) made node indices, into first, tgt and
   slot (g's own: in place); the edges to no node dropped. Their count. */
static inline __attribute__((always_inline)) uint64_t resolve_edges_by(build_t *b, int hw, uint64_t *first,
                                                                       uint32_t *tgt, uint32_t *slot)
{
    v8_graph_t *g = b->g;
    const chunk_numbers_t *num = b->num;
    uint32_t *ord_k = xcalloc(num->n ? num->n : 1, sizeof *ord_k); /* ordinal -> indexed chunk + 1 */
    for (uint32_t o = 0; o < num->n; o++) {
        uint32_t k;
        if (find_chunk(g, num->chunk[o], &k)) ord_k[o] = k + 1;
    }
    uint64_t out = 0, start = g->first[0];
    for (size_t i = 0; i < g->n; i++) {
        uint64_t end = g->first[i + 1];
        first[i] = out;
        for (uint64_t k = start; k < end; k++) {
            uint32_t ca = g->tgt[k], ck = ord_k[ca >> ORD_SHIFT];
            if (!ck--) continue;
            uint32_t t = node_in_chunk_by(g, ck, ca & ((1u << ORD_SHIFT) - 1), hw);
            if (t == V8_NO_NODE) continue;
            uint8_t ro = g->chunk_ro[ck];
            if (ro == RO_ALL || (ro == RO_SOME && (g->nodes[t].flags & V8_NODE_READ_ONLY))) continue;
            tgt[out] = t;
            slot[out++] = g->slot[k];
        }
        start = end;
    }
    first[g->n] = out;
    free(ord_k);
    return out;
}
static uint64_t resolve_edges_sw(build_t *b, uint64_t *first, uint32_t *tgt, uint32_t *slot)
{
    return resolve_edges_by(b, 0, first, tgt, slot);
}
static GRAPH_POPCNT uint64_t resolve_edges_hw(build_t *b, uint64_t *first, uint32_t *tgt, uint32_t *slot)
{
    return resolve_edges_by(b, 1, first, tgt, slot);
}
static uint64_t resolve_edges(build_t *b, uint64_t *first, uint32_t *tgt, uint32_t *slot)
{
    return have_popcnt() ? resolve_edges_hw(b, first, tgt, slot) : resolve_edges_sw(b, first, tgt, slot);
}

/* The heap's chunks numbered (b->num: chunks numbered before keep their numbers) and their span;
   compact addresses unless there are too many. */
static void number_chunks(build_t *b)
{
    uint64_t ps, pe;
    chunk_numbers_t *num = b->num;
    if (!num->ord.slots) u64map_init(&num->ord);
    for (size_t r = 0; r < ORD_RECENT; r++) b->recent_chunk[r] = 1;
    b->heap_lo = UINT64_MAX, b->heap_hi = 0;
    for (size_t i = 0; v8_heap_page_range(b->g->h, i, &ps, &pe) == 0; i++)
        for (uint64_t c = ps & ~(uint64_t)(CHUNK_SIZE - 1); c < pe; c += CHUNK_SIZE) {
            if (c < b->heap_lo) b->heap_lo = c;
            if (c + CHUNK_SIZE > b->heap_hi) b->heap_hi = c + CHUNK_SIZE;
            int found;
            uint32_t *slot = u64map_upsert(&num->ord, c, &found);
            if (found) continue;
            XGROW(num->chunk, num->cap, num->n + 1);
            num->chunk[num->n++] = c;
            *slot = num->n | (v8_heap_page_read_only(b->g->h, i) ? ORD_READ_ONLY : 0);
        }
    b->compact = num->n <= MAX_ORD;
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

/* ---- reusing the last build ----
 * watch --heap builds a graph each census from a tracked copy, and between two censuses a program
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

v8_graph_reuse_t *v8_graph_reuse_new(void) { return xcalloc(1, sizeof(v8_graph_reuse_t)); }

/* Forgets the kept arrays (the graph they were lent to keeps its nodes); the numbers stay. */
static void reuse_drop(v8_graph_reuse_t *r)
{
    if (r->lent) r->lent->reuse = NULL, r->lent = NULL; /* its nodes are its own now */
    else graph_unbig(r->nodes);
    graph_unbig(r->tgt);
    graph_unbig(r->slot);
    r->nodes = NULL, r->tgt = r->slot = NULL;
    r->n = 0, r->nedges = 0;
    r->ndeps = r->nfacts = 0;
    r->generation = 0;
}

void v8_graph_reuse_free(v8_graph_reuse_t *r)
{
    if (!r) return;
    reuse_drop(r);
    free(r->first);
    u64map_free(&r->num.ord);
    free(r->num.chunk);
    free(r->pages);
    free(r->deps);
    free(r->deps_next);
    free(r->facts);
    u64map_free(&r->changed);
    free(r);
}

void v8_graph_reuse_stats(const v8_graph_reuse_t *r, size_t *reused, size_t *walked, uint64_t *kept_bytes,
                          const char **why)
{
    *why = r ? r->why : NULL;
    *reused = r ? r->reused : 0;
    *walked = r ? r->walked : 0;
    *kept_bytes = r && r->nodes ? r->n * (sizeof *r->nodes + sizeof *r->first) + r->nedges * 8 : 0;
}

/* Before the walk: whether what r kept may be taken (b->take), its numbers for this build's. */
static void reuse_begin(build_t *b, v8_graph_reuse_t *r)
{
    v8_graph_t *g = b->g;
    b->r = r;
    r->builds++;
    r->reused = r->walked = 0;
    if (r->lent) reuse_drop(r); /* the last graph is still used: its nodes stay its own */
    uint64_t gen = target_copy_generation(g->v->t);
    /* the pages kept name chunks by number: renumbered (nothing kept) before the numbers run out */
    if (r->num.n > MAX_ORD / 2) {
        reuse_drop(r);
        u64map_free(&r->num.ord);
        r->num.n = 0;
        if (r->pages) memset(r->pages, 0, r->cap_pages * sizeof *r->pages);
    }
    b->take = r->nodes && gen && gen == r->generation + 1;
    r->why = b->take || !r->nodes ? NULL : "the copy is not the one after the last graph's";
    /* the maps the kept pages name, looked up again: a page naming one answered otherwise now is
       walked again */
    u64map_free(&r->changed);
    u64map_init(&r->changed);
    for (size_t i = 0; b->take && i < r->nfacts; i++) {
        v8_map_fact_t now, *was = &r->facts[i];
        v8_heap_map_fact(g->h, was->word, &now);
        if (now.is_map != was->is_map || now.type != was->type || now.instance_size != was->instance_size ||
            now.is_prototype != was->is_prototype) {
            int found;
            *u64map_upsert(&r->changed, was->word, &found) = 1;
        }
    }
    r->maps_changed = r->changed.count;
    if (r->maps_changed) {
        snprintf(r->why_buf, sizeof r->why_buf,
                 "%zu of the maps kept pages name changed (died, or slack tracking ended)", r->maps_changed);
        r->why = r->why_buf;
    }
    r->ndeps_next = 0;
    b->num = &r->num;
}

/* After the walk: a build whose references were all found as the walk went, in address order,
   keeps its compact references and its nodes for the next; its graph gets the references resolved
   into arrays of its own (where the last build's kept ones were). */
static void reuse_end(build_t *b, int usable)
{
    v8_graph_reuse_t *r = b->r;
    v8_graph_t *g = b->g;
    uint64_t gen = target_copy_generation(g->v->t);
    reuse_drop(r);
    if (!usable || !gen) { /* nothing kept: the references resolved in place */
        g->nedges = resolve_edges(b, g->first, g->tgt, g->slot);
        return;
    }
    /* this build's maps named: what the lookups answer for each (once) */
    uint64_t *t = r->deps;
    size_t tc = r->cap_deps;
    r->deps = r->deps_next, r->cap_deps = r->cap_deps_next, r->ndeps = r->ndeps_next;
    r->deps_next = t, r->cap_deps_next = tc, r->ndeps_next = 0;
    u64map_t seen;
    u64map_init(&seen);
    for (uint32_t o = 0; o < r->num.n; o++) {
        const kept_page_t *p = &r->pages[o];
        if (p->build != r->builds || !p->ok) continue;
        for (uint32_t k = 0; k < p->ndeps; k++) {
            int found;
            u64map_upsert(&seen, r->deps[p->dep_first + k], &found);
            if (found) continue;
            XGROW(r->facts, r->cap_facts, r->nfacts + 1);
            v8_heap_map_fact(g->h, r->deps[p->dep_first + k], &r->facts[r->nfacts++]);
        }
    }
    u64map_free(&seen);
    /* each node's first reference from its page's, for the pages that may be taken */
    XGROW(r->first, r->cap_first, g->n ? g->n : 1);
    for (uint32_t o = 0; o < r->num.n; o++) {
        const kept_page_t *p = &r->pages[o];
        if (p->build != r->builds || !p->ok) continue;
        for (uint32_t j = 0; j < p->nnodes; j++)
            r->first[p->node_first + j] = (uint16_t)(g->first[p->node_first + j] - p->edge_first);
    }
    /* the references resolved into arrays as big as the compact ones: the next build's compact
       arrays are these pages again (spans of other sizes would leave it fresh pages to fault in
       and zero, a tenth of a census); the offsets in place */
    uint32_t *tgt = graph_big(g->edges_bytes, 0);
    uint32_t *slot = graph_big(g->edges_bytes, 0);
    r->nodes = g->nodes, r->tgt = g->tgt, r->slot = g->slot;
    r->n = g->n, r->nedges = g->nedges;
    g->nedges = resolve_edges(b, g->first, tgt, slot);
    g->tgt = tgt, g->slot = slot;
    r->generation = gen;
    r->lent = g;
    g->reuse = r;
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
    b.e = v8_edges_new(v, h);
    b.buf = big_malloc(SCAN_BUF_WORDS * 8);
    b.pend = V8_NO_NODE;
    u64map_init(&b.module_maps);
    b.num = &b.own_num;
    if (r) reuse_begin(&b, r);
    number_chunks(&b);
    b.fused = b.compact;
    if (r && r->cap_pages < r->num.n) { /* by ordinal; a page never seen: build 0 */
        size_t old = r->cap_pages;
        XGROW(r->pages, r->cap_pages, r->num.n);
        memset(r->pages + old, 0, (r->cap_pages - old) * sizeof *r->pages);
    }
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
    build_chunk_index(g);
    if (!b.fused) { /* the references scanned after the walk, a chunk's objects read at a time */
        if (show_progress) progress_init(&b.progress, "scanning references", "objects");
        int release = !strcmp(target_kind(v->t), "core");
        uint64_t held = 0; /* the chunk whose pages the scan touched last */
        chunk_buf_t cb = {NULL, 0, 0};
        uint64_t *cbuf = NULL, cb_chunk = 0;
        for (size_t i = 0; i < g->n; i++) {
            g->first[i] = g->nedges;
            uint64_t chunk = (g->nodes[i].addr - 1) & ~(uint64_t)(CHUNK_SIZE - 1);
            if (release && chunk != held) {
                /* a core is mmap'ed: hand back the pages of the chunk scanned last, as the heap
                   walk does, or the whole heap would stay in our resident set */
                if (held) graph_release_range(v->t, held, CHUNK_SIZE);
                held = chunk;
            }
            if (!release && chunk != cb_chunk) {
                /* a process: its objects in this chunk, from the first to the end of the last, in
                   one read (where it fails, each object is read by itself) */
                cb_chunk = chunk;
                cb.lo = cb.hi = 0;
                uint64_t lo = g->nodes[i].addr - 1, hi = lo;
                for (size_t j = i; j < g->n && ((g->nodes[j].addr - 1) & ~(uint64_t)(CHUNK_SIZE - 1)) == chunk; j++) {
                    uint64_t a = g->nodes[j].addr - 1, z = a + g->nodes[j].size;
                    if (z > hi) hi = z;
                }
                if (hi > chunk + CHUNK_SIZE) hi = chunk + CHUNK_SIZE;
                if (!cbuf) cbuf = graph_big(CHUNK_SIZE, 0);
                cb.data = cbuf;
                if (hi > lo && target_read(v->t, lo, cbuf, hi - lo) == 0) cb.lo = lo, cb.hi = hi;
            }
            scan_node(&b, (uint32_t)i, &cb);
            if (show_progress && (i & 0xffff) == 0) progress_update(&b.progress, i, g->n);
        }
        g->first[g->n] = g->nedges;
        if (release && held) graph_release_range(v->t, held, CHUNK_SIZE);
        if (show_progress) progress_done(&b.progress);
        graph_unbig(cbuf);
    }
    if (r && b.compact) reuse_end(&b, b.fused && !stopped);
    else if (b.compact) g->nedges = resolve_edges(&b, g->first, g->tgt, g->slot);
    free(b.buf);
    free(b.own_num.chunk);
    u64map_free(&b.own_num.ord);
    v8_edges_free(b.e);
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

/* The forward edges of a graph built here (not loaded from a cache file). */
static void free_edges(v8_graph_t *g)
{
    graph_unbig(g->first);
    graph_unbig(g->tgt); /* graph_big's, or malloc's (graph_cache.c's reverse build) */
    graph_unbig(g->slot);
    g->edges_bytes = 0;
}

/* A graph built reusing lends its nodes to the reuse state, which keeps them for the next build. */
static void free_nodes(v8_graph_t *g)
{
    if (g->reuse) g->reuse->lent = NULL, g->reuse = NULL;
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
    free_chunk_index(g);
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
