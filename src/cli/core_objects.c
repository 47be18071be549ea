/* nodescope core ... objects|instances|find|functions: the commands that enumerate the heap
 * (v8_heap_walk), like mdb_v8's ::findjsobjects and ::jsfunctions. Objects are grouped by their
 * map: the constructor name (and with -v the property names) is worked out once per map. */
#include "cli/core_cmds.h"
#include "postmortem/census.h"
#include "postmortem/query.h"
#include "postmortem/walk.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/json_writer.h"
#include "util/options.h"
#include "util/progress.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

static int parse_cmd(core_session_t *s, const opt_cmd_t *cmd, int argc, char **argv, int min_ops, int max_ops, int *rc)
{
    int n = opt_parse(cmd, argc, argv);
    if (n < 0) {
        *rc = opt_exit_code(n);
        return -1;
    }
    *rc = EXIT_USAGE;
    if (n < min_ops) {
        opt_usage_error(cmd, "which constructor?");
        return -1;
    }
    if (n > max_ops) {
        opt_usage_error(cmd, "unexpected argument '%s'", argv[max_ops + 1]);
        return -1;
    }
    if (s->check_only) {
        *rc = EXIT_OK;
        return -1;
    }
    if (core_need_v8(s, argv[0]) != 0) {
        *rc = EXIT_FAIL;
        return -1;
    }
    return n;
}

/* ---- objects ---- */

typedef struct {
    const char *name;
    uint64_t count, bytes;
} group_t;

typedef struct {
    u64map_t index;   /* interned name pointer -> index + 1 */
    group_t *g;
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
        gs->g[gs->n] = (group_t){me->name, 0, 0};
        *slot = (uint32_t)++gs->n;
    }
    group_t *g = &gs->g[*slot - 1];
    g->count++;
    g->bytes += o->size;
    return 0;
}

