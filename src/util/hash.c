#include "util/hash.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

uint64_t hash_bytes(const void *p, size_t n)
{
    /* 8 bytes at a time, mixed; good enough for frame names and stacks. */
    const unsigned char *s = p;
    uint64_t h = 0x9e3779b97f4a7c15ULL ^ (n * 0x100000001b3ULL);
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ hash_u64(w)) * 0x100000001b3ULL;
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    if (n) memcpy(&w, s, n); /* s may be NULL when n is 0 */
    h ^= hash_u64(w ^ n);
    return hash_u64(h);
}

/* ---- string pool: chunked arena + open addressing index ---- */
#define CHUNK (256 * 1024)

typedef struct chunk {
    struct chunk *next;
    size_t used, size;
    char data[];
} chunk_t;

struct strpool {
    chunk_t *chunks;
    const char **slots;
    uint32_t *lens;
    uint64_t *hashes;
    size_t cap, count;
};

strpool_t *strpool_new(void)
{
    strpool_t *sp = xcalloc(1, sizeof *sp);
    sp->cap = 1024;
    sp->slots = xcalloc(sp->cap, sizeof *sp->slots);
    sp->lens = xcalloc(sp->cap, sizeof *sp->lens);
    sp->hashes = xcalloc(sp->cap, sizeof *sp->hashes);
    return sp;
}

void strpool_free(strpool_t *sp)
{
    if (!sp) return;
    for (chunk_t *c = sp->chunks, *n; c; c = n) {
        n = c->next;
        free(c);
    }
    free(sp->slots);
    free(sp->lens);
    free(sp->hashes);
    free(sp);
}

static char *arena_alloc(strpool_t *sp, size_t n)
{
    chunk_t *c = sp->chunks;
    if (!c || c->size - c->used < n) {
        size_t sz = n > CHUNK ? n : CHUNK;
        c = xmalloc(sizeof *c + sz);
        c->size = sz;
        c->used = 0;
        c->next = sp->chunks;
        sp->chunks = c;
    }
    char *p = c->data + c->used;
    c->used += n;
    return p;
}

static void strpool_rehash(strpool_t *sp)
{
    size_t ncap = sp->cap * 2;
    const char **ns = xcalloc(ncap, sizeof *ns);
    uint32_t *nl = xcalloc(ncap, sizeof *nl);
    uint64_t *nh = xcalloc(ncap, sizeof *nh);
    for (size_t i = 0; i < sp->cap; i++) {
        if (!sp->slots[i]) continue;
        size_t j = sp->hashes[i] & (ncap - 1);
        while (ns[j]) j = (j + 1) & (ncap - 1);
        ns[j] = sp->slots[i];
        nl[j] = sp->lens[i];
        nh[j] = sp->hashes[i];
    }
    free(sp->slots);
    free(sp->lens);
    free(sp->hashes);
    sp->slots = ns;
    sp->lens = nl;
    sp->hashes = nh;
    sp->cap = ncap;
}

const char *strpool_intern(strpool_t *sp, const char *s, size_t n)
{
    if (n > UINT32_MAX) n = UINT32_MAX;
    uint64_t h = hash_bytes(s, n);
    size_t i = h & (sp->cap - 1);
    while (sp->slots[i]) {
        if (sp->hashes[i] == h && sp->lens[i] == n && memcmp(sp->slots[i], s, n) == 0) return sp->slots[i];
        i = (i + 1) & (sp->cap - 1);
    }
    char *copy = arena_alloc(sp, n + 1);
    if (n) memcpy(copy, s, n);
    copy[n] = 0;
    sp->slots[i] = copy;
    sp->lens[i] = (uint32_t)n;
    sp->hashes[i] = h;
    if (++sp->count * 2 > sp->cap) strpool_rehash(sp);
    return copy;
}

const char *strpool_cstr(strpool_t *sp, const char *s) { return strpool_intern(sp, s, strlen(s)); }
size_t strpool_count(const strpool_t *sp) { return sp->count; }

/* ---- u64map ---- */
void u64map_init(u64map_t *m) { memset(m, 0, sizeof *m); }

void u64map_free(u64map_t *m)
{
    free(m->slots);
    memset(m, 0, sizeof *m);
}

static void u64map_rehash_to(u64map_t *m, size_t ncap)
{
    u64map_slot_t *ns = xcalloc(ncap, sizeof *ns);
    for (size_t i = 0; i < m->cap; i++) {
        if (!m->slots[i].used) continue;
        size_t j = hash_u64(m->slots[i].key) & (ncap - 1);
        while (ns[j].used) j = (j + 1) & (ncap - 1);
        ns[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = ns;
    m->cap = ncap;
}

void u64map_reserve(u64map_t *m, size_t n)
{
    size_t cap = m->cap ? m->cap : 1024;
    while (cap / 2 < n) cap *= 2;
    if (cap > m->cap) u64map_rehash_to(m, cap);
}

uint32_t *u64map_upsert(u64map_t *m, uint64_t key, int *found)
{
    if ((m->count + 1) * 2 > m->cap) u64map_rehash_to(m, m->cap ? m->cap * 2 : 1024);
    size_t i = hash_u64(key) & (m->cap - 1);
    u64map_slot_t *s;
    while ((s = &m->slots[i])->used) {
        if (s->key == key) {
            *found = 1;
            return &s->val;
        }
        i = (i + 1) & (m->cap - 1);
    }
    s->used = 1;
    s->key = key;
    s->val = 0;
    m->count++;
    *found = 0;
    return &s->val;
}

int u64map_get(const u64map_t *m, uint64_t key, uint32_t *val)
{
    if (!m->cap) return 0;
    size_t i = hash_u64(key) & (m->cap - 1);
    const u64map_slot_t *s;
    while ((s = &m->slots[i])->used) {
        if (s->key == key) {
            *val = s->val;
            return 1;
        }
        i = (i + 1) & (m->cap - 1);
    }
    return 0;
}
