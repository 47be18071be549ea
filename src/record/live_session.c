/* One recording by the live sampler (live_session.h): the program started or the processes
 * attached to, the node processes found while it runs (children, all), each with its own target,
 * V8 metadata and sampler, read in turn by one loop that also paces -d, the stop signals and the
 * program's exit. */
#include "record/live_session.h"
#include "record/program.h"
#include "record/stop_signals.h"
#include "symbols/journal.h"
#include "target/target.h"
#include "util/diag.h"
#include "util/privilege.h"
#include "util/procfs.h"
#include "v8/v8.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long the program may take to exit after it was asked to; then SIGKILL. */
#define STOP_GRACE_NS (5 * 1000000000ull)
/* How long a started node may take to finish loading its libraries before sampling starts. */
#define STARTUP_WAIT_NS (1000000000ull)
/* How often /proc is read for new processes to follow (children, all). */
#define FOLLOW_SCAN_MS 50

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
        priv_drop(); /* the user's program, with the user's rights (exec would clear them too) */
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
    while (thread_count(pid) < 2 && monotonic_ns() - t0 < STARTUP_WAIT_NS && !has_exited(pid)) usleep(500);
}

static void say_stopping(const live_session_opts_t *o, int sig)
{
    if (diag_verbosity < 0) return;
    const char *what = !o->argv ? "the recording" : "the program";
    if (sig)
        fprintf(stderr, "nodescope: %s received: stopping %s%s\n", strsignal(sig), what,
                !o->argv ? "" : " (again to force)");
    else fprintf(stderr, "nodescope: %g s elapsed: stopping %s\n", o->duration_s, what);
}

static int shell_status(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status); }

/* A process being sampled: its own target, V8 metadata and sampler (NULL once it has ended). */
typedef struct {
    int pid;
    target_t *t;
    v8_t *v;
    live_sampler_t *s;
} proc_t;

/* A process found, sampled since (live_sampler_early), waiting its turn to be opened. */
typedef struct {
    int pid;
    live_sampler_t *s;
    char cmd[256]; /* its command line, read when it was found */
} pending_t;

typedef struct {
    const live_session_opts_t *o;
    profile_t *out;
    live_session_result_t *r;
    proc_t *p;
    size_t n, cap;
    int *tried, ntried, tried_cap;    /* pids a sampler was started for (or tried) */
    int *family, nfamily, family_cap; /* children: the roots and every descendant found */
    int skipped;                      /* all: node processes nodescope may not trace */
    int *exited, nexited, exited_cap; /* processes with samples that exited before they were read */
    pending_t *pend;                  /* found and sampled, not yet opened (oldest first) */
    size_t npend, pend_cap;
    int ended;                           /* the recording is over: no more processes are looked for */
    int newest;                          /* open_pending's turn: the newest (1) or the oldest */
    int looping;                         /* the recording's loop runs: processes found are queued */
    int opening;                         /* a process found is being opened: those found meanwhile too */
    int *claimed, nclaimed, claimed_cap; /* found at the start, to be opened at once */
} session_t;

static int in_set(const int *set, int n, int pid)
{
    for (int i = 0; i < n; i++)
        if (set[i] == pid) return 1;
    return 0;
}

static void add_to_set(int **set, int *n, int *cap, int pid)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 64;
        *set = realloc(*set, (size_t)*cap * sizeof **set);
        if (!*set) abort();
    }
    (*set)[(*n)++] = pid;
}

static void add_stats(live_stats_t *sum, const live_stats_t *st)
{
    sum->samples += st->samples, sum->lost += st->lost, sum->threads += st->threads, sum->empty += st->empty;
    sum->partial += st->partial, sum->late += st->late, sum->late_named += st->late_named;
    if (st->full_gcs >= 0) sum->full_gcs = (sum->full_gcs < 0 ? 0 : sum->full_gcs) + st->full_gcs;
    sum->off_cpu += st->off_cpu, sum->busy_ns += st->busy_ns, sum->cpu_ns += st->cpu_ns;
    sum->copy_changes += st->copy_changes, sum->short_copies += st->short_copies, sum->cut += st->cut;
    sum->jit += st->jit, sum->jit_unnamed += st->jit_unnamed, sum->exited += st->exited;
    sum->events += st->events, sum->events_weight += st->events_weight, sum->throttled += st->throttled;
}

