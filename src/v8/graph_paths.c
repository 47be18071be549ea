/* The object graph's paths (v8_graph_distance, v8_graph_parent, v8_graph_level): breadth-first
 * from the roots by root preference, in two passes so that a path through V8's caches is taken
 * only where no other exists; reachability alone for writers that need no paths; and the
 * dominator tree with retained sizes (dominators.c computes it). */
#include "util/bigmem.h"
#include "util/xalloc.h"
#include "v8/graph_internal.h"
#include <stdlib.h>
#include <string.h>

/* ---- shortest paths ---- */

/* V8's caches: objects that hold what the program holds only because V8 remembered it (feedback
 * for the optimizer, compiled code, allocation sites, map transitions, the SharedFunctionInfos
 * and their bytecode and scopes). A path through one is right but names nothing the program did. */
static int is_cache_type(const char *name)
{
    static const char *const caches[] = {
        "FEEDBACK_VECTOR_TYPE",
        "FEEDBACK_CELL_TYPE",
        "CLOSURE_FEEDBACK_CELL_ARRAY_TYPE",
        "FEEDBACK_METADATA_TYPE",
        "CODE_TYPE",
        "CODE_DATA_CONTAINER_TYPE",
        "INSTRUCTION_STREAM_TYPE",
        "CODE_WRAPPER_TYPE",
        "ALLOCATION_SITE_TYPE",
        "ALLOCATION_MEMENTO_TYPE",
        "TRANSITION_ARRAY_TYPE",
        "DEOPTIMIZATION_DATA_TYPE",
        /* what compiled functions share: bytecode, scopes, scripts' function tables */
        "SHARED_FUNCTION_INFO_TYPE",
        "SCOPE_INFO_TYPE",
        "BYTECODE_ARRAY_TYPE",
        "BYTECODE_WRAPPER_TYPE",
    };
    for (size_t i = 0; name && i < sizeof caches / sizeof *caches; i++)
        if (!strcmp(name, caches[i])) return 1;
    return 0;
}

/* Breadth-first from the roots, in two passes. The first never enters one of V8's caches: every
 * path it finds goes from the global object and the modules (one level), else a stack, else
 * native memory, through what the program holds. The second goes on from where the first stopped
 * at a cache, and marks what it reaches (V8_LEVEL_INTERNAL): such an object is held only through
 * V8's internals, and a path through them is shown only then. A longer path a person can read
 * beats a shorter one through a FeedbackVector. */
void graph_compute_paths(v8_graph_t *g)
{
    size_t n = g->n;
    g->dist = graph_big(n * sizeof *g->dist, 0); /* kept from the last graph (heap_graph.c) */
    g->parent = graph_big(n * sizeof *g->parent, 0);
    g->pslot = graph_big(n * sizeof *g->pslot, 0);
    g->level = graph_big(n, 0);
    memset(g->level, V8_ROOT_LEVELS, n);
    memset(g->pslot, 0, n * sizeof *g->pslot);
    memset(g->dist, 0xff, n * sizeof *g->dist);
    memset(g->parent, 0xff, n * sizeof *g->parent);
    uint8_t cache[4096];
    for (int t = 0; t < 4096; t++) cache[t] = (uint8_t)is_cache_type(v8_type_name(g->v, t));
#define CACHE(x) (g->nodes[x].type < 4096 && cache[g->nodes[x].type])
    uint32_t *queue = graph_big(n * sizeof *queue, 0);
    uint32_t *stopped = graph_big(n * sizeof *stopped, 0); /* nodes with an edge into a cache */
    size_t qh = 0, qt = 0, ns = 0;
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            /* on from where the first pass stopped, in its order */
            qh = qt = 0;
            for (size_t k = 0; k < ns; k++) queue[qt++] = stopped[k];
        }
        for (int lv = 0; lv < V8_ROOT_LEVELS; lv++) {
            /* the global and the modules are one level: a module's exports are best named by module */
            if (lv == V8_ROOT_MODULE) continue;
            for (size_t r = 0; r < g->nroots; r++) {
                const v8_graph_root_t *rt = &g->roots[r];
                int mine = rt->level == (v8_root_level_t)lv || (lv == V8_ROOT_GLOBAL && rt->level == V8_ROOT_MODULE);
                if (!mine || g->dist[rt->node] != V8_NO_NODE || (pass == 0 && CACHE(rt->node))) continue;
                g->dist[rt->node] = 0;
                g->pslot[rt->node] = (uint32_t)r;
                g->level[rt->node] = (uint8_t)(rt->level | (pass ? V8_LEVEL_INTERNAL : 0));
                queue[qt++] = rt->node;
            }
            while (qh < qt) {
                uint32_t i = queue[qh++];
                int held = 0;
                for (uint64_t k = g->first[i]; k < g->first[i + 1]; k++) {
                    uint32_t t = g->tgt[k];
                    if ((g->slot[k] & V8_SLOT_WEAK) || g->dist[t] != V8_NO_NODE) continue;
                    if (pass == 0 && CACHE(t)) {
                        if (!held) stopped[ns++] = i, held = 1;
                        continue;
                    }
                    g->dist[t] = g->dist[i] + 1;
                    g->parent[t] = i;
                    g->pslot[t] = g->slot[k];
                    g->level[t] = (uint8_t)(g->level[i] | (pass ? V8_LEVEL_INTERNAL : 0));
                    queue[qt++] = t;
                }
            }
        }
    }
