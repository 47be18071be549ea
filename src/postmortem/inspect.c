/* A JavaScript value printed the way util.inspect shows it (or as JSON.stringify would write it):
 * class instances as ClassName { ... }, cycles as [Circular *N], Maps, Sets, typed arrays, Buffers,
 * Dates, RegExps, errors with their stacks. v8/jsvalue.c says what a value is; this file only
 * formats. Every walk is bounded: a depth cap, a budget of values, and cycles detected. */
#include "postmortem/inspect.h"
#include "postmortem/inspect_pieces.h"
#include "util/diag.h"
#include "util/json.h"
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    long left;   /* characters still allowed (-1 unlimited) */
    long more;   /* characters not shown */
    uint32_t hi; /* a pending high surrogate */
} str_sink_t;

/* One code point (or a lone surrogate) escaped as JSON.stringify or util.inspect would. */
static void put_char(str_sink_t *s, uint32_t c, int lone)
{
    buf_t *b = s->out;
    if (lone) {
        buf_printf(b, "\\u%04x", c);
        return;
    } /* well-formed JSON.stringify */
    if (c == (uint32_t)s->quote || c == '\\') {
        buf_putc(b, '\\');
        buf_putc(b, (char)c);
        return;
    }
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
    if (s->left == 0) {
        s->more++;
        return;
    }
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
    if (u >= 0xD800 && u <= 0xDBFF) {
        s->hi = u;
        return;
    }
    put_char(s, u, u >= 0xDC00 && u <= 0xDFFF);
    if (s->left > 0) s->left--;
}

/* util.inspect's quote: ' unless the string has one and no ", then ", else ` when it has neither. */
static char pick_quote(v8_t *v, uint64_t str)
{
    buf_t b = {0};
    int trunc;
    v8_string(v, str, &b, 1 << 16, &trunc);
    int single = b.data && strchr(b.data, '\''), dbl = b.data && strchr(b.data, '"'),
        back = b.data && strchr(b.data, '`');
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
            if (*c == '"' || *c == '\\') {
                buf_putc(out, '\\');
                buf_putc(out, (char)*c);
            } else if (*c < 0x20) buf_printf(out, "\\u%04x", *c);
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
    int array; /* JSON arrays: holes and gaps become null */
    int64_t next, length, shown, limit;
    int64_t gap; /* text: a run of empty items not yet written */
} walk_t;

static void flush_gap(walk_t *w)
{
    if (w->gap > 0 && !w->p->json)
        buf_printf(entry_new(w->e), "<%lld empty item%s>", (long long)w->gap, w->gap == 1 ? "" : "s");
    w->gap = 0;
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
    if (prop->is_double) pm_inspect_number(p, prop->d, b);
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
    else if (prop->is_double) pm_inspect_number(p, prop->d, b);
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
            if (!p->json)
                buf_printf(entry_new(e), "... %lld more item%s", (long long)(length - p->arr_len),
                           length - p->arr_len == 1 ? "" : "s");
        }
    }
    if (!(p->json && array)) v8_object_properties(p->v, obj, property_cb, &w);
}

