/* The live sampler (see live_sampler.h). Each thread has its own perf_event ring; a sample's
 * registers and stack copy are lent to the target (target_set_stack_copy) so that the frame walk
 * and v8/'s frame decoder read the stack as it was at the sample, and the heap as it is now (a few
 * ms later). The frames are those of `core stack`: v8_stack_frames + v8_frame_record. */
#include "record/live_internal.h"
#include "record/sample_unwind.h"
#include "symbols/journal.h"
#include "util/buf.h"
#include "util/demangle.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define STACK_MAX                                                                                                      \
    32768              /* the most a sample copies: threads whose calls nest that deep (tsc's
                                  checker recursing through the AST) (the kernel allows < 64 KiB) */
#define RING_PAGES 128 /* data pages per thread (a power of two): ~30 samples of 16 KiB */
#define EVENT_RING_PAGES                                                                                               \
    2048 /* -e, a thread that may run JS: ~500 samples (a burst of system calls,
                                  of GCs): 8 MiB, or RING_PAGES where the memory lock limit says no */
#define MAX_NATIVE SAMPLE_MAX_NATIVE
#define MAX_FRAMES 1024
#define SCAN_INTERVAL_S 0.1 /* how often new threads are looked for */
/* A sample's JS frames are named only if it is read within this time: a GC in between may have
 * moved the functions its stack points at and put others, even of the same shape, in their place.
 * Sampling reads within a few ms in the steady state; the first samples wait for caches to fill. */
#define MAX_LAG_NS (25 * 1000000ull)
/* ... unless the main thread ran no full GC since the sample (gc_watch.h): then only frames named
 * from their code or bytecode (v8_frame_t.stable) keep their names, however late. */
#define UNNAMED_LATE "(JS: read too late to name)"
#define UNNAMED_MOVED "(JS: moved before it was read)"
/* A process that exited before its samples were read: its JS frames (live_take_sample), or the
 * whole of a sample of one that could not be opened at all (live_sampler_early) */
#define UNNAMED_EXITED_JS "(JS: process exited before nodescope could read it)"
#define UNNAMED_EXITED "(process exited before nodescope could read it)"
/* the outer frames of a sample cut where a return address could not be one (unwind): its stack,
 * beyond the copy, changed before it was read; or its frame chain broke */
#define UNNAMED_CHANGED "(outer frames changed before they were read)"
#define UNNAMED_BROKEN "(outer frames lost: the frame chain broke)"
#define STRINGIFY(x) #x
#define STRING_OF(x) STRINGIFY(x)
#define UNNAMED_DEEP "(outer frames left out: a stack of over " STRING_OF(MAX_NATIVE) " native frames)"

/* A ring holds ~30 samples whatever they copy: a thread's samples wait there while nodescope names
 * another's (tsc at 999 Hz, 32 KiB copies in the ring of 16 KiB ones: 3-5x the samples lost). */
static size_t ring_pages(uint32_t copy) { return copy > STACK_BYTES ? 2 * RING_PAGES : RING_PAGES; }

/* A thread's sampling events (copying copy bytes of its stack) and their ring: the fd of the ring's
 * event, or -1 with errno set and nothing left open. */
static int open_sampling(live_sampler_t *s, thread_ev_t *te, uint32_t copy, perf_ring_t *ring, event_set_t *set)
{
    size_t pages = ring_pages(copy);
    if (s->o.events) {
        int fd = te->js ? live_events_open(s, te, copy, pages * EVENT_RING_PAGES / RING_PAGES, set, ring) : -1;
        return fd >= 0 || (te->js && errno != EPERM && errno != ENOMEM)
                   ? fd
                   : live_events_open(s, te, copy, pages, set, ring);
    }
    set->n = 0;
    int fd = events_open_cpu(te->tid, s->o.hz, te->woken, copy, (uint32_t)(pages * (size_t)perf_ring_page_size() / 2));
    if (fd < 0) return -1;
    if (perf_ring_map(ring, fd, pages) == 0) return fd;
    int err = errno;
    close(fd);
    errno = err;
    return -1;
}

static void close_sampling(int fd, perf_ring_t *ring, event_set_t *set)
{
    perf_ring_unmap(ring);
    if (set->n) events_close_set(set);
    else close(fd);
}

static void permission_hint(int err, const record_event_t *e)
{
    if (e) {
        events_permission_hint(e, err);
        return;
    }
    if (err == EACCES || err == EPERM) events_permission_hint(NULL, err);
    else if (err == ENOENT || err == ENOSYS)
        diag_hint("this kernel has no perf events (a container without them, or CONFIG_PERF_EVENTS off)");
}

