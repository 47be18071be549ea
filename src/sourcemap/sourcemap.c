#include "sourcemap/sourcemap.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Index maps nest; deeper than this is not a bundler's output but an attack on the stack. */
#define MAX_NESTING 8
/* Nesting of the JSON values a map's unknown members hold (as util/json's bound). */
#define MAX_JSON_DEPTH 512
/* Offsets into a map's text are 32 bits (the cache reads no file over 1 GiB). */
#define MAX_TEXT ((size_t)1 << 31)

/* A JSON string's body in the map's text, as written (escapes not undone). */
typedef struct {
    uint32_t off, len;
} span_t;
#define SPAN_ESC 0x80000000u   /* in len: the body has escapes */
#define SPAN_NULL UINT32_MAX   /* in off: a JSON null */

typedef struct {
    int32_t src, oline, ocol, name;   /* src -1: a segment with no source (1 field); name -1: none */
} seg_t;

typedef struct {
    int32_t line, column;   /* the section's offset in the generated file */
    smap_t *map;            /* NULL: a url section not loaded (yet) */
    char *url;              /* a url section's map, resolved; NULL for an inline map */
    int loaded;             /* the url was given to the loader */
} section_t;

struct smap {
    char *name;             /* the map, for messages */
    char *text;             /* the JSON, NUL-terminated; owned by the outermost map */
    int owns_text;
    /* a regular map */
    char **sources;
    uint8_t *ignored;
    size_t nsources;
    span_t *contents, *names;
    char **contents_dec, **names_dec;   /* unescaped on first use */
    size_t ncontents, nnames;
    const char *mappings;   /* in text (or mappings_owned when the JSON string had escapes) */
    char *mappings_owned;
    size_t mappings_len;
    int32_t gen_lines;      /* smap_generated_lines, -1 until computed */
    /* the decoded prefix of the mappings: lines [0, nlines) */
    const char *dp;         /* the next line's first byte; NULL when all are decoded */
    int64_t acc_src, acc_oline, acc_ocol, acc_name;   /* VLQ fields are relative across lines */
    int bad;                /* the mappings are bad (warned): every lookup says so */
    int started;
    uint32_t *line_start;   /* nlines + 1 entries into gcols/segs */
    size_t nlines, lines_cap;
    int32_t *gcols;         /* generated columns apart, for a binary search that stays in cache */
    seg_t *segs;
    size_t nsegs, segs_cap;
    void *region;           /* gcols and segs, one allocation (see region_alloc) */
    size_t region_len;
    /* an index map */
    int is_index;
    section_t *sections;
    size_t nsections;
    smap_loader_fn loader;
    void *loader_ctx;
    int busy;               /* being looked into: a url section naming its own index map is a cycle */
};

static void region_free(smap_t *m);

/* ---- VLQ and base64 ---- */

static const char b64_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static signed char b64_val[256];
static int b64_ready;

static void b64_init(void)
{
    if (b64_ready) return;
    memset(b64_val, -1, sizeof b64_val);
    for (int i = 0; i < 64; i++) b64_val[(unsigned char)b64_chars[i]] = (signed char)i;
    b64_ready = 1;
}

int smap_vlq_decode(const char **pp, const char *e, int32_t *out)
{
    b64_init();
    const char *p = *pp;
    uint64_t v = 0;
    int shift = 0;
    for (;;) {
        if (p == e) return -1;
        int d = b64_val[(unsigned char)*p++];
        if (d < 0) return -1;
        v |= (uint64_t)(d & 31) << shift;
        if (!(d & 32)) break;
        shift += 5;
        if (shift > 30) return -1;   /* more than 32 bits of value */
    }
    /* the lowest bit is the sign */
    int64_t s = (int64_t)(v >> 1);
    if (v & 1) s = -s;
    if (s > INT32_MAX || s < -INT32_MAX) return -1;
    *out = (int32_t)s;
    *pp = p;
    return 0;
}

char *smap_base64_decode(const char *s, size_t n, size_t *out_len)
{
    b64_init();
    while (n && s[n - 1] == '=') n--;
    if (n % 4 == 1) return NULL;
    char *out = xmalloc(n / 4 * 3 + 3);
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        int d = b64_val[(unsigned char)s[i]];
        if (d < 0) return free(out), NULL;
        acc = acc << 6 | (uint32_t)d;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (char)(acc >> bits & 0xff);
        }
    }
    out[o] = 0;
    *out_len = o;
    return out;
}

/* ---- paths ---- */

/* Removes "." and ".." segments and doubled slashes from a path, in place. */
static void normalize_path(char *s)
{
    size_t n = strlen(s);
    int absolute = s[0] == '/';
    size_t base = absolute, o = base;   /* out: s[0..o), segments joined by '/' after base */
    for (size_t i = 0; i < n;) {
        size_t e = i;
        while (e < n && s[e] != '/') e++;
        size_t len = e - i;
        if (len == 0 || (len == 1 && s[i] == '.')) {
            /* nothing */
        } else if (len == 2 && s[i] == '.' && s[i + 1] == '.' && (o > base || absolute)) {
            while (o > base && s[o - 1] != '/') o--;
            if (o > base) o--;   /* the slash before the dropped segment */
        } else {
            if (o > base) s[o++] = '/';
            memmove(s + o, s + i, len);
            o += len;
        }
        i = e + 1;
    }
    s[o] = 0;
}

