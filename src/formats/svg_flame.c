/* The SVG flame graph writer: draws the rectangles flame_layout.c lays out (a merged call tree
 * sorted by name, or a flame chart along the timeline), colours them by palette, and emits a
 * standalone interactive SVG (script: flame.js). */
#include "formats/flame.h"
#include "formats/flame_layout.h"
#include "formats/format.h"
#include "formats/palette.h"
#include "formats/svg_text.h"
#include "util/bigmem.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <math.h>
#include <stdio.h>
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
    o->countname = NULL; /* the profile's weight unit */
    o->nametype = "Function:";
    o->factor = 1;
}

/* ---- names and labels ---- */

static const char *display_name(const profile_t *p, const flame_rect_t *r, const flame_fold_t *fi, buf_t *b)
{
    buf_clear(b);
    if (r->frame == UINT32_MAX) {
        buf_puts(b, "all");
        return b->data;
    }
    profile_frame_label(p, r->frame, b);
    /* flamegraph annotations are for colouring, not reading */
    if (b->len >= 4 && b->data[b->len - 4] == '_' && b->data[b->len - 3] == '[' && b->data[b->len - 1] == ']' &&
        strchr("kjiw", b->data[b->len - 2])) {
        b->len -= 4;
        b->data[b->len] = 0;
    }
    if (fi && fi->run_max && fi->run_max[r->node] > 1) {
        int lo = fi->run_min[r->node], hi = fi->run_max[r->node];
        if (lo == INT32_MAX || lo >= hi) buf_printf(b, " \xc3\x97%d", hi);
        else buf_printf(b, " \xc3\x97%d\xe2\x80\x93%d", lo, hi);
    }
    return b->data;
}

/* Shorter labels for a frame, longest first, each shorter than the one before, into
 * forms[0..] (returns the count, at most 3). The full name stays in tooltips and search. */
static int label_forms(const profile_t *p, const flame_rect_t *r, const char *full, size_t full_len, buf_t forms[3])
{
    for (int k = 0; k < 3; k++) buf_clear(&forms[k]);
    if (r->frame == UINT32_MAX) return 0;
    const profile_frame_t *f = &p->frames[r->frame];
    int n = 0;
    size_t prev = full_len;
    if (frame_kind_is_js(f->kind)) {
        /* JS:*fib /app/lib/fib.js:1:13 -> *fib fib.js:1 -> *fib */
        static buf_t name;
        const char *url;
        int32_t line, col;
        profile_frame_split_v8(f, &name, &url, &line, &col);
        char tier = f->kind == FRAME_JS_TURBOFAN      ? '*'
                    : f->kind == FRAME_JS_MAGLEV      ? '+'
                    : f->kind == FRAME_JS_BASELINE    ? '^'
                    : f->kind == FRAME_JS_INTERPRETED ? '~'
                                                      : 0;
        /* forms[1] = the function, forms[0] = the function and file:line (when shorter than the full name) */
        buf_t *fn = &forms[1], *at = &forms[0];
        if (tier && (!name.len || name.data[0] != tier)) buf_putc(fn, tier);
        buf_append(fn, name.data ? name.data : "", name.len);
        if (url && *url) {
            const char *base = strrchr(url, '/');
            buf_append(at, fn->data, fn->len);
            buf_putc(at, ' ');
            buf_puts(at, base && base[1] ? base + 1 : url);
            if (line > 0) buf_printf(at, ":%d", line);
            if (at->len < prev) prev = at->len, n++;
        }
        if (fn->len < prev) {
            if (n == 0) { /* move it to the front */
                buf_t t = forms[0];
                forms[0] = forms[1];
                forms[1] = t;
            }
            n++;
        }
        buf_clear(&forms[n < 3 ? n : 2]);
        return n;
    }
    /* V8 builtins: Builtins_InterpreterEntryTrampoline -> InterpreterEntryTrampoline */
    if (full_len > 9 && !memcmp(full, "Builtins_", 9)) {
        buf_append(&forms[0], full + 9, full_len - 9);
        return 1;
    }
    if (!memchr(full, ':', full_len) && !memchr(full, '(', full_len) && !memchr(full, '<', full_len)) return 0;
    svg_cxx_short(full, full_len, &forms[0], &forms[1], &forms[2]);
    /* compact the non-empty ones to the front */
    for (int k = 0; k < 3; k++) {
        if (!forms[k].len) continue;
        if (k != n) {
            buf_t t = forms[n];
            forms[n] = forms[k];
            forms[k] = t;
        }
        n++;
    }
    return n;
}

