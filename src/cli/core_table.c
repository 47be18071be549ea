/* The core commands: the table (name, function, arguments, what it does), the list of them for
 * --help and the prompt, and the run of one by name. Above the commands (cli/core_*.c); below the
 * prompt (cli/core_prompt.c) and `nodescope core` (cli/core.c). */
#include "cli/core_cmds.h"
#include "postmortem/graph_session.h"
#include "util/options.h"
#include <stdio.h>
#include <string.h>

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