static int has_scheme(const char *s)
{
    const char *p = s;
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))) return 0;
    while (*p && (strchr("+-.", *p) || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
        p++;
    return *p == ':' && p - s > 1;   /* "C:" is a drive, not a scheme */
}

/* sourceRoot + source, resolved against dir: an absolute path (file:// stripped) when it is
 * a local file, else the URL as given ("webpack://app/./src/a.ts"). */
static char *resolve_source(const char *dir, const char *root, const char *src)
{
    buf_t b = {0};
    /* as trace-mapping resolves: sourceRoot + '/' + source, even when source is absolute */
    if (root && *root) {
        buf_puts(&b, root);
        if (b.data[b.len - 1] != '/' && *src) buf_putc(&b, '/');
    }
    buf_puts(&b, src);
    if (!b.data) buf_puts(&b, "");
    char *s = b.data;
    if (!strncmp(s, "file://", 7)) {
        char *r = xstrdup(s + 7);
        free(s);
        normalize_path(r);
        return r;
    }
    if (has_scheme(s)) return s;
    if (s[0] != '/' && dir && *dir) {
        buf_t r = {0};
        buf_puts(&r, dir);
        buf_putc(&r, '/');
        buf_puts(&r, s);
        free(s);
        s = r.data;
    }
    if (s[0] == '/') normalize_path(s);
    return s;
}

/* ---- scanning the JSON ----
 *
 * A map is held whole in memory, and most of its bytes are two strings that are used
 * in place: `mappings` (decoded straight from the text) and `sourcesContent` (unescaped only
 * when shown). util/json's streaming tokenizer copies every string it returns (17 MB for a
 * big bundle's map, most of the parse time), so a map is scanned here in place instead:
 * the same JSON grammar, strings kept as spans of the text. */

typedef struct {
    const char *base, *p, *e;   /* the text; e[0] == 0 */
    const char *dir;
    buf_t err;
} parser_t;

/* Bytes that end a run of plain string characters: '"', '\\', control characters (NUL too,
 * so text[n] == 0 stops a run at the end without a bounds check in the loop). */
static uint8_t str_stop[256];
static int str_stop_ready;

static int perr(parser_t *ps, const char *msg)
{
    if (ps->err.len) return -1;
    long line = 1;   /* counted only now: a bad map is rare */
    for (const char *q = ps->base; (q = memchr(q, '\n', (size_t)(ps->p - q))); q++) line++;
    buf_printf(&ps->err, "line %ld: %s", line, msg);
    return -1;
}

/* The message for a map that is valid JSON but not a source map (no byte offset). */
static int merr(parser_t *ps, const char *msg)
{
    if (!ps->err.len) buf_puts(&ps->err, msg);
    return -1;
}

/* The next non-space byte (not consumed), or -1 at the end. */
static int peek(parser_t *ps)
{
    while (ps->p < ps->e && (*ps->p == ' ' || *ps->p == '\n' || *ps->p == '\r' || *ps->p == '\t')) ps->p++;
    return ps->p < ps->e ? (unsigned char)*ps->p : -1;
}

static int expect(parser_t *ps, char c, const char *msg)
{
    if (peek(ps) != c) return perr(ps, msg);
    ps->p++;
    return 0;
}

static int hexdigit(int c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* A string at *p == '"': its body's span, escapes checked (not undone). */
static int scan_string(parser_t *ps, span_t *out)
{
    if (!str_stop_ready) {
        for (int c = 0; c < 0x20; c++) str_stop[c] = 1;
        str_stop['"'] = str_stop['\\'] = 1;
        str_stop_ready = 1;
    }
    const char *s = ++ps->p, *p = s;
    uint32_t esc = 0;
    for (;;) {
        /* eight bytes at a time while none of them is '"', '\\' or below 0x20 (sourcesContent
         * is most of a map's bytes) */
        while (ps->e - p >= 8) {
            uint64_t x;
            memcpy(&x, p, 8);
            const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
            uint64_t q = x ^ (ones * '"'), b = x ^ (ones * '\\');
            if (((q - ones) & ~q & highs) | ((b - ones) & ~b & highs) | ((x - ones * 0x20) & ~x & highs)) break;
            p += 8;
        }
        while (!str_stop[(unsigned char)*p]) p++;
        if (p >= ps->e) return ps->p = ps->e, perr(ps, "unterminated string");
        if (*p == '"') break;
        if (*p != '\\') return ps->p = p, perr(ps, "control character inside a string");
        esc = SPAN_ESC;
        if (p + 1 >= ps->e) return ps->p = p, perr(ps, "unterminated string");
        char c = p[1];
        if (c == 'u') {
            for (int i = 2; i < 6; i++)
                if (p + i >= ps->e || hexdigit((unsigned char)p[i]) < 0) return ps->p = p, perr(ps, "bad \\u escape");
            p += 6;
        } else if (c && strchr("\"\\/bfnrt", c)) {
            p += 2;
        } else {
            return ps->p = p, perr(ps, "bad escape in a string");
        }
    }
    out->off = (uint32_t)(s - ps->base);
    out->len = (uint32_t)(p - s) | esc;
    ps->p = p + 1;
    return 0;
}

static unsigned hex4(const char *s)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) v = v << 4 | (unsigned)hexdigit((unsigned char)s[i]);
    return v;
}

