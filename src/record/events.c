/* The perf events the live sampler opens, and -e EVENT (events.h). */
#include "arch/arch.h"
#include "record/events.h"
#include "record/perf_ring.h"
#include "util/diag.h"
#include "util/procfs.h"
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Time a thread spends in the kernel on its behalf (a writev's whole loopback TCP send, a page
 * fault) is its time too, and V8's --cpu-prof counts it under the JS that made the call: samples
 * taken in the kernel are kept (the user registers and stack are those at the kernel entry).
 * Without the privilege for that (perf_event_paranoid 2 and no CAP_PERFMON), user time only. */
int events_with_kernel = 1;

static int perf_open(struct perf_event_attr *a, int tid)
{
    return (int)syscall(SYS_perf_event_open, a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static void sampled_attr(struct perf_event_attr *a, uint32_t copy, int woken, uint32_t wake_bytes)
{
    a->size = sizeof *a;
    a->sample_regs_user = arch_host()->perf_mask; /* the host's: a live process */
    a->sample_stack_user = copy;
    a->exclude_hv = 1;
    a->use_clockid = 1;
    a->clockid = CLOCK_MONOTONIC;
    /* Woken per sample only where names need it (live_sampler.c, woken_per_sample): the kernel
       wakes a poller from the sampled thread's CPU, an interrupt to nodescope's CPU each time, and
       in this VM that cost the target ~40 us a sample (bench/live_overhead_paired.mjs at 999 Hz:
       10.7% slower woken per sample, 6.4% read every 5 ms, perf record -g 6.0%). Otherwise the
       rings are read every LIVE_READ_MS (the session's loop), and a wake-up at half a ring only
       so that none fills. */
    if (woken) a->wakeup_events = 1;
    else a->watermark = 1, a->wakeup_watermark = wake_bytes;
}

int events_open_cpu(int tid, double hz, int woken, uint32_t copy, uint32_t wake_bytes)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_CPU_CLOCK;
    a.freq = 1;
    a.sample_freq = (uint64_t)(hz + 0.5);
    a.sample_type = EVENTS_CPU_SAMPLE_TYPE;
    sampled_attr(&a, copy, woken, wake_bytes);
    a.exclude_kernel = !events_with_kernel;
    int fd = perf_open(&a, tid);
    if (fd < 0 && events_with_kernel && (errno == EACCES || errno == EPERM)) {
        events_with_kernel = 0;
        return events_open_cpu(tid, hz, woken, copy, wake_bytes);
    }
    return fd;
}

/* --wall: a sample (user registers and stack) each time the thread leaves the CPU, and a
 * PERF_RECORD_SWITCH record each time it leaves or comes back, with times. The kernel takes the
 * sample in its scheduler, which is kernel context: it needs exclude_kernel off. Read with the
 * thread's CPU ring (and at each poll's timeout), not polled. */
int events_open_switch(int tid, uint32_t copy, uint32_t wake_bytes)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_CONTEXT_SWITCHES;
    a.sample_period = 1;
    a.sample_type = EVENTS_CPU_SAMPLE_TYPE;
    sampled_attr(&a, copy, 0, wake_bytes);
    a.context_switch = 1;
    a.sample_id_all = 1;
    return perf_open(&a, tid);
}

int events_uprobe_type(void) { return proc_read_int("/sys/bus/event_source/devices/uprobe/type"); }

/* A uprobe (ret: at the function's return) on the code at offset of path, for thread tid. With
 * sample_type NULL its samples carry the time only (gc_watch's). */
static void uprobe_attr(struct perf_event_attr *a, int type, const char *path, uint64_t offset, int ret,
                        const uint64_t *sample_type)
{
    memset(a, 0, sizeof *a);
    a->size = sizeof *a;
    a->type = (uint32_t)type;
    a->config = ret ? 1 : 0; /* the uprobe PMU's "retprobe" bit (config:0) */
    a->config1 = (uint64_t)(uintptr_t)path;
    a->config2 = offset;
    a->sample_period = 1;
    a->sample_type = sample_type ? *sample_type : PERF_SAMPLE_TIME;
    a->use_clockid = 1;
    a->clockid = CLOCK_MONOTONIC;
}

