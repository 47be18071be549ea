/* The heap of a core or a live process as a V8 heap snapshot (`core heapsnapshot -o FILE`) as a V8 heap snapshot (the JSON that
 * v8.writeHeapSnapshot() writes and DevTools' Memory panel, memlab and v8-heapsnapshot read).
 *
 * Layout (V8's src/profiler/heap-snapshot-generator.cc, HeapSnapshotJSONSerializer): snapshot.meta
 * describes the flat arrays; "nodes" has 7 numbers a node (type, name, id, self_size, edge_count,
 * trace_node_id, detachedness), "edges" 3 an edge (type, name_or_index, to_node: the target's
 * offset in "nodes"), a node's edges following its predecessor's; "strings" holds every name.
 * Node 0 is a synthetic root whose edges lead to "(GC roots)" and, as shortcuts, to the global
 * object, script scopes and modules. (GC roots) holds the roots paths use and the categories of
 * V8's own snapshot nodescope can tell apart: (Read-only roots) (a read-only object nothing else
 * in the snapshot refers to), (Startup object cache) and (Shareable object cache) (V8's vectors
 * found in native memory, heap_graph.c), (Internalized strings) and (Builtins). With them the
 * node and edge counts are within 2% of v8.getHeapSnapshot()'s on Node 18-24 (held_compare.js);
 * what is left is V8's embedder graph (Node's "native" nodes) and, on Node 22, functions' code
 * through the code pointer table. Only objects a root reaches are written: a core holds garbage
 * too (an object's old copy a scavenge left behind), which V8's own snapshot, taken after a GC,
 * never shows.
 *
 * Streamed: the edges of each object are named once (v8_edges_of) and written in binary to a
 * temporary file while the per-node counts are kept; then nodes, edges and strings are written.
 * Memory: the graph's nodes and roots (its edges and paths are freed first: pm_graph_trim; a
 * graph built by this run goes to the cache before), four bytes a node, and the strings; the
 * core's pages are handed back as the passes go (v8_graph_pass, v8_graph_release). On the bench's
 * 1.29 GB core, peak RSS 895 -> 437 MB when the run builds the graph (490 MB when it also
 * writes the cache: the paths it holds), 627 -> 241 MB from the
 * cache; NODESCOPE_MEM_TRACE=1 prints the resident set at each phase. */
#include "postmortem/heapsnapshot.h"
#include "postmortem/graph_session.h"
#include "util/bigmem.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/json.h"
#include "util/output.h"
#include "util/progress.h"
#include "util/xalloc.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NODE_FIELDS 7
/* the synthetic nodes before the heap's: the root, (GC roots), and the root categories V8's
   snapshot has that nodescope can tell (a core does not say which handle holds what, so the other
   roots stay (GC roots)' own edges) */
/* in the order their edges are written */
enum { N_ROOT, N_GC_ROOTS, N_READ_ONLY, N_STARTUP_CACHE, N_SHAREABLE_CACHE, N_INTERNALIZED, N_BUILTINS, SYNTHETIC };
static const char *const synthetic_name[SYNTHETIC] = {"",
                                                      "(GC roots)",
                                                      "(Read-only roots)",
                                                      V8_ROOT_STARTUP_CACHE,
                                                      V8_ROOT_SHAREABLE_CACHE,
                                                      "(Internalized strings)",
                                                      "(Builtins)"};

/* The category of a snapshot object cache's root, or 0 */
static int cache_category(const v8_graph_root_t *rt)
{
    return !strcmp(rt->name, V8_ROOT_STARTUP_CACHE)     ? N_STARTUP_CACHE
           : !strcmp(rt->name, V8_ROOT_SHAREABLE_CACHE) ? N_SHAREABLE_CACHE
                                                        : 0;
}
#define MAX_NAME 1024 /* string nodes are named by their first characters */

enum {
    T_HIDDEN,
    T_ARRAY,
    T_STRING,
    T_OBJECT,
    T_CODE,
    T_CLOSURE,
    T_REGEXP,
    T_NUMBER,
    T_NATIVE,
    T_SYNTHETIC,
    T_CONS_STRING,
    T_SLICED_STRING,
    T_SYMBOL,
    T_BIGINT,
    T_OBJECT_SHAPE
};

