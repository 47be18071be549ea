/* JavaScript objects: own named properties (fast mode through the map's descriptors, in-object and
 * PropertyArray fields; dictionary mode through the NameDictionary), elements (Smi, tagged, double,
 * holey, dictionary), JSArray length, own-property lookup, the prototype, and the constructor name the way V8
 * itself finds it. Every count read from the target is bounded. */
#include "util/xalloc.h"
#include "v8/v8_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PROPERTIES 100000
#define MAX_ELEMENTS (16u << 20)
#define MAX_PROTOTYPES 64
#define MAP_CHAIN_MAX 64

static int map_of(v8_t *v, uint64_t obj, uint64_t *map) { return v8_read_field(v, obj, v->L.obj_map, map); }

static int map_u32(v8_t *v, uint64_t map, int64_t off, uint32_t *out)
{
    int32_t x;
    if (v8_read_i32(v, map, off, &x) != 0) return -1;
    *out = (uint32_t)x;
    return 0;
}

static void emit_full(v8_property_cb cb, void *ctx, const char *key, int symbol, uint64_t value, int is_double,
                      double d, int accessor, int enumerable, int private_key, int *stop)
{
    v8_property_t p = {key, value, is_double, d, accessor, symbol, enumerable, private_key};
    if (!*stop && cb(ctx, &p)) *stop = 1;
}

static void emit(v8_property_cb cb, void *ctx, const char *key, int symbol, uint64_t value, int is_double, double d,
                 int accessor, int *stop)
{
    emit_full(cb, ctx, key, symbol, value, is_double, d, accessor, 1, 0, stop);
}

/* A private symbol: bit 0 of the Symbol's flags (the word after its hash). */
static int is_private_symbol(v8_t *v, uint64_t key)
{
    int32_t flags;
    return v8_has_type(v, key, v->L.type_symbol) && v8_read_i32(v, key, v->L.symbol_name - 4, &flags) == 0 &&
           (flags & 1);
}

static int enumerable_details(const v8_t *v, int64_t details) { return !((details >> v->L.prop_attr_shift) & 2); }

/* A property key (String or Symbol) as text; 1 for a symbol. Keys are never anything else in a
 * sound heap; describing other values here could recurse (an object's description looks up its
 * constructor, which reads keys) without end in a corrupt one. */
static int key_text(v8_t *v, uint64_t key, buf_t *out)
{
    int type, trunc;
    buf_clear(out);
    if (v8_instance_type(v, key, &type) != 0) {
        buf_puts(out, "<unreadable key>");
        return 0;
    }
    if (v8_is_string_type(v, type)) {
        if (v8_string(v, key, out, 1024, &trunc) == 0) return 0;
        buf_clear(out);
    }
    if (type != v->L.type_symbol) {
        buf_puts(out, "<not a name>");
        return 0;
    }
    v8_symbol_text(v, key, out); /* Symbol(desc) */
    return 1;
}

/* Where a fast-mode field lives: in the object (after its header) or in its PropertyArray. */
static int read_field_index(v8_t *v, uint64_t obj, uint64_t map, int64_t index, uint64_t *out)
{
    const v8_layout_t *L = &v->L;
    uint8_t size_words, start_words;
    if (v8_read_u8(v, map, L->map_instance_size, &size_words) != 0 ||
        v8_read_u8(v, map, L->map_inobject_start, &start_words) != 0)
        return -1;
    int64_t inobject = (int64_t)size_words - start_words;
    if (index < inobject) return v8_read_field(v, obj, 8 * (start_words + index), out);
    uint64_t props;
    int64_t len_hash;
    if (v8_read_field(v, obj, L->jsobj_properties, &props) != 0 || !v8_has_type(v, props, L->type_property_array) ||
        v8_read_smi(v, props, L->fixed_array_length, &len_hash) != 0)
        return -1;
    int64_t k = index - inobject, len = len_hash & 1023; /* PropertyArray: length in the low 10 bits */
    if (k >= len) return -1;
    return v8_read_field(v, props, 16 + 8 * k, out);
}

