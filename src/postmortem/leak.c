/* What grows in a heap over time: a series of censuses by constructor and the fit that reads it.
 *
 * A census counts a heap's JavaScript objects by constructor (the name `objects` gives them:
 * pm_constructor_label, worked out once per map), with their shallow bytes, and the heap's total.
 * By default it counts what the program holds: each census builds the object graph (v8/heap_graph)
 * and keeps the nodes reached from the global object, a module or a thread's stack, because what
 * the GC has not collected yet is not a leak (a bounded cache's evicted entries pile up in the old
 * generation until the next full GC, and would read as steady growth), and neither is what only
 * the conservative scan of native memory reaches (V8's own buffers hold stale pointers to objects
 * just promoted: counted apart, as native_objects); PM_COUNT_ALL walks the heap's pages once
 * instead (pm_walk_js).
 * Every census also keeps the sorted addresses of its objects (8 + 4 bytes each): an object of
 * the next census at no address of this one, or at one that held another constructor's object, is
 * new (V8's old generation does not move objects except when compacting; the young generation's
 * are moved at each scavenge, so those count as new again: the count of new ones is an upper
 * bound, the samples are real new instances where the leak is).
 *
 * The fit (pm_fit_trend) is over every census, not two: a least-squares line for the count with
 * its r2, the share of steps that did not shrink, and the slope of the last third against the
 * whole's. Steady growth fits a line, rises at nearly every step and keeps its slope to the end; a
 * cache that fills then plateaus loses its slope in the last third; GC noise (objects made and
 * dropped) fits no line. The growing constructors' last census, with its graph kept, gives their
 * retained sizes (dominators), new instances, and the retainer path of one (postmortem/paths.c).
 *
 * Cost (issue 31): a census of a reachable count is the graph's build, whose arrays
 * (v8/heap_graph.c's graph_big) and the address lists here are kept from one census to the next
 * and never shared with the freeze guard's fork (fresh pages cost the kernel's zeroing, shared
 * ones a copy at each write): the first census of a watch pays for them, the next ones write over
 * them. The heap is read once a census (the walk finds the references as it reads each page), and
 * the global object comes from that walk too (an idle program has no JS frame leading to it: a
 * walk of its own was a third read). With a tracked copy (target/track.c), a census's graph takes
 * from the last census's (v8_graph_reuse_t) every V8 page not a byte of which changed in between:
 * its objects and their references as they were, not walked again (a steady 1 GB census: 1.1 ->
 * 0.65 s of CPU, for 1.2 GB more memory; kept only where twice that is available). Everything
 * after the walk (resolving references, roots, marking, the counts) is done afresh each census. */
#include "postmortem/leak.h"
#include "postmortem/census.h"
#include "postmortem/paths.h"
#include "postmortem/walk.h"
#include "util/bigmem.h"
#include "util/diag.h"
#include "util/privilege.h"
#include "util/hash.h"
#include "util/procfs.h"
#include "util/radix.h"
#include "util/xalloc.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    uint64_t count, bytes, fresh;
} cell_t;

#define NSAMPLES 5

typedef struct {
    uint64_t id[3]; /* what its name was worked out from (v8_map_identity); all 0: unreadable */
    uint32_t c;     /* its class */
} map_name_t;
/* A census's maps (prototypes' ^ 1): by_map gives map -> index + 1 in maps. */
typedef struct {
    u64map_t by_map;
    map_name_t *maps;
    size_t n, cap;
} named_t;

struct pm_leak {
    pm_count_mode_t mode;
    strpool_t *names;
    u64map_t by_name; /* interned name -> class index + 1 */
    const char **cls;
    size_t ncls, clscap;
    pm_leak_point_t *pts;
    cell_t **cells; /* per census, per class (classes seen by then) */
    size_t *ncells;
    size_t npts, ptcap;
    uint64_t *prev_addr, *cur_addr; /* sorted addresses of the counted objects */
    uint32_t *prev_cls, *cur_cls;
    size_t nprev, ncur, prevcap, curcap;
    int have_prev;
    uint64_t *samples; /* per class NSAMPLES new instances of the last census */
    uint8_t *nsamples;
    size_t samplecap;
    uint64_t *any; /* per class (samplecap / NSAMPLES), one instance of the last census, or 0 */
    /* the last census's graph, kept for pm_leak_explain */
    v8_heap_t *h;
    v8_graph_t *g;
    /* the maps the last census named (reachable mode), kept for the next census */
    named_t named;
    /* the last census's graph's pages, for the next (reachable mode, a tracked copy) */
    v8_graph_reuse_t *reuse;
    int reuse_checked; /* the memory it takes was checked against what is available */
};

