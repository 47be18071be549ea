/* What the program awaits: every suspended generator and async function on the heap, the
 * promise each awaits and whose that is (postmortem/async.c), and async frames as text. */
#ifndef POSTMORTEM_ASYNC_H
#define POSTMORTEM_ASYNC_H
#include "util/buf.h"
#include "util/hash.h"
#include "util/json_writer.h"
#include "util/progress.h"
#include "v8/v8.h"
#include <stddef.h>
#include <stdint.h>

/* One async frame as V8's stack traces print it after "at ": "async name (file:line:col)",
   "async Promise.all (index 0)" (with_async 0: without "async "). */
void pm_async_frame_text(v8_t *v, const v8_async_frame_t *f, int with_async, buf_t *b);
/* The same as JSON members ("generator", "name", "file", "line", "column" or "combinator",
   "index"), into the object w has open. */
void pm_async_frame_json(v8_t *v, const v8_async_frame_t *f, jw_t *w);

typedef struct {
    v8_generator_t g;
    uint64_t awaiting;        /* the promise it awaits, 0 unknown */
    int awaited_gen;          /* index + 1 of the generator whose promise that is, 0 none */
    int inner;                /* another suspended generator's chain runs through this one */
} pm_async_gen_t;

typedef struct {
    v8_t *v;
    pm_async_gen_t *g;
    size_t n, cap;
    u64map_t by_addr;         /* generator -> index + 1 */
    u64map_t awaits;          /* generator -> index + 1 into promises */
    uint64_t *promises;
    size_t np, capp;
    size_t executing, closed;
    int awaits_wanted;        /* find the promise each one awaits (a scan of every promise's reactions) */
    progress_t progress;
    size_t seen;
} pm_async_t;

/* One heap walk: every suspended generator (c->g), and with awaits_wanted, from every pending
 * promise's reactions, the promise each awaits and the generator whose promise that is. 0, or
 * -1 with a message when there is no heap. Free c with pm_async_free either way. */
int pm_async_collect(v8_t *v, pm_async_t *c, int awaits_wanted);
void pm_async_free(pm_async_t *c);

#endif
