/* A perf_event ring buffer: the mmap of an event's header page and data pages, and the reading
 * of its records. One module for every ring nodescope reads (the live sampler's per thread, the
 * GC watch's): each record is checked against what the kernel says was written (a size below a
 * header's or past the head ends the read), and a record that wraps around the ring's end is
 * copied out whole into the ring's own buffer, so that a callback may read another ring meanwhile. */
#ifndef RECORD_PERF_RING_H
#define RECORD_PERF_RING_H
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

typedef struct {
    void *base;    /* the mapping: header page, then data pages; NULL when not open */
    uint8_t *wrap; /* a wrapped record, joined (up to 64 KiB, allocated on first need) */
} perf_ring_t;

/* Maps pages data pages (a power of two) of event fd's ring: 0, or -1 with errno set. */
int perf_ring_map(perf_ring_t *r, int fd, size_t pages);
void perf_ring_unmap(perf_ring_t *r);
/* Calls fn for every record written since the last read (body: after the header, up to end), then
 * gives the space back to the kernel. The number of records read. */
typedef void (*perf_record_fn)(void *ctx, const struct perf_event_header *h, const uint8_t *body, const uint8_t *end);
unsigned long perf_ring_drain(perf_ring_t *r, perf_record_fn fn, void *ctx);
/* The page size (sysconf once). */
long perf_ring_page_size(void);
#endif