int events_open_uprobe(int type, const char *path, uint64_t offset, int ret, int tid, const uint64_t *sample_type)
{
    struct perf_event_attr a;
    uprobe_attr(&a, type, path, offset, ret, sample_type);
    return perf_open(&a, tid);
}

/* ---- -e EVENT ---- */

static const struct {
    const char *name;
    uint64_t config;
} software[] = {
    {"page-faults", PERF_COUNT_SW_PAGE_FAULTS},           {"faults", PERF_COUNT_SW_PAGE_FAULTS},
    {"major-faults", PERF_COUNT_SW_PAGE_FAULTS_MAJ},      {"minor-faults", PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"context-switches", PERF_COUNT_SW_CONTEXT_SWITCHES}, {"cs", PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_COUNT_SW_CPU_MIGRATIONS},     {"migrations", PERF_COUNT_SW_CPU_MIGRATIONS},
};

static int ident_ok(const char *s, int allow_dot)
{
    if (!*s) return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
              (allow_dot && (*s == '.' || *s == '-' || *s == '+'))))
            return 0;
    return 1;
}

static int parse_one(record_events_t *e, char *tok, char *err, size_t cap)
{
    if (e->n == EVENTS_MAX) return snprintf(err, cap, "at most %d events", EVENTS_MAX), -1;
    record_event_t *ev = &e->ev[e->n];
    memset(ev, 0, sizeof *ev);
    ev->every = 1;
    ev->fd_off = ev->count_off = ev->nr_off = -1;
    char *slash = strrchr(tok, '/');
    if (slash && slash[1] && strspn(slash + 1, "0123456789") == strlen(slash + 1)) {
        unsigned long long n = strtoull(slash + 1, NULL, 10);
        if (n == 0 || n > 1000000000ull) return snprintf(err, cap, "'%s': every Nth needs N from 1 to 1e9", tok), -1;
        ev->every = n;
        *slash = 0;
    }
    if (strlen(tok) >= sizeof ev->name) return snprintf(err, cap, "'%.60s...': too long", tok), -1;
    snprintf(ev->name, sizeof ev->name, "%s", tok);
    if (!strncmp(tok, "syscall:", 8) || !strncmp(tok, "syscalls:", 9)) {
        const char *s = strchr(tok, ':') + 1;
        if (!strncmp(s, "sys_enter_", 10)) s += 10;
        if (!strcmp(s, "*")) {
            ev->kind = EVK_SYSCALL_ALL;
            snprintf(ev->name, sizeof ev->name, "syscall:*");
        } else {
            if (!ident_ok(s, 0) || strlen(s) >= sizeof ev->sys)
                return snprintf(err, cap, "'%s': a syscall's name (syscall:write, syscall:openat) or syscall:*", tok),
                       -1;
            ev->kind = EVK_SYSCALL;
            snprintf(ev->sys, sizeof ev->sys, "%s", s);
            snprintf(ev->name, sizeof ev->name, "syscall:%s", s);
        }
    } else if (!strcmp(tok, "gc")) {
        ev->kind = EVK_GC;
    } else if (!strncmp(tok, "u:", 2)) {
        char *lib = tok + 2, *func = strchr(lib, ':');
        if (!func)
            return snprintf(err, cap, "'%s': a uprobe is u:LIB:FUNC (u:node:uv_fs_open, u:libc:malloc)", tok), -1;
        *func++ = 0;
        if (!ident_ok(lib, 1) || !ident_ok(func, 1) || strlen(lib) >= sizeof ev->lib || strlen(func) >= sizeof ev->func)
            return snprintf(err, cap, "'u:%s:%s': a uprobe is u:LIB:FUNC (u:node:uv_fs_open, u:libc:malloc)", lib,
                            func),
                   -1;
        ev->kind = EVK_UPROBE;
        snprintf(ev->lib, sizeof ev->lib, "%s", lib);
        snprintf(ev->func, sizeof ev->func, "%s", func);
    } else {
        size_t i;
        for (i = 0; i < sizeof software / sizeof *software && strcmp(tok, software[i].name); i++) {}
        if (i == sizeof software / sizeof *software)
            return snprintf(err, cap,
                            "unknown event '%s' (syscall:NAME, syscall:*, page-faults, major-faults, "
                            "context-switches, cpu-migrations, gc, u:LIB:FUNC)",
                            tok),
                   -1;
        ev->kind = EVK_SOFTWARE;
        ev->sw_config = software[i].config;
    }
    for (int i = 0; i < e->n; i++)
        if (!strcmp(e->ev[i].name, ev->name)) return snprintf(err, cap, "'%s' is given twice", ev->name), -1;
    e->n++;
    return 0;
}