/* ---- numbers ---- */

/* A weight as JSON: integers exactly, others with every digit (x positions add them up). */
static void put_json_num(buf_t *b, double v)
{
    if (v == floor(v) && fabs(v) < 9e15) {
        if (v < 0) buf_putc(b, '-');
        buf_put_u64(b, (unsigned long long)fabs(v));
    } else {
        buf_printf(b, "%.17g", v);
    }
}

/* A number of a data column, packed: an integer 0 <= v < 2^53 as base-32 digits, most
 * significant first, the last from "0-9A-V" and the others from "W-Za-z+/"; anything
 * else as "~" + its decimal text + ";". flame.js's unpack() reads them. */
static const char pack_digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz+/";

static void put_packed(buf_t *b, double v)
{
    const char *digits = pack_digits;
    if (v >= 0 && v < 9007199254740992.0 && v == floor(v)) {
        unsigned long long u = (unsigned long long)v;
        char tmp[16];
        int n = 0;
        tmp[n++] = digits[u & 31];
        for (u >>= 5; u; u >>= 5) tmp[n++] = digits[32 + (u & 31)];
        while (n) buf_putc(b, tmp[--n]);
    } else {
        buf_printf(b, "~%.17g;", v);
    }
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

/* A weight for people: "2.15 s" for time units, else "1,234 samples" / "5,000,000 cycles".
 * flame.js's value() is the same rule (a browser test compares the two). */
static void put_value(buf_t *b, double v, const char *unit, double unit_s)
{
    if (unit_s > 0) {
        static const struct {
            double s;
            const char *name;
        } scale[] = {{1, "s"}, {1e-3, "ms"}, {1e-6, "\xc2\xb5s"}, {1e-9, "ns"}};
        double sec = v * unit_s;
        if (sec == 0) {
            buf_puts(b, "0 s");
            return;
        }
        int k = 0;
        while (k < 3 && fabs(sec) < scale[k].s) k++;
        double x = sec / scale[k].s;
        if (fabs(x) >= 100) put_count(b, round(x));
        else buf_printf(b, fabs(x) >= 10 ? "%.1f" : "%.2f", x);
        buf_printf(b, " %s", scale[k].name);
        return;
    }
    put_count(b, v);
    buf_putc(b, ' ');
    buf_puts(b, unit);
}

/* ---- drawing ----
 * Huge graphs open instantly: the browser's cost is one element per frame (parsing,
 * style, layout: ~100 µs a frame with its title and label, 13 s for 148,000 frames),
 * while the frames narrower than a pixel are not visible as themselves anyway. The
 * file holds every frame as compact columns of JSON (the script's data), but elements
 * only for what a person can see: a <rect> for every frame at least DRAW_MIN_PX wide
 * (the widest DRAW_MAX when there are more), and for the narrower ones one grey-free
 * "grass" <rect> per run of adjacent narrow frames at a depth (coloured like the
 * widest of them), so the picture looks the same in a viewer without scripts, in
 * print and in screenshots. The script hit-tests the pointer against the data (any
 * frame, drawn or not, shows in the details line) and redraws the same way after
 * zoom and search; flame.js's render() is this rule. */
#define DRAW_MIN_PX 1.0
#define DRAW_MAX 6000
#define GRASS_GAP_PX 0.5

static int cmp_double_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x < y) - (x > y);
}

