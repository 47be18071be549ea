/* The value printer of `core print`, `exception` and the fuzzers: util.inspect's text or
 * JSON.stringify's, from a core or a live process (postmortem/inspect.c). */
#ifndef POSTMORTEM_INSPECT_H
#define POSTMORTEM_INSPECT_H
#include "util/buf.h"
#include "v8/v8.h"
#include <stdint.h>

/* At most max_values values (and properties looked at but not shown) are printed, then "..." and
 * a warning. print's cap is PM_PRINT_MAX_VALUES; a fuzz target's is smaller, as a corrupt heap's
 * DAG can reach it from a few KiB. */
#define PM_PRINT_MAX_VALUES 2000000

typedef struct {
    int json;      /* JSON.stringify's output instead of util.inspect's */
    int addresses; /* the address of every heap value */
    long depth;    /* nesting levels shown (ignored with json: all) */
    long str_len;  /* characters shown of a string (-1: all) */
    long arr_len;  /* elements shown of an array, Map or Set */
    long max_values;
} pm_inspect_opts_t;

typedef struct {
    int circular_json; /* json: the value is circular (JSON.stringify would throw) */
    int bigint_json;   /* json: the value holds a BigInt (JSON.stringify would throw) */
    int truncated;     /* max_values was reached */
    const char *fail;  /* the first thing that could not be read ("a string", ...), or NULL */
} pm_inspect_result_t;

/* Appends the value to out; r (may be NULL) says what went wrong. */
void pm_inspect(v8_t *v, uint64_t value, const pm_inspect_opts_t *o, buf_t *out, pm_inspect_result_t *r);
/* The same with util.inspect's defaults for strings (4096) and arrays (1000). */
void pm_format_value(v8_t *v, uint64_t value, int json, long depth, long max_values, buf_t *out);

#endif
