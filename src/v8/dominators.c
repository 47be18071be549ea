/* Dominators by Cooper, Harvey and Kennedy's iterative algorithm ("A Simple, Fast Dominance
 * Algorithm", 2001), the one V8's own heap snapshot uses: number the nodes in reverse postorder of
 * a depth-first search from the root, then repeat "idom(b) = the common ancestor of b's processed
 * predecessors" until nothing changes. Iterative DFS (no recursion: heaps are deep), arrays sized
 * from the counts, u32 node numbers. */
#include "util/bigmem.h"
#include "util/xalloc.h"
#include "v8/graph.h"
#include "v8/v8.h"
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ROUNDS 1000

/* The graph the algorithm walks: plain CSR (v8_dominators_compute), or the object graph as it is
 * stored (v8_dominators_graph: node 0 a synthetic root whose successors are roots[], node x > 0
 * the graph's node x - 1, whose successors are tgt + 1, weak slots left out). No copy of the
 * object graph is made: on a 1.2 GB core, every array touched costs page faults. */
typedef struct {
    uint32_t n;
    const uint64_t *first;
    const uint32_t *succ, *slot; /* slot: NULL for plain CSR */
    uint64_t nsucc;              /* the arrays' length (ranges of a cached graph are checked) */
    const uint32_t *roots;
    size_t nroots;
} dgraph_t;

/* Node x's successor list: values p[0..*cnt) plus add; weak (when w) marks slots to skip. */
static inline const uint32_t *succ_of(const dgraph_t *d, uint32_t x, uint64_t *cnt, uint32_t *add, const uint32_t **w)
{
    *w = NULL;
    if (!d->slot) {
        *add = 0;
        int ok = d->first[x] <= d->first[x + 1] && d->first[x + 1] <= d->nsucc;
        *cnt = ok ? d->first[x + 1] - d->first[x] : 0;
        return ok ? d->succ + d->first[x] : d->succ;
    }
    if (x == 0) {
        *add = 0;
        *cnt = d->nroots;
        return d->roots;
    }
    uint64_t a = d->first[x - 1], b = d->first[x];
    *add = 1;
    if (a > b || b > d->nsucc) { /* a corrupt cache file's range: no successors */
        *cnt = 0;
        *w = d->slot;
        return d->succ;
    }
    *w = d->slot + a;
    *cnt = b - a;
    return d->succ + a;
}

#define VISITING 0xfffffffeu

/* Cooper-Harvey-Kennedy over d: idom[x] (V8_NO_NODE: unreachable), and the nodes in postorder
 * (*order, *count: the root last). 0, or -1 out of memory. */
static int dominators_run(const dgraph_t *d, uint32_t *idom, uint32_t **order_out, uint32_t *count_out)
{
    uint32_t n = d->n;
    /* postorder numbers: post[node] (V8_NO_NODE: unreachable), order[k] = node */
    uint32_t *post = big_malloc((size_t)n * sizeof *post), *order = big_malloc((size_t)n * sizeof *order);
    uint32_t *stack = big_malloc((size_t)n * sizeof *stack);
    uint32_t *next = big_malloc((size_t)n * sizeof *next); /* successors of the node visited so far */
    memset(post, 0xff, (size_t)n * sizeof *post);
    uint32_t sp = 0, count = 0;
    stack[sp++] = 0;
    post[0] = VISITING;
    next[0] = 0;
    while (sp) {
        uint32_t x = stack[sp - 1], add;
        uint64_t cnt;
        const uint32_t *w, *p = succ_of(d, x, &cnt, &add, &w);
        uint64_t k = next[x];
        int pushed = 0;
        while (k < cnt) {
            uint64_t j = k++;
            if (w && (w[j] & V8_SLOT_WEAK)) continue;
            uint32_t y = p[j] + add;
            if (y >= n || p[j] >= n || post[y] != V8_NO_NODE) continue;
            post[y] = VISITING;
            next[y] = 0;
            stack[sp++] = y;
            pushed = 1;
            break;
        }
        next[x] = (uint32_t)k;
        if (!pushed) {
            post[x] = count;
            order[count++] = x;
            sp--;
        }
    }
    free(stack);
    free(next);
    /* predecessors, in CSR (only of reachable nodes): start(y) = pfirst[y + 1] after the fill,
       end(y) = pfirst[y + 2] */
    uint64_t *pfirst = big_calloc((size_t)n + 2, sizeof *pfirst);
    for (uint32_t x = 0; x < n; x++) {
        if (post[x] == V8_NO_NODE) continue;
        uint32_t add;
        uint64_t cnt;
        const uint32_t *w, *p = succ_of(d, x, &cnt, &add, &w);
        for (uint64_t j = 0; j < cnt; j++)
            if (!(w && (w[j] & V8_SLOT_WEAK)) && p[j] < n && p[j] + add < n) pfirst[p[j] + add + 1]++;
    }
    for (uint32_t x = 0; x < n; x++) pfirst[x + 1] += pfirst[x];
    uint64_t npred = pfirst[n];
    uint32_t *pred = big_malloc((npred ? npred : 1) * sizeof *pred);
    for (uint32_t x = 0; x < n; x++) {
        if (post[x] == V8_NO_NODE) continue;
        uint32_t add;
        uint64_t cnt;
        const uint32_t *w, *p = succ_of(d, x, &cnt, &add, &w);
        for (uint64_t j = 0; j < cnt; j++)
            if (!(w && (w[j] & V8_SLOT_WEAK)) && p[j] < n && p[j] + add < n) pred[--pfirst[p[j] + add + 1]] = x;
    }
    pfirst[n + 1] = npred;
    /* dom[] indexed by postorder number */
    uint32_t *dom = big_malloc(((size_t)count ? count : 1) * sizeof *dom);
    memset(dom, 0xff, (size_t)count * sizeof *dom);
    uint32_t root = post[0];
    dom[root] = root;
    int changed = 1;
    for (int round = 0; changed && round < MAX_ROUNDS; round++) {
        changed = 0;
        for (uint32_t k = count - 1; k-- > 0;) { /* reverse postorder, the root (last) excluded */
            uint32_t x = order[k], nd = V8_NO_NODE;
            for (uint64_t j = pfirst[x + 1]; j < pfirst[x + 2]; j++) {
                uint32_t p = post[pred[j]];
                if (dom[p] == V8_NO_NODE) continue;
                if (nd == V8_NO_NODE) {
                    nd = p;
                    continue;
                }
                uint32_t a = p, b = nd; /* intersect: walk up to the common dominator */
                while (a != b) {
                    while (a < b) a = dom[a];
                    while (b < a) b = dom[b];
                }
                nd = a;
            }
            if (nd != V8_NO_NODE && dom[k] != nd) {
                dom[k] = nd;
                changed = 1;
            }
        }
    }
    for (uint32_t x = 0; x < n; x++) {
        idom[x] = post[x] == V8_NO_NODE ? V8_NO_NODE : order[dom[post[x]]];
        assert(idom[x] == V8_NO_NODE || idom[x] < n); /* a reachable node's dominator is a node */
    }
    free(dom);
    free(pred);
    free(pfirst);
    free(post);
    *order_out = order;
    *count_out = count;
    return 0;
}

