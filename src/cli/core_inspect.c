/* nodescope core ... type|v8print|str|array ADDR: the low-level inspectors of V8 values. */
#include "cli/core_cmds.h"
#include "util/diag.h"
#include "util/demangle.h"
#include "util/json.h"
#include "util/options.h"
#include <stdlib.h>
#include <string.h>

#define STR_MAX_BYTES (64u << 20)
#define DEFAULT_LIMIT 100

/* Parses "CMD [-v] [--limit N] ADDR"; prints usage for --help. 0 ok, else an exit code. */
typedef struct {
    uint64_t addr;
    int verbose;
    long limit;
} inspect_args_t;

static int parse(core_session_t *s, int argc, char **argv, const char *usage, int *rc, inspect_args_t *a)
{
    a->verbose = 0;
    a->limit = DEFAULT_LIMIT;
    int is_str = !strcmp(argv[0], "str"), has_limit = !strcmp(argv[0], "v8print") || !strcmp(argv[0], "array");
    const opt_t opts[] = {
        OPT_BOOL("verbose", 'v', is_str ? "first the representation and the length in UTF-16 units" : NULL, &a->verbose),
        OPT_INT("limit", 0, "N", has_limit ? "show the first N (100)" : NULL, &a->limit),
        OPT_HELP,
        OPT_END,
    };
    const opt_t *tables[] = {opts, NULL};
    char name[64];
    snprintf(name, sizeof name, "core %s", argv[0]);
    const opt_cmd_t cmd = {name, usage, tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) {
        *rc = opt_exit_code(n);
        return -1;
    }
    *rc = EXIT_USAGE;
    if (a->limit < 0) {
        opt_usage_error(&cmd, "--limit needs a count, not %ld", a->limit);
        return -1;
    }
    if (n == 0) {
        opt_usage_error(&cmd, "which address?");
        return -1;
    }
    if (n > 1) {
        opt_usage_error(&cmd, "unexpected argument '%s'", argv[2]);
        return -1;
    }
    if (core_parse_addr(argv[0], argv[1], &a->addr) != 0) return -1;
    if (s->check_only) {
        *rc = EXIT_OK;
        return -1;
    }
    if (core_need_v8(s, argv[0]) != 0) {
        *rc = EXIT_FAIL;
        return -1;
    }
    return 0;
}

static int unreadable(core_session_t *s, const char *cmd, uint64_t addr, const char *what)
{
    diag_error(target_name(s->t), 0, "%s: 0x%llx is not %s (or its memory is not in the target)", cmd,
               (unsigned long long)addr, what);
    return EXIT_FAIL;
}

int core_cmd_type(core_session_t *s, int argc, char **argv)
{
    static const char usage[] = "usage: nodescope core CORE type ADDR\n\n"
                                "The V8 type of a tagged value: Smi N, or the heap object's instance type and class\n"
                                "(and constructor, for JavaScript objects).\n";
    inspect_args_t a;
    int rc;
    if (parse(s, argc, argv, usage, &rc, &a) != 0) return rc;
    v8_t *v = s->v;
    if (v8_is_smi(v, a.addr)) {
        printf("Smi %lld\n", (long long)v8_smi_value(v, a.addr));
        return EXIT_OK;
    }
    int type;
    if (!v8_is_heap_object(v, a.addr)) {
        printf("not a tagged value (a heap object pointer ends in binary 01, a Smi in 0)\n");
        return EXIT_OK;
    }
    if (v8_instance_type(v, a.addr, &type) != 0) return unreadable(s, argv[0], a.addr, "a readable heap object");
    const char *tn = v8_type_name(v, type), *cn = v8_class_name(v, type);
    buf_t ctor = {0}, d = {0};
    printf("%s (%s, type %d)", tn ? tn : "unknown type", cn ? cn : "?", type);
    if (v8_constructor_name(v, a.addr, &ctor) == 0) printf(", constructor %s", ctor.data);
    v8_describe(v, a.addr, &d);
    printf(": %s\n", d.data);
    buf_free(&ctor);
    buf_free(&d);
    return EXIT_OK;
}

