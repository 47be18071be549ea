/* What a census's stop could be without a fork (issue 31: < 20 ms at 1 GB; a fork is 31-40 ms
 * there, bench/fork_floor.c): a process whose pages are tracked by the kernel for writes
 * (userfaultfd write-protection, asynchronous mode: a write to a protected page is resolved by the
 * kernel, nothing waits; Linux 6.7+), and a reader in another process that asks, with one
 * PAGEMAP_SCAN ioctl on /proc/PID/pagemap, which pages were written since its last question and
 * write-protects them again in the same walk, then reads only those (process_vm_readv). A copy of
 * the heap kept by the reader would be brought up to date that way while the process is stopped;
 * this measures the two steps on a process of MB megabytes of touched anonymous memory (in KIB
 * KiB mappings, as V8 keeps its heap; default one mapping) that writes WRITES random pages every
 * 100 ms, and, in the same run, a fork of it (what nodescope's stop is today). Prints per scan its
 * time, the pages it found written and the time to read them (scans 100 ms, then 1 s apart); then
 * the fork's median.
 * Not nodescope's code: the measurement that says whether building it is worth it (the process
 * must create the userfaultfd itself: nodescope would have to inject the calls, and leave the
 * descriptor open in the process between censuses).
 *   gcc -O2 -o /tmp/uffd_wp_floor bench/uffd_wp_floor.c && /tmp/uffd_wp_floor MB [WRITES [KIB]] */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/userfaultfd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* linux/fs.h of Linux 6.7 (older headers lack them) */
#define PAGE_IS_WRITTEN (1 << 1)
struct page_region {
    uint64_t start, end, categories;
};
struct pm_scan_arg {
    uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages, category_inverted, category_mask,
        category_anyof_mask, return_mask;
};
#define PM_SCAN_WP_MATCHING (1 << 0)
#define PAGEMAP_SCAN _IOWR('f', 16, struct pm_scan_arg)
#define FEATURE_WP_UNPOPULATED (1 << 13)
#define FEATURE_WP_ASYNC (1 << 15)
#define USER_MODE_ONLY 1

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The process: its memory, tracked; reports [lo, hi) and the median of 7 forks on out, then
   writes until killed. */
static void process(size_t total, size_t kib, long writes, int out)
{
    size_t chunk = kib ? kib << 10 : total, step = chunk + (kib ? 4096 : 0);
    char *base = mmap(NULL, total / chunk * step + step, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) _exit(1);
    size_t n = (total + chunk - 1) / chunk;
    for (size_t m = 0; m < n; m++) {
        char *p = base + m * step;
        mprotect(p, chunk, PROT_READ | PROT_WRITE); /* a PROT_NONE page after each keeps them apart */
        madvise(p, chunk, MADV_NOHUGEPAGE);
        for (size_t i = 0; i < chunk; i += 4096) p[i] = 1;
    }
    double ts[7];
    for (int k = 0; k < 7; k++) {
        double t = now_ms();
        pid_t c = fork();
        if (c == 0) _exit(0);
        ts[k] = now_ms() - t;
        if (c > 0) waitpid(c, NULL, 0);
    }
    qsort(ts, 7, sizeof *ts, cmp);
    int fd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | USER_MODE_ONLY);
    struct uffdio_api api = {.api = UFFD_API, .features = FEATURE_WP_ASYNC | FEATURE_WP_UNPOPULATED};
    struct uffdio_register reg = {.range = {(uint64_t)(uintptr_t)base, n * step}, .mode = UFFDIO_REGISTER_MODE_WP};
    if (fd < 0 || ioctl(fd, UFFDIO_API, &api) != 0 || ioctl(fd, UFFDIO_REGISTER, &reg) != 0) {
        fprintf(stderr, "userfaultfd write-protection (async) not available: %s\n", strerror(errno));
        _exit(1);
    }
    uint64_t msg[3] = {(uint64_t)(uintptr_t)base, (uint64_t)(uintptr_t)(base + n * step), 0};
    memcpy(&msg[2], &ts[3], sizeof ts[3]);
    if (write(out, msg, sizeof msg) != sizeof msg) _exit(1);
    for (unsigned r = 1;; r = r * 1103515245u + 12345u) {
        for (long k = 0; k < writes; k++) {
            r = r * 1103515245u + 12345u;
            size_t m = r % n, i = (r >> 8) % (chunk / 4096);
            base[m * step + i * 4096]++;
        }
        usleep(100000);
    }
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: uffd_wp_floor MB [WRITES [KIB]]\n");
        return 2;
    }
    size_t total = (size_t)atol(argv[1]) << 20, kib = argc > 3 ? (size_t)atol(argv[3]) : 0;
    long writes = argc > 2 ? atol(argv[2]) : 1000;
    int p[2];
    if (pipe(p) != 0) return 1;
    pid_t pid = fork();
    if (pid == 0) {
        close(p[0]);
        process(total, kib, writes, p[1]);
    }
    close(p[1]);
    uint64_t msg[3];
    if (read(p[0], msg, sizeof msg) != sizeof msg) {
        waitpid(pid, NULL, 0);
        return 1;
    }
    double fork_ms;
    memcpy(&fork_ms, &msg[2], sizeof fork_ms);
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/pagemap", pid);
    int pm = open(path, O_RDONLY | O_CLOEXEC);
    size_t cap = 1 << 20;
    struct page_region *vec = malloc(cap * sizeof *vec);
    char *buf = mmap(NULL, msg[1] - msg[0], PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (pm < 0 || !vec || buf == MAP_FAILED) {
        kill(pid, SIGKILL);
        return 1;
    }
    printf("%zu MB in %s, %ld pages written every 100 ms\n", total >> 20, kib ? argv[3] : "one mapping", writes);
    for (int round = 0; round < 8; round++) {
        double t0 = now_ms();
        struct pm_scan_arg a = {.size = sizeof a, .flags = PM_SCAN_WP_MATCHING, .start = msg[0], .end = msg[1],
                                .vec = (uint64_t)(uintptr_t)vec, .vec_len = cap, .category_mask = PAGE_IS_WRITTEN,
                                .return_mask = PAGE_IS_WRITTEN};
        long nr = ioctl(pm, PAGEMAP_SCAN, &a);
        double t1 = now_ms();
        if (nr < 0) {
            perror("PAGEMAP_SCAN");
            break;
        }
        uint64_t pages = 0;
        struct iovec l[1024], r[1024];
        for (long i = 0; i < nr && !round; i++) pages += (vec[i].end - vec[i].start) / 4096;
        for (long i = 0; i < nr && round;) {
            int k = 0;
            for (; i < nr && k < 1024; i++, k++) {
                size_t len = vec[i].end - vec[i].start;
                pages += len / 4096;
                l[k] = (struct iovec){buf + (vec[i].start - msg[0]), len};
                r[k] = (struct iovec){(void *)(uintptr_t)vec[i].start, len};
            }
            if (process_vm_readv(pid, l, (unsigned long)k, r, (unsigned long)k, 0) < 0) perror("process_vm_readv");
        }
        double t2 = now_ms();
        if (!round)
            printf("  the first scan: every page protected, %.2f ms (%lu pages)\n", t1 - t0, (unsigned long)pages);
        else
            printf("  scan and protect again %.2f ms: %lu pages written since the last (%.1f MB), read in %.2f ms\n",
                   t1 - t0, (unsigned long)pages, pages * 4096 / 1e6, t2 - t1);
        usleep(round < 4 ? 100000 : 1000000); /* a few scans 100 ms apart, then a second apart */
    }
    printf("  fork of the process: %.1f ms (median of 7)\n", fork_ms);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    return 0;
}
