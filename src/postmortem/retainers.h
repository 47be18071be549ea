/* What holds an object (postmortem/retainers.c): its direct holders with the edge each holds it
 * through (`refs`), and the best paths from the roots to it (`retainers`), over the session's
 * object graph. Naming edges and nodes is postmortem/paths.c's. */
#ifndef POSTMORTEM_RETAINERS_H
#define POSTMORTEM_RETAINERS_H
#include "v8/graph.h"
#include "v8/v8.h"
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint32_t holder; /* a graph node holding the object directly */
    v8_edge_t edge;  /* through what (its name in name) */
    char name[512];
    uint32_t owner;       /* a backing store's JS object (up to two holders up) that names the
                                 object, V8_NO_NODE when the holder is a JS object or none does */
    v8_edge_t owner_edge; /* the owner's edge to the object (its name in owner_name) */
    char owner_name[512];
} pm_ref_t;

/* Every direct holder of node x (at address addr), in the graph's retainer order; *out malloc'ed
   (NULL when none). Returns how many. */
size_t pm_refs(v8_graph_t *g, v8_edges_t *e, uint32_t x, uint64_t addr, pm_ref_t **out);

typedef struct {
    uint32_t *nodes, *slots; /* from a root to the object; slots[k]: the slot of nodes[k] -> nodes[k+1] */
    size_t n;                /* nodes */
    uint32_t root;           /* the root's index, V8_NO_NODE unknown */
} pm_path_t;

/* Up to max paths keeping node x alive, one per direct retainer, best first (global and modules,
   then stacks, then native; paths through V8 internals only after the others; shortest first): x
   a root itself gives its own one. None when x is unreachable. *out malloc'ed; free with
   pm_paths_free. Returns how many. */
size_t pm_retainer_paths(v8_graph_t *g, uint32_t x, size_t max, pm_path_t **out);
void pm_paths_free(pm_path_t *p, size_t n);

#endif
