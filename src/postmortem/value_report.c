/* The reports of the core commands that show one value (postmortem/value_report.h): `type` (the
 * V8 type of a tagged value), `buffer` (the bytes behind a Buffer or ArrayBuffer: hex dump, raw or
 * JSON), `closure` (the contexts a closure captures, with their variables) and `source` (a
 * function's lines), as text or JSON; the commands parse options and resolve the value. */
#include "postmortem/value_report.h"
#include "postmortem/source.h"
#include "util/diag.h"
#include <string.h>

/* JSON: a text member ("" for none: these documents never say null), and the document out. */
static void text_member(jw_t *w, const char *key, const char *text) { jw_string(w, key, text ? text : ""); }

static void print_json(buf_t *j, FILE *out)
{
    buf_putc(j, '\n');
    fwrite(j->data, 1, j->len, out);
    buf_free(j);
}

int pm_type_write(v8_t *v, uint64_t addr, int json, FILE *out)
{
    buf_t j = {0};
    jw_t w; /* --json: {address, smi | tagged | type, type_name, class, constructor, text} */
    jw_init(&w, &j);
    jw_object_begin(&w, NULL);
    jw_address(&w, "address", addr);
    if (v8_is_smi(v, addr)) {
        if (!json) fprintf(out, "Smi %lld\n", (long long)v8_smi_value(v, addr));
        jw_int(&w, "smi", v8_smi_value(v, addr));
        jw_end(&w);
        json ? print_json(&j, out) : buf_free(&j);
        return 0;
    }
    int type;
    if (!v8_is_heap_object(v, addr)) {
        if (!json) fputs("not a tagged value (a heap object pointer ends in binary 01, a Smi in 0)\n", out);
        jw_bool(&w, "tagged", 0);
        jw_end(&w);
        json ? print_json(&j, out) : buf_free(&j);
        return 0;
    }
    if (v8_instance_type(v, addr, &type) != 0) {
        buf_free(&j);
        return -1;
    }
    const char *tn = v8_type_name(v, type), *cn = v8_class_name(v, type);
    buf_t ctor = {0}, d = {0};
    int has_ctor = v8_constructor_name(v, addr, &ctor) == 0;
    v8_describe(v, addr, &d);
    if (json) {
        jw_int(&w, "type", type);
        text_member(&w, "type_name", tn);
        text_member(&w, "class", cn);
        if (has_ctor) text_member(&w, "constructor", ctor.data);
        text_member(&w, "text", d.data);
        jw_end(&w);
        print_json(&j, out);
    } else {
        fprintf(out, "%s (%s, type %d)", tn ? tn : "unknown type", cn ? cn : "?", type);
        if (has_ctor) fprintf(out, ", constructor %s", ctor.data);
        fprintf(out, ": %s\n", d.data);
        buf_free(&j);
    }
    buf_free(&ctor);
    buf_free(&d);
    return 0;
}

int pm_buffer_write(v8_t *v, const char *tn, uint64_t val, const v8_value_t *x, int mode, FILE *f)
{
    int raw = mode == PM_BUFFER_RAW, json = mode == PM_BUFFER_JSON, rc = 0;
    if (json)
        fprintf(f, "{\"object\":\"0x%llx\",\"length\":%lld,\"data\":\"0x%llx\",\"hex\":\"", (unsigned long long)val,
                (long long)x->length, (unsigned long long)x->data);
    unsigned char chunk[4096];
    for (int64_t at = 0; at < x->length; at += (int64_t)sizeof chunk) {
        size_t take = (size_t)(x->length - at < (int64_t)sizeof chunk ? x->length - at : (int64_t)sizeof chunk);
        if (!x->data || v8_read_memory(v, x->data + (uint64_t)at, chunk, take) != 0) {
            diag_error(tn, 0, "buffer: bytes %lld..%lld at 0x%llx are not in the target", (long long)at,
                       (long long)(at + (int64_t)take), (unsigned long long)(x->data + (uint64_t)at));
            rc = -1;
            break;
        }
        if (raw) {
            fwrite(chunk, 1, take, f);
            continue;
        }
        if (json) {
            for (size_t i = 0; i < take; i++) fprintf(f, "%02x", chunk[i]);
            continue;
        }
        for (size_t i = 0; i < take; i += 16) {
            fprintf(f, "%08llx ", (unsigned long long)(at + (int64_t)i));
            for (size_t k = 0; k < 16; k++) {
                if (i + k < take) fprintf(f, " %02x", chunk[i + k]);
                else fputs("   ", f);
            }
            fputs("  |", f);
            for (size_t k = 0; k < 16 && i + k < take; k++)
                putc(chunk[i + k] >= 0x20 && chunk[i + k] < 0x7f ? chunk[i + k] : '.', f);
            fputs("|\n", f);
        }
    }
    if (json) fprintf(f, "\",\"complete\":%s}\n", rc == 0 ? "true" : "false");
    return rc;
}

