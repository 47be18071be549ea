/* nodescope watch -p PID --on EVENT [-o DIR] [--max N]: a core of a running process the moment
 * EVENT happens, the program started with no flag (issue 30). The process is watched with
 * target/trigger.h (its threads traced, kernel uprobes at node's functions for the events that
 * are calls); at the event the thread is stopped where it is, the whole process is stopped only
 * to fork its frozen copy (target_freeze), and the core is written from the copy
 * (target_write_core) while the process goes on. Events:
 *   uncaught    node::errors::TriggerUncaughtException(isolate, error, message, from_promise)
 *               entered: before node prints the error and exits (the error in rsi: `core FILE
 *               exception` prints it);
 *   exit        node::Environment::Exit (process.exit, a fatal exception) or node::EmitProcessExit
 *               (the loop ran dry) entered, on the main thread: the heap still whole;
 *   oom         v8::internal::V8::FatalProcessOutOfMemory / Heap::FatalProcessOutOfMemory entered:
 *               the heap at its limit, before node prints the OOM and aborts;
 *   signal:SIG  SIG being delivered to a thread (then given to it unchanged). */
#include "cli/cli.h"
#include "target/target.h"
#include "target/trigger.h"
#include "util/diag.h"
#include "util/options.h"
#include "util/output.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/wait.h>

#define MAX_SYMS 6

typedef struct {
    const char *name;
    const char *what;                 /* for messages */
    int main_only;                    /* the main thread's hits only (a worker's exit is not the process's) */
    int once;                         /* one per process (several of its functions are on one path) */
    const char *syms[MAX_SYMS];       /* mangled: the first of each that the executable has is probed */
} event_t;

static const event_t events[] = {
    {"uncaught", "uncaught exception", 0, 0,
     {"_ZN4node6errors24TriggerUncaughtExceptionEPN2v87IsolateENS1_5LocalINS1_5ValueEEENS4_INS1_7MessageEEEb"}},
    {"exit", "exit", 1, 1,
     {"_ZN4node11Environment4ExitENS_8ExitCodeE", "_ZN4node11Environment4ExitEi",
      "_ZN4node15EmitProcessExitEPNS_11EnvironmentE", "_ZN4node23EmitProcessExitInternalEPNS_11EnvironmentE"}},
    {"oom", "out of memory", 0, 1,
     {"_ZN2v88internal4Heap23FatalProcessOutOfMemoryEPKc",
      "_ZN2v88internal2V823FatalProcessOutOfMemoryEPNS0_7IsolateEPKcRKNS_10OOMDetailsE",
      "_ZN2v88internal2V823FatalProcessOutOfMemoryEPNS0_7IsolateEPKcS5_",
      "_ZN2v88internal2V823FatalProcessOutOfMemoryEPNS0_7IsolateEPKcb"}},
};

static const struct { const char *name; int sig; } signals[] = {
    {"HUP", SIGHUP}, {"INT", SIGINT}, {"QUIT", SIGQUIT}, {"USR1", SIGUSR1}, {"USR2", SIGUSR2}, {"PIPE", SIGPIPE},
    {"ALRM", SIGALRM}, {"TERM", SIGTERM}, {"CHLD", SIGCHLD}, {"CONT", SIGCONT}, {"TSTP", SIGTSTP}, {"TTIN", SIGTTIN},
    {"TTOU", SIGTTOU}, {"URG", SIGURG}, {"XCPU", SIGXCPU}, {"XFSZ", SIGXFSZ}, {"VTALRM", SIGVTALRM}, {"PROF", SIGPROF},
    {"WINCH", SIGWINCH}, {"IO", SIGIO}, {"PWR", SIGPWR}, {"SYS", SIGSYS}, {"ABRT", SIGABRT}, {"SEGV", SIGSEGV},
    {"BUS", SIGBUS}, {"FPE", SIGFPE}, {"ILL", SIGILL}, {"TRAP", SIGTRAP},
};

