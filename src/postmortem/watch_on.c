/* watch -p PID --on EVENT [-o DIR] [--max N]: a core of a running process the moment EVENT
 * happens, the program started with no flag (issue 30); cli/watch_on.c parses the options. The
 * process is watched with target/trigger.h (its threads traced, kernel uprobes at node's
 * functions for the events that are calls); at the event the thread is stopped where it is, the whole process is stopped only
 * to fork its frozen copy (target_freeze), and the core is written from the copy
 * (target_write_core) while the process goes on. Events:
 *   uncaught    node::errors::TriggerUncaughtException(isolate, error, message, from_promise)
 *               entered: before node prints the error and exits (the error in rsi: `core FILE
 *               exception` prints it);
 *   exit        node::Environment::Exit (process.exit, a fatal exception) or node::EmitProcessExit
 *               (the loop ran dry) entered, on the main thread: the heap still whole;
 *   oom         v8::internal::V8::FatalProcessOutOfMemory / Heap::FatalProcessOutOfMemory entered:
 *               the heap at its limit, before node prints the OOM and aborts;
 *   signal:SIG  SIG being delivered to a thread (then given to it unchanged);
 *   heap:PCT    V8's heap (its pages, found by their headers as `core objects` finds them, read
 *               while the process runs: nothing attached until then) above PCT of its limit, every
 *               HEAP_POLL_MS; the limit is V8's heap_size_limit for the process's heap flags
 *               (--max-old-space-size... on its command line or in NODE_OPTIONS), asked of its
 *               own executable run with those flags alone. Re-armed when the heap falls below.
 * Invariants: nothing is attached until the event (heap:PCT: until the threshold); every exit
 * path leaves the process running and untraced; at most MAX_WRITERS cores are written at once.
 */
#include "postmortem/watch_on.h"
#include "target/core_file.h"
#include "target/target.h"
#include "target/trigger.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/privilege.h"
#include "v8/v8.h"
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SYMS 6
#define HEAP_POLL_MS 500

/* The node flags that set the heap's size, from a NUL-separated list (a command line) or a
   space-separated one (NODE_OPTIONS), appended to args (at most max, strdup'ed). */
static int heap_flags(const char *p, size_t len, int spaces, char **args, int n, int max)
{
    for (size_t i = 0; i < len && n < max;) {
        size_t j = i;
        while (j < len && p[j] && !(spaces && p[j] == ' ')) j++;
        if (!spaces && i > 0 && p[i] != '-') break; /* the script: node's own flags are over */
        const char *a = p + i;
        size_t k = j - i;
        if ((k > 22 && (!strncmp(a, "--max-old-space-size=", 21) || !strncmp(a, "--max_old_space_size=", 21))) ||
            (k > 23 && (!strncmp(a, "--max-semi-space-size=", 22) || !strncmp(a, "--max_semi_space_size=", 22))) ||
            (k > 16 && (!strncmp(a, "--max-heap-size=", 16) || !strncmp(a, "--max_heap_size=", 16))))
            args[n++] = strndup(a, k);
        i = j + 1;
    }
    return n;
}

static size_t slurp_fd(int fd, char *buf, size_t max)
{
    size_t n = 0;
    ssize_t k;
    while (n < max && (k = read(fd, buf + n, max - n)) > 0) n += (size_t)k;
    return n;
}

static size_t slurp(const char *path, char *buf, size_t max)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    size_t n = slurp_fd(fd, buf, max);
    close(fd);
    return n;
}

/* V8's heap_size_limit for pid's heap flags, in bytes: its executable run with them alone (no
   script, no NODE_OPTIONS) printing v8.getHeapStatistics().heap_size_limit. 0 when it cannot be. */
