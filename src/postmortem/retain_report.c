/* The output of refs, retainers, dominators and objects --retained, as text or JSON
 * (postmortem/retain_report.h). */
#include "postmortem/retain_report.h"
#include "postmortem/graph_session.h"
#include "postmortem/paths.h"
#include <stdlib.h>

static void put_hex(buf_t *b, uint64_t a) { buf_printf(b, "0x%llx", (unsigned long long)a); }

/* One path (text into b, or JSON with w when not NULL): nodes[0..n) from a root (root index
   root), slots between. */
static void print_path(v8_t *v, v8_graph_t *g, v8_edges_t *e, const uint32_t *nodes, const uint32_t *slots, size_t n,
                       uint32_t root, jw_t *w, int idx, buf_t *b)
{
    pm_step_t *st;
    size_t m = pm_name_steps(g, e, nodes, slots, n, &st);
    const v8_graph_root_t *rt = root != V8_NO_NODE ? v8_graph_root(g, root) : NULL;
    const char *rn = rt ? rt->name : "?";
    buf_t d = {0};
    char tmp[32];
    if (w) { /* an element of the paths array (a line, indented 4), its steps a line each (6) */
        w->indent = "    ";
        jw_object_begin(w, NULL);
        jw_string(w, "root", rn);
        jw_string(w, "level", rt ? pm_level_name(rt->level) : "none");
        jw_address(w, "root_address", v8_graph_node(g, nodes[0])->addr);
        jw_uint(w, "distance", m);
        jw_bool(w, "internal", v8_graph_path_internal(g, nodes[n - 2 < n ? n - 2 : 0]));
        jw_array_begin_lines(w, "steps");
        w->indent = "      ";
        for (size_t k = 0; k < m; k++) {
            jw_object_begin(w, NULL);
            jw_string(w, "kind", v8_edge_kind_name(st[k].edge.kind));
            jw_string(w, "name", pm_edge_raw_name(&st[k].edge, tmp, sizeof tmp));
            buf_clear(&d);
            pm_edge_label(&st[k].edge, &d);
            jw_string_n(w, "edge", d.data, d.len);
            jw_address(w, "holder", v8_graph_node(g, st[k].holder)->addr);
            jw_address(w, "target", v8_graph_node(g, st[k].target)->addr);
            buf_clear(&d);
            pm_describe_node(v, g, st[k].target, &d);
            jw_string_n(w, "description", d.data ? d.data : "", d.len);
            jw_end(w);
        }
        jw_end(w);
        jw_end(w);
    } else {
        buf_printf(b, "path %d (%zu steps, from %s%s):\n  %s ", idx + 1, m, rt ? pm_level_name(rt->level) : "?",
                   v8_graph_path_internal(g, nodes[n - 2 < n ? n - 2 : 0]) ? ", through V8 internals only" : "", rn);
        pm_describe_node(v, g, nodes[0], &d);
        buf_printf(b, "%s ", d.data ? d.data : "");
        put_hex(b, v8_graph_node(g, nodes[0])->addr);
        buf_puts(b, "\n");
        for (size_t k = 0; k < m; k++) {
            buf_clear(&d);
            pm_edge_label(&st[k].edge, &d);
            buf_printf(b, "    %-28s -> ", d.data);
            buf_clear(&d);
            pm_describe_node(v, g, st[k].target, &d);
            buf_printf(b, "%s ", d.data ? d.data : "");
            put_hex(b, v8_graph_node(g, st[k].target)->addr);
            buf_puts(b, "\n");
        }
    }
    buf_free(&d);
    free(st);
}

/* ---- refs ---- */

