/* `perf script` text -> profile, compatible with stackcollapse-perf.pl: the folding.
 *
 * A sample is an event line ("comm PID/TID [CPU] TIME: PERIOD EVENT:") followed
 * by callchain lines ("\tADDR SYMBOL+0xOFF (MODULE)", leaf first) and a blank
 * line; or, for `perf script -F ...` without callchains, one event line carrying
 * a single frame. Weight = period, like the Perl script.
 *
 * The pieces: the line grammar is perf_grammar.c (shared with `map update`), the
 * Perl script's quirks for --perl-compat perf_perl.c, addr2line for --inline
 * perf_inline.c, a callchain line's frames (tidied symbols, the JIT resolver's names)
 * perf_frames.c; this file reads event lines and folds samples into the profile; perf_read.c
 * is the reader the registry lists (detection, options, serial or parallel).
 *
 * Speed: each callchain line is looked up, untouched, in a frame cache keyed on
 * its raw text (symbol+offset and module, plus the address when --addrs or
 * --inline need it); only a miss pays for tidying and interning. Each finished
 * stack is then looked up in a stack cache (hash of its frame ids -> leaf node),
 * so the call tree is walked only for new stacks. Memory grows with unique
 * lines and stacks, plus 24 bytes of timeline per timestamped sample. Large
 * inputs are folded on several threads (perf_parallel.c).
 *
 * Deliberate differences from stackcollapse-perf.pl (docs/commands/collapse.md);
 * perf_read_opts_t.perl_compat restores the Perl behaviour for the compatibility test. */
#include "formats/perf_script.h"
#include "formats/format.h"
#include "formats/perf_frames.h"
#include "formats/perf_grammar.h"
#include "formats/perf_opts.h"
#include "formats/perf_perl.h"
#include "symbols/resolver.h"
#include "util/bigmem.h"
#include "util/buf.h"
#include "util/demangle.h"
#include "util/diag.h"
#include "util/options.h"
#include "util/strview.h"
#include "util/xalloc.h"
#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- samples ---- */

static uint32_t leaf_for_stack(perf_reader_t *r, const uint32_t *frames, size_t n)
{
    uint64_t h = perf_line_hash((const char *)frames, n * sizeof *frames);
    int found;
    uint32_t *slot = u64map_upsert(&r->stack_index, h, &found);
    if (found) {
        /* verify: walk up from the cached leaf */
        uint32_t node = *slot;
        size_t i = n;
        while (i > 0 && node && r->p->nodes[node].frame == frames[i - 1]) node = r->p->nodes[node].parent, i--;
        if (i == 0 && node == 0) return *slot;
        uint32_t leaf = 0;
        for (size_t k = 0; k < n; k++) leaf = profile_child(r->p, leaf, frames[k]);
        return leaf; /* collision: not cached */
    }
    uint32_t leaf = 0;
    for (size_t k = 0; k < n; k++) leaf = profile_child(r->p, leaf, frames[k]);
    slot = u64map_upsert(&r->stack_index, h, &found);
    *slot = leaf;
    return leaf;
}

/* Samples hang under their thread's node, except where the Perl script's roots are asked
 * for: --perl-compat, and --pid/--tid (comm-PID[/TID] roots, not thread roles). */
static int keeps_threads(const perf_read_opts_t *po) { return !po->perl_compat && !po->with_pid && !po->with_tid; }

/* ---- samples folded against the previous sample of their thread (r->defer) ---- */

/* A thread's last sample: its lines (root first) with what each became, and its nodes. */
struct perf_prev {
    int valid;
    int detached; /* every line's text is in own (none points into the reader's block) */
    uint32_t proc_frame;
    int java;
    struct perf_span *lines;
    uint32_t *line_end;               /* frames[0 .. line_end[i]) are lines 0..i's frames */
    uint32_t *stats;                  /* resolver counts a repeat of the line stands for (see jit_lookup) */
    uint8_t *flags;                   /* PREV_BAD: unrecognised; PREV_REUSABLE: a repeat may stand for it */
    size_t nlines, lines_cap, nreuse; /* lines[0 .. nreuse) may be matched */
    uint32_t *frames;                 /* the callchain's frames, root first */
    uint32_t *nodes;                  /* node of each stack position, the thread and process frames first */
    size_t nframes, frames_cap;
    buf_t own; /* line text kept by perf_reader_detach */
};
enum { PREV_BAD = 1, PREV_REUSABLE = 2 };

