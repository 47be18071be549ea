/* What keeps a Node.js event loop alive, from libuv's default loop and Node's own JavaScript objects.
 *
 * libuv: default_loop_struct (a symbol of the node executable) is the main thread's uv_loop_t. Its
 * handle queue lists every handle (type, flags: active, ref'd, listening; the fd of streams; the
 * due time of timers; the pid of processes); active_handles and active_reqs are what uv_run
 * checks to decide whether the loop is alive; `time` is the loop's clock (ms). libuv keeps these
 * structs ABI-stable across 1.x; the offsets below were read off the DWARF types of the Node 18,
 * 20, 22 and 24 executables (gdb: p &((uv_loop_t*)0)->time), and are the same in all four.
 *
 * JavaScript: Node's objects for the same work, found by a heap walk and recognised by their
 * constructor name (once per map): Timeout and Immediate (the callback, delay, start, repeat,
 * ref'd), net Server and Socket, ChildProcess, Worker, the handle wraps (TCP, Pipe, TTY, UDP,
 * Process) and request wraps (FSReqCallback, GetAddrInfoReqWrap, ...), and the nextTick queue (a
 * FixedQueue of 2048-slot circular buffers). A wrap is live while its second internal field holds the C++ object's address, which is also the uv handle's `data`: that
 * joins the two views. Dead objects that the GC has not yet collected are told apart by that field
 * and by Node's own flags (_destroyed, _handle = null). */
#include "util/hash.h"
#include "util/xalloc.h"
#include "v8/v8_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libuv 1.x, Linux x86-64 */
#define UV_LOOP_ACTIVE_HANDLES 8
#define UV_LOOP_HANDLE_QUEUE 16
#define UV_LOOP_ACTIVE_REQS 32
#define UV_LOOP_TIMER_HEAP 0x208
#define UV_LOOP_TIME 0x220
#define UV_HANDLE_TYPE 16
#define UV_HANDLE_QUEUE 32
#define UV_HANDLE_FLAGS 0x58
#define UV_STREAM_WRITE_QUEUE_SIZE 0x60
#define UV_STREAM_FD 0xb8
#define UV_UDP_FD 0xb0
#define UV_TIMER_TIMEOUT 0x80
#define UV_PROCESS_PID 0x68
#define UV_FLAG_CLOSING 0x1
#define UV_FLAG_CLOSED 0x2
#define UV_FLAG_ACTIVE 0x4
#define UV_FLAG_REF 0x8
#define UV_FLAG_INTERNAL 0x10
#define UV_FLAG_LISTENING 0x40
#define UV_FLAG_CONNECTION 0x80
#define MAX_HANDLES 100000

static const char *const uv_type_names[] = {"unknown", "async", "check", "fs_event", "fs_poll", "handle",
                                            "idle",    "pipe",  "poll",  "prepare",  "process", "stream",
                                            "tcp",     "timer", "tty",   "udp",      "signal",  "file"};

const char *v8_uv_type_name(int type)
{
    return type >= 0 && type < (int)(sizeof uv_type_names / sizeof uv_type_names[0]) ? uv_type_names[type] : "unknown";
}

int v8_uv_loop_read(v8_t *v, v8_uv_loop_t *out)
{
    uint64_t loop, size;
    memset(out, 0, sizeof *out);
    if (target_exe_symbol_addr(v->t, "default_loop_struct", &loop, &size) != 0) return -1;
    return v8_uv_loop_read_at(v, loop, out);
}

