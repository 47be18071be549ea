#include "cli/input_opts.h"
#include "cli/cli.h"
#include "sourcemap/stage.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

static int set_all(void *target, const char *arg)
{
    read_opts_t *ro = target;
    ro->annotate_kernel = ro->annotate_jit = 1;
    return 0;
}

static int set_from(void *target, const char *arg)
{
    read_opts_t *ro = target;
    ro->has_time_range = 1;
    return opt_parse_double("--from-time", arg, &ro->from_ms);
}

static int set_to(void *target, const char *arg)
{
    read_opts_t *ro = target;
    ro->has_time_range = 1;
    return opt_parse_double("--to-time", arg, &ro->to_ms);
}

static int set_ambiguous(void *target, const char *arg)
{
    int *policy = target;
    if ((*policy = jit_ambiguous_parse(arg)) < 0) return opt_fail("--ambiguous takes newest, oldest or mark, not '%s'", arg);
    return 0;
}

int cli_opt_thread(void *target, const char *arg)
{
    thread_pick_t pick;
    if (profile_thread_pick_parse(arg, &pick) != 0)
        return opt_fail("--thread takes main, all, worker, v8, libuv, other or a thread id, not '%s'", arg);
    *(const char **)target = arg;
    return 0;
}

int cli_opt_threads(void *target, const char *arg)
{
    if (strcmp(arg, "roles") && strcmp(arg, "merge")) return opt_fail("--threads takes roles or merge, not '%s'", arg);
    *(int *)target = !strcmp(arg, "merge");
    return 0;
}

static int set_map_path(void *target, const char *arg)
{
    cli_input_t *in = target;
    if (!in->smaps) in->smaps = smap_cache_new();
    if (smap_cache_add_rewrite(in->smaps, arg) != 0) return opt_fail("--source-map-path takes OLD=NEW, not '%s'", arg);
    return 0;
}

void cli_input_init(cli_input_t *in)
{
    memset(in, 0, sizeof *in);
    in->ro.to_ms = 1e300;
    in->ambiguous = JIT_AMBIGUOUS_MARK;
    in->source_maps = -1;
    read_opts_t *ro = &in->ro;
    const opt_t opts[] = {
        OPT_TITLE("input options:"),
        OPT_STR("format", 0, "NAME", "do not detect the input format", &ro->format),
        OPT_BOOL("pid", 0, "perf: root frame is 'comm-PID'", &ro->with_pid),
        OPT_BOOL("tid", 0, "perf: root frame is 'comm-PID/TID'", &ro->with_tid),
        OPT_BOOL("kernel", 0, "perf: annotate kernel frames with _[k]", &ro->annotate_kernel),
        OPT_BOOL("jit", 0, "perf: annotate JIT frames with _[j]", &ro->annotate_jit),
        OPT_FN("all", 0, NULL, "--kernel and --jit", ro, set_all),
        OPT_BOOL("addrs", 0, "perf: keep the address of unknown frames", &ro->with_addrs),
        OPT_BOOL("inline", 0, "perf: expand inlined frames (addr2line)", &ro->inline_frames),
        OPT_BOOL("context", 0, "with --inline: add source file:line", &ro->inline_context),
        OPT_STR("event-filter", 0, "EV", "perf: only samples of event EV (default: the first seen)", &ro->event_filter),
        OPT_BOOL("no-process", 0, "do not prepend the process name frame", &ro->no_process_frame),
        OPT_BOOL("perl-compat", 0, NULL, &ro->perl_compat),   /* hidden: for the compatibility test */
        OPT_STR("perf-map", 0, "FILE|DIR", "perf: JIT symbol map(s) to re-resolve JS frames\n"
                "(default /tmp/perf-PID.map for every PID in the input)", &ro->perf_map),
        /* the resolver tells a dump from a map by its magic */
        OPT_STR("jitdump", 0, "FILE", "perf: resolve JS frames from V8's jit-PID.dump (node --perf-prof,\n"
                "perf record -k CLOCK_MONOTONIC): the code live at each sample's time", &ro->perf_map),
        OPT_FN("ambiguous", 0, "newest|oldest|mark", "perf: where several map entries cover an address and\n"
               "there is no time to choose: the newest, the oldest, or (default)\n"
               "mark the frame ambiguous and name the candidates", &in->ambiguous, set_ambiguous),
        OPT_STR("map-journal", 0, "FILE", "perf: the map's growth over time (from 'nodescope record --keep'):\n"
                "resolve each sample against the map as it was at that time", &in->journal),
        OPT_BOOL("no-resolve", 0, "perf: keep perf's own JIT labels", &in->no_resolve),
        OPT_BOOL("stats", 0, "print how many JIT frames were relabelled / ambiguous, and the\n"
                 "profile's total weight and its unit", &in->stats),
        OPT_FN("from-time", 0, "MS", "only samples from MS ms after the first (inputs with a timeline)", ro, set_from),
        OPT_FN("to-time", 0, "MS", "only samples up to MS ms after the first", ro, set_to),
        OPT_TITLE("threads (perf script and multi-thread trace events know them):"),
        OPT_FN("thread", 0, "WHICH", "main, all, worker, v8, libuv, other or a thread id: the threads written\n"
               "(default: main for .cpuprofile, as node --cpu-prof; all otherwise;\n"
               "all threads apart: -o FILE.json, Chrome trace events)", &in->thread, cli_opt_thread),
        OPT_FN("threads", 0, "roles|merge", "folded, flame graphs, pprof, top: a root frame per thread role\n"
               "('node [main]', 'node [Worker 1]', 'node [V8 worker]', 'node [libuv]';\n"
               "the default), or merge: one root per process name, as before", &in->threads_merge, cli_opt_threads),
        OPT_TITLE("source maps (JS frames of TypeScript and bundles in the code as written):"),
        OPT_SETINT("source-maps", 0, "map JS frames through their scripts' source maps (the default: a\n"
                   "script's sourceMappingURL comment, inline data: map or FILE.map);\n"
                   "explicit: also warn when no script has a map", &in->source_maps, 1),
        OPT_SETINT("no-source-maps", 0, "keep the generated positions and names", &in->source_maps, 0),
        OPT_FN("source-map-path", 0, "OLD=NEW", "scripts recorded under OLD (a path or file:// prefix) are read\n"
               "from NEW (another machine, a container); repeatable", in, set_map_path),
        OPT_BOOL("hide-ignored", 0, "fold frames of sources in a map's ignoreList into their callers", &in->hide_ignored),
        OPT_END,
    };
    _Static_assert(sizeof opts / sizeof *opts <= CLI_INPUT_NOPTS, "CLI_INPUT_NOPTS is too small");
    memcpy(in->opts, opts, sizeof opts);
}