pm_leak_t *pm_leak_new(pm_count_mode_t mode)
{
    pm_leak_t *L = xcalloc(1, sizeof *L);
    L->mode = mode;
    if (mode == PM_COUNT_REACHABLE) L->reuse = v8_graph_reuse_new();
    L->names = strpool_new();
    u64map_init(&L->by_name);
    u64map_init(&L->named.by_map);
    return L;
}

void pm_leak_release(pm_leak_t *L)
{
    if (L->g) v8_graph_free(L->g);
    if (L->h) v8_heap_close(L->h);
    L->g = NULL;
    L->h = NULL;
}

void pm_leak_free(pm_leak_t *L)
{
    if (!L) return;
    pm_leak_release(L);
    v8_graph_reuse_free(L->reuse);
    for (size_t k = 0; k < L->npts; k++) free(L->cells[k]);
    free(L->cells);
    free(L->ncells);
    free(L->pts);
    free(L->cls);
    if (L->prev_addr) big_unmap(L->prev_addr, L->prevcap * sizeof *L->prev_addr);
    if (L->cur_addr) big_unmap(L->cur_addr, L->curcap * sizeof *L->cur_addr);
    if (L->prev_cls) big_unmap(L->prev_cls, L->prevcap * sizeof *L->prev_cls);
    if (L->cur_cls) big_unmap(L->cur_cls, L->curcap * sizeof *L->cur_cls);
    free(L->samples);
    free(L->nsamples);
    free(L->any);
    u64map_free(&L->by_name);
    u64map_free(&L->named.by_map);
    free(L->named.maps);
    strpool_free(L->names);
    free(L);
}

pm_count_mode_t pm_leak_mode(const pm_leak_t *L) { return L->mode; }
size_t pm_leak_points(const pm_leak_t *L) { return L->npts; }
const pm_leak_point_t *pm_leak_point(const pm_leak_t *L, size_t k) { return k < L->npts ? &L->pts[k] : NULL; }

void pm_leak_count(const pm_leak_t *L, size_t k, size_t cls, uint64_t *count, uint64_t *bytes)
{
    *count = *bytes = 0;
    if (k >= L->npts || cls >= L->ncells[k]) return;
    *count = L->cells[k][cls].count;
    *bytes = L->cells[k][cls].bytes;
}

void pm_leak_set_target_faults(pm_leak_t *L, int64_t faults)
{
    if (L->npts) L->pts[L->npts - 1].target_faults = faults;
}

void pm_leak_set_cost(pm_leak_t *L, double cpu_ms, double wall_ms, double fork_ms, int64_t copy_bytes)
{
    if (!L->npts) return;
    L->pts[L->npts - 1].fork_ms = fork_ms;
    L->pts[L->npts - 1].copy_bytes = copy_bytes;
    L->pts[L->npts - 1].cpu_ms = cpu_ms;
    L->pts[L->npts - 1].wall_ms = wall_ms;
}

/* The class index of name (a new class when unseen). */
static uint32_t class_of(pm_leak_t *L, const char *name, size_t len)
{
    const char *nm = strpool_intern(L->names, name ? name : "", name ? len : 0);
    int found;
    uint32_t *slot = u64map_upsert(&L->by_name, (uint64_t)(uintptr_t)nm, &found);
    if (!found) {
        XGROW(L->cls, L->clscap, L->ncls + 1);
        L->cls[L->ncls] = nm;
        *slot = (uint32_t)++L->ncls;
    }
    return *slot - 1;
}

