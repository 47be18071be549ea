/* nodescope core ... pending: what keeps the event loop alive, or will run later: timers,
 * immediates, servers and sockets, child processes, requests in flight, the nextTick queue and
 * workers, each with whether it holds the loop open (ref'd). Node's JavaScript objects give the
 * callbacks and delays (v8_pending_scan), libuv's default loop the fds, flags and the loop's clock
 * (v8_uv_loop_read); the two meet where a uv handle's data is the wrap's C++ object. On --pid,
 * socket addresses come from /proc/PID/fd and /proc/PID/net/tcp{,6}; a core keeps only what
 * Node cached on the JavaScript objects (a server's _connectionKey, _sockname/_peername). */
#include "cli/core_cmds.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/json_writer.h"
#include "util/options.h"
#include "util/progress.h"
#include "util/xalloc.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    v8_pending_t *p;
    size_t n, cap;
    progress_t progress;
} found_t;

static int on_pending(void *ctx, const v8_pending_t *p)
{
    found_t *f = ctx;
    if (!p->live) return 0;
    if (f->n == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 64;
        f->p = xrealloc(f->p, f->cap * sizeof *f->p);
    }
    f->p[f->n++] = *p;
    return 0;
}

/* ---- printing helpers ---- */

static const char *fn_name(const v8_function_t *fi)
{
    return v8_function_display_name(fi, "(anonymous)");
}

/* A function as "name (file:line:col)", "?" when there is none. */
static void fn_text(core_session_t *s, uint64_t fn, buf_t *b)
{
    v8_function_t fi;
    if (!fn || v8_function_info(s->v, fn, &fi) != 0) {
        buf_puts(b, "?");
        return;
    }
    buf_puts(b, fn_name(&fi));
    if (fi.script_name && fi.def_line) buf_printf(b, " (%s:%d:%d)", fi.script_name, fi.def_line, fi.def_col);
    v8_function_free(&fi);
}

/* The same as {"name", "file", "line", "column"}, null when there is none. */
static void fn_json(core_session_t *s, jw_t *w, const char *key, uint64_t fn)
{
    v8_function_t fi;
    if (!fn || v8_function_info(s->v, fn, &fi) != 0) {
        jw_null(w, key);
        return;
    }
    jw_object_begin(w, key);
    jw_string(w, "name", fn_name(&fi));
    jw_string(w, "file", fi.script_name);
    jw_int(w, "line", fi.def_line);
    jw_int(w, "column", fi.def_col);
    jw_end(w);
    v8_function_free(&fi);
}

static void str_value(core_session_t *s, uint64_t value, buf_t *b)
{
    int tr;
    v8_string(s->v, value, b, 256, &tr);
}

/* An address object Node cached ({address, port}) as "addr:port"; 0 when there is none. */
static int cached_addr(core_session_t *s, uint64_t obj, char *out, size_t n)
{
    uint64_t a, p;
    double port;
    if (!obj || v8_object_get(s->v, obj, "address", &a) != 0 || v8_object_get(s->v, obj, "port", &p) != 0 ||
        v8_number_value(s->v, p, &port) != 0)
        return 0;
    buf_t b = {0};
    str_value(s, a, &b);
    snprintf(out, n, "%s:%.0f", b.data ? b.data : "?", port);
    buf_free(&b);
    return 1;
}

static const v8_uv_handle_t *handle_for(const v8_uv_loop_t *loop, u64map_t *by_data, uint64_t native)
{
    uint32_t k;
    return native && u64map_get(by_data, native, &k) ? &loop->handles[k - 1] : NULL;
}

/* A string member, null when it is empty. */
static void json_opt_str(jw_t *w, const char *key, const char *val)
{
    jw_string(w, key, val && *val ? val : NULL);
}

static int by_due(const void *a, const void *b)
{
    const v8_pending_t *x = a, *y = b;
    double dx = x->start + x->delay, dy = y->start + y->delay;
    return (dx > dy) - (dx < dy);
}

