/* The tables of `core objects` and `core functions` (postmortem/objects_report.c): the groups by
 * constructor and the functions by closures, as text columns or as a JSON array, one element a
 * line (see docs/commands/core-objects.md, OUTPUT). */
#ifndef POSTMORTEM_OBJECTS_REPORT_H
#define POSTMORTEM_OBJECTS_REPORT_H
#include "postmortem/objects.h"
#include "util/buf.h"
#include "util/json_writer.h"
#include <stdint.h>
#include <stdio.h>

/* pm_objects_count's groups with at least min instances: a header, a row each and a total line
   (all groups counted); or [{"name", "count", "size"}, ...]. */
void pm_objects_write_text(FILE *out, const pm_group_t *gs, size_t n, uint64_t min);
void pm_objects_write_json(FILE *out, const pm_group_t *gs, size_t n, uint64_t min);
/* pm_functions_count's functions with at least min closures: a header and a row each (verbose:
   with the SharedFunctionInfo's address); or [{"name", "closures", "closure", "shared", "script",
   "line", "column"}, ...]. */
void pm_functions_write_text(FILE *out, v8_t *v, const pm_fn_count_t *fs, size_t n, uint64_t min, int verbose);
void pm_functions_write_json(FILE *out, v8_t *v, const pm_fn_count_t *fs, size_t n, uint64_t min);

/* instances and find: each selected object as a line "0xADDR preview", or the JSON document
   {"objects": [{address, constructor, text}], "count", "listed", "complete", ...}, written out
   to out after each object. */
typedef struct {
    v8_t *v;
    FILE *out;
    int json;
    jw_t jw; /* json: the document, into buf */
    buf_t buf, text;
} pm_select_out_t;
void pm_select_out_begin(pm_select_out_t *so, v8_t *v, FILE *out, int json);
/* pm_select's callback (ctx: a pm_select_out_t). */
void pm_select_out_row(void *ctx, uint64_t addr, const char *name);
/* After pm_select: JSON, "objects" closed and "count", "listed", "complete" (the document stays
   open for the caller's members); text, "... (N more; ...)" when the limit cut the list. */
void pm_select_out_summary(pm_select_out_t *so, long count, long limit, int complete);
/* JSON: closes the document; writes out what is left and frees so's buffers. */
void pm_select_out_end(pm_select_out_t *so);

#endif
