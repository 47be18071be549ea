/* The live sampler (see live_sampler.h). Each thread has its own perf_event ring; a sample's
 * registers and stack copy are lent to the target (target_set_stack_copy) so that the frame walk
 * and v8/'s frame decoder read the stack as it was at the sample, and the heap as it is now (a few
 * ms later). The frames are those of `core stack`: v8_stack_frames + v8_frame_record. */
#include "record/live_sampler.h"
#include "symbols/journal.h"
#include "util/buf.h"
#include "util/demangle.h"
#include "util/diag.h"
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

#define STACK_BYTES 16384
#define RING_PAGES 128         /* data pages per thread (a power of two): ~30 samples of 16 KiB */
#define MAX_NATIVE 512
#define MAX_FRAMES 1024
#define SCAN_INTERVAL_S 0.1  /* how often new threads are looked for */
/* A sample's JS frames are named only if it is read within this time: a GC in between may have
 * moved the functions its stack points at and put others, even of the same shape, in their place.
 * Sampling reads within a few ms in the steady state; the first samples wait for caches to fill. */
#define MAX_LAG_NS (25 * 1000000ull)
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

typedef struct {
    int fd, tid;
    void *ring;
    uint32_t thread;  /* its index in the profile's thread table (profile.h "Threads") */
} thread_ev_t;

static long page_size(void) { return sysconf(_SC_PAGESIZE); }

/* Time a thread spends in the kernel on its behalf (a writev's whole loopback TCP send, a page
 * fault) is its time too, and V8's --cpu-prof counts it under the JS that made the call: samples
 * taken in the kernel are kept (the user registers and stack are those at the kernel entry).
 * Without the privilege for that (perf_event_paranoid 2 and no CAP_PERFMON), user time only. */
static int with_kernel = 1;

static int open_event(int tid, double hz) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_CPU_CLOCK;
    a.freq = 1;
    a.sample_freq = (uint64_t)(hz + 0.5);
    a.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    a.sample_regs_user = REGS_MASK;
    a.sample_stack_user = STACK_BYTES;
    a.exclude_kernel = !with_kernel;
    a.exclude_hv = 1;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    a.wakeup_events = 1;
    int fd = (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0 && with_kernel && (errno == EACCES || errno == EPERM)) {
        with_kernel = 0;
        return open_event(tid, hz);
    }
    return fd;
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

