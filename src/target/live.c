/* Live processes, read-only. target_open_running lists the mappings (/proc/PID/maps), the threads
 * (/proc/PID/task, names from comm) and loads every binary's symbols while the process runs; it
 * never stops it and installs no signal handler (signals belong to the caller). Memory is read with
 * process_vm_readv. Registers need the threads stopped: target_stop holds every thread with
 * PTRACE_SEIZE + PTRACE_INTERRUPT and reads them (the "stopped process" target), target_resume
 * lets them go; target_snapshot does both around a copy of each thread's stack, so the process is
 * stopped only for the registers and the stacks (a few ms), and the stack reads that follow come
 * from the copy while the process runs on. A sampler lends a perf_event sample's stack copy with
 * target_set_stack_copy. If nodescope dies while threads are held, the kernel detaches and resumes
 * them. A frozen target (freeze.c, target_freeze) is read the same way, from its copy's pid. */
#include "target/target_internal.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STACK_COPY_MAX (4u << 20) /* the used part of a thread's stack copied by target_snapshot */

static int live_read(target_t *t, uint64_t addr, void *dst, size_t n);
static int copy_read(target_t *t, uint64_t addr, void *dst, size_t n);
static int copy_mem_open(target_t *t);
static void copy_mem_close(target_t *t);
static void cache_invalidate(target_t *t);
static void live_close(target_t *t);
static const target_ops_t running_ops = {"running process", live_read, live_close};
static const target_ops_t stopped_ops = {"stopped process", live_read, live_close};
/* target_freeze: the threads run, the memory read is the frozen copy's (freeze.c) */
const target_ops_t target_frozen_ops = {"stopped process", live_read, live_close};

/* The process whose memory is read: the frozen copy, if any */
static int mem_pid(const target_t *t) { return t->frozen_pid ? t->frozen_pid : t->pid; }

static uint64_t monotonic_now(void);

/* maps_read_ns stays 0: the first miss reads them again at once (node reserves its code range
   and remaps its builtins after the start a recording attaches at) */
static void load_maps(target_t *t)
{
    if (target_live_read_maps(t->pid, &t->maps, &t->nmaps) != 0) t->maps = NULL, t->nmaps = 0;
}

/* The old mappings' path strings are kept (each new mapping of a file takes over one old string of
 * it; the rest wait for close), so that names taken from them stay valid. Each mapping owns its
 * string, as target_close frees them one by one. */
static void replace_maps(target_t *t, target_mapping_t *maps, size_t n)
{
    uint8_t *taken = xcalloc(t->nmaps ? t->nmaps : 1, 1);
    for (size_t i = 0; i < n; i++) {
        if (!maps[i].path) continue;
        for (size_t j = 0; j < t->nmaps; j++)
            if (!taken[j] && t->maps[j].path && strcmp(t->maps[j].path, maps[i].path) == 0) {
                free((char *)maps[i].path);
                maps[i].path = t->maps[j].path;
                taken[j] = 1;
                break;
            }
    }
    for (size_t j = 0; j < t->nmaps; j++) {
        if (taken[j] || !t->maps[j].path) continue;
        t->gone_paths = xrealloc(t->gone_paths, (t->ngone + 1) * sizeof *t->gone_paths);
        t->gone_paths[t->ngone++] = (char *)t->maps[j].path;
    }
    free(taken);
    free(t->maps);
    t->maps = maps;
    t->nmaps = n;
    t->sym_generation++;
}

void target_live_set_maps(target_t *t, target_mapping_t *maps, size_t n) { replace_maps(t, maps, n); }

void target_live_frozen_maps(target_t *t)
{
    target_mapping_t *maps;
    size_t n;
    if (t->frozen_pid && target_live_read_maps(t->frozen_pid, &maps, &n) == 0) replace_maps(t, maps, n);
}

#define MAPS_REREAD_NS (100 * 1000000ull)
#define MAPS_REREAD_MAX_NS (3000 * 1000000ull)

