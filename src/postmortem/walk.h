/* Every JavaScript object of the heap, with what is worked out once per map (its constructor's
 * name, with -v its property names; where find's property lives): postmortem/walk.c. */
#ifndef POSTMORTEM_WALK_H
#define POSTMORTEM_WALK_H
#include "util/hash.h"
#include "util/progress.h"
#include "v8/v8.h"
#include <stddef.h>
#include <stdint.h>

typedef struct {
    const char *name; /* interned group name ("Widget", or "Widget: a, b" with -v) */
    int is_function;  /* JSFunction maps: -1 not yet known */
    int planned;      /* find: plan holds where --where's property lives in this map */
    v8_property_plan_t plan;
} pm_map_entry_t;

typedef struct pm_walk pm_walk_t;
typedef int (*pm_js_cb)(pm_walk_t *w, const v8_heap_object_t *o, pm_map_entry_t *me);

struct pm_walk {
    v8_t *v;
    v8_heap_t *h;
    strpool_t *names;
    u64map_t maps; /* map -> index + 1 into entries */
    pm_map_entry_t *entries;
    size_t nentries, cap;
    int by_properties; /* -v: group name includes the property names */
    progress_t progress;
    size_t seen;
    pm_js_cb cb;
    void *ctx;
    v8_heap_stats_t stats; /* the walk's: every object (not only JS), pages unreadable, resyncs */
};

/* Opens the heap of v's target and walks it, calling cb for every JavaScript object with its
 * map's entry (w->ctx is ctx); by_properties: entries are named "Widget: a, b". 0, or -1 with a
 * message (as command cmd) when there is no heap. Free w with pm_walk_free either way. */
int pm_walk_js(v8_t *v, const char *cmd, int by_properties, pm_js_cb cb, void *ctx, pm_walk_t *w);
void pm_walk_free(pm_walk_t *w);
/* A closure (JSFunction) of the SharedFunctionInfo shared, by a walk of the heap; 0 when none. */
uint64_t pm_first_closure(v8_t *v, uint64_t shared);

#endif
