/* The reports of the core commands that show one value (postmortem/value_report.c): `type`,
 * `buffer`, `closure` and `source`, as text or as a JSON document (--json), written to out. */
#ifndef POSTMORTEM_VALUE_REPORT_H
#define POSTMORTEM_VALUE_REPORT_H
#include "util/buf.h"
#include "util/json_writer.h"
#include "v8/v8.h"
#include <stdint.h>
#include <stdio.h>

/* `type`: Smi N, not a tagged value, or the heap object's instance type, class, constructor and
   description; JSON {address, smi | tagged | type, type_name, class, constructor, text}. 0, or -1
   (nothing written) when addr is no readable heap object. */
int pm_type_write(v8_t *v, uint64_t addr, int json, FILE *out);
/* `buffer`: the bytes of x (the value at val; a typed array, DataView or ArrayBuffer) as a hex
   dump 16 bytes a line, the raw bytes, or JSON {object, length, data, hex, complete}. 0, or -1
   after an error naming tn (bytes not in the target: what was read is written). */
enum { PM_BUFFER_HEX, PM_BUFFER_RAW, PM_BUFFER_JSON };
int pm_buffer_write(v8_t *v, const char *tn, uint64_t val, const v8_value_t *x, int mode, FILE *out);
/* `closure`: fn's contexts from ctx outwards to the module's scope, each with its variables (a
   line each: pm_value_line); JSON {function, contexts: [{address, variables: [{name, value,
   text}], readable}]}. */
void pm_closure_write(v8_t *v, uint64_t fn, uint64_t ctx, int json, FILE *out);
/* `source`: "url:line" then fi's lines numbered (at most max; src its script's source); JSON
   {function, name, url, line, lines: [{line, text}], complete}. 0, or -1 when the source string
   is not wholly readable (the lines read are written). */
int pm_source_write(v8_t *v, uint64_t fn, const v8_function_t *fi, uint64_t src, long max, int json, FILE *out);

#endif
