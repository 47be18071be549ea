/* Buffered input from a file or standard input ("-"), read as lines or bytes.
 * Keeps the file name and line number for error messages, bounds line length
 * (a 1 GB line is an error, not a 1 GB allocation), and lets readers sniff
 * the first bytes before deciding what the input is. */
#ifndef UTIL_INPUT_H
#define UTIL_INPUT_H
#include "util/progress.h"
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct input {
    const char *name; /* as given by the user; "-" shows as "<stdin>" */
    int fd;
    char *buf;
    size_t cap, start, end;
    int eof;
    int error;           /* set when a read failed or a line was too long */
    long line;           /* number of the line last returned by input_getline */
    uint64_t consumed;   /* bytes handed out so far */
    int64_t size;        /* file size, or -1 when unknown (pipe) */
    size_t max_line;     /* longest line accepted (default 64 MiB) */
    progress_t progress; /* in MB, on stderr when it is a terminal */
} input_t;

/* Opens path ("-" = stdin). On failure prints an error naming the file and returns NULL. */
input_t *input_open(const char *path);
/* Wraps a memory buffer (tests, fuzzers); data is copied. */
input_t *input_from_memory(const char *name, const void *data, size_t n);
void input_close(input_t *in);

/* Up to n bytes from the current position without consuming them; returns how many are available. */
size_t input_peek(input_t *in, const char **p, size_t n);
/* Next line without its '\n' (and without a trailing '\r'); the line is NUL-terminated in place and
 * valid until the next call. Returns 1, 0 at end of input, -1 on error (message already printed). */
int input_getline(input_t *in, char **line, size_t *len);
/* Raw bytes: up to n bytes into dst; returns count, 0 at end, -1 on error. */
ssize_t input_read(input_t *in, void *dst, size_t n);
/* Consumes n bytes already returned by input_peek (no copy): for parsers that scan the buffer. */
void input_skip(input_t *in, size_t n);
/* Whether the next bytes look like binary (a NUL or many control bytes in the first 4 KiB). */
int input_looks_binary(input_t *in);
/* Refresh the progress line on stderr (cheap; rate limited). input_progress_done clears it. */
void input_progress_tick(input_t *in);
void input_progress_done(input_t *in);

#endif
