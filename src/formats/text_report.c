/* The `top` report: the functions (or files) that take the time — self and total
 * share, recursion counted once — and the hottest lines inside the top functions
 * (from positionTicks), as a text table or JSON. Used by `nodescope top` and by
 * the "txt" writer (convert/record -o x.txt: the table with default options). */
#include "formats/text_report.h"
#include "util/diag.h"
#include "util/json_writer.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *key; /* interned "name url:line" or the file */
    double self, total;
    uint32_t first_frame;
} row_t;

static int sort_total; /* qsort has no context argument */
static int cmp_rows(const void *a, const void *b)
{
    const row_t *x = a, *y = b;
    double dx = sort_total ? x->total : x->self, dy = sort_total ? y->total : y->self;
    if (dx != dy) return dx > dy ? -1 : 1;
    /* ties (most often the callers, with no self time) by the other share: the chain of callers
       of the hot functions first, not the alphabet's */
    double ox = sort_total ? x->self : x->total, oy = sort_total ? y->self : y->total;
    if (ox != oy) return ox > oy ? -1 : 1;
    return strcmp(x->key, y->key);
}

typedef struct {
    int32_t line;
    double ticks;
} line_t;

static int cmp_lines(const void *a, const void *b)
{
    const line_t *x = a, *y = b;
    if (x->ticks != y->ticks) return x->ticks > y->ticks ? -1 : 1;
    return x->line - y->line;
}

/* The split of the weight by thread role: one row per label ("node [V8 worker]"), with its thread
 * count; into the JSON document jw has open when jw is not NULL, else as a table. */
static void thread_split(const profile_t *p, jw_t *jw, buf_t *out)
{
    double *w = xmalloc((p->nthreads + 1) * sizeof *w), total = 0;
    profile_thread_weights(p, w);
    const char **label = xmalloc((p->nthreads + 1) * sizeof *label);
    double *lw = xcalloc(p->nthreads + 1, sizeof *lw);
    size_t *count = xcalloc(p->nthreads + 1, sizeof *count), nl = 0;
    buf_t b = {0};
    for (size_t t = 0; t < p->nthreads; t++) {
        buf_clear(&b);
        profile_thread_label(p, (uint32_t)t, &b);
        const char *l = strpool_intern(p->strings, b.data, b.len);
        size_t k = 0;
        while (k < nl && label[k] != l) k++;
        if (k == nl) label[nl++] = l;
        lw[k] += w[t], count[k]++, total += w[t];
    }
    /* heaviest first (selection sort: a handful of rows) */
    for (size_t i = 0; i < nl; i++)
        for (size_t k = i + 1; k < nl; k++)
            if (lw[k] > lw[i]) {
                double tw = lw[i];
                lw[i] = lw[k];
                lw[k] = tw;
                const char *tl = label[i];
                label[i] = label[k];
                label[k] = tl;
                size_t tc = count[i];
                count[i] = count[k];
                count[k] = tc;
            }
    if (total <= 0) total = 1;
    if (jw) {
        jw_array_begin(jw, "threads");
        for (size_t i = 0; i < nl; i++) {
            jw_object_begin(jw, NULL);
            jw_string(jw, "name", label[i]);
            jw_uint(jw, "threads", count[i]);
            jw_double(jw, "total", lw[i]);
            jw_fixed(jw, "totalPct", 4, 100 * lw[i] / total);
            jw_end(jw);
        }
        jw_end(jw);
    } else {
        buf_printf(out, "%7s %7s  %s\n", "share", "threads", "thread role");
        for (size_t i = 0; i < nl; i++) buf_printf(out, "%6.2f%% %7zu  %s\n", 100 * lw[i] / total, count[i], label[i]);
        buf_putc(out, '\n');
    }
    buf_free(&b);
    free(w);
    free(label);
    free(lw);
    free(count);
}