/* The census being taken: its cells (grown as classes appear) and its addresses. */
typedef struct {
    pm_leak_t *L;
    cell_t *cells;
    size_t ncells, cap;
    uint32_t *of_entry; /* PM_COUNT_ALL: walk map entry -> class + 1 */
    size_t nentry;
} taking_t;

/* The addresses of a census (8 + 4 bytes an object, kept to the next census): mapped apart and
 * not shared with the freeze's guard (a fork of nodescope each census: a page shared with it
 * would be copied at our next write, one fault a page). */
static void *addrs_map(void *old, size_t old_bytes, size_t bytes)
{
    void *p = old ? big_remap(old, old_bytes, bytes) : big_map(bytes);
#ifdef MADV_DONTFORK
    madvise(p, (bytes + 4095) & ~(size_t)4095, MADV_DONTFORK);
#endif
    return p;
}

static void grow_addrs(pm_leak_t *L)
{
    size_t cap = L->curcap ? L->curcap * 2 : 1u << 16;
    L->cur_addr = addrs_map(L->cur_addr, L->curcap * sizeof *L->cur_addr, cap * sizeof *L->cur_addr);
    L->cur_cls = addrs_map(L->cur_cls, L->curcap * sizeof *L->cur_cls, cap * sizeof *L->cur_cls);
    L->curcap = cap;
}

static void add(taking_t *tk, uint64_t addr, uint32_t c, uint64_t size)
{
    pm_leak_t *L = tk->L;
    if (c >= tk->ncells) {
        size_t n = tk->ncells;
        XGROW(tk->cells, tk->cap, (size_t)c + 1);
        memset(tk->cells + n, 0, ((size_t)c + 1 - n) * sizeof *tk->cells);
        tk->ncells = (size_t)c + 1;
    }
    tk->cells[c].count++;
    tk->cells[c].bytes += size;
    if (L->ncur == L->curcap) grow_addrs(L);
    L->cur_addr[L->ncur] = addr;
    L->cur_cls[L->ncur++] = c;
}

static int on_js(pm_walk_t *w, const v8_heap_object_t *o, pm_map_entry_t *me)
{
    taking_t *tk = w->ctx;
    size_t e = (size_t)(me - w->entries);
    if (e >= tk->nentry) {
        size_t n = tk->nentry, cap = tk->nentry;
        XGROW(tk->of_entry, cap, e + 1);
        memset(tk->of_entry + n, 0, (cap - n) * sizeof *tk->of_entry);
        tk->nentry = cap;
    }
    if (!tk->of_entry[e]) tk->of_entry[e] = class_of(tk->L, me->name, strlen(me->name)) + 1;
    add(tk, o->addr, tk->of_entry[e] - 1, o->size);
    return 0;
}

/* The class of node i's objects, by its map (prototypes' ^ 1), named once in this census (cur):
 * the last census's name when the map is at the same address with the same identity (naming walks
 * prototype chains and property tables: a fifth of a small heap's census), else named afresh. */
static uint32_t map_class(pm_leak_t *L, v8_t *v, v8_graph_t *g, uint32_t i, uint64_t map, named_t *cur, buf_t *b)
{
    uint32_t k;
    if (u64map_get(&cur->by_map, map, &k)) return cur->maps[k - 1].c;
    map_name_t e = {{0, 0, 0}, 0};
    int known = v8_map_identity(v, map | 1, e.id) == 0; /* tagged: odd (a prototype's key is ^ 1) */
    if (!known) memset(e.id, 0, sizeof e.id);
    const named_t *last = &L->named;
    if (known && u64map_get(&last->by_map, map, &k) && !memcmp(last->maps[k - 1].id, e.id, sizeof e.id)) {
        e.c = last->maps[k - 1].c;
    } else {
        buf_clear(b);
        pm_name_by_constructor(v, g, i, b);
        e.c = class_of(L, b->data, b->len);
    }
    xgrow((void **)&cur->maps, &cur->cap, cur->n + 1, sizeof *cur->maps);
    cur->maps[cur->n++] = e;
    int found;
    *u64map_upsert(&cur->by_map, map, &found) = (uint32_t)cur->n;
    return e.c;
}

