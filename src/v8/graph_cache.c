/* The object graph in one file, read back by mmap: the second query on a core answers without
 * walking the heap (v8_graph_save, v8_graph_load, v8_graph_cache_origin). */
#include "util/bigmem.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/xalloc.h"
#include "v8/graph_internal.h"
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- the cache file ----
 * header, then arrays each starting at a multiple of 8: nodes, first, tgt, slot, dist, parent,
 * pslot, level, roots (node, level, name offset), root names, the origin (the core's path, for
 * the cache's housekeeping). No reverse edges: a query scans tgt for its object
 * (v8_graph_retainers). */
#define CACHE_MAGIC 0x3148505247534e4eull /* "NNSGRPH1" */
/* Bumped whenever what a graph holds changes (nodes, edges, roots, paths), not only the layout:
 * an old file would answer with the old graph. 10: an object of unknown size ends where free space
 * begins; 8: read-only space; 7: nodes are no longer dropped by infer_sizes, and
 * paths avoid V8's caches (V8_LEVEL_INTERNAL in level), script contexts and ES modules are roots. */
#define CACHE_VERSION 10

typedef struct {
    uint64_t magic, version, key, n, nedges, nroots, names_len, origin_len, total;
} cache_header_t;

typedef struct {
    uint32_t node, level;
    uint64_t name;
} cache_root_t;

static size_t pad8(size_t x) { return (x + 7) & ~(size_t)7; }

static int write_all(FILE *f, const void *p, size_t n)
{
    static const char zeros[8];
    if (n && fwrite(p, 1, n, f) != n) return -1;
    return pad8(n) != n && fwrite(zeros, 1, pad8(n) - n, f) != pad8(n) - n ? -1 : 0;
}

int v8_graph_save(v8_graph_t *g, const char *path, uint64_t key, const char *origin)
{
    size_t ol = origin ? strlen(origin) + 1 : 0;
    if (g->trimmed) return -1;
    if (!g->dist) graph_compute_paths(g);
    size_t n = g->n, m = g->nedges, nl = 0;
    cache_root_t *roots = big_calloc(g->nroots ? g->nroots : 1, sizeof *roots);
    for (size_t r = 0; r < g->nroots; r++) {
        roots[r] = (cache_root_t){g->roots[r].node, (uint32_t)g->roots[r].level, nl};
        nl += strlen(g->roots[r].name) + 1;
    }
    char *names = big_malloc(nl ? nl : 1);
    for (size_t r = 0; r < g->nroots; r++) {
        size_t len = strlen(g->roots[r].name) + 1;
        memcpy(names + roots[r].name, g->roots[r].name, len);
    }
    size_t sizes[] = {n * sizeof *g->nodes,      (n + 1) * 8, m * 4, m * 4, n * 4, n * 4, n * 4, n,
                      g->nroots * sizeof *roots, nl,          ol};
    const void *parts[] = {g->nodes, g->first, g->tgt, g->slot, g->dist, g->parent,
                           g->pslot, g->level, roots,  names,   origin};
    cache_header_t hd = {CACHE_MAGIC, CACHE_VERSION, key, n, m, g->nroots, nl, ol, sizeof hd};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) hd.total += pad8(sizes[k]);
    size_t plen = strlen(path);
    char *tmp = big_malloc(plen + 16);
    snprintf(tmp, plen + 16, "%s.tmpXXXXXX", path);
    int fd = mkstemp(tmp), rc = -1;
    FILE *f = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (f) {
        rc = write_all(f, &hd, sizeof hd);
        for (size_t k = 0; k < sizeof sizes / sizeof *sizes && rc == 0; k++) rc = write_all(f, parts[k], sizes[k]);
        if (fclose(f) != 0) rc = -1;
        if (rc == 0 && rename(tmp, path) != 0) rc = -1;
        if (rc != 0) unlink(tmp);
    } else if (fd >= 0) {
        close(fd);
        unlink(tmp);
    }
    free(tmp);
    free(roots);
    free(names);
    return rc;
}