/* The process has exited: no such pid, or a zombie not yet reaped (its maps and exe are gone). */
static int is_gone(int pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 1;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *close = strrchr(buf, ')'), state = 0;
    return !close || sscanf(close + 1, " %c", &state) != 1 || state == 'Z' || state == 'X';
}

static void read_cmdline(int pid, char *cmd, size_t cap)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
    FILE *f = fopen(path, "r");
    size_t k = f ? fread(cmd, 1, cap - 1, f) : 0;
    if (f) fclose(f);
    for (size_t i = 0; i + 1 < k; i++)
        if (!cmd[i]) cmd[i] = ' ';
    cmd[k] = 0;
}

static void discover(session_t *ss);

/* Starts sampling pid. found: a process found while recording (not one the user named): one that
 * exited meanwhile is no error, and another user's is skipped. early: found, sampled since, and
 * now opened (its samples named). 0, or -1 (error printed unless found and gone: then errno is
 * ESRCH). */
static int start_proc(session_t *ss, int pid, int found, live_sampler_t *early, const char *cmdline)
{
    if (!early) add_to_set(&ss->tried, &ss->ntried, &ss->tried_cap, pid);
    /* a process found while recording: what opening it says is held until it is known whether it
       still runs ("error:" with exit status 0 was printed for one that exited meanwhile) */
    if (found) diag_hold_begin();
    live_opts_t lo = {.hz = ss->o->hz,
                      .wall = ss->o->wall,
                      .events = ss->o->events,
                      .on_sample = ss->o->on_sample,
                      .ctx = ss->o->ctx};
    target_t *t = target_open_running(pid);
    if (found && !ss->o->events) { /* processes started meanwhile are sampled at once (queued) */
        diag_hold_end(!is_gone(pid));
        ss->opening++;
        discover(ss);
        ss->opening--;
        diag_hold_begin();
    }
    v8_t *v = t ? v8_open(t) : NULL;
    live_sampler_t *s = NULL;
    int unread = 0; /* it exited before it could be opened: its samples go under its threads unnamed */
    /* not opened, and still there: exiting (its maps or heap already gone), or not node after all */
    for (int i = 0; early && !v && i < 20 && !is_gone(pid); i++) usleep(5000);
    if (early && (v || (t && is_gone(pid)))) {
        live_sampler_ready(early, t, v); /* (gone: native frames named, JS ones "exited before") */
        s = early;
    } else if (early && is_gone(pid)) {
        s = early, unread = 1;
    } else if (early) {
        live_sampler_discard(early); /* (not node after all: the warnings below) */
    } else if (v && !early) {
        s = live_sampler_start_opts(t, v, &lo, ss->out);
    }
    int e = s ? 0 : errno;
    if (found) diag_hold_end(s || !is_gone(pid)); /* errors as warnings; nothing when it exited */
    errno = e;
    if (unread) {
        live_stats_t st;
        live_sampler_stop(s, &st);
        add_stats(&ss->r->stats, &st);
        if (st.samples) {
            ss->r->nprocs++;
            if (!ss->r->target) ss->r->target = pid;
            add_to_set(&ss->exited, &ss->nexited, &ss->exited_cap, pid);
        }
        diag_info("pid %d exited while it was being opened: %lu samples not named", pid, st.samples);
        v8_close(v);
        target_close(t);
        errno = ESRCH;
        return -1;
    }
    if (!s) {
        int gone = is_gone(pid);
        if (found && gone) {
            /* it exited between the look in /proc and the sampler's start: nothing to say */
            diag_info("pid %d exited while it was being opened: not sampled", pid);
            errno = ESRCH;
        } else if (found) {
            /* one process found while recording (another engineer's odd node, -a) does not fail
               the recording of the others: what failed is said as warnings above */
            diag_warn(NULL, 0, "pid %d is not sampled (the warning above); the recording goes on", pid);
        } else if (!found && v && errno == ESRCH) {
            if (ss->o->argv) errno = ESRCH; /* the program ended before the first sample */
            else diag_error(NULL, 0, "process %d is gone", pid);
        }
        v8_close(v);
        target_close(t);
        return -1;
    }
    if (ss->n == ss->cap) {
        ss->cap = ss->cap ? 2 * ss->cap : 8;
        ss->p = realloc(ss->p, ss->cap * sizeof *ss->p);
        if (!ss->p) abort();
    }
    ss->p[ss->n++] = (proc_t){.pid = pid, .t = t, .v = v, .s = s};
    ss->r->nprocs++;
    if (!ss->r->target) ss->r->target = pid;
    if (found && diag_verbosity >= 0) {
        char cmd[256] = "";
        if (cmdline) snprintf(cmd, sizeof cmd, "%s", cmdline);
        else read_cmdline(pid, cmd, sizeof cmd);
        fprintf(stderr, "nodescope: sampling pid %d: %s\n", pid, cmd);
    }
    return 0;
}

