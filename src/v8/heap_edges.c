/* The references one heap object holds, named the way DevTools' heap snapshots name them.
 *
 * Named edges come from what the value printers already decode: a JS object's properties (fast
 * ones through the map's descriptors, in-object or in the PropertyArray; dictionary ones; the
 * global object's PropertyCells) and elements, a Map's or Set's table entries, a context's
 * variables (named by its ScopeInfo), an ES module's exports ("export NAME"). Then every
 * tagged slot of the object's body that was not already named is an internal edge, named by the metadata's field names where it has them
 * (class_JSFunction__context__Context) and by index otherwise; a slot whose low bits are 0b11 is a
 * weak reference (x64 without pointer compression: V8's kWeakHeapObjectTag). Raw data (characters,
 * bytes, doubles, instructions) is never scanned: a double's bits can look like a pointer.
 * Everything read is untrusted; an edge only exists to an address the caller's is_object accepts
 * (the graph's node table), so a stray word never becomes an edge. */
#include "util/buf.h"
#include "util/xalloc.h"
#include "v8/v8_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAMED_EDGES (16u << 20)
#define INSTRUCTION_STREAM_HEADER 32 /* map, code, relocation_info: then machine code */

typedef struct {
    int64_t offset;
    const char *name;
} field_name_t;

typedef struct {
    int loaded;
    field_name_t *f;
    size_t n;
} type_fields_t;

/* Instance types whose bodies hold no references past a fixed header. */
enum { RAW_NONE, RAW_ALL, RAW_AFTER_HEADER };

struct v8_edges {
    v8_t *v;
    v8_heap_t *h;
    type_fields_t fields[4096];
    uint8_t raw[4096];        /* RAW_* by type */
    int64_t raw_header[4096]; /* RAW_AFTER_HEADER: bytes of tagged header */
    int type_ordered_map, type_ordered_set;
    int first_js_type; /* JS_* instance types (JSReceivers) are numbered from here */
    buf_t scratch;
};

static void set_raw(v8_edges_t *e, int type, int how, int64_t header)
{
    if (type < 0 || type >= 4096) return;
    e->raw[type] = (uint8_t)how;
    e->raw_header[type] = header;
}

static int type_named(const v8_t *v, const char *name)
{
    for (size_t i = 0; i < v->ntypes; i++)
        if (v->types[i].name && !strcmp(v->types[i].name, name)) return v->types[i].type;
    return -1;
}

v8_edges_t *v8_edges_new(v8_t *v, v8_heap_t *h)
{
    v8_edges_t *e = xcalloc(1, sizeof *e);
    e->v = v;
    e->h = h;
    const v8_layout_t *L = &v->L;
    /* strings: sequential and external ones hold characters or a raw resource pointer */
    if (L->first_nonstring > 0 && L->str_repr_mask >= 0)
        for (int t = 0; t < L->first_nonstring && t < 4096; t++) {
            int64_t repr = t & L->str_repr_mask;
            if (repr == L->str_seq || repr == L->str_external) set_raw(e, t, RAW_AFTER_HEADER, 8);
        }
    set_raw(e, L->type_heap_number, RAW_AFTER_HEADER, 8);
    set_raw(e, L->type_fixed_double_array, RAW_AFTER_HEADER, 8);
    set_raw(e, L->type_byte_array, RAW_AFTER_HEADER, 8);
    set_raw(e, L->type_trusted_byte_array, RAW_AFTER_HEADER, 8);
    set_raw(e, L->type_bigint, RAW_AFTER_HEADER, 8);
    set_raw(e, L->type_bytecode_array, RAW_AFTER_HEADER, L->bca_header > 8 ? L->bca_header : 8);
    set_raw(e, L->type_instruction_stream, RAW_AFTER_HEADER, INSTRUCTION_STREAM_HEADER);
    if (L->code_inline_instructions) /* V8 10: the instructions follow the Code header */
        set_raw(e, L->type_code, RAW_AFTER_HEADER,
                L->code_instruction_start > 8 && L->code_instruction_start < 256 ? L->code_instruction_start : 64);
    static const char *raw_types[] = {"FOREIGN_TYPE", "EXTERNAL_POINTER_ARRAY_TYPE", "FILLER_TYPE", "FREE_SPACE_TYPE"};
    for (size_t i = 0; i < sizeof raw_types / sizeof *raw_types; i++)
        set_raw(e, type_named(v, raw_types[i]), RAW_AFTER_HEADER, 8);
    e->first_js_type = -1;
    for (size_t i = 0; i < v->ntypes; i++)
        if (v->types[i].name && !strncmp(v->types[i].name, "JS_", 3) &&
            (e->first_js_type < 0 || v->types[i].type < e->first_js_type))
            e->first_js_type = v->types[i].type;
    e->type_ordered_map = type_named(v, "ORDERED_HASH_MAP_TYPE");
    e->type_ordered_set = type_named(v, "ORDERED_HASH_SET_TYPE");
    return e;
}

