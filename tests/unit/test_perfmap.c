/* perf maps: parsing (malformed and partial lines), covering queries, and
 * overlapped-by-later (what `map tidy` drops) against a brute-force answer; where a process's
 * map is (a container's: tests/e2e/container_target.sh). */
#include "check.h"
#include "symbols/jit_resolver.h"
#include "symbols/perfmap.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void test_parse(void)
{
    const char text[] = "1000 100 JS:~a /x.js:1:1\n"
                        "zz 10 bad-start\n"
                        "2000 nothex bad-size\n"
                        "3000 0 zero-size\n"
                        "4000 ffffffffffff absurd\n"
                        "0x1050 20 JS:*b with spaces (x)\n"
                        "\n"
                        "1000 80 JS:^c\n"
                        "5000 10 partial-last-line-without-newline";
    diag_verbosity = -1;
    perfmap_t *m = perfmap_parse("t.map", text, sizeof text - 1);
    diag_verbosity = 0;
    CHECK_EQ_INT(m->n, 3);
    CHECK_EQ_INT(m->malformed, 4);
    CHECK_STR(perfmap_name(m, &m->entries[1]), "JS:*b with spaces (x)");
    CHECK_EQ_INT(m->entries[1].start, 0x1050);
    CHECK_EQ_INT(m->entries[2].line, 8);
    uint32_t out[8];
    CHECK_EQ_INT(perfmap_covering(m, 0x1060, out, 8), 3);
    CHECK(out[0] == 0 && out[1] == 1 && out[2] == 2);
    CHECK_EQ_INT(perfmap_covering(m, 0x1090, out, 8), 1); /* only the first (size 0x100) */
    CHECK_EQ_INT(perfmap_covering(m, 0x5000, out, 8), 0); /* the partial line is not read */
    CHECK_EQ_INT(perfmap_covering(m, 0xfff, out, 8), 0);
    /* newest written before a file offset: before line 8 was complete, the answer is line 6 */
    CHECK_EQ_INT(perfmap_newest_before(m, 0x1060, m->entries[2].file_offset - 1), 1);
    CHECK_EQ_INT(perfmap_newest_before(m, 0x1060, UINT64_MAX), 2);
    uint8_t over[3];
    perfmap_overlapped_by_later(m, over);
    CHECK(over[0] && over[1] && !over[2]);
    perfmap_free(m);
}

static void test_overlap_random(void)
{
    /* random maps with heavy reuse; compare with the O(N^2) definition */
    srand(7);
    for (int round = 0; round < 20; round++) {
        int n = 50 + rand() % 400;
        char *text = xmalloc((size_t)n * 40 + 1);
        size_t len = 0;
        for (int i = 0; i < n; i++)
            len += (size_t)sprintf(text + len, "%x %x f%d\n", 0x1000 + rand() % 4000, 1 + rand() % 200, i);
        perfmap_t *m = perfmap_parse("r.map", text, len);
        uint8_t *over = xmalloc((size_t)n);
        perfmap_overlapped_by_later(m, over);
        int bad = 0;
        for (int i = 0; i < n; i++) {
            int expect = 0;
            for (int j = i + 1; j < n && !expect; j++)
                expect = m->entries[j].start < m->entries[i].start + m->entries[i].size &&
                         m->entries[i].start < m->entries[j].start + m->entries[j].size;
            bad += expect != over[i];
        }
        CHECK_EQ_INT(bad, 0);
        /* covering query against brute force at random addresses */
        for (int q = 0; q < 200; q++) {
            uint64_t a = 0x1000 + (uint64_t)(rand() % 4300);
            uint32_t got[1024];
            size_t cnt = perfmap_covering(m, a, got, 1024), expect = 0;
            for (size_t j = 0; j < m->n; j++)
                expect += m->entries[j].start <= a && a < m->entries[j].start + m->entries[j].size;
            CHECK_EQ_INT(cnt, expect);
        }
        free(over);
        free(text);
        perfmap_free(m);
    }
}

static void test_choose(void)
{
    const char text[] = "1000 100 old\n1000 100 mid\n1000 80 new\n";
    perfmap_t *m = perfmap_parse("c.map", text, sizeof text - 1);
    uint32_t cand[4];
    size_t n = perfmap_covering(m, 0x1010, cand, 4), len;
    jit_resolver_t *r = jit_resolver_new(NULL, JIT_AMBIGUOUS_MARK);
    CHECK_STR(jit_choose_name(r, m, cand, n, n, &len), "[ambiguous: 3] new | mid | old");
    jit_resolver_free(r);
    r = jit_resolver_new(NULL, JIT_AMBIGUOUS_OLDEST);
    CHECK_STR(jit_choose_name(r, m, cand, n, n, &len), "old");
    jit_resolver_free(r);
    r = jit_resolver_new(NULL, JIT_AMBIGUOUS_NEWEST);
    CHECK_STR(jit_choose_name(r, m, cand, n, n, &len), "new");
    jit_resolver_free(r);
    CHECK_EQ_INT(jit_ambiguous_parse("mark"), JIT_AMBIGUOUS_MARK);
    CHECK_EQ_INT(jit_ambiguous_parse("x"), -1);
    perfmap_free(m);
}

/* A process in our own namespaces has its map in /tmp; one that is gone too (its pid names it). */
static void test_path_for_pid(void)
{
    char buf[256], want[64];
    snprintf(want, sizeof want, "/tmp/perf-%d.map", (int)getpid());
    CHECK_STR(perfmap_path_for_pid((int)getpid(), buf, sizeof buf), want);
    CHECK_STR(perfmap_path_for_pid(999999999, buf, sizeof buf), "/tmp/perf-999999999.map");
}

int main(void)
{
    test_path_for_pid();
    test_parse();
    test_overlap_random();
    test_choose();
    return check_summary("test_perfmap");
}
