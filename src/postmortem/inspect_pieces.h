/* Internals of the value printer: the walk's state (pr_t) and the leaves util.inspect shows in
 * its own way (postmortem/inspect_pieces.c: dates, RegExps, constructor names, typed arrays and
 * Buffers, errors by their stack, functions), for postmortem/inspect.c (the walk: strings, keys,
 * properties and elements, composites and their layout), which sits above. Not a public API:
 * postmortem/inspect.h is. */
#ifndef POSTMORTEM_INSPECT_PIECES_H
#define POSTMORTEM_INSPECT_PIECES_H
#include "util/buf.h"
#include "v8/v8.h"
#include <stdint.h>

#define HARD_DEPTH 200 /* nesting beyond any real value: a corrupt or adversarial heap */
#define JSON_STRING_MAX (64 << 20)
#define BREAK_LENGTH 72   /* util.inspect puts an object on one line up to about this width */
#define BUFFER_PREVIEW 50 /* util.inspect's INSPECT_MAX_BYTES */

typedef struct {
    v8_t *v;
    int json, addresses;
    long depth, str_len, arr_len;
    uint64_t stack[HARD_DEPTH + 1];
    int refs[HARD_DEPTH + 1];
    int level, nrefs;
    long budget, max_values; /* values (and hidden properties) still allowed; the cap */
    int circular_json, bigint_json, truncated;
    const char *fail; /* the first thing that could not be read */
} pr_t;

void pm_inspect_number(pr_t *p, double d, buf_t *out);
void pm_inspect_date(double t, buf_t *out);
void pm_inspect_regexp(pr_t *p, const v8_value_t *x, buf_t *out);
void pm_inspect_ctor_name(pr_t *p, uint64_t obj, buf_t *name, int *null_proto);
const char *pm_inspect_typed_kind(pr_t *p, uint64_t obj, int *size);
void pm_inspect_typed_element(pr_t *p, const char *kind, const unsigned char *b, buf_t *out);
void pm_inspect_bytes(pr_t *p, const v8_value_t *x, int64_t max, buf_t *out);
void pm_inspect_error(pr_t *p, uint64_t obj, buf_t *out);
void pm_inspect_function(pr_t *p, uint64_t fn, const v8_value_t *x, buf_t *out);

#endif
