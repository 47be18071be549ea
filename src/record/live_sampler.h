/* The live sampler: samples a running node process without stopping it and without flags.
 * One perf_event per thread (software CPU clock at the requested frequency) copies the user
 * registers and the top of the stack at each sample (16 KiB at first, then what the thread's samples
 * need: 4-32 KiB, record/stack_need.h); the frame-pointer chain is walked in that copy (the process's memory
 * beyond it), and the frames are decoded and named by v8/, as
 * `core stack` names them, within milliseconds of the sample (before a GC can move the objects). */
#ifndef RECORD_LIVE_SAMPLER_H
#define RECORD_LIVE_SAMPLER_H
#include "profile/profile.h"
#include "record/live_opts.h"
#include "target/target.h"
#include "v8/v8.h"


/* Samples the running target for seconds at hz, adding each sample's stack (root first, under a
 * root frame naming the thread: "node [main]", "node [TID name]") and a timeline sample (CLOCK_MONOTONIC
 * microseconds) to out. v may be NULL (native frames only). 0, or -1 after printing why (with the
 * fix for perf_event_paranoid). Stops early when *stop becomes nonzero (may be NULL). */
int live_sample_target(target_t *t, v8_t *v, double hz, double seconds, profile_t *out, live_stats_t *stats,
                       volatile int *stop);
/* The same in steps, for a caller that supervises something meanwhile (record): start samples
 * every thread of the target and, from then on, every thread it starts; poll waits up to
 * timeout_ms for samples, names and adds them, and returns how many threads are still sampled
 * (0: the process is gone); stop adds what remains and frees (stats may be NULL). start returns
 * NULL after printing why, except when the process is already gone: then errno is ESRCH and
 * nothing is printed. */
live_sampler_t *live_sampler_start(target_t *t, v8_t *v, double hz, profile_t *out);
/* The same, wall-clock when wall is set: a thread off the CPU (blocked in the kernel, or runnable
 * and waiting for a CPU) counts too, at the same rate, under the stack it left the CPU with and a
 * leaf frame naming what it waits in: "(wait: epoll)", "(wait: futex)", "(wait: read)", ...,
 * "(wait: preempted)". The kernel's context-switch samples give that stack (the process is never
 * stopped); they need root or CAP_PERFMON (or perf_event_paranoid 1). A thread is counted from its
 * first switch after the start: one blocked for the whole recording does not appear. */
live_sampler_t *live_sampler_start_wall(target_t *t, v8_t *v, double hz, int wall, profile_t *out);
/* The same with every choice: with events (record -e, record/events.h) each thread is sampled on
 * them instead of its CPU clock, each sample weighing its period (EVENT/N: N; --max-rate may raise
 * it), --weight bytes its count argument, gc its pause (ns), under a leaf frame saying what it is
 * where that helps: "(write: /var/log/app.log)", "(gc: scavenge)", "(openat)". on_sample (may be
 * NULL) is called with each sample's leaf node as it is added (a GC's: when it ends). */
/* (live_opts_t: record/live_opts.h) */
live_sampler_t *live_sampler_start_opts(target_t *t, v8_t *v, const live_opts_t *o, profile_t *out);
/* The same in two steps, for a process just found (record -a, --children), which opening (its
 * maps, every binary's symbols, V8's metadata: 0.1-0.5 s) would leave unsampled, and one that
 * exits meanwhile unrecorded: early opens the events of every thread of pid at once (the CPU clock,
 * --wall; not -e: NULL, errno EINVAL), their samples wait in the rings (~30 a thread; more are
 * lost, counted); ready gives it the process opened, and the samples waiting are named (the memory
 * is still there; their JS frames keep their names if the GC watch, opened early when this node
 * binary was met before, saw no full GC since). Then poll and stop as above. A process that exited
 * before it could be opened: stop without ready, and every sample waiting is added under its thread
 * as "(process exited before nodescope could read it)", counted in stats.exited. discard: closes
 * everything, nothing added (a process that is not node after all). early returns NULL after
 * printing why (ESRCH: nothing printed, the process is gone). */
live_sampler_t *live_sampler_early(int pid, const live_opts_t *o, profile_t *out);
void live_sampler_ready(live_sampler_t *s, target_t *t, v8_t *v);
void live_sampler_discard(live_sampler_t *s);
/* The bytes of samples waiting in its rings (before ready: has it run since it was found?). */
size_t live_sampler_waiting(const live_sampler_t *s);
/* Reads what the threads' rings hold, after waiting up to LIVE_READ_MS: samples do not wake the
 * reader (live_sampler.c, open_event), so the caller loops on this and does its pacing (-d,
 * signals, the process's exit) between calls. The number of threads still sampled. */
#define LIVE_READ_MS 5
int live_sampler_poll(live_sampler_t *s);
/* The same, waiting up to timeout_ms (0: what the rings hold now): a caller sampling several
 * processes waits in one of them and reads the others as they are. */
int live_sampler_poll_ms(live_sampler_t *s, int timeout_ms);
void live_sampler_stop(live_sampler_t *s, live_stats_t *stats);
/* The counts so far, while sampling goes on. */
void live_sampler_stats(const live_sampler_t *s, live_stats_t *stats);
/* The same, opening the process (read-only) and V8's metadata itself. */
int live_sample(int pid, double hz, double seconds, profile_t *out, live_stats_t *stats);
/* After sampling: the samples in V8's JIT code that name no JavaScript function. Above 5% of them a
 * warning with the cause found (problem: target_problem's, may be NULL or ""; other_mount_ns: the
 * process ran in a container), none named an error: -1 then, 0 otherwise. */
int live_stats_check_named(const live_stats_t *st, const char *problem, int other_mount_ns);
/* The counts as JSON members for a report (",\"samples\":N,\"jitSamples\":J,\"jitUnnamed\":U,
 * \"exitedUnread\":E,\"stacksCut\":C"), in out. */
void live_stats_json(const live_stats_t *st, char *out, size_t cap);
#endif
