/* A watch on a live process (trigger.h). Why this design:
 *   - A breakpoint byte (int3) written into the process's code by nodescope would outlive a
 *     nodescope killed with SIGKILL: the kernel detaches the threads, the next one to reach it
 *     dies of SIGTRAP. A uprobe is the kernel's breakpoint instead, owned by a perf_event file of
 *     nodescope's: at nodescope's exit the files are closed (exit_files) before the tracees are
 *     let go (exit_notify), so the int3 is gone from the process before it runs untraced.
 *   - A uprobe alone does not stop the thread. perf_event's sigtrap (Linux 5.13) makes the event
 *     send a SIGTRAP (si_code TRAP_PERF, si_perf_data the probe's id) to the thread that hit it,
 *     synchronously, before it returns to the probed function (after the kernel ran the probed
 *     instruction out of line: the thread stops one instruction in, its arguments in their
 *     registers). The thread is traced, so the signal becomes a signal-delivery-stop: the watch
 *     takes the snapshot and drops the signal. Events are opened per thread, and for each thread
 *     the process starts at its first stop (not inherited: a uprobe event's inheritance reads its
 *     path from the user memory of the thread calling clone, the target's, and fails the clone
 *     with EFAULT: pthread_create failed in node's Worker), and removed at execve (remove_on_exec).
 *   - Every thread is traced (PTRACE_SEIZE, TRACECLONE: threads started later too), without
 *     EXITKILL: the process must survive nodescope. Until an event, tracing costs the process a
 *     stop per signal it receives (given back at once), nothing else. Forks are not traced.
 * The one window left: a nodescope killed while a SIGTRAP of a probe is queued but not yet taken
 * (the few ms of a snapshot): the thread then gets it untraced and dies. */
#include "target/trigger.h"
#include "target/target_internal.h"
#include "util/diag.h"
#include "util/procfs.h"
#include "util/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef TRAP_PERF
#define TRAP_PERF 6
#endif
#define OPTS (PTRACE_O_TRACECLONE | PTRACE_O_TRACEEXEC)
#define MAX_PROBES 16

/* siginfo's si_perf_data (glibc < 2.35 lacks the name): after si_addr in _sigfault */
static uint64_t perf_data(const siginfo_t *si)
{
    uint64_t d;
    memcpy(&d, (const char *)si + 24, sizeof d);
    return d;
}

enum { RUN, STOPPING, STOPPED };
typedef struct {
    int tid, state;
    int sig; /* the signal to deliver when it goes on */
    int has_info;
    siginfo_t info;      /* and its siginfo, put back before (ptrace changes it to SI_USER otherwise) */
    int listen;          /* in a group-stop: PTRACE_LISTEN, not CONT */
    int fds[MAX_PROBES]; /* its probes' perf_event files */
    int nfds;
} wthread_t;

struct target_watch {
    int pid;
    uint64_t sigmask;
    wthread_t *th;
    size_t n, cap;
    struct {
        uint64_t off;
        int id;
        char path[4200]; /* /proc/PID/exe, or /proc/PID/root + a library's path (target_probe_location) */
    } probes[MAX_PROBES];
    int nprobes;
    int probe_type;
    int ev_tid; /* the stopped event's thread, or 0 */
    int gone, status;
    struct {
        int pid, status;
    } exits[32]; /* children of nodescope's own that ended (writers) */
    int nexits;
    sigset_t old_mask;
};

static wthread_t *find(target_watch_t *w, int tid)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->th[i].tid == tid) return &w->th[i];
    return NULL;
}

static wthread_t *add(target_watch_t *w, int tid, int state)
{
    wthread_t *t = find(w, tid);
    if (t) return t;
    xgrow((void **)&w->th, &w->cap, w->n + 1, sizeof *w->th);
    t = &w->th[w->n++];
    memset(t, 0, sizeof *t);
    t->tid = tid;
    t->state = state;
    return t;
}

static void drop(target_watch_t *w, int tid)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->th[i].tid == tid) {
            for (int k = 0; k < w->th[i].nfds; k++) close(w->th[i].fds[k]);
            w->th[i] = w->th[--w->n];
            return;
        }
}

