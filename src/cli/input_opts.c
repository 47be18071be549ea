#include "cli/input_opts.h"
#include "cli/cli.h"
#include "formats/read_paths.h"
#include "profile/units.h"
#include "sourcemap/stage.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

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
    if ((*policy = jit_ambiguous_parse(arg)) < 0)
        return opt_fail("--ambiguous takes newest, oldest or mark, not '%s'", arg);
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
        OPT_END,
    };
    /* here, each reader's own options (format_reader_t.options) */
    const opt_t tail[] = {
        OPT_STR("perf-map", 0, "FILE|DIR",
                "perf: JIT symbol map(s) to re-resolve JS frames\n"
                "(default /tmp/perf-PID.map for every PID in the input)",
                &in->perf_map),
        /* the resolver tells a dump from a map by its magic */
        OPT_STR("jitdump", 0, "FILE",
                "perf: resolve JS frames from V8's jit-PID.dump (node --perf-prof,\n"
                "perf record -k CLOCK_MONOTONIC): the code live at each sample's time",
                &in->perf_map),
        OPT_FN("ambiguous", 0, "newest|oldest|mark",
               "perf: where several map entries cover an address and\n"
               "there is no time to choose: the newest, the oldest, or (default)\n"
               "mark the frame ambiguous and name the candidates",
               &in->ambiguous, set_ambiguous),
        OPT_STR("map-journal", 0, "FILE",
                "perf: the map's growth over time (from 'nodescope record --keep'):\n"
                "resolve each sample against the map as it was at that time",
                &in->journal),
        OPT_BOOL("no-resolve", 0, "perf: keep perf's own JIT labels", &in->no_resolve),
        OPT_BOOL("stats", 0,
                 "print how many JIT frames were relabelled / ambiguous, and the\n"
                 "profile's total weight and its unit",
                 &in->stats),
        OPT_FN("from-time", 0, "MS", "only samples from MS ms after the first (inputs with a timeline)", ro, set_from),
        OPT_FN("to-time", 0, "MS", "only samples up to MS ms after the first", ro, set_to),
        OPT_TITLE("threads (perf script and multi-thread trace events know them):"),
        OPT_FN("thread", 0, "WHICH",
               "main, all, worker, v8, libuv, other or a thread id: the threads written\n"
               "(default: main for .cpuprofile, as node --cpu-prof; all otherwise;\n"
               "all threads apart: -o FILE.json, Chrome trace events)",
               &in->thread, cli_opt_thread),
        OPT_FN("threads", 0, "roles|merge",
               "folded, flame graphs, pprof, top: a root frame per thread role\n"
               "('node [main]', 'node [Worker 1]', 'node [V8 worker]', 'node [libuv]';\n"
               "the default), or merge: one root per process name, as before",
               &in->threads_merge, cli_opt_threads),
        OPT_TITLE("source maps (JS frames of TypeScript and bundles in the code as written):"),
        OPT_SETINT("source-maps", 0,
                   "map JS frames through their scripts' source maps (the default: a\n"
                   "script's sourceMappingURL comment, inline data: map or FILE.map);\n"
                   "explicit: also warn when no script has a map",
                   &in->source_maps, 1),
        OPT_SETINT("no-source-maps", 0, "keep the generated positions and names", &in->source_maps, 0),
        OPT_FN("source-map-path", 0, "OLD=NEW",
               "scripts recorded under OLD (a path or file:// prefix) are read\n"
               "from NEW (another machine, a container); repeatable",
               in, set_map_path),
        OPT_BOOL("hide-ignored", 0, "fold frames of sources in a map's ignoreList into their callers",
                 &in->hide_ignored),
        OPT_END,
    };
    size_t n = 0, used = 0;
    for (size_t i = 0; opts[i].kind != OPT_KIND_END; i++) in->opts[n++] = opts[i];
    const format_reader_t *r;
    for (int k = 0; (r = format_reader_at(k)); k++) {
        if (!r->options || !r->opts_size) continue;
        /* the reader's options struct, zero = its defaults, in in->reader_mem (aligned) */
        size_t at = (used + 15) & ~(size_t)15;
        if (at + r->opts_size > sizeof in->reader_mem) abort(); /* CLI_READER_OPTS_BYTES is too small */
        void *ropts = in->reader_mem + at;
        used = at + r->opts_size;
        in->ro.reader_opts[k] = (format_reader_opts_t){r, ropts};
        opt_t table[FORMAT_READER_MAX_OPTS];
        r->options(ropts, table);
        for (size_t j = 0; j < FORMAT_READER_MAX_OPTS && table[j].kind != OPT_KIND_END; j++) {
            if (n + 1 >= CLI_INPUT_NOPTS) abort(); /* CLI_INPUT_NOPTS is too small */
            in->opts[n++] = table[j];
        }
    }
    for (size_t i = 0; i < sizeof tail / sizeof *tail; i++) {
        if (n >= CLI_INPUT_NOPTS) abort();
        in->opts[n++] = tail[i];
    }
}

int cli_input_read(cli_input_t *in, char **paths, int npaths, profile_t *p)
{
    if (!in->no_resolve && !in->resolver) {
        if (!(in->resolver = jit_resolver_new(in->perf_map, (jit_ambiguous_t)in->ambiguous))) return -1;
        if (in->journal && jit_resolver_load_journal(in->resolver, in->journal) != 0) return -1;
        in->ro.resolver = in->resolver;
    }
    int rc = format_read_paths(paths, npaths, p, &in->ro);
    if (rc == 0 && in->source_maps != 0) {
        if (!in->smaps) in->smaps = smap_cache_new();
        smap_stage_stats_t st;
        smap_stage_apply(p, in->smaps, in->hide_ignored, &st);
        size_t with_map, bad;
        smap_cache_counts(in->smaps, &with_map, &bad);
        if (in->source_maps == 1 && !with_map && !bad)
            diag_warn(NULL, 0, "--source-maps: no script of the profile names a source map");
        if (in->stats)
            fprintf(stderr,
                    "source maps: %zu of %zu JS frames mapped (%zu not covered by their map, %zu folded as ignored); "
                    "%zu scripts with a map, %zu bad maps\n",
                    st.mapped, st.frames, st.unmapped, st.ignored, with_map, bad);
    }
    if (in->stats && in->resolver) jit_resolver_print_stats(in->resolver);
    if (in->stats && rc == 0)
        fprintf(stderr, "weights: total %.0f %s%s\n", p->total, profile_weight_unit(p),
                strcmp(profile_weight_unit(p), "samples") ? " (perf's sample periods, not sample counts)" : "");
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
