/* Suspended generators and async functions joined with the promises they await: one heap walk
 * collects the generators and, from every pending promise's reactions (an await closure's
 * context holds its generator), which promise each one awaits; then each awaited promise is
 * matched with the generator it belongs to, so chains of awaits can be followed (pm_async_link:
 * the first step of each chain; pm_async_group: the innermost ones folded by identical chains,
 * each frame's text read once per function and bytecode offset). */
#include "postmortem/async.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

void pm_async_frame_text(v8_t *v, const v8_async_frame_t *f, int with_async, buf_t *b)
{
    if (f->kind == V8_ASYNC_COMBINATOR) {
        buf_printf(b, "%s%s (index %d)", with_async ? "async " : "", f->combinator, f->index);
        return;
    }
    v8_generator_t g;
    v8_function_t fi;
    if (v8_generator_info(v, f->generator, &g) != 0 || v8_function_info(v, g.function, &fi) != 0) {
        buf_printf(b, "%s<unreadable generator 0x%llx>", with_async ? "async " : "", (unsigned long long)f->generator);
        return;
    }
    const char *name = v8_function_display_name(&fi, NULL);
    const char *file = fi.script_name && *fi.script_name ? fi.script_name : "<anonymous>";
    if (with_async) buf_puts(b, "async ");
    /* as V8 prints a frame: "name (file:line:col)", or for an anonymous function "file:line:col" */
    if (name) buf_printf(b, "%s (%s:%d:%d)", name, file, g.line, g.col);
    else buf_printf(b, "%s:%d:%d", file, g.line, g.col);
    v8_function_free(&fi);
}

void pm_async_frame_json(v8_t *v, const v8_async_frame_t *f, jw_t *w)
{
    if (f->kind == V8_ASYNC_COMBINATOR) {
        jw_string(w, "combinator", f->combinator);
        jw_int(w, "index", f->index);
        return;
    }
    v8_generator_t g;
    v8_function_t fi;
    int ok = v8_generator_info(v, f->generator, &g) == 0 && v8_function_info(v, g.function, &fi) == 0;
    jw_address(w, "generator", f->generator);
    jw_string(w, "name", ok ? v8_function_display_name(&fi, "") : "");
    jw_string(w, "file", ok ? fi.script_name : NULL);
    jw_int(w, "line", ok ? g.line : 0);
    jw_int(w, "column", ok ? g.col : 0);
    if (ok) v8_function_free(&fi);
}

typedef struct {
    pm_async_t *c;
    uint64_t promise;
} reaction_ctx_t;

/* A reaction of a pending promise: when its handler is an await closure, that generator awaits
 * the promise. */
static int on_reaction(void *ctx, uint64_t reaction, uint64_t fulfill, uint64_t reject)
{
    pm_async_t *c = ((reaction_ctx_t *)ctx)->c;
    uint64_t promise = ((reaction_ctx_t *)ctx)->promise;
    uint64_t gen = v8_await_closure_generator(c->v, fulfill);
    (void)reaction, (void)reject;
    if (!gen) return 0;
    if (c->np == c->capp) {
        c->capp = c->capp ? c->capp * 2 : 1024;
        c->promises = xrealloc(c->promises, c->capp * sizeof *c->promises);
    }
    c->promises[c->np++] = promise;
    int found;
    *u64map_upsert(&c->awaits, gen, &found) = (uint32_t)c->np;
    return 0;
}

static int on_object(void *ctx, const v8_heap_object_t *o)
{
    pm_async_t *c = ctx;
    v8_t *v = c->v;
    if ((++c->seen & 0xffff) == 0) progress_update(&c->progress, c->seen, 0);
    if (v8_is_generator_type(v, o->type)) {
        v8_generator_t g;
        if (v8_generator_state(v, o->addr, &g) != 0) return 0;
        if (g.state == V8_GEN_EXECUTING) c->executing++;
        if (g.state == V8_GEN_CLOSED) c->closed++;
        if (g.state != V8_GEN_SUSPENDED) return 0;
        if (c->n == c->cap) {
            c->cap = c->cap ? c->cap * 2 : 256;
            c->g = xrealloc(c->g, c->cap * sizeof *c->g);
        }
        c->g[c->n++] = (pm_async_gen_t){g, 0, 0, 0};
    } else if (c->awaits_wanted && v8_is_promise_type(v, o->type)) {
        reaction_ctx_t rc = {c, o->addr};
        v8_promise_reactions(v, o->addr, on_reaction, &rc, 64);
    }
    return 0;
}

