/* Fuzz the heap walk (v8/heap_walk.c) with an arbitrary memory image placed at FUZZ_IMAGE_BASE (256
 * KiB-aligned, so its start is a chunk header candidate), decoded with Node 20's layout: pages
 * found, objects walked, JS objects described. Any bytes must give an answer or an error: never a
 * crash, a hang, or a read outside the image. Seeds: fuzz/corpus/heap_walk/ (a page with a meta map,
 * a JS object map, objects, a FixedArray and free space; made by fuzz/gen_heap_walk_corpus.py). */
#include "target/target.h"
#include "util/buf.h"
#include "util/diag.h"
#include "v8/v8.h"
#include "v8_node20_metadata.h"
#include <stdint.h>
#include <string.h>

typedef struct {
    v8_t *v;
    v8_heap_t *h;
    size_t n;
} ctx_t;

static int on_object(void *vctx, const v8_heap_object_t *o)
{
    ctx_t *c = vctx;
    if (!v8_heap_is_js_type(c->h, o->type) || c->n++ > 64) return 0;
    buf_t b = {0};
    v8_describe(c->v, o->addr, &b);
    buf_clear(&b);
    v8_constructor_name(c->v, o->addr, &b);
    buf_free(&b);
    uint64_t shared, value;
    v8_heap_function_shared(c->h, o, &shared);
    v8_property_plan_t plan; /* find's per-map property lookup */
    v8_property_plan(c->v, o->map, "x", &plan);
    v8_property_plan_get(c->v, o->addr, o->map, "x", &plan, &value);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    diag_verbosity = -1;
    if (size < 64) return 0;
    target_t *t;
    v8_t *v = fuzz_open_node20(data, size, &t);
    if (v) {
        ctx_t c = {v, v8_heap_open_range(v, FUZZ_IMAGE_BASE, FUZZ_IMAGE_BASE + size), 0};
        v8_heap_stats_t st;
        v8_heap_walk(c.h, on_object, &c, &st);
        v8_heap_close(c.h);
        v8_close(v);
    }
    target_close(t);
    return 0;
}
