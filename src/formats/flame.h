/* Options of the SVG flame graph writer (flamegraph.pl's, plus nodescope's own). */
#ifndef FORMATS_FLAME_H
#define FORMATS_FLAME_H
#include "profile/profile.h"

typedef struct flame_opts {
    const char *title; /* NULL: "Flame Graph" / "Icicle Graph" / "Flame Chart" */
    const char *subtitle;
    double width;        /* image width, px (1200) */
    double frame_height; /* px per frame (16) */
    double minwidth;     /* drop frames narrower than this: px, or % of the total when minwidth_pct */
    int minwidth_pct;
    double fontsize;       /* 12 */
    const char *fonttype;  /* "Verdana" */
    double fontwidth;      /* average glyph width / font size (0.59) */
    const char *countname; /* name of the weights' unit; NULL = the profile's weight_unit ("samples", "ns", ...) */
    const char *nametype;  /* "Function:" */
    const char *colors;    /* palette: hot mem io red green blue aqua yellow purple orange java perl js */
    const char *bgcolor1, *bgcolor2; /* NULL = by palette */
    int hash;                        /* colour by a name hash weighted to the first characters (flamegraph.pl --hash) */
    int inverted;                    /* icicle: root at the top */
    int flamechart;                  /* x = time (the profile's timeline) instead of alphabetical merge */
    int negate;                      /* differential: swap red and blue */
    double factor;                   /* multiply counts shown in labels (1) */
    double total;                    /* override the total (0 = sum) */
    const char *notes;               /* embedded as an XML comment-free <desc> */
    const profile_t *before;         /* differential: colour by growth from this profile to the drawn one */
    int keep_unknown;                /* draw every [unknown] frame instead of folding runs of them into one */
    int normalize;                   /* differential: scale `before` to the drawn profile's total */
    unsigned long dropped;           /* out: frames dropped by minwidth */
} flame_opts_t;

void flame_opts_defaults(flame_opts_t *o);

#endif
