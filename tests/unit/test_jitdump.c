/* jitdump reading: native and byte-swapped files, moves, truncation, garbage. */
#include "check.h"
#include "symbols/jitdump.h"
#include "util/buf.h"
#include "util/diag.h"
#include <stdlib.h>

static int swap_out;
static void put32(buf_t *b, uint32_t v)
{
    if (swap_out) v = __builtin_bswap32(v);
    buf_append(b, &v, 4);
}
static void put64(buf_t *b, uint64_t v)
{
    if (swap_out) v = __builtin_bswap64(v);
    buf_append(b, &v, 8);
}

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
    buf_append(b, "\xcc\xcc\xcc\xcc", 4); /* code bytes */
}

static void move(buf_t *b, uint64_t t, uint64_t from, uint64_t to, uint64_t size)
{
    put32(b, 1), put32(b, 16 + 48), put64(b, t);
    put32(b, 4242), put32(b, 4243), put64(b, to), put64(b, from), put64(b, to), put64(b, size), put64(b, 7);
}

static void debug_info(buf_t *b, uint64_t t, uint64_t code)
{
    static const char file1[] = "/a.js", file2[] = "/b.js";
    put32(b, 2), put32(b, (uint32_t)(16 + 16 + 2 * 16 + sizeof file1 + sizeof file2)), put64(b, t);
    put64(b, code), put64(b, 2);
    put64(b, code), put32(b, 9), put32(b, 3), buf_append(b, file1, sizeof file1);
    put64(b, code + 0x40), put32(b, 12), put32(b, 5), buf_append(b, file2, sizeof file2);
}

static void check_file(int swapped)
{
    swap_out = swapped;
    buf_t b = {0};
    header(&b);
    load(&b, 100, 0x1000, 0x100, "JS:*old /a.js:1:1");
    debug_info(&b, 150, 0x1000);
    load(&b, 200, 0x1000, 0x80, "JS:~new /a.js:9:1");
    move(&b, 300, 0x1000, 0x5000, 0x80);
    put32(&b, 9), put32(&b, 24), put64(&b, 400), put64(&b, 0); /* unknown record type: skipped */
    jitdump_info_t info;
    perfmap_t *m = jitdump_parse("t.dump", (unsigned char *)b.data, b.len, &info);
    CHECK(m != NULL);
    if (!m) return;
    CHECK_EQ_INT(info.byte_swapped, swapped);
    CHECK_EQ_INT(info.pid, 4242);
    CHECK_EQ_INT(m->n, 3);
    CHECK_EQ_INT(info.unknown_records, 1);
    CHECK_STR(perfmap_name(m, &m->entries[2]), "JS:~new /a.js:9:1"); /* the moved code keeps its name */
    CHECK_EQ_INT(m->entries[2].start, 0x5000);
    CHECK_EQ_INT(perfmap_newest_before(m, 0x1010, 150), 0); /* at t=150 only the old code existed */
    CHECK_EQ_INT(perfmap_newest_before(m, 0x1010, 250), 1);
    CHECK_EQ_INT(perfmap_newest_before(m, 0x10f0, 250), 0);  /* beyond the new code's end */
    CHECK_EQ_INT(perfmap_newest_before(m, 0x5010, 250), -1); /* not moved yet */
    CHECK_EQ_INT(perfmap_newest_before(m, 0x5010, 300), 2);
    /* debug info is kept with the load it precedes */
    const perfmap_src_t *src = perfmap_source(m, 1, 0x1044);
    CHECK(src && src->line == 12 && src->column == 5 && !strcmp(m->text + src->file_off, "/b.js"));
    src = perfmap_source(m, 1, 0x1010);
    CHECK(src && src->line == 9);
    CHECK(perfmap_source(m, 0, 0x1010) == NULL);
    perfmap_free(m);

    /* truncated in the middle of a record: the complete records remain */
    diag_verbosity = -1;
    m = jitdump_parse("t.dump", (unsigned char *)b.data, 40 + 78 + 30, &info); /* cut inside the debug record */
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
