/* Fuzz the V8 decoders (strings, values, functions, objects, classes) with arbitrary memory:
 * input = a 4-byte little-endian offset of the value to decode, then a memory image placed at
 * FUZZ_IMAGE_BASE. Decoded with Node 20's layout, then printed as print and print --json would. Any bytes must give an answer or an error: never a
 * crash, a hang, or a read outside the image. Seeds: fuzz/gen_v8_corpus.js. */
#include "postmortem/fields.h"
#include "postmortem/inspect.h"
#include "postmortem/source.h"
#include "target/target.h"
#include "util/buf.h"
#include "util/diag.h"
#include "v8/v8.h"
#include "v8_node20_metadata.h"
#include <stdint.h>
#include <string.h>

/* print's 2,000,000-value cap is reached by a few KiB of arrays holding each other (a DAG of
 * width 1,000 and depth 3): ~15 s in this instrumented build, over libFuzzer's timeout. The
 * cap itself is what is tested; a smaller one keeps each input short. (CI at 004498c found a
 * mutation of the print_dag seed taking 12.4 s at 20,000: JSON's nulls for an array's holes were
 * written without counting as values, up to a thousand per array, after the cap too; counted
 * now, that input takes 0.8 s, and seed print_holes 0.4 s against 6.8 before.) */
#define FUZZ_PRINT_VALUES 20000

static int count_property(void *ctx, const v8_property_t *p)
{
    (*(size_t *)ctx) += strlen(p->key) + 1;
    return 0;
}

static void count_line(void *ctx, int line_no, const char *text, size_t len)
{
    (void)line_no, (void)text, (void)len;
    ++*(size_t *)ctx;
}

/* an Error's captured frames, named as V8 names them (receivers' prototype chains walked) */
static int count_callsite(void *ctx, const v8_callsite_t *c)
{
    (*(size_t *)ctx) += strlen(c->name) + 1;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    diag_verbosity = -1;
    if (size < 4 + 8) return 0;
    uint32_t off;
    memcpy(&off, data, 4);
    const uint8_t *image = data + 4;
    size_t n = size - 4;
    target_t *t;
    v8_t *v = fuzz_open_node20(image, n, &t);
    if (v) {
        uint64_t value = FUZZ_IMAGE_BASE + (off % n) + 1; /* a tagged pointer into the image */
        buf_t b = {0};
        int trunc;
        const char *repr;
        int64_t len;
        size_t seen = 0;
        v8_string(v, value, &b, 4096, &trunc);
        v8_string_info(v, value, &repr, &len);
        buf_clear(&b);
        v8_describe(v, value, &b);
        buf_clear(&b);
        v8_constructor_name(v, value, &b);
        v8_function_t fi;
        if (v8_function_info(v, value, &fi) == 0) v8_function_free(&fi);
        if (v8_shared_info(v, value, &fi) == 0) v8_function_free(&fi);
        v8_object_properties(v, value, count_property, &seen);
        v8_object_elements(v, value, count_property, &seen, 1000);
        const char *cls;
        v8_field_t *fields;
        size_t nf;
        if (v8_object_fields(v, value, &cls, &fields, &nf) == 0) {
            for (size_t k = 0; k < nf; k++) pm_field_text(v, value, &fields[k], &b); /* v8print's fields */
            v8_fields_free(fields, nf);
        }
        int nemb = v8_embedder_field_count(v, value, NULL); /* a corrupt map's count stays bounded */
        for (int k = 0; k < nemb && k < 300; k++) {
            v8_embedder_value_t e;
            if (v8_embedder_field(v, value, k, &e) == 0) pm_embedder_text(v, t, &e, &b);
        }
        char slot[128];
        pm_context_slot_name(v, value, 2, slot, sizeof slot);
        /* source's line cutter over the value as a script source (surrogates, braces, no newline) */
        v8_function_t src_fn = {0};
        src_fn.def_line = 1;
        size_t lines = 0;
        pm_function_lines(v, &src_fn, value, 50, count_line, &lines);
        /* the value printer: every kind's decoder, cycles, absurd lengths (bounded) */
        v8_value_t x;
        v8_value(v, value, &x);
        buf_clear(&b);
        v8_bigint_text(v, value, &b);
        buf_clear(&b);
        pm_format_value(v, value, 0, 3, FUZZ_PRINT_VALUES, &b);
        buf_clear(&b);
        pm_format_value(v, value, 1, 0, FUZZ_PRINT_VALUES, &b);
        uint64_t out;
        int dbl;
        double d;
        v8_own_property(v, value, "a", &out, &dbl, &d);
        v8_own_property(v, value, "3", &out, &dbl, &d);
        v8_error_callsites(v, value, count_callsite, &seen);
        buf_free(&b);
        v8_close(v);
    }
    target_close(t);
    return 0;
}