/* "USR2", "SIGUSR2", "12", "RTMIN+1": its number, or 0 */
static int parse_signal(const char *s) {
    if (!strncasecmp(s, "SIG", 3)) s += 3;
    char *end;
    long n = strtol(s, &end, 10);
    if (*s && !*end) return n > 0 && n < 64 ? (int)n : 0;
    for (size_t i = 0; i < sizeof signals / sizeof *signals; i++)
        if (!strcasecmp(s, signals[i].name)) return signals[i].sig;
    if (!strncasecmp(s, "RTMIN+", 6)) { n = strtol(s + 6, &end, 10); if (!*end && n >= 0 && SIGRTMIN + n <= SIGRTMAX) return SIGRTMIN + (int)n; }
    return 0;
}

static const char *signal_name(int sig) {
    for (size_t i = 0; i < sizeof signals / sizeof *signals; i++)
        if (signals[i].sig == sig) return signals[i].name;
    return "?";
}

static const char usage[] =
    "usage: nodescope watch -p PID --on EVENT [-o DIR] [--max N] [-v]\n\n"
    "Watch a running Node process, started with no flag, and write a core of it (into DIR) the\n"
    "moment EVENT happens; `nodescope core FILE ...` reads it (stack, exception, objects, print...).\n"
    "EVENT is one of:\n"
    "  uncaught     an uncaught exception, before node prints it and exits (`core FILE exception`\n"
    "               prints the thrown value); the program then prints and exits as it would have\n"
    "  exit         the process exiting (process.exit, a fatal exception, the loop ran dry), its\n"
    "               heap still whole\n"
    "  oom          the heap at its limit, before node's fatal out-of-memory error\n"
    "  signal:SIG   SIG (USR2, SIGUSR2, 12...) being delivered; the program then gets it unchanged\n"
    "Until the event the process runs untouched (its threads are traced: each signal it gets is\n"
    "handed straight back); at the event it is stopped only while it forks a frozen copy (a few\n"
    "ms), the core is written from the copy. Each core's path is printed on stderr as it is\n"
    "written. Ends after --max cores, when the process exits, or on SIGINT/SIGTERM; a nodescope\n"
    "killed by SIGKILL leaves the process running and untraced.\n";

