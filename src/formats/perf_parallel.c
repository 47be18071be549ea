/* perf script: large inputs folded on several threads.
 *
 * The main thread reads blocks that end at a sample boundary;
 * workers fold blocks into profiles of their own, merged at the end (the timeline is
 * then re-sorted by time). The event filter and the time origin are taken from the
 * input's first sample before the workers start, so every worker agrees on them.
 * Used for regular files of 64 MB or more and pipes; not with --perl-compat or --inline
 * (addr2line runs stay serial). JIT resolver calls are serialised by a mutex. */
#include "formats/perf_parallel.h"
#include "formats/perf_grammar.h"
#include "formats/perf_script.h"
#include "util/diag.h"
#include "util/input_bulk.h"
#include "util/xalloc.h"
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { QUEUE_DEPTH = 2 };
/* Regular files are cut into this many chunks per thread (perf_read_split) */
enum { CHUNKS_PER_THREAD = 8 };

typedef struct {
    char *data;
    size_t len, cap;
    long index; /* block number */
} block_t;

/* Line numbers: a worker numbers lines as (block number << 32) + line within the block;
 * they become file line numbers at the end, from every block's line count. */
#define BLOCK_LINE(index, rel) (((long)(index) << 32) + (rel))

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t have, room;
    block_t q[QUEUE_DEPTH];
    size_t head, count;
    int done;
    /* buffers are recycled: fresh 1 MB mallocs are fresh mmaps and page faults */
    char **spare;
    size_t nspare;
    size_t block_size;
    long *block_lines; /* line count of each block, filled in by the workers */
    size_t block_lines_cap;
} block_queue_t;

typedef struct {
    perf_reader_t r;
    block_queue_t *q;
    pthread_t thread;
} worker_t;

/* Folds one block, then hands its buffer back. */
static void fold_block(worker_t *w, block_t b)
{
    block_queue_t *q = w->q;
    {
        w->r.line = BLOCK_LINE(b.index, 1);
        for (size_t pos = 0; pos < b.len;) {
            char *s = b.data + pos;
            char *nl = memchr(s, '\n', b.len - pos);
            size_t len = nl ? (size_t)(nl - s) : b.len - pos;
            perf_line(&w->r, s, len);
            w->r.line++;
            pos += len + 1;
        }
        perf_end_sample(&w->r); /* blocks end at a sample boundary */
        w->r.in_sample = 0, w->r.nleaf = 0, w->r.nspans = 0, w->r.skipping = 0;
        perf_reader_detach(&w->r); /* the block's buffer is about to be reused */
        pthread_mutex_lock(&q->mu);
        if (b.cap == 2 * q->block_size) q->spare[q->nspare++] = b.data;
        else free(b.data);
        q->block_lines[b.index] = w->r.line - BLOCK_LINE(b.index, 1);
        pthread_mutex_unlock(&q->mu);
    }
}

static void *worker_main(void *arg)
{
    worker_t *w = arg;
    block_queue_t *q = w->q;
    for (;;) {
        pthread_mutex_lock(&q->mu);
        while (!q->count && !q->done) pthread_cond_wait(&q->have, &q->mu);
        if (!q->count) {
            pthread_mutex_unlock(&q->mu);
            break;
        }
        block_t b = q->q[q->head];
        q->head = (q->head + 1) % QUEUE_DEPTH;
        q->count--;
        pthread_cond_signal(&q->room);
        pthread_mutex_unlock(&q->mu);
        fold_block(w, b);
    }
    return NULL;
}

static void queue_push(block_queue_t *q, block_t b)
{
    pthread_mutex_lock(&q->mu);
    while (q->count == QUEUE_DEPTH) pthread_cond_wait(&q->room, &q->mu);
    q->q[(q->head + q->count) % QUEUE_DEPTH] = b;
    q->count++;
    pthread_cond_signal(&q->have);
    pthread_mutex_unlock(&q->mu);
}

/* Where the next sample starts at or before data+n: after the last blank line, else before the
 * last event line: a line that starts with neither a tab nor a blank and is not a callchain line
 * (older perf versions print those without indentation). 0 when there is none. */
