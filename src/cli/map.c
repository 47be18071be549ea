/* nodescope map find|tidy|update|stats: inspect and repair perf-PID.map files (the options and
 * the output; what tidy, stats and update compute is formats/perfmap_tools.c, the text of find
 * and stats formats/perfmap_report.c). */
#include "cli/cli.h"
#include "formats/perfmap_report.h"
#include "formats/perfmap_tools.h"
#include "symbols/jit_resolver.h"
#include "symbols/jitdump.h"
#include "util/diag.h"
#include "util/input.h"
#include "util/options.h"
#include "util/output.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

static int parse_addr(const char *s, uint64_t *out)
{
    char *end;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
    *out = strtoull(s, &end, 16);
    if (!*s || *end) {
        diag_error(NULL, 0, "'%s' is not a hexadecimal address", s);
        return -1;
    }
    return 0;
}

static int map_find(perfmap_t *m, const char *addr_text)
{
    uint64_t addr;
    if (parse_addr(addr_text, &addr)) return EXIT_USAGE;
    return perfmap_find_write(m, addr, stdout) ? EXIT_OK : EXIT_FAIL;
}

static int map_tidy(perfmap_t *m, const char *out_path, char **inputs)
{
    output_t out;
    if (output_open(&out, out_path, inputs, 1) != 0) return EXIT_FAIL;
    size_t nkeep = perfmap_tidy_write(m, out.f);
    int rc = output_commit(&out) == 0 ? EXIT_OK : EXIT_FAIL;
    diag_info("%s: kept %zu of %zu entries (%zu overlapped by a later entry)", m->path, nkeep, m->n, m->n - nkeep);
    return rc;
}

static int map_update(const char *map_path, const char *stacks, const char *out_path, jit_ambiguous_t policy,
                      const char *journal, char **inputs)
{
    jit_resolver_t *r = jit_resolver_new(map_path, policy);
    if (!r) return EXIT_FAIL;
    if (journal && jit_resolver_load_journal(r, journal) != 0) {
        jit_resolver_free(r);
        return EXIT_FAIL;
    }
    input_t *in = input_open(stacks);
    output_t out;
    if (!in || output_open(&out, out_path, inputs, 2) != 0) {
        input_close(in);
        jit_resolver_free(r);
        return EXIT_FAIL;
    }
    int rc = perf_script_relabel(r, in, out.f);
    input_close(in);
    if (rc < 0) {
        output_abort(&out);
        jit_resolver_free(r);
        return EXIT_FAIL;
    }
    if (diag_verbosity > 0) jit_resolver_print_stats(r);
    jit_resolver_free(r);
    return output_commit(&out) == 0 ? EXIT_OK : EXIT_FAIL;
}

static int set_ambiguous(void *t, const char *arg)
{
    if ((*(int *)t = jit_ambiguous_parse(arg)) < 0)
        return opt_fail("--ambiguous takes newest, oldest or mark, not '%s'", arg);
    return 0;
}

int cli_map(int argc, char **argv)
{
    const char *out = NULL, *journal = NULL;
    int policy = JIT_AMBIGUOUS_MARK;
    const opt_t opts[] = {
        OPT_STR("output", 'o', "FILE", "write here instead of stdout (atomic; never the input)", &out),
        OPT_FN("ambiguous", 0, "newest|oldest|mark", "update: the name of an address several entries cover", &policy,
               set_ambiguous),
        OPT_STR("map-journal", 0, "J", "update: the map's growth over time, from 'nodescope record --keep'", &journal),
        OPT_VERBOSITY,
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {
        "map",
        "usage: nodescope map find MAP ADDR\n"
        "       nodescope map tidy MAP [-o OUT]\n"
        "       nodescope map update MAP STACKS [-o OUT] [--ambiguous newest|oldest|mark] [--map-journal J]\n"
        "       nodescope map stats MAP\n"
        "\n"
        "perf-PID.map files (V8 --perf-basic-prof, JSC, Java perf-map-agent, Python -X perf, .NET)\n"
        "list 'START SIZE name'. Runtimes reuse freed code space, so later entries claim\n"
        "addresses earlier ones had, and perf labels samples with stale names.\n"
        "\n"
        "  find    every entry covering ADDR (hex) in file order with its line number; the newest is marked\n"
        "  tidy    drop entries overlapped by a later one; print the rest sorted by address (perf-map format)\n"
        "  update  rewrite 'perf script' text: frames the map covers get the chosen name, other lines\n"
        "          pass through byte for byte (--ambiguous: mark [default], newest, oldest; with\n"
        "          --map-journal J from 'nodescope record --keep', each sample by its time)\n"
        "  stats   entries, overlapping entries, reused ranges, and kinds of code; a map without\n"
        "          entries is an error (exit 1): the process wrote none, or this is not a perf map\n",
        tables, 0, NULL};
    int nargs = opt_parse(&cmd, argc, argv);
    if (nargs < 0) return opt_exit_code(nargs);
    char **args = argv + 1;
    static const struct {
        const char *name;
        int nargs;
        const char *operands;
    } subs[] = {{"find", 3, "MAP ADDR"}, {"tidy", 2, "MAP"}, {"update", 3, "MAP STACKS"}, {"stats", 2, "MAP"}};
    if (nargs == 0) return opt_usage_error(&cmd, "which map command? (find, tidy, update, stats)");
    int which = -1;
    for (int i = 0; i < 4; i++)
        if (!strcmp(args[0], subs[i].name)) which = i;
    if (which < 0) return opt_usage_error(&cmd, "unknown map command '%s' (find, tidy, update, stats)", args[0]);
    if (nargs != subs[which].nargs)
        return opt_usage_error(&cmd, "map %s takes %s, not %d argument%s", subs[which].name, subs[which].operands,
                               nargs - 1, nargs == 2 ? "" : "s");
    if (which == 2) return map_update(args[1], args[2], out, (jit_ambiguous_t)policy, journal, args + 1);
    perfmap_t *m = jitdump_or_perfmap_load(args[1]);
    if (!m) return EXIT_FAIL;
    int rc;
    switch (which) {
    case 0: rc = map_find(m, args[2]); break;
    case 1: rc = map_tidy(m, out, args + 1); break;
    default: rc = perfmap_stats_write(m, stdout) == 0 ? EXIT_OK : EXIT_FAIL; break;
    }
    perfmap_free(m);
    return rc;
}
