/* Fuzz what record -e reads (record/events.c, perf_ring.c): a perf_event ring's records (the
 * kernel's, but a record's sizes and a sample's lengths are checked all the same), a sample's body
 * of each sample type the live sampler asks for, and the -e EVENT list as a user types it. Any
 * bytes must give an answer or an error: never a crash or a read outside the input. */
#include "record/events.h"
#include "record/perf_ring.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static void on_record(void *ctx, const struct perf_event_header *h, const uint8_t *q, const uint8_t *end)
{
    static const uint64_t types[] = {EVENTS_SAMPLE_TYPE, EVENTS_SAMPLE_TYPE & ~(uint64_t)PERF_SAMPLE_RAW,
                                     EVENTS_CPU_SAMPLE_TYPE, PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_TIME};
    (void)ctx, (void)h;
    for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
        event_sample_t s;
        uint64_t v;
        if (events_parse_sample(q, end, types[i], &s) != 0) continue;
        events_raw_u64(&s, 16, &v);
        events_raw_u64(&s, 32, &v);
        if (s.stack && s.stack_len) v = s.stack[s.stack_len - 1];
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* the ring: a header page (data_head, data_tail, data_offset, data_size), then 2 data pages */
    enum { PAGE = 4096, DATA = 2 * PAGE };
    static uint8_t ring[PAGE + DATA];
    memset(ring, 0, sizeof ring);
    size_t n = size < DATA ? size : DATA;
    memcpy(ring + PAGE, data, n);
    struct perf_event_mmap_page *m = (struct perf_event_mmap_page *)ring;
    m->data_offset = PAGE, m->data_size = DATA;
    m->data_tail = size > 2 ? data[0] * 8 : 0; /* start anywhere: records wrap around the end */
    m->data_head = m->data_tail + n;
    perf_ring_t r = {ring, NULL};
    perf_ring_drain(&r, on_record, NULL);
    free(r.wrap);
    /* the -e list */
    char spec[256], err[256];
    size_t k = size < sizeof spec - 1 ? size : sizeof spec - 1;
    memcpy(spec, data, k);
    spec[k] = 0;
    record_events_t e;
    memset(&e, 0, sizeof e);
    events_parse(&e, spec, err, sizeof err);
    return 0;
}
