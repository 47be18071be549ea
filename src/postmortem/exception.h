/* The exception the program died of (postmortem/exception.c), for `core exception`. */
#ifndef POSTMORTEM_EXCEPTION_H
#define POSTMORTEM_EXCEPTION_H
#include "target/target.h"
#include "util/buf.h"
#include "util/json_writer.h"
#include "v8/v8.h"
#include <stddef.h>
#include <stdio.h>

/* The frames an unformatted Error holds, copied out of v8_error_callsites' callback. */
typedef struct {
    char name[256], file[1024];
    int line, col, is_async, is_constructor;
} callsite_t;
typedef struct {
    callsite_t *list;
    size_t n;
} callsites_t;

typedef struct {
    int found;          /* thread's stack shows a throw that aborted */
    v8_exception_t e;   /* how, the value, where */
    buf_t value, where; /* the value as `print` shows it (depth levels); where it was thrown, or "" */
    callsites_t callsites;
    int stack_unread; /* an Error whose frames could not be read (warned) */
} pm_exception_t;

/* The exception thread (an index) was throwing; warns when an Error's frames cannot be read. */
void pm_exception_read(target_t *t, v8_t *v, size_t thread, long depth, pm_exception_t *x);
/* "exception": {how, address, where, value, callsites...} or null, into the object open in w. */
void pm_exception_json(jw_t *w, const pm_exception_t *x);
/* The text: how, where, the address and the value, then the frames as V8 prints them; or that
 * thread's stack shows none. */
void pm_exception_text(const pm_exception_t *x, long thread, FILE *out);
void pm_exception_free(pm_exception_t *x);

#endif
