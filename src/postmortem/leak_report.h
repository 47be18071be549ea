/* The reports of a heap watch (postmortem/leak_report.c): its text (the table and what grew), a
 * JSON document for scripts, and a self-contained HTML page (inline SVG, no script) with one line
 * chart per growing constructor, the heap total and the largest other constructors, the same
 * JSON embedded for tests. */
#ifndef POSTMORTEM_LEAK_REPORT_H
#define POSTMORTEM_LEAK_REPORT_H
#include "postmortem/leak.h"
#include "util/buf.h"

typedef struct {
    int pid;
    const char *command;  /* the process's command line */
    const char *read;     /* "snapshot" (a frozen copy per census) or "live" */
    double every;         /* seconds between censuses */
    const char *ended;    /* "duration", "interrupted", "process exited", "error" */
    const char *partial;  /* why the answer is partial, or NULL */
    const char *copy;     /* "tracked" (the pages written since the last census), "fork", or NULL (live) */
    const char *copy_why; /* why not tracked (a fork although asked for none), or NULL */
    const char *wrapper;  /* "npm", "npx", "yarn", "pnpm": the process runs it, not the program; or NULL */
#define PM_LEAK_NODE_PROCESSES 8
    int node_processes[PM_LEAK_NODE_PROCESSES]; /* node processes under it (the first ones found) */
    size_t nnode_processes;
} pm_leak_meta_t;

/* The document (see docs/commands/watch-heap.md, OUTPUT), appended to out. */
void pm_leak_write_json(const pm_leak_t *L, const pm_leak_class_t *c, size_t n, const pm_leak_meta_t *m, buf_t *out);
void pm_leak_write_html(const pm_leak_t *L, const pm_leak_class_t *c, size_t n, const pm_leak_meta_t *m, buf_t *out);
/* The watch's text, appended to b: the table (a header: pid, censuses, the heap; then the
 * constructors ranked by growth, limit rows); one line for the census just taken (the heap, the
 * stop, the first growing constructors); and what grew steadily, each with its rate, some new
 * instances and the retainer path of one (or "nothing grew steadily"). */
void pm_leak_write_table(buf_t *b, const pm_leak_t *L, const pm_leak_class_t *c, size_t n, int pid, const char *cmdline,
                         double every, size_t limit);
void pm_leak_write_census_line(buf_t *b, const pm_leak_t *L, const pm_leak_class_t *c, size_t n);
void pm_leak_write_growing(buf_t *b, const pm_leak_t *L, const pm_leak_class_t *c, size_t n);
/* `core A diff-objects B`: L's two censuses (A's, then B's) by constructor, largest change in
 * bytes first, those that did not change left out, at most top (0: all); a table or (json) the
 * spaced JSON document {a, b, count, heap_bytes_a, heap_bytes_b, classes}. all: L counts every
 * object (said in the report). */
void pm_leak_write_diff(buf_t *b, pm_leak_t *L, const char *name_a, const char *name_b, int all, int json, size_t top);
/* "12.3 MB", "512 B": for tables. */
void pm_put_bytes(buf_t *b, double bytes);

#endif
