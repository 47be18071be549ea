/* The session's object graph and its cache file (postmortem/graph_session.c). */
#ifndef POSTMORTEM_GRAPH_SESSION_H
#define POSTMORTEM_GRAPH_SESSION_H
#include "v8/graph.h"
#include "v8/v8.h"

/* The object graph of v's target, built (or read from the cache) on first use, kept for the
 * session; NULL, message printed, when there is no heap. *edges: the edge namer that goes with it. */
v8_graph_t *pm_graph(v8_t *v, v8_edges_t **edges);
/* Writes a graph built by the last command to the cache file (after flushing its answer). */
void pm_graph_save_pending(void);
/* For a writer that needs only the nodes and roots (heapsnapshot): writes a graph built by this
 * command to the cache now, then frees its edges and paths (v8_graph_trim); the next pm_graph
 * reads the cache again, or builds the graph. */
void pm_graph_trim(void);
/* --no-cache (or NODESCOPE_NO_GRAPH_CACHE in the environment): the graph is built, and the cache
 * file neither read nor written. */
extern int pm_graph_no_cache;

#endif
