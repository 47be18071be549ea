/* A thread's stack: the frames (V8's walk, else the native unwind), source-mapped positions and
 * names of JS frames, and the async frames that follow. The frames are the caller's array;
 * nothing here prints but the warnings. */
#include "postmortem/stack.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

size_t pm_thread_frames(target_t *t, v8_t *v, size_t ti, v8_frame_t *frames, size_t max)
{
    size_t n;
    if (v) {
        n = v8_stack(v, ti, frames, max);
    } else {
        target_frame_t *nf = xmalloc(max * sizeof *nf);
        n = target_unwind(t, ti, nf, max);
        for (size_t i = 0; i < n; i++)
            frames[i] = (v8_frame_t){
                .kind = V8_FRAME_NATIVE, .pc = nf[i].pc, .sp = nf[i].sp, .fp = nf[i].fp, .return_address = i > 0};
        free(nf);
    }
    if (n == max) diag_warn(target_name(t), 0, "thread %zu: stopped after %zu frames", ti, max);
    return n;
}

const v8_frame_t *pm_js_caller(const v8_frame_t *frames, size_t n, size_t i)
{
    for (size_t j = i + 1; j < n; j++)
        if (frames[j].kind == V8_FRAME_JS) return &frames[j];
    return NULL;
}

int pm_map_frame(target_t *t, v8_t *v, smap_cache_t *maps, const v8_frame_t *f, const v8_function_t *fi,
                 const v8_frame_t *caller, smap_frame_t *m)
{
    if (!maps || !fi->script_name || !*fi->script_name || !f->line) return 0;
    if (smap_cache_map(maps, fi->script_name, f->line, f->col > 0 ? f->col : 1, m) != 1) return 0;
    smap_frame_t other;
    m->name = fi->def_line && smap_cache_map(maps, fi->script_name, fi->def_line, fi->def_col > 0 ? fi->def_col : 1,
                                             &other) == 1
                  ? other.name
                  : NULL;
    if (!m->name && caller && caller->line) {
        v8_frame_record_t cr;
        v8_frame_record(t, v, caller, &cr);
        if (cr.has_function && cr.fn.script_name && !strcmp(cr.fn.script_name, fi->script_name) &&
            smap_cache_map(maps, fi->script_name, caller->line, caller->col > 0 ? caller->col : 1, &other) == 1)
            m->name = other.name;
        v8_frame_record_free(&cr);
    }
    return 1;
}

size_t pm_stack_async(v8_t *v, v8_heap_t **h, const v8_frame_t *frames, size_t n, v8_async_frame_t *out, size_t max)
{
    uint64_t promise;
    if (!*h) {
        *h = v8_heap_open(v);
        if (!v8_heap_found(*h))
            diag_warn(target_name(v8_target(v)), 0, "stack --async: no V8 heap pages found: no async frames");
    }
    if (!v8_heap_found(*h) || v8_async_current_promise(v, *h, frames, n, &promise) != 0) return 0;
    return v8_async_chain(v, promise, out, max);
}