static uint64_t heap_limit(long pid, buf_t *flags_shown)
{
    static char buf[1 << 16];
    char path[64], *args[24];
    int n = 0;
    snprintf(path, sizeof path, "/proc/%ld/exe", pid);
    args[n++] = path;
    size_t len = slurp((snprintf(buf, sizeof buf, "/proc/%ld/cmdline", pid), buf), buf, sizeof buf - 1);
    n = heap_flags(buf, len, 0, args, n, 16);
    char envp[64];
    snprintf(envp, sizeof envp, "/proc/%ld/environ", pid);
    len = slurp(envp, buf, sizeof buf - 1);
    for (size_t i = 0; i < len;) {
        size_t l = strnlen(buf + i, len - i);
        if (l > 13 && !strncmp(buf + i, "NODE_OPTIONS=", 13)) n = heap_flags(buf + i + 13, l - 13, 1, args, n, 16);
        i += l + 1;
    }
    for (int i = 1; i < n; i++) buf_printf(flags_shown, "%s%s", i > 1 ? " " : "", args[i]);
    args[n++] = "-p";
    args[n++] = "String(require('v8').getHeapStatistics().heap_size_limit)";
    args[n] = NULL;
    int fd[2];
    uint64_t limit = 0;
    if (pipe(fd) == 0) {
        pid_t c = fork();
        if (c == 0) {
            dup2(fd[1], 1);
            close(fd[0]);
            int null = open("/dev/null", O_RDWR);
            if (null >= 0) {
                dup2(null, 0);
                dup2(null, 2);
            }
            unsetenv("NODE_OPTIONS");
            /* a node in a container (Debian's: /usr/bin/node needs its libnode.so.108) runs where its
               libraries are: in its mount namespace, when this process may enter it */
            int exe = open(path, O_RDONLY | O_CLOEXEC);
            char ns[64];
            snprintf(ns, sizeof ns, "/proc/%ld/ns/mnt", pid);
            int nsfd = exe >= 0 ? open(ns, O_RDONLY | O_CLOEXEC) : -1;
            if (nsfd >= 0 && setns(nsfd, CLONE_NEWNS) == 0 && chdir("/") == 0) fexecve(exe, args, environ);
            execv(path, args);
            _exit(127);
        }
        close(fd[1]);
        char out[64];
        size_t k = c > 0 ? slurp_fd(fd[0], out, sizeof out - 1) : 0;
        out[k] = 0;
        close(fd[0]);
        int st;
        if (c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0) limit = strtoull(out, NULL, 10);
    }
    for (int i = 1; args[i] && strcmp(args[i], "-p"); i++) free(args[i]);
    return limit;
}

/* The bytes of V8's heap pages in pid's writable anonymous memory (the main isolate's of each
   mapping; read-only space left out), read while it runs. */