/* Opens probe k for thread t (a tid that exists: stopped, or just started). 0, or -1 (errno). */
static int open_probe(target_watch_t *w, wthread_t *t, int k)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = (uint32_t)w->probe_type;
    a.config1 = (uint64_t)(uintptr_t)w->probes[k].path; /* the process's own file, whatever its path here */
    a.config2 = w->probes[k].off;
    a.sample_period = 1;
    a.exclude_kernel = 1;
    a.remove_on_exec = 1;
    a.sigtrap = 1;
    a.sig_data = (uint64_t)w->probes[k].id;
    int fd = (int)syscall(SYS_perf_event_open, &a, t->tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) return -1;
    t->fds[t->nfds++] = fd;
    return 0;
}

/* A thread the process started: every probe for it too (a failure is said once: that thread
   would not stop at the event) */
static void probe_new(target_watch_t *w, wthread_t *t)
{
    static int warned;
    for (int k = t->nfds; k < w->nprobes; k++)
        if (open_probe(w, t, k) != 0 && errno != ESRCH && !warned++)
            diag_warn(NULL, 0, "pid %d: no probe for its new thread %d: %s (an event in it is missed)", w->pid, t->tid,
                      strerror(errno));
}

/* Is tid a thread of pid (and not, say, a snapshot copy or a fork)? */
static int thread_of(int pid, int tid)
{
    char path[64], line[128];
    snprintf(path, sizeof path, "/proc/%d/status", tid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int tgid = 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "Tgid:", 5)) {
            tgid = atoi(line + 5);
            break;
        }
    fclose(f);
    return tgid == pid;
}

static void go(target_watch_t *w, wthread_t *t)
{
    (void)w;
    if (t->has_info && t->sig) ptrace(PTRACE_SETSIGINFO, t->tid, 0, &t->info);
    if (t->listen) ptrace(PTRACE_LISTEN, t->tid, 0, 0);
    else ptrace(PTRACE_CONT, t->tid, 0, (void *)(uintptr_t)t->sig);
    t->sig = 0, t->has_info = 0, t->listen = 0;
    t->state = RUN;
}

static int read_type(void) { return proc_read_int("/sys/bus/event_source/devices/uprobe/type"); }

target_watch_t *target_watch_open(int pid, uint64_t sigmask)
{
    target_watch_t *w = xcalloc(1, sizeof *w);
    w->pid = pid;
    w->sigmask = sigmask;
    w->probe_type = -1;
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigaddset(&block, SIGCHLD);
    sigprocmask(SIG_BLOCK, &block, &w->old_mask);
    /* threads started while we attach are caught by TRACECLONE from their parent, or by a second pass */
    for (int pass = 0; pass < 3; pass++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/task", pid);
        DIR *d = opendir(path);
        if (!d) {
            if (pass == 0) {
                diag_error(NULL, 0, "pid %d: no such process", pid);
                sigprocmask(SIG_SETMASK, &w->old_mask, NULL);
                free(w);
                return NULL;
            }
            break;
        }
        struct dirent *de;
        size_t before = w->n;
        while ((de = readdir(d)) != NULL) {
            int tid = atoi(de->d_name);
            if (tid <= 0 || find(w, tid)) continue;
            if (ptrace(PTRACE_SEIZE, tid, 0, OPTS) != 0) {
                if (errno == ESRCH) continue;
                int e = errno;
                closedir(d);
                diag_error(NULL, 0, "pid %d: cannot trace thread %d: %s%s", pid, tid, strerror(e),
                           e == EPERM ? " (is another debugger or tracer attached?)" : "");
                target_watch_close(w, NULL);
                return NULL;
            }
            add(w, tid, RUN);
        }
        closedir(d);
        if (w->n == before) break;
    }
    return w;
}

int target_watch_probe(target_watch_t *w, uint64_t addr, int id)
{
    if (w->probe_type < 0 && (w->probe_type = read_type()) < 0) {
        diag_error(NULL, 0,
                   "this kernel has no uprobe perf events (/sys/bus/event_source/devices/uprobe): cannot watch for it");
        return -1;
    }
    /* the file offset of addr, in the executable or the library (libnode.so) that holds it */
    uint64_t off;
    char path[sizeof w->probes[0].path];
    if (target_probe_location(w->pid, addr, path, sizeof path, &off) != 0) {
        diag_error(NULL, 0, "pid %d: 0x%llx is not in the code of a file it maps", w->pid, (unsigned long long)addr);
        return -1;
    }
    if (w->nprobes == MAX_PROBES) {
        diag_error(NULL, 0, "too many probes");
        return -1;
    }
    w->probes[w->nprobes].off = off;
    w->probes[w->nprobes].id = id;
    snprintf(w->probes[w->nprobes].path, sizeof w->probes[0].path, "%s", path);
    int pk = w->nprobes++;
    for (size_t i = 0; i < w->n; i++) {
        if (open_probe(w, &w->th[i], pk) == 0 || errno == ESRCH) continue; /* ESRCH: the thread just exited */
        diag_error(NULL, 0, "pid %d: cannot place a probe at 0x%llx (thread %d): %s%s", w->pid,
                   (unsigned long long)addr, w->th[i].tid, strerror(errno),
                   errno == EINVAL ? " (a kernel before 5.13 has no perf_event sigtrap)" : "");
        return -1;
    }
    return 0;
}

