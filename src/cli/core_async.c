/* nodescope core ... async: every suspended async function, async generator and generator on the
 * heap, where it is suspended, the promise it awaits and who awaits it (v8/async.c), one block
 * each, or with --group the innermost ones folded by identical chains: what a hung server is
 * waiting for. The generators, what each awaits, their chains and groups: postmortem/async.c;
 * their text and JSON: postmortem/async_report.c. */
#include "cli/core_cmds.h"
#include "postmortem/async_report.h"
#include "util/diag.h"
#include "util/json_writer.h"
#include "util/options.h"
#include <stdlib.h>

int core_cmd_async(core_session_t *s, int argc, char **argv)
{
    static const char usage[] =
        "usage: nodescope core CORE|--pid PID async [--group] [--json]\n\n"
        "Every suspended async function, async generator and generator on the heap: where it is\n"
        "suspended (the file:line:column of its await or yield), the promise it awaits and that\n"
        "promise's state, and the chain of async functions awaiting it, outermost last, followed as\n"
        "V8 follows it for `new Error().stack` (await, Promise.all/allSettled/any, for await, then).\n"
        "--group folds the innermost ones (those no other one waits on) by identical chains, with a\n"
        "count, most first: `437 × await pool.query(…) in getUser (db.js:88:22) ← handle (app.js:42:17)`.\n"
        "A position falls back to the function's definition when its bytecode has no position\n"
        "table (V8 builds them lazily); it is marked so.\n";
    int json = 0, group = 0;
    const opt_t opts[] = {
        OPT_BOOL("group", 'g', "fold identical chains, with counts", &group),
        OPT_BOOL("json", 0, "a JSON document", &json),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core async", usage, tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (n > 0) return opt_usage_error(&cmd, "unexpected argument '%s'", argv[1]);
    if (s->check_only) return EXIT_OK;
    if (core_need_v8(s, argv[0]) != 0) return EXIT_FAIL;
    pm_async_t c;
    if (pm_async_collect(s->v, &c, !group) != 0) {
        pm_async_free(&c);
        return EXIT_FAIL;
    }
    pm_async_link(&c);
    pm_async_groups_t gs = {0};
    if (group) pm_async_group(&c, &gs);
    buf_t b = {0};
    jw_t w; /* json: written into b, which is written out when it grows */
    jw_init(&w, &b);
    if (json) {
        jw_object_begin(&w, NULL);
        pm_async_write_json(&c, group ? &gs : NULL, &w, &b, stdout);
        core_json_read(s, &w);
        jw_end(&w);
        buf_putc(&b, '\n');
    } else {
        pm_async_write_text(&c, group ? &gs : NULL, &b, stdout);
    }
    if (group) pm_async_groups_free(&gs);
    fwrite(b.data ? b.data : "", 1, b.len, stdout);
    buf_free(&b);
    pm_async_free(&c);
    return EXIT_OK;
}
