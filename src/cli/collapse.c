/* nodescope collapse: fold stacks from any input into folded text. */
#include "cli/cli.h"
#include "cli/input_opts.h"
#include "util/bigmem.h"
#include "util/diag.h"
#include <stdio.h>
#include <string.h>

int cli_collapse(int argc, char **argv)
{
    cli_input_t in;
    cli_input_init(&in);
    const char *output = NULL;
    const opt_t own[] = {
        OPT_STR("output", 'o', "FILE", "write here instead of stdout (atomic; never an input)", &output),
        OPT_VERBOSITY,
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {own, in.opts, NULL};
    char usage[1024];
    snprintf(usage, sizeof usage,
             "usage: nodescope collapse [OPTIONS] [FILE...|-]\n"
             "\n"
             "Fold stacks into one line per unique stack, 'frame;frame;frame COUNT',\n"
             "the input of flame graph tools. Inputs are detected: perf script output,\n"
             "DTrace ustack()/jstack() aggregations, .cpuprofile, folded stacks (known: %s).\n"
             "Several files are merged. Output is sorted byte-wise like stackcollapse-perf.pl.\n",
             format_reader_names());
    const opt_cmd_t cmd = {"collapse", usage, tables, 0, NULL};
    int nfiles = opt_parse(&cmd, argc, argv);
    if (nfiles < 0) return opt_exit_code(nfiles);
    char **files = argv + 1;
    in.ro.no_timeline = 1; /* folded output has no use for it */
    /* before the perf map, the scripts the source-map stage reads and the input buffers */
    bigmem_prepare();
    profile_t *p = profile_new();
    int rc = EXIT_FAIL;
    write_opts_t wo = {0};
    cli_input_write_opts(&in, &wo);
    if (cli_input_read(&in, files, nfiles, p) == 0 &&
        cli_write_profile(p, output, format_writer_by_name("folded"), &wo, files, nfiles) == 0)
        rc = EXIT_OK;
    cli_input_free(&in);
    profile_free(p);
    return rc;
}