const target_mapping_t *target_mapping_refresh(target_t *t, uint64_t addr)
{
    const target_mapping_t *m = target_mapping_at(t, addr);
    if (m || !t->pid || (t->ops != &running_ops && t->ops != &stopped_ops && t->ops != &target_frozen_ops)) return m;
    /* a user-space code address at all (a broken frame chain ends in small numbers and zeros) */
    if (addr < 0x10000 || addr >= 0x800000000000ull) return NULL;
    uint64_t now = monotonic_now();
    if (now - t->maps_read_ns < t->maps_wait_ns) return NULL;
    t->maps_read_ns = now;
    /* misses that the maps do not explain (a stale frame pointer's "return address") come back
       every sample: each read that finds nothing doubles the wait, up to 3 s (reading the maps ten
       times a second showed in the sampler's profile) */
    t->maps_wait_ns = t->maps_wait_ns ? 2 * t->maps_wait_ns : MAPS_REREAD_NS;
    if (t->maps_wait_ns > MAPS_REREAD_MAX_NS) t->maps_wait_ns = MAPS_REREAD_MAX_NS;
    target_mapping_t *maps;
    size_t n;
    if (target_live_read_maps(mem_pid(t), &maps, &n) != 0) return NULL; /* the process is gone */
    replace_maps(t, maps, n);
    target_elf_load_modules(t); /* the files mapped since */
    m = target_mapping_at(t, addr);
    if (m) t->maps_wait_ns = MAPS_REREAD_NS;
    return m;
}

static void read_thread_name(target_thread_t *th, int pid)
{
    char path[64], buf[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/comm", pid, th->tid);
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\n")] = 0;
        th->name = xstrdup(buf);
    }
    fclose(f);
}

static void free_threads(target_t *t)
{
    for (size_t i = 0; i < t->nthreads; i++) free((char *)t->threads[i].name);
    free(t->threads);
    free(t->held);
    t->threads = NULL;
    t->held = NULL;
    t->nthreads = 0;
}

/* (Re)lists the threads, main thread first (the order of /proc/PID/task); -1 when the process is gone. */
static int list_threads(target_t *t)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", t->pid);
    DIR *d = opendir(path);
    if (!d) return -1;
    free_threads(t);
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        int tid = atoi(de->d_name);
        if (tid <= 0) continue;
        xgrow((void **)&t->threads, &cap, t->nthreads + 1, sizeof *t->threads);
        target_thread_t *th = &t->threads[t->nthreads++];
        memset(th, 0, sizeof *th);
        th->tid = tid;
        read_thread_name(th, t->pid);
    }
    closedir(d);
    t->held = xcalloc(t->nthreads ? t->nthreads : 1, 1);
    /* the main thread (tid == pid) is thread 0, as in a core */
    for (size_t i = 1; i < t->nthreads; i++)
        if (t->threads[i].tid == t->pid) {
            target_thread_t m = t->threads[i];
            memmove(&t->threads[1], &t->threads[0], i * sizeof *t->threads);
            t->threads[0] = m;
        }
    return 0;
}

target_t *target_open_running(int pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    if (access(path, F_OK) != 0) {
        diag_error(NULL, 0, "pid %d: no such process", pid);
        return NULL;
    }
    target_t *t = xcalloc(1, sizeof *t);
    t->ops = &running_ops;
    t->arch = arch_host();
    t->pid = pid;
    snprintf(path, sizeof path, "pid %d", pid);
    t->name = xstrdup(path);
    if (list_threads(t) != 0) {
        diag_error(NULL, 0, "pid %d: no such process", pid);
        target_close(t);
        return NULL;
    }
    load_maps(t);
    char exe[4096];
    snprintf(path, sizeof path, "/proc/%d/exe", pid);
    ssize_t n = readlink(path, exe, sizeof exe - 1);
    if (n <= 0) {
        diag_error(NULL, 0, "pid %d: cannot read the executable path: %s", pid, strerror(errno));
        target_close(t);
        return NULL;
    }
    exe[n] = 0;
    t->exe_path = xstrdup(exe);
    if (target_elf_load_modules(t) != 0) {
        target_close(t);
        return NULL;
    }
    /* the first read shows whether we may read this process at all (same rules as ptrace attach) */
    uint64_t w;
    if (t->nmaps && live_read(t, t->maps[0].start, &w, sizeof w) != 0 && (errno == EPERM || errno == EACCES)) {
        diag_error(NULL, 0, "pid %d: cannot read its memory: %s", pid, strerror(errno));
        target_close(t);
        return NULL;
    }
    return t;
}

