/* nodescope watch -p PID --heap: what grows in a running program's heap, by constructor, over
 * time (issue 31). Every --every seconds one census (postmortem/leak.c) of a copy of the process
 * at one instant (target_freeze): a tracked copy (target/track.c: nodescope's image of its memory,
 * brought up to date from the pages it wrote since the last census; the process is stopped for
 * the last few) or, where the kernel cannot track writes or with --fork, a frozen copy it forks
 * (killed and reaped after the census); --live: the running process itself, stopped only to copy
 * registers and stacks. The process runs on. A top-like table is redrawn on a terminal (one line a census elsewhere); at
 * the end (-d, Ctrl-C, or the process's exit) the fit over all censuses names what grew steadily,
 * with new instances and the retainer path of one, on stdout, and -o writes the report (.html or
 * .json). --fail-if-growth CLASS>N/min makes it a CI gate. */
#include "cli/cli.h"
#include "postmortem/leak.h"
#include "postmortem/leak_report.h"
#include "postmortem/snapshot.h"
#include "record/program.h"
#include "record/stop_signals.h"
#include "target/target.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/options.h"
#include "util/output.h"
#include "util/procfs.h"
#include "util/xalloc.h"
#include "v8/v8.h"
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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

static int parse_duration(const char *opt, const char *arg, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(arg, &end);
    if (end == arg || errno || !(v > 0)) return opt_fail("%s takes a duration (30s, 2m, 500ms), not '%s'", opt, arg);
    if (!*end || !strcmp(end, "s")) *out = v;
    else if (!strcmp(end, "ms")) *out = v / 1000;
    else if (!strcmp(end, "m") || !strcmp(end, "min")) *out = v * 60;
    else if (!strcmp(end, "h")) *out = v * 3600;
    else return opt_fail("%s takes a duration (30s, 2m, 500ms), not '%s'", opt, arg);
    return 0;
}

static int set_every(void *t, const char *arg) { return parse_duration("--every", arg, t); }
static int set_duration(void *t, const char *arg) { return parse_duration("--duration", arg, t); }

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

static double now_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int gone(int pid) { return kill(pid, 0) != 0 && errno == ESRCH; }

/* npm (npx, yarn, pnpm) running a script, or a cluster's primary: the heap watched is not the
 * program's, or not all of it. Finds the node processes under pid (through shells: `npm run` starts
 * sh, which starts node; 4 levels down at most), says so on stderr, and fills m's wrapper and
 * node_processes for the JSON. */
