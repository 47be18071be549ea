/* nodescope core ... objects|instances|find|functions: the commands that enumerate the heap
 * (v8_heap_walk), like mdb_v8's ::findjsobjects and ::jsfunctions. Objects are grouped by their
 * map: the constructor name (and with -v the property names) is worked out once per map. */
#include "cli/core_cmds.h"
#include "util/diag.h"
#include "util/hash.h"
#include "util/json_writer.h"
#include "util/options.h"
#include "util/progress.h"
#include "util/xalloc.h"
#include <regex.h>
#include <stdlib.h>
#include <string.h>

/* ---- walking with a per-map cache ---- */

typedef struct {
    const char *name;     /* interned group name ("Widget", or "Widget: a, b" with -v) */
    int is_function;      /* JSFunction maps: -1 not yet known */
    int planned;          /* find: plan holds where --where's property lives in this map */
    v8_property_plan_t plan;
} map_entry_t;

typedef struct walk walk_t;
typedef int (*js_cb)(walk_t *w, const v8_heap_object_t *o, map_entry_t *me);

struct walk {
    core_session_t *s;
    v8_heap_t *h;
    strpool_t *names;
    u64map_t maps;          /* map -> index + 1 into entries */
    map_entry_t *entries;
    size_t nentries, cap;
    int by_properties;      /* -v: group name includes the property names */
    progress_t progress;
    size_t seen;
    js_cb cb;
    void *ctx;
};

static int collect_key(void *ctx, const v8_property_t *p)
{
    buf_t *b = ctx;
    if (b->len > 400) {
        buf_puts(b, ", ...");
        return 1;
    }
    buf_puts(b, b->data && b->data[b->len - 1] != ' ' ? ", " : "");
    buf_puts(b, p->key);
    return 0;
}

static map_entry_t *entry_for(walk_t *w, const v8_heap_object_t *o)
{
    uint32_t idx;
    if (u64map_get(&w->maps, o->map, &idx)) return &w->entries[idx - 1];
    buf_t b = {0};
    if (v8_constructor_name(w->s->v, o->addr, &b) != 0 || !b.len) {
        buf_clear(&b);
        const char *cn = v8_class_name(w->s->v, o->type);
        buf_printf(&b, "(%s)", cn ? cn : "unknown");
    }
    /* A prototype's "constructor" property names the class it is the prototype of: counted apart
       from the instances, as heap snapshots do. */
    if (o->prototype) buf_puts(&b, ".prototype");
    if (w->by_properties) {
        buf_puts(&b, ": ");
        size_t before = b.len;
        v8_object_properties(w->s->v, o->addr, collect_key, &b);
        if (b.len == before) buf_puts(&b, "(no properties)");
    }
    if (w->nentries == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 256;
        w->entries = xrealloc(w->entries, w->cap * sizeof *w->entries);
    }
    w->entries[w->nentries] = (map_entry_t){strpool_intern(w->names, b.data, b.len), -1, 0, {0, 0, -1, 0}};
    int found;
    *u64map_upsert(&w->maps, o->map, &found) = (uint32_t)++w->nentries;
    buf_free(&b);
    return &w->entries[w->nentries - 1];
}

static int on_object(void *ctx, const v8_heap_object_t *o)
{
    walk_t *w = ctx;
    if ((++w->seen & 0xffff) == 0) progress_update(&w->progress, w->seen, 0);
    if (!v8_heap_is_js_type(w->h, o->type)) return 0;
    return w->cb(w, o, entry_for(w, o));
}

/* Opens the heap and walks it, calling cb for every JavaScript object. EXIT_* code. */
static int walk_js(core_session_t *s, const char *cmd, int by_properties, js_cb cb, void *ctx, walk_t *w)
{
    memset(w, 0, sizeof *w);
    w->s = s;
    w->by_properties = by_properties;
    w->cb = cb;
    w->ctx = ctx;
    w->names = strpool_new();
    u64map_init(&w->maps);
    w->h = v8_heap_open(s->v);
    if (!v8_heap_found(w->h)) {
        diag_error(target_name(s->t), 0, "%s: no V8 heap pages found in the target's memory", cmd);
        return EXIT_FAIL;
    }
    progress_init(&w->progress, "walking the heap", "objects");
    v8_heap_stats_t st;
    v8_heap_walk(w->h, on_object, w, &st);
    progress_done(&w->progress);
    if (st.unreadable_pages)
        diag_warn(target_name(s->t), 0, "%s: %zu heap pages could not be read (not in the core?)", cmd, st.unreadable_pages);
    return EXIT_OK;
}

