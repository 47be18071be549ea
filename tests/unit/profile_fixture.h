/* A profile read from folded text, for the unit tests of what draws or lays out profiles. */
#ifndef TESTS_PROFILE_FIXTURE_H
#define TESTS_PROFILE_FIXTURE_H
#include "check.h"
#include "formats/format.h"
#include "profile/profile.h"
#include <string.h>

static profile_t *folded(const char *text)
{
    input_t *in = input_from_memory("mem", text, strlen(text));
    profile_t *p = profile_new();
    const format_reader_t *r = format_reader_by_name("folded");
    CHECK(r && r->read(in, p, &(read_opts_t){0}) == 0);
    input_close(in);
    return p;
}

#endif
