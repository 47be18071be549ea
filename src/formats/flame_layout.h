/* The flame graph's geometry, apart from drawing it (formats/flame_layout.c): the profile as
 * rectangles in weight units, a merged call tree with children in name order (a flame graph) or
 * runs of samples along the timeline (a flame chart), with runs of [unknown] frames folded. */
#ifndef FORMATS_FLAME_LAYOUT_H
#define FORMATS_FLAME_LAYOUT_H
#include "formats/flame.h"
#include "profile/profile.h"
#include <stddef.h>
#include <stdint.h>

/* One frame of the drawing, in weight units (x = start * view_w / total). */
typedef struct {
    double start, value;
    double before;  /* differential: the earlier profile's weight, NAN when not differential */
    uint32_t frame; /* UINT32_MAX = the root "all" */
    uint32_t node;  /* node of the drawn profile (0 for chart runs: not needed) */
    int depth;
} flame_rect_t;

typedef struct {
    flame_rect_t *r;
    size_t n, cap;
    int max_depth;
    unsigned long dropped;
} flame_layout_t;

typedef struct {
    int32_t *run_min, *run_max; /* per node of the folded profile: lengths of the runs drawn there */
} flame_fold_t;

/* A copy of p with runs of [unknown] frames folded, or NULL when p has no run of two or more;
 * fi says per node of the copy the lengths of the runs drawn there. */
profile_t *flame_fold_unknown(const profile_t *p, flame_fold_t *fi);
/* The merged call tree of p as rectangles (x = start * view_w / total), frames narrower than
 * min_px dropped (counted in l->dropped); with o->before, each rectangle's earlier weight. */
void flame_layout_tree(const profile_t *p, const flame_opts_t *o, double view_w, double total, double min_px,
                       flame_layout_t *l);
/* The timeline of p as rectangles: consecutive samples with the same stack prefix merge. */
void flame_layout_chart(const profile_t *p, double view_w, double total, double min_px, flame_layout_t *l);

#endif