#undef CACHE
    graph_unbig(stopped);
    graph_unbig(queue);
    graph_trace("paths");
}

/* The nodes compute_paths reaches, without its arrays (16 bytes a node): one bit a node in seen
 * (n / 64 + 1 words, zeroed) and a queue; root_used[r] set for each root a path
 * starts from. For a writer that needs only this (heapsnapshot of a graph just built). With held,
 * what the levels before native memory reach is copied there (as many words) before native
 * memory's roots are taken, and *held_count is how many nodes that is. */
static void mark_reachable(v8_graph_t *g, uint64_t *seen, uint8_t *root_used, uint64_t *held, uint64_t *held_count)
{
    size_t n = g->n;
    uint32_t *queue = graph_big((n ? n : 1) * sizeof *queue, 0); /* kept from the last graph */
#define SEEN(x) ((seen[(x) / 64] >> ((x) % 64)) & 1)
#define MARK(x) (seen[(x) / 64] |= 1ull << ((x) % 64))
    size_t qh = 0, qt = 0, marked = 0;
    int lv = 0;
    if (!root_used && g->global_reach) { /* the first level marked already, as the roots were found */
        memcpy(seen, g->global_reach, (n / 64 + 1) * 8);
        for (size_t w = 0; w < n / 64 + 1; w++) marked += (size_t)__builtin_popcountll(seen[w]);
        lv = V8_ROOT_MODULE + 1;
    }
    for (; lv < V8_ROOT_LEVELS; lv++) {
        if (lv == V8_ROOT_MODULE) continue; /* one level with the global, as in compute_paths */
        if (lv == V8_ROOT_NATIVE && held) {
            memcpy(held, seen, (n / 64 + 1) * 8);
            *held_count = marked + qt;
        }
        for (size_t r = 0; r < g->nroots; r++) {
            const v8_graph_root_t *rt = &g->roots[r];
            int mine = rt->level == (v8_root_level_t)lv || (lv == V8_ROOT_GLOBAL && rt->level == V8_ROOT_MODULE);
            if (!mine || rt->node >= n || SEEN(rt->node)) continue;
            MARK(rt->node);
            if (root_used) root_used[r] = 1;
            queue[qt++] = rt->node;
        }
        while (qh < qt) {
            uint32_t i = queue[qh++];
            if (g->first[i] > g->first[i + 1] || g->first[i + 1] > g->nedges) continue;
            for (uint64_t k = g->first[i]; k < g->first[i + 1]; k++) {
                uint32_t t = g->tgt[k];
                if ((g->slot[k] & V8_SLOT_WEAK) || t >= n || SEEN(t)) continue;
                MARK(t);
                queue[qt++] = t;
            }
        }
    }
#undef SEEN
#undef MARK
    graph_unbig(queue);
}

static void compute_root_used(v8_graph_t *g)
{
    g->root_used = big_calloc(g->nroots ? g->nroots : 1, 1);
    g->reach = big_calloc(g->n / 64 + 1, 8);
    mark_reachable(g, g->reach, g->root_used, NULL, NULL);
}

uint64_t *v8_graph_held(v8_graph_t *g, uint64_t *native_only)
{
    *native_only = 0;
    if (g->trimmed) return NULL;
    uint64_t *seen = big_calloc(g->n / 64 + 1, 8), held_count = 0;
    uint64_t *held = xmalloc((g->n / 64 + 1) * 8);
    mark_reachable(g, seen, NULL, held, &held_count);
    uint64_t all = 0;
    for (size_t w = 0; w < g->n / 64 + 1; w++) all += (uint64_t)__builtin_popcountll(seen[w]);
    *native_only = all - held_count;
    free(seen);
    return held;
}

