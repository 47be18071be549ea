/* A profile's weight unit, and the check merge and diff make before adding or comparing two
 * profiles (profile/units.h). */
#include "profile/units.h"
#include "util/diag.h"
#include <string.h>

const char *profile_weight_unit(const profile_t *p)
{
    return p->weight_unit && *p->weight_unit ? p->weight_unit : "samples";
}

int profile_check_units(const char *what, const char *path_a, const profile_t *a, const char *path_b,
                        const profile_t *b)
{
    if (!strcmp(profile_weight_unit(a), profile_weight_unit(b))) return 0;
    int diff = !strcmp(what, "diff");
    diag_error(NULL, 0, "%s: %s weighs in %s, %s in %s: profiles of different units cannot be %s", what,
               path_a ? path_a : "<stdin>", profile_weight_unit(a), path_b ? path_b : "<stdin>", profile_weight_unit(b),
               diff ? "compared (-n/--normalize compares their shares)" : "added");
    return -1;
}
