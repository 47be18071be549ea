/* Secure mode: nodescope run with capabilities its user was not given (privilege.h). The
 * capability sets are read and written with the raw capget/capset calls (no libcap). */
#include "util/privilege.h"
#include "util/diag.h"
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef struct __user_cap_data_struct capdata_t[_LINUX_CAPABILITY_U32S_3];

static int caps_get(capdata_t d)
{
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    memset(d, 0, sizeof(capdata_t));
    return (int)syscall(SYS_capget, &h, d);
}

static int caps_set(capdata_t d)
{
    struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
    return (int)syscall(SYS_capset, &h, d);
}

int priv_secure(void)
{
    static int secure = -1;
    if (secure >= 0) return secure;
    secure = getauxval(AT_SECURE) != 0;
    capdata_t d;
    if (!secure && getuid() != 0 && caps_get(d) == 0)
        for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++)
            if (d[i].effective || d[i].permitted) secure = 1;
    return secure;
}

const char *priv_env(const char *name)
{
    return priv_secure() ? NULL : getenv(name);
}

void priv_scrub_env(void)
{
    if (!priv_secure()) return;
    unsetenv("DEBUGINFOD_URLS");
    unsetenv("DEBUGINFOD_CACHE_PATH");
}

void priv_drop(void)
{
    if (!priv_secure()) return;
    capdata_t d;
    memset(d, 0, sizeof d);
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
    if (caps_set(d) != 0) { /* cannot happen: dropping needs no privilege */
        diag_error(NULL, 0, "cannot drop the capabilities: %s", strerror(errno));
        exit(1);
    }
}

static __thread int user_depth;
static __thread uint32_t saved_effective[_LINUX_CAPABILITY_U32S_3];

void priv_user_begin(void)
{
    if (!priv_secure() || user_depth++ > 0) return;
    capdata_t d;
    if (caps_get(d) != 0) {
        diag_error(NULL, 0, "cannot read the capabilities: %s", strerror(errno));
        exit(1);
    }
    for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) saved_effective[i] = d[i].effective, d[i].effective = 0;
    if (caps_set(d) != 0) {
        diag_error(NULL, 0, "cannot clear the effective capabilities: %s", strerror(errno));
        exit(1);
    }
}

void priv_user_end(void)
{
    if (!priv_secure() || --user_depth > 0) return;
    capdata_t d;
    if (caps_get(d) != 0) return;
    for (int i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) d[i].effective = saved_effective[i] & d[i].permitted;
    caps_set(d); /* fails only when dropped meanwhile: then nothing is put back, as wanted */
}

int priv_open(const char *path, int flags, int mode)
{
    priv_user_begin();
    int fd = open(path, flags, mode);
    int err = errno;
    priv_user_end();
    errno = err;
    return fd;
}

int priv_check_path(const char *option, const char *path, int mode)
{
    if (!path || !priv_secure() || access(path, mode) == 0) return 0;
    int err = errno;
    diag_error(NULL, 0, "%s %s: %s to you: nodescope runs with capabilities, and opens the paths you name with your "
               "own rights",
               option, path, err == EACCES || err == EPERM ? "not open" : strerror(err));
    return -1;
}

void *priv_dlopen(const char *soname, int flags)
{
    if (!priv_secure()) return dlopen(soname, flags);
    static const char *const dirs[] = {"/usr/lib/x86_64-linux-gnu", "/lib/x86_64-linux-gnu", "/usr/lib64", "/lib64",
                                       "/usr/lib", "/lib"};
    char path[512];
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        struct stat dir, file;
        if (snprintf(path, sizeof path, "%s/%s", dirs[i], soname) >= (int)sizeof path) continue;
        /* the directory and the file root's and written by root only: nobody else chose them */
        if (stat(dirs[i], &dir) != 0 || dir.st_uid != 0 || (dir.st_mode & 022)) continue;
        if (stat(path, &file) != 0 || !S_ISREG(file.st_mode) || file.st_uid != 0 || (file.st_mode & 022)) continue;
        void *h = dlopen(path, flags);
        if (h) return h;
    }
    return NULL;
}
