/* A source map (ECMA-426: version 3, regular or index maps with sections) read from its JSON: a
 * map is held whole in memory and scanned in place, its strings kept as spans of the text (the
 * VLQ `mappings` are decoded later, a line at a time, by mappings.c); sources resolved against
 * the map's directory and sourceRoot; VLQ and base64 (data: URLs). */
#include "sourcemap/sourcemap_internal.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ---- VLQ and base64 ---- */

static const char b64_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
signed char smap_b64_val[256]; /* a base64 digit's value, -1: not one (smap_b64_init) */
static int b64_ready;

void smap_b64_init(void)
{
    if (b64_ready) return;
    memset(smap_b64_val, -1, sizeof smap_b64_val);
    for (int i = 0; i < 64; i++) smap_b64_val[(unsigned char)b64_chars[i]] = (signed char)i;
    b64_ready = 1;
}

int smap_vlq_decode(const char **pp, const char *e, int32_t *out)
{
    smap_b64_init();
    const char *p = *pp;
    uint64_t v = 0;
    int shift = 0;
    for (;;) {
        if (p == e) return -1;
        int d = smap_b64_val[(unsigned char)*p++];
        if (d < 0) return -1;
        v |= (uint64_t)(d & 31) << shift;
        if (!(d & 32)) break;
        shift += 5;
        if (shift > 30) return -1; /* more than 32 bits of value */
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
    smap_b64_init();
    while (n && s[n - 1] == '=') n--;
    if (n % 4 == 1) return NULL;
    char *out = xmalloc(n / 4 * 3 + 3);
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (size_t i = 0; i < n; i++) {
        int d = smap_b64_val[(unsigned char)s[i]];
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
    size_t base = absolute, o = base; /* out: s[0..o), segments joined by '/' after base */
    for (size_t i = 0; i < n;) {
        size_t e = i;
        while (e < n && s[e] != '/') e++;
        size_t len = e - i;
        if (len == 0 || (len == 1 && s[i] == '.')) {
            /* nothing */
        } else if (len == 2 && s[i] == '.' && s[i + 1] == '.' && (o > base || absolute)) {
            while (o > base && s[o - 1] != '/') o--;
            if (o > base) o--; /* the slash before the dropped segment */
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
    while (*p &&
           (strchr("+-.", *p) || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9')))
        p++;
    return *p == ':' && p - s > 1; /* "C:" is a drive, not a scheme */
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
    const char *base, *p, *e; /* the text; e[0] == 0 */
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
    long line = 1; /* counted only now: a bad map is rare */
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
char *smap_span_str(const char *base, span_t sp)
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
            if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xFFFD; /* a lone surrogate */
            buf_put_utf8(&b, cp);
            break;
        }
        default: buf_putc(&b, c); break; /* '"', '\\', '/' */
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
    else if (*p >= '1' && *p <= '9')
        while (*p >= '0' && *p <= '9') p++;
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
    if (p > ps->e) return ps->p = ps->e, perr(ps, "unexpected end"); /* not reached: e[0] == 0 */
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
    char *k = smap_span_str(ps->base, key);
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
    span_t root;    /* sourceRoot; off SPAN_NULL: none */
    double version; /* as read: any number, so no conversion can overflow */
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
        char *root = mc.root.off != SPAN_NULL ? smap_span_str(ps->base, mc.root) : NULL;
        size_t n = mc.sources.n;
        m->nsources = n;
        m->sources = xcalloc(n ? n : 1, sizeof *m->sources);
        m->ignored = xcalloc(n ? n : 1, 1);
        for (size_t i = 0; i < n; i++) {
            span_t sp = mc.sources.v[i];
            char *raw = sp.off == SPAN_NULL ? xstrdup("") : smap_span_str(ps->base, sp);
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
        if (peek(ps) != '{' || sc->sec.map || sc->sec.url)
            return merr(ps, "a section's map is not an object, or it has two");
        ps->p++;
        sc->sec.map = new_map(sc->parent);
        return scan_map(ps, sc->sec.map, sc->depth + 1);
    }
    if (key_is(ps, key, "url")) {
        span_t sp;
        if (peek(ps) != '"' || sc->sec.map || sc->sec.url)
            return merr(ps, "a section's url is not a string, or it has two");
        if (scan_string(ps, &sp) != 0) return -1;
        char *raw = smap_span_str(ps->base, sp);
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
    size_t cap = m->nsections; /* grown one by one: sections are few */
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
            m->mappings_owned = smap_span_str(ps->base, sp);
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
    if (m->started) free(m->region); /* gcols and segs (mappings.c) */
    for (size_t i = 0; i < m->nsections; i++) {
        if (!m->sections[i].url) smap_free(m->sections[i].map); /* a url's map is the loader's */
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
smap_t *smap_section_map(smap_t *m, section_t *s)
{
    if (s->url && !s->loaded && m->loader) {
        s->loaded = 1;
        s->map = m->loader(m->loader_ctx, m, s->url);
    }
    return s->map;
}
