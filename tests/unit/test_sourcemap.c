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
    static const struct {
        const char *s;
        int32_t v;
    } cases[] = {
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
    smap_t *m =
        parse("{\"version\":3,\"sourceRoot\":\"src\",\"sources\":[\"x.ts\",\"/abs/y.ts\",\"webpack://app/./z.ts\"],"
              "\"sourcesContent\":[\"let x\"],\"names\":[\"n\"],\"mappings\":\"AAAA,EAAEA,AAAE,A,EAAE;;CCCA,ECCA\","
              "\"x_google_ignoreList\":[1]}");
    CHECK(m != NULL);
    if (!m) return;
    smap_pos_t p;
    static const struct {
        int col, rc, ocol;
        const char *name;
    } l0[] = {
        {0, 1, 0, NULL}, {1, 1, 0, NULL}, {2, 1, 2, "n"}, {3, 0, 0, NULL}, {4, 1, 6, NULL}, {99, 1, 6, NULL},
    };
    for (size_t i = 0; i < sizeof l0 / sizeof *l0; i++) {
        memset(&p, 0, sizeof p);
        CHECK_EQ_INT(smap_lookup(m, 0, l0[i].col, &p), l0[i].rc);
        if (l0[i].rc != 1) continue;
        CHECK_STR(p.source, "/maps/src/x.ts");
        CHECK_STR(smap_pos_content(&p), "let x");
        CHECK_EQ_INT(p.line, 0);
        CHECK_EQ_INT(p.column, l0[i].ocol);
        CHECK(l0[i].name ? p.name && !strcmp(p.name, l0[i].name) : p.name == NULL);
        CHECK_EQ_INT(p.ignored, 0);
    }
    CHECK_EQ_INT(smap_lookup(m, 1, 0, &p), 0); /* an empty line: no fallback to the line above */
    CHECK_EQ_INT(smap_lookup(m, 2, 1, &p), 1);
    CHECK_STR(p.source, "/maps/src/abs/y.ts"); /* sourceRoot applies to absolute sources too */
    CHECK_EQ_INT(p.ignored, 1);
    CHECK(smap_pos_content(&p) == NULL);
    CHECK_EQ_INT(smap_lookup(m, 2, 3, &p), 1);
    CHECK_STR(p.source, "/maps/src/webpack:/app/z.ts"); /* as trace-mapping: sourceRoot + "/" + source */
    CHECK_EQ_INT(smap_lookup(m, 2, 0, &p), 0);          /* before the line's first segment */
    CHECK_EQ_INT(smap_lookup(m, 3, 0, &p), 0);          /* past the last line */
    int32_t ol;
    CHECK_EQ_INT(smap_line(m, 2, NULL, &ol), 1);
    CHECK_EQ_INT(ol, 1);
    CHECK_EQ_INT(smap_generated_lines(m), 3);
    smap_free(m);
}

static void test_index_map(void)
{
    smap_t *m = parse(
        "{\"version\":3,\"file\":\"gen.js\",\"sections\":["
        "{\"offset\":{\"line\":0,\"column\":0},\"map\":{\"version\":3,\"sources\":[\"a.ts\"],\"names\":[\"alpha\"],"
        "\"mappings\":\"AAAA,IAAIA;AACA\",\"ignoreList\":[0]}},"
        "{\"offset\":{\"line\":0,\"column\":20},\"map\":{\"version\":3,\"sourceRoot\":\"lib/\",\"sources\":[\"b.ts\"],"
        "\"sourcesContent\":[\"x\"],\"names\":[],\"mappings\":\"AAAA;;AAEA\"}},"
        "{\"offset\":{\"line\":9,\"column\":0},\"map\":{\"version\":3,\"sources\":[\"c.ts\"],\"names\":[],\"mappings\":"
        "\"AAAA\"}}]}");
    CHECK(m != NULL);
    if (!m) return;
    CHECK_EQ_INT(smap_decoded_count(m), 0);
    smap_pos_t p;
    CHECK_EQ_INT(smap_lookup(m, 0, 25, &p), 1); /* section 2 alone */
    CHECK_STR(p.source, "/maps/lib/b.ts");
    CHECK_EQ_INT(p.line, 0);
    CHECK_EQ_INT(smap_decoded_count(m), 1); /* lazily: the others stay undecoded */
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
    CHECK_EQ_INT(smap_lookup(m, 1, 0, &p), 0); /* the first section's line 1 is past the second's start */
    CHECK_EQ_INT(smap_decoded_count(m), 2);
    smap_free(m);
}

