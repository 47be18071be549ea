/* Calls into C++ through V8's API named as V8's profiler names them: the API function whose
 * FunctionTemplateInfo an exit frame holds (BuiltinExitFrame, ApiCallbackExitFrame), and for a
 * call from optimized code on V8 10-12 (a plain exit frame with no target) the method on the
 * call's holder, or its prototypes, whose template runs the C++ function the frame entered;
 * learned once per C++ function (v8->api_callees). See frames.c for the walk. */
#include "util/hash.h"
#include "util/xalloc.h"
#include "v8/v8_internal.h"
#include <stdlib.h>
#include <string.h>

/* The SharedFunctionInfo of an API function when the SharedFunctionInfo's data is the function's
 * FunctionTemplateInfo fti (0: any template), else 0. */
static uint64_t api_shared(v8_t *v, uint64_t shared, uint64_t fti)
{
    const v8_layout_t *L = &v->L;
    uint64_t data;
    if (!v8_has_type(v, shared, L->type_sfi) || v8_read_field(v, shared, L->sfi_api_data, &data) != 0) return 0;
    if (fti ? data != fti : !v8_has_type(v, data, L->type_function_template_info)) return 0;
    return shared;
}

#define TEMPLATE_SCAN 24 /* fields of a FunctionTemplateInfo searched for its SharedFunctionInfo or callback */

/* Reads the fields of a fixed-size struct (a template, a CallHandlerInfo), at most TEMPLATE_SCAN,
 * never beyond the object (its neighbours are other templates'); how many, 0 when unreadable. */
static int struct_fields(v8_t *v, uint64_t obj, uint64_t *fields)
{
    uint64_t map;
    uint8_t words;
    if (v8_read_field(v, obj, v->L.obj_map, &map) != 0 || v->L.map_instance_size < 0 ||
        v8_read_u8(v, map, v->L.map_instance_size, &words) != 0 || words < 2)
        return 0;
    int n = words - 1 < TEMPLATE_SCAN ? words - 1 : TEMPLATE_SCAN;
    return target_read(v->t, obj - (uint64_t)v->L.heap_tag + 8, fields, (size_t)n * 8) == 0 ? n : 0;
}

/* The SharedFunctionInfo V8 made for a FunctionTemplateInfo's function (the template's
 * shared_function_info, whose place V8 does not export: found once by looking through the
 * template's fields for the SharedFunctionInfo that points back to it, then read there). */
static uint64_t template_shared(v8_t *v, uint64_t fti)
{
    uint64_t shared;
    if (v->template_shared_field > 0)
        return v8_read_field(v, fti, v->template_shared_field, &shared) == 0 ? api_shared(v, shared, fti) : 0;
    uint64_t fields[TEMPLATE_SCAN];
    int n = struct_fields(v, fti, fields);
    for (int i = 0; i < n; i++)
        if (v8_is_heap_object(v, fields[i]) && api_shared(v, fields[i], fti)) {
            v->template_shared_field = 8 * (i + 1);
            return fields[i];
        }
    return 0;
}

/* An exit frame into C++ for an API function (a FunctionTemplate's callback) becomes a V8_FRAME_API
 * frame naming that function: V8's profiler files the callback's time under it (`writev`,
 * `read`), so the live profile must too. Where the frame keeps its target:
 *   BuiltinExitFrame (C++ builtins; API calls through V8 11): the JSFunction at fp+24, an API
 *   function when its SharedFunctionInfo's data is a FunctionTemplateInfo (JSON.stringify's is not:
 *   V8 files a C++ builtin's time under its JS caller, and so does the sampler);
 *   ApiCallbackExitFrame (V8 12+): the FunctionTemplateInfo (or the JSFunction, once V8 made it) at
 *   fp+16 on V8 12, in the FunctionCallbackInfo's implicit arguments above the frame on V8 13
 *   (index 4: fp+16+32) and V8 14 (index 3: fp+16+24); read off live Node 22, 24, 25 and 26
 *   processes in fs.readSync and zlib's writeSync (L->api_exit_target, layout.c's table).
 * Anything else there (a torn read, another layout) leaves the frame internal. */
void v8_api_frame(v8_t *v, v8_frame_t *f, int64_t type)
{
    const v8_layout_t *L = &v->L;
    int64_t off = type == L->ft_builtin_exit ? 24 : type == L->ft_api_callback_exit ? L->api_exit_target : -1;
    uint64_t target, shared = 0;
    if (off < 0 || L->sfi_api_data < 0 || v8_frame_slot(v, f->fp, off, &target) != 0 || !v8_is_heap_object(v, target))
        return;
    if (v8_has_type(v, target, L->type_js_function)) {
        if (v8_read_field(v, target, L->fn_shared, &shared) != 0 || !api_shared(v, shared, 0)) return;
        f->function = target;
    } else if (type == L->ft_api_callback_exit && v8_has_type(v, target, L->type_function_template_info)) {
        if (!(shared = template_shared(v, target))) return;
        f->function = 0;
    } else {
        return;
    }
    f->kind = V8_FRAME_API;
    f->shared = shared;
}

/* The C++ function an exit frame (frames[i]) called: the first native frame inside it that is not
 * V8's own (its call helpers, the profiling thunk InvokeFunctionCallback); 0 when none. */
