/* JavaScript values as `print` sees them: what kind a value is (the way util.inspect tells them
 * apart) and the facts each kind carries (a Date's time, a RegExp's source and flags, a Promise's
 * state, a typed array's bytes), Map/Set entries from their OrderedHashMap tables, BigInt digits,
 * and the global object a path starts from. Returns data; cli/core_print.c formats it. */
#include "v8/v8_internal.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CONTEXT_CHAIN 256
#define MAX_COLLECTION (16 << 20)
#define MAX_BIGINT_DIGITS 4096

static int is_js_function(v8_t *v, uint64_t value)
{
    v8_function_t fi;
    if (v8_function_info(v, value, &fi) != 0) return 0;
    v8_function_free(&fi);
    return 1;
}

static int read_double(v8_t *v, uint64_t value, double *d)
{
    uint64_t bits;
    if (v8_read_field(v, value, v->L.heap_number_value, &bits) != 0) return -1;
    memcpy(d, &bits, sizeof *d);
    return 0;
}

int v8_number_value(v8_t *v, uint64_t value, double *d)
{
    if (v8_is_smi(v, value)) {
        *d = (double)v8_smi_value(v, value);
        return 0;
    }
    return v8_has_type(v, value, v->L.type_heap_number) ? read_double(v, value, d) : -1;
}