/* One field's value, read by the metadata's type name (through v8/, which knows the tag). */
static void print_field(v8_t *v, uint64_t obj, const v8_field_t *f, buf_t *b)
{
    const char *ty = f->type;
    int64_t off = f->offset;
    uint64_t w = 0;
    buf_clear(b);
    if (!strcmp(ty, "char") || !strcmp(ty, "uint8_t")) {
        uint8_t x;
        if (v8_read_bytes(v, obj, off, &x, 1) == 0) buf_printf(b, "%u", x);
    } else if (!strcmp(ty, "uint16_t") || !strcmp(ty, "int16_t")) {
        uint16_t x;
        if (v8_read_bytes(v, obj, off, &x, 2) == 0) buf_printf(b, "%d", !strcmp(ty, "int16_t") ? (int)(int16_t)x : (int)x);
    } else if (!strcmp(ty, "int") || !strcmp(ty, "int32_t") || !strcmp(ty, "uint32_t")) {
        uint32_t x;
        if (v8_read_bytes(v, obj, off, &x, 4) == 0) buf_printf(b, "%lld", !strcmp(ty, "uint32_t") ? (long long)x : (long long)(int32_t)x);
    } else if (!strcmp(ty, "double")) {
        double d;
        if (v8_read_bytes(v, obj, off, &d, 8) == 0) v8_put_number(b, d);
    } else if (!strcmp(ty, "uintptr_t") || !strcmp(ty, "size_t") || !strcmp(ty, "Address") || !strcmp(ty, "uint64_t")) {
        if (v8_read_bytes(v, obj, off, &w, 8) == 0) buf_printf(b, "0x%llx", (unsigned long long)w);
    } else if (v8_read_field(v, obj, off, &w) == 0) {   /* a tagged field */
        buf_printf(b, "0x%llx ", (unsigned long long)w);
        v8_describe(v, w, b);
    }
    if (!b->len) buf_puts(b, "<unreadable>");
}

typedef struct {
    v8_t *v;
    long shown, limit;
} print_ctx_t;

static int print_property(void *vctx, const v8_property_t *p)
{
    print_ctx_t *c = vctx;
    if (c->shown++ >= c->limit) return 1;
    buf_t d = {0};
    if (p->is_double) v8_put_number(&d, p->d);
    else if (p->is_accessor) buf_puts(&d, "<accessor>");
    else v8_describe(c->v, p->value, &d);
    printf("    %s: %s\n", p->key, d.data ? d.data : "");
    buf_free(&d);
    return 0;
}

static void print_more(const print_ctx_t *c, const char *what)
{
    if (c->shown > c->limit) printf("    ... (more %s; --limit N shows more)\n", what);
}

typedef struct {
    int64_t slot;
    char name[128];
} slot_name_t;

static int slot_name_cb(void *ctx, const char *name, int64_t slot, uint64_t value)
{
    slot_name_t *n = ctx;
    (void)value;
    if (slot != n->slot) return 0;
    snprintf(n->name, sizeof n->name, "%s", name);
    return 1;
}

/* The slots of a FixedArray-shaped object (FixedArray, Context), the first `limit`, one per line;
 * a Context's locals by their ScopeInfo names ("[4] outerVar: ..."). */
static int print_slots(v8_t *v, uint64_t addr, int64_t limit, const char *indent)
{
    int64_t len;
    if (v8_fixed_array_length(v, addr, &len) != 0) return -1;
    for (int64_t i = 0; i < len && i < limit; i++) {
        uint64_t w;
        if (v8_fixed_array_get(v, addr, i, &w) != 0) return -1;
        buf_t d = {0};
        v8_describe(v, w, &d);
        slot_name_t n = {i, ""};
        v8_context_locals(v, addr, slot_name_cb, &n);
        if (n.name[0] && n.name[0] != '[') printf("%s[%lld] %s: %s\n", indent, (long long)i, n.name, d.data);
        else printf("%s[%lld]: %s\n", indent, (long long)i, d.data);
        buf_free(&d);
    }
    if (len > limit) printf("%s... (%lld more; --limit N shows more)\n", indent, (long long)(len - limit));
    return 0;
}

/* One embedder field as text: a Smi, a V8 value, or a C++ pointer named by its vtable's class
 * ("vtable for node::TCPWrap" from the symbols) or by the symbol it points into. */
static void describe_embedder(core_session_t *s, const v8_embedder_value_t *e, buf_t *b)
{
    buf_clear(b);
    if (e->kind == V8_EMBEDDER_SMI) {
        buf_printf(b, "Smi %lld", (long long)v8_smi_value(s->v, e->raw));
        return;
    }
    buf_printf(b, "0x%llx", (unsigned long long)e->raw);
    if (e->kind == V8_EMBEDDER_TAGGED) {
        buf_putc(b, ' ');
        v8_describe(s->v, e->raw, b);
        return;
    }
    if (!e->raw) {
        buf_puts(b, " (null)");
        return;
    }
    target_symbol_t sym;
    buf_t name = {0};
    static const char vt[] = "vtable for ";
    if (e->vtable && target_symbolize_data(s->t, e->vtable, &sym) == 0 && (demangle_append(&name, sym.name), 1) &&
        !strncmp(name.data, vt, sizeof vt - 1))
        buf_printf(b, " (C++ %s)", name.data + sizeof vt - 1);
    else if (buf_clear(&name), target_symbolize_data(s->t, e->raw, &sym) == 0) {
        demangle_append(&name, sym.name);
        buf_printf(b, " (&%s", name.data);
        if (e->raw != sym.addr) buf_printf(b, "+0x%llx", (unsigned long long)(e->raw - sym.addr));
        buf_putc(b, ')');
    } else buf_puts(b, " (native pointer)");
    buf_free(&name);
}

