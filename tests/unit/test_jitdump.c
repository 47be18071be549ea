/* jitdump reading: native and byte-swapped files, moves, truncation, garbage. */
#include "check.h"
#include "symbols/jitdump.h"
#include "util/buf.h"
#include "util/diag.h"
#include <stdlib.h>

static int swap_out;
static void put32(buf_t *b, uint32_t v) { if (swap_out) v = __builtin_bswap32(v); buf_append(b, &v, 4); }
static void put64(buf_t *b, uint64_t v) { if (swap_out) v = __builtin_bswap64(v); buf_append(b, &v, 8); }

static void header(buf_t *b)
{
    put32(b, 0x4A695444u);
    put32(b, 1);
    put32(b, 40);
    put32(b, 62);
    put32(b, 0xdeadbeef);
    put32(b, 4242);
    put64(b, 1);
    put64(b, 0);
}

static void load(buf_t *b, uint64_t t, uint64_t addr, uint64_t size, const char *name)
{
    size_t n = strlen(name) + 1;
    put32(b, 0);
    put32(b, (uint32_t)(16 + 40 + n + 4));
    put64(b, t);
    put32(b, 4242), put32(b, 4243), put64(b, addr), put64(b, addr), put64(b, size), put64(b, 7);
    buf_append(b, name, n);
    buf_append(b, "\xcc\xcc\xcc\xcc", 4);   /* code bytes */
}

static void move(buf_t *b, uint64_t t, uint64_t from, uint64_t to, uint64_t size)
{
    put32(b, 1), put32(b, 16 + 48), put64(b, t);
    put32(b, 4242), put32(b, 4243), put64(b, to), put64(b, from), put64(b, to), put64(b, size), put64(b, 7);
}

static void check_file(int swapped)
{
    swap_out = swapped;
    buf_t b = {0};
    header(&b);
    load(&b, 100, 0x1000, 0x100, "JS:*old /a.js:1:1");
    load(&b, 200, 0x1000, 0x80, "JS:~new /a.js:9:1");
    move(&b, 300, 0x1000, 0x5000, 0x80);
    put32(&b, 9), put32(&b, 24), put64(&b, 400), put64(&b, 0);   /* unknown record type: skipped */
    jitdump_info_t info;
    perfmap_t *m = jitdump_parse("t.dump", (unsigned char *)b.data, b.len, &info);
    CHECK(m != NULL);
    if (!m) return;
    CHECK_EQ_INT(info.byte_swapped, swapped);
    CHECK_EQ_INT(info.pid, 4242);
    CHECK_EQ_INT(m->n, 3);
    CHECK_EQ_INT(info.unknown_records, 1);
    CHECK_STR(perfmap_name(m, &m->entries[2]), "JS:~new /a.js:9:1");   /* the moved code keeps its name */
    CHECK_EQ_INT(m->entries[2].start, 0x5000);
    CHECK_EQ_INT(perfmap_newest_before(m, 0x1010, 150), 0);   /* at t=150 only the old code existed */
    CHECK_EQ_INT(perfmap_newest_before(m, 0x1010, 250), 1);
    CHECK_EQ_INT(perfmap_newest_before(m, 0x10f0, 250), 0);   /* beyond the new code's end */
    CHECK_EQ_INT(perfmap_newest_before(m, 0x5010, 250), -1);  /* not moved yet */
    CHECK_EQ_INT(perfmap_newest_before(m, 0x5010, 300), 2);
    perfmap_free(m);

    /* truncated in the middle of a record: the complete records remain */
    diag_verbosity = -1;
    m = jitdump_parse("t.dump", (unsigned char *)b.data, 40 + 78 + 30, &info);   /* cut inside the second load */
    CHECK(m && m->n == 1 && info.truncated);
    perfmap_free(m);
    /* not a jitdump */
    CHECK(jitdump_parse("x", (const unsigned char *)"hello world, this is no jitdump at all....", 42, &info) == NULL);
    CHECK(jitdump_parse("x", (const unsigned char *)"JiT", 3, &info) == NULL);
    diag_verbosity = 0;
    buf_free(&b);
}

int main(void)
{
    check_file(0);
    check_file(1);
    return check_summary("test_jitdump");
}
