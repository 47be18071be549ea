/* What `nodescope map` does to perf-PID.map files and perf script text, without printing
 * (formats/perfmap_tools.c): tidy a map, count its kinds of entries, relabel JIT frames. */
#ifndef FORMATS_PERFMAP_TOOLS_H
#define FORMATS_PERFMAP_TOOLS_H
#include "symbols/jit_resolver.h"
#include "symbols/perfmap.h"
#include "util/input.h"
#include <stdio.h>

/* Writes m's entries that no later entry overlaps, sorted by address, in perf-map format
 * ("START SIZE name", hex) to f; returns how many. */
size_t perfmap_tidy_write(const perfmap_t *m, FILE *f);

typedef struct {
    size_t overlapped; /* entries a later entry overlaps */
    size_t reused;     /* entries repeating an earlier entry's exact start and size */
    uint64_t lo, hi;   /* the addresses covered (lo > hi when there are no entries) */
    unsigned long js_turbofan, js_maglev, js_sparkplug, js_interpreted, js_other;
    unsigned long eval, builtin, bytecode, regexp, other; /* by the name's prefix (Builtin:, ...) */
} perfmap_stats_t;

/* m's entries counted (map stats). */
void perfmap_stats(const perfmap_t *m, perfmap_stats_t *st);

/* Copies perf script text from in to out, each callchain line of a JIT-like module the resolver
 * names with that name in place of perf's symbol (address, blanks and " (MODULE)" unchanged,
 * each sample's time from its event line); every other line byte for byte. input_getline's last
 * result: 0 at the end, < 0 on a read error (said). */
int perf_script_relabel(jit_resolver_t *r, input_t *in, FILE *out);

#endif
