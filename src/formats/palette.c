#include "formats/palette.h"
#include "util/diag.h"
#include "util/hash.h"
#include <stdio.h>
#include <string.h>

static const char *const flat[] = {"red", "green", "blue", "aqua", "yellow", "purple", "orange"};
static const char *const known[] = {"hot", "mem",   "io",   "wakeup", "chain",  "java",   "perl",  "js",
                                    "red", "green", "blue", "aqua",   "yellow", "purple", "orange"};

int palette_known(const char *name)
{
    for (size_t i = 0; i < sizeof known / sizeof *known; i++)
        if (!strcmp(name, known[i])) return 1;
    return 0;
}

/* The js palette: one base colour per kind (varied a little per name). */
static const struct {
    frame_kind_t kind;
    int r, g, b;
    const char *label;
} js_kinds[] = {
    {FRAME_JS_TURBOFAN, 40, 170, 70, "JS optimized (TurboFan *)"},
    {FRAME_JS_MAGLEV, 60, 190, 160, "JS Maglev (+)"},
    {FRAME_JS_BASELINE, 160, 205, 60, "JS baseline (Sparkplug ^)"},
    {FRAME_JS_INTERPRETED, 225, 205, 70, "JS interpreted (~)"},
    {FRAME_JS, 110, 200, 110, "JS"},
    {FRAME_BUILTIN, 80, 185, 215, "V8 builtin / bytecode handler"},
    {FRAME_NATIVE, 225, 105, 85, "native C/C++"},
    {FRAME_KERNEL, 240, 150, 40, "kernel"},
    {FRAME_GC, 170, 110, 215, "GC"},
    {FRAME_IDLE, 205, 205, 205, "idle"},
    {FRAME_PROGRAM, 175, 175, 175, "(program)"},
    {FRAME_UNKNOWN, 150, 150, 150, "unknown"},
};

void palette_init(palette_t *pal, const char *name, const profile_t *p, int hash, int diff, int negate)
{
    memset(pal, 0, sizeof *pal);
    pal->hash = hash;
    pal->diff = diff;
    pal->negate = negate;
    int has_kind[FRAME_KIND_COUNT] = {0};
    for (size_t i = 0; i < p->nframes; i++) has_kind[p->frames[i].kind] = 1;
    if (!name) {
        int js = has_kind[FRAME_JS] || has_kind[FRAME_JS_TURBOFAN] || has_kind[FRAME_JS_MAGLEV] ||
                 has_kind[FRAME_JS_BASELINE] || has_kind[FRAME_JS_INTERPRETED];
        name = js ? "js" : "hot";
    } else if (!palette_known(name)) {
        diag_warn(NULL, 0, "unknown palette '%s'; using hot", name);
        name = "hot";
    }
    pal->name = name;
    pal->bg1 = "#eeeeee", pal->bg2 = "#eeeeb0";
    if (!strcmp(name, "mem")) pal->bg1 = "#eeeeee", pal->bg2 = "#e0e0ff";
    if (!strcmp(name, "io") || !strcmp(name, "wakeup") || !strcmp(name, "chain"))
        pal->bg1 = "#f8f8f8", pal->bg2 = "#e8e8e8";
    for (size_t i = 0; i < sizeof flat / sizeof *flat; i++)
        if (!strcmp(name, flat[i])) pal->bg1 = "#f8f8f8", pal->bg2 = "#e8e8e8";
    if (diff) pal->bg1 = pal->bg2 = "#ffffff";
    if (!strcmp(name, "js") && !diff) {
        pal->bg1 = "#f8f8f8", pal->bg2 = "#ececec";
        for (size_t i = 0; i < sizeof js_kinds / sizeof *js_kinds; i++) {
            if (!has_kind[js_kinds[i].kind]) continue;
            palette_legend_t *l = &pal->legend[pal->legend_n++];
            l->label = js_kinds[i].label;
            snprintf(l->color, sizeof l->color, "rgb(%d,%d,%d)", js_kinds[i].r, js_kinds[i].g, js_kinds[i].b);
        }
    }
}

void palette_free(palette_t *pal) { (void)pal; }

/* flamegraph.pl's namehash: early characters weigh most, so similar names get similar colours. */
static double namehash(const char *s, size_t n, int reverse)
{
    double vector = 0, weight = 1, max = 1;
    int mod = 10;
    for (size_t k = 0; k < n; k++) {
        unsigned char c = (unsigned char)(reverse ? s[n - 1 - k] : s[k]);
        vector += (double)(c % mod) / (double)(mod - 1) * weight;
        mod++;
        max += weight;
        weight *= 0.70;
        if (mod > 12) break;
    }
    return 1 - vector / max;
}