/* A span's string, escapes undone (they were checked by scan_string); malloc'ed. */
static char *span_str(const char *base, span_t sp)
{
    const char *s = base + sp.off;
    size_t n = sp.len & ~SPAN_ESC;
    if (!(sp.len & SPAN_ESC)) return xstrndup(s, n);
    buf_t b = {0};
    buf_append(&b, "", 0);
    for (size_t i = 0; i < n;) {
        size_t r = i;
        while (r < n && s[r] != '\\') r++;
        buf_append(&b, s + i, r - i);
        if (r == n) break;
        char c = s[r + 1];
        i = r + 2;
        switch (c) {
        case 'b': buf_putc(&b, '\b'); break;
        case 'f': buf_putc(&b, '\f'); break;
        case 'n': buf_putc(&b, '\n'); break;
        case 'r': buf_putc(&b, '\r'); break;
        case 't': buf_putc(&b, '\t'); break;
        case 'u': {
            unsigned cp = hex4(s + r + 2);
            i = r + 6;
            if (cp >= 0xD800 && cp <= 0xDBFF && i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u') {
                unsigned lo = hex4(s + i + 2);
                if (lo >= 0xDC00 && lo <= 0xDFFF) cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00), i += 6;
            }
            if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD;   /* a lone surrogate */
            buf_put_utf8(&b, cp);
            break;
        }
        default: buf_putc(&b, c); break;   /* '"', '\\', '/' */
        }
    }
    if (!b.data) return xstrdup("");
    return b.data;
}

static int scan_number(parser_t *ps, double *out)
{
    const char *s = ps->p, *p = s;
    if (*p == '-') p++;
    if (*p == '0') p++;
    else if (*p >= '1' && *p <= '9') while (*p >= '0' && *p <= '9') p++;
    else return perr(ps, "unexpected character");
    if (*p == '.') {
        if (!(*++p >= '0' && *p <= '9')) return ps->p = p, perr(ps, "malformed number");
        while (*p >= '0' && *p <= '9') p++;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!(*p >= '0' && *p <= '9')) return ps->p = p, perr(ps, "malformed number");
        while (*p >= '0' && *p <= '9') p++;
    }
    if (p > ps->e) return ps->p = ps->e, perr(ps, "unexpected end");   /* not reached: e[0] == 0 */
    char tmp[64];
    if ((size_t)(p - s) >= sizeof tmp) return perr(ps, "number too long");
    memcpy(tmp, s, (size_t)(p - s));
    tmp[p - s] = 0;
    *out = strtod(tmp, NULL);
    if (!isfinite(*out)) return perr(ps, "number out of range");
    ps->p = p;
    return 0;
}

static int scan_literal(parser_t *ps, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(ps->e - ps->p) < n || memcmp(ps->p, word, n)) return perr(ps, "unexpected character");
    ps->p += n;
    return 0;
}

static int skip_value(parser_t *ps, int depth);

/* Calls member(ps, key, ctx) at each member's value, after the object's '{'. */
static int scan_members(parser_t *ps, int depth, int (*member)(parser_t *, span_t, void *), void *ctx)
{
    if (peek(ps) == '}') return ps->p++, 0;
    for (;;) {
        span_t key;
        if (peek(ps) != '"') return perr(ps, "expected a member name");
        if (scan_string(ps, &key) != 0 || expect(ps, ':', "expected ':'") != 0) return -1;
        if (peek(ps) < 0) return perr(ps, "unexpected end (truncated JSON?)");
        if ((member ? member(ps, key, ctx) : skip_value(ps, depth + 1)) != 0) return -1;
        int c = peek(ps);
        ps->p++;
        if (c == '}') return 0;
        if (c != ',') return ps->p--, perr(ps, "expected ',' or '}'");
    }
}

static int skip_value(parser_t *ps, int depth)
{
    if (depth > MAX_JSON_DEPTH) return perr(ps, "nested too deeply");
    span_t sp;
    double d;
    switch (peek(ps)) {
    case '{': ps->p++; return scan_members(ps, depth, NULL, NULL);
    case '[':
        ps->p++;
        if (peek(ps) == ']') return ps->p++, 0;
        for (;;) {
            if (skip_value(ps, depth + 1) != 0) return -1;
            int c = peek(ps);
            ps->p++;
            if (c == ']') return 0;
            if (c != ',') return ps->p--, perr(ps, "expected ',' or ']'");
        }
    case '"': return scan_string(ps, &sp);
    case 't': return scan_literal(ps, "true");
    case 'f': return scan_literal(ps, "false");
    case 'n': return scan_literal(ps, "null");
    case -1: return perr(ps, "unexpected end (truncated JSON?)");
    default: return scan_number(ps, &d);
    }
}

/* An array's elements, after a check that the value is one: each with elem(ps, i, ctx). */
static int scan_array(parser_t *ps, const char *what, int (*elem)(parser_t *, size_t, void *), void *ctx)
{
    if (peek(ps) != '[') {
        buf_printf(&ps->err, "'%s' is not an array", what);
        return -1;
    }
    ps->p++;
    if (peek(ps) == ']') return ps->p++, 0;
    for (size_t i = 0;; i++) {
        if (elem(ps, i, ctx) != 0) return -1;
        int c = peek(ps);
        ps->p++;
        if (c == ']') return 0;
        if (c != ',') return ps->p--, perr(ps, "expected ',' or ']'");
    }
}

static int key_is(const parser_t *ps, span_t key, const char *word)
{
    size_t n = strlen(word);
    if (!(key.len & SPAN_ESC)) return key.len == n && !memcmp(ps->base + key.off, word, n);
    char *k = span_str(ps->base, key);
    int r = !strcmp(k, word);
    free(k);
    return r;
}