/* One sample: walk, decode, name, add. */
static void take_sample(target_t *t, v8_t *v, profile_t *p, const thread_ev_t *te, uint64_t time_ns,
                        const uint64_t *regs, const uint8_t *stack, uint64_t stack_len, live_stats_t *st) {
    static target_frame_t native[MAX_NATIVE];
    static v8_frame_t frames[MAX_FRAMES];
    static uint32_t ids[MAX_FRAMES + 1];
    target_set_stack_copy(t, regs[19], stack, (size_t)stack_len);
    target_fresh_after(t, time_ns);
    size_t n = target_unwind_regs(t, regs[16], regs[19], regs[4], native, MAX_NATIVE);
    if (v) n = v8_stack_frames(v, native, n, regs, frames, MAX_FRAMES);
    else
        for (size_t i = 0; i < n; i++)
            frames[i] = (v8_frame_t){ .kind = V8_FRAME_NATIVE, .pc = native[i].pc, .sp = native[i].sp, .fp = native[i].fp,
                                      .return_address = i > 0 };
    /* JS frames are named from the heap as it is now. A frame whose function has moved since the
     * sample (v8_frame_current), and every JS frame of a sample read too late for the heap to be
     * trusted, is left unnamed rather than named after whatever is at that address now. */
    int late = monotonic_ns() - time_ns > MAX_LAG_NS, torn = 0;
    if (v && !late)
        for (size_t i = 0; i < n; i++)
            if (v8_frame_current(v, &frames[i]) == 0) { torn = 1; break; }
    if (late || torn) st->partial++;
    if (late) st->late++;
    uint64_t torn_fp = 0;
    size_t k = 0;
    int leaf_line = 0;   /* the line the leaf JS frame executes: V8's positionTicks */
    ids[k++] = p->threads[te->thread].frame;
    buf_t b = {0};
    for (size_t i = n; i-- > 0;) {
        const v8_frame_t *f = &frames[i];
        v8_frame_record_t r;
        v8_frame_record_facts(t, v, f, &r);   /* names are V8's own: no display name */
        if (r.internal) { v8_frame_record_free(&r); continue; }
        buf_clear(&b);
        leaf_line = 0;
        if (late && f->kind == V8_FRAME_JS) {
            ids[k++] = profile_frame(p, UNNAMED_LATE, strlen(UNNAMED_LATE), NULL, 0, 0, FRAME_UNKNOWN);
        } else if (torn && f->kind == V8_FRAME_JS && (f->fp == torn_fp || v8_frame_current(v, f) == 0)) {
            torn_fp = f->fp;   /* the frames inlined into it follow with the same fp */
            ids[k++] = profile_frame(p, UNNAMED_MOVED, strlen(UNNAMED_MOVED), NULL, 0, 0, FRAME_UNKNOWN);
        } else if (f->kind == V8_FRAME_JS && r.has_function) {
            /* V8's own name for the function (its name, else the inferred one), as --cpu-prof's
               callFrame has it, so live and V8 profiles merge and diff function by function */
            const char *nm = *r.fn.name ? r.fn.name : r.fn.inferred && *r.fn.inferred ? r.fn.inferred : "(anonymous)";
            buf_puts(&b, nm);
            ids[k++] = profile_frame(p, b.data, b.len, r.fn.script_name ? r.fn.script_name : "", r.fn.def_line,
                                     r.fn.def_col, kind_of(f->tier));
            if (!f->position_is_definition && f->line > 0) leaf_line = f->line;
        } else if (r.symbol) {
            demangle_append(&b, r.symbol);
            ids[k++] = profile_frame(p, b.data, b.len, NULL, 0, 0, FRAME_NATIVE);
        } else {
            buf_printf(&b, "0x%llx", (unsigned long long)f->pc);
            if (r.module) buf_printf(&b, " (%s+0x%llx)", r.module, (unsigned long long)r.module_offset);
            ids[k++] = profile_frame(p, b.data, b.len, NULL, 0, 0, FRAME_UNKNOWN);
        }
        v8_frame_record_free(&r);
    }
    buf_free(&b);
    target_set_stack_copy(t, 0, NULL, 0);
    if (k == 1) st->empty++;
    else profile_thread_note_stack(p, te->thread, ids + 1, k - 1);   /* the stack tells its role */
    uint32_t leaf = profile_add_stack(p, ids, k, 1);
    profile_add_sample(p, (double)time_ns / 1e3, leaf, 1);
    if (leaf_line) profile_add_line_ticks(p, leaf, leaf_line, 1);
    st->samples++;
}

/* Reads every record in a thread's ring. */
static void drain(target_t *t, v8_t *v, profile_t *p, thread_ev_t *te, live_stats_t *st) {
    struct perf_event_mmap_page *meta = te->ring;
    uint8_t *data = (uint8_t *)te->ring + page_size();
    uint64_t size = (uint64_t)RING_PAGES * (uint64_t)page_size();
    uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE), tail = meta->data_tail;
    static uint8_t rec[65536];
    while (tail < head) {
        struct perf_event_header h;
        for (size_t i = 0; i < sizeof h; i++) ((uint8_t *)&h)[i] = data[(tail + i) % size];
        if (h.size < sizeof h) break;
        for (size_t i = 0; i < h.size; i++) rec[i] = data[(tail + i) % size];
        tail += h.size;
        if (h.type == PERF_RECORD_LOST) { st->lost += ((uint64_t *)(rec + sizeof h))[1]; continue; }
        if (h.type != PERF_RECORD_SAMPLE) continue;
        const uint8_t *q = rec + sizeof h, *end = rec + h.size;
        uint64_t time, abi, regs[27] = {0}, len = 0, dyn = 0;
        q += 8;   /* pid, tid */
        memcpy(&time, q, 8); q += 8;
        memcpy(&abi, q, 8); q += 8;
        if (abi == PERF_SAMPLE_REGS_ABI_NONE) continue;   /* a kernel thread or no user context */
        for (int r = 0; r < P_NREGS; r++) {
            if (!(REGS_MASK & (1ull << r))) continue;
            uint64_t val;
            if (q + 8 > end) break;
            memcpy(&val, q, 8); q += 8;
            if (to_user[r] >= 0) regs[to_user[r]] = val;
        }
        if (q + 8 > end) continue;
        memcpy(&len, q, 8); q += 8;
        if (len > (uint64_t)(end - q)) continue;
        const uint8_t *stack = q;
        q += len;
        if (len && q + 8 <= end) memcpy(&dyn, q, 8);
        if (dyn > len) dyn = len;
        uint64_t t0 = monotonic_ns();
        take_sample(t, v, p, te, time, regs, stack, dyn, st);
        st->busy_ns += monotonic_ns() - t0;
    }
    __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

