#include "util/file.h"
#include "util/diag.h"
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

int file_open_regular(const char *path, const char *what, struct stat *st)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        diag_error(path, 0, "cannot open %s: %s", what, strerror(errno));
        return -1;
    }
    if (fstat(fd, st) != 0 || !S_ISREG(st->st_mode)) {
        diag_error(path, 0, "not a regular file; expected a %s", what);
        close(fd);
        return -1;
    }
    return fd;
}
