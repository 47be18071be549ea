/* A graph's roots (graph_find_roots), in the order paths prefer them: the main global object,
 * CommonJS and ES module records and script contexts, the threads' stacks, then native memory
 * (the conservative scan, and V8's snapshot object caches found in it as runs of object pointers
 * ended by undefined). heap_graph.c's top comment says what each level means for a path. */
#include "util/bigmem.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include "v8/graph_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

static void add_root(v8_graph_t *g, uint32_t node, v8_root_level_t level, const char *name)
{
    if (node == V8_NO_NODE) return;
    if (g->nroots == g->caproots) {
        g->caproots = g->caproots ? g->caproots * 2 : 256;
        g->roots = big_realloc(g->roots, g->caproots * sizeof *g->roots);
    }
    g->roots[g->nroots++] = (v8_graph_root_t){node, level, strpool_cstr(g->names, name)};
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Module records: objects of class Module (candidates noted during the walk, addrs) with a
 * string "filename", in address order. */
static void module_roots(v8_graph_t *g, uint64_t *addrs, size_t n)
{
    buf_t b = {0};
    if (n > 1) qsort(addrs, n, sizeof *addrs, cmp_u64);
    for (size_t k = 0; k < n; k++) {
        if (k && addrs[k] == addrs[k - 1]) continue;
        uint32_t i = v8_graph_find(g, addrs[k]);
        if (i == V8_NO_NODE || !(g->nodes[i].flags & V8_NODE_JS) || g->nodes[i].type != g->v->L.type_js_object)
            continue;
        uint64_t fname;
        int trunc;
        if (v8_object_get(g->v, g->nodes[i].addr, "filename", &fname) != 0) continue;
        buf_clear(&b);
        buf_puts(&b, "module ");
        if (v8_string(g->v, fname, &b, 1024, &trunc) != 0) continue;
        add_root(g, i, V8_ROOT_MODULE, b.data);
    }
    buf_free(&b);
}

/* V8's snapshot object caches: vectors in native memory (Isolate's startup_object_cache_ and
 * shared_heap_object_cache_) of the objects the startup snapshot's code refers to by index, each
 * ended by undefined; V8's own heap snapshot shows them as "(Startup object cache)" and
 * "(Shareable object cache)" (strings only). Found as a run of at least CACHE_MIN_RUN words that
 * all point at object starts, ended by undefined: on Node 18-24 the two runs are 4,841-7,702 words,
 * every other such run in a node process's native memory is under 1,400. */
#define CACHE_MIN_RUN 2048
#define CACHE_MAX_RUN (1u << 20)

typedef struct {
    uint64_t start, len, strings; /* the run of object pointers being read */
    size_t root_mark;             /* g->nroots when it began */
    uint64_t undefined;           /* the undefined value (0: not known: no caches) */
} cache_run_t;

/* The run [r->start, +r->len) ended by undefined: its roots, added as the scan went, become one
 * root per element named for the cache (the terminator included, as V8 counts it). */
static void cache_found(v8_graph_t *g, cache_run_t *r, uint8_t *seen)
{
    const char *name = r->strings == r->len ? V8_ROOT_SHAREABLE_CACHE : V8_ROOT_STARTUP_CACHE;
    g->nroots = r->root_mark;
    uint64_t buf[512];
    for (uint64_t i = 0; i <= r->len; i += 512) {
        uint64_t cnt = r->len + 1 - i < 512 ? r->len + 1 - i : 512;
        if (target_read(g->v->t, r->start + i * 8, buf, cnt * 8) != 0) return;
        for (uint64_t k = 0; k < cnt; k++) {
            uint32_t t = v8_graph_find(g, buf[k]);
            if (t == V8_NO_NODE) continue;
            seen[t] |= (uint8_t)(1u << V8_ROOT_NATIVE);
            add_root(g, t, V8_ROOT_NATIVE, name);
        }
    }
}

/* Words in [start, end) of the target that point at object starts become roots; in native memory
 * (heap_chunks given, run->undefined known) V8's snapshot object caches are told apart. */
static void scan_roots(v8_graph_t *g, uint64_t start, uint64_t end, v8_root_level_t level, const char *name,
                       uint8_t *seen, u64map_t *heap_chunks, uint64_t *budget, cache_run_t *run)
{
    uint64_t buf[4096];
    start = (start + 7) & ~7ull;
    if (run) run->len = 0;
    for (uint64_t a = start; a + 8 <= end && *budget;) {
        if (heap_chunks) { /* skip the V8 heap's own chunks */
            uint32_t x;
            uint64_t chunk = a & ~(uint64_t)(CHUNK_SIZE - 1);
            if (u64map_get(heap_chunks, chunk, &x)) {
                a = chunk + CHUNK_SIZE;
                if (run) run->len = 0;
                continue;
            }
        }
        uint64_t lim = (a & ~(uint64_t)(CHUNK_SIZE - 1)) + CHUNK_SIZE;
        if (lim > end) lim = end;
        uint64_t cnt = (lim - a) / 8;
        if (cnt > 4096) cnt = 4096;
        if (!cnt) break;
        if (cnt * 8 > *budget) cnt = *budget / 8 ? *budget / 8 : 1;
        const uint64_t *p = target_direct(g->v->t, a, cnt * 8);
        if (!p) {
            if (target_read(g->v->t, a, buf, cnt * 8) != 0) {
                a += cnt * 8;
                if (run) run->len = 0;
                continue;
            }
            p = buf;
        }
        for (uint64_t k = 0; k < cnt; k++) {
            uint64_t w = p[k];
            uint32_t t = (w & 3) != 1 || w < g->lo || w > g->hi ? V8_NO_NODE : v8_graph_find(g, w);
            if (run && run->undefined) {
                if (t != V8_NO_NODE && w != run->undefined && run->len < CACHE_MAX_RUN) {
                    if (!run->len) run->start = a + k * 8, run->strings = 0, run->root_mark = g->nroots;
                    run->len++;
                    run->strings += v8_is_string_type(g->v, g->nodes[t].type) != 0;
                } else {
                    if (w == run->undefined && run->len >= CACHE_MIN_RUN) cache_found(g, run, seen);
                    run->len = 0;
                }
            }
            if (t == V8_NO_NODE || (seen[t] & (1u << level))) continue;
            seen[t] |= (uint8_t)(1u << level);
            add_root(g, t, level, name);
        }
        if (p != buf && !strcmp(target_kind(g->v->t), "core")) graph_release_range(g->v->t, a, cnt * 8);
        *budget = *budget > cnt * 8 ? *budget - cnt * 8 : 0;
        a += cnt * 8;
    }
}

/* An ES module's url, appended to b: its code is the module function, or once evaluated the
 * generator object running it; "(ES module)" when neither names a script. */
static void es_module_url(v8_t *v, uint64_t module, buf_t *b)
{
    uint64_t code, fn;
    v8_function_t fi;
    int ok = v8_read_field(v, module, V8_MODULE_CODE, &code) == 0;
    if (ok && v8_has_type(v, code, v->L.type_js_generator_object) &&
        v8_read_field(v, code, v->L.gen_function, &fn) == 0)
        code = fn;
    if (ok && (v8_function_info(v, code, &fi) == 0 || v8_shared_info(v, code, &fi) == 0)) {
        buf_puts(b, fi.script_name ? fi.script_name : "(ES module)");
        v8_function_free(&fi);
        return;
    }
    buf_puts(b, "(ES module)");
}

/* 1 when the frame is where a thread's stack begins (the unwind went all the way). */
static int thread_entry(target_t *t, const v8_frame_t *f)
{
    static const char *const entries[] = {
        "_start",  "__libc_start_main", "__libc_start_call_main", "start_thread", "clone", "clone3",
        "__clone", "__clone3"};
    target_symbol_t sym;
    if (target_symbolize(t, v8_frame_lookup_pc(f), &sym) != 0 || !sym.name) return 0;
    const char *n = sym.name + (strncmp(sym.name, "__GI_", 5) ? 0 : 5); /* __GI___clone3 */
    size_t len = strcspn(n, "@");                                       /* __libc_start_main@GLIBC_2.2.5 */
    if (len > 5 && !strncmp(n + len - 5, "_impl", 5)) len -= 5;         /* __libc_start_main_impl */
    for (size_t k = 0; k < sizeof entries / sizeof *entries; k++)
        if (strlen(entries[k]) == len && !strncmp(n, entries[k], len)) return 1;
    return 0;
}

/* Where a thread's V8 frames end: the stack pointer of the native frame that called its outermost
 * one (JS, builtin, entry, exit); 0 when the thread runs no JavaScript (unwound to its start), the
 * stack's end when the unwind ends in V8's frames or cannot tell. Only [sp, there) holds what
 * JavaScript keeps: a native frame keeps V8 objects through handles (slots in HandleScope blocks,
 * native memory), and its words are as often what calls that returned left behind (libuv's epoll
 * buffer lies over the last tick's JS frames: an obsolete Map table there, with every entry it
 * ever had, read as a leak). */
static uint64_t v8_frames_end(v8_t *v, size_t thread, uint64_t stack_end)
{
    enum { MAX_FRAMES = 1024 };
    v8_frame_t *f = xmalloc(MAX_FRAMES * sizeof *f);
    size_t n = v8_stack(v, thread, f, MAX_FRAMES), last = n;
    for (size_t k = 0; k < n; k++)
        if (f[k].kind != V8_FRAME_NATIVE) last = k;
    uint64_t end = stack_end;
    if (n && n < MAX_FRAMES && last == n && thread_entry(v->t, &f[n - 1])) end = 0;
    for (size_t k = last + 1; last < n && k < n; k++)
        if (f[k].kind == V8_FRAME_NATIVE && f[k].sp > f[last].sp) {
            end = f[k].sp < stack_end ? f[k].sp : stack_end;
            break;
        }
    free(f);
    return end;
}

void graph_find_roots(v8_graph_t *g, uint64_t *modules, size_t nmodules)
{
    v8_t *v = g->v;
    target_t *t = v->t;
    uint64_t global;
    if (v8_global_object(v, &global) == 0) add_root(g, v8_graph_find(g, global), V8_ROOT_GLOBAL, "globalThis");
    module_roots(g, modules, nmodules);
    /* one pass over the nodes for what the roots need (a census's nodes are hundreds of MB: a
       pass each was a tenth of its roots' time): ES module records, script contexts, V8's
       read-only objects, and undefined (which ends V8's object caches in native memory) */
    uint32_t *esm = NULL, *scx = NULL, *ro = NULL;
    size_t nesm = 0, cesm = 0, nscx = 0, cscx = 0, nro = 0, cro = 0;
    cache_run_t run = {0};
    for (size_t i = 0; i < g->n; i++) {
        const v8_graph_node_t *nd = &g->nodes[i];
        if (nd->flags & V8_NODE_READ_ONLY) {
            XGROW(ro, cro, nro + 1);
            ro[nro++] = (uint32_t)i;
        }
        if (v->L.type_source_text_module >= 0 && nd->type == v->L.type_source_text_module) {
            XGROW(esm, cesm, nesm + 1);
            esm[nesm++] = (uint32_t)i;
        } else if (v->L.type_script_context >= 0 && nd->type == v->L.type_script_context) {
            XGROW(scx, cscx, nscx + 1);
            scx[nscx++] = (uint32_t)i;
        } else if (!run.undefined && nd->type == v->L.type_oddball &&
                   v8_oddball_kind(v, nd->addr) == V8_ODDBALL_UNDEFINED) {
            run.undefined = nd->addr;
        }
    }
    /* ES modules: their records, named by the module's url (from its function's script) */
    buf_t b = {0};
    for (size_t k = 0; k < nesm; k++) {
        buf_clear(&b);
        buf_puts(&b, "module ");
        es_module_url(v, g->nodes[esm[k]].addr, &b);
        add_root(g, esm[k], V8_ROOT_MODULE, b.data);
    }
    /* script scopes: a script's top-level `let`, `const` and `class` live in its ScriptContext,
       which the native context's table holds (a path through it would name only V8 internals) */
    for (size_t k = 0; k < nscx; k++) add_root(g, scx[k], V8_ROOT_GLOBAL, "(script scope)");
    /* what the global object and the modules reach needs no other root: mark it first, so that
       stacks and native memory (millions of stale words: marking worklists left by the last GC)
       add roots only for what nothing else holds */
    uint8_t *seen = graph_big(g->n, 1);
    {
        /* kept as g->global_reach: v8_graph_held's marking starts from it */
        uint32_t *queue = graph_big(g->n * sizeof *queue, 0);
        uint64_t *reach = big_calloc(g->n / 64 + 1, 8);
        size_t qh = 0, qt = 0;
#define VISIT(x) (seen[x] = 0xff, reach[(x) / 64] |= 1ull << ((x) % 64), queue[qt++] = (x))
        for (size_t r = 0; r < g->nroots; r++)
            if (!seen[g->roots[r].node]) VISIT(g->roots[r].node);
        while (qh < qt) {
            uint32_t i = queue[qh++];
            for (uint64_t k = g->first[i]; k < g->first[i + 1]; k++)
                if (!(g->slot[k] & V8_SLOT_WEAK) && !seen[g->tgt[k]]) VISIT(g->tgt[k]);
        }
#undef VISIT
        graph_unbig(queue);
        g->global_reach = reach;
    }
    for (size_t k = 0; k < nro; k++) {
        seen[ro[k]] = 0xff;
        add_root(g, ro[k], V8_ROOT_NATIVE, "(read-only space)");
    }
    u64map_t chunks;
    u64map_init(&chunks);
    /* every page of the heap (the from-space's stale copies too) is the heap, not native memory;
       the walk's objects all lie on those pages */
    uint64_t ps, pe;
    for (size_t i = 0; v8_heap_page_range(g->h, i, &ps, &pe) == 0; i++) {
        int found;
        for (uint64_t c = ps & ~(uint64_t)(CHUNK_SIZE - 1); c < pe; c += CHUNK_SIZE)
            *u64map_upsert(&chunks, c, &found) = 1;
    }
    uint64_t budget = MAX_STACK_BYTES * 16;
    char name[64];
    for (size_t i = 0; i < target_thread_count(t); i++) {
        const target_thread_t *th = target_thread(t, i);
        const target_mapping_t *m = th ? target_mapping_at(t, th->sp) : NULL;
        if (!m) continue;
        uint64_t end = m->end - th->sp > MAX_STACK_BYTES ? th->sp + MAX_STACK_BYTES : m->end;
        uint64_t js_end = v8_frames_end(v, i, end);
        if (js_end < th->sp) js_end = th->sp;
        snprintf(name, sizeof name, "(stack of thread %zu)", i + 1);
        scan_roots(g, th->sp, js_end, V8_ROOT_STACK, name, seen, NULL, &budget, NULL);
        snprintf(name, sizeof name, "(native frames of thread %zu)", i + 1);
        scan_roots(g, js_end, end, V8_ROOT_NATIVE, name, seen, NULL, &budget, NULL);
    }
    budget = MAX_NATIVE_BYTES;
    for (size_t i = 0; i < target_mapping_count(t); i++) {
        const target_mapping_t *m = target_mapping(t, i);
        if (!m->present || !(m->prot & PROT_WRITE) || (m->prot & PROT_EXEC)) continue;
        int is_stack = 0;
        for (size_t k = 0; k < target_thread_count(t) && !is_stack; k++) {
            const target_thread_t *th = target_thread(t, k);
            is_stack = th && th->sp >= m->start && th->sp < m->end;
        }
        if (is_stack) continue;
        buf_clear(&b);
        if (m->path) {
            const char *base = strrchr(m->path, '/');
            buf_printf(&b, "(native: %s)", base ? base + 1 : m->path);
        } else {
            buf_puts(&b, "(native heap: global and persistent handles)");
        }
        scan_roots(g, m->start, m->end, V8_ROOT_NATIVE, b.data, seen, &chunks, &budget, &run);
    }
    buf_free(&b);
    free(esm);
    free(scx);
    free(ro);
    u64map_free(&chunks);
    graph_unbig(seen);
}