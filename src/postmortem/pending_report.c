/* The output of `core pending` (postmortem/pending_report.h): the loop, each section of pending
 * objects, the nextTick and microtask queues and libuv's other handles, as text or as JSON. */
#include "postmortem/pending_report.h"
#include <stdio.h>
#include <string.h>

/* A function as "name (file:line:col)", "?" when there is none. */
static void fn_text(v8_t *v, uint64_t fn, buf_t *b)
{
    v8_function_t fi;
    if (!fn || v8_function_info(v, fn, &fi) != 0) {
        buf_puts(b, "?");
        return;
    }
    buf_puts(b, v8_function_display_name(&fi, "(anonymous)"));
    if (fi.script_name && fi.def_line) buf_printf(b, " (%s:%d:%d)", fi.script_name, fi.def_line, fi.def_col);
    v8_function_free(&fi);
}

/* The same as {"name", "file", "line", "column"}, null when there is none. */
static void fn_json(v8_t *v, jw_t *w, const char *key, uint64_t fn)
{
    v8_function_t fi;
    if (!fn || v8_function_info(v, fn, &fi) != 0) {
        jw_null(w, key);
        return;
    }
    jw_object_begin(w, key);
    jw_string(w, "name", v8_function_display_name(&fi, "(anonymous)"));
    jw_string(w, "file", fi.script_name);
    jw_int(w, "line", fi.def_line);
    jw_int(w, "column", fi.def_col);
    jw_end(w);
    v8_function_free(&fi);
}

/* A string member, null when it is empty. */
static void json_opt_str(jw_t *w, const char *key, const char *val) { jw_string(w, key, val && *val ? val : NULL); }

/* The microtask queue as text into b, or as the member "microtasks" into the JSON document w
   (not NULL) has open. */
static void print_microtasks(v8_t *v, const pm_pending_t *r, buf_t *b, jw_t *w)
{
    if (!r->have_microtasks) {
        if (w) jw_null(w, "microtasks");
        return;
    }
    if (w) {
        jw_object_begin(w, "microtasks");
        jw_address(w, "queue", r->mq.queue);
        jw_int(w, "size", r->mq.size);
        jw_int(w, "capacity", r->mq.capacity);
        jw_array_begin(w, "tasks");
    } else buf_printf(b, "microtask queue: %lld waiting\n", (long long)r->mq.size);
    buf_t d = {0};
    for (size_t i = 0; i < r->ntasks; i++) {
        const pm_microtask_t *m = &r->tasks[i];
        if (w) {
            jw_object_begin(w, NULL);
            jw_address(w, "task", m->task);
            jw_string(w, "type", m->type ? m->type : "");
            fn_json(v, w, "function", m->fn);
            jw_end(w);
            continue;
        }
        buf_clear(&d);
        if (m->fn) fn_text(v, m->fn, &d);
        buf_printf(b, "  %s %s\n", m->type ? m->type : "?", m->fn && d.len ? d.data : "");
    }
    if (w) {
        jw_end(w);
        jw_end(w);
    } else if (r->mq.size > PM_MAX_MICROTASKS)
        buf_printf(b, "  ... (%lld more)\n", (long long)(r->mq.size - PM_MAX_MICROTASKS));
    buf_free(&d);
}

/* Text into b (w NULL) or the members of the object w has open, flushing b to out when it grows;
   the JSON's last member is "handles". */