/* the clock samples are stamped with (perf_event use_clockid), in seconds */
static double now_s(void) { return (double)monotonic_ns() / 1e9; }

struct live_sampler {
    target_t *t;
    v8_t *v;
    profile_t *out;
    double hz;
    int pid;
    thread_ev_t *te;       /* the threads being sampled; ended ones are closed and dropped */
    size_t n, cap;
    struct pollfd *pf;
    double next_scan;
    int first_err;
    live_stats_t st;
};

static int sampling(const live_sampler_t *s, int tid) {
    for (size_t i = 0; i < s->n; i++) if (s->te[i].tid == tid) return 1;
    return 0;
}

/* Starts sampling thread tid (name as the kernel knows it). */
static void add_thread(live_sampler_t *s, int tid, const char *name) {
    int fd = open_event(tid, s->hz);
    if (fd < 0) { if (!s->first_err) s->first_err = errno; return; }
    void *ring = mmap(NULL, (size_t)(RING_PAGES + 1) * (size_t)page_size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (ring == MAP_FAILED) { if (!s->first_err) s->first_err = errno; close(fd); return; }
    if (s->n == s->cap) {
        s->cap = s->cap ? 2 * s->cap : 16;
        s->te = xrealloc(s->te, s->cap * sizeof *s->te);
        s->pf = xrealloc(s->pf, s->cap * sizeof *s->pf);
    }
    /* the thread model names and roles it: tid == pid is main, then Node's thread names and stacks */
    uint32_t ti = profile_thread(s->out, s->pid, tid, name, strlen(name));
    s->te[s->n] = (thread_ev_t){ fd, tid, ring, ti };
    s->pf[s->n] = (struct pollfd){ fd, POLLIN, 0 };
    s->n++;
    s->st.threads++;
}

static void end_thread(live_sampler_t *s, size_t i) {
    drain(s->t, s->v, s->out, &s->te[i], &s->st);
    munmap(s->te[i].ring, (size_t)(RING_PAGES + 1) * (size_t)page_size());
    close(s->te[i].fd);
    s->te[i] = s->te[s->n - 1];
    s->pf[i] = s->pf[s->n - 1];
    s->n--;
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
    live_sampler_t *s = xcalloc(1, sizeof *s);
    s->t = t, s->v = v, s->out = out, s->hz = hz;
    size_t n = target_thread_count(t);
    s->pid = n ? target_thread(t, 0)->tid : 0;   /* the first thread is the main one: its tid is the pid */
    for (size_t i = 0; i < n; i++) {
        const target_thread_t *th = target_thread(t, i);
        add_thread(s, th->tid, th->name ? th->name : "");
    }
    if (s->n == 0) {
        if (s->first_err != ESRCH) {   /* ESRCH: the process is gone; the caller says what that means */
            diag_error(target_name(t), 0, "cannot sample: perf_event_open: %s", strerror(s->first_err));
            permission_hint(s->first_err);
        }
        errno = s->first_err;
        free(s);
        return NULL;
    }
    s->next_scan = now_s() + SCAN_INTERVAL_S;
    return s;
}

int live_sampler_poll(live_sampler_t *s, int timeout_ms) {
    int r = poll(s->pf, s->n, timeout_ms);
    if (r < 0 && errno != EINTR) return 0;
    for (size_t i = s->n; i-- > 0;) {
        if (s->pf[i].revents & (POLLHUP | POLLERR)) end_thread(s, i);   /* the thread has exited */
        else drain(s->t, s->v, s->out, &s->te[i], &s->st);
    }
    double now = now_s();
    if (s->n && now >= s->next_scan) {
        scan_threads(s);
        s->next_scan = now + SCAN_INTERVAL_S;
    }
    return (int)s->n;
}

void live_sampler_stats(const live_sampler_t *s, live_stats_t *stats) { *stats = s->st; }

void live_sampler_stop(live_sampler_t *s, live_stats_t *stats) {
    if (!s) return;
    while (s->n) end_thread(s, s->n - 1);
    if (stats) *stats = s->st;
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
    while (now_s() < end && !(stop && *stop) && live_sampler_poll(s, 10) > 0) {}
    live_sampler_stop(s, stats);
    return 0;
}
