/* The heap walk: every object on V8's heap, page by page, object by object.
 *
 * V8 (x64, no pointer compression) allocates its heap in chunks aligned to 256 KiB. A chunk's
 * header names the Heap it belongs to and the area [area_start, area_end) its objects fill; a
 * large-object chunk is bigger than 256 KiB and holds one object. Where the header lives changed:
 *   V8 10.2, 11.3 (Node 18, 20): in the chunk: size, flags, heap, area_start, area_end (words 0-4)
 *   V8 12.4 (Node 22):           in the chunk: flags, (self), size, heap, area_start, area_end
 *   V8 13.6 (Node 24):           the chunk has flags and a pointer to off-heap metadata, whose
 *                                words 7, 8, 9 are area_end, heap, area_start
 * (read off real cores of each major; V8's memory-chunk.h / memory-chunk-metadata.h). Rather than
 * trusting one candidate, every 256 KiB-aligned address of anonymous memory is tried, and only
 * chunks whose header has a plausible area inside the chunk and points at the Heap most chunks
 * point at (the main isolate's) are walked. Pages flagged FROM_PAGE (the young generation's
 * from-space: stale copies left by the last scavenge) are skipped, and so are pages in executable
 * memory (code space: no JavaScript objects there).
 *
 * Within a page objects follow each other without gaps: each starts with its map, and the map
 * gives the size (instance_size, or for variable-size objects a length field read per type).
 * Where the size cannot be known the walk resyncs: it scans forward for the next word that is a
 * map (a heap object whose own map is the meta map), and tells the callback how far that is
 * (extent: free space there ends the object too). Free space is skipped by its size.
 * Everything is bounded: a corrupt page ends that page's walk, never the process. */
#include "util/hash.h"
#include "util/xalloc.h"
#include "v8/v8_internal.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define CHUNK_SIZE (256u * 1024u)
#define FROM_PAGE_FLAG (1u << 3)
#define MAX_AREA_OFFSET 0x10000u      /* the area starts within the first 64 KiB */
#define PROTOTYPE_MAP_BIT 20          /* Map::bit_field3 IsPrototypeMapBit (V8 10-13) */
#define MAX_LARGE_OBJECT (1ull << 34) /* 16 GiB: more is corruption */

/* Size rules for variable-size instance types (instance_size 0 in their maps). */
enum {
    SZ_UNKNOWN,
    SZ_FIXED_ARRAY,
    SZ_DOUBLE_ARRAY,
    SZ_BYTE_ARRAY,
    SZ_BYTECODE,
    SZ_FREE_SPACE,
    SZ_PROPERTY_ARRAY,
    SZ_DESCRIPTORS,
    SZ_WEAK_ARRAY_LIST,
    SZ_SEQ_ONE_BYTE,
    SZ_SEQ_TWO_BYTE,
};

#define MAX_MAP_FACTS 1000000 /* words map_lookup answers for: more is a hostile heap */

typedef struct {
    uint64_t map;
    int type;
    uint32_t instance_size; /* bytes, 0 = variable */
    uint8_t rule;
    uint8_t is_prototype;
} map_info_t;

typedef struct {
    uint64_t chunk, area_start, area_end, heap, flags;
    int code; /* in executable memory: code space, which holds no JavaScript objects and whose
                   machine code embeds map pointers that a resync would take for objects */
    int ro;   /* read-only space: no Heap of its own, shared by every isolate */
} page_t;

struct v8_heap {
    v8_t *v;
    uint64_t meta_map;
    page_t *pages;
    size_t npages;
    u64map_t maps; /* map address -> index + 1 into info */
    map_info_t *info;
    size_t ninfo, cap_info;
    struct {          /* recent maps looked up and their maps value, direct-mapped: */
        uint64_t map; /* neighbours share a few maps (an object, its strings, its arrays) */
        uint32_t idx;
    } recent[64];
    uint8_t rule_by_type[4096];
    int first_js_type, free_space_type;
    int64_t bca_data;
    unsigned char *buf;    /* one page's bytes for targets without direct access */
    int release;           /* the target is a core file mapped by target/: pages may be handed back */
    uint64_t touched;      /* bytes of the mapped core touched since the resident set was checked */
    int64_t resident_base; /* file-backed resident bytes when the heap was opened */
};

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && !strcmp(s + n - m, suffix);
}

