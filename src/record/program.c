#include "record/program.h"
#include "symbols/perfmap.h"
#include "util/diag.h"
#include "util/privilege.h"
#include "util/xalloc.h"
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *base_of(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* node, nodejs, node20, node-v22...: how node binaries are named in the wild (nodescope, nodemon
 * and the like are not node). */
static int named_node(const char *path)
{
    const char *b = base_of(path);
    if (strncmp(b, "node", 4)) return 0;
    char c = b[4];
    return !c || c == '\n' || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || !strncmp(b + 4, "js", 2);
}

static int is_executable_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* The file cmd runs, as execvp would find it; NULL when there is none. */
static char *find_in_path(const char *cmd)
{
    if (strchr(cmd, '/')) return is_executable_file(cmd) ? xstrdup(cmd) : NULL;
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    char buf[PATH_MAX];
    for (const char *p = path;; p = strchr(p, ':') + 1) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == 0) snprintf(buf, sizeof buf, "./%s", cmd);
        else snprintf(buf, sizeof buf, "%.*s/%s", (int)n, p, cmd);
        if (is_executable_file(buf)) return xstrdup(buf);
        if (!end) return NULL;
    }
}

/* Splits a script's "#!" line into words (at most max); returns the count, 0 when
 * the file is not a script. The words point into line. */
static int shebang_words(const char *path, char *line, size_t cap, char **words, int max)
{
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int ok = fgets(line, (int)cap, f) != NULL;
    fclose(f);
    if (!ok || line[0] != '#' || line[1] != '!') return 0;
    int n = 0;
    for (char *tok = strtok(line + 2, " \t\r\n"); tok && n < max; tok = strtok(NULL, " \t\r\n")) words[n++] = tok;
    return n;
}

/* For a script run by node ("#!/usr/bin/env node", "#!/usr/bin/env -S node --x",
 * "#!/opt/node/bin/node"): the node binary and the interpreter's extra words. */
static char *script_node(const char *script, char **extra, int *nextra, char *line, size_t cap)
{
    char *w[16];
    int n = shebang_words(script, line, cap, w, 16), i = 0;
    if (n == 0) return NULL;
    if (!strcmp(base_of(w[0]), "env")) {
        for (i = 1; i < n && w[i][0] == '-'; i++) {} /* env's own options, e.g. -S */
        if (i >= n) return NULL;
    }
    if (!named_node(w[i])) return NULL;
    char *node = find_in_path(w[i]);
    if (!node) return NULL;
    *nextra = 0;
    for (int k = i + 1; k < n; k++) extra[(*nextra)++] = w[k];
    return node;
}

int record_program_resolve(record_program_t *rp, char **argv, int argc, const char *const *node_flags, int allow_any)
{
    memset(rp, 0, sizeof *rp);
    char *exe = find_in_path(argv[0]);
    if (!exe) {
        diag_error(NULL, 0, "%s: %s", argv[0],
                   strchr(argv[0], '/') ? "no such executable file" : "command not found (searched PATH)");
        return -1;
    }
    int nflags = 0;
    while (node_flags && node_flags[nflags]) nflags++;
    char line[512], *extra[16];
    int nextra = 0;
    char *node = NULL;
    char real[PATH_MAX];
    const char *real_exe = realpath(exe, real) ? real : exe;
    if (named_node(exe) || named_node(real_exe)) node = xstrdup(exe);
    else node = script_node(exe, extra, &nextra, line, sizeof line);

    rp->argv = xcalloc((size_t)argc + (size_t)nflags + (size_t)nextra + 2, sizeof *rp->argv);
    if (node) {
        /* node FLAGS [#! extras] [script] ARGS: V8 flags before the script */
        int k = 0, is_script = strcmp(node, exe) != 0;
        rp->argv[k++] = node;
        for (int i = 0; i < nflags; i++) rp->argv[k++] = xstrdup(node_flags[i]);
        for (int i = 0; i < nextra; i++) rp->argv[k++] = xstrdup(extra[i]);
        if (is_script) rp->argv[k++] = xstrdup(exe);
        for (int i = 1; i < argc; i++) rp->argv[k++] = xstrdup(argv[i]);
        rp->argc = k;
        rp->is_node = 1;
        rp->path = exe;
        return 0;
    }
    if (!allow_any) {
        diag_error(NULL, 0,
                   "%s is not node (nor a script node runs): record names JavaScript frames of Node programs. "
                   "To record it with perf anyway (native frames only, no Node flags), add --perf; to record the node "
                   "processes it starts, add --children",
                   argv[0]);
        free(rp->argv);
        rp->argv = NULL;
        free(exe);
        return -1;
    }
    for (int i = 0; i < argc; i++) rp->argv[i] = xstrdup(argv[i]);
    rp->argc = argc;
    rp->path = exe;
    return 0;
}

void record_program_free(record_program_t *rp)
{
    if (rp->argv)
        for (int i = 0; i < rp->argc; i++) free(rp->argv[i]);
    free(rp->argv);
    free(rp->path);
    memset(rp, 0, sizeof *rp);
}