int pm_async_collect(v8_t *v, pm_async_t *c, int awaits_wanted)
{
    memset(c, 0, sizeof *c);
    c->v = v;
    c->awaits_wanted = awaits_wanted;
    u64map_init(&c->by_addr);
    u64map_init(&c->awaits);
    v8_heap_t *h = v8_heap_open(v);
    if (!v8_heap_found(h)) {
        diag_error(target_name(v8_target(v)), 0, "async: no V8 heap pages found in the target's memory");
        v8_heap_close(h);
        return -1;
    }
    progress_init(&c->progress, "walking the heap", "objects");
    v8_heap_stats_t st;
    v8_heap_walk(h, on_object, c, &st);
    progress_done(&c->progress);
    if (st.unreadable_pages)
        diag_warn(target_name(v8_target(v)), 0,
                  "async: %zu heap pages could not be read (not in the core?): the list may be partial",
                  st.unreadable_pages);
    v8_heap_close(h);
    /* indexed once the count is known: no rehashing of 300,000 entries as they come */
    u64map_reserve(&c->by_addr, c->n);
    for (size_t i = 0; i < c->n; i++) {
        int found;
        *u64map_upsert(&c->by_addr, c->g[i].g.addr, &found) = (uint32_t)(i + 1);
    }
    if (!awaits_wanted) return 0;
    /* which promise each awaits, and whose promise that is */
    u64map_t by_promise;
    u64map_init(&by_promise);
    u64map_reserve(&by_promise, c->n);
    for (size_t i = 0; i < c->n; i++)
        if (c->g[i].g.promise) {
            int found;
            *u64map_upsert(&by_promise, c->g[i].g.promise, &found) = (uint32_t)(i + 1);
        }
    for (size_t i = 0; i < c->n; i++) {
        uint32_t k;
        if (u64map_get(&c->awaits, c->g[i].g.addr, &k)) {
            c->g[i].awaiting = c->promises[k - 1];
            uint32_t j;
            if (u64map_get(&by_promise, c->g[i].awaiting, &j)) c->g[i].awaited_gen = (int)j;
        }
    }
    u64map_free(&by_promise);
    return 0;
}

void pm_async_free(pm_async_t *c)
{
    free(c->g);
    free(c->promises);
    free(c->chain_len);
    free(c->next_gen);
    u64map_free(&c->by_addr);
    u64map_free(&c->awaits);
}

const char *pm_async_kind_name(v8_gen_kind_t k)
{
    return k == V8_GEN_ASYNC_FUNCTION    ? "async function"
           : k == V8_GEN_ASYNC_GENERATOR ? "async generator"
                                         : "generator";
}

const char *pm_promise_state_name(int st)
{
    return st == V8_PROMISE_PENDING     ? "pending"
           : st == V8_PROMISE_FULFILLED ? "fulfilled"
           : st == V8_PROMISE_REJECTED  ? "rejected"
                                        : "unreadable";
}

#define MAX_SOURCE_BYTES (8u << 20)
#define MAX_EXPRESSION 60

/* The awaited expression, from the script's source at the await: "pool.query(…)" for
 * `await pool.query(sql, id)`, "never" for `await never;`. Nothing when the position is not at an
 * `await` (a definition fallback, a yield, a source that is not there). */
static void await_expression(v8_t *v, const v8_generator_t *g, buf_t *out)
{
    v8_function_t fi;
    uint64_t src;
    if (g->position_is_definition || !g->line || v8_function_info(v, g->function, &fi) != 0) return;
    buf_t b = {0};
    int tr;
    if (fi.script && v8_script_source(v, fi.script, &src) == 0) v8_string(v, src, &b, MAX_SOURCE_BYTES, &tr);
    v8_function_free(&fi);
    const char *p = b.data, *end = b.data + b.len;
    for (int line = 1; p && p < end && line < g->line; line++) {
        p = memchr(p, '\n', (size_t)(end - p));
        if (p) p++;
    }
    if (p && p + g->col - 1 + 6 <= end && !strncmp(p + g->col - 1, "await", 5)) {
        const char *e = p + g->col - 1 + 5;
        while (e < end && (*e == ' ' || *e == '\t')) e++;
        size_t n = 0;
        int depth = 0;
        while (e + n < end && n < MAX_EXPRESSION && e[n] != '\n') {
            char c = e[n];
            if (c == '(' || c == '[' || c == '{') {
                if (c == '(' && depth == 0) { /* a call: its arguments elided */
                    buf_append(out, e, n);
                    buf_puts(out, "(…)");
                    n = 0;
                    break;
                }
                depth++;
            } else if (c == ')' || c == ']' || c == '}') {
                if (depth-- == 0) break;
            } else if ((c == ';' || c == ',') && depth == 0) {
                break;
            }
            n++;
        }
        while (n && (e[n - 1] == ' ' || e[n - 1] == '\t')) n--;
        if (n) buf_append(out, e, n);
    }
    buf_free(&b);
}

