/* nodescope core ... stack: every thread's stack with JavaScript frames named, as text or JSON. */
#include "cli/core_cmds.h"
#include "util/buf.h"
#include "util/demangle.h"
#include "util/diag.h"
#include "util/json.h"
#include <stdlib.h>
#include <string.h>

#define STACK_MAX_FRAMES 16384
#define MAX_PRINTED_ARGS 64

typedef struct {
    int verbose, all, json;
} stack_opts_t;

static void stack_usage(FILE *f)
{
    fprintf(f, "usage: nodescope core CORE|--pid PID stack [-v] [-a] [--thread N|--all-threads] [--json]\n\n"
               "Print a thread's stack: JavaScript frames as `name (as inferred) at file:line:column [tier]`\n"
               "with the position executing in that frame, native frames as `native: symbol+0xoff (module)`.\n\n"
               "  -v             arguments and `this` of each JS frame, and where the function is defined\n"
               "  -a             all frames: V8-internal frames are not folded; frame and code addresses\n"
               "  --thread N     the thread with this index (default 0, the main thread)\n"
               "  --all-threads  every thread\n"
               "  --json         a JSON document (always with arguments and addresses)\n");
}

/* The function's own `name` data property: a name given at run time, e.g. to a method under a
 * computed key ("[Symbol.iterator]"), which V8 prefers to the static name as well. */
static int runtime_name(core_session_t *s, uint64_t fn, buf_t *b)
{
    uint64_t name;
    int trunc;
    size_t mark = b->len;
    if (fn && v8_object_get(s->v, fn, "name", &name) == 0 && v8_string(s->v, name, b, 256, &trunc) == 0 && b->len > mark)
        return 0;
    b->len = mark;
    if (b->data) b->data[mark] = 0;
    return -1;
}

/* Whether a frame's receiver makes it a method call in V8's stack traces: an object other than
 * the global proxy (which sloppy functions get when called plainly). */
static int is_method_receiver(core_session_t *s, uint64_t receiver, buf_t *type_name)
{
    int type;
    if (!v8_is_heap_object(s->v, receiver) || v8_instance_type(s->v, receiver, &type) != 0) return 0;
    const char *tn = v8_type_name(s->v, type);   /* NULL for types the metadata leaves out (API objects) */
    return !(tn && !strcmp(tn, "JS_GLOBAL_PROXY_TYPE")) && v8_constructor_name(s->v, receiver, type_name) == 0;
}

/* A frame's function as V8's stack traces name it: the name (static, else given at run time),
 * else the inferred name; for an anonymous method the receiver's type and the property that
 * holds the function ("Module._compile"), or "Type.<anonymous>" when no property does. */
static void frame_name(core_session_t *s, const v8_frame_t *f, v8_function_t *fi, buf_t *b)
{
    uint64_t receiver;
    if (*fi->name) buf_puts(b, fi->name);
    else if (runtime_name(s, f->function, b) == 0) return;
    else if (fi->inferred) buf_puts(b, fi->inferred);
    else if (!f->function || v8_frame_arg(s->v, f, -1, &receiver) != 0) buf_puts(b, "(anonymous)");
    else if (v8_method_name(s->v, receiver, f->function, b) == 0) return;
    else {
        buf_t type_name = {0};
        if (is_method_receiver(s, receiver, &type_name)) buf_printf(b, "%s.<anonymous>", type_name.data);
        else buf_puts(b, "(anonymous)");
        buf_free(&type_name);
    }
}

