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

int main(void)
{
    diag_verbosity = -1;   /* the error cases print; keep the test output short */
    CHECK_STR(tokens("{\"a\": [1, -2.5e3, true, false, null], \"b\": {}}"),
              "{k:a [n:1 n:-2500 tfz]k:b {}}.");
    CHECK_STR(tokens("  [\"x\\n\\\"y\\u00e9\\ud83d\\ude00\"]\n"), "[s:x\n\"y\xc3\xa9\xf0\x9f\x98\x80 ].");
    CHECK_STR(tokens("[1e400]"), "[E");   /* out of range: an error, not inf */
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
