/* A function's source lines, cut from its script's source string as UTF-16 units stream by
 * (v8_string_units: no copy of a megabyte script), and the closure a SharedFunctionInfo stands
 * for. Invariant: a line is passed once, at its newline or at the end of the string. */
#include "postmortem/source.h"
#include "postmortem/inspect.h"
#include "postmortem/walk.h"
#include <string.h>

typedef struct {
    int64_t at, start;
    buf_t line;
    int depth, opened, done, line_no;
    long shown, max;
    uint32_t hi;
    pm_line_fn cb;
    void *ctx;
} src_t;

static void src_emit(src_t *s) { s->cb(s->ctx, s->line_no, s->line.data ? s->line.data : "", s->line.len); }

static void src_unit(void *ctx, uint32_t u)
{
    src_t *s = ctx;
    int64_t at = s->at++;
    if (s->done) return;
    if (s->hi) {
        uint32_t hi = s->hi;
        s->hi = 0;
        if (u >= 0xDC00 && u <= 0xDFFF) {
            buf_put_utf8(&s->line, 0x10000 + ((hi - 0xD800) << 10) + (u - 0xDC00));
            return;
        }
        buf_put_utf8(&s->line, 0xFFFD);
    }
    if (u == '\n') {
        if (at >= s->start) {
            src_emit(s);
            s->line_no++;
            if (++s->shown >= s->max || (s->opened && s->depth <= 0) || !s->opened) s->done = 1;
            if (!s->opened && s->shown < s->max && s->done) s->done = 0; /* the body starts on a later line */
        }
        buf_clear(&s->line);
        return;
    }
    if (at >= s->start) {
        if (u == '{') {
            s->depth++;
            s->opened = 1;
        } else if (u == '}') s->depth--;
    }
    if (u >= 0xD800 && u <= 0xDBFF) s->hi = u;
    else buf_put_utf8(&s->line, u);
}

int pm_function_lines(v8_t *v, const v8_function_t *fi, uint64_t src, long max, pm_line_fn cb, void *ctx)
{
    src_t st = {0, fi->start_pos, {0}, 0, 0, 0, fi->def_line > 0 ? fi->def_line : 1, 0, max, 0, cb, ctx};
    int rc = v8_string_units(v, src, src_unit, &st) == 0 ? 0 : -1;
    if (!st.done && st.line.len) src_emit(&st);
    buf_free(&st.line);
    return rc;
}

int pm_closure_of(v8_t *v, uint64_t fn, uint64_t *closure, uint64_t *context, int *was_shared)
{
    v8_function_t sfi;
    *was_shared = 0;
    *closure = fn;
    if (v8_function_context(v, fn, context) != 0 && v8_shared_info(v, fn, &sfi) == 0) {
        /* a SharedFunctionInfo (what `functions -v` and stacks show): one of its closures */
        v8_function_free(&sfi);
        *closure = pm_first_closure(v, fn);
        if (!*closure) return -1;
        *was_shared = 1;
    }
    return v8_function_context(v, *closure, context) == 0 ? 0 : -2;
}

void pm_value_line(v8_t *v, uint64_t value, int address_too, buf_t *b)
{
    pm_format_value(v, value, 0, 0, PM_PRINT_MAX_VALUES, b);
    if (b->data && strchr(b->data, '\n')) { /* too big for a line: its name and address, for print */
        buf_clear(b);
        pm_format_value(v, value, 0, -1, PM_PRINT_MAX_VALUES, b);
        if (address_too) buf_printf(b, " @0x%llx", (unsigned long long)value);
    }
}