static void release(target_t *t)
{
    for (size_t i = 0; i < t->nthreads; i++)
        if (t->held[i]) {
            ptrace(PTRACE_DETACH, t->threads[i].tid, 0, 0);
            t->held[i] = 0;
        }
}

int target_stop(target_t *t)
{
    cache_invalidate(t);
    if (!t->pid) return 0;
    if (t->ops == &stopped_ops) return 0;
    if (list_threads(t) != 0) {
        diag_error(t->name, 0, "the process is gone");
        return -1;
    }
    /* seize and interrupt them all first, then wait: the threads stop together */
    for (size_t i = 0; i < t->nthreads; i++) {
        target_thread_t *th = &t->threads[i];
        if (ptrace(PTRACE_SEIZE, th->tid, 0, 0) != 0) {
            if (errno == ESRCH) continue; /* the thread just exited */
            int e = errno;
            diag_error(NULL, 0, "pid %d: cannot attach to thread %d: %s", t->pid, th->tid, strerror(e));
            release(t);
            errno = e;
            return -1;
        }
        t->held[i] = 1;
        ptrace(PTRACE_INTERRUPT, th->tid, 0, 0);
    }
    for (size_t i = 0; i < t->nthreads; i++) {
        target_thread_t *th = &t->threads[i];
        int st;
        if (!t->held[i] || waitpid(th->tid, &st, __WALL) != th->tid) continue;
        if (target_ptrace_regs(th->tid, th->regs, 0) == 0) target_thread_set_regs(t, th);
    }
    t->ops = &stopped_ops;
    return 0;
}

void target_unfreeze(target_t *t)
{
    if (!t->pid || t->traced || t->ops != &target_frozen_ops) return;
    t->track_frozen = 0;
    target_thaw(t);
    copy_mem_close(t);
    cache_invalidate(t);
    t->ops = &running_ops;
}

void target_resume(target_t *t)
{
    cache_invalidate(t);
    if (!t->pid || t->ops != &stopped_ops) return;
    release(t);
    t->ops = &running_ops;
}

static void free_stacks(target_t *t)
{
    for (size_t i = 0; i < t->nstacks; i++) free(t->stacks[i].bytes);
    free(t->stacks);
    t->stacks = NULL;
    t->nstacks = 0;
}

/* Copies [sp - red zone, top of sp's mapping) of each held thread, bounded. */
static void copy_stacks(target_t *t)
{
    free_stacks(t);
    t->stacks = xcalloc(t->nthreads ? t->nthreads : 1, sizeof *t->stacks);
    for (size_t i = 0; i < t->nthreads; i++) {
        const target_thread_t *th = &t->threads[i];
        const target_mapping_t *m = th->sp ? target_mapping_at(t, th->sp) : NULL;
        if (!t->held[i] || !m) continue;
        uint64_t red = t->arch->red_zone;
        uint64_t lo = th->sp - red < m->start ? m->start : th->sp - red, hi = m->end;
        if (hi - lo > STACK_COPY_MAX) hi = lo + STACK_COPY_MAX;
        target_region_t *r = &t->stacks[t->nstacks];
        r->start = lo;
        r->bytes = xmalloc(hi - lo);
        struct iovec local = {r->bytes, hi - lo}, remote = {(void *)(uintptr_t)lo, hi - lo};
        ssize_t got = process_vm_readv(t->pid, &local, 1, &remote, 1, 0);
        if (got <= 0) {
            free(r->bytes);
            continue;
        }
        r->len = (size_t)got;
        t->nstacks++;
    }
}