static frame_kind_t kind_of(v8_tier_t t)
{
    switch (t) {
    case V8_TIER_TURBOFAN: return FRAME_JS_TURBOFAN;
    case V8_TIER_MAGLEV: return FRAME_JS_MAGLEV;
    case V8_TIER_BASELINE: return FRAME_JS_BASELINE;
    case V8_TIER_INTERPRETED: return FRAME_JS_INTERPRETED;
    default: return FRAME_JS;
    }
}

/* What a thread off the CPU waits in, from the innermost functions it entered the kernel from
 * (libc's own wrappers often have no symbol: their callers tell, "uv__io_poll", "FutexEmulation"). */
#define WAIT_LOOK 6
static const char *wait_name(target_t *t, const target_frame_t *native, size_t n, int preempted)
{
    static const struct {
        const char *part, *name;
    } kinds[] = {
        {"epoll", "(wait: epoll)"},        {"futex", "(wait: futex)"},         {"Futex", "(wait: futex)"},
        {"pthread_cond", "(wait: futex)"}, {"cond_wait", "(wait: futex)"},     {"sem_", "(wait: futex)"},
        {"Semaphore", "(wait: futex)"},    {"pthread_mutex", "(wait: futex)"}, {"Mutex", "(wait: futex)"},
        {"join", "(wait: futex)"},         {"nanosleep", "(wait: sleep)"},     {"sleep", "(wait: sleep)"},
        {"Sleep", "(wait: sleep)"},        {"poll", "(wait: poll)"},           {"select", "(wait: poll)"},
        {"accept", "(wait: accept)"},      {"recv", "(wait: recv)"},           {"send", "(wait: send)"},
        {"pread", "(wait: read)"},         {"read", "(wait: read)"},           {"Read", "(wait: read)"},
        {"write", "(wait: write)"},        {"Write", "(wait: write)"},         {"open", "(wait: open)"},
        {"fsync", "(wait: fsync)"},        {"wait", "(wait: wait)"},
    };
    if (preempted) return "(wait: preempted)"; /* runnable, but another task had the CPU */
    for (size_t f = 0; f < n && f < WAIT_LOOK; f++) {
        target_symbol_t sym;
        if (target_symbolize(t, f ? native[f].pc - 1 : native[f].pc, &sym) != 0 || !sym.name) continue;
        for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
            for (const char *at = sym.name; (at = strstr(at, kinds[i].part)) != NULL; at++)
                if (at == sym.name || (at[-1] != 'h' && at[-1] != 'H')) return kinds[i].name; /* not "thread" */
    }
    return "(wait: kernel)"; /* a page fault, or a system call not known by its callers */
}

/* A native frame's name, once per (pc, is a return address): symbol look-ups and C++ demangling
 * were a tenth of a sample's cost. NAME_SKIP: a frame left out (V8's builtins' own frames). Only
 * named frames are kept: an address without a symbol may get one once the maps are read again. */
#define NAME_SKIP UINT32_MAX
static uint64_t name_key(const v8_frame_t *f) { return f->pc * 2 + (f->return_address ? 1 : 0); }

/* The code at pc is no longer there: the process has exited, or is exiting (node disposes of its
 * isolate, and V8 unmaps its code space, before the process ends; a sample of its last JS read
 * then finds neither code nor heap). Read directly, not from the read cache. */
static int code_gone(int pid, uint64_t pc)
{
    uint8_t b;
    struct iovec here = {&b, 1}, there = {(void *)(uintptr_t)pc, 1};
    return process_vm_readv(pid, &here, 1, &there, 1, 0) < 0 && (errno == ESRCH || errno == EFAULT);
}

/* The same for the heap: the word a JS frame keeps its function in (fp - 16 on x64: V8's
 * StandardFrameConstants::kFunctionOffset), a tagged pointer to memory no longer mapped. */
static int heap_gone(target_t *t, int pid, const v8_frame_t *f)
{
    uint64_t w;
    return f->fp > 16 && target_read_u64(t, f->fp - 16, &w) == 0 && (w & 1) && w > 4096 && code_gone(pid, w & ~1ull);
}

/* Is any of the frames in anonymous executable memory (V8's code space)? */
static int in_jit_code(target_t *t, const target_frame_t *native, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const target_mapping_t *m = target_mapping_at(t, native[i].pc);
        if (m && !m->path && (m->prot & 4 /* PROT_EXEC */)) return 1;
    }
    return 0;
}

/* One sample: walk, decode, name, add (live_internal.h). time_ns is when the stack was last as
 * copied (the sample's time; for a thread off the CPU, when it came back); wait (a --wall stay's
 * leaf frame) or in->label, the leaf. */
