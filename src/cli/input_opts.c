#include "cli/input_opts.h"
#include "cli/cli.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

enum { OPT_FORMAT = 1000, OPT_PID, OPT_TID, OPT_KERNEL, OPT_JIT, OPT_ALL, OPT_ADDRS, OPT_INLINE, OPT_CONTEXT,
       OPT_EVENT, OPT_NOPROC, OPT_PERL, OPT_PERFMAP, OPT_FROM, OPT_TO, OPT_AMBIG, OPT_JOURNAL, OPT_NORESOLVE,
       OPT_STATS, OPT_JITDUMP, OPT_THREAD, OPT_THREADS };

static const struct option input_longopts[] = {
    {"format", required_argument, 0, OPT_FORMAT},      {"pid", no_argument, 0, OPT_PID},
    {"tid", no_argument, 0, OPT_TID},                  {"kernel", no_argument, 0, OPT_KERNEL},
    {"jit", no_argument, 0, OPT_JIT},                  {"all", no_argument, 0, OPT_ALL},
    {"addrs", no_argument, 0, OPT_ADDRS},              {"inline", no_argument, 0, OPT_INLINE},
    {"context", no_argument, 0, OPT_CONTEXT},          {"event-filter", required_argument, 0, OPT_EVENT},
    {"no-process", no_argument, 0, OPT_NOPROC},        {"perl-compat", no_argument, 0, OPT_PERL},
    {"perf-map", required_argument, 0, OPT_PERFMAP},   {"from-time", required_argument, 0, OPT_FROM},
    {"to-time", required_argument, 0, OPT_TO},         {"ambiguous", required_argument, 0, OPT_AMBIG},
    {"map-journal", required_argument, 0, OPT_JOURNAL}, {"no-resolve", no_argument, 0, OPT_NORESOLVE},
    {"stats", no_argument, 0, OPT_STATS},              {"jitdump", required_argument, 0, OPT_JITDUMP},
    {"thread", required_argument, 0, OPT_THREAD},      {"threads", required_argument, 0, OPT_THREADS},
    {0, 0, 0, 0},
};

const char cli_input_help[] =
    "input options:\n"
    "      --format NAME      do not detect the input format\n"
    "      --pid              perf: root frame is 'comm-PID'\n"
    "      --tid              perf: root frame is 'comm-PID/TID'\n"
    "      --kernel           perf: annotate kernel frames with _[k]\n"
    "      --jit              perf: annotate JIT frames with _[j]\n"
    "      --all              --kernel and --jit\n"
    "      --addrs            perf: keep the address of unknown frames\n"
    "      --inline           perf: expand inlined frames (addr2line)\n"
    "      --context          with --inline: add source file:line\n"
    "      --event-filter EV  perf: only samples of event EV (default: the first seen)\n"
    "      --no-process       do not prepend the process name frame\n"
    "      --perf-map FILE|DIR  perf: JIT symbol map(s) to re-resolve JS frames\n"
    "                         (default /tmp/perf-PID.map for every PID in the input)\n"
    "      --jitdump FILE     perf: resolve JS frames from V8's jit-PID.dump (node --perf-prof,\n"
    "                         perf record -k CLOCK_MONOTONIC): the code live at each sample's time\n"
    "      --ambiguous newest|oldest|mark  perf: where several map entries cover an address and\n"
    "                         there is no time to choose: the newest, the oldest, or (default)\n"
    "                         mark the frame ambiguous and name the candidates\n"
    "      --map-journal FILE perf: the map's growth over time (from 'nodescope record --keep'):\n"
    "                         resolve each sample against the map as it was at that time\n"
    "      --no-resolve       perf: keep perf's own JIT labels\n"
    "      --stats            print how many JIT frames were relabelled / ambiguous\n"
    "      --from-time MS, --to-time MS  only samples in this window (inputs with a timeline)\n"
    "threads (perf script and multi-thread trace events know them):\n"
    "      --thread WHICH     main, all, worker, v8, libuv, other or a thread id: the threads written\n"
    "                         (default: main for .cpuprofile, as node --cpu-prof; all otherwise;\n"
    "                         all threads apart: -o FILE.json, Chrome trace events)\n"
    "      --threads roles|merge  folded, flame graphs, pprof, top: a root frame per thread role\n"
    "                         ('node [main]', 'node [Worker 1]', 'node [V8 worker]', 'node [libuv]';\n"
    "                         the default), or merge: one root per process name, as before\n";

