/* The perf script reader's own options (stackcollapse-perf.pl's, and --inline), declared by the
 * reader (format_reader_t.options): commands that read profiles offer them in --help under the
 * input options, and set them in read_opts_t with format_reader_opts_set(o, "perf", &opts).
 * All zero = the defaults. */
#ifndef FORMATS_PERF_OPTS_H
#define FORMATS_PERF_OPTS_H

typedef struct perf_read_opts {
    int with_pid, with_tid;            /* root frame "comm-PID" / "comm-PID/TID" */
    int annotate_kernel, annotate_jit; /* append _[k] / _[j] */
    int with_addrs;                    /* keep addresses of unknown frames */
    int inline_frames;                 /* expand inlined frames with addr2line */
    int inline_context;                /* with inline_frames: add :file:line */
    const char *event_filter;          /* only this event; NULL = first seen */
    int no_process_frame;              /* do not prepend the comm frame */
    int perl_compat;                   /* reproduce stackcollapse-perf.pl's known bugs (tests only) */
} perf_read_opts_t;

#endif
