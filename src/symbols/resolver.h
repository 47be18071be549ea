/* JIT symbol resolution for perf script input: "which name did this address
 * have at time t in process pid". Implemented by symbols/jit_resolver.c (built through
 * jit_resolver.h, above this header) from perf-PID.map files, map journals and jitdumps.
 * CONTRACT between formats/perf_script.c (caller) and symbols/.
 * The perf reader calls jit_resolver_lookup for frames whose module is a
 * /tmp/perf-PID.map, a jitted-*.so, or [unknown]; when it returns 1 the frame's
 * name is replaced by *name_out (kind re-classified from it). */
#ifndef SYMBOLS_RESOLVER_H
#define SYMBOLS_RESOLVER_H
#include <stddef.h>
#include <stdint.h>

typedef struct jit_resolver jit_resolver_t;

typedef struct {
    unsigned long relabelled; /* frames whose name changed */
    unsigned long ambiguous;  /* frames with several candidates and no time to choose */
    unsigned long unresolved; /* JIT frames no source covers */
    unsigned long resolved;   /* JIT frames looked up successfully */
} jit_resolver_stats_t;

/* time_ns: the sample's perf timestamp in ns (0 when perf script printed none).
 * Returns 1 with a name valid until the resolver is freed, 0 when it does not know. */
int jit_resolver_lookup(jit_resolver_t *r, int pid, uint64_t addr, uint64_t time_ns, const char **name_out,
                        size_t *len_out);
/* Counts a frame the resolver named otherwise than perf's label old_name did; 1 when it did. */
int jit_resolver_note(jit_resolver_t *r, const char *old_name, size_t old_len, const char *new_name);
const jit_resolver_stats_t *jit_resolver_stats(const jit_resolver_t *r);
/* Adds counts of lookups a caller answered from its own memory of earlier answers. */
void jit_resolver_add_stats(jit_resolver_t *r, const jit_resolver_stats_t *d);
/* 1 when lookups for pid give the same answer whatever the sample time (no map journal,
 * no jitdump timestamps), so a caller may remember them by address. */
int jit_resolver_timeless(jit_resolver_t *r, int pid);

#endif
