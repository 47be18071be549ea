/* nodescope core ... print|constructor|buffer|closure|source: one JavaScript value, reached by
 * address or by a path (postmortem/resolve.c), printed the way util.inspect shows it or as
 * JSON.stringify would write it (postmortem/inspect.c). */
#include "cli/core_cmds.h"
#include "postmortem/source.h"
#include "postmortem/value_report.h"
#include "util/diag.h"
#include "util/json_writer.h"
#include "util/options.h"
#include "util/output.h"
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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
    int rc = pm_resolve(s->v, argv[0], argv[1], &val);
    if (rc != EXIT_OK) return rc;
    pm_inspect_opts_t o = {json,
                           addresses,
                           depth,
                           str_len != -2 ? str_len
                           : json        ? -1
                                         : 10000,
                           arr_len != -2 ? arr_len
                           : json        ? (16 << 20)
                                         : 100,
                           PM_PRINT_MAX_VALUES};
    pm_inspect_result_t res;
    buf_t out = {0};
    pm_inspect(s->v, val, &o, &out, &res);
    const pm_inspect_result_t *p = &res;
    const char *tn = target_name(s->t);
    if (json && p->circular_json) {
        diag_error(
            tn, 0,
            "print --json: the value is circular (JSON.stringify throws 'Converting circular structure to JSON')");
        rc = EXIT_FAIL;
    } else if (json && p->bigint_json) {
        diag_error(
            tn, 0,
            "print --json: the value holds a BigInt (JSON.stringify throws 'Do not know how to serialize a BigInt')");
        rc = EXIT_FAIL;
    } else {
        v8_value_t x;
        if (json && v8_value(s->v, val, &x) == 0 &&
            (x.kind == V8_V_UNDEFINED || x.kind == V8_V_FUNCTION || x.kind == V8_V_SYMBOL))
            diag_warn(tn, 0, "print --json: JSON.stringify gives undefined for this value; printed as null");
        fwrite(out.data, 1, out.len, stdout);
        putchar('\n');
        if (p->fail) {
            diag_error(tn, 0, "print: %s in %s could not be read (corrupt heap or memory not in the core)", p->fail,
                       argv[1]);
            rc = EXIT_FAIL;
        }
    }
    buf_free(&out);
    return rc;
}

int core_cmd_constructor(core_session_t *s, int argc, char **argv)
{
    static const char usage[] =
        "usage: nodescope core CORE constructor [-v] [--json] ADDR|EXPR\n\n"
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
    int rc = pm_resolve(s->v, argv[0], argv[1], &val);
    if (rc != EXIT_OK) return rc;
    buf_t name = {0};
    if (v8_is_smi(s->v, val) || v8_constructor_name(s->v, val, &name) != 0) {
        diag_error(target_name(s->t), 0, "constructor: %s is not an object with a constructor", argv[1]);
        buf_free(&name);
        return EXIT_FAIL;
    }
    buf_t j = {0};
    jw_t w; /* --json: {object, constructor, function, url, line, column} */
    jw_init(&w, &j);
    jw_object_begin(&w, NULL);
    jw_address(&w, "object", val);
    jw_string_n(&w, "constructor", name.data, name.len);
    if (!json) printf("%s\n", name.data);
    if ((verbose || json) && pm_lookup(s->v, val, "constructor", &ctor) == 0) {
        v8_function_t fi;
        if (v8_function_info(s->v, ctor, &fi) == 0) {
            if (!json) {
                printf("function 0x%llx", (unsigned long long)ctor);
                if (fi.script_name) printf(" at %s:%d:%d", fi.script_name, fi.def_line, fi.def_col);
                printf("\n");
            }
            jw_address(&w, "function", ctor);
            if (fi.script_name) {
                jw_string(&w, "url", fi.script_name);
                jw_int(&w, "line", fi.def_line);
                jw_int(&w, "column", fi.def_col);
            }
            v8_function_free(&fi);
        }
    }
    jw_end(&w);
    buf_puts(&j, "\n");
    if (json) fwrite(j.data, 1, j.len, stdout);
    buf_free(&j);
    buf_free(&name);
    return EXIT_OK;
}

