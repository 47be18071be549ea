/* Live processes: every thread is stopped with PTRACE_SEIZE + PTRACE_INTERRUPT, registers come from
 * PTRACE_GETREGS, memory from process_vm_readv, mappings from /proc/PID/maps. SIGINT/SIGTERM/SIGHUP
 * while attached detach first (the process is never left stopped). */
#include "target/target_internal.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static target_t *volatile attached;   /* the target to detach from on a fatal signal */

static void detach_all(target_t *t) {
    for (size_t i = 0; i < t->nthreads; i++) ptrace(PTRACE_DETACH, t->threads[i].tid, 0, 0);
}

static void on_signal(int sig) {
    target_t *t = attached;
    if (t) detach_all(t);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void load_maps(target_t *t) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/maps", t->pid);
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[4096];
    size_t cap = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long s, e, off;
        char perms[8];
        int pos = 0;
        if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &s, &e, perms, &off, &pos) < 4) continue;
        xgrow((void **)&t->maps, &cap, t->nmaps + 1, sizeof *t->maps);
        target_mapping_t *m = &t->maps[t->nmaps++];
        char *name = line + pos;
        name[strcspn(name, "\n")] = 0;
        *m = (target_mapping_t){ s, e, off, (perms[0] == 'r') | (perms[1] == 'w') << 1 | (perms[2] == 'x') << 2,
                                 *name ? xstrdup(name) : NULL, 1 };
    }
    fclose(f);
}

static void read_thread_name(target_thread_t *th, int pid) {
    char path[64], buf[64];
    snprintf(path, sizeof path, "/proc/%d/task/%d/comm", pid, th->tid);
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (fgets(buf, sizeof buf, f)) { buf[strcspn(buf, "\n")] = 0; th->name = xstrdup(buf); }
    fclose(f);
}

target_t *target_open_pid(int pid) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *d = opendir(path);
    if (!d) { diag_error(NULL, 0, "pid %d: no such process", pid); return NULL; }
    target_t *t = xcalloc(1, sizeof *t);
    t->pid = pid;
    snprintf(path, sizeof path, "pid %d", pid);
    t->name = xstrdup(path);
    attached = t;
    signal(SIGINT, on_signal); signal(SIGTERM, on_signal); signal(SIGHUP, on_signal);
    size_t cap = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        int tid = atoi(de->d_name);
        if (tid <= 0) continue;
        if (ptrace(PTRACE_SEIZE, tid, 0, 0) != 0) {
            diag_error(NULL, 0, "pid %d: cannot attach to thread %d: %s", pid, tid, strerror(errno));
            closedir(d);
            target_close(t);
            return NULL;
        }
        xgrow((void **)&t->threads, &cap, t->nthreads + 1, sizeof *t->threads);
        target_thread_t *th = &t->threads[t->nthreads++];
        memset(th, 0, sizeof *th);
        th->tid = tid;
        ptrace(PTRACE_INTERRUPT, tid, 0, 0);
        int st;
        waitpid(tid, &st, __WALL);
        struct user_regs_struct r;
        if (ptrace(PTRACE_GETREGS, tid, 0, &r) == 0) {
            memcpy(th->regs, &r, sizeof th->regs < sizeof r ? sizeof th->regs : sizeof r);
            th->rip = r.rip; th->rsp = r.rsp; th->rbp = r.rbp;
        }
        read_thread_name(th, pid);
    }
    closedir(d);
    load_maps(t);
    char exe[4096];
    snprintf(path, sizeof path, "/proc/%d/exe", pid);
    ssize_t n = readlink(path, exe, sizeof exe - 1);
    if (n <= 0) { diag_error(NULL, 0, "pid %d: cannot read the executable path", pid); target_close(t); return NULL; }
    exe[n] = 0;
    t->exe_path = xstrdup(exe);
    if (target_elf_load_modules(t) != 0) { target_close(t); return NULL; }
    return t;
}

void target_live_detach(target_t *t) {
    detach_all(t);
    if (attached == t) {
        attached = NULL;
        signal(SIGINT, SIG_DFL); signal(SIGTERM, SIG_DFL); signal(SIGHUP, SIG_DFL);
    }
    for (size_t i = 0; i < t->nthreads; i++) free((char *)t->threads[i].name);
}

int target_read_live(target_t *t, uint64_t addr, void *dst, size_t n) {
    struct iovec local = { dst, n }, remote = { (void *)(uintptr_t)addr, n };
    return process_vm_readv(t->pid, &local, 1, &remote, 1, 0) == (ssize_t)n ? 0 : -1;
}