int v8_uv_loop_read_at(v8_t *v, uint64_t loop, v8_uv_loop_t *out)
{
    target_t *t = v->t;
    memset(out, 0, sizeof *out);
    uint32_t ah, ar;
    if (target_read_u32(t, loop + UV_LOOP_ACTIVE_HANDLES, &ah) != 0 ||
        target_read_u32(t, loop + UV_LOOP_ACTIVE_REQS, &ar) != 0 ||
        target_read_u64(t, loop + UV_LOOP_TIME, &out->time) != 0)
        return -1;
    out->addr = loop;
    out->active_handles = ah;
    out->active_reqs = ar;
    /* the handle queue: a circular list through each handle's handle_queue, the loop's own the head */
    uint64_t head = loop + UV_LOOP_HANDLE_QUEUE, q;
    size_t cap = 0;
    if (target_read_u64(t, head, &q) != 0) return -1;
    while (q != head && q) {
        if (out->nhandles >= MAX_HANDLES) {
            out->truncated = 1;
            break;
        }
        uint64_t h = q - UV_HANDLE_QUEUE;
        v8_uv_handle_t e = {.addr = h, .fd = -1};
        uint32_t type, flags;
        if (target_read_u32(t, h + UV_HANDLE_TYPE, &type) != 0 ||
            target_read_u32(t, h + UV_HANDLE_FLAGS, &flags) != 0 || target_read_u64(t, h, &e.data) != 0) {
            out->truncated = 1;
            break;
        }
        e.type = (int)type;
        e.flags = flags;
        e.active = (flags & UV_FLAG_ACTIVE) != 0;
        e.ref = (flags & UV_FLAG_REF) != 0;
        e.closing = (flags & (UV_FLAG_CLOSING | UV_FLAG_CLOSED)) != 0;
        e.internal = (flags & UV_FLAG_INTERNAL) != 0;
        e.listening = (flags & UV_FLAG_LISTENING) != 0;
        e.connection = (flags & UV_FLAG_CONNECTION) != 0;
        int32_t fd;
        uint64_t x;
        if (type == V8_UV_TCP || type == V8_UV_NAMED_PIPE || type == V8_UV_TTY) { /* streams */
            if (target_read(t, h + UV_STREAM_FD, &fd, 4) == 0) e.fd = fd;
            if (target_read_u64(t, h + UV_STREAM_WRITE_QUEUE_SIZE, &x) == 0) e.write_queue_size = x;
        } else if (type == V8_UV_UDP) {
            if (target_read(t, h + UV_UDP_FD, &fd, 4) == 0) e.fd = fd;
        } else if (type == V8_UV_TIMER) {
            if (target_read_u64(t, h + UV_TIMER_TIMEOUT, &x) == 0) e.timeout = x;
        } else if (type == V8_UV_PROCESS) {
            if (target_read(t, h + UV_PROCESS_PID, &fd, 4) == 0) e.pid = fd;
        }
        if (out->nhandles == cap) {
            cap = cap ? cap * 2 : 64;
            out->handles = xrealloc(out->handles, cap * sizeof *out->handles);
        }
        out->handles[out->nhandles++] = e;
        uint64_t next;
        if (target_read_u64(t, q, &next) != 0 || next == q) {
            out->truncated = 1;
            break;
        }
        q = next;
    }
    return 0;
}

void v8_uv_loop_free(v8_uv_loop_t *l)
{
    free(l->handles);
    l->handles = NULL;
    l->nhandles = 0;
}

/* ---- Node's JavaScript objects ---- */

typedef struct {
    const char *name;
    v8_pending_kind_t kind;
} known_t;

static const known_t known[] = {
    {"Timeout", V8_PENDING_TIMEOUT}, {"Immediate", V8_PENDING_IMMEDIATE}, {"Server", V8_PENDING_SERVER},
    {"Socket", V8_PENDING_SOCKET},   {"ChildProcess", V8_PENDING_CHILD},  {"Worker", V8_PENDING_WORKER},
    {"TCP", V8_PENDING_WRAP},        {"Pipe", V8_PENDING_WRAP},           {"TTY", V8_PENDING_WRAP},
    {"UDP", V8_PENDING_WRAP},        {"Process", V8_PENDING_WRAP},        {"FixedQueue", V8_PENDING_TICK_QUEUE},
};

