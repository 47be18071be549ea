/* When a live node process's main thread runs a full garbage collection. Between a sample and
 * the moment the sampler reads the heap to name it, a full GC may free code and bytecode and put
 * other functions' in their place, or move old objects (compaction); with none in between, what a
 * sample's code and bytecode say still holds however late the sample is read. Scavenges move
 * only young objects (closures, not code or bytecode): they do not count here.
 *
 * Uprobes on V8's Heap::MarkCompact, at its entry and its return, through perf_event_open: the
 * kernel stamps each with CLOCK_MONOTONIC. The process is not stopped; the probes go when the
 * watch is closed or nodescope exits, however it exits. Not available without the symbol (a
 * stripped node) or the privilege for uprobes: then the sampler keeps its time limit. */
#ifndef RECORD_GC_WATCH_H
#define RECORD_GC_WATCH_H
#include "target/target.h"
#include <stdint.h>

typedef struct gc_watch gc_watch_t;
/* Watches thread tid (the main thread: its isolate's GCs run on it). NULL when not available. */
gc_watch_t *gc_watch_open(target_t *t, int tid);
/* The same without a target, for a process not yet opened (live_sampler_early): only when its
 * executable file, or the library V8 is in (the same inode, size and mtime), is one gc_watch_open has probed before in this
 * run (the symbol's offset is kept; -a and --children meet the same node again and again). */
gc_watch_t *gc_watch_open_known(int tid);
/* What full GCs did from since_ns (CLOCK_MONOTONIC) to now. */
typedef enum {
    GC_UNKNOWN, /* no watch */
    GC_QUIET,   /* none ran at any time */
    GC_RAN,     /* one was running at since_ns, or is still: objects may have moved */
    GC_BEGAN,   /* one began after since_ns, or it cannot tell (events lost): objects may have
                     been freed and others put in their place */
} gc_since_t;
gc_since_t gc_watch_since(gc_watch_t *w, uint64_t since_ns);
/* Full GCs seen so far. */
unsigned long gc_watch_count(const gc_watch_t *w);
void gc_watch_close(gc_watch_t *w);
#endif
