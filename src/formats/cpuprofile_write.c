/* The profile written as a Chrome DevTools .cpuprofile (one thread) or as trace events (one
 * profile per thread: Chrome's Performance panel, Perfetto), so that DevTools, speedscope and
 * node's tooling load it. Samples are made from the call tree's weights when the profile has no
 * timeline (at most MAX_MADE_SAMPLES). */
#include "formats/format.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/json_writer.h"
#include "util/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void flush_big(buf_t *b, FILE *out)
{
    if (b->len > (1 << 20)) fwrite(b->data, 1, b->len, out), buf_clear(b);
}

/* The timeline's start: the producer's start time, or the first sample's */
static double timeline_start(const profile_t *p)
{
    double start = p->nsamples ? p->samples[0].time_us : 0;
    if (p->nsamples && p->start_us > 0 && p->start_us <= start) start = p->start_us;
    return start;
}

/* Most samples written for a profile without a timeline (a merge, folded input). */
#define MAX_MADE_SAMPLES 1000000.0

/* Hits per node: timeline samples when there is a timeline. Without one, the self weights
 * become evenly spaced samples, *delta_us apart: weights in samples are that many samples;
 * a time (perf's ns of cpu-clock) is a sample per ms of it, as V8 samples, *delta_us = 1000;
 * either scaled down to MAX_MADE_SAMPLES in all when there would be more (other units:
 * cycles, instructions), so the weights keep their proportions and their total time,
 * without a sample per nanosecond (4 GB of "samples" for a few seconds of perf). The
 * fractions carry from node to node, so that the total is kept. */
static double *node_hits(const profile_t *p, double *delta_us)
{
    double *hits = xcalloc(p->nnodes, sizeof *hits);
    *delta_us = 1000;
    if (p->nsamples) {
        for (size_t s = 0; s < p->nsamples; s++) hits[p->samples[s].node] += 1;
        return hits;
    }
    double total = 0;
    for (size_t i = 0; i < p->nnodes; i++)
        if (p->nodes[i].self > 0) total += p->nodes[i].self;
    double unit_s = profile_unit_seconds(p->weight_unit);
    double per = unit_s > 0 ? 1e-3 / unit_s : 1; /* the weight of one sample */
    if (total / per > MAX_MADE_SAMPLES) per = total / MAX_MADE_SAMPLES;
    if (per == 1 && unit_s <= 0) {
        for (size_t i = 0; i < p->nnodes; i++) hits[i] = round(p->nodes[i].self);
        return hits;
    }
    if (unit_s > 0) *delta_us = per * unit_s * 1e6;
    double carry = 0;
    for (size_t i = 0; i < p->nnodes; i++) {
        if (!(p->nodes[i].self > 0)) continue;
        double want = p->nodes[i].self / per + carry;
        hits[i] = floor(want + 0.5);
        carry = want - hits[i];
    }
    return hits;
}

/* The "nodes" array. A .cpuprofile lists children and positionTicks; trace-event chunks
 * name each node's parent (as V8 writes them) and list its children too: speedscope's
 * importer builds its tree from children lists only. */
static void put_nodes(const profile_t *p, jw_t *w, FILE *out, const double *hits, int trace)
{
    buf_t label = {0};
    /* positionTicks per node */
    size_t *tick_start = xcalloc(p->nnodes + 1, sizeof *tick_start);
    for (size_t t = 0; t < p->nticks; t++) tick_start[p->ticks[t].node + 1]++;
    for (size_t i = 0; i < p->nnodes; i++) tick_start[i + 1] += tick_start[i];
    size_t *fill = xcalloc(p->nnodes, sizeof *fill);
    size_t *tick_order = xmalloc((p->nticks + 1) * sizeof *tick_order);
    for (size_t t = 0; t < p->nticks; t++) {
        uint32_t n = p->ticks[t].node;
        tick_order[tick_start[n] + fill[n]++] = t;
    }
    jw_array_begin(w, "nodes");
    for (size_t i = 0; i < p->nnodes; i++) {
        jw_object_begin(w, NULL);
        jw_uint(w, "id", i + 1);
        jw_object_begin(w, "callFrame");
        const char *url = "";
        int32_t line = 0, col = 0;
        if (i == 0) {
            jw_string(w, "functionName", "(root)");
        } else {
            const profile_frame_t *f = &p->frames[p->nodes[i].frame];
            buf_clear(&label);
            profile_frame_split_v8(f, &label, &url, &line, &col);
            /* V8 writes anonymous functions with an empty name; the model shows "(anonymous)" */
            if (!strcmp(label.data, "(anonymous)")) buf_clear(&label);
            jw_string_n(w, "functionName", label.data ? label.data : "", label.len);
        }
        jw_string(w, "scriptId", "0");
        jw_string(w, "url", url);
        jw_int(w, "lineNumber", line - 1);
        jw_int(w, "columnNumber", col - 1);
        jw_end(w);
        if (trace && i) jw_uint(w, "parent", p->nodes[i].parent + 1);
        if (!trace) jw_fixed(w, "hitCount", 0, hits[i]);
        if (p->nodes[i].first_child) {
            jw_array_begin(w, "children");
            for (uint32_t c = p->nodes[i].first_child; c; c = p->nodes[c].next_sibling) jw_uint(w, NULL, c + 1);
            jw_end(w);
        }
        if (!trace && tick_start[i + 1] > tick_start[i]) {
            jw_array_begin(w, "positionTicks");
            for (size_t k = tick_start[i]; k < tick_start[i + 1]; k++) {
                const profile_line_tick_t *t = &p->ticks[tick_order[k]];
                jw_object_begin(w, NULL);
                jw_int(w, "line", t->line);
                jw_fixed(w, "ticks", 0, round(t->ticks));
                jw_end(w);
            }
            jw_end(w);
        }
        jw_end(w);
        flush_big(w->out, out);
    }
    jw_end(w);
    buf_free(&label);
    free(tick_start);
    free(fill);
    free(tick_order);
}

