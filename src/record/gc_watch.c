/* Full GCs of a live process's main thread, from uprobes on Heap::MarkCompact (gc_watch.h). */
#include "record/gc_watch.h"
#include "record/events.h"
#include "record/perf_ring.h"
#include "util/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RING_PAGES 8                                       /* a record is 16 bytes: hundreds of GCs between two reads */
#define MARK_COMPACT "_ZN2v88internal4Heap11MarkCompactEv" /* v8::internal::Heap::MarkCompact() */

struct gc_watch {
    int fd[2]; /* entry, return */
    perf_ring_t ring[2];
    uint64_t last_start, last_end; /* CLOCK_MONOTONIC ns of the latest entry and return seen */
    unsigned long count;
    int unsure; /* events were lost: nothing is quiet before the next whole GC is seen */
    int which;  /* the ring being read */
};

/* The probe's offset in the executables met so far, by file identity (gc_watch_open_known). */
#define KNOWN_EXES 8
static struct known_exe {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    uint64_t offset;
} known[KNOWN_EXES];
static unsigned nknown;

static int exe_identity(int tid, struct known_exe *k)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof path, "/proc/%d/exe", tid);
    if (stat(path, &st) != 0) return -1; /* follows the link: the file itself, even in a container */
    *k = (struct known_exe){st.st_dev, st.st_ino, st.st_size, st.st_mtim, 0};
    return 0;
}

static struct known_exe *find_known(const struct known_exe *k)
{
    for (unsigned i = 0; i < nknown && i < KNOWN_EXES; i++)
        if (known[i].dev == k->dev && known[i].ino == k->ino && known[i].size == k->size &&
            known[i].mtime.tv_sec == k->mtime.tv_sec && known[i].mtime.tv_nsec == k->mtime.tv_nsec)
            return &known[i];
    return NULL;
}

static gc_watch_t *open_at(int tid, uint64_t offset)
{
    char path[64];
    int type = events_uprobe_type();
    if (type < 0) return NULL;
    /* the kernel resolves the link to the executable's inode, whatever its name */
    snprintf(path, sizeof path, "/proc/%d/exe", tid);
    gc_watch_t *w = xcalloc(1, sizeof *w);
    for (int i = 0; i < 2; i++) {
        w->fd[i] = events_open_uprobe(type, path, offset, i, tid, NULL);
        if (w->fd[i] < 0 || perf_ring_map(&w->ring[i], w->fd[i], RING_PAGES) != 0) {
            if (w->fd[i] >= 0) close(w->fd[i]);
            if (i == 1) {
                perf_ring_unmap(&w->ring[0]);
                close(w->fd[0]);
            }
            free(w);
            return NULL;
        }
    }
    return w;
}

gc_watch_t *gc_watch_open(target_t *t, int tid)
{
    uint64_t addr, size, offset;
    const char *module;
    if (events_uprobe_type() < 0 || target_exe_symbol_addr(t, MARK_COMPACT, &addr, &size) != 0 ||
        target_file_location(t, addr, &module, &offset) != 0)
        return NULL;
    struct known_exe k;
    if (exe_identity(tid, &k) == 0 && !find_known(&k)) {
        k.offset = offset;
        known[nknown++ % KNOWN_EXES] = k;
    }
    return open_at(tid, offset);
}

gc_watch_t *gc_watch_open_known(int tid)
{
    struct known_exe k, *f;
    if (exe_identity(tid, &k) != 0 || !(f = find_known(&k))) return NULL;
    return open_at(tid, f->offset);
}

/* One record of a probe's ring: the latest time seen. */
static void on_record(void *ctx, const struct perf_event_header *h, const uint8_t *q, const uint8_t *end)
{
    gc_watch_t *w = ctx;
    if (h->type == PERF_RECORD_LOST) w->unsure = 1;
    if (h->type != PERF_RECORD_SAMPLE || end - q < 8) return;
    uint64_t time;
    memcpy(&time, q, 8);
    if (w->which == 0) {
        if (time > w->last_start) w->last_start = time;
        w->count++;
    } else if (time > w->last_end) {
        w->last_end = time;
        if (w->unsure && w->last_start && w->last_end >= w->last_start) w->unsure = 0;
    }
}

gc_since_t gc_watch_since(gc_watch_t *w, uint64_t since_ns)
{
    if (!w) return GC_UNKNOWN;
    for (w->which = 0; w->which < 2; w->which++) perf_ring_drain(&w->ring[w->which], on_record, w);
    /* one began after since_ns (or events were lost): what the sample saw may have been freed */
    if (w->unsure || w->last_start >= since_ns) return GC_BEGAN;
    /* one still running (its return not seen yet), or one that ended after since_ns: objects may
       have moved since the sample */
    if (w->last_end >= since_ns || w->last_start > w->last_end) return GC_RAN;
    return GC_QUIET;
}

unsigned long gc_watch_count(const gc_watch_t *w) { return w ? w->count : 0; }

void gc_watch_close(gc_watch_t *w)
{
    if (!w) return;
    for (int i = 0; i < 2; i++) {
        perf_ring_unmap(&w->ring[i]);
        close(w->fd[i]);
    }
    free(w);
}
