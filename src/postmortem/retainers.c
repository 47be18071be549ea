/* What holds an object. refs: each direct holder with the edge it holds the object through;
 * when the holder is a backing store (properties, elements, a Map's table, a global's property
 * cell), the JS object up to two holders up that names the object. retainers: one path per direct
 * retainer from the roots (the graph's BFS tree to the holder, then the edge to the object),
 * ranked: not through V8 internals only, then by root level, then distance, then node order.
 * Weak edges and self references are not retainers. */
#include "postmortem/retainers.h"
#include "postmortem/paths.h"
#include "util/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A JS object among h's holders (up to max of them) that names x: its index, else V8_NO_NODE. */
static uint32_t js_owner(v8_graph_t *g, v8_edges_t *e, uint32_t h, size_t max, uint32_t x, pm_find_t *of)
{
    const uint32_t *h2, *s2;
    size_t n2 = v8_graph_retainers(g, h, &h2, &s2);
    for (size_t j = 0; j < n2 && j < max; j++)
        if ((v8_graph_node(g, h2[j])->flags & V8_NODE_JS) && pm_name_edge(g, e, h2[j], -1, x, of) == 0) return h2[j];
    return V8_NO_NODE;
}

size_t pm_refs(v8_graph_t *g, v8_edges_t *e, uint32_t x, uint64_t addr, pm_ref_t **out)
{
    const uint32_t *holders, *slots;
    size_t n = v8_graph_retainers(g, x, &holders, &slots);
    pm_ref_t *r = *out = n ? xcalloc(n, sizeof *r) : NULL;
    for (size_t k = 0; k < n; k++) {
        pm_find_t f;
        uint32_t h = holders[k], owner = V8_NO_NODE;
        v8_edge_t ed;
        if (pm_name_edge(g, e, h, 8 * (int64_t)(slots[k] & ~V8_SLOT_WEAK), x, &f) == 0) ed = f.found;
        else
            ed = (v8_edge_t){slots[k] & V8_SLOT_WEAK ? V8_EDGE_WEAK : V8_EDGE_INTERNAL, NULL,
                             (int64_t)(slots[k] & ~V8_SLOT_WEAK), addr, 8 * (int64_t)(slots[k] & ~V8_SLOT_WEAK)};
        r[k].holder = h;
        r[k].edge = ed;
        snprintf(r[k].name, sizeof r[k].name, "%s", ed.name ? ed.name : "");
        if (ed.name) r[k].edge.name = r[k].name;
        /* a backing store: the JS object (up to two holders up) that names x */
        pm_find_t of;
        if (!(v8_graph_node(g, h)->flags & V8_NODE_JS)) {
            const uint32_t *h2, *s2;
            size_t n2 = v8_graph_retainers(g, h, &h2, &s2);
            for (size_t j = 0; j < n2 && j < 64 && owner == V8_NO_NODE; j++) {
                if (v8_graph_node(g, h2[j])->flags & V8_NODE_JS) {
                    if (pm_name_edge(g, e, h2[j], -1, x, &of) == 0) owner = h2[j];
                } else {
                    owner = js_owner(g, e, h2[j], 16, x, &of);
                }
            }
        }
        r[k].owner = owner;
        if (owner != V8_NO_NODE) {
            r[k].owner_edge = of.found;
            snprintf(r[k].owner_name, sizeof r[k].owner_name, "%s", of.found.name ? of.found.name : "");
            if (of.found.name) r[k].owner_edge.name = r[k].owner_name;
        }
    }
    return n;
}

typedef struct {
    uint32_t holder, slot, dist;
    int level, internal;
} cand_t;

static int by_preference(const void *a, const void *b)
{
    const cand_t *x = a, *y = b;
    if (x->internal != y->internal) return x->internal - y->internal;
    if (x->level != y->level) return x->level - y->level;
    if (x->dist != y->dist) return x->dist < y->dist ? -1 : 1;
    return x->holder < y->holder ? -1 : x->holder > y->holder;
}

size_t pm_retainer_paths(v8_graph_t *g, uint32_t x, size_t max, pm_path_t **out)
{
    *out = NULL;
    size_t shown = 0;
    if (v8_graph_distance(g, x) == 0) { /* a root itself */
        pm_path_t *p = *out = xcalloc(1, sizeof *p);
        p->root = V8_NO_NODE;
        p->n = pm_path_nodes(g, x, &p->nodes, &p->slots, &p->root);
        return 1;
    }
    if (v8_graph_distance(g, x) == V8_NO_NODE) return 0;
    const uint32_t *holders, *slots;
    size_t n = v8_graph_retainers(g, x, &holders, &slots);
    cand_t *c = xmalloc((n ? n : 1) * sizeof *c);
    size_t m = 0;
    for (size_t k = 0; k < n; k++) {
        if ((slots[k] & V8_SLOT_WEAK) || holders[k] == x) continue;
        uint32_t dd = v8_graph_distance(g, holders[k]);
        if (dd == V8_NO_NODE) continue;
        c[m++] =
            (cand_t){holders[k], slots[k], dd, v8_graph_level(g, holders[k]), v8_graph_path_internal(g, holders[k])};
    }
    qsort(c, m, sizeof *c, by_preference);
    *out = xcalloc(max < m ? (max ? max : 1) : (m ? m : 1), sizeof **out);
    for (size_t k = 0; k < m && shown < max; k++) {
        if (k && c[k].holder == c[k - 1].holder) continue;
        /* the path to the holder, then the edge to x */
        pm_path_t *p = &(*out)[shown++];
        size_t pn = pm_path_nodes(g, c[k].holder, &p->nodes, &p->slots, &p->root);
        p->nodes = xrealloc(p->nodes, (pn + 1) * sizeof *p->nodes);
        p->nodes[pn] = x;
        p->slots = xrealloc(p->slots, (pn + 1) * sizeof *p->slots);
        p->slots[pn - 1] = c[k].slot;
        p->n = pn + 1;
    }
    free(c);
    return shown;
}

void pm_paths_free(pm_path_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++) free(p[i].nodes), free(p[i].slots);
    free(p);
}
