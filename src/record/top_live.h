/* nodescope top -p PID: a live table of where a running node process spends its time (the
 * sampler, the redraw loop and the report; cli/top.c parses the options). */
#ifndef RECORD_TOP_LIVE_H
#define RECORD_TOP_LIVE_H
#include "formats/text_report.h"

typedef struct {
    int pid;
    double hz;         /* samples a second per thread */
    double duration;   /* seconds; 0: until Ctrl-C or the process ends (--once: 1) */
    double interval;   /* seconds between redraws */
    int once;          /* sample, print one report, exit */
    int wall;          /* wall-clock: threads off the CPU count too, under a "(wait: ...)" leaf */
    int threads_merge; /* one root instead of a root per thread role */
    text_report_opts_t report;
} top_live_opts_t;

/* 0, or -1 after printing why. */
int top_live(const top_live_opts_t *o);

#endif
