/* Writing results without losing anything: output goes to a temporary file
 * beside the target and replaces it only when complete, so an error halfway
 * never leaves a truncated file or destroys the previous one. "-" = stdout; a
 * path that exists and is not a regular file (/dev/null, a FIFO) is written as
 * it is, never replaced. */
#ifndef UTIL_OUTPUT_H
#define UTIL_OUTPUT_H
#include <stdio.h>

typedef struct output {
    FILE *f;
    char *path; /* final path, NULL for stdout */
    char *tmp;  /* temporary path; NULL when writing to path directly */
} output_t;

/* Refuses (error printed, returns -1) when path is one of the inputs (same inode). */
int output_open(output_t *o, const char *path, char *const *inputs, int ninputs);
/* Flushes and renames into place; returns 0 or -1 (error printed, temp removed). */
int output_commit(output_t *o);
/* Removes the temporary file. */
void output_abort(output_t *o);

#endif
