/* Tests on counted (not NUL-terminated) strings, as the text readers see their fields. */
#ifndef UTIL_STRVIEW_H
#define UTIL_STRVIEW_H
#include <string.h>

static inline int sv_starts(const char *s, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && memcmp(s, prefix, k) == 0;
}

static inline int sv_ends(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

static inline int sv_contains(const char *s, size_t n, const char *needle)
{
    return memmem(s, n, needle, strlen(needle)) != NULL;
}
#endif
