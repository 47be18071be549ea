/* Folded stacks: "frame;frame;frame COUNT" per line (flamegraph.pl's input).
 * Reading merges repeated stacks; writing prints one line per unique stack in
 * byte order, as stackcollapse-perf.pl does, so existing tools keep working. */
#include "formats/folded.h"
#include "formats/format.h"
#include "util/async_write.h"
#include "util/bigmem.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/radix.h"
#include "util/xalloc.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A line "stack count": returns 1 and splits it when the last token is a number. */
int folded_split_line(const char *s, size_t n, size_t *stack_len, double *count)
{
    while (n > 0 && isspace((unsigned char)s[n - 1])) n--;
    size_t e = n;
    while (e > 0 && (isdigit((unsigned char)s[e - 1]) || s[e - 1] == '.')) e--;
    if (e == n || e == 0 || !isspace((unsigned char)s[e - 1])) return 0;
    if (s[e] == '.') return 0;
    char num[64];
    size_t k = n - e < sizeof num - 1 ? n - e : sizeof num - 1;
    memcpy(num, s + e, k);
    num[k] = 0;
    char *end;
    *count = strtod(num, &end);
    if (*end) return 0;
    size_t sl = e - 1;
    while (sl > 0 && isspace((unsigned char)s[sl - 1])) sl--;
    if (sl == 0) return 0;
    *stack_len = sl;
    return 1;
}

static int folded_sniff(const char *head, size_t n)
{
    /* Look at up to 20 complete non-empty lines: all must be "stack count". */
    size_t pos = 0;
    int good = 0, bad = 0, first_good = 0;
    while (pos < n && good + bad < 40) {
        const char *nl = memchr(head + pos, '\n', n - pos);
        if (!nl) break;
        size_t len = (size_t)(nl - (head + pos));
        size_t sl;
        double c;
        if (len > 0 && head[pos] != '#') {
            if (head[pos] == '\t' || head[pos] == ' ' || !folded_split_line(head + pos, len, &sl, &c)) bad++;
            else good++;
            if (good + bad == 1) first_good = good;
        }
        pos += len + 1;
    }
    if (good == 0 && pos < n) { /* a single line without a newline */
        size_t sl;
        double c;
        if (head[pos] != '\t' && folded_split_line(head + pos, n - pos, &sl, &c)) return 30;
    }
    /* A few odd lines are tolerated (and reported when read). */
    if (good && bad * 4 <= good) return 60;
    /* More than a few, but the first line is a folded stack: most likely folded stacks with bad
     * lines, which the reader reports by line number (better than "unrecognised input") */
    return first_good ? 20 : 0;
}

/* Length of the common prefix of a and b (n bytes each), 8 bytes at a time. */
static size_t shared_prefix(const char *a, const char *b, size_t n)
{
    size_t i = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    for (; i + 8 <= n; i += 8) {
        uint64_t x, y;
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y) return i + (size_t)__builtin_ctzll(x ^ y) / 8;
    }
#endif
    while (i < n && a[i] == b[i]) i++;
    return i;
}

/* Whether frame f is the one folded text s[0..n) names: its label (profile_frame_label) is s. */
static int frame_is_text(const profile_frame_t *f, const char *s, size_t n)
{
    size_t nl = strlen(f->name);
    if (nl > n || memcmp(f->name, s, nl)) return 0;
    if (!f->url[0]) return nl == n;
    size_t ul = strlen(f->url);
    if (nl + 1 + ul > n || s[nl] != ' ' || memcmp(f->url, s + nl + 1, ul)) return 0;
    size_t at = nl + 1 + ul;
    if (f->line <= 0) return at == n;
    /* ":LINE:COL" (every cache hit checks this: no printf) */
    char tail[32];
    size_t tl = 0;
    int32_t v[2] = {f->line, f->column > 0 ? f->column : 0};
    for (int k = 0; k < 2; k++) {
        char d[12];
        int nd = 0;
        uint32_t u = (uint32_t)v[k];
        do d[nd++] = (char)('0' + u % 10), u /= 10;
        while (u);
        tail[tl++] = ':';
        while (nd) tail[tl++] = d[--nd];
    }
    return n - at == tl && !memcmp(s + at, tail, tl);
}