static void set_rule(v8_heap_t *h, int type, int rule)
{
    if (type >= 0 && type < (int)sizeof h->rule_by_type) h->rule_by_type[type] = (uint8_t)rule;
}

/* Which length field sizes each variable-size type, by the instance type names the metadata has. */
static void classify_types(v8_heap_t *h)
{
    const v8_t *v = h->v;
    h->first_js_type = -1;
    for (size_t i = 0; i < v->ntypes; i++) {
        const char *n = v->types[i].name;
        int t = v->types[i].type;
        if (!n) continue;
        if (!strncmp(n, "JS_", 3) && (h->first_js_type < 0 || t < h->first_js_type)) h->first_js_type = t;
        if (!strcmp(n, "FIXED_DOUBLE_ARRAY_TYPE")) set_rule(h, t, SZ_DOUBLE_ARRAY);
        else if (!strcmp(n, "FIXED_ARRAY_TYPE") || !strcmp(n, "WEAK_FIXED_ARRAY_TYPE") ||
                 !strcmp(n, "TRUSTED_FIXED_ARRAY_TYPE") || !strcmp(n, "PROTECTED_FIXED_ARRAY_TYPE") ||
                 !strcmp(n, "TRUSTED_WEAK_FIXED_ARRAY_TYPE") || !strcmp(n, "PROTECTED_WEAK_FIXED_ARRAY_TYPE") ||
                 !strcmp(n, "CLOSURE_FEEDBACK_CELL_ARRAY_TYPE") || !strcmp(n, "OBJECT_BOILERPLATE_DESCRIPTION_TYPE") ||
                 !strcmp(n, "EMBEDDER_DATA_ARRAY_TYPE") ||
                 (ends_with(n, "_DICTIONARY_TYPE") && strncmp(n, "SWISS", 5) && strncmp(n, "SMALL", 5)) ||
                 (ends_with(n, "HASH_TABLE_TYPE")) || !strcmp(n, "ORDERED_HASH_MAP_TYPE") ||
                 !strcmp(n, "ORDERED_HASH_SET_TYPE") || ends_with(n, "_CONTEXT_TYPE"))
            set_rule(h, t, SZ_FIXED_ARRAY);
        else if (!strcmp(n, "BYTE_ARRAY_TYPE") || !strcmp(n, "TRUSTED_BYTE_ARRAY_TYPE")) set_rule(h, t, SZ_BYTE_ARRAY);
        else if (!strcmp(n, "BYTECODE_ARRAY_TYPE")) set_rule(h, t, SZ_BYTECODE);
        else if (!strcmp(n, "FREE_SPACE_TYPE")) h->free_space_type = t;
        else if (!strcmp(n, "PROPERTY_ARRAY_TYPE")) set_rule(h, t, SZ_PROPERTY_ARRAY);
        else if (!strcmp(n, "DESCRIPTOR_ARRAY_TYPE") || !strcmp(n, "STRONG_DESCRIPTOR_ARRAY_TYPE"))
            set_rule(h, t, SZ_DESCRIPTORS);
        else if (!strcmp(n, "WEAK_ARRAY_LIST_TYPE")) set_rule(h, t, SZ_WEAK_ARRAY_LIST);
    }
    /* Contexts are FixedArray-shaped; the metadata gives their type range, not their names. */
    if (v->L.first_context_type >= 0)
        for (int64_t t = v->L.first_context_type; t <= v->L.last_context_type && t < 4096; t++)
            set_rule(h, (int)t, SZ_FIXED_ARRAY);
    /* Node 24-26's metadata has no FREE_SPACE_TYPE: the layout derives it (layout.c) */
    if (h->free_space_type < 0) h->free_space_type = v->L.type_free_space;
    if (h->free_space_type >= 0) set_rule(h, h->free_space_type, SZ_FREE_SPACE);
    /* Strings: the sequential ones are sized by their length. */
    if (v->L.first_nonstring > 0 && v->L.str_repr_mask >= 0 && v->L.str_enc_mask >= 0)
        for (int t = 0; t < v->L.first_nonstring && t < 4096; t++)
            if ((t & v->L.str_repr_mask) == v->L.str_seq)
                set_rule(h, t, (t & v->L.str_enc_mask) == v->L.str_one_byte ? SZ_SEQ_ONE_BYTE : SZ_SEQ_TWO_BYTE);
    int64_t x;
    h->bca_data = v8_metadata_get(&v->md, "class_BytecodeArray__data__uintptr_t", &x) == 0 ? x : -1;
}

