/* A frozen copy of a live process (target_freeze): every thread is stopped (target_stop) only to
 * read its registers and to make the main thread call clone() — a fork whose child is a
 * copy-on-write image of the whole address space at that instant — then the process runs on and
 * every read goes to the copy (its /proc/PID/mem: live.c), with the registers saved at the
 * stop. The copy never runs a single instruction of its own:
 *   - clone(CLONE_FILES) with exit signal 0: no SIGCHLD for the target, no file
 *     descriptor duplicated (the table is shared, not copied: no pipe kept open, no lock or
 *     socket touched when the copy goes), and a wait(-1) of the target (without __WALL) never
 *     sees it;
 *   - PTRACE_O_TRACECLONE|TRACEFORK|EXITKILL are set on the main thread for the clone only:
 *     the child is traced from birth (stopped before its first instruction) and inherits
 *     EXITKILL (if nodescope dies, the kernel kills the copy);
 *   - target_thaw kills it (SIGKILL), waits for it as its tracer, then reaps it for its parent by
 *     making the target's main thread call wait4(child, NULL, __WALL|WNOHANG) (a stop of the main
 *     thread alone, well under a millisecond). If nodescope is killed after the copy exists, the
 *     copy dies with it but stays a zombie child of the target (exit signal 0: nothing in the
 *     target sees it) until the next snapshot of the target reaps it (stale_copies), or it exits.
 * The injection window: from setting its registers to the restore the main thread's registers are not
 * its own (a few system calls: the clone, two single steps). Whoever does this must not die in
 * it, or the target crashes: freeze_guard.c runs it in a process of its own that nodescope's
 * death does not stop. The host's architecture only (arch_host: its system call instruction,
 * registers and numbers). */
#include "target/target_internal.h"
#include "util/diag.h"
#include "util/procfs.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef CLONE_FILES
#define CLONE_FILES 0x00000400
#endif
#ifndef __WALL
#define __WALL 0x40000000
#endif

#define SCAN_CHUNK 65536
#define STEP_MAX 64 /* stops an injected system call may take (events, signals) before we give up */

/* The address of a system call instruction (the arch's: x86-64 `syscall`, 0f 05) in the target's
 * executable code: libc's first, then the vdso, then any. 0 when none was found. Read while the
 * process runs. */
uint64_t target_find_syscall(target_t *t)
{
    static uint8_t buf[SCAN_CHUNK];
    const arch_syscall_t *sc = &t->arch->syscall;
    size_t len = sc->insn_len, align = sc->insn_align;
    for (int pass = 0; pass < 3; pass++)
        for (size_t i = 0; i < t->nmaps; i++) {
            const target_mapping_t *m = &t->maps[i];
            if (!(m->prot & 4) || !(m->prot & 1) || m->start >= 0x800000000000ull) continue;
            const char *p = m->path ? m->path : "";
            int want = pass == 0 ? strstr(p, "/libc.so") || strstr(p, "/libc-") : pass == 1 ? !strcmp(p, "[vdso]") : 1;
            if (!want) continue;
            /* chunks overlap by len - 1 bytes (by align, len a multiple of it): none is missed */
            for (uint64_t a = m->start; a < m->end && a - m->start < (16u << 20); a += SCAN_CHUNK - (len - align)) {
                size_t n = m->end - a < SCAN_CHUNK ? (size_t)(m->end - a) : SCAN_CHUNK;
                struct iovec l = {buf, n}, r = {(void *)(uintptr_t)a, n};
                ssize_t got = process_vm_readv(t->pid, &l, 1, &r, 1, 0);
                if (got < (ssize_t)len) break;
                for (size_t k = 0; k + len <= (size_t)got; k += align)
                    if (!memcmp(buf + k, sc->insn, len)) return a + (uint64_t)k;
            }
        }
    return 0;
}

/* Runs one system call in the stopped thread tid (its registers saved in saved[], the host's arch
 * order): nr(args) at the system call instruction at insn, in the registers the arch says. *ret receives its result; *event_pid the pid a clone event
 * reports (may be NULL); *pending a signal that arrived meanwhile (to hand back at the detach).
 * The registers are restored whatever happens while the thread lives. 0, or -1 (errno). */
