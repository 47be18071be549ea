/* jitdump files (perf's JIT interface, written by `node --perf-prof` as
 * jit-PID.dump and by JSC): every code object with the time it was created.
 * Read into a perfmap_t whose entries are in time order and whose file_offset
 * holds the record's timestamp (ns, CLOCK_MONOTONIC for V8), so "newest entry
 * covering ADDR at or before time t" is perfmap_newest_before(m, addr, t). */
#ifndef SYMBOLS_JITDUMP_H
#define SYMBOLS_JITDUMP_H
#include "symbols/perfmap.h"

typedef struct {
    unsigned long loads, moves, debug_records, unknown_records;
    int byte_swapped, truncated;
    uint32_t pid, elf_mach;
} jitdump_info_t;

/* Returns NULL (error printed, naming the file) when the file is not a jitdump.
 * A truncated file yields the records before the cut, with a warning. */
perfmap_t *jitdump_load(const char *path, jitdump_info_t *info);
perfmap_t *jitdump_parse(const char *name, const unsigned char *data, size_t len, jitdump_info_t *info);
/* A JIT map file of either kind, told apart by the jitdump magic: a jitdump (jitdump_load, its
 * entries' creation times kept: perfmap_t.timestamps) or a perf-PID.map's text (perfmap_load).
 * NULL (error printed, naming the file) when it cannot be read. */
perfmap_t *jitdump_or_perfmap_load(const char *path);

#endif