void v8_edges_free(v8_edges_t *e)
{
    if (!e) return;
    for (int i = 0; i < 4096; i++) {
        for (size_t k = 0; k < e->fields[i].n; k++) free((char *)e->fields[i].f[k].name);
        free(e->fields[i].f);
    }
    buf_free(&e->scratch);
    free(e);
}

uint64_t v8_edges_tagged_end(v8_edges_t *e, int type, uint64_t size)
{
    if (type < 0 || type >= 4096) return size;
    if (e->raw[type] == RAW_AFTER_HEADER)
        return (uint64_t)e->raw_header[type] < size ? (uint64_t)e->raw_header[type] : size;
    return size;
}

const char *v8_edge_kind_name(v8_edge_kind_t k)
{
    static const char *names[V8_EDGE_KINDS] = {"context", "element",  "property", "internal",
                                               "hidden",  "shortcut", "weak"};
    return (unsigned)k < V8_EDGE_KINDS ? names[k] : "internal";
}

/* The metadata's field names of one instance type (by a sample object of it), cached. */
static const type_fields_t *fields_of(v8_edges_t *e, int type, uint64_t obj)
{
    if (type < 0 || type >= 4096) return NULL;
    type_fields_t *tf = &e->fields[type];
    if (tf->loaded) return tf;
    tf->loaded = 1;
    const char *cls;
    v8_field_t *f;
    size_t n;
    if (v8_object_fields(e->v, obj, &cls, &f, &n) != 0) return tf;
    tf->f = xcalloc(n ? n : 1, sizeof *tf->f);
    for (size_t i = 0; i < n; i++) {
        /* only tagged fields name references; "data" of arrays names the start of the slots */
        if (!strcmp(f[i].field, "data") || f[i].offset <= 0) continue;
        if (tf->n && tf->f[tf->n - 1].offset == f[i].offset) continue;
        tf->f[tf->n++] = (field_name_t){f[i].offset, xstrdup(f[i].field)};
    }
    v8_fields_free(f, n);
    return tf;
}

static const char *field_name(const type_fields_t *tf, int64_t off)
{
    if (!tf) return NULL;
    size_t lo = 0, hi = tf->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (tf->f[mid].offset < off) lo = mid + 1;
        else hi = mid;
    }
    return lo < tf->n && tf->f[lo].offset == off ? tf->f[lo].name : NULL;
}

typedef struct {
    v8_edges_t *e;
    v8_is_object_fn is_object;
    void *octx;
    v8_edge_cb cb;
    void *ctx;
    int stop;
    uint64_t *named; /* targets already given a name (sorted later) */
    size_t nnamed, cap;
    int is_map;
    int64_t index;
    int64_t *offs; /* slots already emitted with their offset (context variables), ascending */
    size_t noffs, capo;
} walk_t;

static int valid(walk_t *w, uint64_t value) { return (value & 3) == 1 && w->is_object(w->octx, value); }

static void emit(walk_t *w, v8_edge_kind_t kind, const char *name, int64_t index, uint64_t target, int64_t offset)
{
    if (w->stop) return;
    if (offset < 0 && w->nnamed < MAX_NAMED_EDGES) {
        XGROW(w->named, w->cap, w->nnamed + 1);
        w->named[w->nnamed++] = target;
    }
    v8_edge_t ed = {kind, name, index, target, offset};
    if (offset >= 0) {
        XGROW(w->offs, w->capo, w->noffs + 1);
        w->offs[w->noffs++] = offset;
    }
    if (w->cb(w->ctx, &ed)) w->stop = 1;
}