/* A new frame for folded text: a V8 name that ends in its definition site ("JS:*fib
 * /app/fib.js:1:13") keeps the site as the frame's url, line and column, as the perf and
 * .cpuprofile readers do (so the same function from either input is one frame); its label
 * prints the same text back. The kind comes from the whole text, as always. */
static uint32_t new_frame(profile_t *p, const char *s, size_t n)
{
    frame_kind_t kind = profile_classify_name(s, n);
    size_t name_len, url_len;
    const char *url;
    int32_t line, col;
    if (profile_v8_location(s, n, &name_len, &url, &url_len, &line, &col)) {
        const char *iurl = strpool_intern(p->strings, url, url_len);
        return profile_frame(p, s, name_len, iurl, line, col, kind);
    }
    return profile_frame(p, s, n, "", 0, 0, kind);
}

uint32_t folded_frame(profile_t *p, u64map_t *cache, const char *s, size_t n)
{
    /* one hash of the raw text finds a known frame; its label guards collisions */
    int found;
    uint32_t *slot = u64map_upsert(cache, hash_bytes(s, n), &found);
    if (found) {
        if (frame_is_text(&p->frames[*slot], s, n)) return *slot;
        return new_frame(p, s, n); /* a collision: interned, not cached */
    }
    uint32_t id = new_frame(p, s, n);
    *slot = id;
    return id;
}

static int folded_read(input_t *in, profile_t *p, const read_opts_t *o)
{
    bigmem_prepare();
    char *line;
    size_t len;
    int rc;
    long bad = 0, first_bad = 0, good = 0;
    u64map_t cache;
    u64map_init(&cache);
    /* Consecutive lines usually share a prefix (sorted folded files): the previous
     * line's text and node path let a line skip the frames it shares. */
    buf_t prev = {0};
    uint32_t *path = NULL; /* path[d] = node of the previous line at depth d+1 */
    size_t *ends = NULL;   /* ends[d] = offset in prev just past frame d */
    size_t path_cap = 0, ends_cap = 0, prev_depth = 0;
    while ((rc = input_getline(in, &line, &len)) > 0) {
        if (len == 0 || line[0] == '#') continue;
        size_t sl;
        double count;
        if (!folded_split_line(line, len, &sl, &count)) {
            if (!bad++) first_bad = in->line;
            continue;
        }
        good++;
        /* frames fully shared with the previous line */
        size_t common = shared_prefix(line, prev.data, sl < prev.len ? sl : prev.len);
        size_t depth = 0;
        while (depth < prev_depth && ends[depth] <= common && (ends[depth] == sl || line[ends[depth]] == ';') &&
               (ends[depth] == prev.len || prev.data[ends[depth]] == ';'))
            depth++;
        uint32_t node = depth ? path[depth - 1] : 0;
        size_t start = depth ? ends[depth - 1] + 1 : 0;
        while (start <= sl) {
            const char *semi = memchr(line + start, ';', sl - start);
            size_t i = semi ? (size_t)(semi - line) : sl;
            if (i > start) {
                node = profile_child(p, node, folded_frame(p, &cache, line + start, i - start));
                XGROW(path, path_cap, depth + 1);
                XGROW(ends, ends_cap, depth + 1);
                path[depth] = node;
                ends[depth] = i;
                depth++;
            }
            start = i + 1;
        }
        prev_depth = depth;
        buf_clear(&prev);
        buf_append(&prev, line, sl);
        if (depth) profile_add_self(p, node, count);
    }
    free(path);
    free(ends);
    buf_free(&prev);
    u64map_free(&cache);
    if (rc < 0) return -1;
    if (bad && !good) {
        diag_error(in->name, first_bad, "not a folded stack ('frame;frame;... COUNT'), nor is any other line");
        return -1;
    }
    if (bad) {
        if (bad == 1) diag_warn(in->name, first_bad, "not 'frame;frame;... COUNT': ignored");
        else
            diag_warn(in->name, first_bad, "not 'frame;frame;... COUNT': ignored, as %s %ld later line%s like it",
                      bad == 2 ? "is" : "are", bad - 1, bad == 2 ? "" : "s");
    }
    (void)o;
    return 0;
}