int v8_value(v8_t *v, uint64_t value, v8_value_t *out)
{
    const v8_layout_t *L = &v->L;
    int type;
    memset(out, 0, sizeof *out);
    out->type = -1;
    if (v8_is_smi(v, value)) {
        out->kind = V8_V_NUMBER;
        out->number = (double)v8_smi_value(v, value);
        return 0;
    }
    if (!v8_is_heap_object(v, value) || v8_instance_type(v, value, &type) != 0) {
        out->kind = V8_V_UNREADABLE;
        return -1;
    }
    out->type = type;
    if (v8_is_string_type(v, type)) {
        out->kind = V8_V_STRING;
        return 0;
    }
    if (type == L->type_heap_number) {
        out->kind = V8_V_NUMBER;
        if (read_double(v, value, &out->number) != 0) {
            out->kind = V8_V_UNREADABLE;
            return -1;
        }
        return 0;
    }
    int k = v8_oddball_kind(v, value);
    if (k >= 0) {
        out->kind = k == V8_ODDBALL_TRUE || k == V8_ODDBALL_FALSE ? V8_V_BOOLEAN
                    : k == V8_ODDBALL_NULL                        ? V8_V_NULL
                    : k == V8_ODDBALL_UNDEFINED                   ? V8_V_UNDEFINED
                    : k == V8_ODDBALL_HOLE                        ? V8_V_HOLE
                                                                  : V8_V_INTERNAL;
        out->boolean = k == V8_ODDBALL_TRUE;
        return 0;
    }
    if (type == L->type_symbol) {
        out->kind = V8_V_SYMBOL;
        return 0;
    }
    if (type == L->type_bigint) {
        out->kind = V8_V_BIGINT;
        return 0;
    }
    if (type == L->type_js_array) {
        out->kind = V8_V_ARRAY;
        if (v8_read_smi(v, value, L->jsarray_length, &out->length) != 0 || out->length < 0) out->length = 0;
        return 0;
    }
    if (type == L->type_js_date) {
        uint64_t w;
        out->kind = V8_V_DATE;
        out->number = NAN;
        if (L->date_value_is_double) {
            if (v8_read_field(v, value, L->date_value, &w) == 0) memcpy(&out->number, &w, sizeof w);
        } else if (v8_read_field(v, value, L->date_value, &w) == 0 && v8_number_value(v, w, &out->number) != 0) {
            out->number = NAN;
        }
        return 0;
    }
    if (type == L->type_js_regexp) {
        int64_t flags;
        out->kind = V8_V_REGEXP;
        if (v8_read_field(v, value, L->regexp_source, &out->a) != 0) out->a = 0;
        out->flags = v8_read_smi(v, value, L->regexp_flags, &flags) == 0 ? flags : 0;
        return 0;
    }
    if (type == L->type_js_error) {
        out->kind = V8_V_ERROR;
        return 0;
    }
    if (type == L->type_js_map || type == L->type_js_set) {
        out->kind = type == L->type_js_map ? V8_V_MAP : V8_V_SET;
        if (v8_read_field(v, value, L->collection_table, &out->a) != 0) out->a = 0;
        uint64_t nof;
        out->length =
            out->a && v8_fixed_array_get(v, out->a, 0, &nof) == 0 && v8_is_smi(v, nof) ? v8_smi_value(v, nof) : 0;
        return 0;
    }
    if (type == L->type_js_weak_map || type == L->type_js_weak_set) {
        out->kind = type == L->type_js_weak_map ? V8_V_WEAKMAP : V8_V_WEAKSET;
        return 0;
    }
    if (type == L->type_js_promise) {
        int64_t flags;
        out->kind = V8_V_PROMISE;
        out->state = v8_read_smi(v, value, L->promise_flags, &flags) == 0 ? (int)(flags & 3) : -1;
        if (v8_read_field(v, value, L->promise_result, &out->a) != 0) out->a = 0;
        return 0;
    }
    if (type == L->type_js_proxy) {
        out->kind = V8_V_PROXY;
        if (v8_read_field(v, value, L->proxy_target, &out->a) != 0) out->a = 0;
        if (v8_read_field(v, value, L->proxy_handler, &out->b) != 0) out->b = 0;
        return 0;
    }
    if (type == L->type_js_array_buffer) {
        out->kind = V8_V_ARRAY_BUFFER;
        uint64_t n = 0, store = 0;
        v8_read_bytes(v, value, L->ab_byte_length, &n, 8);
        v8_read_bytes(v, value, L->ab_backing_store, &store, 8);
        out->length = (int64_t)(n > (1ull << 53) ? 0 : n);
        out->data = store;
        out->a = value;
        return 0;
    }
    if (type == L->type_js_typed_array || type == L->type_js_data_view) {
        uint64_t n = 0, off = 0, ext = 0, base = 0;
        out->kind = type == L->type_js_data_view ? V8_V_DATA_VIEW : V8_V_TYPED_ARRAY;
        v8_read_bytes(v, value, L->view_byte_length, &n, 8);
        v8_read_bytes(v, value, L->view_byte_offset, &off, 8);
        if (v8_read_field(v, value, L->view_buffer, &out->a) != 0) out->a = 0;
        out->length = (int64_t)(n > (1ull << 53) ? 0 : n);
        out->offset = (int64_t)(off > (1ull << 53) ? 0 : off);
        if (type == L->type_js_typed_array) {
            /* the bytes are at base_pointer + external_pointer: an on-heap ByteArray and the offset
               of its data, or Smi 0 and the off-heap address */
            v8_read_bytes(v, value, L->typed_external, &ext, 8);
            if (v8_read_field(v, value, L->typed_base, &base) != 0) base = 0;
            out->data = (v8_is_smi(v, base) ? 0 : base) + ext;
        } else {
            uint64_t store = 0;
            if (out->a && v8_read_bytes(v, out->a, L->ab_backing_store, &store, 8) == 0)
                out->data = store + out->offset;
        }
        return 0;
    }
    if (type == L->type_js_primitive_wrapper) {
        out->kind = V8_V_BOXED;
        if (v8_read_field(v, value, L->primitive_value, &out->a) != 0) out->a = 0;
        return 0;
    }
    if (type == L->type_js_global_proxy || type == L->type_js_global_object) {
        out->kind = V8_V_GLOBAL;
        out->a = value; /* the global proxy's hidden prototype is the global object */
        if (type == L->type_js_global_proxy && v8_prototype(v, value, &out->a) != 0) out->a = 0;
        return 0;
    }
    if (type == L->type_js_bound_function || is_js_function(v, value)) {
        out->kind = V8_V_FUNCTION;
        if (type == L->type_js_bound_function && v8_read_field(v, value, L->bound_target, &out->a) != 0) out->a = 0;
        return 0;
    }
    /* other JS objects: whatever has a constructor (JSObject, API objects, arguments, iterators) */
    buf_t probe = {0};
    const char *tn = v8_type_name(v, type);
    out->kind =
        (tn && !strncmp(tn, "JS_", 3)) || v8_constructor_name(v, value, &probe) == 0 ? V8_V_OBJECT : V8_V_INTERNAL;
    buf_free(&probe);
    return 0;
}

