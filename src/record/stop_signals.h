/* The stop requests a recording takes from the user: SIGINT, SIGTERM and SIGHUP sent to
 * nodescope are caught (not acted on) while a recording runs, and counted, so the session's
 * loop decides what each one means (forward to the program, stop sampling, escalate).
 * One owner for these signals: the recording session installs and restores them; record holds
 * them too, from before the session until it exits, so a second Ctrl-C (the first stopped the
 * program) cannot kill nodescope halfway through writing OUT or leave /tmp/perf-PID.map behind
 * (SIGKILL still ends it). */
#ifndef RECORD_STOP_SIGNALS_H
#define RECORD_STOP_SIGNALS_H

typedef struct {
    int signal;        /* SIGINT, SIGTERM or SIGHUP */
    int from_terminal; /* the kernel sent it (a terminal's ^C reaches the whole group, the program too) */
} stop_request_t;

/* Starts catching (and forgets earlier requests); stop_signals_restore puts the previous handlers
 * back. Installs nest: the handlers go back at the outermost restore. */
void stop_signals_install(void);
void stop_signals_restore(void);
/* The next request not yet taken: 1 and *req filled, or 0. */
int stop_signals_next(stop_request_t *req);
/* For a forked child before exec: the default dispositions back. */
void stop_signals_default(void);

#endif
