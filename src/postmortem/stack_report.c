/* The output of `core stack`: a thread's frames as text lines or JSON objects, and its async
 * frames after them (postmortem/stack_report.h). */
#include "postmortem/stack_report.h"
#include "postmortem/async.h"
#include "util/buf.h"
#include "util/demangle.h"
#include <string.h>

#define MAX_PRINTED_ARGS 64

static void print_native(const v8_frame_t *f, const v8_frame_record_t *r, buf_t *b)
{
    if (r->symbol) {
        buf_puts(b, "native: ");
        demangle_append(b, r->symbol);
        buf_printf(b, "+0x%llx (%s)", (unsigned long long)r->symbol_offset, r->symbol_module ? r->symbol_module : "?");
    } else if (r->module) {
        /* a static function of a stripped library: addr2line or gdb resolve this with its debug info */
        buf_printf(b, "native: 0x%llx (%s+0x%llx)", (unsigned long long)f->pc, r->module,
                   (unsigned long long)r->module_offset);
    } else {
        buf_printf(b, "native: 0x%llx (no symbol)", (unsigned long long)f->pc);
    }
}

static void print_position(const v8_frame_t *f, const v8_function_t *fi, buf_t *b)
{
    if (fi->script_name && *fi->script_name) buf_printf(b, " at %s", fi->script_name);
    else if (fi->script) buf_puts(b, " at <anonymous>");
    else buf_puts(b, " (native)");
    if (fi->script && f->line) buf_printf(b, ":%d:%d", f->line, f->col);
    if (fi->eval_origin) buf_printf(b, " (eval at %s)", fi->eval_origin);
}

static void print_js(const pm_stack_print_t *p, const v8_frame_t *f, const v8_frame_t *caller,
                     const v8_frame_record_t *r, buf_t *b)
{
    const v8_function_t *fi = &r->fn;
    if (!r->has_function) {
        buf_printf(b, "js:     <unreadable function 0x%llx>", (unsigned long long)f->function);
        return;
    }
    smap_frame_t m;
    int mapped = pm_map_frame(p->t, p->v, p->maps, f, fi, caller, &m);
    buf_printf(b, "js:     %s%s", f->is_construct ? "new " : "", mapped && m.name ? m.name : r->display_name);
    if (*fi->name && fi->inferred && strcmp(fi->inferred, fi->name)) buf_printf(b, " (as %s)", fi->inferred);
    if (mapped) {
        buf_printf(b, " at %s:%d:%d (generated:", m.url, m.line, m.column);
        print_position(f, fi, b);
        buf_putc(b, ')');
    } else {
        print_position(f, fi, b);
    }
    buf_printf(b, " [%s%s%s]", v8_tier_name(f->tier), f->inlined ? ", inlined" : "",
               f->position_is_definition ? "; position is the definition" : "");
    if (p->verbose) {
        if (fi->def_line)
            buf_printf(b, "\n          defined at %s:%d:%d", fi->script_name ? fi->script_name : "<anonymous>",
                       fi->def_line, fi->def_col);
        uint64_t val;
        if (f->inlined) buf_puts(b, "\n          (inlined into the next frame's code: no arguments of its own)");
        if (v8_frame_arg(p->v, f, -1, &val) == 0) {
            buf_puts(b, "\n          this: ");
            v8_describe(p->v, val, b);
        }
        int n = v8_frame_argc(f, fi);
        for (int i = 0; i < n && i < MAX_PRINTED_ARGS; i++) {
            buf_printf(b, "\n          arg%d: ", i + 1);
            if (v8_frame_arg(p->v, f, i, &val) == 0) v8_describe(p->v, val, b);
            else buf_puts(b, "<unreadable>");
        }
        if (n > MAX_PRINTED_ARGS) buf_printf(b, "\n          (%d more arguments)", n - MAX_PRINTED_ARGS);
    }
}

static void print_thread_text(FILE *out, const pm_stack_print_t *p, size_t ti, const v8_frame_t *frames, size_t n)
{
    const target_thread_t *th = target_thread(p->t, ti);
    fprintf(out, "thread %zu (tid %d%s%s)\n", ti, th->tid, th->name ? ", " : "", th->name ? th->name : "");
    buf_t b = {0};
    size_t elided = 0;
    for (size_t i = 0; i < n; i++) {
        const v8_frame_t *f = &frames[i];
        v8_frame_record_t r;
        v8_frame_record(p->t, p->v, f, &r);
        if (!p->all && r.internal) {
            elided++;
            v8_frame_record_free(&r);
            continue;
        }
        if (elided) fprintf(out, "        (%zu internal frame%s elided)\n", elided, elided == 1 ? "" : "s");
        elided = 0;
        buf_clear(&b);
        if (p->all) buf_printf(&b, "%016llx %016llx ", (unsigned long long)f->fp, (unsigned long long)f->pc);
        if (f->kind == V8_FRAME_JS) print_js(p, f, pm_js_caller(frames, n, i), &r, &b);
        else if (f->kind == V8_FRAME_API)
            buf_printf(&b, "api:    %s [C++ callback of an API function]", r.has_function ? r.fn.name : "?");
        else if (f->kind == V8_FRAME_V8_INTERNAL) {
            buf_printf(&b, "        <%s>", f->frame_type);
            if (r.symbol) buf_printf(&b, " %s", r.symbol);
        } else print_native(f, &r, &b);
        fputs(b.data, out);
        fputc('\n', out);
        v8_frame_record_free(&r);
    }
    if (elided) fprintf(out, "        (%zu internal frame%s elided)\n", elided, elided == 1 ? "" : "s");
    buf_free(&b);
}

