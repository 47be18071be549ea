/* What a live sampler is given and what it counts (live_sampler.h is the sampler): its options
 * (live_opts_t) and its counts (live_stats_t), the types its callers fill and read and its own
 * files (live_internal.h) hold, below all of them. */
#ifndef RECORD_LIVE_OPTS_H
#define RECORD_LIVE_OPTS_H
#include "profile/profile.h"
#include <stdint.h>

typedef struct live_sampler live_sampler_t;

typedef struct {
    unsigned long samples, lost, threads, empty; /* empty: samples without a frame decoded */
    unsigned long partial;      /* samples whose JS frames were left unnamed: read too late, or moved by a GC */
    unsigned long late;         /* of those, read too late (not those a full GC began after: moved) */
    unsigned long late_named;   /* read too late, but named: no full GC ran since (record/gc_watch.h) */
    long full_gcs;              /* full GCs of the main thread seen meanwhile; -1: not watched */
    unsigned long off_cpu;      /* --wall: samples of threads off the CPU (blocked or waiting for it) */
    unsigned long long busy_ns; /* time spent naming samples (wall-clock: waits for a CPU included) */
    unsigned long long cpu_ns;  /* nodescope's CPU time while sampling: reading the rings, naming, polling */
    unsigned long copy_changes; /* events opened again with another stack copy (record/stack_need.h) */
    unsigned long short_copies; /* samples with frames that may have changed beyond the copy */
    unsigned long cut;          /* samples cut short, under "(outer frames ...)": where a return
                                     address cannot be one (beyond the copy: it changed; within: the
                                     frame chain broke), or over 512 frames (live_take.c) */
    unsigned long jit;          /* samples with a frame in V8's JIT code (anonymous executable memory),
                                     not left unnamed on purpose (partial) */
    unsigned long jit_unnamed;  /* of those, samples that name no JavaScript function: the wrong node
                                     binary read, V8's metadata not matching, ... (target_problem) */
    unsigned long exited;       /* samples with frames left unnamed because the process exited before
                                     they were read: its memory gone (its JS frames), or never opened
                                     (the whole sample): under UNNAMED_EXITED(_JS), live_take.c */
    /* -e: the events the kernel counted on the threads sampled (every one, sampled or not), the
       kernel's throttle records, and the samples --max-rate's periods skipped (its own) */
    unsigned long long events, events_weight; /* events_weight: what the samples' periods add up to */
    unsigned long throttled;
    unsigned long long duplicates; /* samples (and counts) of two events at once, left out (events
                                        excludes them) */
} live_stats_t;

/* Every choice of a sampler (live_sampler_start_opts): with events (record -e, record/events.h)
 * each thread is sampled on them instead of its CPU clock; on_sample (may be NULL) is called with
 * each sample's leaf node as it is added (a GC's: when it ends). */
struct record_events;
typedef struct {
    double hz;
    int wall;
    const struct record_events *events; /* NULL: the CPU clock */
    void (*on_sample)(void *ctx, const profile_t *p, uint32_t leaf, double weight, uint64_t time_ns);
    void *ctx;
} live_opts_t;
#endif
