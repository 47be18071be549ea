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
 *    Local: the address of a handle slot, or the value itself with direct handles) is in its
 *    second argument register (the arch's c_args[1]: rsi on x86-64).
 * Nothing is guessed: a value is reported only when it was found in one of these places. */
#include "util/buf.h"
#include "util/xalloc.h"
#include "v8/v8_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FRAMES 4096
#define ENTRY_MAX 8 /* bytes into TriggerUncaughtException where its argument register still holds it */

/* A Local's value: a handle slot's address is aligned (read the slot), a tagged value (a direct
   handle) is not. 0, or -1 when unreadable. */
static int local_value(v8_t *v, uint64_t local, uint64_t *value)
{
    if (v8_is_heap_object(v, local)) {
        *value = local;
        return 0;
    }
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
        v8_read_field(v, script, L->script_name, &name) == 0 &&
        v8_string(v, name, &b, sizeof out->file - 1, &trunc) == 0 && b.data)
        snprintf(out->file, sizeof out->file, "%s", b.data);
    else out->line = out->col = 0;
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
        if (i == 0 && th && th->pc == frames[0].pc && pc >= sym.addr && pc - sym.addr <= ENTRY_MAX &&
            (strstr(sym.name, "24TriggerUncaughtExceptionEPN2v87IsolateENS1_5LocalINS1_5ValueEEE") ||
             strstr(sym.name, "TriggerUncaughtException(v8::Isolate*, v8::Local<v8::Value>"))) {
            uint64_t value = 0, msg;
            const int *arg = target_arch(v->t)->c_args; /* (isolate, value, message) */
            if (local_value(v, th->regs[arg[1]], &value) == 0 &&
                (v8_is_heap_object(v, value) || v8_is_smi(v, value))) {
                out->value = value;
                out->how = "uncaught (as node::errors::TriggerUncaughtException was entered)";
                found = 1;
                if (local_value(v, th->regs[arg[2]], &msg) == 0 && v8_is_heap_object(v, msg))
                    message_position(v, msg, out);
            }
            continue;
        }
        if (is_throw_runtime(sym.name) && frames[i + 1].kind == V8_FRAME_V8_INTERNAL && frames[i + 1].frame_type &&
            !strcmp(frames[i + 1].frame_type, "ExitFrame")) {
            uint64_t value;
            if (target_read_u64(v->t, frames[i + 1].fp + 16, &value) == 0 &&
                (v8_is_heap_object(v, value) || v8_is_smi(v, value))) {
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

/* ---- an Error's captured stack (V8 10-13) ----
 * The Error keeps it under a private symbol: a FixedArray, or an ErrorStackData holding that array
 * in its first field. Two forms of the array:
 *  - one CallSiteInfo per frame (Node 18 to 24.21). A CallSiteInfo's first three fields are its
 *    code object, receiver and function, in an order that changed in V8 12 (told apart by their
 *    types); then code_offset_or_source_position and flags (Smis, at +32 and +40 in V8 10-13);
 *  - flat, six slots per frame: code, receiver, function, code offset or source position,
 *    parameters (a FixedArray), flags (Node 24.22, V8 13.6.233.17-node.63: read off its cores;
 *    the frames' flags are the same bits, constructor 1 << 3 on `new Conn`).
 * The flags' bit "source position computed" is 1 << 6 in V8 10-11 and 1 << 7 in V8 12-13 (read off
 * cores of Node 18-24: an async frame's position, computed for its message); without it the value
 * is the bytecode offset into the code object, a BytecodeArray or (V8 13) the BytecodeWrapper
 * whose first field is one. Async: 1 << 5; constructor: 1 << 3. */
#define CSI_OFFSET 32
#define CSI_FLAGS 40
#define FLAT_SLOTS 6
#define CSI_CONSTRUCTOR (1 << 3)
#define CSI_ASYNC (1 << 5)
#define MAX_CALLSITES 200

typedef struct {
    v8_t *v;
    uint64_t array;
    int flat; /* six slots per frame, not CallSiteInfo objects */
} find_stack_t;

static int is_function(v8_t *v, uint64_t x);

/* The array is the flat form: a whole number of frames, each a function with Smi offset and flags. */
static int is_flat_stack(v8_t *v, uint64_t array)
{
    int64_t n;
    uint64_t fn, off, flags;
    return v8_fixed_array_length(v, array, &n) == 0 && n > 0 && n % FLAT_SLOTS == 0 &&
           v8_fixed_array_get(v, array, 2, &fn) == 0 && is_function(v, fn) &&
           v8_fixed_array_get(v, array, 3, &off) == 0 && v8_is_smi(v, off) &&
           v8_fixed_array_get(v, array, 5, &flags) == 0 && v8_is_smi(v, flags);
}

static int stack_prop(void *ctx, const v8_property_t *p)
{
    find_stack_t *f = ctx;
    const v8_layout_t *L = &f->v->L;
    uint64_t value = p->value, first;
    if (!p->is_symbol || p->is_double || p->is_accessor) return 0;
    if (L->type_error_stack_data >= 0 && v8_has_type(f->v, value, L->type_error_stack_data) &&
        v8_read_field(f->v, value, 8, &value) != 0)
        return 0;
    if (!v8_has_type(f->v, value, L->type_fixed_array) || v8_fixed_array_get(f->v, value, 0, &first) != 0) return 0;
    if (L->type_call_site_info >= 0 && v8_has_type(f->v, first, L->type_call_site_info)) f->flat = 0;
    else if (is_flat_stack(f->v, value)) f->flat = 1;
    else return 0;
    f->array = value;
    return 1;
}

/* Frame i's code object, the two words that are its receiver and function (in either order: see
   above), its offset and its flags; -1 when unreadable. */
static int read_callsite(find_stack_t *f, int64_t i, uint64_t *code, uint64_t w[2], uint64_t *off, uint64_t *flags)
{
    v8_t *v = f->v;
    if (f->flat) {
        int64_t b = i * FLAT_SLOTS;
        return v8_fixed_array_get(v, f->array, b, code) != 0 || v8_fixed_array_get(v, f->array, b + 1, &w[0]) != 0 ||
                       v8_fixed_array_get(v, f->array, b + 2, &w[1]) != 0 ||
                       v8_fixed_array_get(v, f->array, b + 3, off) != 0 ||
                       v8_fixed_array_get(v, f->array, b + 5, flags) != 0
                   ? -1
                   : 0;
    }
    uint64_t csi, x[3];
    if (v8_fixed_array_get(v, f->array, i, &csi) != 0 || !v8_has_type(v, csi, v->L.type_call_site_info) ||
        v8_read_field(v, csi, 8, &x[0]) != 0 || v8_read_field(v, csi, 16, &x[1]) != 0 ||
        v8_read_field(v, csi, 24, &x[2]) != 0 || v8_read_field(v, csi, CSI_OFFSET, off) != 0 ||
        v8_read_field(v, csi, CSI_FLAGS, flags) != 0)
        return -1;
    /* V8 10-11: receiver, function, code; V8 12-13: code, receiver, function */
    if (v->major < 12) *code = x[2], w[0] = x[0], w[1] = x[1];
    else *code = x[0], w[0] = x[1], w[1] = x[2];
    return 0;
}

static int is_function(v8_t *v, uint64_t x)
{
    int type;
    v8_value_t val;
    if (!v8_is_heap_object(v, x) || v8_instance_type(v, x, &type) != 0) return 0;
    if (type >= v->L.type_first_js_function && type <= v->L.type_js_function) return 1;
    /* a class constructor has a type of its own since V8 12, outside the range the metadata gives */
    return v8_value(v, x, &val) == 0 && val.kind == V8_V_FUNCTION;
}

/* ---- a frame's name as V8 prints it (CallSiteInfo's GetFunctionName, GetTypeName, GetMethodName
 * and AppendMethodCall in messages/call-site-info.cc, V8 10-13) ---- */
#define PROTO_MAX 64 /* prototypes followed from a receiver (a chain is short; a corrupt one is cut) */

/* A JS object (not a primitive, a proxy or one of V8's internal objects). */
static int is_js_object(v8_t *v, uint64_t x)
{
    v8_value_t val;
    if (!v8_is_heap_object(v, x) || v8_value(v, x, &val) != 0) return 0;
    switch (val.kind) {
    case V8_V_UNREADABLE:
    case V8_V_NUMBER:
    case V8_V_STRING:
    case V8_V_BOOLEAN:
    case V8_V_NULL:
    case V8_V_UNDEFINED:
    case V8_V_HOLE:
    case V8_V_BIGINT:
    case V8_V_SYMBOL:
    case V8_V_PROXY:
    case V8_V_INTERNAL: return 0;
    default: return 1;
    }
}

/* A property's value is the function: a data property holding it, or an accessor whose getter or
   setter it is. */
static int holds_function(v8_t *v, uint64_t value, int is_accessor, uint64_t fn)
{
    if (!is_accessor) return value == fn;
    uint64_t g, s;
    if (v->L.type_accessor_pair >= 0 && !v8_has_type(v, value, v->L.type_accessor_pair)) return 0;
    return (v8_read_field(v, value, 8, &g) == 0 && g == fn) || (v8_read_field(v, value, 16, &s) == 0 && s == fn);
}

/* The method name V8 infers when the receiver has no property of the function's own name that
   holds it: the one enumerable string-keyed property of the receiver or its prototypes whose value
   (or getter or setter) is the function; none when two differently named ones are. */
typedef struct {
    v8_t *v;
    uint64_t fn;
    buf_t *name;
    int state; /* 0 none yet, 1 one, -1 ambiguous */
} infer_t;

static int infer_prop(void *ctx, const v8_property_t *p)
{
    infer_t *f = ctx;
    if (p->is_symbol || p->is_private || !p->enumerable || p->is_double || !p->key) return 0;
    if (!holds_function(f->v, p->value, p->is_accessor, f->fn)) return 0;
    if (f->state == 0) {
        buf_clear(f->name);
        buf_puts(f->name, p->key);
        f->state = 1;
    } else if (f->state == 1 && strcmp(f->name->data, p->key)) f->state = -1;
    return 0;
}

static void method_name(v8_t *v, uint64_t recv, uint64_t fn, const v8_function_t *fi, buf_t *out)
{
    /* the function's own name ("get x" and "set x" without their prefix), or the last part of the
       name V8 inferred for it ("o.foo" for `o.foo = function () {}`): does the receiver's property
       of that name (own or inherited) hold it? */
    const char *n = fi->name ? fi->name : "";
    if (!strncmp(n, "get ", 4) || !strncmp(n, "set ", 4)) n += 4;
    else if (!*n && fi->inferred) {
        const char *dot = strrchr(fi->inferred, '.');
        n = dot ? dot + 1 : fi->inferred;
    }
    if (*n) {
        uint64_t o = recv, value;
        int isd;
        double d;
        for (int depth = 0; depth < PROTO_MAX; depth++) {
            int rc = v8_own_property(v, o, n, &value, &isd, &d);
            if (rc == 0 || rc == -2) {
                if (!isd && holds_function(v, value, rc == -2, fn)) {
                    buf_puts(out, n);
                    return;
                }
                break;
            }
            if (v8_prototype(v, o, &o) != 0) break;
        }
    }
    buf_t name = {0};
    infer_t f = {v, fn, &name, 0};
    uint64_t o = recv;
    for (int depth = 0; depth < PROTO_MAX && f.state >= 0 && is_js_object(v, o); depth++) {
        if (v8_has_type(v, o, v->L.type_js_global_proxy)) break; /* access-checked */
        v8_object_properties(v, o, infer_prop, &f);
        if (v8_prototype(v, o, &o) != 0) break;
    }
    if (f.state == 1) buf_puts(out, name.data);
    buf_free(&name);
}

/* An identifier (String::IsIdentifier): ASCII letters, digits, _ and $, not first a digit; any
   non-ASCII character is taken for one (V8 checks Unicode's ID_Start and ID_Continue). */
static int is_identifier(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9')) return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
              *s == '$' || (unsigned char)*s >= 0x80))
            return 0;
    return 1;
}

/* name equals method, or ends with "." + method (V8 12-13: or " " + method: "get x" as x) */
static int ends_with_method(v8_t *v, const char *name, const char *method)
{
    size_t n = strlen(name), m = strlen(method);
    if (!strcmp(name, method)) return 1;
    return n > m && !strcmp(name + n - m, method) &&
           (name[n - m - 1] == '.' || (v->major >= 12 && name[n - m - 1] == ' '));
}

/* The frame's name as V8's stack trace prints it before the location: "Type.fn [as method]" for a
   method call, the function's name for a plain call, "" when an unnamed plain call (V8 then prints
   the location alone); a constructor's without its "new ". */
static void callsite_name(v8_t *v, uint64_t recv, uint64_t fn, const v8_function_t *fi, int constructor, buf_t *out)
{
    const char *fname = fi->name && *fi->name ? fi->name : fi->inferred ? fi->inferred : "";
    /* a method call: a receiver that is neither undefined, null (strict mode) nor the global proxy */
    int method_call = !constructor && v8_is_heap_object(v, recv) && v8_oddball_kind(v, recv) < 0 &&
                      !v8_has_type(v, recv, v->L.type_js_global_proxy);
    if (!method_call) {
        buf_puts(out, *fname || !constructor ? fname : "<anonymous>");
        return;
    }
    buf_t type = {0}, method = {0};
    v8_function_t rf;
    if (is_function(v, recv) && v8_function_info(v, recv, &rf) == 0) { /* a static method: the class's name */
        const char *cn = rf.name && *rf.name ? rf.name : rf.inferred ? rf.inferred : "";
        buf_puts(&type, cn);
        v8_function_free(&rf);
    }
    if (!type.len && v8_constructor_name(v, recv, &type) != 0) buf_clear(&type);
    method_name(v, recv, fn, fi, &method);
    if (*fname) {
        if (type.len && is_identifier(fname) && strcmp(fname, type.data)) buf_printf(out, "%s.", type.data);
        buf_puts(out, fname);
        if (method.len && !ends_with_method(v, fname, method.data)) buf_printf(out, " [as %s]", method.data);
    } else {
        if (type.len) buf_printf(out, "%s.", type.data);
        buf_puts(out, method.len ? method.data : "<anonymous>");
    }
    buf_free(&type);
    buf_free(&method);
}

int v8_error_callsites(v8_t *v, uint64_t error, v8_callsite_cb cb, void *ctx)
{
    const v8_layout_t *L = &v->L;
    find_stack_t f = {v, 0, 0};
    v8_object_properties(v, error, stack_prop, &f);
    int64_t n;
    if (!f.array || v8_fixed_array_length(v, f.array, &n) != 0) return -1;
    if (f.flat) n /= FLAT_SLOTS;
    int64_t computed_bit = v->major >= 12 ? 1 << 7 : 1 << 6;
    for (int64_t i = 0; i < n && i < MAX_CALLSITES; i++) {
        uint64_t code, w[2], off, flags;
        if (read_callsite(&f, i, &code, w, &off, &flags) != 0 || !v8_is_smi(v, off) || !v8_is_smi(v, flags)) continue;
        uint64_t fn = is_function(v, w[1]) ? w[1] : 0, recv = w[0];
        v8_function_t fi;
        if (!fn || v8_function_info(v, fn, &fi) != 0) continue;
        int64_t fl = v8_smi_value(v, flags), pos = -1, o = v8_smi_value(v, off);
        uint64_t table;
        if (L->type_bytecode_wrapper >= 0 && v8_has_type(v, code, L->type_bytecode_wrapper) &&
            v8_read_field(v, code, 8, &code) != 0)
            code = 0;
        if (fl & computed_bit) pos = o;
        else if (v8_has_type(v, code, L->type_bytecode_array) && L->bca_source_positions >= 0 &&
                 v8_read_field(v, code, L->bca_source_positions, &table) == 0) {
            int inlined;
            if (v8_source_position(v, table, o, &pos, &inlined) != 0) pos = -1;
        }
        buf_t name = {0};
        callsite_name(v, recv, fn, &fi, (fl & CSI_CONSTRUCTOR) != 0, &name);
        v8_callsite_t c = {
            fn, name.data ? name.data : "", fi.script_name, 0, 0, (fl & CSI_ASYNC) != 0, (fl & CSI_CONSTRUCTOR) != 0};
        if (pos >= 0 && fi.script) v8_script_line_col(v, fi.script, pos, &c.line, &c.col);
        int stop = cb(ctx, &c);
        buf_free(&name);
        v8_function_free(&fi);
        if (stop) break;
    }
    return 0;
}
