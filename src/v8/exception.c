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
 *  - a snapshot taken as node::errors::TriggerUncaughtException(isolate, error, message, from_promise)
 *    is entered (`nodescope watch --on uncaught`): the innermost frame is that function, at most
 *    a few bytes in (its prologue has not touched the argument registers yet), and error (a
 *    Local: the address of a handle slot, or the value itself with direct handles) is in rsi.
 * Nothing is guessed: a value is reported only when it was found in one of these places. */
#include "v8/v8_internal.h"
#include "util/buf.h"
#include "util/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 4096
#define ENTRY_MAX 8    /* bytes into TriggerUncaughtException where rsi is still its argument */
#define REG_RSI 13     /* in user_regs_struct order */
#define REG_RDX 12

/* A Local's value: a handle slot's address is aligned (read the slot), a tagged value (a direct
   handle) is not. 0, or -1 when unreadable. */
static int local_value(v8_t *v, uint64_t local, uint64_t *value)
{
    if (v8_is_heap_object(v, local)) { *value = local; return 0; }
    return local && target_read_u64(v->t, local, value) == 0 ? 0 : -1;
}

/* Where a JSMessageObject says its exception was thrown: its start position in its script, or,
   not computed yet, its function's bytecode offset through the bytecode's position table. */
static void message_position(v8_t *v, uint64_t msg, v8_exception_t *out)
{
    const v8_layout_t *L = &v->L;
    uint64_t script, sfi, word, data, table;
    if (L->type_js_message_object < 0 || L->msg_shared_info < 16 || !v8_has_type(v, msg, L->type_js_message_object) ||
        v8_read_field(v, msg, L->msg_shared_info - 16, &script) != 0 || !v8_has_type(v, script, L->type_script))
        return;
    int64_t pos = -1;
    if (L->msg_start_position >= 0 && v8_read_field(v, msg, L->msg_start_position, &word) == 0 && v8_is_smi(v, word))
        pos = v8_smi_value(v, word);
    if (pos < 0 && L->msg_bytecode_offset >= 0 && v8_read_field(v, msg, L->msg_shared_info, &sfi) == 0 &&
        v8_has_type(v, sfi, L->type_sfi) && v8_read_field(v, msg, L->msg_bytecode_offset, &word) == 0 &&
        v8_is_smi(v, word) && v8_smi_value(v, word) >= 0 && L->sfi_function_data >= 0 &&
        v8_read_field(v, sfi, L->sfi_function_data, &data) == 0 && v8_has_type(v, data, L->type_bytecode_array) &&
        L->bca_source_positions >= 0 && v8_read_field(v, data, L->bca_source_positions, &table) == 0) {
        int inlined;
        if (v8_source_position(v, table, v8_smi_value(v, word), &pos, &inlined) != 0) pos = -1;
    }
    uint64_t name;
    buf_t b = {0};
    int trunc;
    if (pos >= 0 && v8_script_line_col(v, script, pos, &out->line, &out->col) == 0 &&
        v8_read_field(v, script, L->script_name, &name) == 0 && v8_string(v, name, &b, sizeof out->file - 1, &trunc) == 0 && b.data)
        snprintf(out->file, sizeof out->file, "%s", b.data);
    else
        out->line = out->col = 0;
    buf_free(&b);
}

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
        const target_thread_t *th = target_thread(v->t, thread);
        if (i == 0 && th && th->rip == frames[0].pc && pc >= sym.addr && pc - sym.addr <= ENTRY_MAX &&
            (strstr(sym.name, "24TriggerUncaughtExceptionEPN2v87IsolateENS1_5LocalINS1_5ValueEEE") ||
             strstr(sym.name, "TriggerUncaughtException(v8::Isolate*, v8::Local<v8::Value>"))) {
            uint64_t value = 0, msg;
            if (local_value(v, th->regs[REG_RSI], &value) == 0 && (v8_is_heap_object(v, value) || v8_is_smi(v, value))) {
                out->value = value;
                out->how = "uncaught (as node::errors::TriggerUncaughtException was entered)";
                found = 1;
                if (local_value(v, th->regs[REG_RDX], &msg) == 0 && v8_is_heap_object(v, msg)) message_position(v, msg, out);
            }
            continue;
        }
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