static uint64_t exit_callee(v8_t *v, const v8_frame_t *frames, size_t i)
{
    while (i-- > 0 && frames[i].kind == V8_FRAME_NATIVE) {
        target_symbol_t sym;
        if (target_symbolize(v->t, v8_frame_lookup_pc(&frames[i]), &sym) != 0 || !sym.name) return 0;
        if (strncmp(sym.name, "_ZN2v88internal", 15) && strncmp(sym.name, "Builtins_", 9)) return sym.addr;
    }
    return 0;
}

#define HOLDER_PROTOS 8 /* prototypes of a call's holder searched for the method it called */

typedef struct {
    v8_t *v;
    uint64_t callee, shared;
} method_search_t;

/* Does a FunctionTemplateInfo's callback run the C++ function callee? Where the template keeps the
 * callback's address is not exported: one of its fields (V8 12+, depth 0), or the Foreign in one of
 * its CallHandlerInfo's (V8 10 and 11, call_code: depth 2; any other way down finds other
 * functions'). */
static int holds_address(v8_t *v, uint64_t obj, uint64_t callee, int depth)
{
    uint64_t fields[TEMPLATE_SCAN];
    int n = struct_fields(v, obj, fields);
    for (int i = 0; i < n; i++)
        if (fields[i] == callee) return 1;
    for (int i = 0; depth > 0 && i < n; i++)
        if (v8_is_heap_object(v, fields[i]) && (depth == 1 || v8_has_type(v, fields[i], v->L.type_call_handler_info)) &&
            holds_address(v, fields[i], callee, depth - 1))
            return 1;
    return 0;
}

/* A property that is the API function whose callback is the C++ function searched for. */
static int method_cb(void *ctx, const v8_property_t *prop)
{
    method_search_t *m = ctx;
    v8_t *v = m->v;
    const v8_layout_t *L = &v->L;
    uint64_t shared, fti;
    if (prop->is_accessor || prop->is_double || !v8_has_type(v, prop->value, L->type_js_function) ||
        v8_read_field(v, prop->value, L->fn_shared, &shared) != 0 || !api_shared(v, shared, 0) ||
        v8_read_field(v, shared, L->sfi_api_data, &fti) != 0 ||
        !holds_address(v, fti, m->callee, L->type_call_handler_info >= 0 ? 2 : 0))
        return 0;
    m->shared = shared;
    return 1;
}

/* The API function with callback callee among the methods of holder (what it was called on: a
 * binding object's functions, a wrap's prototype methods) and of its prototypes; 0 when none. */
static uint64_t holder_method(v8_t *v, uint64_t holder, uint64_t callee)
{
    method_search_t m = {v, callee, 0};
    for (int k = 0; k < HOLDER_PROTOS && !m.shared && v8_is_heap_object(v, holder); k++) {
        v8_object_properties(v, holder, method_cb, &m);
        if (v8_prototype(v, holder, &holder) != 0) break;
    }
    return m.shared;
}

/* The remembered API function of the C++ function callee (added, shared 0, when new: *added set);
 * NULL when the table is full. */
static v8_api_callee_t *callee_entry(v8_t *v, uint64_t callee, int *added)
{
    *added = 0;
    for (size_t k = 0; k < v->n_api_callees; k++)
        if (v->api_callees[k].callee == callee) return &v->api_callees[k];
    if (v->n_api_callees == V8_API_CALLEES) return NULL;
    *added = 1;
    v->api_callees[v->n_api_callees] = (v8_api_callee_t){callee, 0};
    return &v->api_callees[v->n_api_callees++];
}

/* Calls from optimized code into API functions go through Builtins_CallApiCallback* with a plain
 * ExitFrame on V8 10-12 (Node 18-22): the frame holds no target (V8's own profiler names the
 * callback from its address). Which API function runs that C++ function (exit_callee) is
 * remembered per C++ function: from the calls that did name theirs (from interpreted or baseline
 * code: api_frame), else found once among the methods of the call's holder (the
 * FunctionCallbackInfo's first implicit argument, just above the frame: a TCP wrap for `writev`,
 * the fs binding for `read`); a callee found nowhere (a bare function, called without a holder)
 * is remembered as such. V8 13 names every call in its frame: nothing to do. */
void v8_api_callees(v8_t *v, v8_frame_t *frames, size_t n)
{
    if (v->major >= 13) return;
    for (size_t i = 1; i < n; i++) {
        v8_frame_t *f = &frames[i];
        target_symbol_t sym;
        int api = f->kind == V8_FRAME_API;
        if (!api && !(f->kind == V8_FRAME_V8_INTERNAL && !strcmp(f->frame_type, "ExitFrame") &&
                      target_symbolize(v->t, v8_frame_lookup_pc(f), &sym) == 0 && sym.name &&
                      !strncmp(sym.name, "Builtins_CallApiCallback", 24)))
            continue;
        uint64_t callee = exit_callee(v, frames, i), holder;
        int added;
        v8_api_callee_t *e = callee ? callee_entry(v, callee, &added) : NULL;
        if (!e) continue;
        if (api) {
            e->shared = f->shared;
        } else {
            if (added && v8_frame_slot(v, f->fp, 16, &holder) == 0) e->shared = holder_method(v, holder, callee);
            /* read from an earlier sample: still the SharedFunctionInfo of an API function? */
            if (api_shared(v, e->shared, 0)) f->kind = V8_FRAME_API, f->shared = e->shared, f->function = 0;
        }
    }
}