/* The timeline: the real one in the producer's µs, or evenly spaced samples (1 ms apart, in
 * tree order). Writes "samples":[...], closes the object it is in when close_after_samples
 * (trace events' cpuProfile, whose timeDeltas come after it), then "timeDeltas":[...]; returns
 * the profile's end. */
static double put_samples(const profile_t *p, jw_t *w, FILE *out, const double *hits, double delta_us,
                          int close_after_samples)
{
    double last = timeline_start(p);
    jw_array_begin(w, "samples");
    size_t count = 0;
    if (p->nsamples) {
        for (size_t s = 0; s < p->nsamples; s++) {
            jw_uint(w, NULL, p->samples[s].node + 1);
            flush_big(w->out, out);
        }
        count = p->nsamples;
    } else {
        for (size_t i = 0; i < p->nnodes; i++)
            for (double h = 0; h < hits[i]; h++) jw_uint(w, NULL, i + 1), count++;
    }
    jw_end(w);
    if (close_after_samples) jw_end(w);
    jw_array_begin(w, "timeDeltas");
    for (size_t s = 0; s < count; s++) {
        double d = delta_us;
        if (p->nsamples) {
            /* between whole µs, so the deltas add up to each sample's own time (rounded once):
               rounding each difference drifted, 3 us in 3,000 samples of the live sampler */
            d = round(p->samples[s].time_us) - round(last);
            if (d < 0) d = 0;
            else last = p->samples[s].time_us;
        } else {
            /* whole µs that add up: each the step of the running total */
            d = round(last + delta_us) - round(last);
            last += delta_us;
        }
        jw_fixed(w, NULL, 0, d);
        flush_big(w->out, out);
    }
    jw_end(w);
    return p->nsamples && p->end_us > last ? p->end_us : last;
}

static int cpuprofile_write(const profile_t *p0, FILE *out, const write_opts_t *wo)
{
    /* One thread, as node --cpu-prof writes: the main JavaScript thread unless --thread says
     * otherwise; --threads merge writes every thread as one tree (what nodescope did before). */
    profile_t *view = NULL;
    size_t picked = 0;
    int merge = wo && wo->threads_merge;
    if (format_thread_view(p0, wo, merge ? "all" : "main", merge ? THREAD_ROOTS_MERGE : THREAD_ROOTS_NONE, &view,
                           &picked) != 0)
        return -2;
    if (picked > 1 && !merge && (!wo || !wo->thread || strcmp(wo->thread, "all") == 0)) {
        diag_error(NULL, 0,
                   "a .cpuprofile holds one thread: --thread all writes trace events (-o FILE.json or --to trace); "
                   "--threads merge puts every thread into one tree");
        profile_free(view);
        return -2;
    }
    const profile_t *p = view ? view : p0;
    buf_t b = {0};
    jw_t jw;
    jw_init(&jw, &b);
    double delta_us;
    double *hits = node_hits(p, &delta_us);
    jw_object_begin(&jw, NULL);
    put_nodes(p, &jw, out, hits, 0);
    jw_fixed(&jw, "startTime", 0, round(timeline_start(p))); /* as put_samples rounds it */
    double end = put_samples(p, &jw, out, hits, delta_us, 0);
    jw_fixed(&jw, "endTime", 0, end);
    jw_end(&jw);
    buf_putc(&b, '\n');
    size_t len = b.len, w = fwrite(b.data, 1, len, out);
    buf_free(&b);
    free(hits);
    profile_free(view);
    return w == len && !ferror(out) ? 0 : -1;
}

const format_writer_t format_cpuprofile_writer = {
    .name = "cpuprofile",
    .extensions = ".cpuprofile",
    .write = cpuprofile_write,
    .picks_threads = 1,
};

/* Chrome trace events: per thread a thread_name metadata event, a Profile event and one
 * ProfileChunk with the whole tree and timeline, as V8's tracing profiler writes them; Chrome's
 * Performance panel, speedscope and this file's reader show the threads apart. */