int target_watch_take_copy(target_t *t)
{
    int c = t->frozen_pid;
    t->frozen_pid = 0;
    t->frozen_ns_pid = 0;
    return c;
}

void target_watch_end_copy(int copy)
{
    if (copy <= 0) return;
    kill(copy, SIGKILL);
    for (int i = 0; i < 1000; i++) {
        int st;
        pid_t r = waitpid(copy, &st, __WALL);
        if (r == copy && (WIFEXITED(st) || WIFSIGNALED(st))) break;
        if (r < 0 && errno != EINTR) break;
    }
}

int target_watch_wait_child(target_watch_t *w, int pid, int *status)
{
    for (int i = 0; w && i < w->nexits; i++)
        if (w->exits[i].pid == pid) {
            *status = w->exits[i].status;
            memmove(&w->exits[i], &w->exits[i + 1], (size_t)(--w->nexits - i) * sizeof *w->exits);
            return 0;
        }
    for (;;) {
        pid_t r = waitpid(pid, status, 0);
        if (r == pid) return 0;
        if (r < 0 && errno != EINTR) return -1;
    }
}

void target_watch_forget(target_watch_t *w)
{
    for (size_t i = 0; w && i < w->n; i++)
        for (int k = 0; k < w->th[i].nfds; k++) close(w->th[i].fds[k]);
}

void target_watch_unprobe(target_watch_t *w)
{
    for (size_t i = 0; i < w->n; i++) {
        for (int k = 0; k < w->th[i].nfds; k++) close(w->th[i].fds[k]);
        w->th[i].nfds = 0;
    }
    w->nprobes = 0;
}

/* One wait status of tid. Returns 1 with *ev filled when it is an event (the thread stays
 * stopped), 0 when handled. When stopping (target_watch_freeze), stops are kept, not resumed. */
static int handle(target_watch_t *w, int tid, int st, int stopping, target_watch_event_t *ev)
{
    wthread_t *t = find(w, tid);
    if (WIFEXITED(st) || WIFSIGNALED(st)) {
        if (!t && tid != w->pid) { /* a child of nodescope's own (a core's writer): kept for later */
            if (w->nexits < (int)(sizeof w->exits / sizeof *w->exits))
                w->exits[w->nexits].pid = tid, w->exits[w->nexits++].status = st;
            return 0;
        }
        drop(w, tid);
        if (tid == w->pid) {
            w->gone = 1, w->status = st;
            ev->kind = WATCH_EXITED, ev->status = st, ev->tid = tid;
            return 1;
        }
        return 0;
    }
    if (!WIFSTOPPED(st)) return 0;
    if (!t) {
        /* a thread's first stop before its parent's clone event, or not ours (a copy: leave it) */
        if (!thread_of(w->pid, tid)) return 0;
        t = add(w, tid, RUN);
        probe_new(w, t);
    }
    int e = st >> 16, sig = WSTOPSIG(st);
    if (e == PTRACE_EVENT_CLONE) {
        unsigned long msg = 0;
        ptrace(PTRACE_GETEVENTMSG, tid, 0, &msg);
        if (msg && thread_of(w->pid, (int)msg)) {
            wthread_t *c = find(w, (int)msg);
            if (!c) probe_new(w, add(w, (int)msg, stopping ? STOPPING : RUN));
        }
        t = find(w, tid); /* add may have moved it */
    } else if (e == PTRACE_EVENT_EXEC) {
        t->state = STOPPED;
        ev->kind = WATCH_EXEC, ev->tid = tid;
        return 1;
    } else if (e == PTRACE_EVENT_STOP) {
        if (sig == SIGSTOP || sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) t->listen = 1; /* a group-stop */
        else if (t->state == RUN && !stopping) {
            /* a new thread's first stop, or an interrupt whose stop came after a signal's */
            ptrace(PTRACE_CONT, tid, 0, 0);
            return 0;
        }
    } else if (e == 0) {
        siginfo_t si;
        int has = ptrace(PTRACE_GETSIGINFO, tid, 0, &si) == 0;
        if (sig == SIGTRAP && has && si.si_code == TRAP_PERF) {
            if (stopping) {
                t->state = STOPPED;
                t->sig = 0;
                return 0;
            } /* dropped: taken with this snapshot */
            t->state = STOPPED, t->sig = 0;
            w->ev_tid = tid;
            ev->kind = WATCH_PROBE, ev->tid = tid, ev->probe = (int)perf_data(&si);
            return 1;
        }
        t->sig = sig, t->has_info = has;
        if (has) t->info = si;
        if (sig > 0 && sig < 64 && (w->sigmask >> sig & 1) && !stopping) {
            t->state = STOPPED;
            w->ev_tid = tid;
            ev->kind = WATCH_SIGNAL, ev->tid = tid, ev->sig = sig;
            return 1;
        }
    }
    if (stopping && t->state != RUN) {
        t->state = STOPPED;
        return 0;
    }
    if (stopping) {
        /* a stop of a thread we are not stopping (it stopped on its own: a signal) */
        t->state = STOPPED;
        return 0;
    }
    go(w, t);
    return 0;
}

