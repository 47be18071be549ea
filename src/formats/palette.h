/* Frame colours: flamegraph.pl's palettes (same name -> same colour, always),
 * the `js` palette by frame kind for Node profiles, and differential colours. */
#ifndef FORMATS_PALETTE_H
#define FORMATS_PALETTE_H
#include "profile/profile.h"

typedef struct {
    const char *label;
    char color[24];
} palette_legend_t;

typedef struct {
    const char *name; /* resolved palette name */
    int hash;         /* flamegraph.pl --hash weighting */
    int diff, negate;
    const char *bg1, *bg2;
    palette_legend_t legend[FRAME_KIND_COUNT];
    int legend_n;
} palette_t;

/* name NULL = "js" when the profile has JS frames, else "hot". Unknown names fall back to hot with a warning. */
void palette_init(palette_t *pal, const char *name, const profile_t *p, int hash, int diff, int negate);
void palette_free(palette_t *pal);
/* "rgb(r,g,b)" for a frame. */
void palette_color(const palette_t *pal, const char *name, size_t len, frame_kind_t kind, char out[32]);
/* Differential: red = grew, blue = shrank (swapped by negate), white = unchanged. */
void palette_diff_color(const palette_t *pal, double delta, double maxdelta, char out[32]);
/* Whether name is a palette nodescope knows. */
int palette_known(const char *name);

#endif
