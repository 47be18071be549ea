/* Async functions, async generators and generators, and the promises between them.
 *
 * A suspended generator object keeps its position: while suspended, input_or_debug_pos holds the
 * bytecode offset of the suspend (plus the BytecodeArray header, as an interpreted frame's offset
 * slot does) and continuation is >= 0; -2 means it is executing, -1 that it finished
 * (js-generator.h). The position table of the function's bytecode turns the offset into the
 * `await` keyword's line:column, the position V8's own async stack frames show.
 *
 * Who waits for whom is found the way V8 builds async stack traces (isolate.cc,
 * CaptureAsyncStackTrace), reading the same objects: from a pending promise with exactly one
 * reaction, the reaction's handler says what comes next. V8 compares the handler with builtins;
 * here the handler's context is recognised by its shape, which is what those builtins create:
 *   - an await closure (AsyncFunctionAwaitResolveClosure and the async generator ones): an
 *     AwaitContext whose extension slot is the generator object;
 *   - a Promise.all / allSettled resolve element closure, a Promise.any reject element closure:
 *     a context of remaining count (Smi), the combinator's PromiseCapability, values/errors; the
 *     element's index is the closure's identity hash minus one; allSettled's reject handler shares
 *     the resolve handler's context, Promise.all's does not;
 *   - a promise's default resolve function: a context whose first slot is the promise;
 *   - anything else: the reaction's own promise_or_capability (a plain `then` chain).
 * Every read is checked and every walk bounded (a corrupt heap ends a chain, never the process). */
#include "v8/v8_internal.h"
#include <stdint.h>
#include <string.h>

#define MAX_CHAIN_STEPS 4096 /* promises followed for one chain (frames can be fewer) */

int v8_is_generator_type(const v8_t *v, int type)
{
    const v8_layout_t *L = &v->L;
    return type >= 0 && (type == L->type_js_async_function_object || type == L->type_js_async_generator_object ||
                         type == L->type_js_generator_object);
}

int v8_is_promise_type(const v8_t *v, int type) { return type >= 0 && type == v->L.type_js_promise; }

static int is_type(v8_t *v, uint64_t value, int type) { return type >= 0 && v8_has_type(v, value, type); }

static int is_function(v8_t *v, uint64_t value)
{
    int type;
    return v8_is_heap_object(v, value) && v8_instance_type(v, value, &type) == 0 && type <= v->L.type_js_function &&
           type >= v->L.type_first_js_function;
}

static int is_context_value(v8_t *v, uint64_t value)
{
    int type;
    return v8_is_heap_object(v, value) && v8_instance_type(v, value, &type) == 0 && type >= v->L.first_context_type &&
           type <= v->L.last_context_type;
}

/* Slot i of a context (FixedArray-shaped), bounds-checked. */
static int ctx_slot(v8_t *v, uint64_t ctx, int64_t i, uint64_t *out) { return v8_fixed_array_get(v, ctx, i, out); }

int v8_promise_state(v8_t *v, uint64_t promise)
{
    int64_t flags;
    if (!is_type(v, promise, v->L.type_js_promise) || v8_read_smi(v, promise, v->L.promise_flags, &flags) != 0)
        return -1;
    return (int)(flags & 3);
}

/* The bytecode a SharedFunctionInfo runs: its function data, or the bytecode its baseline code
 * was compiled from. 0 when neither. (frames.c has the same rule for frames.) */
static uint64_t bytecode_of(v8_t *v, uint64_t shared)
{
    const v8_layout_t *L = &v->L;
    uint64_t data, bca;
    if (L->async_sfi_data < 0 || v8_read_field(v, shared, L->async_sfi_data, &data) != 0) return 0;
    if (v8_has_type(v, data, L->type_bytecode_array)) return data;
    if (v8_has_type(v, data, L->type_code) && v8_read_field(v, data, L->code_deopt_data, &bca) == 0 &&
        v8_has_type(v, bca, L->type_bytecode_array))
        return bca;
    return 0;
}

