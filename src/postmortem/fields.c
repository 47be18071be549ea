/* The text of raw words: V8 metadata fields by their C type, embedder fields (C++ objects named
 * through the target's symbols: a vtable's "vtable for CLASS", else the symbol pointed into),
 * context slots by their ScopeInfo names. Every read goes through v8/ or target/ (bounded; an
 * unreadable word prints as such). */
#include "postmortem/fields.h"
#include "util/demangle.h"
#include <stdio.h>
#include <string.h>

void pm_field_text(v8_t *v, uint64_t obj, const v8_field_t *f, buf_t *b)
{
    const char *ty = f->type;
    int64_t off = f->offset;
    uint64_t w = 0;
    buf_clear(b);
    if (!strcmp(ty, "char") || !strcmp(ty, "uint8_t")) {
        uint8_t x;
        if (v8_read_bytes(v, obj, off, &x, 1) == 0) buf_printf(b, "%u", x);
    } else if (!strcmp(ty, "uint16_t") || !strcmp(ty, "int16_t")) {
        uint16_t x;
        if (v8_read_bytes(v, obj, off, &x, 2) == 0)
            buf_printf(b, "%d", !strcmp(ty, "int16_t") ? (int)(int16_t)x : (int)x);
    } else if (!strcmp(ty, "int") || !strcmp(ty, "int32_t") || !strcmp(ty, "uint32_t")) {
        uint32_t x;
        if (v8_read_bytes(v, obj, off, &x, 4) == 0)
            buf_printf(b, "%lld", !strcmp(ty, "uint32_t") ? (long long)x : (long long)(int32_t)x);
    } else if (!strcmp(ty, "double")) {
        double d;
        if (v8_read_bytes(v, obj, off, &d, 8) == 0) v8_put_number(b, d);
    } else if (!strcmp(ty, "uintptr_t") || !strcmp(ty, "size_t") || !strcmp(ty, "Address") || !strcmp(ty, "uint64_t")) {
        if (v8_read_bytes(v, obj, off, &w, 8) == 0) buf_printf(b, "0x%llx", (unsigned long long)w);
    } else if (v8_read_field(v, obj, off, &w) == 0) { /* a tagged field */
        buf_printf(b, "0x%llx ", (unsigned long long)w);
        v8_describe(v, w, b);
    }
    if (!b->len) buf_puts(b, "<unreadable>");
}

void pm_embedder_text(v8_t *v, target_t *t, const v8_embedder_value_t *e, buf_t *b)
{
    buf_clear(b);
    if (e->kind == V8_EMBEDDER_SMI) {
        buf_printf(b, "Smi %lld", (long long)v8_smi_value(v, e->raw));
        return;
    }
    buf_printf(b, "0x%llx", (unsigned long long)e->raw);
    if (e->kind == V8_EMBEDDER_TAGGED) {
        buf_putc(b, ' ');
        v8_describe(v, e->raw, b);
        return;
    }
    if (!e->raw) {
        buf_puts(b, " (null)");
        return;
    }
    static const char vt[] = "vtable for ";
    target_symbol_t sym;
    buf_t name = {0};
    if (e->vtable && target_symbolize_data(t, e->vtable, &sym) == 0) demangle_append(&name, sym.name);
    if (name.data && !strncmp(name.data, vt, sizeof vt - 1)) {
        buf_printf(b, " (C++ %s)", name.data + sizeof vt - 1);
    } else if (target_symbolize_data(t, e->raw, &sym) == 0) {
        buf_clear(&name);
        demangle_append(&name, sym.name);
        buf_printf(b, " (&%s", name.data);
        if (e->raw != sym.addr) buf_printf(b, "+0x%llx", (unsigned long long)(e->raw - sym.addr));
        buf_putc(b, ')');
    } else {
        buf_puts(b, " (native pointer)");
    }
    buf_free(&name);
}

typedef struct {
    int64_t slot;
    char *name;
    size_t n;
} slot_name_t;

static int slot_name_cb(void *ctx, const char *name, int64_t slot, uint64_t value)
{
    slot_name_t *s = ctx;
    (void)value;
    if (slot != s->slot) return 0;
    snprintf(s->name, s->n, "%s", name);
    return 1;
}

int pm_context_slot_name(v8_t *v, uint64_t context, int64_t i, char *name, size_t n)
{
    slot_name_t s = {i, name, n};
    name[0] = 0;
    v8_context_locals(v, context, slot_name_cb, &s);
    return name[0] && name[0] != '[';
}
