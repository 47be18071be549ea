/* The live sampler (see live_sampler.h). Each thread has its own perf_event ring; a sample's
 * registers and stack copy are lent to the target (target_set_stack_copy) so that the frame walk
 * and v8/'s frame decoder read the stack as it was at the sample, and the heap as it is now (a few
 * ms later). The frames are those of `core stack`: v8_stack_frames + v8_frame_record. */
#include "record/live_sampler.h"
#include "record/gc_watch.h"
#include "record/stack_need.h"
#include "symbols/journal.h"
#include "util/buf.h"
#include "util/demangle.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define STACK_BYTES 16384      /* a thread's first stack copy (stack_need.h: then what it needs) */
#define STACK_MAX 32768        /* the most a sample copies: threads whose calls nest that deep (tsc's
                                  checker recursing through the AST) (the kernel allows < 64 KiB) */
#define RING_PAGES 128         /* data pages per thread (a power of two): ~30 samples of 16 KiB */
#define MAX_NATIVE 512
#define MAX_FRAMES 1024
#define SCAN_INTERVAL_S 0.1  /* how often new threads are looked for */
/* A sample's JS frames are named only if it is read within this time: a GC in between may have
 * moved the functions its stack points at and put others, even of the same shape, in their place.
 * Sampling reads within a few ms in the steady state; the first samples wait for caches to fill. */
#define MAX_LAG_NS (25 * 1000000ull)
/* ... unless the main thread ran no full GC since the sample (gc_watch.h): then only frames named
 * from their code or bytecode (v8_frame_t.stable) keep their names, however late. */
#define UNNAMED_LATE "(JS: read too late to name)"
#define UNNAMED_MOVED "(JS: moved before it was read)"

/* perf's x86 register numbers */
enum { P_AX, P_BX, P_CX, P_DX, P_SI, P_DI, P_BP, P_SP, P_IP, P_FLAGS, P_CS, P_SS, P_DS, P_ES, P_FS, P_GS,
       P_R8, P_R9, P_R10, P_R11, P_R12, P_R13, P_R14, P_R15, P_NREGS };
/* user_regs_struct index of each perf register (-1: none there) */
static const int to_user[P_NREGS] = { 10, 5, 11, 12, 13, 14, 4, 19, 16, 18, 17, 20, -1, -1, -1, -1,
                                      9, 8, 7, 6, 3, 2, 1, 0 };
#define REGS_MASK ((1ull << P_AX) | (1ull << P_BX) | (1ull << P_CX) | (1ull << P_DX) | (1ull << P_SI) | \
                   (1ull << P_DI) | (1ull << P_BP) | (1ull << P_SP) | (1ull << P_IP) | (0xffull << P_R8))

/* --wall: the sample the kernel took when the thread last left the CPU, kept until it is back
 * (then the wall-clock ticks it was away for are known) */
typedef struct {
    int set, preempted;
    uint64_t out_ns, regs[27], len;
    uint8_t stack[STACK_BYTES];
} off_cpu_t;

typedef struct {
    int fd, tid;
    void *ring;
    uint32_t thread;  /* its index in the profile's thread table (profile.h "Threads") */
    int sw_fd;        /* --wall: its context-switch event (-1: none) */
    /* the jitter's bookkeeping: the current period (ns of the thread's CPU time), the samples
       taken since it was set, and the CLOCK_MONOTONIC time of the latest */
    uint64_t period, last_sample_ns;
    unsigned long period_samples;
    void *sw_ring;
    off_cpu_t *off;
    int woken;          /* its event wakes the poller for each sample (woken_per_sample) */
    stack_need_t need;  /* how much of its stack the samples copy, and need to */
    gc_watch_t *gc;     /* the main thread: its process's full GCs (NULL: another thread, or not watched) */
} thread_ev_t;

static long page_size(void) {
    static long size;   /* sysconf on every ring read showed in the sampler's profile */
    if (!size) size = sysconf(_SC_PAGESIZE);
    return size;
}

/* Time a thread spends in the kernel on its behalf (a writev's whole loopback TCP send, a page
 * fault) is its time too, and V8's --cpu-prof counts it under the JS that made the call: samples
 * taken in the kernel are kept (the user registers and stack are those at the kernel entry).
 * Without the privilege for that (perf_event_paranoid 2 and no CAP_PERFMON), user time only. */
static int with_kernel = 1;

/* A ring holds ~30 samples whatever they copy: a thread's samples wait there while nodescope names
 * another's (tsc at 999 Hz, 32 KiB copies in the ring of 16 KiB ones: 3-5x the samples lost). */
static size_t ring_pages(uint32_t copy) { return copy > STACK_BYTES ? 2 * RING_PAGES : RING_PAGES; }

