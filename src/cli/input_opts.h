/* The input options every profile-reading command shares (format, perf script
 * folding, JIT symbol resolution, time window), parsed and applied in one place. */
#ifndef CLI_INPUT_OPTS_H
#define CLI_INPUT_OPTS_H
#include <getopt.h>
#include "formats/format.h"
#include "symbols/jit_resolver.h"

typedef struct {
    read_opts_t ro;
    const char *journal;
    int ambiguous, no_resolve, stats;
    jit_resolver_t *resolver;
    const char *thread;        /* --thread: write_opts_t.thread */
    int threads_merge;         /* --threads merge */
} cli_input_t;

/* Text for --help, one option per line. */
extern const char cli_input_help[];

void cli_input_init(cli_input_t *in);
/* A long-option table: the command's own options followed by the input options. */
struct option *cli_input_longopts(const struct option *own);
/* Handles an option code from getopt_long: 1 handled, 0 not an input option, -1 usage error (printed). */
int cli_input_option(cli_input_t *in, int code, const char *arg);
/* Sets up symbol resolution, reads every path (none = stdin) into p, prints --stats. 0 or -1. */
int cli_input_read(cli_input_t *in, char **paths, int npaths, profile_t *p);
void cli_input_free(cli_input_t *in);
/* The thread choice (--thread, --threads) into wo. */
void cli_input_write_opts(const cli_input_t *in, write_opts_t *wo);

#endif
