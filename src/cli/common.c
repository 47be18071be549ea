#include "cli/cli.h"
#include "formats/write_file.h"
#include "util/diag.h"
#include "util/options.h"

int cli_write_profile(const profile_t *p, const char *path, const format_writer_t *writer, const write_opts_t *wo,
                      char **inputs, int ninputs)
{
    return format_write_file(p, path, writer, wo, inputs, ninputs);
}

int cli_output_writer(const opt_cmd_t *cmd, const char *to, int has_to, const char *out, const format_writer_t **w)
{
    *w = NULL;
    if (to && !(*w = format_writer_by_name(to)))
        return opt_usage_error(cmd, "unknown output format '%s' (known: %s)", to, format_writer_names());
    if (!out) return opt_usage_error(cmd, "missing -o OUT");
    if (!*w && !(*w = format_writer_for_path(out)))
        return opt_usage_error(cmd, "%s: cannot tell the output format from the extension (known: %s)%s", out,
                               format_writer_extensions(), has_to ? "; or name one with --to" : "");
    return EXIT_OK;
}
