/* The floor of a snapshot's stop: how long fork() takes in a process with MB megabytes of touched
 * anonymous memory in 4 KiB pages (the kernel copies page tables, not memory), in one mapping or,
 * with KIB, in mappings of KIB KiB each (V8's heap: thousands of 256 KiB mappings; a PROT_NONE
 * page after each keeps them from merging). Every page is written again before each fork, as a
 * program that writes its heap has it (fork write-protects each writable page-table entry: a
 * process that did not write since its last fork forks faster). Prints "median min max" ms over
 * 7 forks.
 * Built and run by bench/snapshot_cow.sh and bench/snapshot_stop.sh:  fork_floor MB [KIB] */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: fork_floor MB [KIB]\n"); return 2; }
    size_t total = (size_t)atol(argv[1]) << 20, kib = argc > 2 ? (size_t)atol(argv[2]) : 0;
    size_t chunk = kib ? kib << 10 : total;
    size_t nmaps = (total + chunk - 1) / chunk;
    char **maps = calloc(nmaps, sizeof *maps);
    if (!maps) return 1;
    for (size_t m = 0, off = 0; off < total; off += chunk, m++) {
        char *p = maps[m] = mmap(NULL, chunk + (kib ? 4096 : 0), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED) { perror("mmap"); return 1; }
        madvise(p, chunk, MADV_NOHUGEPAGE);   /* 4 KiB pages, as V8's and node's buffers get */
        if (kib) mprotect(p + chunk, 4096, PROT_NONE);
        for (size_t i = 0; i < chunk; i += 4096) p[i] = 1;
    }
    double ts[7];
    for (int k = 0; k < 7; k++) {
        for (size_t m = 0; m < nmaps; m++)
            for (size_t i = 0; i < chunk; i += 4096) maps[m][i]++;
        double t = now_ms();
        pid_t c = fork();
        if (c == 0) _exit(0);
        ts[k] = now_ms() - t;
        if (c > 0) waitpid(c, NULL, 0);
    }
    qsort(ts, 7, sizeof *ts, cmp);
    printf("%.1f %.1f %.1f\n", ts[3], ts[0], ts[6]);
    return 0;
}
