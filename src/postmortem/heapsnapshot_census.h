/* A census of a V8 .heapsnapshot file (postmortem/heapsnapshot_census.c), for diff-objects. */
#ifndef POSTMORTEM_HEAPSNAPSHOT_CENSUS_H
#define POSTMORTEM_HEAPSNAPSHOT_CENSUS_H
#include "postmortem/leak.h"
#include "util/input.h"

/* 1 when path's first bytes are a JSON object rather than an ELF file (a .heapsnapshot, not a
 * core); 0 else (unreadable too: the core's open says why). */
int pm_is_heapsnapshot(const char *path);
/* Appends to L (PM_COUNT_REACHABLE: a snapshot holds what was reachable) the census of path at
 * time t: its JavaScript objects by constructor with their self sizes, identified by node id. 0,
 * or -1 with the error said (naming the file). */
int pm_heapsnapshot_census(pm_leak_t *L, const char *path, double t);
/* The same from an open input (errors name in's name). */
int pm_heapsnapshot_census_input(pm_leak_t *L, input_t *in, double t);

#endif
