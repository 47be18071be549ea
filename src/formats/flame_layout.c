/* The flame graph's geometry (flame_layout.h): [unknown] runs folded, the merged tree laid out
 * with children in name order, a differential's earlier weights matched by frame name, and the
 * flame chart's runs along the timeline. No drawing, no I/O: svg_flame.c draws what this lays out. */
#include "formats/flame_layout.h"
#include "util/bigmem.h"
#include "util/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void add_rect(flame_layout_t *l, double start, double value, double before, uint32_t frame, uint32_t node,
                     int depth)
{
    XGROW(l->r, l->cap, l->n + 1);
    l->r[l->n++] = (flame_rect_t){start, value, before, frame, node, depth};
    if (depth > l->max_depth) l->max_depth = depth;
}

/* ---- [unknown] towers ----
 * perf's broken unwinds give stacks whose root end is a run of up to 127 [unknown]
 * frames. Drawn as they are, such a run makes a graph 2,000 px tall of which the first
 * screen shows nothing but background and a thin grey tower. Every run of consecutive
 * [unknown] frames is drawn as one frame, "[unknown] ×N" (×A–B when runs of several
 * lengths merge there): the frames above a broken unwind then stand near the base, and
 * runs of different lengths under the same parent add up instead of scattering over
 * as many towers. --keep-unknown draws every frame. */

static int is_unknown(const profile_t *p, uint32_t f) { return !strcmp(p->frames[f].name, "[unknown]"); }

/* A copy of p with runs of [unknown] frames folded, or NULL when p has no run of two or more. */
profile_t *flame_fold_unknown(const profile_t *p, flame_fold_t *fi)
{
    int any = 0;
    for (size_t i = 1; i < p->nnodes && !any; i++) {
        uint32_t par = p->nodes[i].parent;
        any = par && is_unknown(p, p->nodes[i].frame) && is_unknown(p, p->nodes[par].frame);
    }
    if (!any) return NULL;
    profile_t *q = profile_new();
    q->weight_unit = strpool_cstr(q->strings, p->weight_unit ? p->weight_unit : "samples");
    q->start_us = p->start_us, q->end_us = p->end_us;
    /* at most p's nodes and frames: room up front, no rehashing while copying */
    u64map_reserve(&q->child_index, p->nnodes);
    XGROW(q->nodes, q->nodes_cap, p->nnodes);
    u64map_reserve(&q->frame_index, p->nframes);
    uint32_t *fmap = xmalloc((p->nframes + 1) * sizeof *fmap);
    for (size_t f = 0; f < p->nframes; f++) {
        const profile_frame_t *fr = &p->frames[f];
        fmap[f] = profile_frame(q, fr->name, strlen(fr->name), fr->url, fr->line, fr->column, fr->kind);
    }
    uint32_t *m = xmalloc(p->nnodes * sizeof *m);
    int32_t *run = xmalloc(p->nnodes * sizeof *run);
    m[0] = 0, run[0] = 0;
    /* nodes are created after their parents, so index order visits parents first */
    for (size_t i = 1; i < p->nnodes; i++) {
        uint32_t par = p->nodes[i].parent, f = p->nodes[i].frame;
        int unk = is_unknown(p, f);
        if (unk && par && run[par]) {
            m[i] = m[par];
            run[i] = run[par] + 1;
        } else {
            m[i] = profile_child(q, m[par], fmap[f]);
            run[i] = unk;
        }
        if (p->nodes[i].self) profile_add_self(q, m[i], p->nodes[i].self);
    }
    fi->run_min = xmalloc(q->nnodes * sizeof *fi->run_min);
    fi->run_max = xcalloc(q->nnodes, sizeof *fi->run_max);
    for (size_t i = 0; i < q->nnodes; i++) fi->run_min[i] = INT32_MAX;
    for (size_t i = 1; i < p->nnodes; i++) {
        uint32_t par = p->nodes[i].parent;
        if (run[i] && run[i] > fi->run_max[m[i]]) fi->run_max[m[i]] = run[i];
        /* a run ends where its last [unknown] frame has self weight or a named child */
        if (run[i] && p->nodes[i].self && run[i] < fi->run_min[m[i]]) fi->run_min[m[i]] = run[i];
        if (!run[i] && par && run[par] && run[par] < fi->run_min[m[par]]) fi->run_min[m[par]] = run[par];
    }
    for (size_t s = 0; s < p->nsamples; s++)
        profile_add_sample(q, p->samples[s].time_us, m[p->samples[s].node], p->samples[s].weight);
    free(fmap);
    free(m);
    free(run);
    return q;
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

void flame_layout_tree(const profile_t *p, const flame_opts_t *o, double view_w, double total, double min_px,
                       flame_layout_t *l)
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
    add_rect(l, 0, tot[0], bef ? bef[0] : NAN, UINT32_MAX, 0, 0);
    /* iterative DFS: (node, start); output is in preorder, so x order at every depth */
    typedef struct {
        uint32_t node;
        double x;
        int depth;
    } item_t;
    item_t *stack = NULL;
    size_t sn = 0, scap = 0;
    XGROW(stack, scap, 1);
    stack[sn++] = (item_t){0, 0, 0};
    while (sn) {
        item_t it = stack[--sn];
        if (it.node)
            add_rect(l, it.x, tot[it.node], bef ? bef[it.node] : NAN, p->nodes[it.node].frame, it.node, it.depth);
        size_t nc;
        uint32_t *kids = profile_sorted_children(p, it.node, &nc);
        double *xs = xmalloc((nc ? nc : 1) * sizeof *xs), x = it.x;
        for (size_t k = 0; k < nc; k++) {
            xs[k] = x;
            x += tot[kids[k]];
        }
        /* push in reverse so the leftmost child is laid out first */
        for (size_t k = nc; k-- > 0;) {
            uint32_t c = kids[k];
            if (tot[c] * px_per < min_px || tot[c] <= 0) {
                /* the frame and everything above it */
                l->dropped++;
                continue;
            }
            XGROW(stack, scap, sn + 1);
            stack[sn++] = (item_t){c, xs[k], it.depth + 1};
        }
        free(xs);
        free(kids);
    }
    free(stack);
    free(tot);
    free(bef);
}

