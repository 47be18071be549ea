/* nodescope: the subcommand table, nothing else. */
#include "cli/cli.h"
#include "util/diag.h"
#include <stdio.h>
#include <string.h>

static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"collapse", cli_collapse, "fold stacks from perf script, DTrace, cpuprofile or folded input"},
    {"map", cli_map, "find, tidy and apply perf-PID.map JIT symbol maps"},
    {"flame", cli_flame, "draw an interactive SVG flame graph"},
    {"diff", cli_diff, "draw a differential flame graph of two profiles"},
    {"convert", cli_convert, "convert profiles (cpuprofile, folded, svg, perf script, DTrace)"},
    {"merge", cli_merge, "add or average several profiles"},
    {"top", cli_top, "the functions that take the time, and their hottest lines"},
    {"record", cli_record, "profile a Node program with perf and correct JIT names by time"},
    {"core", cli_core, "stacks of a Node.js core file or live process"},
    {"gcore", cli_gcore, "an ELF core of a running process, stopped only for a few ms"},
    {"watch", cli_watch, "watch a running process: what grows in its heap, or a core when it throws"},
    /* new commands: one line here, one file in src/cli/, one declaration in cli.h */
};

static void usage(FILE *f)
{
    fprintf(f, "usage: nodescope COMMAND [OPTIONS] [ARGS]\n\n"
               "Where a JavaScript program spends its time, and what it held when it died.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'nodescope COMMAND --help' describes a command.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
        usage(stdout);
        return EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) {
        puts("nodescope " NODESCOPE_VERSION);
        return EXIT_OK;
    }
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++) {
        if (strcmp(argv[1], commands[i].name)) continue;
        int rc = commands[i].run(argc - 1, argv + 1);
        /* structural, not case by case: a command that printed an error did not succeed */
        if (rc == EXIT_OK && diag_error_count() > 0) rc = EXIT_FAIL;
        return rc;
    }
    fprintf(stderr, "nodescope: error: unknown command '%s'\nsee 'nodescope --help'\n", argv[1]);
    return EXIT_USAGE;
}
