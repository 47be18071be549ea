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
    uint64_t awaiting; /* the promise it awaits, 0 unknown */
    int awaited_gen;   /* index + 1 of the generator whose promise that is, 0 none */
    int inner;         /* another suspended generator's chain runs through this one */
} pm_async_gen_t;

typedef struct {
    v8_t *v;
    pm_async_gen_t *g;
    size_t n, cap;
    u64map_t by_addr; /* generator -> index + 1 */
    u64map_t awaits;  /* generator -> index + 1 into promises */
    uint64_t *promises;
    size_t np, capp;
    size_t executing, closed;
    int awaits_wanted;  /* find the promise each one awaits (a scan of every promise's reactions) */
    size_t *chain_len;  /* pm_async_link: per generator, 0 when its chain is empty */
    uint32_t *next_gen; /* pm_async_link: index + 1 of the generator its promise's one
                                 reaction awaits in, 0 unknown (pm_async_group follows it) */
    progress_t progress;
    size_t seen;
} pm_async_t;

/* One heap walk: every suspended generator (c->g), and with awaits_wanted, from every pending
 * promise's reactions, the promise each awaits and the generator whose promise that is. 0, or
 * -1 with a message when there is no heap. Free c with pm_async_free either way. */
int pm_async_collect(v8_t *v, pm_async_t *c, int awaits_wanted);
void pm_async_free(pm_async_t *c);

#define PM_ASYNC_MAX_CHAIN 256
/* After pm_async_collect: the first step of every generator's chain (after combinators): sets
   g[i].inner for the generators another one waits on, and chain_len, next_gen. */
void pm_async_link(pm_async_t *c);
/* The chain of generator i (its promise's awaiters, outermost last, as v8_async_chain finds
   them) into chain: how many frames; 0 when pm_async_link found none. */
size_t pm_async_chain(const pm_async_t *c, size_t i, v8_async_frame_t *chain, size_t max);
/* The innermost frame: where g itself is suspended, "await pool.query(…) in getUser (...)" (the
   awaited expression from the script's source), "yield in gen (...)". Reads g's position as it
   is: call v8_generator_position first. */
void pm_async_self_text(v8_t *v, const pm_async_gen_t *g, buf_t *b);
/* "async function", "async generator", "generator"; a promise state as "pending", "fulfilled",
   "rejected", "unreadable". */
const char *pm_async_kind_name(v8_gen_kind_t k);
const char *pm_promise_state_name(int st);

/* The innermost generators (those no other one waits on) folded by identical chains. */
typedef struct {
    const char *text;    /* "await never in getUser (...) ← handle (...) ← ..." */
    size_t count, first; /* first: a member's index into c->g */
} pm_async_group_t;
typedef struct {
    pm_async_group_t *g; /* by count, most first, then by text */
    size_t n;
    size_t total;    /* innermost generators */
    strpool_t *pool; /* the texts */
} pm_async_groups_t;
/* After pm_async_link. Frame texts are read once per (function, bytecode offset): 100,000 requests
   suspended at the same await cost one position lookup. Free out with pm_async_groups_free. */
void pm_async_group(pm_async_t *c, pm_async_groups_t *out);
void pm_async_groups_free(pm_async_groups_t *gs);

#endif
