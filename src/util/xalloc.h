/* Allocation that never returns NULL: on exhaustion print a message and exit 1.
 * Every module uses these so out-of-memory is one clear error, not a crash. */
#ifndef UTIL_XALLOC_H
#define UTIL_XALLOC_H
#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
/* Grow *p (an array of *cap elements of elem_size) so it holds at least need. */
void xgrow(void **p, size_t *cap, size_t need, size_t elem_size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

#define XGROW(ptr, cap, need) xgrow((void **)&(ptr), &(cap), (need), sizeof *(ptr))

#endif
