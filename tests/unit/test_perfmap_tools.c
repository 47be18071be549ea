/* formats/perfmap_tools.c (`map tidy`, `map stats`, `map update`): a small map with a reused
 * address range, its kept entries and counts; perf script text relabelled through a resolver
 * of that map, every line but the JIT frame's byte for byte. */
#include "check.h"
#include "formats/perfmap_tools.h"
#include "util/diag.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char map_text[] = "1000 100 JS:~a /x.js:1:1\n"
                               "2000 10 Builtin:ArrayMap\n"
                               "1000 100 JS:~a /x.js:1:1\n" /* the same range again */
                               "1080 20 JS:*b /x.js:9:1\n"  /* overlaps the two above */
                               "3000 8 RegExp:^x\n"
                               "4000 8 BytecodeHandler:Add\n"
                               "5000 8 Eval:f\n";

static char *read_all(FILE *f, size_t *n)
{
    fflush(f);
    long len = ftell(f);
    rewind(f);
    char *s = calloc(1, (size_t)len + 1);
    *n = fread(s, 1, (size_t)len, f);
    return s;
}

static void test_tidy_and_stats(void)
{
    perfmap_t *m = perfmap_parse("t.map", map_text, sizeof map_text - 1);
    CHECK_EQ_INT(m->n, 7);
    FILE *f = tmpfile();
    CHECK_EQ_INT(perfmap_tidy_write(m, f), 5);
    size_t n;
    char *got = read_all(f, &n);
    CHECK_STR(got, "1080 20 JS:*b /x.js:9:1\n2000 10 Builtin:ArrayMap\n3000 8 RegExp:^x\n4000 8 BytecodeHandler:Add\n"
                   "5000 8 Eval:f\n");
    free(got);
    fclose(f);
    perfmap_stats_t st;
    perfmap_stats(m, &st);
    CHECK_EQ_INT(st.overlapped, 2);
    CHECK_EQ_INT(st.reused, 1);
    CHECK_EQ_INT(st.lo, 0x1000);
    CHECK_EQ_INT(st.hi, 0x5008);
    CHECK_EQ_INT(st.js_interpreted, 2);
    CHECK_EQ_INT(st.js_turbofan, 1);
    CHECK_EQ_INT(st.builtin, 1);
    CHECK_EQ_INT(st.regexp, 1);
    CHECK_EQ_INT(st.bytecode, 1);
    CHECK_EQ_INT(st.eval, 1);
    perfmap_free(m);
}

static void test_relabel(void)
{
    char dir[] = "/tmp/test_perfmap_tools.XXXXXX", map[64], script[64];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(map, sizeof map, "%s/perf-123.map", dir);
    snprintf(script, sizeof script, "%s/stacks.txt", dir);
    FILE *f = fopen(map, "w");
    fputs(map_text, f);
    fclose(f);
    const char stacks[] = "node 123 1.000000: 1 cpu-clock:\n"
                          "\t1090 JS:*stale+0x3 (/tmp/perf-123.map)\n"
                          "\t  abc libc_fn+0x1 (/usr/lib/libc.so.6)\n"
                          "\n";
    f = fopen(script, "w");
    fputs(stacks, f);
    fclose(f);
    jit_resolver_t *r = jit_resolver_new(map, JIT_AMBIGUOUS_NEWEST);
    input_t *in = input_open(script);
    CHECK(r && in);
    FILE *out = tmpfile();
    CHECK_EQ_INT(perf_script_relabel(r, in, out), 0);
    size_t n;
    char *got = read_all(out, &n);
    CHECK_STR(got, "node 123 1.000000: 1 cpu-clock:\n"
                   "\t1090 JS:*b /x.js:9:1 (/tmp/perf-123.map)\n"
                   "\t  abc libc_fn+0x1 (/usr/lib/libc.so.6)\n"
                   "\n");
    free(got);
    fclose(out);
    input_close(in);
    jit_resolver_free(r);
    unlink(map);
    unlink(script);
    rmdir(dir);
}

int main(void)
{
    test_tidy_and_stats();
    test_relabel();
    return check_summary("test_perfmap_tools");
}
