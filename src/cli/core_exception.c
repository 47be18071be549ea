/* nodescope core CORE exception: the exception the program died of (postmortem/exception.c),
 * printed as `print` prints a value, with where it was thrown; or that there is none. */
#include "cli/cli.h"
#include "cli/core_cmds.h"
#include "postmortem/exception.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/json_writer.h"
#include "util/options.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int core_cmd_exception(core_session_t *s, int argc, char **argv)
{
    long thread = 0, depth = 2;
    int json = 0;
    const opt_t opts[] = {
        OPT_INT("thread", 0, "N", "the thread with this index (default 0, the main thread)", &thread),
        OPT_INT("depth", 'd', "DEPTH", "how deep to print the value's properties (2)", &depth),
        OPT_BOOL("json", 0, "a JSON document: how, where, address and the value as print shows it", &json),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core exception",
                           "usage: nodescope core CORE exception [--thread N] [-d DEPTH] [--json]\n\n"
                           "The exception the program was throwing when it died, printed as `print` prints it (an\n"
                           "Error's message and stack as the Error recorded them), and where it was thrown. Found\n"
                           "exactly, not guessed: the value a `throw` passed to V8 when node ran with\n"
                           "--abort-on-uncaught-exception, or the error an uncaughtException handler that aborted\n"
                           "was given, or the error node was handed as an uncaught exception (a core written by\n"
                           "`nodescope watch --on uncaught`: where is then where its message says it was thrown).\n"
                           "When the stack shows none of these, it says so.\n",
                           tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (n > 0) return opt_usage_error(&cmd, "unexpected argument '%s'", argv[1]);
    if (thread < 0) return opt_usage_error(&cmd, "--thread needs a thread index, not %ld", thread);
    if (s->check_only) return EXIT_OK;
    if (core_need_v8(s, argv[0]) != 0) return EXIT_FAIL;
    if ((size_t)thread >= target_thread_count(s->t)) {
        diag_error(target_name(s->t), 0, "exception: no thread %ld (the target has %zu)", thread,
                   target_thread_count(s->t));
        return EXIT_FAIL;
    }
    pm_exception_t x;
    pm_exception_read(s->t, s->v, (size_t)thread, depth, &x);
    if (json) {
        buf_t b = {0};
        jw_t w;
        jw_init(&w, &b);
        jw_object_begin(&w, NULL);
        pm_exception_json(&w, &x);
        core_json_read(s, &w);
        jw_end(&w);
        buf_putc(&b, '\n');
        fwrite(b.data, 1, b.len, stdout);
        buf_free(&b);
    } else {
        pm_exception_text(&x, thread, stdout);
    }
    pm_exception_free(&x);
    return EXIT_OK;
}