/* The microtasks waiting in V8's queue: how many, and the function each would call (a
 * queueMicrotask callback, a promise reaction's handler), the first MAX_TASKS of them. */
#define MAX_TASKS 20
/* As text into b, or as the member "microtasks" into the JSON document w (not NULL) has open. */
static void print_microtasks(core_session_t *s, buf_t *b, jw_t *w)
{
    v8_microtasks_t q;
    if (v8_microtask_queue(s->v, &q) != 0) {
        if (w) jw_null(w, "microtasks");
        return;
    }
    if (w) {
        jw_object_begin(w, "microtasks");
        jw_address(w, "queue", q.queue);
        jw_int(w, "size", q.size);
        jw_int(w, "capacity", q.capacity);
        jw_array_begin(w, "tasks");
    } else buf_printf(b, "microtask queue: %lld waiting\n", (long long)q.size);
    buf_t d = {0};
    for (int64_t i = 0; i < q.size && i < MAX_TASKS; i++) {
        uint64_t task, fn = 0;
        if (v8_microtask_at(s->v, &q, i, &task) != 0) break;
        int type;
        const char *cls = v8_instance_type(s->v, task, &type) == 0 ? v8_class_name(s->v, type) : NULL;
        if (v8_microtask_function(s->v, task, &fn) != 0) fn = 0;
        if (w) {
            jw_object_begin(w, NULL);
            jw_address(w, "task", task);
            jw_string(w, "type", cls ? cls : "");
            fn_json(s, w, "function", fn);
            jw_end(w);
            continue;
        }
        buf_clear(&d);
        if (fn) fn_text(s, fn, &d);
        buf_printf(b, "  %s %s\n", cls ? cls : "?", fn && d.len ? d.data : "");
    }
    if (w) {
        jw_end(w);
        jw_end(w);
    } else if (q.size > MAX_TASKS) buf_printf(b, "  ... (%lld more)\n", (long long)(q.size - MAX_TASKS));
    buf_free(&d);
}

