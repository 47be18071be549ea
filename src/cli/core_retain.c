/* nodescope core ... refs|retainers|dominators|objects --retained: why an object is alive, over
 * the session's object graph (postmortem/graph_session.c), its edges and paths named as DevTools
 * names them (postmortem/paths.c); holders and paths from postmortem/retainers.c, the census
 * by constructor from postmortem/census.c. */
#include "cli/core_cmds.h"
#include "postmortem/graph_session.h"
#include "postmortem/census.h"
#include "postmortem/paths.h"
#include "postmortem/retainers.h"
#include "util/diag.h"
#include "util/json_writer.h"
#include "util/options.h"
#include <stdlib.h>
#include <string.h>

static void put_hex(buf_t *b, uint64_t a) { buf_printf(b, "0x%llx", (unsigned long long)a); }

/* Prints one path (text or JSON): nodes[0..n) from a root (root index root), slots between. */
static void print_path(core_session_t *s, v8_graph_t *g, v8_edges_t *e, const uint32_t *nodes, const uint32_t *slots,
                       size_t n, uint32_t root, jw_t *w, int idx, buf_t *b)
{
    pm_step_t *st;
    size_t m = pm_name_steps(g, e, nodes, slots, n, &st);
    const v8_graph_root_t *rt = root != V8_NO_NODE ? v8_graph_root(g, root) : NULL;
    const char *rn = rt ? rt->name : "?";
    buf_t d = {0};
    char tmp[32];
    if (w) {   /* an element of the paths array (a line, indented 4), its steps a line each (6) */
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
            pm_describe_node(s->v, g, st[k].target, &d);
            jw_string_n(w, "description", d.data ? d.data : "", d.len);
            jw_end(w);
        }
        jw_end(w);
        jw_end(w);
    } else {
        buf_printf(b, "path %d (%zu steps, from %s%s):\n  %s ", idx + 1, m, rt ? pm_level_name(rt->level) : "?",
                   v8_graph_path_internal(g, nodes[n - 2 < n ? n - 2 : 0]) ? ", through V8 internals only" : "", rn);
        pm_describe_node(s->v, g, nodes[0], &d);
        buf_printf(b, "%s ", d.data ? d.data : "");
        put_hex(b, v8_graph_node(g, nodes[0])->addr);
        buf_puts(b, "\n");
        for (size_t k = 0; k < m; k++) {
            buf_clear(&d);
            pm_edge_label(&st[k].edge, &d);
            buf_printf(b, "    %-28s -> ", d.data);
            buf_clear(&d);
            pm_describe_node(s->v, g, st[k].target, &d);
            buf_printf(b, "%s ", d.data ? d.data : "");
            put_hex(b, v8_graph_node(g, st[k].target)->addr);
            buf_puts(b, "\n");
        }
    }
    buf_free(&d);
    free(st);
}

/* The options, then with need_addr the object (an address or a path); 0, or -1 with *rc the
 * exit status to return. */
static int parse(core_session_t *s, const opt_cmd_t *cmd, int argc, char **argv, int need_addr, uint64_t *addr, int *rc)
{
    if (core_operands(s, cmd, opt_parse(cmd, argc, argv), argv, need_addr, need_addr,
                      "which object? (an address, or an expression like globalThis.app)", rc) < 0)
        return -1;
    if (need_addr && pm_resolve(s->v, argv[0], argv[1], addr) != 0) {
        *rc = EXIT_FAIL;
        return -1;
    }
    return 0;
}

/* The graph and the node at addr; prints why not. */
static int node_at(core_session_t *s, const char *cmd, uint64_t addr, v8_graph_t **g, v8_edges_t **e, uint32_t *i)
{
    *g = pm_graph(s->v, e);
    if (!*g) return -1;
    *i = v8_graph_find(*g, addr);
    if (*i == V8_NO_NODE) {
        diag_error(target_name(s->t), 0, "%s: 0x%llx is not the start of an object on the V8 heap", cmd,
                   (unsigned long long)addr);
        return -1;
    }
    return 0;
}

/* ---- refs ---- */

