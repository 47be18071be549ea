/* The SVG flame graph writer: escaping of hostile names, minwidth pruning
 * counts, byte-identical output, and the js palette's classes. */
#include "check.h"
#include "formats/flame.h"
#include "formats/format.h"
#include "formats/palette.h"
#include "formats/svg_text.h"
#include "profile/profile.h"
#include "profile_fixture.h"
#include "util/buf.h"
#include <stdlib.h>

static char *escaped(const char *s, size_t n)
{
    static buf_t b;
    b.len = 0;
    svg_escape(&b, s, n);
    buf_putc(&b, '\0');
    return b.data;
}

static void test_escape(void)
{
    const char tag[] = "<script>alert(1)</script>";
    CHECK_STR(escaped(tag, sizeof tag - 1), "&lt;script&gt;alert(1)&lt;/script&gt;");
    CHECK_STR(escaped("a&b\"c'd", 7), "a&amp;b&quot;c&#39;d");
    /* valid UTF-8 passes through; invalid bytes and control characters become U+FFFD */
    CHECK_STR(escaped("\xc3\xa9t\xc3\xa9", 5), "\xc3\xa9t\xc3\xa9");
    CHECK_STR(escaped("a\xff"
                      "b",
                      3),
              "a\xef\xbf\xbd"
              "b");
    CHECK_STR(escaped("a\x01"
                      "b",
                      3),
              "a\xef\xbf\xbd"
              "b");
    CHECK_STR(escaped("\xc3", 1), "\xef\xbf\xbd");              /* truncated sequence */
    CHECK(!strstr(escaped("\xed\xa0\x80", 3), "\xed\xa0\x80")); /* UTF-16 surrogate */

    buf_t j = {0};
    svg_json_string(&j, "</script>\"\\");
    buf_putc(&j, '\0');
    CHECK(!strchr(j.data, '<') && !strchr(j.data, '>'));
    CHECK(strstr(j.data, "\\\"") && strstr(j.data, "\\\\"));
    buf_free(&j);
}

/* Writes p as SVG into a NUL-terminated malloc'ed string. */
static char *svg_of(const profile_t *p, flame_opts_t *o)
{
    char *data = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&data, &size);
    const format_writer_t *w = format_writer_by_name("svg");
    CHECK(w != NULL);
    CHECK_EQ_INT(w->write(p, f, &(write_opts_t){.flame = o}), 0);
    fclose(f);
    return data;
}

static void test_hostile_names_in_svg(void)
{
    profile_t *p = folded("main;<script>window.__pwned=1</script> 3\nmain;a&b\xff\x01 2\n");
    flame_opts_t o;
    flame_opts_defaults(&o);
    char *s = svg_of(p, &o);
    CHECK(!strstr(s, "<script>window"));
    CHECK(!strstr(s, "\xff"));
    CHECK(!strchr(s, '\x01'));
    CHECK(strstr(s, "&lt;script&gt;") || strstr(s, "\\u003cscript"));
    free(s);
    profile_free(p);
}

static void test_minwidth(void)
{
    /* 1 wide stack of 10000 samples and 100 one-sample leaves: at 1200 px each
     * leaf is ~0.12 px, so --minwidth 0.5 drops exactly those 100 frames. */
    buf_t t = {0};
    buf_puts(&t, "main;big 10000\n");
    for (int i = 0; i < 100; i++) buf_printf(&t, "main;small%03d 1\n", i);
    buf_putc(&t, '\0');
    profile_t *p = folded(t.data);
    flame_opts_t o;
    flame_opts_defaults(&o);
    o.minwidth = 0.5;
    char *s = svg_of(p, &o);
    CHECK_EQ_INT(o.dropped, 100);
    CHECK(strstr(s, "100 frames narrower") != NULL);
    CHECK(!strstr(s, "small0"));
    CHECK(strstr(s, "\"count\":3,") != NULL);
    free(s);

    flame_opts_defaults(&o);
    o.minwidth = 0.05; /* 0.12 px stays */
    s = svg_of(p, &o);
    CHECK_EQ_INT(o.dropped, 0);
    CHECK(strstr(s, "small000") != NULL); /* the others are front-coded after it */
    CHECK(strstr(s, "\"count\":103,") != NULL);
    free(s);

    flame_opts_defaults(&o);
    o.minwidth = 1, o.minwidth_pct = 1; /* 1% of 10100: every small frame, not big */
    s = svg_of(p, &o);
    CHECK_EQ_INT(o.dropped, 100);
    CHECK(strstr(s, "big") != NULL);
    free(s);
    buf_free(&t);
    profile_free(p);
}