static int trace_opts; /* the options the thread had before the clone: a watch's (trigger.c), or none */
static int inject(int tid, const uint64_t saved[ARCH_MAX_REGS], uint64_t insn, long nr, const uint64_t args[5],
                  long *ret, int *event_pid, int *pending)
{
    const arch_t *a = arch_host();
    const arch_syscall_t *sc = &a->syscall;
    uint64_t r[ARCH_MAX_REGS];
    memcpy(r, saved, sizeof r);
    r[a->pc] = insn;
    r[sc->nr] = (uint64_t)nr;
    if (sc->no_restart >= 0) r[sc->no_restart] = (uint64_t)-1; /* no restart of the system call the thread was in */
    for (int i = 0; i < 5; i++) r[sc->args[i]] = args[i];
    if (target_ptrace_regs(tid, r, 1) != 0) return -1;
    int rc = -1, e = EIO;
    for (int step = 0; step < STEP_MAX; step++) {
        int st;
        if (ptrace(PTRACE_SINGLESTEP, tid, 0, 0) != 0 || waitpid(tid, &st, __WALL) != tid) {
            e = errno;
            break;
        }
        if (!WIFSTOPPED(st)) {
            e = ESRCH;
            return errno = e, -1;
        } /* the thread is gone */
        int ev = st >> 16, sig = WSTOPSIG(st);
        if (ev == PTRACE_EVENT_CLONE || ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK) {
            unsigned long msg = 0;
            ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg);
            if (event_pid) *event_pid = (int)msg;
            /* EXITKILL was for the child: the target must not die with us (a watch's options back) */
            ptrace(PTRACE_SETOPTIONS, tid, 0, trace_opts);
            continue;
        }
        if (ev) continue;
        if (sig != SIGTRAP) {
            if (pending && !*pending) *pending = sig;
            continue;
        }
        if (target_ptrace_regs(tid, r, 0) != 0) {
            e = errno;
            break;
        }
        if (r[a->pc] == insn + sc->insn_len) {
            *ret = (long)r[sc->ret];
            rc = 0;
            break;
        }
    }
    memcpy(r, saved, sizeof r);
    if (target_ptrace_regs(tid, r, 1) != 0 && rc == 0) return -1;
    if (rc != 0) errno = e;
    return rc;
}

int target_inject_syscall(int tid, const uint64_t saved[ARCH_MAX_REGS], uint64_t insn, long nr, const uint64_t args[5],
                          long *ret, int *pending)
{
    trace_opts = 0;
    return inject(tid, saved, insn, nr, args, ret, NULL, pending);
}

/* The ranges of the process marked MADV_DONTFORK ("dc" in smaps' VmFlags: V8's heap pages are),
 * adjacent ones merged, read before the stop; at most DC_MAX. A fork would leave them out. */
#define DC_MAX 65536
typedef struct {
    uint64_t start, end;
} range_t;
/* Appends [a, b) to *r (n ranges, room for *cap): 0, or -1 when memory runs out (*r kept). */
static int range_push(range_t **r, size_t *n, size_t *cap, uint64_t a, uint64_t b)
{
    if (*n == *cap) {
        size_t c = *cap ? 2 * *cap : 64;
        range_t *g = realloc(*r, c * sizeof *g);
        if (!g) return -1;
        *r = g, *cap = c;
    }
    (*r)[(*n)++] = (range_t){a, b};
    return 0;
}
static size_t dontfork_ranges(int pid, range_t **out)
{
    char path[64], line[4096];
    snprintf(path, sizeof path, "/proc/%d/smaps", pid);
    FILE *f = fopen(path, "r");
    *out = NULL;
    if (!f) return 0;
    size_t n = 0, cap = 0;
    range_t *r = NULL;
    unsigned long long s = 0, e = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long a, b;
        if (sscanf(line, "%llx-%llx ", &a, &b) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            s = a, e = b;
            continue;
        }
        if (strncmp(line, "VmFlags:", 8) || !strstr(line, " dc") || e <= s) continue;
        if (n && r[n - 1].end == s) {
            r[n - 1].end = e;
            continue;
        }
        if (n == DC_MAX || range_push(&r, &n, &cap, s, e) != 0) break;
    }
    fclose(f);
    *out = r;
    return n;
}