static void write_pending(v8_t *v, const pm_pending_t *r, jw_t *w, buf_t *b, FILE *out)
{
    const v8_uv_loop_t *loop = &r->loop;
    if (w) {
        if (r->have_loop) {
            jw_object_begin(w, "loop");
            jw_bool(w, "alive", r->alive);
            jw_uint(w, "time", loop->time);
            jw_uint(w, "active_handles", loop->active_handles);
            jw_uint(w, "active_reqs", loop->active_reqs);
            jw_end(w);
        } else {
            jw_null(w, "loop");
        }
    } else if (r->have_loop) {
        buf_printf(b, "event loop: %s (%u ref'd active handle%s, %u request%s in flight); loop time %llu ms\n",
                   r->alive ? "alive" : "would exit", loop->active_handles, loop->active_handles == 1 ? "" : "s",
                   loop->active_reqs, loop->active_reqs == 1 ? "" : "s", (unsigned long long)loop->time);
    }
    static const struct {
        v8_pending_kind_t kind;
        const char *json, *title;
    } sections[] = {
        {V8_PENDING_TIMEOUT, "timers", "timers"},          {V8_PENDING_IMMEDIATE, "immediates", "immediates"},
        {V8_PENDING_SERVER, "servers", "servers"},         {V8_PENDING_SOCKET, "sockets", "sockets"},
        {V8_PENDING_CHILD, "children", "child processes"}, {V8_PENDING_REQUEST, "requests", "requests in flight"},
        {V8_PENDING_WORKER, "workers", "workers"},
    };
    for (size_t sec = 0; sec < sizeof sections / sizeof sections[0]; sec++) {
        v8_pending_kind_t kind = sections[sec].kind;
        size_t count = 0;
        for (size_t i = 0; i < r->n; i++) count += r->items[i].p.kind == kind;
        if (w) jw_array_begin(w, sections[sec].json);
        else if (count) buf_printf(b, "%s (%zu):\n", sections[sec].title, count);
        for (size_t i = 0; i < r->n; i++) {
            const pm_pending_item_t *it = &r->items[i];
            const v8_pending_t *p = &it->p;
            const v8_uv_handle_t *u = it->uv;
            if (p->kind != kind) continue;
            if (w) {
                jw_object_begin(w, NULL);
                jw_address(w, "address", p->obj);
                if (it->ref < 0) jw_null(w, "ref");
                else jw_bool(w, "ref", it->ref);
            } else buf_printf(b, "  %-5s ", it->ref < 0 ? "?" : it->ref ? "ref" : "unref");
            switch (kind) {
            case V8_PENDING_TIMEOUT:
            case V8_PENDING_IMMEDIATE:
                if (w) {
                    fn_json(v, w, "callback", p->callback);
                    if (kind == V8_PENDING_TIMEOUT) {
                        jw_fixed(w, "delay", 0, p->delay);
                        jw_fixed(w, "start", 0, p->start);
                        if (p->repeat >= 0) jw_fixed(w, "repeat", 0, p->repeat);
                        else jw_null(w, "repeat");
                        if (r->have_now) jw_fixed(w, "due_in", 0, it->due);
                        else jw_null(w, "due_in");
                    }
                } else {
                    if (kind == V8_PENDING_TIMEOUT) {
                        if (r->have_now) buf_printf(b, "due in %8.0f ms  ", it->due);
                        buf_printf(b, "%s %.0f ms  ", p->repeat >= 0 ? "every" : "after", p->delay);
                    }
                    fn_text(v, p->callback, b);
                }
                break;
            case V8_PENDING_SERVER:
            case V8_PENDING_SOCKET: {
                const char *type = u ? v8_uv_type_name(u->type) : "?";
                const char *state = !u                                          ? "no handle"
                                    : u->listening || kind == V8_PENDING_SERVER ? "listening"
                                                                                : "connected";
                if (w) {
                    json_opt_str(w, "type", type);
                    json_opt_str(w, "state", state);
                    jw_int(w, "fd", u ? u->fd : -1);
                    json_opt_str(w, "local", it->local);
                    json_opt_str(w, "remote", it->remote);
                    if (u && kind == V8_PENDING_SOCKET) jw_uint(w, "write_queue", u->write_queue_size);
                } else {
                    buf_printf(b, "%s fd %d %s", type, u ? u->fd : -1, state);
                    if (*it->local) buf_printf(b, " %s", it->local);
                    if (*it->remote) buf_printf(b, " -> %s", it->remote);
                    if (!*it->local && !*it->remote)
                        buf_puts(b, r->pid ? " (address unknown)"
                                           : " (address not cached in the core; --pid reads /proc)");
                    if (u && u->write_queue_size)
                        buf_printf(b, ", %llu bytes queued", (unsigned long long)u->write_queue_size);
                }
                break;
            }
            case V8_PENDING_CHILD:
                if (w) {
                    jw_int(w, "pid", p->pid);
                    json_opt_str(w, "file", it->text);
                } else {
                    buf_printf(b, "pid %d %s", p->pid, it->text ? it->text : "?");
                }
                break;
            case V8_PENDING_REQUEST:
                if (w) {
                    json_opt_str(w, "type", p->class_name);
                    fn_json(v, w, "oncomplete", p->callback);
                    fn_json(v, w, "callback", p->user_callback);
                } else {
                    buf_printf(b, "%s", p->class_name);
                    if (p->callback) {
                        buf_puts(b, " oncomplete ");
                        fn_text(v, p->callback, b);
                    }
                    if (p->user_callback) {
                        buf_puts(b, " -> ");
                        fn_text(v, p->user_callback, b);
                    }
                }
                break;
            case V8_PENDING_WORKER:
                if (w) jw_int(w, "thread_id", p->pid);
                else buf_printf(b, "threadId %d", p->pid);
                break;
            default: break;
            }
            if (w) jw_end(w);
            else buf_putc(b, '\n');
            if (b->len > 1 << 16) fwrite(b->data, 1, b->len, out), buf_clear(b);
        }
        if (w) jw_end(w);
    }
    if (w) jw_int(w, "next_ticks", r->next_ticks);
    else if (r->next_ticks >= 0)
        buf_printf(b, "nextTick queue: %lld callback%s\n", (long long)r->next_ticks, r->next_ticks == 1 ? "" : "s");
    print_microtasks(v, r, b, w);
    /* libuv's handles no JavaScript object above stands for (the wraps of sockets shown, Node's
       own timer, check and async handles, stdio, signals) */
    if (w) jw_array_begin(w, "handles");
    else if (r->have_loop) buf_puts(b, "other libuv handles:\n");
    for (size_t i = 0; r->have_loop && i < loop->nhandles; i++) {
        const v8_uv_handle_t *u = &loop->handles[i];
        if (w) {
            jw_object_begin(w, NULL);
            jw_address(w, "address", u->addr);
            jw_string(w, "type", v8_uv_type_name(u->type));
            jw_bool(w, "active", u->active);
            jw_bool(w, "ref", u->ref);
            jw_int(w, "fd", u->fd);
            jw_bool(w, "shown", r->shown[i]);
            jw_end(w);
            continue;
        }
        if (r->shown[i] || u->closing) continue;
        buf_printf(b, "  %-5s %s%s", u->active && u->ref ? "ref" : "unref", v8_uv_type_name(u->type),
                   u->active ? "" : " (inactive)");
        if (u->fd >= 0) buf_printf(b, " fd %d", u->fd);
        if (u->type == V8_UV_PROCESS) buf_printf(b, " pid %d", u->pid);
        if (u->type == V8_UV_TIMER && u->active) buf_printf(b, " due in %lld ms", (long long)(u->timeout - loop->time));
        buf_putc(b, '\n');
    }
    if (w) jw_end(w);
}

void pm_pending_write_text(v8_t *v, const pm_pending_t *r, buf_t *b, FILE *out) { write_pending(v, r, NULL, b, out); }

void pm_pending_write_json(v8_t *v, const pm_pending_t *r, jw_t *w, buf_t *b, FILE *out)
{
    write_pending(v, r, w, b, out);
}