/* The process's executable, or its thread name when /proc/PID/exe cannot be read. */
int record_process_is_node(int pid)
{
    char path[64], target[PATH_MAX];
    snprintf(path, sizeof path, "/proc/%d/exe", pid);
    ssize_t n = readlink(path, target, sizeof target - 1);
    if (n > 0) {
        target[n] = 0;
        char *del = strstr(target, " (deleted)"); /* upgraded while running */
        if (del) *del = 0;
        return named_node(target);
    }
    snprintf(path, sizeof path, "/proc/%d/comm", pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int ok = fgets(target, sizeof target, f) != NULL;
    fclose(f);
    return ok && named_node(target);
}

/* One number from a /proc file's "Key:" line (base 10, or 16 for capability masks); -1 if none. */
static long long proc_field(const char *path, const char *key, int base)
{
    FILE *f = fopen(path, "r");
    char line[512];
    long long v = -1;
    size_t n = strlen(key);
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, key, n)) {
            v = strtoll(line + n, NULL, base);
            break;
        }
    if (f) fclose(f);
    return v;
}

static long read_sysctl(const char *path)
{
    FILE *f = fopen(path, "r");
    long v = -1;
    if (f && fscanf(f, "%ld", &v) != 1) v = -1;
    if (f) fclose(f);
    return v;
}

/* Is ppid an ancestor of pid (Yama's ptrace_scope 1 lets a process read its descendants')? */
static int is_ancestor(int ancestor, int pid)
{
    for (int i = 0; i < 64 && pid > 1; i++) {
        char path[64];
        snprintf(path, sizeof path, "/proc/%d/status", pid);
        pid = (int)proc_field(path, "PPid:", 10);
        if (pid == ancestor) return 1;
    }
    return 0;
}

int record_may_read(int pid)
{
    long long caps = proc_field("/proc/self/status", "CapEff:", 16);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    long long uid = proc_field(path, "Uid:", 10);
    return (caps > 0 && (caps >> 19 & 1)) || (uid >= 0 && (uid_t)uid == getuid());
}

int record_check_privileges(int pid)
{
    long long caps = proc_field("/proc/self/status", "CapEff:", 16);
    int sys_ptrace = caps > 0 && (caps >> 19 & 1), perfmon = caps > 0 && ((caps >> 38 & 1) || (caps >> 21 & 1));
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    long long uid = proc_field(path, "Uid:", 10);
    uid_t me = getuid();
    if (uid >= 0 && (uid_t)uid != me && !sys_ptrace) {
        diag_error(NULL, 0,
                   "process %d belongs to uid %lld and nodescope runs as uid %u: reading another user's "
                   "process needs CAP_SYS_PTRACE (and CAP_PERFMON to sample it)",
                   pid, uid, (unsigned)me);
        diag_hint("run nodescope as uid %lld or as root, or " PRIV_CAPS_HOWTO, uid);
        return -1;
    }
    long paranoid = read_sysctl("/proc/sys/kernel/perf_event_paranoid");
    if (paranoid > 2 && !perfmon) {
        diag_error(NULL, 0, "kernel.perf_event_paranoid is %ld: perf events are closed to users without CAP_PERFMON",
                   paranoid);
        diag_hint("'sudo sysctl kernel.perf_event_paranoid=2' (own processes, user space), or run as root, or "
                  PRIV_CAPS_HOWTO);
        return -1;
    }
    long scope = read_sysctl("/proc/sys/kernel/yama/ptrace_scope");
    if (!sys_ptrace && ((scope == 1 && !is_ancestor(getpid(), pid)) || scope == 2)) {
        diag_error(NULL, 0, "kernel.yama.ptrace_scope is %ld: %s", scope,
                   scope == 1 ? "only a process's ancestors may read its memory, and nodescope did not start it"
                              : "only CAP_SYS_PTRACE may read another process's memory");
        diag_hint("start the program under nodescope ('nodescope record -- CMD'), or "
                  "'sudo sysctl kernel.yama.ptrace_scope=%s', or " PRIV_CAPS_HOWTO,
                  scope == 1 ? "0" : "1 (own children) or 0");
        return -1;
    }
    if (scope == 3) {
        diag_error(NULL, 0, "kernel.yama.ptrace_scope is 3: no process may read another's memory until reboot");
        return -1;
    }
    return 0;
}

int record_check_attach(int pid, record_attach_need_t need)
{
    if (kill(pid, 0) != 0 && errno == ESRCH) {
        diag_error(NULL, 0, "no process %d to attach to", pid);
        return -1;
    }
    if (need != RECORD_ATTACH_ANY && record_check_privileges(pid) != 0) return -1;
    int node = record_process_is_node(pid);
    if (need == RECORD_ATTACH_NODE && !node) {
        diag_error(NULL, 0,
                   "process %d is not node: the live sampler names JavaScript frames of Node processes. "
                   "To record it with perf anyway (native frames only), add --perf",
                   pid);
        return -1;
    }
    char map[256];
    perfmap_path_for_pid(pid, map, sizeof map);
    if (need == RECORD_ATTACH_ANY && node && access(map, R_OK) != 0)
        diag_warn(map, 0,
                  "process %d has no perf map (it was not started with --perf-basic-prof), so perf cannot "
                  "name its JavaScript frames: without --perf, the live sampler names them",
                  pid);
    return 0;
}