uint32_t live_take_sample(live_sampler_t *s, thread_ev_t *te, const live_sample_in_t *in)
{
    target_t *t = s->t;
    v8_t *v = s->v;
    profile_t *p = s->out;
    u64map_t *names = &s->names;
    live_stats_t *st = &s->st;
    const uint64_t *regs = in->regs;
    uint64_t time_ns = in->time_ns, stack_len = in->stack_len;
    int off_cpu = in->off_cpu;
    static target_frame_t native[MAX_NATIVE];
    static v8_frame_t frames[MAX_FRAMES];
    static uint32_t ids[MAX_FRAMES + 1];
    if (!t) { /* the process exited before it could be opened (live_sampler_early): nothing to name */
        if (te->thread == NO_THREAD) te->thread = profile_thread(p, s->pid, te->tid, te->name, strlen(te->name));
        uint32_t two[2] = {p->threads[te->thread].frame,
                           profile_frame(p, UNNAMED_EXITED, strlen(UNNAMED_EXITED), NULL, 0, 0, FRAME_UNKNOWN)};
        uint32_t leaf = profile_add_stack(p, two, 2, in->weight);
        for (unsigned long i = 0; i < in->ticks; i++)
            profile_add_sample(p, (double)(in->tick0_ns + i * in->step_ns) / 1e3, leaf, in->weight / (double)in->ticks);
        st->samples += in->ticks ? in->ticks : 1;
        st->exited += in->ticks ? in->ticks : 1;
        if (off_cpu) st->off_cpu += in->ticks;
        return leaf;
    }
    const uint64_t sp = regs[target_arch(t)->sp];
    target_set_stack_copy(t, sp, in->stack, (size_t)stack_len);
    target_fresh_after(t, time_ns);
    int cut;
    size_t n = sample_unwind(t, te->tid, regs, stack_len, names, native, MAX_NATIVE, &cut);
    const char *wait = off_cpu ? wait_name(t, native, n, in->preempted) : in->label;
    size_t n_native = n;
    if (v) n = v8_stack_frames(v, native, n, regs, frames, MAX_FRAMES);
    else
        for (size_t i = 0; i < n; i++)
            frames[i] = (v8_frame_t){.kind = V8_FRAME_NATIVE,
                                     .pc = native[i].pc,
                                     .sp = native[i].sp,
                                     .fp = native[i].fp,
                                     .return_address = i > 0};
    if (!off_cpu) { /* (a --wall stay's sample is the switch event's, whose copy is fixed) */
        uint64_t js_end = 0;
        for (size_t i = 0; i < n; i++)
            if (frames[i].kind == V8_FRAME_JS && frames[i].fp + 16 > js_end) js_end = frames[i].fp + 16;
        /* a stack cut where it had changed beyond the copy reached at least the frame it was cut at
           (native[n_native], still there): the next copies should hold that much */
        stack_need_note(&te->need, sp, native, n_native + (cut == CUT_CHANGED), js_end);
    }
    /* JS frames are named from the heap as it is now. A frame named from its code or bytecode
     * (stable: a scavenge does not move those) keeps its name however late the sample is read, if
     * no full GC ran on the main thread since (gc_watch, quiet), which could have freed them and
     * put another function's in their place; so does one whose slot names another function
     * (adopted). Without that, a JS frame whose function has moved since the sample
     * (v8_frame_current: its context no longer leads to it), and every JS frame of a sample read
     * too late for the heap to be trusted, is left unnamed rather than named after whatever is at
     * that address now. */
    int late = monotonic_ns() - time_ns > MAX_LAG_NS, torn, unnamed;
    /* (a sample taken before the watch was opened: live_sampler_early without it) */
    gc_since_t gc = te->gc && time_ns >= s->gc_from_ns ? gc_watch_since(te->gc, time_ns) : GC_UNKNOWN;
    int quiet = gc == GC_QUIET;
    /* A full GC that began after the sample may have freed its functions and put others in their
     * place whole: function, code and bytecode at the same addresses, agreeing with each other
     * (the churn workload does it every 40 ms), so no check tells; its JS frames stay unnamed,
     * however soon they are read (the rings are read up to LIVE_READ_MS late: open_event). A
     * sample taken during a GC has live functions on its stack: the checks below see them moved. */
    int collected = gc == GC_BEGAN;
    uint64_t torn_fp;
    size_t k;
    int leaf_line; /* the line the leaf JS frame executes: V8's positionTicks */
    buf_t b = {0};
    int named_js; /* a JS frame named: the sample's JIT code named */
    int exited;   /* a frame left unnamed because the process's memory is gone (it exited) */
name:
    torn = unnamed = named_js = exited = 0;
    for (size_t i = 0; v && i < n; i++) {
        v8_frame_t *f = &frames[i];
        if (f->kind != V8_FRAME_JS) continue;
        /* named from code or bytecode against its slot: right only if no full GC replaced them */
        if (f->adopted && !quiet) f->moved = 1, f->stable = 0;
        if (collected || (late && !(quiet && f->stable))) unnamed = 1;
        else if (!(quiet && f->stable) && v8_frame_current(v, f) == 0) torn = unnamed = 1;
    }
    torn_fp = 0;
    k = 0;
    leaf_line = 0;
    ids[k++] = p->threads[te->thread].frame;
    if (cut) {
        const char *why = cut == CUT_CHANGED ? UNNAMED_CHANGED : cut == CUT_BROKEN ? UNNAMED_BROKEN : UNNAMED_DEEP;
        ids[k++] = profile_frame(p, why, strlen(why), NULL, 0, 0, FRAME_UNKNOWN);
    }
    for (size_t i = n; i-- > 0;) {
        const v8_frame_t *f = &frames[i];
        uint32_t known;
        int found;
        if (f->kind == V8_FRAME_NATIVE && u64map_get(names, name_key(f), &known)) {
            if (known == NAME_SKIP) continue;
            leaf_line = 0;
            ids[k++] = known;
            continue;
        }
        v8_frame_record_t r;
        v8_frame_record_facts(t, v, f, &r); /* names are V8's own: no display name */
        /* an API function's frame: its FunctionTemplateInfo and SharedFunctionInfo were read from
           the heap as it is now, trusted as JS frames named from their code are */
        int api = f->kind == V8_FRAME_API && r.has_function && !collected && (!late || quiet);
        if (r.internal || (f->kind == V8_FRAME_API && !api)) {
            if (f->kind == V8_FRAME_NATIVE) *u64map_upsert(names, name_key(f), &found) = NAME_SKIP;
            v8_frame_record_free(&r);
            continue;
        }
        buf_clear(&b);
        leaf_line = 0;
        if (collected && f->kind == V8_FRAME_JS) {
            ids[k++] = profile_frame(p, UNNAMED_MOVED, strlen(UNNAMED_MOVED), NULL, 0, 0, FRAME_UNKNOWN);
        } else if (late && f->kind == V8_FRAME_JS && !(quiet && f->stable)) {
            ids[k++] = profile_frame(p, UNNAMED_LATE, strlen(UNNAMED_LATE), NULL, 0, 0, FRAME_UNKNOWN);
        } else if (torn && f->kind == V8_FRAME_JS && !(quiet && f->stable) &&
                   (f->fp == torn_fp || v8_frame_current(v, f) == 0)) {
            torn_fp = f->fp;                /* the frames inlined into it follow with the same fp */
            exited = target_memory_gone(t); /* not moved: nothing could be read */
            const char *why = exited ? UNNAMED_EXITED_JS : UNNAMED_MOVED;
            ids[k++] = profile_frame(p, why, strlen(why), NULL, 0, 0, FRAME_UNKNOWN);
        } else if (f->kind == V8_FRAME_JS && r.has_function) {
            /* V8's own name for the function (its name, else the inferred one), as --cpu-prof's
               callFrame has it, so live and V8 profiles merge and diff function by function */
            const char *nm = *r.fn.name ? r.fn.name : r.fn.inferred && *r.fn.inferred ? r.fn.inferred : "(anonymous)";
            buf_puts(&b, nm);
            ids[k++] = profile_frame(p, b.data, b.len, r.fn.script_name ? r.fn.script_name : "", r.fn.def_line,
                                     r.fn.def_col, kind_of(f->tier));
            named_js = 1;
            if (!f->position_is_definition && f->line > 0) leaf_line = f->line;
        } else if (api) {
            /* as V8's profiler names the callback: the function's name, no script */
            ids[k++] = profile_frame(p, r.fn.name, strlen(r.fn.name), NULL, 0, 0, FRAME_NATIVE);
        } else if (r.symbol) {
            demangle_append(&b, r.symbol);
            ids[k++] = profile_frame(p, b.data, b.len, NULL, 0, 0, FRAME_NATIVE);
            if (f->kind == V8_FRAME_NATIVE) *u64map_upsert(names, name_key(f), &found) = ids[k - 1];
        } else if (!r.module && (target_memory_gone(t) || code_gone(s->pid, f->pc) || heap_gone(t, s->pid, f))) {
            /* V8's code, or memory mapped since the maps were last read, after the exit (or while
               node exits: its isolate torn down, the code it ran unmapped) */
            exited = 1;
            ids[k++] = profile_frame(p, UNNAMED_EXITED_JS, strlen(UNNAMED_EXITED_JS), NULL, 0, 0, FRAME_UNKNOWN);
        } else {
            buf_printf(&b, "0x%llx", (unsigned long long)f->pc);
            if (r.module) buf_printf(&b, " (%s+0x%llx)", r.module, (unsigned long long)r.module_offset);
            ids[k++] = profile_frame(p, b.data, b.len, NULL, 0, 0, FRAME_UNKNOWN);
        }
        v8_frame_record_free(&r);
    }
    if (quiet && (gc = gc_watch_since(te->gc, time_ns)) != GC_QUIET) { /* a full GC began while it was named */
        quiet = 0, collected = gc == GC_BEGAN;
        goto name;
    }
    if (exited) st->exited += in->ticks ? in->ticks : 1; /* (apart: not partial, not JIT unnamed) */
    else if (unnamed) st->partial++;
    if (unnamed && late && !exited && !collected) st->late++; /* (collected: moved, as its frames say) */
    /* in V8's JIT code (anonymous executable memory: V8's code space), by the leaf or a return
       address, and not left unnamed on purpose (late, moved, exited): a sample that should name JS */
    if (!unnamed && !exited && in_jit_code(t, native, n_native)) {
        st->jit++;
        if (!named_js) st->jit_unnamed++;
    }
    if (!unnamed && late && quiet) st->late_named++;
    if (cut) st->cut++;
    buf_free(&b);
    target_set_stack_copy(t, 0, NULL, 0);
    if (k == 1) st->empty++;
    else profile_thread_note_stack(p, te->thread, ids + 1, k - 1); /* the stack tells its role */
    if (wait) {
        ids[k++] = profile_frame(p, wait, strlen(wait), NULL, 0, 0, off_cpu ? FRAME_KERNEL : in->label_kind);
        leaf_line = 0;
        if (off_cpu) st->off_cpu += in->ticks;
    }
    uint32_t leaf = profile_add_stack(p, ids, k, in->weight);
    for (unsigned long i = 0; i < in->ticks; i++)
        profile_add_sample(p, (double)(in->tick0_ns + i * in->step_ns) / 1e3, leaf, in->weight / (double)in->ticks);
    if (leaf_line && in->ticks) profile_add_line_ticks(p, leaf, leaf_line, (double)in->ticks);
    st->samples += in->ticks ? in->ticks : 1;
    return leaf;
}

