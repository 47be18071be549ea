#include "util/output.h"
#include "util/diag.h"
#include "util/privilege.h"
#include "util/xalloc.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int open_path(output_t *o, const char *path, char *const *inputs, int ninputs)
{
    if (!path || !strcmp(path, "-")) {
        o->f = stdout;
        return 0;
    }
    struct stat out_st, in_st;
    if (stat(path, &out_st) == 0) {
        for (int i = 0; i < ninputs; i++) {
            if (inputs[i] && stat(inputs[i], &in_st) == 0 && in_st.st_dev == out_st.st_dev &&
                in_st.st_ino == out_st.st_ino) {
                diag_error(path, 0, "refusing to overwrite an input file; choose another output name");
                return -1;
            }
        }
    }
    /* not a regular file (/dev/null, a FIFO, a terminal): written to as it is; a temporary file
       renamed over it would replace the device (as root, /dev/null became a regular file) */
    if (stat(path, &out_st) == 0 && !S_ISREG(out_st.st_mode)) {
        o->f = fopen(path, "w");
        if (!o->f) {
            diag_error(path, 0, "cannot write: %s", strerror(errno));
            return -1;
        }
        o->path = xstrdup(path); /* tmp stays NULL: nothing to rename */
        return 0;
    }
    size_t n = strlen(path);
    o->tmp = xmalloc(n + 16);
    snprintf(o->tmp, n + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        diag_error(path, 0, "cannot create output: %s", strerror(errno));
        free(o->tmp);
        o->tmp = NULL;
        return -1;
    }
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
    o->f = fdopen(fd, "w");
    o->path = xstrdup(path);
    return 0;
}

/* The path is the user's: created with the user's own rights, never the capabilities'. */
int output_open(output_t *o, const char *path, char *const *inputs, int ninputs)
{
    memset(o, 0, sizeof *o);
    priv_user_begin();
    int rc = open_path(o, path, inputs, ninputs);
    priv_user_end();
    return rc;
}

int output_commit(output_t *o)
{
    if (!o->path) {
        if (fflush(stdout) != 0) {
            diag_error("<stdout>", 0, "write failed: %s", strerror(errno));
            return -1;
        }
        return 0;
    }
    int bad = ferror(o->f);
    if (fclose(o->f) != 0) bad = 1;
    o->f = NULL;
    if (bad) {
        diag_error(o->path, 0, "write failed: %s", strerror(errno));
        output_abort(o);
        return -1;
    }
    priv_user_begin();
    int moved = !o->tmp || rename(o->tmp, o->path) == 0;
    priv_user_end();
    if (!moved) {
        diag_error(o->path, 0, "cannot write: %s", strerror(errno));
        output_abort(o);
        return -1;
    }
    free(o->tmp);
    free(o->path);
    o->tmp = o->path = NULL;
    return 0;
}

void output_abort(output_t *o)
{
    if (o->f && o->f != stdout) fclose(o->f);
    o->f = NULL;
    if (o->tmp) unlink(o->tmp);
    free(o->tmp);
    free(o->path);
    o->tmp = o->path = NULL;
}
