/* record -e: the live sampler's samples of other events than the CPU clock (live_sampler.h,
 * events.h). Each thread's events write into one ring; a sample's identifier says which event it
 * is; its period (EVENT/N, or what --max-rate made it) is its weight, or the bytes of a write with
 * --weight bytes; gc's samples wait for the GC's end, whose pause is their weight. */
#include "record/live_internal.h"
#include "symbols/journal.h"
#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#define FD_NAME_TTL_NS 1000000000ull /* a fd's path is read again after this (a fd number is reused) */
#define PACE_WINDOW_NS 200000000ull  /* --max-rate looks at each event's rate this often */
#define PERIOD_MAX 1000000000ull

static const char *const gc_labels[] = {"(gc: scavenge)", "(gc: minor mark-sweep)", "(gc: mark-compact)"};

int live_events_open(live_sampler_t *s, thread_ev_t *te, uint32_t copy, size_t pages, event_set_t *set,
                     perf_ring_t *ring)
{
    uint32_t wake = (uint32_t)(pages * (size_t)perf_ring_page_size() / 2);
    if (events_open_set(s->o.events, &s->probes, te->tid, copy, te->woken, wake, te->js, set) != 0) {
        if (!s->first_err) s->first_ev = set->failed_ev;
        return -1;
    }
    if (set->n == 0) { /* a thread without JS, and only gc asked for */
        errno = 0;
        return -1;
    }
    if (perf_ring_map(ring, set->fd[0], pages) != 0) goto fail;
    for (int k = 1; k < set->n; k++)
        if (ioctl(set->fd[k], PERF_EVENT_IOC_SET_OUTPUT, set->fd[0]) != 0) goto fail;
    for (int k = 0; k < set->n; k++) {
        uint64_t period = s->period[set->ev[k]];
        if (!set->ret[k] && period != s->o.events->ev[set->ev[k]].every)
            ioctl(set->fd[k], PERF_EVENT_IOC_PERIOD, &period);
    }
    if (events_enable_set(set) != 0) goto fail;
    return set->fd[0];
fail:;
    int err = errno;
    perf_ring_unmap(ring);
    events_close_set(set);
    errno = err;
    return -1;
}

void live_events_count(live_sampler_t *s, const event_set_t *set)
{
    for (int k = 0; k < set->n; k++) {
        uint64_t count;
        if (!set->ret[k] && read(set->fd[k], &count, sizeof count) == (ssize_t)sizeof count) s->st.events += count;
    }
}

/* What fd of the process is ("/var/log/app.log", "socket:[1234]", "pipe:[99]"), cached. */
static const char *fd_name(live_sampler_t *s, int64_t fd)
{
    if (fd < 0 || fd > 1 << 30) return NULL;
    fd_name_t *c = &s->fds[fd % FD_CACHE];
    uint64_t now = monotonic_ns();
    if (c->at_ns && c->fd == fd && now - c->at_ns < FD_NAME_TTL_NS) return c->path[0] ? c->path : NULL;
    char link[64];
    snprintf(link, sizeof link, "/proc/%d/fd/%d", s->pid, (int)fd);
    ssize_t n = readlink(link, c->path, sizeof c->path - 1);
    c->path[n > 0 ? n : 0] = 0;
    c->fd = (int)fd, c->at_ns = now;
    return c->path[0] ? c->path : NULL;
}

/* The leaf frame that says what the sample is, in buf (NULL: none, the stack says it). */
static const char *label_of(live_sampler_t *s, const record_event_t *ev, const event_sample_t *e, char *buf, size_t cap,
                            frame_kind_t *kind)
{
    uint64_t v;
    char name[64];
    *kind = FRAME_KERNEL;
    switch (ev->kind) {
    case EVK_SYSCALL:
        if (events_raw_u64(e, ev->fd_off, &v) == 0) {
            const char *path = fd_name(s, (int64_t)v);
            if (path) snprintf(buf, cap, "(%s: %s)", ev->sys, path);
            else snprintf(buf, cap, "(%s: fd %lld)", ev->sys, (long long)v);
        } else {
            snprintf(buf, cap, "(%s)", ev->sys);
        }
        return buf;
    case EVK_SYSCALL_ALL:
        if (events_raw_u64(e, ev->nr_off, &v) != 0) return "(syscall)";
        if (events_syscall_name((unsigned)v, name, sizeof name)) snprintf(buf, cap, "(%s)", name);
        else snprintf(buf, cap, "(syscall %lld)", (long long)v);
        return buf;
    default:
        if (s->o.events->n < 2) return NULL;
        snprintf(buf, cap, "(%s)", ev->name);
        *kind = FRAME_UNKNOWN;
        return buf;
    }
}

