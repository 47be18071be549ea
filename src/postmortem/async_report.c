/* The output of `core async`: text blocks or groups, and the same as JSON members
 * (postmortem/async_report.h). */
#include "postmortem/async_report.h"
#include "util/xalloc.h"
#include <stdlib.h>

static void flush_if_big(buf_t *b, FILE *out)
{
    if (b->len > 1 << 16) fwrite(b->data, 1, b->len, out), buf_clear(b);
}

/* The member key: an array of the chain's frames, an object each. */
static void chain_json(v8_t *v, const v8_async_frame_t *chain, size_t n, jw_t *w, const char *key)
{
    jw_array_begin(w, key);
    for (size_t k = 0; k < n; k++) {
        jw_object_begin(w, NULL);
        pm_async_frame_json(v, &chain[k], w);
        jw_end(w);
    }
    jw_end(w);
}

void pm_async_write_text(pm_async_t *c, const pm_async_groups_t *gs, buf_t *b, FILE *out)
{
    if (gs) {
        buf_printf(b, "%zu suspended (%zu innermost, in %zu group%s)\n", c->n, gs->total, gs->n, gs->n == 1 ? "" : "s");
        for (size_t i = 0; i < gs->n; i++) {
            buf_printf(b, "%8zu × %s\n", gs->g[i].count, gs->g[i].text);
            flush_if_big(b, out);
        }
        return;
    }
    v8_async_frame_t *chain = xmalloc(PM_ASYNC_MAX_CHAIN * sizeof *chain);
    for (size_t i = 0; i < c->n; i++) {
        pm_async_gen_t *g = &c->g[i];
        v8_generator_position(c->v, &g->g);
        int pst = g->awaiting ? v8_promise_state(c->v, g->awaiting) : -1;
        size_t m = pm_async_chain(c, i, chain, PM_ASYNC_MAX_CHAIN);
        buf_printf(b, "0x%llx %s: ", (unsigned long long)g->g.addr, pm_async_kind_name(g->g.kind));
        pm_async_self_text(c->v, g, b);
        if (g->g.position_is_definition) buf_puts(b, " [position is the definition]");
        buf_putc(b, '\n');
        if (g->awaiting) {
            buf_printf(b, "    awaiting <Promise 0x%llx: %s>", (unsigned long long)g->awaiting,
                       pm_promise_state_name(pst));
            if (g->awaited_gen) {
                v8_async_frame_t inner = {V8_ASYNC_AWAIT, c->g[g->awaited_gen - 1].g.addr, 0, NULL, 0};
                buf_puts(b, " of ");
                pm_async_frame_text(c->v, &inner, 1, b);
            }
            buf_putc(b, '\n');
        }
        for (size_t k = 0; k < m; k++) {
            buf_puts(b, "    ← ");
            pm_async_frame_text(c->v, &chain[k], 0, b);
            buf_putc(b, '\n');
        }
        flush_if_big(b, out);
    }
    buf_printf(b, "%zu suspended, %zu executing\n", c->n, c->executing);
    free(chain);
}

void pm_async_write_json(pm_async_t *c, const pm_async_groups_t *gs, jw_t *w, buf_t *b, FILE *out)
{
    v8_async_frame_t *chain = xmalloc(PM_ASYNC_MAX_CHAIN * sizeof *chain);
    if (gs) {
        jw_uint(w, "suspended", c->n);
        jw_uint(w, "innermost", gs->total);
        jw_uint(w, "executing", c->executing);
        jw_array_begin(w, "groups");
        for (size_t i = 0; i < gs->n; i++) {
            const pm_async_gen_t *g = &c->g[gs->g[i].first];
            jw_object_begin(w, NULL);
            jw_uint(w, "count", gs->g[i].count);
            jw_string(w, "text", gs->g[i].text);
            chain[0] = (v8_async_frame_t){V8_ASYNC_AWAIT, g->g.addr, 0, NULL, 0};
            size_t m = 1 + (g->g.promise ? v8_async_chain(c->v, g->g.promise, chain + 1, PM_ASYNC_MAX_CHAIN - 1) : 0);
            chain_json(c->v, chain, m, w, "frames");
            jw_end(w);
            flush_if_big(b, out);
        }
        jw_end(w);
        free(chain);
        return;
    }
    jw_uint(w, "executing", c->executing);
    jw_array_begin_lines(w, "suspended"); /* one a line */
    for (size_t i = 0; i < c->n; i++) {
        pm_async_gen_t *g = &c->g[i];
        v8_generator_position(c->v, &g->g);
        int pst = g->awaiting ? v8_promise_state(c->v, g->awaiting) : -1;
        size_t m = pm_async_chain(c, i, chain, PM_ASYNC_MAX_CHAIN);
        jw_object_begin(w, NULL);
        jw_address(w, "address", g->g.addr);
        jw_string(w, "kind", pm_async_kind_name(g->g.kind));
        v8_async_frame_t self = {V8_ASYNC_AWAIT, g->g.addr, 0, NULL, 0};
        pm_async_frame_json(c->v, &self, w);
        jw_bool(w, "position_is_definition", g->g.position_is_definition);
        jw_string(w, "at", g->g.kind == V8_GEN_GENERATOR || g->g.awaiting_yield ? "yield" : "await");
        jw_bool(w, "innermost", !g->inner);
        if (g->awaiting) {
            jw_object_begin(w, "awaiting");
            jw_address(w, "promise", g->awaiting);
            jw_string(w, "state", pm_promise_state_name(pst));
            if (g->awaited_gen) jw_address(w, "generator", c->g[g->awaited_gen - 1].g.addr);
            jw_end(w);
        } else {
            jw_null(w, "awaiting");
        }
        chain_json(c->v, chain, m, w, "chain");
        jw_end(w);
        flush_if_big(b, out);
    }
    jw_newline(w); /* "]" on a line of its own */
    jw_end(w);
    free(chain);
}
