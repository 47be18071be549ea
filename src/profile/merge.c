/* Merging one profile into another (profile_merge): frames, threads, the call tree, samples and
 * line ticks, weights scaled. Above profile.c and thread.c: it calls both. */
#include "profile/profile.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

void profile_merge(profile_t *dst, const profile_t *src, double factor)
{
    /* room for every source node and frame up front: no rehashing while copying */
    u64map_reserve(&dst->child_index, dst->child_index.count + src->nnodes);
    XGROW(dst->nodes, dst->nodes_cap, dst->nnodes + src->nnodes);
    u64map_reserve(&dst->frame_index, dst->frame_index.count + src->nframes);
    uint32_t *fmap = xmalloc((src->nframes + 1) * sizeof *fmap);
    for (size_t i = 0; i < src->nframes; i++) {
        const profile_frame_t *f = &src->frames[i];
        fmap[i] = profile_frame(dst, f->name, strlen(f->name), f->url, f->line, f->column, f->kind);
    }
    /* threads are the same thread in dst when pid and tid are; a role known in either is kept */
    for (size_t t = 0; t < src->nthreads; t++) {
        const profile_thread_t *st = &src->threads[t];
        uint32_t d = profile_thread(dst, st->pid, st->tid, st->name, strlen(st->name));
        if (st->role_known && !dst->threads[d].role_known) profile_thread_set_role(dst, d, st->role);
        fmap[st->frame] = dst->threads[d].frame;
    }
    uint32_t *nmap = xmalloc(src->nnodes * sizeof *nmap);
    nmap[0] = 0;
    for (size_t i = 1; i < src->nnodes; i++) {
        const profile_node_t *n = &src->nodes[i];
        nmap[i] = profile_child(dst, nmap[n->parent], fmap[n->frame]);
        if (n->self != 0) profile_add_self(dst, nmap[i], n->self * factor);
    }
    if (src->nodes[0].self != 0) profile_add_self(dst, 0, src->nodes[0].self * factor);
    for (size_t i = 0; i < src->nsamples; i++)
        profile_add_sample(dst, src->samples[i].time_us, nmap[src->samples[i].node], src->samples[i].weight * factor);
    for (size_t i = 0; i < src->nticks; i++)
        profile_add_line_ticks(dst, nmap[src->ticks[i].node], src->ticks[i].line, src->ticks[i].ticks * factor);
    free(fmap);
    free(nmap);
}
