/* The reports of a heap watch: its text (the table, a census's line, what grew), the JSON
 * document (util/json_writer) and the HTML page. The page
 * is self-contained and needs no script: a summary, the growing constructors with their rates,
 * new instances and retainer paths, then line charts drawn as inline SVG polylines (the heap
 * total, each growing constructor, and the largest other constructors so a cache that plateaued
 * or garbage can be seen for what it is); the JSON document is embedded in a
 * <script type="application/json" id="leak-data"> element for whoever wants the numbers. */
#include "postmortem/leak_report.h"
#include "util/json_writer.h"
#include "util/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

void pm_put_bytes(buf_t *b, double v)
{
    const char *sign = v < 0 ? "-" : "";
    v = fabs(v);
    if (v >= 1e9) buf_printf(b, "%s%.2f GB", sign, v / 1e9);
    else if (v >= 1e6) buf_printf(b, "%s%.1f MB", sign, v / 1e6);
    else if (v >= 1e4) buf_printf(b, "%s%.0f kB", sign, v / 1e3);
    else buf_printf(b, "%s%.0f B", sign, v);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The median and maximum of field off of every census. */
static void stat_of(const pm_leak_t *L, size_t off, double *median, double *max)
{
    size_t n = pm_leak_points(L);
    double *v = xmalloc((n ? n : 1) * sizeof *v);
    *max = 0;
    for (size_t k = 0; k < n; k++) {
        v[k] = *(const double *)((const char *)pm_leak_point(L, k) + off);
        if (v[k] > *max) *max = v[k];
    }
    qsort(v, n, sizeof *v, cmp_double);
    *median = n ? (n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2) : 0;
    free(v);
}

static void cost_json(jw_t *w, const char *key, const pm_leak_t *L, size_t off)
{
    double med, max;
    stat_of(L, off, &med, &max);
    jw_object_begin(w, key);
    jw_fixed(w, "median", 2, med);
    jw_fixed(w, "max", 2, max);
    jw_end(w);
}

void pm_leak_write_json(const pm_leak_t *L, const pm_leak_class_t *c, size_t n, const pm_leak_meta_t *m, buf_t *out)
{
    jw_t w;
    jw_init(&w, out);
    jw_object_begin(&w, NULL);
    jw_int(&w, "pid", m->pid);
    jw_string(&w, "command", m->command);
    jw_string(&w, "read", m->read);
    jw_string(&w, "count", pm_leak_mode(L) == PM_COUNT_REACHABLE ? "reachable" : "all");
    jw_fixed(&w, "every", 3, m->every);
    jw_string(&w, "ended", m->ended);
    jw_bool(&w, "partial", m->partial != NULL);
    if (m->partial) jw_string(&w, "partial_reason", m->partial);
    jw_string(&w, "copy", m->copy);
    jw_string(&w, "copy_why", m->copy_why);
    jw_string(&w, "wrapper", m->wrapper);
    jw_array_begin(&w, "node_processes_under");
    for (size_t i = 0; i < m->nnode_processes; i++) jw_int(&w, NULL, m->node_processes[i]);
    jw_end(&w);
    size_t np = pm_leak_points(L);
    jw_fixed(&w, "seconds", 3, np ? pm_leak_point(L, np - 1)->t : 0);
    cost_json(&w, "stop_ms", L, offsetof(pm_leak_point_t, stop_ms));
    cost_json(&w, "cpu_ms", L, offsetof(pm_leak_point_t, cpu_ms));
    jw_array_begin(&w, "censuses");
    for (size_t k = 0; k < np; k++) {
        const pm_leak_point_t *p = pm_leak_point(L, k);
        jw_object_begin(&w, NULL);
        jw_fixed(&w, "t", 3, p->t);
        jw_fixed(&w, "stop_ms", 3, p->stop_ms);
        jw_fixed(&w, "fork_ms", 3, p->fork_ms);
        if (p->copy_bytes >= 0) jw_int(&w, "copy_bytes", p->copy_bytes);
        else jw_null(&w, "copy_bytes");
        if (p->target_faults >= 0) jw_int(&w, "target_faults", p->target_faults);
        else jw_null(&w, "target_faults");
        jw_fixed(&w, "cpu_ms", 1, p->cpu_ms);
        jw_fixed(&w, "wall_ms", 1, p->wall_ms);
        jw_uint(&w, "heap_bytes", p->heap_bytes);
        jw_uint(&w, "heap_objects", p->heap_objects);
        jw_uint(&w, "all_bytes", p->all_bytes);
        jw_uint(&w, "js_objects", p->js_objects);
        jw_uint(&w, "native_only", p->native_objects);
        jw_uint(&w, "unreadable_pages", p->unreadable_pages);
        jw_uint(&w, "resyncs", p->resyncs);
        if (p->pages_reused >= 0) jw_int(&w, "pages_reused", p->pages_reused);
        else jw_null(&w, "pages_reused");
        if (p->pages_walked >= 0) jw_int(&w, "pages_walked", p->pages_walked);
        else jw_null(&w, "pages_walked");
        jw_end(&w);
    }
    jw_end(&w);
    jw_array_begin(&w, "growing");
    for (size_t i = 0; i < n; i++)
        if (c[i].trend == PM_TREND_GROWING) jw_string(&w, NULL, c[i].name);
    jw_end(&w);
    jw_array_begin(&w, "classes");
    for (size_t i = 0; i < n; i++) {
        const pm_leak_class_t *e = &c[i];
        jw_object_begin(&w, NULL);
        jw_string(&w, "name", e->name);
        jw_string(&w, "trend", pm_trend_name(e->trend));
        jw_fixed(&w, "count_per_min", 1, e->count_per_s * 60);
        jw_fixed(&w, "bytes_per_min", 0, e->bytes_per_s * 60);
        jw_fixed(&w, "late_count_per_min", 1, e->late_per_s * 60);
        jw_fixed(&w, "r2", 4, e->r2);
        jw_fixed(&w, "rising", 3, e->rising);
        jw_uint(&w, "first_count", e->first_count);
        jw_uint(&w, "last_count", e->last_count);
        jw_uint(&w, "first_bytes", e->first_bytes);
        jw_uint(&w, "last_bytes", e->last_bytes);
        jw_uint(&w, "new_last", e->new_last);
        if (e->retained_last) jw_uint(&w, "retained_last", e->retained_last);
        if (e->trend == PM_TREND_GROWING) {
            jw_array_begin(&w, "samples");
            for (size_t k = 0; k < e->nsamples; k++) jw_address(&w, NULL, e->samples[k]);
            jw_end(&w);
            jw_string(&w, "held_by", e->holder);
            jw_string(&w, "path", e->path);
        }
        jw_array_begin(&w, "counts");
        for (size_t k = 0; k < np; k++) {
            uint64_t cnt, by;
            pm_leak_count(L, k, e->cls, &cnt, &by);
            jw_uint(&w, NULL, cnt);
        }
        jw_end(&w);
        jw_array_begin(&w, "bytes");
        for (size_t k = 0; k < np; k++) {
            uint64_t cnt, by;
            pm_leak_count(L, k, e->cls, &cnt, &by);
            jw_uint(&w, NULL, by);
        }
        jw_end(&w);
        jw_end(&w);
    }
    jw_end(&w);
    jw_end(&w);
    buf_putc(out, '\n');
}

static void html_text(buf_t *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '<': buf_puts(b, "&lt;"); break;
        case '>': buf_puts(b, "&gt;"); break;
        case '&': buf_puts(b, "&amp;"); break;
        case '"': buf_puts(b, "&quot;"); break;
        case '\'': buf_puts(b, "&#39;"); break;
        default: buf_putc(b, *s);
        }
    }
}

