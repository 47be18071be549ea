/* What keeps the event loop alive (postmortem/pending.c): Node's pending JavaScript objects
 * (timers, immediates, servers, sockets, children, requests, workers, the nextTick queue) joined
 * with libuv's default loop (fds, flags, the loop's clock) where a uv handle's data is the wrap's
 * C++ object, socket addresses (/proc on a live process, what Node cached in a core), and V8's
 * microtask queue. Printing is the caller's (cli/core_pending.c). */
#ifndef POSTMORTEM_PENDING_H
#define POSTMORTEM_PENDING_H
#include "target/target.h"
#include "v8/v8.h"
#include <stddef.h>
#include <stdint.h>

typedef struct {
    v8_pending_t p;             /* the JavaScript object */
    const v8_uv_handle_t *uv;   /* its libuv handle (into pm_pending_t.loop), NULL when none */
    int ref;                    /* holds the loop open: 1, 0, -1 unknown (a request: always 1) */
    double due;                 /* TIMEOUT, IMMEDIATE: ms until due by the loop's clock (have_now) */
    char local[96], remote[96]; /* SERVER, SOCKET: addresses, "" unknown */
    char *text;                 /* CHILD: the spawnfile, NULL unknown */
} pm_pending_item_t;

#define PM_MAX_MICROTASKS 20
typedef struct {
    uint64_t task;
    const char *type; /* its V8 class, NULL unknown */
    uint64_t fn;      /* the function it would call, 0 unknown */
} pm_microtask_t;

typedef struct {
    int pid;       /* a live process's pid (its sockets from /proc), 0 for a core */
    int have_loop; /* libuv's default loop was read */
    v8_uv_loop_t loop;
    int alive;                /* the loop has a ref'd active handle or a request in flight */
    uint8_t *shown;           /* per loop handle: some item above stands for it */
    pm_pending_item_t *items; /* the live ones, by due time (start + delay) */
    size_t n;
    int have_now; /* Node's timer clock was matched with libuv's: due is known */
    double now;
    int64_t next_ticks;  /* entries in the nextTick queue, -1 unknown */
    int have_microtasks; /* V8's microtask queue was read */
    v8_microtasks_t mq;
    pm_microtask_t tasks[PM_MAX_MICROTASKS];
    size_t ntasks; /* the first ntasks of mq.size read */
} pm_pending_t;

/* Reads libuv's loop and walks the heap once (progress on stderr); warns (diag) when the loop or
   the heap is unreadable or partial. Free out with pm_pending_free. */
void pm_pending_collect(v8_t *v, target_t *t, pm_pending_t *out);
void pm_pending_free(pm_pending_t *p);

#endif