void text_report(const profile_t *p, const text_report_opts_t *o, buf_t *out)
{
    int by_file = o->by_file, json = o->json;
    double limit = o->limit > 0 ? o->limit : 20;
    sort_total = o->sort_total;
    /* group key per frame */
    const char **key = xmalloc((p->nframes + 1) * sizeof *key);
    buf_t name = {0}, k = {0};
    for (size_t f = 0; f < p->nframes; f++) {
        const char *url;
        int32_t line, col;
        profile_frame_split_v8(&p->frames[f], &name, &url, &line, &col);
        buf_clear(&k);
        if (by_file) buf_puts(&k, url[0] ? url : "(no file)");
        else {
            buf_append(&k, name.data ? name.data : "", name.len);
            if (url[0]) buf_printf(&k, " %s:%d", url, line);
        }
        key[f] = strpool_intern(p->strings, k.data ? k.data : "", k.len);
    }
    /* rows: self from each node; total once per stack (recursion counted once) */
    double *tot = xmalloc(p->nnodes * sizeof *tot);
    profile_totals(p, tot);
    u64map_t index;
    u64map_init(&index);
    row_t *rows = NULL;
    size_t nrows = 0, cap = 0;
    uint32_t *row_of_node = xmalloc(p->nnodes * sizeof *row_of_node);
    for (size_t i = 1; i < p->nnodes; i++) {
        const char *kk = key[p->nodes[i].frame];
        int found;
        uint32_t *slot = u64map_upsert(&index, (uint64_t)(uintptr_t)kk, &found);
        if (!found) {
            *slot = (uint32_t)nrows;
            XGROW(rows, cap, nrows + 1);
            rows[nrows++] = (row_t){kk, 0, 0, p->nodes[i].frame};
        }
        row_of_node[i] = *slot;
        rows[*slot].self += p->nodes[i].self;
        int nested = 0;
        for (uint32_t a = p->nodes[i].parent; a && !nested; a = p->nodes[a].parent)
            nested = key[p->nodes[a].frame] == kk;
        if (!nested) rows[*slot].total += tot[i];
    }
    /* per-line hits per row */
    line_t **lines = xcalloc(nrows + 1, sizeof *lines);
    size_t *nlines = xcalloc(nrows + 1, sizeof *nlines), *lcap = xcalloc(nrows + 1, sizeof *lcap);
    for (size_t t = 0; t < p->nticks; t++) {
        uint32_t rr = row_of_node[p->ticks[t].node];
        size_t j = 0;
        while (j < nlines[rr] && lines[rr][j].line != p->ticks[t].line) j++;
        if (j == nlines[rr]) {
            XGROW(lines[rr], lcap[rr], j + 1);
            lines[rr][j] = (line_t){p->ticks[t].line, 0};
            nlines[rr]++;
        }
        lines[rr][j].ticks += p->ticks[t].ticks;
    }
    /* keep each row's lines with the row when sorting */
    for (size_t i = 0; i < nrows; i++) rows[i].first_frame = (uint32_t)i;
    qsort(rows, nrows, sizeof *rows, cmp_rows);
    size_t shown = nrows < (size_t)limit ? nrows : (size_t)limit;
    double total = p->total > 0 ? p->total : 1;
    const char *unit = p->weight_unit && *p->weight_unit ? p->weight_unit : "samples";
    if (json) {
        jw_t w;
        jw_init(&w, out);
        jw_object_begin(&w, NULL);
        jw_double(&w, "total", p->total);
        jw_string(&w, "unit", unit);
        jw_string(&w, "by", by_file ? "file" : "function");
        if (o->json_extra) buf_puts(out, o->json_extra); /* members: ",\"k\":v,..." (the writer adds the next comma) */
        if (o->threads_of && o->threads_of->nthreads) thread_split(o->threads_of, &w, out);
        jw_array_begin_lines(&w, "rows"); /* a row a line */
        for (size_t i = 0; i < shown; i++) {
            jw_object_begin(&w, NULL);
            jw_string(&w, "name", rows[i].key);
            jw_double(&w, "self", rows[i].self);
            jw_fixed(&w, "selfPct", 4, 100 * rows[i].self / total);
            jw_double(&w, "total", rows[i].total);
            jw_fixed(&w, "totalPct", 4, 100 * rows[i].total / total);
            jw_array_begin(&w, "lines");
            size_t rr = rows[i].first_frame;
            if (nlines[rr] > 1) qsort(lines[rr], nlines[rr], sizeof *lines[rr], cmp_lines);
            for (size_t j = 0; j < nlines[rr]; j++) {
                jw_object_begin(&w, NULL);
                jw_int(&w, "line", lines[rr][j].line);
                jw_double(&w, "ticks", lines[rr][j].ticks);
                jw_end(&w);
            }
            jw_end(&w);
            jw_end(&w);
        }
        jw_end(&w);
        jw_end(&w);
        buf_putc(out, '\n');
    } else {
        if (o->threads_of && o->threads_of->nthreads) thread_split(o->threads_of, NULL, out);
        buf_printf(out, "%7s %7s  %s\n", "self%", "total%", by_file ? "file" : "function");
        for (size_t i = 0; i < shown; i++) {
            buf_printf(out, "%6.2f%% %6.2f%%  %s\n", 100 * rows[i].self / total, 100 * rows[i].total / total,
                       rows[i].key);
            size_t rr = rows[i].first_frame;
            if (!nlines[rr] || by_file) continue;
            if (nlines[rr] > 1) qsort(lines[rr], nlines[rr], sizeof *lines[rr], cmp_lines);
            double sum = 0;
            for (size_t j = 0; j < nlines[rr]; j++) sum += lines[rr][j].ticks;
            buf_puts(out, "                   hot lines:");
            for (size_t j = 0; j < nlines[rr] && j < 3; j++)
                buf_printf(out, " %d (%.0f%%)", lines[rr][j].line, 100 * lines[rr][j].ticks / (sum > 0 ? sum : 1));
            buf_putc(out, '\n');
        }
        /* the unit of the weights is always said: perf's periods (ns of cpu-clock) are not sample counts */
        if (p->nsamples && !strcmp(unit, "samples"))
            buf_printf(out, "(%zu of %zu %s; %zu samples)\n", shown, nrows, by_file ? "files" : "functions",
                       p->nsamples);
        else if (p->nsamples)
            buf_printf(out, "(%zu of %zu %s; %zu samples, total weight %.0f %s)\n", shown, nrows,
                       by_file ? "files" : "functions", p->nsamples, p->total, unit);
        else
            buf_printf(out, "(%zu of %zu %s; total weight %.0f %s)\n", shown, nrows, by_file ? "files" : "functions",
                       p->total, unit);
    }
    for (size_t i = 0; i <= nrows; i++) free(lines[i]);
    free(lines);
    free(nlines);
    free(lcap);
    free(row_of_node);
    free(rows);
    u64map_free(&index);
    free(tot);
    free(key);
    buf_free(&name);
    buf_free(&k);
    buf_free(&name);
    buf_free(&k);
}

static int txt_write(const profile_t *p, FILE *f, const write_opts_t *wo)
{
    (void)wo;
    text_report_opts_t o = {0};
    buf_t out = {0};
    text_report(p, &o, &out);
    int rc = fwrite(out.data, 1, out.len, f) == out.len ? 0 : -1;
    buf_free(&out);
    return rc;
}

const format_writer_t format_txt_writer = {
    .name = "txt",
    .extensions = ".txt",
    .write = txt_write,
};
