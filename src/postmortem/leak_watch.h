/* The leak watch (`watch -p PID --heap`, postmortem/leak_watch.c): censuses of a running process's
 * heap every few seconds until a duration, a count, a stop or the process's end, each from a copy
 * of the process at one instant (a tracked copy, a forked one, or the process itself with live),
 * fitted as they come (postmortem/leak.c); the last one explains what grew. The command parses
 * options and chooses the output; the text pieces it prints are postmortem/leak_report.h's. */
#ifndef POSTMORTEM_LEAK_WATCH_H
#define POSTMORTEM_LEAK_WATCH_H
#include "postmortem/leak.h"
#include "postmortem/leak_report.h"
#include <stddef.h>

typedef struct pm_leak_watch pm_leak_watch_t;

typedef struct {
    int pid;
    const char *cmdline;         /* the process's, for the report */
    double every;                /* seconds between censuses */
    double duration;             /* stop after it (seconds); 0: no limit */
    long censuses;               /* stop after this many; 0: no limit */
    int all;                     /* PM_COUNT_ALL: every object on the heap's pages */
    int live;                    /* the running process itself, not a copy (implies all) */
    int fork_copy;               /* a forked copy even where writes can be tracked */
    int no_paths;                /* no retainer paths nor retained sizes at the end */
    int (*stop_requested)(void); /* Ctrl-C and the like: the census due now is the last */
    int (*is_node)(int pid);     /* a node process (the processes under pid are looked at) */
    /* after each census (final: the last one), for the command's table; may be NULL */
    void (*on_census)(void *ctx, const pm_leak_watch_t *w, int final);
    void *ctx;
} pm_leak_watch_opts_t;

struct pm_leak_watch {
    pm_leak_t *L;
    pm_leak_class_t *cls; /* the fit after the last census */
    size_t ncls;
    pm_leak_meta_t meta; /* ended and partial set at the end */
    int failed;          /* an error was said: exit 1 */
    int explained;       /* the last census explained what grew */
    long in_gc_retries;  /* copies taken again: the first caught a garbage collection */
};

/* Runs the watch: first says on stderr when the process runs npm (npx, yarn, pnpm) or has node
 * processes under it (a cluster's primary), whose heap is not the program's or not all of it;
 * then censuses until the end; then says why the answer is partial, if it is. w is filled. */
void pm_leak_watch_run(const pm_leak_watch_opts_t *o, pm_leak_watch_t *w);
/* --fail-if-growth CLASS>N/min: 0, or -1 after saying why (it grew faster; no rate to check). */
int pm_leak_watch_gate(const pm_leak_watch_t *w, const char *name, double per_min);
/* The last words on stderr (the process exited, copies taken again); -1 when no census was taken
 * without an error said. */
int pm_leak_watch_end(const pm_leak_watch_t *w);
void pm_leak_watch_free(pm_leak_watch_t *w);

#endif
