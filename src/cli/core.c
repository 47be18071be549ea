/* nodescope core: look inside a Node.js core file, or a live process, after the fact.
 * Opens the target and V8's layout once, then runs one command from the command line or
 * many from the interactive prompt (cli/core_prompt.c). */
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

static const core_cmd_t commands[] = {
    {"stack", core_cmd_stack, "[-v] [-a] [--async] [--thread N|--all-threads] [--json]",
     "the JavaScript and native stack"},
    {"type", core_cmd_type, "ADDR", "the V8 type of a value"},
    {"v8print", core_cmd_v8print, "[--limit N] ADDR", "a heap object's fields by class, properties, elements"},
    {"internal", core_cmd_internal, "[--json] ADDR N",
     "embedder field N of an API object (a Node wrapper's C++ object)"},
    {"str", core_cmd_str, "[-v] ADDR", "a string, as UTF-8"},
    {"array", core_cmd_array, "[--limit N] ADDR", "the elements of a FixedArray or JS array"},
    {"print", core_cmd_print, "[-d DEPTH] [-a] [--json] ADDR|EXPR", "a JavaScript value, by address or path"},
    {"constructor", core_cmd_constructor, "[-v] ADDR|EXPR", "an object's constructor"},
    {"buffer", core_cmd_buffer, "[--hex | --raw -o FILE] ADDR|EXPR", "the bytes of a Buffer or ArrayBuffer"},
    {"closure", core_cmd_closure, "ADDR|EXPR", "the variables a closure captures"},
    {"source", core_cmd_source, "[-n LINES] ADDR|EXPR", "a function's source, with line numbers"},
    {"exception", core_cmd_exception, "[--thread N] [--json]", "the exception the program died of"},
    {"objects", core_cmd_objects, "[-v] [--min N] [--sort count|size] [--json]",
     "every JS object, grouped by constructor"},
    {"diff-objects", core_cmd_diff_objects, "[--json] [--all-objects] B",
     "what core B holds more than this one, by constructor"},
    {"instances", core_cmd_instances, "NAME [--limit N]", "the instances of one constructor"},
    {"find", core_cmd_find, "[NAME] --where 'PROP OP VALUE'", "objects whose property matches"},
    {"functions", core_cmd_functions, "[-v] [--min N] [--json]", "every function with its number of closures"},
    {"async", core_cmd_async, "[--group] [--json]", "suspended async functions and what they await"},
    {"pending", core_cmd_pending, "[--json]", "timers, sockets, requests, children keeping the loop alive"},
    {"refs", core_cmd_refs, "[--json] ADDR|EXPR", "every object holding ADDR directly, and through what"},
    {"retainers", core_cmd_retainers, "[--max-paths N] [--json] ADDR|EXPR", "the shortest paths keeping ADDR alive"},
    {"dominators", core_cmd_dominators, "[--top N] [--json]", "retained sizes: the biggest objects and constructors"},
    {"heapsnapshot", core_cmd_heapsnapshot, "-o FILE [--force]", "the heap as a V8 .heapsnapshot (DevTools, memlab)"},
    {"sample", core_cmd_sample, "[-F HZ] [-d SECONDS] [-o FILE]", "(--pid) a profile of the running process"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

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

void core_json_read(const core_session_t *s, jw_t *w)
{
    if (!s->live_mode) return;
    jw_string(w, "read", s->live_mode);
    if (strcmp(s->live_mode, "stop")) jw_fixed(w, "stopped_ms", 3, s->stopped_ms);
}

int core_need_v8(const core_session_t *s, const char *cmd)
{
    if (s->v) return 0;
    diag_error(target_name(s->t), 0, "%s needs V8's postmortem metadata, which %s lacks", cmd, target_exe_path(s->t));
    return -1;
}

int core_operands(const core_session_t *s, const opt_cmd_t *cmd, int n, char **argv, int min, int max,
                  const char *missing, int *rc)
{
    *rc = n < 0                           ? opt_exit_code(n)
          : n < min                       ? opt_usage_error(cmd, "%s", missing)
          : n > max                       ? opt_usage_error(cmd, "unexpected argument '%s'", argv[max + 1])
          : s->check_only                 ? EXIT_OK
          : core_need_v8(s, argv[0]) != 0 ? EXIT_FAIL
                                          : -1;
    return *rc < 0 ? n : -1;
}

/* One row of the command list: the name and its arguments in one column, then what it does. */
void core_print_command_row(FILE *f, const char *name, const char *args, const char *help)
{
    int n = fprintf(f, "  %s%s%s", name, *args ? " " : "", args);
    fprintf(f, "%*s %s\n", n < 62 ? 62 - n : 0, "", help);
}

void core_print_commands(FILE *f)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        core_print_command_row(f, commands[i].name, commands[i].args, commands[i].help);
}

int core_run_command(core_session_t *s, int argc, char **argv)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(argv[0], commands[i].name)) {
            int rc = commands[i].run(s, argc, argv);
            pm_graph_save_pending(); /* a graph this command built goes to the cache after its answer */
            return rc;
        }
    char names[256] = "";
    for (size_t i = 0; i < NCOMMANDS; i++)
        snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", i ? ", " : "", commands[i].name);
    return opt_usage_error(&(opt_cmd_t){"core", NULL, NULL, 0, NULL}, "unknown command '%s' (commands: %s)", argv[0],
                           names);
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