/* ---- the pieces util.inspect shows: inspect_pieces.c ---- */

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
    if (x->kind == V8_V_GLOBAL && x->a) val = x->a; /* a global proxy's properties are its global object's */
    pm_inspect_ctor_name(p, val, &name, &null_proto);
    if (p->json && x->kind == V8_V_BOXED) { /* new Number(5) is 5 to JSON.stringify */
        v8_value_t y;
        if (v8_value(v, x->a, &y) == 0 &&
            (y.kind == V8_V_NUMBER || y.kind == V8_V_STRING || y.kind == V8_V_BOOLEAN || y.kind == V8_V_BIGINT)) {
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
                if (v8_read_memory(v, x->data + (uint64_t)i, &b, 1) != 0) {
                    if (!p->fail) p->fail = "a buffer's bytes";
                    break;
                }
                buf_printf(d, "%s%u", i ? "," : "", b);
            }
            buf_putc(d, ']');
        } else if (x->kind == V8_V_TYPED_ARRAY) {
            int size;
            const char *kind = pm_inspect_typed_kind(p, val, &size);
            for (int64_t i = 0; i < x->length / size && i < p->arr_len; i++) {
                unsigned char b[8];
                buf_t *d = entry_new(&e);
                buf_printf(d, "\"%lld\":", (long long)i);
                if (v8_read_memory(v, x->data + (uint64_t)(i * size), b, (size_t)size) != 0) {
                    buf_puts(d, "null");
                    continue;
                }
                pm_inspect_typed_element(p, kind, b, d);
            }
        } else if (x->kind != V8_V_MAP && x->kind != V8_V_SET && x->kind != V8_V_WEAKMAP && x->kind != V8_V_WEAKSET &&
                   x->kind != V8_V_PROMISE && x->kind != V8_V_ARRAY_BUFFER && x->kind != V8_V_DATA_VIEW) {
            object_entries(p, val, &e, 0, 0);
        } else {
            object_entries(p, val, &e, 0, 0); /* their own enumerable properties; the contents are not JSON */
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
        if (x->length > p->arr_len)
            buf_printf(entry_new(&e), "... %lld more item%s", (long long)(x->length - p->arr_len),
                       x->length - p->arr_len == 1 ? "" : "s");
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
        pm_inspect_bytes(p, x, BUFFER_PREVIEW, &bytes);
        buf_printf(d, "[Uint8Contents]: <%s>", bytes.len ? bytes.data + 1 : "");
        buf_free(&bytes);
        buf_printf(entry_new(&e), "byteLength: %lld", (long long)x->length);
        break;
    }
    case V8_V_TYPED_ARRAY: {
        if (cn && (!strcmp(cn, "Buffer") || !strcmp(cn, "FastBuffer"))) {
            buf_printf(out, "%s<Buffer", prefix.data ? prefix.data : "");
            pm_inspect_bytes(p, x, BUFFER_PREVIEW, out);
            buf_putc(out, '>');
            goto done;
        }
        int size;
        const char *kind = pm_inspect_typed_kind(p, val, &size);
        int64_t n = x->length / size;
        buf_printf(&prefix, "%s(%lld) ", cn ? cn : kind, (long long)n);
        open = '[', close = ']';
        for (int64_t i = 0; i < n && i < p->arr_len; i++) {
            unsigned char b[8];
            buf_t *d = entry_new(&e);
            if (v8_read_memory(v, x->data + (uint64_t)(i * size), b, (size_t)size) != 0) {
                buf_puts(d, "<unreadable>");
                break;
            }
            pm_inspect_typed_element(p, kind, b, d);
        }
        if (n > p->arr_len)
            buf_printf(entry_new(&e), "... %lld more item%s", (long long)(n - p->arr_len),
                       n - p->arr_len == 1 ? "" : "s");
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
        pm_inspect_error(p, val, &head);
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
        buf_printf(&prefix, "[%s: ",
                   y.kind == V8_V_STRING    ? "String"
                   : y.kind == V8_V_NUMBER  ? "Number"
                   : y.kind == V8_V_BOOLEAN ? "Boolean"
                   : y.kind == V8_V_SYMBOL  ? "Symbol"
                   : y.kind == V8_V_BIGINT  ? "BigInt"
                                            : "Object");
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
    pm_inspect_ctor_name(p, val, &name, &null_proto);
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
    case V8_V_NUMBER: pm_inspect_number(p, x.number, out); break;
    case V8_V_STRING: put_string(p, val, out); break;
    case V8_V_BOOLEAN: buf_puts(out, x.boolean ? "true" : "false"); break;
    case V8_V_NULL: buf_puts(out, "null"); break;
    case V8_V_UNDEFINED: buf_puts(out, p->json ? "null" : "undefined"); break;
    case V8_V_HOLE: buf_puts(out, p->json ? "null" : "<hole>"); break;
    case V8_V_BIGINT:
        if (p->json) {
            p->bigint_json = 1;
            buf_puts(out, "null");
            break;
        }
        if (v8_bigint_text(v, val, out) != 0) buf_puts(out, "<unreadable BigInt>");
        else buf_putc(out, 'n');
        break;
    case V8_V_SYMBOL:
        if (p->json) buf_puts(out, "null");
        else v8_symbol_text(v, val, out);
        break;
    case V8_V_FUNCTION:
        if (p->json) buf_puts(out, "null");
        else pm_inspect_function(p, val, &x, out);
        break;
    case V8_V_DATE:
        if (p->json) {
            if (isnan(x.number)) buf_puts(out, "null");
            else {
                buf_putc(out, '"');
                pm_inspect_date(x.number, out);
                buf_putc(out, '"');
            }
        } else {
            pm_inspect_date(x.number, out);
        }
        break;
    case V8_V_REGEXP:
        if (p->json) buf_puts(out, "{}");
        else pm_inspect_regexp(p, &x, out);
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
        if (x.kind == V8_V_GLOBAL && x.a) val = x.a; /* a global proxy: its global object */
        /* a cycle: this object is one of the values being printed around it */
        for (int i = 0; i < p->level; i++)
            if (p->stack[i] == val) {
                if (p->json) {
                    p->circular_json = 1;
                    buf_puts(out, "null");
                    return;
                }
                if (!p->refs[i]) p->refs[i] = ++p->nrefs;
                buf_printf(out, "[Circular *%d]", p->refs[i]);
                return;
            }
        if (p->level >= HARD_DEPTH || (!p->json && p->level > p->depth)) {
            if (p->json) {
                if (!p->fail) p->fail = "a value nested deeper than any real one";
                buf_puts(out, "null");
                return;
            }
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

/* Besides values, the reads that find them are bounded: a sound object costs a few reads a value
 * (a dictionary's empty slots, a holey array's holes), but a corrupt heap can reach a huge
 * dictionary of nothing a million times over within the values' budget. */
#define READS_PER_VALUE 64
#define MIN_READS 1000000

void pm_inspect(v8_t *v, uint64_t value, const pm_inspect_opts_t *o, buf_t *out, pm_inspect_result_t *r)
{
    pr_t *p = calloc(1, sizeof *p);
    if (!p) abort();
    p->v = v;
    p->json = o->json;
    p->addresses = o->addresses;
    p->depth = o->json ? HARD_DEPTH : o->depth;
    p->str_len = o->str_len;
    p->arr_len = o->arr_len;
    p->budget = p->max_values = o->max_values;
    int64_t reads = READS_PER_VALUE * (int64_t)(o->max_values > 0 ? o->max_values : 1) + MIN_READS;
    v8_limit_reads(v, reads);
    render(p, value, out);
    if (v8_reads_exhausted(v)) {
        diag_warn(target_name(v8_target(v)), 0,
                  "print: stopped after %lld field reads (a heap this tangled is likely corrupt)", (long long)reads);
        p->truncated = 1;
    }
    v8_limit_reads(v, 0);
    if (r) *r = (pm_inspect_result_t){p->circular_json, p->bigint_json, p->truncated, p->fail};
    free(p);
}

void pm_format_value(v8_t *v, uint64_t value, int json, long depth, long max_values, buf_t *out)
{
    pm_inspect_opts_t o = {json, 0, depth, 4096, 1000, max_values};
    pm_inspect(v, value, &o, out, NULL);
}
