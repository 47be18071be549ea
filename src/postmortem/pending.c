/* What keeps the event loop alive, or will run later. Node's JavaScript objects give the
 * callbacks and delays (v8_pending_scan), libuv's default loop the fds, flags and the loop's
 * clock (v8_uv_loop_read); the two meet where a uv handle's data is the wrap's C++ object. On a
 * live process socket addresses come from /proc/PID/fd and /proc/PID/net/tcp{,6}
 * (target_proc_socket); a core keeps only what Node cached on the JavaScript objects (a server's
 * _connectionKey, _sockname/_peername). Invariant: items are the live ones, sorted by due time;
 * an item's uv points into the loop read here, so the two are freed together. */
#include "postmortem/pending.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/progress.h"
#include "util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    pm_pending_item_t *it;
    size_t n, cap;
    progress_t progress;
} found_t;

static int on_pending(void *ctx, const v8_pending_t *p)
{
    found_t *f = ctx;
    if (!p->live) return 0;
    if (f->n == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 64;
        f->it = xrealloc(f->it, f->cap * sizeof *f->it);
    }
    memset(&f->it[f->n], 0, sizeof f->it[f->n]);
    f->it[f->n++].p = *p;
    return 0;
}

static int by_due(const void *a, const void *b)
{
    const v8_pending_t *x = &((const pm_pending_item_t *)a)->p, *y = &((const pm_pending_item_t *)b)->p;
    double dx = x->start + x->delay, dy = y->start + y->delay;
    return (dx > dy) - (dx < dy);
}

static void str_value(v8_t *v, uint64_t value, buf_t *b)
{
    int tr;
    v8_string(v, value, b, 256, &tr);
}

/* An address object Node cached ({address, port}) as "addr:port"; 0 when there is none. */
static int cached_addr(v8_t *v, uint64_t obj, char *out, size_t n)
{
    uint64_t a, p;
    double port;
    if (!obj || v8_object_get(v, obj, "address", &a) != 0 || v8_object_get(v, obj, "port", &p) != 0 ||
        v8_number_value(v, p, &port) != 0)
        return 0;
    buf_t b = {0};
    str_value(v, a, &b);
    snprintf(out, n, "%s:%.0f", b.data ? b.data : "?", port);
    buf_free(&b);
    return 1;
}

/* Node's timer clock: _idleStart counts ms from a base that libuv's clock also passes through.
   Node arms one uv timer (the Environment's timer_handle_, initialised just before its immediate
   check and idle handles, so it comes right before them in the loop's handle queue) for the
   earliest expiry still ahead: base = its timeout - that expiry (start + delay of some timer).
   Going through the timers by expiry, the first that puts "now" at or after every timer's start
   and at or before that expiry is the one. While a timer callback runs Node's uv timer is
   stopped, and "now" is left unknown. */
static void match_clocks(pm_pending_t *r)
{
    double max_start = -INFINITY;
    for (size_t i = 0; i < r->n; i++)
        if (r->items[i].p.kind == V8_PENDING_TIMEOUT && r->items[i].p.start > max_start)
            max_start = r->items[i].p.start;
    const v8_uv_loop_t *loop = &r->loop;
    const v8_uv_handle_t *node_timer = NULL;
    for (size_t k = 0; r->have_loop && k + 2 < loop->nhandles && !node_timer; k++)
        if (loop->handles[k].type == V8_UV_TIMER && loop->handles[k + 1].type == V8_UV_CHECK &&
            loop->handles[k + 2].type == V8_UV_IDLE)
            node_timer = &loop->handles[k];
    for (size_t i = 0; node_timer && node_timer->active && !r->have_now && i < r->n; i++) {
        const v8_pending_t *p = &r->items[i].p;
        if (p->kind != V8_PENDING_TIMEOUT) continue;
        double e = p->start + p->delay;
        double now = (double)loop->time - ((double)node_timer->timeout - e);
        if (now >= max_start - 1 && now <= e + 1) r->have_now = 1, r->now = now;
    }
}

