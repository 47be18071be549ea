/* The leak watch (postmortem/leak_watch.h): the census loop of `watch -p PID --heap`. Every
 * `every` seconds one census (postmortem/leak.c) of a copy of the process at one instant
 * (target_freeze): a tracked copy (target/track.c: nodescope's image of its memory, brought up to
 * date from the pages it wrote since the last census; the process is stopped for the last few)
 * or, where the kernel cannot track writes or with fork_copy, a frozen copy it forks (killed and
 * reaped after the census); live: the running process itself, stopped only to copy registers and
 * stacks. The process runs on. The last census (the duration, the count, a stop) explains what
 * grew: retained sizes, new instances and the retainer path of one. */
#include "postmortem/leak_watch.h"
#include "postmortem/snapshot.h"
#include "target/target.h"
#include "util/diag.h"
#include "util/procfs.h"
#include "v8/v8.h"
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int gone(int pid) { return kill(pid, 0) != 0 && errno == ESRCH; }

static void node_processes_under(int pid, const char *cmdline, int (*is_node)(int), pm_leak_meta_t *m)
{
    int todo[64], kids[64];
    size_t ntodo = proc_children(pid, todo, 64), total = 0;
    for (int depth = 0; depth < 4 && ntodo; depth++) {
        size_t nkids = 0;
        for (size_t i = 0; i < ntodo; i++) {
            if (is_node(todo[i])) {
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

void pm_leak_watch_run(const pm_leak_watch_opts_t *o, pm_leak_watch_t *w)
{
    const int pid = o->pid, live = o->live, all = o->all || o->live, fork_copy = o->fork_copy, no_paths = o->no_paths;
    const double every = o->every, duration = o->duration;
    const long censuses = o->censuses;
    memset(w, 0, sizeof *w);
    w->meta = (pm_leak_meta_t){pid, o->cmdline, live ? "live" : "snapshot", every, "duration", NULL, NULL, NULL, NULL,
                               {0}, 0};
    node_processes_under(pid, o->cmdline, o->is_node, &w->meta);
    pm_leak_t *L = w->L = pm_leak_new(all ? PM_COUNT_ALL : PM_COUNT_REACHABLE);
    double t0 = now_s(CLOCK_MONOTONIC);
    const char *ended = "duration", *partial = NULL;
    double due = t0; /* the next census's time: every --every, later when a census overran */
    /* a copy's target and its V8: kept from one census to the next (node's symbols, V8's metadata
       and layout are read once), each census a new copy (pm_open_frozen) */
    target_t *t = NULL;
    v8_t *v = NULL;
    for (;;) {
        int stop = o->stop_requested && o->stop_requested();
        /* wait for the census's time, a tenth of a second at a time (Ctrl-C ends the wait) */
        while (!stop && now_s(CLOCK_MONOTONIC) < due) {
            double left = due - now_s(CLOCK_MONOTONIC);
            struct timespec ts = {0, (long)(fmin(left, 0.1) * 1e9)};
            nanosleep(&ts, NULL);
            stop = o->stop_requested && o->stop_requested();
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
            w->in_gc_retries += retried;
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
            if (!live && !w->meta.copy) w->meta.copy = tracked ? "tracked" : "fork", w->meta.copy_why = why;
            pm_leak_set_cost(L, (now_s(CLOCK_PROCESS_CPUTIME_ID) - c0) * 1000, (now_s(CLOCK_MONOTONIC) - w0) * 1000,
                             live || tracked ? 0 : target_fork_ms(t),
                             tracked ? (int64_t)target_copy_read_bytes(t) : -1);
            pm_leak_classes_free(w->cls, w->ncls);
            w->ncls = pm_leak_analyze(L, &w->cls);
            if (final && !no_paths && !all) {
                pm_leak_explain(L, v, w->cls, w->ncls, 5);
                w->explained = 1;
            }
        }
        pm_leak_release(L);
        if (t && target_problem(t)) {
            diag_error(target_name(t), 0, "%s: %s", v ? "objects read with the wrong V8 metadata" : "no V8 found",
                       target_problem(t));
            w->failed = 1;
        }
        if (t && v && !live && rc == 0 && !w->failed) {
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
            if (pm_leak_points(L) == 0) target_ptrace_hint(pid); /* why the first copy w->failed */
            ended = "error";
            w->failed = 1;
            break;
        }
        if (w->failed) break;
        if (o->on_census) o->on_census(o->ctx, w, final);
        if (final) break;
        due += every;
        if (duration > 0 && due - t0 > duration) due = t0 + duration; /* the last census at -d */
        if (due < now_s(CLOCK_MONOTONIC)) due = now_s(CLOCK_MONOTONIC);
    }
    v8_close(v);
    if (t) target_close(t);
    size_t np = pm_leak_points(L);
    if (np < 3 && !w->failed) partial = "fewer than 3 censuses: no trend can be fitted";
    else if (!w->explained && !no_paths && !all && np)
        partial = "the last census was not the final one (the process exited): no retainer paths nor retained sizes";
    if (np && partial) diag_warn(NULL, 0, "%s", partial);
    w->meta.ended = ended, w->meta.partial = partial;
}

int pm_leak_watch_gate(const pm_leak_watch_t *w, const char *name, double per_min)
{
    double rate = 0;
    int found = 0;
    for (size_t i = 0; i < w->ncls; i++)
        if (!strcmp(w->cls[i].name, name)) rate = w->cls[i].count_per_s * 60, found = 1;
    if (pm_leak_points(w->L) < 3) {
        diag_error(NULL, 0, "--fail-if-growth %s: fewer than 3 censuses, no rate to check", name);
        return -1;
    } else if (w->meta.wrapper) {
        diag_error(NULL, 0, "--fail-if-growth %s: not checked: the heap watched is %s's, not the program's", name,
                   w->meta.wrapper);
        return -1;
    } else if (found && rate > per_min) {
        diag_error(NULL, 0, "%s grew by %.0f instances a minute, more than the %g allowed (--fail-if-growth)", name,
                   rate, per_min);
        return -1;
    }
    return 0;
}

int pm_leak_watch_end(const pm_leak_watch_t *w)
{
    int rc = 0;
    if (!pm_leak_points(w->L) && !w->failed) {
        diag_error(NULL, 0, "process %d exited before the first census", w->meta.pid);
        rc = -1;
    }
    if (!strcmp(w->meta.ended, "process exited") && diag_verbosity >= 0)
        fprintf(stderr, "nodescope: process %d exited\n", w->meta.pid);
    if (w->in_gc_retries)
        diag_info("%ld copies were taken again: the first caught a garbage collection", w->in_gc_retries);
    return rc;
}

void pm_leak_watch_free(pm_leak_watch_t *w)
{
    pm_leak_classes_free(w->cls, w->ncls);
    pm_leak_free(w->L);
}
