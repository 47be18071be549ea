/* nodescope watch: watch a running process from outside. Two modes, one file each:
 *   watch -p PID --heap ...   what grows in the heap, by constructor (cli/watch_heap.c)
 *   watch -p PID --on EVENT   a snapshot the moment EVENT happens (cli/watch_on.c)
 * This file only picks the mode; each mode parses its own options. */
#include "cli/cli.h"
#include "util/diag.h"
#include "util/options.h"
#include <stdio.h>
#include <string.h>

static const char usage[] = "usage: nodescope watch -p PID --heap [--every 30s] [-d DURATION] [-o REPORT]\n"
                            "   or: nodescope watch -p PID --on EVENT [-o DIR]\n\n"
                            "Watch a running Node process from outside: what grows in its heap (--heap), or a core\n"
                            "the moment something happens (--on). 'nodescope watch --heap --help' and\n"
                            "'nodescope watch --on --help' describe each.\n";

int cli_watch(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--")) break;
        if (!strcmp(argv[i], "--heap")) return cli_watch_heap(argc, argv);
        if (!strcmp(argv[i], "--on") || !strncmp(argv[i], "--on=", 5)) return cli_watch_on(argc, argv);
    }
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(usage, stdout);
            return EXIT_OK;
        }
    const opt_cmd_t cmd = {"watch", usage, NULL, 0, NULL};
    return opt_usage_error(&cmd, "say what to watch: --heap or --on EVENT");
}