static int by_count(const void *a, const void *b)
{
    const group_t *x = a, *y = b;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int by_size(const void *a, const void *b)
{
    const group_t *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
    return by_count(a, b);
}

int core_cmd_objects(core_session_t *s, int argc, char **argv)
{
    static const char usage[] =
        "usage: nodescope core CORE objects [-v] [--min N] [--sort count|size] [--json]\n\n"
        "Every JavaScript object on the heap, grouped by constructor name, with the number of\n"
        "instances, their shallow size in bytes (all of them, and on average), largest group first.\n";
    int verbose = 0, json = 0, retained = 0;
    long min = 1;
    const char *sort = "count";
    const opt_t opts[] = {
        OPT_BOOL("verbose", 'v', "group by constructor and property names", &verbose),
        OPT_INT("min", 0, "N", "only groups with at least N instances", &min),
        OPT_STR("sort", 0, "KEY", "count (default) or size (total shallow bytes)", &sort),
        OPT_BOOL("json", 0, "a JSON array of {name, count, size}", &json),
        OPT_BOOL("retained", 0, "add each constructor's retained size (dominators; sorted by it)", &retained),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core objects", usage, tables, 0, NULL};
    int rc;
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (retained) return core_objects_retained(s, &cmd, n, argv, verbose, min, sort, json);   /* core_retain.c */
    if (strcmp(sort, "count") && strcmp(sort, "size")) return opt_usage_error(&cmd, "--sort takes count or size, not '%s'", sort);
    if (min < 0) return opt_usage_error(&cmd, "--min needs a count, not %ld", min);
    if (parse_cmd(s, &cmd, argc, argv, 0, 0, &rc) < 0) return rc;
    groups_t gs = {0};
    u64map_init(&gs.index);
    pm_walk_t w;
    rc = pm_walk_js(s->v, argv[0], verbose, count_object, &gs, &w) == 0 ? EXIT_OK : EXIT_FAIL;
    if (rc == EXIT_OK) {
        qsort(gs.g, gs.n, sizeof *gs.g, strcmp(sort, "size") ? by_count : by_size);
        buf_t b = {0};
        jw_t jw;   /* json: a group a line, each {"name": ..., "count": ..., "size": ...} */
        jw_init(&jw, &b);
        jw.spaced = 1;
        jw.indent = "  ";
        uint64_t total_n = 0, total_b = 0;
        if (json) jw_array_begin_lines(&jw, NULL);
        else buf_printf(&b, "%12s %14s %10s  %s\n", "INSTANCES", "TOTAL SIZE", "SIZE", "CONSTRUCTOR");
        for (size_t i = 0; i < gs.n; i++) {
            const group_t *g = &gs.g[i];
            total_n += g->count;
            total_b += g->bytes;
            if (g->count < (uint64_t)min) continue;
            if (json) {
                jw_object_begin(&jw, NULL);
                jw_string(&jw, "name", g->name);
                jw_uint(&jw, "count", g->count);
                jw_uint(&jw, "size", g->bytes);
                jw_end(&jw);
            } else {
                buf_printf(&b, "%12llu %14llu %10llu  %s\n", (unsigned long long)g->count, (unsigned long long)g->bytes,
                           (unsigned long long)(g->bytes / g->count), g->name);
            }
            if (b.len > 1 << 16) {
                fwrite(b.data, 1, b.len, stdout);
                buf_clear(&b);
            }
        }
        if (json) {
            jw_newline(&jw);   /* "]" on a line of its own */
            jw_end(&jw);
            buf_putc(&b, '\n');
        } else buf_printf(&b, "%12llu %14llu %10s  (%zu constructors)\n", (unsigned long long)total_n,
                        (unsigned long long)total_b, "", gs.n);
        fwrite(b.data ? b.data : "", 1, b.len, stdout);
        buf_free(&b);
    }
    pm_walk_free(&w);
    free(gs.g);
    u64map_free(&gs.index);
    return rc;
}

/* ---- instances and find ---- */

typedef struct {
    const char *name;        /* constructor to match, NULL = any */
    long limit, shown;
    int json;                /* one JSON document: {"objects":[{address, constructor, text}], "count", "shown"} */
    int has_where;           /* find */
    pm_where_t where;
    jw_t jw;                 /* json: the document, written out after each object (select_flush) */
    buf_t out;
} select_t;

static void select_flush(select_t *sel)
{
    fwrite(sel->out.data, 1, sel->out.len, stdout);
    buf_clear(&sel->out);
}

static void preview(v8_t *v, uint64_t addr, buf_t *b)
{
    buf_clear(b);
    v8_describe(v, addr, b);
}

static int select_object(pm_walk_t *w, const v8_heap_object_t *o, pm_map_entry_t *me)
{
    select_t *sel = w->ctx;
    if (sel->name && strcmp(me->name, sel->name)) return 0;
    if (sel->has_where && !pm_where_match(w->v, &sel->where, o, me)) return 0;
    if (sel->limit >= 0 && sel->shown >= sel->limit) {
        sel->shown++;
        return 0;
    }
    sel->shown++;
    buf_t b = {0};
    preview(w->v, o->addr, &b);
    if (sel->json) {
        jw_object_begin(&sel->jw, NULL);
        jw_address(&sel->jw, "address", o->addr);
        jw_string(&sel->jw, "constructor", me->name);
        jw_string_n(&sel->jw, "text", b.data ? b.data : "", b.len);
        jw_end(&sel->jw);
        select_flush(sel);
    } else printf("0x%llx %s\n", (unsigned long long)o->addr, b.data ? b.data : "");
    buf_free(&b);
    return 0;
}

static int run_select(core_session_t *s, const char *cmdname, select_t *sel)
{
    pm_walk_t w;
    if (sel->json) {
        jw_init(&sel->jw, &sel->out);
        jw_object_begin(&sel->jw, NULL);
        jw_array_begin(&sel->jw, "objects");
        select_flush(sel);
    }
    int rc = pm_walk_js(s->v, cmdname, 0, select_object, sel, &w) == 0 ? EXIT_OK : EXIT_FAIL;
    long listed = sel->limit >= 0 && sel->shown > sel->limit ? sel->limit : sel->shown;
    if (sel->json) {
        jw_end(&sel->jw);
        jw_int(&sel->jw, "count", sel->shown);
        jw_int(&sel->jw, "listed", listed);
        jw_bool(&sel->jw, "complete", rc == EXIT_OK);
        jw_end(&sel->jw);
        buf_putc(&sel->out, '\n');
        select_flush(sel);
        buf_free(&sel->out);
    } else if (rc == EXIT_OK && sel->limit >= 0 && sel->shown > sel->limit)
        printf("... (%ld more; --limit N shows more)\n", sel->shown - sel->limit);
    pm_walk_free(&w);
    return rc;
}

int core_cmd_instances(core_session_t *s, int argc, char **argv)
{
    static const char usage[] = "usage: nodescope core CORE instances NAME [--limit N] [--json]\n\n"
                                "Every instance of the constructor NAME (as `objects` names it): its address and a\n"
                                "one-line preview, one per line.\n";
    select_t sel = {0};
    sel.limit = -1;
    const opt_t opts[] = {OPT_INT("limit", 'n', "N", "show the first N", &sel.limit),
                          OPT_BOOL("json", 0, "a JSON document: {objects: [{address, constructor, text}], count, listed}", &sel.json),
                          OPT_HELP, OPT_END};
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core instances", usage, tables, 0, NULL};
    int rc;
    if (parse_cmd(s, &cmd, argc, argv, 1, 1, &rc) < 0) return rc;
    sel.name = argv[1];
    return run_select(s, argv[0], &sel);
}

int core_cmd_find(core_session_t *s, int argc, char **argv)
{
    static const char usage[] =
        "usage: nodescope core CORE find [NAME] --where 'PROP OP VALUE' [--limit N] [--json]\n\n"
        "The objects (of constructor NAME, or all) whose own property PROP compares to VALUE:\n"
        "OP is ==, !=, <, >, <=, >= (numbers compare as numbers, strings as text: \"quoted\" or bare)\n"
        "or ~ /regex/ (POSIX extended, on the value as text). Prints address and preview.\n";
    select_t sel = {0};
    sel.limit = -1;
    const char *where = NULL;
    const opt_t opts[] = {
        OPT_STR("where", 'w', "'PROP OP VALUE'", "the condition", &where),
        OPT_INT("limit", 'n', "N", "show the first N", &sel.limit),
        OPT_BOOL("json", 0, "a JSON document: {objects: [{address, constructor, text}], count, listed}", &sel.json),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core find", usage, tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (!where) return opt_usage_error(&cmd, "which condition? (--where 'PROP OP VALUE')");
    char err[1200];
    if (pm_where_parse(where, &sel.where, err, sizeof err) != 0) return opt_usage_error(&cmd, "%s", err);
    sel.has_where = 1;
    int rc;
    n = parse_cmd(s, &cmd, argc, argv, 0, 1, &rc);
    if (n >= 0) {
        sel.name = n ? argv[1] : NULL;
        rc = run_select(s, argv[0], &sel);
    }
    if (sel.has_where) pm_where_free(&sel.where);
    return rc;
}

/* ---- functions ---- */

typedef struct {
    uint64_t shared, closures;
    uint64_t closure;   /* one of them: an address closure, source and print take */
} fn_count_t;

typedef struct {
    u64map_t index;   /* shared -> index + 1 */
    fn_count_t *f;
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
        fs->f[fs->n] = (fn_count_t){shared, 0, o->addr};
        *slot = (uint32_t)++fs->n;
    }
    fs->f[*slot - 1].closures++;
    return 0;
}

static int by_closures(const void *a, const void *b)
{
    const fn_count_t *x = a, *y = b;
    if (x->closures != y->closures) return x->closures < y->closures ? 1 : -1;
    return x->shared < y->shared ? -1 : x->shared > y->shared;
}

int core_cmd_functions(core_session_t *s, int argc, char **argv)
{
    static const char usage[] =
        "usage: nodescope core CORE functions [-v] [--min N] [--json]\n\n"
        "Every JavaScript function (SharedFunctionInfo) with closures on the heap: how many closures\n"
        "(JSFunction objects) exist for it, one of them (an address `closure`, `source` and `print`\n"
        "take), its name and where it is defined, most closures first.\n";
    int json = 0, verbose = 0;
    long min = 1;
    const opt_t opts[] = {
        OPT_BOOL("verbose", 'v', "also the SharedFunctionInfo's address", &verbose),
        OPT_INT("min", 0, "N", "only functions with at least N closures", &min),
        OPT_BOOL("json", 0, "a JSON array of {name, closures, closure, shared, script, line, column}", &json),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core functions", usage, tables, 0, NULL};
    int rc;
    if (parse_cmd(s, &cmd, argc, argv, 0, 0, &rc) < 0) return rc;
    fns_t fs = {0};
    u64map_init(&fs.index);
    pm_walk_t w;
    rc = pm_walk_js(s->v, argv[0], 0, count_function, &fs, &w) == 0 ? EXIT_OK : EXIT_FAIL;
    if (rc == EXIT_OK) {
        qsort(fs.f, fs.n, sizeof *fs.f, by_closures);
        buf_t b = {0};
        jw_t jw;   /* json: a function a line, as objects --json */
        jw_init(&jw, &b);
        jw.spaced = 1;
        jw.indent = "  ";
        if (json) jw_array_begin_lines(&jw, NULL);
        else if (verbose) buf_printf(&b, "%10s  %-18s  %-18s  %s\n", "CLOSURES", "CLOSURE", "SHARED", "FUNCTION");
        else buf_printf(&b, "%10s  %-18s  %s\n", "CLOSURES", "CLOSURE", "FUNCTION");
        for (size_t i = 0; i < fs.n; i++) {
            if (fs.f[i].closures < (uint64_t)min) continue;
            v8_function_t fi;
            int ok = v8_shared_info(s->v, fs.f[i].shared, &fi) == 0;
            const char *name = ok ? v8_function_display_name(&fi, "(anonymous)") : "(anonymous)";
            const char *script = ok && fi.script_name ? fi.script_name : "";
            int line = ok ? fi.def_line : 0, col = ok ? fi.def_col : 0;
            if (json) {
                jw_object_begin(&jw, NULL);
                jw_string(&jw, "name", name);
                jw_uint(&jw, "closures", fs.f[i].closures);
                jw_address(&jw, "closure", fs.f[i].closure);
                jw_address(&jw, "shared", fs.f[i].shared);
                jw_string(&jw, "script", script);
                jw_int(&jw, "line", line);
                jw_int(&jw, "column", col);
                jw_end(&jw);
            } else {
                buf_printf(&b, "%10llu  0x%-16llx  ", (unsigned long long)fs.f[i].closures, (unsigned long long)fs.f[i].closure);
                if (verbose) buf_printf(&b, "0x%-16llx  ", (unsigned long long)fs.f[i].shared);
                buf_puts(&b, name);
                if (*script && line) buf_printf(&b, " at %s:%d:%d", script, line, col);
                else if (*script) buf_printf(&b, " at %s", script);
                buf_putc(&b, '\n');
            }
            if (ok) v8_function_free(&fi);
            if (b.len > 1 << 16) {
                fwrite(b.data, 1, b.len, stdout);
                buf_clear(&b);
            }
        }
        if (json) {
            jw_newline(&jw);
            jw_end(&jw);
            buf_putc(&b, '\n');
        }
        fwrite(b.data ? b.data : "", 1, b.len, stdout);
        buf_free(&b);
    }
    pm_walk_free(&w);
    free(fs.f);
    u64map_free(&fs.index);
    return rc;
}
