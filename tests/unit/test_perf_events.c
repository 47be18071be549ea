/* record/perf_ring.c, record/events.c: a ring's records read in order, a record that wraps around
 * the ring's end joined whole, a record whose size is past what was written ending the read (and
 * the space given back); a sample's fields for each sample type record -e asks for (identifier,
 * time, raw data, registers in user_regs_struct order, the stack copy's used length); -e lists
 * (EVENT/N, syscall:NAME, u:LIB:FUNC, the errors); x86-64 syscall names. */
#include "check.h"
#include "record/events.h"
#include "record/perf_ring.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { PAGE = 4096, DATA = 2 * PAGE };
static uint8_t ring[PAGE + DATA];
static uint64_t seen[16];
static int nseen;

static void on_record(void *ctx, const struct perf_event_header *h, const uint8_t *q, const uint8_t *end)
{
    (void)ctx;
    uint64_t v = 0;
    if (h->type == PERF_RECORD_SAMPLE && end - q >= 8) memcpy(&v, q, 8);
    if (nseen < 16) seen[nseen++] = v;
    CHECK_EQ_INT(end - q, h->size - sizeof *h);
}

/* writes a sample record carrying value v and pad bytes more at ring offset at (wrapping) */
static uint64_t put(uint64_t at, uint64_t v, size_t pad)
{
    uint8_t rec[256];
    struct perf_event_header h = {PERF_RECORD_SAMPLE, 0, (uint16_t)(sizeof h + 8 + pad)};
    memcpy(rec, &h, sizeof h);
    memcpy(rec + sizeof h, &v, 8);
    memset(rec + sizeof h + 8, 0xab, pad);
    for (size_t i = 0; i < h.size; i++) ring[PAGE + (at + i) % DATA] = rec[i];
    return at + h.size;
}