int v8_generator_info(v8_t *v, uint64_t addr, v8_generator_t *out)
{
    if (v8_generator_state(v, addr, out) != 0) return -1;
    v8_generator_position(v, out);
    return 0;
}

int v8_generator_state(v8_t *v, uint64_t addr, v8_generator_t *out)
{
    const v8_layout_t *L = &v->L;
    memset(out, 0, sizeof *out);
    out->addr = addr;
    out->bytecode_offset = -1;
    int type;
    if (!v8_is_heap_object(v, addr) || v8_instance_type(v, addr, &type) != 0 || !v8_is_generator_type(v, type))
        return -1;
    out->kind = type == L->type_js_async_function_object    ? V8_GEN_ASYNC_FUNCTION
                : type == L->type_js_async_generator_object ? V8_GEN_ASYNC_GENERATOR
                                                            : V8_GEN_GENERATOR;
    /* the fields in one read: function .. is_awaiting (the async subclasses' last field) */
    uint64_t w[9];
    int64_t base = L->gen_function;
    size_t nw = type == L->type_js_async_generator_object ? 9 : type == L->type_js_async_function_object ? 8 : 7;
    if (v8_read_bytes(v, addr, base, w, nw * 8) != 0) return -1;
#define GEN_WORD(off) w[((off)-base) / 8]
    out->function = GEN_WORD(L->gen_function);
    if (!is_function(v, out->function)) return -1;
    out->context = GEN_WORD(L->gen_context);
    out->receiver = GEN_WORD(L->gen_receiver);
    uint64_t cw = GEN_WORD(L->gen_continuation);
    int64_t cont = v8_is_smi(v, cw) ? v8_smi_value(v, cw) : INT64_MIN;
    out->state = cont == INT64_MIN          ? V8_GEN_UNKNOWN
                 : cont >= 0                ? V8_GEN_SUSPENDED
                 : cont == L->gen_executing ? V8_GEN_EXECUTING
                 : cont == L->gen_closed    ? V8_GEN_CLOSED
                                            : V8_GEN_UNKNOWN;
    if (out->kind == V8_GEN_ASYNC_FUNCTION) {
        uint64_t p = GEN_WORD(L->async_fn_promise);
        if (is_type(v, p, L->type_js_promise)) out->promise = p;
    } else if (out->kind == V8_GEN_ASYNC_GENERATOR) {
        uint64_t q = GEN_WORD(L->async_gen_queue), p, aw = GEN_WORD(L->async_gen_is_awaiting);
        if (is_type(v, q, L->type_async_generator_request) && v8_read_field(v, q, L->gen_request_promise, &p) == 0 &&
            is_type(v, p, L->type_js_promise))
            out->promise = p;
        out->awaiting_yield = out->state == V8_GEN_SUSPENDED && v8_is_smi(v, aw) && v8_smi_value(v, aw) == 0;
    }
    uint64_t raw = GEN_WORD(L->gen_input_or_debug_pos);
#undef GEN_WORD
    if (out->state == V8_GEN_SUSPENDED && v8_is_smi(v, raw)) {
        int64_t off = v8_smi_value(v, raw) - (L->bca_header - L->heap_tag);
        if (off >= 0) out->bytecode_offset = off;
    }
    if (v8_read_field(v, out->function, L->fn_shared, &out->shared) != 0) out->shared = 0;
    return 0;
}

void v8_generator_position(v8_t *v, v8_generator_t *out)
{
    const v8_layout_t *L = &v->L;
    v8_function_t fi;
    out->line = out->col = out->position_is_definition = 0;
    if (v8_function_info(v, out->function, &fi) != 0) return;
    int64_t pos = -1;
    uint64_t bca, table;
    int inlined;
    if (out->bytecode_offset >= 0 && (bca = bytecode_of(v, fi.shared)) && L->bca_source_positions >= 0 &&
        v8_read_field(v, bca, L->bca_source_positions, &table) == 0)
        v8_source_position(v, table, out->bytecode_offset, &pos, &inlined);
    if (pos >= 0 && fi.script && v8_script_line_col(v, fi.script, pos, &out->line, &out->col) == 0) {
        out->position_is_definition = 0;
    } else if (fi.def_line) {
        out->line = fi.def_line;
        out->col = fi.def_col;
        out->position_is_definition = 1;
    }
    v8_function_free(&fi);
}