/* ---- the map's members ---- */

typedef struct {
    span_t *v;
    size_t n, cap;
    const char *what;
} spans_t;

static int string_elem(parser_t *ps, size_t i, void *ctx)
{
    (void)i;
    spans_t *a = ctx;
    span_t sp = {SPAN_NULL, 0};
    int c = peek(ps);
    if (c == '"') {
        if (scan_string(ps, &sp) != 0) return -1;
    } else if (c == 'n') {
        if (scan_literal(ps, "null") != 0) return -1;
    } else {
        if (!ps->err.len) buf_printf(&ps->err, "'%s' holds something other than strings", a->what);
        return -1;
    }
    XGROW(a->v, a->cap, a->n + 1);
    a->v[a->n++] = sp;
    return 0;
}

typedef struct {
    double *v;
    size_t n, cap;
} numbers_t;

static int number_elem(parser_t *ps, size_t i, void *ctx)
{
    (void)i;
    numbers_t *a = ctx;
    double d;
    if (peek(ps) == '-' || (peek(ps) >= '0' && peek(ps) <= '9')) {
        if (scan_number(ps, &d) != 0) return -1;
    } else {
        return merr(ps, "'ignoreList' holds something other than numbers");
    }
    XGROW(a->v, a->cap, a->n + 1);
    a->v[a->n++] = d;
    return 0;
}

typedef struct {
    smap_t *m;
    int depth;
    spans_t sources;
    span_t root;            /* sourceRoot; off SPAN_NULL: none */
    double version;         /* as read: any number, so no conversion can overflow */
    int has_version, has_mappings, has_sources, has_contents, has_names, has_sections;
    numbers_t ignore;
} map_ctx_t;

typedef struct {
    smap_t *parent;
    int depth;
    section_t sec;
    int has_offset;
} section_ctx_t;

static int map_member(parser_t *ps, span_t key, void *ctx);

static smap_t *new_map(const smap_t *parent)
{
    smap_t *m = xcalloc(1, sizeof *m);
    m->name = xstrdup(parent->name);
    m->text = parent->text;
    m->gen_lines = -1;
    return m;
}

/* The members of a map object, after its '{', into m. */
static int scan_map(parser_t *ps, smap_t *m, int depth)
{
    if (depth > MAX_NESTING) return merr(ps, "index maps nested too deeply");
    map_ctx_t mc = {.m = m, .depth = depth, .sources.what = "sources", .root.off = SPAN_NULL};
    int rc = scan_members(ps, depth, map_member, &mc);
    if (rc == 0 && (!mc.has_version || mc.version != 3)) {
        if (mc.has_version) buf_printf(&ps->err, "version is %g, not 3", mc.version);
        else merr(ps, "no 'version'");
        rc = -1;
    }
    if (rc == 0 && m->is_index && mc.has_mappings) rc = merr(ps, "an index map with 'mappings'");
    if (rc == 0 && !m->is_index && !mc.has_mappings) rc = merr(ps, "no 'mappings'");
    if (rc == 0) {
        char *root = mc.root.off != SPAN_NULL ? span_str(ps->base, mc.root) : NULL;
        size_t n = mc.sources.n;
        m->nsources = n;
        m->sources = xcalloc(n ? n : 1, sizeof *m->sources);
        m->ignored = xcalloc(n ? n : 1, 1);
        for (size_t i = 0; i < n; i++) {
            span_t sp = mc.sources.v[i];
            char *raw = sp.off == SPAN_NULL ? xstrdup("") : span_str(ps->base, sp);
            m->sources[i] = resolve_source(ps->dir, root, raw);
            free(raw);
        }
        for (size_t i = 0; i < mc.ignore.n; i++)
            if (mc.ignore.v[i] >= 0 && mc.ignore.v[i] < (double)n) m->ignored[(size_t)mc.ignore.v[i]] = 1;
        free(root);
    }
    free(mc.sources.v);
    free(mc.ignore.v);
    return rc;
}

static int offset_member(parser_t *ps, span_t key, void *ctx)
{
    section_ctx_t *sc = ctx;
    int is_line = key_is(ps, key, "line"), is_col = key_is(ps, key, "column");
    if (!is_line && !is_col) return skip_value(ps, sc->depth + 2);
    double v;
    int c = peek(ps);
    if (!(c == '-' || (c >= '0' && c <= '9'))) return merr(ps, "a section's offset is not a number");
    if (scan_number(ps, &v) != 0) return -1;
    if (!(v >= 0 && v <= INT32_MAX) || v != (int32_t)v) return merr(ps, "a section's offset is out of range");
    if (is_line) sc->sec.line = (int32_t)v;
    else sc->sec.column = (int32_t)v;
    return 0;
}

static int section_member(parser_t *ps, span_t key, void *ctx)
{
    section_ctx_t *sc = ctx;
    if (key_is(ps, key, "offset")) {
        if (peek(ps) != '{') return merr(ps, "a section's offset is not an object");
        ps->p++;
        sc->has_offset = 1;
        return scan_members(ps, sc->depth + 1, offset_member, sc);
    }
    if (key_is(ps, key, "map")) {
        if (peek(ps) != '{' || sc->sec.map || sc->sec.url) return merr(ps, "a section's map is not an object, or it has two");
        ps->p++;
        sc->sec.map = new_map(sc->parent);
        return scan_map(ps, sc->sec.map, sc->depth + 1);
    }
    if (key_is(ps, key, "url")) {
        span_t sp;
        if (peek(ps) != '"' || sc->sec.map || sc->sec.url) return merr(ps, "a section's url is not a string, or it has two");
        if (scan_string(ps, &sp) != 0) return -1;
        char *raw = span_str(ps->base, sp);
        sc->sec.url = resolve_source(ps->dir, NULL, raw);
        free(raw);
        return 0;
    }
    return skip_value(ps, sc->depth + 1);
}

