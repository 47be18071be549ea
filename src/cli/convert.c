/* nodescope convert: any input to any output format (by extension or --to). */
#include "cli/cli.h"
#include "cli/input_opts.h"
#include "util/diag.h"
#include <stdio.h>
#include <string.h>

int cli_convert(int argc, char **argv)
{
    cli_input_t in;
    cli_input_init(&in);
    const char *output = NULL, *to = NULL;
    char to_help[512];
    snprintf(to_help, sizeof to_help, "output format: %s", format_writer_names());
    const opt_t own[] = {
        OPT_STR("output", 'o', "FILE", "where to write (required; '-' = stdout with --to)", &output),
        OPT_STR("to", 0, "NAME", to_help, &to),
        OPT_VERBOSITY,
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {own, in.opts, NULL};
    char usage[2048];
    snprintf(usage, sizeof usage,
             "usage: nodescope convert [OPTIONS] IN... -o OUT\n"
             "\n"
             "Convert profiles. Inputs are detected (%s);\n"
             "several are merged. The output format comes from OUT's extension, or --to NAME:\n"
             "%s"
             "cpuprofile is Chrome DevTools' format (also speedscope's and node's), svg a flame\n"
             "graph, pprof gzip'ed profile.proto, txt top's table. cpuprofile input includes\n"
             "trace-event files and the legacy format. Profiles with a timeline keep it (perf\n"
             "script timestamps, cpuprofile samples); without one a .cpuprofile gets evenly\n"
             "spaced samples, 1 ms apart, in tree order.\n",
             format_reader_names(), format_writer_names_ext());
    const opt_cmd_t cmd = {"convert", usage, tables, 0, NULL};
    int nfiles = opt_parse(&cmd, argc, argv);
    if (nfiles < 0) return opt_exit_code(nfiles);
    char **files = argv + 1;
    const format_writer_t *w;
    int urc = cli_output_writer(&cmd, to, 1, output, &w);
    if (urc != EXIT_OK) return urc;
    if (nfiles == 0) return opt_usage_error(&cmd, "no input");
    /* folded stacks have no use for a per-sample timeline: don't keep one (memory and time) */
    if (!strcmp(w->name, "folded")) in.ro.no_timeline = 1;
    profile_t *p = profile_new();
    int rc = EXIT_FAIL;
    write_opts_t wo = {0};
    cli_input_write_opts(&in, &wo);
    if (cli_input_read(&in, files, nfiles, p) == 0 && cli_write_profile(p, output, w, &wo, files, nfiles) == 0)
        rc = EXIT_OK;
    cli_input_free(&in);
    profile_free(p);
    return rc;
}
