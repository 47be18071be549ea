/* The heap of a core or a live process as a V8 heap snapshot (`core heapsnapshot -o FILE`) as a V8 heap snapshot (the JSON that
 * v8.writeHeapSnapshot() writes and DevTools' Memory panel, memlab and v8-heapsnapshot read).
 *
 * Layout (V8's src/profiler/heap-snapshot-generator.cc, HeapSnapshotJSONSerializer): snapshot.meta
 * describes the flat arrays; "nodes" has 7 numbers a node (type, name, id, self_size, edge_count,
 * trace_node_id, detachedness), "edges" 3 an edge (type, name_or_index, to_node: the target's
 * offset in "nodes"), a node's edges following its predecessor's; "strings" holds every name.
 * Node 0 is a synthetic root whose edges lead to "(GC roots)" (node 1, holding the graph's roots)
 * and, as shortcuts, to the global object. Only objects a root reaches are written: a core holds
 * garbage too (an object's old copy a scavenge left behind), which V8's own snapshot, taken after
 * a GC, never shows.
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
#include "util/diag.h"
#include "util/hash.h"
#include "util/json.h"
#include "util/output.h"
#include "util/progress.h"
#include "util/xalloc.h"
#include "util/bigmem.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define NODE_FIELDS 7
#define SYNTHETIC 2           /* node 0: the root, node 1: (GC roots) */
#define MAX_NAME 1024         /* string nodes are named by their first characters */

enum { T_HIDDEN, T_ARRAY, T_STRING, T_OBJECT, T_CODE, T_CLOSURE, T_REGEXP, T_NUMBER, T_NATIVE, T_SYNTHETIC,
       T_CONS_STRING, T_SLICED_STRING, T_SYMBOL, T_BIGINT, T_OBJECT_SHAPE };

typedef struct {
    strpool_t *pool;
    u64map_t index;       /* interned pointer -> index + 1 */
    const char **list;
    size_t n, cap;
    uint32_t *numbers;    /* the id of "i" + 1, for the slot indices that name internal edges */
} strings_t;
#define MAX_NUMBER_CACHE (1u << 22)

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
    const uint64_t *bits;   /* v8_graph_reachable */
    uint32_t *base;         /* reachable nodes before word w */
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
    int backing;   /* the node is a JS object's properties or elements store */
} edge_sink_t;

enum { BACKING_PROPERTIES = 1, BACKING_ELEMENTS = 2 };

static void put_edge(edge_sink_t *k, uint32_t type, uint32_t name, uint32_t to)
{
    uint32_t rec[3] = {type, name, to};
    if (fwrite(rec, sizeof rec, 1, k->tmp) != 1) k->failed = 1;
    k->count++;
}

static int on_edge(void *ctx, const v8_edge_t *e)
{
    edge_sink_t *k = ctx;
    uint32_t to = v8_graph_find(k->g, e->target);
    if (to == V8_NO_NODE || !is_live(k->live, to)) return 0;   /* a weak edge to garbage */
    /* A backing store's slots: its owner names the same values as properties and elements, and
       V8's snapshot has both (internal edges from "(object properties)" and "(object
       elements)"): without them the global object's property cells and the dictionaries' keys
       had no path from the root. Written as hidden edges, by slot index: as internal edges each
       index would be a string (3.5 million for one array of the heap bench, +250 MB). */
    int kind = k->backing && e->kind == V8_EDGE_INTERNAL && !e->name && e->offset >= 16 ? V8_EDGE_HIDDEN : (int)e->kind;
    uint32_t name;
    if (kind == V8_EDGE_ELEMENT || kind == V8_EDGE_HIDDEN) name = (uint32_t)e->index;
    else if (e->name) name = str_id(k->str, e->name, strlen(e->name));
    else {
        int64_t ix = e->index;
        uint32_t *cached = ix >= 0 && ix < MAX_NUMBER_CACHE ? &k->str->numbers[ix] : NULL;
        if (cached && *cached) name = *cached - 1;
        else {
            char tmp[32];
            snprintf(tmp, sizeof tmp, "%lld", (long long)ix);
            name = str_id(k->str, tmp, strlen(tmp));
            if (cached) *cached = name + 1;
        }
    }
    put_edge(k, (uint32_t)kind, name, (live_index(k->live, to) + SYNTHETIC) * NODE_FIELDS);
    /* one node can touch the whole heap (an array of millions of objects: its elements' targets
       are read): hand back the core's pages as it goes, not only between nodes */
    if ((k->count & 0xffff) == 0) v8_graph_release(k->g);
    return 0;
}