typedef struct {
    strpool_t *pool;
    u64map_t index; /* interned pointer -> index + 1 */
    const char **list;
    size_t n, cap;
    uint32_t *numbers; /* the id of "i" + 1, for the slot indices that name internal edges */
} strings_t;
#define MAX_NUMBER_CACHE (1u << 22)

static uint32_t str_id(strings_t *s, const char *text, size_t len);

/* The string id of the decimal number ix (an internal edge's name when it has no other). */
static uint32_t number_id(strings_t *s, int64_t ix)
{
    uint32_t *cached = ix >= 0 && ix < MAX_NUMBER_CACHE ? &s->numbers[ix] : NULL;
    if (cached && *cached) return *cached - 1;
    char tmp[32];
    snprintf(tmp, sizeof tmp, "%lld", (long long)ix);
    uint32_t name = str_id(s, tmp, strlen(tmp));
    if (cached) *cached = name + 1;
    return name;
}

static uint32_t str_id(strings_t *s, const char *text, size_t len)
{
    const char *p = strpool_intern(s->pool, text, len);
    int found;
    uint32_t *slot = u64map_upsert(&s->index, (uint64_t)(uintptr_t)p, &found);
    if (!found) {
        XGROW(s->list, s->cap, s->n + 1);
        s->list[s->n++] = p;
        *slot = (uint32_t)s->n;
    }
    return *slot - 1;
}

/* The reachable nodes numbered in address order: node i's index among them. */
typedef struct {
    const uint64_t *bits; /* v8_graph_reachable */
    uint32_t *base;       /* reachable nodes before word w */
} live_t;

static int is_live(const live_t *l, uint32_t i) { return (l->bits[i / 64] >> (i % 64)) & 1; }

static uint32_t live_index(const live_t *l, uint32_t i)
{
    uint64_t below = l->bits[i / 64] & ((1ull << (i % 64)) - 1);
    return l->base[i / 64] + (uint32_t)__builtin_popcountll(below);
}

typedef struct {
    v8_t *v;
    v8_graph_t *g;
    const live_t *live;
    strings_t *str;
    FILE *tmp;
    uint32_t count;
    int failed;
    int backing;         /* the node is a JS object's properties or elements store */
    uint8_t *has_in;     /* by node position: a strong edge leads to it (a read-only Map only feedback
                            refers to, weakly, had no root edge: Node 26, 20) */
    uint32_t *in_from;   /* by node position: the one node position + 1 its edges come from (0: none,
                            UINT32_MAX: several) */
    uint32_t from;       /* the position + 1 of the node whose edges are being put */
    const uint64_t *odd; /* by graph node: an oddball (leave_out_inessential) */
} edge_sink_t;

enum { BACKING_PROPERTIES = 1, BACKING_ELEMENTS = 2 };

static void put_edge(edge_sink_t *k, uint32_t type, uint32_t name, uint32_t to)
{
    uint32_t rec[3] = {type, name, to};
    if (type != V8_EDGE_WEAK) k->has_in[to / NODE_FIELDS] = 1;
    if (k->in_from) {
        uint32_t *f = &k->in_from[to / NODE_FIELDS];
        *f = !*f || *f == k->from ? k->from : UINT32_MAX;
    }
    if (fwrite(rec, sizeof rec, 1, k->tmp) != 1) k->failed = 1;
    k->count++;
}

