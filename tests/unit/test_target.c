/* target/: a real node blocked on a FIFO is examined live (ptrace) and through a gcore core file.
 * Independent truth: /proc/PID/task (threads), gdb on the same core (v8dbg_ symbol values),
 * the bytes of the executable's ELF header (memory read through NT_FILE when text is not dumped). */
#include "check.h"
#include "target/target.h"
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* elfutils 0.188's libdw leaks 16 bytes per dwfl attach (inside libdw, after dwfl_end): not ours. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libdw.so"; }

static int task_count(int pid)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "ls /proc/%d/task | wc -l", pid);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p) {
        if (fscanf(p, "%d", &n) != 1) n = -1;
        pclose(p);
    }
    return n;
}

static long long gdb_value(const char *node, const char *core, const char *sym)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "gdb -batch -nx -ex 'p (int)%s' %s %s 2>/dev/null | sed -n 's/^\\$1 = //p'", sym, node,
             core);
    FILE *p = popen(cmd, "r");
    long long v = -999;
    if (p) {
        if (fscanf(p, "%lld", &v) != 1) v = -999;
        pclose(p);
    }
    return v;
}

static int count_cb_n;
static void count_cb(void *ctx, const char *name, uint64_t addr, uint64_t size) { count_cb_n++; }

static void check_target(target_t *t, int pid, const char *node)
{
    CHECK(target_thread_count(t) >= 5);
    CHECK_EQ_INT((int)target_thread_count(t), task_count(pid));
    const target_thread_t *th = target_thread(t, 0);
    CHECK(th && th->sp != 0 && th->pc != 0 && target_mapping_at(t, th->sp) != NULL);
    /* the executable's ELF header, through its mapping at offset 0 */
    uint8_t magic[4] = {0};
    int found = 0;
    for (size_t i = 0; i < target_mapping_count(t); i++) {
        const target_mapping_t *m = target_mapping(t, i);
        if (m->path && m->file_offset == 0 && strcmp(m->path, target_exe_path(t)) == 0) {
            CHECK_EQ_INT(target_read(t, m->start, magic, 4), 0);
            found = 1;
            break;
        }
    }
    CHECK(found && memcmp(magic, "\177ELF", 4) == 0);
    uint64_t v = 0, size = 0;
    CHECK_EQ_INT(target_exe_symbol_value(t, "v8dbg_HeapObjectTag", &v, &size), 0);
    CHECK_EQ_INT((int)v, 1);
    CHECK_EQ_INT((int)size, 4);
    count_cb_n = 0;
    target_exe_symbols(t, "v8dbg_", count_cb, NULL);
    CHECK(count_cb_n > 100);
    CHECK(target_read_u64(t, 8, &v) == -1); /* page zero is never mapped */
    target_frame_t fr[64];
    size_t nf = target_unwind(t, 0, fr, 64);
    CHECK(nf >= 1 && fr[0].pc == th->pc);
    target_symbol_t s;
    /* blocked in open() on the FIFO: the main thread is inside libc */
    CHECK_EQ_INT(target_symbolize(t, th->pc, &s), 0);
    CHECK(s.module && strncmp(s.module, "libc", 4) == 0);
    if (getenv("TARGET_VERBOSE"))
        for (size_t i = 0; i < nf; i++)
            if (target_symbolize(t, fr[i].pc, &s) == 0) fprintf(stderr, "#%zu %s %s\n", i, s.name, s.module);
    (void)node;
}

