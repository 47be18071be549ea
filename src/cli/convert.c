/* nodescope convert: any input to any output format (by extension or --to). */
#include "cli/cli.h"
#include "cli/input_opts.h"
#include "util/diag.h"
#include <stdio.h>
#include <string.h>

static void convert_usage(FILE *f)
{
    fprintf(f,
            "usage: nodescope convert [OPTIONS] IN... -o OUT\n"
            "\n"
            "Convert profiles: inputs are detected (%s; several are merged), the output\n"
            "format comes from OUT's extension: .cpuprofile (Chrome DevTools, speedscope,\n"
            "node), .folded, .svg (flame graph), .pb.gz/.pprof (pprof), .txt (top's table),\n"
            ".json (Chrome trace events: one profile per thread), or --to NAME. cpuprofile input includes trace-event files and the legacy format.\n"
            "Profiles with a timeline keep it (perf script timestamps, cpuprofile samples);\n"
            "without one a .cpuprofile gets evenly spaced samples, 1 ms apart, in tree order.\n"
            "\n"
            "  -o, --output FILE   where to write (required; '-' = stdout with --to)\n"
            "      --to NAME       output format: folded, svg, cpuprofile, pprof, txt, trace\n"
            "  -q, --quiet / -v, --verbose / -h, --help\n"
            "%s",
            format_reader_names(), cli_input_help);
}

int cli_convert(int argc, char **argv)
{
    static const struct option own[] = {
        {"output", required_argument, 0, 'o'}, {"to", required_argument, 0, 'T'},
        {"quiet", no_argument, 0, 'q'},        {"verbose", no_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'},         {0, 0, 0, 0},
    };
    const struct option *longopts = cli_input_longopts(own);
    cli_input_t in;
    cli_input_init(&in);
    const char *output = NULL, *to = NULL;
    int c, r;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:qvh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case 'T': to = optarg; break;
        case 'q': diag_verbosity = -1; break;
        case 'v': diag_verbosity = 1; break;
        case 'h': convert_usage(stdout); return EXIT_OK;
        default:
            if ((r = cli_input_option(&in, c, optarg)) > 0) break;
            if (r == 0) convert_usage(stderr);
            return EXIT_USAGE;
        }
    }
    const format_writer_t *w = NULL;
    if (to && !(w = format_writer_by_name(to))) {
        diag_error(NULL, 0, "unknown output format '%s' (folded, svg, cpuprofile, pprof, txt, trace)", to);
        return EXIT_USAGE;
    }
    if (!output || (!w && !format_writer_for_path(output))) {
        diag_error(output, 0, output ? "cannot tell the output format from the extension; use --to" : "missing -o OUT");
        convert_usage(stderr);
        return EXIT_USAGE;
    }
    if (optind == argc) {
        diag_error(NULL, 0, "no input");
        return EXIT_USAGE;
    }
    /* folded stacks have no use for a per-sample timeline: don't keep one (memory and time) */
    const format_writer_t *out_w = w ? w : format_writer_for_path(output);
    if (out_w && !strcmp(out_w->name, "folded")) in.ro.no_timeline = 1;
    profile_t *p = profile_new();
    int rc = EXIT_FAIL;
    write_opts_t wo = {0};
    cli_input_write_opts(&in, &wo);
    if (cli_input_read(&in, argv + optind, argc - optind, p) == 0 &&
        cli_write_profile(p, output, w, &wo, argv + optind, argc - optind) == 0)
        rc = EXIT_OK;
    cli_input_free(&in);
    profile_free(p);
    return rc;
}
