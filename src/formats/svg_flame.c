/* The SVG flame graph writer: lays the profile out as rectangles (merged call
 * tree sorted by name, or a flame chart along the timeline), colours them by
 * palette, and emits a standalone interactive SVG (script: flame.js). */
#include "formats/flame.h"
#include "formats/format.h"
#include "formats/palette.h"
#include "formats/svg_text.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char flame_js[] =
#include "flame_js.inc"
    ;

void flame_opts_defaults(flame_opts_t *o)
{
    memset(o, 0, sizeof *o);
    o->width = 1200;
    o->frame_height = 16;
    o->minwidth = 0.1;
    o->fontsize = 12;
    o->fonttype = "Verdana";
    o->fontwidth = 0.59;
    o->countname = "samples";
    o->nametype = "Function:";
    o->factor = 1;
}

typedef struct {
    double x, w;        /* px inside the view */
    double value;       /* weight (after --factor is applied only when printed) */
    double before;      /* differential: the earlier profile's weight, NAN when not differential */
    uint32_t frame;     /* UINT32_MAX = the root "all" */
    int depth;
} rect_t;

typedef struct {
    rect_t *r;
    size_t n, cap;
    int max_depth;
    unsigned long dropped;
} layout_t;

static void add_rect(layout_t *l, double x, double w, double value, double before, uint32_t frame, int depth)
{
    XGROW(l->r, l->cap, l->n + 1);
    l->r[l->n++] = (rect_t){x, w, value, before, frame, depth};
    if (depth > l->max_depth) l->max_depth = depth;
}

/* ---- differential: each drawn node's weight in the `before` profile ---- */

/* Maps a frame of p to the frame with the same label in q (UINT32_MAX when none). */
static uint32_t *map_frames(const profile_t *p, const profile_t *q)
{
    uint32_t *map = xmalloc((p->nframes + 1) * sizeof *map);
    u64map_t index;
    u64map_init(&index);
    buf_t b = {0};
    for (size_t f = 0; f < q->nframes; f++) {
        buf_clear(&b);
        profile_frame_label(q, (uint32_t)f, &b);
        int found;
        *u64map_upsert(&index, hash_bytes(b.data, b.len), &found) = (uint32_t)f;
    }
    for (size_t f = 0; f < p->nframes; f++) {
        buf_clear(&b);
        profile_frame_label(p, (uint32_t)f, &b);
        uint32_t v;
        map[f] = u64map_get(&index, hash_bytes(b.data, b.len), &v) ? v : UINT32_MAX;
    }
    buf_free(&b);
    u64map_free(&index);
    return map;
}

static double *before_totals(const profile_t *p, const profile_t *before, double scale)
{
    double *btot = xmalloc(before->nnodes * sizeof *btot);
    profile_totals(before, btot);
    uint32_t *fmap = map_frames(p, before);
    uint32_t *nmap = xmalloc(p->nnodes * sizeof *nmap);
    double *out = xmalloc(p->nnodes * sizeof *out);
    nmap[0] = 0;
    out[0] = btot[0] * scale;
    for (size_t i = 1; i < p->nnodes; i++) {
        uint32_t parent = nmap[p->nodes[i].parent], f = fmap[p->nodes[i].frame], child;
        nmap[i] = UINT32_MAX;
        if (parent != UINT32_MAX && f != UINT32_MAX &&
            u64map_get(&before->child_index, (uint64_t)parent << 32 | f, &child))
            nmap[i] = child;
        out[i] = nmap[i] == UINT32_MAX ? 0 : btot[nmap[i]] * scale;
    }
    free(btot);
    free(fmap);
    free(nmap);
    return out;
}

/* ---- flame graph layout: merged tree, children in name order ---- */