static v8_pending_kind_t kind_of(const char *name)
{
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strcmp(name, known[i].name)) return known[i].kind;
    size_t n = strlen(name);
    /* request wraps: FSReqCallback, FSReqPromise, GetAddrInfoReqWrap, QueryReqWrap, TCPConnectWrap,
       WriteWrap, ShutdownWrap, ... */
    if (!strncmp(name, "FSReq", 5) || (n > 7 && !strcmp(name + n - 7, "ReqWrap")) ||
        (n > 11 && !strcmp(name + n - 11, "ConnectWrap")) || !strcmp(name, "WriteWrap") ||
        !strcmp(name, "ShutdownWrap"))
        return V8_PENDING_REQUEST;
    return V8_PENDING_NONE;
}

/* The C++ object a Node API object wraps: its internal field 1 (BaseObject::kSlot), a raw aligned
 * pointer; 0 when cleared (the request completed, the handle closed) or not one. */
uint64_t v8_node_wrap_pointer(v8_t *v, uint64_t obj)
{
    uint64_t x;
    if (v8_read_bytes(v, obj, v->L.api_embedder_fields + 8, &x, 8) != 0) return 0;
    if ((x & 7) || !(x & 0xffffffffu) || x < 0x10000 || x > 0x7fffffffffffull) return 0;
    return x;
}

static int num(v8_t *v, uint64_t obj, const char *key, double *d)
{
    uint64_t x;
    return v8_object_get(v, obj, key, &x) == 0 && v8_number_value(v, x, d) == 0 ? 0 : -1;
}

static int boolean(v8_t *v, uint64_t obj, const char *key)
{
    uint64_t x;
    if (v8_object_get(v, obj, key, &x) != 0) return -1;
    int k = v8_oddball_kind(v, x);
    return k == V8_ODDBALL_TRUE ? 1 : k == V8_ODDBALL_FALSE ? 0 : -1;
}

static int is_nullish(v8_t *v, uint64_t x)
{
    int k = v8_oddball_kind(v, x);
    return k == V8_ODDBALL_NULL || k == V8_ODDBALL_UNDEFINED;
}

typedef struct {
    v8_t *v;
    int *ref;
} refed_t;

static int find_refed(void *ctx, const v8_property_t *p)
{
    refed_t *r = ctx;
    if (!p->is_symbol || strcmp(p->key, "Symbol(refed)")) return 0;
    int k = v8_oddball_kind(r->v, p->value);
    *r->ref = k == V8_ODDBALL_TRUE ? 1 : k == V8_ODDBALL_FALSE ? 0 : -1;
    return 1;
}

typedef struct {
    const char *key;
    uint64_t value;
    int found;
} by_key_t;

static int find_key(void *ctx, const v8_property_t *p)
{
    by_key_t *k = ctx;
    if (p->is_accessor || strcmp(p->key, k->key)) return 0;
    k->value = p->value;
    k->found = 1;
    return 1;
}

/* A data property by its key as v8_object_properties spells it (symbols: "Symbol(desc)"). */
static int get_key(v8_t *v, uint64_t obj, const char *key, uint64_t *out)
{
    by_key_t k = {key, 0, 0};
    v8_object_properties(v, obj, find_key, &k);
    if (!k.found) return -1;
    *out = k.value;
    return 0;
}

/* Entries in Node's nextTick FixedQueue: a list of FixedCircularBuffers (bottom, top, list,
 * next), each holding (top - bottom) mod 2048 entries. */
static int64_t fixed_queue_length(v8_t *v, uint64_t q)
{
    uint64_t buf;
    int64_t total = 0;
    if (v8_object_get(v, q, "tail", &buf) != 0) return -1;
    for (int i = 0; i < 100000 && !is_nullish(v, buf); i++) {
        double bottom, top;
        uint64_t next;
        if (num(v, buf, "bottom", &bottom) != 0 || num(v, buf, "top", &top) != 0) return -1;
        total += ((int64_t)top - (int64_t)bottom) & 2047;
        if (v8_object_get(v, buf, "next", &next) != 0) break;
        buf = next;
    }
    return total;
}

