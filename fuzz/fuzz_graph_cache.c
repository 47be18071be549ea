/* Fuzz the object graph's cache file reader (v8/heap_graph.c: v8_graph_load, read back by mmap and
 * checked where it is used): the bytes are written to a file and loaded with the key their header
 * names (a fuzzer cannot guess a 64-bit key), then every query a cached graph answers is asked:
 * nodes, edges, retainers (by scan, then by the index), paths, roots, dominators, the origin.
 * Any bytes must give an answer or a refusal: never a crash or a read outside the file.
 * Seeds: fuzz/corpus/graph_cache/ (a valid three-node file with a cycle and a weak edge). */
#include "util/buf.h"
#include "util/diag.h"
#include "v8/graph.h"
#include "v8/v8.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    diag_verbosity = -1;
    if (!path[0]) snprintf(path, sizeof path, "/tmp/fuzz_graph_cache.%d.bin", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) return 0;
    fwrite(data, 1, size, f);
    fclose(f);
    uint64_t key = 0;
    if (size >= 24) memcpy(&key, data + 16, 8);
    buf_t origin = {0};
    v8_graph_cache_origin(path, &origin, NULL);
    buf_free(&origin);
    v8_graph_t *g = v8_graph_load(NULL, NULL, path, key);
    if (g) {
        size_t n = v8_graph_node_count(g);
        for (uint32_t i = 0; i < n && i < 64; i++) {
            const uint32_t *ts, *ss;
            size_t m = v8_graph_edges(g, i, &ts, &ss);
            for (size_t k = 0; k < m && k < 64; k++) (void)v8_graph_node(g, ts[k]);
            v8_graph_retainers(g, i, &ts, &ss); /* the ninth builds the reverse index */
            uint32_t p, s, r;
            v8_graph_parent(g, i, &p, &s, &r);
            v8_graph_distance(g, i);
            v8_graph_level(g, i);
            v8_graph_is_object(g, v8_graph_node(g, i)->addr);
        }
        for (size_t r = 0; r < v8_graph_root_count(g); r++) v8_graph_root_used(g, r);
        if (v8_graph_dominators(g) == 0)
            for (uint32_t i = 0; i < n && i < 64; i++) v8_graph_retained(g, i), v8_graph_idom(g, i);
        v8_graph_trim(g); /* heapsnapshot's view: nodes and roots */
        for (uint32_t i = 0; i < n && i < 64; i++) {
            const uint32_t *ts, *ss;
            v8_graph_edges(g, i, &ts, &ss);
            v8_graph_is_object(g, v8_graph_node(g, i)->addr);
        }
        for (size_t r = 0; r < v8_graph_root_count(g); r++) v8_graph_root_used(g, r);
        v8_graph_free(g);
    }
    unlink(path);
    return 0;
}