int events_parse(record_events_t *e, const char *spec, char *err, size_t cap)
{
    char *copy = strdup(spec), *save = NULL;
    if (!copy) abort();
    int rc = 0, any = 0;
    for (char *tok = strtok_r(copy, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save), any = 1)
        rc = parse_one(e, tok, err, cap);
    if (rc == 0 && !any) rc = -1, snprintf(err, cap, "-e needs an event ('%s')", spec);
    free(copy);
    return rc;
}

void events_unit(const record_events_t *e, char *out, size_t cap)
{
    size_t k = 0;
    out[0] = 0;
    if (e->n == 1 && e->ev[0].kind == EVK_GC) {
        snprintf(out, cap, "ns");
        return;
    }
    if (e->weight_bytes) {
        snprintf(out, cap, "bytes");
        return;
    }
    for (int i = 0; i < e->n && k < cap; i++)
        k += (size_t)snprintf(out + k, cap - k, "%s%s", i ? "," : "", e->ev[i].name);
}

/* ---- tracefs ---- */

static const char *const tracefs_dirs[] = {"/sys/kernel/tracing", "/sys/kernel/debug/tracing"};

/* rel under tracefs into buf: its length, or -1 with errno (ENOENT: no such event; ENODEV: no
 * tracefs mounted and none could be mounted privately). */
static ssize_t read_fd_all(int fd, char *buf, size_t cap)
{
    size_t n = 0;
    ssize_t r;
    while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0) n += (size_t)r;
    buf[n] = 0;
    return (ssize_t)n;
}

/* No tracefs mounted: a child process mounts one in a mount namespace of its own (root only),
 * reads the file and exits: nothing stays mounted. */
static ssize_t tracefs_read_private(const char *rel, char *buf, size_t cap)
{
    int p[2];
    if (pipe(p) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        char path[512];
        snprintf(path, sizeof path, "%s/%s", tracefs_dirs[0], rel);
        int err = 0, fd = -1;
        if (unshare(CLONE_NEWNS) != 0 || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
            mount("nodev", tracefs_dirs[0], "tracefs", 0, NULL) != 0)
            err = ENODEV;
        else if ((fd = open(path, O_RDONLY)) < 0) err = errno;
        if (write(p[1], &err, sizeof err) != (ssize_t)sizeof err) _exit(1);
        char tmp[8192];
        ssize_t n = fd >= 0 ? read_fd_all(fd, tmp, sizeof tmp) : 0;
        if (n > 0 && write(p[1], tmp, (size_t)n) != n) _exit(1);
        _exit(0);
    }
    close(p[1]);
    int err = ENODEV;
    ssize_t n = -1;
    if (pid > 0 && read(p[0], &err, sizeof err) == (ssize_t)sizeof err && err == 0) n = read_fd_all(p[0], buf, cap);
    close(p[0]);
    if (pid > 0) waitpid(pid, NULL, 0);
    if (n < 0) errno = err ? err : ENODEV;
    return n;
}

static ssize_t tracefs_read(const char *rel, char *buf, size_t cap)
{
    char path[512];
    int mounted = 0, err = ENOENT;
    for (size_t i = 0; i < sizeof tracefs_dirs / sizeof *tracefs_dirs; i++) {
        snprintf(path, sizeof path, "%s/events", tracefs_dirs[i]);
        if (access(path, F_OK) != 0 && errno != EACCES) continue;
        mounted = 1;
        snprintf(path, sizeof path, "%s/%s", tracefs_dirs[i], rel);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            err = errno;
            continue;
        }
        ssize_t n = read_fd_all(fd, buf, cap);
        close(fd);
        return n;
    }
    if (!mounted) return tracefs_read_private(rel, buf, cap);
    errno = err;
    return -1;
}

