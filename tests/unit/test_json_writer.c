/* util/json_writer: commas and colons placed by the writer, every value kind, string escaping
 * (control characters, quotes, invalid UTF-8), numbers at their limits, non-finite doubles as
 * null, addresses as "0x..." strings, arrays one element a line; and a round trip through the JSON reader (util/json.c). */
#include "check.h"
#include "util/diag.h"
#include "util/json.h"
#include "util/json_writer.h"
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>

static buf_t out;
static jw_t w;

static void start(void)
{
    buf_clear(&out);
    jw_init(&w, &out);
}

static void test_structure(void)
{
    start();
    CHECK(!jw_complete(&w));
    jw_object_begin(&w, NULL);
    jw_int(&w, "a", 1);
    jw_array_begin(&w, "b");
    jw_bool(&w, NULL, 1);
    jw_bool(&w, NULL, 0);
    jw_null(&w, NULL);
    jw_string(&w, NULL, "x");
    jw_string(&w, NULL, NULL);
    jw_end(&w);
    CHECK(!jw_complete(&w));
    jw_object_begin(&w, "c");
    jw_end(&w);
    jw_array_begin(&w, "d");
    jw_end(&w);
    jw_object_begin(&w, "e");
    jw_array_begin(&w, "f");
    jw_array_begin(&w, NULL);
    jw_end(&w);
    jw_object_begin(&w, NULL);
    jw_uint(&w, "g", 2);
    jw_end(&w);
    jw_end(&w);
    jw_end(&w);
    jw_end(&w);
    CHECK(jw_complete(&w));
    CHECK_STR(out.data, "{\"a\":1,\"b\":[true,false,null,\"x\",null],\"c\":{},\"d\":[],\"e\":{\"f\":[[],{\"g\":2}]}}");

    /* a scalar alone, and an array whose elements each start a line (top --json's rows) */
    start();
    jw_string(&w, NULL, "only");
    CHECK(jw_complete(&w));
    CHECK_STR(out.data, "\"only\"");
    start();
    jw_object_begin(&w, NULL);
    jw_array_begin_lines(&w, "rows");
    jw_object_begin(&w, NULL);
    jw_int(&w, "n", 1);
    jw_array_begin(&w, "inner");
    jw_int(&w, NULL, 1);
    jw_int(&w, NULL, 2);
    jw_end(&w);
    jw_end(&w);
    jw_int(&w, NULL, 2);
    jw_end(&w);
    jw_array_begin_lines(&w, "none");
    jw_end(&w);
    jw_array_begin_lines(&w, "closed"); /* the "]" on a line of its own */
    jw_int(&w, NULL, 3);
    jw_newline(&w);
    jw_end(&w);
    jw_end(&w);
    CHECK_STR(out.data, "{\"rows\":[\n{\"n\":1,\"inner\":[1,2]},\n2],\"none\":[],\"closed\":[\n3\n]}");
}

/* The spaced layout with indented rows: `core objects --json`'s */
static void test_spaced(void)
{
    start();
    w.spaced = 1;
    w.indent = "  ";
    jw_array_begin_lines(&w, NULL);
    for (int i = 1; i <= 2; i++) {
        jw_object_begin(&w, NULL);
        jw_string(&w, "name", i == 1 ? "A" : "B");
        jw_int(&w, "count", i);
        jw_array_begin(&w, "xs");
        jw_int(&w, NULL, 1);
        jw_int(&w, NULL, 2);
        jw_end(&w);
        jw_end(&w);
    }
    jw_newline(&w);
    jw_end(&w);
    CHECK_STR(
        out.data,
        "[\n  {\"name\": \"A\", \"count\": 1, \"xs\": [1, 2]},\n  {\"name\": \"B\", \"count\": 2, \"xs\": [1, 2]}\n]");
}

static void test_strings(void)
{
    start();
    jw_object_begin(&w, NULL);
    jw_string(&w, "esc", "q\" b\\ n\n t\t r\r \x01 \x1f \x7f /");
    jw_string(&w, "key \"quoted\"\n", "v");
    jw_string_n(&w, "nul", "a\0b", 3);
    jw_string(&w, "utf8", "\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"); /* é € 😀 copied */
    jw_string(&w, "stray", "a\x80z");                                /* a continuation byte alone */
    jw_string(&w, "cut", "a\xe2\x82");                               /* a sequence cut short by the end */
    jw_string(&w, "cut2", "\xe2\x82z");                              /* ... and by an ASCII byte */
    jw_string(&w, "c0", "\xc0\xaf");                                 /* 0xC0 never starts a sequence */
    jw_string(&w, "ff", "\xff");
    jw_end(&w);
    CHECK_STR(out.data, "{\"esc\":\"q\\\" b\\\\ n\\n t\\t r\\u000d \\u0001 \\u001f \\u007f /\","
                        "\"key \\\"quoted\\\"\\n\":\"v\","
                        "\"nul\":\"a\\u0000b\","
                        "\"utf8\":\"\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\","
                        "\"stray\":\"a\\ufffdz\","
                        "\"cut\":\"a\\ufffd\\ufffd\","
                        "\"cut2\":\"\\ufffd\\ufffdz\","
                        "\"c0\":\"\\ufffd\\ufffd\","
                        "\"ff\":\"\\ufffd\"}");
    /* the same escaper as every other writer in the tree */
    buf_t direct = {0};
    json_put_string(&direct, "a\"b\\c\n\t\x01\xff z", 12);
    start();
    jw_string_n(&w, NULL, "a\"b\\c\n\t\x01\xff z", 12);
    CHECK_STR(out.data, direct.data);
    buf_free(&direct);
}