/* Entry i of a DescriptorArray: its key, details (a Smi's value) and value; -1 when unreadable. */
static int read_descriptor(v8_t *v, uint64_t descs, int64_t i, uint64_t *key, int64_t *details, uint64_t *value)
{
    const v8_layout_t *L = &v->L;
    int64_t base = L->desc_header + 8 * L->desc_size * i;
    uint64_t details_word;
    if (v8_read_field(v, descs, base + 8 * L->desc_key, key) != 0 ||
        v8_read_field(v, descs, base + 8 * L->desc_details, &details_word) != 0 || !v8_is_smi(v, details_word) ||
        v8_read_field(v, descs, base + 8 * L->desc_value, value) != 0)
        return -1;
    *details = v8_smi_value(v, details_word);
    return 0;
}

static int fast_properties(v8_t *v, uint64_t obj, uint64_t map, uint32_t bf3, v8_property_cb cb, void *ctx)
{
    const v8_layout_t *L = &v->L;
    uint64_t descs;
    int64_t n = (int64_t)((bf3 & (uint64_t)L->bf3_nod_mask) >> L->bf3_nod_shift);
    if (n == 0) return 0;
    if (v8_read_field(v, map, L->map_descriptors, &descs) != 0 || !v8_has_type(v, descs, L->type_descriptor_array))
        return -1;
    buf_t key = {0};
    int stop = 0;
    for (int64_t i = 0; i < n && i < MAX_PROPERTIES && !stop; i++) {
        uint64_t k, val;
        int64_t details;
        if (read_descriptor(v, descs, i, &k, &details, &val) != 0) break;
        int accessor = (details & L->prop_kind_mask) != 0;
        int in_field = ((details & L->prop_location_mask) >> L->prop_location_shift) == L->prop_location_field;
        if (in_field) {
            int64_t index = (details & L->prop_index_mask) >> L->prop_index_shift;
            if (read_field_index(v, obj, map, index, &val) != 0) val = 0;
        }
        int symbol = key_text(v, k, &key);
        emit_full(cb, ctx, key.data ? key.data : "", symbol, val, 0, 0, accessor, enumerable_details(v, details),
                  symbol && is_private_symbol(v, k), &stop);
    }
    buf_free(&key);
    return 0;
}

typedef struct {
    int64_t order; /* enumeration index (named), or the index itself (numeric) */
    uint64_t key, value;
    int64_t details;
} dict_entry_t;

static int by_order(const void *a, const void *b)
{
    const dict_entry_t *x = a, *y = b;
    return (x->order > y->order) - (x->order < y->order);
}

/* The number an index key holds (a Smi, or a HeapNumber above 2^31); -1 when it is none. */
static int index_key(v8_t *v, uint64_t k, double *d)
{
    uint64_t bits;
    int kt;
    if (v8_is_smi(v, k)) {
        *d = (double)v8_smi_value(v, k);
        return 0;
    }
    if (v8_instance_type(v, k, &kt) == 0 && kt == v->L.type_heap_number &&
        v8_read_field(v, k, v->L.heap_number_value, &bits) == 0) {
        memcpy(d, &bits, sizeof *d);
        return 0;
    }
    return -1;
}

/* A hash table (NameDictionary, NumberDictionary, GlobalDictionary): a FixedArray with a header, a
 * prefix, entries, emitted in property order: by enumeration index (the PropertyDetails' storage
 * field above bit 8), indices ascending. A GlobalDictionary's entries are PropertyCells. */