static int open_event(int tid, double hz, int woken, uint32_t copy) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_CPU_CLOCK;
    a.freq = 1;
    a.sample_freq = (uint64_t)(hz + 0.5);
    a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    a.sample_regs_user = REGS_MASK;
    a.sample_stack_user = copy;
    a.exclude_kernel = !with_kernel;
    a.exclude_hv = 1;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    /* Woken per sample only where names need it (woken_per_sample): the kernel wakes a poller
       from the sampled thread's CPU, an interrupt to nodescope's CPU each time, and in this VM
       that cost the target ~40 us a sample (bench/live_overhead_paired.mjs at 999 Hz: 10.7%
       slower woken per sample, 6.4% read every 5 ms, perf record -g 6.0%). Otherwise the rings
       are read every LIVE_READ_MS (the session's loop), and a wake-up at half a ring only so
       that none fills. */
    if (woken) a.wakeup_events = 1;
    else a.watermark = 1, a.wakeup_watermark = (uint32_t)(ring_pages(copy) * page_size() / 2);   /* ~15 samples */
    int fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && with_kernel && (errno == EACCES || errno == EPERM)) {
        with_kernel = 0;
        return open_event(tid, hz, woken, copy);
    }
    return fd;
}

/* A perf event's ring: pages of data after its header page; MAP_FAILED on failure. */
static void *map_ring(int fd, size_t pages) {
    return mmap(NULL, (pages + 1) * (size_t)page_size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
}
static void unmap_ring(void *ring) {
    const struct perf_event_mmap_page *m = ring;
    munmap(ring, (size_t)(m->data_offset + m->data_size));
}

/* A thread's sampling event (copying copy bytes of its stack) and its ring: the fd, or -1 with
 * errno set and nothing left open. */
static int open_sampling(int tid, double hz, int woken, uint32_t copy, void **ring) {
    int fd = open_event(tid, hz, woken, copy);
    if (fd < 0) return -1;
    *ring = map_ring(fd, ring_pages(copy));
    if (*ring != MAP_FAILED) return fd;
    int err = errno;
    close(fd);
    errno = err;
    return -1;
}

/* --wall: a sample (user registers and stack) each time the thread leaves the CPU, and a
 * PERF_RECORD_SWITCH record each time it leaves or comes back, with times. The kernel takes the
 * sample in its scheduler, which is kernel context: it needs exclude_kernel off. */
static int open_switch_event(int tid) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
    a.sample_period = 1;
    a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    a.sample_regs_user = REGS_MASK;
    a.sample_stack_user = STACK_BYTES;
    a.context_switch = 1;
    a.sample_id_all = 1;
    a.exclude_hv = 1;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    a.watermark = 1;   /* read with the thread's CPU ring (and at each poll's timeout), not polled */
    a.wakeup_watermark = (uint32_t)(RING_PAGES * page_size() / 2);
    return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static void permission_hint(int err) {
    int paranoid = -9;
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    if (f) { if (fscanf(f, "%d", &paranoid) != 1) paranoid = -9; fclose(f); }
    if (err == EACCES || err == EPERM)
        diag_hint("perf_event_paranoid is %d: sampling another process's user stacks needs it at 2 or less and ptrace "
                  "permission on the process (same user), or CAP_PERFMON; 'sysctl kernel.perf_event_paranoid=1' or run as root",
                  paranoid);
    else if (err == ENOENT || err == ENOSYS)
        diag_hint("this kernel has no perf events (a container without them, or CONFIG_PERF_EVENTS off)");
}

static frame_kind_t kind_of(v8_tier_t t) {
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
static const char *wait_name(target_t *t, const target_frame_t *native, size_t n, int preempted) {
    static const struct { const char *part, *name; } kinds[] = {
        {"epoll", "(wait: epoll)"}, {"futex", "(wait: futex)"}, {"Futex", "(wait: futex)"}, {"pthread_cond", "(wait: futex)"},
        {"cond_wait", "(wait: futex)"}, {"sem_", "(wait: futex)"}, {"Semaphore", "(wait: futex)"},
        {"pthread_mutex", "(wait: futex)"}, {"Mutex", "(wait: futex)"}, {"join", "(wait: futex)"},
        {"nanosleep", "(wait: sleep)"}, {"sleep", "(wait: sleep)"}, {"Sleep", "(wait: sleep)"}, {"poll", "(wait: poll)"},
        {"select", "(wait: poll)"}, {"accept", "(wait: accept)"}, {"recv", "(wait: recv)"}, {"send", "(wait: send)"},
        {"pread", "(wait: read)"}, {"read", "(wait: read)"}, {"Read", "(wait: read)"}, {"write", "(wait: write)"},
        {"Write", "(wait: write)"}, {"open", "(wait: open)"}, {"fsync", "(wait: fsync)"}, {"wait", "(wait: wait)"},
    };
    if (preempted) return "(wait: preempted)";   /* runnable, but another task had the CPU */
    for (size_t f = 0; f < n && f < WAIT_LOOK; f++) {
        target_symbol_t sym;
        if (target_symbolize(t, f ? native[f].pc - 1 : native[f].pc, &sym) != 0 || !sym.name) continue;
        for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
            for (const char *at = sym.name; (at = strstr(at, kinds[i].part)) != NULL; at++)
                if (at == sym.name || (at[-1] != 'h' && at[-1] != 'H')) return kinds[i].name;   /* not "thread" */
    }
    return "(wait: kernel)";   /* a page fault, or a system call not known by its callers */
}

/* Is ret a return address: in executable code of a file, just after a call instruction? */
static int after_call(target_t *t, uint64_t ret) {
    const target_mapping_t *m = target_mapping_at(t, ret);
    uint8_t b[7];
    if (!m || !m->path || !(m->prot & 4 /* PROT_EXEC */) || ret - m->start < sizeof b || target_read(t, ret - 7, b, sizeof b) != 0)
        return 0;
    /* b[6] is the byte before ret: call rel32 (e8), call *reg (ff d0+r, maybe REX), call *disp8(reg)
       (ff 50+r d8), call *disp32(reg) or *disp32(rip) (ff 90+r / ff 15, disp32) */
    if (b[2] == 0xe8) return 1;
    if (b[5] == 0xff && (b[6] & 0xf8) == 0xd0) return 1;
    if (b[4] == 0xff && (b[5] & 0xf8) == 0x50) return 1;
    if (b[1] == 0xff && (b[2] == 0x15 || (b[2] & 0xf8) == 0x90)) return 1;
    return 0;
}

#define SCAN_WORDS 512   /* how far up the stack a broken chain's next frame record is looked for */
#define MIN_CHAIN 3

/* The native frames of a sample: the frame-pointer chain from its registers, whole when the leaf
 * function has set up its frame (node and V8 are built with frame pointers). A leaf without one
 * (libc's functions: malloc, memcpy, the system call wrappers where a thread in the kernel is)
 * leaves rbp at its caller's frame, and the chain would go on from the caller's caller, the
 * caller left out (`FunctionCallbackArguments::Call;__libc_malloc` with the API function between
 * them missing); in a blocked thread the chain often breaks at once. Then the module's CFI unwinds
 * it (libdwfl, on the stack copy) until code without CFI (V8's), and the frame-pointer chain goes
 * on from there. Where CFI gives nothing either and the chain broke, the stack copy is searched,
 * from sp up, for the first frame record whose chain goes on (a saved frame pointer higher on the
 * stack, next to a return address just after a call), and the return addresses below it (the
 * frames without frame pointers) are taken as frames too. */
static size_t unwind(target_t *t, int tid, const uint64_t *regs, uint64_t stack_len, target_frame_t *native, size_t max) {
    uint64_t pc = regs[16], sp = regs[19], fp = regs[4];
    size_t n = target_unwind_regs(t, pc, sp, fp, native, max);
    const target_mapping_t *m = target_mapping_refresh(t, pc);
    if (!m || !m->path || max < 2 || (n >= MIN_CHAIN && target_leaf_framed(t, pc) != 0)) return n;
    static target_frame_t chain[MAX_NATIVE];
    size_t by_cfi = target_unwind_sample(t, tid, regs, chain, max < MAX_NATIVE ? max : MAX_NATIVE);
    if (by_cfi >= MIN_CHAIN) {
        memcpy(native, chain, by_cfi * sizeof *native);
        return by_cfi;
    }
    if (n >= MIN_CHAIN) return n;
    uint64_t top = sp + stack_len;
    for (uint64_t x = sp & ~7ull; x + 16 <= top && x < sp + 8 * SCAN_WORDS; x += 8) {
        uint64_t saved, ret;
        if (target_read_u64(t, x, &saved) != 0 || target_read_u64(t, x + 8, &ret) != 0) break;
        if (saved <= x || saved >= top || (saved & 7) || !after_call(t, ret)) continue;
        size_t c = target_unwind_regs(t, ret, x + 16, saved, chain, MAX_NATIVE);
        if (c < MIN_CHAIN) continue;
        size_t k = 1;   /* native[0] is the pc */
        for (uint64_t y = sp & ~7ull; y < x && k < max; y += 8) {
            uint64_t w;
            if (target_read_u64(t, y, &w) == 0 && after_call(t, w)) native[k++] = (target_frame_t){ w, y + 8, 0 };
        }
        for (size_t i = 0; i < c && k < max; i++) native[k++] = chain[i];
        return k;
    }
    return n;
}

/* A native frame's name, once per (pc, is a return address): symbol look-ups and C++ demangling
 * were a tenth of a sample's cost. NAME_SKIP: a frame left out (V8's builtins' own frames). Only
 * named frames are kept: an address without a symbol may get one once the maps are read again. */
#define NAME_SKIP UINT32_MAX
static uint64_t name_key(const v8_frame_t *f) { return f->pc * 2 + (f->return_address ? 1 : 0); }

/* Is any of the frames in anonymous executable memory (V8's code space)? */
static int in_jit_code(target_t *t, const target_frame_t *native, size_t n) {
    for (size_t i = 0; i < n; i++) {
        const target_mapping_t *m = target_mapping_at(t, native[i].pc);
        if (m && !m->path && (m->prot & 4 /* PROT_EXEC */)) return 1;
    }
    return 0;
}

/* One sample: walk, decode, name, add. time_ns is when the stack was last as copied (the sample's
 * time; for a thread off the CPU, when it came back). It weighs ticks, one timeline sample each
 * from tick0_ns every step_ns; wait (may be NULL) is the leaf frame of a thread off the CPU. */

static void take_sample(target_t *t, v8_t *v, profile_t *p, u64map_t *names, thread_ev_t *te, uint64_t time_ns,
                        const uint64_t *regs, const uint8_t *stack, uint64_t stack_len, live_stats_t *st,
                        int off_cpu, int preempted, unsigned long ticks, uint64_t tick0_ns, uint64_t step_ns) {
    static target_frame_t native[MAX_NATIVE];
    static v8_frame_t frames[MAX_FRAMES];
    static uint32_t ids[MAX_FRAMES + 1];
    target_set_stack_copy(t, regs[19], stack, (size_t)stack_len);
    target_fresh_after(t, time_ns);
    size_t n = unwind(t, te->tid, regs, stack_len, native, MAX_NATIVE);
    const char *wait = off_cpu ? wait_name(t, native, n, preempted) : NULL;
    size_t n_native = n;
    if (v) n = v8_stack_frames(v, native, n, regs, frames, MAX_FRAMES);
    else
        for (size_t i = 0; i < n; i++)
            frames[i] = (v8_frame_t){ .kind = V8_FRAME_NATIVE, .pc = native[i].pc, .sp = native[i].sp, .fp = native[i].fp,
                                      .return_address = i > 0 };
    if (!off_cpu) {   /* (a --wall stay's sample is the switch event's, whose copy is fixed) */
        uint64_t js_end = 0;
        for (size_t i = 0; i < n; i++)
            if (frames[i].kind == V8_FRAME_JS && frames[i].fp + 16 > js_end) js_end = frames[i].fp + 16;
        stack_need_note(&te->need, regs[19], native, n_native, js_end);
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
    gc_since_t gc = te->gc ? gc_watch_since(te->gc, time_ns) : GC_UNKNOWN;
    int quiet = gc == GC_QUIET;
    /* A full GC that began after the sample may have freed its functions and put others in their
     * place whole: function, code and bytecode at the same addresses, agreeing with each other
     * (the churn workload does it every 40 ms), so no check tells; its JS frames stay unnamed,
     * however soon they are read (the rings are read up to LIVE_READ_MS late: open_event). A
     * sample taken during a GC has live functions on its stack: the checks below see them moved. */
    int collected = gc == GC_BEGAN;
    uint64_t torn_fp;
    size_t k;
    int leaf_line;   /* the line the leaf JS frame executes: V8's positionTicks */
    buf_t b = {0};
    int named_js;   /* a JS frame named: the sample's JIT code named */
name:
    torn = unnamed = named_js = 0;
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
        v8_frame_record_facts(t, v, f, &r);   /* names are V8's own: no display name */
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
            torn_fp = f->fp;   /* the frames inlined into it follow with the same fp */
            ids[k++] = profile_frame(p, UNNAMED_MOVED, strlen(UNNAMED_MOVED), NULL, 0, 0, FRAME_UNKNOWN);
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
        } else {
            buf_printf(&b, "0x%llx", (unsigned long long)f->pc);
            if (r.module) buf_printf(&b, " (%s+0x%llx)", r.module, (unsigned long long)r.module_offset);
            ids[k++] = profile_frame(p, b.data, b.len, NULL, 0, 0, FRAME_UNKNOWN);
        }
        v8_frame_record_free(&r);
    }
    if (quiet && (gc = gc_watch_since(te->gc, time_ns)) != GC_QUIET) {   /* a full GC began while it was named */
        quiet = 0, collected = gc == GC_BEGAN;
        goto name;
    }
    if (unnamed) st->partial++;
    if (unnamed && late) st->late++;
    /* in V8's JIT code (anonymous executable memory: V8's code space), by the leaf or a return
       address, and not left unnamed on purpose (late, moved): a sample that should name JS */
    if (!unnamed && in_jit_code(t, native, n_native)) {
        st->jit++;
        if (!named_js) st->jit_unnamed++;
    }
    if (!unnamed && late && quiet) st->late_named++;
    buf_free(&b);
    target_set_stack_copy(t, 0, NULL, 0);
    if (k == 1) st->empty++;
    else profile_thread_note_stack(p, te->thread, ids + 1, k - 1);   /* the stack tells its role */
    if (wait) {
        ids[k++] = profile_frame(p, wait, strlen(wait), NULL, 0, 0, FRAME_KERNEL);
        leaf_line = 0;
        st->off_cpu += ticks;
    }
    uint32_t leaf = profile_add_stack(p, ids, k, (double)ticks);
    for (unsigned long i = 0; i < ticks; i++) profile_add_sample(p, (double)(tick0_ns + i * step_ns) / 1e3, leaf, 1);
    if (leaf_line) profile_add_line_ticks(p, leaf, leaf_line, (double)ticks);
    st->samples += ticks;
}

/* A PERF_RECORD_SAMPLE's time, user registers (user_regs_struct order) and stack copy; -1 when
 * it has no user context (a kernel thread) or is malformed. */
static int parse_sample(const uint8_t *q, const uint8_t *end, uint64_t *time, uint64_t *regs, const uint8_t **stack,
                        uint64_t *len) {
    uint64_t abi, size, dyn = 0;
    if (end - q < 24) return -1;
    q += 8;   /* pid, tid */
    memcpy(time, q, 8); q += 8;
    memcpy(&abi, q, 8); q += 8;
    if (abi == PERF_SAMPLE_REGS_ABI_NONE) return -1;
    memset(regs, 0, 27 * sizeof *regs);
    for (int r = 0; r < P_NREGS; r++) {
        if (!(REGS_MASK & (1ull << r))) continue;
        uint64_t val;
        if (q + 8 > end) return -1;
        memcpy(&val, q, 8); q += 8;
        if (to_user[r] >= 0) regs[to_user[r]] = val;
    }
    if (q + 8 > end) return -1;
    memcpy(&size, q, 8); q += 8;
    if (size > (uint64_t)(end - q)) return -1;
    *stack = q;
    q += size;
    if (size && q + 8 <= end) memcpy(&dyn, q, 8);
    *len = dyn > size ? size : dyn;
    return 0;
}

/* Calls fn for every record in a ring: in place, or copied out whole when it wraps around the
 * ring's end (a sample is up to 32 KiB: copying each one cost a tenth of the sampler's time). */
typedef void (*record_fn)(void *ctx, const struct perf_event_header *h, const uint8_t *body, const uint8_t *end);
static void drain_ring(void *ring, record_fn fn, void *ctx) {
    struct perf_event_mmap_page *meta = ring;
    uint8_t *data = (uint8_t *)ring + meta->data_offset;
    uint64_t size = meta->data_size;
    uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE), tail = meta->data_tail;
    static uint8_t rec[65536];
    while (tail < head) {
        struct perf_event_header h;
        uint64_t at = tail % size;
        for (size_t i = 0; i < sizeof h; i++) ((uint8_t *)&h)[i] = data[(tail + i) % size];
        if (h.size < sizeof h || h.size > head - tail) break;
        const uint8_t *r = data + at;
        if (at + h.size > size) {   /* wraps: the two pieces, joined */
            size_t first = (size_t)(size - at);
            memcpy(rec, data + at, first);
            memcpy(rec + first, data, h.size - first);
            r = rec;
        }
        fn(ctx, &h, r + sizeof h, r + h.size);
        tail += h.size;
    }
    __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

typedef struct {
    target_t *t;
    v8_t *v;
    profile_t *p;
    u64map_t *names;
    thread_ev_t *te;
    live_stats_t *st;
    double hz;
} drain_ctx_t;

static void on_cpu_record(void *ctx, const struct perf_event_header *h, const uint8_t *q, const uint8_t *end) {
    drain_ctx_t *c = ctx;
    if (h->type == PERF_RECORD_LOST) {
        uint64_t lost;
        if (end - q < 16) return;
        memcpy(&lost, q + 8, 8);
        c->st->lost += lost;
        c->te->period_samples += lost;   /* periods that ended too (jitter's count) */
        return;
    }
    uint64_t time, regs[27], len;
    const uint8_t *stack;
    if (h->type != PERF_RECORD_SAMPLE || parse_sample(q, end, &time, regs, &stack, &len) != 0) return;
    uint64_t t0 = monotonic_ns();
    c->te->period_samples++;
    c->te->last_sample_ns = time;
    take_sample(c->t, c->v, c->p, c->names, c->te, time, regs, stack, len, c->st, 0, 0, 1, time, 0);
    c->st->busy_ns += monotonic_ns() - t0;
}

/* Wall-clock ticks (a fixed grid at hz) in (from, to]. */
static unsigned long ticks_between(uint64_t from, uint64_t to, double hz, uint64_t *first) {
    double step = 1e9 / hz;
    uint64_t a = (uint64_t)((double)from / step), b = (uint64_t)((double)to / step);
    *first = (uint64_t)((double)(a + 1) * step);
    return b > a ? (unsigned long)(b - a) : 0;
}

/* The thread is back on the CPU at in_ns (or still off it then): the ticks it was away for go to
 * the stack it left with. Only a stay that spans a tick is decoded: a busy server switches
 * thousands of times a second, mostly for microseconds. */
static void back_on_cpu(drain_ctx_t *c, uint64_t in_ns) {
    off_cpu_t *o = c->te->off;
    if (!o || !o->set) return;
    o->set = 0;
    uint64_t first;
    unsigned long n = ticks_between(o->out_ns, in_ns, c->hz, &first);
    if (n == 0) return;
    uint64_t t0 = monotonic_ns();
    take_sample(c->t, c->v, c->p, c->names, c->te, in_ns, o->regs, o->stack, o->len, c->st, 1, o->preempted, n, first,
                (uint64_t)(1e9 / c->hz));
    c->st->busy_ns += monotonic_ns() - t0;
}

static void switch_record(void *ctx, const struct perf_event_header *h, const uint8_t *q, const uint8_t *end) {
    drain_ctx_t *c = ctx;
    off_cpu_t *o = c->te->off;
    if (h->type == PERF_RECORD_LOST) {
        if (end - q >= 16) c->st->lost += ((const uint64_t *)q)[1];
        o->set = 0;   /* which stack went with the stay is not known */
        return;
    }
    if (h->type == PERF_RECORD_SAMPLE) {   /* taken as the thread leaves the CPU */
        uint64_t time, len;
        const uint8_t *stack;
        if (parse_sample(q, end, &time, o->regs, &stack, &len) != 0) { o->set = 0; return; }
        memcpy(o->stack, stack, len);
        o->len = len;
        o->out_ns = time;
        o->preempted = 0;
        o->set = 1;
        return;
    }
    if (h->type != PERF_RECORD_SWITCH || end - q < 16) return;
    uint64_t time;
    memcpy(&time, q + 8, 8);   /* sample_id: pid, tid, time */
    if (h->misc & PERF_RECORD_MISC_SWITCH_OUT) {
        if (o->set && (h->misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT)) o->preempted = 1;
    } else {
        back_on_cpu(c, time);
    }
}

/* A fixed sampling period locks onto work that repeats at the same period (a 99 Hz sampler and a
 * loop whose round takes 10.1 ms of CPU see the same point of every round): once a thread has run
 * JITTER_NS of CPU time at one period (and had at least 4 samples), its next period is drawn from
 * 0.75 to 1.25 times the mean. The kernel starts a new period when told: the CPU time the thread
 * ran since its last sample is taken off the periods to come, so the rate stays hz. That time is
 * not read from the event (a read interrupts the CPU the thread runs on, as setting the period
 * does: an IPI each) but taken as the wall time since the sample, which it cannot exceed, capped
 * at one period, which it cannot reach either: exact for a thread that ran all along, at most one
 * period in JITTER_NS off for one that slept. Not after every sample: every 4th at 999 Hz was 500
 * IPIs a second and cost the target ~2 points (bench/live_overhead_paired.mjs); every 40 ms of
 * CPU with a read each time was 50 a second at 99 Hz for a busy thread (what that cost could not
 * be told from 0 in 40-cycle runs). A phase moved at random every 100 ms of CPU keeps no work in
 * step, at any rate: 10 IPIs a second. */
#define JITTER_NS 100000000ull
static unsigned long jitter_samples(double hz) {
    double n = (double)JITTER_NS * hz / 1e9;
    return n > 4 ? (unsigned long)n : 4;
}
static void jitter(thread_ev_t *te, double hz) {
    static uint64_t x = 0;
    if (!x) x = monotonic_ns() | 1;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;   /* xorshift64 */
    double mean = 1e9 / hz, want = mean * (0.75 + 0.5 * (double)(x >> 11) / (double)(1ull << 53));
    uint64_t current = te->period ? te->period : (uint64_t)mean, now = monotonic_ns();
    uint64_t ran = now > te->last_sample_ns ? now - te->last_sample_ns : 0;
    if (ran > current) ran = current;
    /* the new period holds for the next jitter_samples: each gives up its share of the time
       already run, so that the last of them comes that many periods after the last one */
    double left = want - (double)ran / (double)jitter_samples(hz);
    uint64_t period = (uint64_t)(left > 0.5 * want ? left : 0.5 * want);   /* never faster than 2x hz */
    te->period_samples = 0;   /* failed or not, not again before jitter_samples more */
    if (ioctl(te->fd, PERF_EVENT_IOC_PERIOD, &period) == 0) te->period = period;
}

/* Reads every record in a thread's rings. */
static void drain(target_t *t, v8_t *v, profile_t *p, u64map_t *names, thread_ev_t *te, live_stats_t *st, double hz) {
    drain_ctx_t c = { t, v, p, names, te, st, hz };
    unsigned long before = st->samples;
    drain_ring(te->ring, on_cpu_record, &c);
    if (st->samples != before && te->period_samples >= jitter_samples(hz)) jitter(te, hz);
    if (te->sw_ring) drain_ring(te->sw_ring, switch_record, &c);
}

static uint64_t cpu_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* the clock samples are stamped with (perf_event use_clockid), in seconds */
static double now_s(void) { return (double)monotonic_ns() / 1e9; }

struct live_sampler {
    target_t *t;
    gc_watch_t *gc;        /* the main thread's full GCs; NULL when they cannot be watched. One a
                              sampler: samplers of several processes run side by side (live_session) */
    v8_t *v;
    profile_t *out;
    double hz;
    int pid, wall;
    thread_ev_t *te;       /* the threads being sampled; ended ones are closed and dropped */
    size_t n, cap;
    struct pollfd *pf;
    double next_scan;
    int first_err, wall_err;
    uint64_t cpu0;         /* CPU time at the start */
    u64map_t names;        /* native frames' names (name_key) */
    live_stats_t st;
};

static int sampling(const live_sampler_t *s, int tid) {
    for (size_t i = 0; i < s->n; i++) if (s->te[i].tid == tid) return 1;
    return 0;
}

/* A sample read up to LIVE_READ_MS late keeps right names where a full GC that began after it is
 * seen (take_sample leaves its JS frames unnamed): the main thread, when gc_watch is open. Other
 * threads that may run JS (Workers, threads not known by name: on Node 18-20 every thread is
 * "node"), and the main one without gc_watch, are read at once, woken for each sample. Threads
 * known to run no JS (V8's platform workers, the libuv pool) and a process without V8 never are. */
static int woken_per_sample(const live_sampler_t *s, int tid, const char *name) {
    if (!s->v) return 0;
    if (tid == s->pid) return s->gc == NULL;
    int known;
    thread_role_t role = profile_role_from_name(name, strlen(name), &known);
    return role != THREAD_V8 && role != THREAD_LIBUV;
}

/* Starts sampling thread tid (name as the kernel knows it). */
static void add_thread(live_sampler_t *s, int tid, const char *name) {
    int woken = woken_per_sample(s, tid, name);
    void *ring;
    int fd = open_sampling(tid, s->hz, woken, STACK_BYTES, &ring);
    if (fd < 0) { if (!s->first_err) s->first_err = errno; return; }
    int sw_fd = -1;
    void *sw_ring = NULL;
    if (s->wall) {
        sw_fd = open_switch_event(tid);
        sw_ring = sw_fd < 0 ? MAP_FAILED : map_ring(sw_fd, RING_PAGES);
        if (sw_ring == MAP_FAILED) {
            if (!s->wall_err) s->wall_err = errno ? errno : EINVAL;
            if (sw_fd >= 0) close(sw_fd);
            unmap_ring(ring);
            close(fd);
            return;
        }
    }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->te = xrealloc(s->te, s->cap * sizeof *s->te);
        s->pf = xrealloc(s->pf, s->cap * sizeof *s->pf);
    }
    /* the thread model names and roles it: tid == pid is main, then Node's thread names and stacks */
    uint32_t ti = profile_thread(s->out, s->pid, tid, name, strlen(name));
    s->te[s->n] = (thread_ev_t){ .fd = fd, .tid = tid, .ring = ring, .thread = ti, .sw_fd = sw_fd, .sw_ring = sw_ring,
                                 .off = s->wall ? xcalloc(1, sizeof(off_cpu_t)) : NULL, .woken = woken, .gc = tid == s->pid ? s->gc : NULL };
    stack_need_init(&s->te[s->n].need, STACK_BYTES, STACK_MAX);
    s->pf[s->n] = (struct pollfd){ fd, POLLIN, 0 };   /* the switch ring is read with it */
    s->n++;
    s->st.threads++;
}

