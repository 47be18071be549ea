#include "record/live_session.h"
#include "record/stop_signals.h"
#include "symbols/journal.h"
#include "target/target.h"
#include "util/diag.h"
#include "v8/v8.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long the program may take to exit after it was asked to; then SIGKILL. */
#define STOP_GRACE_NS (5 * 1000000000ull)
/* How long a started node may take to finish loading its libraries before sampling starts. */
#define STARTUP_WAIT_NS (1000000000ull)

/* Starts argv; returns the pid once exec succeeded, else -1 (error printed, child reaped).
 * A close-on-exec pipe tells the two apart: EOF means exec happened, bytes carry its errno. */
static int start_program(char **argv)
{
    int gate[2];
    if (pipe2(gate, O_CLOEXEC) != 0) {
        diag_error(NULL, 0, "cannot start %s: %s", argv[0], strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(gate[0]);
        stop_signals_default();
        execvp(argv[0], argv);
        int e = errno;
        if (write(gate[1], &e, sizeof e) < 0) _exit(127);
        _exit(127);
    }
    close(gate[1]);
    int e = 0;
    ssize_t n = pid > 0 ? read(gate[0], &e, sizeof e) : -1;
    if (pid < 0) e = errno;
    close(gate[0]);
    if (pid < 0 || n > 0) {
        diag_error(NULL, 0, "cannot start %s: %s", argv[0], strerror(e));
        if (pid > 0) waitpid(pid, NULL, 0);
        return -1;
    }
    return pid;
}

static int thread_count(int pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    int n = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &n) == 1) break;
    if (f) fclose(f);
    return n;
}

static int has_exited(int pid)
{
    siginfo_t si = {0};
    return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == pid;
}

/* node has loaded its libraries and started its platform threads once it has a second thread:
 * the target's module list is then complete enough to name native frames. */
static void wait_for_startup(int pid)
{
    uint64_t t0 = monotonic_ns();
    while (thread_count(pid) < 2 && monotonic_ns() - t0 < STARTUP_WAIT_NS && !has_exited(pid))
        usleep(500);
}

static void say_stopping(const live_session_opts_t *o, int sig)
{
    if (diag_verbosity < 0) return;
    const char *what = o->attach_pid ? "the recording" : "the program";
    if (sig) fprintf(stderr, "nodescope: %s received: stopping %s%s\n", strsignal(sig), what,
                     o->attach_pid ? "" : " (again to force)");
    else fprintf(stderr, "nodescope: %g s elapsed: stopping %s\n", o->duration_s, what);
}

static int shell_status(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int live_session_run(const live_session_opts_t *o, profile_t *out, live_session_result_t *r)
{
    memset(r, 0, sizeof *r);
    stop_signals_install();
    int pid = o->attach_pid;
    if (!pid) {
        pid = start_program(o->argv);
        if (pid < 0) { stop_signals_restore(); return -1; }
        wait_for_startup(pid);
        r->target = pid;
        if (has_exited(pid)) {   /* over before sampling could start: nothing sampled, its status kept */
            int status = 0;
            waitpid(pid, &status, 0);
            r->exit_status = shell_status(status);
            stop_signals_restore();
            return 0;
        }
    }
    r->target = pid;
    target_t *t = target_open_running(pid);
    v8_t *v = t ? v8_open(t) : NULL;
    live_sampler_t *s = v ? live_sampler_start_wall(t, v, o->hz, o->wall, out) : NULL;
    if (!s && v && errno == ESRCH && !o->attach_pid) {   /* it ended before the first sample */
        int status = 0;
        waitpid(pid, &status, 0);
        r->exit_status = shell_status(status);
        v8_close(v);
        target_close(t);
        stop_signals_restore();
        return 0;
    }
    if (!s && v && errno == ESRCH) diag_error(NULL, 0, "process %d is gone", pid);
    if (!s) {
        if (!o->attach_pid) {   /* never leave a program we started running unobserved */
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
        }
        v8_close(v);
        target_close(t);
        stop_signals_restore();
        return -1;
    }
    uint64_t t_start = monotonic_ns(), stop_ns = 0;
    int stopping = 0, escalated = 0, status = 0, exited = 0;
    while (!exited) {
        /* the rings are read every LIVE_READ_MS (samples do not wake it), signals interrupt the
           wait, a program's exit hangs its threads' events up */
        int alive_threads = live_sampler_poll(s);
        if (!o->attach_pid) {
            pid_t w = waitpid(pid, &status, WNOHANG);
            if (w == pid || (w < 0 && errno == ECHILD)) exited = 1;
        } else if (alive_threads == 0) {
            exited = 1;   /* the attached process is gone */
        }
        if (exited) break;
        uint64_t now = monotonic_ns();
        stop_request_t req;
        while (stop_signals_next(&req)) {
            if (!stopping) {
                stopping = 1, stop_ns = now, r->stopped = 1;
                say_stopping(o, req.signal);
                if (!o->attach_pid && !req.from_terminal) kill(pid, req.signal);
            } else if (!escalated && !o->attach_pid) {
                escalated = 1;
                if (diag_verbosity >= 0) fprintf(stderr, "nodescope: killing the program (pid %d)\n", pid);
                kill(pid, SIGKILL);
                r->killed = 1;
            }
        }
        if (!stopping && o->duration_s > 0 && (double)(now - t_start) / 1e9 >= o->duration_s) {
            stopping = 1, stop_ns = now, r->stopped = 1;
            say_stopping(o, 0);
            if (!o->attach_pid) kill(pid, SIGINT);   /* -d: as if Ctrl-C was pressed */
        }
        if (stopping && o->attach_pid) break;
        if (stopping && !escalated && now - stop_ns > STOP_GRACE_NS) {
            if (diag_verbosity >= 0)
                fprintf(stderr, "nodescope: the program did not exit within %llu s; killing it (pid %d)\n",
                        (unsigned long long)(STOP_GRACE_NS / 1000000000ull), pid);
            escalated = 1;
            kill(pid, SIGKILL);
            r->killed = 1;
        }
    }
    stop_request_t late;
    if (stop_signals_next(&late)) r->stopped = 1;   /* the terminal's ^C ended the program first */
    live_sampler_stop(s, &r->stats);
    if (!o->attach_pid) r->exit_status = shell_status(status);
    const char *why = target_problem(t);
    snprintf(r->problem, sizeof r->problem, "%s", why ? why : "");
    r->other_mount_ns = target_other_mount_ns(pid);
    v8_close(v);
    target_close(t);
    stop_signals_restore();   /* record holds them caught until it exits (stop_signals.h) */
    return 0;
}
