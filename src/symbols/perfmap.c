/* perf-PID.map files read and indexed by address (perfmap.h: the format, and what the index answers). */
#include "symbols/perfmap.h"
#include "util/diag.h"
#include "util/file.h"
#include "util/procfs.h"
#include "util/radix.h"
#include "util/xalloc.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_WARNINGS 5
/* Larger than any code object a runtime emits; such a size is a corrupt line. */
#define MAX_ENTRY_SIZE ((uint64_t)1 << 32)

static int hexval(char c)
{
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* Parses a hex number (optional 0x) at *p; returns 0 on success. */
static int parse_hex(const char **p, const char *end, uint64_t *out)
{
    const char *s = *p;
    if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s += 2;
    uint64_t v = 0;
    int digits = 0;
    for (; s < end && hexval(*s) >= 0; s++, digits++) {
        if (digits >= 16) return -1;
        v = v << 4 | (uint64_t)hexval(*s);
    }
    if (!digits) return -1;
    *p = s;
    *out = v;
    return 0;
}

void perfmap_build_index(perfmap_t *m)
{
    m->by_start = xmalloc((m->n + 1) * sizeof *m->by_start);
    m->max_end = xmalloc((m->n + 1) * sizeof *m->max_end);
    uint64_t *keys = xmalloc((m->n + 1) * sizeof *keys);
    for (size_t i = 0; i < m->n; i++) keys[i] = m->entries[i].start, m->by_start[i] = (uint32_t)i;
    radix_sort_u64(keys, m->by_start, m->n); /* stable: equal starts stay in file order */
    free(keys);
    uint64_t mx = 0;
    for (size_t i = 0; i < m->n; i++) {
        const perfmap_entry_t *e = &m->entries[m->by_start[i]];
        if (e->start + e->size > mx) mx = e->start + e->size;
        m->max_end[i] = mx;
    }
}

static perfmap_t *parse_owned(const char *name, char *text, size_t len)
{
    perfmap_t *m = xcalloc(1, sizeof *m);
    m->path = xstrdup(name);
    m->text = text;
    m->text_len = len;
    size_t cap = 0;
    uint32_t lineno = 0;
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl) break; /* incomplete last line: the runtime is still writing it */
        lineno++;
        const char *s = p, *e = nl;
        if (e > s && e[-1] == '\r') e--;
        p = nl + 1;
        if (s == e) continue;
        uint64_t start, size;
        const char *why = NULL;
        if (parse_hex(&s, e, &start) != 0 || s >= e || *s != ' ') why = "start address is not hex";
        else if (s++, parse_hex(&s, e, &size) != 0 || (s < e && *s != ' ')) why = "size is missing or not hex";
        else if (size == 0 || size > MAX_ENTRY_SIZE) why = "absurd size";
        else if (start + size < start) why = "range wraps around the address space";
        if (why) {
            if (m->malformed++ < MAX_WARNINGS) diag_warn(name, lineno, "skipping malformed perf map line (%s)", why);
            continue;
        }
        if (s < e) s++;                                /* the space before the name */
        if ((size_t)(e - text) > UINT32_MAX) continue; /* names are addressed with 32-bit offsets */
        XGROW(m->entries, cap, m->n + 1);
        /* file_offset: how many bytes the runtime had written once this line was complete */
        m->entries[m->n++] = (perfmap_entry_t){
            start, size, (uint64_t)(nl + 1 - text), (uint32_t)(s - text), (uint32_t)(e - s), lineno, 0, 0};
        text[e - text] = 0; /* names become C strings in place */
    }
    if (m->malformed > MAX_WARNINGS) diag_warn(name, 0, "%lu malformed perf map lines skipped in all", m->malformed);
    perfmap_build_index(m);
    return m;
}

perfmap_t *perfmap_parse(const char *name, const char *text, size_t len)
{
    char *copy = xmalloc(len + 1);
    memcpy(copy, text, len);
    copy[len] = 0;
    return parse_owned(name, copy, len);
}

perfmap_t *perfmap_load(const char *path)
{
    struct stat st;
    int fd = file_open_regular(path, "perf map", &st);
    if (fd < 0) return NULL;
    size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096, len = 0;
    char *text = xmalloc(cap + 1);
    for (;;) {
        if (len == cap) text = xrealloc(text, (cap *= 2) + 1);
        ssize_t r = read(fd, text + len, cap - len);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            diag_error(path, 0, "read failed: %s", strerror(errno));
            free(text);
            close(fd);
            return NULL;
        }
        if (r == 0) break;
        len += (size_t)r;
    }
    close(fd);
    text[len] = 0;
    if (memchr(text, 0, len)) {
        diag_error(path, 0, "binary data, not a perf map ('START SIZE name' text lines)");
        free(text);
        return NULL;
    }
    return parse_owned(path, text, len);
}

const perfmap_src_t *perfmap_source(const perfmap_t *m, size_t k, uint64_t addr)
{
    const perfmap_entry_t *e = &m->entries[k];
    const perfmap_src_t *best = NULL;
    for (uint32_t i = 0; i < e->src_count; i++) {
        const perfmap_src_t *s = &m->src[e->src_first + i];
        if (s->addr <= addr) best = s;
    }
    return best;
}