static void walk_free(walk_t *w)
{
    v8_heap_close(w->h);
    strpool_free(w->names);
    u64map_free(&w->maps);
    free(w->entries);
}

static int parse_cmd(core_session_t *s, const opt_cmd_t *cmd, int argc, char **argv, int min_ops, int max_ops, int *rc)
{
    int n = opt_parse(cmd, argc, argv);
    if (n < 0) {
        *rc = opt_exit_code(n);
        return -1;
    }
    *rc = EXIT_USAGE;
    if (n < min_ops) {
        opt_usage_error(cmd, "which constructor?");
        return -1;
    }
    if (n > max_ops) {
        opt_usage_error(cmd, "unexpected argument '%s'", argv[max_ops + 1]);
        return -1;
    }
    if (s->check_only) {
        *rc = EXIT_OK;
        return -1;
    }
    if (core_need_v8(s, argv[0]) != 0) {
        *rc = EXIT_FAIL;
        return -1;
    }
    return n;
}

/* ---- objects ---- */

typedef struct {
    const char *name;
    uint64_t count, bytes;
} group_t;

typedef struct {
    u64map_t index;   /* interned name pointer -> index + 1 */
    group_t *g;
    size_t n, cap;
} groups_t;

static int count_object(walk_t *w, const v8_heap_object_t *o, map_entry_t *me)
{
    groups_t *gs = w->ctx;
    int found;
    uint32_t *slot = u64map_upsert(&gs->index, (uint64_t)(uintptr_t)me->name, &found);
    if (!found) {
        if (gs->n == gs->cap) {
            gs->cap = gs->cap ? gs->cap * 2 : 256;
            gs->g = xrealloc(gs->g, gs->cap * sizeof *gs->g);
        }
        gs->g[gs->n] = (group_t){me->name, 0, 0};
        *slot = (uint32_t)++gs->n;
    }
    group_t *g = &gs->g[*slot - 1];
    g->count++;
    g->bytes += o->size;
    return 0;
}

