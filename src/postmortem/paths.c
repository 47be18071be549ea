/* Naming what the object graph holds, as DevTools shows it: an edge by the property, element,
 * entry or variable it is (v8_edges_of), a node by its constructor or kind, and a path from a root
 * with its steps folded over JS objects' backing stores (a PropertyArray, elements, a dictionary,
 * a global's PropertyCell, a Map's table, an ES module's Cells). */
#include "postmortem/paths.h"
#include "util/json.h"
#include "util/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_COLLAPSE 3 /* backing-store hops folded into one named edge */
#define MAX_PATH 100000

static int on_edge(void *ctx, const v8_edge_t *e)
{
    pm_find_t *f = ctx;
    if (e->target != f->target) return 0;
    /* by slot: the edge at that offset, or a named one whose slot is not known (an in-object
       property); any slot: only named edges (properties, elements, entries, variables) */
    if (f->offset >= 0 ? e->offset >= 0 && e->offset != f->offset : e->offset >= 0 && e->kind != V8_EDGE_CONTEXT)
        return 0;
    f->found = *e;
    snprintf(f->name, sizeof f->name, "%s", e->name ? e->name : "");
    f->found.name = e->name ? f->name : NULL;
    f->ok = 1;
    return 1;
}

/* The edge from holder at slot (word index) to target: named when v8_edges_of names it. */
int pm_name_edge(v8_graph_t *g, v8_edges_t *e, uint32_t holder, int64_t offset, uint32_t target, pm_find_t *f)
{
    memset(f, 0, sizeof *f);
    f->offset = offset;
    f->target = v8_graph_node(g, target)->addr;
    v8_heap_object_t o = v8_graph_object(g, holder);
    v8_edges_of(e, &o, v8_graph_is_object, g, on_edge, f);
    return f->ok ? 0 : -1;
}

void pm_edge_label(const v8_edge_t *e, buf_t *b)
{
    switch (e->kind) {
    case V8_EDGE_PROPERTY: {
        const char *n = e->name ? e->name : "";
        int ident = *n && !(n[0] >= '0' && n[0] <= '9');
        for (const char *p = n; *p && ident; p++)
            ident = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
                    *p == '$' || (unsigned char)*p >= 0x80;
        if (ident) buf_printf(b, ".%s", n);
        else {
            buf_puts(b, "[");
            json_put_string(b, n, strlen(n));
            buf_puts(b, "]");
        }
        break;
    }
    case V8_EDGE_ELEMENT: buf_printf(b, "[%lld]", (long long)e->index); break;
    case V8_EDGE_CONTEXT: buf_printf(b, "context variable %s", e->name ? e->name : "?"); break;
    case V8_EDGE_WEAK:
        if (e->name) buf_printf(b, "(weak %s)", e->name);
        else buf_printf(b, "(weak [%lld])", (long long)e->index);
        break;
    default:
        if (e->name && (!strncmp(e->name, "value of ", 9) || !strncmp(e->name, "export ", 7))) buf_puts(b, e->name);
        else if (e->name && !strcmp(e->name, "key")) buf_puts(b, "key");
        else if (e->name) buf_printf(b, "(internal %s)", e->name);
        else buf_printf(b, "(internal [%lld])", (long long)e->index);
        break;
    }
}

const char *pm_edge_raw_name(const v8_edge_t *e, char *tmp, size_t n)
{
    if (e->kind == V8_EDGE_ELEMENT || !e->name) {
        snprintf(tmp, n, "%lld", (long long)e->index);
        return tmp;
    }
    return e->name;
}

