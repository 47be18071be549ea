/* Facts about another process, from /proc: the pid it has in its own pid namespace (NSpid),
 * whether its mount namespace is ours, its command line, its children. Used by the target layer
 * (files through the target's root), the perf map lookup (a container's /tmp) and the commands. */
#include "util/procfs.h"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int proc_ns_pid(int pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    if (!f) return pid;
    int ns = pid;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, "NSpid:", 6)) {
            char *p = line + 6, *end;
            for (long v; (v = strtol(p, &end, 10)), end != p; p = end)
                if (v > 0 && v <= 0x7fffffff) ns = (int)v;
            break;
        }
    fclose(f);
    return ns;
}

long long proc_field(const char *path, const char *key)
{
    char line[256];
    size_t n = strlen(key);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long long v = -1;
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, key, n)) {
            char *end;
            long long x = strtoll(line + n, &end, 10);
            if (end != line + n) v = x;
            break;
        }
    fclose(f);
    return v;
}

int proc_other_mount_ns(int pid)
{
    char path[64];
    struct stat a, b;
    snprintf(path, sizeof path, "/proc/%d/ns/mnt", pid);
    if (stat(path, &a) != 0 || stat("/proc/self/ns/mnt", &b) != 0) return 0;
    return a.st_ino != b.st_ino || a.st_dev != b.st_dev;
}

void proc_cmdline(int pid, char *out, size_t n)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
    FILE *f = fopen(path, "r");
    size_t got = f && n ? fread(out, 1, n - 1, f) : 0;
    if (f) fclose(f);
    if (!n) return;
    out[got] = 0;
    for (size_t i = 0; i + 1 < got; i++)
        if (!out[i]) out[i] = ' ';
}

/* /proc/PID/stat from just after the command's closing parenthesis (the command may hold spaces
   and parentheses) into buf; NULL when the process is gone. */
static const char *stat_fields(int pid, char *buf, size_t n)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    size_t got = fread(buf, 1, n - 1, f);
    fclose(f);
    buf[got] = 0;
    char *p = strrchr(buf, ')');
    return p ? p + 1 : NULL;
}

int proc_parent(int pid)
{
    char buf[1024];
    const char *p = stat_fields(pid, buf, sizeof buf);
    int ppid;
    return p && sscanf(p, " %*c %d", &ppid) == 1 ? ppid : -1;
}

/* Field k (>= 3: after the command's name) of what stat_fields returned, or NULL. */
static const char *stat_field(const char *p, int k)
{
    int field = 3;
    for (p += 1; *p && field < k; p++)
        if (*p == ' ') field++;
    return field == k && *p ? p : NULL;
}

unsigned long long proc_stat_field(int pid, int k)
{
    char buf[1024];
    const char *p = stat_fields(pid, buf, sizeof buf);
    p = p && k >= 3 ? stat_field(p, k) : NULL;
    return p ? strtoull(p, NULL, 10) : 0;
}

int proc_zombie_exit_signal(int pid)
{
    char buf[1024];
    const char *p = stat_fields(pid, buf, sizeof buf);
    if (!p || p[0] != ' ' || p[1] != 'Z') return -1;
    p = stat_field(p, 38); /* field 3 is the state; exit_signal is field 38 */
    return p ? atoi(p) : -1;
}

long long proc_minor_faults(int pid)
{
    char buf[1024];
    const char *p = stat_fields(pid, buf, sizeof buf);
    long long v;
    /* state, ppid, pgrp, session, tty_nr, tpgid, flags, minflt */
    return p && sscanf(p, " %*c %*d %*d %*d %*d %*d %*u %lld", &v) == 1 ? v : -1;
}

size_t proc_children(int pid, int *out, size_t max)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *d = opendir(path);
    if (!d) return 0;
    size_t n = 0;
    for (struct dirent *e; n < max && (e = readdir(d));) {
        int tid = atoi(e->d_name);
        if (tid <= 0) continue;
        snprintf(path, sizeof path, "/proc/%d/task/%d/children", pid, tid);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        for (int c; n < max && fscanf(f, "%d", &c) == 1;) out[n++] = c;
        fclose(f);
    }
    closedir(d);
    return n;
}

int proc_read_int(const char *path)
{
    FILE *f = fopen(path, "r");
    int x = -1;
    if (f) {
        if (fscanf(f, "%d", &x) != 1) x = -1;
        fclose(f);
    }
    return x;
}