static size_t sample_boundary(const char *data, size_t n)
{
    const char *p = memrchr(data, '\n', n);
    size_t first_plain = 0;
    while (p && p > data) {
        size_t at = (size_t)(p - data);
        if (at + 1 < n && (data[at + 1] == '\n' || data[at + 1] != '\t')) {
            if (data[at + 1] == '\n' || p[-1] == '\n') return at + 1;
            if (!first_plain && data[at + 1] != ' ') {
                /* a whole line only: the block's cut-off last line may be a callchain line's start */
                const char *line = data + at + 1, *end = memchr(line, '\n', n - at - 1);
                if (end && !perf_looks_like_frame(line, (size_t)(end - line))) first_plain = at + 1;
            }
        }
        p = memrchr(data, '\n', at);
    }
    return first_plain;
}

/* Sets up nreaders readers with profiles of their own. The first sample of head (the
 * input's first bytes) decides the event filter and the time origin for everyone. */
static void start_readers(input_t *in, const read_opts_t *o, const perf_read_opts_t *po, const char *head, size_t n,
                          worker_t *w, int nreaders, int parallel)
{
    perf_reader_t probe;
    profile_t *tmp = profile_new();
    read_opts_t probe_o = *o;
    probe_o.resolver = NULL; /* the probe's lookups would be counted twice (--stats) */
    perf_reader_init(&probe, tmp, &probe_o, po, in);
    for (size_t pos = 0; pos < n && !probe.event_lines;) {
        const char *nl = memchr(head + pos, '\n', n - pos);
        size_t l = nl ? (size_t)(nl - (head + pos)) : n - pos;
        perf_line(&probe, (char *)head + pos, l);
        pos += l + 1;
    }
    for (int k = 0; k < nreaders; k++) {
        profile_t *wp = profile_new();
        perf_reader_init(&w[k].r, wp, o, po, in);
        w[k].r.parallel = parallel;
        w[k].r.defer = 1; /* a block's text stays in place while its samples are folded */
        memcpy(w[k].r.event, probe.event, sizeof probe.event);
        w[k].r.event_defaulted = probe.event_defaulted;
        w[k].r.have_start = probe.have_start;
        w[k].r.start_us = probe.start_us;
    }
    perf_reader_free(&probe);
    profile_free(tmp);
}

/* Folds the readers' profiles into p and their counts into one report, then frees them and w.
 * Line numbers are BLOCK_LINE(block, line in block); block_lines[b] is block b's line count. */
static int finish_readers(input_t *in, profile_t *p, worker_t *w, int nreaders, const long *block_lines, long nblocks,
                          size_t nsamples_before, long too_long_line, int rc)
{
    perf_reader_t sum;
    memset(&sum, 0, sizeof sum);
    sum.p = p;
    for (int k = 0; k < nreaders; k++) {
        perf_reader_t *r = &w[k].r;
        if (p->nnodes == 1 && !p->nframes && !p->nthreads && !p->nsamples && !p->nticks && p->total == 0 &&
            p->nodes[0].self == 0) {
            /* p is still empty: take the first worker's profile as it is instead of copying it
             * (a merge into an empty profile would rebuild the same frames, threads and nodes in
             * the same order) */
            profile_t t = *p;
            *p = *r->p;
            *r->p = t;
        } else {
            profile_merge(p, r->p, 1.0);
        }
        if (!sum.event[0]) memcpy(sum.event, r->event, sizeof sum.event);
        if (!sum.unit[0]) memcpy(sum.unit, r->unit, sizeof sum.unit); /* every worker keeps the same event */
        sum.event_lines += r->event_lines;
        sum.samples += r->samples;
        if (r->nentries > sum.nentries) sum.nentries = r->nentries;
        if (r->unrecognised && (!sum.unrecognised || r->first_unrecognised < sum.first_unrecognised))
            sum.first_unrecognised = r->first_unrecognised;
        sum.unrecognised += r->unrecognised;
        if (r->skipped_line && (!sum.skipped_line || r->skipped_line < sum.skipped_line)) {
            sum.skipped_line = r->skipped_line;
            memcpy(sum.skipped_event, r->skipped_event, sizeof sum.skipped_event);
        }
        profile_free(r->p);
        perf_reader_free(r);
    }
    free(w);
    /* block-relative line numbers -> file line numbers */
    long *first = xmalloc(((size_t)nblocks + 1) * sizeof *first);
    first[0] = 1;
    for (long i = 0; i < nblocks; i++) first[i + 1] = first[i] + block_lines[i];
#define FILE_LINE(l) (first[(l) >> 32] + ((l)&0xffffffff) - 1)
    if (sum.unrecognised) sum.first_unrecognised = FILE_LINE(sum.first_unrecognised);
    if (sum.skipped_line) sum.skipped_line = FILE_LINE(sum.skipped_line);
    if (too_long_line)
        diag_error(in->name, FILE_LINE(too_long_line),
                   "line longer than %zu MiB; this does not look like perf script output", in->max_line >> 20);
#undef FILE_LINE
    free(first);
    /* the timeline in time order again; bounds from it */
    if (p->nsamples > nsamples_before) {
        profile_sort_samples(p->samples + nsamples_before, p->nsamples - nsamples_before);
        for (size_t i = 0; i < p->nsamples; i++) {
            double t = p->samples[i].time_us;
            if (i == 0 || t < p->start_us) p->start_us = t;
            if (i == 0 || t > p->end_us) p->end_us = t;
        }
    }
    input_progress_done(in);
    return perf_report(in, &sum, rc);
}