static int on_edge(void *ctx, const v8_edge_t *e)
{
    edge_sink_t *k = ctx;
    uint32_t to = v8_graph_find(k->g, e->target);
    if (to == V8_NO_NODE || !is_live(k->live, to)) return 0; /* a weak edge to garbage */
    /* A backing store's slots: its owner names the same values as properties and elements, and
       V8's snapshot has both (internal edges from "(object properties)" and "(object
       elements)"): without them the global object's property cells and the dictionaries' keys
       had no path from the root. Written as hidden edges, by slot index: as internal edges each
       index would be a string (3.5 million for one array of the heap bench, +250 MB). */
    int kind = k->backing && e->kind == V8_EDGE_INTERNAL && !e->name && e->offset >= 16 ? V8_EDGE_HIDDEN : (int)e->kind;
    if ((k->odd[to / 64] >> (to % 64) & 1) && kind != V8_EDGE_PROPERTY && kind != V8_EDGE_ELEMENT &&
        kind != V8_EDGE_CONTEXT)
        return 0;
    uint32_t name;
    if (kind == V8_EDGE_ELEMENT || kind == V8_EDGE_HIDDEN) name = (uint32_t)e->index;
    else if (e->name) name = str_id(k->str, e->name, strlen(e->name));
    else name = number_id(k->str, e->index);
    put_edge(k, (uint32_t)kind, name, (live_index(k->live, to) + SYNTHETIC) * NODE_FIELDS);
    /* one node can touch the whole heap (an array of millions of objects: its elements' targets
       are read): hand back the core's pages as it goes, not only between nodes */
    if ((k->count & 0xffff) == 0) v8_graph_release(k->g);
    return 0;
}

/* A node's type and name, the way V8's snapshot names them. Names of JS objects are cached by map. */
typedef struct {
    u64map_t by_map; /* map -> string index + 1 */
    buf_t b;
} namer_t;

static void node_type_name(v8_t *v, v8_graph_t *g, namer_t *nm, strings_t *str, uint32_t i, uint32_t *type,
                           uint32_t *name)
{
    const v8_graph_node_t *nd = v8_graph_node(g, i);
    buf_t *b = &nm->b;
    buf_clear(b);
    const char *tn = v8_type_name(v, nd->type);
    const char *cn = v8_class_name(v, nd->type);
    int trunc;
    if (v8_is_string_type(v, nd->type)) {
        const char *repr;
        int64_t len;
        *type = T_STRING;
        if (v8_string_info(v, nd->addr, &repr, &len) == 0 && repr) {
            if (strstr(repr, "Cons")) *type = T_CONS_STRING;
            else if (strstr(repr, "Sliced")) *type = T_SLICED_STRING;
        }
        v8_string(v, nd->addr, b, MAX_NAME, &trunc);
    } else if (nd->flags & V8_NODE_JS) {
        v8_function_t fi;
        if (tn && !strcmp(tn, "JS_REG_EXP_TYPE")) {
            *type = T_REGEXP;
            v8_describe(v, nd->addr, b);
        } else if (v8_function_info(v, nd->addr, &fi) == 0) {
            *type = T_CLOSURE;
            buf_puts(b, v8_function_display_name(&fi, ""));
            v8_function_free(&fi);
        } else {
            *type = T_OBJECT;
            uint64_t map;
            uint32_t idx;
            if (v8_read_field(v, nd->addr, 0, &map) == 0 && !(nd->flags & V8_NODE_PROTOTYPE) &&
                u64map_get(&nm->by_map, map, &idx)) {
                *name = idx - 1;
                return;
            }
            uint64_t proto;
            if (tn && !strcmp(tn, "JS_GLOBAL_OBJECT_TYPE")) buf_puts(b, "global");
            else if ((nd->flags & V8_NODE_PROTOTYPE) && v8_prototype(v, nd->addr, &proto) == 0 &&
                     v8_constructor_name(v, proto, b) == 0 && b->len) {
                /* as V8 names a prototype: by the constructor of its own prototype (a derived
                   class's prototype under its base class, a class's under Object) */
            } else if (v8_constructor_name(v, nd->addr, b) != 0 || !b->len) {
                buf_clear(b);
                buf_puts(b, "Object");
            }
            /* a prototype is named as V8 does: by its constructor, not apart */
            *name = str_id(str, b->data, b->len);
            int found;
            if (!(nd->flags & V8_NODE_PROTOTYPE)) *u64map_upsert(&nm->by_map, map, &found) = *name + 1;
            return;
        }
    } else if (tn && !strcmp(tn, "HEAP_NUMBER_TYPE")) {
        *type = T_NUMBER;
        buf_puts(b, "heap number");
    } else if (tn && !strcmp(tn, "SYMBOL_TYPE")) {
        *type = T_SYMBOL;
        buf_puts(b, "symbol");
    } else if (tn && !strcmp(tn, "BIGINT_TYPE")) {
        *type = T_BIGINT;
        buf_puts(b, "bigint");
    } else if (tn && !strcmp(tn, "MAP_TYPE")) {
        *type = T_OBJECT_SHAPE;
        buf_puts(b, "system / Map");
    } else if (tn && (strstr(tn, "CODE") || strstr(tn, "BYTECODE") || strstr(tn, "INSTRUCTION"))) {
        *type = T_CODE;
        buf_printf(b, "(%s)", cn ? cn : tn);
    } else if ((tn && strstr(tn, "CONTEXT_TYPE")) || (cn && !strcmp(cn, "Context"))) { /* contexts have no type names */
        *type = T_OBJECT;
        buf_puts(b, "system / Context");
    } else if (tn && (strstr(tn, "ARRAY") || strstr(tn, "DICTIONARY") || strstr(tn, "HASH"))) {
        *type = T_ARRAY;
        buf_printf(b, "(%s)", cn ? cn : tn);
    } else {
        *type = T_HIDDEN;
        buf_printf(b, "system / %s", cn ? cn : tn ? tn : "Object");
    }
    *name = str_id(str, b->data ? b->data : "", b->len);
}

