/* nodescope core A diff-objects B: what the heap of B holds more (or less) than A's, by
 * constructor: counts and shallow bytes in each, the difference, and the instances of B at no
 * address of A's (new ones, when both are the same process at two moments). The censuses are
 * postmortem/leak.c's, the ones `watch --heap` takes: reachable objects by default; of two
 * .heapsnapshot files, postmortem/heapsnapshot_census.c's; the report is leak_report.c's. */
#include "cli/core_cmds.h"
#include "postmortem/heapsnapshot_census.h"
#include "postmortem/leak.h"
#include "postmortem/leak_report.h"
#include "util/diag.h"
#include "util/options.h"
#include "util/privilege.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int core_cmd_diff_objects(core_session_t *s, int argc, char **argv)
{
    static const char usage[] =
        "usage: nodescope core A diff-objects [--json] [--all-objects] [--node BIN] [-n N] B\n\n"
        "What core B's heap holds that core A's does not, by constructor: the instances and their\n"
        "shallow bytes in A and in B, the difference, and how many of B's are at no address of A's\n"
        "(new, when A and B are the same process at two moments). Reachable objects by default (the\n"
        "object graph of each: garbage not yet collected is left out). Largest change in bytes first;\n"
        "constructors that did not change are left out. A and B may be two V8 .heapsnapshot files\n"
        "instead (v8.getHeapSnapshot(), DevTools, `core heapsnapshot`): their objects by constructor,\n"
        "new ones by node id.\n";
    int json = 0, all = 0;
    long top = 0;
    const char *node = NULL;
    const opt_t opts[] = {
        OPT_BOOL("json", 0, "a JSON document {a, b, count, classes: [{name, count_a, count_b, ...}]}", &json),
        OPT_BOOL("all-objects", 0, "every object on the heaps' pages, garbage too (one walk each)", &all),
        OPT_STR("node", 0, "BIN", "the node executable B came from (default: found from B)", &node),
        OPT_FN("top", 'n', "N", "at most N constructors", &top, opt_set_count),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core diff-objects", usage, tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (n < 1) return opt_usage_error(&cmd, "which core to compare with? (core A diff-objects B)");
    if (n > 1) return opt_usage_error(&cmd, "unexpected argument '%s'", argv[2]);
    if (s->check_only) return EXIT_OK;
    if (s->heapsnapshot && all)
        return opt_usage_error(&cmd, "--all-objects: a .heapsnapshot holds only what was reachable");
    if (!s->heapsnapshot && core_need_v8(s, argv[0]) != 0) return EXIT_FAIL;
    pm_leak_t *L = pm_leak_new(all ? PM_COUNT_ALL : PM_COUNT_REACHABLE);
    int rc = EXIT_FAIL;
    target_t *tb = NULL;
    v8_t *vb = NULL;
    const char *name_a = s->heapsnapshot ? s->heapsnapshot : target_name(s->t);
    if (!s->heapsnapshot != !pm_is_heapsnapshot(argv[1])) { /* each counts by its own rules */
        diag_error(argv[1], 0, "%s: compare two cores or two .heapsnapshot files",
                   s->heapsnapshot ? "not a .heapsnapshot, where A is one" : "a .heapsnapshot, where A is a core");
        goto out;
    }
    if (s->heapsnapshot) {
        if (pm_heapsnapshot_census(L, s->heapsnapshot, 0) != 0 || pm_heapsnapshot_census(L, argv[1], 1) != 0) goto out;
        goto report;
    }
    if (pm_leak_census(L, s->v, 0, 0, 0) != 0) goto out;
    /* with --pid A, B is still a file the user names: read only when the user could */
    if (priv_check_path("diff-objects", argv[1], R_OK) || priv_check_path("--node", node, R_OK)) goto out;
    tb = target_open_core(argv[1], node);
    if (!tb) goto out;
    vb = v8_open(tb);
    if (!vb) {
        diag_error(argv[1], 0, "diff-objects needs V8's postmortem metadata, which %s lacks", target_exe_path(tb));
        goto out;
    }
    if (pm_leak_census(L, vb, 1, 0, 0) != 0) goto out;
    if (target_problem(tb)) {
        diag_error(argv[1], 0, "objects read with the wrong V8 metadata: %s", target_problem(tb));
        goto out;
    }
report:;
    buf_t b = {0};
    pm_leak_write_diff(&b, L, name_a, argv[1], all, json, (size_t)top);
    fwrite(b.data, 1, b.len, stdout);
    buf_free(&b);
    rc = EXIT_OK;
out:
    pm_leak_free(L);
    v8_close(vb);
    if (tb) target_close(tb);
    return rc;
}