int cli_input_read(cli_input_t *in, char **paths, int npaths, profile_t *p)
{
    if (!in->no_resolve && !in->resolver) {
        if (!(in->resolver = jit_resolver_new(in->ro.perf_map, (jit_ambiguous_t)in->ambiguous))) return -1;
        if (in->journal && jit_resolver_load_journal(in->resolver, in->journal) != 0) return -1;
        in->ro.resolver = in->resolver;
    }
    int rc = cli_read_inputs(paths, npaths, p, &in->ro);
    if (rc == 0 && in->source_maps != 0) {
        if (!in->smaps) in->smaps = smap_cache_new();
        smap_stage_stats_t st;
        smap_stage_apply(p, in->smaps, in->hide_ignored, &st);
        size_t with_map, bad;
        smap_cache_counts(in->smaps, &with_map, &bad);
        if (in->source_maps == 1 && !with_map && !bad) diag_warn(NULL, 0, "--source-maps: no script of the profile names a source map");
        if (in->stats)
            fprintf(stderr, "source maps: %zu of %zu JS frames mapped (%zu not covered by their map, %zu folded as ignored); "
                    "%zu scripts with a map, %zu bad maps\n", st.mapped, st.frames, st.unmapped, st.ignored, with_map, bad);
    }
    if (in->stats && in->resolver) jit_resolver_print_stats(in->resolver);
    if (in->stats && rc == 0)
        fprintf(stderr, "weights: total %.0f %s%s\n", p->total, cli_weight_unit(p),
                strcmp(cli_weight_unit(p), "samples") ? " (perf's sample periods, not sample counts)" : "");
    return rc;
}

void cli_input_free(cli_input_t *in)
{
    jit_resolver_free(in->resolver);
    in->resolver = NULL;
    smap_cache_free(in->smaps);
    in->smaps = NULL;
}

void cli_input_write_opts(const cli_input_t *in, write_opts_t *wo)
{
    wo->thread = in->thread;
    wo->threads_merge = in->threads_merge;
}
