/* A callchain line's frames (perf_frames.c), for perf_script.c's sample folding. */
#ifndef FORMATS_PERF_FRAMES_H
#define FORMATS_PERF_FRAMES_H
#include "formats/perf_reader.h"
#include <pthread.h>
#include <stddef.h>

/* perf_frames.c: a callchain line (text after its leading blanks) tidied into frames, appended
 * leaf-first to the sample being read; JIT lines asked of the resolver under perf_resolver_mu
 * (the workers of perf_parallel.c share one resolver). */
void perf_add_line(perf_reader_t *r, const char *s, size_t n);
extern pthread_mutex_t perf_resolver_mu;
/* Counts an unrecognised line; keeps the first one's number (deferred lines are read after
 * the event line of their sample, so the earliest is not always the first counted). */
void perf_note_unrecognised(perf_reader_t *r, long line);

#endif
