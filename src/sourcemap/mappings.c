/* A source map's mappings decoded a line at a time, on demand, into sorted segments (generated
 * column -> source, line, column, name), and looked up by generated position; index maps by their
 * sections, loading a url section's map on first use (the JSON: sourcemap.c, below this file). */
#include "sourcemap/sourcemap_internal.h"
#include "util/bigmem.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

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
    (void)e; /* the mappings are followed by their closing '"' or a NUL: never a digit */
    for (;;) {
        int d = smap_b64_val[(unsigned char)*p++];
        if (d < 0) return -1;
        v |= (uint64_t)(d & 31) << shift;
        if (!(d & 32)) break;
        shift += 5;
        if (shift > 30) return -1; /* more than 7 digits */
    }
    if (v > UINT32_MAX) return -1; /* as smap_vlq_decode: |value| <= INT32_MAX */
    /* the lowest bit is the sign */
    int64_t s = (int64_t)(v >> 1);
    *out = v & 1 ? -s : s;
    *pp = p;
    return 0;
}

/* Segment arrays of a big map where the kernel can back them with huge pages (util/bigmem.h):
 * page faults, not decoding, were most of the time to decode a 17 MB map's mappings (each 4 KiB
 * fault is an exception, and costly in a VM). */
static void region_alloc(smap_t *m, size_t n)
{
    m->region = big_malloc(n);
    m->gcols = m->region;
    m->segs = (seg_t *)((char *)m->region + ((m->segs_cap * sizeof *m->gcols + 63) & ~(size_t)63));
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
            if (m->acc_src < 0 || (uint64_t)m->acc_src >= m->nsources)
                return decode_fail(m, "a 'sources' index out of range");
            if (m->acc_oline < 0 || m->acc_oline > INT32_MAX || m->acc_ocol < 0 || m->acc_ocol > INT32_MAX)
                return decode_fail(m, "an original position out of range");
            s.src = (int32_t)m->acc_src, s.oline = (int32_t)m->acc_oline, s.ocol = (int32_t)m->acc_ocol;
        }
        if (nf == 5) {
            m->acc_name += v[4];
            if (m->acc_name < 0 || (uint64_t)m->acc_name >= m->nnames)
                return decode_fail(m, "a 'names' index out of range");
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
    m->dp = p < e ? p + 1 : NULL; /* past the ';', or the end */
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
        smap_b64_init();
        m->started = 1;
        m->dp = m->mappings;
        /* the arrays are sized once: at most a segment per ',' or ';' and one, a line per ';' and one */
        size_t seps = 0, lines = 1, i = 0;
        for (; i + 8 <= m->mappings_len; i += 8) { /* eight bytes at a time */
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
    if (!(*dec)[i]) (*dec)[i] = smap_span_str(m->text, spans[i]);
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
    smap_t *sm = smap_section_map(m, s);
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
    if (m->busy) return -2; /* a url section that names its own index map */
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
            smap_t *sm = smap_section_map(m, s);
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
        smap_t *sm = smap_section_map(m, s);
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
