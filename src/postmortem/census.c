/* JavaScript objects counted by constructor, with retained sizes from the dominator tree: one
 * aggregation for `objects --retained` and `dominators`, one constructor label for `objects`
 * and both (see census.h). */
#include "postmortem/census.h"
#include "postmortem/paths.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

void pm_constructor_label(v8_t *v, uint64_t addr, int type, int prototype, buf_t *b)
{
    size_t before = b->len;
    if (v8_constructor_name(v, addr, b) != 0 || b->len == before) {
        b->len = before;
        if (b->data) b->data[before] = 0;
        const char *cn = v8_class_name(v, type);
        buf_printf(b, "(%s)", cn ? cn : "unknown");
    }
    /* A prototype's "constructor" property names the class it is the prototype of: counted apart
       from the instances, as heap snapshots do. */
    if (prototype) buf_puts(b, ".prototype");
}

void pm_name_by_constructor(v8_t *v, v8_graph_t *g, uint32_t i, buf_t *b)
{
    const v8_graph_node_t *nd = v8_graph_node(g, i);
    pm_constructor_label(v, nd->addr, nd->type, (nd->flags & V8_NODE_PROTOTYPE) != 0, b);
}

void pm_name_described(v8_t *v, v8_graph_t *g, uint32_t i, buf_t *b)
{
    size_t before = b->len;
    pm_describe_node(v, g, i, b);
    if (!strncmp(b->data + before, "(closure", 8)) { /* maps are shared: not by function */
        b->len = before;
        buf_puts(b, "(closure)");
    }
}

int pm_node_map(v8_t *v, v8_graph_t *g, uint32_t i, uint64_t *map)
{
    const uint32_t *targets, *slots;
    size_t n = v8_graph_edges(g, i, &targets, &slots);
    if (n && slots[0] == 0) {
        *map = v8_graph_node(g, targets[0])->addr;
        return 0;
    }
    return v8_read_field(v, v8_graph_node(g, i)->addr, 0, map);
}

int pm_census_retained(v8_t *v, v8_graph_t *g, pm_namer_fn name, pm_census_t *out)
{
    memset(out, 0, sizeof *out);
    if (v8_graph_dominators(g) != 0) {
        diag_error(target_name(v8_target(v)), 0, "out of memory computing dominators");
        return -1;
    }
    size_t nn = v8_graph_node_count(g), cap = 0;
    out->names = strpool_new();
    out->of = xcalloc(nn ? nn : 1, sizeof *out->of);
    u64map_t by_map, by_name;
    u64map_init(&by_map);
    u64map_init(&by_name);
    buf_t b = {0};
    for (size_t i = 0; i < nn; i++) {
        const v8_graph_node_t *nd = v8_graph_node(g, (uint32_t)i);
        if (!(nd->flags & V8_NODE_JS)) continue;
        uint64_t map;
        uint32_t idx;
        if (pm_node_map(v, g, (uint32_t)i, &map) != 0) continue;
        if (nd->flags & V8_NODE_PROTOTYPE) map ^= 1; /* prototypes apart from instances */
        if (!u64map_get(&by_map, map, &idx)) {
            buf_clear(&b);
            name(v, g, (uint32_t)i, &b);
            const char *nm = strpool_intern(out->names, b.data ? b.data : "", b.len);
            int found;
            uint32_t *slot = u64map_upsert(&by_name, (uint64_t)(uintptr_t)nm, &found);
            if (!found) {
                XGROW(out->classes, cap, out->n + 1);
                out->classes[out->n] = (pm_class_t){nm, 0, 0, 0};
                *slot = (uint32_t)++out->n;
            }
            idx = *slot;
            *u64map_upsert(&by_map, map, &found) = idx;
        }
        out->of[i] = idx;
        out->classes[idx - 1].count++;
        out->classes[idx - 1].self += nd->size;
    }
    for (size_t i = 0; i < nn; i++) {
        if (!out->of[i]) continue;
        int nested = 0;
        uint32_t d = v8_graph_idom(g, (uint32_t)i);
        for (int depth = 0; d != V8_NO_NODE && depth < 10000 && !nested; depth++, d = v8_graph_idom(g, d))
            nested = d < nn && out->of[d] == out->of[i];
        if (!nested) out->classes[out->of[i] - 1].retained += v8_graph_retained(g, (uint32_t)i);
    }
    buf_free(&b);
    u64map_free(&by_map);
    u64map_free(&by_name);
    return 0;
}

void pm_census_free(pm_census_t *c)
{
    strpool_free(c->names);
    free(c->classes);
    free(c->of);
    memset(c, 0, sizeof *c);
}

static int by_retained(const void *a, const void *b)
{
    const pm_class_t *x = a, *y = b;
    if (x->retained != y->retained) return x->retained < y->retained ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int by_retained_count(const void *a, const void *b)
{
    const pm_class_t *x = a, *y = b;
    if (x->retained != y->retained) return x->retained < y->retained ? 1 : -1;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int by_self(const void *a, const void *b)
{
    const pm_class_t *x = a, *y = b;
    if (x->self != y->self) return x->self < y->self ? 1 : -1;
    return by_retained_count(a, b);
}

pm_class_t *pm_census_sorted(const pm_census_t *c, pm_class_order_t order)
{
    pm_class_t *s = xmalloc((c->n ? c->n : 1) * sizeof *s);
    if (c->n) memcpy(s, c->classes, c->n * sizeof *s);
    qsort(s, c->n, sizeof *s,
          order == PM_BY_RETAINED ? by_retained
          : order == PM_BY_SELF   ? by_self
                                  : by_retained_count);
    return s;
}

static int by_retained_top(const void *a, const void *b)
{
    const pm_top_t *x = a, *y = b;
    if (x->retained != y->retained) return x->retained < y->retained ? 1 : -1;
    return x->node < y->node ? -1 : x->node > y->node;
}

size_t pm_top_retained(v8_graph_t *g, const pm_census_t *cs, size_t k, pm_top_t **outp)
{
    size_t n = v8_graph_node_count(g), all = 0;
    for (size_t i = 0; i < n; i++) all += cs->of[i] != 0;
    if (k > all) k = all;
    pm_top_t *out = *outp = xmalloc((k ? k : 1) * sizeof *out);
    size_t m = 0;
    for (size_t i = 0; i < n && k; i++) {
        if (!cs->of[i]) continue;
        pm_top_t t = {(uint32_t)i, v8_graph_retained(g, (uint32_t)i)};
        if (m == k && by_retained_top(&t, &out[0]) >= 0) continue;
        size_t j;
        if (m < k) { /* sift up */
            j = m++;
            while (j && by_retained_top(&t, &out[(j - 1) / 2]) > 0) out[j] = out[(j - 1) / 2], j = (j - 1) / 2;
        } else { /* replace the worst, sift down */
            j = 0;
            for (;;) {
                size_t c = 2 * j + 1;
                if (c >= m) break;
                if (c + 1 < m && by_retained_top(&out[c + 1], &out[c]) > 0) c++;
                if (by_retained_top(&out[c], &t) <= 0) break;
                out[j] = out[c];
                j = c;
            }
        }
        out[j] = t;
    }
    qsort(out, m, sizeof *out, by_retained_top);
    return m;
}
