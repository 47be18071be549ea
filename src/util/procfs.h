/* Facts about a process from /proc that more than one layer needs (util/procfs.c). */
#ifndef UTIL_PROCFS_H
#define UTIL_PROCFS_H
#include <stddef.h>

/* pid as the process's own pid namespace numbers it (the last NSpid of /proc/PID/status; pid
 * itself when there is none or the file cannot be read). */
int proc_ns_pid(int pid);
/* 1 when pid's mount namespace is not ours (a container): its paths are not our paths. */
int proc_other_mount_ns(int pid);
/* The process's command line, spaces for its NULs, cut to n - 1 bytes ("" when it is gone). */
void proc_cmdline(int pid, char *out, size_t n);
/* The process's parent (/proc/PID/stat); -1 when it is gone. */
int proc_parent(int pid);
/* Field k (3 and above, numbered as proc(5) does) of /proc/PID/stat as a number; 0 when it cannot
 * be read (the kernel shows 0 too where the reader may not see it: startstack, field 28). */
unsigned long long proc_stat_field(int pid, int k);
/* A zombie's exit signal (field 38 of /proc/PID/stat: 0 for nodescope's copies, made with none);
 * -1 when pid is no zombie or is gone. */
int proc_zombie_exit_signal(int pid);
/* The minor page faults the process has taken (/proc/PID/stat's minflt); -1 when it cannot be read. */
long long proc_minor_faults(int pid);
/* The child processes of pid (of any of its threads), at most max; how many were stored. */
size_t proc_children(int pid, int *out, size_t max);
/* The number after "key" (with its colon: "RssAnon:") in a /proc file of "Key: value" lines
 * (/proc/PID/status, /proc/meminfo; kB for sizes); -1 when the file or the key is missing. */
long long proc_field(const char *path, const char *key);
/* The number a one-number file of /proc or /sys holds (the uprobe PMU's type); -1 when it cannot
 * be read. */
int proc_read_int(const char *path);

#endif