static void end_thread(live_sampler_t *s, size_t i) {
    thread_ev_t *te = &s->te[i];
    drain(s->t, s->v, s->out, &s->names, te, &s->st, s->hz);
    s->st.short_copies += te->need.short_samples;
    if (te->off) {   /* still off the CPU (or gone): its stay ends now */
        drain_ctx_t c = { s->t, s->v, s->out, &s->names, te, &s->st, s->hz };
        back_on_cpu(&c, monotonic_ns());
        free(te->off);
    }
    if (te->sw_ring) {
        unmap_ring(te->sw_ring);
        close(te->sw_fd);
    }
    unmap_ring(s->te[i].ring);
    close(s->te[i].fd);
    s->te[i] = s->te[s->n - 1];
    s->pf[i] = s->pf[s->n - 1];
    s->n--;
}

/* The thread's samples copy need.want bytes of its stack from now on: a perf event's attributes
 * are fixed, so a new event replaces its event, and the old one is stopped, then read to its end.
 * On failure (the thread has exited: its old event says so at the next poll; no file descriptor
 * left) the old event stays. The new one starts a new period: the jitter's bookkeeping too. */
static void set_copy(live_sampler_t *s, size_t i) {
    thread_ev_t *te = &s->te[i];
    uint32_t copy = te->need.want;   /* (draining the old ring below may want another) */
    void *ring;
    int fd = open_sampling(te->tid, s->hz, te->woken, copy, &ring);
    if (fd < 0) {
        te->need.want = te->need.copy;   /* asked again after a window */
        return;
    }
    ioctl(te->fd, PERF_EVENT_IOC_DISABLE, 0);   /* both sampled for microseconds at most */
    drain(s->t, s->v, s->out, &s->names, te, &s->st, s->hz);
    unmap_ring(te->ring);
    close(te->fd);
    te->fd = fd, te->ring = ring, s->pf[i].fd = fd;
    te->period = 0, te->period_samples = 0;
    te->need.copy = copy;
    s->st.copy_changes++;
}

