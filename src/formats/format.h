/* The reader and writer interfaces every format implements, and the registry
 * the CLI uses to pick one by content (readers) or by file extension (writers).
 * The CLI never knows a format's internals. */
#ifndef FORMATS_FORMAT_H
#define FORMATS_FORMAT_H
#include <stdio.h>
#include "profile/profile.h"
#include "util/input.h"

/* Options readers may honour; zero-initialised = defaults. */
typedef struct read_opts {
    const char *format;        /* forced reader name, or NULL to detect */
    /* perf script (stackcollapse-perf.pl compatible) */
    int with_pid, with_tid;    /* root frame "comm-PID" / "comm-PID/TID" */
    int annotate_kernel, annotate_jit;   /* append _[k] / _[j] */
    int with_addrs;            /* keep addresses of unknown frames */
    int inline_frames;         /* expand inlined frames with addr2line */
    int inline_context;        /* with inline_frames: add :file:line */
    const char *event_filter;  /* only this event; NULL = first seen */
    int no_process_frame;      /* do not prepend the comm frame */
    int perl_compat;           /* reproduce stackcollapse-perf.pl's known bugs (tests only) */
    /* timelines */
    int no_timeline;           /* the caller needs no per-sample timeline (folded output): save its memory */
    int has_time_range;
    double from_ms, to_ms;     /* relative to the profile's start */
    /* symbol resolution (perf script input), see symbols/resolver.h */
    const char *perf_map;      /* FILE or DIR; NULL = /tmp/perf-PID.map */
    struct jit_resolver *resolver;   /* NULL = trust perf's labels */
} read_opts_t;

typedef struct format_reader {
    const char *name;          /* "perf", "dtrace", "folded", "cpuprofile", ... */
    const char *description;
    /* How sure (0..100) this reader is that head[0..n) starts an input it reads. */
    int (*sniff)(const char *head, size_t n);
    /* Reads the whole input into p. Returns 0, or -1 after printing an error
     * naming in->name and the line. A reader whose weights are not sample counts
     * sets p->weight_unit (interned in p->strings: "ns", "cycles"); the CLI sets it
     * back to "samples" before each further input and refuses to mix units. */
    int (*read)(input_t *in, profile_t *p, const read_opts_t *o);
} format_reader_t;

struct flame_opts;
typedef struct write_opts {
    const struct flame_opts *flame;   /* SVG options; NULL = defaults */
    int annotate;                     /* folded: keep _[k]/_[j] annotations */
    /* Threads (profile.h "Threads"): which to write, --thread main|all|worker|v8|libuv|other|TID
     * (NULL = the format's default: the main thread for .cpuprofile, all for the others), and
     * --threads merge: one root as before threads instead of a root per thread role. */
    const char *thread;
    int threads_merge;
} write_opts_t;

typedef struct format_writer {
    const char *name;                 /* "folded", "svg", "cpuprofile", "pprof", "txt", "trace" */
    const char *extensions;           /* space separated, with dots: ".svg" */
    int (*write)(const profile_t *p, FILE *out, const write_opts_t *o);
    int picks_threads;                /* the writer applies o->thread itself; otherwise format_write
                                       * hands it profile_thread_view (a root per role, or merged) */
} format_writer_t;

/* Writes p with w: applies the thread choice (o->thread, o->threads_merge) unless the writer
 * does. 0; -1 when writing failed; -2 after an error already printed (a --thread that picks
 * no thread, naming the threads the profile has). */
int format_write(const format_writer_t *w, const profile_t *p, FILE *out, const write_opts_t *o);
/* The thread view o asks for with default pick def (NULL: write p as is); -1 after an error. */
int format_thread_view(const profile_t *p, const write_opts_t *o, const char *def, thread_roots_t roots,
                       profile_t **view, size_t *picked);

const format_reader_t *format_reader_by_name(const char *name);
/* The reader whose sniff is most confident about in's first bytes, or NULL (error printed). */
const format_reader_t *format_detect(input_t *in);
/* Opens path ("-" = stdin), detects (or uses o->format) and reads into p. 0 or -1 (error printed). */
int format_read_path(const char *path, profile_t *p, const read_opts_t *o);
/* Names of all readers, for usage messages: "perf, dtrace, folded, ..." */
const char *format_reader_names(void);

/* Names of all writers ("folded, svg, ..."), for usage messages; and one line per writer with
 * its extensions ("  svg          .svg\n"), for --help. */
const char *format_writer_names(void);
const char *format_writer_names_ext(void);
const format_writer_t *format_writer_by_name(const char *name);
const format_writer_t *format_writer_for_path(const char *path);
/* Every extension a writer is picked by, for messages: ".folded .svg ..." */
const char *format_writer_extensions(void);

#endif