/* A process found: sampled at once (live_sampler_early), opened in its turn (open_pending), so
 * that the samples of one that lives less than opening takes (0.1-0.5 s: its maps, every binary's
 * symbols, V8's metadata) are in the profile, named if it lives until then. */
static void sample_found(session_t *ss, int pid)
{
    add_to_set(&ss->tried, &ss->ntried, &ss->tried_cap, pid);
    live_opts_t lo = {.hz = ss->o->hz, .wall = ss->o->wall, .on_sample = ss->o->on_sample, .ctx = ss->o->ctx};
    diag_hold_begin();
    live_sampler_t *s = live_sampler_early(pid, &lo, ss->out);
    int gone = !s && is_gone(pid);
    diag_hold_end(!gone);
    if (!s) {
        if (gone) diag_info("pid %d exited while it was being opened: not sampled", pid);
        else diag_warn(NULL, 0, "pid %d is not sampled (the warning above); the recording goes on", pid);
        return;
    }
    if (ss->npend == ss->pend_cap) {
        ss->pend_cap = ss->pend_cap ? 2 * ss->pend_cap : 8;
        ss->pend = realloc(ss->pend, ss->pend_cap * sizeof *ss->pend);
        if (!ss->pend) abort();
    }
    pending_t *q = &ss->pend[ss->npend++];
    q->pid = pid, q->s = s;
    read_cmdline(pid, q->cmd, sizeof q->cmd);
}

/* Opens one process found, if any: alternately the newest (a short-lived one may be about to
 * exit) and the oldest that has run since it was found (samples waiting; else the oldest): a
 * stream of new ones does not starve one that runs on. */
static void open_pending(session_t *ss)
{
    if (!ss->npend) return;
    size_t pick = 0;
    if ((ss->newest = !ss->newest)) pick = ss->npend - 1;
    else
        for (size_t i = 0; i < ss->npend; i++)
            if (live_sampler_waiting(ss->pend[i].s)) {
                pick = i;
                break;
            }
    pending_t q = ss->pend[pick];
    memmove(ss->pend + pick, ss->pend + pick + 1, (--ss->npend - pick) * sizeof *ss->pend);
    start_proc(ss, q.pid, 1, q.s, q.cmd);
}

