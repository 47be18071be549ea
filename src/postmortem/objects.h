/* The heap's JavaScript objects counted and selected (postmortem/objects.c), over one heap walk
 * (postmortem/walk.c): per constructor name (`objects`), per function with its closures
 * (`functions`), and the objects of one constructor or matching a condition (`instances`, `find`). */
#ifndef POSTMORTEM_OBJECTS_H
#define POSTMORTEM_OBJECTS_H
#include "postmortem/query.h"
#include "postmortem/walk.h"
#include "v8/v8.h"
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *name;      /* the constructor, as walk.c names it (with -v, "Widget: a, b") */
    uint64_t count, bytes; /* instances, their shallow size */
} pm_group_t;

typedef enum { PM_GROUPS_BY_COUNT, PM_GROUPS_BY_SIZE } pm_group_order_t;
/* Every JS object by name, sorted (by count: count, then bytes, then name; by size: bytes, then
   as by count). 0, or -1 with a message (as command cmd) when there is no heap. *out and *n are
   set either way; the names live in w: free *out, then pm_walk_free(w). */
int pm_objects_count(v8_t *v, const char *cmd, int by_properties, pm_group_order_t order, pm_walk_t *w,
                     pm_group_t **out, size_t *n);

typedef struct {
    uint64_t shared, closures;
    uint64_t closure; /* one of them: an address closure, source and print take */
} pm_fn_count_t;
/* Every SharedFunctionInfo with closures, most closures first (then by address); as
   pm_objects_count (free *out; w has nothing to free but is pm_walk_free'd all the same). */
int pm_functions_count(v8_t *v, const char *cmd, pm_walk_t *w, pm_fn_count_t **out, size_t *n);

/* Called for each object selected and listed (under the limit): its address and name. */
typedef void (*pm_select_fn)(void *ctx, uint64_t addr, const char *name);
/* The objects named name (NULL: any) that match where (NULL: all), in heap order; the first limit
   (-1: all) of them passed to cb. *count: how many matched. 0, or -1 as pm_objects_count (the
   walk may have stopped partway: *count is what it saw). */
int pm_select(v8_t *v, const char *cmd, const char *name, pm_where_t *where, long limit, pm_select_fn cb, void *ctx,
              long *count);

#endif
