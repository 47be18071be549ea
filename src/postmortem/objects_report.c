/* The tables of `core objects` and `core functions`, and the objects `instances` and `find` select,
 * as text or JSON (postmortem/objects_report.h). */
#include "postmortem/objects_report.h"
#include "util/buf.h"
#include "util/json_writer.h"

static void objects_write(FILE *out, const pm_group_t *gs, size_t ngs, uint64_t min, int json)
{
    buf_t b = {0};
    jw_t jw; /* json: a group a line, each {"name": ..., "count": ..., "size": ...} */
    jw_init(&jw, &b);
    jw.spaced = 1;
    jw.indent = "  ";
    uint64_t total_n = 0, total_b = 0;
    if (json) jw_array_begin_lines(&jw, NULL);
    else buf_printf(&b, "%12s %14s %10s  %s\n", "INSTANCES", "TOTAL SIZE", "SIZE", "CONSTRUCTOR");
    for (size_t i = 0; i < ngs; i++) {
        const pm_group_t *g = &gs[i];
        total_n += g->count;
        total_b += g->bytes;
        if (g->count < min) continue;
        if (json) {
            jw_object_begin(&jw, NULL);
            jw_string(&jw, "name", g->name);
            jw_uint(&jw, "count", g->count);
            jw_uint(&jw, "size", g->bytes);
            jw_end(&jw);
        } else {
            buf_printf(&b, "%12llu %14llu %10llu  %s\n", (unsigned long long)g->count, (unsigned long long)g->bytes,
                       (unsigned long long)(g->bytes / g->count), g->name);
        }
        if (b.len > 1 << 16) {
            fwrite(b.data, 1, b.len, out);
            buf_clear(&b);
        }
    }
    if (json) {
        jw_newline(&jw); /* "]" on a line of its own */
        jw_end(&jw);
        buf_putc(&b, '\n');
    } else
        buf_printf(&b, "%12llu %14llu %10s  (%zu constructors)\n", (unsigned long long)total_n,
                   (unsigned long long)total_b, "", ngs);
    fwrite(b.data ? b.data : "", 1, b.len, out);
    buf_free(&b);
}

void pm_objects_write_text(FILE *out, const pm_group_t *gs, size_t n, uint64_t min)
{
    objects_write(out, gs, n, min, 0);
}

void pm_objects_write_json(FILE *out, const pm_group_t *gs, size_t n, uint64_t min)
{
    objects_write(out, gs, n, min, 1);
}

static void functions_write(FILE *out, v8_t *v, const pm_fn_count_t *fs, size_t nfs, uint64_t min, int verbose,
                            int json)
{
    buf_t b = {0};
    jw_t jw; /* json: a function a line, as objects --json */
    jw_init(&jw, &b);
    jw.spaced = 1;
    jw.indent = "  ";
    if (json) jw_array_begin_lines(&jw, NULL);
    else if (verbose) buf_printf(&b, "%10s  %-18s  %-18s  %s\n", "CLOSURES", "CLOSURE", "SHARED", "FUNCTION");
    else buf_printf(&b, "%10s  %-18s  %s\n", "CLOSURES", "CLOSURE", "FUNCTION");
    for (size_t i = 0; i < nfs; i++) {
        if (fs[i].closures < min) continue;
        v8_function_t fi;
        int ok = v8_shared_info(v, fs[i].shared, &fi) == 0;
        const char *name = ok ? v8_function_display_name(&fi, "(anonymous)") : "(anonymous)";
        const char *script = ok && fi.script_name ? fi.script_name : "";
        int line = ok ? fi.def_line : 0, col = ok ? fi.def_col : 0;
        if (json) {
            jw_object_begin(&jw, NULL);
            jw_string(&jw, "name", name);
            jw_uint(&jw, "closures", fs[i].closures);
            jw_address(&jw, "closure", fs[i].closure);
            jw_address(&jw, "shared", fs[i].shared);
            jw_string(&jw, "script", script);
            jw_int(&jw, "line", line);
            jw_int(&jw, "column", col);
            jw_end(&jw);
        } else {
            buf_printf(&b, "%10llu  0x%-16llx  ", (unsigned long long)fs[i].closures,
                       (unsigned long long)fs[i].closure);
            if (verbose) buf_printf(&b, "0x%-16llx  ", (unsigned long long)fs[i].shared);
            buf_puts(&b, name);
            if (*script && line) buf_printf(&b, " at %s:%d:%d", script, line, col);
            else if (*script) buf_printf(&b, " at %s", script);
            buf_putc(&b, '\n');
        }
        if (ok) v8_function_free(&fi);
        if (b.len > 1 << 16) {
            fwrite(b.data, 1, b.len, out);
            buf_clear(&b);
        }
    }
    if (json) {
        jw_newline(&jw);
        jw_end(&jw);
        buf_putc(&b, '\n');
    }
    fwrite(b.data ? b.data : "", 1, b.len, out);
    buf_free(&b);
}

void pm_functions_write_text(FILE *out, v8_t *v, const pm_fn_count_t *fs, size_t n, uint64_t min, int verbose)
{
    functions_write(out, v, fs, n, min, verbose, 0);
}

void pm_functions_write_json(FILE *out, v8_t *v, const pm_fn_count_t *fs, size_t n, uint64_t min)
{
    functions_write(out, v, fs, n, min, 0, 1);
}

/* ---- instances and find ---- */

static void select_flush(pm_select_out_t *so)
{
    fwrite(so->buf.data, 1, so->buf.len, so->out);
    buf_clear(&so->buf);
}

void pm_select_out_begin(pm_select_out_t *so, v8_t *v, FILE *out, int json)
{
    *so = (pm_select_out_t){.v = v, .out = out, .json = json};
    if (json) {
        jw_init(&so->jw, &so->buf);
        jw_object_begin(&so->jw, NULL);
        jw_array_begin(&so->jw, "objects");
        select_flush(so);
    }
}

void pm_select_out_row(void *ctx, uint64_t addr, const char *name)
{
    pm_select_out_t *so = ctx;
    buf_t *b = &so->text;
    buf_clear(b);
    v8_describe(so->v, addr, b);
    if (so->json) {
        jw_object_begin(&so->jw, NULL);
        jw_address(&so->jw, "address", addr);
        jw_string(&so->jw, "constructor", name);
        jw_string_n(&so->jw, "text", b->data ? b->data : "", b->len);
        jw_end(&so->jw);
        select_flush(so);
    } else fprintf(so->out, "0x%llx %s\n", (unsigned long long)addr, b->data ? b->data : "");
}

void pm_select_out_summary(pm_select_out_t *so, long count, long limit, int complete)
{
    long listed = limit >= 0 && count > limit ? limit : count;
    if (so->json) {
        jw_end(&so->jw);
        jw_int(&so->jw, "count", count);
        jw_int(&so->jw, "listed", listed);
        jw_bool(&so->jw, "complete", complete);
    } else if (complete && limit >= 0 && count > limit)
        fprintf(so->out, "... (%ld more; --limit N shows more)\n", count - limit);
}

void pm_select_out_end(pm_select_out_t *so)
{
    if (so->json) {
        jw_end(&so->jw);
        buf_putc(&so->buf, '\n');
        select_flush(so);
    }
    buf_free(&so->buf);
    buf_free(&so->text);
}