static int dictionary_entries(v8_t *v, uint64_t dict, int64_t prefix, int64_t entry_size, int numeric,
                              v8_property_cb cb, void *ctx)
{
    const v8_layout_t *L = &v->L;
    int64_t len, capacity;
    uint64_t cap_word;
    if (v8_read_smi(v, dict, L->fixed_array_length, &len) != 0 ||
        v8_read_field(v, dict, L->fixed_array_data + 8 * 2, &cap_word) != 0 || !v8_is_smi(v, cap_word))
        return -1;
    capacity = v8_smi_value(v, cap_word);
    int64_t first = L->dict_prefix_start + prefix;
    if (capacity < 0 || capacity > MAX_PROPERTIES * 4 || first + capacity * entry_size > len) return -1;
    dict_entry_t *e = NULL;
    size_t n = 0, cap = 0;
    for (int64_t i = 0; i < capacity && n < MAX_PROPERTIES; i++) {
        uint64_t k, val = 0, details = 0;
        int64_t at = L->fixed_array_data + 8 * (first + i * entry_size);
        if (v8_read_field(v, dict, at, &k) != 0) break;
        if (entry_size == 1) { /* a PropertyCell: name, details, value */
            uint64_t cell = k;
            if (!v8_has_type(v, cell, L->type_property_cell) || v8_read_field(v, cell, L->cell_name, &k) != 0 ||
                v8_read_field(v, cell, L->cell_details, &details) != 0 ||
                v8_read_field(v, cell, L->cell_value, &val) != 0)
                continue;
            if (v8_is_hole(v, val)) continue; /* deleted */
        } else if (v8_read_field(v, dict, at + 8, &val) != 0 || v8_read_field(v, dict, at + 16, &details) != 0) {
            break;
        }
        int type;
        if (!v8_is_smi(v, k) && (v8_instance_type(v, k, &type) != 0 || type == L->type_oddball || v8_is_hole(v, k)))
            continue; /* empty (undefined) or deleted (the hole) */
        int64_t det = v8_is_smi(v, details) ? v8_smi_value(v, details) : 0;
        double d = 0;
        if (numeric && index_key(v, k, &d) != 0) d = -1;
        XGROW(e, cap, n + 1);
        e[n++] = (dict_entry_t){numeric ? (int64_t)d : (det >> 8), k, val, det};
    }
    if (n) qsort(e, n, sizeof *e, by_order);
    buf_t key = {0};
    int stop = 0;
    for (size_t i = 0; i < n && !stop; i++) {
        int symbol = 0;
        if (numeric) {
            double d;
            buf_clear(&key);
            if (index_key(v, e[i].key, &d) == 0) v8_put_number(&key, d);
            else buf_puts(&key, "<not an index>");
        } else {
            symbol = key_text(v, e[i].key, &key);
        }
        int accessor = (e[i].details & L->prop_kind_mask) != 0;
        emit_full(cb, ctx, key.data ? key.data : "", symbol, e[i].value, 0, 0, accessor,
                  enumerable_details(v, e[i].details), symbol && is_private_symbol(v, e[i].key), &stop);
    }
    buf_free(&key);
    free(e);
    return 0;
}

int v8_object_properties(v8_t *v, uint64_t obj, v8_property_cb cb, void *ctx)
{
    const v8_layout_t *L = &v->L;
    uint64_t map, props;
    uint32_t bf3;
    if (map_of(v, obj, &map) != 0 || map_u32(v, map, L->map_bit_field3, &bf3) != 0) return -1;
    if (bf3 & (1u << L->bf3_dict_shift)) {
        if (v8_read_field(v, obj, L->jsobj_properties, &props) != 0) return -1;
        if (v8_has_type(v, obj, L->type_js_global_object))         /* a GlobalDictionary of PropertyCells */
            return dictionary_entries(v, props, 2, 1, 0, cb, ctx); /* BaseNameDictionary prefix: 2 */
        return dictionary_entries(v, props, L->dict_prefix_size, L->dict_entry_size, 0, cb, ctx);
    }
    return fast_properties(v, obj, map, bf3, cb, ctx);
}