static uint64_t heap_used(v8_t *v, target_t *t, long pid)
{
    char path[64], line[4096];
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    target_fresh_after(t, (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec);
    snprintf(path, sizeof path, "/proc/%ld/maps", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    uint64_t used = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long a, b;
        char perms[8];
        int pos = 0;
        if (sscanf(line, "%llx-%llx %7s %*s %*s %*s %n", &a, &b, perms, &pos) < 3 || perms[0] != 'r' || perms[1] != 'w')
            continue;
        if (line[pos] && line[pos] != '\n') continue; /* a file, [stack], [heap] (malloc) */
        if (b - a < (256u << 10)) continue;
        v8_heap_t *h = v8_heap_open_range(v, a, b);
        for (size_t i = 0; i < v8_heap_page_count(h); i++) {
            uint64_t s0, e0;
            if (!v8_heap_page_read_only(h, i) && v8_heap_page_range(h, i, &s0, &e0) == 0) used += e0 - s0;
        }
        v8_heap_close(h);
    }
    fclose(f);
    return used;
}
typedef struct {
    const char *name;
    const char *what;           /* for messages */
    int main_only;              /* the main thread's hits only (a worker's exit is not the process's) */
    int once;                   /* one per process (several of its functions are on one path) */
    const char *syms[MAX_SYMS]; /* mangled: the first of each that the executable has is probed */
} event_t;

static const event_t events[] = {
    {"uncaught",
     "uncaught exception",
     0,
     0,
     {"_ZN4node6errors24TriggerUncaughtExceptionEPN2v87IsolateENS1_5LocalINS1_5ValueEEENS4_INS1_7MessageEEEb"}},
    {"exit",
     "exit",
     1,
     1,
     {"_ZN4node11Environment4ExitENS_8ExitCodeE", "_ZN4node11Environment4ExitEi",
      "_ZN4node15EmitProcessExitEPNS_11EnvironmentE", "_ZN4node23EmitProcessExitInternalEPNS_11EnvironmentE"}},
    {"oom",
     "out of memory",
     0,
     1,
     {"_ZN2v88internal4Heap23FatalProcessOutOfMemoryEPKc",
      "_ZN2v88internal2V823FatalProcessOutOfMemoryEPNS0_7IsolateEPKcRKNS_10OOMDetailsE",
      "_ZN2v88internal2V823FatalProcessOutOfMemoryEPNS0_7IsolateEPKcS5_",
      "_ZN2v88internal2V823FatalProcessOutOfMemoryEPNS0_7IsolateEPKcb"}},
};

static const struct {
    const char *name;
    int sig;
} signals[] = {
    {"HUP", SIGHUP},   {"INT", SIGINT},       {"QUIT", SIGQUIT}, {"USR1", SIGUSR1},   {"USR2", SIGUSR2},
    {"PIPE", SIGPIPE}, {"ALRM", SIGALRM},     {"TERM", SIGTERM}, {"CHLD", SIGCHLD},   {"CONT", SIGCONT},
    {"TSTP", SIGTSTP}, {"TTIN", SIGTTIN},     {"TTOU", SIGTTOU}, {"URG", SIGURG},     {"XCPU", SIGXCPU},
    {"XFSZ", SIGXFSZ}, {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF}, {"WINCH", SIGWINCH}, {"IO", SIGIO},
    {"PWR", SIGPWR},   {"SYS", SIGSYS},       {"ABRT", SIGABRT}, {"SEGV", SIGSEGV},   {"BUS", SIGBUS},
    {"FPE", SIGFPE},   {"ILL", SIGILL},       {"TRAP", SIGTRAP},
};

/* "USR2", "SIGUSR2", "12", "RTMIN+1": its number, or 0 */
static int parse_signal(const char *s)
{
    if (!strncasecmp(s, "SIG", 3)) s += 3;
    char *end;
    long n = strtol(s, &end, 10);
    if (*s && !*end) return n > 0 && n < 64 ? (int)n : 0;
    for (size_t i = 0; i < sizeof signals / sizeof *signals; i++)
        if (!strcasecmp(s, signals[i].name)) return signals[i].sig;
    if (!strncasecmp(s, "RTMIN+", 6)) {
        n = strtol(s + 6, &end, 10);
        if (!*end && n >= 0 && SIGRTMIN + n <= SIGRTMAX) return SIGRTMIN + (int)n;
    }
    return 0;
}

static const char *signal_name(int sig)
{
    for (size_t i = 0; i < sizeof signals / sizeof *signals; i++)
        if (signals[i].sig == sig) return signals[i].name;
    return "?";
}

/* A core being written: by a child writer of nodescope's (0: here), from copy, to path. */
typedef struct {
    pid_t writer;
    int copy;
    char path[4096], what[256];
    double fork_ms;
} pending_t;
#define MAX_WRITERS 4

/* The core's writing ended with wait status st: the copy killed, the line printed. 0, or -1. */
static int finish_write(pending_t *p, int st, target_watch_t *w, target_t *t, long *written, int verbose)
{
    if (p->copy) target_watch_end_copy(p->copy);
    else target_watch_thaw(w, t);
    p->writer = 0;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        if (!WIFEXITED(st)) diag_error(p->path, 0, "the core's writer died (signal %d)", WTERMSIG(st));
        return -1;
    }
    (*written)++;
    fprintf(stderr, "nodescope: wrote %s: %s\n", p->path, p->what);
    if (verbose) fprintf(stderr, "nodescope: the fork took %.2f ms\n", p->fork_ms);
    return 0;
}