static int section_elem(parser_t *ps, size_t i, void *ctx)
{
    (void)i;
    section_ctx_t *sc = ctx;
    smap_t *m = sc->parent;
    if (peek(ps) != '{') return merr(ps, "a section is not an object");
    ps->p++;
    sc->sec = (section_t){-1, -1, NULL, NULL, 0};
    sc->has_offset = 0;
    if (scan_members(ps, sc->depth, section_member, sc) != 0) goto fail;
    if (sc->sec.line < 0 || sc->sec.column < 0 || (!sc->sec.map && !sc->sec.url)) {
        merr(ps, "a section lacks its offset, or its map or url");
        goto fail;
    }
    if (m->nsections) {
        const section_t *prev = &m->sections[m->nsections - 1];
        if (sc->sec.line < prev->line || (sc->sec.line == prev->line && sc->sec.column < prev->column)) {
            merr(ps, "sections are not in order");
            goto fail;
        }
    }
    size_t cap = m->nsections;   /* grown one by one: sections are few */
    XGROW(m->sections, cap, m->nsections + 1);
    m->sections[m->nsections++] = sc->sec;
    return 0;
fail:
    smap_free(sc->sec.map);
    free(sc->sec.url);
    return -1;
}

static int map_member(parser_t *ps, span_t key, void *ctx)
{
    map_ctx_t *mc = ctx;
    smap_t *m = mc->m;
    int c = peek(ps);
    if (key_is(ps, key, "version")) {
        if (!(c == '-' || (c >= '0' && c <= '9'))) return merr(ps, "'version' is not a number");
        mc->has_version = 1;
        return scan_number(ps, &mc->version);
    }
    if (key_is(ps, key, "sourceRoot")) {
        if (c == 'n') return scan_literal(ps, "null");
        if (c != '"') return merr(ps, "'sourceRoot' is not a string");
        return scan_string(ps, &mc->root);
    }
    if (key_is(ps, key, "sources")) {
        if (mc->has_sources++) return merr(ps, "two 'sources'");
        return scan_array(ps, "sources", string_elem, &mc->sources);
    }
    if (key_is(ps, key, "sourcesContent")) {
        if (mc->has_contents++) return merr(ps, "two 'sourcesContent'");
        spans_t a = {.what = "sourcesContent"};
        int rc = scan_array(ps, "sourcesContent", string_elem, &a);
        m->contents = a.v, m->ncontents = a.n;
        return rc;
    }
    if (key_is(ps, key, "names")) {
        if (mc->has_names++) return merr(ps, "two 'names'");
        spans_t a = {.what = "names"};
        int rc = scan_array(ps, "names", string_elem, &a);
        m->names = a.v, m->nnames = a.n;
        return rc;
    }
    if (key_is(ps, key, "mappings")) {
        span_t sp;
        if (c != '"' || mc->has_mappings++) return merr(ps, "'mappings' is not a string, or there are two");
        if (scan_string(ps, &sp) != 0) return -1;
        if (sp.len & SPAN_ESC) {
            /* escapes in mappings are odd but valid JSON: decode a copy */
            m->mappings_owned = span_str(ps->base, sp);
            m->mappings = m->mappings_owned;
            m->mappings_len = strlen(m->mappings_owned);
        } else {
            m->mappings = ps->base + sp.off;
            m->mappings_len = sp.len;
        }
        return 0;
    }
    if (key_is(ps, key, "ignoreList") || key_is(ps, key, "x_google_ignoreList"))
        return scan_array(ps, "ignoreList", number_elem, &mc->ignore);
    if (key_is(ps, key, "sections")) {
        if (mc->has_sections++) return merr(ps, "two 'sections'");
        m->is_index = 1;
        section_ctx_t sc = {.parent = m, .depth = mc->depth};
        return scan_array(ps, "sections", section_elem, &sc);
    }
    return skip_value(ps, 1);
}

smap_t *smap_parse_owned(const char *name, const char *dir, char *text, size_t n)
{
    smap_t *m = xcalloc(1, sizeof *m);
    m->name = xstrdup(name);
    m->text = text;
    m->owns_text = 1;
    m->gen_lines = -1;
    parser_t ps = {.base = text, .p = text, .e = text + n, .dir = dir};
    int rc;
    if (n >= MAX_TEXT) {
        rc = merr(&ps, "larger than 2 GiB");
    } else {
        /* the spec's XSSI guard: a first line starting with )]}' is not part of the map */
        if (n >= 4 && !memcmp(text, ")]}'", 4)) {
            const char *nl = memchr(text, '\n', n);
            ps.p = nl ? nl + 1 : ps.e;
        }
        if (peek(&ps) != '{') rc = perr(&ps, "not a JSON object");
        else ps.p++, rc = scan_map(&ps, m, 0);
        if (rc == 0 && peek(&ps) >= 0) rc = perr(&ps, "trailing data after the map");
    }
    if (rc != 0) {
        diag_warn(name, 0, "bad source map, ignored: %s", ps.err.data ? ps.err.data : "malformed");
        smap_free(m);
        m = NULL;
    }
    buf_free(&ps.err);
    return m;
}

