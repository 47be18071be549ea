/* The one way a core reaches its path (`gcore`, `watch --on`): written to a temporary file beside
 * it and renamed into place only when target_write_core finished, so a core that exists is whole. */
#include "target/core_file.h"
#include "util/output.h"
#include <stdio.h>

int target_write_core_path(target_t *t, const char *path)
{
    output_t o;
    if (output_open(&o, path, NULL, 0) != 0) return -1;
    if (target_write_core(t, fileno(o.f), path) == 0 && output_commit(&o) == 0) return 0;
    output_abort(&o);
    return -1;
}
