/* The perf script reader as the registry lists it (format_perf_reader): detection (sniff), its
 * own options, and the read itself: serial, a file split among threads, or a pipe's blocks fed to
 * workers (perf_script.c reads the lines, perf_parallel.c runs several readers). */
#include "formats/perf_grammar.h"
#include "formats/perf_parallel.h"
#include "formats/perf_script.h"
#include "util/bigmem.h"
#include "util/options.h"
#include "util/privilege.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern const format_reader_t format_perf_reader;

static int perf_read(input_t *in, profile_t *p, const read_opts_t *o)
{
    bigmem_prepare();
    /* A regular file of 16 MB or more: one thread per cpu (up to 8), each folding chunks of the
     * file it reads itself (perf_read_split). Pipes: a reading thread and cpus - 1 folding workers
     * fed blocks through a queue (perf_read_parallel). Why not the queue for files too: its
     * hand-offs and each worker's every-other-block view of the input cost more CPU than the
     * second core saved (tsc perf script, 41 MB, 2 cores: the queue's 2 workers 117 ms CPU and
     * 1,266 context switches; one thread 64 ms CPU, 66 ms wall; 2 chunked threads 70 ms CPU,
     * 52 ms wall). What the second thread still costs: each thread tidies and interns the
     * distinct callchain lines it meets (most lines are met by both) and the profiles are merged.
     * Where it stops paying (2 cores, output to a fresh file, 30 alternating runs, medians):
     * tsc perf script, 45 MB: one thread 90 ms, two 76 ms; its first 25 MB: one 62 ms, two 59 ms.
     * Below 16 MB one thread, which needs less memory.
     * NODESCOPE_PERF_THREADS=N forces N threads in all (tests, benchmarks); 1 = serial. */
    const char *env = priv_env("NODESCOPE_PERF_THREADS");
    long forced = env ? strtol(env, NULL, 10) : 0;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    long threads = forced > 0 ? forced : cpus > 8 ? 8 : cpus;
    int big = in->size < 0 || in->size >= (16 << 20);
    const perf_read_opts_t *po = format_reader_opts(o, &format_perf_reader);
    if (po && (po->perl_compat || po->inline_frames)) return perf_read_serial(in, p, o, po);
    /* one thread: the same block reader, folding each block itself (lines stay in place, so
     * samples are folded against the previous one: see end_sample_deferred) */
    int nworkers = threads < 2 || cpus < 2 || (!forced && !big) ? 0 : (int)(threads - 1);
    if (nworkers && in->size >= 0) {
        int rc = perf_read_split(in, p, o, po, (int)threads, forced ? 64 * 1024 : 512 * 1024);
        if (rc != PERF_SPLIT_NO) return rc;
    }
    return perf_read_parallel(in, p, o, po, nworkers, forced ? 64 * 1024 : 128 * 1024);
}

/* ---- detection ---- */

/* An event line with a PID word and a "TIME:" or "EVENT:" word, and/or callchain lines
 * "\tHEX SYMBOL (MODULE)". */
static int perf_sniff(const char *head, size_t n)
{
    size_t pos = 0;
    int events = 0, frames = 0, other = 0;
    for (int lines = 0; pos < n && lines < 200; lines++) {
        const char *s = head + pos;
        const char *nl = memchr(s, '\n', n - pos);
        size_t len = nl ? (size_t)(nl - s) : n - pos;
        pos += len + 1;
        if (!nl && pos < n) break;
        if (len == 0 || s[0] == '#') continue;
        size_t i = 0;
        while (i < len && perf_is_space(s[i])) i++;
        if (i > 0 && perf_looks_like_frame(s + i, len - i)) {
            frames++;
        } else {
            /* comm words, then a pid word, then a word ending in ':' */
            size_t start = i;
            int pid_seen = 0, colon_after_pid = 0, hex_after_pid = 0, words_after_pid = 0;
            while (i < len) {
                size_t t = i;
                while (i < len && !perf_is_space(s[i])) i++;
                const char *a, *b;
                size_t al, bl;
                if (t > start && !pid_seen && perf_parse_pid_tid(s + t, i - t, &a, &al, &b, &bl)) {
                    pid_seen = 1;
                } else if (pid_seen) {
                    if (i > t && s[i - 1] == ':') colon_after_pid = 1;
                    if (words_after_pid++ == 0) {
                        size_t k = t;
                        while (k < i && perf_is_hex(s[k])) k++;
                        hex_after_pid = k == i && i > t;
                    }
                }
                while (i < len && perf_is_space(s[i])) i++;
            }
            /* "comm PID TIME: PERIOD EVENT:", or "-F comm,pid,ip,sym" single-line samples "comm PID ADDR SYM" */
            if (pid_seen && (colon_after_pid || (hex_after_pid && words_after_pid >= 2))) events++;
            else if (start == 0 && s[len - 1] == ')' && perf_looks_like_frame(s, len)) frames++; /* not indented */
            else other++;
        }
    }
    if (events == 0 || memchr(head, 0, n)) return 0;
    if (other > (events + frames) / 4 + 1) return 0;
    return frames ? 90 : 70;
}

/* ---- options ---- */

static int set_all(void *target, const char *arg)
{
    perf_read_opts_t *po = target;
    po->annotate_kernel = po->annotate_jit = 1;
    return 0;
}

static void perf_options(void *opts, opt_t *table)
{
    perf_read_opts_t *po = opts;
    const opt_t t[] = {
        OPT_BOOL("pid", 0, "perf: root frame is 'comm-PID'", &po->with_pid),
        OPT_BOOL("tid", 0, "perf: root frame is 'comm-PID/TID'", &po->with_tid),
        OPT_BOOL("kernel", 0, "perf: annotate kernel frames with _[k]", &po->annotate_kernel),
        OPT_BOOL("jit", 0, "perf: annotate JIT frames with _[j]", &po->annotate_jit),
        OPT_FN("all", 0, NULL, "--kernel and --jit", po, set_all),
        OPT_BOOL("addrs", 0, "perf: keep the address of unknown frames", &po->with_addrs),
        OPT_BOOL("inline", 0, "perf: expand inlined frames (addr2line)", &po->inline_frames),
        OPT_BOOL("context", 0, "with --inline: add source file:line", &po->inline_context),
        OPT_STR("event-filter", 0, "EV", "perf: only samples of event EV (default: the first seen)", &po->event_filter),
        OPT_BOOL("no-process", 0, "do not prepend the process name frame", &po->no_process_frame),
        OPT_BOOL("perl-compat", 0, NULL, &po->perl_compat), /* hidden: for the compatibility test */
        OPT_END,
    };
    _Static_assert(sizeof t / sizeof *t <= FORMAT_READER_MAX_OPTS, "FORMAT_READER_MAX_OPTS is too small");
    memcpy(table, t, sizeof t);
}

const format_reader_t format_perf_reader = {
    .name = "perf",
    .description = "perf script output (stackcollapse-perf.pl compatible)",
    .sniff = perf_sniff,
    .read = perf_read,
    .opts_size = sizeof(perf_read_opts_t),
    .options = perf_options,
};
