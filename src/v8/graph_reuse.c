/* The pages a graph's build takes from the last build of the same tracked copy, and what it keeps
 * for the next (graph_reuse.h: when a page may be taken, and why). */
#include "v8/graph_reuse.h"
#include "util/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a build learned of one V8 page (by its chunk's ordinal): where its nodes and compact
   references are in that build's arrays. */
typedef struct kept_page {
    uint64_t area_start, area_end;
    uint64_t edge_first, nedges;
    uint32_t node_first, nnodes;
    uint64_t build;     /* the build that made it (0: none) */
    int ok;             /* its walk may be reused: one page's objects that depend on nothing else noted */
    uint64_t dep_first; /* the maps its objects name: the reuse state's deps[dep_first, +ndeps) */
    uint32_t ndeps;
} kept_page_t;

struct v8_graph_reuse {
    chunk_numbers_t num;
    kept_page_t *pages; /* by ordinal */
    size_t cap_pages;
    uint64_t builds;     /* builds made with it */
    uint64_t generation; /* the tracked copy's freeze the kept arrays were built from (0: none kept) */
    /* the last build's nodes (its graph's, until freed: lent) and compact references; a node's
       first reference as an offset from its page's first (a page holds at most 32,768 words) */
    v8_graph_node_t *nodes;
    uint16_t *first; /* kept allocated (cap_first), written again after each walk */
    size_t cap_first;
    uint32_t *tgt, *slot;
    size_t n;
    uint64_t nedges;
    v8_graph_t *lent;
    /* the maps the kept pages' objects name (per page, duplicates possible), this build's being
       made in deps_next; what the walk's lookups answered for each; those answered otherwise
       now (a page naming one is walked again) */
    uint64_t *deps, *deps_next;
    size_t ndeps, cap_deps, ndeps_next, cap_deps_next;
    v8_map_fact_t *facts;
    size_t nfacts, cap_facts;
    u64map_t changed;
    size_t reused, walked; /* pages, by the last build */
    size_t maps_changed;   /* by the last build's lookups: the pages naming them were walked */
    char why_buf[128];
    const char *why; /* why the last build could take nothing kept, or NULL */
};

/* Whether a map the kept page p's objects name is answered otherwise now. */
static int names_changed(const v8_graph_reuse_t *r, const kept_page_t *p)
{
    uint32_t x;
    for (uint32_t k = 0; r->changed.count && k < p->ndeps; k++)
        if (u64map_get(&r->changed, r->deps[p->dep_first + k], &x)) return 1;
    return 0;
}

/* The maps the page's objects name, each noted once (a direct-mapped memory of the last few); and
   whether an object's end was found by a search for the next map (what that search passed over
   must still be no map). */
void graph_reuse_note(graph_reuse_walk_t *w, const v8_heap_object_t *o)
{
    v8_graph_reuse_t *r = w->r;
    if (o->extent) w->pg_resync_after = 1;
    size_t k = (size_t)((o->map >> 3) ^ (o->map >> 11)) & 31;
    if (w->pg_recent[k] == o->map) return;
    w->pg_recent[k] = o->map;
    XGROW(r->deps_next, r->cap_deps_next, r->ndeps_next + 1);
    r->deps_next[r->ndeps_next++] = o->map;
}

/* Before the walk reads a page: its nodes and compact references as the last build found them,
   where it may take them (w->take: the copy is the freeze after that build's, and the maps it
   named are unchanged), this build's page of the same bounds, kept ok, and not a byte of it
   changed; then 1 and the page is not walked. Else the page is noted for graph_reuse_page_done. */
