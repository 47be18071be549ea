/* Source maps: VLQ and base64, parsing (sources + sourceRoot, names, sourcesContent,
 * ignoreList), lookups with trace-mapping's semantics (expected values were produced by
 * @jridgewell/trace-mapping 0.3 on the same maps), index maps decoded lazily, bad maps. */
#include "check.h"
#include "sourcemap/sourcemap.h"
#include "util/diag.h"
#include <stdlib.h>
#include <string.h>

static void test_vlq(void)
{
    static const struct { const char *s; int32_t v; } cases[] = {
        {"A", 0}, {"C", 1}, {"D", -1}, {"E", 2}, {"gB", 16}, {"hB", -16}, {"+/////D", INT32_MAX}, {"2H", 123},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const char *p = cases[i].s, *e = p + strlen(p);
        int32_t v = 12345;
        CHECK_EQ_INT(smap_vlq_decode(&p, e, &v), 0);
        CHECK_EQ_INT(v, cases[i].v);
        CHECK(p == e);
    }
    const char *bad[] = {"", "g", "!", "gggggggA", "+//////D"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        const char *p = bad[i];
        int32_t v;
        CHECK_EQ_INT(smap_vlq_decode(&p, p + strlen(p), &v), -1);
    }
    size_t n;
    char *d = smap_base64_decode("eyJhIjoxfQ==", 12, &n);
    CHECK_STR(d, "{\"a\":1}");
    CHECK_EQ_INT(n, 7);
    free(d);
    CHECK(smap_base64_decode("ab$c", 4, &n) == NULL);
}

static smap_t *parse(const char *json) { return smap_parse("test.map", "/maps", json, strlen(json)); }

static void test_lookup(void)
{
    /* segments at columns 0, 2 (name n), 2, 2 (no source), 4 */
    smap_t *m = parse("{\"version\":3,\"sourceRoot\":\"src\",\"sources\":[\"x.ts\",\"/abs/y.ts\",\"webpack://app/./z.ts\"],"
                      "\"sourcesContent\":[\"let x\"],\"names\":[\"n\"],\"mappings\":\"AAAA,EAAEA,AAAE,A,EAAE;;CCCA,ECCA\","
                      "\"x_google_ignoreList\":[1]}");
    CHECK(m != NULL);
    if (!m) return;
    smap_pos_t p;
    static const struct { int col, rc, ocol; const char *name; } l0[] = {
        {0, 1, 0, NULL}, {1, 1, 0, NULL}, {2, 1, 2, "n"}, {3, 0, 0, NULL}, {4, 1, 6, NULL}, {99, 1, 6, NULL},
    };
    for (size_t i = 0; i < sizeof l0 / sizeof *l0; i++) {
        memset(&p, 0, sizeof p);
        CHECK_EQ_INT(smap_lookup(m, 0, l0[i].col, &p), l0[i].rc);
        if (l0[i].rc != 1) continue;
        CHECK_STR(p.source, "/maps/src/x.ts");
        CHECK_STR(p.content, "let x");
        CHECK_EQ_INT(p.line, 0);
        CHECK_EQ_INT(p.column, l0[i].ocol);
        CHECK(l0[i].name ? p.name && !strcmp(p.name, l0[i].name) : p.name == NULL);
        CHECK_EQ_INT(p.ignored, 0);
    }
    CHECK_EQ_INT(smap_lookup(m, 1, 0, &p), 0);    /* an empty line: no fallback to the line above */
    CHECK_EQ_INT(smap_lookup(m, 2, 1, &p), 1);
    CHECK_STR(p.source, "/maps/src/abs/y.ts");   /* sourceRoot applies to absolute sources too */
    CHECK_EQ_INT(p.ignored, 1);
    CHECK(p.content == NULL);
    CHECK_EQ_INT(smap_lookup(m, 2, 3, &p), 1);
    CHECK_STR(p.source, "/maps/src/webpack:/app/z.ts");   /* as trace-mapping: sourceRoot + "/" + source */
    CHECK_EQ_INT(smap_lookup(m, 2, 0, &p), 0);    /* before the line's first segment */
    CHECK_EQ_INT(smap_lookup(m, 3, 0, &p), 0);    /* past the last line */
    int32_t ol;
    CHECK_EQ_INT(smap_line(m, 2, NULL, &ol), 1);
    CHECK_EQ_INT(ol, 1);
    CHECK_EQ_INT(smap_generated_lines(m), 3);
    smap_free(m);
}