static void test_deterministic(void)
{
    /* the same stacks in another order give byte-identical output */
    profile_t *a = folded("m;x;y 5\nm;b 2\nm;x 1\nq 4\n");
    profile_t *b = folded("q 4\nm;x 1\nm;b 2\nm;x;y 5\n");
    flame_opts_t o;
    flame_opts_defaults(&o);
    char *sa = svg_of(a, &o), *sb = svg_of(b, &o);
    CHECK(sa && sb && !strcmp(sa, sb));
    free(sa);
    free(sb);
    profile_free(a);
    profile_free(b);
}

static void test_palette(void)
{
    profile_t *p = folded("node;uv_run;JS:*fib a.js:1:1;JS:~g a.js:2:1 3\nnode;do_syscall_64_[k] 1\n");
    palette_t pal;
    palette_init(&pal, NULL, p, 0, 0, 0);
    CHECK_STR(pal.name, "js"); /* JS frames present: js palette by default */
    CHECK(pal.legend_n >= 3);
    char tf[32], tf2[32], interp[32], native[32], kernel[32];
    palette_color(&pal, "JS:*fib", 7, FRAME_JS_TURBOFAN, tf);
    palette_color(&pal, "JS:*fib", 7, FRAME_JS_TURBOFAN, tf2);
    palette_color(&pal, "JS:~fib", 7, FRAME_JS_INTERPRETED, interp);
    palette_color(&pal, "uv_run", 6, FRAME_NATIVE, native);
    palette_color(&pal, "do_syscall_64", 13, FRAME_KERNEL, kernel);
    CHECK_STR(tf, tf2); /* same name, same colour */
    CHECK(strcmp(tf, interp) && strcmp(tf, native) && strcmp(native, kernel));
    palette_free(&pal);

    profile_t *c = folded("main;a;b 3\n");
    palette_init(&pal, NULL, c, 0, 0, 0);
    CHECK_STR(pal.name, "hot"); /* no JS frames: flamegraph.pl's default */
    palette_free(&pal);
    palette_init(&pal, "nonsense", c, 0, 0, 0);
    CHECK_STR(pal.name, "hot");
    palette_free(&pal);

    char grew[32], shrank[32];
    palette_init(&pal, "hot", c, 0, 1, 0);
    palette_diff_color(&pal, 10, 10, grew);
    palette_diff_color(&pal, -10, 10, shrank);
    int r1, g1, b1, r2, g2, b2;
    CHECK(sscanf(grew, "rgb(%d,%d,%d)", &r1, &g1, &b1) == 3 && r1 > b1);
    CHECK(sscanf(shrank, "rgb(%d,%d,%d)", &r2, &g2, &b2) == 3 && b2 > r2);
    palette_free(&pal);
    profile_free(p);
    profile_free(c);
}

static void cxx(const char *in, const char *noargs, const char *last2, const char *last1)
{
    buf_t a = {0}, b = {0}, c = {0};
    svg_cxx_short(in, strlen(in), &a, &b, &c);
    buf_putc(&a, 0), buf_putc(&b, 0), buf_putc(&c, 0);
    CHECK_STR(a.data, noargs);
    CHECK_STR(b.data, last2);
    CHECK_STR(c.data, last1);
    buf_free(&a), buf_free(&b), buf_free(&c);
}

