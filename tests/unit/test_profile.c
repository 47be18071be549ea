/* The profile model: interning, tree building, totals, merge, folded round trip. */
#include "check.h"
#include "formats/folded.h"
#include "formats/format.h"
#include "profile/profile.h"
#include "util/xalloc.h"
#include <stdlib.h>

static void test_interning(void)
{
    profile_t *p = profile_new();
    uint32_t a = profile_frame(p, "fib", 3, "/app/fib.js", 1, 13, FRAME_JS);
    uint32_t b = profile_frame(p, "fib", 3, "/app/fib.js", 1, 13, FRAME_JS);
    uint32_t c = profile_frame(p, "fib", 3, "/app/fib.js", 2, 13, FRAME_JS);
    uint32_t d = profile_frame(p, "fib", 3, "/app/fib.js", 1, 13, FRAME_JS_TURBOFAN);
    CHECK_EQ_INT(a, b);
    CHECK(a != c);
    CHECK(a != d);
    CHECK_EQ_INT(p->nframes, 3);
    for (int i = 0; i < 100000; i++) {
        char name[32];
        int n = snprintf(name, sizeof name, "f%d", i);
        profile_frame(p, name, (size_t)n, "", 0, 0, FRAME_NATIVE);
    }
    CHECK_EQ_INT(p->nframes, 100003);
    CHECK_EQ_INT(profile_frame(p, "f77", 3, "", 0, 0, FRAME_NATIVE), 80);
    profile_free(p);
}

static void test_tree(void)
{
    profile_t *p = profile_new();
    uint32_t f[3] = {profile_frame_simple(p, "main", FRAME_NATIVE), profile_frame_simple(p, "a", FRAME_NATIVE),
                     profile_frame_simple(p, "b", FRAME_NATIVE)};
    uint32_t leaf1 = profile_add_stack(p, f, 3, 2);
    uint32_t leaf2 = profile_add_stack(p, f, 3, 3);
    profile_add_stack(p, f, 2, 1);
    CHECK_EQ_INT(leaf1, leaf2);
    CHECK_EQ_INT(p->nnodes, 4);
    double *tot = xmalloc(p->nnodes * sizeof *tot);
    profile_totals(p, tot);
    CHECK(tot[0] == 6 && tot[1] == 6 && tot[2] == 6 && tot[3] == 5);
    CHECK(p->total == 6);
    uint32_t st[8];
    CHECK_EQ_INT(profile_stack_of(p, leaf1, st, 8), 3);
    CHECK_EQ_INT(st[0], f[0]);
    CHECK_EQ_INT(st[2], f[2]);

    profile_t *q = profile_new();
    profile_merge(q, p, 2);
    profile_merge(q, p, 1);
    CHECK(q->total == 18);
    CHECK_EQ_INT(q->nnodes, 4);
    free(tot);
    profile_free(p);
    profile_free(q);
}

static void test_folded_round_trip(void)
{
    const char text[] = "main;a;b 3\nmain;a 2\nmain;a;b 4\nmain;a+b;c 1.5\n\nnot a stack\nx;y;z 10\n";
    input_t *in = input_from_memory("mem", text, sizeof text - 1);
    profile_t *p = profile_new();
    const format_reader_t *r = format_detect(in);
    CHECK(r && !strcmp(r->name, "folded"));
    CHECK_EQ_INT(r->read(in, p, &(read_opts_t){0}), 0);
    input_close(in);
    CHECK(p->total == 20.5);
    buf_t out = {0};
    folded_write_buf(p, &out);
    /* byte order of whole lines, as stackcollapse-perf.pl sorts: "a+b" < "a;b" */
    CHECK_STR(out.data, "main;a 2\nmain;a+b;c 1.5\nmain;a;b 7\nx;y;z 10\n");
    buf_free(&out);
    profile_free(p);
}

