/* nodescope core: look inside a Node.js core file, or a live process, after the fact.
 * Opens the target and V8's layout once, then runs one command from the command line or
 * many from the interactive prompt (cli/core_prompt.c); the commands are cli/core_table.c's. */
#include "cli/cli.h"
#include "cli/core_cmds.h"
#include "postmortem/heapsnapshot_census.h"
#include "postmortem/snapshot.h"
#include "util/diag.h"
#include "util/options.h"
#include "util/privilege.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char core_usage_text[] =
    "usage: nodescope core CORE [--node BIN] [--root DIR] [COMMAND [ARGS]]\n"
    "       nodescope core --pid PID [--snapshot|--live|--stop] [-v] [COMMAND [ARGS]]\n\n"
    "Look inside a Node.js core file (gcore, or the kernel's) or a live process. A live process is\n"
    "stopped only while its threads' registers are read and it is made to fork a frozen copy of\n"
    "itself (--snapshot, the default: a few ms; symbols and V8's metadata are loaded before); every\n"
    "command reads the copy while the process runs on, and the copy is killed when nodescope exits.\n"
    "--live reads the running process itself (stopped only to copy registers and stacks: its heap\n"
    "may move under the reads; sample's default); --stop holds it stopped until nodescope exits.\n"
    "-v prints how long it was stopped. The node executable is found from the\n"
    "core; --node overrides it. A process in a container is read through its own root\n"
    "(/proc/PID/root); a core from one with --root DIR (its files under DIR) or --node.\n"
    "Without a command: an interactive prompt where every command works on the same core\n"
    "(its exit status is the last command's). `nodescope core CORE COMMAND --help` describes\n"
    "a command.\n";

static void core_epilog(FILE *f)
{
    fprintf(f, "\ncommands:\n");
    core_print_commands(f);
}

