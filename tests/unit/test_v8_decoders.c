/* The V8 decoders on hand-built Node 20 heap images (fuzz/gen_v8_corpus.js writes them to
 * fuzz/corpus/v8_decoders/): each kind of string, a cons cycle and a deep cons chain, numbers,
 * oddballs, a fast-mode object and an array decode to what the generator built. */
#include "../../fuzz/v8_node20_metadata.h"
#include "check.h"
#include "target/target.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include "v8/v8.h"
#include <stdio.h>
#include <stdlib.h>

#define BASE 0x100000ull

typedef struct {
    unsigned char *bytes;
    size_t n;
    target_t *t;
    v8_t *v;
    uint64_t root;
} image_t;

static int load(const char *name, image_t *im)
{
    char path[256];
    snprintf(path, sizeof path, "fuzz/corpus/v8_decoders/%s", name);
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: missing (run: node fuzz/gen_v8_corpus.js)\n", path);
        return -1;
    }
    im->bytes = xmalloc(1 << 20);
    im->n = fread(im->bytes, 1, 1 << 20, f);
    fclose(f);
    uint32_t off = (uint32_t)(im->bytes[0] | im->bytes[1] << 8 | im->bytes[2] << 16 | (uint32_t)im->bytes[3] << 24);
    im->t = target_open_memory(BASE, im->bytes + 4, im->n - 4);
    im->v = v8_open_with_metadata(im->t, node20_metadata, sizeof node20_metadata / sizeof node20_metadata[0], 11, 3);
    im->root = BASE + off + 1;
    return im->v ? 0 : -1;
}

static void unload(image_t *im)
{
    v8_close(im->v);
    target_close(im->t);
    free(im->bytes);
}

/* v8_string of the image's root: its UTF-8 text, or "<error>" */
static char *string_of(const char *name, size_t max)
{
    image_t im;
    buf_t b = {0};
    int trunc;
    if (load(name, &im) != 0) return xstrdup("<no image>");
    int rc = v8_string(im.v, im.root, &b, max, &trunc);
    char *s = xstrdup(rc == 0 ? (b.data ? b.data : "") : "<error>");
    buf_free(&b);
    unload(&im);
    return s;
}

static char *describe(const char *name)
{
    image_t im;
    buf_t b = {0};
    if (load(name, &im) != 0) return xstrdup("<no image>");
    v8_describe(im.v, im.root, &b);
    char *s = xstrdup(b.data ? b.data : "");
    buf_free(&b);
    unload(&im);
    return s;
}

static int collect(void *ctx, const v8_property_t *p)
{
    buf_t *b = ctx;
    buf_printf(b, "%s=%llx;", p->key, (unsigned long long)p->value);
    return 0;
}

/* v8_put_number against what JavaScript's String(n) prints */
static void check_number(double d, const char *want)
{
    buf_t b = {0};
    v8_put_number(&b, d);
    CHECK_STR(b.data, want);
    buf_free(&b);
}

int main(void)
{
    check_number(0.1, "0.1");
    check_number(-0.0, "0");
    check_number(1e21, "1e+21");
    check_number(123456789012345680000.0, "123456789012345680000");
    check_number(1e-7, "1e-7");
    check_number(0.000001, "0.000001");
    check_number(1.5e300, "1.5e+300");
    check_number(0.1 + 0.2, "0.30000000000000004");
    check_number(-2.5e-10, "-2.5e-10");
    check_number(9007199254740991.0, "9007199254740991");
    diag_verbosity = -1;
    char *s;
    CHECK_STR(s = string_of("seq_one_byte", 100), "hello, core");
    free(s);
    /* two-byte: non-ASCII, a surrogate pair joined, a lone high half replaced by U+FFFD */
    CHECK_STR(s = string_of("seq_two_byte", 100), "ŝtring ☃ 😀 and a lone \xEF\xBF\xBD half");
    free(s);
    CHECK_STR(s = string_of("cons", 100), "left|right");
    free(s);
    CHECK_STR(s = string_of("cons_cycle", 100), "<error>");
    free(s);
    s = string_of("cons_deep", 1000);
    CHECK_EQ_INT(strlen(s), 201);
    CHECK(s[0] == 'x' && s[200] == 'y');
    free(s);
    CHECK_STR(s = string_of("cons_deep", 10), "xyyyyyyyyy");
    free(s); /* cut at max_bytes */
    CHECK_STR(s = string_of("sliced", 100), "456789");
    free(s);
    CHECK_STR(s = string_of("thin", 100), "actual");
    free(s);
    CHECK_STR(s = describe("seq_one_byte"), "\"hello, core\"");
    free(s);
    CHECK_STR(s = describe("heap_number"), "42.5");
    free(s);
    CHECK_STR(s = describe("oddball"), "undefined");
    free(s);
    CHECK_STR(s = describe("array"), "<Array 3>");
    free(s);

    image_t im;
    if (load("object", &im) == 0) {
        buf_t b = {0};
        CHECK_EQ_INT(v8_object_properties(im.v, im.root, collect, &b), 0);
        /* a = Smi 1; b = the string "two" (its address varies: check the key and describe it) */
        CHECK(b.data && !strncmp(b.data, "a=100000000;b=", 14));
        uint64_t two;
        CHECK_EQ_INT(v8_object_get(im.v, im.root, "b", &two), 0);
        buf_clear(&b);
        v8_describe(im.v, two, &b);
        CHECK_STR(b.data, "\"two\"");
        CHECK(v8_object_get(im.v, im.root, "c", &two) != 0);
        buf_free(&b);
        unload(&im);
    }
    if (load("array", &im) == 0) {
        buf_t b = {0};
        CHECK_EQ_INT(v8_object_elements(im.v, im.root, collect, &b, 100), 0);
        CHECK_STR(b.data, "0=100000000;1=200000000;2=300000000;");
        /* a bound on reads ends the walk, and lifting it restores every read */
        v8_limit_reads(im.v, 2);
        CHECK(v8_object_elements(im.v, im.root, collect, &b, 100) != 0);
        CHECK(v8_reads_exhausted(im.v));
        v8_limit_reads(im.v, 0);
        CHECK(!v8_reads_exhausted(im.v));
        buf_clear(&b);
        CHECK_EQ_INT(v8_object_elements(im.v, im.root, collect, &b, 100), 0);
        CHECK_STR(b.data, "0=100000000;1=200000000;2=300000000;");
        buf_free(&b);
        unload(&im);
    }
    /* reads outside the image fail; they never touch memory */
    if (load("seq_one_byte", &im) == 0) {
        int type;
        CHECK(v8_instance_type(im.v, BASE + (1 << 20) + 1, &type) != 0);
        CHECK(v8_instance_type(im.v, 0x1001, &type) != 0);
        unload(&im);
    }
    return check_summary("test_v8_decoders");
}