void cli_input_init(cli_input_t *in)
{
    memset(in, 0, sizeof *in);
    in->ro.to_ms = 1e300;
    in->ambiguous = JIT_AMBIGUOUS_MARK;
}

struct option *cli_input_longopts(const struct option *own)
{
    size_t a = 0, b = sizeof input_longopts / sizeof *input_longopts;
    while (own[a].name) a++;
    static struct option *merged;
    free(merged);
    merged = xmalloc((a + b) * sizeof *merged);
    memcpy(merged, own, a * sizeof *merged);
    memcpy(merged + a, input_longopts, b * sizeof *merged);
    return merged;
}

int cli_input_option(cli_input_t *in, int code, const char *arg)
{
    read_opts_t *ro = &in->ro;
    switch (code) {
    case OPT_FORMAT: ro->format = arg; return 1;
    case OPT_PID: ro->with_pid = 1; return 1;
    case OPT_TID: ro->with_tid = 1; return 1;
    case OPT_KERNEL: ro->annotate_kernel = 1; return 1;
    case OPT_JIT: ro->annotate_jit = 1; return 1;
    case OPT_ALL: ro->annotate_kernel = ro->annotate_jit = 1; return 1;
    case OPT_ADDRS: ro->with_addrs = 1; return 1;
    case OPT_INLINE: ro->inline_frames = 1; return 1;
    case OPT_CONTEXT: ro->inline_context = 1; return 1;
    case OPT_EVENT: ro->event_filter = arg; return 1;
    case OPT_NOPROC: ro->no_process_frame = 1; return 1;
    case OPT_PERL: ro->perl_compat = 1; return 1;
    case OPT_PERFMAP: ro->perf_map = arg; return 1;
    case OPT_JITDUMP: ro->perf_map = arg; return 1; /* the resolver tells a dump from a map by its magic */
    case OPT_FROM:
    case OPT_TO:
        if (cli_parse_double(code == OPT_FROM ? "--from-time" : "--to-time", arg, code == OPT_FROM ? &ro->from_ms : &ro->to_ms))
            return -1;
        ro->has_time_range = 1;
        return 1;
    case OPT_AMBIG:
        if ((in->ambiguous = jit_ambiguous_parse(arg)) < 0) {
            diag_error(NULL, 0, "--ambiguous takes newest, oldest or mark, not '%s'", arg);
            return -1;
        }
        return 1;
    case OPT_JOURNAL: in->journal = arg; return 1;
    case OPT_NORESOLVE: in->no_resolve = 1; return 1;
    case OPT_STATS: in->stats = 1; return 1;
    case OPT_THREAD: {
        thread_pick_t pick;
        if (profile_thread_pick_parse(arg, &pick) != 0) {
            diag_error(NULL, 0, "--thread takes main, all, worker, v8, libuv, other or a thread id, not '%s'", arg);
            return -1;
        }
        in->thread = arg;
        return 1;
    }
    case OPT_THREADS:
        if (strcmp(arg, "roles") && strcmp(arg, "merge")) {
            diag_error(NULL, 0, "--threads takes roles or merge, not '%s'", arg);
            return -1;
        }
        in->threads_merge = !strcmp(arg, "merge");
        return 1;
    default: return 0;
    }
}

int cli_input_read(cli_input_t *in, char **paths, int npaths, profile_t *p)
{
    if (!in->no_resolve && !in->resolver) {
        if (!(in->resolver = jit_resolver_new(in->ro.perf_map, (jit_ambiguous_t)in->ambiguous))) return -1;
        if (in->journal && jit_resolver_load_journal(in->resolver, in->journal) != 0) return -1;
        in->ro.resolver = in->resolver;
    }
    int rc = cli_read_inputs(paths, npaths, p, &in->ro);
    if (in->stats && in->resolver) jit_resolver_print_stats(in->resolver);
    return rc;
}

void cli_input_free(cli_input_t *in)
{
    jit_resolver_free(in->resolver);
    in->resolver = NULL;
}

void cli_input_write_opts(const cli_input_t *in, write_opts_t *wo)
{
    wo->thread = in->thread;
    wo->threads_merge = in->threads_merge;
}