void v8_pending_fill(v8_t *v, uint64_t obj, v8_pending_kind_t kind, v8_pending_t *p)
{
    memset(p, 0, sizeof *p);
    p->kind = kind;
    p->obj = obj;
    p->ref = -1;
    p->delay = p->start = p->repeat = -1;
    p->pid = -1;
    p->length = -1;
    uint64_t x;
    switch (kind) {
    case V8_PENDING_TIMEOUT:
    case V8_PENDING_IMMEDIATE: {
        p->live = boolean(v, obj, "_destroyed") == 0;
        if (v8_object_get(v, obj, kind == V8_PENDING_TIMEOUT ? "_onTimeout" : "_onImmediate", &x) == 0 &&
            !is_nullish(v, x))
            p->callback = x;
        else p->live = 0;
        if (kind == V8_PENDING_TIMEOUT) {
            num(v, obj, "_idleTimeout", &p->delay);
            num(v, obj, "_idleStart", &p->start);
            if (num(v, obj, "_repeat", &p->repeat) != 0) p->repeat = -1;
            if (p->delay < 0) p->live = 0;
        }
        refed_t r = {v, &p->ref};
        v8_object_properties(v, obj, find_refed, &r);
        break;
    }
    case V8_PENDING_SERVER:
    case V8_PENDING_SOCKET:
    case V8_PENDING_CHILD:
        /* net.Socket keeps its wrap under a symbol since Node 20 (`_handle` is an accessor) */
        if ((v8_object_get(v, obj, "_handle", &x) == 0 || get_key(v, obj, "Symbol(kHandle)", &x) == 0) &&
            !is_nullish(v, x) && v8_is_heap_object(v, x)) {
            p->handle = x;
            p->native = v8_node_wrap_pointer(v, x);
            p->live = p->native != 0;
        }
        if (kind == V8_PENDING_SERVER && v8_object_get(v, obj, "_connectionKey", &x) == 0) p->key = x;
        if (kind == V8_PENDING_SOCKET) {
            if (v8_object_get(v, obj, "_peername", &x) == 0 && !is_nullish(v, x)) p->peer = x;
            if (v8_object_get(v, obj, "_sockname", &x) == 0 && !is_nullish(v, x)) p->sock = x;
            if (v8_object_get(v, obj, "_host", &x) == 0 && !is_nullish(v, x)) p->key = x;
        }
        if (kind == V8_PENDING_CHILD) {
            double d;
            if (num(v, obj, "pid", &d) == 0) p->pid = (int)d;
            if (v8_object_get(v, obj, "spawnfile", &x) == 0) p->key = x;
        }
        break;
    case V8_PENDING_WORKER: {
        double d;
        p->live = num(v, obj, "threadId", &d) == 0 && d >= 0;
        p->pid = p->live ? (int)d : -1;
        break;
    }
    case V8_PENDING_WRAP:
        p->native = v8_node_wrap_pointer(v, obj);
        p->live = p->native != 0;
        break;
    case V8_PENDING_REQUEST:
        p->native = v8_node_wrap_pointer(v, obj);
        p->live = p->native != 0;
        /* the JavaScript to run when it completes: oncomplete, and what it will call back */
        if (v8_object_get(v, obj, "oncomplete", &x) == 0 && !is_nullish(v, x)) p->callback = x;
        if (v8_object_get(v, obj, "context", &x) == 0 && v8_is_heap_object(v, x) && !is_nullish(v, x)) {
            uint64_t cb;
            if (v8_object_get(v, x, "callback", &cb) == 0 && !is_nullish(v, cb)) p->user_callback = cb;
        } else if (v8_object_get(v, obj, "callback", &x) == 0 && !is_nullish(v, x)) {
            p->user_callback = x;
        }
        break;
    case V8_PENDING_TICK_QUEUE:
        p->length = fixed_queue_length(v, obj);
        p->live = p->length >= 0;
        break;
    default: break;
    }
}