static uint64_t cpu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* the clock samples are stamped with (perf_event use_clockid), in seconds */
static double now_s(void) { return (double)monotonic_ns() / 1e9; }

static int sampling(const live_sampler_t *s, int tid)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->te[i].tid == tid) return 1;
    return 0;
}

/* A sample read up to LIVE_READ_MS late keeps right names where a full GC that began after it is
 * seen (take_sample leaves its JS frames unnamed): the main thread, when gc_watch is open. Other
 * threads that may run JS (Workers, threads not known by name: on Node 18-20 every thread is
 * "node"), and the main one without gc_watch, are read at once, woken for each sample. Threads
 * known to run no JS (V8's platform workers, the libuv pool) and a process without V8 never are. */
static int woken_per_sample(const live_sampler_t *s, int tid, const char *name)
{
    if (!s->v) return 0;
    if (tid == s->pid) return s->gc == NULL;
    int known;
    thread_role_t role = profile_role_from_name(name, strlen(name), &known);
    return role != THREAD_V8 && role != THREAD_LIBUV;
}

/* Starts sampling thread tid (name as the kernel knows it). */
static void add_thread(live_sampler_t *s, int tid, const char *name)
{
    int known;
    thread_role_t role = profile_role_from_name(name, strlen(name), &known);
    thread_ev_t te = {.tid = tid,
                      .sw_fd = -1,
                      .woken = woken_per_sample(s, tid, name),
                      .js = tid == s->pid || (role != THREAD_V8 && role != THREAD_LIBUV)};
    te.fd = open_sampling(s, &te, STACK_BYTES, &te.ring, &te.set);
    if (te.fd < 0) {
        if (!s->first_err) s->first_err = errno;
        return;
    }
    if (s->o.wall) {
        te.sw_fd = events_open_switch(tid, STACK_BYTES, (uint32_t)(RING_PAGES * perf_ring_page_size() / 2));
        if (te.sw_fd < 0 || perf_ring_map(&te.sw_ring, te.sw_fd, RING_PAGES) != 0) {
            if (!s->wall_err) s->wall_err = errno ? errno : EINVAL;
            if (te.sw_fd >= 0) close(te.sw_fd);
            close_sampling(te.fd, &te.ring, &te.set);
            return;
        }
        te.off = xcalloc(1, sizeof(off_cpu_t));
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->te = xrealloc(s->te, s->cap * sizeof *s->te);
        s->pf = xrealloc(s->pf, s->cap * sizeof *s->pf);
    }
    /* the thread model names and roles it: tid == pid is main, then Node's thread names and stacks */
    snprintf(te.name, sizeof te.name, "%s", name);
    /* (a process not yet opened may turn out not to be node: nothing of it in the profile yet) */
    te.thread = s->t ? profile_thread(s->out, s->pid, tid, name, strlen(name)) : NO_THREAD;
    te.gc = tid == s->pid ? s->gc : NULL;
    stack_need_init(&te.need, STACK_BYTES, STACK_MAX);
    s->te[s->n] = te;
    s->pf[s->n] = (struct pollfd){te.fd, POLLIN, 0}; /* the switch ring is read with it */
    s->n++;
    s->st.threads++;
}