static void print_native(core_session_t *s, const v8_frame_t *f, size_t i, const stack_opts_t *o, buf_t *b)
{
    target_symbol_t sym;
    if (target_symbolize(s->t, i ? f->pc - 1 : f->pc, &sym) == 0 && sym.name) {
        buf_puts(b, "native: ");
        demangle_append(b, sym.name);
        buf_printf(b, "+0x%llx (%s)", (unsigned long long)(f->pc - sym.addr), sym.module ? sym.module : "?");
    } else {
        /* no symbol (a static function of a stripped library): its file and file offset, which
         * addr2line or gdb can resolve with that library's debug info */
        const target_mapping_t *m = target_mapping_at(s->t, f->pc);
        if (m && m->path) {
            const char *base = strrchr(m->path, '/');
            buf_printf(b, "native: 0x%llx (%s+0x%llx)", (unsigned long long)f->pc, base ? base + 1 : m->path,
                       (unsigned long long)(f->pc - m->start + m->file_offset));
        } else {
            buf_printf(b, "native: 0x%llx (no symbol)", (unsigned long long)f->pc);
        }
    }
    (void)o;
}

static void print_position(const v8_frame_t *f, const v8_function_t *fi, buf_t *b)
{
    if (fi->script_name && *fi->script_name) buf_printf(b, " at %s", fi->script_name);
    else if (fi->script) buf_puts(b, " at <anonymous>");
    else buf_puts(b, " (native)");
    if (fi->script && f->line) buf_printf(b, ":%d:%d", f->line, f->col);
    if (fi->eval_origin) buf_printf(b, " (eval at %s)", fi->eval_origin);
}

static void print_js(core_session_t *s, const v8_frame_t *f, const stack_opts_t *o, buf_t *b)
{
    v8_function_t fi;
    if (v8_shared_info(s->v, f->shared, &fi) != 0) {
        buf_printf(b, "js:     <unreadable function 0x%llx>", (unsigned long long)f->function);
        return;
    }
    buf_printf(b, "js:     %s", f->is_construct ? "new " : "");
    frame_name(s, f, &fi, b);
    if (*fi.name && fi.inferred && strcmp(fi.inferred, fi.name)) buf_printf(b, " (as %s)", fi.inferred);
    print_position(f, &fi, b);
    buf_printf(b, " [%s%s%s]", v8_tier_name(f->tier), f->inlined ? ", inlined" : "",
               f->position_is_definition ? "; position is the definition" : "");
    if (o->verbose) {
        if (fi.def_line) buf_printf(b, "\n          defined at %s:%d:%d", fi.script_name ? fi.script_name : "<anonymous>", fi.def_line, fi.def_col);
        uint64_t val;
        if (f->inlined) buf_puts(b, "\n          (inlined into the next frame's code: no arguments of its own)");
        if (v8_frame_arg(s->v, f, -1, &val) == 0) {
            buf_puts(b, "\n          this: ");
            v8_describe(s->v, val, b);
        }
        int n = f->inlined ? 0 : f->argc >= 0 ? f->argc : fi.param_count;
        for (int i = 0; i < n && i < MAX_PRINTED_ARGS; i++) {
            buf_printf(b, "\n          arg%d: ", i + 1);
            if (v8_frame_arg(s->v, f, i, &val) == 0) v8_describe(s->v, val, b);
            else buf_puts(b, "<unreadable>");
        }
        if (n > MAX_PRINTED_ARGS) buf_printf(b, "\n          (%d more arguments)", n - MAX_PRINTED_ARGS);
    }
    v8_function_free(&fi);
}

static int is_internal(core_session_t *s, const v8_frame_t *f, size_t i)
{
    if (f->kind == V8_FRAME_V8_INTERNAL) return 1;
    if (f->kind != V8_FRAME_NATIVE) return 0;
    target_symbol_t sym;
    /* embedded builtins that are not JS frames are V8's plumbing (trampolines, stubs) */
    return target_symbolize(s->t, i ? f->pc - 1 : f->pc, &sym) == 0 && sym.name && !strncmp(sym.name, "Builtins_", 9);
}

