/* nodescope top: the functions (or files) that take the time — self and total
 * share — and the hottest lines inside the top functions (from positionTicks). */
#include "cli/cli.h"
#include "cli/input_opts.h"
#include "util/buf.h"
#include "util/diag.h"
#include "formats/text_report.h"
#include <stdlib.h>
#include <string.h>

static void top_usage(FILE *f)
{
    fprintf(f,
            "usage: nodescope top [OPTIONS] [FILE...|-]\n"
            "\n"
            "The functions that take the time, hottest first: self share (the function itself\n"
            "was running) and total share (it was on the stack; recursion counted once), with\n"
            "the hottest source lines inside the top functions where the profile has per-line\n"
            "hits (.cpuprofile positionTicks). JS tiers of one function (perf's JS:*f, JS:~f)\n"
            "count as one function.\n"
            "\n"
            "  -n, --limit N       rows (20)\n"
            "      --by function|file  group by function (default) or by source file\n"
            "      --sort self|total   order (self)\n"
            "      --json          a JSON document instead of the table\n"
            "  -q, --quiet / -v, --verbose / -h, --help\n"
            "%s",
            cli_input_help);
}

int cli_top(int argc, char **argv)
{
    static const struct option own[] = {
        {"limit", required_argument, 0, 'n'}, {"by", required_argument, 0, 'B'},
        {"sort", required_argument, 0, 'S'},  {"json", no_argument, 0, 'J'},
        {"quiet", no_argument, 0, 'q'},       {"verbose", no_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'},        {0, 0, 0, 0},
    };
    const struct option *longopts = cli_input_longopts(own);
    cli_input_t in;
    cli_input_init(&in);
    double limit = 20;
    int by_file = 0, json = 0, c, r;
    int sort_total = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "n:qvh", longopts, NULL)) != -1) {
        switch (c) {
        case 'n': if (cli_parse_double("--limit", optarg, &limit) || limit < 1) return EXIT_USAGE; break;
        case 'B':
            if (strcmp(optarg, "file") && strcmp(optarg, "function")) {
                diag_error(NULL, 0, "--by takes function or file");
                return EXIT_USAGE;
            }
            by_file = !strcmp(optarg, "file");
            break;
        case 'S':
            if (strcmp(optarg, "self") && strcmp(optarg, "total")) {
                diag_error(NULL, 0, "--sort takes self or total");
                return EXIT_USAGE;
            }
            sort_total = !strcmp(optarg, "total");
            break;
        case 'J': json = 1; break;
        case 'q': diag_verbosity = -1; break;
        case 'v': diag_verbosity = 1; break;
        case 'h': top_usage(stdout); return EXIT_OK;
        default:
            if ((r = cli_input_option(&in, c, optarg)) > 0) break;
            if (r == 0) top_usage(stderr);
            return EXIT_USAGE;
        }
    }
    profile_t *p = profile_new();
    if (cli_input_read(&in, argv + optind, argc - optind, p) != 0) {
        cli_input_free(&in);
        profile_free(p);
        return EXIT_FAIL;
    }
    /* the split by thread role, then the functions of the threads picked (all: a root per role) */
    text_report_opts_t ro = {limit, by_file, sort_total, json, p};
    write_opts_t wo = {0};
    cli_input_write_opts(&in, &wo);
    profile_t *view = NULL;
    if (format_thread_view(p, &wo, "all", wo.threads_merge ? THREAD_ROOTS_MERGE : THREAD_ROOTS_ROLES, &view, NULL) != 0) {
        cli_input_free(&in);
        profile_free(p);
        return EXIT_FAIL;
    }
    buf_t out = {0};
    text_report(view ? view : p, &ro, &out);
    profile_free(view);
    fwrite(out.data, 1, out.len, stdout);
    buf_free(&out);
    cli_input_free(&in);
    profile_free(p);
    return EXIT_OK;
}