static void test_index_map(void)
{
    smap_t *m = parse("{\"version\":3,\"file\":\"gen.js\",\"sections\":["
                      "{\"offset\":{\"line\":0,\"column\":0},\"map\":{\"version\":3,\"sources\":[\"a.ts\"],\"names\":[\"alpha\"],"
                      "\"mappings\":\"AAAA,IAAIA;AACA\",\"ignoreList\":[0]}},"
                      "{\"offset\":{\"line\":0,\"column\":20},\"map\":{\"version\":3,\"sourceRoot\":\"lib/\",\"sources\":[\"b.ts\"],"
                      "\"sourcesContent\":[\"x\"],\"names\":[],\"mappings\":\"AAAA;;AAEA\"}},"
                      "{\"offset\":{\"line\":9,\"column\":0},\"map\":{\"version\":3,\"sources\":[\"c.ts\"],\"names\":[],\"mappings\":\"AAAA\"}}]}");
    CHECK(m != NULL);
    if (!m) return;
    CHECK_EQ_INT(smap_decoded_count(m), 0);
    smap_pos_t p;
    CHECK_EQ_INT(smap_lookup(m, 0, 25, &p), 1);   /* section 2 alone */
    CHECK_STR(p.source, "/maps/lib/b.ts");
    CHECK_EQ_INT(p.line, 0);
    CHECK_EQ_INT(smap_decoded_count(m), 1);       /* lazily: the others stay undecoded */
    CHECK_EQ_INT(smap_lookup(m, 2, 3, &p), 1);
    CHECK_EQ_INT(p.line, 2);
    CHECK_EQ_INT(smap_lookup(m, 0, 2, &p), 1);
    CHECK_STR(p.source, "/maps/a.ts");
    CHECK_EQ_INT(p.column, 0);
    CHECK_EQ_INT(smap_lookup(m, 0, 10, &p), 1);
    CHECK_STR(p.name, "alpha");
    CHECK_EQ_INT(p.column, 4);
    CHECK_EQ_INT(p.ignored, 1);
    CHECK_EQ_INT(smap_lookup(m, 0, 19, &p), 1);
    CHECK_STR(p.name, "alpha");
    CHECK_EQ_INT(smap_lookup(m, 1, 0, &p), 0);    /* the first section's line 1 is past the second's start */
    CHECK_EQ_INT(smap_decoded_count(m), 2);
    smap_free(m);
}

static void test_bad(void)
{
    int saved = diag_verbosity;
    diag_verbosity = -1;
    const char *bad[] = {
        "", "[]", "{\"version\":3,\"sources\":[],\"names\":[]}", "{\"version\":2,\"sources\":[],\"mappings\":\"\"}",
        "{\"version\":3,\"sources\":[1],\"mappings\":\"\"}", "{\"version\":3,\"mappings\":\"AAAA\"", "{\"version\":3,\"mappings\":\"\"} x",
        "{\"version\":3,\"sections\":[{\"offset\":{\"line\":1,\"column\":0},\"map\":{\"version\":3,\"mappings\":\"\"}},"
        "{\"offset\":{\"line\":0,\"column\":0},\"map\":{\"version\":3,\"mappings\":\"\"}}]}",
        "{\"version\":3,\"sections\":[{\"offset\":{\"line\":0,\"column\":0},\"url\":\"x.map\"}]}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        smap_t *m = parse(bad[i]);
        if (m) fprintf(stderr, "accepted bad map %zu\n", i);
        CHECK(m == NULL);
        smap_free(m);
    }
    /* bad mappings are found on the first lookup: every lookup then says so */
    const char *bad_mappings[] = {"AAAA,ACAA", "AAAA,+/+/+/+/+/A", "AA", "AAAAAA", "AAAA,AAAF,AAAD", "D"};
    for (size_t i = 0; i < sizeof bad_mappings / sizeof *bad_mappings; i++) {
        char json[256];
        snprintf(json, sizeof json, "{\"version\":3,\"sources\":[\"a.ts\"],\"names\":[],\"mappings\":\"%s\"}", bad_mappings[i]);
        smap_t *m = parse(json);
        CHECK(m != NULL);
        smap_pos_t p;
        if (m) CHECK_EQ_INT(smap_lookup(m, 0, 0, &p), -1);
        if (m) CHECK_EQ_INT(smap_lookup(m, 0, 0, &p), -1);
        smap_free(m);
    }
    diag_verbosity = saved;
    CHECK_EQ_INT(diag_error_count(), 0);   /* a bad map is a warning, never an error */
}

int main(void)
{
    test_vlq();
    test_lookup();
    test_index_map();
    test_bad();
    return check_summary("test_sourcemap");
}
