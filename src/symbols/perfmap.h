/* perf-PID.map files: "START SIZE name" per line, hex without 0x, written by
 * V8 (--perf-basic-prof), JSC, Java perf-map-agent, Python -X perf, .NET.
 * Runtimes append as they compile; freed code space is reused, so one address
 * can be claimed by several entries over time. File order is time order. */
#ifndef SYMBOLS_PERFMAP_H
#define SYMBOLS_PERFMAP_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint64_t start, size;
    uint64_t file_offset; /* byte offset of the line: where the runtime was when it wrote it */
    uint32_t name_off, name_len;
    uint32_t line;                 /* 1-based line number in the file */
    uint32_t src_first, src_count; /* jitdump debug info: this entry's rows in perfmap_t.src */
} perfmap_entry_t;

/* Source position of a code address (jitdump JIT_CODE_DEBUG_INFO rows). */
typedef struct {
    uint64_t addr;         /* first code address of the row */
    uint32_t line, column; /* 1-based */
    uint32_t file_off;     /* file name in perfmap_t.text */
} perfmap_src_t;

typedef struct perfmap {
    char *path;
    char *text; /* the file's bytes (names point into it) */
    size_t text_len;
    perfmap_entry_t *entries; /* file order */
    size_t n;
    /* interval index: entry indexes sorted by start, with running max of ends */
    uint32_t *by_start;
    uint64_t *max_end;
    unsigned long malformed;
    int timestamps;     /* read from a jitdump: file_offset holds each entry's creation time (ns) */
    perfmap_src_t *src; /* jitdump debug info, rows of one entry sorted by address */
    size_t nsrc;
} perfmap_t;

/* Reads a map's text (up to its last complete line: a map still being written is fine); a file
 * that may also be a jitdump is read with jitdump_or_perfmap_load (jitdump.h).
 * Malformed lines are skipped with a warning naming file and line. Returns NULL
 * (error printed) when the file cannot be read. */
perfmap_t *perfmap_load(const char *path);
/* Parses text already in memory (copied); name is used in messages. */
perfmap_t *perfmap_parse(const char *name, const char *text, size_t len);
void perfmap_free(perfmap_t *m);

static inline const char *perfmap_name(const perfmap_t *m, const perfmap_entry_t *e) { return m->text + e->name_off; }

/* Indexes (into m->entries, ascending = file order) of every entry covering addr.
 * Returns the count; writes at most max. */
size_t perfmap_covering(const perfmap_t *m, uint64_t addr, uint32_t *out, size_t max);
/* Newest covering entry written at or before file offset limit (UINT64_MAX = any); -1 if none. */
long perfmap_newest_before(const perfmap_t *m, uint64_t addr, uint64_t offset_limit);

/* The source position of addr inside entry k (jitdump debug info); NULL when unknown. */
const perfmap_src_t *perfmap_source(const perfmap_t *m, size_t k, uint64_t addr);

/* (Re)builds the address index after entries were filled in by hand (the jitdump reader). */
void perfmap_build_index(perfmap_t *m);

/* For each entry: 1 when a later entry (in file order) overlaps it. O(N log N). out[n]. */
void perfmap_overlapped_by_later(const perfmap_t *m, uint8_t *out);

/* Where process pid's perf map is, as perf looks: /tmp/perf-PID.map, or for a process in another
 * pid or mount namespace (a container) /proc/PID/root/tmp/perf-NSPID.map, NSPID its pid in its own
 * namespace (the last NSpid of /proc/PID/status). Written to buf; returns buf. */
const char *perfmap_path_for_pid(int pid, char *buf, size_t cap);

#endif