/* ---- flame chart layout: x is the timeline; consecutive samples merge ---- */

/* preorder of a flame chart: by start, a parent before the children that start with it */
static int cmp_rect_start(const void *a, const void *b)
{
    const flame_rect_t *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return (x->depth > y->depth) - (x->depth < y->depth);
}

void flame_layout_chart(const profile_t *p, double view_w, double total, double min_px, flame_layout_t *l)
{
    profile_sample_t *s = xmalloc((p->nsamples + 1) * sizeof *s);
    memcpy(s, p->samples, p->nsamples * sizeof *s);
    profile_sort_samples(s, p->nsamples);
    double px_per = total > 0 ? view_w / total : 0;
    add_rect(l, 0, total, NAN, UINT32_MAX, 0, 0);
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
            double v = at - open_start[d];
            if (v > 0 && v * px_per >= min_px)
                add_rect(l, open_start[d], v, NAN, p->nodes[open_node[d]].frame, open_node[d], (int)d + 1);
            else if (v > 0) l->dropped++;
        }
        open_n = common;
        if (i == p->nsamples) break;
        XGROW(open_node, cap2, depth + 1);
        XGROW(open_start, cap3, depth + 1);
        for (size_t d = common; d < depth; d++) open_node[d] = path[d], open_start[d] = at;
        open_n = depth;
        at += s[i].weight;
    }
    qsort(l->r, l->n, sizeof *l->r, cmp_rect_start);
    free(open_node);
    free(open_start);
    free(path);
    free(s);
}