/* Stops sampling a process (it has ended, or the recording has): its samples stay in the profile. */
static void end_proc(session_t *ss, proc_t *p)
{
    if (!p->s) return;
    live_stats_t st;
    live_sampler_stop(p->s, &st);
    p->s = NULL;
    add_stats(&ss->r->stats, &st);
    if (st.exited) add_to_set(&ss->exited, &ss->nexited, &ss->exited_cap, p->pid);
    const char *why = target_problem(p->t);
    if (why && !ss->r->problem[0]) snprintf(ss->r->problem, sizeof ss->r->problem, "%s", why);
    if (proc_other_mount_ns(p->pid)) ss->r->other_mount_ns = 1;
    v8_close(p->v);
    target_close(p->t);
    p->v = NULL, p->t = NULL;
}

/* Looks in /proc for processes to follow: descendants of the family (children), every node
 * process (all). A node process is sampled once it has a second thread (node has started: a
 * fork that has not yet exec'd, or node still loading its libraries, has one). */
static void discover(session_t *ss)
{
    if (ss->ended) return;
    DIR *d = opendir("/proc");
    if (!d) return;
    int *pids = NULL, *ppids = NULL, n = 0, cap = 0, pcap = 0, np = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        int pid = atoi(e->d_name);
        if (pid <= 0 || pid == getpid() || in_set(ss->tried, ss->ntried, pid)) continue;
        int ppid = proc_parent(pid);
        if (ppid < 0) continue;
        add_to_set(&pids, &n, &cap, pid);
        add_to_set(&ppids, &np, &pcap, ppid);
    }
    closedir(d);
    if (ss->o->children) /* parents first: repeat until no new descendant (pids are not in order) */
        for (int grew = 1; grew;) {
            grew = 0;
            for (int i = 0; i < n; i++)
                if (!in_set(ss->family, ss->nfamily, pids[i]) && in_set(ss->family, ss->nfamily, ppids[i])) {
                    add_to_set(&ss->family, &ss->nfamily, &ss->family_cap, pids[i]);
                    grew = 1;
                }
        }
    int k = 0; /* the node processes to sample, in pids[0..k) */
    for (int i = 0; i < n; i++) {
        int pid = pids[i];
        if (!ss->o->all && !in_set(ss->family, ss->nfamily, pid)) continue;
        if (in_set(ss->claimed, ss->nclaimed, pid)) continue;
        if (!record_process_is_node(pid) || thread_count(pid) < 2 || is_gone(pid)) continue;
        if (ss->o->all && !record_may_read(pid)) { /* another user's: not ours to trace */
            add_to_set(&ss->tried, &ss->ntried, &ss->tried_cap, pid);
            ss->skipped++;
            continue;
        }
        pids[k++] = pid;
    }
    /* opened at once: those there at the start (the recording's clock starts once they are open, as
       with -p PIDs; claimed: not queued by the looks taken while one of them is opened), and with -e
       (its probes need the process opened first); the others, found while the loop runs or while
       one of those is opened, are sampled at once and queued */
    int at_once = ss->o->events || (!ss->looping && !ss->opening);
    for (int i = 0; at_once && !ss->o->events && i < k; i++)
        add_to_set(&ss->claimed, &ss->nclaimed, &ss->claimed_cap, pids[i]);
    for (int i = 0; i < k; i++) {
        if (in_set(ss->tried, ss->ntried, pids[i])) continue; /* (found meanwhile) */
        if (at_once) start_proc(ss, pids[i], 1, NULL, NULL);
        else sample_found(ss, pids[i]);
    }
    free(pids);
    free(ppids);
}

static size_t sampling_count(const session_t *ss)
{
    size_t k = 0;
    for (size_t i = 0; i < ss->n; i++) k += ss->p[i].s != NULL;
    return k;
}

/* The processes found and sampled at once but not yet opened (queued): one that has exited has its
 * samples added unnamed and counted (say_exited counts them: settle these first), the others are
 * dropped, nothing added. */
static void end_pending(session_t *ss)
{
    while (ss->npend) {
        pending_t *q = &ss->pend[--ss->npend];
        if (!is_gone(q->pid)) {
            live_sampler_discard(q->s);
            continue;
        }
        live_stats_t st;
        live_sampler_stop(q->s, &st);
        add_stats(&ss->r->stats, &st);
        if (st.samples) {
            ss->r->nprocs++;
            add_to_set(&ss->exited, &ss->nexited, &ss->exited_cap, q->pid);
        }
    }
}

