/* A census of a V8 .heapsnapshot (DevTools, v8.getHeapSnapshot(), memlab, nodescope's own
 * `heapsnapshot`): its JavaScript objects by constructor, for `core A diff-objects B` on two
 * snapshot files. The file is one JSON object: "snapshot".meta names the fields of a node (type,
 * name, id, self_size, ...) and the names of the types; "nodes" is a flat array of numbers, one
 * record of those fields a node; "strings" holds the names, after the nodes. An object's
 * constructor is its node's name where the type is "object"; a "closure" counts as (closure) and
 * a "regexp" as RegExp, as `core objects` names them. A node's id is stable across the snapshots
 * of one process (V8's HeapObjectsMap): it plays an address's part, so that an instance of B at
 * no id of A's is new.
 *
 * The file is streamed (util/json.c): kept are 16 bytes a JavaScript object and the strings, never
 * the nodes array (200 million numbers for a 1 GB heap). Everything read is checked: a field the
 * meta does not name, a record cut short, a name past the strings, or a number that is not a
 * count is an error naming the file. */
#include "postmortem/heapsnapshot_census.h"
#include "util/buf.h"
#include "util/diag.h"
#include "util/json.h"
#include "util/xalloc.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 64
#define NAME_CLOSURE UINT32_MAX
#define NAME_REGEXP (UINT32_MAX - 1)

typedef struct {
    uint64_t id;
    uint32_t name; /* index into strings, or NAME_CLOSURE, NAME_REGEXP */
    uint32_t size;
} obj_t;

typedef struct {
    json_t *j;
    int nfields, f_type, f_name, f_id, f_size;
    int64_t t_object, t_closure, t_regexp; /* node type numbers, -1 when the meta has none */
    obj_t *objs;
    size_t nobjs, capobjs;
    uint64_t nodes, bytes;
    buf_t strings; /* each NUL-terminated, at off[k] */
    size_t *off, nstrings, capoff;
    size_t next; /* the census's cursor */
} hs_t;

int pm_is_heapsnapshot(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char b[64];
    size_t n = fread(b, 1, sizeof b, f);
    fclose(f);
    for (size_t i = 0; i < n; i++)
        if (b[i] != ' ' && b[i] != '\n' && b[i] != '\r' && b[i] != '\t') return b[i] == '{';
    return 0;
}

static int fail(hs_t *h, const char *what)
{
    json_fail(h->j, what);
    return -1;
}

/* An array of strings whose '[' was just read, into names (at most max); how many, or -1. */
static int read_names(hs_t *h, char names[][32], int max)
{
    int n = 0;
    for (json_token_t tk; (tk = json_next(h->j)) != JSON_ARRAY_END;) {
        if (tk != JSON_STRING) return tk == JSON_ERROR ? -1 : fail(h, "a .heapsnapshot's meta: a name expected");
        if (n == max) return fail(h, "a .heapsnapshot's meta: too many fields");
        snprintf(names[n++], sizeof names[0], "%s", h->j->str.data ? h->j->str.data : "");
    }
    return n;
}

static int field_index(char names[][32], int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], name)) return i;
    return -1;
}

/* "meta", its '{' just read: the node fields, then the names of the node types. */
static int read_meta(hs_t *h)
{
    char fields[MAX_FIELDS][32];
    for (json_token_t tk; (tk = json_next(h->j)) != JSON_OBJECT_END;) {
        if (tk != JSON_KEY) return tk == JSON_ERROR ? -1 : fail(h, "a .heapsnapshot's meta: a key expected");
        int is_fields = !strcmp(h->j->str.data, "node_fields"), is_types = !strcmp(h->j->str.data, "node_types");
        tk = json_next(h->j);
        if (is_fields) {
            if (tk != JSON_ARRAY_START) return fail(h, "node_fields is not an array");
            if ((h->nfields = read_names(h, fields, MAX_FIELDS)) < 0) return -1;
            h->f_type = field_index(fields, h->nfields, "type");
            h->f_name = field_index(fields, h->nfields, "name");
            h->f_id = field_index(fields, h->nfields, "id");
            h->f_size = field_index(fields, h->nfields, "self_size");
            if (h->f_type < 0 || h->f_name < 0 || h->f_id < 0 || h->f_size < 0)
                return fail(h, "node_fields lacks one of type, name, id, self_size");
        } else if (is_types) {
            if (h->nfields == 0) return fail(h, "node_types before node_fields");
            if (tk != JSON_ARRAY_START) return fail(h, "node_types is not an array");
            for (int k = 0; (tk = json_next(h->j)) != JSON_ARRAY_END; k++) {
                if (k != h->f_type || tk != JSON_ARRAY_START) {
                    if (json_skip(h->j, tk) != 0) return -1;
                    continue;
                }
                char types[MAX_FIELDS][32];
                int nt = read_names(h, types, MAX_FIELDS);
                if (nt < 0) return -1;
                h->t_object = field_index(types, nt, "object");
                h->t_closure = field_index(types, nt, "closure");
                h->t_regexp = field_index(types, nt, "regexp");
            }
            if (h->t_object < 0) return fail(h, "node_types names no \"object\" type");
        } else if (json_skip(h->j, tk) != 0) {
            return -1;
        }
    }
    return 0;
}