/* The mappings there are now that lie in the "dc" ranges, as maximal runs with no other mapping
 * between them: one madvise a run (holes in it give ENOMEM, the mappings in it are done). Read
 * while every thread is stopped, /proc/PID/maps is exact (smaps, which alone shows VmFlags, takes
 * ~90 ms for a 1 GB process: read before the stop, it may be stale by then): a mapping made since
 * in a hole between two V8 pages splits the run, so no mapping but V8's is marked MADV_DONTFORK
 * again. V8 keeps its heap in thousands of 256 KiB mappings (3,400 at 0.5 GB) but in a few runs
 * (4 there): a madvise each was 50-230 ms of the stop. The number of runs; -1 when maps is unreadable.
 * A V8 page unmapped since smaps was read and its addresses mapped again, exactly, by another
 * mapping is not seen (as it was not when each range was marked again by itself). */
static ssize_t dontfork_runs(int pid, const range_t *dc, size_t ndc, range_t **out)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", pid);
    *out = NULL;
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t n = 0, cap = 0, j = 0;
    range_t *r = NULL;
    int open_run = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        int whole = len && line[len - 1] == '\n';
        char *e;
        uint64_t a = strtoull(line, &e, 16), b = *e == '-' ? strtoull(e + 1, NULL, 16) : 0;
        /* the rest of a long line (a path) */
        while (!whole && fgets(line, sizeof line, f)) {
            len = strlen(line);
            whole = len && line[len - 1] == '\n';
        }
        if (b <= a) continue;
        while (j < ndc && dc[j].end <= a) j++;
        if (!(j < ndc && dc[j].start <= a && b <= dc[j].end)) {
            open_run = 0;
            continue;
        }
        if (open_run) {
            r[n - 1].end = b;
            continue;
        }
        if (range_push(&r, &n, &cap, a, b) != 0) break;
        open_run = 1;
    }
    fclose(f);
    *out = r;
    return (ssize_t)n;
}

/* A warning when less memory is available than the process has of anonymous resident memory (what
 * copy-on-write may duplicate). */
static void memory_check(target_t *t)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", t->pid);
    long long avail = proc_field("/proc/meminfo", "MemAvailable:"), anon = proc_field(path, "RssAnon:");
    if (avail > 0 && anon > avail)
        diag_warn(t->name, 0,
                  "%llu MB available, less than the process's %llu MB of writable memory: its "
                  "copy-on-write snapshot may need up to that much while nodescope reads it (as much as the "
                  "process writes meanwhile); --stop takes no memory but keeps the process stopped for the "
                  "whole command instead",
                  (unsigned long long)avail >> 10, (unsigned long long)anon >> 10);
}

static size_t stale_copies(int pid, int *out, size_t max);

