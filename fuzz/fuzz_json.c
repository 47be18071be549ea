/* Fuzz the streaming JSON tokenizer (every token, then json_skip from the start)
 * and the string escaper: never a crash, a hang, or an escaped string that does
 * not parse back. */
#include "util/diag.h"
#include "util/json.h"
#include <stdint.h>
#include <stdlib.h>

static void tokenize(const uint8_t *data, size_t size, int skip)
{
    input_t *in = input_from_memory("fuzz.json", data, size);
    json_t j;
    json_init(&j, in);
    json_token_t t = json_next(&j);
    if (skip) json_skip(&j, t);
    else
        while (t != JSON_EOF && t != JSON_ERROR) t = json_next(&j);
    json_free(&j);
    input_close(in);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    diag_verbosity = -1;
    tokenize(data, size, 0);
    tokenize(data, size, 1);
    buf_t b = {0};
    buf_putc(&b, '[');
    json_put_string(&b, (const char *)data, size);
    buf_putc(&b, ']');
    input_t *in = input_from_memory("escaped.json", b.data, b.len);
    json_t j;
    json_init(&j, in);
    if (json_next(&j) != JSON_ARRAY_START || json_next(&j) != JSON_STRING || json_next(&j) != JSON_ARRAY_END ||
        json_next(&j) != JSON_EOF)
        abort();
    json_free(&j);
    input_close(in);
    buf_free(&b);
    return 0;
}
