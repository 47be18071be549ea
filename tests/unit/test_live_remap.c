/* target/live.c: mappings made after a running process was opened. A child (this test's own
 * binary) maps the page of one of its functions a second time, elsewhere, once the target is open
 * (as Node 20 maps V8's embedded builtins again next to its code range after start): the address
 * is in no known mapping until target_mapping_refresh reads the maps again, and the function is
 * then named at its second address too, with its start there (not at the first mapping's). */
#include "check.h"
#include "target/target.h"
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void) { return "leak:libdw.so"; }

/* the function mapped twice; noinline and used, so that it has a symbol and a body */
__attribute__((noinline)) int remap_me(int x);
__attribute__((noinline)) int remap_me(int x) { return x * 3 + 1; }

/* The file offset of addr in this process's mapping of its executable. */
static int file_offset_of(uint64_t addr, uint64_t *off)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = -1;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long long s, e, o;
        if (sscanf(line, "%llx-%llx %*s %llx", &s, &e, &o) == 3 && addr >= s && addr < e) {
            *off = o + (addr - s);
            found = 0;
            break;
        }
    }
    if (f) fclose(f);
    return found;
}

/* The child: waits for a byte, maps remap_me's page again, writes the new address of remap_me,
 * then waits to be killed. */
static void child(int in, int out)
{
    char c;
    if (read(in, &c, 1) != 1) _exit(1);
    uint64_t fn = (uint64_t)(uintptr_t)&remap_me, off;
    long page = sysconf(_SC_PAGESIZE);
    int fd = open("/proc/self/exe", O_RDONLY);
    if (fd < 0 || file_offset_of(fn, &off) != 0) _exit(1);
    uint64_t page_off = off & ~(uint64_t)(page - 1);
    void *m = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, (off_t)page_off);
    if (m == MAP_FAILED) _exit(1);
    uint64_t again = (uint64_t)(uintptr_t)m + (off - page_off);
    if (write(out, &again, sizeof again) != sizeof again) _exit(1);
    for (;;) pause();
}

int main(void)
{
    CHECK(remap_me(1) == 4);
    int to[2], from[2];
    if (pipe(to) != 0 || pipe(from) != 0) return 1;
    pid_t pid = fork();
    if (pid == 0) {
        close(to[1]);
        close(from[0]);
        child(to[0], from[1]);
    }
    close(to[0]);
    close(from[1]);
    target_t *t = target_open_running(pid);
    CHECK(t != NULL);
    uint64_t again = 0;
    if (t && write(to[1], "x", 1) == 1 && read(from[0], &again, sizeof again) == sizeof again) {
        uint64_t fn = (uint64_t)(uintptr_t)&remap_me; /* the same address in the child (fork) */
        target_symbol_t s;
        CHECK(target_symbolize(t, fn + 1, &s) == 0 && s.name && strcmp(s.name, "remap_me") == 0 && s.addr == fn);
        CHECK(target_mapping_at(t, again) == NULL); /* mapped after the target was opened */
        const target_mapping_t *m = target_mapping_refresh(t, again);
        CHECK(m != NULL && m->path && (m->prot & 4));
        CHECK(target_mapping_at(t, again) == m);
        memset(&s, 0, sizeof s);
        CHECK(target_symbolize(t, again + 1, &s) == 0);
        CHECK_STR(s.name, "remap_me");
        CHECK(s.addr == again); /* the symbol as mapped where it was asked for */
        /* the first mapping still names it at its own place */
        CHECK(target_symbolize(t, fn + 1, &s) == 0 && s.addr == fn);
        /* a second miss within 100 ms does not read the maps again; nothing there anyway */
        CHECK(target_mapping_refresh(t, 8) == NULL);
        /* the bytes are the function's, at both places */
        uint8_t a[16], b[16];
        CHECK(target_read(t, fn, a, sizeof a) == 0 && target_read(t, again, b, sizeof b) == 0 &&
              memcmp(a, b, sizeof a) == 0);
    } else {
        CHECK(!"the child did not map the page again");
    }
    target_close(t);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return check_summary("live_remap");
}