/* Waits for writer i and finishes it; the others move down. */
static int wait_write(pending_t *pend, int *n, int i, target_watch_t *w, target_t *t, long *written, int verbose)
{
    int st = 1 << 8;
    if (target_watch_wait_child(w, pend[i].writer, &st) != 0) st = 1 << 8;
    int rc = finish_write(&pend[i], st, w, t, written, verbose);
    memmove(&pend[i], &pend[i + 1], (size_t)(--*n - i) * sizeof *pend);
    return rc;
}

/* --on heap:PCT: polls the heap while the process runs; nothing attached until the threshold. */
static int watch_heap_pct(long pid, double pct, const char *dir, long max, int verbose)
{
    target_t *t = target_open_running((int)pid);
    if (!t) return EXIT_FAIL;
    v8_t *v = v8_open(t); /* says why not */
    if (!v) {
        target_close(t);
        return EXIT_FAIL;
    }
    buf_t flags = {0};
    uint64_t limit = heap_limit(pid, &flags);
    if (!limit) {
        diag_error(target_name(t), 0, "cannot learn its heap limit (running its executable with %s to ask V8 failed)",
                   flags.len ? flags.data : "no heap flags");
        buf_free(&flags);
        v8_close(v);
        target_close(t);
        return EXIT_FAIL;
    }
    uint64_t threshold = (uint64_t)((double)limit * pct / 100.0);
    fprintf(stderr,
            "nodescope: pid %ld: heap limit %llu MB (V8's, with %s); a core when its heap pages pass %g%%: %llu MB\n",
            pid, (unsigned long long)(limit >> 20),
            flags.len ? flags.data : "no heap flags: the default for this machine", pct,
            (unsigned long long)(threshold >> 20));
    buf_free(&flags);
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    sigprocmask(SIG_BLOCK, &set, &old);
    long written = 0;
    int rc = EXIT_OK, armed = 1;
    while (written < max) {
        struct timespec ts = {HEAP_POLL_MS / 1000, (HEAP_POLL_MS % 1000) * 1000000L};
        siginfo_t si;
        if (sigtimedwait(&set, &si, &ts) > 0) break;
        char proc[64];
        snprintf(proc, sizeof proc, "/proc/%ld/task", pid);
        if (access(proc, F_OK) != 0) {
            fprintf(stderr, "nodescope: pid %ld exited\n", pid);
            break;
        }
        uint64_t used = heap_used(v, t, pid);
        if (verbose)
            fprintf(stderr, "nodescope: heap %llu MB of %llu MB\n", (unsigned long long)(used >> 20),
                    (unsigned long long)(limit >> 20));
        if (used < threshold) {
            armed = 1;
            continue;
        }
        if (!armed) continue;
        armed = 0;
        double ms = 0;
        if (target_freeze(t, &ms) != 0) {
            rc = EXIT_FAIL;
            break;
        }
        char path[4096];
        snprintf(path, sizeof path, "%s/core.%ld.heap.%ld", dir, pid, written + 1);
        int ok = target_write_core_path(t, path) == 0;
        target_watch_thaw(NULL, t);
        if (!ok) {
            rc = EXIT_FAIL;
            break;
        }
        written++;
        fprintf(stderr, "nodescope: wrote %s: heap %llu MB, %.0f%% of its limit; stopped %.2f ms\n", path,
                (unsigned long long)(used >> 20), 100.0 * (double)used / (double)limit, ms);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    v8_close(v);
    target_close(t);
    if (rc == EXIT_OK && !written) {
        fprintf(stderr, "nodescope: the heap never passed %g%% of its limit: no core written\n", pct);
        rc = EXIT_FAIL;
    }
    return rc;
}

int pm_watch_cores_dir(const char *dir)
{
    struct stat sb;
    priv_user_begin(); /* the user's directory, made with the user's rights */
    int made = stat(dir, &sb) == 0 || errno != ENOENT || mkdir(dir, 0755) == 0 || errno == EEXIST;
    int err = errno;
    priv_user_end();
    if (!made) {
        diag_error(dir, 0, "cannot make the directory for the cores: %s", strerror(err));
        return -1;
    }
    if (priv_check_path("-o", dir, W_OK | X_OK) != 0) return -1;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        diag_error(dir, 0, "not a directory: the cores are written into it");
        return -1;
    }
    return 0;
}

