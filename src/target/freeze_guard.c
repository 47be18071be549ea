/* target_freeze and target_thaw through a guard: a child process of nodescope, in a process group
 * of its own and deaf to SIGINT, SIGTERM and SIGHUP, does the ptrace work (freeze.c) and stays the
 * copy's tracer. While it makes the target run a system call the target's main thread has
 * registers that are not its own: a tracer that died then would leave the target to crash. The
 * guard is not what a user kills (kill -9 of nodescope, ^C of its group): it finishes the freeze,
 * and when nodescope goes (the pipe it waits on ends) it thaws as nodescope would have (kills and
 * reaps the copy, has the target reap its zombie) and exits. nodescope reads the copy's memory
 * (/proc/COPY/mem, live.c) and gets the threads and registers of the
 * stop through a pipe. A target nodescope holds already (watch --on, stopped at its event) is
 * frozen in process: its tracer is nodescope itself. */
#include "target/target_internal.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct {
    int rc, err;
    double stopped_ms, fork_ms;
    int frozen_pid, frozen_ns_pid;
    uint64_t syscall_insn;
    uint32_t nthreads;
    uint32_t errors; /* errors the guard printed (counted here too: "error:" means a failure) */
} reply_t;

typedef struct {
    int tid;
    uint64_t regs[ARCH_MAX_REGS];
    char name[64];
} reply_thread_t;

#define MAX_THREADS 65536

static int write_all(int fd, const void *p, size_t n)
{
    for (const char *c = p; n;) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        c += w, n -= (size_t)w;
    }
    return 0;
}

static int read_all(int fd, void *p, size_t n)
{
    for (char *c = p; n;) {
        ssize_t r = read(fd, c, n);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return -1;
        c += r, n -= (size_t)r;
    }
    return 0;
}

/* The guard: freezes, reports, waits for the word (or nodescope's end) and thaws. Never returns. */
static void guard(target_t *t, int up, int down)
{
    setpgid(0, 0);
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    /* nodescope gone before the freeze began (killed just after the fork): no freeze at all, or
       the target would be stopped and traced after its reader died (the pipe's end: readable) */
    struct pollfd pf = {down, POLLIN, 0};
    if (poll(&pf, 1, 0) == 1) _exit(1);
    unsigned long e0 = diag_error_count();
    reply_t r = {0};
    r.rc = target_freeze_here(t, &r.stopped_ms);
    r.err = errno;
    r.fork_ms = t->fork_ms;
    r.frozen_pid = t->frozen_pid;
    r.frozen_ns_pid = t->frozen_ns_pid;
    r.syscall_insn = t->syscall_insn;
    r.nthreads = (uint32_t)(t->nthreads < MAX_THREADS ? t->nthreads : MAX_THREADS);
    r.errors = (uint32_t)(diag_error_count() - e0);
    int ok = write_all(up, &r, sizeof r) == 0;
    for (uint32_t i = 0; ok && i < r.nthreads; i++) {
        const target_thread_t *th = &t->threads[i];
        reply_thread_t rt = {th->tid, {0}, ""};
        memcpy(rt.regs, th->regs, sizeof rt.regs);
        if (th->name) snprintf(rt.name, sizeof rt.name, "%s", th->name);
        ok = write_all(up, &rt, sizeof rt) == 0;
    }
    if (r.rc == 0) {
        char c;
        while (read(down, &c, 1) < 0 && errno == EINTR) {} /* the word, or nodescope is gone */
        target_thaw_here(t);
        write_all(up, "t", 1);
    }
    _exit(r.rc == 0 ? 0 : 1);
}

int target_freeze(target_t *t, double *stopped_ms)
{
    if (!t->pid || t->frozen_pid || t->track_frozen) return 0;
    if (t->track_want && !t->traced) {
        int r = target_track_freeze(t, stopped_ms);
        if (r <= 0) return r;
    }
    if (t->traced) return target_freeze_here(t, stopped_ms); /* ours already: watch --on */
    for (size_t i = 0; t->held && i < t->nthreads; i++)
        if (t->held[i]) return target_freeze_here(t, stopped_ms);
    int up[2], down[2];
    if (pipe2(up, O_CLOEXEC) != 0) return target_freeze_here(t, stopped_ms);
    if (pipe2(down, O_CLOEXEC) != 0) {
        close(up[0]), close(up[1]);
        return target_freeze_here(t, stopped_ms);
    }
    fflush(stdout);
    fflush(stderr);
    pid_t g = fork();
    if (g == 0) {
        close(up[0]), close(down[1]);
        guard(t, up[1], down[0]);
    }
    close(up[1]), close(down[0]);
    if (g < 0) {
        close(up[0]), close(down[1]);
        return target_freeze_here(t, stopped_ms);
    }
    reply_t r;
    reply_thread_t *th = NULL;
    int got = read_all(up[0], &r, sizeof r) == 0 && r.nthreads <= MAX_THREADS;
    if (got) {
        th = xcalloc(r.nthreads ? r.nthreads : 1, sizeof *th);
        got = read_all(up[0], th, r.nthreads * sizeof *th) == 0;
    }
    if (got) diag_set_error_count(diag_error_count() + r.errors);
    if (!got || r.rc != 0) {
        close(up[0]), close(down[1]);
        while (waitpid(g, NULL, 0) < 0 && errno == EINTR) {}
        free(th);
        if (!got) diag_error(t->name, 0, "the process that forks its snapshot ended before it was done");
        errno = got ? r.err : EIO;
        return -1;
    }
    for (size_t i = 0; i < t->nthreads; i++) free((char *)t->threads[i].name);
    t->threads = xrealloc(t->threads, (r.nthreads ? r.nthreads : 1) * sizeof *t->threads);
    free(t->held);
    t->held = xcalloc(r.nthreads ? r.nthreads : 1, 1);
    t->nthreads = r.nthreads;
    for (uint32_t i = 0; i < r.nthreads; i++) {
        target_thread_t *d = &t->threads[i];
        memset(d, 0, sizeof *d);
        d->tid = th[i].tid;
        memcpy(d->regs, th[i].regs, sizeof d->regs);
        target_thread_set_regs(t, d);
        d->name = th[i].name[0] ? xstrdup(th[i].name) : NULL;
    }
    free(th);
    t->frozen_pid = r.frozen_pid;
    t->frozen_ns_pid = r.frozen_ns_pid;
    t->fork_ms = r.fork_ms;
    t->syscall_insn = r.syscall_insn;
    t->ops = &target_frozen_ops;
    target_live_cache_invalidate(t); /* reads made before the stop are the running process's */
    target_live_frozen_maps(t);
    t->guard_pid = g;
    t->guard_fd = down[1];
    close(up[0]);
    if (stopped_ms) *stopped_ms = r.stopped_ms;
    return 0;
}

void target_thaw(target_t *t)
{
    if (t->guard_pid <= 0) {
        target_thaw_here(t);
        return;
    }
    /* the word; the guard kills and reaps the copy, has the target reap it, and exits */
    (void)!write(t->guard_fd, "t", 1);
    close(t->guard_fd);
    while (waitpid(t->guard_pid, NULL, 0) < 0 && errno == EINTR) {}
    t->guard_pid = 0;
    t->guard_fd = -1;
    t->frozen_pid = 0;
    t->frozen_ns_pid = 0;
}
