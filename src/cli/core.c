/* nodescope core: look inside a Node.js core file, or a live process, after the fact.
 * Opens the target and V8's layout once, then runs one command from the command line or
 * many from the interactive prompt (cli/core_prompt.c). */
#include "cli/cli.h"
#include "cli/core_cmds.h"
#include "util/diag.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const core_cmd_t commands[] = {
    {"stack", core_cmd_stack, "[-v] [-a] [--thread N|--all-threads] [--json]", "the JavaScript and native stack"},
    {"type", core_cmd_type, "ADDR", "the V8 type of a value"},
    {"v8print", core_cmd_v8print, "[--limit N] ADDR", "a heap object's fields by class, properties, elements"},
    {"str", core_cmd_str, "[-v] ADDR", "a string, as UTF-8"},
    {"array", core_cmd_array, "[--limit N] ADDR", "the elements of a FixedArray or JS array"},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

static void core_usage(FILE *f)
{
    fprintf(f, "usage: nodescope core CORE [--node BIN] [COMMAND [ARGS]]\n"
               "       nodescope core --pid PID [COMMAND [ARGS]]\n\n"
               "Look inside a Node.js core file (gcore, or the kernel's) or a live process (stopped only\n"
               "while it is read). The node executable is found from the core; --node overrides it.\n"
               "Without a command: an interactive prompt where every command works on the same core.\n\n"
               "commands:\n");
    core_print_commands(f);
    fprintf(f, "\noptions:\n"
               "  --node BIN   the node executable the core came from\n"
               "  --pid PID    a live process instead of a core file\n"
               "  -h, --help   this text; `nodescope core CORE COMMAND --help` for a command\n");
}

int core_parse_addr(const char *cmd, const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 0);
    if (errno || end == s || *end) {
        fprintf(stderr, "nodescope: core %s: '%s' is not an address (try 0x...)\n", cmd, s);
        return -1;
    }
    *out = x;
    return 0;
}

int core_need_v8(const core_session_t *s, const char *cmd)
{
    if (s->v) return 0;
    diag_error(target_name(s->t), 0, "%s needs V8's postmortem metadata, which %s lacks", cmd, target_exe_path(s->t));
    return -1;
}

void core_print_commands(FILE *f)
{
    for (size_t i = 0; i < NCOMMANDS; i++) fprintf(f, "  %-8s %-48s %s\n", commands[i].name, commands[i].args, commands[i].help);
}

int core_run_command(core_session_t *s, int argc, char **argv)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (!strcmp(argv[0], commands[i].name)) return commands[i].run(s, argc, argv);
    fprintf(stderr, "nodescope: core: unknown command '%s' (commands:", argv[0]);
    for (size_t i = 0; i < NCOMMANDS; i++) fprintf(stderr, " %s", commands[i].name);
    fprintf(stderr, ")\n");
    return EXIT_USAGE;
}

int cli_core(int argc, char **argv)
{
    const char *core = NULL, *node = NULL;
    int pid = 0, i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            core_usage(stdout);
            return EXIT_OK;
        } else if (!strcmp(a, "--node") && i + 1 < argc) {
            node = argv[++i];
        } else if (!strcmp(a, "--pid") && i + 1 < argc) {
            char *end;
            pid = (int)strtol(argv[++i], &end, 10);
            if (*end || pid <= 0) {
                fprintf(stderr, "nodescope: core: --pid needs a process id, not '%s'\n", argv[i]);
                return EXIT_USAGE;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "nodescope: core: unknown option '%s'\n", a);
            core_usage(stderr);
            return EXIT_USAGE;
        } else if (!core && !pid) {
            core = a;
        } else {
            break;   /* the command and its arguments */
        }
    }
    if (!core && !pid) {
        core_usage(stderr);
        return EXIT_USAGE;
    }
    if (i < argc && (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))) {
        core_usage(stdout);
        return EXIT_OK;
    }
    core_session_t s = {NULL, NULL};
    for (int k = i + 1; k < argc; k++)   /* a command's --help needs no target */
        if (!strcmp(argv[k], "-h") || !strcmp(argv[k], "--help")) return core_run_command(&s, argc - i, argv + i);
    s.t = pid ? target_open_pid(pid) : target_open_core(core, node);
    if (!s.t) return EXIT_FAIL;
    s.v = v8_open(s.t);
    int rc = i < argc ? core_run_command(&s, argc - i, argv + i) : core_prompt(&s);
    v8_close(s.v);
    target_close(s.t);
    return rc;
}