static void push_line(perf_reader_t *r, const char *s, size_t n)
{
    if (!r->defer) {
        perf_add_line(r, s, n);
        return;
    }
    if (r->nspans == r->spans_cap) XGROW(r->spans, r->spans_cap, r->nspans + 1);
    r->spans[r->nspans++] = (struct perf_span){s, (uint32_t)n, r->line};
}

static void prev_reserve(struct perf_prev *P, size_t nlines, size_t nframes)
{
    if (nlines > P->lines_cap) {
        size_t cap = nlines * 2;
        P->lines = xrealloc(P->lines, cap * sizeof *P->lines);
        P->line_end = xrealloc(P->line_end, cap * sizeof *P->line_end);
        P->stats = xrealloc(P->stats, cap * sizeof *P->stats);
        P->flags = xrealloc(P->flags, cap);
        P->lines_cap = cap;
    }
    if (nframes > P->frames_cap || !P->nodes) { /* nodes also hold the thread and process roots */
        size_t cap = nframes * 2 + 8;
        P->frames = xrealloc(P->frames, cap * sizeof *P->frames);
        P->nodes = xrealloc(P->nodes, (cap + 2) * sizeof *P->nodes);
        P->frames_cap = cap;
    }
}

static int keeps_threads(const perf_read_opts_t *po);

static void end_sample_deferred(perf_reader_t *r)
{
    const read_opts_t *o = r->o;
    const perf_read_opts_t *po = r->po;
    int with_thread = keeps_threads(po), with_proc = !po->no_process_frame;
    size_t hdr = (size_t)with_thread + (size_t)with_proc;
    size_t slot = with_thread ? r->thread : 0;
    if (slot >= r->nprev) {
        size_t cap = slot + 8;
        r->prev = xrealloc(r->prev, cap * sizeof *r->prev);
        memset(r->prev + r->nprev, 0, (cap - r->nprev) * sizeof *r->prev);
        r->nprev = cap;
    }
    struct perf_prev *P = &r->prev[slot];
    const size_t n = r->nspans;
    /* the root-side lines this sample shares with the previous one, byte for byte */
    int same = P->valid && P->proc_frame == r->proc_frame && P->java == r->java;
    size_t j = 0;
    if (same) {
        size_t lim = n < P->nreuse ? n : P->nreuse;
        while (j < lim) {
            const struct perf_span *a = &r->spans[n - 1 - j], *b = &P->lines[j];
            if (a->n != b->n || memcmp(a->s, b->s, a->n)) break;
            j++;
        }
    }
    const size_t m = j ? P->line_end[j - 1] : 0;
    for (size_t i = 0; i < j; i++) { /* what reading those lines again would have counted */
        if (P->flags[i] & PREV_BAD) perf_note_unrecognised(r, r->spans[n - 1 - i].line);
        uint32_t st = P->stats[i];
        if (st) {
            r->memo_stats.resolved += st & 255;
            r->memo_stats.unresolved += st >> 8 & 255;
            r->memo_stats.ambiguous += st >> 16 & 255;
            r->memo_stats.relabelled += st >> 24;
        }
    }
    /* the other lines, leaf first (frames are interned in the order they always were) */
    prev_reserve(P, n, 0);
    r->nleaf = 0;
    const long line_now = r->line; /* messages name each line's own number */
    for (size_t i = 0; i + j < n; i++) {
        size_t before = r->nleaf, at = n - 1 - i;
        r->line = r->spans[i].line;
        perf_add_line(r, r->spans[i].s, r->spans[i].n);
        P->lines[at] = r->spans[i];
        P->line_end[at] = (uint32_t)(r->nleaf - before);
        P->stats[at] = r->line_stats;
        P->flags[at] = (uint8_t)((r->line_bad ? PREV_BAD : 0) | (r->line_reusable ? PREV_REUSABLE : 0));
    }
    r->line = line_now;
    if (j < n) P->detached = 0;
    size_t nreuse = j;
    for (size_t at = j; at < n; at++) {
        P->line_end[at] += at ? P->line_end[at - 1] : 0;
        if (nreuse == at && (P->flags[at] & PREV_REUSABLE)) nreuse++;
    }
    const size_t total = m + r->nleaf;
    prev_reserve(P, 0, total);
    for (size_t k = 0; k < r->nleaf; k++) P->frames[m + k] = r->leaf_first[r->nleaf - 1 - k];
    r->nleaf = 0, r->nspans = 0;
    P->nlines = n, P->nreuse = nreuse, P->nframes = total;
    P->proc_frame = r->proc_frame, P->java = r->java;
    P->valid = 0; /* until its nodes are known */
    if (total + (size_t)with_proc == 0) return;
    if (with_thread && !r->p->threads[r->thread].role_known) {
        XGROW(r->stack, r->stack_cap, total + 1);
        size_t k = 0;
        if (with_proc) r->stack[k++] = r->proc_frame;
        if (total) memcpy(r->stack + k, P->frames, total * sizeof *P->frames); /* frames may be NULL */
        profile_thread_note_stack(r->p, r->thread, r->stack, k + total);
    }
    if (r->has_time && o->has_time_range) {
        double rel_ms = (r->time_us - r->start_us) / 1000.0;
        if (rel_ms < o->from_ms || rel_ms > o->to_ms) return;
    }
    /* nodes: the shared part's are the previous sample's */
    size_t k0 = same ? hdr + m : 0;
    uint32_t node = k0 ? P->nodes[k0 - 1] : 0;
    for (size_t k = k0; k < hdr + total; k++) {
        uint32_t f = k >= hdr                  ? P->frames[k - hdr]
                     : (with_thread && k == 0) ? r->p->threads[r->thread].frame
                                               : r->proc_frame;
        node = profile_child(r->p, node, f);
        P->nodes[k] = node;
    }
    P->valid = 1;
    profile_add_self(r->p, node, r->period);
    if (r->has_time && !o->no_timeline) {
        profile_t *p = r->p;
        if (p->nsamples == 0 || r->time_us < p->start_us) p->start_us = r->time_us;
        if (p->nsamples == 0 || r->time_us > p->end_us) p->end_us = r->time_us;
        profile_add_sample(p, r->time_us, node, r->period);
    }
    r->samples++;
}