int perf_read_parallel(input_t *in, profile_t *p, const read_opts_t *o, const perf_read_opts_t *po, int nworkers,
                       size_t block_size)
{
    block_queue_t q = {0};
    pthread_mutex_init(&q.mu, NULL);
    pthread_cond_init(&q.have, NULL);
    pthread_cond_init(&q.room, NULL);
    /* nworkers 0: one reader folds the blocks itself, on this thread */
    const int nreaders = nworkers ? nworkers : 1;
    worker_t *w = xcalloc((size_t)nreaders, sizeof *w);
    q.spare = xcalloc(QUEUE_DEPTH + (size_t)nreaders + 2, sizeof *q.spare);
    q.block_size = block_size;
    int started = 0, rc = 0, too_long = 0;
    long nblocks = 0;
    size_t nsamples_before = p->nsamples;
    char *carry = NULL;
    size_t carry_len = 0, long_cap = 0; /* long_cap: carry is a whole buffer of that size */
    for (;;) {
        /* a block: what was left over, plus fresh bytes */
        /* pooled buffers are 2 blocks big: the carried-over part plus a block of fresh bytes */
        size_t cap = 2 * block_size;
        char *buf = NULL;
        if (long_cap) {
            /* a very long sample or line: keep growing its own buffer, doubling */
            cap = long_cap * 2;
            buf = xrealloc(carry, cap);
            long_cap = 0;
        } else {
            pthread_mutex_lock(&q.mu);
            if (q.nspare) buf = q.spare[--q.nspare];
            pthread_mutex_unlock(&q.mu);
            if (!buf) buf = xmalloc(cap);
            if (carry_len) memcpy(buf, carry, carry_len);
            free(carry);
        }
        carry = NULL;
        size_t len = carry_len;
        while (len < cap) {
            ssize_t k = input_read_bulk(in, buf + len, cap - len);
            if (k <= 0) {
                if (k < 0) rc = -1;
                break;
            }
            len += (size_t)k;
        }
        int last = len < cap || rc < 0;
        size_t cut = last ? len : sample_boundary(buf, len);
        if (!last && cut == 0) {
            /* no boundary: one very long sample or line; read on, up to the line limit */
            if (len > in->max_line) { /* reported below, once the line number is known */
                too_long = 1;
                carry = buf, carry_len = len;
                rc = -1;
                break;
            }
            carry = buf, carry_len = len, long_cap = cap;
            continue;
        }
        carry_len = len - cut;
        if (carry_len) {
            carry = xmalloc(carry_len);
            memcpy(carry, buf + cut, carry_len);
        }
        if (cut) {
            if (!started) {
                start_readers(in, o, po, buf, cut, w, nreaders, nworkers > 0);
                for (int k = 0; k < nreaders; k++) {
                    w[k].q = &q;
                    if (nworkers) pthread_create(&w[k].thread, NULL, worker_main, &w[k]);
                }
                started = 1;
            }
            pthread_mutex_lock(&q.mu);
            XGROW(q.block_lines, q.block_lines_cap, (size_t)nblocks + 1);
            pthread_mutex_unlock(&q.mu);
            if (nworkers) queue_push(&q, (block_t){buf, cut, cap, nblocks++});
            else fold_block(&w[0], (block_t){buf, cut, cap, nblocks++});
        } else {
            free(buf);
        }
        if (last) break;
    }
    pthread_mutex_lock(&q.mu);
    q.done = 1;
    pthread_cond_broadcast(&q.have);
    pthread_mutex_unlock(&q.mu);
    for (int k = 0; k < nreaders && started && nworkers; k++) pthread_join(w[k].thread, NULL);
    long too_long_line = 0;
    if (too_long) {
        /* the line that is too long starts after the carried text's newlines */
        long rel = 1;
        for (const char *c = carry; (c = memchr(c, '\n', (size_t)(carry + carry_len - c))); c++) rel++;
        too_long_line = BLOCK_LINE(nblocks, rel);
    }
    free(carry);
    for (size_t i = 0; i < q.nspare; i++) free(q.spare[i]);
    free(q.spare);
    pthread_mutex_destroy(&q.mu);
    pthread_cond_destroy(&q.have);
    pthread_cond_destroy(&q.room);
    int res =
        finish_readers(in, p, w, started ? nreaders : 0, q.block_lines, nblocks, nsamples_before, too_long_line, rc);
    free(q.block_lines);
    return res;
}