int v8_collection_entries(v8_t *v, uint64_t table, int is_map, v8_entry_cb cb, void *ctx, int64_t limit)
{
    int64_t len;
    uint64_t w;
    int64_t nof, nod, buckets;
    if (v8_fixed_array_length(v, table, &len) != 0 || len < 3) return -1;
    if (v8_fixed_array_get(v, table, 0, &w) != 0 || !v8_is_smi(v, w)) return -1;
    nof = v8_smi_value(v, w);
    if (v8_fixed_array_get(v, table, 1, &w) != 0 || !v8_is_smi(v, w)) return -1;
    nod = v8_smi_value(v, w);
    if (v8_fixed_array_get(v, table, 2, &w) != 0 || !v8_is_smi(v, w)) return -1;
    buckets = v8_smi_value(v, w);
    /* OrderedHashTable: [elements, deleted, buckets], bucket heads, then entries in insertion order
       (key, value, chain) for a Map, (key, chain) for a Set; a deleted entry's key is the hole */
    int64_t entry = is_map ? 3 : 2, first = 3 + buckets, used = nof + nod;
    if (nof < 0 || nod < 0 || buckets < 0 || used > MAX_COLLECTION || first + used * entry > len) return -1;
    int64_t shown = 0;
    for (int64_t i = 0; i < used && shown < limit; i++) {
        uint64_t key, val = 0;
        if (v8_fixed_array_get(v, table, first + i * entry, &key) != 0) return -1;
        if (v8_is_hole(v, key)) continue;
        if (is_map && v8_fixed_array_get(v, table, first + i * entry + 1, &val) != 0) return -1;
        shown++;
        if (cb(ctx, key, val)) break;
    }
    return 0;
}

int v8_bigint_text(v8_t *v, uint64_t value, buf_t *out)
{
    uint32_t bitfield;
    if (!v8_has_type(v, value, v->L.type_bigint) || v8_read_bytes(v, value, 8, &bitfield, 4) != 0) return -1;
    /* bitfield: sign bit 0, length (64-bit digits) in bits 1..30; the digits follow the header */
    int neg = bitfield & 1;
    uint32_t n = (bitfield >> 1) & 0x3fffffff;
    if (n > MAX_BIGINT_DIGITS) return -1;
    if (n == 0) {
        buf_puts(out, "0");
        return 0;
    }
    uint64_t *d = malloc(n * sizeof *d);
    if (!d || v8_read_bytes(v, value, 16, d, n * sizeof *d) != 0) {
        free(d);
        return -1;
    }
    /* repeated division by 10^19 (base 2^64 -> base 10^19 chunks, least significant first) */
    size_t cap = (size_t)n * 2 + 1, nchunks = 0;
    uint64_t *chunks = malloc(cap * sizeof *chunks);
    uint32_t live = n;
    while (live > 0 && chunks) {
        unsigned __int128 rem = 0;
        for (int64_t i = (int64_t)live - 1; i >= 0; i--) {
            unsigned __int128 cur = (rem << 64) | d[i];
            d[i] = (uint64_t)(cur / 10000000000000000000ull);
            rem = cur % 10000000000000000000ull;
        }
        chunks[nchunks++] = (uint64_t)rem;
        while (live > 0 && d[live - 1] == 0) live--;
    }
    if (neg) buf_putc(out, '-');
    if (chunks && nchunks) {
        buf_printf(out, "%llu", (unsigned long long)chunks[nchunks - 1]);
        for (size_t i = nchunks - 1; i-- > 0;) buf_printf(out, "%019llu", (unsigned long long)chunks[i]);
    }
    free(chunks);
    free(d);
    return 0;
}

static int is_context(v8_t *v, uint64_t value)
{
    int type;
    return v8_is_heap_object(v, value) && v8_instance_type(v, value, &type) == 0 && v->L.first_context_type >= 0 &&
           type >= v->L.first_context_type && type <= v->L.last_context_type;
}

