/* nodescope flame / nodescope diff: draw interactive SVG flame graphs. */
#include "cli/cli.h"
#include "cli/input_opts.h"
#include "formats/flame.h"
#include "formats/palette.h"
#include "util/diag.h"
#include <stdlib.h>
#include <string.h>

static const char flame_help[] =
    "  -o, --output FILE      write here instead of stdout (atomic; never an input)\n"
    "      --title TEXT       title (default \"Flame Graph\", \"Icicle Graph\", \"Flame Chart\")\n"
    "      --subtitle TEXT    second line under the title\n"
    "      --width PX         image width (1200)\n"
    "      --height PX        height of one frame (16)\n"
    "      --minwidth PX|N%%   drop frames narrower than PX pixels or N%% of the total (0.1 px);\n"
    "                         the count of dropped frames is printed and kept in the SVG\n"
    "      --fontsize N       (12)   --fonttype FONT (Verdana)   --fontwidth F (0.59)\n"
    "      --countname TEXT   unit of counts in tooltips (samples)\n"
    "      --nametype TEXT    tooltip prefix (\"Function:\")\n"
    "      --colors PALETTE   js (default when there are JS frames: JS by tier, builtins, native,\n"
    "                         kernel, GC, with a legend), hot (default otherwise), mem, io, wakeup,\n"
    "                         java, perl, red, green, blue, aqua, yellow, purple, orange\n"
    "      --bgcolors C1[,C2] background gradient colours\n"
    "      --hash             colours by a hash weighted to the name's first characters\n"
    "      --reverse          reverse every stack (leaf at the bottom)\n"
    "      --inverted         icicle graph: root at the top\n"
    "      --flamechart       x is time (inputs with a timeline: perf script, cpuprofile)\n"
    "      --factor F         multiply counts shown (1)\n"
    "      --total N          100%% is N instead of the sum of the input\n"
    "      --notes TEXT       embedded in the SVG's <desc>\n"
    "  -q, --quiet / -v, --verbose\n"
    "  -h, --help\n";

static void flame_usage(FILE *f)
{
    fprintf(f, "usage: nodescope flame [OPTIONS] [FILE...|-]\n\n"
               "Draw an interactive SVG flame graph from any input collapse reads (perf script,\n"
               "DTrace, cpuprofile, folded); several files are merged. Hover for name, samples\n"
               "and share; click to zoom; Reset Zoom; Search (or Ctrl-F) highlights a regular\n"
               "expression and shows the matched share; Ctrl-I toggles ignore-case.\n\n");
    fprintf(f, flame_help);
    fputs(cli_input_help, f);
}

static void diff_usage(FILE *f)
{
    fprintf(f, "usage: nodescope diff [OPTIONS] BEFORE AFTER\n\n"
               "Draw a differential flame graph: the shape of AFTER, each frame coloured by how\n"
               "its total changed since BEFORE: red grew, blue shrank, white unchanged; the\n"
               "tooltip shows both counts and the change. Inputs as for collapse.\n\n"
               "  -n, --normalize        scale BEFORE to AFTER's total first (compare shapes of\n"
               "                         profiles with different sample counts)\n"
               "      --negate           swap red and blue\n");
    fprintf(f, flame_help);
    fputs(cli_input_help, f);
}

enum { OPT_TITLE = 300, OPT_SUBTITLE, OPT_WIDTH, OPT_HEIGHT, OPT_MINWIDTH, OPT_FONTSIZE, OPT_FONTTYPE, OPT_FONTWIDTH,
       OPT_COUNTNAME, OPT_NAMETYPE, OPT_COLORS, OPT_BGCOLORS, OPT_HASH, OPT_REVERSE, OPT_INVERTED, OPT_FLAMECHART,
       OPT_NEGATE, OPT_FACTOR, OPT_TOTAL, OPT_NOTES, OPT_RANDOM, OPT_CP };