/* Strings are kept as written until used: escapes undone on use (names, sources, content). */
static void test_strings(void)
{
    smap_t *m = parse(")]}'\n{\"version\":3,\"x_other\":{\"a\":[1,{\"b\":null},true,false,-1.5e3,\"\\\"\"]},"
                      "\"sources\":[\"d\\u00e9j\\u00e0\\/v\\u0075.ts\",null],"
                      "\"sourcesContent\":[\"line1\\nline2\\t\\\"q\\\" \\ud83d\\ude00 \\ud800!\",null],"
                      "\"names\":[\"plain\",\"esc\\u0061ped\"],\"mappings\":\"AAAAA,CAACC,CCAAD\"}");
    CHECK(m != NULL);
    if (!m) return;
    smap_pos_t p;
    CHECK_EQ_INT(smap_lookup(m, 0, 0, &p), 1);
    CHECK_STR(p.source, "/maps/d\xc3\xa9j\xc3\xa0/vu.ts");
    CHECK_STR(p.name, "plain");
    CHECK_STR(smap_pos_content(&p), "line1\nline2\t\"q\" \xf0\x9f\x98\x80 \xef\xbf\xbd!");
    CHECK_EQ_INT(smap_lookup(m, 0, 1, &p), 1);
    CHECK_STR(p.name, "escaped");
    CHECK_EQ_INT(smap_lookup(m, 0, 2, &p), 1);
    CHECK_STR(p.source, "/maps"); /* a null source: "" resolved against the map's directory */
    CHECK(smap_pos_content(&p) == NULL);
    smap_free(m);
}

/* Lines are decoded as far as lookups need: a lookup on line 1 of 4 decodes lines 0 and 1. */
static void test_lazy_lines(void)
{
    smap_t *m =
        parse("{\"version\":3,\"sources\":[\"a.ts\",\"b.ts\"],\"names\":[],\"mappings\":\"AAAA;ACCA;AAEA;ADAA,C\"}");
    CHECK(m != NULL);
    if (!m) return;
    CHECK_EQ_INT(smap_decoded_lines(m), 0);
    CHECK_EQ_INT(smap_generated_lines(m), 4); /* from the text: nothing decoded */
    CHECK_EQ_INT(smap_decoded_lines(m), 0);
    smap_pos_t p;
    CHECK_EQ_INT(smap_lookup(m, 1, 0, &p), 1);
    CHECK_STR(p.source, "/maps/b.ts");
    CHECK_EQ_INT(p.line, 1);
    CHECK_EQ_INT(smap_decoded_lines(m), 2);
    CHECK_EQ_INT(smap_lookup(m, 0, 5, &p), 1); /* already decoded */
    CHECK_EQ_INT(smap_decoded_lines(m), 2);
    CHECK_EQ_INT(smap_lookup(m, 3, 0, &p), 1); /* the state carried over lines 1 and 2 */
    CHECK_STR(p.source, "/maps/a.ts");
    CHECK_EQ_INT(p.line, 3);
    CHECK_EQ_INT(smap_lookup(m, 3, 1, &p), 0); /* a 1-field segment: no source */
    CHECK_EQ_INT(smap_decoded_lines(m), 4);
    CHECK_EQ_INT(smap_lookup(m, 9, 0, &p), 0);
    smap_free(m);
}

/* Sections with a "url": loaded through the loader on first use, once; a failing or cyclic
 * one leaves its frames unmapped. */
typedef struct {
    smap_t *maps[4];
    int calls;
    char urls[4][64];
} loader_t;

static smap_t *test_loader(void *ctx, const smap_t *index_map, const char *url)
{
    (void)index_map;
    loader_t *l = ctx;
    int i = l->calls++;
    snprintf(l->urls[i & 3], sizeof l->urls[0], "%s", url);
    if (!strcmp(url, "/maps/sub/b.js.map") && !l->maps[0]) {
        static const char b[] =
            "{\"version\":3,\"sources\":[\"b.ts\"],\"names\":[\"beta\"],\"mappings\":\"AAAAA;AACA\"}";
        l->maps[0] = smap_parse("sub/b.js.map", "/maps/sub", b, strlen(b));
    }
    if (!strcmp(url, "/maps/sub/b.js.map")) return l->maps[0];
    if (!strcmp(url, "/maps/self.map")) { /* an index map whose section names itself */
        if (!l->maps[1]) {
            l->maps[1] =
                parse("{\"version\":3,\"sections\":[{\"offset\":{\"line\":0,\"column\":0},\"url\":\"self.map\"}]}");
            if (l->maps[1]) smap_set_loader(l->maps[1], test_loader, l);
        }
        return l->maps[1];
    }
    return NULL;
}