const format_reader_t format_folded_reader = {
    .name = "folded",
    .description = "folded stacks, 'frame;frame COUNT' per line",
    .sniff = folded_sniff,
    .read = folded_read,
};

/* ---- writer ---- */

/* The output is every weighted stack's text, sorted byte-wise as the Perl script
 * sorts it. The text is never built whole: lines are written one at a time, in order,
 * so memory follows the number of nodes, not the output's size.
 *
 * Ranks: a frame's label is followed in its line either by ';' (more frames follow) or
 * by the end of the stack (which sorts before any byte: a prefix sorts first). Every
 * (label, what follows) pair gets its rank among all such pairs, equal texts equal
 * ranks; two lines then compare as their rank sequences do, integer by integer. A
 * line's last rank is an end-of-stack one, which no ';' rank equals, so one sequence
 * is never a proper prefix of another.
 *
 * Order without sorting lines: the lines below a set of sibling nodes start with the
 * same ranks up to the siblings' own, so they come in the order of that rank: a sibling's
 * own line (its end rank), or all the lines of its subtree (its ';' rank) together. Walking
 * the tree depth first with each node's children sorted by those two ranks writes every
 * line in order, each prefix built once. Siblings of equal label and kind of rank (frames
 * whose labels print the same) are one step of the walk: their own lines one line with the
 * weights summed (as the Perl script's hash of stacks has it), their children merged into one
 * set of siblings. Measured on the tsc perf
 * script (17k lines, ~45 frames deep): the sort of whole rank paths was ~20% of collapse's
 * instructions and 6 MB of paths. */
typedef struct {
    uint64_t key; /* rank << 32 | node: equal ranks in node order */
} walk_item_t;

typedef struct {
    size_t base;      /* where this level's items start in the item stack */
    size_t next, end; /* the items not walked yet */
    size_t prefix;    /* length of the line text above this level */
} walk_level_t;

/* key = 2 * frame + (1 when the stack ends after it, 0 when ';' follows) */
typedef struct {
    const char *labels; /* every frame's label, ';' turned into ':' */
    const size_t *loff; /* frame f's label is labels[loff[f] .. loff[f + 1]) */
} label_order_t;

static int cmp_label_keys(const void *a, const void *b, void *ctx)
{
    uint32_t ka = *(const uint32_t *)a, kb = *(const uint32_t *)b;
    const label_order_t *o = ctx;
    uint32_t fa = ka >> 1, fb = kb >> 1;
    const unsigned char *la = (const unsigned char *)o->labels + o->loff[fa];
    const unsigned char *lb = (const unsigned char *)o->labels + o->loff[fb];
    size_t na = o->loff[fa + 1] - o->loff[fa], nb = o->loff[fb + 1] - o->loff[fb];
    int c = memcmp(la, lb, na < nb ? na : nb);
    if (c) return c;
    /* what follows the shorter label meets the longer label's next byte */
    int ta = (ka & 1) ? -1 : ';', tb = (kb & 1) ? -1 : ';';
    if (na < nb) return ta < (int)lb[na] ? -1 : 1;
    if (na > nb) return (int)la[nb] < tb ? -1 : 1;
    return ta < tb ? -1 : ta > tb;
}

/* Bytes [at, at + 8) of key k's text, big-endian: its label, then 0 for the end of the stack
 * or ';', then zeros. Labels hold no NUL and no ';', so these compare as cmp_label_keys does. */
