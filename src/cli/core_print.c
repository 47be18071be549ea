/* nodescope core ... print|constructor|buffer: one JavaScript value, reached by address or by a
 * path from the global object, printed the way util.inspect shows it (or as JSON.stringify would
 * write it). v8/jsvalue.c says what a value is; this file only formats. Every walk is bounded: a
 * depth cap, a budget of values per command, and cycles shown as [Circular *N]. */
#include "cli/core_cmds.h"
#include "util/diag.h"
#include "util/json.h"
#include "util/options.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define HARD_DEPTH 200          /* nesting beyond any real value: a corrupt or adversarial heap */
#define JSON_STRING_MAX (64 << 20)
#define BREAK_LENGTH 72         /* util.inspect puts an object on one line up to about this width */
#define BUFFER_PREVIEW 50       /* util.inspect's INSPECT_MAX_BYTES */

typedef struct {
    v8_t *v;
    int json, addresses;
    long depth, str_len, arr_len;
    uint64_t stack[HARD_DEPTH + 1];
    int refs[HARD_DEPTH + 1];
    int level, nrefs;
    long budget, max_values;   /* values (and hidden properties) still allowed; the cap */
    int circular_json, bigint_json, truncated;
    const char *fail;   /* the first thing that could not be read */
} pr_t;

static void render(pr_t *p, uint64_t val, buf_t *out);

/* Charges one value (or a hidden property, or a JSON hole) against the budget: 0 while it lasts;
 * -1 once spent, when the output is cut short (said once). */
static int spend(pr_t *p)
{
    if (--p->budget >= 0) return 0;
    if (p->budget == -1) diag_warn(target_name(v8_target(p->v)), 0, "print: stopped after %ld values", p->max_values);
    p->truncated = 1;
    return -1;
}

/* ---- strings ---- */
typedef struct {
    buf_t *out;
    int json;
    char quote;
    long left;        /* characters still allowed (-1 unlimited) */
    long more;        /* characters not shown */
    uint32_t hi;      /* a pending high surrogate */
} str_sink_t;

/* One code point (or a lone surrogate) escaped as JSON.stringify or util.inspect would. */
static void put_char(str_sink_t *s, uint32_t c, int lone)
{
    buf_t *b = s->out;
    if (lone) { buf_printf(b, "\\u%04x", c); return; }   /* well-formed JSON.stringify */
    if (c == (uint32_t)s->quote || c == '\\') { buf_putc(b, '\\'); buf_putc(b, (char)c); return; }
    switch (c) {
    case '\b': buf_puts(b, "\\b"); return;
    case '\f': buf_puts(b, "\\f"); return;
    case '\n': buf_puts(b, "\\n"); return;
    case '\r': buf_puts(b, "\\r"); return;
    case '\t': buf_puts(b, "\\t"); return;
    }
    if (c < 0x20 || (!s->json && c == 0x7f)) buf_printf(b, s->json ? "\\u%04x" : "\\x%02X", c);
    else buf_put_utf8(b, c);
}

static void str_unit(void *ctx, uint32_t u)
{
    str_sink_t *s = ctx;
    if (s->left == 0) { s->more++; return; }
    if (s->hi) {
        uint32_t hi = s->hi;
        s->hi = 0;
        if (u >= 0xDC00 && u <= 0xDFFF) {
            put_char(s, 0x10000 + ((hi - 0xD800) << 10) + (u - 0xDC00), 0);
            if (s->left > 0) s->left--;
            return;
        }
        put_char(s, hi, 1);
    }
    if (u >= 0xD800 && u <= 0xDBFF) { s->hi = u; return; }
    put_char(s, u, u >= 0xDC00 && u <= 0xDFFF);
    if (s->left > 0) s->left--;
}

/* util.inspect's quote: ' unless the string has one and no ", then ", else ` when it has neither. */
static char pick_quote(v8_t *v, uint64_t str)
{
    buf_t b = {0};
    int trunc;
    v8_string(v, str, &b, 1 << 16, &trunc);
    int single = b.data && strchr(b.data, '\''), dbl = b.data && strchr(b.data, '"'), back = b.data && strchr(b.data, '`');
    buf_free(&b);
    return !single ? '\'' : !dbl ? '"' : !back ? '`' : '\'';
}

static int put_string(pr_t *p, uint64_t str, buf_t *out)
{
    str_sink_t s = {out, p->json, p->json ? '"' : pick_quote(p->v, str), p->str_len, 0, 0};
    buf_putc(out, s.quote);
    int rc = v8_string_units(p->v, str, str_unit, &s);
    if (s.hi) put_char(&s, s.hi, 1);
    buf_putc(out, s.quote);
    if (s.more) {
        p->truncated = 1;
        if (!p->json) buf_printf(out, "... %ld more character%s", s.more, s.more == 1 ? "" : "s");
    }
    if (rc != 0 && !p->fail) p->fail = "a string";
    return rc;
}

/* ---- keys ---- */
static int is_identifier(const char *k)
{
    if (!*k || isdigit((unsigned char)*k)) return 0;
    for (const char *c = k; *c; c++)
        if (!isalnum((unsigned char)*c) && *c != '_' && *c != '$') return 0;
    return 1;
}

static void put_key(pr_t *p, const char *key, int symbol, buf_t *out)
{
    if (p->json) {
        buf_putc(out, '"');
        for (const unsigned char *c = (const unsigned char *)key; *c; c++) {
            if (*c == '"' || *c == '\\') { buf_putc(out, '\\'); buf_putc(out, (char)*c); }
            else if (*c < 0x20) buf_printf(out, "\\u%04x", *c);
            else buf_putc(out, (char)*c);
        }
        buf_putc(out, '"');
    } else if (symbol) {
        buf_printf(out, "[%s]", key);
    } else if (is_identifier(key)) {
        buf_puts(out, key);
    } else {
        buf_putc(out, '\'');
        for (const char *c = key; *c; c++) {
            if (*c == '\'' || *c == '\\') buf_putc(out, '\\');
            buf_putc(out, *c);
        }
        buf_putc(out, '\'');
    }
}

/* ---- composites: entries gathered, then laid out on one line or one per line ---- */
typedef struct {
    buf_t *items;
    size_t n, cap;
} entries_t;

static buf_t *entry_new(entries_t *e)
{
    if (e->n == e->cap) {
        e->cap = e->cap ? 2 * e->cap : 8;
        e->items = realloc(e->items, e->cap * sizeof *e->items);
        if (!e->items) abort();
    }
    e->items[e->n] = (buf_t){0};
    return &e->items[e->n++];
}

static void entries_free(entries_t *e)
{
    for (size_t i = 0; i < e->n; i++) buf_free(&e->items[i]);
    free(e->items);
}

static void layout(pr_t *p, const char *prefix, char open, char close, entries_t *e, buf_t *out)
{
    buf_puts(out, prefix);
    if (p->json) {
        buf_putc(out, open);
        for (size_t i = 0; i < e->n; i++) {
            if (i) buf_putc(out, ',');
            buf_append(out, e->items[i].data, e->items[i].len);
        }
        buf_putc(out, close);
        return;
    }
    if (e->n == 0) {
        buf_putc(out, open);
        buf_putc(out, close);
        return;
    }
    size_t total = strlen(prefix) + 4;
    int multiline = 0;
    for (size_t i = 0; i < e->n; i++) {
        total += e->items[i].len + 2;
        if (e->items[i].data && memchr(e->items[i].data, '\n', e->items[i].len)) multiline = 1;
    }
    if (total > BREAK_LENGTH) multiline = 1;
    buf_putc(out, open);
    for (size_t i = 0; i < e->n; i++) {
        if (multiline) {
            buf_putc(out, '\n');
            for (int k = 0; k < p->level; k++) buf_puts(out, "  ");
        } else {
            buf_putc(out, ' ');
        }
        buf_append(out, e->items[i].data, e->items[i].len);
        if (i + 1 < e->n) buf_putc(out, ',');
    }
    if (multiline) {
        buf_putc(out, '\n');
        for (int k = 1; k < p->level; k++) buf_puts(out, "  ");
    } else {
        buf_putc(out, ' ');
    }
    buf_putc(out, close);
}