int graph_reuse_page(graph_reuse_walk_t *w, uint64_t area_start, uint64_t area_end, int large, uint64_t noted)
{
    v8_graph_reuse_t *r = w->r;
    v8_graph_t *g = w->g;
    uint64_t chunk = area_start & ~(uint64_t)(CHUNK_SIZE - 1);
    uint32_t ord;
    w->pg = NULL;
    if (!u64map_get(&r->num.ord, chunk, &ord)) return 0;
    ord &= ~ORD_READ_ONLY;
    kept_page_t *p = &r->pages[ord - 1];
    if (w->take && p->build == r->builds - 1 && p->ok && p->area_start == area_start && p->area_end == area_end &&
        !large && p->node_first + (uint64_t)p->nnodes <= r->n && p->edge_first + p->nedges <= r->nedges &&
        p->dep_first + p->ndeps <= r->ndeps && target_copy_unchanged(g->v->t, area_start, area_end - area_start) &&
        !names_changed(r, p) && graph_room_for_nodes(g, p->nnodes)) {
        graph_room_for_edges(g, p->nedges);
        XGROW(r->deps_next, r->cap_deps_next, r->ndeps_next + p->ndeps);
        memcpy(&r->deps_next[r->ndeps_next], &r->deps[p->dep_first], p->ndeps * sizeof *r->deps);
        p->dep_first = r->ndeps_next;
        r->ndeps_next += p->ndeps;
        memcpy(&g->nodes[g->n], &r->nodes[p->node_first], p->nnodes * sizeof *g->nodes);
        for (uint32_t j = 0; j < p->nnodes; j++) g->first[g->n + j] = g->nedges + r->first[p->node_first + j];
        memcpy(&g->tgt[g->nedges], &r->tgt[p->edge_first], p->nedges * sizeof *g->tgt);
        memcpy(&g->slot[g->nedges], &r->slot[p->edge_first], p->nedges * sizeof *g->slot);
        p->node_first = (uint32_t)g->n;
        p->edge_first = g->nedges;
        p->build = r->builds;
        g->n += p->nnodes;
        g->nedges += p->nedges;
        r->reused++;
        return 1;
    }
    *p = (kept_page_t){area_start, area_end, g->nedges, 0, (uint32_t)g->n, 0, 0, 0, r->ndeps_next, 0};
    w->pg = p;
    w->pg_large = large;
    w->pg_resync_after = 0;
    memset(w->pg_recent, 0, sizeof w->pg_recent);
    w->pg_noted = noted;
    r->walked++;
    return 0;
}

v8_graph_reuse_t *v8_graph_reuse_new(void) { return xcalloc(1, sizeof(v8_graph_reuse_t)); }

/* Forgets the kept arrays (the graph they were lent to keeps its nodes); the numbers stay. */
static void reuse_drop(v8_graph_reuse_t *r)
{
    if (r->lent) r->lent->lent_to = NULL, r->lent = NULL; /* its nodes are its own now */
    else graph_unbig(r->nodes);
    graph_unbig(r->tgt);
    graph_unbig(r->slot);
    r->nodes = NULL, r->tgt = r->slot = NULL;
    r->n = 0, r->nedges = 0;
    r->ndeps = r->nfacts = 0;
    r->generation = 0;
}

void v8_graph_reuse_free(v8_graph_reuse_t *r)
{
    if (!r) return;
    reuse_drop(r);
    free(r->first);
    u64map_free(&r->num.ord);
    free(r->num.chunk);
    free(r->pages);
    free(r->deps);
    free(r->deps_next);
    free(r->facts);
    u64map_free(&r->changed);
    free(r);
}

void v8_graph_reuse_stats(const v8_graph_reuse_t *r, size_t *reused, size_t *walked, uint64_t *kept_bytes,
                          const char **why)
{
    *why = r ? r->why : NULL;
    *reused = r ? r->reused : 0;
    *walked = r ? r->walked : 0;
    *kept_bytes = r && r->nodes ? r->n * (sizeof *r->nodes + sizeof *r->first) + r->nedges * 8 : 0;
}

chunk_numbers_t *graph_reuse_begin(graph_reuse_walk_t *w, v8_graph_reuse_t *r, v8_graph_t *g)
{
    w->r = r;
    w->g = g;
    r->builds++;
    r->reused = r->walked = 0;
    if (r->lent) reuse_drop(r); /* the last graph is still used: its nodes stay its own */
    uint64_t gen = target_copy_generation(g->v->t);
    /* the pages kept name chunks by number: renumbered (nothing kept) before the numbers run out */
    if (r->num.n > MAX_ORD / 2) {
        reuse_drop(r);
        u64map_free(&r->num.ord);
        r->num.n = 0;
        if (r->pages) memset(r->pages, 0, r->cap_pages * sizeof *r->pages);
    }
    w->take = r->nodes && gen && gen == r->generation + 1;
    r->why = w->take || !r->nodes ? NULL : "the copy is not the one after the last graph's";
    /* the maps the kept pages name, looked up again: a page naming one answered otherwise now is
       walked again */
    u64map_free(&r->changed);
    u64map_init(&r->changed);
    for (size_t i = 0; w->take && i < r->nfacts; i++) {
        v8_map_fact_t now, *was = &r->facts[i];
        v8_heap_map_fact(g->h, was->word, &now);
        if (now.is_map != was->is_map || now.type != was->type || now.instance_size != was->instance_size ||
            now.is_prototype != was->is_prototype) {
            int found;
            *u64map_upsert(&r->changed, was->word, &found) = 1;
        }
    }
    r->maps_changed = r->changed.count;
    if (r->maps_changed) {
        snprintf(r->why_buf, sizeof r->why_buf,
                 "%zu of the maps kept pages name changed (died, or slack tracking ended)", r->maps_changed);
        r->why = r->why_buf;
    }
    r->ndeps_next = 0;
    return &r->num;
}