static void test_short_labels(void)
{
    cxx("v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace, v8::internal::GarbageCollectionReason)",
        "v8::internal::Heap::CollectGarbage", "Heap::CollectGarbage", "CollectGarbage");
    cxx("v8::internal::JsonParser<unsigned char>::ParseJsonValue<false>", "v8::internal::JsonParser::ParseJsonValue",
        "JsonParser::ParseJsonValue", "ParseJsonValue");
    cxx("v8::internal::(anonymous namespace)::Invoke", "v8::internal::Invoke", "internal::Invoke", "Invoke");
    cxx("std::function<int (int, int)>::operator()(int, int) const", "std::function::operator()",
        "function::operator()", "operator()");
    cxx("Foo::operator<<(std::ostream&)", "Foo::operator<<", "", "operator<<");
    cxx("node::Start", "", "", "Start"); /* already short: only the method */
    cxx("uv_run", "", "", "");
    CHECK_EQ_INT(svg_char_count("\xc3\xa9t\xc3\xa9", 5), 3);

    /* the labels in the file: the longest form that fits the frame */
    profile_t *p = folded("node;v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace, int);"
                          "JS:*fib /home/someone/app/lib/fib.js:1:13 10\nnode;other 190\n");
    flame_opts_t o;
    flame_opts_defaults(&o);
    o.width =
        2000; /* 99 px: "Heap::CollectGarbage" (20 chars, 141 px) does not fit, "CollectGarbage" (99 px) not quite */
    char *s = svg_of(p, &o);
    CHECK(strstr(s, ">Collect..<") || strstr(s, ">CollectGa..<") || strstr(s, ">CollectGarb..<"));
    free(s);
    o.width = 4000; /* 199 px: Heap::CollectGarbage fits */
    s = svg_of(p, &o);
    CHECK(strstr(s, ">Heap::CollectGarbage<") != NULL);
    CHECK(strstr(s, ">*fib fib.js:1<") != NULL);

    /* the full names stay in the data (tooltips, search) */
    CHECK(strstr(s, "v8::internal::Heap::CollectGarbage(v8::internal::AllocationSpace, int)") != NULL);
    free(s);
    profile_free(p);
    /* an anonymous JS function: "*(anonymous)" when "JS:* /app/busy.js:12:17" does not fit */
    p = folded("node;JS:* /app/busy.js:12:17 10\nnode;other 190\n");
    o.width = 2000;
    s = svg_of(p, &o);
    CHECK(strstr(s, "[\"*(anonymous)\"]") != NULL);
    CHECK(strstr(s, ">*(anonymous)<") != NULL);
    free(s);
    profile_free(p);
}

static void test_units_and_unknown(void)
{
    profile_t *p = folded("node;[unknown];[unknown];[unknown];work 2000000000\nnode;[unknown];idle 150501283\n");
    flame_opts_t o;
    flame_opts_defaults(&o);
    char *s = svg_of(p, &o);
    CHECK(strstr(s, "total 2,150,501,283 samples<") != NULL);
    /* one [unknown] frame for the runs of 1 and 3 */
    CHECK(strstr(s, "[unknown] \xc3\x97"
                    "1\xe2\x80\x93"
                    "3") != NULL);
    CHECK(!strstr(s, "[unknown]\\n[unknown]"));
    free(s);
    p->weight_unit = "ns";
    s = svg_of(p, &o);
    CHECK(strstr(s, "total 2.15 s (weights in ns)<") != NULL);
    CHECK(strstr(s, "\"unit\":\"ns\",\"unitSeconds\":1e-09") != NULL);
    free(s);
    p->weight_unit = "cycles";
    s = svg_of(p, &o);
    CHECK(strstr(s, "total 2,150,501,283 cycles<") != NULL);
    free(s);
    o.countname = "bytes"; /* --countname wins */
    s = svg_of(p, &o);
    CHECK(strstr(s, "total 2,150,501,283 bytes<") != NULL);
    free(s);
    profile_free(p);
}

int main(void)
{
    test_short_labels();
    test_units_and_unknown();
    test_escape();
    test_hostile_names_in_svg();
    test_minwidth();
    test_deterministic();
    test_palette();
    return check_summary("test_svg");
}
