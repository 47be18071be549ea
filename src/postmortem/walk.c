/* The heap walked object by object (v8_heap_walk) with a per-map cache: an object's group name
 * (pm_constructor_label, or with its property names) is worked out once per map, not per object;
 * the walk shows progress on a tty and says when pages could not be read. */
#include "postmortem/walk.h"
#include "postmortem/census.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

static int collect_key(void *ctx, const v8_property_t *p)
{
    buf_t *b = ctx;
    if (b->len > 400) {
        buf_puts(b, ", ...");
        return 1;
    }
    buf_puts(b, b->data && b->data[b->len - 1] != ' ' ? ", " : "");
    buf_puts(b, p->key);
    return 0;
}

static pm_map_entry_t *entry_for(pm_walk_t *w, const v8_heap_object_t *o)
{
    uint32_t idx;
    if (u64map_get(&w->maps, o->map, &idx)) return &w->entries[idx - 1];
    buf_t b = {0};
    pm_constructor_label(w->v, o->addr, o->type, o->prototype, &b);
    if (w->by_properties) {
        buf_puts(&b, ": ");
        size_t before = b.len;
        v8_object_properties(w->v, o->addr, collect_key, &b);
        if (b.len == before) buf_puts(&b, "(no properties)");
    }
    if (w->nentries == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 256;
        w->entries = xrealloc(w->entries, w->cap * sizeof *w->entries);
    }
    w->entries[w->nentries] = (pm_map_entry_t){strpool_intern(w->names, b.data, b.len), -1, 0, {0, 0, -1, 0}};
    int found;
    *u64map_upsert(&w->maps, o->map, &found) = (uint32_t)++w->nentries;
    buf_free(&b);
    return &w->entries[w->nentries - 1];
}

static int on_object(void *ctx, const v8_heap_object_t *o)
{
    pm_walk_t *w = ctx;
    if ((++w->seen & 0xffff) == 0) progress_update(&w->progress, w->seen, 0);
    if (!v8_heap_is_js_type(w->h, o->type)) return 0;
    return w->cb(w, o, entry_for(w, o));
}

/* Opens the heap and walks it, calling cb for every JavaScript object. EXIT_* code. */
int pm_walk_js(v8_t *v, const char *cmd, int by_properties, pm_js_cb cb, void *ctx, pm_walk_t *w)
{
    memset(w, 0, sizeof *w);
    w->v = v;
    w->by_properties = by_properties;
    w->cb = cb;
    w->ctx = ctx;
    w->names = strpool_new();
    u64map_init(&w->maps);
    w->h = v8_heap_open(v);
    if (!v8_heap_found(w->h)) {
        diag_error(target_name(v8_target(v)), 0, "%s: no V8 heap pages found in the target's memory", cmd);
        return -1;
    }
    progress_init(&w->progress, "walking the heap", "objects");
    v8_heap_walk(w->h, on_object, w, &w->stats);
    progress_done(&w->progress);
    if (w->stats.unreadable_pages)
        diag_warn(target_name(v8_target(v)), 0, "%s: %zu heap pages could not be read (not in the core?)", cmd,
                  w->stats.unreadable_pages);
    return 0;
}

void pm_walk_free(pm_walk_t *w)
{
    v8_heap_close(w->h);
    strpool_free(w->names);
    u64map_free(&w->maps);
    free(w->entries);
}

typedef struct {
    v8_heap_t *h;
    uint64_t shared, found;
} closure_find_t;

static int closure_of(void *ctx, const v8_heap_object_t *o)
{
    closure_find_t *f = ctx;
    uint64_t shared;
    if (v8_heap_function_shared(f->h, o, &shared) != 0 || shared != f->shared) return 0;
    f->found = o->addr;
    return 1;
}

uint64_t pm_first_closure(v8_t *v, uint64_t shared)
{
    closure_find_t f = {v8_heap_open(v), shared, 0};
    if (v8_heap_found(f.h)) v8_heap_walk(f.h, closure_of, &f, NULL);
    v8_heap_close(f.h);
    return f.found;
}