static void test_numbers(void)
{
    start();
    jw_array_begin(&w, NULL);
    jw_int(&w, NULL, 0);
    jw_int(&w, NULL, -1);
    jw_int(&w, NULL, LLONG_MAX);
    jw_int(&w, NULL, LLONG_MIN);
    jw_uint(&w, NULL, ULLONG_MAX);
    jw_double(&w, NULL, 0.1);
    jw_double(&w, NULL, 1234);
    jw_double(&w, NULL, -0.0);
    jw_double(&w, NULL, 1e300);
    jw_double(&w, NULL, DBL_MIN);
    jw_double(&w, NULL, NAN);
    jw_double(&w, NULL, INFINITY);
    jw_double(&w, NULL, -INFINITY);
    jw_fixed(&w, NULL, 4, 12.5);
    jw_fixed(&w, NULL, 0, 2.5);
    jw_fixed(&w, NULL, 2, NAN);
    jw_address(&w, NULL, 0);
    jw_address(&w, NULL, 0x7f3a00c0ffeeULL);
    jw_end(&w);
    CHECK_STR(out.data, "[0,-1,9223372036854775807,-9223372036854775808,18446744073709551615,"
                        "0.10000000000000001,1234,-0,1.0000000000000001e+300,2.2250738585072014e-308,"
                        "null,null,null,12.5000,2,null,\"0x0\",\"0x7f3a00c0ffee\"]");
}

/* Every byte 1-127 in a key and a value, numbers and nesting: read back by util/json.c, token by
 * token, equal to what was written. */
static void test_round_trip(void)
{
    char all[128];
    for (int i = 1; i < 128; i++) all[i - 1] = (char)i;
    all[127] = 0;
    const double doubles[] = {0.1, -2.5e-300, 123456789.123456789, 1.0 / 3, DBL_MAX};
    start();
    jw_object_begin(&w, NULL);
    jw_string(&w, all, all);
    jw_string_n(&w, "nul", "x\0y", 3);
    jw_string(&w, "utf8", "\xc3\xa9\xf0\x9f\x98\x80");
    jw_array_begin_lines(&w, "doubles");
    for (size_t i = 0; i < sizeof doubles / sizeof *doubles; i++) jw_double(&w, NULL, doubles[i]);
    jw_end(&w);
    jw_object_begin(&w, "more");
    jw_int(&w, "neg", -9007199254740991LL); /* -(2^53 - 1): exact in a double */
    jw_bool(&w, "t", 1);
    jw_bool(&w, "f", 0);
    jw_null(&w, "z");
    jw_array_begin(&w, "empty");
    jw_end(&w);
    jw_end(&w);
    jw_end(&w);
    CHECK(jw_complete(&w));

    input_t *in = input_from_memory("w.json", out.data, out.len);
    json_t j;
    json_init(&j, in);
    CHECK_EQ_INT(json_next(&j), JSON_OBJECT_START);
    CHECK_EQ_INT(json_next(&j), JSON_KEY);
    CHECK_STR(j.str.data, all);
    CHECK_EQ_INT(json_next(&j), JSON_STRING);
    CHECK_STR(j.str.data, all);
    CHECK_EQ_INT(json_next(&j), JSON_KEY);
    CHECK_STR(j.str.data, "nul");
    CHECK_EQ_INT(json_next(&j), JSON_STRING);
    CHECK(j.str.len == 3 && !memcmp(j.str.data, "x\0y", 3));
    CHECK_EQ_INT(json_next(&j), JSON_KEY);
    CHECK_EQ_INT(json_next(&j), JSON_STRING);
    CHECK_STR(j.str.data, "\xc3\xa9\xf0\x9f\x98\x80");
    CHECK_EQ_INT(json_next(&j), JSON_KEY);
    CHECK_STR(j.str.data, "doubles");
    CHECK_EQ_INT(json_next(&j), JSON_ARRAY_START);
    for (size_t i = 0; i < sizeof doubles / sizeof *doubles; i++) {
        CHECK_EQ_INT(json_next(&j), JSON_NUMBER);
        CHECK(j.num == doubles[i]);
    }
    CHECK_EQ_INT(json_next(&j), JSON_ARRAY_END);
    CHECK_EQ_INT(json_next(&j), JSON_KEY);
    CHECK_STR(j.str.data, "more");
    CHECK_EQ_INT(json_next(&j), JSON_OBJECT_START);
    CHECK_EQ_INT(json_next(&j), JSON_KEY);
    CHECK_EQ_INT(json_next(&j), JSON_NUMBER);
    CHECK(j.num == -9007199254740991.0);
    CHECK_EQ_INT(json_next(&j), JSON_KEY);
    CHECK_EQ_INT(json_next(&j), JSON_TRUE);
    CHECK_EQ_INT(json_next(&j), JSON_KEY);
    CHECK_EQ_INT(json_next(&j), JSON_FALSE);
    CHECK_EQ_INT(json_next(&j), JSON_KEY);
    CHECK_EQ_INT(json_next(&j), JSON_NULL);
    CHECK_EQ_INT(json_next(&j), JSON_KEY);
    CHECK_STR(j.str.data, "empty");
    CHECK_EQ_INT(json_next(&j), JSON_ARRAY_START);
    CHECK_EQ_INT(json_next(&j), JSON_ARRAY_END);
    CHECK_EQ_INT(json_next(&j), JSON_OBJECT_END);
    CHECK_EQ_INT(json_next(&j), JSON_OBJECT_END);
    CHECK_EQ_INT(json_next(&j), JSON_EOF);
    json_free(&j);
    input_close(in);
}

int main(void)
{
    test_structure();
    test_spaced();
    test_strings();
    test_numbers();
    test_round_trip();
    buf_free(&out);
    return check_summary("test_json_writer");
}
