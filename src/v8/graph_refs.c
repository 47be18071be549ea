/* The references' scan and their resolution (graph_refs.h: compact addresses and why). */
#include "v8/graph_refs.h"
#include "util/bigmem.h"
#include "util/progress.h"
#include "util/xalloc.h"
#include "v8/graph_index.h"
#include <stdlib.h>
#include <string.h>

#define SCAN_BUF_WORDS 8192 /* an object's words read at a time, past what the walk read */

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

static void add_edge(v8_graph_t *g, uint32_t t, uint32_t slot)
{
    if (g->nedges == g->capedges) graph_room_for_edges(g, 1);
    g->tgt[g->nedges] = t;
    g->slot[g->nedges++] = slot;
}

/* Bytes [lo, hi) of the target at data (a page as the walk read it, or a chunk's objects), when hi > lo. */
typedef struct {
    const uint64_t *data;
    uint64_t lo, hi;
} chunk_buf_t;

/* The word in slot (a word index) of the object being scanned: an edge when it may point at an object. */
static inline void candidate(graph_refs_t *f, uint64_t word, uint64_t slot)
{
    if ((word & 1) == 0 || word < f->heap_lo || word >= f->heap_hi) return;
    uint32_t weak = (word & 3) == 3 ? V8_SLOT_WEAK : 0, t;
    uint32_t sl = (uint32_t)(slot < 0x7fffffff ? slot : 0x7fffffff) | weak;
    uint64_t a = word & ~(uint64_t)3, chunk = a & ~(uint64_t)(CHUNK_SIZE - 1);
    v8_graph_t *g = f->g;
    if (f->compact) {
        /* most references stay near: a direct-mapped cache of chunk_ord's answers first */
        size_t r = (size_t)(chunk >> 18) & (ORD_RECENT - 1);
        uint32_t ord;
        if (f->recent_chunk[r] == chunk) ord = f->recent_ord[r];
        else if (!u64map_get(&f->num->ord, chunk, &ord)) return;
        else f->recent_chunk[r] = chunk, f->recent_ord[r] = ord;
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
static void scan_node(graph_refs_t *f, uint32_t i, const chunk_buf_t *cb)
{
    v8_graph_t *g = f->g;
    const v8_graph_node_t *nd = &g->nodes[i];
    uint64_t end = v8_edges_tagged_end(f->e, nd->type, nd->size);
    uint64_t words = end / 8, base = nd->addr - 1;
    if (words > MAX_SCAN_WORDS) words = MAX_SCAN_WORDS;
    for (uint64_t w0 = 0; w0 < words; w0 += SCAN_BUF_WORDS) {
        uint64_t cnt = words - w0 < SCAN_BUF_WORDS ? words - w0 : SCAN_BUF_WORDS;
        uint64_t at = base + 8 * w0;
        const uint64_t *p =
            at >= cb->lo && at + cnt * 8 <= cb->hi ? cb->data + (at - cb->lo) / 8 : target_direct(g->v->t, at, cnt * 8);
        if (!p) {
            if (target_read(g->v->t, at, f->buf, cnt * 8) != 0) return;
            p = f->buf;
        }
        for (uint64_t k = 0; k < cnt; k++) candidate(f, p[k], w0 + k);
    }
}

/* Node i as the walk read it: bytes, avail of them. */
void graph_refs_scan_walked(graph_refs_t *f, uint32_t i, const unsigned char *bytes, uint64_t avail)
{
    v8_graph_t *g = f->g;
    uint64_t at = g->nodes[i].addr - 1;
    chunk_buf_t cb = {(const uint64_t *)(const void *)bytes, at, bytes ? at + avail : at};
    scan_node(f, i, &cb);
    /* a core's large object, read past its header: its pages handed back (the walk's own reads
       are counted and released by the walk) */
    if ((g->nodes[i].flags & V8_NODE_LARGE) && !strcmp(target_kind(g->v->t), "core"))
        graph_release_range(g->v->t, at, g->nodes[i].size);
}

/* graph_refs_resolve, hw: counting with the popcnt instruction (GRAPH_POPCNT). */
static inline __attribute__((always_inline)) uint64_t resolve_edges_by(const graph_refs_t *f, int hw, uint64_t *first,
                                                                       uint32_t *tgt, uint32_t *slot)
{
    v8_graph_t *g = f->g;
    const chunk_numbers_t *num = f->num;
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
static uint64_t resolve_edges_sw(const graph_refs_t *f, uint64_t *first, uint32_t *tgt, uint32_t *slot)
{
    return resolve_edges_by(f, 0, first, tgt, slot);
}
static GRAPH_POPCNT uint64_t resolve_edges_hw(const graph_refs_t *f, uint64_t *first, uint32_t *tgt, uint32_t *slot)
{
    return resolve_edges_by(f, 1, first, tgt, slot);
}
uint64_t graph_refs_resolve(const graph_refs_t *f, uint64_t *first, uint32_t *tgt, uint32_t *slot)
{
    return have_popcnt() ? resolve_edges_hw(f, first, tgt, slot) : resolve_edges_sw(f, first, tgt, slot);
}

void graph_refs_begin(graph_refs_t *f, v8_graph_t *g, chunk_numbers_t *num)
{
    uint64_t ps, pe;
    f->g = g;
    f->e = v8_edges_new(g->v, g->h);
    f->buf = big_malloc(SCAN_BUF_WORDS * 8);
    f->num = num = num ? num : &f->own_num;
    if (!num->ord.slots) u64map_init(&num->ord);
    for (size_t r = 0; r < ORD_RECENT; r++) f->recent_chunk[r] = 1;
    f->heap_lo = UINT64_MAX, f->heap_hi = 0;
    for (size_t i = 0; v8_heap_page_range(f->g->h, i, &ps, &pe) == 0; i++)
        for (uint64_t c = ps & ~(uint64_t)(CHUNK_SIZE - 1); c < pe; c += CHUNK_SIZE) {
            if (c < f->heap_lo) f->heap_lo = c;
            if (c + CHUNK_SIZE > f->heap_hi) f->heap_hi = c + CHUNK_SIZE;
            int found;
            uint32_t *slot = u64map_upsert(&num->ord, c, &found);
            if (found) continue;
            XGROW(num->chunk, num->cap, num->n + 1);
            num->chunk[num->n++] = c;
            *slot = num->n | (v8_heap_page_read_only(f->g->h, i) ? ORD_READ_ONLY : 0);
        }
    f->compact = num->n <= MAX_ORD;
}

void graph_refs_scan(graph_refs_t *f, int show_progress)
{
    v8_graph_t *g = f->g;
    v8_t *v = g->v;
    progress_t progress;
    if (show_progress) progress_init(&progress, "scanning references", "objects");
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
        scan_node(f, (uint32_t)i, &cb);
        if (show_progress && (i & 0xffff) == 0) progress_update(&progress, i, g->n);
    }
    g->first[g->n] = g->nedges;
    if (release && held) graph_release_range(v->t, held, CHUNK_SIZE);
    if (show_progress) progress_done(&progress);
    graph_unbig(cbuf);
}

void graph_refs_end(graph_refs_t *f)
{
    free(f->buf);
    free(f->own_num.chunk);
    u64map_free(&f->own_num.ord);
    v8_edges_free(f->e);
}
