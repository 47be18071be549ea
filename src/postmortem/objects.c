/* JavaScript objects of the heap counted by constructor, functions by closures, and objects
 * selected by constructor and --where, each over one pm_walk_js (names worked out once per map).
 * Invariant: a group's name is the walk's interned pointer, so groups are keyed by the pointer. */
#include "postmortem/objects.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
    u64map_t index; /* interned name pointer -> index + 1 */
    pm_group_t *g;
    size_t n, cap;
} groups_t;

static int count_object(pm_walk_t *w, const v8_heap_object_t *o, pm_map_entry_t *me)
{
    groups_t *gs = w->ctx;
    int found;
    uint32_t *slot = u64map_upsert(&gs->index, (uint64_t)(uintptr_t)me->name, &found);
    if (!found) {
        if (gs->n == gs->cap) {
            gs->cap = gs->cap ? gs->cap * 2 : 256;
            gs->g = xrealloc(gs->g, gs->cap * sizeof *gs->g);
        }
        gs->g[gs->n] = (pm_group_t){me->name, 0, 0};
        *slot = (uint32_t)++gs->n;
    }
    pm_group_t *g = &gs->g[*slot - 1];
    g->count++;
    g->bytes += o->size;
    return 0;
}

static int by_count(const void *a, const void *b)
{
    const pm_group_t *x = a, *y = b;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int by_size(const void *a, const void *b)
{
    const pm_group_t *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
    return by_count(a, b);
}

int pm_objects_count(v8_t *v, const char *cmd, int by_properties, pm_group_order_t order, pm_walk_t *w,
                     pm_group_t **out, size_t *n)
{
    groups_t gs = {0};
    u64map_init(&gs.index);
    int rc = pm_walk_js(v, cmd, by_properties, count_object, &gs, w);
    if (rc == 0 && gs.n) qsort(gs.g, gs.n, sizeof *gs.g, order == PM_GROUPS_BY_SIZE ? by_size : by_count);
    u64map_free(&gs.index);
    *out = gs.g, *n = gs.n;
    return rc;
}

typedef struct {
    u64map_t index; /* shared -> index + 1 */
    pm_fn_count_t *f;
    size_t n, cap;
} fns_t;

static int count_function(pm_walk_t *w, const v8_heap_object_t *o, pm_map_entry_t *me)
{
    (void)me;
    fns_t *fs = w->ctx;
    uint64_t shared;
    if (v8_heap_function_shared(w->h, o, &shared) != 0) return 0;
    int found;
    uint32_t *slot = u64map_upsert(&fs->index, shared, &found);
    if (!found) {
        if (fs->n == fs->cap) {
            fs->cap = fs->cap ? fs->cap * 2 : 1024;
            fs->f = xrealloc(fs->f, fs->cap * sizeof *fs->f);
        }
        fs->f[fs->n] = (pm_fn_count_t){shared, 0, o->addr};
        *slot = (uint32_t)++fs->n;
    }
    fs->f[*slot - 1].closures++;
    return 0;
}

static int by_closures(const void *a, const void *b)
{
    const pm_fn_count_t *x = a, *y = b;
    if (x->closures != y->closures) return x->closures < y->closures ? 1 : -1;
    return x->shared < y->shared ? -1 : x->shared > y->shared;
}

int pm_functions_count(v8_t *v, const char *cmd, pm_walk_t *w, pm_fn_count_t **out, size_t *n)
{
    fns_t fs = {0};
    u64map_init(&fs.index);
    int rc = pm_walk_js(v, cmd, 0, count_function, &fs, w);
    if (rc == 0 && fs.n) qsort(fs.f, fs.n, sizeof *fs.f, by_closures);
    u64map_free(&fs.index);
    *out = fs.f, *n = fs.n;
    return rc;
}

typedef struct {
    const char *name;
    pm_where_t *where;
    long limit, count;
    pm_select_fn cb;
    void *ctx;
} select_t;

static int select_object(pm_walk_t *w, const v8_heap_object_t *o, pm_map_entry_t *me)
{
    select_t *sel = w->ctx;
    if (sel->name && strcmp(me->name, sel->name)) return 0;
    if (sel->where && !pm_where_match(w->v, sel->where, o, me)) return 0;
    if (sel->limit < 0 || sel->count < sel->limit) sel->cb(sel->ctx, o->addr, me->name);
    sel->count++;
    return 0;
}

int pm_select(v8_t *v, const char *cmd, const char *name, pm_where_t *where, long limit, pm_select_fn cb, void *ctx,
              long *count)
{
    select_t sel = {name, where, limit, 0, cb, ctx};
    pm_walk_t w;
    int rc = pm_walk_js(v, cmd, 0, select_object, &sel, &w);
    pm_walk_free(&w);
    *count = sel.count;
    return rc;
}
