/* The object graph of the open target, for the commands of one session (the prompt answers the
 * second query at once), and its cache on disk: a graph built from a core is saved once the command
 * that built it has printed its answer, and read back by mmap the next time (a second process
 * answers without walking the heap). The cache directory is bounded (cache_prune). */
#include "postmortem/graph_session.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/privilege.h"
#include "util/hash.h"
#include "util/xalloc.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static struct {
    v8_t *v;
    v8_heap_t *h;
    v8_graph_t *g;
    v8_edges_t *e;
    char *save_path, *save_origin; /* a graph built this session, written to the cache once the
                                        command that built it has printed its answer */
    uint64_t save_key;
    int trimmed; /* pm_graph_trim: the next pm_graph loads or builds it again */
} cache;

/* --no-cache (refs, retainers, dominators, heapsnapshot) or NODESCOPE_NO_GRAPH_CACHE: the graph
 * cache is neither read nor written. */
int pm_graph_no_cache;

/* The cache directory: $XDG_CACHE_HOME/nodescope (or ~/.cache/nodescope), made if missing.
 * 0 and *dir (malloc'ed), -1 without one. */
static int cache_dir(char **out)
{
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    buf_t dir = {0};
    if (xdg && *xdg == '/') buf_printf(&dir, "%s/nodescope", xdg);
    else if (home && *home) buf_printf(&dir, "%s/.cache/nodescope", home);
    else return -1;
    /* mkdir -p */
    for (char *p = dir.data + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(dir.data, 0700);
            *p = '/';
        }
    if (mkdir(dir.data, 0700) != 0 && errno != EEXIST) {
        buf_free(&dir);
        return -1;
    }
    *out = dir.data;
    return 0;
}

/* The cache file for a core: in the cache directory, named by a hash of the core's identity:
 * its real path, size, mtime and first 64 KiB. Never beside the core. 0 and *path (malloc'ed),
 * *key and *origin (the real path, malloc'ed) set; -1 for a live process, without a cache
 * directory, or with the cache turned off. */
static int cache_file(target_t *t, char **path, uint64_t *key, char **origin)
{
    if (strcmp(target_kind(t), "core") || priv_env("NODESCOPE_NO_GRAPH_CACHE") || pm_graph_no_cache) return -1;
    char *real = realpath(target_name(t), NULL);
    struct stat st;
    if (!real || stat(real, &st) != 0) {
        free(real);
        return -1;
    }
    buf_t id = {0};
    buf_printf(&id, "%s\n%lld\n%lld.%09ld\n", real, (long long)st.st_size, (long long)st.st_mtim.tv_sec,
               (long)st.st_mtim.tv_nsec);
    FILE *f = fopen(target_name(t), "rb");
    if (f) {
        char head[65536];
        size_t n = fread(head, 1, sizeof head, f);
        buf_printf(&id, "%016llx", (unsigned long long)hash_bytes(head, n));
        fclose(f);
    }
    *key = hash_bytes(id.data, id.len);
    buf_free(&id);
    char *dir;
    if (cache_dir(&dir) != 0) {
        free(real);
        return -1;
    }
    buf_t b = {0};
    buf_printf(&b, "%s/graph-%016llx.bin", dir, (unsigned long long)*key);
    free(dir);
    *path = b.data;
    *origin = real;
    return 0;
}

/* ---- the cache's housekeeping ----
 * Each file is hundreds of megabytes (about 50 bytes a heap object). After a file is written, the
 * directory is bounded: files whose core is gone, files of other versions and temporary files
 * left over an hour by a killed process are removed; of the rest the most recently used (a hit
 * touches its file) are kept, at most CACHE_FILES of them and NODESCOPE_GRAPH_CACHE_MAX bytes in
 * all (4G by default; K, M, G suffixes), the file just written always. */
#define CACHE_FILES 8
#define CACHE_BYTES (4ull << 30)

typedef struct {
    char *path;
    uint64_t bytes;
    struct timespec used;
} cache_entry_t;

static int by_recent_use(const void *a, const void *b)
{
    const cache_entry_t *x = a, *y = b;
    if (x->used.tv_sec != y->used.tv_sec) return x->used.tv_sec < y->used.tv_sec ? 1 : -1;
    if (x->used.tv_nsec != y->used.tv_nsec) return x->used.tv_nsec < y->used.tv_nsec ? 1 : -1;
    return strcmp(x->path, y->path);
}

static uint64_t cache_budget(void)
{
    const char *e = priv_env("NODESCOPE_GRAPH_CACHE_MAX");
    if (!e || !*e) return CACHE_BYTES;
    char *end;
    double x = strtod(e, &end);
    if (end == e || x < 0) return CACHE_BYTES;
    double mul = *end == 'K' || *end == 'k'   ? 1024.0
                 : *end == 'M' || *end == 'm' ? 1048576.0
                 : *end == 'G' || *end == 'g' ? 1073741824.0
                                              : 1.0;
    return (uint64_t)(x * mul);
}

