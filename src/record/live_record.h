/* record's default recording: the live sampler on the program it starts, the processes it
 * attaches to, or every node process (record/live_record.c). cli/record.c checks the options,
 * calls live_record_run, prints --count's stacks, maps source maps, calls live_record_write and
 * live_record_end. */
#ifndef RECORD_LIVE_RECORD_H
#define RECORD_LIVE_RECORD_H
#include "record/events.h"
#include "record/live_report.h"
#include "record/live_session.h"
#include "record/program.h"

typedef struct {
    char **prog; /* the command to run (nprog words), or */
    int nprog;
    const int *pids; /* the processes to attach to (-p), or */
    int npids;
    int all;                       /* -a: every node process */
    int children;                  /* --children (1: asked for; a node command's are always taken) */
    double hz, duration;           /* -F, -d (0: until the program ends or a signal) */
    int wall;                      /* --wall */
    const record_events_t *events; /* -e (NULL: the CPU clock) */
    int print;                     /* --print: each sample's stack on stdout as it is taken */
} live_record_opts_t;

typedef struct {
    int ran;                       /* the session ran (else why not was said) */
    live_session_result_t sr;      /* how it ended, its counts */
    profile_t *p;                  /* the samples (thread_pids set with several processes or -a) */
    char unit[256];                /* what the weights count: samples, or the events' unit */
    live_print_t print;            /* --print's counts */
    int none;                      /* no node process was sampled (said as an error) */
    int pids[256], npids;          /* the processes p holds, in order of appearance */
    record_program_t rp;           /* private: the program resolved */
    const record_events_t *events; /* private: the options' */
    int wall;
} live_record_t;

/* Checks the processes and the program before anything runs (-1, said, nothing to end), then
 * installs stop_signals (until nodescope exits) and samples to the end (0; live_record_end must
 * follow). After a run, "no node process" is said as an error and "no samples" as a warning. */
int live_record_run(const live_record_opts_t *o, live_record_t *r);
/* Writes the recording to out with wo (formats/write_file.h). A .cpuprofile holds one thread:
 * with several processes, out holds the first one's main thread (the program's, or the first
 * pid's; wo->thread picks another) and out's name with .PID before the extension each process's
 * main thread, app.cpuprofile -> app.1234.cpuprofile, each said as written; then the summary line
 * (live_report_wrote) unless quiet. 0, or -1 (said). */
int live_record_write(const live_record_t *r, const char *out, const write_opts_t *wo);
void live_record_end(live_record_t *r);

#endif