static int run(int argc, char **argv, int is_diff)
{
    static const struct option own[] = {
        {"output", required_argument, 0, 'o'},      {"title", required_argument, 0, OPT_TITLE},
        {"subtitle", required_argument, 0, OPT_SUBTITLE}, {"width", required_argument, 0, OPT_WIDTH},
        {"height", required_argument, 0, OPT_HEIGHT}, {"minwidth", required_argument, 0, OPT_MINWIDTH},
        {"fontsize", required_argument, 0, OPT_FONTSIZE}, {"fonttype", required_argument, 0, OPT_FONTTYPE},
        {"fontwidth", required_argument, 0, OPT_FONTWIDTH}, {"countname", required_argument, 0, OPT_COUNTNAME},
        {"nametype", required_argument, 0, OPT_NAMETYPE}, {"colors", required_argument, 0, OPT_COLORS},
        {"bgcolors", required_argument, 0, OPT_BGCOLORS}, {"hash", no_argument, 0, OPT_HASH},
        {"random", no_argument, 0, OPT_RANDOM},     {"cp", no_argument, 0, OPT_CP},
        {"reverse", no_argument, 0, OPT_REVERSE},   {"inverted", no_argument, 0, OPT_INVERTED},
        {"flamechart", no_argument, 0, OPT_FLAMECHART}, {"negate", no_argument, 0, OPT_NEGATE},
        {"factor", required_argument, 0, OPT_FACTOR}, {"total", required_argument, 0, OPT_TOTAL},
        {"notes", required_argument, 0, OPT_NOTES}, {"normalize", no_argument, 0, 'n'},
        {"quiet", no_argument, 0, 'q'},             {"verbose", no_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'},              {0, 0, 0, 0},
    };
    void (*usage)(FILE *) = is_diff ? diff_usage : flame_usage;
    const struct option *longopts = cli_input_longopts(own);
    cli_input_t in;
    cli_input_init(&in);
    flame_opts_t fo;
    flame_opts_defaults(&fo);
    const char *output = NULL;
    char *bg = NULL;
    int c, r, reverse = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:nqvh", longopts, NULL)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case OPT_TITLE: fo.title = optarg; break;
        case OPT_SUBTITLE: fo.subtitle = optarg; break;
        case OPT_WIDTH: if (cli_parse_double("--width", optarg, &fo.width) || fo.width < 50) return EXIT_USAGE; break;
        case OPT_HEIGHT: if (cli_parse_double("--height", optarg, &fo.frame_height) || fo.frame_height < 2) return EXIT_USAGE; break;
        case OPT_MINWIDTH: {
            size_t n = strlen(optarg);
            char tmp[64];
            fo.minwidth_pct = n > 0 && optarg[n - 1] == '%';
            snprintf(tmp, sizeof tmp, "%.*s", (int)(fo.minwidth_pct ? n - 1 : n), optarg);
            if (cli_parse_double("--minwidth", tmp, &fo.minwidth) || fo.minwidth < 0) return EXIT_USAGE;
            break;
        }
        case OPT_FONTSIZE: if (cli_parse_double("--fontsize", optarg, &fo.fontsize) || fo.fontsize <= 0) return EXIT_USAGE; break;
        case OPT_FONTTYPE: fo.fonttype = optarg; break;
        case OPT_FONTWIDTH: if (cli_parse_double("--fontwidth", optarg, &fo.fontwidth) || fo.fontwidth <= 0) return EXIT_USAGE; break;
        case OPT_COUNTNAME: fo.countname = optarg; break;
        case OPT_NAMETYPE: fo.nametype = optarg; break;
        case OPT_COLORS:
            if (!palette_known(optarg)) {
                diag_error(NULL, 0, "unknown palette '%s' (see --help)", optarg);
                return EXIT_USAGE;
            }
            fo.colors = optarg;
            break;
        case OPT_BGCOLORS:
            bg = strdup(optarg);
            fo.bgcolor1 = bg;
            fo.bgcolor2 = strchr(bg, ',') ? strchr(bg, ',') + 1 : bg;
            if (strchr(bg, ',')) *strchr(bg, ',') = 0;
            break;
        case OPT_HASH: fo.hash = 1; break;
        case OPT_RANDOM: case OPT_CP: break;   /* flamegraph.pl compatibility: colours are always stable */
        case OPT_REVERSE: reverse = 1; break;
        case OPT_INVERTED: fo.inverted = 1; break;
        case OPT_FLAMECHART: fo.flamechart = 1; break;
        case OPT_NEGATE: fo.negate = 1; break;
        case OPT_FACTOR: if (cli_parse_double("--factor", optarg, &fo.factor)) return EXIT_USAGE; break;
        case OPT_TOTAL: if (cli_parse_double("--total", optarg, &fo.total)) return EXIT_USAGE; break;
        case OPT_NOTES: fo.notes = optarg; break;
        case 'n': fo.normalize = 1; break;
        case 'q': diag_verbosity = -1; break;
        case 'v': diag_verbosity = 1; break;
        case 'h': usage(stdout); return EXIT_OK;
        default:
            if ((r = cli_input_option(&in, c, optarg)) > 0) break;
            if (r == 0) usage(stderr);
            return EXIT_USAGE;
        }
    }
    char **files = argv + optind;
    int nfiles = argc - optind;
    if (is_diff && nfiles != 2) {
        diag_error(NULL, 0, "diff takes two inputs, BEFORE and AFTER");
        diff_usage(stderr);
        return EXIT_USAGE;
    }
    profile_t *p = profile_new(), *before = NULL;
    int rc = EXIT_FAIL;
    if (is_diff) {
        before = profile_new();
        if (cli_input_read(&in, files, 1, before) != 0 || cli_input_read(&in, files + 1, 1, p) != 0) goto done;
        fo.before = before;
    } else if (cli_input_read(&in, files, nfiles, p) != 0) {
        goto done;
    }
    if (p->total <= 0) {
        diag_error(nfiles ? files[nfiles - 1] : "<stdin>", 0, "no samples to draw");
        goto done;
    }
    write_opts_t wo = {.flame = &fo};
    cli_input_write_opts(&in, &wo);
    /* threads become their roots before stacks are reversed; BEFORE gets the same roots as AFTER */
    profile_t **sides[2] = {&p, &before};
    for (int k = 0; k < 2; k++) {
        profile_t *v;
        if (!*sides[k]) continue;
        if (format_thread_view(*sides[k], &wo, "all", wo.threads_merge ? THREAD_ROOTS_MERGE : THREAD_ROOTS_ROLES, &v, NULL))
            goto done;
        if (v) profile_free(*sides[k]), *sides[k] = v;
    }
    fo.before = before;
    wo.thread = NULL;
    if (reverse) {
        profile_t *q = profile_reversed(p);
        profile_free(p);
        p = q;
        if (before) {
            q = profile_reversed(before);
            profile_free(before);
            fo.before = before = q;
        }
    }
    if (!is_diff && fo.colors == NULL && p->total < 100 && !strcmp(fo.countname, "samples"))
        diag_warn(NULL, 0, "stack count is low (%.0f); the graph may mislead", p->total);
    if (cli_write_profile(p, output, format_writer_by_name("svg"), &wo, files, nfiles) == 0) rc = EXIT_OK;
    /* always said (not only with -v): a graph missing frames should not look complete */
    if (fo.dropped && diag_verbosity >= 0)
        fprintf(stderr, "nodescope: %lu frames narrower than %g%s were not drawn (--minwidth)\n", fo.dropped,
                fo.minwidth, fo.minwidth_pct ? "%" : " px");
done:
    cli_input_free(&in);
    profile_free(p);
    profile_free(before);
    free(bg);
    return rc;
}

int cli_flame(int argc, char **argv) { return run(argc, argv, 0); }
int cli_diff(int argc, char **argv) { return run(argc, argv, 1); }
