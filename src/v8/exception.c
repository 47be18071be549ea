/* The exception a thread is throwing, read off its stack (see v8.h "the exception").
 *
 * Two ways a Node process dies of an exception leave it on the stack exactly:
 *  - `--abort-on-uncaught-exception`: V8 aborts inside Isolate::Throw, called from the runtime
 *    function a `throw` compiles to (Runtime_Throw, Runtime_ReThrow). JavaScript calls a runtime
 *    function through an exit frame with the arguments pushed just above it: the thrown value is
 *    the first word of the exit frame's caller's stack, fp + 16 (V8 10-13, x64). Checked on kernel
 *    cores of Node 18-24 against the Error the program threw.
 *  - an `uncaughtException` handler (or Node's own) that aborts: node::errors::TriggerUncaughtException
 *    calls JavaScript with the error as its first argument.
 * Nothing is guessed: a value is reported only when it was found in one of these places. */
#include "v8/v8_internal.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 4096

/* Runtime_Throw or Runtime_ReThrow, mangled or not (and not Runtime_ThrowTypeError & co, whose
   exception is made inside the runtime function, never passed to it). */
static int is_throw_runtime(const char *sym)
{
    return sym && (strstr(sym, "13Runtime_ThrowE") || strstr(sym, "15Runtime_ReThrowE") ||
                   strstr(sym, "Runtime_Throw(") || strstr(sym, "Runtime_ReThrow("));
}

int v8_thrown_exception(v8_t *v, size_t thread, v8_exception_t *out)
{
    memset(out, 0, sizeof *out);
    v8_frame_t *frames = xcalloc(MAX_FRAMES, sizeof *frames);
    size_t n = v8_stack(v, thread, frames, MAX_FRAMES);
    int found = 0;
    for (size_t i = 0; i + 1 < n && !found; i++) {
        if (frames[i].kind != V8_FRAME_NATIVE) continue;
        target_symbol_t sym;
        uint64_t pc = frames[i].return_address ? frames[i].pc - 1 : frames[i].pc;
        if (target_symbolize(v->t, pc, &sym) != 0 || !sym.name) continue;
        if (is_throw_runtime(sym.name) && frames[i + 1].kind == V8_FRAME_V8_INTERNAL &&
            frames[i + 1].frame_type && !strcmp(frames[i + 1].frame_type, "ExitFrame")) {
            uint64_t value;
            if (target_read_u64(v->t, frames[i + 1].fp + 16, &value) == 0 && (v8_is_heap_object(v, value) || v8_is_smi(v, value))) {
                out->value = value;
                out->how = strstr(sym.name, "ReThrow") ? "rethrown" : "thrown";
                found = 1;
                /* where: the JS frame that made the runtime call */
                for (size_t j = i + 1; j < n && !out->has_where; j++)
                    if (frames[j].kind == V8_FRAME_JS) out->where = frames[j], out->has_where = 1;
            }
        } else if (strstr(sym.name, "TriggerUncaughtException")) {
            /* the JS it calls is the innermost frames' outermost JS frame before it; where the
               error was thrown is in its own stack, not on this one */
            for (size_t j = i; j-- > 0;) {
                if (frames[j].kind != V8_FRAME_JS || frames[j].inlined) continue;
                uint64_t value;
                if (v8_frame_argc(&frames[j], NULL) >= 1 && v8_frame_arg(v, &frames[j], 0, &value) == 0) {
                    out->value = value;
                    out->how = "uncaught (passed to the uncaughtException handler)";
                    found = 1;
                }
                break;
            }
        }
    }
    free(frames);
    return found ? 0 : -1;
}