/* The innermost frame: where g itself is suspended ("await pool.query(…) in getUser (...)"). */
void pm_async_self_text(v8_t *v, const pm_async_gen_t *g, buf_t *b)
{
    v8_async_frame_t self = {V8_ASYNC_AWAIT, g->g.addr, 0, NULL, 0};
    int yield = g->g.kind == V8_GEN_GENERATOR || g->g.awaiting_yield;
    buf_puts(b, yield ? "yield " : "await ");
    if (!yield) {
        size_t before = b->len;
        await_expression(v, &g->g, b);
        if (b->len > before) buf_putc(b, ' ');
    }
    buf_puts(b, "in ");
    pm_async_frame_text(v, &self, 0, b);
}

/* Frame texts by (SharedFunctionInfo, bytecode offset): 100,000 requests suspended at the same
 * await cost one position lookup. */
typedef struct {
    u64map_t index; /* key -> index + 1 into texts */
    const char **texts;
    size_t n, cap;
    strpool_t *pool;
    buf_t tmp;
} text_cache_t;

/* known: f's generator state when the caller has it (else it is read) */
static void cached_frame_text_of(v8_t *v, text_cache_t *tc, const v8_async_frame_t *f, const v8_generator_t *known,
                                 buf_t *b)
{
    v8_generator_t read;
    const v8_generator_t *gp = known;
    if (!gp && f->kind == V8_ASYNC_AWAIT && v8_generator_state(v, f->generator, &read) == 0) gp = &read;
    if (f->kind != V8_ASYNC_AWAIT || !gp || !gp->shared) {
        pm_async_frame_text(v, f, 0, b);
        return;
    }
    const v8_generator_t g = *gp;
    uint64_t key = hash_u64(g.shared) ^ (uint64_t)g.bytecode_offset;
    uint32_t k;
    if (!u64map_get(&tc->index, key, &k)) {
        buf_clear(&tc->tmp);
        pm_async_frame_text(v, f, 0, &tc->tmp);
        if (tc->n == tc->cap) {
            tc->cap = tc->cap ? tc->cap * 2 : 64;
            tc->texts = xrealloc(tc->texts, tc->cap * sizeof *tc->texts);
        }
        tc->texts[tc->n++] = strpool_intern(tc->pool, tc->tmp.data ? tc->tmp.data : "", tc->tmp.len);
        int found;
        *u64map_upsert(&tc->index, key, &found) = k = (uint32_t)tc->n;
    }
    buf_puts(b, tc->texts[k - 1]);
}

/* The chain of g (index i), outermost last, as v8_async_chain(g's promise) finds it, with what the
 * first pass learnt reused: a generator whose promise's one reaction is an await of suspended
 * generator j continues as j's own chain does (v8_async_chain takes exactly that step: the frame
 * of j, then j's promise), so 100,000 requests suspended in one call chain read each outer
 * generator once, not once per request. gens[k] is the index + 1 of chain[k]'s generator when
 * known. Where the first pass did not see such a step, v8_async_chain reads the rest. */
static size_t chain_of(const pm_async_t *c, size_t i, v8_async_frame_t *chain, uint32_t *gens, size_t max)
{
    size_t m = 0;
    uint64_t promise = c->g[i].g.promise;
    if (!promise) return 0;
    while (m < max && c->next_gen[i]) {
        size_t j = c->next_gen[i] - 1;
        gens[m] = (uint32_t)(j + 1);
        chain[m++] = (v8_async_frame_t){V8_ASYNC_AWAIT, c->g[j].g.addr, promise, NULL, 0};
        uint64_t p = c->g[j].g.promise;
        if (!p || p == promise) return m;
        promise = p;
        i = j;
    }
    if (m >= max) return m;
    size_t n = v8_async_chain(c->v, promise, chain + m, max - m);
    for (size_t k = m; k < m + n; k++) gens[k] = 0;
    return m + n;
}

static int by_count(const void *a, const void *b)
{
    const pm_async_group_t *x = a, *y = b;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    return strcmp(x->text, y->text);
}