static void end_thread(live_sampler_t *s, size_t i)
{
    thread_ev_t *te = &s->te[i];
    live_drain(s, te);
    s->st.short_copies += te->need.short_samples;
    if (te->off) { /* still off the CPU (or gone): its stay ends now */
        live_off_cpu_end(s, te, monotonic_ns());
        free(te->off);
    }
    if (te->sw_fd >= 0) {
        perf_ring_unmap(&te->sw_ring);
        close(te->sw_fd);
    }
    live_events_count(s, &te->set);
    close_sampling(te->fd, &te->ring, &te->set);
    s->te[i] = s->te[s->n - 1];
    s->pf[i] = s->pf[s->n - 1];
    s->n--;
}

/* The thread's samples copy need.want bytes of its stack from now on: a perf event's attributes
 * are fixed, so a new event replaces its event, and the old one is stopped, then read to its end.
 * On failure (the thread has exited: its old event says so at the next poll; no file descriptor
 * left) the old event stays. The new one starts a new period: the jitter's bookkeeping too. */
static void set_copy(live_sampler_t *s, size_t i)
{
    thread_ev_t *te = &s->te[i];
    uint32_t copy = te->need.want; /* (draining the old ring below may want another) */
    perf_ring_t ring;
    event_set_t set;
    int fd = open_sampling(s, te, copy, &ring, &set);
    if (fd < 0) {
        te->need.want = te->need.copy; /* asked again after a window */
        return;
    }
    for (int k = 0; k < (te->set.n ? te->set.n : 1); k++) /* both sampled for microseconds at most */
        ioctl(te->set.n ? te->set.fd[k] : te->fd, PERF_EVENT_IOC_DISABLE, 0);
    /* -e: an event both took is the old one's: the new one's samples before now are left out */
    uint64_t disabled_ns = monotonic_ns();
    live_drain(s, te);
    if (te->set.n) te->dup_before_ns = disabled_ns;
    live_events_count(s, &te->set);
    close_sampling(te->fd, &te->ring, &te->set);
    te->fd = fd, te->ring = ring, te->set = set, s->pf[i].fd = fd;
    te->period = 0, te->period_samples = 0;
    te->need.copy = copy;
    s->st.copy_changes++;
}

