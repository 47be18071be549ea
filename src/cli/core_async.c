/* nodescope core ... async: every suspended async function, async generator and generator on the
 * heap, where it is suspended, the promise it awaits and who awaits it (v8/async.c), one block
 * each, or with --group the innermost ones folded by identical chains: what a hung server is
 * waiting for. The generators and what each awaits: postmortem/async.c. */
#include "cli/core_cmds.h"
#include "postmortem/async.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/json_writer.h"
#include "util/options.h"
#include "util/progress.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

#define MAX_CHAIN 256

static const char *kind_name(v8_gen_kind_t k)
{
    return k == V8_GEN_ASYNC_FUNCTION ? "async function" : k == V8_GEN_ASYNC_GENERATOR ? "async generator" : "generator";
}

static const char *state_name(int st)
{
    return st == V8_PROMISE_PENDING ? "pending" : st == V8_PROMISE_FULFILLED ? "fulfilled"
         : st == V8_PROMISE_REJECTED ? "rejected" : "unreadable";
}

#define MAX_SOURCE_BYTES (8u << 20)
#define MAX_EXPRESSION 60

/* The awaited expression, from the script's source at the await: "pool.query(…)" for
 * `await pool.query(sql, id)`, "never" for `await never;`. Nothing when the position is not at an
 * `await` (a definition fallback, a yield, a source that is not there). */
