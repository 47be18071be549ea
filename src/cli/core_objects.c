/* nodescope core ... objects|instances|find|functions: the commands that enumerate the heap
 * (v8_heap_walk), like mdb_v8's ::findjsobjects and ::jsfunctions; the counting and selecting
 * is postmortem/objects.c's, the tables postmortem/objects_report.c's, the rest of the printing
 * here. */
#include "cli/core_cmds.h"
#include "postmortem/objects_report.h"
#include "util/diag.h"
#include "util/json_writer.h"
#include "util/options.h"
#include <stdlib.h>
#include <string.h>

/* ---- objects ---- */

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
    if (retained) return core_objects_retained(s, &cmd, n, argv, verbose, min, sort, json); /* core_retain.c */
    if (strcmp(sort, "count") && strcmp(sort, "size"))
        return opt_usage_error(&cmd, "--sort takes count or size, not '%s'", sort);
    if (min < 0) return opt_usage_error(&cmd, "--min needs a count, not %ld", min);
    if (core_operands(s, &cmd, n, argv, 0, 0, "", &rc) < 0) return rc;
    pm_group_t *gs;
    size_t ngs;
    pm_walk_t w;
    rc = pm_objects_count(s->v, argv[0], verbose, strcmp(sort, "size") ? PM_GROUPS_BY_COUNT : PM_GROUPS_BY_SIZE, &w,
                          &gs, &ngs) == 0
             ? EXIT_OK
             : EXIT_FAIL;
    if (rc == EXIT_OK && json) pm_objects_write_json(stdout, gs, ngs, (uint64_t)min);
    else if (rc == EXIT_OK) pm_objects_write_text(stdout, gs, ngs, (uint64_t)min);
    free(gs);
    pm_walk_free(&w);
    return rc;
}

/* ---- instances and find ---- */

static int run_select(core_session_t *s, const char *cmdname, const char *name, pm_where_t *where, long limit, int json)
{
    pm_select_out_t so;
    pm_select_out_begin(&so, s->v, stdout, json);
    long count;
    int rc = pm_select(s->v, cmdname, name, where, limit, pm_select_out_row, &so, &count) == 0 ? EXIT_OK : EXIT_FAIL;
    pm_select_out_summary(&so, count, limit, rc == EXIT_OK);
    if (json) core_json_read(s, &so.jw);
    pm_select_out_end(&so);
    return rc;
}

int core_cmd_instances(core_session_t *s, int argc, char **argv)
{
    static const char usage[] = "usage: nodescope core CORE instances NAME [--limit N] [--json]\n\n"
                                "Every instance of the constructor NAME (as `objects` names it): its address and a\n"
                                "one-line preview, one per line.\n";
    long limit = -1;
    int json = 0;
    const opt_t opts[] = {
        OPT_INT("limit", 'n', "N", "show the first N", &limit),
        OPT_BOOL("json", 0, "a JSON document: {objects: [{address, constructor, text}], count, listed}", &json),
        OPT_HELP, OPT_END};
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core instances", usage, tables, 0, NULL};
    int rc;
    if (core_operands(s, &cmd, opt_parse(&cmd, argc, argv), argv, 1, 1, "which constructor?", &rc) < 0) return rc;
    return run_select(s, argv[0], argv[1], NULL, limit, json);
}

int core_cmd_find(core_session_t *s, int argc, char **argv)
{
    static const char usage[] =
        "usage: nodescope core CORE find [NAME] --where 'PROP OP VALUE' [--limit N] [--json]\n\n"
        "The objects (of constructor NAME, or all) whose own property PROP compares to VALUE:\n"
        "OP is ==, !=, <, >, <=, >= (numbers compare as numbers, strings as text: \"quoted\" or bare)\n"
        "or ~ /regex/ (POSIX extended, on the value as text). Prints address and preview.\n";
    long limit = -1;
    int json = 0;
    const char *where = NULL;
    const opt_t opts[] = {
        OPT_STR("where", 'w', "'PROP OP VALUE'", "the condition", &where),
        OPT_INT("limit", 'n', "N", "show the first N", &limit),
        OPT_BOOL("json", 0, "a JSON document: {objects: [{address, constructor, text}], count, listed}", &json),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core find", usage, tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (!where) return opt_usage_error(&cmd, "which condition? (--where 'PROP OP VALUE')");
    char err[1200];
    pm_where_t cond;
    memset(&cond, 0, sizeof cond); /* pm_where_parse leaves scratch as it finds it */
    if (pm_where_parse(where, &cond, err, sizeof err) != 0) return opt_usage_error(&cmd, "%s", err);
    int rc;
    n = core_operands(s, &cmd, n, argv, 0, 1, "", &rc);
    if (n >= 0) rc = run_select(s, argv[0], n ? argv[1] : NULL, &cond, limit, json);
    pm_where_free(&cond);
    return rc;
}

/* ---- functions ---- */

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
    if (core_operands(s, &cmd, opt_parse(&cmd, argc, argv), argv, 0, 0, "", &rc) < 0) return rc;
    pm_fn_count_t *fs;
    size_t nfs;
    pm_walk_t w;
    rc = pm_functions_count(s->v, argv[0], &w, &fs, &nfs) == 0 ? EXIT_OK : EXIT_FAIL;
    if (rc == EXIT_OK && json) pm_functions_write_json(stdout, s->v, fs, nfs, (uint64_t)min);
    else if (rc == EXIT_OK) pm_functions_write_text(stdout, s->v, fs, nfs, (uint64_t)min, verbose);
    free(fs);
    pm_walk_free(&w);
    return rc;
}