/* Threads started since the last look (a Worker, V8's and libuv's pools grow on demand). */
static void scan_threads(live_sampler_t *s)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", s->pid);
    DIR *d = opendir(path);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        int tid = atoi(e->d_name);
        if (tid <= 0 || sampling(s, tid)) continue;
        char comm[64] = "", cpath[96];
        snprintf(cpath, sizeof cpath, "/proc/%d/task/%d/comm", s->pid, tid);
        FILE *f = fopen(cpath, "r");
        if (f) {
            if (!fgets(comm, sizeof comm, f)) comm[0] = 0;
            fclose(f);
            comm[strcspn(comm, "\n")] = 0;
        }
        add_thread(s, tid, comm);
    }
    closedir(d);
}

live_sampler_t *live_sampler_start(target_t *t, v8_t *v, double hz, profile_t *out)
{
    return live_sampler_start_wall(t, v, hz, 0, out);
}

live_sampler_t *live_sampler_start_wall(target_t *t, v8_t *v, double hz, int wall, profile_t *out)
{
    live_opts_t o = {.hz = hz, .wall = wall};
    return live_sampler_start_opts(t, v, &o, out);
}

static live_sampler_t *start_failed(live_sampler_t *s, int err)
{
    gc_watch_close(s->gc);
    u64map_free(&s->names);
    free(s);
    errno = err;
    return NULL;
}

/* Each library's symbols are sorted on their first look-up: done before the samples are read, or
 * the first ones would wait for it (and be read too late to name). */
static void sort_symbols(target_t *t)
{
    for (size_t i = 0; i < target_mapping_count(t); i++) {
        const target_mapping_t *m = target_mapping(t, i);
        target_symbol_t sym;
        if (m->path && (m->prot & 4)) target_symbolize(t, m->start, &sym);
    }
}