uint64_t *v8_graph_reachable(v8_graph_t *g)
{
    if (g->trimmed) return NULL;
    uint64_t *bits = xcalloc(g->n / 64 + 1, 8);
    if (g->dist) {
        for (size_t i = 0; i < g->n; i++)
            if (g->dist[i] != V8_NO_NODE) bits[i / 64] |= 1ull << (i % 64);
    } else {
        if (!g->root_used) compute_root_used(g);
        memcpy(bits, g->reach, (g->n / 64 + 1) * 8);
    }
    return bits;
}

int v8_graph_root_used(v8_graph_t *g, size_t k)
{
    if (g->trimmed || k >= g->nroots) return 0;
    /* by the marking alone, even where the paths are known (a graph from the cache file): the
       paths' second pass, through V8's caches, can start a node's path at another root, and a
       heapsnapshot of the same core then differed by whether its graph came from the cache */
    if (!g->root_used) compute_root_used(g);
    return g->root_used[k];
}

uint32_t v8_graph_distance(v8_graph_t *g, uint32_t i)
{
    if (g->trimmed) return V8_NO_NODE;
    if (!g->dist) graph_compute_paths(g);
    return i < g->n ? g->dist[i] : V8_NO_NODE;
}

v8_root_level_t v8_graph_level(v8_graph_t *g, uint32_t i)
{
    if (g->trimmed) return V8_ROOT_LEVELS;
    if (!g->dist) graph_compute_paths(g);
    if (i >= g->n || g->dist[i] == V8_NO_NODE) return V8_ROOT_LEVELS;
    uint8_t lv = g->level[i] & (uint8_t)~V8_LEVEL_INTERNAL;
    return lv < V8_ROOT_LEVELS ? (v8_root_level_t)lv : V8_ROOT_LEVELS;
}

int v8_graph_path_internal(v8_graph_t *g, uint32_t i)
{
    if (g->trimmed) return 0;
    if (!g->dist) graph_compute_paths(g);
    return i < g->n && g->dist[i] != V8_NO_NODE && (g->level[i] & V8_LEVEL_INTERNAL);
}

int v8_graph_parent(v8_graph_t *g, uint32_t i, uint32_t *parent, uint32_t *slot, uint32_t *root_index)
{
    if (g->trimmed) return -1;
    if (!g->dist) graph_compute_paths(g);
    if (i >= g->n || g->dist[i] == V8_NO_NODE) return -1;
    if (g->parent[i] == V8_NO_NODE ? g->pslot[i] >= g->nroots : g->parent[i] >= g->n) return -1;
    *parent = g->parent[i];
    *slot = g->parent[i] == V8_NO_NODE ? 0 : g->pslot[i];
    *root_index = g->parent[i] == V8_NO_NODE ? g->pslot[i] : V8_NO_NODE;
    return 0;
}

/* ---- dominators ---- */

/* The graph as dominators.c takes it: node 0 a synthetic root whose successors are the roots,
 * node i + 1 for node i, strong edges only. */
int v8_graph_dominators(v8_graph_t *g)
{
    if (g->idom) return 0;
    if (g->trimmed) return -1;
    size_t nr = 0;
    uint32_t *roots = big_malloc((g->nroots ? g->nroots : 1) * sizeof *roots);
    for (size_t r = 0; r < g->nroots; r++)
        if (v8_graph_root_used(g, r)) roots[nr++] = g->roots[r].node + 1;
    /* computed in the algorithm's numbering (node i is i + 1), then shifted down in place */
    uint32_t *idom = big_malloc(((size_t)g->n + 1) * sizeof *idom);
    uint64_t *ret = big_malloc(((size_t)g->n + 1) * sizeof *ret);
    int rc = v8_dominators_graph((uint32_t)g->n, g->first, g->tgt, g->slot, g->nedges, roots, nr, g->nodes, idom, ret);
    free(roots);
    if (rc != 0) {
        free(idom);
        free(ret);
        return -1;
    }
    for (size_t i = 0; i < g->n; i++) {
        uint32_t d = idom[i + 1];
        ret[i] = d == V8_NO_NODE ? 0 : ret[i + 1];
        idom[i] = d == V8_NO_NODE || d == 0 ? V8_NO_NODE : d - 1;
    }
    g->idom = idom;
    g->retained = ret;
    return 0;
}

uint32_t v8_graph_idom(v8_graph_t *g, uint32_t i)
{
    if (v8_graph_dominators(g) != 0 || i >= g->n) return V8_NO_NODE;
    return g->idom[i];
}

uint64_t v8_graph_retained(v8_graph_t *g, uint32_t i)
{
    if (v8_graph_dominators(g) != 0 || i >= g->n) return 0;
    return g->retained[i];
}