int v8_native_context(v8_t *v, uint64_t context, uint64_t *out)
{
    /* previous (slot 1) leads out to the script context, then the native context, whose own
       previous is no context */
    for (int i = 0; i < MAX_CONTEXT_CHAIN && is_context(v, context); i++) {
        uint64_t prev;
        if (v8_fixed_array_get(v, context, 1, &prev) != 0 || !is_context(v, prev)) {
            *out = context;
            return 0;
        }
        context = prev;
    }
    return -1;
}

int v8_context_global(v8_t *v, uint64_t native_context, uint64_t *out)
{
    /* the native context's extension slot holds the global object; the slot number is not
       exported, so the first slots are searched for it by type */
    for (int64_t i = 0; i < 8; i++) {
        uint64_t w;
        if (v8_fixed_array_get(v, native_context, i, &w) != 0) break;
        if (v8_has_type(v, w, v->L.type_js_global_object)) {
            *out = w;
            return 0;
        }
    }
    return -1;
}

typedef struct {
    v8_t *v;
    uint64_t first, with_process;
} global_find_t;

static int global_cb(void *ctx, const v8_heap_object_t *o)
{
    global_find_t *g = ctx;
    uint64_t process;
    int dbl;
    double d;
    if (o->type != g->v->L.type_js_global_object) return 0;
    if (!g->first) g->first = o->addr;
    if (v8_own_property(g->v, o->addr, "process", &process, &dbl, &d) != -1) { /* an accessor since Node 12 */
        g->with_process = o->addr;
        return 1;
    }
    return 0;
}

int v8_global_object(v8_t *v, uint64_t *out)
{
    /* the main thread's JS frames: their functions' contexts lead to the main native context */
    v8_frame_t frames[256];
    size_t n = v8_stack(v, 0, frames, sizeof frames / sizeof frames[0]);
    for (size_t i = n; i-- > 0;) { /* outermost first: the main script's context, not a vm one */
        uint64_t ctx, native;
        if (frames[i].kind != V8_FRAME_JS || !frames[i].function) continue;
        if (v8_read_field(v, frames[i].function, v->L.fn_context, &ctx) != 0) continue;
        if (v8_native_context(v, ctx, &native) == 0 && v8_context_global(v, native, out) == 0) return 0;
    }
    /* No JS frame (an idle server waits in epoll with an empty JS stack): the heap's global
       objects. Node's main one has `process`; a vm context's does not, unless given one. The
       first found stands when none has it. Cached: a walk costs a second on a big heap. */
    if (v->global_found) {
        *out = v->global_object;
        return v->global_object ? 0 : -1;
    }
    global_find_t g = {v, 0, 0};
    v8_heap_t *h = v8_heap_open(v);
    if (v8_heap_found(h)) v8_heap_walk(h, global_cb, &g, NULL);
    v8_heap_close(h);
    v->global_found = 1;
    v->global_object = g.with_process ? g.with_process : g.first;
    *out = v->global_object;
    return v->global_object ? 0 : -1;
}

void v8_note_global_objects(v8_t *v, const uint64_t *addrs, size_t n)
{
    global_find_t g = {v, 0, 0};
    v8_heap_object_t o = {0};
    o.type = v->L.type_js_global_object;
    for (size_t i = 0; i < n; i++) {
        o.addr = addrs[i];
        if (global_cb(&g, &o)) break;
    }
    v->global_found = 1;
    v->global_object = g.with_process ? g.with_process : g.first;
}

int v8_string_units(v8_t *v, uint64_t value, void (*cb)(void *ctx, uint32_t unit), void *ctx)
{
    return v8_string_scan(v, value, cb, ctx);
}

typedef struct {
    const char *key;
    uint64_t value;
    int found, is_double;
    double d;
} find_t;

static int find_cb(void *vctx, const v8_property_t *p)
{
    find_t *f = vctx;
    if (p->is_symbol || strcmp(p->key, f->key)) return 0;
    f->value = p->value;
    f->is_double = p->is_double;
    f->d = p->d;
    f->found = p->is_accessor ? 2 : 1;
    return 1;
}