/* ---- properties and elements ---- */
typedef struct {
    pr_t *p;
    entries_t *e;
    int array;            /* JSON arrays: holes and gaps become null */
    int64_t next, length, shown, limit;
    int64_t gap;          /* text: a run of empty items not yet written */
} walk_t;

static void flush_gap(walk_t *w)
{
    if (w->gap > 0 && !w->p->json) buf_printf(entry_new(w->e), "<%lld empty item%s>", (long long)w->gap, w->gap == 1 ? "" : "s");
    w->gap = 0;
}

static void render_number(pr_t *p, double d, buf_t *out)
{
    if (p->json && !isfinite(d)) buf_puts(out, "null");
    else if (!p->json && d == 0 && signbit(d)) buf_puts(out, "-0");
    else v8_put_number(out, d);
}

/* 1 when JSON.stringify leaves this value out of an object (undefined, functions, symbols). */
static int json_skips(pr_t *p, uint64_t val)
{
    v8_value_t x;
    if (v8_value(p->v, val, &x) != 0) return 0;
    return x.kind == V8_V_UNDEFINED || x.kind == V8_V_FUNCTION || x.kind == V8_V_SYMBOL || x.kind == V8_V_HOLE;
}

static int element_cb(void *ctx, const v8_property_t *prop)
{
    walk_t *w = ctx;
    pr_t *p = w->p;
    int64_t i = strtoll(prop->key, NULL, 10);
    if (w->shown >= w->limit || p->budget < 0) return 1;
    if (w->array) {
        for (; w->next < i && w->shown < w->limit; w->next++, w->shown++) {
            if (!p->json) w->gap++;
            else if (spend(p) == 0) buf_puts(entry_new(w->e), "null");
            else return 1;
        }
        if (w->shown >= w->limit) return 1;
        flush_gap(w);
        w->next = i + 1;
    }
    buf_t *b = entry_new(w->e);
    if (!w->array) {
        put_key(p, prop->key, 0, b);
        buf_puts(b, p->json ? ":" : ": ");
    }
    if (prop->is_double) render_number(p, prop->d, b);
    else if (p->json && w->array && json_skips(p, prop->value)) buf_puts(b, "null");
    else render(p, prop->value, b);
    w->shown++;
    return 0;
}

static int property_cb(void *ctx, const v8_property_t *prop)
{
    walk_t *w = ctx;
    pr_t *p = w->p;
    if (p->budget < 0) return 1;
    /* a property not shown is still work: charged, so an object full of hidden ones reached a
     * million times over (a corrupt heap's DAG) cannot run for minutes within the budget */
    if (!prop->enumerable || prop->is_private ||
        (p->json && (prop->is_symbol || (!prop->is_accessor && json_skips(p, prop->value))))) {
        spend(p);
        return 0;
    }
    if (p->json && prop->is_accessor) {
        diag_warn(target_name(v8_target(p->v)), 0, "print: property '%s' is a getter, which cannot run here: left out",
                  prop->key);
        return 0;
    }
    buf_t *b = entry_new(w->e);
    put_key(p, prop->key, prop->is_symbol, b);
    buf_puts(b, p->json ? ":" : ": ");
    if (prop->is_accessor) buf_puts(b, "[Getter/Setter]");
    else if (prop->is_double) render_number(p, prop->d, b);
    else render(p, prop->value, b);
    return 0;
}

/* Elements, then named properties: an object's own enumerable keys in JavaScript's order. */
static void object_entries(pr_t *p, uint64_t obj, entries_t *e, int array, int64_t length)
{
    walk_t w = {p, e, array, 0, length, 0, p->arr_len, 0};
    v8_object_elements(p->v, obj, element_cb, &w, array ? (length < p->arr_len ? length : p->arr_len) : p->arr_len);
    if (array) {
        int64_t end = length < p->arr_len ? length : p->arr_len;
        /* the holes after the last element: JSON's nulls are values too (an array of a thousand
           holes in each of a thousand arrays is megabytes of them); none once the budget is spent */
        for (; w.next < end && p->budget >= 0; w.next++) {
            if (!p->json) w.gap++;
            else if (spend(p) == 0) buf_puts(entry_new(e), "null");
        }
        flush_gap(&w);
        if (length > p->arr_len) {
            p->truncated = 1;
            if (!p->json) buf_printf(entry_new(e), "... %lld more item%s", (long long)(length - p->arr_len), length - p->arr_len == 1 ? "" : "s");
        }
    }
    if (!(p->json && array)) v8_object_properties(p->v, obj, property_cb, &w);
}

/* ---- the pieces util.inspect shows ---- */
static void put_date(double t, buf_t *out)
{
    if (isnan(t) || fabs(t) > 8.64e15) { buf_puts(out, "Invalid Date"); return; }
    int64_t ms = (int64_t)t, days = ms / 86400000, rem = ms % 86400000;
    if (rem < 0) { rem += 86400000; days--; }
    /* civil from days (Howard Hinnant's algorithm) */
    int64_t z = days + 719468, era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097, yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t y = yoe + era * 400, doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    int64_t d = doy - (153 * mp + 2) / 5 + 1, m = mp < 10 ? mp + 3 : mp - 9;
    if (m <= 2) y++;
    if (y >= 0 && y <= 9999) buf_printf(out, "%04lld", (long long)y);
    else buf_printf(out, "%c%06lld", y < 0 ? '-' : '+', (long long)llabs(y));
    buf_printf(out, "-%02lld-%02lldT%02lld:%02lld:%02lld.%03lldZ", (long long)m, (long long)d, (long long)(rem / 3600000),
               (long long)(rem / 60000 % 60), (long long)(rem / 1000 % 60), (long long)(rem % 1000));
}

static void put_regexp(pr_t *p, const v8_value_t *x, buf_t *out)
{
    static const struct { int bit; char c; } flags[] = {{128, 'd'}, {1, 'g'}, {2, 'i'}, {4, 'm'}, {32, 's'}, {16, 'u'}, {256, 'v'}, {8, 'y'}};
    int trunc;
    buf_putc(out, '/');
    if (!x->a || v8_string(p->v, x->a, out, 1 << 16, &trunc) != 0) buf_puts(out, "<unreadable source>");
    buf_putc(out, '/');
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (x->flags & flags[i].bit) buf_putc(out, flags[i].c);
}

/* The constructor's name, "" when it is Object (no prefix), NULL for a null prototype. */
static void ctor_name(pr_t *p, uint64_t obj, buf_t *name, int *null_proto)
{
    uint64_t proto;
    *null_proto = v8_prototype(p->v, obj, &proto) != 0;
    if (v8_constructor_name(p->v, obj, name) != 0) buf_clear(name);
}

/* The typed array's element type: the first constructor along its prototype chain that is one of
 * the built-in typed arrays (a Buffer is a FastBuffer, a Uint8Array). */