smap_t *smap_parse(const char *name, const char *dir, const char *data, size_t n)
{
    char *text = xmalloc(n + 1);
    memcpy(text, data, n);
    text[n] = 0;
    return smap_parse_owned(name, dir, text, n);
}

static void free_strings(char **v, size_t n)
{
    if (!v) return;
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

void smap_free(smap_t *m)
{
    if (!m) return;
    free_strings(m->sources, m->nsources);
    free_strings(m->contents_dec, m->ncontents);
    free_strings(m->names_dec, m->nnames);
    free(m->contents);
    free(m->names);
    free(m->ignored);
    free(m->mappings_owned);
    free(m->line_start);
    if (m->started) region_free(m);
    for (size_t i = 0; i < m->nsections; i++) {
        if (!m->sections[i].url) smap_free(m->sections[i].map);   /* a url's map is the loader's */
        free(m->sections[i].url);
    }
    free(m->sections);
    if (m->owns_text) free(m->text);
    free(m->name);
    free(m);
}

const char *smap_name(const smap_t *m) { return m->name; }

void smap_set_loader(smap_t *m, smap_loader_fn fn, void *ctx)
{
    m->loader = fn;
    m->loader_ctx = ctx;
    for (size_t i = 0; i < m->nsections; i++)
        if (!m->sections[i].url) smap_set_loader(m->sections[i].map, fn, ctx);
}

/* A section's map, loading a url section's on first use; NULL when there is none. */
static smap_t *section_map(smap_t *m, section_t *s)
{
    if (s->url && !s->loaded && m->loader) {
        s->loaded = 1;
        s->map = m->loader(m->loader_ctx, m, s->url);
    }
    return s->map;
}

/* ---- decoding mappings, a line at a time ---- */

static int decode_fail(smap_t *m, const char *what)
{
    diag_warn(m->name, 0, "bad source map, ignored: %s in the mappings of generated line %zu", what, m->nlines + 1);
    m->bad = 1;
    m->dp = NULL;
    return -1;
}

/* One base64 VLQ value at *pp (bounded by e), inline: the decoder's inner loop. */
static inline int vlq(const char **pp, const char *e, int64_t *out)
{
    const char *p = *pp;
    uint64_t v = 0;
    int shift = 0;
    (void)e;   /* the mappings are followed by their closing '"' or a NUL: never a digit */
    for (;;) {
        int d = b64_val[(unsigned char)*p++];
        if (d < 0) return -1;
        v |= (uint64_t)(d & 31) << shift;
        if (!(d & 32)) break;
        shift += 5;
        if (shift > 30) return -1;   /* more than 7 digits */
    }
    if (v > UINT32_MAX) return -1;   /* as smap_vlq_decode: |value| <= INT32_MAX */
    /* the lowest bit is the sign */
    int64_t s = (int64_t)(v >> 1);
    *out = v & 1 ? -s : s;
    *pp = p;
    return 0;
}

/* Segment arrays of a big map are allocated where the kernel can back them with huge pages:
 * page faults, not decoding, were most of the time to decode a 17 MB map's mappings (each
 * 4 KiB fault is an exception, and costly in a VM). Big arrays: an mmap hinted MADV_HUGEPAGE. */
#define HUGE_PAGE ((size_t)2 << 20)

static void region_alloc(smap_t *m, size_t n)
{
    m->region_len = 0;
    if (n >= HUGE_PAGE) {
        size_t len = (n + 2 * HUGE_PAGE - 1) & ~(HUGE_PAGE - 1);
        void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p != MAP_FAILED) {
            char *aligned = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
            madvise(aligned, len - (size_t)(aligned - (char *)p), MADV_HUGEPAGE);   /* a hint: may fail */
            m->region = p, m->region_len = len;
            m->gcols = (int32_t *)aligned;
            m->segs = (seg_t *)(aligned + ((m->segs_cap * sizeof *m->gcols + 63) & ~(size_t)63));
            return;
        }
    }
    m->region = xmalloc(n);
    m->gcols = m->region;
    m->segs = (seg_t *)((char *)m->region + ((m->segs_cap * sizeof *m->gcols + 63) & ~(size_t)63));
}

static void region_free(smap_t *m)
{
    if (m->region_len) munmap(m->region, m->region_len);
    else free(m->region);
}