static void node_processes_under(int pid, const char *cmdline, pm_leak_meta_t *m)
{
    int todo[64], kids[64];
    size_t ntodo = proc_children(pid, todo, 64), total = 0;
    for (int depth = 0; depth < 4 && ntodo; depth++) {
        size_t nkids = 0;
        for (size_t i = 0; i < ntodo; i++) {
            if (record_process_is_node(todo[i])) {
                if (m->nnode_processes < PM_LEAK_NODE_PROCESSES) m->node_processes[m->nnode_processes++] = todo[i];
                total++;
            } else {
                nkids += proc_children(todo[i], kids + nkids, 64 - nkids);
            }
        }
        memcpy(todo, kids, nkids * sizeof *kids);
        ntodo = nkids;
    }
    if (!total) return;
    static const char *const wrappers[][2] = {
        {"npm-cli.js", "npm"}, {"npx-cli.js", "npx"}, {"yarn.js", "yarn"}, {"yarn.cjs", "yarn"}, {"pnpm.cjs", "pnpm"},
        {"pnpm.js", "pnpm"},   {"npm", "npm"},        {"npx", "npx"},      {"yarn", "yarn"},     {"pnpm", "pnpm"}};
    /* node's script (node /usr/lib/node_modules/npm/bin/npm-cli.js), or the title npm sets ("npm start") */
    char word[2][256];
    const char *arg = strchr(cmdline, ' ');
    snprintf(word[0], sizeof word[0], "%s", cmdline);
    snprintf(word[1], sizeof word[1], "%s", arg ? arg + 1 : "");
    for (int w = 0; w < 2; w++) {
        word[w][strcspn(word[w], " ")] = 0;
        const char *base = strrchr(word[w], '/') ? strrchr(word[w], '/') + 1 : word[w];
        for (size_t i = 0; i < sizeof wrappers / sizeof *wrappers && !m->wrapper; i++)
            if (!strcmp(base, wrappers[i][0])) m->wrapper = wrappers[i][1];
    }
    char list[160] = "", child[200];
    for (size_t i = 0; i < m->nnode_processes && i < 4; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%d", i ? ", " : "", m->node_processes[i]);
    if (total > 4) snprintf(list + strlen(list), sizeof list - strlen(list), ", ...");
    proc_cmdline(m->node_processes[0], child, sizeof child);
    if (m->wrapper) {
        diag_warn(NULL, 0,
                  "process %d runs %s: its heap is %s's, not the program's; the program is its node process %d (%s)",
                  pid, m->wrapper, m->wrapper, m->node_processes[0], child);
        diag_hint("nodescope watch -p %d --heap", m->node_processes[0]);
    } else {
        diag_hint("process %d has %zu node process%s under it (%s: a cluster's workers, child processes): each has a "
                  "heap of its own, not counted here; watch -p PID --heap watches one",
                  pid, total, total == 1 ? "" : "es", list);
    }
}

/* The table: a header, then the constructors ranked by growth (limit rows). */
static void table(buf_t *b, const pm_leak_t *L, const pm_leak_class_t *c, size_t n, int pid, const char *cmdline,
                  double every, size_t limit)
{
    size_t np = pm_leak_points(L);
    const pm_leak_point_t *p = pm_leak_point(L, np - 1);
    buf_printf(b, "nodescope watch --heap: pid %d (%s), %zu censuses over %.1f s, every %g s\nheap ", pid, cmdline, np,
               p->t, every);
    pm_put_bytes(b, (double)p->heap_bytes);
    buf_printf(b, " %s, %llu JS objects; stopped %.2f ms, census %.0f ms CPU%s\n\n",
               pm_leak_mode(L) == PM_COUNT_REACHABLE ? "reachable" : "on the heap", (unsigned long long)p->js_objects,
               p->stop_ms, p->cpu_ms, p->unreadable_pages ? " (pages unreadable)" : "");
    buf_printf(b, "%11s %11s %11s %11s %8s  %-9s  %s\n", "INSTANCES", "COUNT/MIN", "BYTES", "BYTES/MIN", "NEW", "TREND",
               "CONSTRUCTOR");
    for (size_t i = 0; i < n && i < limit; i++) {
        const pm_leak_class_t *e = &c[i];
        buf_t by = {0}, rate = {0};
        pm_put_bytes(&by, (double)e->last_bytes);
        if (e->bytes_per_s >= 0) buf_putc(&rate, '+');
        pm_put_bytes(&rate, e->bytes_per_s * 60);
        buf_printf(b, "%11llu %+11.0f %11s %11s %8llu  %-9s  %s\n", (unsigned long long)e->last_count,
                   e->count_per_s * 60, by.data, rate.data, (unsigned long long)e->new_last,
                   np >= 3 ? pm_trend_name(e->trend) : "...", e->name);
        buf_free(&by);
        buf_free(&rate);
    }
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
    if (live) all = 1; /* a graph of memory that moves under the reads is not built: one walk */
    if (gone(pid)) {
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
    pm_leak_meta_t meta = {pid, cmdline, live ? "live" : "snapshot", every, "duration", NULL, NULL, NULL, NULL, {0}, 0};
    node_processes_under(pid, cmdline, &meta);
    pm_leak_t *L = pm_leak_new(all ? PM_COUNT_ALL : PM_COUNT_REACHABLE);
    int redraw = !json && isatty(STDOUT_FILENO);
    stop_signals_install();
    double t0 = now_s(CLOCK_MONOTONIC);
    const char *ended = "duration", *partial = NULL;
    pm_leak_class_t *cls = NULL;
    size_t ncls = 0;
    int failed = 0, explained = 0;
    long in_gc_retries = 0; /* copies taken again: the first caught a garbage collection */
    buf_t b = {0};
    double due = t0; /* the next census's time: every --every, later when a census overran */
    /* a copy's target and its V8: kept from one census to the next (node's symbols, V8's metadata
       and layout are read once), each census a new copy (pm_open_frozen) */
    target_t *t = NULL;
    v8_t *v = NULL;
    for (;;) {
        stop_request_t req;
        int stop = stop_signals_next(&req);
        /* wait for the census's time, a tenth of a second at a time (Ctrl-C ends the wait) */
        while (!stop && now_s(CLOCK_MONOTONIC) < due) {
            double left = due - now_s(CLOCK_MONOTONIC);
            struct timespec ts = {0, (long)(fmin(left, 0.1) * 1e9)};
            nanosleep(&ts, NULL);
            stop = stop_signals_next(&req);
        }
        if (stop) ended = "interrupted";
        if (gone(pid)) {
            ended = "process exited";
            break;
        }
        int last_count = censuses > 0 && pm_leak_points(L) + 1 >= (size_t)censuses;
        int final = stop || last_count || (duration > 0 && due - t0 >= duration - 1e-6);
        if (last_count && !stop) ended = "censuses";
        double c0 = now_s(CLOCK_PROCESS_CPUTIME_ID), w0 = now_s(CLOCK_MONOTONIC);
        double stopped = 0, tc = 0;
        int rc = -1, retried = 0;
        long long faults0 = proc_minor_faults(pid);
        if (!live) {
            if (!t && (t = target_open_running(pid))) target_track_want(t, !fork_copy);
            rc = pm_open_frozen(pid, &t, &v, &stopped, &retried);
            in_gc_retries += retried;
        } else if ((t = target_open_running(pid)) && (v = v8_open(t))) { /* a new target: it ran on */
            rc = target_snapshot(t, &stopped);
        }
        if (t && v && rc == 0) {
            tc = now_s(CLOCK_MONOTONIC) - t0;
            rc = pm_leak_census(L, v, tc, stopped, final && !no_paths && !all);
        }
        if (rc == 0) {
            const char *why = NULL;
            int tracked = !live && !strcmp(target_copy_kind(t, &why), "tracked");
            if (!live && !meta.copy) meta.copy = tracked ? "tracked" : "fork", meta.copy_why = why;
            pm_leak_set_cost(L, (now_s(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1000, (now_s(CLOCK_MONOTONIC) - w0) * 1000,
                             live || tracked ? 0 : target_fork_ms(t),
                             tracked ? (int64_t)target_copy_read_bytes(t) : -1);
            pm_leak_classes_free(cls, ncls);
            ncls = pm_leak_analyze(L, &cls);
            if (final && !no_paths && !all) {
                pm_leak_explain(L, v, cls, ncls, 5);
                explained = 1;
            }
        }
        pm_leak_release(L);
        if (t && target_problem(t)) {
            diag_error(target_name(t), 0, "%s: %s", v ? "objects read with the wrong V8 metadata" : "no V8 found",
                       target_problem(t));
            failed = 1;
        }
        if (t && v && !live && rc == 0 && !failed) {
            target_unfreeze(t);
            long long faults1 = proc_minor_faults(pid);
            pm_leak_set_target_faults(L, faults0 >= 0 && faults1 >= faults0 ? faults1 - faults0 : -1);
        } else {
            v8_close(v), v = NULL;
            if (t) target_close(t), t = NULL;
        }
        if (rc != 0) {
            if (gone(pid)) {
                ended = "process exited";
                break;
            }
            if (!t || !v) diag_error(NULL, 0, "cannot read process %d's heap", pid);
            if (pm_leak_points(L) == 0) target_ptrace_hint(pid); /* why the first copy failed */
            ended = "error";
            failed = 1;
            break;
        }
        if (failed) break;
        if (!json) { /* the table on a terminal; a line a census elsewhere */
            buf_clear(&b);
            if (redraw) {
                buf_puts(&b, "\033[H\033[J");
                table(&b, L, cls, ncls, pid, cmdline, every, (size_t)top);
                if (!final) buf_puts(&b, "\n(Ctrl-C to stop)\n");
            } else {
                const pm_leak_point_t *p = pm_leak_point(L, pm_leak_points(L) - 1);
                buf_printf(&b, "census %zu at %.1f s: heap ", pm_leak_points(L), p->t);
                pm_put_bytes(&b, (double)p->heap_bytes);
                buf_printf(&b, ", %llu JS objects, stopped %.2f ms, %.0f ms CPU", (unsigned long long)p->js_objects,
                           p->stop_ms, p->cpu_ms);
                if (p->target_faults >= 0) buf_printf(&b, ", %lld faults in the process", (long long)p->target_faults);
                size_t shown = 0;
                for (size_t i = 0; i < ncls && shown < 3; i++)
                    if (cls[i].trend == PM_TREND_GROWING)
                        buf_printf(&b, "%s%s %+.0f/min", shown++ ? ", " : "; growing: ", cls[i].name,
                                   cls[i].count_per_s * 60);
                buf_putc(&b, '\n');
            }
            fwrite(b.data, 1, b.len, stdout);
            fflush(stdout);
        }
        if (final) break;
        due += every;
        if (duration > 0 && due - t0 > duration) due = t0 + duration; /* the last census at -d */
        if (due < now_s(CLOCK_MONOTONIC)) due = now_s(CLOCK_MONOTONIC);
    }
    v8_close(v);
    if (t) target_close(t);
    stop_signals_restore();
    size_t np = pm_leak_points(L);
    if (np < 3 && !failed) partial = "fewer than 3 censuses: no trend can be fitted";
    else if (!explained && !no_paths && !all && np)
        partial = "the last census was not the final one (the process exited): no retainer paths nor retained sizes";
    if (np && partial) diag_warn(NULL, 0, "%s", partial);
    meta.ended = ended, meta.partial = partial;
    int rc = failed ? EXIT_FAIL : EXIT_OK;
    if (np) {
        buf_clear(&b);
        if (json) pm_leak_write_json(L, cls, ncls, &meta, &b);
        else {
            if (!redraw) {
                buf_putc(&b, '\n');
                table(&b, L, cls, ncls, pid, cmdline, every, (size_t)top);
            }
            size_t ng = 0;
            for (size_t i = 0; i < ncls; i++) {
                const pm_leak_class_t *e = &cls[i];
                if (e->trend != PM_TREND_GROWING) continue;
                if (!ng++) buf_puts(&b, "\ngrowing steadily:\n");
                buf_printf(&b, "  %s: %+.0f instances/min, ", e->name, e->count_per_s * 60);
                if (e->bytes_per_s >= 0) buf_putc(&b, '+');
                pm_put_bytes(&b, e->bytes_per_s * 60);
                buf_printf(&b, "/min (%llu -> %llu", (unsigned long long)e->first_count,
                           (unsigned long long)e->last_count);
                if (e->retained_last) {
                    buf_puts(&b, ", retaining ");
                    pm_put_bytes(&b, (double)e->retained_last);
                }
                buf_puts(&b, ")\n");
                if (e->nsamples) {
                    buf_puts(&b, "    new:");
                    for (size_t s = 0; s < e->nsamples; s++)
                        buf_printf(&b, " 0x%llx", (unsigned long long)e->samples[s]);
                    buf_putc(&b, '\n');
                }
                if (e->holder) buf_printf(&b, "    held by %s\n", e->holder);
                if (e->path) buf_printf(&b, "    path: %s\n", e->path);
            }
            if (!ng && np >= 3) buf_puts(&b, "\nnothing grew steadily\n");
        }
        fwrite(b.data, 1, b.len, stdout);
        fflush(stdout);
        if (out_path) {
            buf_clear(&b);
            if (html) pm_leak_write_html(L, cls, ncls, &meta, &b);
            else pm_leak_write_json(L, cls, ncls, &meta, &b);
            output_t o;
            if (output_open(&o, out_path, NULL, 0) != 0) rc = EXIT_FAIL;
            else {
                fwrite(b.data, 1, b.len, o.f);
                if (output_commit(&o) != 0) rc = EXIT_FAIL;
                else if (diag_verbosity >= 0) fprintf(stderr, "nodescope: wrote %s\n", out_path);
            }
        }
        for (int g = 0; g < ngates; g++) {
            double rate = 0;
            int found = 0;
            for (size_t i = 0; i < ncls; i++)
                if (!strcmp(cls[i].name, gates[g].name)) rate = cls[i].count_per_s * 60, found = 1;
            if (np < 3) {
                diag_error(NULL, 0, "--fail-if-growth %s: fewer than 3 censuses, no rate to check", gates[g].name);
                rc = EXIT_FAIL;
            } else if (meta.wrapper) {
                diag_error(NULL, 0, "--fail-if-growth %s: not checked: the heap watched is %s's, not the program's",
                           gates[g].name, meta.wrapper);
                rc = EXIT_FAIL;
            } else if (found && rate > gates[g].per_min) {
                diag_error(NULL, 0, "%s grew by %.0f instances a minute, more than the %g allowed (--fail-if-growth)",
                           gates[g].name, rate, gates[g].per_min);
                rc = EXIT_FAIL;
            }
        }
    } else if (!failed) {
        diag_error(NULL, 0, "process %d exited before the first census", pid);
        rc = EXIT_FAIL;
    }
    if (!strcmp(ended, "process exited") && diag_verbosity >= 0) fprintf(stderr, "nodescope: process %d exited\n", pid);
    buf_free(&b);
    if (in_gc_retries) diag_info("%ld copies were taken again: the first caught a garbage collection", in_gc_retries);
    pm_leak_classes_free(cls, ncls);
    pm_leak_free(L);
    return rc;
}