void graph_reuse_numbered(graph_reuse_walk_t *w)
{
    v8_graph_reuse_t *r = w->r;
    if (r->cap_pages < r->num.n) { /* by ordinal; a page never seen: build 0 */
        size_t old = r->cap_pages;
        XGROW(r->pages, r->cap_pages, r->num.n);
        memset(r->pages + old, 0, (r->cap_pages - old) * sizeof *r->pages);
    }
}

/* After the walk: a build whose references were all found as the walk went, in address order,
   keeps its compact references and its nodes for the next; its graph gets the references resolved
   into arrays of its own (where the last build's kept ones were). */
void graph_reuse_end(graph_reuse_walk_t *w, const graph_refs_t *f, int usable)
{
    v8_graph_reuse_t *r = w->r;
    v8_graph_t *g = w->g;
    uint64_t gen = target_copy_generation(g->v->t);
    reuse_drop(r);
    if (!usable || !gen) { /* nothing kept: the references resolved in place */
        g->nedges = graph_refs_resolve(f, g->first, g->tgt, g->slot);
        return;
    }
    /* this build's maps named: what the lookups answer for each (once) */
    uint64_t *t = r->deps;
    size_t tc = r->cap_deps;
    r->deps = r->deps_next, r->cap_deps = r->cap_deps_next, r->ndeps = r->ndeps_next;
    r->deps_next = t, r->cap_deps_next = tc, r->ndeps_next = 0;
    u64map_t seen;
    u64map_init(&seen);
    for (uint32_t o = 0; o < r->num.n; o++) {
        const kept_page_t *p = &r->pages[o];
        if (p->build != r->builds || !p->ok) continue;
        for (uint32_t k = 0; k < p->ndeps; k++) {
            int found;
            u64map_upsert(&seen, r->deps[p->dep_first + k], &found);
            if (found) continue;
            XGROW(r->facts, r->cap_facts, r->nfacts + 1);
            v8_heap_map_fact(g->h, r->deps[p->dep_first + k], &r->facts[r->nfacts++]);
        }
    }
    u64map_free(&seen);
    /* each node's first reference from its page's, for the pages that may be taken */
    XGROW(r->first, r->cap_first, g->n ? g->n : 1);
    for (uint32_t o = 0; o < r->num.n; o++) {
        const kept_page_t *p = &r->pages[o];
        if (p->build != r->builds || !p->ok) continue;
        for (uint32_t j = 0; j < p->nnodes; j++)
            r->first[p->node_first + j] = (uint16_t)(g->first[p->node_first + j] - p->edge_first);
    }
    /* the references resolved into arrays as big as the compact ones: the next build's compact
       arrays are these pages again (spans of other sizes would leave it fresh pages to fault in
       and zero, a tenth of a census); the offsets in place */
    uint32_t *tgt = graph_big(g->edges_bytes, 0);
    uint32_t *slot = graph_big(g->edges_bytes, 0);
    r->nodes = g->nodes, r->tgt = g->tgt, r->slot = g->slot;
    r->n = g->n, r->nedges = g->nedges;
    g->nedges = graph_refs_resolve(f, g->first, tgt, slot);
    g->tgt = tgt, g->slot = slot;
    r->generation = gen;
    r->lent = g;
    g->lent_to = &r->lent;
}

void graph_reuse_page_done(graph_reuse_walk_t *w, uint64_t noted)
{
    kept_page_t *p = w->pg;
    if (!p) return;
    /* kept: where its nodes and references went, and whether the walk of its bytes found all
       there is (a large object's references are read past its page; a resync looked for maps;
       module records and global objects are noted for the roots) */
    p->nnodes = (uint32_t)(w->g->n - p->node_first);
    p->nedges = w->g->nedges - p->edge_first;
    p->ok = !w->pg_large && !w->pg_resync_after && noted == w->pg_noted && p->nedges <= UINT16_MAX;
    p->ndeps = (uint32_t)(w->r->ndeps_next - p->dep_first);
    p->build = w->r->builds;
    w->pg = NULL;
}
