/* One recording by the live sampler, supervised: start the program (or take the process to
 * attach to), sample every thread until the program ends, -d elapses or the user stops it,
 * and add the samples to a profile. No V8 flags, no perf, no side files.
 *
 * Stopping is perf_session's policy: SIGINT, SIGTERM and SIGHUP sent to nodescope are
 * forwarded to a program nodescope started (one the terminal already sent the whole group is
 * not sent twice) and sampling goes on until it exits, so its last moments are in the profile;
 * a second signal, or the program still running STOP_GRACE seconds after the first, kills it.
 * An attached process is never signalled: sampling stops and the process runs on untouched.
 * Several processes: the program and the node processes it starts (children), a list of pids,
 * or every node process on the host (all), each sampled by its own live sampler. */
#ifndef RECORD_LIVE_SESSION_H
#define RECORD_LIVE_SESSION_H
#include "profile/profile.h"
#include "record/live_sampler.h"

typedef struct {
    char **argv;     /* the program to start (execvp), NULL-terminated; NULL when attaching */
    const int *pids; /* the processes to sample when attaching (-p PID1,PID2,...) */
    int npids;
    int children;                       /* also every node process the program (or the pids) start, at any depth */
    int all;                            /* every node process on the host the caller may trace, new ones included */
    int sample_root;                    /* argv is node: sample it (0: a wrapper, only its node descendants) */
    double hz;                          /* samples a second per thread */
    double duration_s;                  /* stop after this long; 0 = when the program ends */
    int wall;                           /* wall-clock: threads off the CPU count too (live_sampler_start_wall) */
    const struct record_events *events; /* record -e: sampled on these events (live_sampler_start_opts) */
    void (*on_sample)(void *ctx, const profile_t *p, uint32_t leaf, double weight, uint64_t time_ns);
    void *ctx; /* on_sample's (may be NULL): each sample as it is added */
} live_session_opts_t;

typedef struct {
    int target;         /* the program's pid, or the first pid attached to (0 when none) */
    int exit_status;    /* a started program's status as a shell shows it (128+N when killed) */
    int stopped;        /* nodescope stopped the program or the sampling: a signal or -d */
    int killed;         /* the program had to be killed (SIGKILL) */
    int nprocs;         /* processes sampled */
    live_stats_t stats; /* summed over the processes */
    char problem[1024]; /* why a process's binaries may be the wrong ones (target_problem), or "" */
    int other_mount_ns; /* one ran in another mount namespace (a container) */
} live_session_result_t;

/* Runs to the end, adding the samples to out, each process's threads under their (pid, tid).
 * Returns 0, or -1 when the program could not be started or a process given not sampled (error
 * printed; a started program has then been ended).
 *
 * Processes are found by reading /proc every FOLLOW_SCAN_MS (children: those whose parent is the
 * program, a pid given or one found before; all: every node process), and sampled once node has
 * started its platform threads: nothing is attached to them, so nothing can be left behind (the
 * perf events close with nodescope, however it ends) and their signals, exit status and children
 * are theirs. A process that lives less than a scan may be missed. */
int live_session_run(const live_session_opts_t *o, profile_t *out, live_session_result_t *r);

#endif
