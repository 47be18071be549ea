/* nodescope merge: add profiles together (or average them). */
#include "cli/cli.h"
#include "cli/input_opts.h"
#include "util/diag.h"
#include <stdio.h>

static void merge_usage(FILE *f)
{
    fprintf(f,
            "usage: nodescope merge [OPTIONS] A B... -o OUT\n"
            "\n"
            "Add the profiles' call trees (--avg: each weighs 1/N, the mean profile) and write\n"
            "OUT in the format its extension names (.cpuprofile, .folded, .svg). Timelines of\n"
            "different recordings do not line up, so the result has none (a .cpuprofile gets\n"
            "evenly spaced samples).\n"
            "\n"
            "  -o, --output FILE   where to write (required)\n"
            "      --avg           average instead of sum\n"
            "      --to NAME       output format when the extension does not say\n"
            "  -q, --quiet / -v, --verbose / -h, --help\n"
            "%s",
            cli_input_help);
}

int cli_merge(int argc, char **argv)
{
    static const struct option own[] = {
        {"output", required_argument, 0, 'o'}, {"avg", no_argument, 0, 'A'},
        {"to", required_argument, 0, 'T'},     {"quiet", no_argument, 0, 'q'},
        {"verbose", no_argument, 0, 'v'},      {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0},
    };
    const struct option *longopts = cli_input_longopts(own);
    cli_input_t in;
    cli_input_init(&in);
    const char *output = NULL, *to = NULL;
    int avg = 0, c, r;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:qvh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case 'A': avg = 1; break;
        case 'T': to = optarg; break;
        case 'q': diag_verbosity = -1; break;
        case 'v': diag_verbosity = 1; break;
        case 'h': merge_usage(stdout); return EXIT_OK;
        default:
            if ((r = cli_input_option(&in, c, optarg)) > 0) break;
            if (r == 0) merge_usage(stderr);
            return EXIT_USAGE;
        }
    }
    const format_writer_t *w = to ? format_writer_by_name(to) : NULL;
    if ((to && !w) || !output || (!w && !format_writer_for_path(output)) || argc - optind < 1) {
        diag_error(output, 0, !output ? "missing -o OUT" : argc - optind < 1 ? "no input" : "unknown output format");
        merge_usage(stderr);
        return EXIT_USAGE;
    }
    int n = argc - optind, rc = EXIT_FAIL;
    profile_t *sum = profile_new();
    for (int i = 0; i < n; i++) {
        profile_t *one = profile_new();
        if (cli_input_read(&in, argv + optind + i, 1, one) != 0) {
            profile_free(one);
            goto done;
        }
        profile_merge(sum, one, avg ? 1.0 / n : 1.0);
        profile_free(one);
    }
    sum->nsamples = 0;   /* separate recordings' timelines do not line up */
    write_opts_t wo = {0};
    cli_input_write_opts(&in, &wo);
    if (cli_write_profile(sum, output, w, &wo, argv + optind, n) == 0) rc = EXIT_OK;
done:
    cli_input_free(&in);
    profile_free(sum);
    return rc;
}