static void print_thread_text(core_session_t *s, size_t ti, const v8_frame_t *frames, size_t n, const stack_opts_t *o)
{
    const target_thread_t *th = target_thread(s->t, ti);
    printf("thread %zu (tid %d%s%s)\n", ti, th->tid, th->name ? ", " : "", th->name ? th->name : "");
    buf_t b = {0};
    size_t elided = 0;
    for (size_t i = 0; i < n; i++) {
        const v8_frame_t *f = &frames[i];
        if (!o->all && is_internal(s, f, i)) {
            elided++;
            continue;
        }
        if (elided) printf("        (%zu internal frame%s elided)\n", elided, elided == 1 ? "" : "s");
        elided = 0;
        buf_clear(&b);
        if (o->all) buf_printf(&b, "%016llx %016llx ", (unsigned long long)f->fp, (unsigned long long)f->pc);
        if (f->kind == V8_FRAME_JS) print_js(s, f, o, &b);
        else if (f->kind == V8_FRAME_V8_INTERNAL) {
            target_symbol_t sym;
            buf_printf(&b, "        <%s>", f->frame_type);
            if (target_symbolize(s->t, i ? f->pc - 1 : f->pc, &sym) == 0 && sym.name) buf_printf(&b, " %s", sym.name);
        }
        else print_native(s, f, i, o, &b);
        puts(b.data);
    }
    if (elided) printf("        (%zu internal frame%s elided)\n", elided, elided == 1 ? "" : "s");
    buf_free(&b);
}

static void json_str(buf_t *b, const char *key, const char *val)
{
    buf_printf(b, ",\"%s\":", key);
    if (val) json_put_string(b, val, strlen(val));
    else buf_puts(b, "null");
}

static void json_value(core_session_t *s, buf_t *b, uint64_t val)
{
    buf_t d = {0};
    v8_describe(s->v, val, &d);
    buf_printf(b, "{\"address\":\"0x%llx\",\"value\":", (unsigned long long)val);
    json_put_string(b, d.data ? d.data : "", d.len);
    buf_putc(b, '}');
    buf_free(&d);
}

static void json_frame(core_session_t *s, const v8_frame_t *f, size_t i, buf_t *b)
{
    buf_printf(b, "{\"pc\":\"0x%llx\",\"fp\":\"0x%llx\"", (unsigned long long)f->pc, (unsigned long long)f->fp);
    if (f->kind == V8_FRAME_JS) {
        v8_function_t fi;
        int ok = v8_shared_info(s->v, f->shared, &fi) == 0;
        buf_puts(b, ",\"kind\":\"js\"");
        json_str(b, "name", ok ? fi.name : NULL);
        if (ok) {
            buf_t dn = {0};
            frame_name(s, f, &fi, &dn);
            json_str(b, "display_name", dn.data);
            buf_free(&dn);
        }
        json_str(b, "inferred", ok ? fi.inferred : NULL);
        json_str(b, "file", ok ? fi.script_name : NULL);
        json_str(b, "eval_origin", ok ? fi.eval_origin : NULL);
        buf_printf(b, ",\"line\":%d,\"column\":%d,\"position_is_definition\":%s,\"construct\":%s", f->line, f->col,
                   f->position_is_definition ? "true" : "false", f->is_construct ? "true" : "false");
        json_str(b, "tier", v8_tier_name(f->tier));
        buf_printf(b, ",\"function\":\"0x%llx\",\"inlined\":%s", (unsigned long long)f->function, f->inlined ? "true" : "false");
        if (ok && fi.def_line) buf_printf(b, ",\"definition\":{\"line\":%d,\"column\":%d}", fi.def_line, fi.def_col);
        uint64_t val;
        if (v8_frame_arg(s->v, f, -1, &val) == 0) {
            buf_puts(b, ",\"this\":");
            json_value(s, b, val);
        }
        buf_puts(b, ",\"arguments\":[");
        int n = f->inlined ? 0 : f->argc >= 0 ? f->argc : ok ? fi.param_count : 0;
        for (int k = 0; k < n && k < MAX_PRINTED_ARGS; k++) {
            if (k) buf_putc(b, ',');
            if (v8_frame_arg(s->v, f, k, &val) == 0) json_value(s, b, val);
            else buf_puts(b, "null");
        }
        buf_putc(b, ']');
        if (ok) v8_function_free(&fi);
    } else if (f->kind == V8_FRAME_V8_INTERNAL) {
        buf_puts(b, ",\"kind\":\"internal\"");
        json_str(b, "type", f->frame_type);
    } else {
        target_symbol_t sym;
        buf_puts(b, ",\"kind\":\"native\"");
        if (target_symbolize(s->t, i ? f->pc - 1 : f->pc, &sym) == 0 && sym.name) {
            buf_t d = {0};
            demangle_append(&d, sym.name);
            json_str(b, "symbol", d.data);
            buf_printf(b, ",\"offset\":%llu", (unsigned long long)(f->pc - sym.addr));
            json_str(b, "module", sym.module);
            buf_free(&d);
        }
    }
    buf_putc(b, '}');
}