static void end_session(session_t *ss)
{
    end_pending(ss); /* (an error ends the recording) */
    free(ss->pend);
    for (size_t i = 0; i < ss->n; i++) end_proc(ss, &ss->p[i]);
    free(ss->p);
    free(ss->tried);
    free(ss->family);
    free(ss->exited);
    free(ss->claimed);
}

/* One line for the samples left unnamed because their process exited before they were read. */
static void say_exited(const session_t *ss)
{
    const live_stats_t *st = &ss->r->stats;
    if (!st->exited || diag_verbosity < 0) return;
    char pids[400] = "";
    size_t at = 0;
    for (int i = 0; i < ss->nexited && at < sizeof pids - 24; i++)
        at += (size_t)snprintf(pids + at, sizeof pids - at, "%s%d", i ? ", " : "", ss->exited[i]);
    if (at >= sizeof pids - 24 && ss->nexited) snprintf(pids + at, sizeof pids - at, ", ...");
    diag_warn(NULL, 0,
              "%lu of %lu samples (%.0f%%) of %d process%s that exited before nodescope could read them "
              "are left unnamed, under '(JS: process exited before nodescope could read it)' or, never "
              "opened, '(process exited before nodescope could read it)': pid%s %s",
              st->exited, st->samples, st->samples ? 100.0 * (double)st->exited / (double)st->samples : 0.0,
              ss->nexited, ss->nexited == 1 ? "" : "es", ss->nexited == 1 ? "" : "s", pids);
}

/* The end of a recording that ran: every process ended, then what exited unread said. */
static void end_session_say(session_t *ss)
{
    end_pending(ss);
    for (size_t i = 0; i < ss->n; i++) end_proc(ss, &ss->p[i]);
    say_exited(ss);
    end_session(ss);
}

