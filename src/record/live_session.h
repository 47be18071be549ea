/* One recording by the live sampler, supervised: start the program (or take the process to
 * attach to), sample every thread until the program ends, -d elapses or the user stops it,
 * and add the samples to a profile. No V8 flags, no perf, no side files.
 *
 * Stopping is perf_session's policy: SIGINT, SIGTERM and SIGHUP sent to nodescope are
 * forwarded to a program nodescope started (one the terminal already sent the whole group is
 * not sent twice) and sampling goes on until it exits, so its last moments are in the profile;
 * a second signal, or the program still running STOP_GRACE seconds after the first, kills it.
 * An attached process is never signalled: sampling stops and the process runs on untouched. */
#ifndef RECORD_LIVE_SESSION_H
#define RECORD_LIVE_SESSION_H
#include "profile/profile.h"
#include "record/live_sampler.h"

typedef struct {
    char **argv;          /* the program to start (execvp), NULL-terminated; NULL when attaching */
    int attach_pid;       /* the process to sample; 0 = start argv */
    double hz;            /* samples a second per thread */
    double duration_s;    /* stop after this long; 0 = when the program ends */
    int wall;             /* wall-clock: threads off the CPU count too (live_sampler_start_wall) */
} live_session_opts_t;

typedef struct {
    int target;           /* the program's pid (0 when it never started) */
    int exit_status;      /* a started program's status as a shell shows it (128+N when killed) */
    int stopped;          /* nodescope stopped the program or the sampling: a signal or -d */
    int killed;           /* the program had to be killed (SIGKILL) */
    live_stats_t stats;
    char problem[1024];   /* why the process's binaries may be the wrong ones (target_problem), or "" */
    int other_mount_ns;   /* it ran in another mount namespace (a container) */
} live_session_result_t;

/* Runs to the end, adding the samples to out. Returns 0, or -1 when the program could not be
 * started or the process not sampled (error printed; a started program has then been ended). */
int live_session_run(const live_session_opts_t *o, profile_t *out, live_session_result_t *r);

#endif