int v8_dominators_compute(uint32_t n, const uint64_t *first, const uint32_t *succ, uint32_t *idom)
{
    if (!n) return 0;
    dgraph_t d = {n, first, succ, NULL, first[n], NULL, 0};
    uint32_t *order, count;
    if (dominators_run(&d, idom, &order, &count) != 0) return -1;
    free(order);
    return 0;
}

int v8_dominators_graph(uint32_t n, const uint64_t *first, const uint32_t *tgt, const uint32_t *slot, uint64_t nedges,
                        const uint32_t *roots, size_t nroots, const v8_graph_node_t *nodes, uint32_t *idom,
                        uint64_t *retained)
{
    dgraph_t d = {n + 1, first, tgt, slot, nedges, roots, nroots};
    uint32_t *order, count;
    if (dominators_run(&d, idom, &order, &count) != 0) return -1;
    /* retained sizes bottom-up: in postorder a node comes before its dominator (an ancestor in the
       search's tree) */
    for (uint32_t x = 0; x <= n; x++) retained[x] = idom[x] == V8_NO_NODE || x == 0 ? 0 : nodes[x - 1].size;
    for (uint32_t k = 0; k < count; k++) {
        uint32_t x = order[k];
        if (x && idom[x] != V8_NO_NODE && idom[x] != x) retained[idom[x]] += retained[x];
    }
    free(order);
    return 0;
}

void v8_dominators_retained(uint32_t n, const uint32_t *idom, const uint64_t *size, uint64_t *retained)
{
    /* children are added to their dominator bottom-up: order nodes by depth in the dominator tree
       (a dominator is always shallower), deepest first */
    uint32_t *depth = big_calloc(n ? n : 1, sizeof *depth);
    uint32_t maxd = 0;
    for (uint32_t x = 0; x < n; x++) {
        retained[x] = idom[x] == V8_NO_NODE ? 0 : size[x];
        if (idom[x] == V8_NO_NODE || x == 0) continue;
        /* walk up to a node of known depth, then fill the chain down */
        uint32_t d = 0, y = x;
        while (y != 0 && depth[y] == 0 && d <= n) y = idom[y], d++;
        d += y == 0 ? 0 : depth[y];
        for (uint32_t z = x, dz = d; z != 0 && depth[z] == 0; z = idom[z], dz--) depth[z] = dz;
        if (d > maxd) maxd = d;
    }
    uint64_t *cnt = big_calloc((size_t)maxd + 2, sizeof *cnt);
    for (uint32_t x = 1; x < n; x++)
        if (idom[x] != V8_NO_NODE) cnt[depth[x]]++;
    for (uint32_t d = 1; d <= maxd + 1; d++) cnt[d] += cnt[d - 1];
    uint32_t *byd = big_malloc((cnt[maxd + 1] ? cnt[maxd + 1] : 1) * sizeof *byd);
    for (uint32_t x = n; x-- > 1;)
        if (idom[x] != V8_NO_NODE) byd[--cnt[depth[x]]] = x;
    for (uint64_t k = cnt[maxd + 1]; k-- > 0;) {
        uint32_t x = byd[k];
        if (idom[x] != x) retained[idom[x]] += retained[x];
    }
    free(cnt);
    free(byd);
    free(depth);
}
