/* The integrity checks every fuzzer runs on what a reader made: a broken invariant is a crash
 * (abort, with what is wrong), which the fuzzer reports like any other. */
#ifndef FUZZ_CHECK_H
#define FUZZ_CHECK_H
#include "profile/profile.h"
#include <stdio.h>
#include <stdlib.h>

static inline void fuzz_check_profile(const profile_t *p)
{
    buf_t why = {0};
    if (profile_check(p, &why) != 0) {
        fprintf(stderr, "profile_check: %s\n", why.data ? why.data : "?");
        abort();
    }
    buf_free(&why);
}
#endif