/* A field's offset in a tracepoint's format ("field:unsigned int fd;\toffset:16;\tsize:8;"), -1 if none. */
static int field_offset(const char *format, const char *field)
{
    for (const char *l = format; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
        const char *f = strstr(l, "field:"), *semi = f ? strchr(f, ';') : NULL, *nl = strchr(l, '\n');
        if (!f || !semi || (nl && semi > nl)) continue;
        const char *name_end = semi;
        if (name_end > f && name_end[-1] == ']')
            while (name_end > f && *name_end != '[') name_end--;
        const char *name = name_end;
        while (name > f &&
               (name[-1] == '_' || (name[-1] >= 'a' && name[-1] <= 'z') || (name[-1] >= '0' && name[-1] <= '9')))
            name--;
        if ((size_t)(name_end - name) != strlen(field) || strncmp(name, field, strlen(field))) continue;
        const char *o = strstr(semi, "offset:");
        if (o && (!nl || o < nl)) return atoi(o + 7);
    }
    return -1;
}

static int tracefs_hint_done;
static void tracefs_hint(int err)
{
    if (tracefs_hint_done++) return;
    if (err == ENODEV)
        diag_hint("no tracefs is mounted and none could be mounted privately (that needs root): "
                  "'mount -t tracefs nodev /sys/kernel/tracing' as root");
    else if (err == EACCES || err == EPERM)
        diag_hint("tracefs (/sys/kernel/tracing) is readable by root only: run as root, or mount it with "
                  "gid=GROUP,mode=750 for a group of yours; the tracepoints also need CAP_PERFMON");
}

static int prepare_tracepoint(record_event_t *ev)
{
    char rel[160], buf[8192];
    const char *tp = ev->kind == EVK_SYSCALL_ALL ? "raw_syscalls/sys_enter" : NULL;
    char tpbuf[96];
    if (!tp) snprintf(tpbuf, sizeof tpbuf, "syscalls/sys_enter_%s", ev->sys), tp = tpbuf;
    snprintf(rel, sizeof rel, "events/%s/id", tp);
    if (tracefs_read(rel, buf, sizeof buf) <= 0) {
        int err = errno;
        if (err == ENOENT)
            diag_error(NULL, 0, "-e %s: no tracepoint %s in this kernel%s", ev->name, tp,
                       ev->kind == EVK_SYSCALL ? " (no such syscall, or CONFIG_FTRACE_SYSCALLS off)" : "");
        else
            diag_error(NULL, 0, "-e %s: cannot read tracepoint %s's id from tracefs: %s", ev->name, tp,
                       err == ENODEV ? "tracefs is not mounted" : strerror(err));
        tracefs_hint(err);
        return -1;
    }
    ev->tp_id = atoi(buf);
    snprintf(rel, sizeof rel, "events/%s/format", tp);
    if (tracefs_read(rel, buf, sizeof buf) > 0) {
        if (ev->kind == EVK_SYSCALL_ALL) ev->nr_off = field_offset(buf, "id");
        else ev->fd_off = field_offset(buf, "fd"), ev->count_off = field_offset(buf, "count");
    }
    if (ev->kind == EVK_SYSCALL_ALL && ev->nr_off < 0) ev->nr_off = 8; /* long id, after the common fields */
    return 0;
}

int events_prepare(record_events_t *e)
{
    for (int i = 0; i < e->n; i++) {
        record_event_t *ev = &e->ev[i];
        if ((ev->kind == EVK_SYSCALL || ev->kind == EVK_SYSCALL_ALL) && prepare_tracepoint(ev) != 0) return -1;
        if (e->weight_bytes && ev->count_off < 0) {
            diag_error(NULL, 0,
                       "--weight bytes: -e %s has no byte count (syscall:write, syscall:read, "
                       "syscall:pwrite64, ... have)",
                       ev->name);
            return -1;
        }
        if ((ev->kind == EVK_GC || ev->kind == EVK_UPROBE) && events_uprobe_type() < 0) {
            diag_error(NULL, 0,
                       "-e %s: this kernel has no uprobes (/sys/bus/event_source/devices/uprobe: "
                       "CONFIG_UPROBE_EVENTS off)",
                       ev->name);
            return -1;
        }
    }
    return 0;
}

/* ---- uprobes ---- */