static void await_expression(core_session_t *s, const v8_generator_t *g, buf_t *out)
{
    v8_function_t fi;
    uint64_t src;
    if (g->position_is_definition || !g->line || v8_function_info(s->v, g->function, &fi) != 0) return;
    buf_t b = {0};
    int tr;
    if (fi.script && v8_script_source(s->v, fi.script, &src) == 0) v8_string(s->v, src, &b, MAX_SOURCE_BYTES, &tr);
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
                if (c == '(' && depth == 0) {   /* a call: its arguments elided */
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
static void self_text(core_session_t *s, const pm_async_gen_t *g, buf_t *b)
{
    v8_async_frame_t self = {V8_ASYNC_AWAIT, g->g.addr, 0, NULL, 0};
    int yield = g->g.kind == V8_GEN_GENERATOR || g->g.awaiting_yield;
    buf_puts(b, yield ? "yield " : "await ");
    if (!yield) {
        size_t before = b->len;
        await_expression(s, &g->g, b);
        if (b->len > before) buf_putc(b, ' ');
    }
    buf_puts(b, "in ");
    pm_async_frame_text(s->v, &self, 0, b);
}

/* ---- grouping ---- */

/* Frame texts by (SharedFunctionInfo, bytecode offset): 100,000 requests suspended at the same
 * await cost one position lookup. */
typedef struct {
    u64map_t index;          /* key -> index + 1 into texts */
    const char **texts;
    size_t n, cap;
    strpool_t *pool;
    buf_t tmp;
} text_cache_t;

/* known: f's generator state when the caller has it (else it is read) */
static void cached_frame_text_of(core_session_t *s, text_cache_t *tc, const v8_async_frame_t *f, const v8_generator_t *known,
                                 buf_t *b)
{
    v8_generator_t read;
    const v8_generator_t *gp = known;
    if (!gp && f->kind == V8_ASYNC_AWAIT && v8_generator_state(s->v, f->generator, &read) == 0) gp = &read;
    if (f->kind != V8_ASYNC_AWAIT || !gp || !gp->shared) {
        pm_async_frame_text(s->v, f, 0, b);
        return;
    }
    const v8_generator_t g = *gp;
    uint64_t key = hash_u64(g.shared) ^ (uint64_t)g.bytecode_offset;
    uint32_t k;
    if (!u64map_get(&tc->index, key, &k)) {
        buf_clear(&tc->tmp);
        pm_async_frame_text(s->v, f, 0, &tc->tmp);
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
static size_t chain_of(core_session_t *s, const pm_async_t *c, const uint32_t *next_gen, size_t i, v8_async_frame_t *chain,
                       uint32_t *gens, size_t max)
{
    size_t m = 0;
    uint64_t promise = c->g[i].g.promise;
    if (!promise) return 0;
    while (m < max && next_gen[i]) {
        size_t j = next_gen[i] - 1;
        gens[m] = (uint32_t)(j + 1);
        chain[m++] = (v8_async_frame_t){V8_ASYNC_AWAIT, c->g[j].g.addr, promise, NULL, 0};
        uint64_t p = c->g[j].g.promise;
        if (!p || p == promise) return m;
        promise = p;
        i = j;
    }
    if (m >= max) return m;
    size_t n = v8_async_chain(s->v, promise, chain + m, max - m);
    for (size_t k = m; k < m + n; k++) gens[k] = 0;
    return m + n;
}

typedef struct {
    const char *key;
    size_t count, first;      /* first: a member's index (its chain is printed for JSON) */
} group_t;

static int by_count(const void *a, const void *b)
{
    const group_t *x = a, *y = b;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    return strcmp(x->key, y->key);
}

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
    v8_async_frame_t *chain = xmalloc(MAX_CHAIN * sizeof *chain);
    size_t *chain_len = xcalloc(c.n ? c.n : 1, sizeof *chain_len);
    uint32_t *next_gen = xcalloc(c.n ? c.n : 1, sizeof *next_gen);   /* see chain_of */
    uint32_t *chain_gens = xcalloc(MAX_CHAIN, sizeof *chain_gens);
    /* which generators another one waits on: the first awaiter on each chain (after combinators) */
    for (size_t i = 0; i < c.n; i++) {
        /* the first frame, or the first few when combinators come first */
        size_t m = c.g[i].g.promise ? v8_async_chain(s->v, c.g[i].g.promise, chain, 1) : 0;
        if (m == 1 && chain[0].kind != V8_ASYNC_AWAIT) m = v8_async_chain(s->v, c.g[i].g.promise, chain, 8);
        chain_len[i] = m;
        uint32_t j1;
        if (m == 1 && chain[0].kind == V8_ASYNC_AWAIT && u64map_get(&c.by_addr, chain[0].generator, &j1)) next_gen[i] = j1;
        for (size_t k = 0; k < m; k++) {
            uint32_t j;
            if (chain[k].kind != V8_ASYNC_AWAIT) continue;
            if (u64map_get(&c.by_addr, chain[k].generator, &j)) c.g[j - 1].inner = 1;
            break;
        }
    }
    buf_t b = {0}, key = {0};
    jw_t w;   /* json: written into b, which is written out when it grows */
    jw_init(&w, &b);
    if (group) {
        strpool_t *pool = strpool_new();
        u64map_t idx;
        u64map_init(&idx);
        group_t *gs = NULL;
        size_t ng = 0, capg = 0, total = 0;
        text_cache_t tc = {.pool = pool};
        u64map_init(&tc.index);
        for (size_t i = 0; i < c.n; i++) {
            if (c.g[i].inner) continue;
            buf_clear(&key);
            pm_async_gen_t *g = &c.g[i];
            uint64_t sk = hash_u64(g->g.shared ^ 0x5e1f) ^ (uint64_t)g->g.bytecode_offset ^ (uint64_t)g->g.awaiting_yield;
            uint32_t ti;
            if (!g->g.shared || !u64map_get(&tc.index, sk, &ti)) {
                buf_clear(&tc.tmp);
                v8_generator_position(s->v, &g->g);
                self_text(s, g, &tc.tmp);
                if (tc.n == tc.cap) {
                    tc.cap = tc.cap ? tc.cap * 2 : 64;
                    tc.texts = xrealloc(tc.texts, tc.cap * sizeof *tc.texts);
                }
                tc.texts[tc.n++] = strpool_intern(tc.pool, tc.tmp.data ? tc.tmp.data : "", tc.tmp.len);
                int found;
                *u64map_upsert(&tc.index, sk, &found) = ti = (uint32_t)tc.n;
            }
            buf_puts(&key, tc.texts[ti - 1]);
            size_t m = chain_of(s, &c, next_gen, i, chain, chain_gens, MAX_CHAIN);
            for (size_t k = 0; k < m; k++) {
                buf_puts(&key, " ← ");
                cached_frame_text_of(s, &tc, &chain[k], chain_gens[k] ? &c.g[chain_gens[k] - 1].g : NULL, &key);
            }
            const char *name = strpool_intern(pool, key.data, key.len);
            int found;
            uint32_t *slot = u64map_upsert(&idx, (uint64_t)(uintptr_t)name, &found);
            if (!found) {
                if (ng == capg) {
                    capg = capg ? capg * 2 : 64;
                    gs = xrealloc(gs, capg * sizeof *gs);
                }
                gs[ng] = (group_t){name, 0, i};
                *slot = (uint32_t)++ng;
            }
            gs[*slot - 1].count++;
            total++;
        }
        u64map_free(&tc.index);
        free(tc.texts);
        buf_free(&tc.tmp);
        if (ng) qsort(gs, ng, sizeof *gs, by_count);
        if (json) {
            jw_object_begin(&w, NULL);
            jw_uint(&w, "suspended", c.n);
            jw_uint(&w, "innermost", total);
            jw_uint(&w, "executing", c.executing);
            jw_array_begin(&w, "groups");
        } else buf_printf(&b, "%zu suspended (%zu innermost, in %zu group%s)\n", c.n, total, ng, ng == 1 ? "" : "s");
        for (size_t i = 0; i < ng; i++) {
            if (json) {
                const pm_async_gen_t *g = &c.g[gs[i].first];
                jw_object_begin(&w, NULL);
                jw_uint(&w, "count", gs[i].count);
                jw_string(&w, "text", gs[i].key);
                chain[0] = (v8_async_frame_t){V8_ASYNC_AWAIT, g->g.addr, 0, NULL, 0};
                size_t m = 1 + (g->g.promise ? v8_async_chain(s->v, g->g.promise, chain + 1, MAX_CHAIN - 1) : 0);
                chain_json(s, chain, m, &w, "frames");
                jw_end(&w);
            } else {
                buf_printf(&b, "%8zu × %s\n", gs[i].count, gs[i].key);
            }
            if (b.len > 1 << 16) fwrite(b.data, 1, b.len, stdout), buf_clear(&b);
        }
        if (json) {
            jw_end(&w);
            jw_end(&w);
            buf_putc(&b, '\n');
        }
        free(gs);
        u64map_free(&idx);
        strpool_free(pool);
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
            size_t m = chain_len[i] ? v8_async_chain(s->v, g->g.promise, chain, MAX_CHAIN) : 0;
            if (json) {
                jw_object_begin(&w, NULL);
                jw_address(&w, "address", g->g.addr);
                jw_string(&w, "kind", kind_name(g->g.kind));
                v8_async_frame_t self = {V8_ASYNC_AWAIT, g->g.addr, 0, NULL, 0};
                pm_async_frame_json(s->v, &self, &w);
                jw_bool(&w, "position_is_definition", g->g.position_is_definition);
                jw_string(&w, "at", g->g.kind == V8_GEN_GENERATOR || g->g.awaiting_yield ? "yield" : "await");
                jw_bool(&w, "innermost", !g->inner);
                if (g->awaiting) {
                    jw_object_begin(&w, "awaiting");
                    jw_address(&w, "promise", g->awaiting);
                    jw_string(&w, "state", state_name(pst));
                    if (g->awaited_gen) jw_address(&w, "generator", c.g[g->awaited_gen - 1].g.addr);
                    jw_end(&w);
                } else {
                    jw_null(&w, "awaiting");
                }
                chain_json(s, chain, m, &w, "chain");
                jw_end(&w);
            } else {
                buf_printf(&b, "0x%llx %s: ", (unsigned long long)g->g.addr, kind_name(g->g.kind));
                self_text(s, g, &b);
                if (g->g.position_is_definition) buf_puts(&b, " [position is the definition]");
                buf_putc(&b, '\n');
                if (g->awaiting) {
                    buf_printf(&b, "    awaiting <Promise 0x%llx: %s>", (unsigned long long)g->awaiting, state_name(pst));
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
            jw_end(&w);
            buf_putc(&b, '\n');
        } else buf_printf(&b, "%zu suspended, %zu executing\n", c.n, c.executing);
    }
    fwrite(b.data ? b.data : "", 1, b.len, stdout);
    buf_free(&b);
    buf_free(&key);
    free(chain);
    free(chain_len);
    free(next_gen);
    free(chain_gens);
    pm_async_free(&c);
    return EXIT_OK;
}
