/* The output of `core async` (postmortem/async_report.c): every suspended generator, one block
 * each, or the innermost ones folded by identical chains, as text or as the members of the JSON
 * document (see docs/commands/core-async.md, OUTPUT). */
#ifndef POSTMORTEM_ASYNC_REPORT_H
#define POSTMORTEM_ASYNC_REPORT_H
#include "postmortem/async.h"
#include "util/buf.h"
#include "util/json_writer.h"
#include <stdio.h>

/* After pm_async_link (and, for the groups, pm_async_group): gs NULL, one block per generator
   and a last line "N suspended, M executing"; gs set, a first line "N suspended (…)" and one line
   per group. Written into b, which is written to out and cleared whenever it grows past 64 KiB;
   what is left in b at the end is the caller's to write. */
void pm_async_write_text(pm_async_t *c, const pm_async_groups_t *gs, buf_t *b, FILE *out);
/* The same as members of the object w (writing into b) has open: "executing" and "suspended"
   (one a line), or with gs "suspended", "innermost", "executing" and "groups". */
void pm_async_write_json(pm_async_t *c, const pm_async_groups_t *gs, jw_t *w, buf_t *b, FILE *out);

#endif