/* Heap::PerformGarbageCollection(GarbageCollector, GarbageCollectionReason, const char*) (Node 20+):
 * every GC, its collector the first argument, its time nearly all of the pause --trace-gc prints
 * (Scavenge() alone was 65-77% of it). Without it (Node 18: another signature, and a clone of it
 * the compiler made) the collectors' own functions, each its own kind. */
#define PERFORM_GC                                                                                                     \
    "_ZN2v88internal4Heap24PerformGarbageCollectionENS0_16GarbageCollectorENS0_23GarbageCollectionReasonEPKc"
/* Heap::CollectGarbage(AllocationSpace, GarbageCollectionReason, GCCallbackFlags), where the
 * tracer's functions below are not symbols: the pause taken from its entry (before
 * PerformGarbageCollection: the wait for V8's background sweeping, without which it was 66% of
 * --trace-gc's on Node 22 on a loaded machine) to PerformGarbageCollection's return
 * (CollectGarbage's return came after the epilogue callbacks and --trace-gc's own printing:
 * 1.5-2.3 times the pause on Node 20 and 24) */
#define COLLECT_GARBAGE                                                                                                \
    "_ZN2v88internal4Heap14CollectGarbageENS0_15AllocationSpaceENS0_23GarbageCollectionReasonENS_15GCCallbackFlagsE"
/* The pause is what --trace-gc prints: V8 times it from GCTracer::StartObservablePause to
 * StopObservablePause (both called from CollectGarbage alone), probed whatever the samples' probes
 * are: at their returns on V8 10 and 11, which read the time inside them, at their entries on V8
 * 12+, which read it just before the call. A uprobe's trap is where the kernel may preempt a
 * thread on a loaded machine: a trap between V8's time and the probe's puts milliseconds in one
 * pause and not in the other (Node 20, one GC in a few hundred: 9 ms for V8, 0.05 ms probed at the
 * entries). On Node 18 (no PerformGarbageCollection of that signature) the samples are taken at
 * Scavenge's and MarkCompact's entries, whose returns came 65-77% of the way through the pause
 * (the prologue, the epilogue's callbacks and the young generation's sweeping are in it too). On
 * Node 20-24, CollectGarbage's entry to PerformGarbageCollection's return was within 5% of the
 * sum, but one GC in a hundred or two was milliseconds off either way (Node 24: an 11 ms epilogue
 * after PerformGarbageCollection's return was not in it). */
static const char *const start_pause[2] = {
    "_ZN2v88internal8GCTracer20StartObservablePauseEv",                   /* V8 10, 11 */
    "_ZN2v88internal8GCTracer20StartObservablePauseENS_4base9TimeTicksE", /* V8 12, 13: (TimeTicks) */
};
static const char *const stop_pause[2] = {
    "_ZN2v88internal8GCTracer19StopObservablePauseEv",
    "_ZN2v88internal8GCTracer19StopObservablePauseENS0_16GarbageCollectorENS_4base9TimeTicksE",
};

/* Where a probe of node's function sym goes (the executable's, or libnode's: target_probe_location):
 * its file as the kernel opens it (path, sizeof event_probe_t.path) and offset. 0, or -1. */
static int sym_probe(target_t *t, int pid, const char *sym, char *path, uint64_t *offset)
{
    uint64_t addr, size;
    return target_exe_symbol_addr(t, sym, &addr, &size) == 0 &&
                   target_probe_location(pid, addr, path, sizeof ((event_probe_t *)0)->path, offset) == 0
               ? 0
               : -1;
}

/* The first of the two syms the target's node has: which one, or -1; its file and offset. */
static int exe_offset(target_t *t, int pid, const char *const syms[2], char *path, uint64_t *offset)
{
    for (int i = 0; i < 2; i++)
        if (sym_probe(t, pid, syms[i], path, offset) == 0) return i;
    return -1;
}

static const struct {
    const char *sym;
    int kind;
} gc_syms[] = {
    {"_ZN2v88internal4Heap8ScavengeEv", 0},        /* v8::internal::Heap::Scavenge() */
    {"_ZN2v88internal4Heap14MinorMarkSweepEv", 1}, /* Heap::MinorMarkSweep() (V8 11.x+) */
    {"_ZN2v88internal4Heap11MarkCompactEv", 2},    /* Heap::MarkCompact() */
};

