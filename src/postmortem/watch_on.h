/* watch -p PID --on EVENT: a core of a running process the moment EVENT happens
 * (postmortem/watch_on.c). cli/watch_on.c parses the options and calls these. */
#ifndef POSTMORTEM_WATCH_ON_H
#define POSTMORTEM_WATCH_ON_H
#include <stddef.h>

/* An EVENT as parsed: one of node's functions (uncaught, exit, oom), a signal, or the heap's size. */
typedef struct {
    const void *call; /* uncaught, exit, oom: the functions probed (NULL otherwise) */
    int sig;          /* signal:SIG: its number (0 otherwise) */
    double heap_pct;  /* heap:PCT: the share of V8's heap limit (0 otherwise) */
} pm_watch_event_t;

/* EVENT ("uncaught", "exit", "oom", "signal:SIG", "heap:PCT") into *ev: 0, or -1 with the usage
 * error's text (one line) in err. */
int pm_watch_parse(const char *on, pm_watch_event_t *ev, char *err, size_t errsz);

/* DIR, made when it is not there yet (one level, as mkdir does): 0, or -1 with the error said. */
int pm_watch_cores_dir(const char *dir);

/* Watches pid until max cores (core.PID.EVENT.N in dir) are written, the process exits or execs,
 * or SIGINT/SIGTERM/SIGHUP arrive; says each core on stderr as it is written (verbose: also how
 * long the fork took, or each heap poll). `on` is EVENT as given, for the messages. Every exit
 * path leaves the process running and untraced (target/trigger.h). EXIT_OK, or EXIT_FAIL (also
 * when no core was written) with the cause said. */
int pm_watch_run(long pid, const pm_watch_event_t *ev, const char *on, const char *dir, long max, int verbose);

#endif
