/* v8_graph_check: the object graph's invariants, checked all at once (SQLite's integrity_check is
 * the model). A graph v8_graph_build made must pass (the test build asserts it, the heap fuzzer
 * checks every graph it builds); a graph mapped from a cache file is checked where it is used
 * instead, and this says whether a whole one is sound. */
#include "util/buf.h"
#include "v8/graph_internal.h"

static int fail(buf_t *why, const char *what, uint64_t i)
{
    if (why) buf_printf(why, "%s (at %llu)", what, (unsigned long long)i);
    return -1;
}

int v8_graph_check(const v8_graph_t *g, buf_t *why)
{
    for (size_t i = 0; i < g->n; i++) {
        if (i && g->nodes[i].addr <= g->nodes[i - 1].addr) return fail(why, "nodes out of address order", i);
        if (g->nodes[i].addr < g->lo || g->nodes[i].addr > g->hi)
            return fail(why, "a node outside the graph's range", i);
    }
    if (g->trimmed || !g->first) return 0; /* nodes and roots only */
    if (g->first[0] != 0 || g->first[g->n] != g->nedges) return fail(why, "edge offsets do not span the edges", g->n);
    for (size_t i = 0; i < g->n; i++)
        if (g->first[i] > g->first[i + 1]) return fail(why, "edge offsets out of order", i);
    for (uint64_t k = 0; k < g->nedges; k++)
        if (g->tgt[k] >= g->n) return fail(why, "an edge to no node", k);
    for (size_t r = 0; r < g->nroots; r++)
        if (g->roots[r].node >= g->n || (unsigned)g->roots[r].level >= V8_ROOT_LEVELS || !g->roots[r].name)
            return fail(why, "a root out of range", r);
    if (g->dist && g->parent) /* paths: a node's parent is one step closer to a root */
        for (size_t i = 0; i < g->n; i++)
            if (g->dist[i] != UINT32_MAX && g->dist[i] > 0 &&
                (g->parent[i] >= g->n || g->dist[g->parent[i]] + 1 != g->dist[i]))
                return fail(why, "a path whose parent is not one step closer", i);
    return 0;
}

int v8_graph_same(const v8_graph_t *a, const v8_graph_t *b, buf_t *why)
{
    for (size_t i = 0; i < a->n || i < b->n; i++) {
        const v8_graph_node_t *x = i < a->n ? &a->nodes[i] : NULL, *y = i < b->n ? &b->nodes[i] : NULL;
        if (x && y && x->addr == y->addr && x->size == y->size && x->type == y->type && x->flags == y->flags) continue;
        if (why)
            buf_printf(why, "%zu nodes and %zu; at node %zu: 0x%llx (size %u, type %u) and 0x%llx (size %u, type %u)", a->n,
                       b->n, i, x ? (unsigned long long)x->addr : 0ull, x ? x->size : 0, x ? x->type : 0,
                       y ? (unsigned long long)y->addr : 0ull, y ? y->size : 0, y ? y->type : 0);
        return -1;
    }
    if (!a->first || !b->first) return a->first == b->first ? 0 : fail(why, "one graph has no edges", 0);
    if (a->nedges != b->nedges) return fail(why, "edge counts differ", a->nedges < b->nedges ? a->nedges : b->nedges);
    for (size_t i = 0; i <= a->n; i++)
        if (a->first[i] != b->first[i]) return fail(why, "edge offsets differ", i);
    for (uint64_t k = 0; k < a->nedges; k++)
        if (a->tgt[k] != b->tgt[k] || a->slot[k] != b->slot[k]) return fail(why, "edges differ", k);
    if (a->nroots != b->nroots) return fail(why, "root counts differ", a->nroots < b->nroots ? a->nroots : b->nroots);
    for (size_t r = 0; r < a->nroots; r++)
        if (a->roots[r].node != b->roots[r].node || a->roots[r].level != b->roots[r].level)
            return fail(why, "roots differ", r);
    return 0;
}