/* Threads started since the last look (a Worker, V8's and libuv's pools grow on demand). */
static void scan_threads(live_sampler_t *s) {
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

live_sampler_t *live_sampler_start(target_t *t, v8_t *v, double hz, profile_t *out) {
    return live_sampler_start_wall(t, v, hz, 0, out);
}

live_sampler_t *live_sampler_start_wall(target_t *t, v8_t *v, double hz, int wall, profile_t *out) {
    /* each library's symbols are sorted on their first look-up: done before the events are
       opened, or the first samples would wait for it (and be read too late to name) */
    for (size_t i = 0; i < target_mapping_count(t); i++) {
        const target_mapping_t *m = target_mapping(t, i);
        target_symbol_t sym;
        if (m->path && (m->prot & 4)) target_symbolize(t, m->start, &sym);
    }
    live_sampler_t *s = xcalloc(1, sizeof *s);
    s->t = t, s->v = v, s->out = out, s->hz = hz, s->wall = wall;
    u64map_init(&s->names);
    size_t n = target_thread_count(t);
    s->pid = n ? target_thread(t, 0)->tid : 0;   /* the first thread is the main one: its tid is the pid */
    if (v && n) s->gc = gc_watch_open(t, s->pid);   /* before the events: woken_per_sample */
    for (size_t i = 0; i < n; i++) {
        const target_thread_t *th = target_thread(t, i);
        add_thread(s, th->tid, th->name ? th->name : "");
    }
    if (s->n == 0 && s->wall_err && s->first_err != ESRCH) {
        diag_error(target_name(t), 0, "cannot sample wall-clock time: perf_event_open (context switches): %s",
                   strerror(s->wall_err));
        if (s->wall_err == EACCES || s->wall_err == EPERM)
            diag_hint("--wall needs the kernel's context-switch samples: root or CAP_PERFMON, or "
                      "'sysctl kernel.perf_event_paranoid=1'");
        errno = s->wall_err;
        gc_watch_close(s->gc);
        u64map_free(&s->names);
        free(s);
        return NULL;
    }
    if (s->n == 0) {
        if (s->first_err != ESRCH) {   /* ESRCH: the process is gone; the caller says what that means */
            diag_error(target_name(t), 0, "cannot sample: perf_event_open: %s", strerror(s->first_err));
            permission_hint(s->first_err);
        }
        errno = s->first_err;
        gc_watch_close(s->gc);
        u64map_free(&s->names);
        free(s);
        return NULL;
    }
    s->next_scan = now_s() + SCAN_INTERVAL_S;
    s->cpu0 = cpu_now_ns();
    return s;
}

int live_sampler_poll(live_sampler_t *s) { return live_sampler_poll_ms(s, LIVE_READ_MS); }

int live_sampler_poll_ms(live_sampler_t *s, int timeout_ms) {
    int r = poll(s->pf, s->n, timeout_ms);
    if (r < 0 && errno != EINTR) return 0;
    for (size_t i = s->n; i-- > 0;) {
        if (s->pf[i].revents & (POLLHUP | POLLERR)) { end_thread(s, i); continue; }   /* the thread has exited */
        drain(s->t, s->v, s->out, &s->names, &s->te[i], &s->st, s->hz);
        if (s->te[i].need.want != s->te[i].need.copy) set_copy(s, i);
    }
    double now = now_s();
    if (s->n && now >= s->next_scan) {
        scan_threads(s);
        s->next_scan = now + SCAN_INTERVAL_S;
    }
    return (int)s->n;
}

void live_sampler_stats(const live_sampler_t *s, live_stats_t *stats) {
    *stats = s->st;
    stats->cpu_ns = cpu_now_ns() - s->cpu0;
}

static int sample_time_cmp(const void *a, const void *b) {
    double x = ((const profile_sample_t *)a)->time_us, y = ((const profile_sample_t *)b)->time_us;
    return x < y ? -1 : x > y;
}

void live_sampler_stop(live_sampler_t *s, live_stats_t *stats) {
    if (!s) return;
    while (s->n) end_thread(s, s->n - 1);
    /* a stay off the CPU is added when the thread is back: its ticks are older than the samples
       taken meanwhile; the timeline goes in time order */
    if (s->wall && s->out->nsamples > 1) qsort(s->out->samples, s->out->nsamples, sizeof *s->out->samples, sample_time_cmp);
    s->st.full_gcs = s->gc ? (long)gc_watch_count(s->gc) : -1;
    s->st.cpu_ns = cpu_now_ns() - s->cpu0;
    if (stats) *stats = s->st;
    gc_watch_close(s->gc);
    u64map_free(&s->names);
    free(s->te);
    free(s->pf);
    free(s);
}

int live_sample_target(target_t *t, v8_t *v, double hz, double seconds, profile_t *out, live_stats_t *stats,
                       volatile int *stop) {
    live_sampler_t *s = live_sampler_start(t, v, hz, out);
    if (!s && errno == ESRCH) diag_error(target_name(t), 0, "the process is gone");
    if (!s) return -1;
    double end = now_s() + seconds;
    while (now_s() < end && !(stop && *stop) && live_sampler_poll(s) > 0) {}
    live_sampler_stop(s, stats);
    return 0;
}

#define UNNAMED_JIT_MAX 0.05

int live_stats_check_named(const live_stats_t *st, const char *problem, int other_mount_ns) {
    if (!st->jit || (double)st->jit_unnamed <= UNNAMED_JIT_MAX * (double)st->jit) return 0;
    char cause[1400];
    if (problem && *problem) snprintf(cause, sizeof cause, "%s", problem);
    else
        snprintf(cause, sizeof cause, "no cause found: the node binary read%s has the process's build id, "
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

void live_stats_json(const live_stats_t *st, char *out, size_t cap) {
    snprintf(out, cap, ",\"samples\":%lu,\"jitSamples\":%lu,\"jitUnnamed\":%lu", st->samples, st->jit, st->jit_unnamed);
}
