/* nodescope flame / nodescope diff: draw interactive SVG flame graphs (options here; the view
 * drawn in formats/flame_view.c, the drawing in formats/svg_flame.c). */
#include "formats/flame.h"
#include "cli/cli.h"
#include "cli/input_opts.h"
#include "formats/flame_view.h"
#include "formats/palette.h"
#include "profile/units.h"
#include "util/diag.h"
#include <stdlib.h>
#include <string.h>

/* What the options set, for the handlers that check a value. */
typedef struct {
    flame_opts_t fo;
    char *bg;
} flame_cli_t;

static int set_min(const char *name, const char *arg, double *out, double min, int strict)
{
    if (opt_parse_double(name, arg, out) != 0) return -1;
    if (strict ? *out <= min : *out < min)
        return opt_fail("%s must be %s %g, not '%s'", name, strict ? "more than" : "at least", min, arg);
    return 0;
}
static int set_width(void *t, const char *arg) { return set_min("--width", arg, &((flame_cli_t *)t)->fo.width, 50, 0); }
static int set_height(void *t, const char *arg)
{
    return set_min("--height", arg, &((flame_cli_t *)t)->fo.frame_height, 2, 0);
}
static int set_fontsize(void *t, const char *arg)
{
    return set_min("--fontsize", arg, &((flame_cli_t *)t)->fo.fontsize, 0, 1);
}
static int set_fontwidth(void *t, const char *arg)
{
    return set_min("--fontwidth", arg, &((flame_cli_t *)t)->fo.fontwidth, 0, 1);
}

static int set_minwidth(void *t, const char *arg)
{
    flame_opts_t *fo = &((flame_cli_t *)t)->fo;
    size_t n = strlen(arg);
    char tmp[64];
    fo->minwidth_pct = n > 0 && arg[n - 1] == '%';
    snprintf(tmp, sizeof tmp, "%.*s", (int)(fo->minwidth_pct ? n - 1 : n), arg);
    if (opt_parse_double("--minwidth", tmp, &fo->minwidth) != 0) return -1;
    if (fo->minwidth < 0) return opt_fail("--minwidth must not be negative, not '%s'", arg);
    return 0;
}

static int set_colors(void *t, const char *arg)
{
    if (!palette_known(arg)) return opt_fail("unknown palette '%s' (see --help)", arg);
    ((flame_cli_t *)t)->fo.colors = arg;
    return 0;
}

static int set_bgcolors(void *t, const char *arg)
{
    flame_cli_t *c = t;
    free(c->bg);
    c->bg = strdup(arg);
    if (!c->bg) abort();
    char *comma = strchr(c->bg, ',');
    c->fo.bgcolor1 = c->bg;
    c->fo.bgcolor2 = comma ? comma + 1 : c->bg;
    if (comma) *comma = 0;
    return 0;
}

static int ignore(void *t, const char *arg) { return 0; } /* flamegraph.pl compatibility: colours are always stable */