/* A node's type and name, the way V8's snapshot names them. Names of JS objects are cached by map. */
typedef struct {
    u64map_t by_map;      /* map -> string index + 1 */
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
            if (v8_read_field(v, nd->addr, 0, &map) == 0 && !(nd->flags & V8_NODE_PROTOTYPE) && u64map_get(&nm->by_map, map, &idx)) {
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
    } else if ((tn && strstr(tn, "CONTEXT_TYPE")) || (cn && !strcmp(cn, "Context"))) {   /* contexts have no type names */
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

/* What V8's snapshot leaves out (heap-snapshot-generator.cc, IsEssentialObject): oddballs
 * (undefined, null, true, false, the hole), the read-only space's empty arrays, and the maps of
 * FixedArrays, Cells, PropertyCells, SharedFunctionInfos, free space and fillers; no node, and
 * no edge into them. Cleared from live (one bit a node). */
static void leave_out_inessential(v8_t *v, v8_graph_t *g, uint64_t *live)
{
    static const char *const maps_of[] = {"FIXED_ARRAY_TYPE", "CELL_TYPE", "PROPERTY_CELL_TYPE", "SHARED_FUNCTION_INFO_TYPE",
                                          "FREE_SPACE_TYPE", "FILLER_TYPE"};
    size_t n = v8_graph_node_count(g);
    for (size_t i = 0; i < n; i++) {
        const v8_graph_node_t *nd = v8_graph_node(g, (uint32_t)i);
        if (!(live[i / 64] >> (i % 64) & 1)) continue;
        const char *tn = v8_type_name(v, nd->type);
        int drop = tn && (!strcmp(tn, "ODDBALL_TYPE") || !strcmp(tn, "HOLE_TYPE"));
        if (!drop && (nd->flags & V8_NODE_READ_ONLY) && tn) {
            if (strstr(tn, "ARRAY") && nd->size <= 24) drop = 1;   /* an empty array: its header only */
            int it;
            if (!strcmp(tn, "MAP_TYPE") && v8_map_instances_type(v, nd->addr, &it) == 0) {
                const char *in = v8_type_name(v, it);
                for (size_t k = 0; in && k < sizeof maps_of / sizeof *maps_of && !drop; k++) drop = !strcmp(in, maps_of[k]);
            }
        }
        if (drop) live[i / 64] &= ~(1ull << (i % 64));
    }
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
    live_t live = {v8_graph_reachable(g), xmalloc(nwords * sizeof(uint32_t))};   /* before the trim */
    if (live.bits) leave_out_inessential(v, g, (uint64_t *)live.bits);
    size_t nlive = 0;
    for (size_t w = 0; w < nwords; w++) {
        live.base[w] = (uint32_t)nlive;
        nlive += (size_t)__builtin_popcountll(live.bits[w]);
    }
    pm_graph_trim();
    big_mem_trace("snapshot: graph trimmed");
    char *inputs[] = {(char *)target_name(v8_target(v))};
    output_t o;
    FILE *tmp = NULL;
    int opened = output_open(&o, out, inputs, 1) == 0;
    if (opened && !(tmp = tmpfile())) {
        diag_error(out, 0, "cannot create a temporary file: %s", strerror(errno));
        output_abort(&o);
    }
    if (!tmp) {
        free(root_used), free((void *)live.bits), free(live.base);
        return 1;
    }
    strings_t str = {strpool_new(), {0}, NULL, 0, 0, xcalloc(MAX_NUMBER_CACHE, sizeof(uint32_t))};
    u64map_init(&str.index);
    str_id(&str, "", 0);
    namer_t nm = {{0}, {0}};
    u64map_init(&nm.by_map);
    uint32_t *counts = xmalloc((nn + SYNTHETIC) * sizeof *counts);
    edge_sink_t k = {v, g, &live, &str, tmp, 0, 0, 0};
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
    /* the synthetic root: (GC roots), and the global object as a shortcut */
    put_edge(&k, V8_EDGE_ELEMENT, 1, 1 * NODE_FIELDS);
    for (size_t r = 0; r < nroots; r++) {
        const v8_graph_root_t *rt = v8_graph_root(g, r);
        /* DevTools' distances start from the root's non-synthetic children (its "user roots"):
           the global object, script scopes and modules, as paths do */
        if ((rt->level == V8_ROOT_GLOBAL || rt->level == V8_ROOT_MODULE) && is_live(&live, rt->node))
            put_edge(&k, V8_EDGE_SHORTCUT, str_id(&str, rt->name, strlen(rt->name)),
                     (live_index(&live, rt->node) + SYNTHETIC) * NODE_FIELDS);
    }
    counts[0] = k.count;
    k.count = 0;
    /* (GC roots): every root, once */
    uint8_t *is_root = xcalloc(nn ? nn : 1, 1);
    uint32_t ri = 0;
    for (size_t r = 0; r < nroots; r++) {
        const v8_graph_root_t *rt = v8_graph_root(g, r);
        if (is_root[rt->node] || !root_used[r] || !is_live(&live, rt->node)) continue;
        is_root[rt->node] = 1;
        put_edge(&k, V8_EDGE_ELEMENT, ++ri, (live_index(&live, rt->node) + SYNTHETIC) * NODE_FIELDS);
    }
    free(is_root);
    free(root_used);
    counts[1] = k.count;
    big_mem_trace("snapshot: roots");
    progress_t pr;
    progress_init(&pr, "naming references", "objects");
    for (size_t i = 0; i < nn; i++) {
        k.count = 0;
        counts[i + SYNTHETIC] = 0;
        if (!is_live(&live, (uint32_t)i)) continue;
        const v8_graph_node_t *nd = v8_graph_node(g, (uint32_t)i);
        v8_heap_object_t ho = {nd->addr, 0, nd->type, nd->size, (nd->flags & V8_NODE_LARGE) != 0, (nd->flags & V8_NODE_PROTOTYPE) != 0};
        v8_graph_pass(g, (uint32_t)i);
        k.backing = backing[i] != 0;
        v8_edges_of(e, &ho, v8_graph_is_object, g, on_edge, &k);
        /* V8's snapshot gives every JS object a "__proto__" property: its map's prototype */
        uint64_t proto;
        uint32_t pn;
        if ((nd->flags & V8_NODE_JS) && v8_prototype(v, nd->addr, &proto) == 0 &&
            (pn = v8_graph_find(g, proto)) != V8_NO_NODE && is_live(&live, pn))
            put_edge(&k, V8_EDGE_PROPERTY, str_id(&str, "__proto__", 9), (live_index(&live, pn) + SYNTHETIC) * NODE_FIELDS);
        counts[i + SYNTHETIC] = k.count;
        if ((i & 0xfff) == 0) progress_update(&pr, i, nn);
    }
    v8_graph_pass(g, V8_NO_NODE);
    progress_done(&pr);
    big_mem_trace("snapshot: edges named");
    uint64_t total_edges = 0;
    for (size_t i = 0; i < nn + SYNTHETIC; i++) total_edges += counts[i];
    FILE *f = o.f;
    fprintf(f, "{\"snapshot\":{\"meta\":{\"node_fields\":[\"type\",\"name\",\"id\",\"self_size\",\"edge_count\","
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
    uint32_t gc_roots = str_id(&str, "(GC roots)", 10);
    fprintf(f, "%d,0,1,0,%u,0,0\n,%d,%u,3,0,%u,0,0", T_SYNTHETIC, counts[0], T_SYNTHETIC, gc_roots, counts[1]);
    progress_init(&pr, "writing nodes", "objects");
    for (size_t i = 0; i < nn; i++) {
        uint32_t type, name;
        if (!is_live(&live, (uint32_t)i)) continue;
        v8_graph_pass(g, (uint32_t)i);   /* naming reads maps and strings: the core's pages handed back */
        node_type_name(v, g, &nm, &str, (uint32_t)i, &type, &name);
        if (backing[i] && type == T_ARRAY)
            name = backing[i] == BACKING_PROPERTIES ? str_id(&str, "(object properties)", 19) : str_id(&str, "(object elements)", 17);
        char line[128], *p = line;
        *p++ = '\n', *p++ = ',';
        p = put_u64(p, type), *p++ = ',';
        p = put_u64(p, name), *p++ = ',';
        p = put_u64(p, 2 * i + 5), *p++ = ',';
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
    rewind(tmp);
    uint32_t rec[3];
    for (uint64_t q = 0; q < total_edges && fread(rec, sizeof rec, 1, tmp) == 1; q++) {
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
    free(counts);
    free(backing);
    free((void *)live.bits);
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