int core_cmd_buffer(core_session_t *s, int argc, char **argv)
{
    static const char usage[] =
        "usage: nodescope core CORE buffer [--hex | --raw -o FILE | --json] ADDR|EXPR\n\n"
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
    int rc = pm_resolve(s->v, argv[0], argv[1], &val);
    if (rc != EXIT_OK) return rc;
    v8_value_t x;
    const char *tn = target_name(s->t);
    if (v8_value(s->v, val, &x) != 0 ||
        (x.kind != V8_V_TYPED_ARRAY && x.kind != V8_V_ARRAY_BUFFER && x.kind != V8_V_DATA_VIEW)) {
        diag_error(tn, 0, "buffer: %s is not a Buffer, TypedArray, DataView or ArrayBuffer", argv[1]);
        return EXIT_FAIL;
    }
    /* --raw: into a temporary file renamed over FILE only when every byte was read (never a
       truncated FILE, never the core itself) */
    output_t out = {0};
    char *core_path[1] = {(char *)tn};
    if (raw && output_open(&out, file, core_path, s->live_mode ? 0 : 1) != 0) return EXIT_FAIL;
    FILE *f = raw ? out.f : stdout;
    if (pm_buffer_write(s->v, tn, val, &x, raw ? PM_BUFFER_RAW : json ? PM_BUFFER_JSON : PM_BUFFER_HEX, f) != 0)
        rc = EXIT_FAIL;
    if (raw && rc != EXIT_OK) output_abort(&out);
    else if (raw && output_commit(&out) != 0) rc = EXIT_FAIL;
    return rc;
}

int core_cmd_closure(core_session_t *s, int argc, char **argv)
{
    static const char usage[] = "usage: nodescope core CORE closure [--json] ADDR|EXPR\n\n"
                                "The variables a closure captures: its context chain, innermost first, each context's\n"
                                "variables named by its ScopeInfo, with their values (to the module's scope). A\n"
                                "SharedFunctionInfo (`functions -v`) stands for one of its closures.\n";
    int json = 0;
    const opt_t opts[] = {OPT_BOOL("json", 0, "a JSON document: {function, contexts: [{address, variables}]}", &json),
                          OPT_HELP, OPT_END};
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core closure", usage, tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (n != 1) return opt_usage_error(&cmd, n ? "one address or path" : "which function?");
    if (s->check_only) return EXIT_OK;
    if (core_need_v8(s, argv[0]) != 0) return EXIT_FAIL;
    uint64_t fn, ctx, closure;
    int rc = pm_resolve(s->v, argv[0], argv[1], &fn);
    if (rc != EXIT_OK) return rc;
    int was_shared;
    rc = pm_closure_of(s->v, fn, &closure, &ctx, &was_shared);
    if (rc == -1) {
        diag_error(target_name(s->t), 0, "closure: %s is a SharedFunctionInfo without a closure on the heap", argv[1]);
        return EXIT_FAIL;
    }
    if (was_shared && !json)
        printf("closure 0x%llx of SharedFunctionInfo 0x%llx\n", (unsigned long long)closure, (unsigned long long)fn);
    fn = closure;
    if (rc != 0) {
        diag_error(target_name(s->t), 0, "closure: %s is not a function with a readable context", argv[1]);
        return EXIT_FAIL;
    }
    pm_closure_write(s->v, fn, ctx, json, stdout);
    return EXIT_OK;
}

int core_cmd_source(core_session_t *s, int argc, char **argv)
{
    static const char usage[] = "usage: nodescope core CORE source [-n LINES] [--json] ADDR|EXPR\n\n"
                                "A function's source with line numbers, from its script (also Node's own built-in\n"
                                "modules, whose sources are external strings), to the end of its body or -n lines.\n";
    long max = 200;
    int json = 0;
    const opt_t opts[] = {
        OPT_INT("lines", 'n', "LINES", "at most this many lines (200)", &max),
        OPT_BOOL("json", 0, "a JSON document: {function, name, url, line, lines: [{line, text}]}", &json), OPT_HELP,
        OPT_END};
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core source", usage, tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (n != 1) return opt_usage_error(&cmd, n ? "one address or path" : "which function?");
    if (max <= 0) return opt_usage_error(&cmd, "-n needs a count of lines, not %ld", max);
    if (s->check_only) return EXIT_OK;
    if (core_need_v8(s, argv[0]) != 0) return EXIT_FAIL;
    uint64_t fn, src;
    int rc = pm_resolve(s->v, argv[0], argv[1], &fn);
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
    rc = pm_source_write(s->v, fn, &fi, src, max, json, stdout) == 0 ? EXIT_OK : EXIT_FAIL;
    if (rc != EXIT_OK) diag_error(tn, 0, "source: the script's source string is not wholly readable");
    v8_function_free(&fi);
    return rc;
}