static int run(int argc, char **argv, int is_diff)
{
    cli_input_t in;
    cli_input_init(&in);
    flame_cli_t c = {.bg = NULL};
    flame_opts_t *fo = &c.fo;
    flame_opts_defaults(fo);
    const char *output = NULL;
    int reverse = 0;
    const opt_t diff_opts[] = {
        OPT_BOOL("normalize", 'n',
                 "scale BEFORE to AFTER's total first (compare shapes of\n"
                 "profiles with different sample counts, or of different units)",
                 &fo->normalize),
        OPT_END,
    };
    const opt_t own[] = {
        OPT_STR("output", 'o', "FILE", "write here instead of stdout (atomic; never an input)", &output),
        OPT_STR("title", 0, "TEXT", "title (default \"Flame Graph\", \"Icicle Graph\", \"Flame Chart\")", &fo->title),
        OPT_STR("subtitle", 0, "TEXT", "second line under the title", &fo->subtitle),
        OPT_FN("width", 0, "PX", "image width (1200)", &c, set_width),
        OPT_FN("height", 0, "PX", "height of one frame (16)", &c, set_height),
        OPT_FN("minwidth", 0, "PX|N%",
               "drop frames narrower than PX pixels or N% of the total (0.1 px);\n"
               "the count of dropped frames is printed and kept in the SVG",
               &c, set_minwidth),
        OPT_FN("fontsize", 0, "N", "font size (12)", &c, set_fontsize),
        OPT_STR("fonttype", 0, "FONT", "font family (Verdana)", &fo->fonttype),
        OPT_FN("fontwidth", 0, "F", "average glyph width / font size (0.59)", &c, set_fontwidth),
        OPT_STR("countname", 0, "TEXT",
                "unit of counts in tooltips and the subtitle (default: the profile's\n"
                "own: samples, or the time/event of perf periods)",
                &fo->countname),
        OPT_STR("nametype", 0, "TEXT", "tooltip prefix (\"Function:\")", &fo->nametype),
        OPT_FN("colors", 0, "PALETTE",
               "js (default when there are JS frames: JS by tier, builtins, native,\n"
               "kernel, GC, with a legend), hot (default otherwise), mem, io, wakeup,\n"
               "java, perl, red, green, blue, aqua, yellow, purple, orange",
               &c, set_colors),
        OPT_FN("bgcolors", 0, "C1[,C2]", "background gradient colours", &c, set_bgcolors),
        OPT_BOOL("hash", 0, "colours by a hash weighted to the name's first characters", &fo->hash),
        OPT_FN("random", 0, NULL, NULL, NULL, ignore),
        OPT_FN("cp", 0, NULL, NULL, NULL, ignore),
        OPT_BOOL("reverse", 0, "reverse every stack (leaf at the bottom)", &reverse),
        OPT_BOOL("inverted", 0, "icicle graph: root at the top", &fo->inverted),
        OPT_BOOL("keep-unknown", 0,
                 "draw every [unknown] frame (default: a run of them, from a broken\n"
                 "unwind, is one frame \"[unknown] \xc3\x97N\")",
                 &fo->keep_unknown),
        OPT_BOOL("flamechart", 0, "x is time (inputs with a timeline: perf script, cpuprofile)", &fo->flamechart),
        OPT_BOOL("negate", 0, is_diff ? "swap red and blue" : "differential graphs: swap red and blue", &fo->negate),
        OPT_NUM("factor", 0, "F", "multiply counts shown (1)", &fo->factor),
        OPT_NUM("total", 0, "N", "100% is N instead of the sum of the input", &fo->total),
        OPT_STR("notes", 0, "TEXT", "embedded in the SVG's <desc>", &fo->notes),
        OPT_VERBOSITY,
        OPT_HELP,
        OPT_END,
    };
    const opt_t *flame_tables[] = {own, in.opts, NULL}, *diff_tables[] = {diff_opts, own, in.opts, NULL};
    const opt_cmd_t flame_cmd = {"flame",
                                 "usage: nodescope flame [OPTIONS] [FILE...|-]\n\n"
                                 "Draw an interactive SVG flame graph from any input collapse reads (perf script,\n"
                                 "DTrace, cpuprofile, folded); several files are merged. Hover for name, samples\n"
                                 "and share; click to zoom; Reset Zoom; Search (or Ctrl-F) highlights a regular\n"
                                 "expression and shows the matched share; Ctrl-I toggles ignore-case.\n",
                                 flame_tables, 0, NULL};
    const opt_cmd_t diff_cmd = {"diff",
                                "usage: nodescope diff [OPTIONS] BEFORE AFTER\n\n"
                                "Draw a differential flame graph: the shape of AFTER, each frame coloured by how\n"
                                "its total changed since BEFORE: red grew, blue shrank, white unchanged; the\n"
                                "tooltip shows both counts and the change. Inputs as for collapse; both must\n"
                                "weigh in the same unit (samples, or the same perf event's period).\n",
                                diff_tables, 0, NULL};
    const opt_cmd_t *cmd = is_diff ? &diff_cmd : &flame_cmd;
    int nfiles = opt_parse(cmd, argc, argv);
    if (nfiles < 0) {
        free(c.bg);
        return opt_exit_code(nfiles);
    }
    char **files = argv + 1;
    if (is_diff && nfiles != 2) {
        free(c.bg);
        return opt_usage_error(cmd, "diff takes two inputs, BEFORE and AFTER (got %d)", nfiles);
    }
    profile_t *p = profile_new(), *before = NULL;
    int rc = EXIT_FAIL;
    if (is_diff) {
        before = profile_new();
        if (cli_input_read(&in, files, 1, before) != 0 || cli_input_read(&in, files + 1, 1, p) != 0) goto done;
        /* different units are never compared count for count; their shares can be (--normalize) */
        if (fo->normalize && strcmp(profile_weight_unit(before), profile_weight_unit(p)))
            diag_warn(NULL, 0, "diff: %s weighs in %s, %s in %s: comparing shares only (--normalize)", files[0],
                      profile_weight_unit(before), files[1], profile_weight_unit(p));
        else if (profile_check_units("diff", files[0], before, files[1], p) != 0) goto done;
        fo->before = before;
    } else if (cli_input_read(&in, files, nfiles, p) != 0) {
        goto done;
    }
    if (p->total <= 0) {
        diag_error(nfiles ? files[nfiles - 1] : "<stdin>", 0, "no samples to draw");
        goto done;
    }
    write_opts_t wo = {.flame = fo};
    cli_input_write_opts(&in, &wo);
    if (flame_view(&p, &before, &wo, reverse) != 0) goto done; /* thread roots, --reverse */
    fo->before = before;
    wo.thread = NULL;
    if (!is_diff && fo->colors == NULL && p->total < 100 && !fo->countname &&
        !strcmp(p->weight_unit ? p->weight_unit : "samples", "samples"))
        diag_warn(NULL, 0, "stack count is low (%.0f); the graph may mislead", p->total);
    if (cli_write_profile(p, output, format_writer_by_name("svg"), &wo, files, nfiles) == 0) rc = EXIT_OK;
    /* always said (not only with -v): a graph missing frames should not look complete */
    if (fo->dropped && diag_verbosity >= 0)
        fprintf(stderr, "nodescope: %lu frames narrower than %g%s were not drawn (--minwidth)\n", fo->dropped,
                fo->minwidth, fo->minwidth_pct ? "%" : " px");
done:
    cli_input_free(&in);
    profile_free(p);
    profile_free(before);
    free(c.bg);
    return rc;
}

int cli_flame(int argc, char **argv) { return run(argc, argv, 0); }
int cli_diff(int argc, char **argv) { return run(argc, argv, 1); }