/* What the census's graph took from the last one (pt), checked against a graph built afresh when
 * NODESCOPE_CHECK_REUSE is set (the tests: a difference is an error). After the first census that
 * kept its pages: kept only where memory allows it twice over (the last graph's nodes and
 * references are kept besides the next one's: 1 GB more for a heap of 1 GB of small objects). */
static int reuse_account(pm_leak_t *L, v8_t *v, v8_graph_t *g, pm_leak_point_t *pt)
{
    size_t reused, walked;
    uint64_t kept;
    const char *why;
    v8_graph_reuse_stats(L->reuse, &reused, &walked, &kept, &why);
    pt->pages_reused = pt->pages_walked = -1;
    if (!L->reuse) return 0;
    if (kept) {
        pt->pages_reused = (int64_t)reused, pt->pages_walked = (int64_t)walked;
        diag_info(
            "%s: the graph: %zu of V8's pages as the last census found them (not a byte changed), %zu walked%s%s; "
            "%.0f MB kept for the next census",
            target_name(v8_target(v)), reused, walked, why ? ": " : "", why ? why : "", kept / 1e6);
    }
    if (reused && priv_env("NODESCOPE_CHECK_REUSE")) {
        v8_heap_t *h2 = v8_heap_open(v);
        v8_graph_t *g2 = v8_graph_build(v, h2, 0);
        buf_t diff = {0};
        int same = g2 && v8_graph_same(g, g2, &diff) == 0;
        if (!same)
            diag_error(target_name(v8_target(v)), 0, "a graph that reused %zu pages differs from one built afresh: %s",
                       reused, diff.data ? diff.data : "no graph");
        buf_free(&diff);
        v8_graph_free(g2);
        v8_heap_close(h2);
        if (!same) { /* nothing kept is taken again */
            v8_graph_reuse_free(L->reuse);
            L->reuse = NULL;
            return -1;
        }
    }
    if (kept && !L->reuse_checked) {
        L->reuse_checked = 1;
        long long avail = proc_field("/proc/meminfo", "MemAvailable:");
        if (avail > 0 && (uint64_t)avail * 1024 < 2 * kept) {
            diag_info("%s: the graph's pages are not kept from one census to the next (%.0f MB; %.0f MB available)",
                      target_name(v8_target(v)), kept / 1e6, avail * 1024 / 1e6);
            v8_graph_reuse_free(L->reuse);
            L->reuse = NULL;
        }
    }
    return 0;
}

/* Reachable mode: the graph, its held JS nodes by class (names once per map). */
static int census_graph(pm_leak_t *L, v8_t *v, taking_t *tk, pm_leak_point_t *pt, int keep)
{
    v8_heap_t *h = v8_heap_open(v);
    if (!v8_heap_found(h)) {
        diag_error(target_name(v8_target(v)), 0, "no V8 heap pages found in the target's memory");
        v8_heap_close(h);
        return -1;
    }
    v8_graph_t *g = v8_graph_build_reusing(v, h, isatty(2), L->reuse);
    if (!g) {
        v8_heap_close(h);
        return -1;
    }
    if (reuse_account(L, v, g, pt) != 0) {
        v8_graph_free(g);
        v8_heap_close(h);
        return -1;
    }
    size_t nn = v8_graph_node_count(g);
    named_t cur = {{0}, NULL, 0, 0};
    u64map_init(&cur.by_map);
    struct {
        uint64_t map; /* 0: never a map's address (tagged: odd; a prototype's ^ 1 is even, not 0) */
        uint32_t c;
    } recent[64];
    memset(recent, 0, sizeof recent);
    buf_t b = {0};
    /* held by the program: reached from the global object, a module or JavaScript frames; what
       only the conservative scan of native memory reaches is V8's stale pointers as often as a
       handle (a bounded cache's evicted entries, just promoted, read as a steady leak) */
    uint64_t *held = v8_graph_held(g, &pt->native_objects);
    for (size_t i = 0; i < nn; i++) {
        const v8_graph_node_t *nd = v8_graph_node(g, (uint32_t)i);
        pt->all_bytes += nd->size;
        if (!held || !((held[i / 64] >> (i % 64)) & 1)) continue;
        pt->heap_objects++;
        pt->heap_bytes += nd->size;
        if (!(nd->flags & V8_NODE_JS)) continue;
        uint64_t map;
        if (pm_node_map(v, g, (uint32_t)i, &map) != 0) continue;
        if (nd->flags & V8_NODE_PROTOTYPE) map ^= 1; /* prototypes apart from instances */
        uint32_t c;
        size_t r = (size_t)((map >> 3) ^ (map >> 9)) & 63;
        if (recent[r].map == map && map) c = recent[r].c; /* neighbours share a few maps: no hashing */
        else c = map_class(L, v, g, (uint32_t)i, map, &cur, &b);
        recent[r].map = map, recent[r].c = c;
        pt->js_objects++;
        add(tk, nd->addr, c, nd->size);
    }
    buf_free(&b);
    free(held);
    u64map_free(&L->named.by_map); /* this census's maps are the next one's to reuse */
    free(L->named.maps);
    L->named = cur;
    if (keep) {
        L->g = g;
        L->h = h;
    } else {
        v8_graph_free(g);
        v8_heap_close(h);
    }
    return 0;
}