int cli_core(int argc, char **argv)
{
    const char *node = NULL, *root = NULL;
    long pid = 0;
    int stop = 0, live = 0, snapshot = 0, verbose = 0;
    const opt_t opts[] = {
        OPT_STR("node", 0, "BIN", "the node executable the core came from", &node),
        OPT_STR("root", 0, "DIR",
                "a core from a container: the directory its paths are under\n"
                "(e.g. /proc/PID/root of a process of that container; --node BIN stays a path here)",
                &root),
        OPT_INT("pid", 0, "PID", "a live process instead of a core file", &pid),
        OPT_BOOL("snapshot", 0,
                 "with --pid (the default but for sample): read a frozen copy of the process, forked\n"
                 "while it was stopped for its registers (a few ms); it runs on",
                 &snapshot),
        OPT_BOOL("live", 0,
                 "with --pid: read the running process itself (registers and stacks copied in a\n"
                 "short stop; the heap may change under the reads)",
                 &live),
        OPT_BOOL("stop", 0, "with --pid: keep the process stopped while nodescope runs", &stop),
        OPT_BOOL("verbose", 'v', "with --pid: say how long the process was stopped", &verbose),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core", core_usage_text, tables, OPT_STOP_AT_OPERAND, NULL};
    /* options stop at the first operand: CORE (then options again), or with --pid the command */
    int n = opt_parse(&cmd, argc, argv);
    if (n == OPT_HELP_SHOWN) core_epilog(stdout);
    if (n < 0) return opt_exit_code(n);
    char **rest = argv + 1;
    const char *core = NULL;
    if (!pid && n > 0) {
        core = rest[0];
        n = opt_parse(&cmd, n, rest); /* rest[0] (CORE) plays argv[0] */
        if (n == OPT_HELP_SHOWN) core_epilog(stdout);
        if (n < 0) return opt_exit_code(n);
        rest++;
    }
    if (pid < 0 || pid > 0x7fffffff) return opt_usage_error(&cmd, "--pid needs a process id, not %ld", pid);
    if (!core && !pid) return opt_usage_error(&cmd, "which core file (or --pid PID)?");
    if (core && pid) return opt_usage_error(&cmd, "a core file or --pid, not both");
    core_session_t s = {NULL, NULL, 0, NULL, 0, NULL};
    for (int k = 1; k < n; k++) /* a command's --help needs no target */
        if (!strcmp(rest[k], "-h") || !strcmp(rest[k], "--help")) return core_run_command(&s, n, rest);
    if ((stop || live || snapshot) && !pid)
        return opt_usage_error(&cmd, "--%s goes with --pid", stop ? "stop" : live ? "live" : "snapshot");
    if (stop + live + snapshot > 1) return opt_usage_error(&cmd, "one of --snapshot, --live and --stop");
    /* sample profiles the running process: it never reads a copy */
    if (pid && !stop && !live && !snapshot && !(n > 0 && !strcmp(rest[0], "sample"))) snapshot = 1;
    if (snapshot && n > 0 && !strcmp(rest[0], "sample"))
        return opt_usage_error(&cmd, "sample reads the running process: not with --snapshot");
    if (root && pid)
        return opt_usage_error(&cmd, "--root is for a core file: with --pid the process's own root is read");
    if (!pid) priv_drop(); /* a core file is read with the user's own rights */
    if (priv_check_path("--root", root, R_OK | X_OK) || priv_check_path("--node", node, R_OK)) return EXIT_FAIL;
    if (n > 0) { /* a usage error is reported before a process is stopped or a core mapped */
        char **copy = malloc((size_t)n * sizeof *copy);
        if (!copy) abort();
        memcpy(copy, rest, (size_t)n * sizeof *copy);
        core_session_t check = {NULL, NULL, 1, NULL, 0, NULL};
        int rc = core_run_command(&check, n, copy);
        free(copy);
        if (rc != EXIT_OK) return rc;
    }
    if (core && pm_is_heapsnapshot(core)) { /* V8's heap snapshot, not a core: only compared */
        if (n < 1 || strcmp(rest[0], "diff-objects")) {
            diag_error(core, 0,
                       "a .heapsnapshot, not a core: only diff-objects reads one (nodescope core "
                       "A.heapsnapshot diff-objects B.heapsnapshot)");
            return EXIT_FAIL;
        }
        s.heapsnapshot = core;
        return core_run_command(&s, n, rest);
    }
    double stopped_ms = 0;
    int failed;
    if (pid && snapshot) { /* a copy, taken outside a garbage collection */
        failed = pm_open_frozen((int)pid, &s.t, &s.v, &stopped_ms, NULL) != 0;
    } else {
        s.t = pid ? target_open_running((int)pid) : target_open_core_root(core, node, root);
        /* everything slow (symbols, V8's metadata) is loaded before the process is stopped */
        s.v = s.t ? v8_open(s.t) : NULL;
        failed = !s.t || (pid && (stop ? target_stop(s.t) : target_snapshot(s.t, &stopped_ms)) != 0);
    }
    if (failed) {
        if (pid) target_ptrace_hint((int)pid);
        v8_close(s.v);
        if (s.t) target_close(s.t);
        return EXIT_FAIL;
    }
    if (pid) s.live_mode = stop ? "stop" : snapshot ? "snapshot" : "live", s.stopped_ms = stopped_ms;
    if (pid && verbose && !stop)
        fprintf(stderr,
                snapshot ? "nodescope: pid %ld stopped for %.2f ms (snapshot; the fork took %.2f ms)\n"
                         : "nodescope: pid %ld stopped for %.2f ms (live)\n",
                pid, stopped_ms, target_fork_ms(s.t));
    int rc = n > 0 ? core_run_command(&s, n, rest) : core_prompt(&s);
    /* the node read is not the one the process runs: what came from V8 cannot be trusted */
    if (target_problem(s.t)) {
        diag_error(target_name(s.t), 0, "%s: %s",
                   s.v ? "JavaScript frames and values read with the wrong V8 metadata" : "no V8 found",
                   target_problem(s.t));
        rc = EXIT_FAIL;
    }
    v8_close(s.v);
    target_close(s.t);
    return rc;
}
