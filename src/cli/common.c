#include "cli/cli.h"
#include "util/diag.h"
#include "util/output.h"
#include <stdlib.h>
#include <string.h>

int cli_read_inputs(char **paths, int npaths, profile_t *p, const read_opts_t *o)
{
    static char *dash[] = {"-"};
    if (npaths == 0) {
        paths = dash;
        npaths = 1;
    }
    for (int i = 0; i < npaths; i++)
        if (format_read_path(paths[i], p, o) != 0) return -1;
    return 0;
}

int cli_write_profile(const profile_t *p, const char *path, const format_writer_t *writer, const write_opts_t *wo,
                      char **inputs, int ninputs)
{
    if (!writer) {
        writer = path ? format_writer_for_path(path) : NULL;
        if (!writer) {
            diag_error(path, 0, "cannot tell the output format from the file name; use a known extension");
            return -1;
        }
    }
    output_t out;
    if (output_open(&out, path, inputs, ninputs) != 0) return -1;
    int wrc = format_write(writer, p, out.f, wo);
    if (wrc != 0) {
        if (wrc != -2) diag_error(path ? path : "<stdout>", 0, "could not write %s output", writer->name);
        output_abort(&out);
        return -1;
    }
    return output_commit(&out);
}

int cli_parse_double(const char *opt, const char *s, double *out)
{
    char *end;
    *out = strtod(s, &end);
    if (!*s || *end) {
        diag_error(NULL, 0, "%s expects a number, got '%s'", opt, s);
        return -1;
    }
    return 0;
}