/* "nodes", its '[' just read: the JavaScript objects' records kept, every node's size summed. */
static int read_nodes(hs_t *h)
{
    if (h->nfields == 0 || h->t_object < 0) return fail(h, "\"nodes\" before the meta that names their fields");
    double rec[MAX_FIELDS];
    int f = 0;
    for (json_token_t tk; (tk = json_next(h->j)) != JSON_ARRAY_END;) {
        if (tk != JSON_NUMBER) return tk == JSON_ERROR ? -1 : fail(h, "a node's field is not a number");
        double x = h->j->num;
        if (!(x >= 0 && x <= 9007199254740992.0) || x != (double)(uint64_t)x)
            return fail(h, "a node's field is not a count");
        rec[f++] = x;
        if (f < h->nfields) continue;
        f = 0;
        h->nodes++;
        uint64_t size = (uint64_t)rec[h->f_size];
        h->bytes += size;
        int64_t type = (int64_t)rec[h->f_type];
        if (type != h->t_object && type != h->t_closure && type != h->t_regexp) continue;
        if (rec[h->f_name] >= NAME_REGEXP) return fail(h, "a node's name is past any string table");
        XGROW(h->objs, h->capobjs, h->nobjs + 1);
        h->objs[h->nobjs++] = (obj_t){(uint64_t)rec[h->f_id],
                                      type == h->t_closure  ? NAME_CLOSURE
                                      : type == h->t_regexp ? NAME_REGEXP
                                                            : (uint32_t)rec[h->f_name],
                                      size > UINT32_MAX ? UINT32_MAX : (uint32_t)size};
    }
    if (f) return fail(h, "the nodes array ends inside a node's record");
    return 0;
}

/* "strings", its '[' just read. */
static int read_strings(hs_t *h)
{
    for (json_token_t tk; (tk = json_next(h->j)) != JSON_ARRAY_END;) {
        if (tk != JSON_STRING) return tk == JSON_ERROR ? -1 : fail(h, "a string table entry is not a string");
        XGROW(h->off, h->capoff, h->nstrings + 1);
        h->off[h->nstrings++] = h->strings.len;
        buf_puts(&h->strings, h->j->str.data ? h->j->str.data : "");
        buf_putc(&h->strings, 0);
    }
    return 0;
}

static int read_snapshot(hs_t *h)
{
    json_token_t tk = json_next(h->j);
    if (tk != JSON_OBJECT_START) return tk == JSON_ERROR ? -1 : fail(h, "not a .heapsnapshot: no JSON object");
    int seen_nodes = 0, seen_strings = 0;
    while ((tk = json_next(h->j)) != JSON_OBJECT_END) {
        if (tk != JSON_KEY) return tk == JSON_ERROR ? -1 : fail(h, "a key expected");
        const char *k = h->j->str.data;
        int snap = !strcmp(k, "snapshot"), nodes = !strcmp(k, "nodes"), strings = !strcmp(k, "strings");
        tk = json_next(h->j);
        if (snap && tk == JSON_OBJECT_START) {
            while ((tk = json_next(h->j)) != JSON_OBJECT_END) {
                if (tk != JSON_KEY) return tk == JSON_ERROR ? -1 : fail(h, "a key expected in \"snapshot\"");
                int meta = !strcmp(h->j->str.data, "meta");
                tk = json_next(h->j);
                if (meta && tk == JSON_OBJECT_START) {
                    if (read_meta(h) != 0) return -1;
                } else if (json_skip(h->j, tk) != 0) {
                    return -1;
                }
            }
        } else if (nodes && tk == JSON_ARRAY_START) {
            if (read_nodes(h) != 0) return -1;
            seen_nodes = 1;
        } else if (strings && tk == JSON_ARRAY_START) {
            if (read_strings(h) != 0) return -1;
            seen_strings = 1;
        } else if (snap || nodes || strings) {
            return fail(h, snap ? "\"snapshot\" is not an object" : "\"nodes\" or \"strings\" is not an array");
        } else if (json_skip(h->j, tk) != 0) {
            return -1;
        }
    }
    if (!seen_nodes || !seen_strings) return fail(h, "not a .heapsnapshot: no \"nodes\" or no \"strings\"");
    for (size_t i = 0; i < h->nobjs; i++)
        if (h->objs[i].name < NAME_REGEXP && h->objs[i].name >= h->nstrings)
            return fail(h, "a node's name is past the string table");
    return 0;
}

static int next_object(void *ctx, uint64_t *id, const char **name, size_t *len, uint64_t *bytes)
{
    hs_t *h = ctx;
    if (h->next == h->nobjs) return 0;
    const obj_t *o = &h->objs[h->next++];
    *id = o->id;
    *bytes = o->size;
    *name = o->name == NAME_CLOSURE  ? "(closure)"
            : o->name == NAME_REGEXP ? "RegExp"
                                     : h->strings.data + h->off[o->name];
    *len = strlen(*name);
    return 1;
}

int pm_heapsnapshot_census(pm_leak_t *L, const char *path, double t)
{
    input_t *in = input_open(path);
    if (!in) return -1;
    int rc = pm_heapsnapshot_census_input(L, in, t);
    input_close(in);
    return rc;
}

int pm_heapsnapshot_census_input(pm_leak_t *L, input_t *in, double t)
{
    json_t j;
    json_init(&j, in);
    hs_t h = {0};
    h.j = &j;
    h.t_object = h.t_closure = h.t_regexp = -1;
    int rc = read_snapshot(&h);
    input_progress_done(in);
    json_free(&j);
    if (rc == 0) {
        pm_leak_point_t totals = {0};
        totals.heap_bytes = totals.all_bytes = h.bytes;
        totals.heap_objects = h.nodes;
        totals.js_objects = h.nobjs;
        rc = pm_leak_census_from(L, t, next_object, &h, &totals);
    }
    free(h.objs);
    free(h.off);
    buf_free(&h.strings);
    return rc;
}