/* Numbers as text without printf (tens of millions of them). */
static char *put_u64(char *p, uint64_t x)
{
    char tmp[24];
    int n = 0;
    do tmp[n++] = (char)('0' + x % 10);
    while ((x /= 10));
    while (n) *p++ = tmp[--n];
    return p;
}

static int put_json_string(FILE *f, const char *s)
{
    buf_t b = {0};
    json_put_string(&b, s, strlen(s));
    int rc = fwrite(b.data, 1, b.len, f) == b.len ? 0 : -1;
    buf_free(&b);
    return rc;
}

/* What V8's snapshot leaves out (heap-snapshot-generator.cc, IsEssentialObject): internal,
 * hidden and weak references to oddballs (undefined, null, true, false, the hole: set in odd, a
 * bit a node; properties, elements and context variables that hold one are edges, 5,000 of them
 * to undefined on Node 24's heap of held_moments.js); the read-only space's empty arrays and the
 * maps of FixedArrays, Cells, PropertyCells, SharedFunctionInfos, free space and fillers: no
 * node and no edge, cleared from live. */
static void leave_out_inessential(v8_t *v, v8_graph_t *g, uint64_t *live, uint64_t *odd)
{
    static const char *const maps_of[] = {"FIXED_ARRAY_TYPE",          "CELL_TYPE",       "PROPERTY_CELL_TYPE",
                                          "SHARED_FUNCTION_INFO_TYPE", "FREE_SPACE_TYPE", "FILLER_TYPE"};
    size_t n = v8_graph_node_count(g);
    for (size_t i = 0; i < n; i++) {
        const v8_graph_node_t *nd = v8_graph_node(g, (uint32_t)i);
        if (!(live[i / 64] >> (i % 64) & 1)) continue;
        const char *tn = v8_type_name(v, nd->type);
        if (tn && (!strcmp(tn, "ODDBALL_TYPE") || !strcmp(tn, "HOLE_TYPE"))) {
            odd[i / 64] |= 1ull << (i % 64);
            continue;
        }
        int drop = 0;
        if ((nd->flags & V8_NODE_READ_ONLY) && tn) {
            if (strstr(tn, "ARRAY") && nd->size <= 24) drop = 1; /* an empty array: its header only */
            int it;
            if (!strcmp(tn, "MAP_TYPE") && v8_map_instances_type(v, nd->addr, &it) == 0) {
                const char *in = v8_type_name(v, it);
                for (size_t k = 0; in && k < sizeof maps_of / sizeof *maps_of && !drop; k++)
                    drop = !strcmp(in, maps_of[k]);
            }
        }
        if (drop) live[i / 64] &= ~(1ull << (i % 64));
    }
}