static void test_url_sections(void)
{
    smap_t *m = parse("{\"version\":3,\"sections\":["
                      "{\"offset\":{\"line\":0,\"column\":0},\"url\":\"sub/b.js.map\"},"
                      "{\"offset\":{\"line\":5,\"column\":0},\"url\":\"missing.map\"},"
                      "{\"offset\":{\"line\":6,\"column\":0},\"url\":\"file:///maps/self.map\"},"
                      "{\"offset\":{\"line\":7,\"column\":0},\"map\":{\"version\":3,\"sources\":[\"c.ts\"],"
                      "\"mappings\":\"AAAA\"}}]}");
    CHECK(m != NULL);
    if (!m) return;
    smap_pos_t p;
    CHECK_EQ_INT(smap_lookup(m, 0, 0, &p), 0); /* no loader yet: url sections are unmapped */
    loader_t l;
    memset(&l, 0, sizeof l);
    smap_set_loader(m, test_loader, &l);
    CHECK_EQ_INT(smap_decoded_count(m), 0);
    CHECK_EQ_INT(smap_lookup(m, 7, 3, &p), 1); /* the inline section alone: nothing loaded */
    CHECK_STR(p.source, "/maps/c.ts");
    CHECK_EQ_INT(l.calls, 0);
    CHECK_EQ_INT(smap_lookup(m, 1, 4, &p), 1);
    CHECK_STR(p.source, "/maps/sub/b.ts"); /* relative to the url map's own directory */
    CHECK_EQ_INT(p.line, 1);
    CHECK_EQ_INT(l.calls, 1);
    CHECK_STR(l.urls[0], "/maps/sub/b.js.map");
    CHECK_EQ_INT(smap_lookup(m, 0, 0, &p), 1);
    CHECK_STR(p.name, "beta");
    CHECK_EQ_INT(l.calls, 1);                  /* loaded once */
    CHECK_EQ_INT(smap_lookup(m, 5, 0, &p), 0); /* the loader has none */
    CHECK_EQ_INT(smap_lookup(m, 5, 0, &p), 0);
    CHECK_EQ_INT(l.calls, 2);
    CHECK_EQ_INT(smap_lookup(m, 6, 0, &p), 0); /* a cycle ends, unmapped */
    int32_t ol;
    CHECK_EQ_INT(smap_line(m, 6, NULL, &ol), 0);
    CHECK_EQ_INT(smap_decoded_count(m), 2);
    smap_free(m);
    smap_free(l.maps[0]);
    smap_free(l.maps[1]);
}

static void test_bad(void)
{
    int saved = diag_verbosity;
    diag_verbosity = -1;
    const char *bad[] = {
        "",
        "[]",
        "{\"version\":3,\"sources\":[],\"names\":[]}",
        "{\"version\":2,\"sources\":[],\"mappings\":\"\"}",
        "{\"version\":3,\"sources\":[1],\"mappings\":\"\"}",
        "{\"version\":3,\"mappings\":\"AAAA\"",
        "{\"version\":3,\"mappings\":\"\"} x",
        "{\"version\":3,\"sections\":[{\"offset\":{\"line\":1,\"column\":0},\"map\":{\"version\":3,\"mappings\":\"\"}},"
        "{\"offset\":{\"line\":0,\"column\":0},\"map\":{\"version\":3,\"mappings\":\"\"}}]}",
        "{\"version\":3,\"sections\":[{\"offset\":{\"line\":0,\"column\":0},\"url\":\"x.map\",\"map\":{}}]}",
        "{\"version\":3,\"sections\":[{\"offset\":{\"line\":0,\"column\":0}}]}",
        "{\"version\":3,\"sources\":[\"a\\x\"],\"mappings\":\"\"}",
        "{\"version\":3,\"sources\":[\"\\u12\"],\"mappings\":\"\"}",
        "{\"version\":3,\"sources\":[\"a\nb\"],\"mappings\":\"\"}",
        "{\"version\":3,\"mappings\":\"\",}",
        "{\"version\":3,\"mappings\":01}",
        "{\"version\":3,\"mappings\":\"\",\"x\":[1,]}",
        "{\"version\":3,\"mappings\":\"\",\"x\":tru}",
        "{\"version\":3 \"mappings\":\"\"}",
        "{\"version\":3,\"mappings\":\"\",\"x\":\"",
        "{\"version\":3,\"mappings\":\"\",\"x\":-}",
        "{\"version\":3,\"mappings\":\"\",\"x\":1e999}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        smap_t *m = parse(bad[i]);
        if (m) fprintf(stderr, "accepted bad map %zu\n", i);
        CHECK(m == NULL);
        smap_free(m);
    }
    /* bad mappings are found on the first lookup: every lookup then says so */
    const char *bad_mappings[] = {"AAAA,ACAA", "AAAA,+/+/+/+/+/A", "AA", "AAAAAA", "AAAA,AAAF,AAAD", "D", "+/////H"};
    for (size_t i = 0; i < sizeof bad_mappings / sizeof *bad_mappings; i++) {
        char json[256];
        snprintf(json, sizeof json, "{\"version\":3,\"sources\":[\"a.ts\"],\"names\":[],\"mappings\":\"%s\"}",
                 bad_mappings[i]);
        smap_t *m = parse(json);
        CHECK(m != NULL);
        smap_pos_t p;
        if (m) CHECK_EQ_INT(smap_lookup(m, 0, 0, &p), -1);
        if (m) CHECK_EQ_INT(smap_lookup(m, 0, 0, &p), -1);
        smap_free(m);
    }
    diag_verbosity = saved;
    CHECK_EQ_INT(diag_error_count(), 0); /* a bad map is a warning, never an error */
}

int main(void)
{
    test_vlq();
    test_lookup();
    test_index_map();
    test_strings();
    test_lazy_lines();
    test_url_sections();
    test_bad();
    return check_summary("test_sourcemap");
}