static void sort_addrs(pm_leak_t *L);
static int census_end(pm_leak_t *L, taking_t *tk, const pm_leak_point_t *pt);

int pm_leak_census(pm_leak_t *L, v8_t *v, double t, double stop_ms, int keep)
{
    pm_leak_release(L);
    taking_t tk = {L, NULL, 0, 0, NULL, 0};
    pm_leak_point_t pt = {0};
    pt.t = t;
    pt.stop_ms = stop_ms;
    pt.target_faults = -1;
    pt.copy_bytes = -1;
    pt.pages_reused = pt.pages_walked = -1;
    L->ncur = 0;
    if (L->mode == PM_COUNT_REACHABLE) {
        if (census_graph(L, v, &tk, &pt, keep) != 0) {
            free(tk.cells);
            return -1;
        }
    } else {
        pm_walk_t w;
        int rc = pm_walk_js(v, "watch", 0, on_js, &tk, &w);
        pt.heap_bytes = pt.all_bytes = w.stats.bytes;
        pt.heap_objects = w.stats.objects;
        pt.js_objects = L->ncur;
        pt.unreadable_pages = w.stats.unreadable_pages;
        pt.resyncs = w.stats.resyncs;
        pm_walk_free(&w);
        free(tk.of_entry);
        if (rc != 0) {
            free(tk.cells);
            return -1;
        }
        sort_addrs(L);
    }
    return census_end(L, &tk, &pt);
}

int pm_leak_census_from(pm_leak_t *L, double t, pm_leak_next_fn next, void *ctx, const pm_leak_point_t *totals)
{
    pm_leak_release(L);
    taking_t tk = {L, NULL, 0, 0, NULL, 0};
    pm_leak_point_t pt = *totals;
    pt.t = t;
    pt.pages_reused = pt.pages_walked = -1;
    L->ncur = 0;
    uint64_t id, bytes;
    const char *name;
    size_t len;
    int rc;
    while ((rc = next(ctx, &id, &name, &len, &bytes)) > 0) add(&tk, id, class_of(L, name, len), bytes);
    if (rc < 0) {
        free(tk.cells);
        return -1;
    }
    sort_addrs(L);
    return census_end(L, &tk, &pt);
}

/* The census's objects in address order (pages come mostly in that order: sorted only when not). */
static void sort_addrs(pm_leak_t *L)
{
    size_t i = 1;
    while (i < L->ncur && L->cur_addr[i - 1] < L->cur_addr[i]) i++;
    if (i < L->ncur) radix_sort_u64(L->cur_addr, L->cur_cls, L->ncur);
}

