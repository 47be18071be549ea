/* Names of edges, nodes and paths of the object graph (postmortem/paths.c). */
#ifndef POSTMORTEM_PATHS_H
#define POSTMORTEM_PATHS_H
#include "util/buf.h"
#include "v8/graph.h"
#include "v8/v8.h"
#include <stddef.h>
#include <stdint.h>

typedef struct {
    int64_t offset; /* match an edge at this slot offset, or -1: any named backing-store edge */
    uint64_t target;
    v8_edge_t found;
    char name[512];
    int ok;
} pm_find_t;

/* The edge from holder to target at a slot offset (bytes; -1: any named edge of a backing store):
 * 0 and f->found when v8_edges_of names it. */
int pm_name_edge(v8_graph_t *g, v8_edges_t *e, uint32_t holder, int64_t offset, uint32_t target, pm_find_t *f);
/* ".prop", "[3]", "value of \"key\"", "context variable x", "export x", "(internal FIELD)", "(weak ...)" */
void pm_edge_label(const v8_edge_t *e, buf_t *b);
/* The edge's name as JSON gives it: the name, or the index as text (in tmp). */
const char *pm_edge_raw_name(const v8_edge_t *e, char *tmp, size_t n);
/* "LeakMapValue", "Map", "(closure onData, /x/app.js:12)", "(context)", "(FixedArray)" */
void pm_describe_node(v8_t *v, v8_graph_t *g, uint32_t i, buf_t *b);

/* A printed step: the edge from holder to target, perhaps folded over backing stores. */
typedef struct {
    uint32_t holder, target;
    v8_edge_t edge;
    char name[512];
} pm_step_t;

/* The path from the root to node x as nodes and slots (malloc'ed; slots[k] is the slot of the
 * edge from nodes[k] to nodes[k+1]); returns its length (nodes), *root the root's index. */
size_t pm_path_nodes(v8_graph_t *g, uint32_t x, uint32_t **nodes, uint32_t **slots, uint32_t *root);
/* The named steps of a path nodes[0..n), folded over backing stores; *out malloc'ed. */
size_t pm_name_steps(v8_graph_t *g, v8_edges_t *e, const uint32_t *nodes, const uint32_t *slots, size_t n,
                     pm_step_t **out);
/* "global", "module", "stack", "native" */
const char *pm_level_name(v8_root_level_t l);

#endif