static void layout_tree(const profile_t *p, const flame_opts_t *o, double view_w, double total, double min_px,
                        layout_t *l)
{
    double *tot = xmalloc(p->nnodes * sizeof *tot);
    profile_totals(p, tot);
    double *bef = NULL;
    if (o->before) {
        double scale = 1;
        if (o->normalize && o->before->total > 0) scale = p->total / o->before->total;
        bef = before_totals(p, o->before, scale);
    }
    double px_per = total > 0 ? view_w / total : 0;
    add_rect(l, 0, view_w, tot[0], bef ? bef[0] : NAN, UINT32_MAX, 0);
    /* iterative DFS: (node, x) */
    typedef struct { uint32_t node; double x; int depth; } item_t;
    item_t *stack = NULL;
    size_t sn = 0, scap = 0;
    XGROW(stack, scap, 1);
    stack[sn++] = (item_t){0, 0, 0};
    while (sn) {
        item_t it = stack[--sn];
        size_t nc;
        uint32_t *kids = profile_sorted_children(p, it.node, &nc);
        double x = it.x;
        /* push in reverse so the leftmost child is laid out first (output order = x order) */
        double *xs = xmalloc((nc ? nc : 1) * sizeof *xs);
        for (size_t k = 0; k < nc; k++) {
            xs[k] = x;
            x += tot[kids[k]] * px_per;
        }
        for (size_t k = nc; k-- > 0;) {
            uint32_t c = kids[k];
            double w = tot[c] * px_per;
            if (w < min_px || tot[c] <= 0) {
                /* the frame and everything above it */
                l->dropped++;
                continue;
            }
            XGROW(stack, scap, sn + 1);
            stack[sn++] = (item_t){c, xs[k], it.depth + 1};
        }
        if (it.node) add_rect(l, it.x, tot[it.node] * px_per, tot[it.node], bef ? bef[it.node] : NAN,
                              p->nodes[it.node].frame, it.depth);
        free(xs);
        free(kids);
    }
    free(stack);
    free(tot);
    free(bef);
}

/* ---- flame chart layout: x is the timeline; consecutive samples merge ---- */

static int cmp_sample_time(const void *a, const void *b)
{
    double x = ((const profile_sample_t *)a)->time_us, y = ((const profile_sample_t *)b)->time_us;
    return x < y ? -1 : x > y;
}

static void layout_chart(const profile_t *p, double view_w, double total, double min_px, layout_t *l)
{
    profile_sample_t *s = xmalloc((p->nsamples + 1) * sizeof *s);
    memcpy(s, p->samples, p->nsamples * sizeof *s);
    qsort(s, p->nsamples, sizeof *s, cmp_sample_time);
    double px_per = total > 0 ? view_w / total : 0;
    add_rect(l, 0, view_w, total, NAN, UINT32_MAX, 0);
    /* open[d]: the run currently open at depth d+1 (node, start weight) */
    uint32_t *open_node = NULL, *path = NULL;
    double *open_start = NULL;
    size_t open_n = 0, cap1 = 0, cap2 = 0, cap3 = 0;
    double at = 0;
    for (size_t i = 0; i <= p->nsamples; i++) {
        size_t depth = 0;
        if (i < p->nsamples)
            for (uint32_t x = s[i].node; x; x = p->nodes[x].parent) depth++;
        XGROW(path, cap1, depth + 1);
        size_t k = depth;
        if (i < p->nsamples)
            for (uint32_t x = s[i].node; x; x = p->nodes[x].parent) path[--k] = x;
        size_t common = 0;
        while (common < open_n && common < depth && open_node[common] == path[common]) common++;
        /* close runs that end here */
        for (size_t d = open_n; d-- > common;) {
            double w = (at - open_start[d]) * px_per;
            if (w >= min_px) add_rect(l, open_start[d] * px_per, w, at - open_start[d], NAN, p->nodes[open_node[d]].frame, (int)d + 1);
            else l->dropped++;
        }
        open_n = common;
        if (i == p->nsamples) break;
        XGROW(open_node, cap2, depth + 1);
        XGROW(open_start, cap3, depth + 1);
        for (size_t d = common; d < depth; d++) open_node[d] = path[d], open_start[d] = at;
        open_n = depth;
        at += s[i].weight;
    }
    free(open_node);
    free(open_start);
    free(path);
    free(s);
}

/* ---- output ---- */

