#include "util/input_bulk.h"
#include "util/diag.h"
#include <errno.h>
#include <string.h>
#include <unistd.h>

ssize_t input_read_bulk(input_t *in, void *dst, size_t n)
{
    if (in->error) return -1;
    size_t avail = in->end - in->start;
    if (avail > 0) {
        if (avail > n) avail = n;
        memcpy(dst, in->buf + in->start, avail);
        in->start += avail;
        in->consumed += avail;
        return (ssize_t)avail;
    }
    if (in->eof || in->fd < 0) return 0;
    for (;;) {
        ssize_t r = read(in->fd, dst, n);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            diag_error(in->name, 0, "read failed: %s", strerror(errno));
            in->error = 1;
            return -1;
        }
        if (r == 0) in->eof = 1;
        in->consumed += (uint64_t)r;
        if (in->progress.enabled) input_progress_tick(in);
        return r;
    }
}
