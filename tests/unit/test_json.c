/* The streaming JSON parser: token sequence, escapes and surrogate pairs, numbers,
 * skipping, errors (not crashes) on malformed input, depth bound, and the writer's
 * string escaping (round trip through the parser). */
#include "check.h"
#include "util/diag.h"
#include "util/json.h"
#include <stdlib.h>

/* Tokens of text as a compact string: { } [ ] k:NAME s:TEXT n:NUM t f z, then E (error) or . (EOF). */
static char *tokens(const char *text)
{
    static buf_t out;
    buf_clear(&out);
    input_t *in = input_from_memory("t.json", text, strlen(text));
    json_t j;
    json_init(&j, in);
    for (int guard = 0; guard < 1000; guard++) {
        json_token_t t = json_next(&j);
        switch (t) {
        case JSON_OBJECT_START: buf_putc(&out, '{'); break;
        case JSON_OBJECT_END: buf_putc(&out, '}'); break;
        case JSON_ARRAY_START: buf_putc(&out, '['); break;
        case JSON_ARRAY_END: buf_putc(&out, ']'); break;
        case JSON_KEY: buf_printf(&out, "k:%s ", j.str.data); break;
        case JSON_STRING: buf_printf(&out, "s:%s ", j.str.data); break;
        case JSON_NUMBER: buf_printf(&out, "n:%g ", j.num); break;
        case JSON_TRUE: buf_putc(&out, 't'); break;
        case JSON_FALSE: buf_putc(&out, 'f'); break;
        case JSON_NULL: buf_putc(&out, 'z'); break;
        case JSON_ERROR: buf_putc(&out, 'E'); goto done;
        case JSON_EOF: buf_putc(&out, '.'); goto done;
        }
    }
done:
    json_free(&j);
    input_close(in);
    return out.data;
}

/* json_read_numbers over text (an array first): the numbers as "%.17g," and the ending token. */
static char *numbers_n(const char *text, size_t len, json_token_t *end, long *line)
{
    static buf_t out;
    buf_clear(&out);
    input_t *in = input_from_memory("n.json", text, len);
    json_t j;
    json_init(&j, in);
    double *a = NULL;
    size_t n = 0, cap = 0;
    *end = json_next(&j) == JSON_ARRAY_START ? json_read_numbers(&j, &a, &n, &cap) : JSON_ERROR;
    for (size_t i = 0; i < n; i++) buf_printf(&out, "%.17g,", a[i]);
    if (*end == JSON_ARRAY_END && json_next(&j) != JSON_EOF) *end = JSON_ERROR;
    *line = j.line;
    free(a);
    json_free(&j);
    input_close(in);
    return out.data ? out.data : "";
}

static char *numbers(const char *text, json_token_t *end, long *line)
{
    return numbers_n(text, strlen(text), end, line);
}