uint64_t v8_await_closure_generator(v8_t *v, uint64_t handler)
{
    uint64_t ctx, gen;
    int type;
    if (!is_function(v, handler) || v8_function_context(v, handler, &ctx) != 0) return 0;
    if (ctx_slot(v, ctx, v->L.ctx_extension_slot, &gen) != 0 || !v8_is_heap_object(v, gen) ||
        v8_instance_type(v, gen, &type) != 0)
        return 0;
    return type == v->L.type_js_async_function_object || type == v->L.type_js_async_generator_object ? gen : 0;
}

/* A combinator element closure's context: remaining (Smi), a PromiseCapability, an array. The
 * capability's promise in *promise; 0, or -1 when handler is none. */
static int element_closure(v8_t *v, uint64_t handler, uint64_t *ctx, uint64_t *promise)
{
    uint64_t remaining, cap, p;
    int64_t len;
    int64_t base = v->L.ctx_min_slots;
    if (!is_function(v, handler) || v8_read_field(v, handler, v->L.fn_context, ctx) != 0 || !is_context_value(v, *ctx))
        return -1;
    if (v8_fixed_array_length(v, *ctx, &len) != 0 || len != base + 3) return -1;
    if (ctx_slot(v, *ctx, base, &remaining) != 0 || !v8_is_smi(v, remaining)) return -1;
    if (ctx_slot(v, *ctx, base + 1, &cap) != 0 || !is_type(v, cap, v->L.type_promise_capability)) return -1;
    *promise = v8_read_field(v, cap, v->L.capability_promise, &p) == 0 && is_type(v, p, v->L.type_js_promise) ? p : 0;
    return 0;
}

/* The element index of a combinator closure: its identity hash (kept in properties_or_hash while
 * the function has no properties) minus one. */
static int element_index(v8_t *v, uint64_t handler)
{
    uint64_t h;
    if (v8_read_field(v, handler, v->L.jsobj_properties, &h) != 0 || !v8_is_smi(v, h)) return -1;
    int64_t x = v8_smi_value(v, h);
    return x >= 1 && x < (1 << 30) ? (int)(x - 1) : -1;
}

/* A promise's default resolve (or reject) function: its context's first slot is the promise. */
static uint64_t resolve_function_promise(v8_t *v, uint64_t handler)
{
    uint64_t ctx, p;
    int64_t len;
    if (!is_function(v, handler) || v8_read_field(v, handler, v->L.fn_context, &ctx) != 0 ||
        !is_context_value(v, ctx) || v8_fixed_array_length(v, ctx, &len) != 0 || len <= v->L.ctx_min_slots ||
        len > v->L.ctx_min_slots + 3)
        return 0;
    return ctx_slot(v, ctx, v->L.ctx_min_slots, &p) == 0 && is_type(v, p, v->L.type_js_promise) ? p : 0;
}

int v8_promise_reactions(v8_t *v, uint64_t promise, v8_reaction_cb cb, void *ctx, int limit)
{
    const v8_layout_t *L = &v->L;
    uint64_t r;
    if (v8_promise_state(v, promise) != V8_PROMISE_PENDING || v8_read_field(v, promise, L->promise_result, &r) != 0)
        return -1;
    for (int i = 0; i < limit && is_type(v, r, L->type_promise_reaction); i++) {
        uint64_t f = 0, j = 0;
        v8_read_field(v, r, L->reaction_fulfill_handler, &f);
        v8_read_field(v, r, L->reaction_reject_handler, &j);
        if (cb(ctx, r, f, j)) break;
        if (v8_read_field(v, r, L->reaction_next, &r) != 0) break;
    }
    return 0;
}