int cli_watch_on(int argc, char **argv)
{
    long pid = 0, max = 1;
    const char *on = NULL, *dir = ".";
    int verbose = 0;
    const opt_t opts[] = {
        OPT_INT("pid", 'p', "PID", "the process to watch", &pid),
        OPT_STR("on", 0, "EVENT", "uncaught, exit, oom or signal:SIG", &on),
        OPT_STR("output", 'o', "DIR", "the directory the cores are written to (default: .)", &dir),
        OPT_INT("max", 0, "N", "write at most N cores, then stop watching (default 1)", &max),
        OPT_BOOL("verbose", 'v', "say how long the process was stopped for each core", &verbose),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"watch", usage, tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (n > 0) return opt_usage_error(&cmd, "unexpected argument '%s'", argv[1]);
    if (pid <= 0 || pid > 0x7fffffff) return opt_usage_error(&cmd, pid ? "not a process id: %ld" : "which process? (-p PID)", pid);
    if (!on) return opt_usage_error(&cmd, "which event? (--on EVENT)");
    if (max < 1) return opt_usage_error(&cmd, "--max needs a positive count, not %ld", max);
    const event_t *ev = NULL;
    int watch_sig = 0;
    if (!strncmp(on, "signal:", 7)) {
        if (!(watch_sig = parse_signal(on + 7))) return opt_usage_error(&cmd, "not a signal: '%s'", on + 7);
        if (watch_sig == SIGKILL || watch_sig == SIGSTOP) return opt_usage_error(&cmd, "SIGKILL and SIGSTOP are never delivered to a program: they cannot be watched");
    } else {
        for (size_t i = 0; i < sizeof events / sizeof *events; i++)
            if (!strcmp(on, events[i].name)) ev = &events[i];
        if (!ev) {
            if (!strncmp(on, "heap:", 5)) return opt_usage_error(&cmd, "--on heap:PCT is not built yet");
            return opt_usage_error(&cmd, "unknown event '%s' (uncaught, exit, oom or signal:SIG)", on);
        }
    }
    struct stat sb;
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        diag_error(dir, 0, "not a directory: the cores are written into it");
        return EXIT_FAIL;
    }

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
            diag_error(target_name(t), 0, "its executable (%s) has none of the functions --on %s needs: is it node (18 or later)?",
                       target_exe_path(t), ev->name);
            target_close(t);
            return EXIT_FAIL;
        }
    }
    target_watch_t *w = target_watch_open((int)pid, watch_sig ? (uint64_t)1 << watch_sig : 0);
    if (!w) { target_close(t); return EXIT_FAIL; }
    int rc = EXIT_OK;
    for (int i = 0; i < naddrs; i++)
        if (target_watch_probe(w, addrs[i], i + 1) != 0) { rc = EXIT_FAIL; break; }
    if (rc == EXIT_OK)
        diag_info("watching pid %ld for %s (%d probe%s)", pid, on, naddrs, naddrs == 1 ? "" : "s");
    long written = 0;
    int taken_once = 0, failed = 0;
    while (rc == EXIT_OK && written < max) {
        target_watch_event_t e;
        target_watch_next(w, -1, &e);
        if (e.kind == WATCH_NONE) continue;
        if (e.kind == WATCH_EXITED) {
            if (e.status < 0) fprintf(stderr, "nodescope: pid %ld is gone\n", pid);
            else if (WIFEXITED(e.status)) fprintf(stderr, "nodescope: pid %ld exited with status %d\n", pid, WEXITSTATUS(e.status));
            else fprintf(stderr, "nodescope: pid %ld was killed by signal %d (SIG%s)\n", pid, WTERMSIG(e.status), signal_name(WTERMSIG(e.status)));
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
        if (ev && ((ev->main_only && e.tid != pid) || (ev->once && taken_once))) { target_watch_resume(w); continue; }
        taken_once = 1;
        double ms = 0;
        if (target_watch_freeze(w, t, &ms) != 0) { failed++; rc = EXIT_FAIL; break; }
        char path[4096];
        snprintf(path, sizeof path, "%s/core.%ld.%s.%ld", dir, pid, ev ? ev->name : signal_name(watch_sig), written + 1);
        output_t o;
        int ok = 0;
        if (output_open(&o, path, NULL, 0) == 0) {
            if (target_write_core(t, fileno(o.f), path) == 0 && output_commit(&o) == 0) ok = 1;
            else output_abort(&o);
        }
        size_t thread_index = 0;
        for (size_t i = 0; i < target_thread_count(t); i++)
            if (target_thread(t, i)->tid == e.tid) thread_index = i;
        target_watch_thaw(w, t);
        if (!ok) { rc = EXIT_FAIL; break; }
        written++;
        char where[64] = "";
        if (thread_index) snprintf(where, sizeof where, " (--thread %zu)", thread_index);
        if (e.kind == WATCH_SIGNAL)
            fprintf(stderr, "nodescope: wrote %s: SIG%s delivered to thread %d%s; stopped %.2f ms\n", path, signal_name(e.sig), e.tid, where, ms);
        else
            fprintf(stderr, "nodescope: wrote %s: %s in thread %d%s; stopped %.2f ms\n", path, ev->what, e.tid, where, ms);
        if (verbose) fprintf(stderr, "nodescope: the fork took %.2f ms\n", target_fork_ms(t));
    }
    target_watch_close(w, t);
    target_close(t);
    if (rc == EXIT_OK && written == 0) {
        fprintf(stderr, "nodescope: no %s happened: no core written\n", on);
        rc = EXIT_FAIL;
    }
    (void)failed;
    return rc;
}
