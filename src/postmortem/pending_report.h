/* The output of `core pending` (postmortem/pending_report.c): what keeps the event loop alive, as
 * text sections or as the members of the JSON document (see docs/commands/core-pending.md). */
#ifndef POSTMORTEM_PENDING_REPORT_H
#define POSTMORTEM_PENDING_REPORT_H
#include "postmortem/pending.h"
#include "util/buf.h"
#include "util/json_writer.h"
#include <stdio.h>

/* After pm_pending_collect: text into b, written to out and cleared whenever b grows past 64 KiB;
   what is left in b at the end is the caller's to write. */
void pm_pending_write_text(v8_t *v, const pm_pending_t *r, buf_t *b, FILE *out);
/* The same as the members "loop", "timers" ... "workers", "next_ticks", "microtasks" and
   "handles" of the object w (writing into b) has open. */
void pm_pending_write_json(v8_t *v, const pm_pending_t *r, jw_t *w, buf_t *b, FILE *out);

#endif