static void cache_prune(const char *keep)
{
    char *dir;
    if (cache_dir(&dir) != 0) return;
    DIR *d = opendir(dir);
    if (!d) {
        free(dir);
        return;
    }
    cache_entry_t *es = NULL;
    size_t n = 0, cap = 0;
    buf_t path = {0}, origin = {0};
    struct dirent *de;
    time_t now = time(NULL);
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, "graph-", 6)) continue;
        buf_clear(&path);
        buf_printf(&path, "%s/%s", dir, de->d_name);
        struct stat st;
        if (lstat(path.data, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        if (strstr(de->d_name, ".tmp")) { /* a save in progress, or one a killed process left */
            if (now - st.st_mtime > 3600) unlink(path.data);
            continue;
        }
        size_t len = strlen(de->d_name);
        if (len < 4 || strcmp(de->d_name + len - 4, ".bin")) continue;
        uint64_t bytes;
        struct stat cs;
        if (v8_graph_cache_origin(path.data, &origin, &bytes) != 0 ||
            (stat(origin.data, &cs) != 0 && errno == ENOENT)) {
            if (!keep || strcmp(keep, path.data)) unlink(path.data); /* another version's, or its core is gone */
            continue;
        }
        XGROW(es, cap, n + 1);
        es[n++] = (cache_entry_t){xstrdup(path.data), bytes, st.st_mtim};
    }
    closedir(d);
    qsort(es, n, sizeof *es, by_recent_use);
    uint64_t budget = cache_budget(), total = 0;
    size_t kept = 0;
    for (size_t k = 0; k < n; k++) {
        int mine = keep && !strcmp(keep, es[k].path);
        if (mine || (kept < CACHE_FILES && total + es[k].bytes <= budget)) {
            kept++;
            total += es[k].bytes;
        } else {
            unlink(es[k].path);
        }
        free(es[k].path);
    }
    free(es);
    buf_free(&path);
    buf_free(&origin);
    free(dir);
}

void pm_graph_save_pending(void)
{
    if (!cache.save_path) return;
    fflush(stdout); /* the answer first: writing ~400 MB takes seconds */
    if (cache.g && v8_graph_save(cache.g, cache.save_path, cache.save_key, cache.save_origin) != 0)
        diag_warn(cache.save_path, 0, "cannot write the graph cache: %s", strerror(errno));
    else cache_prune(cache.save_path);
    free(cache.save_path);
    free(cache.save_origin);
    cache.save_path = cache.save_origin = NULL;
}

void pm_graph_trim(void)
{
    if (!cache.g) return;
    pm_graph_save_pending(); /* nothing to flush first: the writer's answer is its file */
    v8_graph_trim(cache.g);
    cache.trimmed = 1;
}

v8_graph_t *pm_graph(v8_t *v, v8_edges_t **edges)
{
    if (cache.v != v || cache.trimmed) {
        cache.trimmed = 0;
        pm_graph_save_pending();
        if (cache.g) {
            v8_graph_free(cache.g);
            v8_edges_free(cache.e);
            v8_heap_close(cache.h);
        }
        cache.v = v;
        cache.h = NULL;
        char *path = NULL, *origin = NULL;
        uint64_t key = 0;
        int cached = cache_file(v8_target(v), &path, &key, &origin) == 0;
        /* from the cache, the heap is not even opened (finding its pages reads every 256 KiB) */
        cache.g = cached ? v8_graph_load(v, NULL, path, key) : NULL;
        int built = !cache.g;
        if (cache.g) {
            utimensat(AT_FDCWD, path, NULL, 0); /* used now: the housekeeping keeps the recent */
        } else {
            cache.h = v8_heap_open(v);
            cache.g = v8_graph_build(v, cache.h, isatty(2));
            if (cache.g && cached) { /* saved by pm_graph_save_pending, after the answer */
                free(cache.save_path);
                free(cache.save_origin);
                cache.save_path = path, cache.save_origin = origin, cache.save_key = key;
                path = origin = NULL;
            }
        }
        free(path);
        free(origin);
        cache.e = v8_edges_new(v, cache.h);
        if (priv_env("NODESCOPE_GRAPH_STATS") && cache.g)
            fprintf(stderr, "graph: %zu nodes, %llu edges, %zu roots (%s)\n", v8_graph_node_count(cache.g),
                    (unsigned long long)v8_graph_edge_count(cache.g), v8_graph_root_count(cache.g),
                    cache.g && cached && !built ? "from the cache" : "built");
        if (priv_env("NODESCOPE_GRAPH_STATS") && cache.g) {
            const char *last = NULL;
            size_t cnt = 0;
            for (size_t r = 0; r <= v8_graph_root_count(cache.g); r++) {
                const v8_graph_root_t *rt = v8_graph_root(cache.g, r);
                if (rt && rt->name == last) {
                    cnt++;
                    continue;
                }
                if (last) fprintf(stderr, "  %zu roots %s\n", cnt, last);
                last = rt ? rt->name : NULL;
                cnt = 1;
            }
        }
    }
    if (edges) *edges = cache.e;
    return cache.g;
}