static const char *typed_kind(pr_t *p, uint64_t obj, int *size)
{
    static const struct { const char *name; int size; } kinds[] = {
        {"Int8Array", 1}, {"Uint8Array", 1}, {"Uint8ClampedArray", 1}, {"Int16Array", 2}, {"Uint16Array", 2},
        {"Int32Array", 4}, {"Uint32Array", 4}, {"Float16Array", 2}, {"Float32Array", 4}, {"Float64Array", 8},
        {"BigInt64Array", 8}, {"BigUint64Array", 8}};
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

static void typed_element(pr_t *p, const char *kind, const unsigned char *b, buf_t *out)
{
    if (!strcmp(kind, "Int8Array")) buf_printf(out, "%d", (int8_t)b[0]);
    else if (!strcmp(kind, "Uint8Array") || !strcmp(kind, "Uint8ClampedArray")) buf_printf(out, "%u", b[0]);
    else if (!strcmp(kind, "Int16Array")) { int16_t x; memcpy(&x, b, 2); buf_printf(out, "%d", x); }
    else if (!strcmp(kind, "Uint16Array")) { uint16_t x; memcpy(&x, b, 2); buf_printf(out, "%u", x); }
    else if (!strcmp(kind, "Int32Array")) { int32_t x; memcpy(&x, b, 4); buf_printf(out, "%d", x); }
    else if (!strcmp(kind, "Uint32Array")) { uint32_t x; memcpy(&x, b, 4); buf_printf(out, "%u", x); }
    else if (!strcmp(kind, "Float32Array")) { float x; memcpy(&x, b, 4); render_number(p, x, out); }
    else if (!strcmp(kind, "Float64Array")) { double x; memcpy(&x, b, 8); render_number(p, x, out); }
    else if (!strcmp(kind, "BigInt64Array")) { int64_t x; memcpy(&x, b, 8); buf_printf(out, p->json ? "%lld" : "%lldn", (long long)x); }
    else if (!strcmp(kind, "BigUint64Array")) { uint64_t x; memcpy(&x, b, 8); buf_printf(out, p->json ? "%llu" : "%llun", (unsigned long long)x); }
    else buf_printf(out, "0x%02x", b[0]);   /* Float16: shown as its first byte */
}

/* The bytes of a buffer or view, hex, at most max of them ("<68 65 6c ... 12 more bytes>"). */
static void put_bytes(pr_t *p, const v8_value_t *x, int64_t max, buf_t *out)
{
    unsigned char b[BUFFER_PREVIEW];
    int64_t n = x->length < max ? x->length : max;
    if (n > BUFFER_PREVIEW) n = BUFFER_PREVIEW;
    if (n > 0 && (!x->data || v8_read_memory(p->v, x->data, b, (size_t)n) != 0)) {
        buf_puts(out, " <unreadable bytes>");
        return;
    }
    for (int64_t i = 0; i < n; i++) buf_printf(out, " %02x", b[i]);
    if (x->length > n) buf_printf(out, " ... %lld more byte%s", (long long)(x->length - n), x->length - n == 1 ? "" : "s");
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

static void put_error(pr_t *p, uint64_t obj, buf_t *out)
{
    stack_find_t s = {p, 0};
    int trunc;
    v8_object_properties(p->v, obj, stack_cb, &s);
    if (s.stack && v8_string(p->v, s.stack, out, (size_t)(p->str_len < 0 ? JSON_STRING_MAX : p->str_len * 4 + 4), &trunc) == 0)
        return;
    uint64_t msg;
    int dbl;
    double d;
    buf_t name = {0};
    int null_proto;
    ctor_name(p, obj, &name, &null_proto);
    buf_printf(out, "[%s", name.len ? name.data : "Error");
    if (v8_own_property(p->v, obj, "message", &msg, &dbl, &d) == 0) {
        buf_puts(out, ": ");
        v8_string(p->v, msg, out, 4096, &trunc);
    }
    buf_putc(out, ']');
    buf_free(&name);
}

static void put_function(pr_t *p, uint64_t fn, const v8_value_t *x, buf_t *out)
{
    v8_function_t fi;
    if (x->a) {   /* bound */
        buf_puts(out, "[Function: bound ");
        if (v8_function_info(p->v, x->a, &fi) == 0) {
            buf_puts(out, *fi.name ? fi.name : "(anonymous)");
            v8_function_free(&fi);
        }
        buf_putc(out, ']');
        return;
    }
    if (v8_function_info(p->v, fn, &fi) != 0) { buf_puts(out, "[Function]"); return; }
    const char *n = *fi.name ? fi.name : NULL;
    if (n) buf_printf(out, "[Function: %s]", n);
    else buf_puts(out, "[Function (anonymous)]");
    if (fi.script_name && fi.def_line) buf_printf(out, " at %s:%d", fi.script_name, fi.def_line);
    v8_function_free(&fi);
}

typedef struct {
    pr_t *p;
    entries_t *e;
    int map;
} coll_t;

static int coll_cb(void *ctx, uint64_t key, uint64_t value)
{
    coll_t *c = ctx;
    buf_t *d = entry_new(c->e);
    render(c->p, key, d);
    if (c->map) {
        buf_puts(d, " => ");
        render(c->p, value, d);
    }
    return 0;
}

static void render_composite(pr_t *p, uint64_t val, const v8_value_t *x, buf_t *out)
{
    v8_t *v = p->v;
    entries_t e = {0};
    buf_t prefix = {0}, name = {0};
    int null_proto = 0;
    char open = '{', close = '}';
    if (x->kind == V8_V_GLOBAL && x->a) val = x->a;   /* a global proxy's properties are its global object's */
    ctor_name(p, val, &name, &null_proto);
    if (p->json && x->kind == V8_V_BOXED) {   /* new Number(5) is 5 to JSON.stringify */
        v8_value_t y;
        if (v8_value(v, x->a, &y) == 0 && (y.kind == V8_V_NUMBER || y.kind == V8_V_STRING || y.kind == V8_V_BOOLEAN || y.kind == V8_V_BIGINT)) {
            render(p, x->a, out);
            goto done;
        }
    }
    if (p->json) {
        if (x->kind == V8_V_ARRAY) {
            open = '[', close = ']';
            object_entries(p, val, &e, 1, x->length);
        } else if (x->kind == V8_V_TYPED_ARRAY && !strcmp(name.data ? name.data : "", "Buffer")) {
            /* Buffer.prototype.toJSON */
            buf_t *d = entry_new(&e);
            buf_puts(d, "\"type\":\"Buffer\",\"data\":[");
            for (int64_t i = 0; i < x->length && i < p->arr_len; i++) {
                unsigned char b;
                if (v8_read_memory(v, x->data + (uint64_t)i, &b, 1) != 0) { if (!p->fail) p->fail = "a buffer's bytes"; break; }
                buf_printf(d, "%s%u", i ? "," : "", b);
            }
            buf_putc(d, ']');
        } else if (x->kind == V8_V_TYPED_ARRAY) {
            int size;
            const char *kind = typed_kind(p, val, &size);
            for (int64_t i = 0; i < x->length / size && i < p->arr_len; i++) {
                unsigned char b[8];
                buf_t *d = entry_new(&e);
                buf_printf(d, "\"%lld\":", (long long)i);
                if (v8_read_memory(v, x->data + (uint64_t)(i * size), b, (size_t)size) != 0) { buf_puts(d, "null"); continue; }
                typed_element(p, kind, b, d);
            }
        } else if (x->kind != V8_V_MAP && x->kind != V8_V_SET && x->kind != V8_V_WEAKMAP && x->kind != V8_V_WEAKSET &&
                   x->kind != V8_V_PROMISE && x->kind != V8_V_ARRAY_BUFFER && x->kind != V8_V_DATA_VIEW) {
            object_entries(p, val, &e, 0, 0);
        } else {
            object_entries(p, val, &e, 0, 0);   /* their own enumerable properties; the contents are not JSON */
        }
        layout(p, "", open, close, &e, out);
        goto done;
    }
    const char *cn = null_proto ? NULL : name.len ? name.data : "Object";
    if (p->addresses) buf_printf(&prefix, "@0x%llx ", (unsigned long long)val);
    switch (x->kind) {
    case V8_V_ARRAY:
        if (cn && strcmp(cn, "Array")) buf_printf(&prefix, "%s(%lld) ", cn, (long long)x->length);
        else if (!cn) buf_printf(&prefix, "[Array(%lld): null prototype] ", (long long)x->length);
        open = '[', close = ']';
        object_entries(p, val, &e, 1, x->length);
        break;
    case V8_V_MAP:
    case V8_V_SET: {
        buf_printf(&prefix, "%s(%lld) ", cn ? cn : x->kind == V8_V_MAP ? "Map" : "Set", (long long)x->length);
        coll_t c = {p, &e, x->kind == V8_V_MAP};
        v8_collection_entries(v, x->a, x->kind == V8_V_MAP, coll_cb, &c, p->arr_len);
        if (x->length > p->arr_len) buf_printf(entry_new(&e), "... %lld more item%s", (long long)(x->length - p->arr_len), x->length - p->arr_len == 1 ? "" : "s");
        object_entries(p, val, &e, 0, 0);
        break;
    }
    case V8_V_WEAKMAP:
    case V8_V_WEAKSET:
        buf_printf(&prefix, "%s ", cn ? cn : x->kind == V8_V_WEAKMAP ? "WeakMap" : "WeakSet");
        buf_puts(entry_new(&e), "<items unknown>");
        break;
    case V8_V_PROMISE: {
        buf_printf(&prefix, "%s ", cn ? cn : "Promise");
        buf_t *d = entry_new(&e);
        if (x->state == V8_PROMISE_PENDING) buf_puts(d, "<pending>");
        else if (x->state < 0) buf_puts(d, "<unknown state>");
        else {
            if (x->state == V8_PROMISE_REJECTED) buf_puts(d, "<rejected> ");
            render(p, x->a, d);
        }
        object_entries(p, val, &e, 0, 0);
        break;
    }
    case V8_V_PROXY:
        buf_puts(&prefix, "Proxy ");
        open = '[', close = ']';
        render(p, x->a, entry_new(&e));
        render(p, x->b, entry_new(&e));
        break;
    case V8_V_ARRAY_BUFFER: {
        buf_printf(&prefix, "%s ", cn ? cn : "ArrayBuffer");
        buf_t *d = entry_new(&e);
        buf_t bytes = {0};
        put_bytes(p, x, BUFFER_PREVIEW, &bytes);
        buf_printf(d, "[Uint8Contents]: <%s>", bytes.len ? bytes.data + 1 : "");
        buf_free(&bytes);
        buf_printf(entry_new(&e), "byteLength: %lld", (long long)x->length);
        break;
    }
    case V8_V_TYPED_ARRAY: {
        if (cn && (!strcmp(cn, "Buffer") || !strcmp(cn, "FastBuffer"))) {
            buf_printf(out, "%s<Buffer", prefix.data ? prefix.data : "");
            put_bytes(p, x, BUFFER_PREVIEW, out);
            buf_putc(out, '>');
            goto done;
        }
        int size;
        const char *kind = typed_kind(p, val, &size);
        int64_t n = x->length / size;
        buf_printf(&prefix, "%s(%lld) ", cn ? cn : kind, (long long)n);
        open = '[', close = ']';
        for (int64_t i = 0; i < n && i < p->arr_len; i++) {
            unsigned char b[8];
            buf_t *d = entry_new(&e);
            if (v8_read_memory(v, x->data + (uint64_t)(i * size), b, (size_t)size) != 0) { buf_puts(d, "<unreadable>"); break; }
            typed_element(p, kind, b, d);
        }
        if (n > p->arr_len) buf_printf(entry_new(&e), "... %lld more item%s", (long long)(n - p->arr_len), n - p->arr_len == 1 ? "" : "s");
        break;
    }
    case V8_V_DATA_VIEW:
        buf_printf(&prefix, "%s ", cn ? cn : "DataView");
        buf_printf(entry_new(&e), "byteLength: %lld", (long long)x->length);
        buf_printf(entry_new(&e), "byteOffset: %lld", (long long)x->offset);
        {
            buf_t *d = entry_new(&e);
            buf_puts(d, "buffer: ");
            render(p, x->a, d);
        }
        break;
    case V8_V_ERROR: {
        buf_t head = {0};
        put_error(p, val, &head);
        object_entries(p, val, &e, 0, 0);
        buf_append(&prefix, head.data, head.len);
        buf_free(&head);
        if (e.n == 0) {
            buf_append(out, prefix.data, prefix.len);
            goto done;
        }
        buf_putc(&prefix, ' ');
        break;
    }
    case V8_V_BOXED: {
        v8_value_t y;
        v8_value(v, x->a, &y);
        buf_printf(&prefix, "[%s: ", y.kind == V8_V_STRING ? "String" : y.kind == V8_V_NUMBER ? "Number" : y.kind == V8_V_BOOLEAN ? "Boolean"
                                     : y.kind == V8_V_SYMBOL ? "Symbol" : y.kind == V8_V_BIGINT ? "BigInt" : "Object");
        render(p, x->a, &prefix);
        buf_puts(&prefix, "]");
        object_entries(p, val, &e, 0, 0);
        if (e.n == 0) {
            buf_append(out, prefix.data, prefix.len);
            goto done;
        }
        buf_putc(&prefix, ' ');
        break;
    }
    case V8_V_GLOBAL:
        buf_puts(&prefix, "Object [global] ");
        object_entries(p, val, &e, 0, 0);
        break;
    default:
        if (!cn) buf_puts(&prefix, "[Object: null prototype] ");
        else if (strcmp(cn, "Object")) buf_printf(&prefix, "%s ", cn);
        object_entries(p, val, &e, 0, 0);
        break;
    }
    layout(p, prefix.data ? prefix.data : "", open, close, &e, out);
done:
    entries_free(&e);
    buf_free(&prefix);
    buf_free(&name);
}

/* Shown instead of a value nested deeper than -d: "[Object]", "[Array]", "[ClassName]". */
static void too_deep(pr_t *p, uint64_t val, const v8_value_t *x, buf_t *out)
{
    buf_t name = {0};
    int null_proto;
    ctor_name(p, val, &name, &null_proto);
    buf_printf(out, "[%s]", x->kind == V8_V_ARRAY ? "Array" : name.len ? name.data : "Object");
    buf_free(&name);
}

static void render(pr_t *p, uint64_t val, buf_t *out)
{
    v8_t *v = p->v;
    v8_value_t x;
    if (spend(p) != 0) {
        buf_puts(out, p->json ? "null" : "...");
        return;
    }
    if (v8_value(v, val, &x) != 0) {
        if (!p->fail) p->fail = "a value";
        if (p->json) buf_puts(out, "null");
        else buf_printf(out, "<unreadable 0x%llx>", (unsigned long long)val);
        return;
    }
    size_t mark = out->len;
    switch (x.kind) {
    case V8_V_NUMBER: render_number(p, x.number, out); break;
    case V8_V_STRING: put_string(p, val, out); break;
    case V8_V_BOOLEAN: buf_puts(out, x.boolean ? "true" : "false"); break;
    case V8_V_NULL: buf_puts(out, "null"); break;
    case V8_V_UNDEFINED: buf_puts(out, p->json ? "null" : "undefined"); break;
    case V8_V_HOLE: buf_puts(out, p->json ? "null" : "<hole>"); break;
    case V8_V_BIGINT:
        if (p->json) { p->bigint_json = 1; buf_puts(out, "null"); break; }
        if (v8_bigint_text(v, val, out) != 0) buf_puts(out, "<unreadable BigInt>");
        else buf_putc(out, 'n');
        break;
    case V8_V_SYMBOL:
        if (p->json) buf_puts(out, "null");
        else v8_symbol_text(v, val, out);
        break;
    case V8_V_FUNCTION:
        if (p->json) buf_puts(out, "null");
        else put_function(p, val, &x, out);
        break;
    case V8_V_DATE:
        if (p->json) {
            if (isnan(x.number)) buf_puts(out, "null");
            else { buf_putc(out, '"'); put_date(x.number, out); buf_putc(out, '"'); }
        } else {
            put_date(x.number, out);
        }
        break;
    case V8_V_REGEXP:
        if (p->json) buf_puts(out, "{}");
        else put_regexp(p, &x, out);
        break;
    case V8_V_INTERNAL: {
        buf_t d = {0};
        v8_describe(v, val, &d);
        if (p->json) buf_puts(out, "null");
        else buf_append(out, d.data, d.len);
        buf_free(&d);
        break;
    }
    default: {
        if (x.kind == V8_V_GLOBAL && x.a) val = x.a;   /* a global proxy: its global object */
        /* a cycle: this object is one of the values being printed around it */
        for (int i = 0; i < p->level; i++)
            if (p->stack[i] == val) {
                if (p->json) { p->circular_json = 1; buf_puts(out, "null"); return; }
                if (!p->refs[i]) p->refs[i] = ++p->nrefs;
                buf_printf(out, "[Circular *%d]", p->refs[i]);
                return;
            }
        if (p->level >= HARD_DEPTH || (!p->json && p->level > p->depth)) {
            if (p->json) { if (!p->fail) p->fail = "a value nested deeper than any real one"; buf_puts(out, "null"); return; }
            too_deep(p, val, &x, out);
            return;
        }
        p->stack[p->level] = val;
        p->refs[p->level] = 0;
        p->level++;
        buf_t inner = {0};
        render_composite(p, val, &x, &inner);
        p->level--;
        if (p->refs[p->level]) buf_printf(out, "<ref *%d> ", p->refs[p->level]);
        buf_append(out, inner.data, inner.len);
        buf_free(&inner);
        return;
    }
    }
    if (p->addresses && !p->json && !v8_is_smi(v, val)) {
        (void)mark;
        buf_printf(out, " @0x%llx", (unsigned long long)val);
    }
}

/* ---- paths: globalThis.app.routes[3]["x"], require.cache["/abs.js"], module.exports ---- */
static int lookup(v8_t *v, uint64_t obj, const char *key, uint64_t *out)
{
    int dbl;
    double d;
    v8_value_t x;
    if (v8_value(v, obj, &x) == 0 && x.kind == V8_V_GLOBAL && x.a) obj = x.a;
    if (!strcmp(key, "length") && x.kind == V8_V_ARRAY) {
        *out = 0;
        return (int)x.length + 2;   /* the caller turns this back into a number */
    }
    uint64_t o = obj;
    for (int hop = 0; hop < 64; hop++) {
        int rc = v8_own_property(v, o, key, out, &dbl, &d);
        if (rc == 0) return dbl ? -3 : 0;
        if (rc == -2) return -2;
        if (v8_prototype(v, o, &o) != 0) break;
    }
    return -1;
}

/* A global defined by a getter (Node's `process`): the object of that name the getter's closure
 * holds (its constructor has the property's name). */
typedef struct {
    v8_t *v;
    const char *name;
    uint64_t found;
} held_t;

static int held_cb(void *ctx, uint64_t slot, uint64_t value)
{
    held_t *h = ctx;
    buf_t n = {0};
    (void)slot;
    v8_function_t fi;
    if (v8_is_smi(h->v, value)) return 0;
    if (v8_function_info(h->v, value, &fi) == 0) {   /* a function of that name */
        if (!strcmp(fi.name, h->name)) h->found = value;
        v8_function_free(&fi);
    } else if (v8_constructor_name(h->v, value, &n) == 0 && !strcmp(n.data, h->name)) {   /* an instance */
        h->found = value;
    }
    buf_free(&n);
    return h->found != 0;
}

static int held_value(v8_t *v, uint64_t obj, const char *name, const char *held, uint64_t *out)
{
    uint64_t pair, getter, o = obj;
    int rc = lookup(v, obj, name, &pair);
    if (rc == 0) {
        *out = pair;
        return 0;
    }
    if (rc != -2) return -1;
    for (int hop = 0; hop < 64; hop++) {   /* the object on the chain that has the accessor */
        rc = v8_own_property(v, o, name, &pair, &(int){0}, &(double){0});
        if (rc != -1 || v8_prototype(v, o, &o) != 0) break;
    }
    if (rc != -2 || v8_accessor_getter(v, pair, &getter) != 0) return -1;
    held_t h = {v, held, 0};
    v8_context_slots(v, getter, held_cb, &h);
    *out = h.found;
    return h.found ? 0 : -1;
}

static int global_value(v8_t *v, uint64_t global, const char *name, uint64_t *out)
{
    return held_value(v, global, name, name, out);
}

/* The main CommonJS module: process.mainModule, else the receiver of the outermost
 * Module.prototype._compile frame on the main thread (a Module: it has exports, filename, loaded). */
static int main_module(v8_t *v, uint64_t global, uint64_t *out)
{
    uint64_t process, x;
    if (global_value(v, global, "process", &process) == 0 && lookup(v, process, "mainModule", out) == 0 && v8_oddball_kind(v, *out) < 0)
        return 0;
    v8_frame_t frames[256];
    size_t n = v8_stack(v, 0, frames, sizeof frames / sizeof frames[0]);
    for (size_t i = n; i-- > 0;) {
        uint64_t r;
        if (frames[i].kind != V8_FRAME_JS || v8_frame_arg(v, &frames[i], -1, &r) != 0 || v8_is_smi(v, r)) continue;
        if (lookup(v, r, "exports", &x) == 0 && lookup(v, r, "filename", &x) == 0 && lookup(v, r, "loaded", &x) == 0) {
            *out = r;
            return 0;
        }
    }
    return -1;
}

/* Reads the next path step (".name", "[3]", "['key']") into key; returns the rest or NULL. */
static const char *next_step(const char *s, buf_t *key, const char **err)
{
    buf_clear(key);
    if (*s == '.') {
        s++;
        const char *b = s;
        while (*s && *s != '.' && *s != '[') s++;
        if (s == b) { *err = "a name after '.'"; return NULL; }
        buf_append(key, b, (size_t)(s - b));
        return s;
    }
    if (*s == '[') {
        s++;
        if (*s == '"' || *s == '\'') {
            char q = *s++;
            while (*s && *s != q) {
                if (*s == '\\' && s[1]) s++;
                buf_putc(key, *s++);
            }
            if (*s != q || s[1] != ']') { *err = "a closing quote and ']'"; return NULL; }
            return s + 2;
        }
        const char *b = s;
        while (isdigit((unsigned char)*s)) s++;
        if (s == b || *s != ']') { *err = "an index or a quoted key inside [...]"; return NULL; }
        buf_append(key, b, (size_t)(s - b));
        return s + 1;
    }
    *err = "'.' or '['";
    return NULL;
}

int core_resolve(core_session_t *s, const char *cmd, const char *expr, uint64_t *out)
{
    v8_t *v = s->v;
    const char *name = target_name(s->t);
    const char *p = expr;
    while (*p && *p != '.' && *p != '[') p++;
    uint64_t global = 0, cur;
    /* a path may start at an address (the `this` or an argument `stack -v` showed): 0x1234.a.b[3] */
    if (isdigit((unsigned char)expr[0])) {
        if (!*p) return core_parse_addr(cmd, expr, out) == 0 ? 0 : EXIT_USAGE;
        char head[32];
        if ((size_t)(p - expr) >= sizeof head) return core_parse_addr(cmd, expr, out) == 0 ? 0 : EXIT_USAGE;
        memcpy(head, expr, (size_t)(p - expr));
        head[p - expr] = 0;
        if (core_parse_addr(cmd, head, &cur) != 0) return EXIT_USAGE;
    } else if (v8_global_object(v, &global) != 0) {
        diag_error(name, 0, "%s: no JavaScript frame on the main thread leads to the global object; give an address", cmd);
        return EXIT_FAIL;
    }
    buf_t root = {0}, key = {0}, walked = {0};
    buf_append(&root, expr, (size_t)(p - expr));
    buf_append(&walked, expr, (size_t)(p - expr));
    int rc = EXIT_OK;
    const char *err = NULL;
    if (isdigit((unsigned char)expr[0])) {
        /* cur: the address */
    } else if (!strcmp(root.data, "globalThis") || !strcmp(root.data, "global")) {
        cur = global;
    } else if (!strcmp(root.data, "require") || !strcmp(root.data, "module")) {
        /* the main module is process.mainModule; its class, Module, keeps require.cache as _cache */
        uint64_t mod, ctor;
        if (main_module(v, global, &mod) != 0) {
            diag_error(name, 0, "%s: no main CommonJS module (process.mainModule) to find %s from", cmd, root.data);
            rc = EXIT_FAIL;
            goto out;
        }
        cur = mod;
        if (!strcmp(root.data, "require")) {
            if (next_step(p, &key, &err) == NULL || strcmp(key.data, "cache") || held_value(v, mod, "constructor", "Module", &ctor) != 0 ||
                lookup(v, ctor, "_cache", &cur) != 0) {
                diag_error(name, 0, "%s: of require, only require.cache (the main context's module cache) can be read", cmd);
                rc = EXIT_FAIL;
                goto out;
            }
            p = next_step(p, &key, &err);
            buf_puts(&walked, ".cache");
        }
    } else if (global_value(v, global, root.data, &cur) != 0) {
        diag_error(name, 0, "%s: the global object has no property '%s' (paths start at globalThis, a global, require.cache or module)",
                   cmd, root.data);
        rc = EXIT_FAIL;
        goto out;
    }
    while (*p) {
        p = next_step(p, &key, &err);
        if (!p) {
            char cname[64];
            snprintf(cname, sizeof cname, "core %s", cmd);
            opt_usage_error(&(opt_cmd_t){cname, NULL, NULL, 0, NULL}, "'%s': expected %s after '%s'", expr, err, walked.data);
            rc = EXIT_USAGE;
            goto out;
        }
        uint64_t next;
        int r = lookup(v, cur, key.data, &next);
        if (r == -2 || r == -3 || r > 0) {
            diag_error(name, 0, "%s: %s.%s is %s", cmd, walked.data, key.data,
                       r == -2 ? "an accessor (its getter cannot run in a core)" : "a number, not an object: print the parent");
            rc = EXIT_FAIL;
            goto out;
        }
        if (r != 0) {
            buf_t d = {0};
            v8_describe(v, cur, &d);
            diag_error(name, 0, "%s: %s (%s) has no property '%s'", cmd, walked.data, d.data, key.data);
            buf_free(&d);
            rc = EXIT_FAIL;
            goto out;
        }
        buf_printf(&walked, "[\"%s\"]", key.data);
        cur = next;
    }
    *out = cur;
out:
    buf_free(&root);
    buf_free(&key);
    buf_free(&walked);
    return rc;
}

void core_format_value(v8_t *v, uint64_t value, int json, long depth, long max_values, buf_t *out)
{
    pr_t *p = calloc(1, sizeof *p);
    if (!p) abort();
    *p = (pr_t){.v = v, .json = json, .depth = json ? HARD_DEPTH : depth, .str_len = 4096, .arr_len = 1000,
                .budget = max_values, .max_values = max_values};
    render(p, value, out);
    free(p);
}

/* ---- the commands ---- */
int core_cmd_print(core_session_t *s, int argc, char **argv)
{
    static const char usage[] =
        "usage: nodescope core CORE print [-d DEPTH] [-a] [--json] [--string-length N] [--array-length N] EXPR\n\n"
        "A JavaScript value, as util.inspect shows it (class instances as ClassName { ... }, cycles as\n"
        "[Circular *N]), or with --json as the program's own JSON.stringify would write it. EXPR is an\n"
        "address (0x...) or a path from the global object: globalThis.cache, globalThis.app.routes[3],\n"
        "process.env, require.cache[\"/srv/app/db.js\"].exports.pool, module.exports. Paths start from\n"
        "the global object of the main thread's JavaScript frames.\n";
    long depth = 2, str_len = -2, arr_len = -2;
    int addresses = 0, json = 0;
    const opt_t opts[] = {
        OPT_INT("depth", 'd', "DEPTH", "nesting levels shown (2; --json: all)", &depth),
        OPT_BOOL("addresses", 'a', "the address of every heap value", &addresses),
        OPT_BOOL("json", 0, "JSON, as JSON.stringify writes it", &json),
        OPT_INT("string-length", 0, "N", "characters shown of a string (10000; --json: all)", &str_len),
        OPT_INT("array-length", 0, "N", "elements shown of an array, Map or Set (100; --json: all)", &arr_len),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core print", usage, tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (n == 0) return opt_usage_error(&cmd, "print what? (an address or a path like globalThis.x)");
    if (n > 1) return opt_usage_error(&cmd, "unexpected argument '%s'", argv[2]);
    if (depth < 0 || (str_len < 0 && str_len != -2) || (arr_len < 0 && arr_len != -2))
        return opt_usage_error(&cmd, "-d, --string-length and --array-length take counts");
    if (s->check_only) return EXIT_OK;
    if (core_need_v8(s, argv[0]) != 0) return EXIT_FAIL;
    uint64_t val;
    int rc = core_resolve(s, argv[0], argv[1], &val);
    if (rc != EXIT_OK) return rc;
    pr_t *p = calloc(1, sizeof *p);
    if (!p) abort();
    p->v = s->v;
    p->json = json;
    p->addresses = addresses;
    p->depth = json ? HARD_DEPTH : depth;
    p->str_len = str_len != -2 ? str_len : json ? -1 : 10000;
    p->arr_len = arr_len != -2 ? arr_len : json ? (16 << 20) : 100;
    p->budget = p->max_values = CORE_PRINT_MAX_VALUES;
    buf_t out = {0};
    render(p, val, &out);
    const char *tn = target_name(s->t);
    if (json && p->circular_json) {
        diag_error(tn, 0, "print --json: the value is circular (JSON.stringify throws 'Converting circular structure to JSON')");
        rc = EXIT_FAIL;
    } else if (json && p->bigint_json) {
        diag_error(tn, 0, "print --json: the value holds a BigInt (JSON.stringify throws 'Do not know how to serialize a BigInt')");
        rc = EXIT_FAIL;
    } else {
        v8_value_t x;
        if (json && v8_value(s->v, val, &x) == 0 &&
            (x.kind == V8_V_UNDEFINED || x.kind == V8_V_FUNCTION || x.kind == V8_V_SYMBOL))
            diag_warn(tn, 0, "print --json: JSON.stringify gives undefined for this value; printed as null");
        fwrite(out.data, 1, out.len, stdout);
        putchar('\n');
        if (p->fail) {
            diag_error(tn, 0, "print: %s in %s could not be read (corrupt heap or memory not in the core)", p->fail, argv[1]);
            rc = EXIT_FAIL;
        }
    }
    buf_free(&out);
    free(p);
    return rc;
}

int core_cmd_constructor(core_session_t *s, int argc, char **argv)
{
    static const char usage[] = "usage: nodescope core CORE constructor [-v] [--json] ADDR|EXPR\n\n"
                                "The name of an object's constructor as V8 finds it (right for ES6 classes and derived\n"
                                "classes); -v also the constructor function's address and where it is defined.\n";
    int verbose = 0, json = 0;
    const opt_t opts[] = {
        OPT_BOOL("verbose", 'v', "the constructor function and where it is defined", &verbose),
        OPT_BOOL("json", 0, "a JSON document (with the function and where it is defined)", &json),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core constructor", usage, tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (n != 1) return opt_usage_error(&cmd, n ? "one address or path" : "which object?");
    if (s->check_only) return EXIT_OK;
    if (core_need_v8(s, argv[0]) != 0) return EXIT_FAIL;
    uint64_t val, ctor;
    int rc = core_resolve(s, argv[0], argv[1], &val);
    if (rc != EXIT_OK) return rc;
    buf_t name = {0};
    if (v8_is_smi(s->v, val) || v8_constructor_name(s->v, val, &name) != 0) {
        diag_error(target_name(s->t), 0, "constructor: %s is not an object with a constructor", argv[1]);
        buf_free(&name);
        return EXIT_FAIL;
    }
    buf_t j = {0};
    buf_printf(&j, "{\"object\":\"0x%llx\",\"constructor\":", (unsigned long long)val);
    json_put_string(&j, name.data, name.len);
    if (!json) printf("%s\n", name.data);
    if ((verbose || json) && lookup(s->v, val, "constructor", &ctor) == 0) {
        v8_function_t fi;
        if (v8_function_info(s->v, ctor, &fi) == 0) {
            if (!json) {
                printf("function 0x%llx", (unsigned long long)ctor);
                if (fi.script_name) printf(" at %s:%d:%d", fi.script_name, fi.def_line, fi.def_col);
                printf("\n");
            }
            buf_printf(&j, ",\"function\":\"0x%llx\"", (unsigned long long)ctor);
            if (fi.script_name) {
                buf_puts(&j, ",\"url\":");
                json_put_string(&j, fi.script_name, strlen(fi.script_name));
                buf_printf(&j, ",\"line\":%d,\"column\":%d", fi.def_line, fi.def_col);
            }
            v8_function_free(&fi);
        }
    }
    buf_puts(&j, "}\n");
    if (json) fwrite(j.data, 1, j.len, stdout);
    buf_free(&j);
    buf_free(&name);
    return EXIT_OK;
}

int core_cmd_buffer(core_session_t *s, int argc, char **argv)
{
    static const char usage[] = "usage: nodescope core CORE buffer [--hex | --raw -o FILE | --json] ADDR|EXPR\n\n"
                                "The bytes behind a Buffer, TypedArray, DataView or ArrayBuffer (on the V8 heap or in an\n"
                                "off-heap backing store): a hex dump (--hex, the default), the raw bytes to FILE, or a\n"
                                "JSON document with the length, the backing store's address and the bytes in hex.\n";
    int hex = 0, raw = 0, json = 0;
    const char *file = NULL;
    const opt_t opts[] = {
        OPT_BOOL("hex", 0, "a hex dump, 16 bytes a line (the default)", &hex),
        OPT_BOOL("raw", 0, "the bytes themselves, to -o FILE", &raw),
        OPT_STR("output", 'o', "FILE", "where --raw writes", &file),
        OPT_BOOL("json", 0, "a JSON document: {object, length, data, hex}", &json),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core buffer", usage, tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (n != 1) return opt_usage_error(&cmd, n ? "one address or path" : "which buffer?");
    if (hex + raw + json > 1) return opt_usage_error(&cmd, "one of --hex, --raw and --json");
    if (raw && !file) return opt_usage_error(&cmd, "--raw needs -o FILE");
    if (s->check_only) return EXIT_OK;
    if (core_need_v8(s, argv[0]) != 0) return EXIT_FAIL;
    uint64_t val;
    int rc = core_resolve(s, argv[0], argv[1], &val);
    if (rc != EXIT_OK) return rc;
    v8_value_t x;
    const char *tn = target_name(s->t);
    if (v8_value(s->v, val, &x) != 0 ||
        (x.kind != V8_V_TYPED_ARRAY && x.kind != V8_V_ARRAY_BUFFER && x.kind != V8_V_DATA_VIEW)) {
        diag_error(tn, 0, "buffer: %s is not a Buffer, TypedArray, DataView or ArrayBuffer", argv[1]);
        return EXIT_FAIL;
    }
    if (json)
        printf("{\"object\":\"0x%llx\",\"length\":%lld,\"data\":\"0x%llx\",\"hex\":\"", (unsigned long long)val,
               (long long)x.length, (unsigned long long)x.data);
    FILE *f = raw ? fopen(file, "wb") : stdout;
    if (!f) {
        diag_error(file, 0, "cannot write: %s", strerror(errno));
        return EXIT_FAIL;
    }
    unsigned char chunk[4096];
    for (int64_t at = 0; at < x.length; at += (int64_t)sizeof chunk) {
        size_t take = (size_t)(x.length - at < (int64_t)sizeof chunk ? x.length - at : (int64_t)sizeof chunk);
        if (!x.data || v8_read_memory(s->v, x.data + (uint64_t)at, chunk, take) != 0) {
            diag_error(tn, 0, "buffer: bytes %lld..%lld at 0x%llx are not in the target", (long long)at,
                       (long long)(at + (int64_t)take), (unsigned long long)(x.data + (uint64_t)at));
            rc = EXIT_FAIL;
            break;
        }
        if (raw) {
            fwrite(chunk, 1, take, f);
            continue;
        }
        if (json) {
            for (size_t i = 0; i < take; i++) printf("%02x", chunk[i]);
            continue;
        }
        for (size_t i = 0; i < take; i += 16) {
            printf("%08llx ", (unsigned long long)(at + (int64_t)i));
            for (size_t k = 0; k < 16; k++) {
                if (i + k < take) printf(" %02x", chunk[i + k]);
                else printf("   ");
            }
            printf("  |");
            for (size_t k = 0; k < 16 && i + k < take; k++) putchar(chunk[i + k] >= 0x20 && chunk[i + k] < 0x7f ? chunk[i + k] : '.');
            printf("|\n");
        }
    }
    if (json) printf("\",\"complete\":%s}\n", rc == EXIT_OK ? "true" : "false");
    if (raw && fclose(f) != 0) {
        diag_error(file, 0, "write failed: %s", strerror(errno));
        rc = EXIT_FAIL;
    }
    return rc;
}

typedef struct {
    v8_t *v;
    int n;
    buf_t *j;   /* --json: the variables go here as {name, value, text} */
} closure_t;

static int closure_local(void *ctx, const char *name, int64_t slot, uint64_t value)
{
    closure_t *c = ctx;
    buf_t b = {0};
    (void)slot;
    core_format_value(c->v, value, 0, 0, CORE_PRINT_MAX_VALUES, &b);
    if (b.data && strchr(b.data, '\n')) {   /* too big for a line: its name and address, for print */
        buf_clear(&b);
        core_format_value(c->v, value, 0, -1, CORE_PRINT_MAX_VALUES, &b);
        if (!c->j) buf_printf(&b, " @0x%llx", (unsigned long long)value);
    }
    if (c->j) {
        buf_puts(c->j, c->n ? ",{\"name\":" : "{\"name\":");
        json_put_string(c->j, name, strlen(name));
        buf_printf(c->j, ",\"value\":\"0x%llx\",\"text\":", (unsigned long long)value);
        json_put_string(c->j, b.data ? b.data : "", b.len);
        buf_putc(c->j, '}');
    } else printf("    %s = %s\n", name, b.data ? b.data : "");
    buf_free(&b);
    c->n++;
    return 0;
}

typedef struct {
    v8_heap_t *h;
    uint64_t shared, found;
} closure_find_t;

static int closure_of(void *ctx, const v8_heap_object_t *o)
{
    closure_find_t *f = ctx;
    uint64_t shared;
    if (v8_heap_function_shared(f->h, o, &shared) != 0 || shared != f->shared) return 0;
    f->found = o->addr;
    return 1;
}

/* A closure (JSFunction) of the SharedFunctionInfo shared, by a walk of the heap; 0 when none. */
static uint64_t first_closure(v8_t *v, uint64_t shared)
{
    closure_find_t f = {v8_heap_open(v), shared, 0};
    if (v8_heap_found(f.h)) v8_heap_walk(f.h, closure_of, &f, NULL);
    v8_heap_close(f.h);
    return f.found;
}

int core_cmd_closure(core_session_t *s, int argc, char **argv)
{
    static const char usage[] = "usage: nodescope core CORE closure [--json] ADDR|EXPR\n\n"
                                "The variables a closure captures: its context chain, innermost first, each context's\n"
                                "variables named by its ScopeInfo, with their values (to the module's scope). A\n"
                                "SharedFunctionInfo (`functions -v`) stands for one of its closures.\n";
    int json = 0;
    const opt_t opts[] = {OPT_BOOL("json", 0, "a JSON document: {function, contexts: [{address, variables}]}", &json), OPT_HELP,
                          OPT_END};
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core closure", usage, tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (n != 1) return opt_usage_error(&cmd, n ? "one address or path" : "which function?");
    if (s->check_only) return EXIT_OK;
    if (core_need_v8(s, argv[0]) != 0) return EXIT_FAIL;
    uint64_t fn, ctx;
    int rc = core_resolve(s, argv[0], argv[1], &fn);
    if (rc != EXIT_OK) return rc;
    v8_function_t sfi;
    if (v8_function_context(s->v, fn, &ctx) != 0 && v8_shared_info(s->v, fn, &sfi) == 0) {
        /* a SharedFunctionInfo (what `functions -v` and stacks show): one of its closures */
        v8_function_free(&sfi);
        uint64_t closure = first_closure(s->v, fn);
        if (!closure) {
            diag_error(target_name(s->t), 0, "closure: %s is a SharedFunctionInfo without a closure on the heap", argv[1]);
            return EXIT_FAIL;
        }
        if (!json) printf("closure 0x%llx of SharedFunctionInfo 0x%llx\n", (unsigned long long)closure, (unsigned long long)fn);
        fn = closure;
    }
    if (v8_function_context(s->v, fn, &ctx) != 0) {
        diag_error(target_name(s->t), 0, "closure: %s is not a function with a readable context", argv[1]);
        return EXIT_FAIL;
    }
    buf_t j = {0};
    closure_t c = {s->v, 0, json ? &j : NULL};
    buf_printf(&j, "{\"function\":\"0x%llx\",\"contexts\":[", (unsigned long long)fn);
    for (int depth = 0; depth < 64; depth++) {
        uint64_t prev, native;
        if (v8_native_context(s->v, ctx, &native) == 0 && native == ctx) break;   /* the globals: print globalThis */
        if (json) buf_printf(&j, "%s{\"address\":\"0x%llx\",\"variables\":[", depth ? "," : "", (unsigned long long)ctx);
        else printf("context 0x%llx%s\n", (unsigned long long)ctx, depth ? "" : " (the function's own)");
        c.n = 0;
        int bad = v8_context_locals(s->v, ctx, closure_local, &c) != 0;
        if (json) buf_printf(&j, "],\"readable\":%s}", bad ? "false" : "true");
        else if (bad) printf("    <unreadable scope>\n");
        if (v8_context_previous(s->v, ctx, &prev) != 0) break;
        ctx = prev;
    }
    buf_puts(&j, "]}\n");
    if (json) fwrite(j.data, 1, j.len, stdout);
    buf_free(&j);
    return EXIT_OK;
}

/* source: the lines of a function from the line its definition starts on, until its braces
 * balance (strings and comments are not parsed: a brace in them can end it early or late) or
 * -n lines. */
typedef struct {
    int64_t at, start;
    buf_t line;
    int depth, opened, done, line_no;
    long shown, max;
    uint32_t hi;
    buf_t *j;   /* --json: lines go here as {line, text} */
} src_t;

static void src_emit(src_t *s)
{
    const char *text = s->line.data ? s->line.data : "";
    if (!s->j) {
        printf("%6d  %s\n", s->line_no, text);
        return;
    }
    buf_printf(s->j, "%s{\"line\":%d,\"text\":", s->shown ? "," : "", s->line_no);
    json_put_string(s->j, text, s->line.len);
    buf_putc(s->j, '}');
}

static void src_unit(void *ctx, uint32_t u)
{
    src_t *s = ctx;
    int64_t at = s->at++;
    if (s->done) return;
    if (s->hi) {
        uint32_t hi = s->hi;
        s->hi = 0;
        if (u >= 0xDC00 && u <= 0xDFFF) { buf_put_utf8(&s->line, 0x10000 + ((hi - 0xD800) << 10) + (u - 0xDC00)); return; }
        buf_put_utf8(&s->line, 0xFFFD);
    }
    if (u == '\n') {
        if (at >= s->start) {
            src_emit(s);
            s->line_no++;
            if (++s->shown >= s->max || (s->opened && s->depth <= 0) || !s->opened) s->done = 1;
            if (!s->opened && s->shown < s->max && s->done) s->done = 0;   /* the body starts on a later line */
        }
        buf_clear(&s->line);
        return;
    }
    if (at >= s->start) {
        if (u == '{') { s->depth++; s->opened = 1; }
        else if (u == '}') s->depth--;
    }
    if (u >= 0xD800 && u <= 0xDBFF) s->hi = u;
    else buf_put_utf8(&s->line, u);
}

int core_cmd_source(core_session_t *s, int argc, char **argv)
{
    static const char usage[] = "usage: nodescope core CORE source [-n LINES] [--json] ADDR|EXPR\n\n"
                                "A function's source with line numbers, from its script (also Node's own built-in\n"
                                "modules, whose sources are external strings), to the end of its body or -n lines.\n";
    long max = 200;
    int json = 0;
    const opt_t opts[] = {OPT_INT("lines", 'n', "LINES", "at most this many lines (200)", &max),
                          OPT_BOOL("json", 0, "a JSON document: {function, name, url, line, lines: [{line, text}]}", &json),
                          OPT_HELP, OPT_END};
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core source", usage, tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (n != 1) return opt_usage_error(&cmd, n ? "one address or path" : "which function?");
    if (max <= 0) return opt_usage_error(&cmd, "-n needs a count of lines, not %ld", max);
    if (s->check_only) return EXIT_OK;
    if (core_need_v8(s, argv[0]) != 0) return EXIT_FAIL;
    uint64_t fn, src;
    int rc = core_resolve(s, argv[0], argv[1], &fn);
    if (rc != EXIT_OK) return rc;
    v8_function_t fi;
    const char *tn = target_name(s->t);
    if (v8_function_info(s->v, fn, &fi) != 0 && v8_shared_info(s->v, fn, &fi) != 0) {
        diag_error(tn, 0, "source: %s is not a function", argv[1]);
        return EXIT_FAIL;
    }
    if (!fi.script || fi.start_pos < 0 || v8_script_source(s->v, fi.script, &src) != 0) {
        diag_error(tn, 0, "source: %s (%s) has no script source in the target (a builtin or native function)", argv[1],
                   *fi.name ? fi.name : "anonymous");
        v8_function_free(&fi);
        return EXIT_FAIL;
    }
    buf_t j = {0};
    if (json) {
        buf_printf(&j, "{\"function\":\"0x%llx\",\"name\":", (unsigned long long)fn);
        json_put_string(&j, fi.name, strlen(fi.name));
        buf_puts(&j, ",\"url\":");
        json_put_string(&j, fi.script_name ? fi.script_name : "", fi.script_name ? strlen(fi.script_name) : 0);
        buf_printf(&j, ",\"line\":%d,\"lines\":[", fi.def_line);
    } else printf("%s:%d\n", fi.script_name ? fi.script_name : "<script>", fi.def_line);
    src_t st = {0, fi.start_pos, {0}, 0, 0, 0, fi.def_line > 0 ? fi.def_line : 1, 0, max, 0, json ? &j : NULL};
    rc = v8_string_units(s->v, src, src_unit, &st) == 0 ? EXIT_OK : EXIT_FAIL;
    if (!st.done && st.line.len) src_emit(&st);
    buf_free(&st.line);
    if (json) {
        buf_printf(&j, "],\"complete\":%s}\n", rc == EXIT_OK ? "true" : "false");
        fwrite(j.data, 1, j.len, stdout);
        buf_free(&j);
    }
    if (rc != EXIT_OK) diag_error(tn, 0, "source: the script's source string is not wholly readable");
    v8_function_free(&fi);
    return rc;
}