static void refs_write(buf_t *b, jw_t *w, v8_t *v, v8_graph_t *g, const pm_ref_t *refs, size_t n)
{
    buf_t d = {0};
    char tmp[32];
    if (w) jw_array_begin_lines(w, NULL);
    for (size_t k = 0; k < n; k++) {
        uint32_t h = refs[k].holder, owner = refs[k].owner;
        const v8_edge_t *ed = &refs[k].edge, *of = &refs[k].owner_edge;
        buf_clear(&d);
        pm_describe_node(v, g, h, &d);
        if (w) {
            jw_object_begin(w, NULL);
            jw_address(w, "holder", v8_graph_node(g, h)->addr);
            jw_string_n(w, "description", d.data ? d.data : "", d.len);
            jw_string(w, "kind", v8_edge_kind_name(ed->kind));
            jw_string(w, "name", pm_edge_raw_name(ed, tmp, sizeof tmp));
            if (owner != V8_NO_NODE) {
                jw_address(w, "owner", v8_graph_node(g, owner)->addr);
                jw_string(w, "owner_kind", v8_edge_kind_name(of->kind));
                jw_string(w, "owner_name", pm_edge_raw_name(of, tmp, sizeof tmp));
            }
            jw_end(w);
        } else {
            put_hex(b, v8_graph_node(g, h)->addr);
            buf_printf(b, " %s ", d.data ? d.data : "");
            pm_edge_label(ed, b);
            if (owner != V8_NO_NODE) {
                buf_clear(&d);
                pm_describe_node(v, g, owner, &d);
                buf_puts(b, "  (of ");
                put_hex(b, v8_graph_node(g, owner)->addr);
                buf_printf(b, " %s ", d.data ? d.data : "");
                pm_edge_label(of, b);
                buf_puts(b, ")");
            }
            buf_puts(b, "\n");
        }
    }
    if (w) {
        if (n) jw_newline(w);
        jw_end(w);
        buf_puts(w->out, "\n");
    } else if (!n) buf_puts(b, "(no object on the heap refers to it)\n");
    buf_free(&d);
}

void pm_refs_write_text(buf_t *b, v8_t *v, v8_graph_t *g, const pm_ref_t *refs, size_t n)
{
    refs_write(b, NULL, v, g, refs, n);
}

void pm_refs_write_json(jw_t *w, v8_t *v, v8_graph_t *g, const pm_ref_t *refs, size_t n)
{
    refs_write(NULL, w, v, g, refs, n);
}

/* ---- retainers ---- */

void pm_retainers_write_text(buf_t *b, v8_t *v, v8_graph_t *g, v8_edges_t *e, uint32_t x, const pm_path_t *paths,
                             size_t n)
{
    buf_t d = {0};
    pm_describe_node(v, g, x, &d);
    put_hex(b, v8_graph_node(g, x)->addr);
    buf_printf(b, " %s\n", d.data ? d.data : "");
    buf_free(&d);
    for (size_t k = 0; k < n; k++)
        print_path(v, g, e, paths[k].nodes, paths[k].slots, paths[k].n, paths[k].root, NULL, (int)k, b);
    if (!n) buf_puts(b, "(unreachable from every root: garbage the next GC would collect)\n");
}

void pm_retainers_write_json(jw_t *w, v8_t *v, v8_graph_t *g, v8_edges_t *e, uint32_t x, const pm_path_t *paths,
                             size_t n)
{
    buf_t d = {0};
    pm_describe_node(v, g, x, &d);
    jw_address(w, "target", v8_graph_node(g, x)->addr);
    jw_string_n(w, "description", d.data ? d.data : "", d.len);
    buf_free(&d);
    jw_array_begin_lines(w, "paths");
    for (size_t k = 0; k < n; k++)
        print_path(v, g, e, paths[k].nodes, paths[k].slots, paths[k].n, paths[k].root, w, (int)k, NULL);
    if (n) jw_newline(w);
    jw_end(w);
}

/* ---- dominators ---- */

