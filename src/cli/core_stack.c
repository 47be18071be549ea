/* nodescope core ... stack: every thread's stack with JavaScript frames named, as text or JSON;
 * the frames, their source-mapped positions and the async frames come from postmortem/stack.c. */
#include "cli/core_cmds.h"
#include "postmortem/async.h"
#include "postmortem/stack.h"
#include "sourcemap/cache.h"
#include "util/buf.h"
#include "util/demangle.h"
#include "util/diag.h"
#include "util/json_writer.h"
#include "util/options.h"
#include <stdlib.h>
#include <string.h>

#define STACK_MAX_FRAMES 16384
#define MAX_PRINTED_ARGS 64

typedef struct {
    int verbose, all, json, async;
    smap_cache_t *maps;   /* NULL with --no-source-maps */
} stack_opts_t;

static int set_map_path(void *target, const char *arg)
{
    smap_cache_t **maps = target;
    if (*maps && smap_cache_add_rewrite(*maps, arg) == 0) return 0;
    return opt_fail("--source-map-path takes OLD=NEW, not '%s'", arg);
}

static void print_native(const v8_frame_t *f, const v8_frame_record_t *r, buf_t *b)
{
    if (r->symbol) {
        buf_puts(b, "native: ");
        demangle_append(b, r->symbol);
        buf_printf(b, "+0x%llx (%s)", (unsigned long long)r->symbol_offset, r->symbol_module ? r->symbol_module : "?");
    } else if (r->module) {
        /* a static function of a stripped library: addr2line or gdb resolve this with its debug info */
        buf_printf(b, "native: 0x%llx (%s+0x%llx)", (unsigned long long)f->pc, r->module, (unsigned long long)r->module_offset);
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

static void print_js(core_session_t *s, const v8_frame_t *f, const v8_frame_t *caller, const v8_frame_record_t *r,
                     const stack_opts_t *o, buf_t *b)
{
    const v8_function_t *fi = &r->fn;
    if (!r->has_function) {
        buf_printf(b, "js:     <unreadable function 0x%llx>", (unsigned long long)f->function);
        return;
    }
    smap_frame_t m;
    int mapped = pm_map_frame(s->t, s->v, o->maps, f, fi, caller, &m);
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
    if (o->verbose) {
        if (fi->def_line) buf_printf(b, "\n          defined at %s:%d:%d", fi->script_name ? fi->script_name : "<anonymous>", fi->def_line, fi->def_col);
        uint64_t val;
        if (f->inlined) buf_puts(b, "\n          (inlined into the next frame's code: no arguments of its own)");
        if (v8_frame_arg(s->v, f, -1, &val) == 0) {
            buf_puts(b, "\n          this: ");
            v8_describe(s->v, val, b);
        }
        int n = v8_frame_argc(f, fi);
        for (int i = 0; i < n && i < MAX_PRINTED_ARGS; i++) {
            buf_printf(b, "\n          arg%d: ", i + 1);
            if (v8_frame_arg(s->v, f, i, &val) == 0) v8_describe(s->v, val, b);
            else buf_puts(b, "<unreadable>");
        }
        if (n > MAX_PRINTED_ARGS) buf_printf(b, "\n          (%d more arguments)", n - MAX_PRINTED_ARGS);
    }
}

static void print_thread_text(core_session_t *s, size_t ti, const v8_frame_t *frames, size_t n, const stack_opts_t *o)
{
    const target_thread_t *th = target_thread(s->t, ti);
    printf("thread %zu (tid %d%s%s)\n", ti, th->tid, th->name ? ", " : "", th->name ? th->name : "");
    buf_t b = {0};
    size_t elided = 0;
    for (size_t i = 0; i < n; i++) {
        const v8_frame_t *f = &frames[i];
        v8_frame_record_t r;
        v8_frame_record(s->t, s->v, f, &r);
        if (!o->all && r.internal) {
            elided++;
            v8_frame_record_free(&r);
            continue;
        }
        if (elided) printf("        (%zu internal frame%s elided)\n", elided, elided == 1 ? "" : "s");
        elided = 0;
        buf_clear(&b);
        if (o->all) buf_printf(&b, "%016llx %016llx ", (unsigned long long)f->fp, (unsigned long long)f->pc);
        if (f->kind == V8_FRAME_JS) print_js(s, f, pm_js_caller(frames, n, i), &r, o, &b);
        else if (f->kind == V8_FRAME_API)
            buf_printf(&b, "api:    %s [C++ callback of an API function]", r.has_function ? r.fn.name : "?");
        else if (f->kind == V8_FRAME_V8_INTERNAL) {
            buf_printf(&b, "        <%s>", f->frame_type);
            if (r.symbol) buf_printf(&b, " %s", r.symbol);
        }
        else print_native(f, &r, &b);
        puts(b.data);
        v8_frame_record_free(&r);
    }
    if (elided) printf("        (%zu internal frame%s elided)\n", elided, elided == 1 ? "" : "s");
    buf_free(&b);
}

/* A value (this, an argument) as {"address", "value": v8_describe's text}; key NULL in an array. */
static void json_value(core_session_t *s, jw_t *w, const char *key, uint64_t val)
{
    buf_t d = {0};
    v8_describe(s->v, val, &d);
    jw_object_begin(w, key);
    jw_address(w, "address", val);
    jw_string_n(w, "value", d.data ? d.data : "", d.len);
    jw_end(w);
    buf_free(&d);
}

static void json_frame(core_session_t *s, const v8_frame_t *f, const v8_frame_t *caller, const stack_opts_t *o, jw_t *w)
{
    v8_frame_record_t r;
    v8_frame_record(s->t, s->v, f, &r);
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
        if (fi && pm_map_frame(s->t, s->v, o->maps, f, fi, caller, &m)) {
            jw_object_begin(w, "original");
            jw_string(w, "file", m.url);
            jw_int(w, "line", m.line);
            jw_int(w, "column", m.column);
            jw_string(w, "name", m.name);
            jw_end(w);
        }
        uint64_t val;
        if (v8_frame_arg(s->v, f, -1, &val) == 0) json_value(s, w, "this", val);
        jw_array_begin(w, "arguments");
        int n = v8_frame_argc(f, fi);
        for (int k = 0; k < n && k < MAX_PRINTED_ARGS; k++) {
            if (v8_frame_arg(s->v, f, k, &val) == 0) json_value(s, w, NULL, val);
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

static int print_stacks(core_session_t *s, const stack_opts_t *op, long thread, int all_threads);

int core_cmd_stack(core_session_t *s, int argc, char **argv)
{
    stack_opts_t o = {0, 0, 0, 0, smap_cache_new()};
    long thread = 0;
    int all_threads = 0, no_maps = 0;
    const opt_t opts[] = {
        OPT_BOOL("verbose", 'v', "arguments and `this` of each JS frame, and where the function is defined", &o.verbose),
        OPT_BOOL("all", 'a', "all frames: V8-internal frames are not folded; frame and code addresses", &o.all),
        OPT_INT("thread", 0, "N", "the thread with this index (default 0, the main thread)", &thread),
        OPT_BOOL("all-threads", 0, "every thread", &all_threads),
        OPT_BOOL("json", 0, "a JSON document (always with arguments and addresses)", &o.json),
        OPT_BOOL("async", 0, "after the frames, the async frames as `new Error().stack` prints them:\n"
                 "who awaits the async function the thread runs (walks the heap)", &o.async),
        OPT_BOOL("no-source-maps", 0, "JS positions and names as V8 ran them, not mapped through the scripts'\n"
                 "source maps (sourceMappingURL, inline or FILE.map)", &no_maps),
        OPT_FN("source-map-path", 0, "OLD=NEW", "scripts recorded under OLD are read from NEW", &o.maps, set_map_path),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core stack",
                           "usage: nodescope core CORE|--pid PID stack [-v] [-a] [--async] [--thread N|--all-threads] [--json]\n\n"
                           "Print a thread's stack: JavaScript frames as `name (as inferred) at file:line:column [tier]`\n"
                           "with the position executing in that frame, native frames as `native: symbol+0xoff (module)`.\n",
                           tables, 0, NULL};
    int nops = opt_parse(&cmd, argc, argv);
    int rc = nops < 0 ? opt_exit_code(nops) : nops > 0 ? opt_usage_error(&cmd, "unexpected argument '%s'", argv[1])
           : thread < 0 ? opt_usage_error(&cmd, "--thread needs a thread index, not %ld", thread) : -1;
    if (no_maps) smap_cache_free(o.maps), o.maps = NULL;
    if (rc < 0) rc = print_stacks(s, &o, thread, all_threads);
    smap_cache_free(o.maps);
    return rc;
}

static int print_stacks(core_session_t *s, const stack_opts_t *op, long thread, int all_threads)
{
    stack_opts_t o = *op;
    if (s->check_only) return EXIT_OK;
    if (!s->v) {
        diag_warn(target_name(s->t), 0, "no V8 metadata: JavaScript frames are shown by address only");
    }
    size_t nthreads = target_thread_count(s->t);
    if (nthreads == 0) {
        diag_error(target_name(s->t), 0, "no thread registers in the target (a core whose notes are missing is "
                   "truncated: gcore writes them last); nothing to unwind");
        return EXIT_FAIL;
    }
    if (!all_threads && (size_t)thread >= nthreads) {
        diag_error(target_name(s->t), 0, "no thread %ld (the target has %zu)", thread, nthreads);
        return EXIT_FAIL;
    }
    v8_frame_t *frames = malloc(STACK_MAX_FRAMES * sizeof *frames);
    if (!frames) abort();
    buf_t j = {0};
    jw_t w;
    jw_init(&w, &j);
    v8_heap_t *heap = NULL;
    v8_async_frame_t async[256];
    if (o.json) {
        jw_object_begin(&w, NULL);
        jw_array_begin(&w, "threads");
    }
    size_t first = all_threads ? 0 : (size_t)thread, last = all_threads ? nthreads : (size_t)thread + 1;
    for (size_t ti = first; ti < last; ti++) {
        size_t n = pm_thread_frames(s->t, s->v, ti, frames, STACK_MAX_FRAMES);
        if (o.json) {
            const target_thread_t *th = target_thread(s->t, ti);
            jw_object_begin(&w, NULL);
            jw_uint(&w, "index", ti);
            jw_int(&w, "tid", th->tid);
            jw_string(&w, "name", th->name);
            jw_array_begin(&w, "frames");
            for (size_t i = 0; i < n; i++) json_frame(s, &frames[i], pm_js_caller(frames, n, i), &o, &w);
            jw_end(&w);
            if (o.async && s->v) {
                size_t na = pm_stack_async(s->v, &heap, frames, n, async, sizeof async / sizeof async[0]);
                jw_array_begin(&w, "async_frames");
                for (size_t i = 0; i < na; i++) {
                    jw_object_begin(&w, NULL);
                    pm_async_frame_json(s->v, &async[i], &w);
                    buf_t t = {0};
                    pm_async_frame_text(s->v, &async[i], 1, &t);
                    jw_string_n(&w, "text", t.data ? t.data : "", t.len);
                    buf_free(&t);
                    jw_end(&w);
                }
                jw_end(&w);
            }
            jw_end(&w);
        } else {
            print_thread_text(s, ti, frames, n, &o);
            if (o.async && s->v) {
                size_t na = pm_stack_async(s->v, &heap, frames, n, async, sizeof async / sizeof async[0]);
                buf_t t = {0};
                for (size_t i = 0; i < na; i++) {
                    buf_clear(&t);
                    pm_async_frame_text(s->v, &async[i], 1, &t);
                    printf("    at %s\n", t.data);
                }
                buf_free(&t);
            }
        }
    }
    if (o.json) {
        jw_end(&w);
        core_json_read(s, &w);   /* --pid: how it was read, and how long the process was stopped for it */
        jw_end(&w);
        buf_putc(&j, '\n');
        fwrite(j.data, 1, j.len, stdout);
    }
    buf_free(&j);
    v8_heap_close(heap);
    free(frames);
    return EXIT_OK;
}