static int trace_write(const profile_t *p, FILE *out, const write_opts_t *wo)
{
    thread_pick_t pick;
    const char *choice = wo && wo->thread ? wo->thread : "all";
    profile_t *one = NULL;
    size_t picked = 0;
    /* validates the choice and reports an empty pick */
    if (format_thread_view(p, wo, "all", THREAD_ROOTS_NONE, &one, &picked) != 0) return -2;
    profile_free(one);
    profile_thread_pick_parse(choice, &pick);
    buf_t b = {0}, label = {0};
    jw_t jw;
    jw_init(&jw, &b);
    jw_object_begin(&jw, NULL);
    jw_array_begin_lines(&jw, "traceEvents"); /* an event a line */
    size_t nthreads = p->nthreads ? p->nthreads : 1;
    uint8_t *sel = xcalloc(nthreads, 1);
    if (!p->nthreads) sel[0] = 1;
    else if (pick.kind == PICK_MAIN) {
        /* the same thread the view took */
        double *w = xmalloc(p->nthreads * sizeof *w);
        profile_thread_weights(p, w);
        int64_t best = -1;
        for (size_t t = 0; t < p->nthreads; t++)
            if (p->threads[t].role == THREAD_MAIN && (best < 0 || w[t] > w[best])) best = (int64_t)t;
        for (size_t t = 0; best < 0 && t < p->nthreads; t++)
            if (best < 0 || w[t] > w[best]) best = (int64_t)t;
        sel[best] = 1;
        free(w);
    } else
        for (size_t t = 0; t < p->nthreads; t++) {
            const profile_thread_t *th = &p->threads[t];
            sel[t] = pick.kind == PICK_ALL || (pick.kind == PICK_ROLE && th->role == pick.role) ||
                     (pick.kind == PICK_TID && th->tid == pick.id);
        }
    uint32_t id = 0;
    for (size_t t = 0; t < nthreads; t++) {
        if (!sel[t]) continue;
        int32_t pid = 1, tid = 1;
        buf_clear(&label);
        profile_t *v = NULL;
        if (p->nthreads) {
            pid = p->threads[t].pid ? p->threads[t].pid : 1;
            tid = p->threads[t].tid;
            profile_thread_label(p, (uint32_t)t, &label);
            thread_pick_t only = {.kind = PICK_INDEX, .id = (int64_t)t};
            v = profile_thread_view(p, &only, THREAD_ROOTS_NONE, NULL);
        } else {
            buf_puts(&label, "node [main]");
        }
        const profile_t *q = v ? v : p;
        if (q->total <= 0 && !q->nsamples) {
            profile_free(v);
            continue;
        }
        id++;
        double delta_us;
        double *hits = node_hits(q, &delta_us), start = round(timeline_start(q)); /* as put_samples rounds it */
        /* the thread's name */
        jw_object_begin(&jw, NULL);
        jw_int(&jw, "pid", pid);
        jw_int(&jw, "tid", tid);
        jw_int(&jw, "ts", 0);
        jw_string(&jw, "ph", "M");
        jw_string(&jw, "cat", "__metadata");
        jw_string(&jw, "name", "thread_name");
        jw_object_begin(&jw, "args");
        jw_string_n(&jw, "name", label.data, label.len);
        jw_end(&jw);
        jw_end(&jw);
        /* the Profile event, then one ProfileChunk with the whole tree and timeline */
        for (int chunk = 0; chunk < 2; chunk++) {
            jw_object_begin(&jw, NULL);
            jw_int(&jw, "pid", pid);
            jw_int(&jw, "tid", tid);
            jw_fixed(&jw, "ts", 0, start);
            jw_string(&jw, "ph", "P");
            jw_string(&jw, "cat", "disabled-by-default-v8.cpu_profiler");
            jw_string(&jw, "name", chunk ? "ProfileChunk" : "Profile");
            jw_address(&jw, "id", id);
            jw_object_begin(&jw, "args");
            jw_object_begin(&jw, "data");
            if (!chunk) {
                jw_fixed(&jw, "startTime", 0, start);
            } else {
                jw_object_begin(&jw, "cpuProfile");
                put_nodes(q, &jw, out, hits, 1);
                double end = put_samples(q, &jw, out, hits, delta_us, 1); /* closes cpuProfile */
                jw_fixed(&jw, "endTime", 0, end);
            }
            jw_end(&jw);
            jw_end(&jw);
            jw_end(&jw);
        }
        free(hits);
        profile_free(v);
    }
    jw_newline(&jw); /* "]" on a line of its own */
    jw_end(&jw);
    jw_object_begin(&jw, "metadata");
    jw_string(&jw, "source", "nodescope");
    jw_end(&jw);
    jw_end(&jw);
    buf_putc(&b, '\n');
    size_t len = b.len, w = fwrite(b.data, 1, len, out);
    buf_free(&b);
    buf_free(&label);
    free(sel);
    return w == len && !ferror(out) ? 0 : -1;
}

const format_writer_t format_trace_writer = {
    .name = "trace",
    .extensions = ".json .trace.json",
    .write = trace_write,
    .picks_threads = 1,
};
