/* Collects the v8dbg_* constants once, sorted, so decoders look them up by name in O(log n). */
#include "v8/metadata.h"
#include "util/xalloc.h"
#include <stdlib.h>
#include <string.h>

typedef struct {
    target_t *t;
    v8_metadata_t *md;
    size_t cap;
} collect_ctx_t;

static void collect(void *vctx, const char *name, uint64_t addr, uint64_t size)
{
    collect_ctx_t *c = vctx;
    uint64_t value = 0, sz = 0;
    (void)addr;
    (void)size;
    /* v8dbg_ values are compile-time constants: one that cannot be read lives in .bss, where only
     * zero-initialised ones go, and the core lacks that page (truncated): its value is 0. */
    if (target_exe_symbol_value(c->t, name, &value, &sz) != 0) {
        value = 0;
        sz = size;
    }
    /* 4-byte symbols are C ints: negative offsets must stay negative. */
    int64_t v = sz == 4 ? (int64_t)(int32_t)(uint32_t)value : (int64_t)value;
    if (c->md->count == c->cap) {
        c->cap = c->cap ? c->cap * 2 : 256;
        c->md->items = xrealloc(c->md->items, c->cap * sizeof *c->md->items);
    }
    c->md->items[c->md->count].name = xstrdup(name + strlen("v8dbg_"));
    c->md->items[c->md->count].value = v;
    c->md->count++;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const v8_constant_t *)a)->name, ((const v8_constant_t *)b)->name);
}

int v8_metadata_load(target_t *t, v8_metadata_t *md)
{
    collect_ctx_t c = {t, md, 0};
    md->items = NULL;
    md->count = 0;
    target_exe_symbols(t, "v8dbg_", collect, &c);
    if (!md->count) return -1;
    qsort(md->items, md->count, sizeof *md->items, by_name);
    /* a symbol in both .dynsym and .symtab is seen twice: keep one */
    size_t kept = 0;
    for (size_t i = 0; i < md->count; i++) {
        if (kept && !strcmp(md->items[kept - 1].name, md->items[i].name)) {
            free(md->items[i].name);
            continue;
        }
        md->items[kept++] = md->items[i];
    }
    md->count = kept;
    return 0;
}

int v8_metadata_get(const v8_metadata_t *md, const char *name, int64_t *out)
{
    v8_constant_t key = {(char *)name, 0};
    if (!md->count) return -1;
    const v8_constant_t *hit = bsearch(&key, md->items, md->count, sizeof key, by_name);
    if (!hit) return -1;
    *out = hit->value;
    return 0;
}

int v8_metadata_get_prefix(const v8_metadata_t *md, const char *prefix, int64_t *out)
{
    size_t lo = 0, hi = md->count, n = strlen(prefix);
    while (lo < hi) { /* the first name >= prefix */
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(md->items[mid].name, prefix) < 0) lo = mid + 1;
        else hi = mid;
    }
    if (lo == md->count || strncmp(md->items[lo].name, prefix, n)) return -1;
    *out = md->items[lo].value;
    return 0;
}

void v8_metadata_free(v8_metadata_t *md)
{
    for (size_t i = 0; i < md->count; i++) free(md->items[i].name);
    free(md->items);
    md->items = NULL;
    md->count = 0;
}
