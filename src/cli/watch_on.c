/* nodescope watch -p PID --on EVENT [-o DIR] [--max N]: a core of a running process the moment
 * EVENT happens. The options here; the watch, the events and the cores in postmortem/watch_on.c. */
#include "postmortem/watch_on.h"
#include "cli/cli.h"
#include "util/diag.h"
#include "util/options.h"
#include <string.h>

static const char usage[] =
    "usage: nodescope watch -p PID --on EVENT [-o DIR] [--max N] [-v]\n\n"
    "Watch a running Node process, started with no flag, and write a core of it (into DIR) the\n"
    "moment EVENT happens; `nodescope core FILE ...` reads it (stack, exception, objects, print...).\n"
    "EVENT is one of:\n"
    "  uncaught     an uncaught exception, before node prints it and exits (`core FILE exception`\n"
    "               prints the thrown value); the program then prints and exits as it would have\n"
    "  exit         the process exiting (process.exit, a fatal exception, the loop ran dry), its\n"
    "               heap still whole\n"
    "  oom          the heap at its limit, before node's fatal out-of-memory error\n"
    "  signal:SIG   SIG (USR2, SIGUSR2, 12...) being delivered; the program then gets it unchanged\n"
    "  heap:PCT     V8's heap above PCT percent of its limit (polled twice a second while the\n"
    "               process runs; re-armed when it falls below)\n"
    "Until the event the process runs untouched (its threads are traced: each signal it gets is\n"
    "handed straight back); at the event it is stopped only while it forks a frozen copy (a few\n"
    "ms), the core is written from the copy. Each core's path is printed on stderr as it is\n"
    "written. Ends after --max cores, when the process exits, or on SIGINT/SIGTERM; a nodescope\n"
    "killed by SIGKILL leaves the process running and untraced.\n";

int cli_watch_on(int argc, char **argv)
{
    long pid = 0, max = 1;
    const char *on = NULL, *dir = ".";
    int verbose = 0;
    const opt_t opts[] = {
        OPT_INT("pid", 'p', "PID", "the process to watch", &pid),
        OPT_STR("on", 0, "EVENT", "uncaught, exit, oom, signal:SIG or heap:PCT", &on),
        OPT_STR("output", 'o', "DIR", "the directory the cores are written to, made if missing (default: .)", &dir),
        OPT_INT("max", 0, "N", "write at most N cores, then stop watching (default 1)", &max),
        OPT_BOOL("verbose", 'v', "say how long the process was stopped for each core", &verbose),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"watch", usage, tables, 0, NULL};
    /* `watch --on --help` (what `watch --help` suggests): --on would take --help as its event */
    for (int i = 1; i < argc && strcmp(argv[i], "--"); i++)
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            char *help[] = {argv[0], "--help", NULL};
            return opt_exit_code(opt_parse(&cmd, 2, help));
        }
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (n > 0) return opt_usage_error(&cmd, "unexpected argument '%s'", argv[1]);
    if (pid <= 0 || pid > 0x7fffffff)
        return opt_usage_error(&cmd, pid ? "not a process id: %ld" : "which process? (-p PID)", pid);
    if (!on) return opt_usage_error(&cmd, "which event? (--on EVENT)");
    if (max < 1) return opt_usage_error(&cmd, "--max needs a positive count, not %ld", max);
    pm_watch_event_t ev;
    char err[8192];
    if (pm_watch_parse(on, &ev, err, sizeof err) != 0) return opt_usage_error(&cmd, "%s", err);
    if (pm_watch_cores_dir(dir) != 0) return EXIT_FAIL;
    return pm_watch_run(pid, &ev, on, dir, max, verbose);
}
