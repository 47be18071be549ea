/* The interactive prompt of `nodescope core CORE`: the target and V8's layout are opened once and
 * every command runs against them. Line editing and history through libedit when stdin is a
 * terminal; otherwise commands are read line by line, without prompts, for scripts. */
#include "cli/core_cmds.h"
#include "util/diag.h"
#include "util/privilege.h"
#include <editline/readline.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_ARGS 64
#define HISTORY_FILE ".nodescope_history"

/* Splits line in place into words; '...' and "..." group words. Returns the count, -1 on an open quote. */
static int split(char *line, char **argv, int max)
{
    int argc = 0;
    char *r = line, *w = line;
    while (*r) {
        while (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r') r++;
        if (!*r) break;
        if (argc == max) return -1;
        argv[argc++] = w;
        while (*r && *r != ' ' && *r != '\t' && *r != '\n' && *r != '\r') {
            if (*r == '\'' || *r == '"') {
                char q = *r++;
                while (*r && *r != q) *w++ = *r++;
                if (!*r) return -1;
                r++;
            } else {
                *w++ = *r++;
            }
        }
        if (*r) r++;
        *w++ = 0;
    }
    return argc;
}

static char *history_path(void)
{
    const char *home = getenv("HOME");
    if (!home || !*home) return NULL;
    size_t n = strlen(home) + sizeof HISTORY_FILE + 2;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s", home, HISTORY_FILE);
    return p;
}

/* The session's exit status is its last command's: errors before it are forgotten
 * (an error in one command does not end the session, nor decide how it ends). */
static int last_rc;
static unsigned long base_errors;

/* Runs one line; returns 1 when the session should end. */
static int run_line(core_session_t *s, char *line)
{
    char *argv[MAX_ARGS];
    int argc = split(line, argv, MAX_ARGS);
    if (argc == 0) return 0;
    if (argc > 0 && (!strcmp(argv[0], "quit") || !strcmp(argv[0], "exit") || !strcmp(argv[0], "q"))) return 1;
    diag_set_error_count(base_errors);
    last_rc = EXIT_OK;
    if (argc < 0) {
        diag_error(NULL, 0, "core: unbalanced quotes or too many words");
        last_rc = EXIT_USAGE;
        return 0;
    }
    if (!strcmp(argv[0], "help") || !strcmp(argv[0], "?")) {
        core_print_commands(stdout);
        core_print_command_row(stdout, "help", "", "this list (COMMAND --help for one)");
        core_print_command_row(stdout, "quit", "", "leave (also exit, q, Ctrl-D)");
        return 0;
    }
    last_rc = core_run_command(s, argc, argv);
    fflush(stdout);
    return 0;
}

int core_prompt(core_session_t *s)
{
    base_errors = diag_error_count();
    last_rc = EXIT_OK;
    if (!isatty(STDIN_FILENO)) {
        char *line = NULL;
        size_t cap = 0;
        while (getline(&line, &cap, stdin) >= 0)
            if (run_line(s, line)) break;
        free(line);
        return last_rc;
    }
    char *hist = history_path();
    using_history();
    priv_user_begin(); /* $HOME is the user's: its history read and written with the user's rights */
    if (hist) read_history(hist);
    priv_user_end();
    printf("nodescope core: %s (V8 %s). Type help for the commands, quit to leave.\n", target_name(s->t),
           s->v ? v8_version(s->v) : "metadata missing");
    for (;;) {
        char *line = readline("> ");
        if (!line) { /* Ctrl-D */
            printf("\n");
            break;
        }
        if (*line) add_history(line);
        int done = run_line(s, line);
        free(line);
        if (done) break;
    }
    if (hist) {
        priv_user_begin();
        write_history(hist);
        priv_user_end();
        free(hist);
    }
    return last_rc;
}