static inline uint64_t rd64(const unsigned char *p)
{
    uint64_t x;
    memcpy(&x, p, 8);
    return x;
}

/* A core is mmap'ed: every page the walk touches would stay in our resident set (a 1 GB heap,
 * 1 GB RSS). The core's pages are handed back when the file-backed resident set has grown by
 * RELEASE_BUDGET: one madvise and one TLB flush per budget, not one per page (per-page madvise was
 * 20% of a walk on a VM, where each flush interrupts the other CPUs). The resident set is measured
 * (/proc/self/statm) rather than estimated from what was read: a fault maps the pages around it
 * too, 64 KiB to a whole large folio depending on the kernel and file system. It is checked every
 * CHECK_EVERY bytes touched (a page walked, a header or a map candidate read: FAULT_AROUND each). */
#define RELEASE_BUDGET (64ull << 20)
#define CHECK_EVERY (8ull << 20)
#define FAULT_AROUND (64u * 1024u)

/* Resident file-backed bytes (statm's "shared"), -1 when unknown. */
static int64_t file_resident(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long size, res, shared;
    int n = f ? fscanf(f, "%llu %llu %llu", &size, &res, &shared) : 0;
    if (f) fclose(f);
    return n == 3 ? (int64_t)shared * sysconf(_SC_PAGESIZE) : -1;
}

static void touch(v8_heap_t *h, uint64_t bytes)
{
    if (!h->release) return;
    h->touched += bytes;
    if (h->touched < CHECK_EVERY) return;
    h->touched = 0;
    int64_t now = file_resident();
    if (now < 0 || now > h->resident_base + (int64_t)RELEASE_BUDGET) target_release_pages(h->v->t);
}

static void release_now(v8_heap_t *h)
{
    if (h->release) target_release_pages(h->v->t);
    h->touched = 0;
}