void perf_reader_detach(perf_reader_t *r)
{
    for (size_t t = 0; t < r->nprev; t++) {
        struct perf_prev *P = &r->prev[t];
        if (!P->valid || P->detached) continue; /* no sample of this thread in the block */
        buf_t own = {0};
        for (size_t i = 0; i < P->nreuse; i++) buf_append(&own, P->lines[i].s, P->lines[i].n);
        size_t off = 0;
        for (size_t i = 0; i < P->nreuse; i++) {
            P->lines[i].s = own.data + off;
            off += P->lines[i].n;
        }
        buf_free(&P->own);
        P->own = own;
        P->detached = 1;
    }
}

void perf_end_sample(perf_reader_t *r)
{
    if (!r->in_sample) return;
    r->in_sample = 0;
    if (r->defer) {
        end_sample_deferred(r);
        return;
    }
    /* root first: the thread's node (the Perl script has none), the process frame, the callchain */
    int with_thread = keeps_threads(r->po);
    size_t n = (size_t)with_thread;
    int with_proc = !r->po->no_process_frame;
    XGROW(r->stack, r->stack_cap, r->nleaf + 2);
    if (with_proc) r->stack[n++] = r->proc_frame;
    for (size_t k = r->nleaf; k-- > 0;) r->stack[n++] = r->leaf_first[k];
    r->nleaf = 0, r->nspans = 0;
    if (n == (size_t)with_thread) return;
    if (with_thread) {
        r->stack[0] = r->p->threads[r->thread].frame;
        profile_thread_note_stack(r->p, r->thread, r->stack + 1, n - 1);
    }
    if (r->has_time && r->o->has_time_range) {
        double rel_ms = (r->time_us - r->start_us) / 1000.0;
        if (rel_ms < r->o->from_ms || rel_ms > r->o->to_ms) return;
    }
    uint32_t leaf = leaf_for_stack(r, r->stack, n);
    profile_add_self(r->p, leaf, r->period);
    if (r->has_time && !r->o->no_timeline) {
        profile_t *p = r->p;
        if (p->nsamples == 0 || r->time_us < p->start_us) p->start_us = r->time_us;
        if (p->nsamples == 0 || r->time_us > p->end_us) p->end_us = r->time_us;
        profile_add_sample(p, r->time_us, leaf, r->period);
    }
    r->samples++;
}

static void set_process_frame(perf_reader_t *r, const char *comm, size_t comm_len, const char *pid, size_t pid_len,
                              const char *tid, size_t tid_len)
{
    buf_t *b = &r->scratch;
    buf_clear(b);
    for (size_t i = 0; i < comm_len; i++) buf_putc(b, comm[i] == ' ' ? '_' : comm[i] == ';' ? ':' : comm[i]);
    if (r->po->with_pid || r->po->with_tid) {
        buf_putc(b, '-');
        if (pid) buf_append(b, pid, pid_len);
        else buf_putc(b, '?');
        if (r->po->with_tid) {
            buf_putc(b, '/');
            buf_append(b, tid, tid_len);
        }
    }
    r->proc_frame = profile_frame(r->p, b->data, b->len, "", 0, 0, FRAME_PROCESS);
}