int target_watch_next(target_watch_t *w, int timeout_ms, target_watch_event_t *ev)
{
    memset(ev, 0, sizeof *ev);
    if (w->gone) {
        ev->kind = WATCH_EXITED, ev->status = w->status;
        return 0;
    }
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigaddset(&set, SIGCHLD);
    for (;;) {
        int st;
        pid_t tid;
        if (w->nexits) {
            ev->kind = WATCH_CHILD, ev->tid = w->exits[0].pid, ev->status = w->exits[0].status;
            memmove(&w->exits[0], &w->exits[1], (size_t)--w->nexits * sizeof *w->exits);
            return 0;
        }
        while ((tid = waitpid(-1, &st, __WALL | WNOHANG)) > 0) {
            if (handle(w, tid, st, 0, ev)) return 0;
            if (w->nexits) break;
        }
        if (w->nexits) continue;
        if (tid < 0 && errno == ECHILD) {
            ev->kind = WATCH_EXITED, ev->status = -1;
            w->gone = 1;
            return 0;
        }
        struct timespec now, ts;
        clock_gettime(CLOCK_MONOTONIC, &now);
        long left = 1000; /* SIGCHLD may have come before the loop above: look again within a second */
        if (timeout_ms >= 0) {
            long el = (now.tv_sec - start.tv_sec) * 1000 + (now.tv_nsec - start.tv_nsec) / 1000000;
            if (el >= timeout_ms) {
                ev->kind = WATCH_NONE;
                return 0;
            }
            if (timeout_ms - el < left) left = timeout_ms - el;
        }
        ts.tv_sec = left / 1000, ts.tv_nsec = (left % 1000) * 1000000;
        siginfo_t si;
        int s = sigtimedwait(&set, &si, &ts);
        if (s == SIGINT || s == SIGTERM || s == SIGHUP) {
            ev->kind = WATCH_INTERRUPTED, ev->sig = s;
            return 0;
        }
    }
}

/* Interrupts every running thread and waits until each is stopped (or gone). */
static void stop_all(target_watch_t *w)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->th[i].state == RUN) {
            if (ptrace(PTRACE_INTERRUPT, w->th[i].tid, 0, 0) == 0) w->th[i].state = STOPPING;
        }
    for (int guard = 0; guard < 100000; guard++) {
        int waiting = 0;
        for (size_t i = 0; i < w->n; i++) waiting |= w->th[i].state == STOPPING;
        if (!waiting) return;
        int st;
        pid_t tid = waitpid(-1, &st, __WALL);
        if (tid < 0) {
            if (errno == EINTR) continue;
            return;
        }
        target_watch_event_t ev;
        handle(w, tid, st, 1, &ev);
    }
}

static void go_all(target_watch_t *w)
{
    for (size_t i = 0; i < w->n; i++)
        if (w->th[i].state == STOPPED) go(w, &w->th[i]);
    w->ev_tid = 0;
}

