/* The output of `core stack` (postmortem/stack_report.c): one thread's frames and async frames,
 * as text lines or as a JSON object (see docs/commands/core-stack.md, OUTPUT). */
#ifndef POSTMORTEM_STACK_REPORT_H
#define POSTMORTEM_STACK_REPORT_H
#include "postmortem/stack.h"
#include "util/json_writer.h"
#include <stdio.h>

typedef struct {
    target_t *t;
    v8_t *v;            /* NULL: frames by address only */
    smap_cache_t *maps; /* the scripts' source maps; NULL: positions as V8 ran them */
    int verbose;        /* text: arguments, `this` and the definition of each JS frame */
    int all;            /* text: V8-internal frames not folded; frame and code addresses */
} pm_stack_print_t;

/* "thread N (tid T, name)" and a line per frame. */
void pm_stack_thread_text(FILE *out, const pm_stack_print_t *p, size_t ti, const v8_frame_t *frames, size_t n);
/* A line "    at async f (file:line:col)" per async frame (pm_stack_async's). */
void pm_stack_async_text(FILE *out, v8_t *v, const v8_async_frame_t *async, size_t na);
/* The same as an object in the array w has open: "index", "tid", "name", "frames" (always with
   arguments and addresses) and, when async is not NULL, "async_frames". */
void pm_stack_thread_json(jw_t *w, const pm_stack_print_t *p, size_t ti, const v8_frame_t *frames, size_t n,
                          const v8_async_frame_t *async, size_t na);

#endif
