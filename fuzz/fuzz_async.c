/* Fuzz the async and pending decoders (v8/async.c, v8/pending.c) with an arbitrary memory image at
 * FUZZ_IMAGE_BASE, decoded with Node 20's layout: generator objects (position through the bytecode's
 * position table), promise reaction lists, await chains (await closures, Promise.all element
 * closures, then chains), Node's pending-work objects and libuv's loop and handle queue. Each
 * decoder runs on every tagged word of the image's first KiB (so no heap page is needed to reach
 * them) and on the objects a heap walk finds. Any bytes must give an answer or an error: never a
 * crash, a hang, or a read outside the image. Seeds: fuzz/corpus/async/ (heap pages from
 * fuzz/gen_heap_walk_corpus.py, and words that point back into the image). */
#include "target/target.h"
#include "util/buf.h"
#include "util/diag.h"
#include "v8/v8.h"
#include "v8_node20_metadata.h"
#include <stdint.h>
#include <string.h>

#define MAX_PROBES 128

static int on_reaction(void *ctx, uint64_t reaction, uint64_t fulfill, uint64_t reject)
{
    v8_t *v = ctx;
    (void)reaction;
    v8_await_closure_generator(v, fulfill);
    v8_await_closure_generator(v, reject);
    return 0;
}

static void probe(v8_t *v, uint64_t addr)
{
    v8_generator_t g;
    v8_async_frame_t chain[16];
    if (v8_generator_info(v, addr, &g) == 0 && g.promise) v8_async_chain(v, g.promise, chain, 16);
    v8_async_chain(v, addr, chain, 16);
    v8_promise_reactions(v, addr, on_reaction, v, 64);
    v8_promise_state(v, addr);
    for (int k = V8_PENDING_TIMEOUT; k <= V8_PENDING_TICK_QUEUE; k++) {
        v8_pending_t p;
        v8_pending_fill(v, addr, (v8_pending_kind_t)k, &p);
    }
    uint64_t fn;
    v8_microtask_function(v, addr, &fn); /* any object taken for a microtask */
}

typedef struct {
    v8_t *v;
    size_t n;
} ctx_t;

static int on_object(void *vctx, const v8_heap_object_t *o)
{
    ctx_t *c = vctx;
    if (c->n++ > 256) return 1;
    if (v8_is_generator_type(c->v, o->type) || v8_is_promise_type(c->v, o->type)) probe(c->v, o->addr);
    return 0;
}

static int on_pending(void *ctx, const v8_pending_t *p)
{
    size_t *n = ctx;
    (void)p;
    return ++*n > 256;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    diag_verbosity = -1;
    if (size < 64) return 0;
    target_t *t;
    v8_t *v = fuzz_open_node20(data, size, &t);
    if (v) {
        /* every word of the first KiB, read as a tagged pointer */
        for (size_t i = 0; i + 8 <= size && i < 8 * MAX_PROBES; i += 8) {
            uint64_t w;
            memcpy(&w, data + i, 8);
            probe(v, w);
        }
        v8_uv_loop_t loop;
        if (v8_uv_loop_read_at(v, FUZZ_IMAGE_BASE, &loop) == 0) v8_uv_loop_free(&loop);
        v8_microtasks_t q; /* the fuzz image has no MicrotaskQueue symbols: must fail cleanly */
        uint64_t task;
        if (v8_microtask_queue(v, &q) == 0)
            for (int64_t i = 0; i < q.size && i < 64; i++) v8_microtask_at(v, &q, i, &task);
        v8_heap_t *h = v8_heap_open_range(v, FUZZ_IMAGE_BASE, FUZZ_IMAGE_BASE + size);
        ctx_t c = {v, 0};
        v8_heap_stats_t st;
        v8_heap_walk(h, on_object, &c, &st);
        size_t n = 0;
        v8_pending_scan(v, h, on_pending, &n, &st);
        v8_heap_close(h);
        v8_close(v);
    }
    target_close(t);
    return 0;
}
