/* The perf map journal: while a program runs, how large its perf-PID.map was at
 * which CLOCK_MONOTONIC time. Lines "MONOTONIC_NS SIZE". With it, a sample taken
 * at time t resolves against the entries the runtime had written by t. */
#ifndef SYMBOLS_JOURNAL_H
#define SYMBOLS_JOURNAL_H
#include <stdint.h>
#include <stdio.h>

typedef struct {
    FILE *out;
    char map_path[256];
    int inotify_fd, watch;
    int64_t last_size;
    int realtime; /* the journalling process runs SCHED_FIFO */
} map_journal_t;

/* Starts journalling the map of pid into out_path. Returns 0 or -1 (error printed). */
int map_journal_start(map_journal_t *j, int pid, const char *out_path);
/* Waits up to timeout_ms for the map to change and appends a line when its size did. */
void map_journal_poll(map_journal_t *j, int timeout_ms);
void map_journal_stop(map_journal_t *j);
uint64_t monotonic_ns(void);

#endif