typedef struct {
    v8_t *v;
    v8_heap_t *h;
    u64map_t maps; /* map -> kind + 1 */
    v8_pending_cb cb;
    void *ctx;
    buf_t name;
} scan_t;

static int on_object(void *ctx, const v8_heap_object_t *o)
{
    scan_t *s = ctx;
    uint32_t k;
    if (!v8_heap_is_js_type(s->h, o->type) || o->prototype) return 0;
    if (!u64map_get(&s->maps, o->map, &k)) {
        buf_clear(&s->name);
        v8_pending_kind_t kind =
            v8_constructor_name(s->v, o->addr, &s->name) == 0 && s->name.len ? kind_of(s->name.data) : V8_PENDING_NONE;
        int found;
        *u64map_upsert(&s->maps, o->map, &found) = k = (uint32_t)kind + 1;
    }
    if (k - 1 == V8_PENDING_NONE) return 0;
    v8_pending_t p;
    v8_pending_fill(s->v, o->addr, (v8_pending_kind_t)(k - 1), &p);
    if (p.kind == V8_PENDING_WRAP || p.kind == V8_PENDING_REQUEST) {
        buf_clear(&s->name);
        v8_constructor_name(s->v, o->addr, &s->name);
        snprintf(p.class_name, sizeof p.class_name, "%s", s->name.data ? s->name.data : "");
    }
    return s->cb(s->ctx, &p);
}

int v8_pending_scan(v8_t *v, v8_heap_t *h, v8_pending_cb cb, void *ctx, v8_heap_stats_t *st)
{
    scan_t s = {v, h, {0}, cb, ctx, {0}};
    u64map_init(&s.maps);
    int rc = v8_heap_walk(h, on_object, &s, st);
    u64map_free(&s.maps);
    buf_free(&s.name);
    return rc;
}

/* ---- the microtask queue ----
 * V8 keeps a native context's microtasks (promise reactions, queueMicrotask callbacks) in a C++
 * ring buffer, the MicrotaskQueue, not on the JS heap. V8 exports the offsets of its fields
 * (MicrotaskQueue::kSizeOffset & co., in .dynsym on Node 18-22, in .symtab on 24). The native
 * context points at it from the raw word after its tagged slots (NativeContext::
 * kMicrotaskQueueOffset); a few words there are tried and the one that points at an object whose
 * vtable is MicrotaskQueue's is taken, so a layout change gives "unknown", never a wrong count. */
static int exported_offset(target_t *t, const char *name, int64_t *out)
{
    uint64_t x;
    if (target_exe_symbol_value(t, name, &x, NULL) != 0 || (int64_t)x < 0 || x > 4096) return -1;
    *out = (int64_t)x;
    return 0;
}