static int add_probe(event_probes_t *out, int ev, int ret, int gc_kind, const char *path, uint64_t offset)
{
    if (out->n == EVENT_PROBES_MAX) return -1;
    event_probe_t *p = &out->probe[out->n++];
    p->ev = ev, p->ret = ret, p->gc_kind = gc_kind, p->offset = offset, p->time_only = ret;
    snprintf(p->path, sizeof p->path, "%s", path);
    return 0;
}

int events_resolve(const record_events_t *e, target_t *t, int pid, event_probes_t *out)
{
    out->n = 0;
    char file[sizeof out->probe[0].path], start_file[sizeof file], stop_file[sizeof file], cg_file[sizeof file];
    for (int i = 0; i < e->n; i++) {
        const record_event_t *ev = &e->ev[i];
        uint64_t addr, offset;
        const char *module;
        if (ev->kind == EVK_GC) {
            int found = 0;
            uint64_t start_at, stop_at;
            int at = exe_offset(t, pid, start_pause, start_file, &start_at);
            int tracer = at >= 0 && exe_offset(t, pid, stop_pause, stop_file, &stop_at) >= 0;
            /* V8 10, 11 read the time inside them: their returns (V8 12+ read it before the calls) */
            int at_return = tracer && at == 0;
            if (sym_probe(t, pid, PERFORM_GC, file, &offset) == 0) {
                add_probe(out, i, 0, EVENT_GC_BY_ARG, file, offset);
                found++;
                if (!tracer) {
                    add_probe(out, i, 1, EVENT_GC_BY_ARG, file, offset);
                    uint64_t cg;
                    if (sym_probe(t, pid, COLLECT_GARBAGE, cg_file, &cg) == 0) {
                        add_probe(out, i, 0, EVENT_GC_BY_ARG, cg_file, cg); /* the pause's start: its time */
                        out->probe[out->n - 1].time_only = 1;
                        /* and its return: a CollectGarbage that ran no GC starts no pause */
                        add_probe(out, i, 1, EVENT_GC_COLLECT_END, cg_file, cg);
                    }
                }
            } else {
                for (size_t g = 0; g < sizeof gc_syms / sizeof *gc_syms; g++) {
                    if (sym_probe(t, pid, gc_syms[g].sym, file, &offset) != 0) continue;
                    add_probe(out, i, 0, gc_syms[g].kind, file, offset);
                    if (!tracer) add_probe(out, i, 1, gc_syms[g].kind, file, offset);
                    found++;
                }
            }
            if (found && tracer) {
                add_probe(out, i, at_return, EVENT_GC_PAUSE_START, start_file, start_at); /* the pause's start: its time */
                out->probe[out->n - 1].time_only = 1;
                add_probe(out, i, at_return, EVENT_GC_PAUSE_END, stop_file, stop_at); /* its end */
                out->probe[out->n - 1].time_only = 1;
            }
            if (!found) {
                diag_error(target_name(t), 0,
                           "-e gc: V8's Heap::Scavenge and Heap::MarkCompact are not among the "
                           "symbols of %s (a stripped node?)",
                           target_v8_object(t)->path ? target_v8_object(t)->path : "the node binary");
                return -1;
            }
        } else if (ev->kind == EVK_UPROBE) {
            const char *path = NULL;
            if (target_module_symbol_addr(t, ev->lib, ev->func, &addr, &path) != 0 ||
                target_file_location(t, addr, &module, &offset) != 0) {
                diag_error(target_name(t), 0, "-e %s: no function %s in %s%s", ev->name, ev->func,
                           !strcmp(ev->lib, "node") ? "node's executable or library" : "a library the process maps named ",
                           !strcmp(ev->lib, "node") ? "" : ev->lib);
                return -1;
            }
            if (target_probe_location(pid, addr, file, sizeof file, &offset) != 0) {
                diag_error(target_name(t), 0, "-e %s: the file of %s cannot be probed (its path is too long, or the process is gone)",
                           ev->name, ev->func);
                return -1;
            }
            if (add_probe(out, i, 0, -1, file, offset) != 0) {
                diag_error(NULL, 0, "-e: too many probes");
                return -1;
            }
        }
    }
    return 0;
}