int main(void)
{
    diag_verbosity = -1; /* the error cases print; keep the test output short */
    CHECK_STR(tokens("{\"a\": [1, -2.5e3, true, false, null], \"b\": {}}"), "{k:a [n:1 n:-2500 tfz]k:b {}}.");
    CHECK_STR(tokens("  [\"x\\n\\\"y\\u00e9\\ud83d\\ude00\"]\n"), "[s:x\n\"y\xc3\xa9\xf0\x9f\x98\x80 ].");
    CHECK_STR(tokens("[1e400]"), "[E"); /* out of range: an error, not inf */
    /* malformed: an error token, never a crash or a loop */
    CHECK_STR(tokens("{\"a\" 1}"), "{E");
    CHECK_STR(tokens("[1,]"), "[n:1 E");
    CHECK_STR(tokens("[1 2]"), "[n:1 E");
    CHECK_STR(tokens("{\"a\":1"), "{k:a n:1 E");
    CHECK_STR(tokens("[\"unterminated"), "[E");
    CHECK_STR(tokens("[tru]"), "[E");
    CHECK_STR(tokens("}"), "E");
    CHECK_STR(tokens("[] []"), "[]E");
    CHECK_STR(tokens("[\"\\x\"]"), "[E");
    /* nesting deeper than JSON_MAX_DEPTH is an error, not a stack overflow */
    size_t deep = JSON_MAX_DEPTH + 10;
    char *d = malloc(deep + 1);
    memset(d, '[', deep);
    d[deep] = 0;
    const char *r = tokens(d);
    CHECK(r[strlen(r) - 1] == 'E');
    free(d);

    /* json_skip passes over a whole value */
    const char *text = "{\"skip\": {\"x\": [1, {\"y\": []}]}, \"keep\": 7}";
    input_t *in = input_from_memory("s.json", text, strlen(text));
    json_t j;
    json_init(&j, in);
    CHECK_EQ_INT(json_next(&j), JSON_OBJECT_START);
    CHECK_EQ_INT(json_next(&j), JSON_KEY);
    CHECK_EQ_INT(json_skip(&j, json_next(&j)), 0);
    CHECK_EQ_INT(json_next(&j), JSON_KEY);
    CHECK_STR(j.str.data, "keep");
    CHECK_EQ_INT(json_next(&j), JSON_NUMBER);
    CHECK_EQ_INT((int)j.num, 7);
    json_free(&j);
    input_close(in);

    /* json_read_numbers: its in-place integer path and the general one agree, across window ends */
    json_token_t end;
    long line;
    CHECK_STR(numbers("[1,-2, 3 ,4.5,1e3,-0,123456789012345,1234567890123456789]", &end, &line),
              "1,-2,3,4.5,1000,-0,123456789012345,1.2345678901234568e+18,");
    CHECK_EQ_INT(end, JSON_ARRAY_END);
    CHECK_STR(numbers("[]", &end, &line), "");
    CHECK_EQ_INT(end, JSON_ARRAY_END);
    CHECK_STR(numbers("[1,2,\"x\"]", &end, &line), "1,2,");
    CHECK_EQ_INT(end, JSON_STRING);
    /* malformed arrays, short (general path) and followed by 40 blanks (in-place path) */
    static const char *const bad[] = {"[1,2,]", "[1 2]", "[1,,2]", "[,1]", "[1-2]", "[-]", "[1,2"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        for (int padded = 0; padded < 2; padded++) {
            char t[128];
            snprintf(t, sizeof t, "%s%s", bad[i], padded ? "                                        " : "");
            numbers(t, &end, &line);
            CHECK_EQ_INT(end, JSON_ERROR);
        }
    /* 300,000 numbers (several 64 KiB windows), some on new lines: every value, and the line count */
    buf_t big = {0}, want = {0};
    buf_putc(&big, '[');
    for (int i = 0; i < 300000; i++) {
        long long v = (long long)i * 7919 % 1000003 - 500000;
        buf_printf(&big, "%s%s%lld", i ? "," : "", i % 1000 == 999 ? "\n" : "", v);
        buf_printf(&want, "%lld,", v);
    }
    buf_putc(&big, ']');
    CHECK_STR(numbers_n(big.data, big.len, &end, &line), want.data);
    CHECK_EQ_INT(end, JSON_ARRAY_END);
    CHECK_EQ_INT(line, 1 + 300);
    buf_free(&big);
    buf_free(&want);

    /* escaping: control chars, quotes, invalid UTF-8 -> U+FFFD; round trip through the parser */
    buf_t b = {0};
    buf_putc(&b, '[');
    json_put_string(&b, "a\"b\\c\n\t\x01\xff z", 12);
    buf_putc(&b, ']');
    CHECK(!strchr(b.data, '\n') && !strchr(b.data, '\x01'));
    CHECK_STR(tokens(b.data), "[s:a\"b\\c\n\t\x01\xef\xbf\xbd z ].");
    buf_free(&b);
    return check_summary("test_json");
}
