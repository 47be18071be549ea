#include "record/perf_session.h"
#include "record/stop_signals.h"
#include "symbols/journal.h"
#include "util/diag.h"
#include "util/privilege.h"
#include "util/procfs.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long the program may take to exit after it was asked to; then SIGKILL. */
#define STOP_GRACE_NS (5 * 1000000000ull)
/* How long perf may take to write its data once the program is gone. */
#define PERF_GRACE_NS (10 * 1000000000ull)

/* The first child of pid (perf forks the workload); 0 when none yet. */
static int child_of(int pid)
{
    int c;
    return proc_children(pid, &c, 1) == 1 ? c : 0;
}

typedef struct {
    const perf_session_opts_t *o;
    perf_session_result_t *r;
    pid_t perf;
    int stopping, escalated, perf_signalled;
    uint64_t stop_ns, escalate_ns, perf_signal_ns;
} session_t;

static int program_alive(const session_t *s) { return s->r->target > 0 && kill(s->r->target, 0) == 0; }

/* First stop request: ask the program (or, attached, perf) to stop. */
static void request_stop(session_t *s, int sig, int from_terminal, uint64_t now)
{
    s->stopping = 1;
    s->stop_ns = now;
    s->r->stopped = 1;
    if (s->o->attach_pid || !s->r->target) {
        kill(s->perf, SIGINT); /* perf stops, and ends a program it started */
        s->perf_signalled = 1, s->perf_signal_ns = now;
    } else if (!from_terminal) {
        kill(s->r->target, sig ? sig : SIGINT); /* -d: as if Ctrl-C was pressed */
    }
    if (diag_verbosity >= 0) {
        if (sig)
            fprintf(stderr, "nodescope: %s received: stopping %s (again to force)\n", strsignal(sig),
                    s->o->attach_pid ? "the recording" : "the program");
        else
            fprintf(stderr, "nodescope: %g s elapsed: stopping %s\n", s->o->duration_s,
                    s->o->attach_pid ? "the recording" : "the program");
    }
}

/* A second request, or a program that ignored the first: end it. */
static void escalate(session_t *s, uint64_t now)
{
    s->escalated = 1;
    s->escalate_ns = now;
    if (!s->o->attach_pid && program_alive(s)) {
        if (diag_verbosity >= 0) fprintf(stderr, "nodescope: killing the program (pid %d)\n", s->r->target);
        kill(s->r->target, SIGKILL);
        s->r->killed = 1;
    } else if (!s->perf_signalled) {
        kill(s->perf, SIGINT);
        s->perf_signalled = 1, s->perf_signal_ns = now;
    }
}

/* perf outliving the program (or a stop request when attached) too long. */
static void hurry_perf(session_t *s, uint64_t now)
{
    if (!s->perf_signalled) {
        kill(s->perf, SIGINT);
        s->perf_signalled = 1, s->perf_signal_ns = now;
    } else if (now - s->perf_signal_ns > PERF_GRACE_NS) {
        diag_warn(NULL, 0, "perf did not finish writing its data in %llu s; killing it",
                  (unsigned long long)(PERF_GRACE_NS / 1000000000ull));
        kill(s->perf, SIGKILL);
        s->r->killed = 1;
        s->perf_signal_ns = now; /* once per grace period */
    }
}

int perf_session_run(const perf_session_opts_t *o, perf_session_result_t *r)
{
    memset(r, 0, sizeof *r);
    stop_signals_install();

    uint64_t t_start = monotonic_ns();
    session_t s = {.o = o, .r = r};
    s.perf = fork();
    if (s.perf == 0) {
        stop_signals_default();
        /* perf handles SIGINT and SIGTERM by finishing its file, but dies on SIGHUP
         * (a hangup reaches the whole group) and leaves it unreadable. Ignored
         * signals survive exec; node resets every disposition when it starts, so
         * the program still sees its hangup. */
        signal(SIGHUP, SIG_IGN);
        priv_drop(); /* perf, found in the user's PATH, runs with the user's rights */
        execvp(o->perf_argv[0], o->perf_argv);
        _exit(127);
    }
    if (s.perf < 0) {
        diag_error(NULL, 0, "cannot start perf: %s", strerror(errno));
        stop_signals_restore();
        return -1;
    }
    r->target = o->attach_pid;
    map_journal_t jr;
    int journaling = 0, status = 0;
    uint64_t program_gone_ns = 0;
    for (;;) {
        if (!r->target) r->target = child_of(s.perf);
        if (r->target && !journaling && o->journal_path && !r->journaled)
            journaling = r->journaled = map_journal_start(&jr, r->target, o->journal_path) == 0;
        if (journaling) map_journal_poll(&jr, 2);
        else usleep(1000);
        pid_t w = waitpid(s.perf, &status, WNOHANG);
        if (w == s.perf || (w < 0 && errno == ECHILD)) break;

        uint64_t now = monotonic_ns();
        stop_request_t req;
        while (stop_signals_next(&req)) {
            if (!s.stopping) {
                r->stop_signal = req.signal;
                request_stop(&s, req.signal, req.from_terminal, now);
            } else if (!s.escalated) {
                escalate(&s, now);
            }
        }
        if (!s.stopping && o->duration_s > 0 && (double)(now - t_start) / 1e9 >= o->duration_s)
            request_stop(&s, 0, 0, now);
        if (s.stopping && !s.escalated && now - s.stop_ns > STOP_GRACE_NS) {
            if (diag_verbosity >= 0 && !o->attach_pid)
                fprintf(stderr, "nodescope: the program did not exit within %llu s\n",
                        (unsigned long long)(STOP_GRACE_NS / 1000000000ull));
            escalate(&s, now);
        }
        /* perf ends by itself once the program it started has exited */
        if (!o->attach_pid && r->target && !program_gone_ns && !program_alive(&s)) program_gone_ns = now;
        if ((program_gone_ns && now - program_gone_ns > PERF_GRACE_NS) ||
            (s.perf_signalled && now - s.perf_signal_ns > PERF_GRACE_NS))
            hurry_perf(&s, now);
    }
    if (journaling) map_journal_stop(&jr);
    r->perf_exit = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    stop_signals_restore(); /* record holds them caught until it exits (stop_signals.h) */
    return 0;
}
