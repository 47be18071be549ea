/* The live sampler (see live_sampler.h). Each thread has its own perf_event ring; a sample's
 * registers and stack copy are lent to the target (target_set_stack_copy) so that the frame walk
 * and v8/'s frame decoder read the stack as it was at the sample, and the heap as it is now (a few
 * ms later). The frames are those of `core stack`: v8_stack_frames + v8_frame_record. */
#include "record/live_internal.h"
#include "record/live_sampler.h"
#include "symbols/journal.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define STACK_MAX                                                                                                      \
    32768              /* the most a sample copies: threads whose calls nest that deep (tsc's
                                  checker recursing through the AST) (the kernel allows < 64 KiB) */
#define RING_PAGES 128 /* data pages per thread (a power of two): ~30 samples of 16 KiB */
#define EVENT_RING_PAGES                                                                                               \
    2048 /* -e, a thread that may run JS: ~500 samples (a burst of system calls,
                                  of GCs): 8 MiB, or RING_PAGES where the memory lock limit says no */
#define SCAN_INTERVAL_S 0.1 /* how often new threads are looked for */

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
