/* Turning a perf recording into a profile: `perf script` on perf.data, JIT names
 * resolved against the program's perf map and the journal of its growth, read by
 * the perf script reader. Also: can perf record here at all. */
#ifndef RECORD_PERF_IMPORT_H
#define RECORD_PERF_IMPORT_H
#include "profile/profile.h"

/* 0 when perf runs and may profile (root, or perf_event_paranoid <= 2); else -1 with
 * an error saying how to fix it. */
int perf_import_check_perf(void);

/* Reads DIR/perf.data (and DIR/map-journal.txt when journaled) into p, naming JIT
 * frames from /tmp/perf-TARGET.map. *named is set when that map was used.
 * Returns 0, or -1 after an error. verbose prints the resolver's statistics. */
int perf_import(const char *dir, int target, int journaled, profile_t *p, int *named);

#endif
