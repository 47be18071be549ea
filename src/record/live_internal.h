/* What the live sampler's files share, bottom up: live_take.c (one sample named and added),
 * live_events.c (record -e: the samples of other events than the CPU clock, their labels and
 * weights), live_drain.c (a thread's rings drained into samples), live_sampler.c (threads, rings,
 * the loop). Each calls only those before it. Not for other modules. */
#ifndef RECORD_LIVE_INTERNAL_H
#define RECORD_LIVE_INTERNAL_H
#include "record/events.h"
#include "record/gc_watch.h"
#include "record/live_opts.h"
#include "record/perf_ring.h"
#include "record/stack_need.h"
#include "util/hash.h"
#include "v8/v8.h"
#include <poll.h>

#define NO_THREAD UINT32_MAX
#define STACK_BYTES 16384 /* a thread's first stack copy (stack_need.h: then what it needs) */

/* --wall: the sample the kernel took when the thread last left the CPU, kept until it is back
 * (then the wall-clock ticks it was away for are known) */
typedef struct {
    int set, preempted;
    uint64_t out_ns, regs[ARCH_MAX_REGS], len;
    uint8_t stack[STACK_BYTES];
} off_cpu_t;

/* -e gc: a GC begun on the thread, its sample taken, its pause not yet known */
#define GC_NEST 4
typedef struct {
    uint32_t leaf;
    uint64_t start_ns;
    int kind;
} gc_open_t;

typedef struct {
    int fd, tid; /* fd: the event whose ring the thread's samples are in */
    perf_ring_t ring;
    event_set_t set; /* -e: the thread's events (set.fd[0] is fd); n == 0 without -e */
    uint32_t thread; /* its index in the profile's thread table (profile.h "Threads"); NO_THREAD
                           until the process is opened (live_sampler_early) or has a sample */
    char name[16];   /* its name (comm) */
    int sw_fd;       /* --wall: its context-switch event (-1: none) */
    /* the jitter's bookkeeping: the current period (ns of the thread's CPU time), the samples
       taken since it was set, and the CLOCK_MONOTONIC time of the latest */
    uint64_t period, last_sample_ns;
    unsigned long period_samples;
    perf_ring_t sw_ring;
    off_cpu_t *off;
    int woken;         /* its event wakes the poller for each sample (woken_per_sample) */
    int js;            /* it may run JavaScript (gc probes) */
    stack_need_t need; /* how much of its stack the samples copy, and need to */
    gc_watch_t *gc;    /* the main thread: its process's full GCs (NULL: another thread, or not watched) */
    gc_open_t gc_open[GC_NEST];
    int ngc_open;
    uint64_t gc_begin_ns;   /* -e gc: when the pause of the GC about to start began (CollectGarbage) */
    uint64_t dup_before_ns; /* -e: samples taken before this are the replaced events' too (set_copy) */
} thread_ev_t;

/* -e: a file descriptor's path, read from /proc/PID/fd when first seen and again after a second */
#define FD_CACHE 64
typedef struct {
    int fd;
    uint64_t at_ns;
    char path[200];
} fd_name_t;

struct live_sampler {
    target_t *t;         /* NULL until live_sampler_ready (live_sampler_early): samples wait */
    gc_watch_t *gc;      /* the main thread's full GCs; NULL when they cannot be watched. One a
                              sampler: samplers of several processes run side by side (live_session) */
    uint64_t gc_from_ns; /* when gc was opened: it tells nothing of samples taken before */
    v8_t *v;
    profile_t *out;
    live_opts_t o;
    int pid;
    thread_ev_t *te; /* the threads being sampled; ended ones are closed and dropped */
    size_t n, cap;
    struct pollfd *pf;
    double next_scan;
    int first_err, wall_err;
    int first_ev;   /* -e: the event whose opening failed first */
    uint64_t cpu0;  /* CPU time at the start */
    u64map_t names; /* native frames' names (name_key) */
    live_stats_t st;
    /* -e */
    event_probes_t probes;
    uint64_t period[EVENTS_MAX];        /* each event's period now (--max-rate raises it) */
    uint64_t period_before[EVENTS_MAX]; /* and before its last change, at period_ns (a sample taken
                                             before it weighs the period it was taken at) */
    uint64_t period_ns[EVENTS_MAX];
    unsigned long window[EVENTS_MAX]; /* samples since window_ns */
    uint64_t window_ns;
    fd_name_t fds[FD_CACHE];
};

/* One sample to name and add: its time, registers and stack copy; weight in the profile and
 * timeline ticks (ticks == 0: the stack only, no timeline sample; a --wall stay: ticks from
 * tick0_ns every step_ns); label (may be NULL): a leaf frame of kind label_kind. The leaf node. */
typedef struct {
    uint64_t time_ns;
    const uint64_t *regs;
    const uint8_t *stack;
    uint64_t stack_len;
    int off_cpu, preempted;
    unsigned long ticks;
    uint64_t tick0_ns, step_ns;
    double weight;
    const char *label;
    frame_kind_t label_kind;
} live_sample_in_t;
/* The input for one perf sample e (a CPU tick or an event), weight in the profile: one timeline tick. */
static inline live_sample_in_t live_sample_of(const event_sample_t *e, double weight)
{
    return (live_sample_in_t){.time_ns = e->time,
                              .regs = e->regs,
                              .stack = e->stack,
                              .stack_len = e->stack_len,
                              .ticks = 1,
                              .tick0_ns = e->time,
                              .weight = weight};
}
uint32_t live_take_sample(live_sampler_t *s, thread_ev_t *te, const live_sample_in_t *in);
/* live_drain.c: the thread's rings drained into samples */
void live_drain(live_sampler_t *s, thread_ev_t *te);
/* a thread still off the CPU (or gone): its stay counted as ending at now_ns */
void live_off_cpu_end(live_sampler_t *s, thread_ev_t *te, uint64_t now_ns);

/* live_events.c: a record of a thread's -e ring */
void live_event_record(live_sampler_t *s, thread_ev_t *te, const struct perf_event_header *h, const uint8_t *q,
                       const uint8_t *end);
/* opens thread te's events (te->tid, te->woken, te->js) copying copy bytes: its set, the ring's
   owner's fd (or -1, errno set) and its ring */
int live_events_open(live_sampler_t *s, thread_ev_t *te, uint32_t copy, size_t pages, event_set_t *set,
                     perf_ring_t *ring);
/* the events the kernel counted on a thread's set (before it is closed) */
void live_events_count(live_sampler_t *s, const event_set_t *set);
/* --max-rate: each event's rate over the last window, its period raised or lowered */
void live_events_pace(live_sampler_t *s);
#endif
