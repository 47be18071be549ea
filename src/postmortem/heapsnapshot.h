/* The heap as a V8 heap snapshot (postmortem/heapsnapshot.c). */
#ifndef POSTMORTEM_HEAPSNAPSHOT_H
#define POSTMORTEM_HEAPSNAPSHOT_H
#include "v8/v8.h"

/* Writes the session's object graph (pm_graph) of v's target to out ("-": stdout; a file is
 * written to a temporary name and renamed into place): the format v8.writeHeapSnapshot() writes.
 * 0, or 1 with a message printed. The graph's edges and paths are freed (pm_graph_trim). */
int pm_heapsnapshot_write(v8_t *v, const char *out);

#endif
