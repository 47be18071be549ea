/* Full GCs of a live process's main thread, from uprobes on Heap::MarkCompact (gc_watch.h). */
#include "record/gc_watch.h"
#include "util/xalloc.h"
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define RING_PAGES 8   /* a record is 16 bytes: hundreds of GCs between two reads */
#define MARK_COMPACT "_ZN2v88internal4Heap11MarkCompactEv"   /* v8::internal::Heap::MarkCompact() */

struct gc_watch {
    int fd[2];          /* entry, return */
    void *ring[2];
    uint64_t last_start, last_end;   /* CLOCK_MONOTONIC ns of the latest entry and return seen */
    unsigned long count;
    int unsure;         /* events were lost: nothing is quiet before the next whole GC is seen */
};

static long page_size(void) { return sysconf(_SC_PAGESIZE); }

static int uprobe_type(void) {
    FILE *f = fopen("/sys/bus/event_source/devices/uprobe/type", "r");
    int type = -1;
    if (f) {
        if (fscanf(f, "%d", &type) != 1) type = -1;
        fclose(f);
    }
    return type;
}

static int open_probe(int type, const char *path, uint64_t offset, int ret, int tid) {
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = (uint32_t)type;
    a.config = ret ? 1 : 0;   /* the uprobe PMU's "retprobe" bit (config:0) */
    a.config1 = (uint64_t)(uintptr_t)path;
    a.config2 = offset;
    a.sample_period = 1;
    a.sample_type = PERF_SAMPLE_TIME;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    return (int)syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

gc_watch_t *gc_watch_open(target_t *t, int tid) {
    uint64_t addr, size, offset;
    const char *module;
    char path[64];
    int type = uprobe_type();
    if (type < 0 || target_exe_symbol_addr(t, MARK_COMPACT, &addr, &size) != 0 ||
        target_file_location(t, addr, &module, &offset) != 0)
        return NULL;
    /* the kernel resolves the link to the executable's inode, whatever its name */
    snprintf(path, sizeof path, "/proc/%d/exe", tid);
    gc_watch_t *w = xcalloc(1, sizeof *w);
    size_t len = (size_t)(RING_PAGES + 1) * (size_t)page_size();
    for (int i = 0; i < 2; i++) {
        w->ring[i] = MAP_FAILED;
        w->fd[i] = open_probe(type, path, offset, i, tid);
        if (w->fd[i] >= 0) w->ring[i] = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd[i], 0);
        if (w->ring[i] == MAP_FAILED) {
            if (w->fd[i] >= 0) close(w->fd[i]);
            w->fd[i] = -1;
            if (i == 1) { munmap(w->ring[0], len); close(w->fd[0]); }
            free(w);
            return NULL;
        }
    }
    return w;
}

/* Takes in the records of one probe's ring: the latest time seen. */
static void drain(gc_watch_t *w, int which) {
    struct perf_event_mmap_page *meta = w->ring[which];
    const uint8_t *data = (const uint8_t *)w->ring[which] + page_size();
    uint64_t size = (uint64_t)RING_PAGES * (uint64_t)page_size();
    uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE), tail = meta->data_tail;
    while (tail < head) {
        struct perf_event_header h;
        uint8_t rec[32];
        for (size_t i = 0; i < sizeof h; i++) ((uint8_t *)&h)[i] = data[(tail + i) % size];
        if (h.size < sizeof h) break;
        for (size_t i = 0; i < h.size && i < sizeof rec; i++) rec[i] = data[(tail + i) % size];
        tail += h.size;
        if (h.type == PERF_RECORD_LOST) w->unsure = 1;
        if (h.type != PERF_RECORD_SAMPLE || h.size < sizeof h + 8) continue;
        uint64_t time;
        memcpy(&time, rec + sizeof h, 8);
        if (which == 0) {
            if (time > w->last_start) w->last_start = time;
            w->count++;
        } else if (time > w->last_end) {
            w->last_end = time;
            if (w->unsure && w->last_start && w->last_end >= w->last_start) w->unsure = 0;
        }
    }
    __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
}

gc_since_t gc_watch_since(gc_watch_t *w, uint64_t since_ns) {
    if (!w) return GC_UNKNOWN;
    drain(w, 0);
    drain(w, 1);
    /* one began after since_ns (or events were lost): what the sample saw may have been freed */
    if (w->unsure || w->last_start >= since_ns) return GC_BEGAN;
    /* one still running (its return not seen yet), or one that ended after since_ns: objects may
       have moved since the sample */
    if (w->last_end >= since_ns || w->last_start > w->last_end) return GC_RAN;
    return GC_QUIET;
}

unsigned long gc_watch_count(const gc_watch_t *w) { return w ? w->count : 0; }

void gc_watch_close(gc_watch_t *w) {
    if (!w) return;
    size_t len = (size_t)(RING_PAGES + 1) * (size_t)page_size();
    for (int i = 0; i < 2; i++) {
        munmap(w->ring[i], len);
        close(w->fd[i]);
    }
    free(w);
}
