/* A thread's stack for `stack` (postmortem/stack.c): its frames (V8's walk, or the native unwind
 * when there is no V8 metadata), a JS frame's position and name through the scripts' source maps,
 * and the async frames after it (who awaits the async function the thread runs). */
#ifndef POSTMORTEM_STACK_H
#define POSTMORTEM_STACK_H
#include "sourcemap/cache.h"
#include "target/target.h"
#include "v8/v8.h"
#include <stddef.h>

/* Thread ti's frames into frames (at most max), innermost first: v8_stack's, or with v NULL the
   native unwind's as V8_FRAME_NATIVE frames. How many; a warning when max was reached. */
size_t pm_thread_frames(target_t *t, v8_t *v, size_t ti, v8_frame_t *frames, size_t max);
/* The next JS frame after frames[i] (its caller), or NULL. */
const v8_frame_t *pm_js_caller(const v8_frame_t *frames, size_t n, size_t i);
/* A JS frame's position in the original source (maps: the scripts' source maps; NULL: none) and
   its original name, as Node's --enable-source-maps prints stacks: the `names` entry at the
   function's definition, else the one at its caller's call site when the caller is in the same
   script (a minified `p("x")` call names the callee p). 1 (m filled) or 0. */
int pm_map_frame(target_t *t, v8_t *v, smap_cache_t *maps, const v8_frame_t *f, const v8_function_t *fi,
                 const v8_frame_t *caller, smap_frame_t *m);
/* The async frames after a thread's frames: the chain of awaiters of the async function the
   thread runs, found as V8 finds it for `new Error().stack`. *heap is opened on first use (a
   warning when there is none) and kept for the next thread: v8_heap_close it. How many. */
size_t pm_stack_async(v8_t *v, v8_heap_t **heap, const v8_frame_t *frames, size_t n, v8_async_frame_t *out, size_t max);

#endif
