/* An API object's embedder ("internal") fields: the words a V8 embedder such as Node keeps in
 * objects made from an ObjectTemplate with SetInternalFieldCount (zlib, TCP, FSReqCallback...).
 * V8 counts them as JSObject::GetEmbedderFieldCount does: the words between the object's header
 * and its first in-object property. Without pointer compression a field is one 8-byte word. */
#include "v8/v8_internal.h"
#include <string.h>

/* The types whose header is JSAPIObjectWithEmbedderSlots' (v->L.api_embedder_fields bytes). */
static int is_api_type(const v8_t *v, int type)
{
    const char *n = v8_type_name(v, type);
    return n && (!strcmp(n, "JS_API_OBJECT_TYPE") || !strcmp(n, "JS_SPECIAL_API_OBJECT_TYPE"));
}

int v8_embedder_field_count(v8_t *v, uint64_t obj, int64_t *first_offset)
{
    const v8_layout_t *L = &v->L;
    int type;
    uint64_t map;
    uint8_t start_words;
    if (L->api_embedder_fields < 0 || L->map_inobject_start < 0) return -1;
    if (v8_instance_type(v, obj, &type) != 0 || !is_api_type(v, type)) return -1;
    if (v8_read_field(v, obj, L->obj_map, &map) != 0 || v8_read_u8(v, map, L->map_inobject_start, &start_words) != 0)
        return -1;
    int64_t n = ((int64_t)start_words * 8 - L->api_embedder_fields) / 8;
    if (n < 0) n = 0; /* a corrupt map: no fields rather than a negative count */
    if (first_offset) *first_offset = L->api_embedder_fields;
    return (int)n;
}

int v8_embedder_field(v8_t *v, uint64_t obj, int index, v8_embedder_value_t *out)
{
    int64_t first;
    int n = v8_embedder_field_count(v, obj, &first);
    if (n < 0 || index < 0 || index >= n) return -1;
    memset(out, 0, sizeof *out);
    out->offset = first + 8 * (int64_t)index;
    if (v8_read_bytes(v, obj, out->offset, &out->raw, 8) != 0) return -1;
    /* A tagged heap pointer has the heap tag; a Smi (x64 without pointer compression) has its low 32
       bits clear; anything else is a pointer the embedder stored with SetAlignedPointerInInternalField
       (2-aligned only: Node's embedder id is a uint16_t). */
    if (v8_is_heap_object(v, out->raw)) out->kind = V8_EMBEDDER_TAGGED;
    else if (v8_is_smi(v, out->raw) && (uint32_t)out->raw == 0) out->kind = V8_EMBEDDER_SMI;
    else out->kind = V8_EMBEDDER_POINTER;
    if (out->kind == V8_EMBEDDER_POINTER && !(out->raw & 7)) {
        /* A C++ object with virtual functions starts with its vtable pointer, which names its class. */
        uint64_t vptr;
        if (target_read_u64(v8_target(v), out->raw, &vptr) == 0) out->vtable = vptr;
    }
    return 0;
}