static int on_property(void *ctx, const v8_property_t *p)
{
    walk_t *w = ctx;
    v8_t *v = w->e->v;
    if (p->is_double || !valid(w, p->value)) return w->stop;
    /* an accessor, as V8's snapshot has it: a native one (AccessorInfo: a function's length and
       name) is no edge; an AccessorPair is the property, and its functions "get KEY", "set KEY" */
    if (p->is_accessor && !v8_has_type(v, p->value, v->L.type_accessor_pair)) return w->stop;
    emit(w, V8_EDGE_PROPERTY, p->key, 0, p->value, -1);
    for (int64_t off = 8; p->is_accessor && off <= 16 && !w->stop; off += 8) {
        uint64_t fn;
        if (v8_read_field(v, p->value, off, &fn) != 0 || !valid(w, fn) || v8_oddball_kind(v, fn) >= 0) continue;
        buf_t *b = &w->e->scratch;
        buf_clear(b);
        buf_printf(b, "%s %.200s", off == 8 ? "get" : "set", p->key);
        emit(w, V8_EDGE_PROPERTY, b->data, 0, fn, -1);
    }
    return w->stop;
}

static int on_element(void *ctx, const v8_property_t *p)
{
    walk_t *w = ctx;
    if (!p->is_double && valid(w, p->value)) emit(w, V8_EDGE_ELEMENT, NULL, strtoll(p->key, NULL, 10), p->value, -1);
    return w->stop;
}

static int on_entry(void *ctx, uint64_t key, uint64_t value)
{
    walk_t *w = ctx;
    buf_t *b = &w->e->scratch;
    if (!w->is_map) {
        if (valid(w, key)) emit(w, V8_EDGE_ELEMENT, NULL, w->index, key, -1);
        w->index++;
        return w->stop;
    }
    if (valid(w, key)) emit(w, V8_EDGE_INTERNAL, "key", 0, key, -1);
    if (valid(w, value)) {
        buf_clear(b);
        buf_puts(b, "value of ");
        v8_describe(w->e->v, key, b);
        if (b->len > 200) b->len = 200, b->data[200] = 0;
        emit(w, V8_EDGE_INTERNAL, b->data, 0, value, -1);
    }
    return w->stop;
}

static int on_local(void *ctx, const char *name, int64_t slot, uint64_t value)
{
    walk_t *w = ctx;
    /* a context's slot is in the context itself: its offset names it, so the scan below skips it */
    if (valid(w, value)) emit(w, V8_EDGE_CONTEXT, name, 0, value, w->e->v->L.fixed_array_data + 8 * slot);
    return w->stop;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int was_named(const walk_t *w, uint64_t t)
{
    size_t lo = 0, hi = w->nnamed;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (w->named[mid] < t) lo = mid + 1;
        else hi = mid;
    }
    return lo < w->nnamed && w->named[lo] == t;
}

/* An ES module's exports: its ObjectHashTable maps each export's name to a Cell holding the
 * value; each is an edge "export NAME" from the module record to the value. */
static void module_exports(walk_t *w, uint64_t module)
{
    v8_t *v = w->e->v;
    const v8_layout_t *L = &v->L;
    uint64_t table, cap_word;
    int64_t len;
    if (v8_read_field(v, module, V8_MODULE_EXPORTS, &table) != 0 ||
        v8_read_smi(v, table, L->fixed_array_length, &len) != 0 ||
        v8_read_field(v, table, L->fixed_array_data + 8 * 2, &cap_word) != 0 || !v8_is_smi(v, cap_word))
        return;
    int64_t capacity = v8_smi_value(v, cap_word);
    if (capacity < 0 || 3 + 2 * capacity > len) return;
    buf_t *b = &w->e->scratch;
    for (int64_t i = 0; i < capacity && !w->stop; i++) {
        uint64_t key, cell, value;
        int64_t at = L->fixed_array_data + 8 * (3 + 2 * i);
        if (v8_read_field(v, table, at, &key) != 0 || v8_read_field(v, table, at + 8, &cell) != 0) break;
        int kt;
        if (v8_is_smi(v, key) || v8_instance_type(v, key, &kt) != 0 || !v8_is_string_type(v, kt) ||
            v8_read_field(v, cell, 8, &value) != 0 || !valid(w, value))
            continue;
        buf_clear(b);
        buf_puts(b, "export ");
        int trunc;
        v8_string(v, key, b, 200, &trunc);
        emit(w, V8_EDGE_INTERNAL, b->data, 0, value, -1);
    }
}

