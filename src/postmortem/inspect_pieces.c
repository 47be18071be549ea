/* The leaves of a printed value that util.inspect shows in a form of its own (for
 * postmortem/inspect.c's walk): a Date in ISO form, a RegExp as /source/flags, the constructor's
 * name (and whether the prototype is null), a typed array's element kind and its elements, a
 * Buffer's or ArrayBuffer's first bytes, an Error by its recorded stack and extra properties, a
 * function as [Function: name] at file:line, and numbers (-0; JSON's null for NaN). */
#include "postmortem/inspect_pieces.h"
#include "util/diag.h"
#include "util/json.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void pm_inspect_number(pr_t *p, double d, buf_t *out)
{
    if (p->json && !isfinite(d)) buf_puts(out, "null");
    else if (!p->json && d == 0 && signbit(d)) buf_puts(out, "-0");
    else v8_put_number(out, d);
}

void pm_inspect_date(double t, buf_t *out)
{
    if (isnan(t) || fabs(t) > 8.64e15) {
        buf_puts(out, "Invalid Date");
        return;
    }
    int64_t ms = (int64_t)t, days = ms / 86400000, rem = ms % 86400000;
    if (rem < 0) {
        rem += 86400000;
        days--;
    }
    /* civil from days (Howard Hinnant's algorithm) */
    int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097, yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400, doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
    if (m <= 2) y++;
    if (y >= 0 && y <= 9999) buf_printf(out, "%04lld", (long long)y);
    else buf_printf(out, "%c%06lld", y < 0 ? '-' : '+', (long long)llabs(y));
    buf_printf(out, "-%02lld-%02lldT%02lld:%02lld:%02lld.%03lldZ", (long long)m, (long long)d,
               (long long)(rem / 3600000), (long long)(rem / 60000 % 60), (long long)(rem / 1000 % 60),
               (long long)(rem % 1000));
}

void pm_inspect_regexp(pr_t *p, const v8_value_t *x, buf_t *out)
{
    static const struct {
        int bit;
        char c;
    } flags[] = {{128, 'd'}, {1, 'g'}, {2, 'i'}, {4, 'm'}, {32, 's'}, {16, 'u'}, {256, 'v'}, {8, 'y'}};
    int trunc;
    buf_putc(out, '/');
    if (!x->a || v8_string(p->v, x->a, out, 1 << 16, &trunc) != 0) buf_puts(out, "<unreadable source>");
    buf_putc(out, '/');
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (x->flags & flags[i].bit) buf_putc(out, flags[i].c);
}

/* The constructor's name, "" when it is Object (no prefix), NULL for a null prototype. */
void pm_inspect_ctor_name(pr_t *p, uint64_t obj, buf_t *name, int *null_proto)
{
    uint64_t proto;
    *null_proto = v8_prototype(p->v, obj, &proto) != 0;
    if (v8_constructor_name(p->v, obj, name) != 0) buf_clear(name);
}

/* The typed array's element type: the first constructor along its prototype chain that is one of
 * the built-in typed arrays (a Buffer is a FastBuffer, a Uint8Array). */
const char *pm_inspect_typed_kind(pr_t *p, uint64_t obj, int *size)
{
    static const struct {
        const char *name;
        int size;
    } kinds[] = {{"Int8Array", 1},    {"Uint8Array", 1},   {"Uint8ClampedArray", 1}, {"Int16Array", 2},
                 {"Uint16Array", 2},  {"Int32Array", 4},   {"Uint32Array", 4},       {"Float16Array", 2},
                 {"Float32Array", 4}, {"Float64Array", 8}, {"BigInt64Array", 8},     {"BigUint64Array", 8}};
    uint64_t o = obj;
    for (int hop = 0; hop < 8; hop++) {
        buf_t n = {0};
        if (v8_constructor_name(p->v, o, &n) == 0)
            for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
                if (!strcmp(n.data, kinds[i].name)) {
                    buf_free(&n);
                    *size = kinds[i].size;
                    return kinds[i].name;
                }
        buf_free(&n);
        if (v8_prototype(p->v, o, &o) != 0) break;
    }
    *size = 1;
    return "Uint8Array";
}

void pm_inspect_typed_element(pr_t *p, const char *kind, const unsigned char *b, buf_t *out)
{
    if (!strcmp(kind, "Int8Array")) buf_printf(out, "%d", (int8_t)b[0]);
    else if (!strcmp(kind, "Uint8Array") || !strcmp(kind, "Uint8ClampedArray")) buf_printf(out, "%u", b[0]);
    else if (!strcmp(kind, "Int16Array")) {
        int16_t x;
        memcpy(&x, b, 2);
        buf_printf(out, "%d", x);
    } else if (!strcmp(kind, "Uint16Array")) {
        uint16_t x;
        memcpy(&x, b, 2);
        buf_printf(out, "%u", x);
    } else if (!strcmp(kind, "Int32Array")) {
        int32_t x;
        memcpy(&x, b, 4);
        buf_printf(out, "%d", x);
    } else if (!strcmp(kind, "Uint32Array")) {
        uint32_t x;
        memcpy(&x, b, 4);
        buf_printf(out, "%u", x);
    } else if (!strcmp(kind, "Float32Array")) {
        float x;
        memcpy(&x, b, 4);
        pm_inspect_number(p, x, out);
    } else if (!strcmp(kind, "Float64Array")) {
        double x;
        memcpy(&x, b, 8);
        pm_inspect_number(p, x, out);
    } else if (!strcmp(kind, "BigInt64Array")) {
        int64_t x;
        memcpy(&x, b, 8);
        buf_printf(out, p->json ? "%lld" : "%lldn", (long long)x);
    } else if (!strcmp(kind, "BigUint64Array")) {
        uint64_t x;
        memcpy(&x, b, 8);
        buf_printf(out, p->json ? "%llu" : "%llun", (unsigned long long)x);
    } else buf_printf(out, "0x%02x", b[0]); /* Float16: shown as its first byte */
}