/* A value (this, an argument) as {"address", "value": v8_describe's text}; key NULL in an array. */
static void json_value(const pm_stack_print_t *p, jw_t *w, const char *key, uint64_t val)
{
    buf_t d = {0};
    v8_describe(p->v, val, &d);
    jw_object_begin(w, key);
    jw_address(w, "address", val);
    jw_string_n(w, "value", d.data ? d.data : "", d.len);
    jw_end(w);
    buf_free(&d);
}

static void json_frame(const pm_stack_print_t *p, const v8_frame_t *f, const v8_frame_t *caller, jw_t *w)
{
    v8_frame_record_t r;
    v8_frame_record(p->t, p->v, f, &r);
    jw_object_begin(w, NULL);
    jw_address(w, "pc", f->pc);
    jw_address(w, "fp", f->fp);
    if (f->kind == V8_FRAME_JS) {
        const v8_function_t *fi = r.has_function ? &r.fn : NULL;
        jw_string(w, "kind", "js");
        jw_string(w, "name", fi ? fi->name : NULL);
        if (fi) jw_string(w, "display_name", r.display_name);
        jw_string(w, "inferred", fi ? fi->inferred : NULL);
        jw_string(w, "file", fi ? fi->script_name : NULL);
        jw_string(w, "eval_origin", fi ? fi->eval_origin : NULL);
        jw_int(w, "line", f->line);
        jw_int(w, "column", f->col);
        jw_bool(w, "position_is_definition", f->position_is_definition);
        jw_bool(w, "construct", f->is_construct);
        jw_string(w, "tier", v8_tier_name(f->tier));
        jw_address(w, "function", f->function);
        jw_bool(w, "inlined", f->inlined);
        if (fi && fi->def_line) {
            jw_object_begin(w, "definition");
            jw_int(w, "line", fi->def_line);
            jw_int(w, "column", fi->def_col);
            jw_end(w);
        }
        smap_frame_t m;
        if (fi && pm_map_frame(p->t, p->v, p->maps, f, fi, caller, &m)) {
            jw_object_begin(w, "original");
            jw_string(w, "file", m.url);
            jw_int(w, "line", m.line);
            jw_int(w, "column", m.column);
            jw_string(w, "name", m.name);
            jw_end(w);
        }
        uint64_t val;
        if (v8_frame_arg(p->v, f, -1, &val) == 0) json_value(p, w, "this", val);
        jw_array_begin(w, "arguments");
        int n = v8_frame_argc(f, fi);
        for (int k = 0; k < n && k < MAX_PRINTED_ARGS; k++) {
            if (v8_frame_arg(p->v, f, k, &val) == 0) json_value(p, w, NULL, val);
            else jw_null(w, NULL);
        }
        jw_end(w);
    } else if (f->kind == V8_FRAME_API) {
        jw_string(w, "kind", "api");
        jw_string(w, "name", r.has_function ? r.fn.name : NULL);
        jw_string(w, "type", f->frame_type);
        if (f->function) jw_address(w, "function", f->function);
    } else if (f->kind == V8_FRAME_V8_INTERNAL) {
        jw_string(w, "kind", "internal");
        jw_string(w, "type", f->frame_type);
    } else {
        jw_string(w, "kind", "native");
        if (r.symbol) {
            buf_t d = {0};
            demangle_append(&d, r.symbol);
            jw_string(w, "symbol", d.data);
            jw_uint(w, "offset", r.symbol_offset);
            jw_string(w, "module", r.symbol_module);
            buf_free(&d);
        } else if (r.module) {
            jw_string(w, "module", r.module);
            jw_uint(w, "file_offset", r.module_offset);
        }
    }
    jw_end(w);
    v8_frame_record_free(&r);
}

void pm_stack_thread_text(FILE *out, const pm_stack_print_t *p, size_t ti, const v8_frame_t *frames, size_t n)
{
    print_thread_text(out, p, ti, frames, n);
}

void pm_stack_async_text(FILE *out, v8_t *v, const v8_async_frame_t *async, size_t na)
{
    buf_t t = {0};
    for (size_t i = 0; i < na; i++) {
        buf_clear(&t);
        pm_async_frame_text(v, &async[i], 1, &t);
        fprintf(out, "    at %s\n", t.data);
    }
    buf_free(&t);
}

void pm_stack_thread_json(jw_t *w, const pm_stack_print_t *p, size_t ti, const v8_frame_t *frames, size_t n,
                          const v8_async_frame_t *async, size_t na)
{
    const target_thread_t *th = target_thread(p->t, ti);
    jw_object_begin(w, NULL);
    jw_uint(w, "index", ti);
    jw_int(w, "tid", th->tid);
    jw_string(w, "name", th->name);
    jw_array_begin(w, "frames");
    for (size_t i = 0; i < n; i++) json_frame(p, &frames[i], pm_js_caller(frames, n, i), w);
    jw_end(w);
    if (async) {
        jw_array_begin(w, "async_frames");
        for (size_t i = 0; i < na; i++) {
            jw_object_begin(w, NULL);
            pm_async_frame_json(p->v, &async[i], w);
            buf_t t = {0};
            pm_async_frame_text(p->v, &async[i], 1, &t);
            jw_string_n(w, "text", t.data ? t.data : "", t.len);
            buf_free(&t);
            jw_end(w);
        }
        jw_end(w);
    }
    jw_end(w);
}
