/* profile_check: the profile model's invariants, checked all at once (as SQLite's integrity_check
 * checks a database). Every reader must leave a profile that passes: the fuzzers call this after
 * each input they read, and the test build asserts it where a profile is finished. */
#include "profile/profile.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static int fail(buf_t *why, const char *what, size_t i)
{
    if (why) buf_printf(why, "%s (at %zu)", what, i);
    return -1;
}

int profile_check(const profile_t *p, buf_t *why)
{
    if (!p->nnodes) return fail(why, "no root node", 0);
    if (p->nodes[0].parent != 0) return fail(why, "the root has a parent", 0);
    for (size_t i = 0; i < p->nframes; i++) {
        const profile_frame_t *f = &p->frames[i];
        if (!f->name || !f->url) return fail(why, "a frame without a name or url", i);
        if ((unsigned)f->kind >= FRAME_KIND_COUNT) return fail(why, "a frame kind out of range", i);
    }
    double total = 0;
    size_t linked = 0;
    for (size_t i = 0; i < p->nnodes; i++) {
        const profile_node_t *n = &p->nodes[i];
        if (!isfinite(n->self)) return fail(why, "a self weight that is not a number", i);
        total += n->self;
        if (i == 0) continue;
        if (n->parent >= i) return fail(why, "a node before its parent", i);
        if (n->frame >= p->nframes) return fail(why, "a node's frame out of range", i);
        if (n->first_child && (n->first_child <= i || n->first_child >= p->nnodes))
            return fail(why, "a first child out of range", i);
        if (n->next_sibling && (n->next_sibling >= p->nnodes || p->nodes[n->next_sibling].parent != n->parent))
            return fail(why, "a sibling under another parent", i);
    }
    /* every node but the root is on its parent's child list exactly once (walked with a bound) */
    for (size_t i = 0; i < p->nnodes; i++) {
        size_t steps = 0;
        for (uint32_t c = p->nodes[i].first_child; c; c = p->nodes[c].next_sibling) {
            if (c >= p->nnodes || p->nodes[c].parent != i) return fail(why, "a child whose parent is another", i);
            if (++steps > p->nnodes) return fail(why, "a cycle in a child list", i);
            linked++;
        }
    }
    if (linked != p->nnodes - 1) return fail(why, "nodes missing from their parents' child lists", linked);
    if (fabs(total - p->total) > 1e-6 * (fabs(total) + 1))
        return fail(why, "total differs from the sum of self weights", 0);
    for (size_t i = 0; i < p->nsamples; i++) {
        const profile_sample_t *s = &p->samples[i];
        if (s->node >= p->nnodes) return fail(why, "a sample's node out of range", i);
        if (!isfinite(s->time_us) || !isfinite(s->weight))
            return fail(why, "a sample's time or weight is not a number", i);
    }
    for (size_t i = 0; i < p->nticks; i++)
        if (p->ticks[i].node >= p->nnodes || !isfinite(p->ticks[i].ticks))
            return fail(why, "a line tick out of range", i);
    for (size_t i = 0; i < p->nthreads; i++)
        if (p->threads[i].frame >= p->nframes || p->frames[p->threads[i].frame].kind != FRAME_THREAD)
            return fail(why, "a thread whose frame is not a thread frame", i);
    if (!p->weight_unit) return fail(why, "no weight unit", 0);
    return 0;
}