int core_cmd_refs(core_session_t *s, int argc, char **argv)
{
    static const char usage[] =
        "usage: nodescope core CORE refs [--json] ADDR|EXPR\n\n"
        "Every object holding ADDR directly, and the property, index, variable or field through which it\n"
        "does. A holder that is a JS object's backing store (properties, elements, a Map's table, a\n"
        "global's property cell) is shown with the object it belongs to.\n";
    int json = 0;
    const opt_t opts[] = {OPT_BOOL("json", 0, "a JSON array of {holder, kind, name, owner}", &json), OPT_NO_CACHE, OPT_HELP,
                          OPT_END};
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core refs", usage, tables, 0, NULL};
    uint64_t addr;
    int rc;
    if (parse(s, &cmd, argc, argv, 1, &addr, &rc) < 0) return rc;
    v8_graph_t *g;
    v8_edges_t *e;
    uint32_t x;
    if (node_at(s, argv[0], addr, &g, &e, &x) != 0) return 1;
    pm_ref_t *refs;
    size_t n = pm_refs(g, e, x, addr, &refs);
    buf_t b = {0}, d = {0};
    char tmp[32];
    jw_t w;   /* --json: an array, a holder a line */
    jw_init(&w, &b);
    w.spaced = 1;
    w.indent = "  ";
    if (json) jw_array_begin_lines(&w, NULL);
    for (size_t k = 0; k < n; k++) {
        uint32_t h = refs[k].holder, owner = refs[k].owner;
        const v8_edge_t *ed = &refs[k].edge, *of = &refs[k].owner_edge;
        buf_clear(&d);
        pm_describe_node(s->v, g, h, &d);
        if (json) {
            jw_object_begin(&w, NULL);
            jw_address(&w, "holder", v8_graph_node(g, h)->addr);
            jw_string_n(&w, "description", d.data ? d.data : "", d.len);
            jw_string(&w, "kind", v8_edge_kind_name(ed->kind));
            jw_string(&w, "name", pm_edge_raw_name(ed, tmp, sizeof tmp));
            if (owner != V8_NO_NODE) {
                jw_address(&w, "owner", v8_graph_node(g, owner)->addr);
                jw_string(&w, "owner_kind", v8_edge_kind_name(of->kind));
                jw_string(&w, "owner_name", pm_edge_raw_name(of, tmp, sizeof tmp));
            }
            jw_end(&w);
        } else {
            put_hex(&b, v8_graph_node(g, h)->addr);
            buf_printf(&b, " %s ", d.data ? d.data : "");
            pm_edge_label(ed, &b);
            if (owner != V8_NO_NODE) {
                buf_clear(&d);
                pm_describe_node(s->v, g, owner, &d);
                buf_puts(&b, "  (of ");
                put_hex(&b, v8_graph_node(g, owner)->addr);
                buf_printf(&b, " %s ", d.data ? d.data : "");
                pm_edge_label(of, &b);
                buf_puts(&b, ")");
            }
            buf_puts(&b, "\n");
        }
    }
    if (json) {
        if (n) jw_newline(&w);
        jw_end(&w);
        buf_puts(&b, "\n");
    } else if (!n) buf_puts(&b, "(no object on the heap refers to it)\n");
    fwrite(b.data, 1, b.len, stdout);
    buf_free(&b);
    buf_free(&d);
    free(refs);
    return 0;
}

/* ---- retainers ---- */