int pm_watch_parse(const char *on, pm_watch_event_t *out, char *err, size_t errsz)
{
    memset(out, 0, sizeof *out);
    if (!strncmp(on, "signal:", 7)) {
        if (!(out->sig = parse_signal(on + 7))) return snprintf(err, errsz, "not a signal: '%s'", on + 7), -1;
        if (out->sig == SIGKILL || out->sig == SIGSTOP)
            return snprintf(err, errsz, "SIGKILL and SIGSTOP are never delivered to a program: they cannot be watched"),
                   -1;
        return 0;
    }
    for (size_t i = 0; i < sizeof events / sizeof *events; i++)
        if (!strcmp(on, events[i].name)) out->call = &events[i];
    if (out->call) return 0;
    if (!strncmp(on, "heap:", 5)) {
        char *end;
        double pct = strtod(on + 5, &end);
        if (end == on + 5 || (*end && strcmp(end, "%")) || !(pct > 0 && pct <= 100))
            return snprintf(err, errsz, "heap:PCT needs a percentage of the heap's limit, in (0, 100]: not '%s'",
                            on + 5),
                   -1;
        out->heap_pct = pct;
        return 0;
    }
    return snprintf(err, errsz, "unknown event '%s' (uncaught, exit, oom, signal:SIG or heap:PCT)", on), -1;
}