int v8_own_property(v8_t *v, uint64_t obj, const char *key, uint64_t *out, int *is_double, double *d)
{
    find_t f = {key, 0, 0, 0, 0};
    int digits = *key && strspn(key, "0123456789") == strlen(key) && strlen(key) < 16;
    if (digits) v8_object_elements(v, obj, find_cb, &f, (int64_t)strtoll(key, NULL, 10) + 1);
    if (!f.found) v8_object_properties(v, obj, find_cb, &f);
    if (!f.found) return -1;
    *out = f.value;
    if (f.found == 2) return -2; /* an accessor (out: the AccessorPair): its value needs the getter to run */
    *is_double = f.is_double;
    *d = f.d;
    return 0;
}

int v8_read_memory(v8_t *v, uint64_t addr, void *buf, size_t n) { return target_read(v->t, addr, buf, n); }

int v8_accessor_getter(v8_t *v, uint64_t pair, uint64_t *getter)
{
    /* AccessorPair: getter, setter after the map */
    return v8_read_field(v, pair, 8, getter) == 0 && is_js_function(v, *getter) ? 0 : -1;
}

int v8_context_slots(v8_t *v, uint64_t fn, v8_entry_cb cb, void *ctx)
{
    uint64_t context, w;
    int64_t len;
    if (v8_read_field(v, fn, v->L.fn_context, &context) != 0 || !is_context(v, context) ||
        v8_fixed_array_length(v, context, &len) != 0)
        return -1;
    for (int64_t i = 2; i < len && i < 4096; i++) /* after the scope info and previous */
        if (v8_fixed_array_get(v, context, i, &w) == 0 && cb(ctx, (uint64_t)i, w)) break;
    return 0;
}

/* A ScopeInfo names its context locals inline (from scopeinfo_idx_first_vars) while they are
 * few (75 or fewer); larger scopes keep a hash table, whose names are not read here. The locals
 * occupy the context's last slots (after the header and an optional extension slot). */
#define SCOPE_INFO_MAX_INLINED 75
int v8_context_locals(v8_t *v, uint64_t context, v8_local_cb cb, void *ctx)
{
    const v8_layout_t *L = &v->L;
    uint64_t scope;
    int64_t nlocals, len;
    if (!is_context(v, context) || v8_fixed_array_length(v, context, &len) != 0 ||
        v8_fixed_array_get(v, context, 0, &scope) != 0 || !v8_has_type(v, scope, L->type_scope_info) ||
        L->scope_ncontextlocals_slot < 0 || L->scope_first_vars_slot < 0 ||
        v8_read_smi(v, scope, 8 + 8 * L->scope_ncontextlocals_slot, &nlocals) != 0 || nlocals < 0 || nlocals > len)
        return -1;
    int64_t first = len - nlocals;
    buf_t name = {0};
    for (int64_t i = 0; i < nlocals; i++) {
        uint64_t n, val;
        int trunc;
        buf_clear(&name);
        if (nlocals > SCOPE_INFO_MAX_INLINED ||
            v8_read_field(v, scope, 8 + 8 * (L->scope_first_vars_slot + i), &n) != 0 ||
            v8_string(v, n, &name, 256, &trunc) != 0)
            buf_printf(&name, "[%lld]", (long long)(first + i));
        if (v8_fixed_array_get(v, context, first + i, &val) != 0) break;
        if (cb(ctx, name.data, first + i, val)) break;
    }
    buf_free(&name);
    return 0;
}

int v8_context_previous(v8_t *v, uint64_t context, uint64_t *out)
{
    return v8_fixed_array_get(v, context, 1, out) == 0 && is_context(v, *out) ? 0 : -1;
}

int v8_function_context(v8_t *v, uint64_t fn, uint64_t *out)
{
    return v8_read_field(v, fn, v->L.fn_context, out) == 0 && is_context(v, *out) ? 0 : -1;
}

int v8_script_source(v8_t *v, uint64_t script, uint64_t *source)
{
    int type;
    return v8_read_field(v, script, v->L.script_source, source) == 0 && v8_instance_type(v, *source, &type) == 0 &&
                   v8_is_string_type(v, type)
               ? 0
               : -1;
}