/* The item's handle, ref, due time, addresses and text. */
static void complete(v8_t *v, pm_pending_t *r, u64map_t *by_data, pm_pending_item_t *it)
{
    const v8_pending_t *p = &it->p;
    v8_pending_kind_t kind = p->kind;
    uint32_t k;
    it->uv = p->native && u64map_get(by_data, p->native, &k) ? &r->loop.handles[k - 1] : NULL;
    const v8_uv_handle_t *u = it->uv;
    it->ref = kind == V8_PENDING_TIMEOUT || kind == V8_PENDING_IMMEDIATE ? p->ref : u ? u->ref && u->active : -1;
    if (kind == V8_PENDING_REQUEST) it->ref = 1; /* a request in flight always keeps the loop */
    it->due = p->start + p->delay - r->now;
    buf_t t = {0};
    if (kind == V8_PENDING_SERVER || kind == V8_PENDING_SOCKET) {
        target_socket_t a;
        if (u && r->pid && u->fd >= 0 && target_proc_socket(r->pid, u->fd, &a) == 0) {
            snprintf(it->local, sizeof it->local, "%s", a.local);
            if (kind == V8_PENDING_SOCKET) snprintf(it->remote, sizeof it->remote, "%s", a.remote);
        }
        if (!*it->local) cached_addr(v, p->sock, it->local, sizeof it->local);
        if (!*it->remote) cached_addr(v, p->peer, it->remote, sizeof it->remote);
        if (!*it->local && kind == V8_PENDING_SERVER && p->key) { /* "4:127.0.0.1:8080" */
            str_value(v, p->key, &t);
            const char *c = t.data ? strchr(t.data, ':') : NULL;
            if (c) snprintf(it->local, sizeof it->local, "%s", c + 1);
        }
    } else if (kind == V8_PENDING_CHILD && p->key) {
        str_value(v, p->key, &t);
        if (t.data) it->text = xstrdup(t.data);
    }
    buf_free(&t);
}

/* The microtasks waiting in V8's queue: how many, and the function each would call (a
   queueMicrotask callback, a promise reaction's handler), the first PM_MAX_MICROTASKS. */
static void read_microtasks(v8_t *v, pm_pending_t *r)
{
    if (v8_microtask_queue(v, &r->mq) != 0) return;
    r->have_microtasks = 1;
    for (int64_t i = 0; i < r->mq.size && i < PM_MAX_MICROTASKS; i++) {
        pm_microtask_t *m = &r->tasks[r->ntasks];
        if (v8_microtask_at(v, &r->mq, i, &m->task) != 0) break;
        int type;
        m->type = v8_instance_type(v, m->task, &type) == 0 ? v8_class_name(v, type) : NULL;
        if (v8_microtask_function(v, m->task, &m->fn) != 0) m->fn = 0;
        r->ntasks++;
    }
}

void pm_pending_collect(v8_t *v, target_t *t, pm_pending_t *r)
{
    memset(r, 0, sizeof *r);
    const char *tname = target_name(t);
    r->pid = strcmp(target_kind(t), "core") && !strncmp(tname, "pid ", 4) ? atoi(tname + 4) : 0;
    r->have_loop = v8_uv_loop_read(v, &r->loop) == 0;
    if (!r->have_loop)
        diag_warn(tname, 0,
                  "pending: libuv's default loop (default_loop_struct) is unreadable: no fds, flags or loop time");
    else if (r->loop.truncated)
        diag_warn(tname, 0, "pending: libuv's handle queue is corrupt or too long: %zu handles read", r->loop.nhandles);
    u64map_t by_data;
    u64map_init(&by_data);
    for (size_t i = 0; r->have_loop && i < r->loop.nhandles; i++) {
        int found;
        if (r->loop.handles[i].data) *u64map_upsert(&by_data, r->loop.handles[i].data, &found) = (uint32_t)(i + 1);
    }
    r->shown = xcalloc(r->have_loop && r->loop.nhandles ? r->loop.nhandles : 1, 1);

    v8_heap_t *h = v8_heap_open(v);
    found_t f = {0};
    if (!v8_heap_found(h)) {
        diag_warn(tname, 0, "pending: no V8 heap pages found: only libuv's view");
    } else {
        progress_init(&f.progress, "walking the heap", "objects");
        v8_heap_stats_t st;
        v8_pending_scan(v, h, on_pending, &f, &st);
        progress_done(&f.progress);
        if (st.unreadable_pages)
            diag_warn(tname, 0, "pending: %zu heap pages could not be read: the lists may be partial",
                      st.unreadable_pages);
    }
    if (f.n) qsort(f.it, f.n, sizeof *f.it, by_due);
    r->items = f.it, r->n = f.n;
    match_clocks(r);
    r->alive = r->have_loop && (r->loop.active_handles > 0 || r->loop.active_reqs > 0);
    r->next_ticks = -1;
    for (size_t i = 0; i < r->n; i++) {
        pm_pending_item_t *it = &r->items[i];
        if (it->p.kind == V8_PENDING_TICK_QUEUE)
            r->next_ticks = r->next_ticks < 0 ? it->p.length : r->next_ticks + it->p.length;
        complete(v, r, &by_data, it);
        if (it->uv && it->p.kind != V8_PENDING_WRAP && it->p.kind != V8_PENDING_TICK_QUEUE &&
            it->p.kind != V8_PENDING_NONE)
            r->shown[it->uv - r->loop.handles] = 1;
    }
    read_microtasks(v, r);
    u64map_free(&by_data);
    v8_heap_close(h);
}

void pm_pending_free(pm_pending_t *p)
{
    for (size_t i = 0; i < p->n; i++) free(p->items[i].text);
    free(p->items);
    free(p->shown);
    if (p->have_loop) v8_uv_loop_free(&p->loop);
    memset(p, 0, sizeof *p);
}
