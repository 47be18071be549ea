/* Dominators and retained sizes (v8/dominators.c) against brute force on small random graphs:
 * d dominates x when x cannot be reached from the root without d; x's immediate dominator is the
 * strict dominator dominated by all the others; x retains every node that becomes unreachable
 * when x is removed. Also a few hand-made shapes (a diamond, a cycle, an unreachable node). */
#include "check.h"
#include "v8/graph.h"
#include "v8/v8.h"
#include <stdint.h>
#include <stdlib.h>

#define MAXN 24

static int nn;
static int adj[MAXN][MAXN];

/* reachable from 0 avoiding node `skip` (-1: none) */
static void reach(int skip, int *seen)
{
    int stack[MAXN], sp = 0;
    memset(seen, 0, sizeof(int) * MAXN);
    if (skip == 0) return;
    stack[sp++] = 0;
    seen[0] = 1;
    while (sp) {
        int x = stack[--sp];
        for (int y = 0; y < nn; y++)
            if (adj[x][y] && y != skip && !seen[y]) seen[y] = 1, stack[sp++] = y;
    }
}

static void check_graph(const char *what, const uint64_t *size)
{
    uint64_t first[MAXN + 1];
    uint32_t succ[MAXN * MAXN];
    uint32_t m = 0;
    for (int x = 0; x < nn; x++) {
        first[x] = m;
        for (int y = 0; y < nn; y++)
            if (adj[x][y]) succ[m++] = (uint32_t)y;
    }
    first[nn] = m;
    uint32_t idom[MAXN];
    uint64_t ret[MAXN];
    CHECK(v8_dominators_compute((uint32_t)nn, first, succ, idom) == 0);
    v8_dominators_retained((uint32_t)nn, idom, size, ret);
    int base[MAXN], without[MAXN][MAXN];
    reach(-1, base);
    for (int d = 0; d < nn; d++) reach(d, without[d]);
    int bad = 0;
    for (int x = 0; x < nn; x++) {
        if (!base[x]) {
            bad |= idom[x] != V8_NO_NODE || ret[x] != 0;
            continue;
        }
        if (x == 0) {
            bad |= idom[0] != 0;
        } else {
            /* strict dominators of x, and the one all the others dominate */
            int want = -1, nd = 0, doms[MAXN];
            for (int d = 0; d < nn; d++)
                if (d != x && !without[d][x]) doms[nd++] = d;
            for (int i = 0; i < nd && want < 0; i++) {
                int all = 1;
                for (int j = 0; j < nd && all; j++)
                    if (j != i && without[doms[j]][doms[i]]) all = 0; /* doms[j] must dominate doms[i] */
                if (all) want = doms[i];
            }
            bad |= (int)idom[x] != want;
        }
        uint64_t r = 0;
        for (int y = 0; y < nn; y++)
            if (base[y] && (y == x || !without[x][y])) r += size[y];
        bad |= ret[x] != r;
        if (bad) {
            fprintf(stderr, "%s: node %d: idom %u, retained %llu (brute force %llu)\n", what, x, idom[x],
                    (unsigned long long)ret[x], (unsigned long long)r);
            break;
        }
    }
    CHECK(!bad);
    /* the same graph as the object graph stores it (v8_dominators_graph): node x > 0 is graph node
       x - 1, 0's successors the roots, plus weak edges the algorithm must ignore */
    v8_graph_node_t nodes[MAXN];
    uint64_t gfirst[MAXN + 1];
    uint32_t tgt[MAXN * MAXN * 2], slot[MAXN * MAXN * 2], roots[MAXN];
    size_t nroots = 0;
    uint64_t ge = 0;
    for (int y = 1; y < nn; y++)
        if (adj[0][y]) roots[nroots++] = (uint32_t)y;
    for (int x = 1; x < nn; x++) {
        nodes[x - 1] = (v8_graph_node_t){(uint64_t)x * 16 + 1, (uint32_t)size[x], 0, 0};
        gfirst[x - 1] = ge;
        for (int y = 1; y < nn; y++) {
            if ((x * 7 + y) % 5 == 0) tgt[ge] = (uint32_t)(y - 1), slot[ge++] = V8_SLOT_WEAK | 3;
            if (adj[x][y]) tgt[ge] = (uint32_t)(y - 1), slot[ge++] = (uint32_t)y;
        }
    }
    gfirst[nn > 0 ? nn - 1 : 0] = ge;
    uint32_t gidom[MAXN];
    uint64_t gret[MAXN];
    CHECK(v8_dominators_graph((uint32_t)nn - 1, gfirst, tgt, slot, ge, roots, nroots, nodes, gidom, gret) == 0);
    int gbad = 0;
    for (int x = 1; x < nn && !gbad; x++) {
        gbad = gidom[x] != idom[x] || gret[x] != ret[x];
        if (gbad)
            fprintf(stderr, "%s: graph form, node %d: idom %u, retained %llu (want %u, %llu)\n", what, x, gidom[x],
                    (unsigned long long)gret[x], idom[x], (unsigned long long)ret[x]);
    }
    CHECK(!gbad);
}

int main(void)
{
    uint64_t size[MAXN];
    for (int i = 0; i < MAXN; i++) size[i] = 10 + (uint64_t)i;
    /* a diamond: 0 -> 1, 2 -> 3; 3 is dominated by 0 only */
    nn = 5;
    memset(adj, 0, sizeof adj);
    adj[0][1] = adj[0][2] = adj[1][3] = adj[2][3] = 1; /* node 4 unreachable */
    check_graph("diamond", size);
    /* a cycle hanging off a chain */
    nn = 6;
    memset(adj, 0, sizeof adj);
    adj[0][1] = adj[1][2] = adj[2][3] = adj[3][1] = adj[3][4] = adj[4][5] = adj[5][4] = 1;
    check_graph("cycle", size);
    srand(12345);
    for (int round = 0; round < 3000; round++) {
        nn = 2 + rand() % (MAXN - 1);
        memset(adj, 0, sizeof adj);
        int density = 5 + rand() % 30;
        for (int x = 0; x < nn; x++)
            for (int y = 0; y < nn; y++)
                if (x != y && rand() % 100 < density) adj[x][y] = 1;
        for (int i = 0; i < nn; i++) size[i] = (uint64_t)(rand() % 1000);
        char what[32];
        snprintf(what, sizeof what, "random %d", round);
        check_graph(what, size);
        if (check_failures) break;
    }
    return check_summary("test_dominators");
}
