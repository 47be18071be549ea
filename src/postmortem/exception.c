/* The exception the program died of (postmortem/exception.h): the value a throw passed to V8
 * (v8_thrown_exception) formatted as `print` shows it, where it was thrown, and the frames of an
 * Error whose .stack was never formatted; as text or as the "exception" member of a JSON document. */
#include "postmortem/exception.h"
#include "postmortem/inspect.h"
#include "util/diag.h"
#include <stdlib.h>
#include <string.h>

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

void pm_exception_read(target_t *t, v8_t *v, size_t thread, long depth, pm_exception_t *x)
{
    memset(x, 0, sizeof *x);
    v8_exception_t e;
    memset(&e, 0, sizeof e);
    int found = x->found = v8_thrown_exception(v, thread, &e) == 0;
    buf_t *value = &x->value, *where = &x->where;
    callsites_t *cs = &x->callsites;
    if (found) {
        pm_format_value(v, e.value, 0, depth, PM_PRINT_MAX_VALUES, value);
        /* an Error whose .stack was never read holds its frames unformatted: as node prints them */
        v8_value_t kind;
        if (!strstr(value->data ? value->data : "", "\n    at ") && v8_value(v, e.value, &kind) == 0 &&
            kind.kind == V8_V_ERROR && (v8_error_callsites(v, e.value, add_callsite, cs) != 0 || !cs->n)) {
            /* an Error has its frames, formatted or not: none read is nodescope's failure, not the program's */
            x->stack_unread = 1;
            diag_warn(target_name(t), 0,
                      "exception: the Error's stack frames could not be read (an unknown layout of its captured "
                      "stack?): only its message is shown");
        }
        if (e.has_where) {
            v8_frame_record_t r;
            v8_frame_record(t, v, &e.where, &r);
            buf_printf(where, "%s (%s:%d:%d)", r.display_name ? r.display_name : "(anonymous)",
                       r.has_function && r.fn.script_name ? r.fn.script_name : "<unknown>", e.where.line, e.where.col);
            v8_frame_record_free(&r);
        } else if (e.line > 0) {
            buf_printf(where, "%s:%d:%d", e.file, e.line, e.col);
        }
    }
    x->e = e;
}

void pm_exception_json(jw_t *w, const pm_exception_t *x)
{
    if (!x->found) jw_null(w, "exception");
    else {
        jw_object_begin(w, "exception");
        jw_string(w, "how", x->e.how);
        jw_address(w, "address", x->e.value);
        if (x->where.len) jw_string_n(w, "where", x->where.data, x->where.len);
        else jw_null(w, "where");
        jw_string_n(w, "value", x->value.data ? x->value.data : "", x->value.len);
        if (x->stack_unread) jw_bool(w, "callsites_unreadable", 1);
        if (x->callsites.n) { /* the frames of an Error whose .stack was never formatted */
            jw_array_begin(w, "callsites");
            for (size_t i = 0; i < x->callsites.n; i++) {
                const callsite_t *c = &x->callsites.list[i];
                jw_object_begin(w, NULL);
                jw_string(w, "function", c->name);
                if (c->file[0]) jw_string(w, "file", c->file);
                else jw_null(w, "file");
                jw_int(w, "line", c->line);
                jw_int(w, "column", c->col);
                jw_bool(w, "async", c->is_async);
                jw_bool(w, "constructor", c->is_constructor);
                jw_end(w);
            }
            jw_end(w);
        }
        jw_end(w);
    }
}

void pm_exception_text(const pm_exception_t *x, long thread, FILE *out)
{
    if (!x->found) {
        fprintf(out,
                "no exception: thread %ld's stack shows no throw that aborted (the program did not die of an "
                "exception, or not with --abort-on-uncaught-exception)\n",
                thread);
    } else {
        fprintf(out, "%s%s%s (0x%llx):\n%s\n", x->e.how, x->where.len ? " at " : "", x->where.len ? x->where.data : "",
                (unsigned long long)x->e.value, x->value.data ? x->value.data : "");
        for (size_t i = 0; i < x->callsites.n; i++) {
            const callsite_t *c = &x->callsites.list[i];
            /* as V8 prints a frame: its name, then where in parentheses; an unnamed plain call, where alone */
            fprintf(out, "    at %s%s%s",
                    c->is_async         ? "async "
                    : c->is_constructor ? "new "
                                        : "",
                    c->name, c->name[0] ? " (" : "");
            fprintf(out, "%s", c->file[0] ? c->file : "<anonymous>");
            if (c->line) fprintf(out, ":%d:%d", c->line, c->col);
            fprintf(out, "%s\n", c->name[0] ? ")" : "");
        }
    }
}

void pm_exception_free(pm_exception_t *x)
{
    free(x->callsites.list);
    buf_free(&x->value);
    buf_free(&x->where);
}