/* A GC's end (its return probe): the pause goes to the sample taken at its start. GCs of one kind
 * do not nest: a start without its end (lost in a full ring) is dropped when the next one starts,
 * and an end without its start is ignored, so that no pause spans two GCs. */
static void gc_end(live_sampler_t *s, thread_ev_t *te, int kind, uint64_t time)
{
    for (int i = te->ngc_open; i-- > 0;) {
        gc_open_t g = te->gc_open[i];
        if (kind >= 0 && g.kind != kind) continue; /* (-1: the latest GC of any kind) */
        memmove(&te->gc_open[i], &te->gc_open[i + 1], (size_t)(te->ngc_open - i - 1) * sizeof g);
        te->ngc_open--;
        double pause = time > g.start_ns ? (double)(time - g.start_ns) : 0;
        profile_add_self(s->out, g.leaf, pause);
        profile_add_sample(s->out, (double)g.start_ns / 1e3, g.leaf, pause);
        if (s->o.on_sample) s->o.on_sample(s->o.ctx, s->out, g.leaf, pause, g.start_ns);
        return;
    }
}

static void gc_start(thread_ev_t *te, uint32_t leaf, uint64_t time, int kind)
{
    int i;
    if (te->gc_begin_ns && te->gc_begin_ns <= time) time = te->gc_begin_ns; /* (CollectGarbage's entry) */
    te->gc_begin_ns = 0;
    for (i = 0; i < te->ngc_open && te->gc_open[i].kind != kind; i++) {}
    if (i == te->ngc_open && te->ngc_open == GC_NEST) i = 0; /* (a kind per slot: never full) */
    if (i == te->ngc_open) te->ngc_open++;
    te->gc_open[i] = (gc_open_t){leaf, time, kind};
}