/* An event line. Returns 0, or 1 when it is not one. */
static int event_line(perf_reader_t *r, const char *s, size_t n)
{
    const perf_read_opts_t *po = r->po;
    perf_event_t e;
    if (!(po->perl_compat ? perf_perl_event(s, n, &e) : perf_parse_event(s, n, &e))) return 1;
    double period = e.period ? (double)perf_parse_u64(e.period, e.period_len) : 1;
    if (period <= 0) period = 1;
    const char *ev = e.event;
    size_t ev_len = e.event_len;

    if (!po->perl_compat) perf_end_sample(r);
    r->skipping = 0;
    if (ev) {
        if (!r->event[0]) {
            const char *want = po->event_filter;
            if (want) snprintf(r->event, sizeof r->event, "%s", want);
            else {
                snprintf(r->event, sizeof r->event, "%.*s", (int)(ev_len < 127 ? ev_len : 127), ev);
                r->event_defaulted = 1;
            }
        }
        size_t want_len = strlen(r->event), cmp_len = ev_len;
        if (!po->perl_compat) {
            /* "cycles:u" beside "cycles", "cpu-clock:ppp": one event (the Perl script compares the text) */
            want_len = perf_event_base_len(r->event, want_len);
            cmp_len = perf_event_base_len(ev, ev_len);
        }
        if (want_len != cmp_len || memcmp(r->event, ev, cmp_len)) {
            if (r->event_defaulted && !r->skipped_line) { /* reported once the input is read */
                r->skipped_line = r->line;
                snprintf(r->skipped_event, sizeof r->skipped_event, "%.*s", (int)(ev_len < 127 ? ev_len : 127), ev);
            }
            r->skipping = 1;
            r->in_sample = 0;
            if (!po->perl_compat) r->nleaf = 0, r->nspans = 0;
            return 0;
        }
    }
    if (po->perl_compat && r->in_sample) {
        /* Perl keeps accumulating frames when no blank line separates samples */
    } else {
        r->nleaf = 0, r->nspans = 0;
    }
    r->in_sample = 1;
    r->period = period;
    if (!r->unit[0]) {
        /* Weights are periods, like the Perl script's: cpu-clock and task-clock count ns, other
         * events their own unit (cycles, instructions, page-faults); without a period, samples. */
        size_t bl = ev && e.period ? perf_event_base_len(ev, ev_len) : 0;
        if (!bl) snprintf(r->unit, sizeof r->unit, "samples");
        else if ((bl == 9 && !memcmp(ev, "cpu-clock", 9)) || (bl == 10 && !memcmp(ev, "task-clock", 10)))
            snprintf(r->unit, sizeof r->unit, "ns");
        else snprintf(r->unit, sizeof r->unit, "%.*s", (int)(bl < 127 ? bl : 127), ev);
    }
    r->has_time = e.has_time;
    r->time_us = e.time_us;
    r->time_ns = e.time_ns;
    r->pid = (int)(e.pid ? perf_parse_u64(e.pid, e.pid_len) : perf_parse_u64(e.tid, e.tid_len));
    if (e.has_time && !r->have_start) r->have_start = 1, r->start_us = e.time_us;
    set_process_frame(r, e.comm, e.comm_len, e.pid, e.pid_len, e.tid, e.tid_len);
    r->java = sv_starts(e.comm, e.comm_len, "java");
    if (keeps_threads(po))
        r->thread = profile_thread(r->p, e.pid ? (int32_t)perf_parse_u64(e.pid, e.pid_len) : 0,
                                   (int32_t)perf_parse_u64(e.tid, e.tid_len), e.comm, e.comm_len);
    if (e.frame) push_line(r, e.frame, e.frame_len);
    return 0;
}

void perf_reader_free(perf_reader_t *r)
{
    if (r->o && r->o->resolver && (r->memo_stats.resolved || r->memo_stats.unresolved)) {
        pthread_mutex_lock(&perf_resolver_mu);
        jit_resolver_add_stats(r->o->resolver, &r->memo_stats);
        pthread_mutex_unlock(&perf_resolver_mu);
    }
    for (size_t t = 0; t < r->nprev; t++) {
        struct perf_prev *P = &r->prev[t];
        free(P->lines), free(P->line_end), free(P->stats), free(P->flags), free(P->frames), free(P->nodes);
        buf_free(&P->own);
    }
    free(r->prev);
    free(r->spans);
    free(r->memo);
    free(r->slots);
    u64map_free(&r->stack_index);
    free(r->entries);
    free(r->frame_pool);
    free(r->leaf_first);
    free(r->stack);
    buf_free(&r->keys);
    buf_free(&r->scratch);
    buf_free(&r->scratch2);
    buf_free(&r->demangled);
}