/* The facts of a map (tagged address), cached; NULL when m is not a map. */
static const map_info_t *map_lookup(v8_heap_t *h, uint64_t m)
{
    uint32_t idx;
    size_t r = (size_t)((m >> 3) ^ (m >> 9)) & 63;
    if (h->recent[r].map == m && m) return h->recent[r].idx ? &h->info[h->recent[r].idx - 1] : NULL;
    if (u64map_get(&h->maps, m, &idx)) {
        h->recent[r].map = m, h->recent[r].idx = idx;
        return idx ? &h->info[idx - 1] : NULL;
    }
    const v8_t *v = h->v;
    unsigned char hdr[24];
    /* A map's map is a meta map: the read-only root one, or (V8 >= 12) a native context's own,
       contextful one. A meta map is its own map. */
    int ok = (m & 7) == (uint64_t)v->L.heap_tag && target_read(v->t, m - (uint64_t)v->L.heap_tag, hdr, sizeof hdr) == 0;
    touch(h, FAULT_AROUND);
    if (ok && rd64(hdr) != h->meta_map) {
        uint64_t mm = rd64(hdr), mmm;
        ok = (mm & 7) == (uint64_t)v->L.heap_tag && target_read_u64(v->t, mm - (uint64_t)v->L.heap_tag, &mmm) == 0 &&
             mmm == mm;
    }
    if (h->maps.count > MAX_MAP_FACTS) return NULL; /* bounded memory on hostile heaps */
    int found;
    uint32_t *slot = u64map_upsert(&h->maps, m, &found);
    if (!ok) {
        *slot = 0;
        return NULL;
    }
    if (h->ninfo == h->cap_info) {
        h->cap_info = h->cap_info ? h->cap_info * 2 : 256;
        h->info = xrealloc(h->info, h->cap_info * sizeof *h->info);
    }
    map_info_t *mi = &h->info[h->ninfo++];
    /* instance_size_in_words (u8, +8) and instance_type (u16, +12) are in the map's second word */
    uint16_t type;
    const unsigned char *f = hdr + 8;
    memcpy(&type, f + (v->L.map_type - 8), 2);
    mi->map = m;
    mi->type = type;
    mi->instance_size = (uint32_t)f[v->L.map_instance_size - 8] * 8u;
    mi->rule = type < 4096 ? h->rule_by_type[type] : SZ_UNKNOWN;
    uint32_t bf3 = 0;
    if (v->L.map_bit_field3 >= 8 && v->L.map_bit_field3 <= 20) memcpy(&bf3, hdr + v->L.map_bit_field3, 4);
    mi->is_prototype = (bf3 >> PROTOTYPE_MAP_BIT) & 1;
    *u64map_upsert(&h->maps, m, &found) = (uint32_t)h->ninfo;
    return mi;
}

/* The size of the object at p (bytes available from p: avail), 0 when unknown. */
static uint64_t object_size(v8_heap_t *h, const map_info_t *mi, const unsigned char *p, uint64_t avail)
{
    if (mi->instance_size) return mi->instance_size;
    if (avail < 16) return 0;
    uint64_t w1 = rd64(p + 8);
    int64_t smi = (int64_t)w1 >> 32;
    int smi_ok = (w1 & 0xffffffffu) == 0 && smi >= 0;
    uint64_t n;
    switch (mi->rule) {
    case SZ_FIXED_ARRAY: return smi_ok ? 16 + 8 * (uint64_t)smi : 0;
    case SZ_DOUBLE_ARRAY: return smi_ok ? 16 + 8 * (uint64_t)smi : 0;
    case SZ_BYTE_ARRAY: return smi_ok ? (16 + (uint64_t)smi + 7) & ~7ull : 0;
    case SZ_BYTECODE: return smi_ok && h->bca_data > 0 ? ((uint64_t)h->bca_data + (uint64_t)smi + 7) & ~7ull : 0;
    case SZ_FREE_SPACE:
        if (!smi_ok) return 0;
        return h->v->major >= 13 ? 8 * (uint64_t)smi : (uint64_t)smi; /* V8 13 counts words */
    case SZ_PROPERTY_ARRAY: return smi_ok ? 16 + 8 * ((uint64_t)smi & 1023) : 0;
    case SZ_DESCRIPTORS: {
        uint16_t all;
        memcpy(&all, p + 8, 2);
        return 24 + 24 * (uint64_t)all;
    }
    case SZ_WEAK_ARRAY_LIST: return smi_ok ? 24 + 8 * (uint64_t)smi : 0;
    case SZ_SEQ_ONE_BYTE:
    case SZ_SEQ_TWO_BYTE: {
        int32_t len;
        memcpy(&len, p + 12, 4);
        if (len < 0) return 0;
        n = (uint64_t)len * (mi->rule == SZ_SEQ_TWO_BYTE ? 2 : 1);
        return (16 + n + 7) & ~7ull;
    }
    default: return 0;
    }
}

