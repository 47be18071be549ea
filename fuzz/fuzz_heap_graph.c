/* Fuzz the object graph (v8/heap_graph.c, v8/heap_edges.c, v8/dominators.c) over an arbitrary
 * memory image at FUZZ_IMAGE_BASE decoded with Node 20's layout, as fuzz_heap_walk does: the graph is
 * built, every node's edges named, paths and dominators computed. Any bytes must give an answer
 * or an error: never a crash, a hang, or a read outside the image. Seeds: fuzz/corpus/heap_graph/
 * (fuzz_heap_walk's page; the same with its objects in a cycle and holding weak references). */
#include "target/target.h"
#include "util/diag.h"
#include "v8/graph.h"
#include "v8/v8.h"
#include "v8_node20_metadata.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int on_edge(void *ctx, const v8_edge_t *e)
{
    size_t *n = ctx;
    (*n)++;
    return e->name && !strcmp(e->name, "stop");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    diag_verbosity = -1;
    if (size < 64) return 0;
    target_t *t;
    v8_t *v = fuzz_open_node20(data, size, &t);
    if (v) {
        v8_heap_t *h = v8_heap_open_range(v, FUZZ_IMAGE_BASE, FUZZ_IMAGE_BASE + size);
        v8_graph_t *g = v8_heap_found(h) ? v8_graph_build(v, h, 0) : NULL;
        if (g) {
            buf_t why = {0};
            if (v8_graph_check(g, &why) != 0) {
                fprintf(stderr, "v8_graph_check: %s\n", why.data);
                abort();
            }
            buf_free(&why);
            v8_edges_t *e = v8_edges_new(v, h);
            size_t n = v8_graph_node_count(g), edges = 0, nr = v8_graph_root_count(g);
            /* the roots in use without paths (a bit a node), then from the paths: the same */
            uint8_t *used = calloc(nr ? nr : 1, 1);
            for (size_t r = 0; r < nr; r++) used[r] = (uint8_t)v8_graph_root_used(g, r);
            /* the reachable nodes (heapsnapshot writes only these): by the same walk, then by the paths */
            uint64_t *live = v8_graph_reachable(g);
            for (uint32_t i = 0; i < n && i < 256; i++) {
                v8_heap_object_t o = v8_graph_object(g, i);
                v8_edges_of(e, &o, v8_graph_is_object, g, on_edge, &edges);
                const uint32_t *hs, *ss;
                v8_graph_retainers(g, i, &hs, &ss);
                uint32_t p, s, r;
                v8_graph_parent(g, i, &p, &s, &r);
                v8_graph_retained(g, i);
            }
            for (size_t r = 0; r < nr; r++)
                if (used[r] != v8_graph_root_used(g, r)) abort();
            free(used);
            if (v8_graph_check(g, NULL) != 0) abort(); /* with paths now */
            uint64_t *live2 = v8_graph_reachable(g);
            for (uint32_t i = 0; i < n; i++) {
                int bit = (live[i / 64] >> (i % 64)) & 1;
                if (bit != ((live2[i / 64] >> (i % 64)) & 1) || bit != (v8_graph_distance(g, i) != V8_NO_NODE)) abort();
            }
            free(live);
            free(live2);
            /* trimmed (heapsnapshot): nodes and roots stay, the rest answers nothing */
            v8_graph_trim(g);
            if (v8_graph_reachable(g)) abort();
            for (uint32_t i = 0; i < n && i < 64; i++) {
                const uint32_t *ts, *ss;
                uint32_t p, s, r;
                if (v8_graph_edges(g, i, &ts, &ss) || v8_graph_retainers(g, i, &ts, &ss) ||
                    v8_graph_parent(g, i, &p, &s, &r) == 0)
                    abort();
                if (v8_graph_find(g, v8_graph_node(g, i)->addr) != i) abort();
                v8_graph_pass(g, i);
            }
            v8_graph_release(g);
            v8_edges_free(e);
            v8_graph_free(g);
        }
        v8_heap_close(h);
        v8_close(v);
    }
    target_close(t);
    return 0;
}