int target_snapshot(target_t *t, double *stopped_ms)
{
    if (!t->pid) return 0;
    /* no signal of ours lands between the stop and the resume (the caller's handlers run after) */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigaddset(&block, SIGHUP);
    sigprocmask(SIG_BLOCK, &block, &old);
    double t0 = target_now_ms();
    int rc = target_stop(t);
    if (rc == 0) {
        copy_stacks(t);
        target_resume(t);
    }
    double t1 = target_now_ms();
    sigprocmask(SIG_SETMASK, &old, NULL);
    if (stopped_ms) *stopped_ms = t1 - t0;
    return rc;
}

target_t *target_open_pid(int pid)
{
    target_t *t = target_open_running(pid);
    if (t && target_stop(t) != 0) {
        target_close(t);
        return NULL;
    }
    return t;
}

void target_set_stack_copy(target_t *t, uint64_t addr, const void *bytes, size_t n)
{
    t->lent = (target_region_t){addr, n, (void *)bytes};
}

/* The copied bytes covering addr, and how many of them from addr; NULL when none. */
static const uint8_t *copied(const target_t *t, uint64_t addr, size_t *avail)
{
    if (t->lent.len && addr >= t->lent.start && addr - t->lent.start < t->lent.len) {
        *avail = t->lent.len - (size_t)(addr - t->lent.start);
        return t->lent.bytes + (addr - t->lent.start);
    }
    for (size_t i = 0; i < t->nstacks; i++) {
        const target_region_t *r = &t->stacks[i];
        if (addr >= r->start && addr - r->start < r->len) {
            *avail = r->len - (size_t)(addr - r->start);
            return r->bytes + (addr - r->start);
        }
    }
    return NULL;
}

/* A small direct-mapped cache of the process's memory in 1 KiB lines. Naming one frame reads a
 * dozen fields of a few objects (function, shared info, script, strings), each a system call
 * without it. A line is used only if it was read after the moment the caller needs the memory
 * as of (target_fresh_after: a sample's time; a stop or resume: then), so what a sample sees is
 * never older than the sample; a sampler that fell behind reads each line once for all the
 * samples it is catching up on. */
#define LINE_BITS 10
#define LINE ((uint64_t)1 << LINE_BITS)
#define NLINES 512
struct read_cache {
    uint64_t tag[NLINES];     /* line address + 1 (0: empty) */
    uint64_t read_ns[NLINES]; /* when it was read (CLOCK_MONOTONIC) */
    uint64_t fresh_after;     /* lines read before this are stale */
    uint16_t used[NLINES];    /* the lines used since the last target_fresh_after, in first use order */
    size_t nused;
    uint8_t is_used[NLINES];
    int sampled; /* a sampler reads it (target_fresh_after) */
    int gone;    /* sampled, and the process's memory is gone (it exited): lines are served as last read */
    uint8_t data[NLINES][LINE];
};