v8_graph_t *v8_graph_load(v8_t *v, v8_heap_t *h, const char *path, uint64_t key)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return NULL;
    struct stat st;
    cache_header_t hd;
    if (fstat(fd, &st) != 0 || read(fd, &hd, sizeof hd) != (ssize_t)sizeof hd || hd.magic != CACHE_MAGIC ||
        hd.version != CACHE_VERSION || hd.key != key || hd.total != (uint64_t)st.st_size || hd.n > MAX_NODES ||
        hd.nedges > (1ull << 40) || hd.nroots > hd.n + 1 || hd.names_len > (1ull << 32) || hd.origin_len > 65536) {
        close(fd);
        return NULL;
    }
    size_t n = hd.n, m = hd.nedges;
    size_t sizes[] = {n * sizeof(v8_graph_node_t),      (n + 1) * 8,  m * 4,        m * 4, n * 4, n * 4, n * 4, n,
                      hd.nroots * sizeof(cache_root_t), hd.names_len, hd.origin_len};
    uint64_t total = sizeof hd;
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) total += pad8(sizes[k]);
    if (total != hd.total) {
        close(fd);
        return NULL;
    }
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) return NULL;
    v8_graph_t *g = big_calloc(1, sizeof *g);
    g->v = v;
    g->h = h;
    g->map = map;
    g->map_len = (size_t)st.st_size;
    g->n = n;
    g->nedges = m;
    char *p = (char *)map + sizeof hd;
    void **dst[] = {(void **)&g->nodes, (void **)&g->first,  (void **)&g->tgt,   (void **)&g->slot,
                    (void **)&g->dist,  (void **)&g->parent, (void **)&g->pslot, (void **)&g->level};
    for (size_t k = 0; k < sizeof dst / sizeof *dst; k++) {
        *dst[k] = p;
        p += pad8(sizes[k]);
    }
    const cache_root_t *roots = (const cache_root_t *)p;
    const char *names = p + pad8(sizes[8]);
    g->names = strpool_new();
    g->roots = big_calloc(hd.nroots ? hd.nroots : 1, sizeof *g->roots);
    /* untrusted like any input: indices checked before use */
    int ok = g->first[n] == m && (!hd.names_len || names[hd.names_len - 1] == 0);
    for (size_t r = 0; r < hd.nroots && ok; r++) {
        ok = roots[r].node < n && roots[r].level < V8_ROOT_LEVELS && roots[r].name < hd.names_len;
        if (ok)
            g->roots[r] = (v8_graph_root_t){roots[r].node, (v8_root_level_t)roots[r].level,
                                            strpool_cstr(g->names, names + roots[r].name)};
    }
    g->nroots = g->caproots = hd.nroots;
    if (!ok) {
        v8_graph_free(g);
        return NULL;
    }
    if (n) {
        g->lo = g->nodes[0].addr;
        g->hi = g->nodes[n - 1].addr;
    }
    return g; /* the address index is built on first use (v8_graph_is_object) */
}

int v8_graph_cache_origin(const char *path, buf_t *origin, uint64_t *bytes)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0) return -1;
    cache_header_t hd;
    struct stat st;
    int rc = -1;
    if (fstat(fd, &st) == 0 && read(fd, &hd, sizeof hd) == (ssize_t)sizeof hd && hd.magic == CACHE_MAGIC &&
        hd.version == CACHE_VERSION && hd.total == (uint64_t)st.st_size && hd.origin_len > 0 &&
        hd.origin_len <= 65536 && hd.origin_len <= hd.total - sizeof hd) {
        char *p = xmalloc(hd.origin_len);
        off_t at = (off_t)(hd.total - pad8(hd.origin_len));
        if (pread(fd, p, hd.origin_len, at) == (ssize_t)hd.origin_len && p[hd.origin_len - 1] == 0) {
            buf_clear(origin);
            buf_puts(origin, p);
            if (bytes) *bytes = (uint64_t)st.st_size;
            rc = 0;
        }
        free(p);
    }
    close(fd);
    return rc;
}
