/* One-line descriptions of tagged values (arguments in `stack -v`, elements in `array`). */
#include "v8/v8_internal.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SHORT_STRING 40

/* A JS string literal: quoted, with quotes, backslashes and control characters escaped. */
static void put_quoted(v8_t *v, uint64_t str, buf_t *out)
{
    buf_t raw = {0};
    int trunc = 0;
    int rc = v8_string(v, str, &raw, SHORT_STRING, &trunc);
    buf_putc(out, '"');
    for (size_t i = 0; i < raw.len; i++) {
        unsigned char c = (unsigned char)raw.data[i];
        if (c == '"' || c == '\\') {
            buf_putc(out, '\\');
            buf_putc(out, (char)c);
        } else if (c == '\n') buf_puts(out, "\\n");
        else if (c < 0x20 || c == 0x7f) buf_printf(out, "\\x%02x", c);
        else buf_putc(out, (char)c);
    }
    buf_putc(out, '"');
    if (trunc) buf_puts(out, "...");
    if (rc != 0) buf_puts(out, " <unreadable string>");
    buf_free(&raw);
}

/* true, false, null, undefined, <hole>: by the oddball's kind (V8 12 dropped the to_string field) */
static void put_oddball(v8_t *v, uint64_t value, buf_t *out)
{
    static const char *names[V8_ODDBALL_N] = {
        "false",    "true", "<hole>", "null", "undefined", "<uninitialized>", "<exception>", "<arguments marker>",
        "<oddball>"};
    int k = v8_oddball_kind(v, value);
    buf_puts(out, k >= 0 ? names[k] : "<oddball>");
}

static int is_buffer_name(const char *s) { return !strcmp(s, "FastBuffer") || !strcmp(s, "Buffer"); }

void v8_describe(v8_t *v, uint64_t value, buf_t *out)
{
    const v8_layout_t *L = &v->L;
    int type;
    if (v8_is_smi(v, value)) {
        buf_printf(out, "%lld", (long long)v8_smi_value(v, value));
        return;
    }
    if (!v8_is_heap_object(v, value) || v8_instance_type(v, value, &type) != 0) {
        buf_printf(out, "<unreadable 0x%llx>", (unsigned long long)value);
        return;
    }
    if (v8_is_string_type(v, type)) {
        put_quoted(v, value, out);
        return;
    }
    if (type == L->type_heap_number) {
        uint64_t bits;
        double d;
        if (v8_read_field(v, value, L->heap_number_value, &bits) != 0) {
            buf_puts(out, "<HeapNumber ?>");
            return;
        }
        memcpy(&d, &bits, sizeof d);
        v8_put_number(out, d);
        return;
    }
    if (type == L->type_oddball || (type == L->type_hole && L->type_hole >= 0)) {
        put_oddball(v, value, out);
        return;
    }
    if (v8_symbol_text(v, value, out) == 0) return;
    v8_function_t fi;
    if (v8_function_info(v, value, &fi) == 0) {
        buf_puts(out, "<Function: ");
        buf_puts(out, v8_function_display_name(&fi, "(anonymous)"));
        buf_putc(out, '>');
        v8_function_free(&fi);
        return;
    }
    if (type == L->type_js_array) {
        int64_t len;
        if (v8_read_smi(v, value, L->jsarray_length, &len) == 0) buf_printf(out, "<Array %lld>", (long long)len);
        else buf_puts(out, "<Array>");
        return;
    }
    buf_t ctor = {0};
    int have_ctor = v8_constructor_name(v, value, &ctor) == 0;
    if (type == L->type_js_typed_array) {
        uint64_t n;
        const char *name = have_ctor ? ctor.data : "TypedArray";
        int ok = v8_read_field(v, value, L->view_byte_length, &n) == 0;
        if (is_buffer_name(name)) buf_printf(out, ok ? "<Buffer %llu bytes>" : "<Buffer>", (unsigned long long)n);
        else buf_printf(out, ok ? "<%s %llu bytes>" : "<%s>", name, (unsigned long long)n);
    } else if (have_ctor) {
        const char *tn = v8_class_name(v, type);
        buf_printf(out, "<%s: %s>",
                   tn && strncmp(tn, "JSObject", 8) ? tn + (tn[0] == 'J' && tn[1] == 'S' ? 2 : 0) : "Object",
                   ctor.data);
    } else {
        /* the class, or else the instance type (context and other internal types have no class) */
        const char *tn = v8_class_name(v, type);
        if (!tn) tn = v8_type_name(v, type);
        buf_printf(out, "<%s>", tn ? tn : "object");
    }
    buf_free(&ctor);
}