static const char *display_name(const profile_t *p, uint32_t frame, buf_t *b)
{
    buf_clear(b);
    if (frame == UINT32_MAX) {
        buf_puts(b, "all");
        return b->data;
    }
    profile_frame_label(p, frame, b);
    /* flamegraph annotations are for colouring, not reading */
    if (b->len >= 4 && b->data[b->len - 4] == '_' && b->data[b->len - 3] == '[' && b->data[b->len - 1] == ']' &&
        strchr("kjiw", b->data[b->len - 2])) {
        b->len -= 4;
        b->data[b->len] = 0;
    }
    return b->data;
}

static void put_num(buf_t *b, double v)
{
    if (v == floor(v) && fabs(v) < 1e15) buf_printf(b, "%.0f", v);
    else buf_printf(b, "%.2f", v);
}

/* "1,234" style counts as flamegraph.pl prints them */
static void put_count(buf_t *b, double v)
{
    char tmp[64];
    if (v != floor(v) || fabs(v) >= 1e18) {
        buf_printf(b, "%.2f", v);
        return;
    }
    snprintf(tmp, sizeof tmp, "%.0f", fabs(v));
    size_t len = strlen(tmp);
    if (v < 0) buf_putc(b, '-');
    for (size_t i = 0; i < len; i++) {
        buf_putc(b, tmp[i]);
        if ((len - i - 1) % 3 == 0 && i + 1 < len) buf_putc(b, ',');
    }
}

