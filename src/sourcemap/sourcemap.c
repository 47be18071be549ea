#include "sourcemap/sourcemap.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/input.h"
#include "util/json.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

/* Index maps nest; deeper than this is not a bundler's output but an attack on the stack. */
#define MAX_NESTING 8

typedef struct {
    int32_t gcol, src, oline, ocol, name;   /* src -1: a segment with no source (1 field); name -1: none */
} seg_t;

typedef struct {
    int32_t line, column;   /* the section's offset in the generated file */
    smap_t *map;
} section_t;

struct smap {
    char *name;             /* the map, for messages */
    /* a regular map */
    char **sources, **contents;
    uint8_t *ignored;
    size_t nsources, ncontents;
    char **names;
    size_t nnames;
    char *mappings;         /* kept undecoded until the first lookup */
    size_t mappings_len;
    int decoded;            /* 1 decoded, -1 bad (warned) */
    uint32_t *line_start;   /* nlines + 1 entries into segs */
    size_t nlines;
    seg_t *segs;
    size_t nsegs;
    /* an index map */
    int is_index;
    section_t *sections;
    size_t nsections;
};

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

/* ---- parsing ---- */

typedef struct {
    json_t j;
    const char *dir;
    buf_t err;
} parser_t;

#define JSTR(ps) ((ps)->j.str.data ? (ps)->j.str.data : "")

static int perr(parser_t *ps, const char *msg)
{
    if (!ps->err.len) buf_puts(&ps->err, msg);
    return -1;
}

/* An array of strings (null entries become NULL) after its '['. */
static int read_strings(parser_t *ps, char ***out, size_t *n, const char *what)
{
    size_t cap = 0;
    for (;;) {
        json_token_t t = json_next(&ps->j);
        if (t == JSON_ARRAY_END) return 0;
        if (t == JSON_ERROR) return -1;
        XGROW(*out, cap, *n + 1);
        if (t == JSON_STRING) (*out)[(*n)++] = xstrndup(JSTR(ps), ps->j.str.len);
        else if (t == JSON_NULL) (*out)[(*n)++] = NULL;
        else {
            buf_printf(&ps->err, "'%s' holds something other than strings", what);
            return -1;
        }
    }
}

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++) free(v[i]);
    free(v);
}

static int parse_object(parser_t *ps, smap_t *m, int depth);

static int parse_sections(parser_t *ps, smap_t *m, int depth)
{
    size_t cap = 0;
    section_t sec = {-1, -1, NULL};
    for (;;) {
        json_token_t t = json_next(&ps->j);
        if (t == JSON_ARRAY_END) return 0;
        if (t != JSON_OBJECT_START) return t == JSON_ERROR ? -1 : perr(ps, "a section is not an object");
        sec = (section_t){-1, -1, NULL};
        for (;;) {
            t = json_next(&ps->j);
            if (t == JSON_OBJECT_END) break;
            if (t != JSON_KEY) goto fail;
            if (!strcmp(JSTR(ps), "offset")) {
                if (json_next(&ps->j) != JSON_OBJECT_START) {
                    perr(ps, "a section's offset is not an object");
                    goto fail;
                }
                while ((t = json_next(&ps->j)) == JSON_KEY) {
                    int is_line = !strcmp(JSTR(ps), "line"), is_col = !strcmp(JSTR(ps), "column");
                    t = json_next(&ps->j);
                    if ((is_line || is_col) && t == JSON_NUMBER) {
                        double v = ps->j.num;
                        if (!(v >= 0 && v <= INT32_MAX) || v != (int32_t)v) {
                            perr(ps, "a section's offset is out of range");
                            goto fail;
                        }
                        if (is_line) sec.line = (int32_t)v;
                        else sec.column = (int32_t)v;
                    } else if (json_skip(&ps->j, t) != 0) goto fail;
                }
                if (t != JSON_OBJECT_END) goto fail;
            } else if (!strcmp(JSTR(ps), "map")) {
                if (json_next(&ps->j) != JSON_OBJECT_START || sec.map) {
                    perr(ps, "a section's map is not an object, or there are two");
                    goto fail;
                }
                sec.map = xcalloc(1, sizeof *sec.map);
                sec.map->name = xstrdup(m->name);
                if (parse_object(ps, sec.map, depth + 1) != 0) goto fail;
            } else if (!strcmp(JSTR(ps), "url")) {
                perr(ps, "sections with a 'url' instead of a 'map' are not supported");
                goto fail;
            } else if (json_skip(&ps->j, json_next(&ps->j)) != 0) goto fail;
        }
        if (sec.line < 0 || sec.column < 0 || !sec.map) {
            perr(ps, "a section lacks its offset or map");
            goto fail;
        }
        if (m->nsections) {
            const section_t *prev = &m->sections[m->nsections - 1];
            if (sec.line < prev->line || (sec.line == prev->line && sec.column < prev->column)) {
                perr(ps, "sections are not in order");
                goto fail;
            }
        }
        XGROW(m->sections, cap, m->nsections + 1);
        m->sections[m->nsections++] = sec;
    }
fail:
    smap_free(sec.map);
    return -1;
}

