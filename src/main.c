/* nodescope: the subcommand table, and `help` (a command's manual page). */
#include "cli/cli.h"
#include "util/diag.h"
#include "util/privilege.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
    int live; /* may read other processes: keeps the capabilities (util/privilege.h), else drops them */
} commands[] = {
    {"collapse", cli_collapse, "fold stacks from perf script, DTrace, cpuprofile or folded input", 0},
    {"map", cli_map, "find, tidy and apply perf-PID.map JIT symbol maps", 0},
    {"flame", cli_flame, "draw an interactive SVG flame graph", 0},
    {"diff", cli_diff, "draw a differential flame graph of two profiles", 0},
    {"convert", cli_convert, "convert profiles (cpuprofile, folded, svg, perf script, DTrace)", 0},
    {"merge", cli_merge, "add or average several profiles", 0},
    {"top", cli_top, "the functions that take the time, and their hottest lines", 1},       /* drops without -p */
    {"record", cli_record, "profile a Node program or running node processes, no flags needed", 1},
    {"core", cli_core, "a Node core file or live process: stacks, values, heap, retainers", 1}, /* drops for a file */
    {"gcore", cli_gcore, "an ELF core of a running process, stopped only for a few ms", 1},
    {"watch", cli_watch, "watch a running process: what grows in its heap, or a core when it throws", 1},
    /* new commands: one line here, one file in src/cli/, one declaration in cli.h */
};

static void usage(FILE *f)
{
    fprintf(f, "usage: nodescope COMMAND [OPTIONS] [ARGS]\n\n"
               "Where a JavaScript program spends its time, and what it held when it died.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'nodescope COMMAND --help' describes a command, 'nodescope help COMMAND' shows its manual page.\n");
}

static const struct command *find_command(const char *name, size_t len)
{
    for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
        if (strlen(commands[i].name) == len && !strncmp(commands[i].name, name, len)) return &commands[i];
    return NULL;
}

/* The page's markdown beside this binary: the build tree's docs/commands/ (build/nodescope,
 * build/tst/nodescope) or an installed share/doc/nodescope/commands/ (PREFIX/bin/nodescope). */
static FILE *open_page(const char *page)
{
    static const char *const rel[] = {"/../docs/commands/", "/../../docs/commands/",
                                      "/../share/doc/nodescope/commands/"};
    char exe[PATH_MAX], path[2 * PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) return NULL;
    exe[n] = 0;
    char *slash = strrchr(exe, '/');
    if (!slash) return NULL;
    *slash = 0;
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
        if (snprintf(path, sizeof path, "%s%s%s.md", exe, rel[i], page) >= (int)sizeof path) continue;
        FILE *f = fopen(path, "r");
        if (f) return f;
    }
    return NULL;
}

/* nodescope help [CMD [TOPIC]]: the manual page nodescope-CMD[-TOPIC](1) when man has it
 * installed (make install); else the command's --help and its page's text (docs/commands/). */
static int help(int argc, char **argv)
{
    if (argc < 3) {
        usage(stdout);
        return EXIT_OK;
    }
    char page[128];
    snprintf(page, sizeof page, "%s%s%s", argv[2], argc > 3 ? "-" : "", argc > 3 ? argv[3] : "");
    size_t cmdlen = strcspn(page, "-");
    const struct command *c = find_command(page, cmdlen);
    if (!c || argc > 4 || strspn(page, "abcdefghijklmnopqrstuvwxyz0123456789-") != strlen(page)) {
        fprintf(stderr, "nodescope: error: no manual page for '%s'\nsee 'nodescope --help'\n", page);
        return EXIT_USAGE;
    }
    char cmd[200];
    snprintf(cmd, sizeof cmd, "man -w nodescope-%s >/dev/null 2>&1", page);
    if (!priv_env("NODESCOPE_HELP_NO_MAN") && system(cmd) == 0) {
        char name[140];
        snprintf(name, sizeof name, "nodescope-%s", page);
        fflush(stdout);
        execlp("man", "man", name, (char *)NULL);
    }
    FILE *f = open_page(page);
    int rc = EXIT_OK;
    if (!page[cmdlen]) { /* a command: its --help first */
        char *hargv[] = {(char *)c->name, "--help", NULL};
        rc = c->run(2, hargv);
        fflush(stdout);
    } else if (!strcmp(c->name, "core")) { /* a core command's help needs no core */
        char *hargv[] = {"core", "CORE", page + cmdlen + 1, "--help", NULL};
        rc = c->run(4, hargv);
        fflush(stdout);
        if (rc != EXIT_OK) return rc;
        if (f) fputs("\n", stdout);
    } else if (!f) {
        fprintf(stderr, "nodescope: error: no manual page for '%s'\nsee 'nodescope %s --help'\n", page, c->name);
        return EXIT_USAGE;
    }
    if (f) {
        char buf[4096];
        size_t n;
        fputs(page[cmdlen] ? "" : "\n", stdout);
        while ((n = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, n, stdout);
        fclose(f);
    } else {
        printf("\n(docs/commands/%s.md, the rest of this page, is not beside this binary: 'make install' puts it and "
               "the manual pages in place)\n",
               page);
    }
    return rc;
}

int main(int argc, char **argv)
{
    /* only a command that reads other processes keeps the capabilities it was installed with */
    const struct command *cmd = argc > 1 ? find_command(argv[1], strlen(argv[1])) : NULL;
    if ((!cmd || !cmd->live) && !(argc > 2 && !strcmp(argv[1], "--version"))) priv_drop();
    priv_scrub_env();
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (!strcmp(argv[1], "help")) return help(argc, argv);
    if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
        usage(stdout);
        return EXIT_OK;
    }
    if (!strcmp(argv[1], "--version")) return cli_version(argc - 1, argv + 1); /* -p PID: which facts for it */
    if (cmd) {
        int rc = cmd->run(argc - 1, argv + 1);
        /* structural, not case by case: a command that printed an error did not succeed */
        if (rc == EXIT_OK && diag_error_count() > 0) rc = EXIT_FAIL;
        return rc;
    }
    fprintf(stderr, "nodescope: error: unknown command '%s'\nsee 'nodescope --help'\n", argv[1]);
    return EXIT_USAGE;
}
