/* The live recording record runs by default: the program or processes checked, the session
 * (record/live_session.c) run with stop signals caught until nodescope exits, and what the
 * samples say about themselves (no node process, no samples) said before anything is printed or
 * written. Invariant: r->p is always a profile (freed by live_record_end) once run returned 0. */
#include "record/live_record.h"
#include "formats/write_file.h"
#include "record/stop_signals.h"
#include "util/diag.h"
#include <stdio.h>
#include <string.h>

int live_record_run(const live_record_opts_t *o, live_record_t *r)
{
    memset(r, 0, sizeof *r);
    r->events = o->events;
    r->wall = o->wall;
    /* with --children a pid may be a supervisor that is not node (a shell, make): its node
       descendants are recorded */
    for (int i = 0; i < o->npids; i++)
        if (record_check_attach(o->pids[i], o->children && !record_process_is_node(o->pids[i])
                                                ? RECORD_ATTACH_TREE
                                                : RECORD_ATTACH_NODE) != 0)
            return -1;
    /* a command that is not node: only its node descendants, when asked for (--children) */
    if (o->nprog && record_program_resolve(&r->rp, o->prog, o->nprog, NULL, o->children == 1) != 0) return -1;
    live_session_opts_t so = {.argv = o->nprog ? r->rp.argv : NULL,
                              .pids = o->pids,
                              .npids = o->npids,
                              .children = o->children || o->nprog,
                              .all = o->all,
                              .sample_root = r->rp.is_node,
                              .hz = o->hz,
                              .duration_s = o->duration,
                              .wall = o->wall,
                              .events = o->events};
    r->p = profile_new();
    snprintf(r->unit, sizeof r->unit, "samples");
    if (o->events) {
        events_unit(o->events, r->unit, sizeof r->unit);
        r->p->weight_unit = strpool_cstr(r->p->strings, r->unit);
    }
    r->print.unit = r->unit;
    if (o->print) so.on_sample = live_report_sample, so.ctx = &r->print;
    /* caught until nodescope exits, not only while the session runs: the second of two signals
       sent 0.2 s apart (record_signals.sh) arrived once the program had exited and killed
       nodescope while it wrote OUT, or in its exit (the test build's leak check takes a while) */
    stop_signals_install();
    if (!(r->ran = live_session_run(&so, r->p, &r->sr) == 0)) return 0;
    /* none found: -a, or a command that is not node and started no node (a node program
       over before its first sample is written empty, with the warning below) */
    r->none = r->sr.nprocs == 0 && (o->all || (o->nprog && !r->rp.is_node));
    if (r->none)
        diag_error(NULL, 0, "%s",
                   o->all ? "no node process to sample was found"
                          : "no node process ran: the program is not node and started none");
    else if (r->p->nsamples == 0 && o->events)
        diag_warn(NULL, 0, "no samples: none of the events (%s) happened in the process while it was sampled", r->unit);
    else if (r->p->nsamples == 0)
        diag_warn(NULL, 0, "no samples: the process did not run on a CPU while it was sampled");
    r->npids = live_report_pids(r->p, r->pids, 256);
    r->p->thread_pids = r->npids > 1 || o->all; /* each process a root: 'node [pid N main]' */
    return 0;
}

int live_record_write(const live_record_t *r, const char *out, const write_opts_t *wo)
{
    const format_writer_t *w = format_writer_for_path(out);
    int several_cpuprofiles = r->npids > 1 && w && !strcmp(w->name, "cpuprofile");
    write_opts_t first = *wo;
    char first_tid[32];
    if (several_cpuprofiles && !wo->thread) {
        snprintf(first_tid, sizeof first_tid, "%d", r->sr.target ? r->sr.target : r->pids[0]);
        first.thread = first_tid;
    }
    if (format_write_file(r->p, out, NULL, &first, NULL, 0) != 0) return -1;
    for (int i = 0; several_cpuprofiles && i < r->npids; i++) {
        char path[4200], tid[32];
        const char *dot = strrchr(out, '.');
        int stem = (int)(dot ? (size_t)(dot - out) : strlen(out));
        snprintf(path, sizeof path, "%.*s.%d%s", stem, out, r->pids[i], dot ? dot : "");
        snprintf(tid, sizeof tid, "%d", r->pids[i]);
        write_opts_t one = *wo;
        one.thread = tid;
        if (format_write_file(r->p, path, NULL, &one, NULL, 0) != 0) return -1;
        if (diag_verbosity >= 0) fprintf(stderr, "nodescope: wrote %s (pid %d)\n", path, r->pids[i]);
    }
    if (diag_verbosity >= 0)
        live_report_wrote(out, live_report_samples_written(r->p, out, &first), &r->sr, r->events, r->wall);
    return 0;
}

void live_record_end(live_record_t *r)
{
    profile_free(r->p);
    r->p = NULL;
    record_program_free(&r->rp);
}