/* The members of a map object, after its '{'. */
static int parse_object(parser_t *ps, smap_t *m, int depth)
{
    if (depth > MAX_NESTING) return perr(ps, "index maps nested too deeply");
    char *root = NULL, **raw_sources = NULL;
    size_t nraw = 0;
    double version = 0;   /* as read: any number, so no conversion can overflow */
    int has_mappings = 0, rc = -1;
    double *ignore = NULL;
    size_t nignore = 0, ignore_cap = 0;
    for (;;) {
        json_token_t t = json_next(&ps->j);
        if (t == JSON_OBJECT_END) break;
        if (t != JSON_KEY) goto out;
        const char *k = JSTR(ps);
        if (!strcmp(k, "version")) {
            if (json_next(&ps->j) != JSON_NUMBER) goto out;
            version = ps->j.num;
        } else if (!strcmp(k, "sourceRoot")) {
            t = json_next(&ps->j);
            if (t == JSON_STRING) free(root), root = xstrdup(JSTR(ps));
            else if (t != JSON_NULL) goto out;
        } else if (!strcmp(k, "sources")) {
            if (json_next(&ps->j) != JSON_ARRAY_START || nraw) goto out;
            if (read_strings(ps, &raw_sources, &nraw, "sources") != 0) goto out;
        } else if (!strcmp(k, "sourcesContent")) {
            if (json_next(&ps->j) != JSON_ARRAY_START || m->ncontents) goto out;
            if (read_strings(ps, &m->contents, &m->ncontents, "sourcesContent") != 0) goto out;
        } else if (!strcmp(k, "names")) {
            if (json_next(&ps->j) != JSON_ARRAY_START || m->nnames) goto out;
            if (read_strings(ps, &m->names, &m->nnames, "names") != 0) goto out;
        } else if (!strcmp(k, "mappings")) {
            if (json_next(&ps->j) != JSON_STRING || has_mappings) goto out;
            m->mappings_len = ps->j.str.len;
            m->mappings = xstrndup(JSTR(ps), ps->j.str.len);
            has_mappings = 1;
        } else if (!strcmp(k, "ignoreList") || !strcmp(k, "x_google_ignoreList")) {
            if (json_next(&ps->j) != JSON_ARRAY_START) goto out;
            if (json_read_numbers(&ps->j, &ignore, &nignore, &ignore_cap) != JSON_ARRAY_END) goto out;
        } else if (!strcmp(k, "sections")) {
            if (json_next(&ps->j) != JSON_ARRAY_START || m->is_index) goto out;
            m->is_index = 1;
            if (parse_sections(ps, m, depth) != 0) goto out;
        } else if (json_skip(&ps->j, json_next(&ps->j)) != 0) goto out;
    }
    if (version != 3) {
        buf_printf(&ps->err, "version is %g, not 3", version);
        goto out;
    }
    if (m->is_index && has_mappings) {
        perr(ps, "an index map with 'mappings'");
        goto out;
    }
    if (!m->is_index && !has_mappings) {
        perr(ps, "no 'mappings'");
        goto out;
    }
    m->nsources = nraw;
    m->sources = xcalloc(nraw ? nraw : 1, sizeof *m->sources);
    m->ignored = xcalloc(nraw ? nraw : 1, 1);
    for (size_t i = 0; i < nraw; i++) m->sources[i] = resolve_source(ps->dir, root, raw_sources[i] ? raw_sources[i] : "");
    for (size_t i = 0; i < nignore; i++)
        if (ignore[i] >= 0 && ignore[i] < (double)nraw) m->ignored[(size_t)ignore[i]] = 1;
    rc = 0;
out:
    if (rc != 0 && !ps->err.len && !ps->j.failed) perr(ps, "not a source map object (unexpected member type)");
    free(root);
    free_strings(raw_sources, nraw);
    free(ignore);
    return rc;
}