int live_session_run(const live_session_opts_t *o, profile_t *out, live_session_result_t *r)
{
    memset(r, 0, sizeof *r);
    r->stats.full_gcs = -1;
    stop_signals_install();
    session_t ss = {.o = o, .out = out, .r = r};
    int pid = 0, attach = o->argv == NULL;
    if (!attach) {
        pid = start_program(o->argv);
        if (pid < 0) {
            stop_signals_restore();
            return -1;
        }
        r->target = pid;
        add_to_set(&ss.family, &ss.nfamily, &ss.family_cap, pid);
        if (o->sample_root) {
            wait_for_startup(pid);
            if (has_exited(pid)) { /* over before sampling could start: nothing sampled, its status kept */
                int status = 0;
                waitpid(pid, &status, 0);
                r->exit_status = shell_status(status);
                stop_signals_restore();
                return 0;
            }
            if (start_proc(&ss, pid, 0, NULL, NULL) != 0) {
                if (errno == ESRCH) { /* it ended before the first sample */
                    int status = 0;
                    waitpid(pid, &status, 0);
                    r->exit_status = shell_status(status);
                    end_session(&ss);
                    stop_signals_restore();
                    return 0;
                }
                kill(pid, SIGKILL); /* never leave a program we started running unobserved */
                waitpid(pid, NULL, 0);
                end_session(&ss);
                stop_signals_restore();
                return -1;
            }
        }
    }
    for (int i = 0; attach && i < o->npids; i++) {
        add_to_set(&ss.family, &ss.nfamily, &ss.family_cap, o->pids[i]);
        if (o->children && !record_process_is_node(o->pids[i])) continue; /* a supervisor: its children */
        if (start_proc(&ss, o->pids[i], 0, NULL, NULL) != 0) {
            end_session(&ss);
            stop_signals_restore();
            return -1;
        }
    }
    int follow = o->children || o->all;
    if (follow) discover(&ss);
    ss.looping = 1;
    uint64_t t_start = monotonic_ns(), stop_ns = 0, next_scan = t_start + FOLLOW_SCAN_MS * 1000000ull;
    int stopping = 0, escalated = 0, status = 0, exited = 0;
    while (!exited) {
        /* the rings are read every LIVE_READ_MS (samples do not wake it), signals interrupt the
           wait, a process's exit hangs its threads' events up. Several processes: the wait is in
           the first one's poll, the others' rings are read as they are. */
        int waited = 0;
        for (size_t i = 0; i < ss.n; i++) {
            proc_t *p = &ss.p[i];
            if (!p->s) continue;
            int alive = live_sampler_poll_ms(p->s, waited ? 0 : LIVE_READ_MS);
            waited = 1;
            if (alive == 0) {
                if (attach && in_set(o->pids, o->npids, p->pid) && diag_verbosity >= 0)
                    fprintf(stderr, "nodescope: process %d exited after %.1f s; its samples are kept\n", p->pid,
                            (double)(monotonic_ns() - t_start) / 1e9);
                end_proc(&ss, p);
            }
        }
        if (!waited) usleep(LIVE_READ_MS * 1000);
        uint64_t now = monotonic_ns();
        if (!attach) {
            pid_t w = waitpid(pid, &status, WNOHANG);
            if (w == pid || (w < 0 && errno == ECHILD)) exited = 1;
        } else if (!o->all && sampling_count(&ss) == 0 && ss.npend == 0) {
            int left = 0; /* a pid given may still start node processes (children) */
            for (int i = 0; follow && i < o->npids; i++) left |= kill(o->pids[i], 0) == 0 || errno == EPERM;
            if (!left) exited = 1; /* the attached processes are gone */
        }
        if (exited) break;
        if (follow && !stopping && now >= next_scan) {
            discover(&ss);
            next_scan = now + FOLLOW_SCAN_MS * 1000000ull;
        }
        open_pending(&ss); /* one a round: the others' rings are read meanwhile */
        stop_request_t req;
        while (stop_signals_next(&req)) {
            if (!stopping) {
                stopping = 1, stop_ns = now, r->stopped = 1;
                say_stopping(o, req.signal);
                if (!attach && !req.from_terminal) kill(pid, req.signal);
            } else if (!escalated && !attach) {
                escalated = 1;
                if (diag_verbosity >= 0) fprintf(stderr, "nodescope: killing the program (pid %d)\n", pid);
                kill(pid, SIGKILL);
                r->killed = 1;
            }
        }
        if (!stopping && o->duration_s > 0 && (double)(now - t_start) / 1e9 >= o->duration_s) {
            stopping = 1, stop_ns = now, r->stopped = 1;
            say_stopping(o, 0);
            if (!attach) kill(pid, SIGINT); /* -d: as if Ctrl-C was pressed */
        }
        if (stopping && attach) break;
        if (stopping && !escalated && now - stop_ns > STOP_GRACE_NS) {
            if (diag_verbosity >= 0)
                fprintf(stderr, "nodescope: the program did not exit within %llu s; killing it (pid %d)\n",
                        (unsigned long long)(STOP_GRACE_NS / 1000000000ull), pid);
            escalated = 1;
            kill(pid, SIGKILL);
            r->killed = 1;
        }
    }
    ss.ended = 1;
    while (ss.npend) open_pending(&ss); /* found before the end: named if still there */
    stop_request_t late;
    if (stop_signals_next(&late)) r->stopped = 1; /* the terminal's ^C ended the program first */
    if (ss.skipped && diag_verbosity >= 0)
        fprintf(stderr,
                "nodescope: %d node process%s of other users not sampled (tracing them needs root or "
                "CAP_PERFMON and CAP_SYS_PTRACE)\n",
                ss.skipped, ss.skipped == 1 ? "" : "es");
    end_session_say(&ss);
    if (!attach) r->exit_status = shell_status(status);
    stop_signals_restore(); /* record holds them caught until it exits (stop_signals.h) */
    return 0;
}