void perfmap_free(perfmap_t *m)
{
    if (!m) return;
    free(m->src);
    free(m->path);
    free(m->text);
    free(m->entries);
    free(m->by_start);
    free(m->max_end);
    free(m);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

size_t perfmap_covering(const perfmap_t *m, uint64_t addr, uint32_t *out, size_t max)
{
    /* Last entry (by start) with start <= addr, then walk back while some earlier entry can still reach addr. */
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->entries[m->by_start[mid]].start <= addr) lo = mid + 1;
        else hi = mid;
    }
    size_t count = 0;
    for (size_t i = lo; i-- > 0 && m->max_end[i] > addr;) {
        const perfmap_entry_t *e = &m->entries[m->by_start[i]];
        if (addr < e->start + e->size) {
            if (count < max) out[count] = m->by_start[i];
            count++;
        }
    }
    size_t kept = count < max ? count : max;
    if (kept > 1) qsort(out, kept, sizeof *out, cmp_u32);
    return count;
}

long perfmap_newest_before(const perfmap_t *m, uint64_t addr, uint64_t offset_limit)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (m->entries[m->by_start[mid]].start <= addr) lo = mid + 1;
        else hi = mid;
    }
    long best = -1;
    for (size_t i = lo; i-- > 0 && m->max_end[i] > addr;) {
        uint32_t k = m->by_start[i];
        const perfmap_entry_t *e = &m->entries[k];
        if (addr < e->start + e->size && e->file_offset <= offset_limit && (long)k > best) best = (long)k;
    }
    return best;
}

/* ---- overlapped-by-later: a segment tree over compressed coordinates holding, per
 * elementary interval, the largest file index of an entry covering it. ---- */

typedef struct {
    uint32_t *mx, *tag; /* values stored +1 so 0 = none */
    size_t size;
} segtree_t;

static void seg_update(segtree_t *t, size_t node, size_t l, size_t r, size_t ql, size_t qr, uint32_t v)
{
    if (qr <= l || r <= ql) return;
    if (ql <= l && r <= qr) {
        if (v > t->mx[node]) t->mx[node] = v;
        if (v > t->tag[node]) t->tag[node] = v;
        return;
    }
    size_t mid = (l + r) / 2;
    seg_update(t, 2 * node, l, mid, ql, qr, v);
    seg_update(t, 2 * node + 1, mid, r, ql, qr, v);
    uint32_t m = t->mx[2 * node] > t->mx[2 * node + 1] ? t->mx[2 * node] : t->mx[2 * node + 1];
    if (t->tag[node] > m) m = t->tag[node];
    t->mx[node] = m;
}

static uint32_t seg_query(const segtree_t *t, size_t node, size_t l, size_t r, size_t ql, size_t qr)
{
    if (qr <= l || r <= ql) return 0;
    if (ql <= l && r <= qr) return t->mx[node];
    size_t mid = (l + r) / 2;
    uint32_t a = seg_query(t, 2 * node, l, mid, ql, qr), b = seg_query(t, 2 * node + 1, mid, r, ql, qr);
    uint32_t m = a > b ? a : b;
    /* a tag on this node covers the whole node, hence the queried part too */
    return t->tag[node] > m ? t->tag[node] : m;
}

void perfmap_overlapped_by_later(const perfmap_t *m, uint8_t *out)
{
    size_t n = m->n;
    if (!n) return;
    /* Rank every start and end point: sort (point, which) pairs once, no searches afterwards. */
    uint64_t *c = xmalloc(2 * n * sizeof *c);
    uint32_t *which = xmalloc(2 * n * sizeof *which);
    for (size_t i = 0; i < n; i++) {
        c[2 * i] = m->entries[i].start, which[2 * i] = (uint32_t)(2 * i);
        c[2 * i + 1] = m->entries[i].start + m->entries[i].size, which[2 * i + 1] = (uint32_t)(2 * i + 1);
    }
    radix_sort_u64(c, which, 2 * n);
    uint32_t *rank = xmalloc(2 * n * sizeof *rank);
    size_t nc = 0;
    for (size_t i = 0; i < 2 * n; i++) {
        if (i && c[i] != c[i - 1]) nc++;
        rank[which[i]] = (uint32_t)nc;
    }
    nc++;
    free(which);
    free(c);
    segtree_t t = {xcalloc(4 * nc, sizeof(uint32_t)), xcalloc(4 * nc, sizeof(uint32_t)), nc};
    for (size_t i = 0; i < n; i++) seg_update(&t, 1, 0, nc, rank[2 * i], rank[2 * i + 1], (uint32_t)i + 1);
    for (size_t i = 0; i < n; i++) out[i] = seg_query(&t, 1, 0, nc, rank[2 * i], rank[2 * i + 1]) > i + 1;
    free(rank);
    free(t.mx);
    free(t.tag);
}

const char *perfmap_path_for_pid(int pid, char *buf, size_t cap)
{
    int ns = proc_ns_pid(pid);
    if (ns != pid || proc_other_mount_ns(pid)) snprintf(buf, cap, "/proc/%d/root/tmp/perf-%d.map", pid, ns);
    else snprintf(buf, cap, "/tmp/perf-%d.map", pid);
    return buf;
}