/* Decodes generated line m->nlines, appending its segments (segs_cap is enough: counted). */
static int decode_line(smap_t *m)
{
    const char *p = m->dp, *e = m->mappings + m->mappings_len;
    size_t first = m->nsegs;
    int64_t gcol = 0;
    int sorted = 1;
    while (p < e && *p != ';') {
        if (*p == ',') {
            p++;
            continue;
        }
        int64_t v[5];
        int nf = 0;
        while (p < e && *p != ',' && *p != ';') {
            if (nf == 5) return decode_fail(m, "a segment with more than 5 fields");
            if (vlq(&p, e, &v[nf]) != 0) return decode_fail(m, "bad VLQ");
            nf++;
        }
        if (nf != 1 && nf != 4 && nf != 5) return decode_fail(m, "a segment with 2 or 3 fields");
        gcol += v[0];
        if (gcol < 0 || gcol > INT32_MAX) return decode_fail(m, "a column out of range");
        if (m->nsegs > first && gcol < m->gcols[m->nsegs - 1]) sorted = 0;
        seg_t s = {-1, 0, 0, -1};
        if (nf >= 4) {
            m->acc_src += v[1], m->acc_oline += v[2], m->acc_ocol += v[3];
            if (m->acc_src < 0 || (uint64_t)m->acc_src >= m->nsources) return decode_fail(m, "a 'sources' index out of range");
            if (m->acc_oline < 0 || m->acc_oline > INT32_MAX || m->acc_ocol < 0 || m->acc_ocol > INT32_MAX)
                return decode_fail(m, "an original position out of range");
            s.src = (int32_t)m->acc_src, s.oline = (int32_t)m->acc_oline, s.ocol = (int32_t)m->acc_ocol;
        }
        if (nf == 5) {
            m->acc_name += v[4];
            if (m->acc_name < 0 || (uint64_t)m->acc_name >= m->nnames) return decode_fail(m, "a 'names' index out of range");
            s.name = (int32_t)m->acc_name;
        }
        m->gcols[m->nsegs] = (int32_t)gcol;
        m->segs[m->nsegs++] = s;
    }
    /* trace-mapping sorts a line whose segments are out of order; so do we, keeping equal
     * columns in their order (an insertion sort: qsort is not stable) */
    if (!sorted) {
        for (size_t i = first + 1; i < m->nsegs; i++) {
            int32_t g = m->gcols[i];
            seg_t s = m->segs[i];
            size_t k = i;
            while (k > first && m->gcols[k - 1] > g) m->gcols[k] = m->gcols[k - 1], m->segs[k] = m->segs[k - 1], k--;
            m->gcols[k] = g, m->segs[k] = s;
        }
    }
    m->line_start[++m->nlines] = (uint32_t)m->nsegs;
    m->dp = p < e ? p + 1 : NULL;   /* past the ';', or the end */
    return 0;
}

/* The high bit of each byte of x that is 0 (exactly: no borrow between bytes). */
static inline uint64_t zero_bytes(uint64_t x)
{
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7fu;
    return ~(((x & low7) + low7) | x | low7);
}

/* Decodes the mappings up to and including generated line `line` (as far as there are). */
static int decode_upto(smap_t *m, size_t line)
{
    if (m->bad) return -1;
    if (!m->started) {
        b64_init();
        m->started = 1;
        m->dp = m->mappings;
        /* the arrays are sized once: at most a segment per ',' or ';' and one, a line per ';' and one */
        size_t seps = 0, lines = 1, i = 0;
        for (; i + 8 <= m->mappings_len; i += 8) {   /* eight bytes at a time */
            uint64_t x;
            memcpy(&x, m->mappings + i, 8);
            size_t semis = (size_t)__builtin_popcountll(zero_bytes(x ^ 0x3b3b3b3b3b3b3b3bu));
            seps += semis + (size_t)__builtin_popcountll(zero_bytes(x ^ 0x2c2c2c2c2c2c2c2cu));
            lines += semis;
        }
        for (; i < m->mappings_len; i++) {
            char c = m->mappings[i];
            seps += c == ',' || c == ';';
            lines += c == ';';
        }
        if (seps >= UINT32_MAX - 1) {
            m->started = 1;
            return decode_fail(m, "too many segments");
        }
        m->segs_cap = seps + 1;
        region_alloc(m, ((m->segs_cap * sizeof *m->gcols + 63) & ~(size_t)63) + m->segs_cap * sizeof *m->segs);
        m->lines_cap = lines + 1;
        m->line_start = xmalloc(m->lines_cap * sizeof *m->line_start);
        m->line_start[0] = 0;
    }
    while (m->dp && m->nlines <= line)
        if (decode_line(m) != 0) return -1;
    return 0;
}

/* The index of the segment with the greatest gcol <= col on line (see below for equal columns),
 * -1 when none, -2 when the mappings are bad. */
static int64_t find_seg(smap_t *m, int32_t line, int32_t col)
{
    if (decode_upto(m, (size_t)line) != 0) return -2;
    if ((size_t)line >= m->nlines) return -1;
    size_t lo = m->line_start[line], hi = m->line_start[line + 1];
    const int32_t *g = m->gcols;
    if (lo == hi || g[lo] > col) return -1;
    /* last segment with gcol <= col; invariant: g[a] <= col, g[b] > col (b may be hi) */
    size_t a = lo, b = hi;
    while (b - a > 1) {
        size_t mid = a + (b - a) / 2;
        if (g[mid] <= col) a = mid;
        else b = mid;
    }
    /* trace-mapping: an exact column takes the first of its segments; otherwise the last
     * segment before the column, whatever shares its column */
    if (g[a] == col)
        while (a > lo && g[a - 1] == col) a--;
    return (int64_t)a;
}

static const char *lazy_str(const smap_t *m, span_t *spans, char ***dec, size_t n, int32_t i)
{
    if (i < 0 || (size_t)i >= n || spans[i].off == SPAN_NULL) return NULL;
    if (!*dec) *dec = xcalloc(n, sizeof **dec);
    if (!(*dec)[i]) (*dec)[i] = span_str(m->text, spans[i]);
    return (*dec)[i];
}

static void fill(smap_t *m, const seg_t *s, smap_pos_t *out)
{
    out->source = m->sources[s->src];
    out->name = s->name >= 0 ? lazy_str(m, m->names, &m->names_dec, m->nnames, s->name) : NULL;
    out->line = s->oline;
    out->column = s->ocol;
    out->ignored = m->ignored[s->src];
    out->map_ = m;
    out->src_ = s->src;
}

