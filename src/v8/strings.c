/* V8 strings to UTF-8: sequential (one- and two-byte), cons, sliced, thin and external; a Symbol's
 * text (its description).
 * Cons trees are walked with an explicit, bounded stack (a corrupt core can hold a cycle or
 * a chain a million deep); characters are read in chunks, never more than asked for. */
#include "v8/v8_internal.h"
#include <string.h>

#define STRING_MAX_PIECES 100000 /* cons/sliced/thin hops per string: bounds corrupt cycles */
#define STRING_STACK 256         /* pending right halves of cons strings */
#define CHUNK 4096

typedef struct {
    v8_t *v;
    buf_t *out;
    size_t max_bytes;
    int truncated;
    uint32_t high_surrogate;                   /* a UTF-16 high half waiting for its low half (may span pieces) */
    void (*unit_cb)(void *ctx, uint32_t unit); /* when set: raw UTF-16 units go here instead */
    void *ctx;
} sink_t;

/* Output stops at the first character that does not fit (put_cp sets truncated). */
static int full(const sink_t *s) { return s->truncated; }

static void put_cp(sink_t *s, uint32_t cp)
{
    char b[4];
    size_t n = utf8_encode(cp, b);
    if (s->out->len + n > s->max_bytes) {
        s->truncated = 1;
        return;
    }
    buf_append(s->out, b, n);
}

static void put_unit(sink_t *s, uint32_t u)
{
    if (s->unit_cb) {
        s->unit_cb(s->ctx, u);
        return;
    }
    if (s->high_surrogate) {
        uint32_t hi = s->high_surrogate;
        s->high_surrogate = 0;
        if (u >= 0xDC00 && u <= 0xDFFF) {
            put_cp(s, 0x10000 + ((hi - 0xD800) << 10) + (u - 0xDC00));
            return;
        }
        put_cp(s, 0xFFFD);
    }
    if (u >= 0xD800 && u <= 0xDBFF) s->high_surrogate = u;
    else if (u >= 0xDC00 && u <= 0xDFFF) put_cp(s, 0xFFFD);
    else put_cp(s, u);
}

/* Appends n characters of width 1 or 2 bytes at raw address addr. */
static int put_raw(sink_t *s, uint64_t addr, int64_t n, int width)
{
    unsigned char chunk[CHUNK];
    while (n > 0 && !full(s)) {
        int64_t take = n < CHUNK / width ? n : CHUNK / width;
        if (target_read(s->v->t, addr, chunk, (size_t)(take * width)) != 0) return -1;
        for (int64_t i = 0; i < take && !full(s); i++)
            put_unit(s, width == 1 ? chunk[i] : (uint32_t)(chunk[2 * i] | chunk[2 * i + 1] << 8));
        addr += (uint64_t)(take * width);
        n -= take;
    }
    return 0;
}

static int str_length(v8_t *v, uint64_t str, int64_t *len)
{
    int32_t n;
    if (v8_read_i32(v, str, v->L.str_length, &n) != 0 || n < 0) return -1;
    *len = n;
    return 0;
}

/* Where an external string's characters are: V8's cached pointer, else node's resource. */
static int external_data(v8_t *v, uint64_t str, int type, uint64_t *data)
{
    const v8_layout_t *L = &v->L;
    uint64_t res;
    if (!(type & L->ext_uncached_mask) && L->ext_data_cache >= 0 &&
        v8_read_field(v, str, L->ext_data_cache, data) == 0 && *data)
        return 0;
    if (v8_read_field(v, str, L->ext_resource, &res) != 0 || !res) return -1;
    return target_read_u64(v->t, res + (uint64_t)L->node_ext_data, data) == 0 && *data ? 0 : -1;
}

typedef struct {
    uint64_t str;
    int64_t from, to; /* character range of str still to emit */
} piece_t;