/* the width from which frames are drawn as elements */
static double draw_threshold(const flame_layout_t *l, double px_per)
{
    size_t n = 0;
    for (size_t i = 0; i < l->n; i++) n += l->r[i].value * px_per >= DRAW_MIN_PX;
    if (n <= DRAW_MAX) return DRAW_MIN_PX;
    double *w = xmalloc(l->n * sizeof *w);
    for (size_t i = 0; i < l->n; i++) w[i] = l->r[i].value * px_per;
    qsort(w, l->n, sizeof *w, cmp_double_desc);
    double t = w[DRAW_MAX - 1];
    free(w);
    return t;
}

typedef struct {
    int open;
    double x, end, widest;
    char color[32];
} grass_t;

/* Colours are kept to 6 bits a channel (c -> q = c>>2, read back as q<<2 | q>>4: 0 and 255
 * stay): 3 characters of the data per colour, and the elements drawn with the same. */
/* "rgb(r,g,b)" as the palette writes it (non-negative decimals) -> c; channels it cannot read stay */
static void parse_rgb(const char *s, int c[3])
{
    if (strncmp(s, "rgb(", 4)) return;
    s += 4;
    for (int k = 0; k < 3; k++) {
        if (*s < '0' || *s > '9') return;
        int v = 0;
        while (*s >= '0' && *s <= '9' && v < 100000) v = v * 10 + (*s++ - '0');
        c[k] = v;
        if (*s++ != (k < 2 ? ',' : ')')) return;
    }
}

static void format_rgb(char out[32], const int c[3])
{
    char *o = out;
    memcpy(o, "rgb(", 4), o += 4;
    for (int k = 0; k < 3; k++) {
        int v = c[k]; /* 0..255 */
        if (v >= 100) *o++ = (char)('0' + v / 100);
        if (v >= 10) *o++ = (char)('0' + v / 10 % 10);
        *o++ = (char)('0' + v % 10);
        *o++ = k < 2 ? ',' : ')';
    }
    *o = 0;
}

static void quantize_color(char color[32])
{
    int c[3] = {128, 128, 128};
    parse_rgb(color, c);
    for (int k = 0; k < 3; k++) {
        int q = (c[k] < 0 ? 0 : c[k] > 255 ? 255 : c[k]) >> 2;
        c[k] = q << 2 | q >> 4;
    }
    format_rgb(color, c);
}

static void put_packed_color(buf_t *b, const char *color)
{
    int c[3] = {128, 128, 128};
    parse_rgb(color, c);
    for (int k = 0; k < 3; k++) buf_putc(b, pack_digits[(c[k] >> 2) & 63]);
}

/* Decimal digits of u, without printf (one call per number of every element drawn). */
static void put_u64(buf_t *b, unsigned long long u)
{
    char tmp[24];
    int n = 0;
    do tmp[n++] = (char)('0' + u % 10), u /= 10;
    while (u);
    buf_reserve(b, (size_t)n);
    while (n) b->data[b->len++] = tmp[--n];
    b->data[b->len] = 0;
}

/* printf("%.2f", round(v * 100) / 100): that value is the double nearest to k / 100 for the
 * integer k = round(v * 100), and printing it to 2 decimals gives k's digits back exactly */
static void put_px(buf_t *b, double v)
{
    double k = round(v * 100);
    if (!(fabs(k) < 1e15)) {
        buf_printf(b, "%.2f", k / 100 + 0.0);
        return;
    }
    long long i = (long long)k;
    unsigned long long u = (unsigned long long)(i < 0 ? -i : i);
    if (i < 0) buf_putc(b, '-');
    put_u64(b, u / 100);
    buf_putc(b, '.');
    buf_putc(b, (char)('0' + u / 10 % 10));
    buf_putc(b, (char)('0' + u % 10));
}

