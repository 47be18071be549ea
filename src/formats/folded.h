/* Folded-stack helpers shared with other readers and writers. */
#ifndef FORMATS_FOLDED_H
#define FORMATS_FOLDED_H
#include "profile/profile.h"
#include "util/buf.h"

/* Splits "stack COUNT" (COUNT integer or decimal, last whitespace-separated token).
 * Returns 1 with the stack's length and the count, 0 when the line is not of that form. */
int folded_split_line(const char *s, size_t n, size_t *stack_len, double *count);
/* Interns a frame named by folded text, classifying its kind once (a V8 name's definition
 * site becomes the frame's url, line and column); cache maps the text's hash to the frame id. */
uint32_t folded_frame(profile_t *p, u64map_t *cache, const char *s, size_t n);
/* Appends the folded text of p (sorted lines "a;b;c weight\n") to out. */
void folded_write_buf(const profile_t *p, buf_t *out);

#endif
