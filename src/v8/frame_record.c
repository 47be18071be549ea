/* A frame as one record, what `stack` and the sampler print of it: the native symbol and module
 * of its pc, its function (v8_shared_info, functions.c), and the name V8's stack traces give that
 * function (v8_frame_name: a method is named from its receiver, read through the frame, and the
 * receiver's properties). Above both the stack walk (frames.c) and the object reader (objects.c). */
#include "util/xalloc.h"
#include "v8/v8_internal.h"
#include <stdlib.h>
#include <string.h>

#define MAX_METHOD_PROTOTYPES 64 /* the receiver's prototypes searched for the method */

typedef struct {
    uint64_t fn;
    buf_t *key;
    int found;
} method_ctx_t;

static int method_cb(void *vctx, const v8_property_t *p)
{
    method_ctx_t *m = vctx;
    if (p->is_accessor || p->is_double || p->value != m->fn) return 0;
    size_t n = strlen(p->key);
    /* V8 names a method under a symbol key by the symbol's description in brackets */
    if (p->is_symbol && n > 8 && !strncmp(p->key, "Symbol(", 7) && p->key[n - 1] == ')')
        buf_printf(m->key, "[%.*s]", (int)(n - 8), p->key + 7);
    else buf_puts(m->key, p->key);
    m->found = 1;
    return 1;
}

/* The name V8's stack traces give a method: "Type.key" where key is the property of the receiver
 * (or its prototypes) that holds fn; 0 and appended to out when found. */
static int method_name(v8_t *v, uint64_t receiver, uint64_t fn, buf_t *out)
{
    const v8_layout_t *L = &v->L;
    buf_t key = {0};
    method_ctx_t m = {fn, &key, 0};
    uint64_t o = receiver;
    for (int i = 0; i < MAX_METHOD_PROTOTYPES && !m.found; i++) {
        uint64_t map;
        int t;
        if (!v8_is_heap_object(v, o) || v8_instance_type(v, o, &t) != 0 || t == L->type_oddball ||
            v8_is_string_type(v, t))
            break;
        v8_object_properties(v, o, method_cb, &m);
        if (m.found || v8_read_field(v, o, L->obj_map, &map) != 0 || v8_read_field(v, map, L->map_prototype, &o) != 0)
            break;
    }
    if (m.found) {
        size_t mark = out->len;
        if (v8_constructor_name(v, receiver, out) != 0) buf_puts(out, "Object");
        /* a function as receiver (a static method): V8 up to 12 says "Function.key", V8 13 the
         * function's own name ("Module._load") */
        v8_function_t fi;
        int is_fn = v8_function_info(v, receiver, &fi) == 0;
        if (is_fn || out->len == mark) {
            out->len = mark;
            out->data[mark] = 0;
            buf_puts(out, is_fn && v->major >= 13 && *fi.name ? fi.name : "Function");
        }
        if (is_fn) v8_function_free(&fi);
        buf_printf(out, ".%s", key.data);
    }
    buf_free(&key);
    return m.found ? 0 : -1;
}

/* The function's own `name` data property: a name given at run time, e.g. to a method under a
 * computed key, which V8 prefers to the static name as well. */
static int runtime_name(v8_t *v, uint64_t fn, buf_t *out)
{
    uint64_t name;
    int trunc;
    size_t mark = out->len;
    if (fn && v8_object_get(v, fn, "name", &name) == 0 && v8_string(v, name, out, 256, &trunc) == 0 && out->len > mark)
        return 0;
    out->len = mark;
    if (out->data) out->data[mark] = 0;
    return -1;
}

/* A receiver that makes the call a method call in V8's stack traces: an object other than the
 * global proxy (which sloppy functions get when called plainly); its type name appended to out. */
static int method_receiver_type(v8_t *v, uint64_t receiver, buf_t *out)
{
    int type;
    return v8_is_heap_object(v, receiver) && v8_instance_type(v, receiver, &type) == 0 &&
           type != v->L.type_js_global_proxy && v8_constructor_name(v, receiver, out) == 0;
}

void v8_frame_name(v8_t *v, const v8_frame_t *f, const v8_function_t *fi, buf_t *out)
{
    uint64_t receiver;
    if (*fi->name) buf_puts(out, fi->name);
    else if (runtime_name(v, f->function, out) == 0) return;
    else if (fi->inferred) buf_puts(out, fi->inferred);
    else if (!f->function || v8_frame_arg(v, f, -1, &receiver) != 0) buf_puts(out, "(anonymous)");
    else if (method_name(v, receiver, f->function, out) == 0) return;
    else {
        buf_t type_name = {0};
        if (method_receiver_type(v, receiver, &type_name)) buf_printf(out, "%s.<anonymous>", type_name.data);
        else buf_puts(out, "(anonymous)");
        buf_free(&type_name);
    }
}

void v8_frame_record(target_t *t, v8_t *v, const v8_frame_t *f, v8_frame_record_t *r)
{
    v8_frame_record_facts(t, v, f, r);
    if (!r->has_function) return;
    buf_t b = {0};
    v8_frame_name(v, f, &r->fn, &b);
    r->display_name = b.data ? b.data : xstrdup("");
}

void v8_frame_record_facts(target_t *t, v8_t *v, const v8_frame_t *f, v8_frame_record_t *r)
{
    target_symbol_t sym;
    memset(r, 0, sizeof *r);
    if (target_symbolize(t, v8_frame_lookup_pc(f), &sym) == 0 && sym.name) {
        r->symbol = sym.name;
        r->symbol_offset = f->pc - sym.addr;
        r->symbol_module = sym.module;
    }
    if (target_file_location(t, f->pc, &r->module, &r->module_offset) != 0) r->module = NULL;
    r->internal = f->kind == V8_FRAME_V8_INTERNAL ||
                  (f->kind == V8_FRAME_NATIVE && r->symbol && !strncmp(r->symbol, "Builtins_", 9));
    if ((f->kind != V8_FRAME_JS && f->kind != V8_FRAME_API) || !v || v8_shared_info(v, f->shared, &r->fn) != 0) return;
    r->has_function = 1;
}

void v8_frame_record_free(v8_frame_record_t *r)
{
    if (r->has_function) v8_function_free(&r->fn);
    free(r->display_name);
    memset(r, 0, sizeof *r);
}