void target_watch_resume(target_watch_t *w)
{
    wthread_t *t = w->ev_tid ? find(w, w->ev_tid) : NULL;
    if (t && t->state == STOPPED) go(w, t);
    w->ev_tid = 0;
}

int target_watch_freeze(target_watch_t *w, target_t *t, double *stopped_ms)
{
    double t0 = target_now_ms();
    stop_all(w);
    /* t's threads: every held one, main thread first, with its registers now */
    for (size_t i = 0; i < t->nthreads; i++) free((char *)t->threads[i].name);
    free(t->threads);
    free(t->held);
    t->threads = xcalloc(w->n ? w->n : 1, sizeof *t->threads);
    t->held = xcalloc(w->n ? w->n : 1, 1);
    t->nthreads = 0;
    for (int main_pass = 1; main_pass >= 0; main_pass--)
        for (size_t i = 0; i < w->n; i++) {
            const wthread_t *h = &w->th[i];
            if ((h->tid == w->pid) != main_pass || h->state != STOPPED) continue;
            target_thread_t *th = &t->threads[t->nthreads];
            if (target_ptrace_regs(h->tid, th->regs, 0) != 0) continue;
            th->tid = h->tid;
            target_thread_set_regs(t, th);
            char path[64], name[64];
            snprintf(path, sizeof path, "/proc/%d/task/%d/comm", w->pid, h->tid);
            FILE *f = fopen(path, "r");
            if (f) {
                if (fgets(name, sizeof name, f)) {
                    name[strcspn(name, "\n")] = 0;
                    th->name = xstrdup(name);
                }
                fclose(f);
            }
            t->held[t->nthreads++] = 1;
        }
    t->traced = 1;
    t->trace_opts = OPTS;
    int rc = target_freeze(t, NULL);
    if (t->traced_pending) {
        wthread_t *m = find(w, w->pid);
        if (m && !m->sig) m->sig = t->traced_pending, m->has_info = 0;
    }
    for (size_t i = 0; i < t->nthreads; i++) t->held[i] = 0;
    go_all(w);
    if (stopped_ms) *stopped_ms = target_now_ms() - t0;
    return rc;
}

void target_watch_thaw(target_watch_t *w, target_t *t)
{
    if (!w) t->traced = 0; /* the watch is over (or never was): the zombie is reaped now */
    target_thaw(t);
}

/* Has thread tid a SIGTRAP pending for itself (/proc's SigPnd)? */
static int sigtrap_pending(int tid)
{
    char path[64], line[128];
    snprintf(path, sizeof path, "/proc/%d/status", tid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    unsigned long long mask = 0;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "SigPnd:", 7)) {
            mask = strtoull(line + 7, NULL, 16);
            break;
        }
    fclose(f);
    return (int)(mask >> (SIGTRAP - 1) & 1);
}

void target_watch_close(target_watch_t *w, target_t *t)
{
    if (!w) return;
    target_watch_unprobe(w);
    if (!w->gone) {
        stop_all(w);
        for (size_t i = 0; i < w->n; i++) {
            wthread_t *h = &w->th[i];
            if (h->state != STOPPED) continue;
            /* a probe's SIGTRAP queued before the probes closed, behind the interrupt's stop: taken
               now (given to the thread untraced, it would kill the process) */
            for (int k = 0; k < 8 && !h->sig && sigtrap_pending(h->tid); k++) {
                int st;
                if (ptrace(PTRACE_CONT, h->tid, 0, 0) != 0 || waitpid(h->tid, &st, __WALL) != h->tid || !WIFSTOPPED(st))
                    break;
                siginfo_t si;
                if ((st >> 16) == 0 && WSTOPSIG(st) != SIGTRAP) {
                    h->sig = WSTOPSIG(st);
                    if ((h->has_info = ptrace(PTRACE_GETSIGINFO, h->tid, 0, &si) == 0)) h->info = si;
                }
            }
            if (h->has_info && h->sig) ptrace(PTRACE_SETSIGINFO, h->tid, 0, &h->info);
            ptrace(PTRACE_DETACH, h->tid, 0, (void *)(uintptr_t)h->sig);
        }
    }
    if (t) {
        target_thaw(t);
        t->traced = 0;
        t->trace_opts = 0;
        if (!w->gone) target_reap_copies(t);
    }
    free(w->th);
    sigprocmask(SIG_SETMASK, &w->old_mask, NULL);
    free(w);
}
