/* nodescope watch -p PID --heap: what grows in a running program's heap, by constructor, over
 * time (issue 31). The options, then the watch (postmortem/leak_watch.c: a census every --every
 * seconds of a copy of the process, or with --live of the process itself). A top-like table is
 * redrawn on a terminal (one line a census elsewhere); at the end (-d, Ctrl-C, or the process's
 * exit) what grew steadily, with new instances and the retainer path of one, on stdout
 * (postmortem/leak_report.c), and -o writes the report (.html or .json). --fail-if-growth
 * CLASS>N/min makes it a CI gate. */
#include "cli/cli.h"
#include "postmortem/leak_watch.h"
#include "record/program.h"
#include "record/stop_signals.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/options.h"
#include "util/output.h"
#include "util/procfs.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: nodescope watch -p PID --heap [--every 30s] [-d DURATION] [-o REPORT.html|.json] [--json] [OPTIONS]\n\n"
    "What grows in a running Node process's heap, by constructor, over time, from outside. Every\n"
    "--every nodescope brings its copy of the process's memory up to date (the pages written since\n"
    "the last census; the process is stopped for milliseconds, or forks a copy where the kernel\n"
    "cannot track writes), and the copy's heap is counted by constructor (what the program holds: the objects the global object,\n"
    "a module or a stack reaches; garbage not yet collected is left out) while the process runs on. A table ranked by "
    "growth is redrawn on a\n"
    "terminal. At the end (-d, Ctrl-C, or the process's exit) a fit over all the censuses tells\n"
    "steady growth from GC noise and from a cache that filled and plateaued; each constructor that\n"
    "grew steadily is printed with its rate, some instances new since the previous census, and the\n"
    "retainer path of one. DURATION: 30s, 2m, 500ms, 1h, or seconds.\n";

typedef struct {
    char name[256];
    double per_min;
} gate_t;

static gate_t gates[16];
static int ngates;

static int set_every(void *t, const char *arg) { return opt_parse_duration("--every", arg, t); }
static int set_duration(void *t, const char *arg) { return opt_parse_duration("--duration", arg, t); }

/* 'CLASS>N/min' (or /s, /h): a count rate. */
static int add_gate(void *t, const char *arg)
{
    (void)t;
    const char *gt = strrchr(arg, '>');
    if (!gt || gt == arg || (size_t)(gt - arg) >= sizeof gates[0].name)
        return opt_fail("--fail-if-growth takes CLASS>N/min (e.g. 'Session>1000/min'), not '%s'", arg);
    if (ngates == (int)(sizeof gates / sizeof gates[0])) return opt_fail("at most 16 --fail-if-growth");
    char *end;
    double n = strtod(gt + 1, &end);
    double per = 60; /* the unit, in seconds */
    if (end == gt + 1 || n < 0) return opt_fail("--fail-if-growth: '%s' has no rate after '>'", arg);
    if (!strcmp(end, "/min") || !strcmp(end, "/m")) per = 60;
    else if (!strcmp(end, "/s")) per = 1;
    else if (!strcmp(end, "/h")) per = 3600;
    else return opt_fail("--fail-if-growth: the rate is N/s, N/min or N/h, not '%s'", gt + 1);
    gate_t *g = &gates[ngates++];
    memcpy(g->name, arg, (size_t)(gt - arg));
    g->name[gt - arg] = 0;
    g->per_min = n * 60 / per;
    return 0;
}

static int stop_requested(void)
{
    stop_request_t req;
    return stop_signals_next(&req);
}

typedef struct {
    int json, redraw;
    size_t top;
} show_t;

/* After each census: the table redrawn on a terminal, a line elsewhere, nothing with --json. */
static void on_census(void *ctx, const pm_leak_watch_t *w, int final)
{
    const show_t *s = ctx;
    if (s->json) return;
    buf_t b = {0};
    if (s->redraw) {
        buf_puts(&b, "\033[H\033[J");
        pm_leak_write_table(&b, w->L, w->cls, w->ncls, w->meta.pid, w->meta.command, w->meta.every, s->top);
        if (!final) buf_puts(&b, "\n(Ctrl-C to stop)\n");
    } else {
        pm_leak_write_census_line(&b, w->L, w->cls, w->ncls);
    }
    fwrite(b.data, 1, b.len, stdout);
    fflush(stdout);
    buf_free(&b);
}