/* printf("%.0f", v) for the whole numbers rects are placed at; printf for the rest */
static void put_whole(buf_t *b, double v)
{
    if (v == floor(v) && fabs(v) < 1e15 && !(v == 0 && signbit(v))) {
        if (v < 0) buf_putc(b, '-');
        put_u64(b, (unsigned long long)fabs(v));
    } else {
        buf_printf(b, "%.0f", v);
    }
}

static void close_grass(buf_t *b, grass_t *g, double y, double fh)
{
    if (!g->open) return;
    g->open = 0;
    buf_puts(b, "<rect class=\"g\" x=\"");
    put_px(b, g->x);
    buf_puts(b, "\" y=\"");
    put_whole(b, y);
    buf_puts(b, "\" width=\"");
    put_px(b, g->end - g->x);
    buf_puts(b, "\" height=\"");
    put_whole(b, fh - 1);
    buf_puts(b, "\" fill=\"");
    buf_puts(b, g->color);
    buf_puts(b, "\"/>\n");
}

static int write_svg(const profile_t *p_in, FILE *out, const write_opts_t *wo)
{
    bigmem_prepare();
    flame_opts_t defaults;
    flame_opts_defaults(&defaults);
    flame_opts_t *o = wo && wo->flame ? (flame_opts_t *)wo->flame : &defaults;
    flame_fold_t fi = {0}, fi_before = {0};
    profile_t *folded = o->keep_unknown ? NULL : flame_fold_unknown(p_in, &fi);
    const profile_t *p = folded ? folded : p_in;
    profile_t *folded_before = NULL;
    flame_opts_t oo = *o; /* the layout sees the folded `before` too, so frames match by name */
    if (o->before && !o->keep_unknown && (folded_before = flame_fold_unknown(o->before, &fi_before)))
        oo.before = folded_before;

    double total = o->total > 0 ? o->total : p->total;
    const double xpad = 10;
    double view_w = o->width - 2 * xpad;
    if (view_w < 10) view_w = 10;
    double min_px = o->minwidth_pct ? view_w * o->minwidth / 100.0 : o->minwidth;
    int chart = o->flamechart && p->nsamples > 0;
    if (o->flamechart && !chart)
        diag_warn(NULL, 0, "--flamechart: this input has no timeline; drawing a flame graph instead");
    flame_layout_t l = {0};
    if (total > 0) {
        if (chart) flame_layout_chart(p, view_w, total, min_px, &l);
        else flame_layout_tree(p, &oo, view_w, total, min_px, &l);
    }
    o->dropped = l.dropped;
    double px_per = total > 0 ? view_w / total : 0;

    palette_t pal;
    palette_init(&pal, o->colors, p, o->hash, o->before != NULL, o->negate);
    double maxdelta = 0;
    if (o->before)
        for (size_t i = 0; i < l.n; i++) {
            double d = fabs(l.r[i].value - l.r[i].before);
            if (d > maxdelta) maxdelta = d;
        }

    const char *unit = o->countname ? o->countname : p->weight_unit && *p->weight_unit ? p->weight_unit : "samples";
    double unit_s = o->countname ? 0 : profile_unit_seconds(unit);
    const double fh = o->frame_height, fs = o->fontsize;
    const int has_legend = pal.legend_n > 0;
    const double ypad1 = fs * 4.5 + (has_legend ? fs * 1.6 : 0);
    const double ypad2 = fs * 2 + 10;
    const double view_h = (l.max_depth + 1) * fh;
    const double height = view_h + ypad1 + ypad2;
    const char *title = o->title ? o->title : chart ? "Flame Chart" : o->inverted ? "Icicle Graph" : "Flame Graph";
    const char *bg1 = o->bgcolor1 ? o->bgcolor1 : pal.bg1, *bg2 = o->bgcolor2 ? o->bgcolor2 : pal.bg2;

    buf_t b = {0}, name = {0};
    buf_puts(
        &b, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
            "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n");
    buf_printf(&b,
               "<svg version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
               "xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n",
               o->width, height, o->width, height);
    if (o->notes) {
        buf_puts(&b, "<desc>");
        svg_escape(&b, o->notes, strlen(o->notes));
        buf_puts(&b, "</desc>\n");
    }
    buf_puts(&b, "<defs><linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\"><stop stop-color=\"");
    svg_escape(&b, bg1, strlen(bg1));
    buf_puts(&b, "\" offset=\"5%\"/><stop stop-color=\"");
    svg_escape(&b, bg2, strlen(bg2));
    buf_puts(&b, "\" offset=\"95%\"/></linearGradient></defs>\n");
    buf_puts(&b, "<style type=\"text/css\">\ntext { font-family:");
    svg_escape(&b, o->fonttype, strlen(o->fonttype));
    buf_printf(
        &b,
        "; font-size:%.1fpx; fill:rgb(0,0,0); }\n"
        "#title { text-anchor:middle; font-size:%.1fpx; }\n#subtitle { text-anchor:middle; fill:rgb(160,160,160); }\n"
        "#search, #unzoom { cursor:pointer; }\n#search.active { fill:rgb(230,0,230); }\n"
        ".hide { display:none; }\n#labels text { pointer-events:none; }\n#view { cursor:pointer; }\n"
        "rect.f:hover { stroke:black; stroke-width:0.5; }\n"
        "rect.f.parent { opacity:0.5; }\n</style>\n",
        fs, fs + 5);
    buf_printf(&b, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"url(#background)\"/>\n", o->width,
               height);
    if (l.dropped)
        buf_printf(&b, "<!-- %lu frames narrower than %.3g%s were dropped (--minwidth) -->\n", l.dropped, o->minwidth,
                   o->minwidth_pct ? "%" : " px");
    buf_printf(&b, "<svg id=\"view\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" overflow=\"hidden\">\n", xpad,
               ypad1, view_w, view_h);

    /* Elements for the frames a person can see (see DRAW_MIN_PX), then every frame as data. */
    const double char_w = fs * o->fontwidth;
    const double thr = draw_threshold(&l, px_per);
    buf_t labels = {0}, forms[3] = {{0}};
    u64map_t name_index;
    u64map_init(&name_index);
    char(*name_color)[32] = NULL;
    size_t name_color_cap = 0;
    buf_t names_json = {0}, forms_json = {0}, colors_json = {0};
    buf_t col_n = {0}, col_d = {0}, col_g = {0}, col_v = {0}, col_b = {0}, prev_name = {0}, entry = {0};
    int prev_depth = -1;
    uint32_t nnames = 0;
    /* per depth: where the next frame starts when it has no gap (flame.js rebuilds x from this) */
    double *cursor = xcalloc((size_t)l.max_depth + 2, sizeof *cursor);
    grass_t *grass = xcalloc((size_t)l.max_depth + 1, sizeof *grass);
    buf_puts(&b, "<g id=\"frames\">\n");
    for (size_t i = 0; i < l.n; i++) {
        const flame_rect_t *r = &l.r[i];
        const char *nm = display_name(p, r, folded ? &fi : NULL, &name);
        frame_kind_t kind = r->frame == UINT32_MAX ? FRAME_ROOT : p->frames[r->frame].kind;
        char color[32];
        /* the data: name, depth, gap before the frame, value[, before, colour] */
        int found;
        uint32_t *slot = u64map_upsert(&name_index, hash_bytes(nm, name.len), &found);
        /* a name keeps the colour of its first frame: computed once per name (per frame when differential) */
        if (o->before || !found) {
            if (o->before) palette_diff_color(&pal, r->value - r->before, maxdelta, color);
            else palette_color(&pal, nm, name.len, kind, color);
            quantize_color(color);
        }
        if (!found) {
            *slot = nnames++;
            /* names are one string, a name per line (a name's control characters are escaped),
             * each as the length of the ASCII prefix it shares with the one before (a character,
             * 32 + length) and the rest; every 64th shares nothing, so that flame.js can decode
             * a name from the 63 before it */
            if (*slot) buf_puts(&names_json, "\\n");
            size_t pre = 0;
            while (*slot % 64 && pre < 94 && pre < name.len && pre < prev_name.len && nm[pre] == prev_name.data[pre] &&
                   !(nm[pre] & 0x80))
                pre++;
            buf_clear(&entry);
            buf_putc(&entry, (char)(32 + pre));
            buf_append(&entry, nm + pre, name.len - pre);
            buf_clear(&prev_name);
            buf_append(&prev_name, nm, name.len);
            size_t at = names_json.len;
            svg_json_string_n(&names_json, entry.data, entry.len);
            /* without its quotes: the names are one JSON string */
            memmove(names_json.data + at, names_json.data + at + 1, names_json.len - at - 2);
            names_json.len -= 2;
            int nf = label_forms(p, r, nm, name.len, forms);
            for (int k = 0; k < nf; k++) {
                if (!k) buf_printf(&forms_json, "%s\"%u\":[", forms_json.len ? "," : "", *slot);
                else buf_putc(&forms_json, ',');
                svg_json_string_n(&forms_json, forms[k].data, forms[k].len);
            }
            if (nf) buf_putc(&forms_json, ']');
            /* the colour of a name (and kind) is the same everywhere; a differential one is per frame */
            if (!o->before) {
                XGROW(name_color, name_color_cap, nnames);
                memcpy(name_color[*slot], color, sizeof color);
                put_packed_color(&colors_json, color);
            }
        }
        uint32_t name_id = *slot;
        if (!o->before) memcpy(color, name_color[name_id], sizeof color);
        else put_packed_color(&colors_json, color);
        /* a name's id counted back from the next new one: 0 for a new name */
        put_packed(&col_n, found ? nnames - name_id : 0);
        /* depth: how many levels up from one deeper than the frame before */
        put_packed(&col_d, prev_depth + 1 - r->depth);
        prev_depth = r->depth;
        double gap = r->start - cursor[r->depth];
        if (fabs(gap) <= 1e-9 * (total > 0 ? total : 1)) gap = 0;
        double x_w = cursor[r->depth] + gap; /* exactly what flame.js computes */
        cursor[r->depth] = x_w + r->value;
        cursor[r->depth + 1] = x_w;
        put_packed(&col_g, gap);
        put_packed(&col_v, r->value);
        if (o->before) put_packed(&col_b, r->before);

        /* the elements */
        double x = x_w * px_per, w = r->value * px_per;
        double y = o->inverted ? r->depth * fh : (l.max_depth - r->depth) * fh;
        grass_t *g = &grass[r->depth];
        if (w >= thr || r->frame == UINT32_MAX) {
            close_grass(&b, g, y, fh);
            buf_puts(&b, "<rect class=\"f\" data-i=\"");
            put_u64(&b, i);
            buf_puts(&b, "\" x=\"");
            put_px(&b, x);
            buf_puts(&b, "\" y=\"");
            put_whole(&b, y);
            buf_puts(&b, "\" width=\"");
            put_px(&b, w);
            buf_puts(&b, "\" height=\"");
            put_whole(&b, fh - 1);
            buf_puts(&b, "\" fill=\"");
            buf_puts(&b, color);
            buf_puts(&b, "\"/>\n");
            double fit = floor((w - 6) / char_w);
            if (fit >= 3) {
                buf_printf(&labels, "<text data-i=\"%zu\" x=\"%.1f\" y=\"%.1f\">", i, x + 3, y + fh / 2 + fs / 3);
                /* the longest form that fits, else the shortest cut to fit */
                const char *t = nm;
                size_t tl = name.len;
                if (svg_char_count(nm, name.len) > fit) {
                    int nf = label_forms(p, r, nm, name.len, forms);
                    for (int k = 0; k < nf; k++) {
                        t = forms[k].data, tl = forms[k].len;
                        if (svg_char_count(t, tl) <= fit) break;
                    }
                }
                svg_escape_fit(&labels, t, tl, fit);
                buf_puts(&labels, "</text>\n");
            }
        } else {
            if (g->open && x - g->end >= GRASS_GAP_PX) close_grass(&b, g, y, fh);
            if (!g->open) {
                g->open = 1;
                g->x = x;
                g->widest = -1;
            }
            g->end = x + w;
            if (w > g->widest) {
                g->widest = w;
                memcpy(g->color, color, sizeof color);
            }
        }
        if (b.len > (1 << 20)) {
            fwrite(b.data, 1, b.len, out);
            buf_clear(&b);
        }
    }
    for (int d = 0; d <= l.max_depth; d++)
        close_grass(&b, &grass[d], o->inverted ? d * fh : (l.max_depth - d) * fh, fh);
    buf_puts(&b, "</g>\n<g id=\"labels\">\n");
    buf_append(&b, labels.data ? labels.data : "", labels.len);
    buf_puts(&b, "</g>\n</svg>\n");

    /* header and footer: after the frames, so that the script can keep them in view over them */
    buf_puts(&b, "<g id=\"header\"><rect x=\"0\" y=\"0\" width=\"");
    buf_printf(&b, "%.0f\" height=\"%.1f\" fill=\"", o->width, ypad1 - 2);
    svg_escape(&b, bg1, strlen(bg1));
    buf_puts(&b, "\"/>\n");
    buf_printf(&b, "<text id=\"title\" x=\"%.1f\" y=\"%.1f\">", o->width / 2, fs * 2);
    svg_escape(&b, title, strlen(title));
    buf_puts(&b, "</text>\n");
    /* the subtitle names the unit of the weights, and their total */
    buf_printf(&b, "<text id=\"subtitle\" x=\"%.1f\" y=\"%.1f\">", o->width / 2, fs * 3.5);
    if (o->subtitle) svg_escape(&b, o->subtitle, strlen(o->subtitle));
    buf_printf(&b, "<tspan id=\"total\">%s", o->subtitle ? " \xc2\xb7 " : "");
    {
        buf_t t = {0};
        buf_puts(&t, "total ");
        put_value(&t, total * o->factor, unit, unit_s);
        if (unit_s > 0) buf_printf(&t, " (weights in %s)", unit);
        svg_escape(&b, t.data, t.len);
        buf_free(&t);
    }
    buf_puts(&b, "</tspan></text>\n");
    buf_printf(&b, "<text id=\"unzoom\" class=\"hide\" x=\"%.1f\" y=\"%.1f\">Reset Zoom</text>\n", xpad, fs * 2);
    buf_printf(&b, "<text id=\"search\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">Search</text>\n", o->width - xpad,
               fs * 2);
    if (has_legend) {
        double lx = xpad, ly = ypad1 - fs * 1.4;
        buf_puts(&b, "<g id=\"legend\">");
        for (int i = 0; i < pal.legend_n; i++) {
            buf_printf(&b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>", lx, ly, fs,
                       fs - 2, pal.legend[i].color);
            buf_printf(&b, "<text x=\"%.1f\" y=\"%.1f\">", lx + fs + 3, ly + fs - 3);
            svg_escape(&b, pal.legend[i].label, strlen(pal.legend[i].label));
            buf_puts(&b, "</text>");
            /* a whole font size of gap: the width is only estimated, and short capitals ("GC") run wide */
            lx += fs + 3 + strlen(pal.legend[i].label) * fs * o->fontwidth + fs;
        }
        buf_puts(&b, "</g>\n");
    }
    buf_puts(&b, "</g>\n<g id=\"footer\"><rect x=\"0\" y=\"");
    buf_printf(&b, "%.1f\" width=\"%.0f\" height=\"%.1f\" fill=\"", height - ypad2 + 6, o->width, ypad2 - 6);
    svg_escape(&b, bg2, strlen(bg2));
    buf_puts(&b, "\"/>\n");
    buf_printf(&b, "<text id=\"details\" x=\"%.1f\" y=\"%.1f\"> </text>\n", xpad, height - fs);
    buf_printf(&b, "<text id=\"matched\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\"> </text>\n</g>\n", o->width - xpad,
               height - fs);

    /* configuration and frame data for the script, as JSON text (never executed) */
    buf_printf(&b,
               "<script type=\"application/json\" id=\"flame-config\">{\"fontsize\":%.2f,\"fontwidth\":%.3f,"
               "\"viewWidth\":%.2f,\"frameHeight\":%.2f,\"maxDepth\":%d,\"count\":%zu,\"inverted\":%s,\"total\":",
               fs, o->fontwidth, view_w, fh, l.max_depth, l.n, o->inverted ? "true" : "false");
    put_json_num(&b, total);
    buf_puts(&b, ",\"factor\":");
    put_json_num(&b, o->factor);
    buf_puts(&b, ",\"unit\":");
    svg_json_string(&b, unit);
    buf_printf(&b,
               ",\"unitSeconds\":%.0e,\"drawMin\":%g,\"drawMax\":%d,\"grassGap\":%g,"
               "\"searchcolor\":\"rgb(230,0,230)\",\"ignorecase\":false,\"nametype\":",
               unit_s, DRAW_MIN_PX, DRAW_MAX, GRASS_GAP_PX);
    svg_json_string(&b, o->nametype);
    /* names: one string, a name per line; labels: shorter forms of some names, by name id;
     * colors: 3 characters per name (per frame in a differential graph; put_packed_color); then a column per field,
     * each a string of packed numbers (put_packed) */
    buf_puts(&b, ",\n\"names\":\"");
    buf_append(&b, names_json.data ? names_json.data : "", names_json.len);
    buf_puts(&b, "\",\n\"labels\":{");
    buf_append(&b, forms_json.data ? forms_json.data : "", forms_json.len);
    buf_printf(&b, "},\n\"colorsPer\":\"%s\",\"colors\":\"", o->before ? "frame" : "name");
    buf_append(&b, colors_json.data ? colors_json.data : "", colors_json.len);
    buf_t *cols[] = {&col_n, &col_d, &col_g, &col_v, &col_b};
    const char *keys[] = {"n", "d", "g", "v", "b"};
    buf_puts(&b, "\"");
    for (int k = 0; k < (o->before ? 5 : 4); k++) {
        buf_printf(&b, ",\n\"%s\":\"", keys[k]);
        buf_append(&b, cols[k]->data ? cols[k]->data : "", cols[k]->len);
        buf_puts(&b, "\"");
        buf_free(cols[k]);
    }
    buf_free(&col_b);
    buf_free(&prev_name);
    buf_free(&entry);
    buf_puts(&b, "}</script>\n<script type=\"text/ecmascript\"><![CDATA[\n");
    buf_puts(&b, flame_js);
    buf_puts(&b, "]]></script>\n</svg>\n");
    u64map_free(&name_index);
    free(name_color);
    buf_free(&labels);
    for (int k = 0; k < 3; k++) buf_free(&forms[k]);
    buf_free(&names_json);
    buf_free(&forms_json);
    buf_free(&colors_json);
    free(cursor);
    free(grass);
    size_t len = b.len, w = fwrite(b.data, 1, len, out);
    buf_free(&b);
    buf_free(&name);
    free(l.r);
    palette_free(&pal);
    if (folded) {
        profile_free(folded);
        free(fi.run_min);
        free(fi.run_max);
    }
    if (folded_before) {
        profile_free(folded_before);
        free(fi_before.run_min);
        free(fi_before.run_max);
    }
    return w == len ? 0 : -1;
}

const format_writer_t format_svg_writer = {
    .name = "svg",
    .extensions = ".svg",
    .write = write_svg,
};