/* A census taken (tk's cells, L's current addresses): its new instances, and it joins the series. */
static int census_end(pm_leak_t *L, taking_t *tkp, const pm_leak_point_t *ptp)
{
    taking_t tk = *tkp;
    pm_leak_point_t pt = *ptp;
    /* new instances: at no address of the previous census, or where it had another class */
    size_t nc = L->ncls;
    if (nc > tk.ncells) {
        XGROW(tk.cells, tk.cap, nc);
        memset(tk.cells + tk.ncells, 0, (nc - tk.ncells) * sizeof *tk.cells);
        tk.ncells = nc;
    }
    if (L->samplecap < nc * NSAMPLES) {
        XGROW(L->samples, L->samplecap, nc * NSAMPLES);
        L->nsamples = xrealloc(L->nsamples, L->samplecap);
        L->any = xrealloc(L->any, L->samplecap / NSAMPLES * sizeof *L->any);
    }
    if (L->samplecap) memset(L->nsamples, 0, L->samplecap);
    if (L->samplecap) memset(L->any, 0, L->samplecap / NSAMPLES * sizeof *L->any);
    for (size_t i = 0; i < L->ncur; i++)
        if (!L->any[L->cur_cls[i]]) L->any[L->cur_cls[i]] = L->cur_addr[i];
    if (L->have_prev) {
        size_t j = 0;
        for (size_t i = 0; i < L->ncur; i++) {
            uint64_t a = L->cur_addr[i];
            while (j < L->nprev && L->prev_addr[j] < a) j++;
            if (j < L->nprev && L->prev_addr[j] == a && L->prev_cls[j] == L->cur_cls[i]) continue;
            uint32_t c = L->cur_cls[i];
            tk.cells[c].fresh++;
            if (L->nsamples[c] < NSAMPLES) L->samples[(size_t)c * NSAMPLES + L->nsamples[c]++] = a;
        }
    }
    /* this census becomes the previous */
    uint64_t *ta = L->prev_addr;
    uint32_t *tc = L->prev_cls;
    size_t tcap = L->prevcap;
    L->prev_addr = L->cur_addr, L->prev_cls = L->cur_cls, L->prevcap = L->curcap, L->nprev = L->ncur;
    L->cur_addr = ta, L->cur_cls = tc, L->curcap = tcap, L->ncur = 0;
    L->have_prev = 1;
    size_t cap = L->ptcap;
    XGROW(L->pts, L->ptcap, L->npts + 1);
    if (L->ptcap != cap) {
        L->cells = xrealloc(L->cells, L->ptcap * sizeof *L->cells);
        L->ncells = xrealloc(L->ncells, L->ptcap * sizeof *L->ncells);
    }
    L->pts[L->npts] = pt;
    L->cells[L->npts] = tk.cells;
    L->ncells[L->npts] = tk.ncells;
    L->npts++;
    return 0;
}

/* ---- the fit ---- */

const char *pm_trend_name(pm_trend_t t)
{
    static const char *const names[] = {"growing", "plateau", "shrinking", "noisy", "flat", "?"};
    return t <= PM_TREND_UNKNOWN ? names[t] : "?";
}

double pm_fit_slope(const double *x, const double *y, size_t n, double *r2)
{
    if (r2) *r2 = 0;
    if (n < 2) return 0;
    double mx = 0, my = 0;
    for (size_t i = 0; i < n; i++) mx += x[i], my += y[i];
    mx /= (double)n;
    my /= (double)n;
    double sxx = 0, sxy = 0, syy = 0;
    for (size_t i = 0; i < n; i++) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
        syy += (y[i] - my) * (y[i] - my);
    }
    if (sxx <= 0) return 0;
    double b = sxy / sxx;
    if (r2 && syy > 0) *r2 = (sxy * sxy) / (sxx * syy);
    return b;
}

#define MIN_GROWTH 10.0 /* instances over the watch: less is not growth */

