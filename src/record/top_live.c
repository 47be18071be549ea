/* nodescope top -p PID: the live sampler (record/live_sampler) feeding the `top` report, redrawn
 * every interval in the terminal until Ctrl-C, -d or the process's end, as py-spy's top does.
 * The table counts every sample since the start. --once samples for -d seconds (1 by default)
 * and prints the report once (text or --json), for scripts. --wall is record --wall's sampling
 * (live_sampler_start_wall): a thread off the CPU counts too, under a "(wait: futex)"-style leaf
 * that is a row of the table like any function. The process is never stopped:
 * the sampler reads it through perf_event copies and process_vm_readv only. */
#include "record/top_live.h"
#include "formats/format.h"
#include "record/live_sampler.h"
#include "record/program.h"
#include "record/stop_signals.h"
#include "symbols/journal.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/procfs.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The header and the report of everything sampled so far. */
static void report(const top_live_opts_t *o, const profile_t *p, const live_stats_t *st, double seconds,
                   const char *cmdline, int final, buf_t *out)
{
    write_opts_t wo = {.threads_merge = o->threads_merge};
    profile_t *view = NULL;
    if (format_thread_view(p, &wo, "all", o->threads_merge ? THREAD_ROOTS_MERGE : THREAD_ROOTS_ROLES, &view, NULL) != 0)
        view = NULL;
    text_report_opts_t ro = o->report;
    ro.threads_of = p;
    char counts[160];
    live_stats_json(st, counts, sizeof counts); /* what the sampler found to name */
    ro.json_extra = counts;
    if (!o->report.json) {
        buf_printf(out, "nodescope top: pid %d (%s), %g Hz%s, %.1f s, %lu samples", o->pid, cmdline, o->hz,
                   o->wall ? " wall-clock" : "", seconds, st->samples);
        if (o->wall) buf_printf(out, ", %lu off the CPU", st->off_cpu);
        if (st->partial) buf_printf(out, ", %lu partial", st->partial);
        if (st->lost) buf_printf(out, ", %lu lost", st->lost);
        buf_puts(out, final ? "\n\n" : "  (Ctrl-C to stop)\n\n");
    }
    text_report(view ? view : p, &ro, out);
    profile_free(view);
}

int top_live(const top_live_opts_t *o)
{
    if (kill(o->pid, 0) != 0 && errno == ESRCH) {
        diag_error(NULL, 0, "no process %d", o->pid);
        return -1;
    }
    char cmdline[120];
    proc_cmdline(o->pid, cmdline, sizeof cmdline);
    if (!record_process_is_node(o->pid)) {
        diag_error(NULL, 0,
                   "process %d (%s) is not node: top -p names the JavaScript functions of Node 18-24 processes", o->pid,
                   cmdline);
        return -1;
    }
    target_t *t = target_open_running(o->pid);
    if (!t) return -1;
    v8_t *v = v8_open(t); /* says why not */
    if (!v) {
        target_close(t);
        return -1;
    }
    profile_t *p = profile_new();
    live_sampler_t *s = live_sampler_start_wall(t, v, o->hz, o->wall, p);
    if (!s) {
        if (errno == ESRCH) diag_error(NULL, 0, "process %d is gone", o->pid);
        profile_free(p);
        v8_close(v);
        target_close(t);
        return -1;
    }
    /* redraw in place on a terminal; elsewhere each report follows the last */
    int redraw = !o->once && isatty(STDOUT_FILENO);
    double duration = o->duration > 0 ? o->duration : o->once ? 1 : 0;
    stop_signals_install();
    uint64_t t0 = monotonic_ns(), next = t0 + (uint64_t)(o->interval * 1e9);
    int gone = 0;
    buf_t out = {0};
    for (;;) {
        if (live_sampler_poll(s) == 0) {
            gone = 1;
            break;
        }
        stop_request_t req;
        if (stop_signals_next(&req)) break;
        uint64_t now = monotonic_ns();
        double elapsed = (double)(now - t0) / 1e9;
        if (duration > 0 && elapsed >= duration) break;
        if (!o->once && now >= next) {
            live_stats_t st;
            live_sampler_stats(s, &st);
            buf_clear(&out);
            if (redraw) buf_puts(&out, "\033[H\033[J");
            report(o, p, &st, elapsed, cmdline, 0, &out);
            if (!redraw) buf_putc(&out, '\n');
            fwrite(out.data, 1, out.len, stdout);
            fflush(stdout);
            next = now + (uint64_t)(o->interval * 1e9);
        }
    }
    double elapsed = (double)(monotonic_ns() - t0) / 1e9;
    live_stats_t st;
    live_sampler_stop(s, &st);
    stop_signals_restore();
    buf_clear(&out);
    if (redraw) buf_puts(&out, "\033[H\033[J");
    report(o, p, &st, elapsed, cmdline, 1, &out);
    fwrite(out.data, 1, out.len, stdout);
    fflush(stdout);
    buf_free(&out);
    if (gone && diag_verbosity >= 0) fprintf(stderr, "nodescope: process %d exited\n", o->pid);
    if (st.samples == 0) diag_warn(NULL, 0, "no samples: process %d did not run on a CPU while it was sampled", o->pid);
    int rc = live_stats_check_named(&st, target_problem(t), proc_other_mount_ns(o->pid));
    profile_free(p);
    v8_close(v);
    target_close(t);
    return rc;
}
