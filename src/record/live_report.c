/* The text a live recording prints (record/live_report.h): stacks leaf first with thread roots
 * labelled as 'node [pid N main]', --count's aggregation sorted by weight (ties by node index,
 * so the order is stable), and the summary line's fields in a fixed order. Nothing here decides
 * whether to print: cli/record.c does (quiet, --count, --print). */
#include "record/live_report.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

static void print_stack(const profile_t *p, uint32_t leaf, FILE *out)
{
    buf_t b = {0};
    for (uint32_t x = leaf; x; x = p->nodes[x].parent) {
        uint32_t f = p->nodes[x].frame;
        int64_t ti = profile_thread_of_frame(p, f);
        buf_clear(&b);
        if (ti >= 0) profile_thread_label(p, (uint32_t)ti, &b);
        else profile_frame_label(p, f, &b);
        fprintf(out, "    %s\n", b.data ? b.data : "");
    }
    buf_free(&b);
}

void live_report_sample(void *ctx, const profile_t *p, uint32_t leaf, double weight, uint64_t time_ns)
{
    live_print_t *c = ctx;
    if (c->printed >= LIVE_PRINT_MAX) {
        c->more++;
        return;
    }
    c->printed++;
    printf("%.6f %.0f %s\n", (double)time_ns / 1e9, weight, c->unit);
    print_stack(p, leaf, stdout);
    printf("\n");
    fflush(stdout);
}

static int by_self_desc(const void *a, const void *b, void *p)
{
    double x = ((const profile_t *)p)->nodes[*(const uint32_t *)a].self;
    double y = ((const profile_t *)p)->nodes[*(const uint32_t *)b].self;
    return x < y   ? 1
           : x > y ? -1
                   : (*(const uint32_t *)a > *(const uint32_t *)b) - (*(const uint32_t *)a < *(const uint32_t *)b);
}

void live_report_counts(const profile_t *p, const char *unit, const live_stats_t *st)
{
    uint32_t *order = xmalloc((p->nnodes + 1) * sizeof *order);
    size_t n = 0;
    for (size_t i = 1; i < p->nnodes; i++)
        if (p->nodes[i].self > 0) order[n++] = (uint32_t)i;
    qsort_r(order, n, sizeof *order, by_self_desc, (void *)p);
    for (size_t i = n; i-- > 0;) {
        print_stack(p, order[i], stdout);
        printf("    %16.0f\n\n", p->nodes[order[i]].self);
    }
    printf("total %.0f %s in %zu stacks", p->total, unit, n);
    if (st) printf(" (%llu events counted by the kernel)", st->events);
    printf("\n");
    free(order);
}

/* Some events are left out on purpose: every Nth (EVENT/N), or --max-rate. */
static int sampled_by_period(const record_events_t *e)
{
    int period = e->max_rate > 0;
    for (int i = 0; i < e->n; i++) period |= e->ev[i].every > 1;
    return period;
}

void live_report_missed(const live_stats_t *st, const record_events_t *e)
{
    if (st->events <= st->samples) return;
    unsigned long long missed = st->events > st->events_weight ? st->events - st->events_weight : 0;
    if (!sampled_by_period(e) && missed * 100 > st->events)
        diag_warn(NULL, 0,
                  "%llu of the %llu events were not sampled (nodescope fell behind: a burst faster than it "
                  "names samples): the weights count %.1f%% too few; EVENT/N or --max-rate samples a part "
                  "of them evenly",
                  missed, st->events, 100.0 * (double)missed / (double)st->events);
}

void live_report_events(const live_stats_t *st, const record_events_t *e, FILE *f)
{
    fprintf(f, "; %llu events counted by the kernel", st->events);
    if (st->events > st->samples) {
        fprintf(f, ", %llu not sampled (", st->events - st->samples);
        if (sampled_by_period(e)) fprintf(f, "every Nth: EVENT/N or --max-rate; ");
        fprintf(f, "rings full when nodescope fell behind: %lu samples reported lost", st->lost);
        if (st->throttled) fprintf(f, "; the kernel throttled the events %lu times", st->throttled);
        fprintf(f, ")");
    }
}

void live_report_wrote(const char *out, double samples, const live_session_result_t *sr, const record_events_t *e,
                       int wall)
{
    const live_stats_t *st = &sr->stats;
    fprintf(stderr, "nodescope: wrote %s (%.0f samples", out, samples);
    if (e) live_report_events(st, e, stderr);
    if (sr->nprocs > 1) fprintf(stderr, " of %d processes", sr->nprocs);
    if (st->partial)
        fprintf(stderr, "; %lu partial: JS frames left unnamed, %lu read too late, %lu moved by a GC", st->partial,
                st->late, st->partial - st->late);
    if (st->cut) fprintf(stderr, "; %lu cut short, under '(outer frames ...)'", st->cut);
    if (wall) fprintf(stderr, "; %lu off the CPU", st->off_cpu);
    if (st->lost) fprintf(stderr, "; %lu lost", st->lost);
    if (diag_verbosity > 0 && st->full_gcs >= 0)
        fprintf(stderr, "; %lu read late and named, no full GC since (%ld full GCs)", st->late_named, st->full_gcs);
    if (diag_verbosity > 0 && st->samples) /* CPU: what the sampler takes from the machine */
        fprintf(stderr, "; %.0f us CPU a sample, %.0f us naming it", (double)st->cpu_ns / 1e3 / (double)st->samples,
                (double)st->busy_ns / 1e3 / (double)st->samples);
    if (diag_verbosity > 0)
        fprintf(stderr, "; stack copies resized %lu times, %lu samples beyond the copy", st->copy_changes,
                st->short_copies);
    if (diag_verbosity > 0)
        fprintf(stderr, "; %lu in JIT code, %lu of them naming no JS function", st->jit, st->jit_unnamed);
    fprintf(stderr, ")\n");
}

int live_report_pids(const profile_t *p, int *pids, int max)
{
    int n = 0;
    for (size_t t = 0; t < p->nthreads; t++) {
        int seen = 0;
        for (int i = 0; i < n && !seen; i++) seen = pids[i] == p->threads[t].pid;
        if (!seen && n < max) pids[n++] = p->threads[t].pid;
    }
    return n;
}

double live_report_samples_written(const profile_t *p, const char *out, const write_opts_t *wo)
{
    const format_writer_t *w = format_writer_for_path(out);
    if (!w || strcmp(w->name, "cpuprofile")) return (double)p->nsamples;
    profile_t *view = NULL;
    if (format_thread_view(p, wo, "main", THREAD_ROOTS_NONE, &view, NULL) != 0) return (double)p->nsamples;
    double n = view ? (double)view->nsamples : (double)p->nsamples;
    profile_free(view);
    return n;
}