/* ---- a thread's set ---- */

static int open_one(const record_event_t *ev, const event_probe_t *pr, int tid, uint32_t copy, int woken,
                    uint32_t wake_bytes)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    if (pr && pr->time_only) { /* a GC's start or end: its time */
        uint64_t st = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME;
        uprobe_attr(&a, events_uprobe_type(), pr->path, pr->offset, pr->ret, &st);
        a.disabled = 1;
        return perf_open(&a, tid);
    }
    a.sample_type = EVENTS_SAMPLE_TYPE & ~(uint64_t)PERF_SAMPLE_RAW;
    a.sample_period = ev->every;
    switch (ev->kind) {
    case EVK_SYSCALL:
    case EVK_SYSCALL_ALL:
        a.type = PERF_TYPE_TRACEPOINT;
        a.config = (uint64_t)ev->tp_id;
        a.sample_type = EVENTS_SAMPLE_TYPE;
        break;
    case EVK_SOFTWARE:
        a.type = PERF_TYPE_SOFTWARE;
        a.config = ev->sw_config;
        break;
    case EVK_GC:
    case EVK_UPROBE:
        a.type = (uint32_t)events_uprobe_type();
        a.config1 = (uint64_t)(uintptr_t)pr->path;
        a.config2 = pr->offset;
        break;
    }
    sampled_attr(&a, copy, woken, wake_bytes);
    a.disabled = 1; /* (events_enable_set) */
    /* tracepoints fire in the kernel: a sample in kernel context, with the user registers at the
       system call's entry; a page fault may be taken in the kernel (copying from user memory) */
    a.exclude_kernel = ev->kind == EVK_SOFTWARE && !events_with_kernel;
    int fd = perf_open(&a, tid);
    if (fd < 0 && ev->kind == EVK_SOFTWARE && !a.exclude_kernel && (errno == EACCES || errno == EPERM)) {
        a.exclude_kernel = 1;
        fd = perf_open(&a, tid);
    }
    return fd;
}

int events_enable_set(const event_set_t *s)
{
    for (int i = 0; i < s->n; i++)
        if (ioctl(s->fd[i], PERF_EVENT_IOC_ENABLE, 0) != 0) return -1;
    return 0;
}

void events_close_set(event_set_t *s)
{
    for (int i = 0; i < s->n; i++) close(s->fd[i]);
    s->n = 0;
}

int events_open_set(const record_events_t *e, const event_probes_t *pr, int tid, uint32_t copy, int woken,
                    uint32_t wake_bytes, int js_thread, event_set_t *out)
{
    out->n = 0;
    out->failed_ev = 0;
    for (int i = 0; i < e->n; i++) {
        const record_event_t *ev = &e->ev[i];
        int nprobe = 0;
        for (int k = 0; k < (pr ? pr->n : 0); k++) {
            if (pr->probe[k].ev != i) continue;
            nprobe++;
            if (ev->kind == EVK_GC && !js_thread) continue;
            int fd = open_one(ev, &pr->probe[k], tid, copy, woken, wake_bytes);
            if (fd < 0) {
                out->failed_ev = i;
                goto fail;
            }
            out->ret[out->n] = pr->probe[k].time_only;
            out->type[out->n] = pr->probe[k].time_only ? PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME
                                                       : EVENTS_SAMPLE_TYPE & ~(uint64_t)PERF_SAMPLE_RAW;
            out->fd[out->n] = fd, out->ev[out->n] = i, out->probe[out->n] = k, out->n++;
        }
        if (nprobe || ev->kind == EVK_GC || ev->kind == EVK_UPROBE) continue;
        int fd = open_one(ev, NULL, tid, copy, woken, wake_bytes);
        if (fd < 0) {
            out->failed_ev = i;
            goto fail;
        }
        out->ret[out->n] = 0;
        out->type[out->n] = ev->kind == EVK_SYSCALL || ev->kind == EVK_SYSCALL_ALL
                                ? EVENTS_SAMPLE_TYPE
                                : EVENTS_SAMPLE_TYPE & ~(uint64_t)PERF_SAMPLE_RAW;
        out->fd[out->n] = fd, out->ev[out->n] = i, out->probe[out->n] = -1, out->n++;
    }
    for (int i = 0; i < out->n; i++)
        if (ioctl(out->fd[i], PERF_EVENT_IOC_ID, &out->id[i]) != 0) goto fail;
    return 0;
fail:;
    int err = errno;
    events_close_set(out);
    errno = err;
    return -1;
}

