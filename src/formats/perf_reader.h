/* The perf script reader's state (perf_reader_t) and its line cache's hash: the type the
 * reader's files share. Below them all: perf_frames.c fills a sample's frames, perf_script.c
 * reads lines and folds samples, perf_parallel.c runs several readers, perf_read.c is the
 * reader the registry lists. Not a public API: other modules use format_perf_reader. */
#ifndef FORMATS_PERF_READER_H
#define FORMATS_PERF_READER_H
#include "formats/format.h"
#include "formats/perf_opts.h"
#include "symbols/resolver.h"
#include "util/buf.h"
#include "util/hash.h"
#include <pthread.h>
#include <stdint.h>
#include <string.h>

/* One distinct callchain line and the frames it became (several with "->" or --inline). */
typedef struct {
    size_t key_off; /* raw line text in reader.keys */
    uint32_t key_len;
    uint32_t first, count; /* frame ids in reader.frame_pool, root-most first */
    uint64_t addr;         /* the line's address (the key holds it, except in --perl-compat mode) */
    uint32_t pc_len;       /* its text's length at the key's start */
    uint8_t jit_like;      /* module is a perf map, a jitted-*.so or [unknown]: the resolver may rename it */
    uint8_t jit_module;    /* a perf map or jitted-*.so: --jit annotates it */
    uint8_t java;          /* read in a Java process (perf_reader_t.java): part of the key */
} line_entry_t;

typedef struct perf_reader {
    profile_t *p;
    const read_opts_t *o;
    const perf_read_opts_t *po; /* the reader's own options (never NULL) */
    input_t *in;

    /* frame cache */
    struct line_slot {
        uint64_t hash;
        uint32_t entry;
    } * slots; /* open addressing; entry 0 = empty */
    size_t slot_mask;
    line_entry_t *entries;
    size_t nentries, entries_cap;
    buf_t keys;
    uint32_t *frame_pool;
    size_t npool, pool_cap;
    buf_t scratch, scratch2, demangled;

    /* JIT names already looked up (perf_script.c jit_lookup) and the resolver counts they stand for */
    struct jit_memo {
        uint64_t hash, addr;
        uint32_t entry;
        int32_t pid;
        uint32_t frame;
        uint8_t used, found, resolved, unresolved, ambiguous, relabelled;
    } * memo;
    size_t memo_mask, nmemo;
    jit_resolver_stats_t memo_stats;

    /* stack cache: hash of the root-first frame ids -> leaf node */
    u64map_t stack_index;

    /* Deferred callchain lines (r->defer: the caller keeps each line's text in place until the
     * sample ends, and calls perf_reader_detach before it moves or frees that text). A sample's
     * lines are folded when it ends, root first against the previous sample of its thread: the
     * root-side lines whose text is the same are its frames and nodes again, with no parsing,
     * hashing or tree lookup; only the rest go through add_line. */
    int defer;
    struct perf_span {
        const char *s;
        uint32_t n;
        long line;
    } * spans; /* leaf first */
    size_t nspans, spans_cap;
    struct perf_prev *prev; /* per thread (slot 0 without threads): its last sample */
    size_t nprev;
    /* what add_line learnt about the line it just read (for the previous-sample record) */
    uint8_t line_bad, line_reusable;
    uint32_t line_stats; /* resolver counts the line stands for, packed a byte each */

    /* current sample */
    int in_sample;        /* an accepted event line was seen */
    int skipping;         /* a filtered-out sample: ignore its callchain */
    uint32_t *leaf_first; /* frame ids, leaf first */
    size_t nleaf, leaf_cap;
    uint32_t *stack;
    size_t stack_cap;
    uint32_t proc_frame;
    uint32_t thread; /* the sample's thread in p->threads (not in perl_compat mode) */
    double period;
    int has_time;
    double time_us;
    uint64_t time_ns;
    int pid;
    int java; /* the comm starts with "java": Java frames are tidied */

    /* events */
    char event[128]; /* the event samples are kept for ("" until the first one) */
    int event_defaulted;

    /* timeline */
    int have_start;
    double start_us;

    char unit[128]; /* the weights' unit, from the first kept sample: "ns", "cycles", "samples" */

    long samples, unrecognised, first_unrecognised, event_lines;
    long line;         /* number of the line being read, for messages */
    int parallel;      /* one of several workers: serialise resolver calls */
    long skipped_line; /* first sample of another event type, skipped */
    char skipped_event[128];
} perf_reader_t;

/* The hot path hashes every callchain line: two independent multiply lanes over
 * 16 bytes per step are about three times faster than hash_bytes here. */
static inline uint64_t perf_line_hash(const char *s, size_t n)
{
    const uint64_t k1 = 0xff51afd7ed558ccdULL, k2 = 0xc4ceb9fe1a85ec53ULL;
    const size_t total = n;
    uint64_t a = 0x9e3779b97f4a7c15ULL ^ n, b = 0x2545f4914f6cdd1dULL, x, y;
    while (n >= 16) {
        memcpy(&x, s, 8);
        memcpy(&y, s + 8, 8);
        a = (a ^ x) * k1;
        b = (b ^ y) * k2;
        a ^= a >> 29;
        b ^= b >> 31;
        s += 16;
        n -= 16;
    }
    if (n >= 8) {
        memcpy(&x, s, 8);
        a = (a ^ x) * k1;
        a ^= a >> 29;
        s += 8;
        n -= 8;
    }
    /* the last 0..7 bytes: an overlapping fixed-size load when possible (no memcpy call) */
    y = 0;
    if (n && total >= 8) {
        memcpy(&y, s + n - 8, 8);
        y >>= 8 * (8 - n);
    } else {
        for (size_t i = 0; i < n; i++) y |= (uint64_t)(unsigned char)s[i] << (8 * i);
    }
    b = (b ^ y) * k2;
    return hash_u64(a ^ (b >> 1) ^ (b << 63));
}

#endif
