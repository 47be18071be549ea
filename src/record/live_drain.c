/* The sampler's perf rings drained (live_drain): CPU-clock samples, -e events and context
 * switches, each record turned into a sample by live_take_sample (live_sampler.c); the ticks of a
 * thread that was off the CPU between two records are counted where it was (back_on_cpu), with the
 * jitter of the clock's period. */
#include "record/live_internal.h"
#include "symbols/journal.h"
#include <linux/perf_event.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>

typedef struct {
    live_sampler_t *s;
    thread_ev_t *te;
} drain_ctx_t;

static void on_cpu_record(void *ctx, const struct perf_event_header *h, const uint8_t *q, const uint8_t *end)
{
    drain_ctx_t *c = ctx;
    if (h->type == PERF_RECORD_LOST) {
        uint64_t lost;
        if (end - q < 16) return;
        memcpy(&lost, q + 8, 8);
        c->s->st.lost += lost;
        c->te->period_samples += lost; /* periods that ended too (jitter's count) */
        return;
    }
    event_sample_t e;
    if (h->type != PERF_RECORD_SAMPLE || events_parse_sample(q, end, EVENTS_CPU_SAMPLE_TYPE, &e) != 0 || !e.has_regs)
        return;
    uint64_t t0 = monotonic_ns();
    c->te->period_samples++;
    c->te->last_sample_ns = e.time;
    live_sample_in_t in = live_sample_of(&e, 1);
    live_take_sample(c->s, c->te, &in);
    c->s->st.busy_ns += monotonic_ns() - t0;
}

static void on_event_record(void *ctx, const struct perf_event_header *h, const uint8_t *q, const uint8_t *end)
{
    drain_ctx_t *c = ctx;
    uint64_t t0 = monotonic_ns();
    live_event_record(c->s, c->te, h, q, end);
    c->s->st.busy_ns += monotonic_ns() - t0;
}

/* Wall-clock ticks (a fixed grid at hz) in (from, to]. */
static unsigned long ticks_between(uint64_t from, uint64_t to, double hz, uint64_t *first)
{
    double step = 1e9 / hz;
    uint64_t a = (uint64_t)((double)from / step), b = (uint64_t)((double)to / step);
    *first = (uint64_t)((double)(a + 1) * step);
    return b > a ? (unsigned long)(b - a) : 0;
}

/* The thread is back on the CPU at in_ns (or still off it then): the ticks it was away for go to
 * the stack it left with. Only a stay that spans a tick is decoded: a busy server switches
 * thousands of times a second, mostly for microseconds. */
static void back_on_cpu(drain_ctx_t *c, uint64_t in_ns)
{
    off_cpu_t *o = c->te->off;
    if (!o || !o->set) return;
    o->set = 0;
    uint64_t first;
    unsigned long n = ticks_between(o->out_ns, in_ns, c->s->o.hz, &first);
    if (n == 0) return;
    uint64_t t0 = monotonic_ns();
    live_sample_in_t in = {.time_ns = in_ns,
                           .regs = o->regs,
                           .stack = o->stack,
                           .stack_len = o->len,
                           .off_cpu = 1,
                           .preempted = o->preempted,
                           .ticks = n,
                           .tick0_ns = first,
                           .step_ns = (uint64_t)(1e9 / c->s->o.hz),
                           .weight = (double)n};
    live_take_sample(c->s, c->te, &in);
    c->s->st.busy_ns += monotonic_ns() - t0;
}

static void switch_record(void *ctx, const struct perf_event_header *h, const uint8_t *q, const uint8_t *end)
{
    drain_ctx_t *c = ctx;
    off_cpu_t *o = c->te->off;
    if (h->type == PERF_RECORD_LOST) {
        if (end - q >= 16) c->s->st.lost += ((const uint64_t *)q)[1];
        o->set = 0; /* which stack went with the stay is not known */
        return;
    }
    if (h->type == PERF_RECORD_SAMPLE) { /* taken as the thread leaves the CPU */
        event_sample_t e;
        if (events_parse_sample(q, end, EVENTS_CPU_SAMPLE_TYPE, &e) != 0 || !e.has_regs ||
            e.stack_len > sizeof o->stack) {
            o->set = 0;
            return;
        }
        memcpy(o->regs, e.regs, sizeof o->regs);
        memcpy(o->stack, e.stack, e.stack_len);
        o->len = e.stack_len;
        o->out_ns = e.time;
        o->preempted = 0;
        o->set = 1;
        return;
    }
    if (h->type != PERF_RECORD_SWITCH || end - q < 16) return;
    uint64_t time;
    memcpy(&time, q + 8, 8); /* sample_id: pid, tid, time */
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
static unsigned long jitter_samples(double hz)
{
    double n = (double)JITTER_NS * hz / 1e9;
    return n > 4 ? (unsigned long)n : 4;
}
static void jitter(thread_ev_t *te, double hz)
{
    static uint64_t x = 0;
    if (!x) x = monotonic_ns() | 1;
    x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64 */
    double mean = 1e9 / hz, want = mean * (0.75 + 0.5 * (double)(x >> 11) / (double)(1ull << 53));
    uint64_t current = te->period ? te->period : (uint64_t)mean, now = monotonic_ns();
    uint64_t ran = now > te->last_sample_ns ? now - te->last_sample_ns : 0;
    if (ran > current) ran = current;
    /* the new period holds for the next jitter_samples: each gives up its share of the time
       already run, so that the last of them comes that many periods after the last one */
    double left = want - (double)ran / (double)jitter_samples(hz);
    uint64_t period = (uint64_t)(left > 0.5 * want ? left : 0.5 * want); /* never faster than 2x hz */
    te->period_samples = 0; /* failed or not, not again before jitter_samples more */
    if (ioctl(te->fd, PERF_EVENT_IOC_PERIOD, &period) == 0) te->period = period;
}

/* Reads every record in a thread's rings. */
void live_drain(live_sampler_t *s, thread_ev_t *te)
{
    drain_ctx_t c = {s, te};
    if (s->o.events) {
        perf_ring_drain(&te->ring, on_event_record, &c);
        return;
    }
    unsigned long before = s->st.samples;
    perf_ring_drain(&te->ring, on_cpu_record, &c);
    if (s->st.samples != before && te->period_samples >= jitter_samples(s->o.hz)) jitter(te, s->o.hz);
    perf_ring_drain(&te->sw_ring, switch_record, &c);
}

void live_off_cpu_end(live_sampler_t *s, thread_ev_t *te, uint64_t now_ns)
{
    drain_ctx_t c = {s, te};
    back_on_cpu(&c, now_ns);
}