/* The bytes of a buffer or view, hex, at most max of them ("<68 65 6c ... 12 more bytes>"). */
void pm_inspect_bytes(pr_t *p, const v8_value_t *x, int64_t max, buf_t *out)
{
    unsigned char b[BUFFER_PREVIEW];
    int64_t n = x->length < max ? x->length : max;
    if (n > BUFFER_PREVIEW) n = BUFFER_PREVIEW;
    if (n > 0 && (!x->data || v8_read_memory(p->v, x->data, b, (size_t)n) != 0)) {
        buf_puts(out, " <unreadable bytes>");
        return;
    }
    for (int64_t i = 0; i < n; i++) buf_printf(out, " %02x", b[i]);
    if (x->length > n)
        buf_printf(out, " ... %lld more byte%s", (long long)(x->length - n), x->length - n == 1 ? "" : "s");
}

/* An Error's stack as V8 recorded it: an own `stack` string, else the formatted stack V8 keeps
 * under a private symbol (directly, or in an ErrorStackData's first field). */
typedef struct {
    pr_t *p;
    uint64_t stack;
} stack_find_t;

/* A formatted stack: "Name: message\n    at f (file:1:2)..." (its first 64 KiB are looked at). */
static int has_frames(v8_t *v, uint64_t str)
{
    buf_t b = {0};
    int trunc, yes = v8_string(v, str, &b, 1 << 16, &trunc) == 0 && b.data && strstr(b.data, "\n    at ");
    buf_free(&b);
    return yes;
}

static int stack_cb(void *ctx, const v8_property_t *prop)
{
    stack_find_t *s = ctx;
    v8_t *v = s->p->v;
    v8_value_t x;
    if (prop->is_accessor || prop->is_double) return 0;
    if (!prop->is_symbol && strcmp(prop->key, "stack")) return 0;
    if (v8_value(v, prop->value, &x) == 0 && x.kind == V8_V_STRING) {
        /* a symbol's string is the stack only if it has frames: V8 13 also keeps the bare
           message under a private symbol */
        if (prop->is_symbol && !has_frames(v, prop->value)) return 0;
        s->stack = prop->value;
        return 1;
    }
    uint64_t inner;
    if (prop->is_private && x.kind == V8_V_INTERNAL && v8_read_field(v, prop->value, 8, &inner) == 0 &&
        v8_value(v, inner, &x) == 0 && x.kind == V8_V_STRING && has_frames(v, inner)) {
        s->stack = inner;
        return 1;
    }
    return 0;
}

void pm_inspect_error(pr_t *p, uint64_t obj, buf_t *out)
{
    stack_find_t s = {p, 0};
    int trunc;
    v8_object_properties(p->v, obj, stack_cb, &s);
    if (s.stack &&
        v8_string(p->v, s.stack, out, (size_t)(p->str_len < 0 ? JSON_STRING_MAX : p->str_len * 4 + 4), &trunc) == 0)
        return;
    uint64_t msg;
    int dbl;
    double d;
    buf_t name = {0};
    int null_proto;
    pm_inspect_ctor_name(p, obj, &name, &null_proto);
    buf_printf(out, "[%s", name.len ? name.data : "Error");
    if (v8_own_property(p->v, obj, "message", &msg, &dbl, &d) == 0) {
        buf_puts(out, ": ");
        v8_string(p->v, msg, out, 4096, &trunc);
    }
    buf_putc(out, ']');
    buf_free(&name);
}

void pm_inspect_function(pr_t *p, uint64_t fn, const v8_value_t *x, buf_t *out)
{
    v8_function_t fi;
    if (x->a) { /* bound */
        buf_puts(out, "[Function: bound ");
        if (v8_function_info(p->v, x->a, &fi) == 0) {
            buf_puts(out, *fi.name ? fi.name : "(anonymous)");
            v8_function_free(&fi);
        }
        buf_putc(out, ']');
        return;
    }
    if (v8_function_info(p->v, fn, &fi) != 0) {
        buf_puts(out, "[Function]");
        return;
    }
    const char *n = *fi.name ? fi.name : NULL;
    if (n) buf_printf(out, "[Function: %s]", n);
    else buf_puts(out, "[Function (anonymous)]");
    if (fi.script_name && fi.def_line) buf_printf(out, " at %s:%d", fi.script_name, fi.def_line);
    v8_function_free(&fi);
}
