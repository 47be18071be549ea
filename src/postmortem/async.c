/* Suspended generators and async functions joined with the promises they await: one heap walk
 * collects the generators and, from every pending promise's reactions (an await closure's
 * context holds its generator), which promise each one awaits; then each awaited promise is
 * matched with the generator it belongs to, so chains of awaits can be followed. */
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
        diag_warn(target_name(v8_target(v)), 0, "async: %zu heap pages could not be read (not in the core?): the list may be partial",
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
    u64map_free(&c->by_addr);
    u64map_free(&c->awaits);
}

