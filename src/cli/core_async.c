/* nodescope core ... async: every suspended async function, async generator and generator on the
 * heap, where it is suspended, the promise it awaits and who awaits it (v8/async.c), one block
 * each, or with --group the innermost ones folded by identical chains: what a hung server is
 * waiting for. The generators, what each awaits, their chains and groups: postmortem/async.c. */
#include "cli/core_cmds.h"
#include "postmortem/async.h"
#include "util/diag.h"
#include "util/json_writer.h"
#include "util/options.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

/* The member key: an array of the chain's frames, an object each. */
static void chain_json(core_session_t *s, const v8_async_frame_t *chain, size_t n, jw_t *w, const char *key)
{
    jw_array_begin(w, key);
    for (size_t k = 0; k < n; k++) {
        jw_object_begin(w, NULL);
        pm_async_frame_json(s->v, &chain[k], w);
        jw_end(w);
    }
    jw_end(w);
}

int core_cmd_async(core_session_t *s, int argc, char **argv)
{
    static const char usage[] =
        "usage: nodescope core CORE|--pid PID async [--group] [--json]\n\n"
        "Every suspended async function, async generator and generator on the heap: where it is\n"
        "suspended (the file:line:column of its await or yield), the promise it awaits and that\n"
        "promise's state, and the chain of async functions awaiting it, outermost last, followed as\n"
        "V8 follows it for `new Error().stack` (await, Promise.all/allSettled/any, for await, then).\n"
        "--group folds the innermost ones (those no other one waits on) by identical chains, with a\n"
        "count, most first: `437 × await pool.query(…) in getUser (db.js:88:22) ← handle (app.js:42:17)`.\n"
        "A position falls back to the function's definition when its bytecode has no position\n"
        "table (V8 builds them lazily); it is marked so.\n";
    int json = 0, group = 0;
    const opt_t opts[] = {
        OPT_BOOL("group", 'g', "fold identical chains, with counts", &group),
        OPT_BOOL("json", 0, "a JSON document", &json),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core async", usage, tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (n > 0) return opt_usage_error(&cmd, "unexpected argument '%s'", argv[1]);
    if (s->check_only) return EXIT_OK;
    if (core_need_v8(s, argv[0]) != 0) return EXIT_FAIL;
    pm_async_t c;
    if (pm_async_collect(s->v, &c, !group) != 0) {
        pm_async_free(&c);
        return EXIT_FAIL;
    }
    pm_async_link(&c);
    v8_async_frame_t *chain = xmalloc(PM_ASYNC_MAX_CHAIN * sizeof *chain);
    buf_t b = {0};
    jw_t w;   /* json: written into b, which is written out when it grows */
    jw_init(&w, &b);
    if (group) {
        pm_async_groups_t gs;
        pm_async_group(&c, &gs);
        if (json) {
            jw_object_begin(&w, NULL);
            jw_uint(&w, "suspended", c.n);
            jw_uint(&w, "innermost", gs.total);
            jw_uint(&w, "executing", c.executing);
            jw_array_begin(&w, "groups");
        } else buf_printf(&b, "%zu suspended (%zu innermost, in %zu group%s)\n", c.n, gs.total, gs.n, gs.n == 1 ? "" : "s");
        for (size_t i = 0; i < gs.n; i++) {
            if (json) {
                const pm_async_gen_t *g = &c.g[gs.g[i].first];
                jw_object_begin(&w, NULL);
                jw_uint(&w, "count", gs.g[i].count);
                jw_string(&w, "text", gs.g[i].text);
                chain[0] = (v8_async_frame_t){V8_ASYNC_AWAIT, g->g.addr, 0, NULL, 0};
                size_t m = 1 + (g->g.promise ? v8_async_chain(s->v, g->g.promise, chain + 1, PM_ASYNC_MAX_CHAIN - 1) : 0);
                chain_json(s, chain, m, &w, "frames");
                jw_end(&w);
            } else {
                buf_printf(&b, "%8zu × %s\n", gs.g[i].count, gs.g[i].text);
            }
            if (b.len > 1 << 16) fwrite(b.data, 1, b.len, stdout), buf_clear(&b);
        }
        if (json) {
            jw_end(&w);
            core_json_read(s, &w);
            jw_end(&w);
            buf_putc(&b, '\n');
        }
        pm_async_groups_free(&gs);
    } else {
        if (json) {
            jw_object_begin(&w, NULL);
            jw_uint(&w, "executing", c.executing);
            jw_array_begin_lines(&w, "suspended");   /* one a line */
        }
        for (size_t i = 0; i < c.n; i++) {
            pm_async_gen_t *g = &c.g[i];
            v8_generator_position(s->v, &g->g);
            int pst = g->awaiting ? v8_promise_state(s->v, g->awaiting) : -1;
            size_t m = pm_async_chain(&c, i, chain, PM_ASYNC_MAX_CHAIN);
            if (json) {
                jw_object_begin(&w, NULL);
                jw_address(&w, "address", g->g.addr);
                jw_string(&w, "kind", pm_async_kind_name(g->g.kind));
                v8_async_frame_t self = {V8_ASYNC_AWAIT, g->g.addr, 0, NULL, 0};
                pm_async_frame_json(s->v, &self, &w);
                jw_bool(&w, "position_is_definition", g->g.position_is_definition);
                jw_string(&w, "at", g->g.kind == V8_GEN_GENERATOR || g->g.awaiting_yield ? "yield" : "await");
                jw_bool(&w, "innermost", !g->inner);
                if (g->awaiting) {
                    jw_object_begin(&w, "awaiting");
                    jw_address(&w, "promise", g->awaiting);
                    jw_string(&w, "state", pm_promise_state_name(pst));
                    if (g->awaited_gen) jw_address(&w, "generator", c.g[g->awaited_gen - 1].g.addr);
                    jw_end(&w);
                } else {
                    jw_null(&w, "awaiting");
                }
                chain_json(s, chain, m, &w, "chain");
                jw_end(&w);
            } else {
                buf_printf(&b, "0x%llx %s: ", (unsigned long long)g->g.addr, pm_async_kind_name(g->g.kind));
                pm_async_self_text(s->v, g, &b);
                if (g->g.position_is_definition) buf_puts(&b, " [position is the definition]");
                buf_putc(&b, '\n');
                if (g->awaiting) {
                    buf_printf(&b, "    awaiting <Promise 0x%llx: %s>", (unsigned long long)g->awaiting, pm_promise_state_name(pst));
                    if (g->awaited_gen) {
                        v8_async_frame_t inner = {V8_ASYNC_AWAIT, c.g[g->awaited_gen - 1].g.addr, 0, NULL, 0};
                        buf_puts(&b, " of ");
                        pm_async_frame_text(s->v, &inner, 1, &b);
                    }
                    buf_putc(&b, '\n');
                }
                for (size_t k = 0; k < m; k++) {
                    buf_puts(&b, "    ← ");
                    pm_async_frame_text(s->v, &chain[k], 0, &b);
                    buf_putc(&b, '\n');
                }
            }
            if (b.len > 1 << 16) fwrite(b.data, 1, b.len, stdout), buf_clear(&b);
        }
        if (json) {
            jw_newline(&w);   /* "]" on a line of its own */
            jw_end(&w);
            core_json_read(s, &w);
            jw_end(&w);
            buf_putc(&b, '\n');
        } else buf_printf(&b, "%zu suspended, %zu executing\n", c.n, c.executing);
    }
    fwrite(b.data ? b.data : "", 1, b.len, stdout);
    buf_free(&b);
    free(chain);
    pm_async_free(&c);
    return EXIT_OK;
}
