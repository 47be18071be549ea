/* nodescope core ... refs|retainers|dominators|objects --retained: why an object is alive, over
 * the session's object graph (postmortem/graph_session.c), its edges and paths named as DevTools
 * names them (postmortem/paths.c); holders and paths from postmortem/retainers.c, the census
 * by constructor from postmortem/census.c; their text and JSON from postmortem/retain_report.c. */
#include "cli/core_cmds.h"
#include "postmortem/graph_session.h"
#include "postmortem/retain_report.h"
#include "util/diag.h"
#include "util/json_writer.h"
#include "util/options.h"
#include <stdlib.h>
#include <string.h>

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
    const opt_t opts[] = {OPT_BOOL("json", 0, "a JSON array of {holder, kind, name, owner}", &json), OPT_NO_CACHE,
                          OPT_HELP, OPT_END};
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
    buf_t b = {0};
    jw_t w; /* --json: an array, a holder a line */
    jw_init(&w, &b);
    w.spaced = 1;
    w.indent = "  ";
    if (json) pm_refs_write_json(&w, s->v, g, refs, n);
    else pm_refs_write_text(&b, s->v, g, refs, n);
    fwrite(b.data, 1, b.len, stdout);
    buf_free(&b);
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
    buf_t b = {0};
    jw_t w; /* --json: {target, description, paths: [a path a line]} */
    jw_init(&w, &b);
    w.spaced = 1;
    pm_path_t *paths;
    size_t shown = pm_retainer_paths(g, x, (size_t)max_paths, &paths);
    if (json) {
        jw_object_begin(&w, NULL);
        pm_retainers_write_json(&w, s->v, g, e, x, paths, shown);
        core_json_read(s, &w); /* --pid: how it was read, and how long the process was stopped for it */
        jw_end(&w);
        buf_puts(&b, "\n");
    } else {
        pm_retainers_write_text(&b, s->v, g, e, x, paths, shown);
    }
    pm_paths_free(paths, shown);
    fwrite(b.data, 1, b.len, stdout);
    buf_free(&b);
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
    jw_t w; /* --json: {objects: [an object a line], constructors: [a constructor a line]} */
    jw_init(&w, &o);
    w.spaced = 1;
    w.indent = "  ";
    if (json) {
        jw_object_begin(&w, NULL);
        pm_dominators_write_json(&w, g, &cs, tops, ntops, byr, (size_t)top);
        core_json_read(s, &w);
        jw_end(&w);
        buf_puts(&o, "\n");
    } else {
        pm_dominators_write_text(&o, g, &cs, tops, ntops, byr, (size_t)top);
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
    buf_t o = {0};
    if (pm_retained_table(s->v, !strcmp(sort, "size"), (uint64_t)min, json, &o) != 0) return 1;
    fwrite(o.data ? o.data : "", 1, o.len, stdout);
    buf_free(&o);
    return 0;
}