static void print_embedder_fields(core_session_t *s, uint64_t obj)
{
    int n = v8_embedder_field_count(s->v, obj, NULL);
    if (n <= 0) return;
    printf("  embedder fields (%d):\n", n);
    buf_t b = {0};
    for (int i = 0; i < n; i++) {
        v8_embedder_value_t e;
        if (v8_embedder_field(s->v, obj, i, &e) != 0) break;
        describe_embedder(s, &e, &b);
        printf("    [%d] +%lld: %s\n", i, (long long)e.offset, b.data);
    }
    buf_free(&b);
}

int core_cmd_internal(core_session_t *s, int argc, char **argv)
{
    static const char usage[] = "usage: nodescope core CORE internal [--json] ADDR N\n\n"
                                "Embedder field N of an API object (mdb_v8's ::v8internal): the words Node keeps in\n"
                                "its wrapper objects (a TCP handle, a zlib stream, an fs request). Field 1 of a Node\n"
                                "wrapper is the C++ object, named by its class when its vtable has a symbol.\n";
    int json = 0;
    const opt_t opts[] = {OPT_BOOL("json", 0, "print the field as JSON", &json), OPT_HELP, OPT_END};
    const opt_t *tables[] = {opts, NULL};
    const opt_cmd_t cmd = {"core internal", usage, tables, 0, NULL};
    int n = opt_parse(&cmd, argc, argv);
    if (n < 0) return opt_exit_code(n);
    if (n != 2) {
        if (n < 2) opt_usage_error(&cmd, "needs an address and a field number");
        else opt_usage_error(&cmd, "unexpected argument '%s'", argv[3]);
        return EXIT_USAGE;
    }
    uint64_t addr;
    char *end;
    long idx = strtol(argv[2], &end, 10);
    if (core_parse_addr(argv[0], argv[1], &addr) != 0) return EXIT_USAGE;
    if (*end || end == argv[2] || idx < 0 || idx > 1000000) {
        opt_usage_error(&cmd, "field number must be a count from 0, not '%s'", argv[2]);
        return EXIT_USAGE;
    }
    if (s->check_only) return EXIT_OK;
    if (core_need_v8(s, argv[0]) != 0) return EXIT_FAIL;
    int count = v8_embedder_field_count(s->v, addr, NULL);
    if (count < 0) return unreadable(s, argv[0], addr, "an API object (one with embedder fields)");
    v8_embedder_value_t e;
    if (idx >= count || v8_embedder_field(s->v, addr, (int)idx, &e) != 0) {
        diag_error(target_name(s->t), 0, "internal: 0x%llx has %d embedder field%s; there is no field %ld",
                   (unsigned long long)addr, count, count == 1 ? "" : "s", idx);
        return EXIT_FAIL;
    }
    buf_t b = {0};
    describe_embedder(s, &e, &b);
    if (json) {
        static const char *kinds[] = {"smi", "tagged", "pointer"};
        buf_t j = {0};
        buf_printf(&j, "{\"object\":\"0x%llx\",\"field\":%ld,\"count\":%d,\"offset\":%lld,\"kind\":\"%s\",\"raw\":\"0x%llx\",\"text\":",
                   (unsigned long long)addr, idx, count, (long long)e.offset, kinds[e.kind], (unsigned long long)e.raw);
        json_put_string(&j, b.data, b.len);
        buf_puts(&j, "}\n");
        fwrite(j.data, 1, j.len, stdout);
        buf_free(&j);
    } else printf("%s\n", b.data);
    buf_free(&b);
    return EXIT_OK;
}