/* No thread could be sampled: why, printed (name: the process's). */
static live_sampler_t *none_sampled(live_sampler_t *s, const char *name)
{
    const live_opts_t *o = &s->o;
    if (s->wall_err && s->first_err != ESRCH) {
        diag_error(name, 0, "cannot sample wall-clock time: perf_event_open (context switches): %s",
                   strerror(s->wall_err));
        if (s->wall_err == EACCES || s->wall_err == EPERM)
            diag_hint("--wall needs the kernel's context-switch samples: root or CAP_PERFMON, or "
                      "'sysctl kernel.perf_event_paranoid=1'");
        return start_failed(s, s->wall_err);
    }
    if (s->first_err != ESRCH) { /* ESRCH: the process is gone; the caller says what that means */
        diag_error(name, 0, "cannot sample%s%s: perf_event_open: %s", o->events ? " on " : "",
                   o->events ? o->events->ev[s->first_ev].name : "", strerror(s->first_err));
        permission_hint(s->first_err, o->events ? &o->events->ev[s->first_ev] : NULL);
    }
    return start_failed(s, s->first_err ? s->first_err : ESRCH);
}

live_sampler_t *live_sampler_start_opts(target_t *t, v8_t *v, const live_opts_t *o, profile_t *out)
{
    sort_symbols(t);
    live_sampler_t *s = xcalloc(1, sizeof *s);
    s->t = t, s->v = v, s->out = out, s->o = *o;
    u64map_init(&s->names);
    size_t n = target_thread_count(t);
    s->pid = n ? target_thread(t, 0)->tid : 0;    /* the first thread is the main one: its tid is the pid */
    if (v && n) s->gc = gc_watch_open(t, s->pid); /* before the events: woken_per_sample */
    s->gc_from_ns = monotonic_ns();
    if (o->events) {
        for (int i = 0; i < o->events->n; i++) s->period[i] = o->events->ev[i].every;
        s->window_ns = monotonic_ns();
        if (events_resolve(o->events, t, s->pid, &s->probes) != 0) return start_failed(s, EINVAL);
    }
    for (size_t i = 0; i < n; i++) {
        const target_thread_t *th = target_thread(t, i);
        add_thread(s, th->tid, th->name ? th->name : "");
    }
    if (s->n == 0) return none_sampled(s, target_name(t));
    s->next_scan = now_s() + SCAN_INTERVAL_S;
    s->cpu0 = cpu_now_ns();
    return s;
}

live_sampler_t *live_sampler_early(int pid, const live_opts_t *o, profile_t *out)
{
    if (o->events) { /* -e resolves its probes in the process's files: live_sampler_start_opts */
        errno = EINVAL;
        return NULL;
    }
    live_sampler_t *s = xcalloc(1, sizeof *s);
    s->out = out, s->o = *o, s->pid = pid;
    u64map_init(&s->names);
    s->cpu0 = cpu_now_ns();
    /* the main thread's full GCs from now on, if its node was probed before (else from ready) */
    s->gc = gc_watch_open_known(pid);
    s->gc_from_ns = monotonic_ns();
    scan_threads(s);
    if (s->n == 0) {
        char name[32];
        snprintf(name, sizeof name, "pid %d", pid);
        return none_sampled(s, name);
    }
    s->next_scan = now_s() + SCAN_INTERVAL_S;
    return s;
}

void live_sampler_ready(live_sampler_t *s, target_t *t, v8_t *v)
{
    s->t = t, s->v = v;
    if (!t) return;
    sort_symbols(t);
    if (v && !s->gc) {
        s->gc = gc_watch_open(t, s->pid);
        s->gc_from_ns = monotonic_ns();
    }
    /* the samples waiting are read now, named while the memory is there; then each thread's event
       wakes the reader as woken_per_sample says, now that V8 and the GC watch are known */
    for (size_t i = s->n; i-- > 0;) {
        thread_ev_t *te = &s->te[i];
        te->gc = te->tid == s->pid ? s->gc : NULL;
        if (te->thread == NO_THREAD) te->thread = profile_thread(s->out, s->pid, te->tid, te->name, strlen(te->name));
        live_drain(s, te);
        int woken = !v ? 0 : te->tid == s->pid ? s->gc == NULL : te->js;
        if (woken != te->woken) {
            te->woken = woken;
            te->need.want = te->need.copy;
            set_copy(s, i); /* (the old event stays if it fails) */
        }
    }
}