int cli_watch_heap(int argc, char **argv)
{
    int pid = 0, heap = 0, json = 0, all = 0, live = 0, no_paths = 0, fork_copy = 0;
    double every = 30, duration = 0;
    const char *out_path = NULL;
    long top = 15, censuses = 0;
    ngates = 0;
    const opt_t opts[] = {
        OPT_FN("pid", 'p', "PID", "the node process to watch", &pid, opt_set_pid),
        OPT_BOOL("heap", 0, "watch the heap (this mode)", &heap),
        OPT_FN("every", 0, "DURATION", "time between censuses (30s)", &every, set_every),
        OPT_FN("duration", 'd', "DURATION", "stop after DURATION (default: Ctrl-C or the process's end)", &duration,
               set_duration),
        OPT_FN("censuses", 0, "N", "stop after N censuses (with -d: whichever comes first)", &censuses,
               opt_set_count),
        OPT_STR("output", 'o', "REPORT", "write the report: REPORT.html (charts) or REPORT.json", &out_path),
        OPT_BOOL("json", 0, "print the JSON report on stdout at the end (no table)", &json),
        OPT_FN("fail-if-growth", 0, "'CLASS>N/min'",
               "exit 1 when CLASS grew faster than N instances a minute\n"
               "(N/s, N/h too; repeatable)",
               NULL, add_gate),
        OPT_FN("top", 'n', "N", "rows of the table (15)", &top, opt_set_count),
        OPT_BOOL("all-objects", 0,
                 "count every object on the heap's pages, garbage not yet collected\n"
                 "too (one walk: cheaper than the object graph of each census)",
                 &all),
        OPT_BOOL("live", 0,
                 "read the running process itself instead of a frozen copy (stopped\n"
                 "only to copy registers; implies --all-objects; objects may be torn)",
                 &live),
        OPT_BOOL("fork", 0,
                 "take each census from a forked copy, not from the pages the process\n"
                 "wrote since the last (the way where the kernel cannot track writes)",
                 &fork_copy),
        OPT_BOOL("no-paths", 0, "no retainer paths nor retained sizes at the end", &no_paths),
        OPT_VERBOSITY,
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"watch --heap", usage, tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (n > 0) return opt_usage_error(&cmd, "unexpected argument '%s'", argv[1]);
    if (!pid) return opt_usage_error(&cmd, "which process? (-p PID)");
    int html = 0;
    if (out_path) {
        size_t len = strlen(out_path);
        if (len > 5 && !strcmp(out_path + len - 5, ".html")) html = 1;
        else if (len > 4 && !strcmp(out_path + len - 4, ".htm")) html = 1;
        else if (!(len > 5 && !strcmp(out_path + len - 5, ".json")))
            return opt_usage_error(&cmd, "-o takes a .html or a .json file, not '%s'", out_path);
    }
    if (kill(pid, 0) != 0 && errno == ESRCH) {
        diag_error(NULL, 0, "no process %d", pid);
        return EXIT_FAIL;
    }
    char cmdline[200];
    proc_cmdline(pid, cmdline, sizeof cmdline);
    if (!record_process_is_node(pid)) {
        diag_error(NULL, 0, "process %d (%s) is not node: watch --heap reads the heaps of Node 18-26 processes", pid,
                   cmdline);
        return EXIT_FAIL;
    }
    show_t show = {json, !json && isatty(STDOUT_FILENO), (size_t)top};
    const pm_leak_watch_opts_t wo = {.pid = pid, .cmdline = cmdline, .every = every, .duration = duration,
                                     .censuses = censuses, .all = all, .live = live, .fork_copy = fork_copy,
                                     .no_paths = no_paths, .stop_requested = stop_requested,
                                     .is_node = record_process_is_node, .on_census = on_census, .ctx = &show};
    pm_leak_watch_t w;
    stop_signals_install();
    pm_leak_watch_run(&wo, &w);
    stop_signals_restore();
    int rc = w.failed ? EXIT_FAIL : EXIT_OK;
    if (pm_leak_points(w.L)) {
        buf_t b = {0};
        if (json) {
            pm_leak_write_json(w.L, w.cls, w.ncls, &w.meta, &b);
        } else {
            if (!show.redraw) {
                buf_putc(&b, '\n');
                pm_leak_write_table(&b, w.L, w.cls, w.ncls, pid, cmdline, every, (size_t)top);
            }
            pm_leak_write_growing(&b, w.L, w.cls, w.ncls);
        }
        fwrite(b.data, 1, b.len, stdout);
        fflush(stdout);
        if (out_path) {
            buf_clear(&b);
            if (html) pm_leak_write_html(w.L, w.cls, w.ncls, &w.meta, &b);
            else pm_leak_write_json(w.L, w.cls, w.ncls, &w.meta, &b);
            output_t o;
            if (output_open(&o, out_path, NULL, 0) != 0) rc = EXIT_FAIL;
            else {
                fwrite(b.data, 1, b.len, o.f);
                if (output_commit(&o) != 0) rc = EXIT_FAIL;
                else if (diag_verbosity >= 0) fprintf(stderr, "nodescope: wrote %s\n", out_path);
            }
        }
        buf_free(&b);
        for (int g = 0; g < ngates; g++)
            if (pm_leak_watch_gate(&w, gates[g].name, gates[g].per_min) != 0) rc = EXIT_FAIL;
    }
    if (pm_leak_watch_end(&w) != 0) rc = EXIT_FAIL;
    pm_leak_watch_free(&w);
    return rc;
}
