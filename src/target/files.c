/* Where the files a target maps are read from, and which file they are. A process in a container
 * (another mount namespace) names files as it sees them: /proc/PID/maps says /usr/bin/node, which on
 * the host is another file or none. So a live process's files are opened through its root,
 * /proc/PID/root/<path>, then /proc/PID/map_files/<start>-<end> (the very inode mapped: a file
 * deleted or replaced since, "(deleted)"), then the path itself; a core's under --root DIR when
 * given. Each file opened is checked against the target: its GNU build id must be the one in the
 * ELF headers mapped in the target's memory (when they are there to read); a file that differs is
 * not taken while another way gives the right one, and when none does, a warning names it: a
 * library is left without symbols, the executable is read all the same (V8's metadata is in it) and
 * the target keeps the cause (target_problem) for the commands that find nothing to name. */
#include "target/target_internal.h"
#include "util/diag.h"
#include "util/procfs.h"
#include "util/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char deleted_suffix[] = " (deleted)";

/* path without a trailing " (deleted)", in buf */
static const char *undeleted(const char *path, char *buf, size_t cap, int *was_deleted)
{
    size_t n = strlen(path), k = sizeof deleted_suffix - 1;
    *was_deleted = n > k && strcmp(path + n - k, deleted_suffix) == 0;
    if (!*was_deleted) return path;
    snprintf(buf, cap, "%.*s", (int)(n - k), path);
    return buf;
}

void target_set_problem(target_t *t, const char *fmt, ...)
{
    if (t->problem) return; /* the first cause found is the one that matters */
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    t->problem = xstrdup(buf);
}

const char *target_problem(const target_t *t) { return t->problem; }

/* A hex build id, for messages. */
static void hex_id(const uint8_t *id, size_t n, char *out, size_t cap)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k + 3 <= cap; i++) k += (size_t)snprintf(out + k, cap - k, "%02x", id[i]);
    if (cap) out[k < cap ? k : cap - 1] = 0;
}

int target_open_file(target_t *t, const char *path, uint64_t map_start, uint64_t map_end, int required, char **used)
{
    char plain[4096], cand[3][4200];
    int was_deleted, ncand = 0, live = t->pid != 0; /* (only a live target has a pid) */
    /* a core's executable given with --node is the host's file, and checked against the core by elf.c */
    int given = !live && t->exe_given && t->exe_path && strcmp(path, t->exe_path) == 0;
    const char *p = undeleted(path, plain, sizeof plain, &was_deleted);
    *used = NULL;
    if (p[0] != '/') { /* --node given relative to the working directory */
        snprintf(cand[ncand++], sizeof cand[0], "%s", p);
    } else if (live) {
        if (!was_deleted) snprintf(cand[ncand++], sizeof cand[0], "/proc/%d/root%s", t->pid, p);
        if (map_start && map_end > map_start)
            snprintf(cand[ncand++], sizeof cand[0], "/proc/%d/map_files/%llx-%llx", t->pid,
                     (unsigned long long)map_start, (unsigned long long)map_end);
        snprintf(cand[ncand++], sizeof cand[0], "%s", p);
    } else {
        snprintf(cand[ncand++], sizeof cand[0], "%s%s", t->root && !given ? t->root : "", p);
    }
    uint8_t want[64], got[64];
    size_t nwant = map_start && !(required && !live) ? target_elf_build_id(t, -1, map_start, want, sizeof want) : 0;
    int first_fd = -1, first_i = -1, open_errno = 0, last_errno = ENOENT;
    size_t first_n = 0;
    uint8_t first_id[64];
    for (int i = 0; i < ncand; i++) {
        int fd = open(cand[i], O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            last_errno = errno;
            if (i == 0 && live && !was_deleted) open_errno = errno; /* the process's root refused */
            continue;
        }
        size_t n = nwant ? target_elf_build_id(t, fd, 0, got, sizeof got) : 0;
        if (!nwant || !n || (n == nwant && memcmp(got, want, n) == 0)) {
            if (first_fd >= 0) close(first_fd);
            *used = xstrdup(cand[i]);
            return fd;
        }
        if (first_fd < 0) {
            first_fd = fd, first_i = i, first_n = n;
            memcpy(first_id, got, n);
        } else {
            close(fd);
        }
    }
    if (first_fd < 0) {
        if (required && live && open_errno && open_errno != ENOENT && proc_other_mount_ns(t->pid))
            target_set_problem(
                t, "pid %d runs in another mount namespace, and %s cannot be read through /proc/%d/root: %s", t->pid, p,
                t->pid, strerror(open_errno));
        if (required) diag_error(target_name(t), 0, "cannot open executable %s: %s", cand[0], strerror(last_errno));
        return -1;
    }
    char a[130], b[130];
    hex_id(first_id, first_n, a, sizeof a);
    hex_id(want, nwant, b, sizeof b);
    diag_warn(target_name(t), 0, "%s: build id %s differs from the one of %s as mapped at 0x%llx (%s)%s", cand[first_i],
              a, p, (unsigned long long)map_start, b,
              required ? "; its symbols and V8's metadata may be wrong" : "; its symbols are not used");
    if (!required) {
        close(first_fd);
        return -1;
    }
    if (live && first_i > 0 && open_errno && open_errno != ENOENT && proc_other_mount_ns(t->pid))
        target_set_problem(
            t,
            "pid %d runs in another mount namespace, whose %s could not be read through /proc/%d/root (%s); "
            "%s has build id %s, not the %s mapped in the process",
            t->pid, p, t->pid, strerror(open_errno), cand[first_i], a, b);
    target_set_problem(t, "%s has build id %s, not the %s mapped in the process (%s)", cand[first_i], a, b, p);
    *used = xstrdup(cand[first_i]);
    return first_fd;
}
