/* nodescope core ... pending: what keeps the event loop alive, or will run later: timers,
 * immediates, servers and sockets, child processes, requests in flight, the nextTick queue and
 * workers, each with whether it holds the loop open (ref'd). postmortem/pending.c finds them;
 * postmortem/pending_report.c writes them as text or JSON. */
#include "cli/core_cmds.h"
#include "postmortem/pending_report.h"
#include "util/diag.h"
#include "util/json_writer.h"
#include "util/options.h"
#include <stdio.h>
#include <stdlib.h>

int core_cmd_pending(core_session_t *s, int argc, char **argv)
{
    static const char usage[] =
        "usage: nodescope core CORE|--pid PID pending [--json]\n\n"
        "What keeps the event loop alive, or will run later: timers (callback and where it is\n"
        "defined, delay, due in how long by the loop's clock, repeat), immediates, servers and\n"
        "sockets (fd, listening or connected, addresses: on --pid from /proc, in a core where Node\n"
        "cached them), child processes, requests in flight (fs, dns, connect: the callback that\n"
        "will run), the nextTick queue, workers, and libuv's other handles. `ref` marks what holds\n"
        "the loop open; the loop runs while a ref'd active handle or a request in flight exists.\n";
    int json = 0;
    const opt_t opts[] = {
        OPT_BOOL("json", 0, "a JSON document", &json),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core pending", usage, tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (n > 0) return opt_usage_error(&cmd, "unexpected argument '%s'", argv[1]);
    if (s->check_only) return EXIT_OK;
    if (core_need_v8(s, argv[0]) != 0) return EXIT_FAIL;
    pm_pending_t r;
    pm_pending_collect(s->v, s->t, &r);
    buf_t b = {0};
    jw_t jw, *w = json ? &jw : NULL; /* json: written into b, which is written out when it grows */
    jw_init(&jw, &b);
    if (w) {
        jw_object_begin(w, NULL);
        pm_pending_write_json(s->v, &r, w, &b, stdout);
        core_json_read(s, w);
        jw_end(w);
        buf_putc(&b, '\n');
    } else {
        pm_pending_write_text(s->v, &r, &b, stdout);
    }
    fwrite(b.data ? b.data : "", 1, b.len, stdout);
    buf_free(&b);
    pm_pending_free(&r);
    return EXIT_OK;
}