/* ---- regular files: one contiguous part of the file per thread ---- */

/* Where the first sample starting after data[0] begins (data[0] is inside a line): after a
 * blank line, or at an event line (see sample_boundary). n when there is none in data. */
static size_t next_boundary(const char *data, size_t n)
{
    const char *nl = memchr(data, '\n', n);
    while (nl) {
        size_t at = (size_t)(nl - data) + 1; /* a line starts here */
        if (at >= n) break;
        const char *end = memchr(data + at, '\n', n - at);
        if (!end) break; /* only whole lines are judged */
        size_t len = (size_t)(end - (data + at));
        if (len == 0) return at + 1; /* a blank line: the next line starts a sample */
        char c = data[at];
        if (c != '\t' && c != ' ' && !perf_looks_like_frame(data + at, len)) return at;
        nl = end;
    }
    return n;
}

/* One contiguous stretch of the file, cut at sample boundaries. */
typedef struct {
    int64_t lo, hi;     /* file offsets; hi -1: to the end of the file */
    long lines;         /* lines read */
    long too_long_line; /* BLOCK_LINE of a line longer than in->max_line, or 0 */
    int rc;
} chunk_t;

/* The chunks and the threads that take them in turn (the next one not taken: more chunks than
 * threads, so one whose chunks fold slower than the others' is not left alone at the end). */
typedef struct {
    input_t *in;
    chunk_t *chunks;
    int nchunks;
    int next; /* atomic */
    size_t block_size;
    uint64_t done; /* bytes read (atomic; progress) */
} split_t;

typedef struct {
    worker_t *w;
    split_t *sp;
    int index; /* 0: this thread, which shows the progress */
} part_t;

/* Folds chunk c: blocks read with pread, each cut at its last sample boundary. The reader's
 * lines are BLOCK_LINE(c, ...). */
static void fold_chunk(perf_reader_t *r, split_t *sp, int ci, int show_progress, char **bufp, size_t *capp)
{
    chunk_t *c = &sp->chunks[ci];
    input_t *in = sp->in;
    size_t cap = *capp, len = 0;
    char *buf = *bufp;
    int64_t off = c->lo;
    r->line = BLOCK_LINE(ci, 1);
    for (;;) {
        int last = 0;
        while (len < cap) {
            size_t want = cap - len;
            if (c->hi >= 0 && (int64_t)want > c->hi - off) want = (size_t)(c->hi - off);
            ssize_t k = want ? pread(in->fd, buf + len, want, off) : 0;
            if (k < 0 && errno == EINTR) continue;
            if (k < 0) {
                diag_error(in->name, 0, "read failed: %s", strerror(errno));
                c->rc = -1;
                last = 1;
                break;
            }
            if (k == 0) {
                last = 1;
                break;
            }
            off += k, len += (size_t)k;
            __atomic_add_fetch(&sp->done, (uint64_t)k, __ATOMIC_RELAXED);
        }
        if (c->rc < 0) break;
        if (show_progress && in->progress.enabled) {
            in->consumed = __atomic_load_n(&sp->done, __ATOMIC_RELAXED);
            input_progress_tick(in);
        }
        size_t cut = last ? len : sample_boundary(buf, len);
        if (!last && cut == 0) {
            /* no boundary: one very long sample or line; read on, up to the line limit */
            if (len > in->max_line) {
                long rel = r->line - BLOCK_LINE(ci, 0);
                for (const char *q = buf; (q = memchr(q, '\n', (size_t)(buf + len - q))); q++) rel++;
                c->too_long_line = BLOCK_LINE(ci, rel);
                c->rc = -1;
                break;
            }
            cap *= 2;
            buf = xrealloc(buf, cap);
            continue;
        }
        for (size_t pos = 0; pos < cut;) {
            char *s = buf + pos;
            char *nl = memchr(s, '\n', cut - pos);
            size_t l = nl ? (size_t)(nl - s) : cut - pos;
            perf_line(r, s, l);
            r->line++;
            pos += l + 1;
        }
        perf_end_sample(r); /* blocks end at a sample boundary */
        r->in_sample = 0, r->nleaf = 0, r->nspans = 0, r->skipping = 0;
        perf_reader_detach(r); /* the buffer's text is about to move */
        if (last) break;
        memmove(buf, buf + cut, len - cut);
        len -= cut;
    }
    c->lines = r->line - BLOCK_LINE(ci, 1);
    *bufp = buf, *capp = cap;
}