int core_cmd_pending(core_session_t *s, int argc, char **argv)
{
    static const char usage[] =
        "usage: nodescope core CORE|--pid PID pending [--json]\n\n"
        "What keeps the event loop alive, or will run later: timers (callback and where it is\n"
        "defined, delay, due in how long by the loop's clock, repeat), immediates, servers and\n"
        "sockets (fd, listening or connected, addresses: on --pid from /proc, in a core where Node\n"
        "cached them), child processes, requests in flight (fs, dns, connect: the callback that\n"
        "will run), the nextTick queue, workers, and libuv's other handles. `ref` marks what holds\n"
        "the loop open; the loop runs while a ref'd active handle or a request in flight exists.\n";
    int json = 0;
    const opt_t opts[] = {
        OPT_BOOL("json", 0, "a JSON document", &json),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core pending", usage, tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (n > 0) return opt_usage_error(&cmd, "unexpected argument '%s'", argv[1]);
    if (s->check_only) return EXIT_OK;
    if (core_need_v8(s, argv[0]) != 0) return EXIT_FAIL;
    const char *tname = target_name(s->t);
    int pid = strcmp(target_kind(s->t), "core") && !strncmp(tname, "pid ", 4) ? atoi(tname + 4) : 0;

    v8_uv_loop_t loop;
    int have_loop = v8_uv_loop_read(s->v, &loop) == 0;
    if (!have_loop) diag_warn(tname, 0, "pending: libuv's default loop (default_loop_struct) is unreadable: no fds, flags or loop time");
    else if (loop.truncated) diag_warn(tname, 0, "pending: libuv's handle queue is corrupt or too long: %zu handles read", loop.nhandles);
    u64map_t by_data;
    u64map_init(&by_data);
    for (size_t i = 0; have_loop && i < loop.nhandles; i++) {
        int found;
        if (loop.handles[i].data) *u64map_upsert(&by_data, loop.handles[i].data, &found) = (uint32_t)(i + 1);
    }

    v8_heap_t *h = v8_heap_open(s->v);
    found_t f = {0};
    if (!v8_heap_found(h)) {
        diag_warn(tname, 0, "pending: no V8 heap pages found: only libuv's view");
    } else {
        progress_init(&f.progress, "walking the heap", "objects");
        v8_heap_stats_t st;
        v8_pending_scan(s->v, h, on_pending, &f, &st);
        progress_done(&f.progress);
        if (st.unreadable_pages)
            diag_warn(tname, 0, "pending: %zu heap pages could not be read: the lists may be partial", st.unreadable_pages);
    }
    qsort(f.p, f.n, sizeof *f.p, by_due);

    /* Node's timer clock: _idleStart counts ms from a base that libuv's clock also passes through.
       Node arms one uv timer (the Environment's timer_handle_, initialised just before its
       immediate check and idle handles, so it comes right before them in the loop's handle queue)
       for the earliest expiry still ahead: base = its timeout - that expiry (start + delay of some
       timer). Going through the timers by expiry, the first that puts "now" at or after every
       timer's start and at or before that expiry is the one. While a timer callback runs Node's uv
       timer is stopped, and "now" is left unknown. */
    double max_start = -INFINITY;
    for (size_t i = 0; i < f.n; i++)
        if (f.p[i].kind == V8_PENDING_TIMEOUT && f.p[i].start > max_start) max_start = f.p[i].start;
    const v8_uv_handle_t *node_timer = NULL;
    for (size_t k = 0; have_loop && k + 2 < loop.nhandles && !node_timer; k++)
        if (loop.handles[k].type == V8_UV_TIMER && loop.handles[k + 1].type == V8_UV_CHECK && loop.handles[k + 2].type == V8_UV_IDLE)
            node_timer = &loop.handles[k];
    int have_now = 0;
    double now_js = 0;
    for (size_t i = 0; node_timer && node_timer->active && !have_now && i < f.n; i++) {
        if (f.p[i].kind != V8_PENDING_TIMEOUT) continue;
        double e = f.p[i].start + f.p[i].delay;
        double now = (double)loop.time - ((double)node_timer->timeout - e);
        if (now >= max_start - 1 && now <= e + 1) have_now = 1, now_js = now;
    }

    int alive = have_loop && (loop.active_handles > 0 || loop.active_reqs > 0);
    buf_t b = {0}, t = {0};
    jw_t jw, *w = json ? &jw : NULL;   /* json: written into b, which is written out when it grows */
    jw_init(&jw, &b);
    if (w) {
        jw_object_begin(w, NULL);
        if (have_loop) {
            jw_object_begin(w, "loop");
            jw_bool(w, "alive", alive);
            jw_uint(w, "time", loop.time);
            jw_uint(w, "active_handles", loop.active_handles);
            jw_uint(w, "active_reqs", loop.active_reqs);
            jw_end(w);
        } else {
            jw_null(w, "loop");
        }
    } else if (have_loop) {
        buf_printf(&b, "event loop: %s (%u ref'd active handle%s, %u request%s in flight); loop time %llu ms\n",
                   alive ? "alive" : "would exit", loop.active_handles, loop.active_handles == 1 ? "" : "s", loop.active_reqs,
                   loop.active_reqs == 1 ? "" : "s", (unsigned long long)loop.time);
    }
    static const struct { v8_pending_kind_t kind; const char *json, *title; } sections[] = {
        {V8_PENDING_TIMEOUT, "timers", "timers"},
        {V8_PENDING_IMMEDIATE, "immediates", "immediates"},
        {V8_PENDING_SERVER, "servers", "servers"},
        {V8_PENDING_SOCKET, "sockets", "sockets"},
        {V8_PENDING_CHILD, "children", "child processes"},
        {V8_PENDING_REQUEST, "requests", "requests in flight"},
        {V8_PENDING_WORKER, "workers", "workers"},
    };
    u64map_t claimed;   /* uv handles shown with a JS object */
    u64map_init(&claimed);
    for (size_t sec = 0; sec < sizeof sections / sizeof sections[0]; sec++) {
        v8_pending_kind_t kind = sections[sec].kind;
        size_t count = 0;
        for (size_t i = 0; i < f.n; i++) count += f.p[i].kind == kind;
        if (w) jw_array_begin(w, sections[sec].json);
        else if (count) buf_printf(&b, "%s (%zu):\n", sections[sec].title, count);
        for (size_t i = 0; i < f.n; i++) {
            const v8_pending_t *p = &f.p[i];
            if (p->kind != kind) continue;
            const v8_uv_handle_t *u = handle_for(&loop, &by_data, p->native);
            if (u) {
                int found;
                *u64map_upsert(&claimed, u->addr, &found) = 1;
            }
            int ref = kind == V8_PENDING_TIMEOUT || kind == V8_PENDING_IMMEDIATE ? p->ref : u ? u->ref && u->active : -1;
            if (kind == V8_PENDING_REQUEST) ref = 1;   /* a request in flight always keeps the loop */
            if (w) {
                jw_object_begin(w, NULL);
                jw_address(w, "address", p->obj);
                if (ref < 0) jw_null(w, "ref");
                else jw_bool(w, "ref", ref);
            } else buf_printf(&b, "  %-5s ", ref < 0 ? "?" : ref ? "ref" : "unref");
            char local[96] = "", remote[96] = "";
            switch (kind) {
            case V8_PENDING_TIMEOUT:
            case V8_PENDING_IMMEDIATE: {
                double due = p->start + p->delay - now_js;
                if (w) {
                    fn_json(s, w, "callback", p->callback);
                    if (kind == V8_PENDING_TIMEOUT) {
                        jw_fixed(w, "delay", 0, p->delay);
                        jw_fixed(w, "start", 0, p->start);
                        if (p->repeat >= 0) jw_fixed(w, "repeat", 0, p->repeat);
                        else jw_null(w, "repeat");
                        if (have_now) jw_fixed(w, "due_in", 0, due);
                        else jw_null(w, "due_in");
                    }
                } else {
                    if (kind == V8_PENDING_TIMEOUT) {
                        if (have_now) buf_printf(&b, "due in %8.0f ms  ", due);
                        buf_printf(&b, "%s %.0f ms  ", p->repeat >= 0 ? "every" : "after", p->delay);
                    }
                    fn_text(s, p->callback, &b);
                }
                break;
            }
            case V8_PENDING_SERVER:
            case V8_PENDING_SOCKET: {
                target_socket_t a;
                if (u && pid && u->fd >= 0 && target_proc_socket(pid, u->fd, &a) == 0) {
                    snprintf(local, sizeof local, "%s", a.local);
                    if (kind == V8_PENDING_SOCKET) snprintf(remote, sizeof remote, "%s", a.remote);
                }
                if (!*local) cached_addr(s, p->sock, local, sizeof local);
                if (!*remote) cached_addr(s, p->peer, remote, sizeof remote);
                if (!*local && kind == V8_PENDING_SERVER && p->key) {   /* "4:127.0.0.1:8080" */
                    buf_clear(&t);
                    str_value(s, p->key, &t);
                    const char *c = t.data ? strchr(t.data, ':') : NULL;
                    if (c) snprintf(local, sizeof local, "%s", c + 1);
                }
                const char *type = u ? v8_uv_type_name(u->type) : "?";
                const char *state = !u ? "no handle" : u->listening || kind == V8_PENDING_SERVER ? "listening" : "connected";
                if (w) {
                    json_opt_str(w, "type", type);
                    json_opt_str(w, "state", state);
                    jw_int(w, "fd", u ? u->fd : -1);
                    json_opt_str(w, "local", local);
                    json_opt_str(w, "remote", remote);
                    if (u && kind == V8_PENDING_SOCKET) jw_uint(w, "write_queue", u->write_queue_size);
                } else {
                    buf_printf(&b, "%s fd %d %s", type, u ? u->fd : -1, state);
                    if (*local) buf_printf(&b, " %s", local);
                    if (*remote) buf_printf(&b, " -> %s", remote);
                    if (!*local && !*remote) buf_puts(&b, pid ? " (address unknown)" : " (address not cached in the core; --pid reads /proc)");
                    if (u && u->write_queue_size) buf_printf(&b, ", %llu bytes queued", (unsigned long long)u->write_queue_size);
                }
                break;
            }
            case V8_PENDING_CHILD:
                buf_clear(&t);
                if (p->key) str_value(s, p->key, &t);
                if (w) {
                    jw_int(w, "pid", p->pid);
                    json_opt_str(w, "file", t.data);
                } else {
                    buf_printf(&b, "pid %d %s", p->pid, t.data ? t.data : "?");
                }
                break;
            case V8_PENDING_REQUEST:
                if (w) {
                    json_opt_str(w, "type", p->class_name);
                    fn_json(s, w, "oncomplete", p->callback);
                    fn_json(s, w, "callback", p->user_callback);
                } else {
                    buf_printf(&b, "%s", p->class_name);
                    if (p->callback) {
                        buf_puts(&b, " oncomplete ");
                        fn_text(s, p->callback, &b);
                    }
                    if (p->user_callback) {
                        buf_puts(&b, " -> ");
                        fn_text(s, p->user_callback, &b);
                    }
                }
                break;
            case V8_PENDING_WORKER:
                if (w) jw_int(w, "thread_id", p->pid);
                else buf_printf(&b, "threadId %d", p->pid);
                break;
            default:
                break;
            }
            if (w) jw_end(w);
            else buf_putc(&b, '\n');
            if (b.len > 1 << 16) fwrite(b.data, 1, b.len, stdout), buf_clear(&b);
        }
        if (w) jw_end(w);
    }
    /* the nextTick queue */
    int64_t ticks = -1;
    for (size_t i = 0; i < f.n; i++)
        if (f.p[i].kind == V8_PENDING_TICK_QUEUE) ticks = ticks < 0 ? f.p[i].length : ticks + f.p[i].length;
    if (w) jw_int(w, "next_ticks", ticks);
    else if (ticks >= 0) buf_printf(&b, "nextTick queue: %lld callback%s\n", (long long)ticks, ticks == 1 ? "" : "s");
    print_microtasks(s, &b, w);
    /* libuv's handles no JavaScript object above stands for (the wraps of sockets shown, Node's
       own timer, check and async handles, stdio, signals) */
    if (w) jw_array_begin(w, "handles");
    else if (have_loop) buf_puts(&b, "other libuv handles:\n");
    for (size_t i = 0; have_loop && i < loop.nhandles; i++) {
        const v8_uv_handle_t *u = &loop.handles[i];
        uint32_t c;
        if (w) {
            jw_object_begin(w, NULL);
            jw_address(w, "address", u->addr);
            jw_string(w, "type", v8_uv_type_name(u->type));
            jw_bool(w, "active", u->active);
            jw_bool(w, "ref", u->ref);
            jw_int(w, "fd", u->fd);
            jw_bool(w, "shown", u64map_get(&claimed, u->addr, &c));
            jw_end(w);
            continue;
        }
        if (u64map_get(&claimed, u->addr, &c) || u->closing) continue;
        buf_printf(&b, "  %-5s %s%s", u->active && u->ref ? "ref" : "unref", v8_uv_type_name(u->type), u->active ? "" : " (inactive)");
        if (u->fd >= 0) buf_printf(&b, " fd %d", u->fd);
        if (u->type == V8_UV_PROCESS) buf_printf(&b, " pid %d", u->pid);
        if (u->type == V8_UV_TIMER && u->active) buf_printf(&b, " due in %lld ms", (long long)(u->timeout - loop.time));
        buf_putc(&b, '\n');
    }
    if (w) {
        jw_end(w);
        core_json_read(s, w);
        jw_end(w);
        buf_putc(&b, '\n');
    }
    fwrite(b.data ? b.data : "", 1, b.len, stdout);
    buf_free(&b);
    buf_free(&t);
    u64map_free(&claimed);
    u64map_free(&by_data);
    free(f.p);
    v8_heap_close(h);
    if (have_loop) v8_uv_loop_free(&loop);
    return EXIT_OK;
}