/* A chunk header candidate at chunk: 0 and *pg filled when plausible. */
static int read_page(v8_heap_t *h, uint64_t chunk, page_t *pg, int read_only)
{
    target_t *t = h->v->t;
    uint64_t w[8];
    if (target_read(t, chunk, w, sizeof w) != 0) return -1;
    int major = h->v->major;
    if (major <= 11) *pg = (page_t){chunk, w[3], w[4], w[2], w[1], 0, 0};
    else if (major == 12) *pg = (page_t){chunk, w[4], w[5], w[3], w[0], 0, 0};
    else {
        uint64_t m[10];
        if (w[1] >= chunk && w[1] < chunk + CHUNK_SIZE) return -1;
        if (target_read(t, w[1], m, sizeof m) != 0) return -1;
        *pg = (page_t){chunk, m[9], m[7], m[8], w[0], 0, 0};
    }
    if (pg->area_start <= chunk || pg->area_start - chunk >= MAX_AREA_OFFSET || (pg->area_start & 7)) return -1;
    if (pg->area_end <= pg->area_start || pg->area_end - chunk > MAX_LARGE_OBJECT) return -1;
    /* V8's read-only space (maps, oddballs, builtin names) belongs to no Heap: its pages name
       none, in a mapping the process cannot write */
    if (!pg->heap) return read_only ? (pg->ro = 1, 0) : -1;
    if (pg->heap >= chunk && pg->heap < pg->area_end) return -1;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static v8_heap_t *heap_open(v8_t *v, const target_mapping_t *ranges, size_t nranges)
{
    v8_heap_t *h = xcalloc(1, sizeof *h);
    h->v = v;
    h->free_space_type = -1;
    h->release = nranges > 0 && !strcmp(target_kind(v->t), "core");
    if (h->release) h->resident_base = file_resident();
    u64map_init(&h->maps);
    classify_types(h);
    size_t cap = 0;
    size_t nm = nranges ? nranges : 1;
    for (size_t i = 0; i < nm; i++) {
        const target_mapping_t *mp = nranges ? target_mapping(v->t, i) : ranges;
        if (mp->path || !mp->present || mp->end <= mp->start) continue;
        for (uint64_t c = (mp->start + CHUNK_SIZE - 1) & ~(uint64_t)(CHUNK_SIZE - 1); c + 64 <= mp->end;
             c += CHUNK_SIZE) {
            page_t pg;
            int ok = read_page(h, c, &pg, !(mp->prot & PROT_WRITE)) == 0;
            touch(h, FAULT_AROUND);
            if (!ok) continue;
            pg.code = (mp->prot & PROT_EXEC) != 0;
            if (h->npages == cap) {
                cap = cap ? cap * 2 : 256;
                h->pages = xrealloc(h->pages, cap * sizeof *h->pages);
            }
            h->pages[h->npages++] = pg;
            if (h->npages > 4000000) break;
        }
    }
    /* The Heap most pages name is the main isolate's; drop the rest (other isolates, garbage). */
    if (h->npages) {
        uint64_t *heaps = xmalloc(h->npages * sizeof *heaps);
        for (size_t i = 0; i < h->npages; i++) heaps[i] = h->pages[i].heap;
        qsort(heaps, h->npages, sizeof *heaps, cmp_u64);
        uint64_t best = heaps[0];
        size_t bestn = 0;
        for (size_t i = 0, j; i < h->npages; i = j) {
            for (j = i; j < h->npages && heaps[j] == heaps[i]; j++) {}
            if (j - i > bestn) bestn = j - i, best = heaps[i];
        }
        free(heaps);
        size_t k = 0;
        uint64_t covered = 0; /* chunks inside a large page already taken */
        for (size_t i = 0; i < h->npages; i++) {
            page_t pg = h->pages[i];
            if ((pg.heap != best && !pg.ro) || pg.chunk < covered) continue;
            h->pages[k++] = pg;
            if (pg.area_end - pg.chunk > CHUNK_SIZE) covered = pg.area_end;
        }
        h->npages = k;
    }
    /* The meta map: the map of a map; a page's first object's map's map. */
    for (size_t i = 0; i < h->npages && !h->meta_map; i++) {
        uint64_t m, mm, mmm;
        if (target_read_u64(v->t, h->pages[i].area_start, &m) != 0 || (m & 3) != 1) continue;
        if (target_read_u64(v->t, m - 1, &mm) != 0 || (mm & 3) != 1) continue;
        if (target_read_u64(v->t, mm - 1, &mmm) != 0) continue;
        if (mmm == mm) h->meta_map = mm;
    }
    release_now(h);
    return h;
}

v8_heap_t *v8_heap_open(v8_t *v)
{
    static const target_mapping_t none = {0, 0, 0, 0, NULL, 0};
    size_t n = target_mapping_count(v->t);
    return heap_open(v, n ? NULL : &none, n);
}

v8_heap_t *v8_heap_open_range(v8_t *v, uint64_t start, uint64_t end)
{
    const target_mapping_t r = {start, end, 0, PROT_READ | PROT_WRITE, NULL, 1};
    return heap_open(v, &r, 0);
}

void v8_heap_close(v8_heap_t *h)
{
    if (!h) return;
    u64map_free(&h->maps);
    free(h->info);
    free(h->pages);
    free(h->buf);
    free(h);
}

size_t v8_heap_page_count(const v8_heap_t *h) { return h->npages; }
int v8_heap_page_range(const v8_heap_t *h, size_t i, uint64_t *start, uint64_t *end)
{
    if (i >= h->npages) return -1;
    *start = h->pages[i].chunk;
    *end = h->pages[i].area_end;
    return 0;
}
uint64_t v8_heap_area_end(const v8_heap_t *h, uint64_t addr)
{
    size_t lo = 0, hi = h->npages;
    while (lo < hi) { /* the first page starting above addr */
        size_t mid = (lo + hi) / 2;
        if (h->pages[mid].chunk <= addr) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return 0;
    const page_t *pg = &h->pages[lo - 1];
    return addr < pg->area_end ? pg->area_end : 0;
}
int v8_heap_page_read_only(const v8_heap_t *h, size_t i) { return i < h->npages && h->pages[i].ro; }
int v8_heap_found(const v8_heap_t *h) { return h->npages > 0 && h->meta_map != 0; }

int v8_heap_is_js_type(const v8_heap_t *h, int type) { return h->first_js_type >= 0 && type >= h->first_js_type; }

int v8_heap_walk(v8_heap_t *h, v8_heap_cb cb, void *ctx, v8_heap_stats_t *st)
{
    return v8_heap_walk_pages(h, cb, NULL, NULL, ctx, st);
}

int v8_heap_walk_pages(v8_heap_t *h, v8_heap_cb cb, void (*page_done)(void *ctx), v8_heap_page_skip_fn page_skip,
                       void *ctx, v8_heap_stats_t *st)
{
    v8_heap_stats_t local;
    if (!st) st = &local;
    memset(st, 0, sizeof *st);
    if (!v8_heap_found(h)) return -1;
    target_t *t = h->v->t;
    for (size_t pi = 0; pi < h->npages; pi++) {
        const page_t *pg = &h->pages[pi];
        if ((pg->flags & FROM_PAGE_FLAG) || pg->code) {
            st->skipped_pages++;
            continue;
        }
        int large = pg->area_end - pg->chunk > CHUNK_SIZE;
        if (page_skip && page_skip(ctx, pg->area_start, pg->area_end, large)) continue;
        /* A large page holds one object: only its header is needed. */
        uint64_t len = pg->area_end - pg->area_start;
        if (large && len > 4096) len = 4096;
        const unsigned char *base = target_direct(t, pg->area_start, len);
        if (!base) {
            if (!h->buf) h->buf = xmalloc(CHUNK_SIZE);
            if (len > CHUNK_SIZE || target_read(t, pg->area_start, h->buf, len) != 0) {
                st->unreadable_pages++;
                continue;
            }
            base = h->buf;
        }
        st->pages++;
        if (base != h->buf) touch(h, len);
        if (large) {
            const map_info_t *mi = map_lookup(h, rd64(base));
            if (!mi) continue;
            v8_heap_object_t o = {pg->area_start + 1,
                                  mi->map,
                                  mi->type,
                                  pg->area_end - pg->area_start,
                                  1,
                                  mi->is_prototype,
                                  base,
                                  len,
                                  0};
            uint64_t sz = object_size(h, mi, base, len);
            if (sz && sz <= o.size) o.size = sz;
            st->objects++;
            st->bytes += o.size;
            if (cb && cb(ctx, &o)) {
                release_now(h);
                return 1;
            }
            if (page_done) page_done(ctx);
            continue;
        }
        uint64_t off = 0;
        while (off + 8 <= len) {
            const map_info_t *mi = map_lookup(h, rd64(base + off));
            if (!mi) { /* not an object start: resync at the next map */
                st->resyncs++;
                do off += 8;
                while (off + 8 <= len && !map_lookup(h, rd64(base + off)));
                continue;
            }
            uint64_t sz = object_size(h, mi, base + off, len - off);
            if (mi->type == h->free_space_type && sz >= 8 && sz <= len - off) {
                off += sz;
                continue;
            }
            /* unknown size: the next object starts at the next map word (free space's too: an
               object the walk cannot size must not be taken to cover the free space after it) */
            v8_heap_object_t o = {pg->area_start + off + 1, mi->map,    mi->type,  sz, 0,
                                  mi->is_prototype,         base + off, len - off, 0};
            uint64_t next = 0; /* (mi is not used after this: a map found here may move h->info) */
            if (sz == 0 || sz > len - off || (sz & 7)) {
                for (next = off + 8; next + 8 <= len && !map_lookup(h, rd64(base + next));) next += 8;
                o.extent = next - off;
            }
            st->objects++;
            st->bytes += sz;
            if (cb && cb(ctx, &o)) {
                release_now(h);
                return 1;
            }
            if (next) { /* resync there */
                if (sz) st->resyncs++;
                off = next;
                continue;
            }
            off += sz;
        }
        if (page_done) page_done(ctx);
    }
    release_now(h);
    return 0;
}

void v8_heap_map_fact(v8_heap_t *h, uint64_t word, v8_map_fact_t *f)
{
    const map_info_t *mi = map_lookup(h, word);
    memset(f, 0, sizeof *f);
    f->word = word;
    if (!mi) return;
    f->is_map = 1;
    f->type = mi->type;
    f->instance_size = mi->instance_size;
    f->is_prototype = mi->is_prototype;
}

int v8_heap_function_shared(v8_heap_t *h, const v8_heap_object_t *o, uint64_t *shared)
{
    const v8_t *v = h->v;
    /* JSFunction and its subtypes (class, Promise, Array ... constructors) sit just below
       JS_FUNCTION_TYPE in V8's instance type list; the shared field confirms it. */
    if (v->L.type_js_function < 0 || o->type > v->L.type_js_function || o->type < v->L.type_js_function - 32) return -1;
    if (o->size && (int64_t)o->size <= v->L.fn_shared) return -1;
    uint64_t s, m;
    if (target_read_u64(v->t, o->addr - (uint64_t)v->L.heap_tag + (uint64_t)v->L.fn_shared, &s) != 0) return -1;
    if ((s & 3) != 1 || target_read_u64(v->t, s - 1, &m) != 0) return -1;
    const map_info_t *mi = map_lookup(h, m);
    if (!mi || mi->type != v->L.type_sfi) return -1;
    *shared = s;
    return 0;
}