static void run_node(const char *node, const char *tmp)
{
    if (access(node, X_OK) != 0) return;
    char fifo[512], core[512], cmd[2048];
    snprintf(fifo, sizeof fifo, "%s/fifo", tmp);
    snprintf(core, sizeof core, "%s/core", tmp);
    unlink(fifo);
    if (mkfifo(fifo, 0600) != 0) {
        CHECK(0);
        return;
    }
    int pid = fork();
    if (pid == 0) {
        execl(node, node, "-e", "require('fs').readFileSync(process.argv[1])", fifo, (char *)NULL);
        _exit(127);
    }
    sleep(1); /* node starts its threads and blocks in open() on the FIFO */
    target_t *t = target_open_pid(pid);
    CHECK(t != NULL);
    if (t) {
        check_target(t, pid, node);
        target_frame_t fr[128];
        size_t nf = target_unwind(t, 0, fr, 128);
        int saw_start = 0;
        target_symbol_t s;
        for (size_t i = 0; i < nf; i++)
            if (target_symbolize(t, fr[i].pc, &s) == 0) saw_start |= strncmp(s.name, "_ZN4node5Start", 14) == 0;
        CHECK(saw_start);
        CHECK(strcmp(target_kind(t), "stopped process") == 0);
        target_close(t);
    }
    /* read-only: a running target never stops the process; a snapshot stops it only to copy
       registers and stacks, and the stack reads after it come from the copy */
    t = target_open_running(pid);
    CHECK(t != NULL);
    if (t) {
        CHECK(strcmp(target_kind(t), "running process") == 0);
        CHECK_EQ_INT((int)target_thread_count(t), task_count(pid));
        CHECK(target_thread(t, 0)->tid == pid && target_thread(t, 0)->pc == 0);
        double ms[21];
        for (int k = 0; k < 21; k++) CHECK_EQ_INT(target_snapshot(t, &ms[k]), 0);
        for (int a = 0; a < 21; a++)
            for (int b = a + 1; b < 21; b++)
                if (ms[b] < ms[a]) {
                    double x = ms[a];
                    ms[a] = ms[b];
                    ms[b] = x;
                }
        fprintf(stderr, "target_snapshot stopped %s for min %.2f / median %.2f / max %.2f ms (21 snapshots)\n", node,
                ms[0], ms[10], ms[20]);
        CHECK(strcmp(target_kind(t), "running process") == 0);
        check_target(t, pid, node);
        char state[256] = "";
        snprintf(cmd, sizeof cmd, "/proc/%d/stat", pid);
        FILE *f = fopen(cmd, "r");
        if (f) {
            if (!fgets(state, sizeof state, f)) state[0] = 0;
            fclose(f);
        }
        char *close_paren = strrchr(state, ')');
        CHECK(close_paren && close_paren[2] != 't'); /* not left in a tracing stop */
        /* a lent stack copy hides the process's bytes */
        uint64_t sp = target_thread(t, 0)->sp, w = 0, fake = 0x1234;
        target_set_stack_copy(t, sp, &fake, sizeof fake);
        CHECK(target_read_u64(t, sp, &w) == 0 && w == 0x1234);
        target_set_stack_copy(t, 0, NULL, 0);
        target_close(t);
    }
    /* a frozen copy: the process is a running one again, with one child (the copy) while the
       target is open and none after target_close; reads and registers as of the stop */
    {
        double ms[7];
        for (int k = 0; k < 7; k++) {
            t = target_open_running(pid);
            CHECK(t != NULL);
            if (!t) {
                ms[k] = 0;
                continue;
            }
            CHECK_EQ_INT(target_freeze(t, &ms[k]), 0);
            CHECK(strcmp(target_kind(t), "stopped process") == 0);
            CHECK(target_thread(t, 0)->tid == pid && target_thread(t, 0)->pc != 0);
            char kids[256] = "";
            snprintf(cmd, sizeof cmd, "/proc/%d/task/%d/children", pid, pid);
            FILE *f = fopen(cmd, "r");
            if (f) {
                if (!fgets(kids, sizeof kids, f)) kids[0] = 0;
                fclose(f);
            }
            CHECK(atoi(kids) > 0);
            if (k == 0) check_target(t, pid, node);
            target_close(t);
            kids[0] = 0;
            if ((f = fopen(cmd, "r"))) {
                if (!fgets(kids, sizeof kids, f)) kids[0] = 0;
                fclose(f);
            }
            CHECK_EQ_INT(kids[0], 0); /* killed and reaped */
        }
        for (int a = 0; a < 7; a++)
            for (int b = a + 1; b < 7; b++)
                if (ms[b] < ms[a]) {
                    double x = ms[a];
                    ms[a] = ms[b];
                    ms[b] = x;
                }
        fprintf(stderr, "target_freeze stopped %s for min %.2f / median %.2f / max %.2f ms (7 freezes)\n", node, ms[0],
                ms[3], ms[6]);
        char state[256] = "";
        snprintf(cmd, sizeof cmd, "/proc/%d/stat", pid);
        FILE *f = fopen(cmd, "r");
        if (f) {
            if (!fgets(state, sizeof state, f)) state[0] = 0;
            fclose(f);
        }
        char *close_paren = strrchr(state, ')');
        CHECK(close_paren && close_paren[2] != 't'); /* not left in a tracing stop */
    }
    /* only anonymous private memory: keeps the core small; text comes from the files */
    snprintf(cmd, sizeof cmd, "echo 1 > /proc/%d/coredump_filter && gcore -o %s %d >/dev/null 2>&1 && mv %s.%d %s", pid,
             core, pid, core, pid, core);
    CHECK_EQ_INT(system(cmd), 0);
    t = target_open_core(core, NULL);
    CHECK(t != NULL);
    if (t) {
        check_target(t, pid, node);
        uint64_t v;
        /* CFI out of libc's open(), then the frame-pointer chain through JIT code down to node::Start */
        target_frame_t fr[128];
        size_t nf = target_unwind(t, 0, fr, 128);
        int saw_uv = 0, saw_start = 0;
        target_symbol_t s;
        for (size_t i = 0; i < nf; i++)
            if (target_symbolize(t, fr[i].pc, &s) == 0) {
                saw_uv |= strcmp(s.name, "uv_fs_open") == 0;
                saw_start |= strncmp(s.name, "_ZN4node5Start", 14) == 0;
            }
        CHECK(saw_uv && saw_start);
        CHECK_EQ_INT(target_exe_symbol_value(t, "v8dbg_SmiTag", &v, NULL), 0); /* a .bss one */
        CHECK_EQ_INT((long long)(int32_t)v, gdb_value(node, core, "v8dbg_SmiTag"));
        CHECK_EQ_INT(target_exe_symbol_value(t, "v8dbg_type_JSFunction__JS_FUNCTION_TYPE", &v, NULL), 0);
        CHECK_EQ_INT((long long)(int32_t)v, gdb_value(node, core, "v8dbg_type_JSFunction__JS_FUNCTION_TYPE"));
        target_close(t);
    }
    /* another node binary than the core's: refused (build ids differ) */
    const char *other = strcmp(node, "/usr/bin/node") == 0 ? "tests/.cache/node/22/bin/node" : "/usr/bin/node";
    if (access(other, X_OK) == 0) CHECK(target_open_core(core, other) == NULL);
    /* corrupt cores: truncated to the headers, and garbage */
    snprintf(cmd, sizeof cmd, "truncate -s 100000 %s", core);
    CHECK_EQ_INT(system(cmd), 0);
    t = target_open_core(core, NULL);
    if (t) {
        uint64_t v;
        target_read_u64(t, 0x1000, &v);
        target_close(t);
    }
    snprintf(cmd, sizeof cmd, "truncate -s 30 %s", core);
    CHECK_EQ_INT(system(cmd), 0);
    CHECK(target_open_core(core, NULL) == NULL);
    unlink(core);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    unlink(fifo);
}

int main(void)
{
    const char *tmp = getenv("TEST_TMP") ? getenv("TEST_TMP") : "/tmp";
    CHECK(target_open_core("/nonexistent/core", NULL) == NULL);
    CHECK(target_open_pid(999999999) == NULL);
    run_node("/usr/bin/node", tmp);
    run_node("tests/.cache/node/22/bin/node", tmp);
    return check_summary("target");
}