size_t live_sampler_waiting(const live_sampler_t *s)
{
    size_t n = 0;
    for (size_t i = 0; i < s->n; i++) {
        const struct perf_event_mmap_page *h = s->te[i].ring.base;
        if (h) n += (size_t)(__atomic_load_n(&h->data_head, __ATOMIC_ACQUIRE) - h->data_tail);
    }
    return n;
}

void live_sampler_discard(live_sampler_t *s)
{
    if (!s) return;
    for (size_t i = 0; i < s->n; i++) {
        thread_ev_t *te = &s->te[i];
        free(te->off);
        if (te->sw_fd >= 0) {
            perf_ring_unmap(&te->sw_ring);
            close(te->sw_fd);
        }
        close_sampling(te->fd, &te->ring, &te->set);
    }
    gc_watch_close(s->gc);
    u64map_free(&s->names);
    free(s->te);
    free(s->pf);
    free(s);
}

int live_sampler_poll(live_sampler_t *s) { return live_sampler_poll_ms(s, LIVE_READ_MS); }

int live_sampler_poll_ms(live_sampler_t *s, int timeout_ms)
{
    int r = poll(s->pf, s->n, timeout_ms);
    if (r < 0 && errno != EINTR) return 0;
    for (size_t i = s->n; i-- > 0;) {
        if (s->pf[i].revents & (POLLHUP | POLLERR)) {
            end_thread(s, i);
            continue;
        } /* the thread has exited */
        live_drain(s, &s->te[i]);
        if (s->te[i].need.want != s->te[i].need.copy) set_copy(s, i);
    }
    if (s->o.events) live_events_pace(s);
    double now = now_s();
    if (s->n && now >= s->next_scan) {
        scan_threads(s);
        s->next_scan = now + SCAN_INTERVAL_S;
    }
    return (int)s->n;
}

void live_sampler_stats(const live_sampler_t *s, live_stats_t *stats)
{
    *stats = s->st;
    stats->cpu_ns = cpu_now_ns() - s->cpu0;
}

void live_sampler_stop(live_sampler_t *s, live_stats_t *stats)
{
    if (!s) return;
    while (s->n) end_thread(s, s->n - 1);
    /* a stay off the CPU is added when the thread is back: its ticks are older than the samples
       taken meanwhile; the timeline goes in time order */
    if (s->o.wall || s->o.events) profile_sort_samples(s->out->samples, s->out->nsamples);
    s->st.full_gcs = s->gc ? (long)gc_watch_count(s->gc) : -1;
    s->st.events -= s->st.duplicates < s->st.events ? s->st.duplicates : s->st.events;
    s->st.cpu_ns = cpu_now_ns() - s->cpu0;
    if (stats) *stats = s->st;
    gc_watch_close(s->gc);
    u64map_free(&s->names);
    free(s->te);
    free(s->pf);
    free(s);
}

int live_sample_target(target_t *t, v8_t *v, double hz, double seconds, profile_t *out, live_stats_t *stats,
                       volatile int *stop)
{
    live_sampler_t *s = live_sampler_start(t, v, hz, out);
    if (!s && errno == ESRCH) diag_error(target_name(t), 0, "the process is gone");
    if (!s) return -1;
    double end = now_s() + seconds;
    while (now_s() < end && !(stop && *stop) && live_sampler_poll(s) > 0) {}
    live_sampler_stop(s, stats);
    return 0;
}

#define UNNAMED_JIT_MAX 0.05

int live_stats_check_named(const live_stats_t *st, const char *problem, int other_mount_ns)
{
    if (!st->jit || (double)st->jit_unnamed <= UNNAMED_JIT_MAX * (double)st->jit) return 0;
    char cause[1400];
    if (problem && *problem) snprintf(cause, sizeof cause, "%s", problem);
    else
        snprintf(cause, sizeof cause,
                 "no cause found: the node binary read%s has the process's build id, "
                 "so V8's metadata or nodescope's knowledge of this V8 may not fit its heap",
                 other_mount_ns ? " through its mount namespace" : "");
    if (st->jit_unnamed == st->jit) {
        diag_error(NULL, 0, "none of the %lu samples in V8's JIT code names a JavaScript function: %s", st->jit, cause);
        return -1;
    }
    diag_warn(NULL, 0, "%lu of %lu samples in V8's JIT code (%.0f%%) name no JavaScript function: %s", st->jit_unnamed,
              st->jit, 100.0 * (double)st->jit_unnamed / (double)st->jit, cause);
    return 0;
}

void live_stats_json(const live_stats_t *st, char *out, size_t cap)
{
    snprintf(out, cap, ",\"samples\":%lu,\"jitSamples\":%lu,\"jitUnnamed\":%lu,\"exitedUnread\":%lu,\"stacksCut\":%lu",
             st->samples, st->jit, st->jit_unnamed, st->exited, st->cut);
}
