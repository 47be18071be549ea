/* Minimal unit-test helpers: CHECK(cond), CHECK_EQ_INT, CHECK_STR, and a summary. */
#ifndef TESTS_CHECK_H
#define TESTS_CHECK_H
#include <stdio.h>
#include <string.h>

static int check_failures, check_count;
#define CHECK(cond)                                                                                                    \
    do {                                                                                                               \
        check_count++;                                                                                                 \
        if (!(cond)) {                                                                                                 \
            check_failures++;                                                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);                                   \
        }                                                                                                              \
    } while (0)
#define CHECK_EQ_INT(a, b)                                                                                             \
    do {                                                                                                               \
        long long a_ = (long long)(a), b_ = (long long)(b);                                                            \
        check_count++;                                                                                                 \
        if (a_ != b_) {                                                                                                \
            check_failures++;                                                                                          \
            fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #a, a_, b_);                     \
        }                                                                                                              \
    } while (0)
#define CHECK_STR(a, b)                                                                                                \
    do {                                                                                                               \
        const char *a_ = (a), *b_ = (b);                                                                               \
        check_count++;                                                                                                 \
        if (!a_ || !b_ || strcmp(a_, b_)) {                                                                            \
            check_failures++;                                                                                          \
            fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, a_ ? a_ : "(null)",      \
                    b_ ? b_ : "(null)");                                                                               \
        }                                                                                                              \
    } while (0)
static inline int check_summary(const char *name)
{
    fprintf(stderr, "%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}
#endif