static uint64_t key_bytes(const label_order_t *o, uint32_t k, size_t at)
{
    const unsigned char *l = (const unsigned char *)o->labels + o->loff[k >> 1];
    size_t n = o->loff[(k >> 1) + 1] - o->loff[k >> 1];
    uint64_t v = 0;
    for (size_t i = at; i < at + 8; i++) v = v << 8 | (i < n ? l[i] : i == n && !(k & 1) ? ';' : 0);
    return v;
}

/* keys[0..n) = every key, in cmp_label_keys order: radix sorted on their first 16 bytes,
 * then the runs that share those compared whole (qsort_r on all of them was ~25% of writing) */
static void sort_label_keys(const label_order_t *o, uint32_t *keys, size_t n)
{
    uint64_t *hi = xmalloc((n + 1) * sizeof *hi), *lo = xmalloc((n + 1) * sizeof *lo),
             *lo0 = xmalloc((n + 1) * sizeof *lo0);
    for (size_t k = 0; k < n; k++) {
        keys[k] = (uint32_t)k;
        lo[k] = lo0[k] = key_bytes(o, (uint32_t)k, 8);
    }
    radix_sort_u64(lo, keys, n); /* stable: then by the first 8 bytes */
    for (size_t j = 0; j < n; j++) hi[j] = key_bytes(o, keys[j], 0);
    radix_sort_u64(hi, keys, n);
    for (size_t j = 0; j < n;) {
        size_t e = j + 1;
        while (e < n && hi[e] == hi[j] && lo0[keys[e]] == lo0[keys[j]]) e++;
        if (e - j > 1) qsort_r(keys + j, e - j, sizeof *keys, cmp_label_keys, (void *)o);
        j = e;
    }
    free(hi), free(lo), free(lo0);
}

static int cmp_items(const void *a, const void *b)
{
    uint64_t x = ((const walk_item_t *)a)->key, y = ((const walk_item_t *)b)->key;
    return x < y ? -1 : x > y;
}

typedef void (*line_sink_t)(void *ctx, const char *s, size_t n);

typedef struct {
    walk_item_t *v;
    size_t n, cap;
} item_stack_t;

/* Pushes the items of node's children: an own line (self weight) and a subtree (children). */
static void push_children(item_stack_t *st, const profile_t *p, const uint32_t *first, const uint32_t *kids,
                          const uint32_t *rank, uint32_t node)
{
    for (uint32_t k = first[node]; k < first[node + 1]; k++) {
        uint32_t c = kids[k], f = p->nodes[c].frame;
        if (st->n + 2 > st->cap) XGROW(st->v, st->cap, st->n + 2);
        if (p->nodes[c].self != 0) st->v[st->n++].key = (uint64_t)rank[2 * f + 1] << 32 | c;
        if (first[c + 1] > first[c]) st->v[st->n++].key = (uint64_t)rank[2 * f] << 32 | c;
    }
}

