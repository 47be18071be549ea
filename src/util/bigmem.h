/* Memory for bulk work, in one place: tables of megabytes filled once (the object graph's
 * arrays, an executable's sorted symbols), and the heap of commands that fold large perf scripts
 * or draw large flame graphs. Profiling showed a third of such work in page faults on fresh
 * memory (one per 4 KiB, each costly in a VM), so big blocks ask for transparent huge pages: one
 * fault per 2 MiB where the kernel gives them on request (THP "madvise" mode), nothing changes
 * where it does not. */
#ifndef UTIL_BIGMEM_H
#define UTIL_BIGMEM_H
#include "util/privilege.h"
#include "util/xalloc.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

/* Idempotent; call before creating threads. A no-op where it cannot help. */
void bigmem_prepare(void);

#define BIG_HUGE_PAGE ((uintptr_t)2 << 20)

/* Advises huge pages for the whole 2 MiB pages inside [p, p + bytes); returns p. */
static inline void *big_huge(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
    if (p && bytes >= 2 * BIG_HUGE_PAGE) {
        uintptr_t a = ((uintptr_t)p + BIG_HUGE_PAGE - 1) & ~(BIG_HUGE_PAGE - 1);
        uintptr_t b = ((uintptr_t)p + bytes) & ~(BIG_HUGE_PAGE - 1);
        if (b > a) madvise((void *)a, b - a, MADV_HUGEPAGE);
    }
#endif
    return p;
}

static inline void *big_malloc(size_t bytes) { return big_huge(xmalloc(bytes ? bytes : 1), bytes); }
static inline void *big_calloc(size_t n, size_t size) { return big_huge(xcalloc(n ? n : 1, size), n * size); }
static inline void *big_realloc(void *p, size_t bytes) { return big_huge(xrealloc(p, bytes ? bytes : 1), bytes); }

/* A growing array without copies: address space reserved by the page (untouched pages cost
 * nothing), grown in place by mremap when it runs out. Freed with big_unmap. */
static inline void *big_map(size_t bytes)
{
    bytes = (bytes + 4095) & ~(size_t)4095;
    void *p =
        mmap(NULL, bytes ? bytes : 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "nodescope: out of memory (asked for %zu bytes)\n", bytes);
        exit(1);
    }
    return big_huge(p, bytes);
}
static inline void *big_remap(void *p, size_t old_bytes, size_t new_bytes)
{
    old_bytes = (old_bytes + 4095) & ~(size_t)4095;
    new_bytes = (new_bytes + 4095) & ~(size_t)4095;
    void *q = mremap(p, old_bytes ? old_bytes : 4096, new_bytes, MREMAP_MAYMOVE);
    if (q == MAP_FAILED) {
        fprintf(stderr, "nodescope: out of memory (asked for %zu bytes)\n", new_bytes);
        exit(1);
    }
    return big_huge(q, new_bytes);
}
static inline void big_unmap(void *p, size_t bytes)
{
    if (p) munmap(p, ((bytes + 4095) & ~(size_t)4095) ? ((bytes + 4095) & ~(size_t)4095) : 4096);
}

/* With NODESCOPE_MEM_TRACE set: the resident set (anonymous, and file-backed: a core's touched
 * pages), its peak and malloc's bytes on stderr at the phases of a graph command: where the peak
 * memory comes from. */
#include <malloc.h>
#include <string.h>
static inline void big_mem_trace(const char *phase)
{
    static int on = -1;
    if (on < 0) on = priv_env("NODESCOPE_MEM_TRACE") != NULL;
    if (!on) return;
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return;
    char line[256];
    long rss = 0, hwm = 0, anon = 0, file = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "VmRSS:", 6)) rss = atol(line + 6);
        else if (!strncmp(line, "VmHWM:", 6)) hwm = atol(line + 6);
        else if (!strncmp(line, "RssAnon:", 8)) anon = atol(line + 8);
        else if (!strncmp(line, "RssFile:", 8)) file = atol(line + 8);
    }
    fclose(f);
    struct mallinfo2 mi = mallinfo2();
    fprintf(stderr, "mem %-26s rss %5ld MB (anon %5ld, file %5ld), peak %5ld MB; malloc %5zu MB + %5zu MB mmap'ed\n",
            phase, rss >> 10, anon >> 10, file >> 10, hwm >> 10, mi.uordblks >> 20, mi.hblkhd >> 20);
}

#endif
