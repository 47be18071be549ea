/* Building the JIT resolver (the lookup side is the contract in resolver.h). */
#ifndef SYMBOLS_JIT_RESOLVER_H
#define SYMBOLS_JIT_RESOLVER_H
#include "symbols/perfmap.h"
#include "symbols/resolver.h"

typedef enum {
    JIT_AMBIGUOUS_MARK = 0, /* the frame says it is ambiguous and names the candidates */
    JIT_AMBIGUOUS_NEWEST,   /* the newest covering entry in the whole map (the gist's choice) */
    JIT_AMBIGUOUS_OLDEST,
} jit_ambiguous_t;

/* perf_map: a map file (used for every pid), a directory holding perf-PID.map files,
 * or NULL for /tmp/perf-PID.map. Maps are loaded on first use per pid. */
jit_resolver_t *jit_resolver_new(const char *perf_map, jit_ambiguous_t policy);
/* A journal of the map's growth ("MONOTONIC_NS SIZE" lines, written by `nodescope record`):
 * with it each sample resolves against the map as it was at the sample's time.
 * Returns 0, or -1 (error printed). */
int jit_resolver_load_journal(jit_resolver_t *r, const char *path);
void jit_resolver_free(jit_resolver_t *r);
/* Parses "newest" / "oldest" / "mark"; -1 when none. */
int jit_ambiguous_parse(const char *s);
/* Formats the name the policy chooses for candidates cand[0..n) (file order) of map m. */
const char *jit_choose_name(jit_resolver_t *r, const perfmap_t *m, const uint32_t *cand, size_t n, size_t total,
                            size_t *len_out);
/* Prints the --stats summary to stderr. */
void jit_resolver_print_stats(const jit_resolver_t *r);

#endif