#define CW 640 /* a chart's size, and its plot area's margins */
#define CH 170
#define ML 74
#define MR 12
#define MT 10
#define MB 24

/* One chart: values y[0..n) at times t[0..n), from 0 to the largest; bytes: the axis in bytes. */
static void chart(buf_t *b, const char *name, const char *trend, const char *caption, const double *t, const double *y,
                  size_t n, int bytes)
{
    double tmax = n ? t[n - 1] : 0, ymax = 0;
    for (size_t k = 0; k < n; k++) ymax = y[k] > ymax ? y[k] : ymax;
    if (tmax <= 0) tmax = 1;
    double top = ymax > 0 ? ymax * 1.05 : 1;
    buf_puts(b, "<figure class=\"chart\" data-name=\"");
    html_text(b, name);
    buf_printf(b, "\" data-trend=\"%s\" data-unit=\"%s\"><figcaption>", trend, bytes ? "bytes" : "count");
    html_text(b, caption);
    buf_printf(
        b,
        "</figcaption>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
        "data-ymax=\"%.6g\" data-tmax=\"%.6g\">\n",
        CW, CH, CW, CH, top, tmax);
    int pw = CW - ML - MR, ph = CH - MT - MB;
    buf_printf(b, "<rect class=\"plot\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", ML, MT, pw, ph);
    for (int g = 0; g <= 4; g++) { /* grid lines and y labels */
        double v = top * g / 4;
        double py = MT + ph - ph * (double)g / 4;
        buf_printf(b, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>", ML, ML + pw, py, py);
        buf_printf(b, "<text class=\"ylab\" x=\"%d\" y=\"%.1f\">", ML - 6, py + 4);
        buf_t lab = {0};
        if (bytes) pm_put_bytes(&lab, v);
        else buf_printf(&lab, "%.0f", v);
        buf_puts(b, lab.data);
        buf_free(&lab);
        buf_puts(b, "</text>\n");
    }
    for (int g = 0; g <= 4; g++) {
        double px = ML + pw * (double)g / 4;
        buf_printf(b, "<text class=\"xlab\" x=\"%.1f\" y=\"%d\">%.3g s</text>", px, CH - 6, tmax * g / 4);
    }
    buf_puts(b, "\n<polyline class=\"line\" points=\"");
    for (size_t k = 0; k < n; k++)
        buf_printf(b, "%s%.2f,%.2f", k ? " " : "", ML + pw * t[k] / tmax, MT + ph - ph * y[k] / top);
    buf_puts(b, "\"/>\n");
    for (size_t k = 0; k < n; k++)
        buf_printf(b, "<circle class=\"dot\" cx=\"%.2f\" cy=\"%.2f\" r=\"2.5\"><title>%.1f s: %.0f</title></circle>",
                   ML + pw * t[k] / tmax, MT + ph - ph * y[k] / top, t[k], y[k]);
    buf_puts(b, "\n</svg></figure>\n");
}

static const char style[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1400px}"
    "h1{font-size:20px;margin:0 0 6px}h2{font-size:16px;margin:22px 0 8px}"
    "table{border-collapse:collapse;margin:6px 0}td,th{padding:3px 10px;text-align:right;border-bottom:1px solid #ddd}"
    "td.name,th.name,td.path{text-align:left}td.path{font:12px monospace;color:#444;max-width:700px}"
    ".growing{color:#b00020;font-weight:600}.plateau{color:#8a6d00}.summary{color:#555}"
    ".charts{display:flex;flex-wrap:wrap;gap:10px}figure.chart{margin:0;border:1px solid #ddd;padding:6px}"
    "figcaption{font-weight:600;margin-bottom:4px}rect.plot{fill:#fafafa;stroke:#ccc}line.grid{stroke:#e6e6e6}"
    "text{font:11px sans-serif;fill:#555}text.ylab{text-anchor:end}text.xlab{text-anchor:middle}"
    "polyline.line{fill:none;stroke:#1f5fbf;stroke-width:2}figure[data-trend=growing] polyline.line{stroke:#c62828}"
    "circle.dot{fill:#1f5fbf}figure[data-trend=growing] circle.dot{fill:#c62828}";

void pm_leak_write_html(const pm_leak_t *L, const pm_leak_class_t *c, size_t n, const pm_leak_meta_t *m, buf_t *out)
{
    size_t np = pm_leak_points(L);
    double *t = xmalloc((np ? np : 1) * sizeof *t), *y = xmalloc((np ? np : 1) * sizeof *y);
    for (size_t k = 0; k < np; k++) t[k] = pm_leak_point(L, k)->t;
    buf_printf(out,
               "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>nodescope watch --heap: pid "
               "%d</title>\n"
               "<style>%s</style></head><body>\n<h1>What grows in pid %d: ",
               m->pid, style, m->pid);
    html_text(out, m->command);
    buf_puts(out, "</h1>\n<p class=\"summary\">");
    double smed, smax, cmed, cmax;
    stat_of(L, offsetof(pm_leak_point_t, stop_ms), &smed, &smax);
    stat_of(L, offsetof(pm_leak_point_t, cpu_ms), &cmed, &cmax);
    buf_printf(out,
               "%zu censuses over %.1f s, every %g s (%s objects, from %s); the process was stopped %.1f ms "
               "(median; at most %.1f ms) per census; each census took %.0f ms of nodescope's CPU (median).",
               np, np ? t[np - 1] : 0, m->every, pm_leak_mode(L) == PM_COUNT_REACHABLE ? "reachable" : "all",
               !strcmp(m->read, "live") ? "the live process" : "a frozen copy", smed, smax, cmed);
    if (m->partial) {
        buf_puts(out, " <strong>Partial:</strong> ");
        html_text(out, m->partial);
    }
    if (m->wrapper && m->nnode_processes)
        buf_printf(out,
                   " <strong>Not the program's heap:</strong> process %d runs %s; the program is its node process %d.",
                   m->pid, m->wrapper, m->node_processes[0]);
    buf_puts(out, "</p>\n<h2>Growing steadily</h2>\n");
    size_t ngrow = 0;
    for (size_t i = 0; i < n; i++) ngrow += c[i].trend == PM_TREND_GROWING;
    if (!ngrow) buf_puts(out, "<p>No constructor grew steadily over the watch.</p>\n");
    else {
        buf_puts(out,
                 "<table id=\"growing\"><tr><th class=\"name\">constructor</th><th>instances/min</th><th>bytes/min</th>"
                 "<th>first</th><th>last</th><th>last size</th><th>retained</th><th>new in last</th></tr>\n");
        for (size_t i = 0; i < n; i++) {
            const pm_leak_class_t *e = &c[i];
            if (e->trend != PM_TREND_GROWING) continue;
            buf_puts(out, "<tr><td class=\"name growing\">");
            html_text(out, e->name);
            buf_printf(out, "</td><td>%+.0f</td><td>", e->count_per_s * 60);
            pm_put_bytes(out, e->bytes_per_s * 60);
            buf_printf(out, "</td><td>%llu</td><td>%llu</td><td>", (unsigned long long)e->first_count,
                       (unsigned long long)e->last_count);
            pm_put_bytes(out, (double)e->last_bytes);
            buf_puts(out, "</td><td>");
            if (e->retained_last) pm_put_bytes(out, (double)e->retained_last);
            buf_printf(out, "</td><td>%llu</td></tr>\n", (unsigned long long)e->new_last);
            if (e->path || e->nsamples) {
                buf_puts(out, "<tr><td class=\"path\" colspan=\"8\">");
                if (e->nsamples) {
                    buf_puts(out, "new instances:");
                    for (size_t k = 0; k < e->nsamples; k++)
                        buf_printf(out, " 0x%llx", (unsigned long long)e->samples[k]);
                    buf_puts(out, "<br>");
                }
                if (e->path) {
                    buf_puts(out, "held by <b>");
                    html_text(out, e->holder);
                    buf_puts(out, "</b>: ");
                    html_text(out, e->path);
                }
                buf_puts(out, "</td></tr>\n");
            }
        }
        buf_puts(out, "</table>\n");
    }
    buf_puts(out, "<h2>Charts</h2>\n<div class=\"charts\">\n");
    for (size_t k = 0; k < np; k++) y[k] = (double)pm_leak_point(L, k)->heap_bytes;
    chart(out, "(heap total)", "total",
          pm_leak_mode(L) == PM_COUNT_REACHABLE ? "heap total (reachable bytes)" : "heap total (bytes)", t, y, np, 1);
    /* each growing constructor, then the largest others (a cache that filled, garbage) */
    size_t others = 0;
    for (int pass = 0; pass < 3; pass++) /* growing; what moved otherwise; the largest flat ones */
        for (size_t i = 0; i < n; i++) {
            const pm_leak_class_t *e = &c[i];
            int kind = e->trend == PM_TREND_GROWING ? 0 : e->trend == PM_TREND_FLAT ? 2 : 1;
            if (kind != pass) continue;
            uint64_t peak = 0;
            for (size_t k = 0; k < np; k++) {
                uint64_t cnt, by;
                pm_leak_count(L, k, e->cls, &cnt, &by);
                y[k] = (double)cnt;
                peak = cnt > peak ? cnt : peak;
            }
            if (pass && (peak < 50 || others >= 8)) continue;
            others += pass > 0;
            buf_t cap = {0};
            buf_printf(&cap, "%s: %s, %+.0f/min", e->name, pm_trend_name(e->trend), e->count_per_s * 60);
            if (e->trend == PM_TREND_PLATEAU) buf_printf(&cap, " (%+.0f/min at the end)", e->late_per_s * 60);
            chart(out, e->name, pm_trend_name(e->trend), cap.data, t, y, np, 0);
            buf_free(&cap);
        }
    buf_puts(out, "</div>\n<script type=\"application/json\" id=\"leak-data\">");
    buf_t j = {0};
    pm_leak_write_json(L, c, n, m, &j);
    for (size_t k = 0; k < j.len; k++) { /* "</" cannot end the element early */
        if (j.data[k] == '<' && k + 1 < j.len && j.data[k + 1] == '/') buf_puts(out, "<\\/"), k++;
        else buf_putc(out, j.data[k]);
    }
    buf_free(&j);
    buf_puts(out, "</script>\n</body></html>\n");
    free(t);
    free(y);
}

void pm_leak_write_table(buf_t *b, const pm_leak_t *L, const pm_leak_class_t *c, size_t n, int pid, const char *cmdline,
                         double every, size_t limit)
{
    size_t np = pm_leak_points(L);
    const pm_leak_point_t *p = pm_leak_point(L, np - 1);
    buf_printf(b, "nodescope watch --heap: pid %d (%s), %zu censuses over %.1f s, every %g s\nheap ", pid, cmdline, np,
               p->t, every);
    pm_put_bytes(b, (double)p->heap_bytes);
    buf_printf(b, " %s, %llu JS objects; stopped %.2f ms, census %.0f ms CPU%s\n\n",
               pm_leak_mode(L) == PM_COUNT_REACHABLE ? "reachable" : "on the heap", (unsigned long long)p->js_objects,
               p->stop_ms, p->cpu_ms, p->unreadable_pages ? " (pages unreadable)" : "");
    buf_printf(b, "%11s %11s %11s %11s %8s  %-9s  %s\n", "INSTANCES", "COUNT/MIN", "BYTES", "BYTES/MIN", "NEW", "TREND",
               "CONSTRUCTOR");
    for (size_t i = 0; i < n && i < limit; i++) {
        const pm_leak_class_t *e = &c[i];
        buf_t by = {0}, rate = {0};
        pm_put_bytes(&by, (double)e->last_bytes);
        if (e->bytes_per_s >= 0) buf_putc(&rate, '+');
        pm_put_bytes(&rate, e->bytes_per_s * 60);
        buf_printf(b, "%11llu %+11.0f %11s %11s %8llu  %-9s  %s\n", (unsigned long long)e->last_count,
                   e->count_per_s * 60, by.data, rate.data, (unsigned long long)e->new_last,
                   np >= 3 ? pm_trend_name(e->trend) : "...", e->name);
        buf_free(&by);
        buf_free(&rate);
    }
}

void pm_leak_write_census_line(buf_t *b, const pm_leak_t *L, const pm_leak_class_t *c, size_t n)
{
    const pm_leak_point_t *p = pm_leak_point(L, pm_leak_points(L) - 1);
    buf_printf(b, "census %zu at %.1f s: heap ", pm_leak_points(L), p->t);
    pm_put_bytes(b, (double)p->heap_bytes);
    buf_printf(b, ", %llu JS objects, stopped %.2f ms, %.0f ms CPU", (unsigned long long)p->js_objects, p->stop_ms,
               p->cpu_ms);
    if (p->target_faults >= 0) buf_printf(b, ", %lld faults in the process", (long long)p->target_faults);
    size_t shown = 0;
    for (size_t i = 0; i < n && shown < 3; i++)
        if (c[i].trend == PM_TREND_GROWING)
            buf_printf(b, "%s%s %+.0f/min", shown++ ? ", " : "; growing: ", c[i].name, c[i].count_per_s * 60);
    buf_putc(b, '\n');
}

void pm_leak_write_growing(buf_t *b, const pm_leak_t *L, const pm_leak_class_t *c, size_t n)
{
    size_t ng = 0;
    for (size_t i = 0; i < n; i++) {
        const pm_leak_class_t *e = &c[i];
        if (e->trend != PM_TREND_GROWING) continue;
        if (!ng++) buf_puts(b, "\ngrowing steadily:\n");
        buf_printf(b, "  %s: %+.0f instances/min, ", e->name, e->count_per_s * 60);
        if (e->bytes_per_s >= 0) buf_putc(b, '+');
        pm_put_bytes(b, e->bytes_per_s * 60);
        buf_printf(b, "/min (%llu -> %llu", (unsigned long long)e->first_count, (unsigned long long)e->last_count);
        if (e->retained_last) {
            buf_puts(b, ", retaining ");
            pm_put_bytes(b, (double)e->retained_last);
        }
        buf_puts(b, ")\n");
        if (e->nsamples) {
            buf_puts(b, "    new:");
            for (size_t s = 0; s < e->nsamples; s++) buf_printf(b, " 0x%llx", (unsigned long long)e->samples[s]);
            buf_putc(b, '\n');
        }
        if (e->holder) buf_printf(b, "    held by %s\n", e->holder);
        if (e->path) buf_printf(b, "    path: %s\n", e->path);
    }
    if (!ng && pm_leak_points(L) >= 3) buf_puts(b, "\nnothing grew steadily\n");
}

static long long delta(uint64_t a, uint64_t b) { return (long long)b - (long long)a; }

static int by_change(const void *x, const void *y)
{
    const pm_leak_class_t *a = x, *b = y;
    long long da = llabs(delta(a->first_bytes, a->last_bytes)), db = llabs(delta(b->first_bytes, b->last_bytes));
    if (da != db) return da < db ? 1 : -1;
    long long ca = llabs(delta(a->first_count, a->last_count)), cb = llabs(delta(b->first_count, b->last_count));
    if (ca != cb) return ca < cb ? 1 : -1;
    return strcmp(a->name, b->name);
}

void pm_leak_write_diff(buf_t *b, pm_leak_t *L, const char *name_a, const char *name_b, int all, int json, size_t top)
{
    pm_leak_class_t *c;
    size_t nc = pm_leak_analyze(L, &c);
    qsort(c, nc, sizeof *c, by_change);
    jw_t w;
    jw_init(&w, b);
    w.spaced = 1;
    w.indent = "  ";
    const pm_leak_point_t *pa = pm_leak_point(L, 0), *pb = pm_leak_point(L, 1);
    if (json) {
        jw_object_begin(&w, NULL);
        jw_string(&w, "a", name_a);
        jw_string(&w, "b", name_b);
        jw_string(&w, "count", all ? "all" : "reachable");
        jw_uint(&w, "heap_bytes_a", pa->heap_bytes);
        jw_uint(&w, "heap_bytes_b", pb->heap_bytes);
        jw_array_begin_lines(&w, "classes");
    } else {
        buf_puts(b, "heap ");
        pm_put_bytes(b, (double)pa->heap_bytes);
        buf_puts(b, " -> ");
        pm_put_bytes(b, (double)pb->heap_bytes);
        buf_printf(b, " (%s objects)\n%10s %10s %10s %12s %12s %12s %10s  %s\n", all ? "all" : "reachable", "COUNT A",
                   "COUNT B", "CHANGE", "BYTES A", "BYTES B", "CHANGE", "NEW", "CONSTRUCTOR");
    }
    size_t shown = 0;
    for (size_t i = 0; i < nc && (!top || shown < top); i++) {
        const pm_leak_class_t *e = &c[i];
        if (e->first_count == e->last_count && e->first_bytes == e->last_bytes && !e->new_last) continue;
        shown++;
        if (json) {
            jw_object_begin(&w, NULL);
            jw_string(&w, "name", e->name);
            jw_uint(&w, "count_a", e->first_count);
            jw_uint(&w, "count_b", e->last_count);
            jw_int(&w, "count_change", delta(e->first_count, e->last_count));
            jw_uint(&w, "bytes_a", e->first_bytes);
            jw_uint(&w, "bytes_b", e->last_bytes);
            jw_int(&w, "bytes_change", delta(e->first_bytes, e->last_bytes));
            jw_uint(&w, "new", e->new_last);
            jw_end(&w);
        } else
            buf_printf(b, "%10llu %10llu %+10lld %12llu %12llu %+12lld %10llu  %s\n",
                       (unsigned long long)e->first_count, (unsigned long long)e->last_count,
                       delta(e->first_count, e->last_count), (unsigned long long)e->first_bytes,
                       (unsigned long long)e->last_bytes, delta(e->first_bytes, e->last_bytes),
                       (unsigned long long)e->new_last, e->name);
    }
    if (json) {
        jw_newline(&w);
        jw_end(&w);
        jw_end(&w);
        buf_putc(b, '\n');
    } else if (!shown) buf_puts(b, "(no constructor changed)\n");
    pm_leak_classes_free(c, nc);
}