size_t v8_async_chain(v8_t *v, uint64_t promise, v8_async_frame_t *out, size_t max)
{
    const v8_layout_t *L = &v->L;
    size_t n = 0;
    for (int step = 0; step < MAX_CHAIN_STEPS && n < max; step++) {
        uint64_t r, next, fulfill = 0, reject = 0, gen, ctx, p = 0;
        /* a pending promise with exactly one reaction */
        if (v8_promise_state(v, promise) != V8_PROMISE_PENDING ||
            v8_read_field(v, promise, L->promise_result, &r) != 0 || !is_type(v, r, L->type_promise_reaction) ||
            v8_read_field(v, r, L->reaction_next, &next) != 0 || !v8_is_smi(v, next))
            break;
        v8_read_field(v, r, L->reaction_fulfill_handler, &fulfill);
        v8_read_field(v, r, L->reaction_reject_handler, &reject);
        if ((gen = v8_await_closure_generator(v, fulfill))) {
            v8_generator_t g;
            if (v8_generator_state(v, gen, &g) != 0 || g.state != V8_GEN_SUSPENDED) break;
            out[n++] = (v8_async_frame_t){V8_ASYNC_AWAIT, gen, promise, NULL, 0};
            if (!g.promise) break;
            p = g.promise;
        } else if (element_closure(v, fulfill, &ctx, &p) == 0) {
            uint64_t rctx;
            int settled = is_function(v, reject) && v8_read_field(v, reject, L->fn_context, &rctx) == 0 && rctx == ctx;
            out[n++] = (v8_async_frame_t){V8_ASYNC_COMBINATOR, 0, promise,
                                          settled ? "Promise.allSettled" : "Promise.all", element_index(v, fulfill)};
        } else if (element_closure(v, reject, &ctx, &p) == 0) {
            out[n++] = (v8_async_frame_t){V8_ASYNC_COMBINATOR, 0, promise, "Promise.any", element_index(v, reject)};
        } else if (!(p = resolve_function_promise(v, fulfill))) {
            uint64_t poc, cp;
            if (v8_read_field(v, r, L->reaction_promise_or_capability, &poc) != 0) break;
            if (is_type(v, poc, L->type_js_promise)) p = poc;
            else if (is_type(v, poc, L->type_promise_capability) &&
                     v8_read_field(v, poc, L->capability_promise, &cp) == 0 && is_type(v, cp, L->type_js_promise))
                p = cp;
        }
        if (!p || p == promise) break;
        promise = p;
    }
    return n;
}

/* ---- where `new Error().stack` would start the async part ---- */

typedef struct {
    v8_t *v;
    const v8_frame_t *frames;
    size_t n;
    size_t best_frame; /* index of the outermost JS frame an executing generator runs */
    uint64_t best_promise;
    int found;
} current_t;

static int on_current(void *ctx, const v8_heap_object_t *o)
{
    current_t *c = ctx;
    if (o->type != c->v->L.type_js_async_function_object && o->type != c->v->L.type_js_async_generator_object) return 0;
    v8_generator_t g;
    if (v8_generator_state(c->v, o->addr, &g) != 0 || g.state != V8_GEN_EXECUTING) return 0;
    for (size_t i = c->n; i-- > 0;) {
        if (c->frames[i].kind != V8_FRAME_JS || c->frames[i].function != g.function) continue;
        if (!c->found || i > c->best_frame) {
            c->found = 1;
            c->best_frame = i;
            c->best_promise = g.promise;
        }
        break;
    }
    return 0;
}

int v8_async_current_promise(v8_t *v, v8_heap_t *h, const v8_frame_t *frames, size_t n, uint64_t *promise)
{
    current_t c = {v, frames, n, 0, 0, 0};
    if (v8_heap_walk(h, on_current, &c, NULL) < 0 || !c.found || !c.best_promise) return -1;
    *promise = c.best_promise;
    return 0;
}