pm_trend_t pm_fit_trend(const double *x, const double *y, size_t n, double *slope, double *late, double *r2,
                        double *rising)
{
    double s = 0, l = 0, r = 0, up = 0;
    pm_trend_t tr = PM_TREND_UNKNOWN;
    if (n >= 2) {
        s = pm_fit_slope(x, y, n, &r);
        size_t tail = n / 3 < 3 ? 3 : n / 3; /* the last third, 3 censuses at least */
        if (tail > n) tail = n;
        l = pm_fit_slope(x + n - tail, y + n - tail, tail, NULL);
        size_t ups = 0;
        for (size_t i = 0; i + 1 < n; i++) ups += y[i + 1] >= y[i];
        up = (double)ups / (double)(n - 1);
    }
    if (n >= 3) {
        double lo = y[0], hi = y[0];
        for (size_t i = 1; i < n; i++) lo = y[i] < lo ? y[i] : lo, hi = y[i] > hi ? y[i] : hi;
        double grown = s * (x[n - 1] - x[0]);
        double early = pm_fit_slope(x, y, n - n / 3, NULL); /* the first two thirds */
        if (hi - lo < MIN_GROWTH && fabs(grown) < MIN_GROWTH) tr = PM_TREND_FLAT;
        else if (grown >= MIN_GROWTH && r >= 0.8 && up >= 0.7 && l >= 0.5 * s) tr = PM_TREND_GROWING;
        else if (grown >= MIN_GROWTH && l < 0.5 * s && early > 2 * fabs(l) && up >= 0.6) tr = PM_TREND_PLATEAU;
        else if (grown <= -MIN_GROWTH && r >= 0.8 && up <= 0.3) tr = PM_TREND_SHRINKING;
        else tr = PM_TREND_NOISY;
    }
    if (slope) *slope = s;
    if (late) *late = l;
    if (r2) *r2 = r;
    if (rising) *rising = up;
    return tr;
}

static int by_growth(const void *a, const void *b)
{
    const pm_leak_class_t *x = a, *y = b;
    int gx = x->trend == PM_TREND_GROWING, gy = y->trend == PM_TREND_GROWING;
    if (gx != gy) return gy - gx;
    if (gx && x->bytes_per_s != y->bytes_per_s) return x->bytes_per_s < y->bytes_per_s ? 1 : -1;
    double cx = fabs(x->count_per_s), cy = fabs(y->count_per_s);
    if (cx != cy) return cx < cy ? 1 : -1;
    if (x->last_count != y->last_count) return x->last_count < y->last_count ? 1 : -1;
    return strcmp(x->name, y->name);
}

size_t pm_leak_analyze(pm_leak_t *L, pm_leak_class_t **out)
{
    size_t n = L->npts, nc = L->ncls;
    pm_leak_class_t *c = xcalloc(nc ? nc : 1, sizeof *c);
    double *x = xmalloc((n ? n : 1) * sizeof *x), *y = xmalloc((n ? n : 1) * sizeof *y);
    double *yb = xmalloc((n ? n : 1) * sizeof *yb);
    for (size_t k = 0; k < n; k++) x[k] = L->pts[k].t;
    for (size_t i = 0; i < nc; i++) {
        for (size_t k = 0; k < n; k++) {
            uint64_t cnt, by;
            pm_leak_count(L, k, i, &cnt, &by);
            y[k] = (double)cnt;
            yb[k] = (double)by;
        }
        pm_leak_class_t *e = &c[i];
        e->name = L->cls[i];
        e->cls = i;
        e->trend = pm_fit_trend(x, y, n, &e->count_per_s, &e->late_per_s, &e->r2, &e->rising);
        e->bytes_per_s = pm_fit_slope(x, yb, n, NULL);
        if (n) {
            e->first_count = (uint64_t)y[0], e->last_count = (uint64_t)y[n - 1];
            e->first_bytes = (uint64_t)yb[0], e->last_bytes = (uint64_t)yb[n - 1];
            if (i < L->ncells[n - 1]) e->new_last = L->cells[n - 1][i].fresh;
            if (i * NSAMPLES < L->samplecap && i < L->samplecap) {
                e->nsamples = L->nsamples[i];
                memcpy(e->samples, L->samples + i * NSAMPLES, e->nsamples * sizeof *e->samples);
                e->any = L->any[i];
            }
        }
    }
    free(x);
    free(y);
    free(yb);
    qsort(c, nc, sizeof *c, by_growth);
    *out = c;
    return nc;
}

void pm_leak_classes_free(pm_leak_class_t *c, size_t n)
{
    for (size_t i = 0; i < n; i++) free(c[i].path), free(c[i].holder);
    free(c);
}