smap_t *smap_parse(const char *name, const char *dir, const char *data, size_t n)
{
    smap_t *m = xcalloc(1, sizeof *m);
    m->name = xstrdup(name);
    input_t *in = input_from_memory(name, data, n);
    parser_t ps = {.dir = dir};
    json_init(&ps.j, in);
    ps.j.quiet = 1;
    int rc;
    if (json_next(&ps.j) != JSON_OBJECT_START) rc = ps.j.failed ? -1 : perr(&ps, "not a JSON object");
    else rc = parse_object(&ps, m, 0);
    if (rc == 0 && json_next(&ps.j) != JSON_EOF) rc = perr(&ps, "trailing data after the map");
    if (rc != 0) {
        diag_warn(name, 0, "bad source map, ignored: %s", ps.j.failed ? ps.j.message : ps.err.data);
        smap_free(m);
        m = NULL;
    }
    json_free(&ps.j);
    input_close(in);
    buf_free(&ps.err);
    return m;
}

void smap_free(smap_t *m)
{
    if (!m) return;
    free_strings(m->sources, m->nsources);
    free_strings(m->contents, m->ncontents);
    free_strings(m->names, m->nnames);
    free(m->ignored);
    free(m->mappings);
    free(m->line_start);
    free(m->segs);
    for (size_t i = 0; i < m->nsections; i++) smap_free(m->sections[i].map);
    free(m->sections);
    free(m->name);
    free(m);
}

const char *smap_name(const smap_t *m) { return m->name; }

/* ---- decoding mappings ---- */

static int decode_fail(smap_t *m, size_t line, const char *what)
{
    diag_warn(m->name, 0, "bad source map, ignored: %s in the mappings of generated line %zu", what, line + 1);
    free(m->segs), m->segs = NULL;
    free(m->line_start), m->line_start = NULL;
    m->nsegs = m->nlines = 0;
    m->decoded = -1;
    return -1;
}

static int decode(smap_t *m)
{
    if (m->decoded) return m->decoded > 0 ? 0 : -1;
    b64_init();
    const char *p = m->mappings, *e = p + m->mappings_len;
    size_t lines = 1, segs_guess = 1;
    for (const char *q = p; q < e; q++) {
        lines += *q == ';';
        segs_guess += *q == ',' || *q == ';';
    }
    m->line_start = xmalloc((lines + 1) * sizeof *m->line_start);
    size_t cap = segs_guess;
    m->segs = xmalloc(cap * sizeof *m->segs);
    int64_t src = 0, oline = 0, ocol = 0, name = 0;
    size_t line = 0;
    m->line_start[0] = 0;
    while (p <= e) {
        int64_t gcol = 0;
        int sorted = 1;
        size_t first = m->nsegs;
        while (p < e && *p != ';') {
            if (*p == ',') {
                p++;
                continue;
            }
            int32_t v[5];
            int nf = 0;
            while (p < e && *p != ',' && *p != ';') {
                if (nf == 5) return decode_fail(m, line, "a segment with more than 5 fields");
                if (smap_vlq_decode(&p, e, &v[nf]) != 0) return decode_fail(m, line, "bad VLQ");
                nf++;
            }
            if (nf != 1 && nf != 4 && nf != 5) return decode_fail(m, line, "a segment with 2 or 3 fields");
            seg_t s;
            gcol += v[0];
            if (gcol < 0 || gcol > INT32_MAX) return decode_fail(m, line, "a negative column");
            if (m->nsegs > first && gcol < m->segs[m->nsegs - 1].gcol) sorted = 0;
            s.gcol = (int32_t)gcol, s.src = -1, s.oline = s.ocol = 0, s.name = -1;
            if (nf >= 4) {
                src += v[1], oline += v[2], ocol += v[3];
                if (src < 0 || (size_t)src >= m->nsources) return decode_fail(m, line, "a 'sources' index out of range");
                if (oline < 0 || oline > INT32_MAX || ocol < 0 || ocol > INT32_MAX)
                    return decode_fail(m, line, "an original position out of range");
                s.src = (int32_t)src, s.oline = (int32_t)oline, s.ocol = (int32_t)ocol;
            }
            if (nf == 5) {
                name += v[4];
                if (name < 0 || (size_t)name >= m->nnames) return decode_fail(m, line, "a 'names' index out of range");
                s.name = (int32_t)name;
            }
            if (m->nsegs == cap) XGROW(m->segs, cap, m->nsegs + 1);
            m->segs[m->nsegs++] = s;
        }
        /* trace-mapping sorts a line whose segments are out of order; so do we (stable) */
        if (!sorted) {
            /* an insertion sort keeps equal columns in their order (qsort would not) */
            for (size_t i = first + 1; i < m->nsegs; i++) {
                seg_t s = m->segs[i];
                size_t k = i;
                while (k > first && m->segs[k - 1].gcol > s.gcol) m->segs[k] = m->segs[k - 1], k--;
                m->segs[k] = s;
            }
        }
        m->line_start[++line] = (uint32_t)m->nsegs;
        if (m->nsegs > UINT32_MAX - 1) return decode_fail(m, line, "too many segments");
        if (p == e) break;
        p++;   /* ';' */
    }
    m->nlines = line;
    free(m->mappings);
    m->mappings = NULL;
    m->decoded = 1;
    return 0;
}

