/* nodescope collapse: fold stacks from any input into folded text. */
#include "cli/cli.h"
#include "symbols/jit_resolver.h"
#include "util/diag.h"
#include <getopt.h>
#include <stdio.h>
#include <string.h>

static void collapse_usage(FILE *f)
{
    fprintf(f,
            "usage: nodescope collapse [OPTIONS] [FILE...|-]\n"
            "\n"
            "Fold stacks into one line per unique stack, 'frame;frame;frame COUNT',\n"
            "the input of flame graph tools. Inputs are detected: perf script output,\n"
            "DTrace ustack()/jstack() aggregations, .cpuprofile, folded stacks.\n"
            "Several files are merged. Output is sorted byte-wise like stackcollapse-perf.pl.\n"
            "\n"
            "options:\n"
            "  -o, --output FILE      write here instead of stdout (atomic; never an input)\n"
            "      --format NAME      do not detect the input; one of: %s\n"
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
            "      --ambiguous newest|oldest|mark  perf: where several map entries cover an address and\n"
            "                         there is no time to choose: the newest, the oldest, or (default)\n"
            "                         mark the frame ambiguous and name the candidates\n"
            "      --map-journal FILE perf: the map's growth over time (from 'nodescope record'):\n"
            "                         resolve each sample against the map as it was at that time\n"
            "      --no-resolve       perf: keep perf's own JIT labels\n"
            "      --stats            print how many JIT frames were relabelled / ambiguous\n"
            "      --from-time MS, --to-time MS  only samples in this window (inputs with a timeline)\n"
            "  -q, --quiet            no warnings\n"
            "  -v, --verbose          say more about what was read\n"
            "  -h, --help             this text\n",
            format_reader_names());
}

enum { OPT_FORMAT = 256, OPT_PID, OPT_TID, OPT_KERNEL, OPT_JIT, OPT_ALL, OPT_ADDRS, OPT_INLINE, OPT_CONTEXT,
       OPT_EVENT, OPT_NOPROC, OPT_PERL, OPT_PERFMAP, OPT_FROM, OPT_TO, OPT_AMBIG, OPT_JOURNAL, OPT_NORESOLVE, OPT_STATS };

int cli_collapse(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"output", required_argument, 0, 'o'},   {"format", required_argument, 0, OPT_FORMAT},
        {"pid", no_argument, 0, OPT_PID},         {"tid", no_argument, 0, OPT_TID},
        {"kernel", no_argument, 0, OPT_KERNEL},   {"jit", no_argument, 0, OPT_JIT},
        {"all", no_argument, 0, OPT_ALL},         {"addrs", no_argument, 0, OPT_ADDRS},
        {"inline", no_argument, 0, OPT_INLINE},   {"context", no_argument, 0, OPT_CONTEXT},
        {"event-filter", required_argument, 0, OPT_EVENT}, {"no-process", no_argument, 0, OPT_NOPROC},
        {"perl-compat", no_argument, 0, OPT_PERL}, {"perf-map", required_argument, 0, OPT_PERFMAP},
        {"from-time", required_argument, 0, OPT_FROM}, {"to-time", required_argument, 0, OPT_TO},
        {"ambiguous", required_argument, 0, OPT_AMBIG}, {"map-journal", required_argument, 0, OPT_JOURNAL},
        {"no-resolve", no_argument, 0, OPT_NORESOLVE}, {"stats", no_argument, 0, OPT_STATS},
        {"quiet", no_argument, 0, 'q'},           {"verbose", no_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'},            {0, 0, 0, 0},
    };
    read_opts_t ro = {0};
    ro.to_ms = 1e300;
    const char *output = NULL, *journal = NULL;
    int c, ambiguous = JIT_AMBIGUOUS_MARK, resolve = 1, stats = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:qvh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case OPT_FORMAT: ro.format = optarg; break;
        case OPT_PID: ro.with_pid = 1; break;
        case OPT_TID: ro.with_tid = 1; break;
        case OPT_KERNEL: ro.annotate_kernel = 1; break;
        case OPT_JIT: ro.annotate_jit = 1; break;
        case OPT_ALL: ro.annotate_kernel = ro.annotate_jit = 1; break;
        case OPT_ADDRS: ro.with_addrs = 1; break;
        case OPT_INLINE: ro.inline_frames = 1; break;
        case OPT_CONTEXT: ro.inline_context = 1; break;
        case OPT_EVENT: ro.event_filter = optarg; break;
        case OPT_NOPROC: ro.no_process_frame = 1; break;
        case OPT_PERL: ro.perl_compat = 1; break;
        case OPT_PERFMAP: ro.perf_map = optarg; break;
        case OPT_FROM:
            if (cli_parse_double("--from-time", optarg, &ro.from_ms)) return EXIT_USAGE;
            ro.has_time_range = 1;
            break;
        case OPT_TO:
            if (cli_parse_double("--to-time", optarg, &ro.to_ms)) return EXIT_USAGE;
            ro.has_time_range = 1;
            break;
        case OPT_AMBIG:
            if ((ambiguous = jit_ambiguous_parse(optarg)) < 0) {
                diag_error(NULL, 0, "--ambiguous takes newest, oldest or mark, not '%s'", optarg);
                return EXIT_USAGE;
            }
            break;
        case OPT_JOURNAL: journal = optarg; break;
        case OPT_NORESOLVE: resolve = 0; break;
        case OPT_STATS: stats = 1; break;
        case 'q': diag_verbosity = -1; break;
        case 'v': diag_verbosity = 1; break;
        case 'h': collapse_usage(stdout); return EXIT_OK;
        default: collapse_usage(stderr); return EXIT_USAGE;
        }
    }
    jit_resolver_t *resolver = NULL;
    if (resolve) {
        if (!(resolver = jit_resolver_new(ro.perf_map, (jit_ambiguous_t)ambiguous))) return EXIT_FAIL;
        if (journal && jit_resolver_load_journal(resolver, journal) != 0) {
            jit_resolver_free(resolver);
            return EXIT_FAIL;
        }
        ro.resolver = resolver;
    }
    profile_t *p = profile_new();
    int rc = EXIT_FAIL;
    if (cli_read_inputs(argv + optind, argc - optind, p, &ro) == 0 &&
        cli_write_profile(p, output, format_writer_by_name("folded"), NULL, argv + optind, argc - optind) == 0)
        rc = EXIT_OK;
    if (stats && resolver) jit_resolver_print_stats(resolver);
    jit_resolver_free(resolver);
    profile_free(p);
    return rc;
}
