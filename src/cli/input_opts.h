/* The input options every profile-reading command shares (format, JIT symbol
 * resolution, time window, threads, source maps), declared in one option table
 * (util/options.h) and applied in one place. Each reader's own options (the perf
 * script reader's --pid, --kernel, ...) are declared by the reader
 * (format_reader_t.options) and spliced into the table after --format. */
#ifndef CLI_INPUT_OPTS_H
#define CLI_INPUT_OPTS_H
#include "formats/format.h"
#include "sourcemap/cache.h"
#include "symbols/jit_resolver.h"
#include "util/options.h"

#define CLI_INPUT_NOPTS 40
#define CLI_READER_OPTS_BYTES 256 /* room for every reader's options struct */

typedef struct {
    read_opts_t ro;       /* ro.reader_opts point into reader_mem */
    const char *perf_map; /* --perf-map, --jitdump: the resolver's source */
    const char *journal;
    int ambiguous, no_resolve, stats;
    jit_resolver_t *resolver;
    const char *thread;          /* --thread: write_opts_t.thread */
    int threads_merge;           /* --threads merge */
    int source_maps;             /* --source-maps 1, --no-source-maps 0, default -1 (when a script names a map) */
    int hide_ignored;            /* --hide-ignored */
    smap_cache_t *smaps;         /* the scripts' maps; holds --source-map-path */
    opt_t opts[CLI_INPUT_NOPTS]; /* the option table; its targets are this struct's fields */
    _Alignas(16) unsigned char reader_mem[CLI_READER_OPTS_BYTES]; /* the readers' options structs */
} cli_input_t;

/* Sets the defaults and fills in->opts: pass in->opts as one of the command's option tables. */
void cli_input_init(cli_input_t *in);
/* Option handlers (util/options.h OPT_FN) for --thread WHICH (a const char * target, checked)
 * and --threads roles|merge (an int target: 1 = merge); commands with their own tables use them. */
int cli_opt_thread(void *target, const char *arg);
int cli_opt_threads(void *target, const char *arg);
/* Sets up symbol resolution, reads every path (none = stdin) into p, maps JS frames through
 * their scripts' source maps (unless --no-source-maps), prints --stats. 0 or -1. */
int cli_input_read(cli_input_t *in, char **paths, int npaths, profile_t *p);
void cli_input_free(cli_input_t *in);
/* The thread choice (--thread, --threads) into wo. */
void cli_input_write_opts(const cli_input_t *in, write_opts_t *wo);

#endif