/* The index of the segment with the greatest gcol <= col on line (see below for equal columns),
 * -1 when none, -2 when the mappings are bad. */
static int64_t find_seg(smap_t *m, int32_t line, int32_t col)
{
    if (decode(m) != 0) return -2;
    if (line < 0 || (size_t)line >= m->nlines) return -1;
    size_t lo = m->line_start[line], hi = m->line_start[line + 1];
    if (lo == hi || m->segs[lo].gcol > col) return -1;
    /* last segment with gcol <= col */
    size_t a = lo, b = hi;   /* invariant: segs[a].gcol <= col, segs[b].gcol > col (b may be hi) */
    while (b - a > 1) {
        size_t mid = a + (b - a) / 2;
        if (m->segs[mid].gcol <= col) a = mid;
        else b = mid;
    }
    /* trace-mapping: an exact column takes the first of its segments; otherwise the last
     * segment before the column, whatever shares its column */
    if (m->segs[a].gcol == col)
        while (a > lo && m->segs[a - 1].gcol == col) a--;
    return (int64_t)a;
}

static void fill(const smap_t *m, const seg_t *s, smap_pos_t *out)
{
    out->source = m->sources[s->src];
    out->content = (size_t)s->src < m->ncontents ? m->contents[s->src] : NULL;
    out->name = s->name >= 0 ? m->names[s->name] : NULL;
    out->line = s->oline;
    out->column = s->ocol;
    out->ignored = m->ignored[s->src];
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
    int64_t k = find_section(m, line, col);
    if (k < 0) return -2;
    const section_t *s = &m->sections[k];
    int rc = lookup(s->map, line - s->line, line == s->line ? col - s->column : col, out);
    /* A flattened index map (trace-mapping's AnyMap) has the previous section's segments before
     * this section's start on the same line: the greatest lower bound may be one of those. */
    while (rc == -2 && k > 0 && line == s->line && s->column > 0) {
        const section_t *prev = &m->sections[--k];
        int32_t c = col < s->column ? col : s->column - 1;
        rc = lookup(prev->map, line - prev->line, line == prev->line ? c - prev->column : c, out);
        if (line == prev->line && c < prev->column) break;
        s = prev;
    }
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
        int64_t k = find_section(m, line, INT32_MAX);
        for (; k >= 0; k--) {
            const section_t *s = &m->sections[k];
            if (smap_line(s->map, line - s->line, source, orig_line)) return 1;
            if (s->line < line) return 0;
        }
        return 0;
    }
    if (decode(m) != 0 || (size_t)line >= m->nlines) return 0;
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
    if (m->is_index) {
        if (!m->nsections) return 0;
        const section_t *s = &m->sections[m->nsections - 1];
        return s->line + smap_generated_lines(s->map);
    }
    if (decode(m) != 0) return 0;
    return (int32_t)m->nlines;
}

size_t smap_decoded_count(const smap_t *m)
{
    if (!m->is_index) return m->decoded != 0;
    size_t n = 0;
    for (size_t i = 0; i < m->nsections; i++) n += smap_decoded_count(m->sections[i].map);
    return n;
}