/* The writer sorts paths of frames, never their text: its order must still be the
 * text's byte order, where a label that is a prefix of another meets ';' or the end
 * of the line ("foo" + ".bar" sorts before "foo" + ";x", after "foo" alone). */
static void test_folded_sorted_like_text(void)
{
    static const char *names[] = {"foo", "foo.bar", "foo;", "fo", "foo~", "a b", "a", "f", "foo:1"};
    unsigned seed = 12345;
    profile_t *p = profile_new();
    for (int i = 0; i < 4000; i++) {
        uint32_t frames[6];
        size_t n = 1 + (seed = seed * 1103515245 + 12345) % 6;
        for (size_t k = 0; k < n; k++)
            frames[k] = profile_frame_simple(p, names[(seed = seed * 1103515245 + 12345) >> 16 & 7], FRAME_NATIVE);
        profile_add_stack(p, frames, n, 1);
    }
    buf_t out = {0};
    folded_write_buf(p, &out);
    size_t prev_off = 0, prev_len = 0, lines = 0;
    int sorted = 1;
    double total = 0;
    for (size_t at = 0; at < out.len;) {
        const char *nl = memchr(out.data + at, '\n', out.len - at);
        size_t len = (size_t)(nl - (out.data + at)), stack_len;
        double w;
        CHECK(folded_split_line(out.data + at, len, &stack_len, &w));
        total += w;
        if (lines++) {
            size_t m = prev_len < stack_len ? prev_len : stack_len;
            int c = memcmp(out.data + prev_off, out.data + at, m);
            if (c > 0 || (c == 0 && prev_len > stack_len)) sorted = 0;
        }
        prev_off = at, prev_len = stack_len;
        at += len + 1;
    }
    CHECK(sorted);
    CHECK(total == 4000);
    CHECK(lines > 100);
    buf_free(&out);
    profile_free(p);
}

static void test_split(void)
{
    size_t sl;
    double c;
    CHECK(folded_split_line("a b;c 12", 8, &sl, &c) && sl == 5 && c == 12);
    CHECK(!folded_split_line("abc", 3, &sl, &c));
    CHECK(!folded_split_line("12", 2, &sl, &c));
    CHECK(!folded_split_line("a 1.2.3", 7, &sl, &c));
    CHECK(folded_split_line("a 0.5", 5, &sl, &c) && c == 0.5);
}

static void test_classify(void)
{
#define K(s) profile_classify_name(s, strlen(s))
    CHECK_EQ_INT(K("JS:*fib /app/fib.js:1:13"), FRAME_JS_TURBOFAN);
    CHECK_EQ_INT(K("JS:~fib /app/fib.js:1:13_[j]"), FRAME_JS_INTERPRETED);
    CHECK_EQ_INT(K("JS:^x :3:26"), FRAME_JS_BASELINE);
    CHECK_EQ_INT(K("JS:+x a.js:3:26"), FRAME_JS_MAGLEV);
    CHECK_EQ_INT(K("LazyCompile:*fib /a.js:1"), FRAME_JS_TURBOFAN);
    CHECK_EQ_INT(K("Builtins_InterpreterEntryTrampoline"), FRAME_BUILTIN);
    CHECK_EQ_INT(K("RegExp:^#!.*"), FRAME_BUILTIN);
    CHECK_EQ_INT(K("do_syscall_64_[k]"), FRAME_KERNEL);
    CHECK_EQ_INT(K("(garbage collector)"), FRAME_GC);
    CHECK_EQ_INT(K("v8::internal::Heap::CollectGarbage"), FRAME_GC);
    CHECK_EQ_INT(K("uv_run"), FRAME_NATIVE);
    CHECK_EQ_INT(K("[unknown]"), FRAME_UNKNOWN);
    CHECK_EQ_INT(K("fib /app/fib.js:1:13"), FRAME_JS);
#undef K
}

int main(void)
{
    test_interning();
    test_tree();
    test_folded_round_trip();
    test_folded_sorted_like_text();
    test_split();
    test_classify();
    return check_summary("test_profile");
}
