/* The inputs of a profile-reading command added into one profile. Invariant: what it returns 0
 * for has one weight unit throughout (every reader states its unit or leaves the default; each
 * file's is checked against the first's) and passes profile_check (asserted in the test build). */
#include "formats/read_paths.h"
#include "util/diag.h"
#include <assert.h>
#include <string.h>

int format_read_paths(char **paths, int npaths, profile_t *p, const read_opts_t *o)
{
    static char *dash[] = {"-"};
    if (npaths == 0) {
        paths = dash;
        npaths = 1;
    }
    for (int i = 0; i < npaths; i++) {
        const char *before = p->weight_unit;
        if (i) p->weight_unit = strpool_cstr(p->strings, "samples");
        if (format_read_path(paths[i], p, o) != 0) return -1;
        if (i && strcmp(before, p->weight_unit)) {
            diag_error(paths[i], 0, "its weights are %s, but %s's are %s: they cannot be added (read them separately)",
                       p->weight_unit, paths[0], before);
            return -1;
        }
    }
    assert(profile_check(p, NULL) == 0); /* what every reader leaves (the test build) */
    return 0;
}
