/* One `perf record` run, supervised: start perf (which starts the program, or
 * attaches to a process), journal the program's perf map while it runs, and stop
 * it when asked, however the user asks.
 *
 * Stopping: SIGINT, SIGTERM and SIGHUP sent to nodescope are each forwarded to
 * the program (one the terminal already sent the whole group is not sent twice);
 * a second signal, or the program still running STOP_GRACE seconds after the
 * first, kills it. When attached (-p) the process is never signalled: perf is
 * told to stop. perf itself gets the same escalation once the program is gone. */
#ifndef RECORD_PERF_SESSION_H
#define RECORD_PERF_SESSION_H

typedef struct {
    char **perf_argv;         /* perf record ... (NULL-terminated) */
    int attach_pid;           /* perf -p PID; 0 = perf starts the program */
    double duration_s;        /* stop after this long; 0 = when the program ends */
    const char *journal_path; /* where to journal the perf map; NULL = no journal */
} perf_session_opts_t;

typedef struct {
    int target;      /* the program's pid (0 when perf never started it) */
    int perf_exit;   /* perf's exit status as a shell shows it (128+N when killed) */
    int stopped;     /* nodescope stopped the program: a signal or -d */
    int stop_signal; /* the first signal nodescope received (0: -d or none) */
    int killed;      /* the program or perf had to be killed (SIGKILL) */
    int journaled;   /* journal_path holds a journal */
} perf_session_result_t;

/* Runs perf to the end. Returns 0, or -1 when perf could not be started (error printed). */
int perf_session_run(const perf_session_opts_t *o, perf_session_result_t *r);

#endif