int core_cmd_v8print(core_session_t *s, int argc, char **argv)
{
    static const char usage[] = "usage: nodescope core CORE v8print [--limit N] ADDR\n\n"
                                "A heap object's fields by class, from V8's own metadata (the object's class and its\n"
                                "parents), then for JavaScript objects their properties and elements, for a Context its\n"
                                "slots (first N, 100).\n";
    inspect_args_t a;
    int rc;
    if (parse(s, argc, argv, usage, &rc, &a) != 0) return rc;
    v8_t *v = s->v;
    const char *cls;
    v8_field_t *fields;
    size_t n;
    if (v8_is_smi(v, a.addr)) {
        printf("Smi %lld\n", (long long)v8_smi_value(v, a.addr));
        return EXIT_OK;
    }
    if (v8_object_fields(v, a.addr, &cls, &fields, &n) != 0) return unreadable(s, argv[0], a.addr, "a readable heap object");
    buf_t b = {0};
    int type = -1;
    v8_instance_type(v, a.addr, &type);
    if (v8_type_name(v, type)) printf("0x%llx: %s (%s)", (unsigned long long)a.addr, cls ? cls : "?", v8_type_name(v, type));
    else printf("0x%llx: %s (instance type %d)", (unsigned long long)a.addr, cls ? cls : "?", type);
    if (v8_constructor_name(v, a.addr, &b) == 0) printf(", constructor %s", b.data);
    printf("\n");
    for (size_t i = 0; i < n; i++) {
        print_field(v, a.addr, &fields[i], &b);
        printf("  +%-4lld %s.%s (%s): %s\n", (long long)fields[i].offset, fields[i].class_name, fields[i].field, fields[i].type,
               b.data);
    }
    v8_fields_free(fields, n);
    buf_free(&b);
    print_embedder_fields(s, a.addr);
    print_ctx_t c = {v, 0, a.limit};
    buf_t probe = {0};
    /* JavaScript objects (those with a constructor) also get their properties and elements */
    if (v8_constructor_name(v, a.addr, &probe) == 0) {
        printf("  properties:\n");
        v8_object_properties(v, a.addr, print_property, &c);
        print_more(&c, "properties");
        c.shown = 0;
        printf("  elements:\n");
        v8_object_elements(v, a.addr, print_property, &c, a.limit + 1);
        print_more(&c, "elements");
    } else if (cls && !strcmp(cls, "Context")) {   /* a context is its slots: scope info, previous, locals */
        printf("  slots:\n");
        print_slots(v, a.addr, a.limit, "    ");
    }
    buf_free(&probe);
    return EXIT_OK;
}

int core_cmd_str(core_session_t *s, int argc, char **argv)
{
    static const char usage[] = "usage: nodescope core CORE str [-v] ADDR\n\n"
                                "A V8 string as UTF-8: sequential one- and two-byte, cons, sliced, thin and external\n"
                                "strings. -v first prints its representation and length in UTF-16 units.\n";
    inspect_args_t a;
    int rc;
    if (parse(s, argc, argv, usage, &rc, &a) != 0) return rc;
    const char *repr;
    int64_t len;
    if (v8_string_info(s->v, a.addr, &repr, &len) != 0) return unreadable(s, argv[0], a.addr, "a string");
    if (a.verbose) printf("%s, %lld chars\n", repr, (long long)len);
    buf_t b = {0};
    int trunc = 0;
    rc = v8_string(s->v, a.addr, &b, STR_MAX_BYTES, &trunc);
    if (b.len) fwrite(b.data, 1, b.len, stdout);
    printf("\n");
    buf_free(&b);
    if (trunc) diag_warn(target_name(s->t), 0, "str: cut at %u MB", STR_MAX_BYTES >> 20);
    if (rc != 0) return unreadable(s, argv[0], a.addr, "a wholly readable string (printed up to the damage)");
    return EXIT_OK;
}

static int print_element(void *vctx, const v8_property_t *p)
{
    print_ctx_t *c = vctx;
    if (c->shown++ >= c->limit) return 1;
    buf_t d = {0};
    if (p->is_double) v8_put_number(&d, p->d);
    else v8_describe(c->v, p->value, &d);
    printf("[%s]: %s\n", p->key, d.data ? d.data : "");
    buf_free(&d);
    return 0;
}

int core_cmd_array(core_session_t *s, int argc, char **argv)
{
    static const char usage[] = "usage: nodescope core CORE array [--limit N] ADDR\n\n"
                                "The elements of a FixedArray (or a JavaScript array), one per line, first N (100).\n";
    inspect_args_t a;
    int rc;
    if (parse(s, argc, argv, usage, &rc, &a) != 0) return rc;
    v8_t *v = s->v;
    int type;
    if (v8_instance_type(v, a.addr, &type) != 0) return unreadable(s, argv[0], a.addr, "a readable heap object");
    print_ctx_t c = {v, 0, a.limit};
    buf_t probe = {0};
    int is_js = v8_constructor_name(v, a.addr, &probe) == 0;
    buf_free(&probe);
    if (is_js) {
        if (v8_object_elements(v, a.addr, print_element, &c, a.limit + 1) != 0)
            return unreadable(s, argv[0], a.addr, "an object with readable elements");
    } else {
        int64_t len;
        if (v8_fixed_array_length(v, a.addr, &len) != 0) return unreadable(s, argv[0], a.addr, "a FixedArray");
        printf("length %lld\n", (long long)len);
        if (print_slots(v, a.addr, a.limit, "") != 0) return unreadable(s, argv[0], a.addr, "a wholly readable FixedArray");
        return EXIT_OK;
    }
    if (c.shown > c.limit) printf("... (more; --limit N shows more)\n");
    return EXIT_OK;
}