void pm_async_link(pm_async_t *c)
{
    v8_async_frame_t chain[8];
    c->chain_len = xcalloc(c->n ? c->n : 1, sizeof *c->chain_len);
    c->next_gen = xcalloc(c->n ? c->n : 1, sizeof *c->next_gen);
    /* which generators another one waits on: the first awaiter on each chain (after combinators) */
    for (size_t i = 0; i < c->n; i++) {
        /* the first frame, or the first few when combinators come first */
        size_t m = c->g[i].g.promise ? v8_async_chain(c->v, c->g[i].g.promise, chain, 1) : 0;
        if (m == 1 && chain[0].kind != V8_ASYNC_AWAIT) m = v8_async_chain(c->v, c->g[i].g.promise, chain, 8);
        c->chain_len[i] = m;
        uint32_t j1;
        if (m == 1 && chain[0].kind == V8_ASYNC_AWAIT && u64map_get(&c->by_addr, chain[0].generator, &j1))
            c->next_gen[i] = j1;
        for (size_t k = 0; k < m; k++) {
            uint32_t j;
            if (chain[k].kind != V8_ASYNC_AWAIT) continue;
            if (u64map_get(&c->by_addr, chain[k].generator, &j)) c->g[j - 1].inner = 1;
            break;
        }
    }
}

size_t pm_async_chain(const pm_async_t *c, size_t i, v8_async_frame_t *chain, size_t max)
{
    return c->chain_len && c->chain_len[i] ? v8_async_chain(c->v, c->g[i].g.promise, chain, max) : 0;
}

void pm_async_group(pm_async_t *c, pm_async_groups_t *out)
{
    v8_t *v = c->v;
    memset(out, 0, sizeof *out);
    strpool_t *pool = out->pool = strpool_new();
    v8_async_frame_t *chain = xmalloc(PM_ASYNC_MAX_CHAIN * sizeof *chain);
    uint32_t *chain_gens = xcalloc(PM_ASYNC_MAX_CHAIN, sizeof *chain_gens);
    buf_t key = {0};
    u64map_t idx;
    u64map_init(&idx);
    size_t capg = 0;
    text_cache_t tc = {.pool = pool};
    u64map_init(&tc.index);
    for (size_t i = 0; i < c->n; i++) {
        if (c->g[i].inner) continue;
        buf_clear(&key);
        pm_async_gen_t *g = &c->g[i];
        uint64_t sk = hash_u64(g->g.shared ^ 0x5e1f) ^ (uint64_t)g->g.bytecode_offset ^ (uint64_t)g->g.awaiting_yield;
        uint32_t ti;
        if (!g->g.shared || !u64map_get(&tc.index, sk, &ti)) {
            buf_clear(&tc.tmp);
            v8_generator_position(v, &g->g);
            pm_async_self_text(v, g, &tc.tmp);
            if (tc.n == tc.cap) {
                tc.cap = tc.cap ? tc.cap * 2 : 64;
                tc.texts = xrealloc(tc.texts, tc.cap * sizeof *tc.texts);
            }
            tc.texts[tc.n++] = strpool_intern(tc.pool, tc.tmp.data ? tc.tmp.data : "", tc.tmp.len);
            int found;
            *u64map_upsert(&tc.index, sk, &found) = ti = (uint32_t)tc.n;
        }
        buf_puts(&key, tc.texts[ti - 1]);
        size_t m = chain_of(c, i, chain, chain_gens, PM_ASYNC_MAX_CHAIN);
        for (size_t k = 0; k < m; k++) {
            buf_puts(&key, " ← ");
            cached_frame_text_of(v, &tc, &chain[k], chain_gens[k] ? &c->g[chain_gens[k] - 1].g : NULL, &key);
        }
        const char *name = strpool_intern(pool, key.data, key.len);
        int found;
        uint32_t *slot = u64map_upsert(&idx, (uint64_t)(uintptr_t)name, &found);
        if (!found) {
            if (out->n == capg) {
                capg = capg ? capg * 2 : 64;
                out->g = xrealloc(out->g, capg * sizeof *out->g);
            }
            out->g[out->n] = (pm_async_group_t){name, 0, i};
            *slot = (uint32_t)++out->n;
        }
        out->g[*slot - 1].count++;
        out->total++;
    }
    u64map_free(&tc.index);
    free(tc.texts);
    buf_free(&tc.tmp);
    if (out->n) qsort(out->g, out->n, sizeof *out->g, by_count);
    u64map_free(&idx);
    buf_free(&key);
    free(chain);
    free(chain_gens);
}

void pm_async_groups_free(pm_async_groups_t *gs)
{
    free(gs->g);
    strpool_free(gs->pool);
    memset(gs, 0, sizeof *gs);
}
