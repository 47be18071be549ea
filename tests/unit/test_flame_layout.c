/* The flame graph's geometry apart from drawing (formats/flame_layout.c): a merged tree's
 * rectangles in name order with their weights, runs of [unknown] folded, minwidth pruning, and a
 * flame chart's runs along the timeline. */
#include "check.h"
#include "formats/flame_layout.h"
#include "formats/format.h"
#include "profile/profile.h"
#include "profile_fixture.h"
#include "util/buf.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const flame_rect_t *find(const profile_t *p, const flame_layout_t *l, const char *name, int depth)
{
    for (size_t i = 0; i < l->n; i++)
        if (l->r[i].depth == depth && l->r[i].frame != UINT32_MAX && !strcmp(p->frames[l->r[i].frame].name, name))
            return &l->r[i];
    return NULL;
}

static void test_tree(void)
{
    /* children in name order whatever the input order; x in weight units */
    profile_t *p = folded("main;b 30\nmain;a 10\nmain;a;x 5\nother 5\n");
    flame_opts_t o;
    flame_opts_defaults(&o);
    flame_layout_t l = {0};
    flame_layout_tree(p, &o, 1000, 50, 0, &l);
    const flame_rect_t *m = find(p, &l, "main", 1), *a = find(p, &l, "a", 2), *b = find(p, &l, "b", 2);
    const flame_rect_t *x = find(p, &l, "x", 3), *other = find(p, &l, "other", 1);
    CHECK(m && a && b && x && other);
    if (m && a && b && x && other) {
        CHECK(m->start == 0 && m->value == 45);
        CHECK(a->start == 0 && a->value == 15); /* a before b: name order */
        CHECK(b->start == 15 && b->value == 30);
        CHECK(x->start == 0 && x->value == 5);
        CHECK(other->start == 45 && other->value == 5);
        CHECK(isnan(m->before)); /* not a differential */
    }
    CHECK(l.max_depth == 3);
    CHECK(l.dropped == 0);
    free(l.r);
    /* minwidth: a frame narrower than min_px is dropped and counted */
    flame_layout_t l2 = {0};
    flame_layout_tree(p, &o, 100, 50, 15, &l2); /* 15 px = 7.5 units: x (5) and other (5) go */
    CHECK(!find(p, &l2, "x", 3) && !find(p, &l2, "other", 1) && find(p, &l2, "b", 2));
    CHECK(l2.dropped >= 2);
    free(l2.r);
    profile_free(p);
}

static void test_unknown_runs(void)
{
    /* runs of [unknown] of different lengths under one parent fold into one frame */
    profile_t *p = folded("[unknown];[unknown];[unknown];f 2\n[unknown];[unknown];g 3\nh 1\n");
    flame_fold_t fi = {0};
    profile_t *q = flame_fold_unknown(p, &fi);
    CHECK(q != NULL);
    if (q) {
        flame_opts_t o;
        flame_opts_defaults(&o);
        flame_layout_t l = {0};
        flame_layout_tree(q, &o, 600, 6, 0, &l);
        const flame_rect_t *f = find(q, &l, "f", 2), *g = find(q, &l, "g", 2);
        CHECK(f && g); /* one level of [unknown] below them, not two or three */
        free(l.r);
        free(fi.run_min);
        free(fi.run_max);
        profile_free(q);
    }
    /* nothing to fold: NULL */
    profile_t *plain = folded("a;b 1\n");
    flame_fold_t fi2 = {0};
    CHECK(flame_fold_unknown(plain, &fi2) == NULL);
    profile_free(plain);
    profile_free(p);
}

int main(void)
{
    test_tree();
    test_unknown_runs();
    return check_summary("test_flame_layout");
}
