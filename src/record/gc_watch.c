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

/* The probe's file (the executable, or the library V8 is in: libnode.so) and offset in the nodes met
 * so far, by the file's identity (gc_watch_open_known). lib: the library's path as the process maps
 * it, "" for the executable. */
#define KNOWN_EXES 8
static struct known_exe {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    uint64_t offset;
    char lib[256];
} known[KNOWN_EXES];
static unsigned nknown;

/* The probe's file for tid as the kernel opens it: /proc/TID/exe, or /proc/TID/root + lib */
static void probe_path(int tid, const char *lib, char *path, size_t cap)
{
    if (*lib) snprintf(path, cap, "/proc/%d/root%s", tid, lib);
    else snprintf(path, cap, "/proc/%d/exe", tid);
}

static int file_identity(const char *path, struct known_exe *k)
{
    struct stat st;
    if (stat(path, &st) != 0) return -1; /* follows the link: the file itself, even in a container */
    k->dev = st.st_dev, k->ino = st.st_ino, k->size = st.st_size, k->mtime = st.st_mtim;
    return 0;
}

static int same_file(const struct known_exe *a, const struct known_exe *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime.tv_sec == b->mtime.tv_sec &&
           a->mtime.tv_nsec == b->mtime.tv_nsec;
}

/* The return probe (ring 1) is opened before the entry probe (ring 0): a GC entered between the
 * two would otherwise be seen starting and never returning (a uretprobe catches only the calls
 * entered after it), and every sample read late after it taken as during a GC (GC_RAN), its JS
 * frames left unnamed for the rest of the recording. */
static gc_watch_t *open_at(const char *path, int tid, uint64_t offset)
{
    int type = events_uprobe_type();
    if (type < 0) return NULL;
    gc_watch_t *w = xcalloc(1, sizeof *w);
    w->fd[0] = w->fd[1] = -1;
    for (int i = 1; i >= 0; i--) {
        w->fd[i] = events_open_uprobe(type, path, offset, i, tid, NULL);
        if (w->fd[i] < 0 || perf_ring_map(&w->ring[i], w->fd[i], RING_PAGES) != 0) {
            if (w->fd[i] >= 0) close(w->fd[i]);
            if (i == 0) {
                perf_ring_unmap(&w->ring[1]);
                close(w->fd[1]);
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
    char path[4400];
    if (events_uprobe_type() < 0 || target_exe_symbol_addr(t, MARK_COMPACT, &addr, &size) != 0 ||
        target_probe_location(tid, addr, path, sizeof path, &offset) != 0)
        return NULL;
    struct known_exe k = {0};
    const target_v8_object_t *o = target_v8_object(t);
    if (!o->is_exe && o->path) snprintf(k.lib, sizeof k.lib, "%s", o->path);
    int found = strlen(k.lib) + 1 >= sizeof k.lib || file_identity(path, &k) != 0; /* not to be kept */
    for (unsigned i = 0; i < nknown && i < KNOWN_EXES && !found; i++)
        found = !strcmp(known[i].lib, k.lib) && same_file(&known[i], &k);
    if (!found) {
        k.offset = offset;
        known[nknown++ % KNOWN_EXES] = k;
    }
    return open_at(path, tid, offset);
}

gc_watch_t *gc_watch_open_known(int tid)
{
    char path[4400];
    for (unsigned i = 0; i < nknown && i < KNOWN_EXES; i++) {
        struct known_exe k;
        probe_path(tid, known[i].lib, path, sizeof path);
        if (file_identity(path, &k) == 0 && same_file(&known[i], &k)) return open_at(path, tid, known[i].offset);
    }
    return NULL;
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
