#include "symbols/journal.h"
#include "symbols/perfmap.h"
#include "util/diag.h"
#include "util/privilege.h"
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

uint64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int map_journal_start(map_journal_t *j, int pid, const char *out_path)
{
    memset(j, 0, sizeof *j);
    perfmap_path_for_pid(pid, j->map_path, sizeof j->map_path); /* a container's under its root */
    priv_user_begin(); /* out_path is the user's */
    j->out = fopen(out_path, "w");
    priv_user_end();
    if (!j->out) {
        diag_error(out_path, 0, "cannot create map journal: %s", strerror(errno));
        return -1;
    }
    /* Watch the directory: the map may not exist yet. Without inotify we poll. */
    j->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    char dir[256];
    snprintf(dir, sizeof dir, "%s", j->map_path);
    *strrchr(dir, '/') = 0;
    if (j->inotify_fd >= 0) j->watch = inotify_add_watch(j->inotify_fd, dir, IN_MODIFY | IN_CREATE);
    j->last_size = -1;
    /* A journal entry is only as good as the delay between V8's write and our stat:
     * under load a normal-priority process wakes milliseconds late and samples of
     * new code get the old name. Real-time priority (root only) keeps it to microseconds. */
    struct sched_param sp = {.sched_priority = 1};
    j->realtime = sched_setscheduler(0, SCHED_FIFO, &sp) == 0;
    map_journal_poll(j, 0);
    return 0;
}

static void record_size(map_journal_t *j)
{
    struct stat st;
    if (stat(j->map_path, &st) != 0 || st.st_size == j->last_size) return;
    j->last_size = st.st_size;
    fprintf(j->out, "%llu %lld\n", (unsigned long long)monotonic_ns(), (long long)st.st_size);
}

void map_journal_poll(map_journal_t *j, int timeout_ms)
{
    if (j->inotify_fd >= 0 && j->watch >= 0) {
        struct pollfd pfd = {j->inotify_fd, POLLIN, 0};
        if (poll(&pfd, 1, timeout_ms) > 0) {
            char events[4096];
            while (read(j->inotify_fd, events, sizeof events) > 0) {}
        }
    } else if (timeout_ms > 0) {
        usleep(timeout_ms > 1 ? 1000 : (useconds_t)timeout_ms * 1000);
    }
    record_size(j);
}

void map_journal_stop(map_journal_t *j)
{
    if (j->out) {
        record_size(j);
        fclose(j->out);
    }
    if (j->inotify_fd >= 0) close(j->inotify_fd);
    j->out = NULL;
    if (j->realtime) {
        struct sched_param sp = {.sched_priority = 0};
        sched_setscheduler(0, SCHED_OTHER, &sp);
        j->realtime = 0;
    }
}