int main(void)
{
    struct perf_event_mmap_page *m = (struct perf_event_mmap_page *)ring;
    perf_ring_t r = {ring, NULL};

    /* 1. records in order, the second wrapping around the end */
    m->data_offset = PAGE, m->data_size = DATA;
    uint64_t at = DATA - 20; /* (tail and head count bytes ever written: past one lap) */
    m->data_tail = at;
    at = put(at, 111, 0);
    at = put(at, 222, 40); /* 56 bytes from DATA - 4: wraps */
    at = put(at, 333, 8);
    m->data_head = at;
    nseen = 0;
    CHECK_EQ_INT(perf_ring_drain(&r, on_record, NULL), 3);
    CHECK_EQ_INT(nseen, 3);
    CHECK_EQ_INT(seen[0], 111);
    CHECK_EQ_INT(seen[1], 222);
    CHECK_EQ_INT(seen[2], 333);
    CHECK_EQ_INT(m->data_tail, at);
    CHECK(r.wrap != NULL);

    /* 2. a record claiming more than was written: the read ends, what is left is given back */
    at = put(at, 444, 0);
    struct perf_event_header bad = {PERF_RECORD_SAMPLE, 0, 4000};
    memcpy(&ring[PAGE + at % DATA], &bad, sizeof bad);
    m->data_head = at + 64;
    nseen = 0;
    CHECK_EQ_INT(perf_ring_drain(&r, on_record, NULL), 1);
    CHECK_EQ_INT(seen[0], 444);
    CHECK_EQ_INT(m->data_tail, m->data_head);
    free(r.wrap);

    /* 3. a sample: identifier, tid, time, raw (8 + 4 bytes), registers, stack copy of 32 (24 used) */
    uint8_t s[512];
    size_t k = 0;
#define PUT64(x)                                                                                                       \
    do {                                                                                                               \
        uint64_t x_ = (x);                                                                                             \
        memcpy(s + k, &x_, 8);                                                                                         \
        k += 8;                                                                                                        \
    } while (0)
    PUT64(77);               /* identifier */
    PUT64((5ull << 32) | 4); /* pid 4, tid 5 */
    PUT64(123456789);        /* time */
    uint32_t raw_len = 40;
    memcpy(s + k, &raw_len, 4);
    k += 4;
    for (uint32_t i = 0; i < raw_len; i++) s[k + i] = (uint8_t)i;
    k += raw_len;
    PUT64(PERF_SAMPLE_REGS_ABI_64);
    for (int i = 0; i < 17; i++) PUT64(1000 + (uint64_t)i); /* ax bx cx dx si di bp sp ip r8..r15 */
    PUT64(32);
    memset(s + k, 0xcd, 32);
    k += 32;
    PUT64(24); /* dyn size */
    event_sample_t e;
    CHECK_EQ_INT(events_parse_sample(s, s + k, EVENTS_SAMPLE_TYPE, &e), 0);
    CHECK_EQ_INT(e.id, 77);
    CHECK_EQ_INT(e.tid, 5);
    CHECK_EQ_INT(e.time, 123456789);
    CHECK_EQ_INT(e.raw_len, 40);
    uint64_t v;
    CHECK_EQ_INT(events_raw_u64(&e, 16, &v), 0);
    CHECK_EQ_INT(v & 0xff, 16);
    CHECK(events_raw_u64(&e, 36, &v) != 0); /* past the raw data */
    CHECK_EQ_INT(e.has_regs, 1);
    CHECK_EQ_INT(e.regs[13], 1004); /* rsi: perf's register 4 */
    CHECK_EQ_INT(e.regs[16], 1008); /* rip */
    CHECK_EQ_INT(e.regs[19], 1007); /* rsp */
    CHECK_EQ_INT(e.regs[0], 1016);  /* r15: perf's 23 */
    CHECK_EQ_INT(e.stack_len, 24);
    CHECK(events_parse_sample(s, s + k - 40, EVENTS_SAMPLE_TYPE, &e) != 0); /* cut short */

    /* 4. -e lists */
    record_events_t ev;
    char err[256];
    memset(&ev, 0, sizeof ev);
    CHECK_EQ_INT(events_parse(&ev, "syscall:write,page-faults/10,u:libc:malloc/1000,gc", err, sizeof err), 0);
    CHECK_EQ_INT(ev.n, 4);
    CHECK_EQ_INT(ev.ev[0].kind, EVK_SYSCALL);
    CHECK_STR(ev.ev[0].sys, "write");
    CHECK_EQ_INT(ev.ev[1].kind, EVK_SOFTWARE);
    CHECK_EQ_INT(ev.ev[1].every, 10);
    CHECK_STR(ev.ev[1].name, "page-faults");
    CHECK_EQ_INT(ev.ev[2].kind, EVK_UPROBE);
    CHECK_STR(ev.ev[2].lib, "libc");
    CHECK_STR(ev.ev[2].func, "malloc");
    CHECK_EQ_INT(ev.ev[2].every, 1000);
    CHECK_EQ_INT(ev.ev[3].kind, EVK_GC);
    memset(&ev, 0, sizeof ev);
    CHECK(events_parse(&ev, "bogus", err, sizeof err) != 0);
    CHECK(strstr(err, "unknown event") != NULL);
    CHECK(events_parse(&ev, "syscall:write,syscall:write", err, sizeof err) != 0);
    memset(&ev, 0, sizeof ev);
    CHECK(events_parse(&ev, "page-faults/0", err, sizeof err) != 0);
    CHECK(events_parse(&ev, "u:node", err, sizeof err) != 0);
    CHECK(events_parse(&ev, "syscall:wr;te", err, sizeof err) != 0);
    memset(&ev, 0, sizeof ev);
    CHECK_EQ_INT(events_parse(&ev, "syscall:*", err, sizeof err), 0);
    CHECK_EQ_INT(ev.ev[0].kind, EVK_SYSCALL_ALL);
    char unit[64];
    events_unit(&ev, unit, sizeof unit);
    CHECK_STR(unit, "syscall:*");

    /* 5. syscall names */
    char name[32];
    CHECK_STR(events_syscall_name(1, name, sizeof name), "write");
    CHECK_STR(events_syscall_name(257, name, sizeof name), "openat");
    CHECK(events_syscall_name(100000, name, sizeof name) == NULL);
    return check_summary("test_perf_events");
}
