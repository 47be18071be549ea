/* The one way a profile reaches a file: the writer picked (given, or by the extension), the
 * output opened through util/output.h, and committed only when the writer succeeded, so OUT is
 * either the whole profile or what it was before. */
#include "formats/write_file.h"
#include "util/diag.h"
#include "util/output.h"
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int format_write_file(const profile_t *p, const char *path, const format_writer_t *writer, const write_opts_t *wo,
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

int format_check_output_dir(const char *path)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0;
    const char *d = !slash ? "." : dir[0] ? dir : "/";
    if (access(d, W_OK) != 0) {
        diag_error(path, 0, "cannot write to directory %s: %s", d, strerror(errno));
        return -1;
    }
    return 0;
}
