/* Why attaching to a live process may fail, and what to do: another tracer, Yama's ptrace_scope,
 * the owner, CAP_SYS_PTRACE, a seccomp or LSM policy; read from /proc/PID/status,
 * /proc/self/status and /proc/sys/kernel/yama/ptrace_scope. */
#include "target/target.h"
#include "util/diag.h"
#include "util/privilege.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void target_ptrace_hint(int pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "r");
    if (!f) return; /* no such process: the error said so */
    long tracer = 0, owner = -1;
    unsigned long long capeff = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "TracerPid:", 10)) tracer = strtol(line + 10, NULL, 10);
        else if (!strncmp(line, "Uid:", 4)) owner = strtol(line + 4, NULL, 10);
    }
    fclose(f);
    if ((f = fopen("/proc/self/status", "r"))) {
        while (fgets(line, sizeof line, f))
            if (!strncmp(line, "CapEff:", 7)) capeff = strtoull(line + 7, NULL, 16);
        fclose(f);
    }
    int scope = -1;
    if ((f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r"))) {
        if (fscanf(f, "%d", &scope) != 1) scope = -1;
        fclose(f);
    }
    uid_t euid = geteuid();
    int cap_ptrace = (capeff >> 19) & 1; /* CAP_SYS_PTRACE */
    const char *todo = "run as root, allow ptrace with 'sysctl kernel.yama.ptrace_scope=0', or give nodescope "
                       "CAP_SYS_PTRACE (--cap-add=SYS_PTRACE in a container), or " PRIV_CAPS_HOWTO;
    if (tracer > 0)
        diag_hint("pid %d is already traced by pid %ld (a debugger or strace): detach it first", pid, tracer);
    else if (scope == 3) diag_hint("kernel.yama.ptrace_scope is 3: ptrace is disabled until the next reboot");
    else if (scope == 2 && !cap_ptrace)
        diag_hint("kernel.yama.ptrace_scope is 2: only a process with CAP_SYS_PTRACE may attach; run as root, or "
                  PRIV_CAPS_HOWTO);
    else if (owner >= 0 && (uid_t)owner != euid && !cap_ptrace)
        diag_hint("pid %d belongs to uid %ld and you are uid %u: run as that user or as root, or " PRIV_CAPS_HOWTO,
                  pid, owner, (unsigned)euid);
    else if (scope == 1 && !cap_ptrace)
        diag_hint("kernel.yama.ptrace_scope is 1: only a parent process may attach; %s", todo);
    else if (!cap_ptrace)
        diag_hint("attaching needs ptrace permission (see /proc/sys/kernel/yama/ptrace_scope); %s", todo);
    else
        diag_hint("you have CAP_SYS_PTRACE%s, so something else refused ptrace: a seccomp or LSM policy "
                  "(container runtime, SELinux/AppArmor), or a protected process",
                  euid == 0 ? " as root" : "");
}
