/* Fuzz the streaming JSON tokenizer (every token, then json_skip from the start),
 * json_read_numbers against plain tokens (same numbers, same verdict) and the string
 * escaper: never a crash, a hang, or an escaped string that does not parse back. */
#include "util/diag.h"
#include "util/json.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

/* The numbers of a top-level array and whether it ended well: with json_read_numbers
 * (fast) or token by token. */
static int array_numbers(const uint8_t *data, size_t size, int fast, double **a, size_t *n)
{
    input_t *in = input_from_memory("fuzz.json", data, size);
    json_t j;
    json_init(&j, in);
    size_t cap = 0;
    json_token_t t = json_next(&j);
    if (t == JSON_ARRAY_START) {
        if (fast) t = json_read_numbers(&j, a, n, &cap);
        else
            while ((t = json_next(&j)) == JSON_NUMBER) {
                if (*n == cap) *a = realloc(*a, (cap = cap ? 2 * cap : 16) * sizeof **a);
                (*a)[(*n)++] = j.num;
            }
    }
    int ok = t == JSON_ARRAY_END && json_next(&j) == JSON_EOF;
    json_free(&j);
    input_close(in);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    diag_verbosity = -1;
    tokenize(data, size, 0);
    tokenize(data, size, 1);
    double *fa = NULL, *sa = NULL;
    size_t fn = 0, sn = 0;
    int fok = array_numbers(data, size, 1, &fa, &fn), sok = array_numbers(data, size, 0, &sa, &sn);
    if (fok != sok || (fok && (fn != sn || (fn && memcmp(fa, sa, fn * sizeof *fa))))) abort();
    free(fa);
    free(sa);
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