/* Is the node at position p in a cycle of nodes each referred to by the one before it alone, none
 * with a root edge? Then the edges into it lead nowhere from the root (V8 14's read-only API
 * FunctionTemplateInfo and SharedFunctionInfo pairs, each the other's only referrer). */
#define CYCLE_STEPS 16
static int unrooted_cycle(const uint32_t *in_from, const uint8_t *rooted, uint32_t p)
{
    uint32_t q = p;
    for (int step = 0; step < CYCLE_STEPS; step++) {
        uint32_t f = in_from[q];
        if (!f || f == UINT32_MAX || rooted[f - 1]) return 0;
        q = f - 1;
        if (q == p) return 1;
    }
    return 0;
}

/* The synthetic nodes' edges (they come first in the file, but are found last: a read-only
 * object gets a root edge only when no other edge of the snapshot leads to it, k->has_in, or
 * only edges from a cycle nothing else reaches, unrooted_cycle). */
static void synthetic_edges(v8_t *v, v8_graph_t *g, const live_t *live, strings_t *str, edge_sink_t *k,
                            const uint8_t *root_used, uint32_t *counts)
{
    size_t nn = v8_graph_node_count(g), nroots = v8_graph_root_count(g);
    uint32_t *in_from = k->in_from; /* read here; the synthetic edges do not count */
    k->in_from = NULL;
    k->count = 0;
    /* the synthetic root: (GC roots), and the global object as a shortcut */
    put_edge(k, V8_EDGE_ELEMENT, 1, N_GC_ROOTS * NODE_FIELDS);
    for (size_t r = 0; r < nroots; r++) {
        const v8_graph_root_t *rt = v8_graph_root(g, r);
        /* DevTools' distances start from the root's non-synthetic children (its "user roots"):
           the global object, script scopes and modules, as paths do */
        if ((rt->level == V8_ROOT_GLOBAL || rt->level == V8_ROOT_MODULE) && is_live(live, rt->node))
            put_edge(k, V8_EDGE_SHORTCUT, str_id(str, rt->name, strlen(rt->name)),
                     (live_index(live, rt->node) + SYNTHETIC) * NODE_FIELDS);
    }
    counts[N_ROOT] = k->count;
    k->count = 0;
    /* (GC roots): the categories, then every other root a path uses, once; the read-only space's
       under (Read-only roots) */
    uint32_t ri = 0;
    for (uint32_t c = N_READ_ONLY; c < SYNTHETIC; c++) put_edge(k, V8_EDGE_ELEMENT, ++ri, c * NODE_FIELDS);
    uint8_t *is_root = xcalloc(nn ? nn : 1, 1);
    uint8_t *rooted = xcalloc(nn + SYNTHETIC, 1); /* by node position: given a root edge here */
    for (int read_only = 0; read_only <= 1; read_only++) {
        for (size_t r = 0; r < nroots; r++) {
            const v8_graph_root_t *rt = v8_graph_root(g, r);
            int ro = (v8_graph_node(g, rt->node)->flags & V8_NODE_READ_ONLY) != 0;
            if (ro != read_only || is_root[rt->node] || !root_used[r] || !is_live(live, rt->node) || cache_category(rt))
                continue;
            is_root[rt->node] = 1;
            uint32_t to = (live_index(live, rt->node) + SYNTHETIC) * NODE_FIELDS;
            /* a read-only object something in the snapshot refers to needs no root edge (V8 lists
               only its roots table's); a builtin's code and an internalized string have theirs */
            if (ro ? k->has_in[to / NODE_FIELDS] && !unrooted_cycle(in_from, rooted, to / NODE_FIELDS)
                   : v8_is_internalized_string_type(v, v8_graph_node(g, rt->node)->type) ||
                         v8_code_is_builtin(v, v8_graph_node(g, rt->node)->addr, v8_graph_node(g, rt->node)->type))
                continue;
            if (ro) put_edge(k, V8_EDGE_INTERNAL, number_id(str, ++ri), to);
            else put_edge(k, V8_EDGE_ELEMENT, ++ri, to);
            rooted[to / NODE_FIELDS] = 1;
        }
        counts[read_only ? N_READ_ONLY : N_GC_ROOTS] = k->count;
        k->count = 0, ri = 0;
    }
    free(is_root);
    free(rooted);
    /* (Startup object cache), (Shareable object cache): each element, as V8 lists them */
    for (uint32_t c = N_STARTUP_CACHE; c <= N_SHAREABLE_CACHE; c++) {
        for (size_t r = 0; r < nroots; r++) {
            const v8_graph_root_t *rt = v8_graph_root(g, r);
            if ((uint32_t)cache_category(rt) == c && is_live(live, rt->node))
                put_edge(k, V8_EDGE_INTERNAL, number_id(str, ++ri),
                         (live_index(live, rt->node) + SYNTHETIC) * NODE_FIELDS);
        }
        counts[c] = k->count;
        k->count = 0, ri = 0;
    }
    /* (Internalized strings): the string table's (each live internalized string); (Builtins):
       V8's builtins' Code objects */
    for (uint32_t c = N_INTERNALIZED; c <= N_BUILTINS; c++) {
        for (size_t i = 0; i < nn; i++) {
            const v8_graph_node_t *nd = v8_graph_node(g, (uint32_t)i);
            if (!is_live(live, (uint32_t)i)) continue;
            if (c == N_INTERNALIZED ? !v8_is_internalized_string_type(v, nd->type)
                                    : !v8_code_is_builtin(v, nd->addr, nd->type))
                continue;
            put_edge(k, V8_EDGE_INTERNAL, number_id(str, ++ri),
                     (live_index(live, (uint32_t)i) + SYNTHETIC) * NODE_FIELDS);
        }
        counts[c] = k->count;
        k->count = 0, ri = 0;
    }
    k->in_from = in_from;
}