int v8_microtask_queue(v8_t *v, v8_microtasks_t *out)
{
    target_t *t = v8_target(v);
    memset(out, 0, sizeof *out);
    int64_t size_off, cap_off, start_off, ring_off;
    uint64_t vt, vt_size;
    if (exported_offset(t, "_ZN2v88internal14MicrotaskQueue11kSizeOffsetE", &size_off) != 0 ||
        exported_offset(t, "_ZN2v88internal14MicrotaskQueue15kCapacityOffsetE", &cap_off) != 0 ||
        exported_offset(t, "_ZN2v88internal14MicrotaskQueue12kStartOffsetE", &start_off) != 0 ||
        exported_offset(t, "_ZN2v88internal14MicrotaskQueue17kRingBufferOffsetE", &ring_off) != 0 ||
        target_exe_symbol_addr(t, "_ZTVN2v88internal14MicrotaskQueueE", &vt, &vt_size) != 0 || !vt_size)
        return -1;
    /* the main native context, through one of Node's own functions on the global object */
    uint64_t global, fn, ctx, native;
    int64_t slots;
    if (v8_global_object(v, &global) != 0 || v8_object_get(v, global, "setTimeout", &fn) != 0 ||
        v8_function_context(v, fn, &ctx) != 0 || v8_native_context(v, ctx, &native) != 0 ||
        v8_fixed_array_length(v, native, &slots) != 0)
        return -1;
    for (int64_t k = 0; k < 4; k++) {
        uint64_t q, qvt;
        if (v8_read_bytes(v, native, v->L.fixed_array_data + 8 * (slots + k), &q, 8) != 0) break;
        if (!q || (q & 7) || target_read_u64(t, q, &qvt) != 0 || qvt < vt || qvt >= vt + vt_size) continue;
        int64_t size, cap, start;
        if (target_read(t, q + (uint64_t)size_off, &size, 8) != 0 ||
            target_read(t, q + (uint64_t)cap_off, &cap, 8) != 0 ||
            target_read(t, q + (uint64_t)start_off, &start, 8) != 0 ||
            target_read_u64(t, q + (uint64_t)ring_off, &out->ring) != 0)
            return -1;
        if (cap < 0 || size < 0 || size > cap || start < 0 || (cap && start >= cap)) return -1; /* torn or corrupt */
        out->queue = q;
        out->size = size;
        out->capacity = cap;
        out->start = start;
        return 0;
    }
    return -1;
}

int v8_microtask_at(v8_t *v, const v8_microtasks_t *q, int64_t i, uint64_t *task)
{
    if (i < 0 || i >= q->size || q->capacity <= 0) return -1;
    return target_read_u64(v8_target(v), q->ring + 8 * (uint64_t)((q->start + i) % q->capacity), task);
}

/* The function a microtask will call. Microtask classes have no fields in the metadata; their
 * Torque layouts are CallableTask {callable, context} and PromiseReactionJobTask {argument,
 * context, handler, promise_or_capability}, after a continuation_preserved_embedder_data field
 * from V8 12 on (as PromiseReaction). */
int v8_microtask_function(v8_t *v, uint64_t task, uint64_t *fn)
{
    int type;
    if (v8_instance_type(v, task, &type) != 0) return -1;
    const char *cls = v8_class_name(v, type);
    int64_t extra = v->major >= 12 ? 8 : 0, off;
    if (!cls) return -1;
    if (!strcmp(cls, "CallableTask")) off = 8 + extra;
    else if (!strcmp(cls, "PromiseFulfillReactionJobTask") || !strcmp(cls, "PromiseRejectReactionJobTask"))
        off = 24 + extra;
    else return -1;
    int ftype;
    if (v8_read_field(v, task, off, fn) != 0 || v8_instance_type(v, *fn, &ftype) != 0) return -1;
    /* Node 18-22's queueMicrotask enqueues runMicrotask bound to an AsyncResource that holds the
       program's callback: name that callback, as the user wrote it */
    uint64_t target, resource, cb;
    if (ftype == v->L.type_js_bound_function && v8_read_field(v, *fn, v->L.bound_target, &target) == 0) {
        *fn = target;
        /* bound_this follows bound_target_function (JSBoundFunction: target, this, arguments) */
        if (v8_read_field(v, task, off, &resource) == 0 &&
            v8_read_field(v, resource, v->L.bound_target + 8, &resource) == 0 &&
            v8_object_get(v, resource, "callback", &cb) == 0 && v8_instance_type(v, cb, &ftype) == 0 &&
            ftype >= v->L.type_first_js_function && ftype <= v->L.type_js_function) {
            *fn = cb;
            return 0;
        }
        if (v8_instance_type(v, *fn, &ftype) != 0) return -1;
    }
    return ftype >= v->L.type_first_js_function && ftype <= v->L.type_js_function ? 0 : -1;
}