/* "LeakMapValue", "Map", "(closure onData, /x/app.js:12)", "(context)", "(FixedArray)" */
void pm_describe_node(v8_t *v, v8_graph_t *g, uint32_t i, buf_t *b)
{
    const v8_graph_node_t *nd = v8_graph_node(g, i);
    v8_function_t fi;
    const char *tn0 = v8_type_name(v, nd->type);
    if (tn0 && !strcmp(tn0, "JS_GLOBAL_OBJECT_TYPE")) {
        buf_puts(b, "(global object)");
        return;
    }
    if ((nd->flags & V8_NODE_JS) && v8_function_info(v, nd->addr, &fi) == 0) {
        buf_printf(b, "(closure %s", v8_function_display_name(&fi, "(anonymous)"));
        if (fi.script_name) buf_printf(b, ", %s:%d", fi.script_name, fi.def_line);
        buf_puts(b, ")");
        v8_function_free(&fi);
        return;
    }
    if (nd->flags & V8_NODE_JS) {
        size_t before = b->len;
        if (v8_constructor_name(v, nd->addr, b) == 0 && b->len > before) {
            if (nd->flags & V8_NODE_PROTOTYPE) buf_puts(b, ".prototype");
            return;
        }
        b->len = before;
    }
    int type = nd->type;
    if (v8_is_string_type(v, type)) {
        v8_describe(v, nd->addr, b);
        return;
    }
    const char *cn = v8_class_name(v, type);
    const char *tn = v8_type_name(v, type);
    if (tn && strstr(tn, "CONTEXT_TYPE")) buf_puts(b, "(context)");
    else buf_printf(b, "(%s)", cn ? cn : tn ? tn : "object");
}

/* The path from the root to node x as nodes and slots; returns its length (nodes), root index. */
size_t pm_path_nodes(v8_graph_t *g, uint32_t x, uint32_t **nodes, uint32_t **slots, uint32_t *root)
{
    size_t n = 0, cap = 0;
    uint32_t *nd = NULL, *sl = NULL;
    uint32_t cur = x, parent, slot, ri;
    while (n < MAX_PATH && v8_graph_parent(g, cur, &parent, &slot, &ri) == 0) {
        XGROW(nd, cap, n + 1);
        sl = xrealloc(sl, cap * sizeof *sl);
        nd[n] = cur;
        sl[n] = slot;
        n++;
        if (parent == V8_NO_NODE) {
            *root = ri;
            break;
        }
        cur = parent;
    }
    /* reverse: root first; slots[k] is the slot of the edge from nodes[k] to nodes[k+1] */
    for (size_t a = 0, b = n ? n - 1 : 0; a < b; a++, b--) {
        uint32_t t = nd[a];
        nd[a] = nd[b];
        nd[b] = t;
        t = sl[a];
        sl[a] = sl[b];
        sl[b] = t;
    }
    for (size_t k = 0; k + 1 < n; k++) sl[k] = sl[k + 1];
    *nodes = nd;
    *slots = sl;
    return n;
}

/* Names the steps of a path nodes[0..n) (slots between them), folding backing stores. */
size_t pm_name_steps(v8_graph_t *g, v8_edges_t *e, const uint32_t *nodes, const uint32_t *slots, size_t n,
                     pm_step_t **out)
{
    pm_step_t *st = xcalloc(n ? n : 1, sizeof *st);
    size_t m = 0;
    for (size_t k = 0; k + 1 < n;) {
        pm_find_t f;
        size_t used = 1;
        int done = 0;
        /* from a JS object or a context, try to reach a later node by one named edge */
        const v8_graph_node_t *hn = v8_graph_node(g, nodes[k]);
        if ((hn->flags & V8_NODE_JS) || v8_edges_folds(e, hn->type)) {
            for (size_t j = k + 2; j < n && j <= k + 1 + MAX_COLLAPSE && !done; j++) {
                if (v8_graph_node(g, nodes[j - 1])->flags & V8_NODE_JS) break; /* only through backing stores */
                if (pm_name_edge(g, e, nodes[k], -1, nodes[j], &f) == 0) used = j - k, done = 1;
            }
        }
        if (!done && pm_name_edge(g, e, nodes[k], (int64_t)(slots[k] & ~V8_SLOT_WEAK) * 8, nodes[k + 1], &f) != 0) {
            f.found =
                (v8_edge_t){V8_EDGE_INTERNAL, NULL, (int64_t)(slots[k] & ~V8_SLOT_WEAK), 0, 8 * (int64_t)slots[k]};
        }
        st[m].holder = nodes[k];
        st[m].target = nodes[k + used];
        st[m].edge = f.found;
        snprintf(st[m].name, sizeof st[m].name, "%s", f.found.name ? f.found.name : "");
        st[m].edge.name = f.found.name ? st[m].name : NULL;
        m++;
        k += used;
    }
    *out = st;
    return m;
}

const char *pm_level_name(v8_root_level_t l)
{
    switch (l) {
    case V8_ROOT_GLOBAL: return "global";
    case V8_ROOT_MODULE: return "module";
    case V8_ROOT_STACK: return "stack";
    case V8_ROOT_NATIVE: return "native";
    default: return "none";
    }
}
