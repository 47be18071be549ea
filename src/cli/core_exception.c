/* nodescope core CORE exception: the exception the program died of (v8_thrown_exception), printed
 * as `print` prints a value, with where it was thrown; or that there is none. */
#include "cli/cli.h"
#include "cli/core_cmds.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/json_writer.h"
#include "util/options.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The frames an unformatted Error holds, copied out of v8_error_callsites' callback. */
typedef struct {
    char name[256], file[1024];
    int line, col, is_async, is_constructor;
} callsite_t;
typedef struct {
    callsite_t *list;
    size_t n;
} callsites_t;

static int add_callsite(void *ctx, const v8_callsite_t *c)
{
    callsites_t *cs = ctx;
    callsite_t *g = realloc(cs->list, (cs->n + 1) * sizeof *g);
    if (!g) return 1;
    cs->list = g;
    callsite_t *d = &cs->list[cs->n++];
    snprintf(d->name, sizeof d->name, "%s", c->name);
    snprintf(d->file, sizeof d->file, "%s", c->file ? c->file : "");
    d->line = c->line, d->col = c->col, d->is_async = c->is_async, d->is_constructor = c->is_constructor;
    return 0;
}

int core_cmd_exception(core_session_t *s, int argc, char **argv)
{
    long thread = 0, depth = 2;
    int json = 0;
    const opt_t opts[] = {
        OPT_INT("thread", 0, "N", "the thread with this index (default 0, the main thread)", &thread),
        OPT_INT("depth", 'd', "DEPTH", "how deep to print the value's properties (2)", &depth),
        OPT_BOOL("json", 0, "a JSON document: how, where, address and the value as print shows it", &json),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core exception",
                           "usage: nodescope core CORE exception [--thread N] [-d DEPTH] [--json]\n\n"
                           "The exception the program was throwing when it died, printed as `print` prints it (an\n"
                           "Error's message and stack as the Error recorded them), and where it was thrown. Found\n"
                           "exactly, not guessed: the value a `throw` passed to V8 when node ran with\n"
                           "--abort-on-uncaught-exception, or the error an uncaughtException handler that aborted\n"
                           "was given, or the error node was handed as an uncaught exception (a core written by\n"
                           "`nodescope watch --on uncaught`: where is then where its message says it was thrown).\n"
                           "When the stack shows none of these, it says so.\n",
                           tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (n > 0) return opt_usage_error(&cmd, "unexpected argument '%s'", argv[1]);
    if (thread < 0) return opt_usage_error(&cmd, "--thread needs a thread index, not %ld", thread);
    if (s->check_only) return EXIT_OK;
    if (core_need_v8(s, argv[0]) != 0) return EXIT_FAIL;
    if ((size_t)thread >= target_thread_count(s->t)) {
        diag_error(target_name(s->t), 0, "exception: no thread %ld (the target has %zu)", thread,
                   target_thread_count(s->t));
        return EXIT_FAIL;
    }
    v8_exception_t e;
    int found = v8_thrown_exception(s->v, (size_t)thread, &e) == 0;
    buf_t value = {0}, where = {0};
    callsites_t cs = {NULL, 0};
    int stack_unread = 0;
    if (found) {
        pm_format_value(s->v, e.value, 0, depth, PM_PRINT_MAX_VALUES, &value);
        /* an Error whose .stack was never read holds its frames unformatted: as node prints them */
        v8_value_t kind;
        if (!strstr(value.data ? value.data : "", "\n    at ") && v8_value(s->v, e.value, &kind) == 0 &&
            kind.kind == V8_V_ERROR && (v8_error_callsites(s->v, e.value, add_callsite, &cs) != 0 || !cs.n)) {
            /* an Error has its frames, formatted or not: none read is nodescope's failure, not the program's */
            stack_unread = 1;
            diag_warn(target_name(s->t), 0,
                      "exception: the Error's stack frames could not be read (an unknown layout of its captured "
                      "stack?): only its message is shown");
        }
        if (e.has_where) {
            v8_frame_record_t r;
            v8_frame_record(s->t, s->v, &e.where, &r);
            buf_printf(&where, "%s (%s:%d:%d)", r.display_name ? r.display_name : "(anonymous)",
                       r.has_function && r.fn.script_name ? r.fn.script_name : "<unknown>", e.where.line, e.where.col);
            v8_frame_record_free(&r);
        } else if (e.line > 0) {
            buf_printf(&where, "%s:%d:%d", e.file, e.line, e.col);
        }
    }
    if (json) {
        buf_t b = {0};
        jw_t w;
        jw_init(&w, &b);
        jw_object_begin(&w, NULL);
        if (!found) jw_null(&w, "exception");
        else {
            jw_object_begin(&w, "exception");
            jw_string(&w, "how", e.how);
            jw_address(&w, "address", e.value);
            if (where.len) jw_string_n(&w, "where", where.data, where.len);
            else jw_null(&w, "where");
            jw_string_n(&w, "value", value.data ? value.data : "", value.len);
            if (stack_unread) jw_bool(&w, "callsites_unreadable", 1);
            if (cs.n) { /* the frames of an Error whose .stack was never formatted */
                jw_array_begin(&w, "callsites");
                for (size_t i = 0; i < cs.n; i++) {
                    const callsite_t *c = &cs.list[i];
                    jw_object_begin(&w, NULL);
                    jw_string(&w, "function", c->name);
                    if (c->file[0]) jw_string(&w, "file", c->file);
                    else jw_null(&w, "file");
                    jw_int(&w, "line", c->line);
                    jw_int(&w, "column", c->col);
                    jw_bool(&w, "async", c->is_async);
                    jw_bool(&w, "constructor", c->is_constructor);
                    jw_end(&w);
                }
                jw_end(&w);
            }
            jw_end(&w);
        }
        core_json_read(s, &w);
        jw_end(&w);
        buf_putc(&b, '\n');
        fwrite(b.data, 1, b.len, stdout);
        buf_free(&b);
    } else if (!found) {
        printf("no exception: thread %ld's stack shows no throw that aborted (the program did not die of an "
               "exception, or not with --abort-on-uncaught-exception)\n",
               thread);
    } else {
        printf("%s%s%s (0x%llx):\n%s\n", e.how, where.len ? " at " : "", where.len ? where.data : "",
               (unsigned long long)e.value, value.data ? value.data : "");
        for (size_t i = 0; i < cs.n; i++) {
            const callsite_t *c = &cs.list[i];
            /* as V8 prints a frame: its name, then where in parentheses; an unnamed plain call, where alone */
            printf("    at %s%s%s",
                   c->is_async         ? "async "
                   : c->is_constructor ? "new "
                                       : "",
                   c->name, c->name[0] ? " (" : "");
            printf("%s", c->file[0] ? c->file : "<anonymous>");
            if (c->line) printf(":%d:%d", c->line, c->col);
            printf("%s\n", c->name[0] ? ")" : "");
        }
    }
    free(cs.list);
    buf_free(&value);
    buf_free(&where);
    return EXIT_OK;
}