int target_freeze_here(target_t *t, double *stopped_ms)
{
    if (!t->pid) return 0;
    if (t->frozen_pid) return 0;
    uint64_t insn = target_find_syscall(t);
    if (!insn) {
        diag_error(t->name, 0, "no syscall instruction found in its code: cannot fork a snapshot");
        errno = ENOEXEC;
        return -1;
    }
    memory_check(t);
    range_t *dc;
    size_t ndc = dontfork_ranges(t->pid, &dc);
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &old);
    double t0 = target_now_ms();
    /* traced by a watch (trigger.c): the caller stopped every thread and read its registers */
    if (!t->traced && target_stop(t) != 0) {
        sigprocmask(SIG_SETMASK, &old, NULL);
        free(dc);
        return -1;
    }
    trace_opts = t->traced ? t->trace_opts : 0;
    t->traced_pending = 0;
    int rc = -1, child = 0, pending = 0, e = 0;
    long ret = -1;
    range_t *runs = NULL;
    ssize_t nruns = -1;
    uint64_t saved[ARCH_MAX_REGS] = {0};
    if (t->nthreads == 0 || t->threads[0].tid != t->pid || !t->held[0]) e = ESRCH;
    else if (target_ptrace_regs(t->pid, saved, 0) != 0) e = errno;
    else {
        /* V8 marks its heap pages MADV_DONTFORK: cleared for the fork (one call over their span:
           holes give ENOMEM, the mappings in it are done), set again on each range after it */
        long r;
        if (t->traced) {
            /* the zombies of the watch's earlier copies, while the main thread is stopped anyway */
            int stale[64];
            size_t nstale = stale_copies(t->pid, stale, sizeof stale / sizeof *stale);
            for (size_t i = 0; i < nstale; i++) {
                const uint64_t a[5] = {(uint64_t)stale[i], 0, __WALL | WNOHANG, 0, 0};
                inject(t->pid, saved, insn, SYS_wait4, a, &r, NULL, &pending);
            }
        }
        if (ndc) nruns = dontfork_runs(t->pid, dc, ndc, &runs);
        /* each range by itself when maps could not be read */
        const range_t *marks = nruns >= 0 ? runs : dc;
        size_t nmarks = nruns >= 0 ? (size_t)nruns : ndc;
        if (ndc) {
            /* the span: from the lowest mapping to the stack (pages V8 marked since smaps was read are
               in it; [vvar] above, VM_IO, would fail the call) */
            uint64_t lo = dc[0].start, hi = dc[ndc - 1].end;
            for (size_t i = 0; i < t->nmaps; i++) {
                const target_mapping_t *m = &t->maps[i];
                if (m->path &&
                    (!strcmp(m->path, "[stack]") || !strncmp(m->path, "[vvar", 5) || !strcmp(m->path, "[vdso]")))
                    break;
                if (m->start < lo) lo = m->start;
                if (m->end > hi) hi = m->end;
            }
            const uint64_t a[5] = {lo, hi - lo, MADV_DOFORK, 0, 0};
            if (inject(t->pid, saved, insn, SYS_madvise, a, &r, NULL, &pending) == 0 && r == -EINVAL)
                for (size_t i = 0; i < nmarks; i++) {
                    const range_t *g = &marks[i];
                    const uint64_t b[5] = {g->start, g->end - g->start, MADV_DOFORK, 0, 0};
                    inject(t->pid, saved, insn, SYS_madvise, b, &r, NULL, &pending);
                }
        }
        /* EXITKILL for the copy to inherit, set on the target only around the clone */
        const uint64_t args[5] = {CLONE_FILES, 0, 0, 0, 0}; /* exit signal 0 */
        double f0 = target_now_ms();
        if (ptrace(PTRACE_SETOPTIONS, t->pid, 0,
                   PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | PTRACE_O_TRACEVFORK | PTRACE_O_EXITKILL) != 0)
            e = errno;
        else if (inject(t->pid, saved, insn, SYS_clone, args, &ret, &child, &pending) != 0) e = errno;
        t->fork_ms = target_now_ms() - f0;
        ptrace(PTRACE_SETOPTIONS, t->pid, 0, trace_opts);
        /* V8's again, one call a run */
        for (size_t i = 0; i < nmarks; i++) {
            const range_t *g = &marks[i];
            const uint64_t b[5] = {g->start, g->end - g->start, MADV_DONTFORK, 0, 0};
            inject(t->pid, saved, insn, SYS_madvise, b, &r, NULL, &pending);
        }
        if (!e && ret <= 0) e = ret < 0 ? (int)-ret : EIO;
        /* child: the copy's pid here (the clone event's); ret: in the target's pid namespace (a
           container's), for the wait4 the target makes */
        if (!e && child <= 0) e = ECHILD;
        t->frozen_ns_pid = (int)ret;
        if (child > 0) {
            int st;
            /* its first stop: traced from birth, it has not run */
            if (waitpid(child, &st, __WALL) == child && WIFSTOPPED(st)) rc = e ? -1 : 0;
            else e = ECHILD;
        }
        /* the main thread goes first, with a signal that came in meanwhile (a watch delivers it) */
        if (t->traced) t->traced_pending = pending;
        else if (pending && ptrace(PTRACE_DETACH, t->pid, 0, (void *)(uintptr_t)pending) == 0) t->held[0] = 0;
    }
    if (!t->traced) target_resume(t);
    double t1 = target_now_ms();
    free(runs);
    free(dc);
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (stopped_ms) *stopped_ms = t1 - t0;
    if (child > 0) t->frozen_pid = child; /* even when it failed: thaw kills and reaps it */
    if (rc != 0) {
        target_thaw(t);
        diag_error(t->name, 0, "cannot fork a snapshot of the process: %s", strerror(e ? e : EIO));
        errno = e ? e : EIO;
        return -1;
    }
    t->ops = &target_frozen_ops;
    t->syscall_insn = insn;
    target_live_frozen_maps(t);
    return 0;
}

