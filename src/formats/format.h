/* The reader and writer interfaces every format implements, and the registry
 * the CLI uses to pick one by content (readers) or by file extension (writers).
 * The CLI never knows a format's internals. */
#ifndef FORMATS_FORMAT_H
#define FORMATS_FORMAT_H
#include "profile/profile.h"
#include "util/input.h"
#include <stdio.h>

struct opt;
struct format_reader;

/* Most readers in the registry (format_reader_index is below it). */
#define FORMAT_READERS_MAX 8

/* A reader's own options in read_opts_t: the reader (NULL: an unused slot) and its opts_size
 * bytes. */
typedef struct format_reader_opts {
    const struct format_reader *reader;
    const void *opts;
} format_reader_opts_t;

/* Options readers may honour; zero-initialised = defaults. A reader's own options (the perf
 * reader's --pid, --kernel, ...) are not fields here: each reader declares them itself
 * (format_reader_t.options) and finds them with format_reader_opts. */
typedef struct read_opts {
    const char *format; /* forced reader name, or NULL to detect */
    /* timelines */
    int no_timeline; /* the caller needs no per-sample timeline (folded output): save its memory */
    int has_time_range;
    double from_ms, to_ms; /* relative to the profile's start */
    /* symbol resolution of JIT frames by address (perf script input), see symbols/resolver.h */
    struct jit_resolver *resolver; /* NULL = trust the input's labels */
    /* each reader's own options, in the slot format_reader_index gives it; none = the defaults */
    format_reader_opts_t reader_opts[FORMAT_READERS_MAX];
} read_opts_t;

typedef struct format_reader {
    const char *name; /* "perf", "dtrace", "folded", "cpuprofile", ... */
    const char *description;
    /* How sure (0..100) this reader is that head[0..n) starts an input it reads. */
    int (*sniff)(const char *head, size_t n);
    /* Reads the whole input into p. Returns 0, or -1 after printing an error
     * naming in->name and the line. A reader whose weights are not sample counts
     * sets p->weight_unit (interned in p->strings: "ns", "cycles"); the CLI sets it
     * back to "samples" before each further input and refuses to mix units. */
    int (*read)(input_t *in, profile_t *p, const read_opts_t *o);
    /* The reader's own options: a struct of opts_size bytes that the reader defines (all zero =
     * its defaults), and options(opts, table) that fills table (at most FORMAT_READER_MAX_OPTS
     * entries, OPT_END included) with the option entries (util/options.h) that set opts, in the
     * order --help shows them. 0 and NULL: the reader has no options. */
    size_t opts_size;
    void (*options)(void *opts, struct opt *table);
} format_reader_t;

#define FORMAT_READER_MAX_OPTS 16

struct flame_opts;
typedef struct write_opts {
    const struct flame_opts *flame; /* SVG options; NULL = defaults */
    int annotate;                   /* folded: keep _[k]/_[j] annotations */
    /* Threads (profile.h "Threads"): which to write, --thread main|all|worker|v8|libuv|other|TID
     * (NULL = the format's default: the main thread for .cpuprofile, all for the others), and
     * --threads merge: one root as before threads instead of a root per thread role. */
    const char *thread;
    int threads_merge;
} write_opts_t;

typedef struct format_writer {
    const char *name;       /* "folded", "svg", "cpuprofile", "pprof", "txt", "trace" */
    const char *extensions; /* space separated, with dots: ".svg" */
    int (*write)(const profile_t *p, FILE *out, const write_opts_t *o);
    int picks_threads; /* the writer applies o->thread itself; otherwise format_write
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
/* The reader at position i of the registry (i < FORMAT_READERS_MAX), or NULL past the last. */
const format_reader_t *format_reader_at(int i);
/* r's position in the registry: its slot in read_opts_t.reader_opts (-1: not listed). */
int format_reader_index(const format_reader_t *r);
/* The options o holds for reader r (its opts_size bytes), or NULL: the reader's defaults. */
const void *format_reader_opts(const read_opts_t *o, const format_reader_t *r);
/* Sets the options of the reader named name (tests, other modules that call a reader); opts
 * must outlive o's use. 0, or -1 when no reader has that name. */
int format_reader_opts_set(read_opts_t *o, const char *name, const void *opts);
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