int v8_edges_folds(const v8_edges_t *e, int type)
{
    return (e->first_js_type >= 0 && type >= e->first_js_type) ||
           (type >= 0 && type == e->v->L.type_source_text_module);
}

int v8_edges_of(v8_edges_t *e, const v8_heap_object_t *o, v8_is_object_fn is_object, void *octx, v8_edge_cb cb,
                void *ctx)
{
    v8_t *v = e->v;
    const v8_layout_t *L = &v->L;
    walk_t w = {e, is_object, octx, cb, ctx, 0, NULL, 0, 0, 0, 0, NULL, 0, 0};
    int type = o->type;
    int is_context = L->first_context_type >= 0 && type >= L->first_context_type && type <= L->last_context_type;
    if (e->first_js_type >= 0 && type >= e->first_js_type) {
        v8_object_properties(v, o->addr, on_property, &w);
        if (!w.stop) v8_object_elements(v, o->addr, on_element, &w, INT64_MAX);
        if (!w.stop && (type == L->type_js_map || type == L->type_js_set)) {
            uint64_t table;
            if (v8_read_field(v, o->addr, L->collection_table, &table) == 0 && valid(&w, table)) {
                w.is_map = type == L->type_js_map;
                v8_collection_entries(v, table, w.is_map, on_entry, &w, INT64_MAX);
            }
        }
        uint64_t code; /* V8 13.6: a function's code is in the dispatch table, not a field */
        if (!w.stop && L->fn_code < 0 && type >= L->type_first_js_function && type <= L->type_js_function &&
            v8_function_code(v, o->addr, &code) == 0 && valid(&w, code))
            emit(&w, V8_EDGE_INTERNAL, "code", 0, code, -1);
    } else if (is_context) {
        v8_context_locals(v, o->addr, on_local, &w);
    } else if (type == L->type_source_text_module) {
        module_exports(&w, o->addr);
    }
    size_t nvars = w.noffs, vi = 0; /* the scan below emits more offsets: only these are skipped */
    if (w.stop) {
        free(w.named);
        free(w.offs);
        return 1;
    }
    if (w.nnamed) qsort(w.named, w.nnamed, sizeof *w.named, cmp_u64);
    /* every other tagged slot */
    uint64_t end = v8_edges_tagged_end(e, type, o->size);
    const type_fields_t *tf = fields_of(e, type, o->addr);
    int array_like =
        !tf || tf->n == 0 || is_context ||
        (end >= 16 && (type == L->type_fixed_array || type == e->type_ordered_map || type == e->type_ordered_set));
    uint64_t base = o->addr - (uint64_t)L->heap_tag;
    for (uint64_t off = 0; off + 8 <= end && !w.stop; off += 8) {
        uint64_t word;
        const uint64_t *p = target_direct(v->t, base + off, 8);
        if (p) memcpy(&word, p, 8);
        else if (target_read_u64(v->t, base + off, &word) != 0) break;
        int weak = (word & 3) == 3;
        uint64_t t = weak ? word & ~(uint64_t)2 : word;
        if ((t & 3) != 1 || !is_object(octx, t)) continue;
        if (!weak && was_named(&w, t)) continue;
        while (vi < nvars && w.offs[vi] < (int64_t)off) vi++;
        if (vi < nvars && w.offs[vi] == (int64_t)off) continue; /* a context variable */
        const char *fname = off == 0 ? "map" : field_name(tf, (int64_t)off);
        int64_t index = (int64_t)off / 8;
        if (!fname && array_like && off >= 16) {
            index = ((int64_t)off - 16) / 8;
            if (is_context) {
                if (index == 0) fname = "scope_info";
                else if (index == 1) fname = "previous";
            }
        }
        /* unnamed: by index (NULL name), as V8 names a FixedArray's slots */
        emit(&w, weak ? V8_EDGE_WEAK : V8_EDGE_INTERNAL, fname, index, t, (int64_t)off);
    }
    free(w.named);
    free(w.offs);
    return w.stop;
}