static int write_svg(const profile_t *p, FILE *out, const write_opts_t *wo)
{
    flame_opts_t defaults;
    flame_opts_defaults(&defaults);
    flame_opts_t *o = wo && wo->flame ? (flame_opts_t *)wo->flame : &defaults;
    double total = o->total > 0 ? o->total : p->total;
    const double xpad = 10;
    double view_w = o->width - 2 * xpad;
    if (view_w < 10) view_w = 10;
    double min_px = o->minwidth_pct ? view_w * o->minwidth / 100.0 : o->minwidth;
    int chart = o->flamechart && p->nsamples > 0;
    if (o->flamechart && !chart)
        diag_warn(NULL, 0, "--flamechart: this input has no timeline; drawing a flame graph instead");
    layout_t l = {0};
    if (total > 0) {
        if (chart) layout_chart(p, view_w, total, min_px, &l);
        else layout_tree(p, o, view_w, total, min_px, &l);
    }
    o->dropped = l.dropped;

    palette_t pal;
    palette_init(&pal, o->colors, p, o->hash, o->before != NULL, o->negate);
    double maxdelta = 0;
    if (o->before)
        for (size_t i = 0; i < l.n; i++) {
            double d = fabs(l.r[i].value - l.r[i].before);
            if (d > maxdelta) maxdelta = d;
        }

    const double fh = o->frame_height, fs = o->fontsize;
    const int has_legend = pal.legend_n > 0;
    const double ypad1 = fs * 3 + (o->subtitle ? fs * 1.5 : 0) + (has_legend ? fs * 1.6 : 0);
    const double ypad2 = fs * 2 + 10;
    const double view_h = (l.max_depth + 1) * fh;
    const double height = view_h + ypad1 + ypad2;
    const char *title = o->title ? o->title : chart ? "Flame Chart" : o->inverted ? "Icicle Graph" : "Flame Graph";

    buf_t b = {0}, name = {0};
    buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
                 "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n");
    buf_printf(&b, "<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
                   "xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n",
               o->width, height, o->width, height);
    if (o->notes) {
        buf_puts(&b, "<desc>");
        svg_escape(&b, o->notes, strlen(o->notes));
        buf_puts(&b, "</desc>\n");
    }
    buf_printf(&b, "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\">"
                   "<stop stop-color=\"%s\" offset=\"5%%\"/><stop stop-color=\"%s\" offset=\"95%%\"/></linearGradient></defs>\n",
               o->bgcolor1 ? o->bgcolor1 : pal.bg1, o->bgcolor2 ? o->bgcolor2 : pal.bg2);
    buf_puts(&b, "<style type=\"text/css\">\ntext { font-family:");
    svg_escape(&b, o->fonttype, strlen(o->fonttype));
    buf_printf(&b, "; font-size:%.1fpx; fill:rgb(0,0,0); }\n"
                   "#title { text-anchor:middle; font-size:%.1fpx; }\n#subtitle { text-anchor:middle; fill:rgb(160,160,160); }\n"
                   "#search, #unzoom { cursor:pointer; }\n#search.active { fill:rgb(230,0,230); }\n"
                   ".hide { display:none; }\n#labels text { pointer-events:none; }\n"
                   "rect.f:hover { stroke:black; stroke-width:0.5; vector-effect:non-scaling-stroke; cursor:pointer; }\n"
                   "rect.f.parent { opacity:0.5; }\n</style>\n",
               fs, fs + 5);
    buf_printf(&b, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"url(#background)\"/>\n", o->width, height);
    buf_printf(&b, "<text id=\"title\" x=\"%.1f\" y=\"%.1f\">", o->width / 2, fs * 2);
    svg_escape(&b, title, strlen(title));
    buf_puts(&b, "</text>\n");
    if (o->subtitle) {
        buf_printf(&b, "<text id=\"subtitle\" x=\"%.1f\" y=\"%.1f\">", o->width / 2, fs * 3.5);
        svg_escape(&b, o->subtitle, strlen(o->subtitle));
        buf_puts(&b, "</text>\n");
    }
    buf_printf(&b, "<text id=\"details\" x=\"%.1f\" y=\"%.1f\"> </text>\n", xpad, height - fs);
    buf_printf(&b, "<text id=\"unzoom\" class=\"hide\" x=\"%.1f\" y=\"%.1f\">Reset Zoom</text>\n", xpad, fs * 2);
    buf_printf(&b, "<text id=\"search\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">Search</text>\n", o->width - xpad, fs * 2);
    buf_printf(&b, "<text id=\"matched\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\"> </text>\n", o->width - xpad, height - fs);
    if (has_legend) {
        double lx = xpad, ly = ypad1 - fs * 1.4;
        buf_puts(&b, "<g id=\"legend\">");
        for (int i = 0; i < pal.legend_n; i++) {
            buf_printf(&b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>", lx, ly, fs, fs - 2,
                       pal.legend[i].color);
            buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\">", lx + fs + 3, ly + fs - 3);
            svg_escape(&b, pal.legend[i].label, strlen(pal.legend[i].label));
            buf_puts(&b, "</text>");
            /* a whole font size of gap: the width is only estimated, and short capitals ("GC") run wide */
            lx += fs + 3 + strlen(pal.legend[i].label) * fs * o->fontwidth + fs;
        }
        buf_puts(&b, "</g>\n");
    }
    if (l.dropped)
        buf_printf(&b, "<!-- %lu frames narrower than %.3g%s were dropped (--minwidth) -->\n", l.dropped, o->minwidth,
                   o->minwidth_pct ? "%" : " px");
    buf_printf(&b, "<svg id=\"view\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" overflow=\"hidden\">\n",
               xpad, ypad1, view_w, view_h);

    /* Frames: one <rect> each (titles and labels only where the frame is wide enough to
     * show them; the script adds them on demand), then the per-frame data as JSON. Large
     * graphs load several times faster this way than with a <g><title><rect><text> per frame. */
    buf_puts(&b, "<g id=\"frames\">\n");
    const double char_w = fs * o->fontwidth;
    buf_t labels = {0}, tip = {0};
    u64map_t name_index;
    u64map_init(&name_index);
    buf_t names_json = {0}, idx_json = {0}, val_json = {0}, bef_json = {0};
    uint32_t nnames = 0;
    for (size_t i = 0; i < l.n; i++) {
        const rect_t *r = &l.r[i];
        double y = o->inverted ? r->depth * fh : (l.max_depth - r->depth) * fh;
        const char *nm = display_name(p, r->frame, &name);
        frame_kind_t kind = r->frame == UINT32_MAX ? FRAME_ROOT : p->frames[r->frame].kind;
        char color[32];
        if (o->before) palette_diff_color(&pal, r->value - r->before, maxdelta, color);
        else palette_color(&pal, nm, name.len, kind, color);
        /* the tooltip text: "name (N samples, P%[; before M, +D (+X%)])" */
        buf_clear(&tip);
        put_count(&tip, r->value * o->factor);
        buf_putc(&tip, ' ');
        buf_puts(&tip, o->countname);
        buf_printf(&tip, ", %.2f%%", total > 0 ? 100.0 * r->value / total : 0);
        if (o->before) {
            buf_puts(&tip, "; before ");
            put_count(&tip, r->before * o->factor);
            buf_puts(&tip, ", ");
            double d = r->value - r->before;
            buf_putc(&tip, d >= 0 ? '+' : '-');
            put_count(&tip, fabs(d) * o->factor);
            if (r->before > 0) buf_printf(&tip, " (%+.1f%%)", 100.0 * d / r->before);
            else if (r->value > 0) buf_puts(&tip, " (new)");
        }
        buf_puts(&b, "<rect class=\"f\" x=\"");
        put_num(&b, round(r->x * 100) / 100);
        buf_printf(&b, "\" y=\"%.0f\" width=\"", y);
        put_num(&b, round(r->w * 100) / 100);
        buf_printf(&b, "\" height=\"%.0f\" fill=\"%s\"", fh - 1, color);
        if (r->w >= 4) {
            buf_puts(&b, "><title>");
            svg_escape(&b, nm, name.len);
            buf_puts(&b, " (");
            svg_escape(&b, tip.data, tip.len);
            buf_puts(&b, ")</title></rect>\n");
        } else {
            buf_puts(&b, "/>\n");
        }
        if ((r->w - 6) / char_w >= 3) {
            buf_printf(&labels, "<text data-i=\"%zu\" x=\"%.1f\" y=\"%.1f\">", i, r->x + 3, y + fh / 2 + fs / 3);
            svg_escape_fit(&labels, nm, name.len, (r->w - 6) / char_w);
            buf_puts(&labels, "</text>\n");
        }
        /* data for the script: name table index, tooltip text, depth */
        int found;
        uint32_t *slot = u64map_upsert(&name_index, hash_bytes(nm, name.len), &found);
        if (!found) {
            *slot = nnames++;
            if (names_json.len) buf_putc(&names_json, ',');
            svg_json_string_n(&names_json, nm, name.len);
        }
        buf_printf(&idx_json, "%s%u,%d", i ? "," : "", *slot, r->depth);
        if (i) buf_putc(&val_json, ',');
        svg_json_string_n(&val_json, tip.data, tip.len);
        if (b.len > (1 << 20)) {
            fwrite(b.data, 1, b.len, out);
            buf_clear(&b);
        }
    }
    buf_puts(&b, "</g>\n<g id=\"labels\">\n");
    buf_append(&b, labels.data ? labels.data : "", labels.len);
    buf_puts(&b, "</g>\n</svg>\n");
    /* configuration and frame data for the script, as JSON text (never executed) */
    buf_printf(&b, "<script type=\"application/json\" id=\"flame-config\">{\"fontsize\":%.2f,\"fontwidth\":%.3f,"
                   "\"viewWidth\":%.2f,\"frameHeight\":%.2f,\"searchcolor\":\"rgb(230,0,230)\",\"ignorecase\":false,\"nametype\":",
               fs, o->fontwidth, view_w, fh);
    svg_json_string(&b, o->nametype);
    buf_puts(&b, ",\n\"names\":[");
    buf_append(&b, names_json.data ? names_json.data : "", names_json.len);
    buf_puts(&b, "],\n\"frames\":[");
    buf_append(&b, idx_json.data ? idx_json.data : "", idx_json.len);
    buf_puts(&b, "],\n\"tips\":[");
    buf_append(&b, val_json.data ? val_json.data : "", val_json.len);
    buf_puts(&b, "]}</script>\n<script type=\"text/ecmascript\"><![CDATA[\n");
    buf_puts(&b, flame_js);
    buf_puts(&b, "]]></script>\n</svg>\n");
    u64map_free(&name_index);
    buf_free(&labels);
    buf_free(&tip);
    buf_free(&names_json);
    buf_free(&idx_json);
    buf_free(&val_json);
    buf_free(&bef_json);
    size_t len = b.len, w = fwrite(b.data, 1, len, out);
    buf_free(&b);
    buf_free(&name);
    free(l.r);
    palette_free(&pal);
    return w == len ? 0 : -1;
}

const format_writer_t format_svg_writer = {
    .name = "svg",
    .extensions = ".svg",
    .write = write_svg,
};