static void write_lines(const profile_t *p, line_sink_t sink, void *sink_ctx)
{
    buf_t labels = {0};
    size_t *loff = xmalloc((p->nframes + 1) * sizeof *loff);
    for (size_t f = 0; f < p->nframes; f++) {
        loff[f] = labels.len;
        size_t at = labels.len;
        profile_frame_label(p, (uint32_t)f, &labels);
        for (char *q = labels.data + at; (q = memchr(q, ';', labels.len - (size_t)(q - labels.data))) != NULL;)
            *q++ = ':';
    }
    loff[p->nframes] = labels.len;

    /* rank of every (label, what follows) */
    size_t nkeys = 2 * p->nframes;
    uint32_t *keys = xmalloc((nkeys + 1) * sizeof *keys);
    uint32_t *rank = xmalloc((nkeys + 1) * sizeof *rank);
    label_order_t lo = {labels.data, loff};
    sort_label_keys(&lo, keys, nkeys);
    for (size_t k = 0, r = 0; k < nkeys; k++) {
        if (k && cmp_label_keys(&keys[k - 1], &keys[k], &lo) != 0) r++;
        rank[keys[k]] = (uint32_t)r;
    }
    free(keys);

    /* children of every node: kids[first[n] .. first[n + 1]) */
    size_t nn = p->nnodes;
    uint32_t *first = xcalloc(nn + 1, sizeof *first);
    uint32_t *kids = xmalloc((nn ? nn : 1) * sizeof *kids);
    for (size_t i = 1; i < nn; i++) first[p->nodes[i].parent + 1]++;
    for (size_t i = 0; i < nn; i++) first[i + 1] += first[i];
    {
        uint32_t *at = xmalloc((nn ? nn : 1) * sizeof *at);
        memcpy(at, first, nn * sizeof *at);
        for (size_t i = 1; i < nn; i++) kids[at[p->nodes[i].parent]++] = (uint32_t)i;
        free(at);
    }

    item_stack_t st = {0};
    walk_level_t *levels = NULL;
    size_t nlevels = 0, levels_cap = 0;
    buf_t line = {0};
    if (nn) {
        push_children(&st, p, first, kids, rank, 0);
        if (st.n > 1) qsort(st.v, st.n, sizeof *st.v, cmp_items);
        XGROW(levels, levels_cap, 1);
        levels[nlevels++] = (walk_level_t){0, 0, st.n, 0};
    }
    while (nlevels) {
        walk_level_t *lv = &levels[nlevels - 1];
        if (lv->next == lv->end) {
            st.n = lv->base;
            nlevels--;
            continue;
        }
        uint64_t key = st.v[lv->next].key;
        uint32_t node = (uint32_t)key, f = p->nodes[node].frame;
        uint32_t r = (uint32_t)(key >> 32);
        line.len = lv->prefix;
        buf_append(&line, labels.data + loff[f], loff[f + 1] - loff[f]);
        if (r == rank[2 * f + 1]) {
            /* an own line, with every sibling of the same label (frames that differ only in what
               the text does not show: a live sample's JS function at two tiers) */
            double w = 0;
            size_t g = lv->next;
            for (; g < lv->end && (uint32_t)(st.v[g].key >> 32) == r; g++) w += p->nodes[(uint32_t)st.v[g].key].self;
            lv->next = g;
            buf_putc(&line, ' ');
            buf_put_weight(&line, w);
            buf_putc(&line, '\n');
            sink(sink_ctx, line.data, line.len);
            continue;
        }
        /* a subtree, with every sibling of the same rank: their children are the next level */
        buf_putc(&line, ';');
        size_t g0 = lv->next, g = g0, end = lv->end;
        while (g < end && (uint32_t)(st.v[g].key >> 32) == r) g++;
        lv->next = g;
        size_t base = st.n;
        for (size_t k = g0; k < g; k++) push_children(&st, p, first, kids, rank, (uint32_t)st.v[k].key);
        if (st.n - base > 1) qsort(st.v + base, st.n - base, sizeof *st.v, cmp_items);
        if (nlevels == levels_cap) XGROW(levels, levels_cap, nlevels + 1);
        levels[nlevels++] = (walk_level_t){base, base, st.n, line.len};
    }
    buf_free(&line);
    free(levels);
    free(st.v);
    free(first);
    free(kids);
    free(rank);
    free(loff);
    buf_free(&labels);
}

static void sink_buf(void *ctx, const char *s, size_t n) { buf_append(ctx, s, n); }

void folded_write_buf(const profile_t *p, buf_t *out) { write_lines(p, sink_buf, out); }

static void sink_file(void *ctx, const char *s, size_t n) { async_writer_put(ctx, s, n); }

static int folded_write(const profile_t *p, FILE *out, const write_opts_t *o)
{
    (void)o;
    async_writer_t *w = async_writer_open(out);
    write_lines(p, sink_file, w);
    return async_writer_close(w);
}

const format_writer_t format_folded_writer = {
    .name = "folded",
    .extensions = ".folded .collapsed .txt.folded",
    .write = folded_write,
};