/* One line of perf script (without its '\n'); the loop body of both reading paths. */
void perf_line(perf_reader_t *r, char *line, size_t len)
{
    const perf_read_opts_t *po = r->po;
    if (len > 0 && line[len - 1] == '\r') len--;
    if (len == 0) {
        if (r->in_sample || po->perl_compat) perf_end_sample(r);
        r->in_sample = 0;
        r->nleaf = 0, r->nspans = 0;
        r->skipping = 0;
        return;
    }
    char c = line[0];
    if (c == '#') return;
    size_t i = 0;
    if (c == ' ' || c == '\t') {
        i = 1;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        /* perf pads the address to 16 columns: the run of blanks 8 bytes at a time */
        while (i + 8 <= len) {
            uint64_t x;
            memcpy(&x, line + i, 8);
            x ^= 0x2020202020202020ULL;
            if (x) {
                i += (size_t)__builtin_ctzll(x) / 8;
                break;
            }
            i += 8;
        }
#endif
        while (i < len && (line[i] == ' ' || line[i] == '\t')) i++;
        if (i == len) { /* a line of blanks ends a sample too */
            perf_end_sample(r);
            r->nleaf = 0, r->nspans = 0;
            return;
        }
        /* Indented: a callchain line (perf indents those with a tab), or an event
         * line whose comm perf padded with blanks (-F). */
        if (c == '\t' || po->perl_compat || perf_looks_like_frame(line + i, len - i)) {
            if (r->in_sample) push_line(r, line + i, len - i);
            else if (!r->skipping) perf_note_unrecognised(r, r->line);
            return;
        }
    }
    if (event_line(r, line + i, len - i) == 0) {
        r->event_lines++;
    } else if (i == 0 && (r->in_sample || r->skipping) && (po->perl_compat || perf_looks_like_frame(line, len))) {
        /* a callchain line without indentation (older perf versions) */
        if (r->in_sample) push_line(r, line, len);
    } else {
        perf_note_unrecognised(r, r->line);
    }
}

void perf_reader_init(perf_reader_t *r, profile_t *p, const read_opts_t *o, const perf_read_opts_t *po, input_t *in)
{
    memset(r, 0, sizeof *r);
    r->p = p, r->o = o, r->in = in;
    static const perf_read_opts_t defaults;
    r->po = po ? po : &defaults;
    r->slot_mask = 1023;
    r->slots = xcalloc(r->slot_mask + 1, sizeof *r->slots);
    u64map_init(&r->stack_index);
}

/* Messages after reading; returns 0 or -1. */
int perf_report(input_t *in, const perf_reader_t *r, int rc)
{
    if (rc < 0) return -1;
    if (r->p && r->unit[0]) r->p->weight_unit = strpool_intern(r->p->strings, r->unit, strlen(r->unit));
    if (r->event_lines == 0) {
        diag_error(in->name, r->first_unrecognised ? r->first_unrecognised : 1,
                   "no perf script samples found (expected lines like 'comm PID TIME: PERIOD EVENT:')");
        return -1;
    }
    if (r->skipped_line)
        diag_warn(in->name, r->skipped_line,
                  "several event types; keeping only '%s' (the first seen), skipping '%s' and others; "
                  "choose with --event-filter",
                  r->event, r->skipped_event);
    if (r->unrecognised)
        diag_warn(in->name, r->first_unrecognised, "ignored %ld unrecognised line%s", r->unrecognised,
                  r->unrecognised == 1 ? "" : "s");
    diag_info("%s: %ld samples, %zu distinct callchain lines", in->name, r->samples, r->nentries);
    return 0;
}

int perf_read_serial(input_t *in, profile_t *p, const read_opts_t *o, const perf_read_opts_t *opts)
{
    perf_reader_t r;
    perf_reader_init(&r, p, o, opts, in);
    const perf_read_opts_t *po = r.po;
    char *line;
    size_t len;
    int rc;
    while ((rc = input_getline(in, &line, &len)) > 0) {
        r.line = in->line;
        perf_line(&r, line, len);
    }
    if (rc == 0 && !po->perl_compat) perf_end_sample(&r); /* the last sample needs no trailing blank line */
    input_progress_done(in);
    int result = perf_report(in, &r, rc);
    perf_reader_free(&r);
    return result;
}