int core_cmd_stack(core_session_t *s, int argc, char **argv)
{
    stack_opts_t o = {0, 0, 0};
    long thread = 0;
    int all_threads = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) { stack_usage(stdout); return EXIT_OK; }
        else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) o.verbose = 1;
        else if (!strcmp(a, "-a") || !strcmp(a, "--all")) o.all = 1;
        else if (!strcmp(a, "-va") || !strcmp(a, "-av")) o.verbose = o.all = 1;
        else if (!strcmp(a, "--json")) o.json = 1;
        else if (!strcmp(a, "--all-threads")) all_threads = 1;
        else if (!strcmp(a, "--thread") && i + 1 < argc) {
            char *end;
            thread = strtol(argv[++i], &end, 10);
            if (*end || thread < 0) {
                fprintf(stderr, "nodescope: core stack: --thread needs a thread index, not '%s'\n", argv[i]);
                return EXIT_USAGE;
            }
        } else {
            fprintf(stderr, "nodescope: core stack: unknown option '%s'\n", a);
            stack_usage(stderr);
            return EXIT_USAGE;
        }
    }
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
    if (o.json) buf_puts(&j, "{\"threads\":[");
    size_t first = all_threads ? 0 : (size_t)thread, last = all_threads ? nthreads : (size_t)thread + 1;
    for (size_t ti = first; ti < last; ti++) {
        size_t n;
        if (s->v) {
            n = v8_stack(s->v, ti, frames, STACK_MAX_FRAMES);
        } else {
            target_frame_t *nf = malloc(STACK_MAX_FRAMES * sizeof *nf);
            if (!nf) abort();
            n = target_unwind(s->t, ti, nf, STACK_MAX_FRAMES);
            for (size_t i = 0; i < n; i++) frames[i] = (v8_frame_t){.kind = V8_FRAME_NATIVE, .pc = nf[i].pc, .sp = nf[i].sp, .fp = nf[i].fp};
            free(nf);
        }
        if (n == STACK_MAX_FRAMES) diag_warn(target_name(s->t), 0, "thread %zu: stopped after %d frames", ti, STACK_MAX_FRAMES);
        if (o.json) {
            const target_thread_t *th = target_thread(s->t, ti);
            buf_printf(&j, "%s{\"index\":%zu,\"tid\":%d", ti > first ? "," : "", ti, th->tid);
            json_str(&j, "name", th->name);
            buf_puts(&j, ",\"frames\":[");
            for (size_t i = 0; i < n; i++) {
                if (i) buf_putc(&j, ',');
                json_frame(s, &frames[i], i, &j);
            }
            buf_puts(&j, "]}");
        } else {
            print_thread_text(s, ti, frames, n, &o);
        }
    }
    if (o.json) {
        buf_puts(&j, "]}\n");
        fwrite(j.data, 1, j.len, stdout);
    }
    buf_free(&j);
    free(frames);
    return EXIT_OK;
}