const char *smap_pos_content(const smap_pos_t *pos)
{
    smap_t *m = pos->map_;
    if (!m) return NULL;
    return lazy_str(m, m->contents, &m->contents_dec, m->ncontents, pos->src_);
}

/* The last section starting at or before (line, col), or -1. */
static int64_t find_section(const smap_t *m, int32_t line, int32_t col)
{
    size_t lo = 0, hi = m->nsections;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const section_t *s = &m->sections[mid];
        if (s->line < line || (s->line == line && s->column <= col)) lo = mid + 1;
        else hi = mid;
    }
    return (int64_t)lo - 1;
}

static int lookup(smap_t *m, int32_t line, int32_t col, smap_pos_t *out);

/* lookup in section k (-2 when it has no map) */
static int lookup_section(smap_t *m, size_t k, int32_t line, int32_t col, smap_pos_t *out)
{
    section_t *s = &m->sections[k];
    smap_t *sm = section_map(m, s);
    if (!sm) return -2;
    return lookup(sm, line - s->line, line == s->line ? col - s->column : col, out);
}

/* 1 mapped, 0 unmapped (a segment without source), -1 bad, -2 no segment */
static int lookup(smap_t *m, int32_t line, int32_t col, smap_pos_t *out)
{
    if (!m->is_index) {
        int64_t i = find_seg(m, line, col);
        if (i == -2) return -1;
        if (i < 0) return -2;
        if (m->segs[i].src < 0) return 0;
        fill(m, &m->segs[i], out);
        return 1;
    }
    if (m->busy) return -2;   /* a url section that names its own index map */
    int64_t k = find_section(m, line, col);
    if (k < 0) return -2;
    m->busy = 1;
    int rc = lookup_section(m, (size_t)k, line, col, out);
    /* A flattened index map (trace-mapping's AnyMap) has the previous section's segments before
     * this section's start on the same line: the greatest lower bound may be one of those. */
    const section_t *s = &m->sections[k];
    while (rc == -2 && k > 0 && line == s->line && s->column > 0) {
        const section_t *prev = &m->sections[--k];
        int32_t c = col < s->column ? col : s->column - 1;
        rc = lookup_section(m, (size_t)k, line, c, out);
        if (line == prev->line && c < prev->column) break;
        s = prev;
    }
    m->busy = 0;
    return rc;
}

int smap_lookup(smap_t *m, int32_t line, int32_t column, smap_pos_t *out)
{
    if (line < 0 || column < 0) return 0;
    int rc = lookup(m, line, column, out);
    return rc == -2 ? 0 : rc;
}

int smap_line(smap_t *m, int32_t line, const char *source, int32_t *orig_line)
{
    if (line < 0) return 0;
    if (m->is_index) {
        if (m->busy) return 0;
        m->busy = 1;
        int found = 0;
        for (int64_t k = find_section(m, line, INT32_MAX); k >= 0 && !found; k--) {
            section_t *s = &m->sections[k];
            smap_t *sm = section_map(m, s);
            if (sm && smap_line(sm, line - s->line, source, orig_line)) found = 1;
            else if (s->line < line) break;
        }
        m->busy = 0;
        return found;
    }
    if (decode_upto(m, (size_t)line) != 0 || (size_t)line >= m->nlines) return 0;
    for (size_t i = m->line_start[line]; i < m->line_start[line + 1]; i++) {
        const seg_t *s = &m->segs[i];
        if (s->src >= 0 && (!source || m->sources[s->src] == source)) {
            *orig_line = s->oline;
            return 1;
        }
    }
    return 0;
}

int32_t smap_generated_lines(smap_t *m)
{
    if (m->gen_lines >= 0) return m->gen_lines;
    int64_t n = 0;
    if (m->is_index) {
        if (m->busy || !m->nsections) return 0;
        m->busy = 1;
        section_t *s = &m->sections[m->nsections - 1];
        smap_t *sm = section_map(m, s);
        n = (int64_t)s->line + (sm ? smap_generated_lines(sm) : 1);
        m->busy = 0;
    } else {
        /* the lines up to the last one with a segment: the ';' before the last other byte */
        size_t end = m->mappings_len;
        while (end && m->mappings[end - 1] == ';') end--;
        if (end) {
            n = 1;
            for (const char *p = m->mappings; (p = memchr(p, ';', end - (size_t)(p - m->mappings))); p++) n++;
        }
    }
    m->gen_lines = n > INT32_MAX ? INT32_MAX : (int32_t)n;
    return m->gen_lines;
}

size_t smap_decoded_count(smap_t *m)
{
    if (!m->is_index) return m->nlines > 0 || m->bad;
    if (m->busy) return 0;
    m->busy = 1;
    size_t n = 0;
    for (size_t i = 0; i < m->nsections; i++)
        if (m->sections[i].map) n += smap_decoded_count(m->sections[i].map);
    m->busy = 0;
    return n;
}

size_t smap_decoded_lines(smap_t *m)
{
    if (!m->is_index) return m->nlines;
    if (m->busy) return 0;
    m->busy = 1;
    size_t n = 0;
    for (size_t i = 0; i < m->nsections; i++)
        if (m->sections[i].map) n += smap_decoded_lines(m->sections[i].map);
    m->busy = 0;
    return n;
}