int core_cmd_retainers(core_session_t *s, int argc, char **argv)
{
    static const char usage[] =
        "usage: nodescope core CORE retainers [--max-paths N] [--json] ADDR|EXPR\n\n"
        "The shortest paths that keep ADDR alive, from a root you recognise: the global object, a\n"
        "module's record (by path), a closure's captured variable; then thread stacks and native\n"
        "memory (global and persistent handles: conservative). Every step names its edge. One path\n"
        "per direct retainer, best first (global and modules, then stacks, then native; shortest).\n";
    int json = 0;
    long max_paths = 3;
    const opt_t opts[] = {
        OPT_FN("max-paths", 'n', "N", "at most N paths, through different retainers (3)", &max_paths, opt_set_count),
        OPT_BOOL("json", 0, "a JSON document {target, paths: [{root, level, steps: [{kind, name, ...}]}]}", &json),
        OPT_NO_CACHE,
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core retainers", usage, tables, 0, NULL};
    uint64_t addr;
    int rc;
    if (parse(s, &cmd, argc, argv, 1, &addr, &rc) < 0) return rc;
    v8_graph_t *g;
    v8_edges_t *e;
    uint32_t x;
    if (node_at(s, argv[0], addr, &g, &e, &x) != 0) return 1;
    buf_t b = {0}, d = {0};
    pm_describe_node(s->v, g, x, &d);
    jw_t w, *jp = json ? &w : NULL;   /* --json: {target, description, paths: [a path a line]} */
    jw_init(&w, &b);
    w.spaced = 1;
    if (json) {
        jw_object_begin(&w, NULL);
        jw_address(&w, "target", v8_graph_node(g, x)->addr);
        jw_string_n(&w, "description", d.data ? d.data : "", d.len);
        jw_array_begin_lines(&w, "paths");
    } else {
        put_hex(&b, v8_graph_node(g, x)->addr);
        buf_printf(&b, " %s\n", d.data ? d.data : "");
    }
    pm_path_t *paths;
    size_t shown = pm_retainer_paths(g, x, (size_t)max_paths, &paths);
    for (size_t k = 0; k < shown; k++)
        print_path(s, g, e, paths[k].nodes, paths[k].slots, paths[k].n, paths[k].root, jp, (int)k, &b);
    pm_paths_free(paths, shown);
    if (json) {
        if (shown) jw_newline(&w);
        jw_end(&w);
        core_json_read(s, &w);   /* --pid: how it was read, and how long the process was stopped for it */
        jw_end(&w);
        buf_puts(&b, "\n");
    } else if (!shown) buf_puts(&b, "(unreachable from every root: garbage the next GC would collect)\n");
    fwrite(b.data, 1, b.len, stdout);
    buf_free(&b);
    buf_free(&d);
    return 0;
}

/* ---- dominators ---- */

int core_cmd_dominators(core_session_t *s, int argc, char **argv)
{
    static const char usage[] =
        "usage: nodescope core CORE dominators [--top N] [--json]\n\n"
        "Retained sizes (what the garbage collector would free with an object: everything it\n"
        "dominates, from the roots) over the object graph: the N JavaScript objects retaining the\n"
        "most, then per constructor the instances, their shallow size, and the memory they retain\n"
        "(an instance dominated by another of the same constructor is counted once, in it).\n";
    int json = 0;
    long top = 20;
    const opt_t opts[] = {
        OPT_FN("top", 'n', "N", "objects and constructors to show (20)", &top, opt_set_count),
        OPT_BOOL("json", 0, "a JSON document {objects: [...], constructors: [...]}", &json),
        OPT_NO_CACHE,
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core dominators", usage, tables, 0, NULL};
    int rc;
    if (parse(s, &cmd, argc, argv, 0, NULL, &rc) < 0) return rc;
    v8_graph_t *g = pm_graph(s->v, NULL);
    if (!g) return 1;
    pm_census_t cs;
    if (pm_census_retained(s->v, g, pm_name_described, &cs) != 0) return 1;
    pm_top_t *tops;
    size_t ntops = pm_top_retained(g, &cs, (size_t)top, &tops);
    pm_class_t *byr = pm_census_sorted(&cs, PM_BY_RETAINED);
    buf_t o = {0};
    jw_t w;   /* --json: {objects: [an object a line], constructors: [a constructor a line]} */
    jw_init(&w, &o);
    w.spaced = 1;
    w.indent = "  ";
    if (json) {
        jw_object_begin(&w, NULL);
        jw_array_begin_lines(&w, "objects");
    } else buf_printf(&o, "%-18s %12s %14s  %s\n", "OBJECT", "SELF", "RETAINED", "CONSTRUCTOR");
    for (size_t k = 0; k < ntops && k < (size_t)top; k++) {
        const v8_graph_node_t *nd = v8_graph_node(g, tops[k].node);
        if (json) {
            jw_object_begin(&w, NULL);
            jw_address(&w, "address", nd->addr);
            jw_string(&w, "name", cs.classes[cs.of[tops[k].node] - 1].name);
            jw_uint(&w, "size", nd->size);
            jw_uint(&w, "retained", tops[k].retained);
            jw_end(&w);
        } else {
            buf_printf(&o, "0x%-16llx %12u %14llu  %s\n", (unsigned long long)nd->addr, nd->size,
                       (unsigned long long)tops[k].retained, cs.classes[cs.of[tops[k].node] - 1].name);
        }
    }
    if (json) {
        jw_end(&w);
        jw_array_begin_lines(&w, "constructors");
    } else buf_printf(&o, "\n%12s %14s %14s  %s\n", "INSTANCES", "SELF", "RETAINED", "CONSTRUCTOR");
    for (size_t k = 0; k < cs.n && k < (size_t)top; k++) {
        if (json) {
            jw_object_begin(&w, NULL);
            jw_string(&w, "name", byr[k].name);
            jw_uint(&w, "count", byr[k].count);
            jw_uint(&w, "size", byr[k].self);
            jw_uint(&w, "retained", byr[k].retained);
            jw_end(&w);
        } else {
            buf_printf(&o, "%12llu %14llu %14llu  %s\n", (unsigned long long)byr[k].count,
                       (unsigned long long)byr[k].self, (unsigned long long)byr[k].retained, byr[k].name);
        }
    }
    if (json) {
        jw_end(&w);
        core_json_read(s, &w);
        jw_end(&w);
        buf_puts(&o, "\n");
    }
    fwrite(o.data, 1, o.len, stdout);
    buf_free(&o);
    free(tops);
    free(byr);
    pm_census_free(&cs);
    return 0;
}

/* ---- objects --retained ---- */

/* Per constructor, as `objects` groups them (the constructor's name, else the V8 class in
 * parentheses; prototypes apart), the instances, their shallow size and the memory they retain:
 * DevTools' "Retained Size" column (postmortem/census.c). */
int core_objects_retained(core_session_t *s, const struct opt_cmd *cmd, int n, char **argv, int verbose, long min,
                          const char *sort, int json)
{
    if (n > 0) return opt_usage_error(cmd, "unexpected argument '%s'", argv[1]);
    if (verbose) return opt_usage_error(cmd, "--retained groups by constructor only (without -v)");
    if (strcmp(sort, "count") && strcmp(sort, "size") && strcmp(sort, "retained"))
        return opt_usage_error(cmd, "--sort takes count, size or retained, not '%s'", sort);
    if (min < 0) return opt_usage_error(cmd, "--min needs a count, not %ld", min);
    if (s->check_only) return 0;
    if (core_need_v8(s, argv[0]) != 0) return 1;
    v8_graph_t *g = pm_graph(s->v, NULL);
    if (!g) return 1;
    pm_census_t cs;
    if (pm_census_retained(s->v, g, pm_name_by_constructor, &cs) != 0) return 1;
    pm_class_t *gs = pm_census_sorted(&cs, strcmp(sort, "size") ? PM_BY_RETAINED_COUNT : PM_BY_SELF);
    size_t ngs = cs.n;
    buf_t o = {0};
    uint64_t total_n = 0, total_b = 0;
    jw_t w;   /* --json: an array, a constructor a line, as objects --json */
    jw_init(&w, &o);
    w.spaced = 1;
    w.indent = "  ";
    if (json) jw_array_begin_lines(&w, NULL);
    else buf_printf(&o, "%12s %14s %10s %14s  %s\n", "INSTANCES", "TOTAL SIZE", "SIZE", "RETAINED", "CONSTRUCTOR");
    for (size_t k = 0; k < ngs; k++) {
        const pm_class_t *x = &gs[k];
        total_n += x->count;
        total_b += x->self;
        if (x->count < (uint64_t)min) continue;
        if (json) {
            jw_object_begin(&w, NULL);
            jw_string(&w, "name", x->name);
            jw_uint(&w, "count", x->count);
            jw_uint(&w, "size", x->self);
            jw_uint(&w, "retained", x->retained);
            jw_end(&w);
        } else {
            buf_printf(&o, "%12llu %14llu %10llu %14llu  %s\n", (unsigned long long)x->count, (unsigned long long)x->self,
                       (unsigned long long)(x->self / x->count), (unsigned long long)x->retained, x->name);
        }
    }
    if (json) {
        jw_newline(&w);
        jw_end(&w);
        buf_puts(&o, "\n");
    } else buf_printf(&o, "%12llu %14llu %10s %14s  (%zu constructors)\n", (unsigned long long)total_n,
                    (unsigned long long)total_b, "", "", ngs);
    fwrite(o.data ? o.data : "", 1, o.len, stdout);
    buf_free(&o);
    free(gs);
    pm_census_free(&cs);
    return 0;
}