static int decode(sink_t *s, uint64_t root, int64_t root_len)
{
    v8_t *v = s->v;
    const v8_layout_t *L = &v->L;
    piece_t stack[STRING_STACK];
    int depth = 0;
    stack[depth++] = (piece_t){root, 0, root_len};
    for (long hops = 0; depth > 0 && !full(s); hops++) {
        if (hops > STRING_MAX_PIECES) return -1;
        piece_t p = stack[--depth];
        int type;
        int64_t len;
        if (p.from >= p.to) continue;
        if (v8_instance_type(v, p.str, &type) != 0 || !v8_is_string_type(v, type) || str_length(v, p.str, &len) != 0 ||
            p.to > len)
            return -1;
        int width = (type & L->str_enc_mask) == L->str_one_byte ? 1 : 2;
        int64_t repr = type & L->str_repr_mask;
        uint64_t a, b;
        if (repr == L->str_seq) {
            if (put_raw(s, p.str - (uint64_t)L->heap_tag + (uint64_t)L->str_seq_chars + (uint64_t)(p.from * width),
                        p.to - p.from, width) != 0)
                return -1;
        } else if (repr == L->str_external) {
            if (external_data(v, p.str, type, &a) != 0 ||
                put_raw(s, a + (uint64_t)(p.from * width), p.to - p.from, width) != 0)
                return -1;
        } else if (repr == L->str_cons) {
            int64_t first_len;
            if (v8_read_field(v, p.str, L->cons_first, &a) != 0 || v8_read_field(v, p.str, L->cons_second, &b) != 0 ||
                str_length(v, a, &first_len) != 0 || first_len > len)
                return -1;
            if (depth + 2 > STRING_STACK) return -1;
            /* the second half is pushed first so the first is emitted first */
            if (p.to > first_len)
                stack[depth++] = (piece_t){b, p.from > first_len ? p.from - first_len : 0, p.to - first_len};
            if (p.from < first_len) stack[depth++] = (piece_t){a, p.from, p.to < first_len ? p.to : first_len};
        } else if (repr == L->str_sliced) {
            int64_t off;
            if (v8_read_field(v, p.str, L->sliced_parent, &a) != 0 ||
                v8_read_smi(v, p.str, L->sliced_offset, &off) != 0 || off < 0)
                return -1;
            stack[depth++] = (piece_t){a, p.from + off, p.to + off};
        } else if (repr == L->str_thin) {
            if (v8_read_field(v, p.str, L->thin_actual, &a) != 0) return -1;
            stack[depth++] = (piece_t){a, p.from, p.to};
        } else {
            return -1;
        }
    }
    return 0;
}

int v8_string(v8_t *v, uint64_t value, buf_t *out, size_t max_bytes, int *truncated)
{
    sink_t s = {v, out, out->len + max_bytes, 0, 0, NULL, NULL};
    int type;
    int64_t len;
    if (truncated) *truncated = 0;
    if (v8_instance_type(v, value, &type) != 0 || !v8_is_string_type(v, type) || str_length(v, value, &len) != 0)
        return -1;
    buf_reserve(out, 0); /* an empty string still gives a NUL-terminated buffer */
    out->data[out->len] = 0;
    int rc = decode(&s, value, len);
    if (s.high_surrogate && !s.truncated) put_cp(&s, 0xFFFD);
    if (truncated) *truncated = s.truncated;
    return rc;
}

int v8_string_scan(v8_t *v, uint64_t value, void (*cb)(void *ctx, uint32_t unit), void *ctx)
{
    sink_t s = {v, NULL, 0, 0, 0, cb, ctx};
    int type;
    int64_t len;
    if (v8_instance_type(v, value, &type) != 0 || !v8_is_string_type(v, type) || str_length(v, value, &len) != 0)
        return -1;
    return decode(&s, value, len);
}

int v8_string_info(v8_t *v, uint64_t value, const char **repr, int64_t *length)
{
    const v8_layout_t *L = &v->L;
    int type;
    if (v8_instance_type(v, value, &type) != 0 || !v8_is_string_type(v, type) || str_length(v, value, length) != 0)
        return -1;
    int one = (type & L->str_enc_mask) == L->str_one_byte;
    int64_t r = type & L->str_repr_mask;
    *repr = r == L->str_seq        ? (one ? "SeqOneByteString" : "SeqTwoByteString")
            : r == L->str_cons     ? "ConsString"
            : r == L->str_external ? (one ? "ExternalOneByteString" : "ExternalTwoByteString")
            : r == L->str_sliced   ? "SlicedString"
            : r == L->str_thin     ? "ThinString"
                                   : "String";
    return 0;
}

/* A Symbol as V8 prints it: Symbol(its description, when that is a string). */
int v8_symbol_text(v8_t *v, uint64_t value, buf_t *out)
{
    uint64_t desc;
    int trunc;
    if (!v8_has_type(v, value, v->L.type_symbol)) return -1;
    buf_puts(out, "Symbol(");
    if (v8_read_field(v, value, v->L.symbol_name, &desc) == 0 && !v8_is_smi(v, desc)) {
        int t2;
        if (v8_instance_type(v, desc, &t2) == 0 && v8_is_string_type(v, t2)) v8_string(v, desc, out, 1024, &trunc);
    }
    buf_putc(out, ')');
    return 0;
}