/* ---- samples ---- */

int events_parse_sample(const uint8_t *q, const uint8_t *end, uint64_t type, event_sample_t *s)
{
#define TAKE(dst, n)                                                                                                   \
    do {                                                                                                               \
        if ((size_t)(end - q) < (n)) return -1;                                                                        \
        memcpy((dst), q, (n));                                                                                         \
        q += (n);                                                                                                      \
    } while (0)
    uint64_t tidpid = 0, abi, size, dyn = 0;
    memset(s, 0, offsetof(event_sample_t, regs));
    s->has_regs = 0, s->stack = NULL, s->stack_len = 0;
    s->period = 1;
    if (type & PERF_SAMPLE_IDENTIFIER) TAKE(&s->id, 8);
    if (type & PERF_SAMPLE_TID) {
        TAKE(&tidpid, 8);
        s->pid = (uint32_t)tidpid, s->tid = (uint32_t)(tidpid >> 32);
    }
    if (type & PERF_SAMPLE_TIME) TAKE(&s->time, 8);
    if (type & PERF_SAMPLE_PERIOD) TAKE(&s->period, 8);
    if (type & PERF_SAMPLE_RAW) {
        uint32_t n;
        TAKE(&n, 4);
        if ((size_t)(end - q) < n) return -1;
        s->raw = q, s->raw_len = n;
        q += n;
    }
    if (!(type & PERF_SAMPLE_REGS_USER)) return 0;
    TAKE(&abi, 8);
    if (abi == PERF_SAMPLE_REGS_ABI_NONE) return 0; /* a kernel thread's: no user context */
    memset(s->regs, 0, sizeof s->regs);
    const arch_t *a = arch_host();
    uint64_t words[64];
    size_t nwords = (size_t)__builtin_popcountll(a->perf_mask);
    TAKE(words, nwords * 8);
    arch_regs_from_perf(a, words, s->regs);
    s->has_regs = 1;
    if (!(type & PERF_SAMPLE_STACK_USER)) return 0;
    TAKE(&size, 8);
    if (size > (uint64_t)(end - q)) return -1;
    s->stack = q;
    q += size;
    if (size && end - q >= 8) memcpy(&dyn, q, 8);
    s->stack_len = dyn > size ? size : dyn;
    return 0;
#undef TAKE
}

int events_raw_u64(const event_sample_t *s, int off, uint64_t *out)
{
    if (off < 0 || !s->raw || (uint64_t)off + 8 > s->raw_len) return -1;
    memcpy(out, s->raw + off, 8);
    return 0;
}

void events_permission_hint(const record_event_t *e, int err)
{
    if (err != EACCES && err != EPERM) {
        if (err == ENOENT || err == EOPNOTSUPP || err == EINVAL)
            diag_hint("this kernel does not support the event (%s)", strerror(err));
        return;
    }
    const char *what = !e                                                     ? "perf events"
                       : e->kind == EVK_SYSCALL || e->kind == EVK_SYSCALL_ALL ? "tracepoints"
                       : e->kind == EVK_SOFTWARE ? "software events with the kernel's samples"
                                                 : "uprobes";
    int paranoid = -9;
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    if (f) {
        if (fscanf(f, "%d", &paranoid) != 1) paranoid = -9;
        fclose(f);
    }
    if (!e || e->kind == EVK_SOFTWARE)
        diag_hint("perf_event_paranoid is %d: sampling another process's user stacks needs it at 2 or less and ptrace "
                  "permission on the process, or CAP_PERFMON; 'sysctl kernel.perf_event_paranoid=1' or run as root",
                  paranoid);
    else
        diag_hint("%s need root, or CAP_PERFMON (CAP_SYS_ADMIN before Linux 5.8)%s; perf_event_paranoid is %d", what,
                  e && e->kind != EVK_UPROBE && e->kind != EVK_GC ? " with a readable tracefs" : "", paranoid);
}
