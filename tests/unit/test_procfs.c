/* util/procfs: a process's children (of every thread: watch --heap names npm's and a cluster
 * primary's node processes from them), its command line with spaces for NULs, its own pid, its
 * parent, a zombie's exit signal (freeze.c finds the copies a killed nodescope left), its minor
 * faults (watch --heap's target_faults), and nothing for a process that is gone. */
#include "check.h"
#include "util/procfs.h"
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t sleeper(void)
{
    pid_t c = fork();
    if (c == 0) {
        pause();
        _exit(0);
    }
    return c;
}

static void *fork_in_thread(void *out)
{
    *(pid_t *)out = sleeper();
    return NULL;
}

static int listed(const int *kids, size_t n, pid_t c)
{
    for (size_t i = 0; i < n; i++)
        if (kids[i] == c) return 1;
    return 0;
}

static void test_children(void)
{
    pid_t a = sleeper(), b = 0;
    pthread_t th;
    CHECK(pthread_create(&th, NULL, fork_in_thread, &b) == 0);
    pthread_join(th, NULL); /* forked by another thread: in its task's children, the main one's once it is gone */
    int kids[16];
    size_t n = proc_children(getpid(), kids, 16);
    CHECK(a > 0 && b > 0);
    CHECK(listed(kids, n, a));
    CHECK(listed(kids, n, b));
    CHECK_EQ_INT(proc_children(getpid(), kids, 1), 1); /* at most max */
    CHECK_EQ_INT(proc_children(a, kids, 16), 0);       /* a childless process */
    CHECK_EQ_INT(proc_parent(a), getpid());
    CHECK_EQ_INT(proc_parent(getpid()), getppid());
    kill(a, SIGKILL), kill(b, SIGKILL);
    waitpid(a, NULL, 0), waitpid(b, NULL, 0);
    CHECK_EQ_INT(proc_children(a, kids, 16), 0); /* gone */
    CHECK_EQ_INT(proc_parent(a), -1);
}

/* a zombie's exit signal: SIGCHLD for fork's children, 0 for a clone with none (nodescope's copies) */
static void test_zombies(void)
{
    pid_t f = fork();
    if (f == 0) _exit(0);
    long c = syscall(SYS_clone, 0L, 0L, 0L, 0L, 0L); /* exit signal 0 */
    if (c == 0) _exit(0);
    for (int i = 0; i < 200 && (proc_zombie_exit_signal(f) < 0 || proc_zombie_exit_signal((int)c) < 0); i++)
        usleep(10000);
    CHECK_EQ_INT(proc_zombie_exit_signal(f), SIGCHLD);
    CHECK_EQ_INT(proc_zombie_exit_signal((int)c), 0);
    CHECK_EQ_INT(proc_zombie_exit_signal(getpid()), -1); /* not a zombie */
    waitpid(f, NULL, 0);
    waitpid((pid_t)c, NULL, __WALL);
    CHECK_EQ_INT(proc_zombie_exit_signal(f), -1); /* gone */
}

static void test_cmdline(void)
{
    char line[256];
    proc_cmdline(getpid(), line, sizeof line);
    CHECK(strstr(line, "test_procfs") != NULL);
    proc_cmdline(getpid(), line, 5); /* cut to n - 1 bytes */
    CHECK_EQ_INT(strlen(line), 4);
    proc_cmdline(0x7ffffff0, line, sizeof line);
    CHECK_STR(line, "");
}

static void test_field(void)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)getpid());
    CHECK_EQ_INT(proc_field(path, "Pid:"), getpid());
    CHECK(proc_field(path, "RssAnon:") > 0);
    CHECK_EQ_INT(proc_field(path, "NoSuchKey:"), -1);
    CHECK(proc_field("/proc/meminfo", "MemAvailable:") > 0);
    CHECK_EQ_INT(proc_field("/proc/no/such/file", "Pid:"), -1);
}

int main(void)
{
    test_field();
    test_children();
    test_cmdline();
    test_zombies();
    CHECK_EQ_INT(proc_ns_pid(getpid()) > 0, 1);
    long long f0 = proc_minor_faults(getpid());
    char *page = malloc(1 << 20);
    for (int i = 0; i < 1 << 20; i += 4096) page[i] = 1; /* fresh pages: a minor fault each */
    CHECK(f0 >= 0 && proc_minor_faults(getpid()) >= f0 + 200);
    free(page);
    CHECK_EQ_INT(proc_minor_faults(0x7ffffff0), -1);
    return check_summary("test_procfs");
}