int v8_object_elements(v8_t *v, uint64_t obj, v8_property_cb cb, void *ctx, int64_t limit)
{
    const v8_layout_t *L = &v->L;
    uint64_t map, elements;
    uint8_t bf2;
    int64_t len, count;
    if (map_of(v, obj, &map) != 0 || v8_read_u8(v, map, L->map_bit_field2, &bf2) != 0 ||
        v8_read_field(v, obj, L->jsobj_elements, &elements) != 0)
        return -1;
    int64_t kind = (bf2 & L->bf2_kind_mask) >> L->bf2_kind_shift;
    if (kind == L->kind_dictionary_elements)
        return dictionary_entries(v, elements, L->numdict_prefix_size, L->numdict_entry_size, 1, cb, ctx);
    if (v8_read_smi(v, elements, L->fixed_array_length, &len) != 0 || len < 0) return -1;
    count = len;
    int type;
    if (v8_instance_type(v, obj, &type) == 0 && type == L->type_js_array) {
        int64_t alen;
        if (v8_read_smi(v, obj, L->jsarray_length, &alen) == 0 && alen >= 0 && alen < count) count = alen;
    }
    int is_double = v8_has_type(v, elements, L->type_fixed_double_array);
    if (!is_double && kind > 12) return 0; /* typed array and other special kinds: not element lists */
    char key[32];
    int stop = 0;
    for (int64_t i = 0; i < count && i < limit && i < (int64_t)MAX_ELEMENTS && !stop; i++) {
        uint64_t w;
        if (v8_read_field(v, elements, L->fixed_array_data + 8 * i, &w) != 0) return -1;
        snprintf(key, sizeof key, "%lld", (long long)i);
        if (is_double) {
            double d;
            if (w == 0xFFF7FFFFFFF7FFFFull) continue; /* the hole in a holey double array */
            memcpy(&d, &w, sizeof d);
            emit(cb, ctx, key, 0, w, 1, d, 0, &stop);
        } else {
            if (v8_is_hole(v, w)) continue;
            emit(cb, ctx, key, 0, w, 0, 0, 0, &stop);
        }
    }
    return 0;
}

typedef struct {
    const char *name;
    uint64_t value;
    int found;
} lookup_t;

static int lookup_cb(void *ctx, const v8_property_t *p)
{
    lookup_t *l = ctx;
    if (p->is_accessor || p->is_symbol || strcmp(p->key, l->name)) return 0;
    l->value = p->value;
    l->found = 1;
    return 1;
}

int v8_object_get(v8_t *v, uint64_t obj, const char *name, uint64_t *out)
{
    lookup_t l = {name, 0, 0};
    if (v8_object_properties(v, obj, lookup_cb, &l) != 0 || !l.found) return -1;
    *out = l.value;
    return 0;
}

/* fast_properties' walk of the descriptors with lookup_cb's test, without an object: what the
 * answer depends on is the map's alone except the field's value. */
void v8_property_plan(v8_t *v, uint64_t map, const char *name, v8_property_plan_t *plan)
{
    const v8_layout_t *L = &v->L;
    uint32_t bf3;
    uint64_t descs;
    *plan = (v8_property_plan_t){V8_PLAN_ABSENT, 0, -1, 0};
    if (map_u32(v, map, L->map_bit_field3, &bf3) != 0) return;
    if (bf3 & (1u << L->bf3_dict_shift)) {
        plan->kind = V8_PLAN_GENERIC; /* dictionary mode: per object */
        return;
    }
    int64_t n = (int64_t)((bf3 & (uint64_t)L->bf3_nod_mask) >> L->bf3_nod_shift);
    if (n == 0 || v8_read_field(v, map, L->map_descriptors, &descs) != 0 ||
        !v8_has_type(v, descs, L->type_descriptor_array))
        return;
    buf_t key = {0};
    for (int64_t i = 0; i < n && i < MAX_PROPERTIES; i++) {
        uint64_t k, val;
        int64_t details;
        if (read_descriptor(v, descs, i, &k, &details, &val) != 0) break;
        if ((details & L->prop_kind_mask) != 0) continue; /* an accessor */
        if (key_text(v, k, &key) || strcmp(key.data ? key.data : "", name)) continue;
        if (((details & L->prop_location_mask) >> L->prop_location_shift) == L->prop_location_field) {
            int64_t index = (details & L->prop_index_mask) >> L->prop_index_shift;
            uint8_t size_words, start_words;
            *plan = (v8_property_plan_t){V8_PLAN_FIELD, index, -1, 0};
            /* read_field_index's choice, made once: in the object, or in its PropertyArray */
            if (v8_read_u8(v, map, L->map_instance_size, &size_words) == 0 &&
                v8_read_u8(v, map, L->map_inobject_start, &start_words) == 0 &&
                index < (int64_t)size_words - start_words)
                plan->offset = 8 * (start_words + index);
        } else {
            *plan = (v8_property_plan_t){V8_PLAN_CONSTANT, 0, -1, val};
        }
        break;
    }
    buf_free(&key);
}