int pm_heapsnapshot_write(v8_t *v, const char *out)
{
    v8_edges_t *e;
    v8_graph_t *g = pm_graph(v, &e);
    if (!g) return 1;
    big_mem_trace("snapshot: graph");
    /* which roots (GC roots) holds: from the paths; then everything but the nodes and roots is
       freed before the writer's own tables (edge naming reads the core, not the stored edges) */
    size_t nroots = v8_graph_root_count(g);
    uint8_t *root_used = xcalloc(nroots ? nroots : 1, 1);
    for (size_t r = 0; r < nroots; r++) root_used[r] = (uint8_t)v8_graph_root_used(g, r);
    size_t nn = v8_graph_node_count(g), nwords = nn / 64 + 1;
    live_t live = {v8_graph_reachable(g), xmalloc(nwords * sizeof(uint32_t))}; /* before the trim */
    uint64_t *odd = xcalloc(nwords, sizeof *odd);
    if (live.bits) leave_out_inessential(v, g, (uint64_t *)live.bits, odd);
    size_t nlive = 0;
    for (size_t w = 0; w < nwords; w++) {
        live.base[w] = (uint32_t)nlive;
        nlive += (size_t)__builtin_popcountll(live.bits[w]);
    }
    pm_graph_trim();
    big_mem_trace("snapshot: graph trimmed");
    char *inputs[] = {(char *)target_name(v8_target(v))};
    output_t o;
    FILE *tmp = NULL, *stmp = NULL; /* the heap's edges, the synthetic nodes' */
    int opened = output_open(&o, out, inputs, 1) == 0;
    if (opened && (!(tmp = tmpfile()) || !(stmp = tmpfile()))) {
        diag_error(out, 0, "cannot create a temporary file: %s", strerror(errno));
        output_abort(&o);
        if (tmp) fclose(tmp), tmp = NULL;
    }
    if (!tmp) {
        free(root_used), free((void *)live.bits), free(live.base), free(odd);
        return 1;
    }
    strings_t str = {strpool_new(), {0}, NULL, 0, 0, xcalloc(MAX_NUMBER_CACHE, sizeof(uint32_t))};
    u64map_init(&str.index);
    str_id(&str, "", 0);
    namer_t nm = {{0}, {0}};
    u64map_init(&nm.by_map);
    uint32_t *counts = xmalloc((nn + SYNTHETIC) * sizeof *counts);
    edge_sink_t k = {v,   g, &live, &str, tmp, 0, 0, 0, xcalloc(nlive + SYNTHETIC, 1), xcalloc(nlive + SYNTHETIC, 4),
                     0, odd};
    /* the backing stores: what JS objects' properties (BACKING_PROPERTIES) and elements
       (BACKING_ELEMENTS) fields point at, named as V8 names them */
    uint8_t *backing = xcalloc(nn ? nn : 1, 1);
    for (size_t i = 0; i < nn; i++) {
        const v8_graph_node_t *nd = v8_graph_node(g, (uint32_t)i);
        if (!(nd->flags & V8_NODE_JS) || !is_live(&live, (uint32_t)i)) continue;
        v8_graph_pass(g, (uint32_t)i);
        for (int64_t off = 8; off <= 16; off += 8) {
            uint64_t w;
            uint32_t b;
            if (v8_read_field(v, nd->addr, off, &w) == 0 && (b = v8_graph_find(g, w)) != V8_NO_NODE &&
                !(v8_graph_node(g, b)->flags & V8_NODE_JS))
                backing[b] = off == 8 ? BACKING_PROPERTIES : BACKING_ELEMENTS;
        }
    }
    v8_graph_pass(g, V8_NO_NODE);
    big_mem_trace("snapshot: backing stores");
    big_mem_trace("snapshot: roots");
    progress_t pr;
    progress_init(&pr, "naming references", "objects");
    for (size_t i = 0; i < nn; i++) {
        k.count = 0;
        counts[i + SYNTHETIC] = 0;
        if (!is_live(&live, (uint32_t)i)) continue;
        const v8_graph_node_t *nd = v8_graph_node(g, (uint32_t)i);
        v8_heap_object_t ho = v8_graph_object(g, (uint32_t)i);
        v8_graph_pass(g, (uint32_t)i);
        k.backing = backing[i] != 0;
        k.from = live_index(&live, (uint32_t)i) + SYNTHETIC + 1;
        v8_edges_of(e, &ho, v8_graph_is_object, g, on_edge, &k);
        /* V8's snapshot gives every JS object a "__proto__" property: its map's prototype */
        uint64_t proto;
        uint32_t pn;
        if ((nd->flags & V8_NODE_JS) && v8_prototype(v, nd->addr, &proto) == 0 &&
            (pn = v8_graph_find(g, proto)) != V8_NO_NODE && is_live(&live, pn))
            put_edge(&k, V8_EDGE_PROPERTY, str_id(&str, "__proto__", 9),
                     (live_index(&live, pn) + SYNTHETIC) * NODE_FIELDS);
        counts[i + SYNTHETIC] = k.count;
        if ((i & 0xfff) == 0) progress_update(&pr, i, nn);
    }
    v8_graph_pass(g, V8_NO_NODE);
    progress_done(&pr);
    big_mem_trace("snapshot: edges named");
    FILE *real_edges = k.tmp;
    k.tmp = stmp;
    synthetic_edges(v, g, &live, &str, &k, root_used, counts);
    k.tmp = real_edges;
    free(root_used);
    free(k.has_in);
    free(k.in_from);
    uint64_t total_edges = 0;
    for (size_t i = 0; i < nn + SYNTHETIC; i++) total_edges += counts[i];
    FILE *f = o.f;
    fprintf(
        f,
        "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\","
        "\"trace_node_id\",\"detachedness\"],\n"
        "\"node_types\":[[\"hidden\",\"array\",\"string\",\"object\",\"code\",\"closure\",\"regexp\",\"number\","
        "\"native\",\"synthetic\",\"concatenated string\",\"sliced string\",\"symbol\",\"bigint\",\"object shape\"],"
        "\"string\",\"number\",\"number\",\"number\",\"number\",\"number\"],\n"
        "\"edge_fields\":[\"type\",\"name_or_index\",\"to_node\"],\n"
        "\"edge_types\":[[\"context\",\"element\",\"property\",\"internal\",\"hidden\",\"shortcut\",\"weak\"],"
        "\"string_or_number\",\"node\"],\n"
        "\"trace_function_info_fields\":[\"function_id\",\"name\",\"script_name\",\"script_id\",\"line\",\"column\"],\n"
        "\"trace_node_fields\":[\"id\",\"function_info_index\",\"count\",\"size\",\"children\"],\n"
        "\"sample_fields\":[\"timestamp_us\",\"last_assigned_id\"],\n"
        "\"location_fields\":[\"object_index\",\"script_id\",\"line\",\"column\"]},\n"
        "\"node_count\":%zu,\n\"edge_count\":%llu,\n\"trace_function_count\":0},\n\"nodes\":[",
        nlive + SYNTHETIC, (unsigned long long)total_edges);
    for (uint32_t c = 0; c < SYNTHETIC; c++)
        fprintf(f, "%s%d,%u,%u,0,%u,0,0", c ? "\n," : "", T_SYNTHETIC,
                str_id(&str, synthetic_name[c], strlen(synthetic_name[c])), 2 * c + 1, counts[c]);
    progress_init(&pr, "writing nodes", "objects");
    for (size_t i = 0; i < nn; i++) {
        uint32_t type, name;
        if (!is_live(&live, (uint32_t)i)) continue;
        v8_graph_pass(g, (uint32_t)i); /* naming reads maps and strings: the core's pages handed back */
        node_type_name(v, g, &nm, &str, (uint32_t)i, &type, &name);
        if (backing[i] && type == T_ARRAY)
            name = backing[i] == BACKING_PROPERTIES ? str_id(&str, "(object properties)", 19)
                                                    : str_id(&str, "(object elements)", 17);
        char line[128], *p = line;
        *p++ = '\n', *p++ = ',';
        p = put_u64(p, type), *p++ = ',';
        p = put_u64(p, name), *p++ = ',';
        p = put_u64(p, 2 * (i + SYNTHETIC) + 1), *p++ = ',';
        p = put_u64(p, v8_graph_node(g, (uint32_t)i)->size), *p++ = ',';
        p = put_u64(p, counts[i + SYNTHETIC]);
        memcpy(p, ",0,0", 4);
        fwrite(line, 1, (size_t)(p + 4 - line), f);
        if ((i & 0xfff) == 0) progress_update(&pr, i, nn);
    }
    v8_graph_pass(g, V8_NO_NODE);
    progress_done(&pr);
    big_mem_trace("snapshot: nodes written");
    fputs("],\n\"edges\":[", f);
    rewind(stmp);
    rewind(tmp);
    uint32_t rec[3];
    for (uint64_t q = 0;
         q < total_edges && (fread(rec, sizeof rec, 1, stmp) == 1 || fread(rec, sizeof rec, 1, tmp) == 1); q++) {
        char line[64], *p = line;
        if (q) *p++ = '\n', *p++ = ',';
        p = put_u64(p, rec[0]), *p++ = ',';
        p = put_u64(p, rec[1]), *p++ = ',';
        p = put_u64(p, rec[2]);
        fwrite(line, 1, (size_t)(p - line), f);
    }
    fputs("],\n\"trace_function_infos\":[],\n\"trace_tree\":[],\n\"samples\":[],\n\"locations\":[],\n\"strings\":[", f);
    int bad = k.failed;
    for (size_t i = 0; i < str.n && !bad; i++) {
        if (i) fputs("\n,", f);
        bad = put_json_string(f, str.list[i]) != 0;
    }
    fputs("]}\n", f);
    big_mem_trace("snapshot: written");
    fclose(tmp);
    fclose(stmp);
    free(counts);
    free(backing);
    free((void *)live.bits);
    free(odd);
    free(live.base);
    strpool_free(str.pool);
    u64map_free(&str.index);
    free(str.list);
    free(str.numbers);
    u64map_free(&nm.by_map);
    buf_free(&nm.b);
    if (bad || ferror(f)) {
        diag_error(out, 0, "write failed: %s", strerror(errno));
        output_abort(&o);
        return 1;
    }
    if (output_commit(&o) != 0) return 1;
    if (isatty(2))
        fprintf(stderr, "%s: %zu nodes, %llu edges (%zu unreachable objects left out)\n", out, nlive + SYNTHETIC,
                (unsigned long long)total_edges, nn - nlive);
    return 0;
}
