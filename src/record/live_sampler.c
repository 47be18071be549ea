/* The live sampler (see live_sampler.h). Each thread has its own perf_event ring; a sample's
 * registers and stack copy are lent to the target (target_set_stack_copy) so that the frame walk
 * and v8/'s frame decoder read the stack as it was at the sample, and the heap as it is now (a few
 * ms later). The frames are those of `core stack`: v8_stack_frames + v8_frame_record. */
#include "record/live_sampler.h"
#include "util/buf.h"
#include "util/demangle.h"
#include "util/diag.h"
#include "util/xalloc.h"
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
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    a.wakeup_events = 1;
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

/* One sample: walk, decode, name, add. */
static void take_sample(target_t *t, v8_t *v, profile_t *p, const thread_ev_t *te, uint64_t time_ns,
                        const uint64_t *regs, const uint8_t *stack, uint64_t stack_len, live_stats_t *st) {
    static target_frame_t native[MAX_NATIVE];
    static v8_frame_t frames[MAX_FRAMES];
    static uint32_t ids[MAX_FRAMES + 1];
    target_set_stack_copy(t, regs[19], stack, (size_t)stack_len);
    size_t n = target_unwind_regs(t, regs[16], regs[19], regs[4], native, MAX_NATIVE);
    if (v) n = v8_stack_frames(v, native, n, regs, frames, MAX_FRAMES);
    else
        for (size_t i = 0; i < n; i++)
            frames[i] = (v8_frame_t){ .kind = V8_FRAME_NATIVE, .pc = native[i].pc, .sp = native[i].sp, .fp = native[i].fp,
                                      .return_address = i > 0 };
    size_t k = 0;
    ids[k++] = p->threads[te->thread].frame;
    buf_t b = {0};
    for (size_t i = n; i-- > 0;) {
        const v8_frame_t *f = &frames[i];
        v8_frame_record_t r;
        v8_frame_record(t, v, f, &r);
        if (r.internal) { v8_frame_record_free(&r); continue; }
        buf_clear(&b);
        if (f->kind == V8_FRAME_JS && r.has_function) {
            buf_printf(&b, "%s%s", f->is_construct ? "new " : "", r.display_name);
            ids[k++] = profile_frame(p, b.data, b.len, r.fn.script_name ? r.fn.script_name : "", r.fn.def_line,
                                     r.fn.def_col, kind_of(f->tier));
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
        take_sample(t, v, p, te, time, regs, stack, dyn, st);
    }
    __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int live_sample_target(target_t *t, v8_t *v, double hz, double seconds, profile_t *out, live_stats_t *stats,
                       volatile int *stop) {
    live_stats_t st = {0};
    size_t n = target_thread_count(t);
    thread_ev_t *te = xcalloc(n ? n : 1, sizeof *te);
    size_t ok = 0;
    int first_err = 0;
    int pid = n ? target_thread(t, 0)->tid : 0;   /* the first thread is the main one: its tid is the pid */
    for (size_t i = 0; i < n; i++) {
        const target_thread_t *th = target_thread(t, i);
        int fd = open_event(th->tid, hz);
        if (fd < 0) { if (!first_err) first_err = errno; continue; }
        void *ring = mmap(NULL, (size_t)(RING_PAGES + 1) * (size_t)page_size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (ring == MAP_FAILED) { if (!first_err) first_err = errno; close(fd); continue; }
        /* the thread model names and roles it: tid == pid is main, then Node's thread names and stacks */
        const char *name = th->name ? th->name : "";
        uint32_t ti = profile_thread(out, pid, th->tid, name, strlen(name));
        te[ok++] = (thread_ev_t){ fd, th->tid, ring, ti };
    }
    st.threads = ok;
    if (ok == 0) {
        diag_error(target_name(t), 0, "cannot sample: perf_event_open: %s", strerror(first_err));
        permission_hint(first_err);
        free(te);
        return -1;
    }
    struct pollfd *pf = xcalloc(ok, sizeof *pf);
    for (size_t i = 0; i < ok; i++) pf[i] = (struct pollfd){ te[i].fd, POLLIN, 0 };
    double end = now_s() + seconds;
    while (now_s() < end && !(stop && *stop)) {
        int r = poll(pf, ok, 10);
        if (r < 0 && errno != EINTR) break;
        int alive = 0;
        for (size_t i = 0; i < ok; i++) {
            drain(t, v, out, &te[i], &st);
            alive |= !(pf[i].revents & POLLHUP);
        }
        if (!alive) break;   /* every thread is gone: the process exited */
    }
    for (size_t i = 0; i < ok; i++) {
        drain(t, v, out, &te[i], &st);
        munmap(te[i].ring, (size_t)(RING_PAGES + 1) * (size_t)page_size());
        close(te[i].fd);
    }
    free(pf);
    free(te);
    if (stats) *stats = st;
    return 0;
}

int live_sample(int pid, double hz, double seconds, profile_t *out, live_stats_t *stats) {
    target_t *t = target_open_running(pid);
    if (!t) return -1;
    v8_t *v = v8_open(t);
    int rc = live_sample_target(t, v, hz, seconds, out, stats, NULL);
    v8_close(v);
    target_close(t);
    return rc;
}
