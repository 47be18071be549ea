/* nodescope watch -p PID --heap: what grows in a running program's heap, by constructor, over
 * time (issue 31). Not built yet. */
#include "cli/cli.h"
#include "util/diag.h"
#include <stdio.h>

int cli_watch_heap(int argc, char **argv)
{
    (void)argc; (void)argv;
    fprintf(stderr, "nodescope watch: error: --heap is not built yet\n");
    return EXIT_FAIL;
}
