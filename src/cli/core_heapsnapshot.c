/* nodescope core ... heapsnapshot -o FILE: the heap as a V8 heap snapshot, for DevTools' Memory
 * panel, memlab and v8-heapsnapshot (the writer: postmortem/heapsnapshot.c). */
#include "cli/core_cmds.h"
#include "postmortem/heapsnapshot.h"
#include "util/diag.h"
#include "util/options.h"
#include <string.h>
#include <sys/stat.h>

int core_cmd_heapsnapshot(core_session_t *s, int argc, char **argv)
{
    static const char usage[] = "usage: nodescope core CORE heapsnapshot -o FILE.heapsnapshot [--force]\n\n"
                                "Writes the heap as a V8 heap snapshot, for Chrome DevTools' Memory panel, memlab or\n"
                                "v8-heapsnapshot: objects with their constructor names and sizes, references named as\n"
                                "properties, elements, context variables, internal and weak edges, and the roots.\n";
    const char *out = NULL;
    int force = 0;
    const opt_t opts[] = {
        OPT_STR("output", 'o', "FILE", "where to write the snapshot (required)", &out),
        OPT_BOOL("force", 'f', "replace FILE if it exists", &force),
        OPT_NO_CACHE,
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core heapsnapshot", usage, tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (n > 0) return opt_usage_error(&cmd, "unexpected argument '%s'", argv[1]);
    if (!out || !*out) return opt_usage_error(&cmd, "where to? (-o FILE.heapsnapshot)");
    if (s->check_only) return 0;
    if (core_need_v8(s, argv[0]) != 0) return 1;
    struct stat st;
    if (!force && strcmp(out, "-") && stat(out, &st) == 0) {
        diag_error(out, 0, "exists; use --force to replace it");
        return 1;
    }
    return pm_heapsnapshot_write(s->v, out);
}