static uint64_t monotonic_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Reads again, in one process_vm_readv, the lines the last sample used that are now stale: the
 * next sample of a thread mostly walks the same stack (functions, their shared infos, scripts,
 * maps), and one system call for them all costs less than one each (28 a sample, each looking
 * the process up, checking access and pinning pages, were a third of the sampler's time). A line
 * that can no longer be read is dropped; those after it are read when used. */
static void refetch_used(target_t *t, struct read_cache *c)
{
    struct iovec local[NLINES], remote[NLINES];
    uint16_t slots[NLINES];
    size_t n = 0;
    for (size_t i = 0; i < c->nused; i++) {
        uint16_t slot = c->used[i];
        c->is_used[slot] = 0;
        if (!c->tag[slot] || c->read_ns[slot] >= c->fresh_after) continue;
        local[n] = (struct iovec){c->data[slot], LINE};
        remote[n] = (struct iovec){(void *)(uintptr_t)(c->tag[slot] - 1), LINE};
        slots[n++] = slot;
    }
    c->nused = 0;
    if (n == 0 || c->gone) return;
    if (t->frozen_pid && copy_mem_open(t)) { /* a copy: through mem (copy_read), a line at a time */
        uint64_t at = monotonic_now();
        for (size_t i = 0; i < n; i++) {
            if (copy_read(t, (uint64_t)(uintptr_t)remote[i].iov_base, local[i].iov_base, LINE) == 0)
                c->read_ns[slots[i]] = at;
            else c->tag[slots[i]] = 0;
        }
        return;
    }
    uint64_t when = monotonic_now();
    ssize_t got = process_vm_readv(mem_pid(t), local, n, remote, n, 0);
    if (got < 0 && errno == ESRCH && !t->frozen_pid) { /* exited: the lines stay as last read (remote_read) */
        c->gone = 1;
        return;
    }
    size_t whole = got > 0 ? (size_t)got / LINE : 0;
    for (size_t i = 0; i < n && i <= whole; i++) {
        if (i < whole) c->read_ns[slots[i]] = when;
        else c->tag[slots[i]] = 0; /* read in part, or not at all: its bytes are not the line's */
    }
}

int target_memory_gone(const target_t *t) { return t->cache && t->cache->gone; }

void target_fresh_after(target_t *t, uint64_t monotonic_ns)
{
    if (!t->cache) t->cache = xcalloc(1, sizeof *t->cache);
    struct read_cache *c = t->cache;
    c->sampled = 1;
    if (monotonic_ns <= c->fresh_after) return;
    c->fresh_after = monotonic_ns;
    if (c->nused) refetch_used(t, c);
}

void target_live_cache_invalidate(target_t *t) { cache_invalidate(t); }

/* From now on (a stop, a resume): no read ahead, the process may be about to stop. */
static void cache_invalidate(target_t *t)
{
    if (!t->cache) return;
    t->cache->fresh_after = monotonic_now();
    for (size_t i = 0; i < t->cache->nused; i++) t->cache->is_used[t->cache->used[i]] = 0;
    t->cache->nused = 0;
}

/* A sampled process that has exited has no memory left to read (process_vm_readv: ESRCH once its
 * address space is torn down), while its last samples are still to be named: those of the last
 * LIVE_READ_MS, more when the sampler lags (a cluster worker's last 5-40% under load: JIT samples
 * naming no function). From then on the read cache answers alone, with the lines as last read (a
 * moment before the exit), and the pid is never read again (it may be reused). */
/* The frozen copy is read through /proc/COPY/mem, never process_vm_readv: that one pins the pages
 * it reads, and a read-only pin of an anonymous page shared by two processes makes the kernel give
 * the reader's side a copy of its own first (Linux 5.19's unsharing on pin), so reading a 1 GB
 * heap from the copy duplicated it page by page (~265,000 page copies and +1 GB of host memory a
 * census; the walk's system time 0.67 s against 0.31 s through mem). Reads of mem take no pin.
 * The fd is the copy's while it is the one read; closed when the copy changes or goes. */
static void copy_mem_close(target_t *t)
{
    if (t->copy_mem_fd > 0) close(t->copy_mem_fd - 1);
    t->copy_mem_fd = 0, t->copy_mem_pid = 0;
}

/* 1 when the copy is read through mem; 0 when mem cannot be opened: another user's process read
 * with CAP_SYS_PTRACE alone (mem is 0600, its owner's; process_vm_readv asks only for the
 * capability), where the pages read are still duplicated. */
static int copy_mem_open(target_t *t)
{
    if (t->copy_mem_pid == t->frozen_pid) return t->copy_mem_fd > 0;
    copy_mem_close(t);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/mem", t->frozen_pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    t->copy_mem_fd = fd >= 0 ? fd + 1 : -1, t->copy_mem_pid = t->frozen_pid;
    return fd >= 0;
}

static int copy_read(target_t *t, uint64_t addr, void *dst, size_t n)
{
    for (uint8_t *out = dst; n > 0;) {
        ssize_t got = pread(t->copy_mem_fd - 1, out, n, (off_t)addr);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        out += got, addr += (uint64_t)got, n -= (size_t)got;
    }
    return 0;
}

static int remote_read(target_t *t, uint64_t addr, void *dst, size_t n)
{
    if (t->cache && t->cache->gone) return -1;
    if (t->frozen_pid && copy_mem_open(t)) return copy_read(t, addr, dst, n);
    if (!t->frozen_pid && t->copy_mem_fd) copy_mem_close(t); /* thawed: the copy is gone */
    struct iovec local = {dst, n}, remote = {(void *)(uintptr_t)addr, n};
    ssize_t got = process_vm_readv(mem_pid(t), &local, 1, &remote, 1, 0);
    if (got < 0 && errno == ESRCH && t->cache && t->cache->sampled && !t->frozen_pid) t->cache->gone = 1;
    return got == (ssize_t)n ? 0 : -1;
}

/* Reads through the cache, a line at a time; a line that cannot be read whole (the end of a
 * mapping) is read directly instead. Once the process is gone, a line read before is served
 * however old (the sample's checks, as for a sample read late, judge what it names). */
static int cached_read(target_t *t, uint64_t addr, void *dst, size_t n)
{
    if (!t->cache) t->cache = xcalloc(1, sizeof *t->cache);
    struct read_cache *c = t->cache;
    uint8_t *out = dst;
    while (n > 0) {
        uint64_t line = addr & ~(LINE - 1), off = addr - line;
        size_t k = (size_t)(LINE - off) < n ? (size_t)(LINE - off) : n;
        size_t slot = (size_t)((line >> LINE_BITS) % NLINES);
        if (c->gone && c->tag[slot] == line + 1) {
            if (!c->is_used[slot]) c->is_used[slot] = 1, c->used[c->nused++] = (uint16_t)slot;
            memcpy(out, c->data[slot] + off, k);
            addr += k, out += k, n -= k;
            continue;
        }
        if (c->tag[slot] != line + 1 || c->read_ns[slot] < c->fresh_after) {
            uint64_t when = monotonic_now();
            if (remote_read(t, line, c->data[slot], LINE) != 0) {
                if (c->gone) { /* exited: the line as last read, if it was */
                    if (c->tag[slot] != line + 1) return -1;
                    continue;
                }
                c->tag[slot] = 0;
                if (remote_read(t, addr, out, k) != 0) return -1;
                addr += k, out += k, n -= k;
                continue;
            }
            c->tag[slot] = line + 1, c->read_ns[slot] = when;
        }
        if (!c->is_used[slot]) c->is_used[slot] = 1, c->used[c->nused++] = (uint16_t)slot;
        memcpy(out, c->data[slot] + off, k);
        addr += k, out += k, n -= k;
    }
    return 0;
}

static int live_read(target_t *t, uint64_t addr, void *dst, size_t n)
{
    if (t->track_frozen) { /* the tracked copy's image; what it does not hold does not change */
        int r = target_track_read(t, addr, dst, n);
        if (r <= 0) return r;
    }
    size_t avail;
    const uint8_t *c;
    if ((t->lent.len || t->nstacks) && (c = copied(t, addr, &avail)) != NULL) {
        size_t k = avail < n ? avail : n;
        memcpy(dst, c, k);
        return k == n ? 0 : live_read(t, addr + k, (uint8_t *)dst + k, n - k);
    }
    /* big reads (a stack copy, a source string) go straight through */
    return n > LINE && !(t->cache && t->cache->gone) ? remote_read(t, addr, dst, n) : cached_read(t, addr, dst, n);
}

static void live_close(target_t *t)
{
    target_track_free(t);
    copy_mem_close(t);
    for (size_t i = 0; i < t->ngone; i++) free(t->gone_paths[i]);
    free(t->gone_paths);
    free(t->cache);
    t->cache = NULL;
    target_resume(t);
    target_thaw(t);
    free_stacks(t);
    free_threads(t);
}
