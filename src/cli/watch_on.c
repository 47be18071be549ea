/* nodescope watch -p PID --on EVENT: a core the moment EVENT happens (issue 30). Not built yet. */
#include "cli/cli.h"
#include "util/diag.h"
#include <stdio.h>

int cli_watch_on(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "nodescope watch: error: --on is not built yet\n");
    return EXIT_FAIL;
}