void live_event_record(live_sampler_t *s, thread_ev_t *te, const struct perf_event_header *h, const uint8_t *q,
                       const uint8_t *end)
{
    if (h->type == PERF_RECORD_LOST) {
        uint64_t lost;
        if (end - q >= 16) memcpy(&lost, q + 8, 8), s->st.lost += lost;
        te->ngc_open = 0; /* which GC a pause ends is not known */
        return;
    }
    if (h->type == PERF_RECORD_THROTTLE) {
        s->st.throttled++;
        return;
    }
    uint64_t id;
    if (h->type != PERF_RECORD_SAMPLE || end - q < 8) return;
    memcpy(&id, q, 8);
    int k;
    for (k = 0; k < te->set.n && te->set.id[k] != id; k++) {}
    if (k == te->set.n) return;
    const record_events_t *evs = s->o.events;
    const record_event_t *ev = &evs->ev[te->set.ev[k]];
    event_sample_t e;
    if (events_parse_sample(q, end, te->set.type[k], &e) != 0) return;
    if (e.time < te->dup_before_ns) { /* (set_copy read the old events' ring first) */
        if (!(te->set.ret[k])) s->st.duplicates++;
        return;
    }
    const event_probe_t *probe = te->set.probe[k] >= 0 ? &s->probes.probe[te->set.probe[k]] : NULL;
    if (probe && probe->gc_kind == EVENT_GC_PAUSE_END) { /* StopObservablePause: the open GC ends */
        te->gc_begin_ns = 0;
        gc_end(s, te, -1, e.time);
        return;
    }
    if (probe && probe->gc_kind == EVENT_GC_PAUSE_START) { /* StartObservablePause */
        te->gc_begin_ns = e.time;
        return;
    }
    if (probe && probe->ret) {
        if (probe->gc_kind == EVENT_GC_COLLECT_END) te->gc_begin_ns = 0;
        else gc_end(s, te, probe->gc_kind, e.time);
        return;
    }
    if (probe && probe->time_only) { /* CollectGarbage: the pause starts */
        te->gc_begin_ns = e.time;
        return;
    }
    int ei = te->set.ev[k];
    e.period = e.time < s->period_ns[ei] ? s->period_before[ei] : s->period[ei];
    s->st.events_weight += e.period;
    s->window[te->set.ev[k]]++;
    if (!e.has_regs) {
        s->st.empty++;
        return;
    }
    char buf[256];
    live_sample_in_t in = live_sample_of(&e, (double)e.period);
    in.label = label_of(s, ev, &e, buf, sizeof buf, &in.label_kind);
    if (probe && e.stack_len >= 16) {
        /* At a function's first instruction its frame is not set up: fp is still its caller's,
           and the frame-pointer chain would skip the caller. The stack is walked from the caller
           as it is once the call returns (pc the return address: at [sp] on x86-64), the function
           the leaf. */
        int popped = arch_return_from_entry(arch_host(), e.regs, e.stack, e.stack_len);
        in.stack = e.stack + popped, in.stack_len = e.stack_len - (uint64_t)popped;
        if (!in.label) {
            snprintf(buf, sizeof buf, "%s", ev->func);
            in.label = buf, in.label_kind = FRAME_NATIVE;
        }
    }
    uint64_t bytes;
    if (evs->weight_bytes && events_raw_u64(&e, ev->count_off, &bytes) == 0)
        in.weight = (double)bytes * (double)e.period;
    if (ev->kind == EVK_GC && probe) { /* its weight is its pause: known at its end */
        in.ticks = 0, in.weight = 0;
        /* V8's GarbageCollector: SCAVENGER, MARK_COMPACTOR, MINOR_MARK_COMPACTOR/SWEEPER (the
           second argument: rsi on x86-64) */
        static const int by_arg[3] = {0, 2, 1};
        uint64_t arg = e.regs[arch_host()->c_args[1]];
        int kind = probe->gc_kind == EVENT_GC_BY_ARG ? (arg < 3 ? by_arg[arg] : -1) : probe->gc_kind;
        in.label = kind >= 0 ? gc_labels[kind] : "(gc)", in.label_kind = FRAME_GC;
        gc_start(te, live_take_sample(s, te, &in), e.time, probe->gc_kind);
        return;
    }
    uint32_t leaf = live_take_sample(s, te, &in);
    if (s->o.on_sample) s->o.on_sample(s->o.ctx, s->out, leaf, in.weight, e.time);
}

/* --max-rate: an event sampled faster than the rate gets a period that many times longer (each
 * sample then weighs that much: the totals stay), one far below it goes back toward its own. */
void live_events_pace(live_sampler_t *s)
{
    const record_events_t *evs = s->o.events;
    uint64_t now = monotonic_ns();
    if (evs->max_rate <= 0 || now - s->window_ns < PACE_WINDOW_NS) return;
    double dt = (double)(now - s->window_ns) / 1e9;
    for (int i = 0; i < evs->n; i++) {
        double rate = (double)s->window[i] / dt;
        uint64_t period = s->period[i], want = period;
        s->window[i] = 0;
        if (evs->ev[i].kind == EVK_GC) continue; /* a GC's start and end go together */
        if (rate > evs->max_rate) {
            double f = rate / evs->max_rate;
            want = (uint64_t)((double)period * (f < 2 ? 2 : f + 1));
            if (want > PERIOD_MAX) want = PERIOD_MAX;
        } else if (rate < evs->max_rate / 4 && period > evs->ev[i].every) {
            want = period / 2 > evs->ev[i].every ? period / 2 : evs->ev[i].every;
        }
        if (want == period) continue;
        s->period_before[i] = period;
        s->period[i] = want;
        for (size_t t = 0; t < s->n; t++)
            for (int k = 0; k < s->te[t].set.n; k++)
                if (s->te[t].set.ev[k] == i && !s->te[t].set.ret[k])
                    ioctl(s->te[t].set.fd[k], PERF_EVENT_IOC_PERIOD, &want);
        s->period_ns[i] = monotonic_ns();
    }
    s->window_ns = now;
}
