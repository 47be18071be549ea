/* What grows in a heap over time (postmortem/leak.c): a series of censuses of one process's heap
 * by constructor (`watch --heap`), the growth fit per constructor that tells steady growth from GC
 * noise and from a cache that fills then plateaus, new instances by address against the previous
 * census, and the retainer path of one of them; and the same comparison between two heaps
 * (`core A diff-objects B`). The report writers are postmortem/leak_report.c. */
#ifndef POSTMORTEM_LEAK_H
#define POSTMORTEM_LEAK_H
#include "util/buf.h"
#include "v8/v8.h"
#include <stddef.h>
#include <stdint.h>

typedef struct pm_leak pm_leak_t;

/* How a census counts: the objects the program holds (the object graph of each census: what the
 * global object, a module or a stack reaches; garbage not yet collected is left out, and so is
 * what only the conservative scan of native memory reaches), or every object on the heap's pages
 * (one walk: cheaper, but what the GC has not collected yet counts too). */
typedef enum { PM_COUNT_REACHABLE, PM_COUNT_ALL } pm_count_mode_t;

pm_leak_t *pm_leak_new(pm_count_mode_t mode);
void pm_leak_free(pm_leak_t *L);

/* One census of v's heap, taken at t seconds (since the first), appended to the series. stop_ms:
 * how long the process was stopped for it (recorded as given). keep: the census's object graph
 * is kept for pm_leak_explain (reachable mode); pm_leak_release frees it (before v8_close).
 * 0, or -1 with a message (no heap; out of memory). */
int pm_leak_census(pm_leak_t *L, v8_t *v, double t, double stop_ms, int keep);
/* One census from elsewhere than a heap (a .heapsnapshot: postmortem/heapsnapshot_census.c): next
 * gives each object's identity (what an address is to a heap's census: new instances are those
 * at no identity of the previous census), its constructor's name (len bytes) and its shallow
 * bytes, and returns 1, or 0 at the end, or -1 on an error it has said. totals: the census's
 * point (heap_bytes, heap_objects, js_objects; t is set here). 0, or -1. */
typedef int (*pm_leak_next_fn)(void *ctx, uint64_t *id, const char **name, size_t *len, uint64_t *bytes);
struct pm_leak_point;
int pm_leak_census_from(pm_leak_t *L, double t, pm_leak_next_fn next, void *ctx, const struct pm_leak_point *totals);
/* The CPU (ms, nodescope's own) and wall time a census took to open, stop and read the process,
 * and of its stop how long the fork took (0: none): recorded with the census just taken. */
void pm_leak_set_cost(pm_leak_t *L, double cpu_ms, double wall_ms, double fork_ms, int64_t copy_bytes);
/* The last census's target_faults. */
void pm_leak_set_target_faults(pm_leak_t *L, int64_t faults);
void pm_leak_release(pm_leak_t *L);

/* The trend of one constructor over the series. */
typedef enum {
    PM_TREND_GROWING,
    PM_TREND_PLATEAU,
    PM_TREND_SHRINKING,
    PM_TREND_NOISY,
    PM_TREND_FLAT,
    PM_TREND_UNKNOWN
} pm_trend_t;
const char *pm_trend_name(pm_trend_t t); /* "growing", "plateau", "shrinking", "noisy", "flat", "?" */

typedef struct {
    const char *name;
    size_t cls; /* index for pm_leak_count */
    pm_trend_t trend;
    double count_per_s, bytes_per_s; /* least-squares slopes over every census */
    double late_per_s;               /* the slope over the last third of the censuses (3 at least) */
    double r2;                       /* of the count's straight-line fit (0 when flat) */
    double rising;                   /* the share of steps between censuses that did not shrink */
    uint64_t first_count, last_count, first_bytes, last_bytes;
    uint64_t new_last;      /* in the last census, instances at no address of the previous */
    uint64_t retained_last; /* retained size in the last census, when computed (0 else) */
    uint64_t samples[5];    /* some of those new instances (addresses) */
    size_t nsamples;
    uint64_t any;           /* an instance of the last census (0: none), for the path when no new one has it */
    char *path;   /* the retainer path of a sample (pm_leak_explain), or NULL */
    char *holder; /* the path's last two steps: what holds the container that
                                        holds the instance ("SessionRegistry .sessions (Map)"), or NULL */
} pm_leak_class_t;

/* Every constructor seen, fitted over the series: growing ones first (most bytes a second
 * first), then the rest by how fast their count changes. *out malloc'ed; pm_leak_classes_free. */
size_t pm_leak_analyze(pm_leak_t *L, pm_leak_class_t **out);
void pm_leak_classes_free(pm_leak_class_t *c, size_t n);
/* For the growing classes among c[0..n) (at most max of them), with the last census's graph still
 * kept: retained sizes, sample instances new since the previous census, and the retainer path of
 * one of them, as text ("module /x/app.js registry -> SessionRegistry .sessions -> Map ..."). */
void pm_leak_explain(pm_leak_t *L, v8_t *v, pm_leak_class_t *c, size_t n, size_t max);

/* The series itself. */
size_t pm_leak_points(const pm_leak_t *L);
typedef struct pm_leak_point {
    double t, stop_ms, fork_ms, cpu_ms, wall_ms;
    int64_t copy_bytes;                /* read from the process for a tracked copy (-1: a fork, or live) */
    int64_t target_faults;             /* minor faults the process took from the stop to its copy's end: the fork
                              write-protects its pages, each first write faults (-1: unknown) */
    uint64_t heap_bytes, heap_objects; /* counted objects of every kind (reachable, or all) */
    uint64_t all_bytes;                /* every object on the heap's pages, garbage included */
    uint64_t js_objects;
    uint64_t native_objects;            /* reachable only from native memory: not counted */
    size_t unreadable_pages, resyncs;   /* --all-objects: the walk's (a live read's torn objects
                                            add resyncs; a frozen copy has some too: the unused
                                            ends of allocation areas) */
    int64_t pages_reused, pages_walked; /* the graph's V8 pages taken from the last census (no byte
                                           changed) and walked (-1: none kept, --all-objects) */
} pm_leak_point_t;
const pm_leak_point_t *pm_leak_point(const pm_leak_t *L, size_t k);
/* Constructor cls's count and shallow bytes at census k. */
void pm_leak_count(const pm_leak_t *L, size_t k, size_t cls, uint64_t *count, uint64_t *bytes);
pm_count_mode_t pm_leak_mode(const pm_leak_t *L);

/* The least-squares slope of y over x (n points): 0 when x does not vary; *r2 (may be NULL) the
 * coefficient of determination (0 when y does not vary). For tests too. */
double pm_fit_slope(const double *x, const double *y, size_t n, double *r2);
/* The trend of a series y over times x (n >= 3; else PM_TREND_UNKNOWN): growing when the straight
 * line fits (r2 >= 0.8), at least 7 steps in 10 do not shrink, it grew by 10 or more and the slope
 * of the last third (3 censuses at least) is at least half the whole's; plateau when it grew but
 * the last third did not
 * (a cache filled); shrinking the same way down; noisy when it moved without a line; flat. */
pm_trend_t pm_fit_trend(const double *x, const double *y, size_t n, double *slope, double *late, double *r2,
                        double *rising);

#endif