/* The retainer path of node x as one line: "ROOT: DESC EDGE -> DESC EDGE -> DESC". NULL when
 * no root reaches it. *holder: its last two steps, "HOLDER EDGE (CONTAINER)" (or the last one). */
static char *path_text(v8_t *v, v8_graph_t *g, v8_edges_t *e, uint32_t x, int *internal, char **holder)
{
    *holder = NULL;
    if (v8_graph_distance(g, x) == V8_NO_NODE) return NULL;
    uint32_t *nodes, *slots, root = V8_NO_NODE;
    size_t pn = pm_path_nodes(g, x, &nodes, &slots, &root);
    if (!pn) {
        free(nodes);
        free(slots);
        return NULL;
    }
    pm_step_t *st;
    size_t m = pm_name_steps(g, e, nodes, slots, pn, &st);
    const v8_graph_root_t *rt = root != V8_NO_NODE ? v8_graph_root(g, root) : NULL;
    buf_t b = {0};
    buf_printf(&b, "%s: ", rt && rt->name ? rt->name : "?");
    pm_describe_node(v, g, nodes[0], &b);
    for (size_t k = 0; k < m; k++) {
        buf_putc(&b, ' ');
        pm_edge_label(&st[k].edge, &b);
        buf_puts(&b, " -> ");
        pm_describe_node(v, g, st[k].target, &b);
    }
    *internal = pn >= 2 && v8_graph_path_internal(g, nodes[pn - 2]);
    if (m) {
        buf_t h = {0};
        const pm_step_t *last = &st[m - 1], *up = m >= 2 ? &st[m - 2] : NULL;
        pm_describe_node(v, g, up ? up->holder : last->holder, &h);
        buf_putc(&h, ' ');
        pm_edge_label(up ? &up->edge : &last->edge, &h);
        if (up) {
            buf_puts(&h, " (");
            pm_describe_node(v, g, last->holder, &h);
            buf_putc(&h, ')');
        }
        *holder = h.data;
    }
    free(st);
    free(nodes);
    free(slots);
    return b.data;
}

void pm_leak_explain(pm_leak_t *L, v8_t *v, pm_leak_class_t *c, size_t n, size_t max)
{
    if (!L->g) return;
    v8_graph_t *g = L->g;
    v8_edges_t *e = v8_edges_new(v, L->h);
    size_t done = 0;
    for (size_t i = 0; i < n && done < max; i++) {
        if (c[i].trend != PM_TREND_GROWING) continue;
        done++;
        /* a path that does not go through V8's caches, if one sample has it */
        for (size_t k = 0; k < c[i].nsamples && !c[i].path; k++) {
            uint32_t x = v8_graph_find(g, c[i].samples[k]);
            if (x == V8_NO_NODE) continue;
            int internal = 0;
            char *holder;
            char *p = path_text(v, g, e, x, &internal, &holder);
            if (p && internal && k + 1 < c[i].nsamples) {
                free(p);
                free(holder);
                continue;
            }
            c[i].path = p;
            c[i].holder = holder;
        }
        /* no new instance in the last census (the program stopped making them: watch_heap_server's
         * server after SIGUSR1, whose report once said "held by null"), or none reached: what
         * holds the class is told by any of its instances */
        uint32_t x;
        if (!c[i].path && c[i].any && (x = v8_graph_find(g, c[i].any)) != V8_NO_NODE) {
            int internal = 0;
            c[i].path = path_text(v, g, e, x, &internal, &c[i].holder);
        }
    }
    v8_edges_free(e);
    if (!done) return;
    /* retained sizes of the last census (dominators: once, at the end) */
    pm_census_t cs;
    if (pm_census_retained(v, g, pm_name_by_constructor, &cs) != 0) return;
    for (size_t k = 0; k < cs.n; k++)
        for (size_t i = 0; i < n; i++)
            if (c[i].trend == PM_TREND_GROWING && !strcmp(c[i].name, cs.classes[k].name))
                c[i].retained_last = cs.classes[k].retained;
    pm_census_free(&cs);
}
