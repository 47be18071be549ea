/* The output of `core refs`, `retainers`, `dominators` and `objects --retained`
 * (postmortem/retain_report.c): holders, retainer paths and retained sizes as text, or as JSON
 * (see docs/commands/core-retain.md, OUTPUT). Text is appended to b; JSON is written with w
 * (which writes into its own buffer). */
#ifndef POSTMORTEM_RETAIN_REPORT_H
#define POSTMORTEM_RETAIN_REPORT_H
#include "postmortem/census.h"
#include "postmortem/retainers.h"
#include "util/buf.h"
#include "util/json_writer.h"

/* refs: a line per holder, or "(no object on the heap refers to it)"; JSON: an array, a holder a
   line ({holder, description, kind, name[, owner, owner_kind, owner_name]}), and a newline. */
void pm_refs_write_text(buf_t *b, v8_t *v, v8_graph_t *g, const pm_ref_t *refs, size_t n);
void pm_refs_write_json(jw_t *w, v8_t *v, v8_graph_t *g, const pm_ref_t *refs, size_t n);
/* retainers of node x: its line and each path's steps, or "(unreachable ...)"; JSON: the members
   "target", "description" and "paths" (a path a line) of the object w has open. */
void pm_retainers_write_text(buf_t *b, v8_t *v, v8_graph_t *g, v8_edges_t *e, uint32_t x, const pm_path_t *paths,
                             size_t n);
void pm_retainers_write_json(jw_t *w, v8_t *v, v8_graph_t *g, v8_edges_t *e, uint32_t x, const pm_path_t *paths,
                             size_t n);
/* dominators: the top objects (tops, at most top) and the constructors by retained size (byr,
   at most top); JSON: the members "objects" and "constructors" of the object w has open. */
void pm_dominators_write_text(buf_t *b, v8_graph_t *g, const pm_census_t *cs, const pm_top_t *tops, size_t ntops,
                              const pm_class_t *byr, size_t top);
void pm_dominators_write_json(jw_t *w, v8_graph_t *g, const pm_census_t *cs, const pm_top_t *tops, size_t ntops,
                              const pm_class_t *byr, size_t top);
/* objects --retained: the constructors (n of them) with at least min instances, a header, a row
   each and a total line; JSON: an array, a constructor a line, and a newline. */
void pm_retained_table_write_text(buf_t *b, const pm_class_t *gs, size_t n, uint64_t min);
void pm_retained_table_write_json(jw_t *w, const pm_class_t *gs, size_t n, uint64_t min);
/* objects --retained over the session's graph (pm_graph): the census by constructor sorted by
 * shallow size (by_self) or by retained size, written as text or (json) the spaced array into o.
 * 0, or -1 (no graph; said). */
int pm_retained_table(v8_t *v, int by_self, uint64_t min, int json, buf_t *o);

#endif