int pm_watch_run(long pid, const pm_watch_event_t *event, const char *on, const char *dir, long max, int verbose)
{
    if (event->heap_pct > 0) return watch_heap_pct(pid, event->heap_pct, dir, max, verbose);
    const event_t *ev = event->call;
    int watch_sig = event->sig;
    /* everything that reads symbols, before the process is touched */
    target_t *t = target_open_running((int)pid);
    if (!t) return EXIT_FAIL;
    uint64_t addrs[MAX_SYMS];
    int naddrs = 0;
    if (ev) {
        for (int i = 0; i < MAX_SYMS && ev->syms[i]; i++) {
            uint64_t a;
            if (target_exe_symbol_addr(t, ev->syms[i], &a, NULL) == 0 && a) addrs[naddrs++] = a;
        }
        if (!naddrs) {
            diag_error(target_name(t), 0,
                       "its executable (%s) has none of the functions --on %s needs: is it node (18 or later)?",
                       target_exe_path(t), ev->name);
            target_close(t);
            return EXIT_FAIL;
        }
    }
    target_watch_t *w = target_watch_open((int)pid, watch_sig ? (uint64_t)1 << watch_sig : 0);
    if (!w) {
        target_close(t);
        return EXIT_FAIL;
    }
    int rc = EXIT_OK;
    for (int i = 0; i < naddrs; i++)
        if (target_watch_probe(w, addrs[i], i + 1) != 0) {
            rc = EXIT_FAIL;
            break;
        }
    if (rc == EXIT_OK) diag_info("watching pid %ld for %s (%d probe%s)", pid, on, naddrs, naddrs == 1 ? "" : "s");
    /* A core that is not the last is written by a child of nodescope's, from its own copy, while
       the watch goes on serving the process's stops (at most MAX_WRITERS at a time); before the
       last core (written here, the process let go first) and at the end, every writer is waited for. */
    pending_t pend[MAX_WRITERS + 1];
    int npend = 0;
    long taken = 0, written = 0;
    int taken_once = 0;
    while (rc == EXIT_OK && taken < max) {
        target_watch_event_t e;
        target_watch_next(w, -1, &e);
        if (e.kind == WATCH_NONE) continue;
        if (e.kind == WATCH_CHILD) {
            for (int i = 0; i < npend; i++)
                if (pend[i].writer == e.tid) {
                    if (finish_write(&pend[i], e.status, w, t, &written, verbose) != 0) rc = EXIT_FAIL;
                    memmove(&pend[i], &pend[i + 1], (size_t)(--npend - i) * sizeof *pend);
                    break;
                }
            continue;
        }
        if (e.kind == WATCH_EXITED) {
            if (e.status < 0) fprintf(stderr, "nodescope: pid %ld is gone\n", pid);
            else if (WIFEXITED(e.status))
                fprintf(stderr, "nodescope: pid %ld exited with status %d\n", pid, WEXITSTATUS(e.status));
            else
                fprintf(stderr, "nodescope: pid %ld was killed by signal %d (SIG%s)\n", pid, WTERMSIG(e.status),
                        signal_name(WTERMSIG(e.status)));
            break;
        }
        if (e.kind == WATCH_EXEC) {
            fprintf(stderr, "nodescope: pid %ld ran another program (execve): no longer watched\n", pid);
            break;
        }
        if (e.kind == WATCH_INTERRUPTED) {
            diag_info("stopped watching (SIG%s)", signal_name(e.sig));
            break;
        }
        if (ev && ((ev->main_only && e.tid != pid) || (ev->once && taken_once))) {
            target_watch_resume(w);
            continue;
        }
        taken_once = 1;
        double ms = 0;
        if (target_watch_freeze(w, t, &ms) != 0) {
            rc = EXIT_FAIL;
            break;
        }
        taken++;
        pending_t *p = &pend[npend];
        memset(p, 0, sizeof *p);
        size_t thread_index = 0;
        for (size_t i = 0; i < target_thread_count(t); i++)
            if (target_thread(t, i)->tid == e.tid) thread_index = i;
        char where[64] = "";
        if (thread_index) snprintf(where, sizeof where, " (--thread %zu)", thread_index);
        snprintf(p->path, sizeof p->path, "%s/core.%ld.%s.%ld", dir, pid, ev ? ev->name : signal_name(watch_sig),
                 taken);
        if (e.kind == WATCH_SIGNAL)
            snprintf(p->what, sizeof p->what, "SIG%s delivered to thread %d%s; stopped %.2f ms", signal_name(e.sig),
                     e.tid, where, ms);
        else snprintf(p->what, sizeof p->what, "%s in thread %d%s; stopped %.2f ms", ev->what, e.tid, where, ms);
        p->fork_ms = target_fork_ms(t);
        if (taken == max) {
            /* the last core: the writers before it done, the process let go, then written here */
            while (npend)
                if (wait_write(pend, &npend, 0, w, t, &written, verbose) != 0) rc = EXIT_FAIL;
            target_watch_close(w, NULL);
            w = NULL;
            pend[0] = *p;
            if (finish_write(&pend[0], target_write_core_path(t, pend[0].path) == 0 ? 0 : 1 << 8, NULL, t, &written,
                             verbose) != 0)
                rc = EXIT_FAIL;
            break;
        }
        pid_t c = fork();
        if (c == 0) {
            /* the writer: no probe of the watch's held open here, and gone with nodescope (whose
               copy dies with it: EXITKILL) rather than renaming a core full of holes into place */
            target_watch_forget(w);
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() == 1) _exit(1);
            _exit(target_write_core_path(t, p->path) == 0 ? 0 : 1);
        }
        if (c < 0) {
            if (finish_write(p, target_write_core_path(t, p->path) == 0 ? 0 : 1 << 8, w, t, &written, verbose) != 0)
                rc = EXIT_FAIL;
            continue;
        }
        p->writer = c;
        p->copy = target_watch_take_copy(t); /* t may freeze again while this one is written */
        npend++;
        if (npend == MAX_WRITERS && wait_write(pend, &npend, 0, w, t, &written, verbose) != 0) rc = EXIT_FAIL;
    }
    while (npend)
        if (wait_write(pend, &npend, 0, w, t, &written, verbose) != 0) rc = EXIT_FAIL;
    target_watch_close(w, t); /* w NULL: closed at the last core */
    target_close(t);
    if (rc == EXIT_OK && written == 0) {
        fprintf(stderr, "nodescope: no %s happened: no core written\n", on);
        rc = EXIT_FAIL;
    }
    return rc;
}
