/* perf_event rings (perf_ring.h). */
#include "record/perf_ring.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define WRAP_MAX 65536 /* a record's size is 16 bits */

long perf_ring_page_size(void)
{
    static long size; /* sysconf on every ring read showed in the sampler's profile */
    if (!size) size = sysconf(_SC_PAGESIZE);
    return size;
}

int perf_ring_map(perf_ring_t *r, int fd, size_t pages)
{
    r->wrap = NULL;
    r->base = mmap(NULL, (pages + 1) * (size_t)perf_ring_page_size(), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (r->base == MAP_FAILED) {
        r->base = NULL;
        return -1;
    }
    return 0;
}

void perf_ring_unmap(perf_ring_t *r)
{
    if (!r->base) return;
    const struct perf_event_mmap_page *m = r->base;
    munmap(r->base, (size_t)(m->data_offset + m->data_size));
    free(r->wrap);
    r->base = NULL, r->wrap = NULL;
}

/* Records are read in place, or copied out whole when one wraps around the ring's end (a sample
 * is up to 32 KiB: copying each one cost a tenth of the sampler's time). */
unsigned long perf_ring_drain(perf_ring_t *r, perf_record_fn fn, void *ctx)
{
    if (!r->base) return 0;
    struct perf_event_mmap_page *meta = r->base;
    uint8_t *data = (uint8_t *)r->base + meta->data_offset;
    uint64_t size = meta->data_size;
    uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE), tail = meta->data_tail;
    unsigned long n = 0;
    if (!size) return 0;
    if (head - tail > size) tail = head - size; /* (the kernel never writes over unread data) */
    while (tail < head) {
        struct perf_event_header h;
        uint64_t at = tail % size;
        for (size_t i = 0; i < sizeof h; i++) ((uint8_t *)&h)[i] = data[(tail + i) % size];
        if (h.size < sizeof h || h.size > head - tail) { /* not a record: what is left is dropped */
            tail = head;
            break;
        }
        const uint8_t *rec = data + at;
        if (at + h.size > size) { /* wraps: the two pieces, joined */
            if (!r->wrap) r->wrap = xmalloc(WRAP_MAX);
            size_t first = (size_t)(size - at);
            memcpy(r->wrap, data + at, first);
            memcpy(r->wrap + first, data, h.size - first);
            rec = r->wrap;
        }
        fn(ctx, &h, rec + sizeof h, rec + h.size);
        tail += h.size;
        n++;
    }
    __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
    return n;
}
