/* What `flame` and `diff` draw is not what they read: threads become roots before stacks are
 * reversed (so a reversed graph still splits by thread at the top), and both sides of a diff get
 * the same treatment, so their frames compare. */
#include "formats/flame_view.h"

int flame_view(profile_t **p, profile_t **before, const write_opts_t *wo, int reverse)
{
    profile_t **sides[2] = {p, before};
    for (int k = 0; k < 2; k++) {
        profile_t *v;
        if (!*sides[k]) continue;
        if (format_thread_view(*sides[k], wo, "all", wo->threads_merge ? THREAD_ROOTS_MERGE : THREAD_ROOTS_ROLES, &v,
                               NULL))
            return -1;
        if (v) profile_free(*sides[k]), *sides[k] = v;
    }
    for (int k = 0; k < 2 && reverse; k++) {
        if (!*sides[k]) continue;
        profile_t *q = profile_reversed(*sides[k]);
        profile_free(*sides[k]);
        *sides[k] = q;
    }
    return 0;
}
