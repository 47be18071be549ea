/* Dominators by Cooper, Harvey and Kennedy's iterative algorithm ("A Simple, Fast Dominance
 * Algorithm", 2001), the one V8's own heap snapshot uses: number the nodes in reverse postorder of
 * a depth-first search from the root, then repeat "idom(b) = the common ancestor of b's processed
 * predecessors" until nothing changes. Iterative DFS (no recursion: heaps are deep), arrays sized
 * from the counts, u32 node numbers. */
#include "v8/v8.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

#define MAX_ROUNDS 1000

int v8_dominators_compute(uint32_t n, const uint64_t *first, const uint32_t *succ, uint32_t *idom)
{
    if (!n) return 0;
    /* postorder numbers: post[node] (V8_NO_NODE: unreachable), order[k] = node */
    uint32_t *post = xmalloc((size_t)n * sizeof *post), *order = xmalloc((size_t)n * sizeof *order);
    uint32_t *stack = xmalloc((size_t)n * sizeof *stack);
    uint64_t *next = xmalloc((size_t)n * sizeof *next);   /* the next successor to visit */
    memset(post, 0xff, (size_t)n * sizeof *post);
    uint8_t *visited = xcalloc(n, 1);
    uint32_t sp = 0, count = 0;
    stack[sp++] = 0;
    visited[0] = 1;
    next[0] = first[0];
    while (sp) {
        uint32_t x = stack[sp - 1];
        if (next[x] < first[x + 1]) {
            uint32_t y = succ[next[x]++];
            if (y < n && !visited[y]) {
                visited[y] = 1;
                next[y] = first[y];
                stack[sp++] = y;
            }
        } else {
            post[x] = count;
            order[count++] = x;
            sp--;
        }
    }
    free(stack);
    free(next);
    free(visited);
    /* predecessors, in CSR (only of reachable nodes) */
    uint64_t *pfirst = xcalloc((size_t)n + 1, sizeof *pfirst);
    for (uint32_t x = 0; x < n; x++)
        if (post[x] != V8_NO_NODE)
            for (uint64_t k = first[x]; k < first[x + 1]; k++)
                if (succ[k] < n) pfirst[succ[k] + 1]++;
    for (uint32_t x = 0; x < n; x++) pfirst[x + 1] += pfirst[x];
    uint32_t *pred = xmalloc((pfirst[n] ? pfirst[n] : 1) * sizeof *pred);
    uint64_t *fill = xmalloc(((size_t)n + 1) * sizeof *fill);
    memcpy(fill, pfirst, ((size_t)n + 1) * sizeof *fill);
    for (uint32_t x = 0; x < n; x++)
        if (post[x] != V8_NO_NODE)
            for (uint64_t k = first[x]; k < first[x + 1]; k++)
                if (succ[k] < n) pred[fill[succ[k]]++] = x;
    free(fill);
    /* dom[] indexed by postorder number */
    uint32_t *dom = xmalloc((size_t)count * sizeof *dom);
    memset(dom, 0xff, (size_t)count * sizeof *dom);
    uint32_t root = post[0];
    dom[root] = root;
    int changed = 1;
    for (int round = 0; changed && round < MAX_ROUNDS; round++) {
        changed = 0;
        for (uint32_t k = count - 1; k-- > 0;) {   /* reverse postorder, the root (last) excluded */
            uint32_t x = order[k], nd = V8_NO_NODE;
            for (uint64_t j = pfirst[x]; j < pfirst[x + 1]; j++) {
                uint32_t p = post[pred[j]];
                if (dom[p] == V8_NO_NODE) continue;
                if (nd == V8_NO_NODE) {
                    nd = p;
                    continue;
                }
                uint32_t a = p, b = nd;   /* intersect: walk up to the common dominator */
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
    for (uint32_t x = 0; x < n; x++) idom[x] = post[x] == V8_NO_NODE ? V8_NO_NODE : order[dom[post[x]]];
    free(dom);
    free(pred);
    free(pfirst);
    free(post);
    free(order);
    return 0;
}

void v8_dominators_retained(uint32_t n, const uint32_t *idom, const uint64_t *size, uint64_t *retained)
{
    /* children are added to their dominator bottom-up: order nodes by depth in the dominator tree
       (a dominator is always shallower), deepest first */
    uint32_t *depth = xcalloc(n ? n : 1, sizeof *depth);
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
    uint64_t *cnt = xcalloc((size_t)maxd + 2, sizeof *cnt);
    for (uint32_t x = 1; x < n; x++)
        if (idom[x] != V8_NO_NODE) cnt[depth[x]]++;
    for (uint32_t d = 1; d <= maxd + 1; d++) cnt[d] += cnt[d - 1];
    uint32_t *byd = xmalloc((cnt[maxd + 1] ? cnt[maxd + 1] : 1) * sizeof *byd);
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