typedef struct {
    v8_t *v;
    int n;
    jw_t *j; /* --json: the variables go here as {name, value, text} */
    FILE *out;
} closure_t;

static int closure_local(void *ctx, const char *name, int64_t slot, uint64_t value)
{
    closure_t *c = ctx;
    buf_t b = {0};
    (void)slot;
    pm_value_line(c->v, value, !c->j, &b);
    if (c->j) {
        jw_object_begin(c->j, NULL);
        jw_string(c->j, "name", name);
        jw_address(c->j, "value", value);
        jw_string_n(c->j, "text", b.data ? b.data : "", b.len);
        jw_end(c->j);
    } else fprintf(c->out, "    %s = %s\n", name, b.data ? b.data : "");
    buf_free(&b);
    c->n++;
    return 0;
}

void pm_closure_write(v8_t *v, uint64_t fn, uint64_t ctx, int json, FILE *out)
{
    buf_t j = {0};
    jw_t w; /* --json: {function, contexts: [{address, variables: [{name, value, text}], readable}]} */
    jw_init(&w, &j);
    closure_t c = {v, 0, json ? &w : NULL, out};
    jw_object_begin(&w, NULL);
    jw_address(&w, "function", fn);
    jw_array_begin(&w, "contexts");
    for (int depth = 0; depth < 64; depth++) {
        uint64_t prev, native;
        if (v8_native_context(v, ctx, &native) == 0 && native == ctx) break; /* the globals: print globalThis */
        if (json) {
            jw_object_begin(&w, NULL);
            jw_address(&w, "address", ctx);
            jw_array_begin(&w, "variables");
        } else fprintf(out, "context 0x%llx%s\n", (unsigned long long)ctx, depth ? "" : " (the function's own)");
        c.n = 0;
        int bad = v8_context_locals(v, ctx, closure_local, &c) != 0;
        if (json) {
            jw_end(&w);
            jw_bool(&w, "readable", !bad);
            jw_end(&w);
        } else if (bad) fprintf(out, "    <unreadable scope>\n");
        if (v8_context_previous(v, ctx, &prev) != 0) break;
        ctx = prev;
    }
    jw_end(&w);
    jw_end(&w);
    buf_puts(&j, "\n");
    if (json) fwrite(j.data, 1, j.len, out);
    buf_free(&j);
}

/* source: one line, as text into out or as {line, text} into the array open in j */
typedef struct {
    FILE *out;
    jw_t *j;
} lines_t;

static void print_line(void *ctx, int line_no, const char *text, size_t len)
{
    const lines_t *l = ctx;
    jw_t *j = l->j;
    if (!j) {
        fprintf(l->out, "%6d  %s\n", line_no, text);
        return;
    }
    jw_object_begin(j, NULL);
    jw_int(j, "line", line_no);
    jw_string_n(j, "text", text, len);
    jw_end(j);
}

int pm_source_write(v8_t *v, uint64_t fn, const v8_function_t *fi, uint64_t src, long max, int json, FILE *out)
{
    buf_t j = {0};
    jw_t w; /* --json: {function, name, url, line, lines: [{line, text}], complete} */
    jw_init(&w, &j);
    if (json) {
        jw_object_begin(&w, NULL);
        jw_address(&w, "function", fn);
        jw_string(&w, "name", fi->name);
        jw_string(&w, "url", fi->script_name ? fi->script_name : "");
        jw_int(&w, "line", fi->def_line);
        jw_array_begin(&w, "lines");
    } else fprintf(out, "%s:%d\n", fi->script_name ? fi->script_name : "<script>", fi->def_line);
    lines_t l = {out, json ? &w : NULL};
    int rc = pm_function_lines(v, fi, src, max, print_line, &l);
    if (json) {
        jw_end(&w);
        jw_bool(&w, "complete", rc == 0);
        jw_end(&w);
        buf_puts(&j, "\n");
        fwrite(j.data, 1, j.len, out);
        buf_free(&j);
    }
    return rc;
}