static void dominators_write(buf_t *o, jw_t *w, v8_graph_t *g, const pm_census_t *cs, const pm_top_t *tops,
                             size_t ntops, const pm_class_t *byr, size_t top)
{
    if (w) jw_array_begin_lines(w, "objects");
    else buf_printf(o, "%-18s %12s %14s  %s\n", "OBJECT", "SELF", "RETAINED", "CONSTRUCTOR");
    for (size_t k = 0; k < ntops && k < top; k++) {
        const v8_graph_node_t *nd = v8_graph_node(g, tops[k].node);
        if (w) {
            jw_object_begin(w, NULL);
            jw_address(w, "address", nd->addr);
            jw_string(w, "name", cs->classes[cs->of[tops[k].node] - 1].name);
            jw_uint(w, "size", nd->size);
            jw_uint(w, "retained", tops[k].retained);
            jw_end(w);
        } else {
            buf_printf(o, "0x%-16llx %12u %14llu  %s\n", (unsigned long long)nd->addr, nd->size,
                       (unsigned long long)tops[k].retained, cs->classes[cs->of[tops[k].node] - 1].name);
        }
    }
    if (w) {
        jw_end(w);
        jw_array_begin_lines(w, "constructors");
    } else buf_printf(o, "\n%12s %14s %14s  %s\n", "INSTANCES", "SELF", "RETAINED", "CONSTRUCTOR");
    for (size_t k = 0; k < cs->n && k < top; k++) {
        if (w) {
            jw_object_begin(w, NULL);
            jw_string(w, "name", byr[k].name);
            jw_uint(w, "count", byr[k].count);
            jw_uint(w, "size", byr[k].self);
            jw_uint(w, "retained", byr[k].retained);
            jw_end(w);
        } else {
            buf_printf(o, "%12llu %14llu %14llu  %s\n", (unsigned long long)byr[k].count,
                       (unsigned long long)byr[k].self, (unsigned long long)byr[k].retained, byr[k].name);
        }
    }
    if (w) jw_end(w);
}

void pm_dominators_write_text(buf_t *b, v8_graph_t *g, const pm_census_t *cs, const pm_top_t *tops, size_t ntops,
                              const pm_class_t *byr, size_t top)
{
    dominators_write(b, NULL, g, cs, tops, ntops, byr, top);
}

void pm_dominators_write_json(jw_t *w, v8_graph_t *g, const pm_census_t *cs, const pm_top_t *tops, size_t ntops,
                              const pm_class_t *byr, size_t top)
{
    dominators_write(NULL, w, g, cs, tops, ntops, byr, top);
}

/* ---- objects --retained ---- */

static void table_write(buf_t *o, jw_t *w, const pm_class_t *gs, size_t ngs, uint64_t min)
{
    uint64_t total_n = 0, total_b = 0;
    if (w) jw_array_begin_lines(w, NULL);
    else buf_printf(o, "%12s %14s %10s %14s  %s\n", "INSTANCES", "TOTAL SIZE", "SIZE", "RETAINED", "CONSTRUCTOR");
    for (size_t k = 0; k < ngs; k++) {
        const pm_class_t *x = &gs[k];
        total_n += x->count;
        total_b += x->self;
        if (x->count < min) continue;
        if (w) {
            jw_object_begin(w, NULL);
            jw_string(w, "name", x->name);
            jw_uint(w, "count", x->count);
            jw_uint(w, "size", x->self);
            jw_uint(w, "retained", x->retained);
            jw_end(w);
        } else {
            buf_printf(o, "%12llu %14llu %10llu %14llu  %s\n", (unsigned long long)x->count,
                       (unsigned long long)x->self, (unsigned long long)(x->self / x->count),
                       (unsigned long long)x->retained, x->name);
        }
    }
    if (w) {
        jw_newline(w);
        jw_end(w);
        buf_puts(w->out, "\n");
    } else
        buf_printf(o, "%12llu %14llu %10s %14s  (%zu constructors)\n", (unsigned long long)total_n,
                   (unsigned long long)total_b, "", "", ngs);
}

void pm_retained_table_write_text(buf_t *b, const pm_class_t *gs, size_t n, uint64_t min)
{
    table_write(b, NULL, gs, n, min);
}

void pm_retained_table_write_json(jw_t *w, const pm_class_t *gs, size_t n, uint64_t min)
{
    table_write(NULL, w, gs, n, min);
}

int pm_retained_table(v8_t *v, int by_self, uint64_t min, int json, buf_t *o)
{
    v8_graph_t *g = pm_graph(v, NULL);
    if (!g) return -1;
    pm_census_t cs;
    if (pm_census_retained(v, g, pm_name_by_constructor, &cs) != 0) return -1;
    pm_class_t *gs = pm_census_sorted(&cs, by_self ? PM_BY_SELF : PM_BY_RETAINED_COUNT);
    size_t ngs = cs.n;
    jw_t w; /* --json: an array, a constructor a line, as objects --json */
    jw_init(&w, o);
    w.spaced = 1;
    w.indent = "  ";
    if (json) pm_retained_table_write_json(&w, gs, ngs, min);
    else pm_retained_table_write_text(o, gs, ngs, min);
    free(gs);
    pm_census_free(&cs);
    return 0;
}
