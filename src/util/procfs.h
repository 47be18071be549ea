/* Facts about a process from /proc that more than one layer needs (util/procfs.c). */
#ifndef UTIL_PROCFS_H
#define UTIL_PROCFS_H

/* pid as the process's own pid namespace numbers it (the last NSpid of /proc/PID/status; pid
 * itself when there is none or the file cannot be read). */
int proc_ns_pid(int pid);
/* 1 when pid's mount namespace is not ours (a container): its paths are not our paths. */
int proc_other_mount_ns(int pid);

#endif