static void fold_chunks(part_t *pt)
{
    split_t *sp = pt->sp;
    size_t cap = 2 * sp->block_size;
    char *buf = xmalloc(cap);
    for (;;) {
        int ci = __atomic_fetch_add(&sp->next, 1, __ATOMIC_RELAXED);
        if (ci >= sp->nchunks) break;
        fold_chunk(&pt->w->r, sp, ci, pt->index == 0, &buf, &cap);
    }
    free(buf);
}

static void *part_main(void *arg)
{
    fold_chunks(arg);
    return NULL;
}

int perf_read_split(input_t *in, profile_t *p, const read_opts_t *o, const perf_read_opts_t *po, int nparts,
                    size_t block_size)
{
    /* nothing consumed yet: the peeked head is the file from its current offset on */
    off_t now = in->fd >= 0 && in->start == 0 && in->consumed == 0 && in->end > 0 ? lseek(in->fd, 0, SEEK_CUR) : -1;
    if (now < 0 || in->size < 0 || (int64_t)now < (int64_t)in->end) return PERF_SPLIT_NO;
    int64_t base = (int64_t)now - (int64_t)in->end, size = in->size - base;
    /* the chunks' first offsets: sample boundaries near i * size / nchunks */
    int want = nparts * CHUNKS_PER_THREAD;
    chunk_t *ch = xcalloc((size_t)want, sizeof *ch);
    size_t win = 256 << 10;
    char *probe = xmalloc(win);
    int n = 1;
    ch[0].lo = base;
    for (int i = 1; i < want; i++) {
        int64_t mid = base + size / want * i;
        if (mid <= ch[n - 1].lo) continue;
        ssize_t k = pread(in->fd, probe, win, mid - 1); /* from the byte before: mid may start a line */
        if (k <= 0) break;
        size_t b = next_boundary(probe, (size_t)k);
        if (b == (size_t)k) continue; /* none near: the chunk before takes this one's bytes */
        ch[n++].lo = mid - 1 + (int64_t)b;
    }
    free(probe);
    if (n < 2) {
        free(ch);
        return PERF_SPLIT_NO;
    }
    for (int i = 0; i < n; i++) ch[i].hi = i + 1 < n ? ch[i + 1].lo : -1;
    int nthreads = nparts < n ? nparts : n;
    split_t sp = {in, ch, n, 0, block_size, 0};
    worker_t *w = xcalloc((size_t)nthreads, sizeof *w);
    part_t *pt = xcalloc((size_t)nthreads, sizeof *pt);
    size_t nsamples_before = p->nsamples;
    start_readers(in, o, po, in->buf, in->end, w, nthreads, 1);
    for (int i = 0; i < nthreads; i++) {
        pt[i] = (part_t){&w[i], &sp, i};
        if (i) pthread_create(&w[i].thread, NULL, part_main, &pt[i]);
    }
    fold_chunks(&pt[0]);
    for (int i = 1; i < nthreads; i++) pthread_join(w[i].thread, NULL);
    in->consumed = (uint64_t)size;
    int rc = 0;
    long too_long_line = 0, *lines = xmalloc((size_t)n * sizeof *lines);
    for (int i = 0; i < n; i++) {
        lines[i] = ch[i].lines;
        if (ch[i].rc < 0) rc = -1;
        if (ch[i].too_long_line && !too_long_line) too_long_line = ch[i].too_long_line;
    }
    int res = finish_readers(in, p, w, nthreads, lines, n, nsamples_before, too_long_line, rc);
    free(lines);
    free(pt);
    free(ch);
    return res;
}