int v8_property_plan_get(v8_t *v, uint64_t obj, uint64_t map, const char *name, const v8_property_plan_t *plan,
                         uint64_t *out)
{
    switch (plan->kind) {
    case V8_PLAN_ABSENT: return -1;
    case V8_PLAN_CONSTANT: *out = plan->value; return 0;
    case V8_PLAN_FIELD:
        if ((plan->offset >= 0 ? v8_read_field(v, obj, plan->offset, out)
                               : read_field_index(v, obj, map, plan->index, out)) != 0)
            *out = 0; /* as fast_properties emits it */
        return 0;
    default: return v8_object_get(v, obj, name, out);
    }
}

/* The function a map's constructor slot leads to (transition maps point back to their parent). */
static int map_constructor(v8_t *v, uint64_t map, uint64_t *ctor)
{
    const v8_layout_t *L = &v->L;
    for (int i = 0; i < MAP_CHAIN_MAX; i++) {
        if (v8_read_field(v, map, L->map_constructor, ctor) != 0) return -1;
        if (!v8_has_type(v, *ctor, L->type_map)) return 0;
        map = *ctor;
    }
    return -1;
}

int v8_prototype(v8_t *v, uint64_t obj, uint64_t *out)
{
    uint64_t map;
    if (map_of(v, obj, &map) != 0 || v8_read_field(v, map, v->L.map_prototype, out) != 0) return -1;
    return v8_is_heap_object(v, *out) && v8_oddball_kind(v, *out) < 0 ? 0 : -1;
}

/* V8's JSReceiver::GetConstructorName: the map's constructor when the object was made by its own
 * class (new.target is the base); otherwise (a derived class, like Node's Buffer = FastBuffer
 * extends Uint8Array) the `constructor` property found along the prototype chain. */
int v8_constructor_name(v8_t *v, uint64_t obj, buf_t *out)
{
    const v8_layout_t *L = &v->L;
    uint64_t map, ctor;
    uint8_t bf2;
    uint32_t bf3;
    if (map_of(v, obj, &map) != 0) return -1;
    size_t mark = out->len;
    int base = v8_read_u8(v, map, L->map_bit_field2, &bf2) == 0 && (bf2 & 1);
    int prototype_map = map_u32(v, map, L->map_bit_field3, &bf3) == 0 && (bf3 & (1u << 20));
    if (base && !prototype_map && map_constructor(v, map, &ctor) == 0 && v8_function_name(v, ctor, out) == 0) {
        if (strcmp(out->data + mark, "Object")) return 0;
        out->len = mark;
        out->data[mark] = 0;
    }
    uint64_t o = obj;
    for (int i = 0; i < MAX_PROTOTYPES; i++) {
        uint64_t c, m;
        if (v8_object_get(v, o, "constructor", &c) == 0 && v8_function_name(v, c, out) == 0) return 0;
        if (map_of(v, o, &m) != 0 || v8_read_field(v, m, L->map_prototype, &o) != 0 || !v8_is_heap_object(v, o)) break;
        int t;
        if (v8_instance_type(v, o, &t) != 0 || t == L->type_oddball) break; /* null ends the chain */
    }
    if (map_constructor(v, map, &ctor) == 0 && v8_function_name(v, ctor, out) == 0) return 0;
    return -1;
}

int v8_map_identity(v8_t *v, uint64_t map, uint64_t id[3])
{
    const v8_layout_t *L = &v->L;
    uint16_t type;
    uint8_t bf2;
    uint32_t bf3;
    if (v8_read_field(v, map, L->map_prototype, &id[0]) != 0 ||
        v8_read_field(v, map, L->map_constructor, &id[1]) != 0 || v8_read_u16(v, map, L->map_type, &type) != 0 ||
        v8_read_u8(v, map, L->map_bit_field2, &bf2) != 0 || map_u32(v, map, L->map_bit_field3, &bf3) != 0)
        return -1;
    id[2] = (uint64_t)type << 40 | (uint64_t)bf2 << 32 | bf3;
    return 0;
}
