/* record --perf: the whole perf recording around one perf_session run (record/perf_record.c).
 * cli/record.c checks the options, calls perf_record_run, writes OUT, calls perf_record_end. */
#ifndef RECORD_PERF_RECORD_H
#define RECORD_PERF_RECORD_H
#include "profile/profile.h"
#include "record/perf_session.h"
#include "record/program.h"

typedef struct {
    char **prog; /* the command to run (nprog words), or */
    int nprog;
    int attach;       /* the pid to attach to (0: run prog) */
    double freq;      /* -F HZ */
    double duration;  /* -d S (0: until the program ends or a signal) */
    const char *keep; /* --keep DIR: the recording's files are kept there (NULL: a temporary dir) */
} perf_record_opts_t;

typedef struct {
    int ran;                  /* perf ran (else it could not be started: said) */
    perf_session_result_t sr; /* how perf and the program ended */
    int imported;             /* the recording was read into the profile */
    int named;                /* JS names are time-correct from the journal */
    /* private: what perf_record_end cleans up */
    record_program_t rp;
    char dir[4096];
} perf_record_t;

/* Checks perf and the program (or process) before anything runs, records with perf into a
 * directory (o->keep or a temporary one) journaling the program's perf map, removes V8's
 * isolate-*-PID-v8.log side files of a program it started, and reads the recording into p.
 * Installs stop_signals (record/stop_signals.h) before perf starts. -1 when nothing could run (the
 * cause said, nothing to clean up); else 0: r->ran whether perf ran, r->sr how it ended,
 * r->imported whether p holds the recording; perf_record_end must follow. */
int perf_record_run(const perf_record_opts_t *o, perf_record_t *r, profile_t *p);

/* The program's perf map moved into --keep's directory or removed (an attached process keeps its
 * own), the temporary directory removed, r freed. */
void perf_record_end(perf_record_t *r, const perf_record_opts_t *o);

#endif
