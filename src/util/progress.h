/* One progress line on stderr for long work (reading a big input, walking a heap), shown only
 * when stderr is a terminal, refreshed at most five times a second, and erased when done.
 * Cheap enough to call per item: the clock is read only every 4096 calls. */
#ifndef UTIL_PROGRESS_H
#define UTIL_PROGRESS_H
#include <stdint.h>

typedef struct {
    const char *what; /* shown first: a file name, "walking the heap" */
    const char *unit; /* "MB", "objects", ... */
    int enabled;      /* stderr is a terminal */
    double last;      /* when the line was last drawn; 0 = never */
    unsigned calls;
} progress_t;

void progress_init(progress_t *p, const char *what, const char *unit);
/* done of total (total <= 0 when unknown: then only done is shown). */
void progress_update(progress_t *p, uint64_t done, uint64_t total);
/* The same, reading the clock on every call (for callers that already call rarely). */
void progress_update_now(progress_t *p, uint64_t done, uint64_t total);
/* Erases the line if one was drawn. */
void progress_done(progress_t *p);

#endif
