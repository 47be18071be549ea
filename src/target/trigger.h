/* A watch on a live process: its threads traced (ptrace, no EXITKILL: the process outlives
 * nodescope), stopping it only when an event happens: a probe (a uprobe perf_event at a code
 * address of its executable that sends the thread that hits it a SIGTRAP, which the watch takes
 * and drops), or a signal delivered to it (signal-delivery-stop, then given back unchanged).
 * The kernel owns the probes: when nodescope dies, even of SIGKILL, its perf_event files close
 * and the probes go before the threads are detached; nothing of the watch stays in the process.
 * (target/trigger.c) CONTRACT: owned by target/, used by postmortem/watch_on.c. x86-64, Linux >= 5.13
 * (perf_event's sigtrap). */
#ifndef TARGET_TRIGGER_H
#define TARGET_TRIGGER_H
#include "target/target.h"
#include <stdint.h>

typedef struct target_watch target_watch_t;

typedef enum {
    WATCH_NONE,        /* the timeout passed */
    WATCH_PROBE,       /* a probe was hit: .tid is stopped there; .probe its id */
    WATCH_SIGNAL,      /* .sig is being delivered to .tid, stopped */
    WATCH_EXITED,      /* the process is gone: .status as wait(2) gives it (or -1) */
    WATCH_EXEC,        /* it ran execve: the watch is over */
    WATCH_INTERRUPTED, /* nodescope got .sig (SIGINT, SIGTERM, SIGHUP) */
    WATCH_CHILD,       /* a child of nodescope's own (not the process's thread) ended: .tid, .status */
} target_watch_kind_t;

typedef struct {
    target_watch_kind_t kind;
    int tid, sig, probe, status;
} target_watch_event_t;

/* Traces every thread of pid (and those it starts). sigmask: the signals that are events (bit
 * 1 << sig). NULL and a message when it cannot. Blocks SIGINT, SIGTERM, SIGHUP and SIGCHLD in
 * nodescope until target_watch_close: they come back as WATCH_INTERRUPTED. */
target_watch_t *target_watch_open(int pid, uint64_t sigmask);
/* A probe at addr (a runtime address in the executable's code) with id (> 0). 0, or -1 and a
 * message. */
int target_watch_probe(target_watch_t *w, uint64_t addr, int id);
/* Closes the probes (the process runs on untouched at those addresses). */
void target_watch_unprobe(target_watch_t *w);
/* Waits for the next event, at most timeout_ms (< 0: no limit); every other stop is handled
 * (signals given back, new threads traced). The event's thread stays stopped until
 * target_watch_resume. */
int target_watch_next(target_watch_t *w, int timeout_ms, target_watch_event_t *ev);
/* With an event's thread stopped: stops the other threads, reads every thread's registers into t
 * (a target_open_running of the same pid) and forks t's frozen copy (target_freeze), then lets
 * every thread go (the event's signal given back). *stopped_ms: how long the process was stopped
 * beyond the event's own stop. 0, or -1 (message printed; the threads go on). */
int target_watch_freeze(target_watch_t *w, target_t *t, double *stopped_ms);
/* Ends the copy target_watch_freeze made (killed; its zombie reaped at the next freeze or at
 * close). w NULL: the process is no longer traced (the watch closed with t NULL after the freeze,
 * or target_freeze alone made the copy): the copy is killed and its zombie reaped at once. */
void target_watch_thaw(target_watch_t *w, target_t *t);
/* Takes t's frozen copy out of t (t can freeze again; t's registers stay those of that freeze):
 * its pid, for target_watch_end_copy once read (by a writer nodescope forked). */
int target_watch_take_copy(target_t *t);
/* Kills a copy taken out of t and waits for it (its zombie, the process's, is reaped at the next
 * freeze or at close). */
void target_watch_end_copy(int copy);
/* A child of nodescope's own: its wait status, from an exit the watch already collected, or by
 * waiting for it. -1 when there is no such child. */
int target_watch_wait_child(target_watch_t *w, int pid, int *status);
/* In a child nodescope forked (a core's writer): closes its copies of the probes' files, so that
 * the probes never outlive the watch in it. Nothing else of the watch is touched. */
void target_watch_forget(target_watch_t *w);
/* Lets the event's thread go on (with its signal, for WATCH_SIGNAL), when no freeze did. */
void target_watch_resume(target_watch_t *w);
/* The probes closed, every thread let go (signals it was given delivered), the zombies of the
 * copies reaped (t may be NULL), nodescope's signal mask as before. */
void target_watch_close(target_watch_t *w, target_t *t);
#endif
