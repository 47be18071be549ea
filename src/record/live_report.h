/* What a live recording says (record/live_report.c): --print's and --count's stacks on stdout,
 * the events the kernel counted against those sampled, and the "wrote OUT (N samples; ...)"
 * summary on stderr. cli/record.c decides when each is said. */
#ifndef RECORD_LIVE_REPORT_H
#define RECORD_LIVE_REPORT_H
#include "formats/format.h"
#include "record/events.h"
#include "record/live_session.h"
#include <stdio.h>

/* --print: each sample's stack on stdout as it is taken, leaf first, the first LIVE_PRINT_MAX. */
#define LIVE_PRINT_MAX 1000
typedef struct {
    unsigned long printed, more; /* printed, and not printed past LIVE_PRINT_MAX */
    const char *unit;            /* the weight's unit */
} live_print_t;
/* live_session_opts_t.on_sample for --print (ctx: a live_print_t). */
void live_report_sample(void *ctx, const profile_t *p, uint32_t leaf, double weight, uint64_t time_ns);

/* --count: every stack of p with its weight on stdout, the heaviest last (as DTrace prints an
 * aggregation), then the total in unit; st (NULL: none) adds the events the kernel counted. */
void live_report_counts(const profile_t *p, const char *unit, const live_stats_t *st);

/* -e: warns when more than 1% of the events were not sampled though every one was asked for
 * (nodescope fell behind), as the weights then count too few. */
void live_report_missed(const live_stats_t *st, const record_events_t *e);

/* "; N events counted by the kernel[, M not sampled (why)]" on f. */
void live_report_events(const live_stats_t *st, const record_events_t *e, FILE *f);

/* The summary line on stderr: "nodescope: wrote OUT (N samples[; events][ of K processes]
 * [; partial, off the CPU, lost][; -v: the sampler's costs])". */
void live_report_wrote(const char *out, double samples, const live_session_result_t *sr, const record_events_t *e,
                       int wall);

/* The pids of the processes whose threads p holds, in order of appearance; their count. */
int live_report_pids(const profile_t *p, int *pids, int max);

/* Samples in what OUT holds with wo: a .cpuprofile holds one thread (main by default), not all. */
double live_report_samples_written(const profile_t *p, const char *out, const write_opts_t *wo);

#endif