void palette_color(const palette_t *pal, const char *name, size_t len, frame_kind_t kind, char out[32])
{
    double v1, v2, v3;
    if (pal->hash) {
        v1 = namehash(name, len, 0);
        v2 = v3 = namehash(name, len, 1);
    } else {
        uint64_t h = hash_bytes(name, len);
        v1 = (double)(h & 0xffff) / 65535.0;
        v2 = (double)((h >> 16) & 0xffff) / 65535.0;
        v3 = (double)((h >> 32) & 0xffff) / 65535.0;
    }
    const char *p = pal->name;
    int r = 0, g = 0, b = 0;
    if (!strcmp(p, "js")) {
        size_t i = 0;
        while (i < sizeof js_kinds / sizeof *js_kinds && js_kinds[i].kind != kind) i++;
        if (i == sizeof js_kinds / sizeof *js_kinds) {
            r = g = 190 + (int)(20 * v1), b = 150; /* process / root frames */
        } else {
            int d = (int)(24 * v1) - 12; /* neighbours stay distinguishable */
            r = js_kinds[i].r + d, g = js_kinds[i].g + d, b = js_kinds[i].b + d;
        }
    } else if (!strcmp(p, "mem")) r = 0, g = 190 + (int)(50 * v2), b = (int)(210 * v1);
    else if (!strcmp(p, "io") || !strcmp(p, "wakeup") || !strcmp(p, "chain") || !strcmp(p, "blue"))
        r = 80 + (int)(60 * v1), g = r, b = 190 + (int)(55 * v2);
    else if (!strcmp(p, "red")) r = 200 + (int)(55 * v1), g = 50 + (int)(80 * v1), b = g;
    else if (!strcmp(p, "green")) g = 200 + (int)(55 * v1), r = 50 + (int)(60 * v1), b = r;
    else if (!strcmp(p, "aqua")) r = 50 + (int)(60 * v1), g = 165 + (int)(55 * v1), b = 165 + (int)(55 * v1);
    else if (!strcmp(p, "yellow")) r = 175 + (int)(55 * v1), g = r, b = 50 + (int)(20 * v1);
    else if (!strcmp(p, "purple")) r = 190 + (int)(65 * v1), g = 80 + (int)(60 * v1), b = r;
    else if (!strcmp(p, "orange")) r = 190 + (int)(65 * v1), g = 90 + (int)(65 * v1), b = 0;
    else if (!strcmp(p, "java") || !strcmp(p, "perl")) {
        /* by kind, as the text rules of flamegraph.pl would decide */
        if (kind == FRAME_KERNEL) r = 190 + (int)(65 * v1), g = 90 + (int)(65 * v1), b = 0;            /* orange */
        else if (memmem(name, len, "::", 2)) r = 175 + (int)(55 * v1), g = r, b = 50 + (int)(20 * v1); /* yellow */
        else if (frame_kind_is_js(kind) || kind == FRAME_BUILTIN)
            g = 200 + (int)(55 * v1), r = 50 + (int)(60 * v1), b = r;
        else r = 200 + (int)(55 * v1), g = 50 + (int)(80 * v1), b = g; /* red */
    } else {                                                           /* hot */
        r = 205 + (int)(50 * v3), g = (int)(230 * v1), b = (int)(55 * v2);
    }
    if (r > 255) r = 255;
    if (g > 255) g = 255;
    if (b > 255) b = 255;
    if (r < 0) r = 0;
    if (g < 0) g = 0;
    if (b < 0) b = 0;
    snprintf(out, 32, "rgb(%d,%d,%d)", r, g, b);
}

void palette_diff_color(const palette_t *pal, double delta, double maxdelta, char out[32])
{
    if (pal->negate) delta = -delta;
    int fade = maxdelta > 0 ? (int)(210 * (maxdelta - (delta < 0 ? -delta : delta)) / maxdelta) : 210;
    if (delta > 0) snprintf(out, 32, "rgb(255,%d,%d)", fade, fade);
    else if (delta < 0) snprintf(out, 32, "rgb(%d,%d,255)", fade, fade);
    else snprintf(out, 32, "rgb(250,250,250)");
}
