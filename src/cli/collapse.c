/* nodescope collapse: fold stacks from any input into folded text. */
#include "cli/cli.h"
#include "cli/input_opts.h"
#include "util/diag.h"
#include <stdio.h>
#include <string.h>

static void collapse_usage(FILE *f)
{
    fprintf(f,
            "usage: nodescope collapse [OPTIONS] [FILE...|-]\n"
            "\n"
            "Fold stacks into one line per unique stack, 'frame;frame;frame COUNT',\n"
            "the input of flame graph tools. Inputs are detected: perf script output,\n"
            "DTrace ustack()/jstack() aggregations, .cpuprofile, folded stacks (known: %s).\n"
            "Several files are merged. Output is sorted byte-wise like stackcollapse-perf.pl.\n"
            "\n"
            "  -o, --output FILE      write here instead of stdout (atomic; never an input)\n"
            "  -q, --quiet            no warnings\n"
            "  -v, --verbose          say more about what was read\n"
            "  -h, --help             this text\n"
            "%s",
            format_reader_names(), cli_input_help);
}

int cli_collapse(int argc, char **argv)
{
    static const struct option own[] = {
        {"output", required_argument, 0, 'o'}, {"quiet", no_argument, 0, 'q'},
        {"verbose", no_argument, 0, 'v'},      {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    const struct option *longopts = cli_input_longopts(own);
    cli_input_t in;
    cli_input_init(&in);
    const char *output = NULL;
    int c, r;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:qvh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case 'q': diag_verbosity = -1; break;
        case 'v': diag_verbosity = 1; break;
        case 'h': collapse_usage(stdout); return EXIT_OK;
        default:
            if ((r = cli_input_option(&in, c, optarg)) > 0) break;
            if (r == 0) collapse_usage(stderr);
            return EXIT_USAGE;
        }
    }
    in.ro.no_timeline = 1;   /* folded output has no use for it */
    profile_t *p = profile_new();
    int rc = EXIT_FAIL;
    write_opts_t wo = {0};
    cli_input_write_opts(&in, &wo);
    if (cli_input_read(&in, argv + optind, argc - optind, p) == 0 &&
        cli_write_profile(p, output, format_writer_by_name("folded"), &wo, argv + optind, argc - optind) == 0)
        rc = EXIT_OK;
    cli_input_free(&in);
    profile_free(p);
    return rc;
}