/* The target's children that are zombies with exit signal 0: copies of earlier snapshots whose
 * nodescope was killed (libuv's children, and fork's, have SIGCHLD). At most max. */
static size_t stale_copies(int pid, int *out, size_t max)
{
    int kids[256];
    size_t nkids = proc_children(pid, kids, sizeof kids / sizeof *kids), n = 0;
    for (size_t i = 0; i < nkids && n < max; i++)
        if (proc_zombie_exit_signal(kids[i]) == 0)
            out[n++] = proc_ns_pid(kids[i]); /* the target waits by its own pids */
    return n;
}

static void reap(target_t *t, int ns_child);

/* Kills the copy, waits for it as its tracer, and reaps the zombie it leaves to its parent (the
 * target) by a wait4 in the target's main thread; with it, the zombies of copies whose nodescope
 * was killed (stale_copies). Pids given to the target are its own (a container's pid namespace). */
void target_thaw_here(target_t *t)
{
    int child = t->frozen_pid, ns_child = t->frozen_ns_pid > 0 ? t->frozen_ns_pid : child;
    if (child <= 0) return;
    t->frozen_pid = 0;
    t->frozen_ns_pid = 0;
    /* kill() needs CAP_KILL for another user's copy (nodescope given only cap_sys_ptrace, as the
       make install-caps does: the copy stayed stopped and the wait below never returned); its tracer
       may always kill it (PTRACE_KILL sends SIGKILL since Linux 5.19; before, it is delivered
       from the copy's signal-delivery-stop) */
    if (kill(child, SIGKILL) != 0) ptrace(PTRACE_KILL, child, 0, 0);
    for (int i = 0; i < 1000; i++) {
        int st;
        pid_t w = waitpid(child, &st, __WALL);
        if (w == child && (WIFEXITED(st) || WIFSIGNALED(st))) break;
        if (w < 0 && errno != EINTR) break;
    }
    if (t->traced) return; /* a watch's: reaped at its next freeze, or by target_reap_copies */
    reap(t, ns_child);
}

void target_reap_copies(target_t *t)
{
    if (t->pid && !t->traced) reap(t, 0);
}

/* Makes the target's main thread reap ns_child (0: none) and the zombies of earlier copies. */
static void reap(target_t *t, int ns_child)
{
    uint64_t insn = t->syscall_insn ? t->syscall_insn : target_find_syscall(t);
    if (!insn) return;
    /* the zombie, for its parent: the main thread alone is stopped */
    int st, pending = 0;
    if (ptrace(PTRACE_SEIZE, t->pid, 0, 0) != 0) return; /* the target is gone: init reaps it */
    uint64_t saved[ARCH_MAX_REGS] = {0};
    long ret = -1;
    if (ptrace(PTRACE_INTERRUPT, t->pid, 0, 0) == 0 && waitpid(t->pid, &st, __WALL) == t->pid && WIFSTOPPED(st) &&
        target_ptrace_regs(t->pid, saved, 0) == 0) {
        const uint64_t args[5] = {(uint64_t)ns_child, 0, __WALL | WNOHANG, 0, 0};
        if (ns_child && (inject(t->pid, saved, insn, SYS_wait4, args, &ret, NULL, &pending) != 0 || ret != ns_child))
            diag_warn(t->name, 0, "its snapshot copy (pid %d) could not be reaped: a zombie until it exits", ns_child);
        int stale[64];
        size_t nstale = stale_copies(t->pid, stale, sizeof stale / sizeof *stale);
        for (size_t i = 0; i < nstale; i++) {
            const uint64_t a[5] = {(uint64_t)stale[i], 0, __WALL | WNOHANG, 0, 0};
            inject(t->pid, saved, insn, SYS_wait4, a, &ret, NULL, &pending);
        }
    }
    ptrace(PTRACE_DETACH, t->pid, 0, (void *)(uintptr_t)pending);
}

double target_fork_ms(const target_t *t) { return t->fork_ms; }
