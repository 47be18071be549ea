#include "util/input.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (1u << 20)
#define DEFAULT_MAX_LINE ((size_t)64 << 20)

static input_t *input_new(const char *name, int fd)
{
    input_t *in = xcalloc(1, sizeof *in);
    in->name = strcmp(name, "-") == 0 ? "<stdin>" : name;
    in->fd = fd;
    in->size = -1;
    in->max_line = DEFAULT_MAX_LINE;
    in->cap = CHUNK;
    in->buf = xmalloc(in->cap + 1);
    return in;
}

input_t *input_open(const char *path)
{
    int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        diag_error(path, 0, "cannot open: %s", strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        diag_error(path, 0, "is a directory, expected a file");
        if (fd) close(fd);
        return NULL;
    }
    input_t *in = input_new(path, fd);
    if (S_ISREG(st.st_mode)) in->size = st.st_size;
    progress_init(&in->progress, in->name, "MB");
    return in;
}

input_t *input_from_memory(const char *name, const void *data, size_t n)
{
    input_t *in = input_new(name, -1);
    free(in->buf);
    in->cap = n;
    in->buf = xmalloc(n + 1);
    memcpy(in->buf, data, n);
    in->end = n;
    in->eof = 1;
    in->size = (int64_t)n;
    return in;
}

void input_close(input_t *in)
{
    if (!in) return;
    input_progress_done(in);
    if (in->fd > 0) close(in->fd);
    free(in->buf);
    free(in);
}

/* Ensure at least want bytes are buffered (fewer at end of input). Returns bytes available. */
static size_t fill(input_t *in, size_t want)
{
    while (in->end - in->start < want && !in->eof && !in->error) {
        if (in->start > 0 && (in->cap - in->end < CHUNK)) {
            memmove(in->buf, in->buf + in->start, in->end - in->start);
            in->end -= in->start;
            in->start = 0;
        }
        if (in->cap - in->end < CHUNK / 2) {
            in->cap *= 2;
            in->buf = xrealloc(in->buf, in->cap + 1);
        }
        ssize_t r = read(in->fd, in->buf + in->end, in->cap - in->end);
        if (r < 0) {
            if (errno == EINTR) continue;
            diag_error(in->name, 0, "read failed: %s", strerror(errno));
            in->error = 1;
            break;
        }
        if (r == 0) in->eof = 1;
        in->end += (size_t)r;
    }
    return in->end - in->start;
}

size_t input_peek(input_t *in, const char **p, size_t n)
{
    size_t avail = fill(in, n);
    *p = in->buf + in->start;
    return avail < n ? avail : n;
}

int input_getline(input_t *in, char **line, size_t *len)
{
    if (in->error) return -1;
    size_t scanned = 0;
    for (;;) {
        char *s = in->buf + in->start;
        size_t avail = in->end - in->start;
        char *nl = avail > scanned ? memchr(s + scanned, '\n', avail - scanned) : NULL;
        if (nl || (in->eof && avail > 0)) {
            size_t n = nl ? (size_t)(nl - s) : avail;
            size_t adv = nl ? n + 1 : n;
            if (n > in->max_line) goto too_long;
            if (n > 0 && s[n - 1] == '\r') n--;
            s[n] = 0; /* the buffer has one spare byte past cap for a final line */
            in->start += adv;
            in->consumed += adv;
            in->line++;
            *line = s;
            *len = n;
            if (in->progress.enabled && (in->line & 0xffff) == 0) input_progress_tick(in);
            return 1;
        }
        if (in->eof) return 0;
        scanned = avail;
        if (avail > in->max_line) goto too_long;
        fill(in, avail + CHUNK);
        if (in->error) return -1;
    }
too_long:
    diag_error(in->name, in->line + 1,
               "line longer than %zu MiB; this does not look like text input of a supported format",
               in->max_line >> 20);
    in->error = 1;
    return -1;
}

ssize_t input_read(input_t *in, void *dst, size_t n)
{
    if (in->error) return -1;
    size_t avail = fill(in, n < CHUNK ? n : CHUNK);
    if (in->error) return -1;
    if (avail > n) avail = n;
    memcpy(dst, in->buf + in->start, avail);
    in->start += avail;
    in->consumed += avail;
    if (in->progress.enabled) input_progress_tick(in);
    return (ssize_t)avail;
}

void input_skip(input_t *in, size_t n)
{
    size_t have = in->end - in->start;
    if (n > have) n = have;
    in->start += n;
    in->consumed += n;
    if (in->progress.enabled) input_progress_tick(in);
}

int input_looks_binary(input_t *in)
{
    const char *p;
    size_t n = input_peek(in, &p, 4096);
    size_t ctl = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == 0) return 1;
        if (c < 32 && c != '\n' && c != '\r' && c != '\t' && c != '\f') ctl++;
    }
    return n > 0 && ctl * 10 > n;
}

void input_progress_tick(input_t *in)
{
    progress_update_now(&in->progress, in->consumed >> 20, in->size > 0 ? (uint64_t)in->size >> 20 : 0);
}

void input_progress_done(input_t *in) { progress_done(&in->progress); }