static int by_count(const void *a, const void *b)
{
    const group_t *x = a, *y = b;
    if (x->count != y->count) return x->count < y->count ? 1 : -1;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int by_size(const void *a, const void *b)
{
    const group_t *x = a, *y = b;
    if (x->bytes != y->bytes) return x->bytes < y->bytes ? 1 : -1;
    return by_count(a, b);
}

int core_cmd_objects(core_session_t *s, int argc, char **argv)
{
    static const char usage[] =
        "usage: nodescope core CORE objects [-v] [--min N] [--sort count|size] [--json]\n\n"
        "Every JavaScript object on the heap, grouped by constructor name, with the number of\n"
        "instances, their shallow size in bytes (all of them, and on average), largest group first.\n";
    int verbose = 0, json = 0, retained = 0;
    long min = 1;
    const char *sort = "count";
    const opt_t opts[] = {
        OPT_BOOL("verbose", 'v', "group by constructor and property names", &verbose),
        OPT_INT("min", 0, "N", "only groups with at least N instances", &min),
        OPT_STR("sort", 0, "KEY", "count (default) or size (total shallow bytes)", &sort),
        OPT_BOOL("json", 0, "a JSON array of {name, count, size}", &json),
        OPT_BOOL("retained", 0, "add each constructor's retained size (dominators; sorted by it)", &retained),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core objects", usage, tables, 0, NULL};
    int rc;
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (retained) return core_objects_retained(s, &cmd, n, argv, verbose, min, sort, json);   /* core_retain.c */
    if (strcmp(sort, "count") && strcmp(sort, "size")) return opt_usage_error(&cmd, "--sort takes count or size, not '%s'", sort);
    if (min < 0) return opt_usage_error(&cmd, "--min needs a count, not %ld", min);
    if (parse_cmd(s, &cmd, argc, argv, 0, 0, &rc) < 0) return rc;
    groups_t gs = {0};
    u64map_init(&gs.index);
    walk_t w;
    rc = walk_js(s, argv[0], verbose, count_object, &gs, &w);
    if (rc == EXIT_OK) {
        qsort(gs.g, gs.n, sizeof *gs.g, strcmp(sort, "size") ? by_count : by_size);
        buf_t b = {0};
        jw_t jw;   /* json: a group a line, each {"name": ..., "count": ..., "size": ...} */
        jw_init(&jw, &b);
        jw.spaced = 1;
        jw.indent = "  ";
        uint64_t total_n = 0, total_b = 0;
        if (json) jw_array_begin_lines(&jw, NULL);
        else buf_printf(&b, "%12s %14s %10s  %s\n", "INSTANCES", "TOTAL SIZE", "SIZE", "CONSTRUCTOR");
        for (size_t i = 0; i < gs.n; i++) {
            const group_t *g = &gs.g[i];
            total_n += g->count;
            total_b += g->bytes;
            if (g->count < (uint64_t)min) continue;
            if (json) {
                jw_object_begin(&jw, NULL);
                jw_string(&jw, "name", g->name);
                jw_uint(&jw, "count", g->count);
                jw_uint(&jw, "size", g->bytes);
                jw_end(&jw);
            } else {
                buf_printf(&b, "%12llu %14llu %10llu  %s\n", (unsigned long long)g->count, (unsigned long long)g->bytes,
                           (unsigned long long)(g->bytes / g->count), g->name);
            }
            if (b.len > 1 << 16) {
                fwrite(b.data, 1, b.len, stdout);
                buf_clear(&b);
            }
        }
        if (json) {
            jw_newline(&jw);   /* "]" on a line of its own */
            jw_end(&jw);
            buf_putc(&b, '\n');
        } else buf_printf(&b, "%12llu %14llu %10s  (%zu constructors)\n", (unsigned long long)total_n,
                        (unsigned long long)total_b, "", gs.n);
        fwrite(b.data ? b.data : "", 1, b.len, stdout);
        buf_free(&b);
    }
    walk_free(&w);
    free(gs.g);
    u64map_free(&gs.index);
    return rc;
}

/* ---- instances and find ---- */

typedef enum { OP_EQ, OP_NE, OP_LT, OP_GT, OP_LE, OP_GE, OP_MATCH } op_t;

typedef struct {
    const char *name;        /* constructor to match, NULL = any */
    long limit, shown;
    int json;                /* one JSON document: {"objects":[{address, constructor, text}], "count", "shown"} */
    /* find */
    int has_where;
    char prop[256];
    op_t op;
    char value[1024];        /* unquoted */
    int value_is_number;
    double number;
    regex_t re;
    buf_t scratch;
    jw_t jw;                 /* json: the document, written out after each object (select_flush) */
    buf_t out;
} select_t;

static void select_flush(select_t *sel)
{
    fwrite(sel->out.data, 1, sel->out.len, stdout);
    buf_clear(&sel->out);
}

static void preview(v8_t *v, uint64_t addr, buf_t *b)
{
    buf_clear(b);
    v8_describe(v, addr, b);
}

/* The property's value as text (strings unquoted) and, when it is a number, as a number. */
static int property_text(v8_t *v, uint64_t obj, uint64_t map, const char *prop, const v8_property_plan_t *plan, buf_t *out,
                         int *is_num, double *num)
{
    uint64_t val;
    buf_clear(out);
    *is_num = 0;
    if (v8_property_plan_get(v, obj, map, prop, plan, &val) != 0) return -1;
    int type, trunc;
    if (v8_is_smi(v, val)) {
        *is_num = 1;
        *num = (double)v8_smi_value(v, val);
        buf_printf(out, "%lld", (long long)v8_smi_value(v, val));
        return 0;
    }
    if (v8_instance_type(v, val, &type) == 0 && v8_is_string_type(v, type)) return v8_string(v, val, out, 1 << 20, &trunc);
    v8_describe(v, val, out);
    if (type >= 0 && v8_type_name(v, type) && !strcmp(v8_type_name(v, type), "HEAP_NUMBER_TYPE")) {
        char *end;
        *num = strtod(out->data, &end);
        *is_num = end != out->data && !*end;
    }
    return 0;
}

static int matches(v8_t *v, select_t *sel, const v8_heap_object_t *o, map_entry_t *me)
{
    int is_num;
    double num = 0;
    if (!me->planned) {   /* where the property lives: once per map */
        v8_property_plan(v, o->map, sel->prop, &me->plan);
        me->planned = 1;
    }
    if (property_text(v, o->addr, o->map, sel->prop, &me->plan, &sel->scratch, &is_num, &num) != 0) return 0;
    const char *text = sel->scratch.data ? sel->scratch.data : "";
    if (sel->op == OP_MATCH) return regexec(&sel->re, text, 0, NULL, 0) == 0;
    int c;
    if (sel->value_is_number && is_num) c = num < sel->number ? -1 : num > sel->number;
    else if (sel->op == OP_EQ || sel->op == OP_NE) c = strcmp(text, sel->value) != 0;
    else return 0;   /* < > on non-numbers: no match */
    switch (sel->op) {
    case OP_EQ: return c == 0;
    case OP_NE: return c != 0;
    case OP_LT: return c < 0;
    case OP_GT: return c > 0;
    case OP_LE: return c <= 0;
    case OP_GE: return c >= 0;
    default: return 0;
    }
}

static int select_object(walk_t *w, const v8_heap_object_t *o, map_entry_t *me)
{
    select_t *sel = w->ctx;
    if (sel->name && strcmp(me->name, sel->name)) return 0;
    if (sel->has_where && !matches(w->s->v, sel, o, me)) return 0;
    if (sel->limit >= 0 && sel->shown >= sel->limit) {
        sel->shown++;
        return 0;
    }
    sel->shown++;
    buf_t b = {0};
    preview(w->s->v, o->addr, &b);
    if (sel->json) {
        jw_object_begin(&sel->jw, NULL);
        jw_address(&sel->jw, "address", o->addr);
        jw_string(&sel->jw, "constructor", me->name);
        jw_string_n(&sel->jw, "text", b.data ? b.data : "", b.len);
        jw_end(&sel->jw);
        select_flush(sel);
    } else printf("0x%llx %s\n", (unsigned long long)o->addr, b.data ? b.data : "");
    buf_free(&b);
    return 0;
}

/* "PROP OP VALUE": 0, or -1 after a usage error. */
static int parse_where(const opt_cmd_t *cmd, const char *where, select_t *sel)
{
    static const struct { const char *text; op_t op; } ops[] = {
        {"==", OP_EQ}, {"!=", OP_NE}, {"<=", OP_LE}, {">=", OP_GE}, {"<", OP_LT}, {">", OP_GT}, {"~", OP_MATCH},
    };
    const char *p = where;
    while (*p == ' ') p++;
    const char *ps = p;
    while (*p && *p != ' ' && !strchr("=!<>~", *p)) p++;
    size_t plen = (size_t)(p - ps);
    if (!plen || plen >= sizeof sel->prop) return opt_usage_error(cmd, "--where '%s': no property name", where), -1;
    memcpy(sel->prop, ps, plen);
    sel->prop[plen] = 0;
    while (*p == ' ') p++;
    size_t k;
    for (k = 0; k < sizeof ops / sizeof ops[0]; k++)
        if (!strncmp(p, ops[k].text, strlen(ops[k].text))) break;
    if (k == sizeof ops / sizeof ops[0])
        return opt_usage_error(cmd, "--where '%s': no operator (==, !=, <, >, <=, >=, ~ /regex/)", where), -1;
    sel->op = ops[k].op;
    p += strlen(ops[k].text);
    while (*p == ' ') p++;
    size_t vlen = strlen(p);
    while (vlen && p[vlen - 1] == ' ') vlen--;
    if (vlen >= sizeof sel->value) return opt_usage_error(cmd, "--where: the value is too long"), -1;
    if (vlen >= 2 && (p[0] == '"' || p[0] == '\'' || p[0] == '/') && p[vlen - 1] == p[0]) {
        memcpy(sel->value, p + 1, vlen - 2);
        sel->value[vlen - 2] = 0;
    } else {
        memcpy(sel->value, p, vlen);
        sel->value[vlen] = 0;
        char *end;
        sel->number = strtod(sel->value, &end);
        sel->value_is_number = vlen && !*end;
    }
    if (sel->op == OP_MATCH) {
        if (p[0] != '/') return opt_usage_error(cmd, "--where: ~ takes a /regex/"), -1;
        if (regcomp(&sel->re, sel->value, REG_EXTENDED | REG_NOSUB) != 0)
            return opt_usage_error(cmd, "--where: bad regular expression /%s/", sel->value), -1;
    } else if ((sel->op != OP_EQ && sel->op != OP_NE) && !sel->value_is_number) {
        return opt_usage_error(cmd, "--where: %s compares numbers, not '%s'", ops[k].text, sel->value), -1;
    }
    sel->has_where = 1;
    return 0;
}

static int run_select(core_session_t *s, const char *cmdname, select_t *sel)
{
    walk_t w;
    if (sel->json) {
        jw_init(&sel->jw, &sel->out);
        jw_object_begin(&sel->jw, NULL);
        jw_array_begin(&sel->jw, "objects");
        select_flush(sel);
    }
    int rc = walk_js(s, cmdname, 0, select_object, sel, &w);
    long listed = sel->limit >= 0 && sel->shown > sel->limit ? sel->limit : sel->shown;
    if (sel->json) {
        jw_end(&sel->jw);
        jw_int(&sel->jw, "count", sel->shown);
        jw_int(&sel->jw, "listed", listed);
        jw_bool(&sel->jw, "complete", rc == EXIT_OK);
        jw_end(&sel->jw);
        buf_putc(&sel->out, '\n');
        select_flush(sel);
        buf_free(&sel->out);
    } else if (rc == EXIT_OK && sel->limit >= 0 && sel->shown > sel->limit)
        printf("... (%ld more; --limit N shows more)\n", sel->shown - sel->limit);
    walk_free(&w);
    return rc;
}

int core_cmd_instances(core_session_t *s, int argc, char **argv)
{
    static const char usage[] = "usage: nodescope core CORE instances NAME [--limit N] [--json]\n\n"
                                "Every instance of the constructor NAME (as `objects` names it): its address and a\n"
                                "one-line preview, one per line.\n";
    select_t sel = {0};
    sel.limit = -1;
    const opt_t opts[] = {OPT_INT("limit", 'n', "N", "show the first N", &sel.limit),
                          OPT_BOOL("json", 0, "a JSON document: {objects: [{address, constructor, text}], count, listed}", &sel.json),
                          OPT_HELP, OPT_END};
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core instances", usage, tables, 0, NULL};
    int rc;
    if (parse_cmd(s, &cmd, argc, argv, 1, 1, &rc) < 0) return rc;
    sel.name = argv[1];
    return run_select(s, argv[0], &sel);
}

int core_cmd_find(core_session_t *s, int argc, char **argv)
{
    static const char usage[] =
        "usage: nodescope core CORE find [NAME] --where 'PROP OP VALUE' [--limit N] [--json]\n\n"
        "The objects (of constructor NAME, or all) whose own property PROP compares to VALUE:\n"
        "OP is ==, !=, <, >, <=, >= (numbers compare as numbers, strings as text: \"quoted\" or bare)\n"
        "or ~ /regex/ (POSIX extended, on the value as text). Prints address and preview.\n";
    select_t sel = {0};
    sel.limit = -1;
    const char *where = NULL;
    const opt_t opts[] = {
        OPT_STR("where", 'w', "'PROP OP VALUE'", "the condition", &where),
        OPT_INT("limit", 'n', "N", "show the first N", &sel.limit),
        OPT_BOOL("json", 0, "a JSON document: {objects: [{address, constructor, text}], count, listed}", &sel.json),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core find", usage, tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (!where) return opt_usage_error(&cmd, "which condition? (--where 'PROP OP VALUE')");
    if (parse_where(&cmd, where, &sel) != 0) return EXIT_USAGE;
    int rc;
    n = parse_cmd(s, &cmd, argc, argv, 0, 1, &rc);
    if (n >= 0) {
        sel.name = n ? argv[1] : NULL;
        rc = run_select(s, argv[0], &sel);
    }
    if (sel.op == OP_MATCH) regfree(&sel.re);
    buf_free(&sel.scratch);
    return rc;
}

/* ---- functions ---- */

typedef struct {
    uint64_t shared, closures;
} fn_count_t;

typedef struct {
    u64map_t index;   /* shared -> index + 1 */
    fn_count_t *f;
    size_t n, cap;
} fns_t;

static int count_function(walk_t *w, const v8_heap_object_t *o, map_entry_t *me)
{
    (void)me;
    fns_t *fs = w->ctx;
    uint64_t shared;
    if (v8_heap_function_shared(w->h, o, &shared) != 0) return 0;
    int found;
    uint32_t *slot = u64map_upsert(&fs->index, shared, &found);
    if (!found) {
        if (fs->n == fs->cap) {
            fs->cap = fs->cap ? fs->cap * 2 : 1024;
            fs->f = xrealloc(fs->f, fs->cap * sizeof *fs->f);
        }
        fs->f[fs->n] = (fn_count_t){shared, 0};
        *slot = (uint32_t)++fs->n;
    }
    fs->f[*slot - 1].closures++;
    return 0;
}

static int by_closures(const void *a, const void *b)
{
    const fn_count_t *x = a, *y = b;
    if (x->closures != y->closures) return x->closures < y->closures ? 1 : -1;
    return x->shared < y->shared ? -1 : x->shared > y->shared;
}

int core_cmd_functions(core_session_t *s, int argc, char **argv)
{
    static const char usage[] =
        "usage: nodescope core CORE functions [--min N] [--json]\n\n"
        "Every JavaScript function (SharedFunctionInfo) with closures on the heap: how many closures\n"
        "(JSFunction objects) exist for it, its name and where it is defined, most closures first.\n";
    int json = 0;
    long min = 1;
    const opt_t opts[] = {
        OPT_INT("min", 0, "N", "only functions with at least N closures", &min),
        OPT_BOOL("json", 0, "a JSON array of {name, closures, shared, script, line, column}", &json),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core functions", usage, tables, 0, NULL};
    int rc;
    if (parse_cmd(s, &cmd, argc, argv, 0, 0, &rc) < 0) return rc;
    fns_t fs = {0};
    u64map_init(&fs.index);
    walk_t w;
    rc = walk_js(s, argv[0], 0, count_function, &fs, &w);
    if (rc == EXIT_OK) {
        qsort(fs.f, fs.n, sizeof *fs.f, by_closures);
        buf_t b = {0};
        jw_t jw;   /* json: a function a line, as objects --json */
        jw_init(&jw, &b);
        jw.spaced = 1;
        jw.indent = "  ";
        if (json) jw_array_begin_lines(&jw, NULL);
        else buf_printf(&b, "%10s  %-18s  %s\n", "CLOSURES", "SHARED", "FUNCTION");
        for (size_t i = 0; i < fs.n; i++) {
            if (fs.f[i].closures < (uint64_t)min) continue;
            v8_function_t fi;
            int ok = v8_shared_info(s->v, fs.f[i].shared, &fi) == 0;
            const char *name = ok && fi.name && *fi.name ? fi.name : ok && fi.inferred && *fi.inferred ? fi.inferred : "(anonymous)";
            const char *script = ok && fi.script_name ? fi.script_name : "";
            int line = ok ? fi.def_line : 0, col = ok ? fi.def_col : 0;
            if (json) {
                jw_object_begin(&jw, NULL);
                jw_string(&jw, "name", name);
                jw_uint(&jw, "closures", fs.f[i].closures);
                jw_address(&jw, "shared", fs.f[i].shared);
                jw_string(&jw, "script", script);
                jw_int(&jw, "line", line);
                jw_int(&jw, "column", col);
                jw_end(&jw);
            } else {
                buf_printf(&b, "%10llu  0x%-16llx  %s", (unsigned long long)fs.f[i].closures, (unsigned long long)fs.f[i].shared,
                           name);
                if (*script && line) buf_printf(&b, " at %s:%d:%d", script, line, col);
                else if (*script) buf_printf(&b, " at %s", script);
                buf_putc(&b, '\n');
            }
            if (ok) v8_function_free(&fi);
            if (b.len > 1 << 16) {
                fwrite(b.data, 1, b.len, stdout);
                buf_clear(&b);
            }
        }
        if (json) {
            jw_newline(&jw);
            jw_end(&jw);
            buf_putc(&b, '\n');
        }
        fwrite(b.data ? b.data : "", 1, b.len, stdout);
        buf_free(&b);
    }
    walk_free(&w);
    free(fs.f);
    u64map_free(&fs.index);
    return rc;
}
