/* The text of `nodescope map find` and `map stats` (formats/perfmap_report.c), written to f. */
#ifndef FORMATS_PERFMAP_REPORT_H
#define FORMATS_PERFMAP_REPORT_H
#include "formats/perfmap_tools.h"
#include "symbols/perfmap.h"
#include <stdint.h>
#include <stdio.h>

/* The entries of m that cover addr (file:line, start, size, name; the newest marked when several,
 * and a jitdump source line when m has one); "no entry ... covers" when none. Returns how many. */
size_t perfmap_find_write(perfmap_t *m, uint64_t addr, FILE *f);
/* m's counts: entries, span, overlapped and repeated entries, entries by kind (perfmap_stats).
 * 0, or -1 after an error when m has no symbols (empty, or every line malformed). */
int perfmap_stats_write(perfmap_t *m, FILE *f);

#endif
