/* nodescope core ... type|v8print|str|array|internal ADDR: the low-level inspectors of V8 values;
 * the text of raw fields and embedder words is postmortem/fields.c's, the lists of values
 * (properties, elements, slots, embedder fields) postmortem/value_list.c's. */
#include "cli/core_cmds.h"
#include "postmortem/fields.h"
#include "postmortem/value_list.h"
#include "postmortem/value_report.h"
#include "util/diag.h"
#include "util/json_writer.h"
#include "util/options.h"
#include <stdlib.h>
#include <string.h>

#define STR_MAX_BYTES (64u << 20)
#define DEFAULT_LIMIT 100

/* Parses "CMD [-v] [-a] [--limit N] [--json] ADDR"; prints usage for --help. 0 ok, else an exit code. */
typedef struct {
    uint64_t addr;
    int verbose, json, addresses;
    long limit;
} inspect_args_t;

static int parse(core_session_t *s, int argc, char **argv, const char *usage, int *rc, inspect_args_t *a)
{
    memset(a, 0, sizeof *a);
    a->limit = DEFAULT_LIMIT;
    int is_str = !strcmp(argv[0], "str"), has_limit = !strcmp(argv[0], "v8print") || !strcmp(argv[0], "array");
    const opt_t opts[] = {
        OPT_BOOL("verbose", 'v', is_str ? "first the representation and the length in UTF-16 units" : NULL,
                 &a->verbose),
        OPT_BOOL("addresses", 'a', has_limit ? "the address of every value shown (to walk on from it)" : NULL,
                 &a->addresses),
        OPT_INT("limit", 0, "N", has_limit ? "show the first N (100)" : NULL, &a->limit),
        OPT_BOOL("json", 0, "a JSON document", &a->json),
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
    if ((a->verbose && !is_str) || (a->addresses && !has_limit)) {
        opt_usage_error(&cmd, "%s is not an option of %s", a->verbose ? "-v" : "-a", argv[0]);
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
    if (pm_parse_addr(argv[0], argv[1], &a->addr) != 0) return -1;
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

/* JSON: a text member ("" for none: these documents never say null), and the document out. */
static void json_text(jw_t *w, const char *key, const char *text) { jw_string(w, key, text ? text : ""); }

static void print_json(buf_t *j)
{
    buf_putc(j, '\n');
    fwrite(j->data, 1, j->len, stdout);
    buf_free(j);
}

static int unreadable(core_session_t *s, const char *cmd, uint64_t addr, const char *what)
{
    diag_error(target_name(s->t), 0, "%s: 0x%llx is not %s (or its memory is not in the target)", cmd,
               (unsigned long long)addr, what);
    return EXIT_FAIL;
}

int core_cmd_type(core_session_t *s, int argc, char **argv)
{
    static const char usage[] = "usage: nodescope core CORE type [--json] ADDR\n\n"
                                "The V8 type of a tagged value: Smi N, or the heap object's instance type and class\n"
                                "(and constructor, for JavaScript objects).\n";
    inspect_args_t a;
    int rc;
    if (parse(s, argc, argv, usage, &rc, &a) != 0) return rc;
    if (pm_type_write(s->v, a.addr, a.json, stdout) != 0)
        return unreadable(s, argv[0], a.addr, "a readable heap object");
    return EXIT_OK;
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
    if (pm_parse_addr(argv[0], argv[1], &addr) != 0) return EXIT_USAGE;
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
    pm_embedder_text(s->v, s->t, &e, &b);
    if (json) { /* the field's object, with the object and the count in front */
        buf_t j = {0};
        jw_t w;
        jw_init(&w, &j);
        jw_object_begin(&w, NULL);
        jw_address(&w, "object", addr);
        jw_int(&w, "count", count);
        pm_embedder_json(&w, (int)idx, &e, b.data);
        jw_end(&w);
        print_json(&j);
    } else printf("%s\n", b.data);
    buf_free(&b);
    return EXIT_OK;
}

int core_cmd_v8print(core_session_t *s, int argc, char **argv)
{
    static const char usage[] = "usage: nodescope core CORE v8print [-a] [--limit N] [--json] ADDR\n\n"
                                "A heap object's fields by class, from V8's own metadata (the object's class and its\n"
                                "parents), an API object's embedder fields, then for JavaScript objects their\n"
                                "properties and elements, for a Context its slots (first N, 100).\n";
    inspect_args_t a;
    int rc;
    if (parse(s, argc, argv, usage, &rc, &a) != 0) return rc;
    v8_t *v = s->v;
    const char *cls;
    v8_field_t *fields;
    size_t n;
    if (v8_is_smi(v, a.addr)) {
        if (a.json) {
            buf_t j = {0};
            jw_t w;
            jw_init(&w, &j);
            jw_object_begin(&w, NULL);
            jw_address(&w, "address", a.addr);
            jw_int(&w, "smi", v8_smi_value(v, a.addr));
            jw_end(&w);
            print_json(&j);
        } else printf("Smi %lld\n", (long long)v8_smi_value(v, a.addr));
        return EXIT_OK;
    }
    if (v8_object_fields(v, a.addr, &cls, &fields, &n) != 0)
        return unreadable(s, argv[0], a.addr, "a readable heap object");
    buf_t j = {0};
    jw_t w,
        *jp = a.json ? &w : NULL; /* --json: {address, class, type, ..., fields, embedder_fields, properties, ...} */
    jw_init(&w, &j);
    if (jp) jw_object_begin(jp, NULL);
    pm_v8print_write(stdout, jp, v, s->t, a.addr, cls, fields, n, a.limit, a.addresses);
    v8_fields_free(fields, n);
    if (jp) {
        jw_end(jp);
        print_json(&j);
    }
    return EXIT_OK;
}

int core_cmd_str(core_session_t *s, int argc, char **argv)
{
    static const char usage[] = "usage: nodescope core CORE str [-v] [--json] ADDR\n\n"
                                "A V8 string as UTF-8: sequential one- and two-byte, cons, sliced, thin and external\n"
                                "strings. -v first prints its representation and length in UTF-16 units.\n";
    inspect_args_t a;
    int rc;
    if (parse(s, argc, argv, usage, &rc, &a) != 0) return rc;
    const char *repr;
    int64_t len;
    if (v8_string_info(s->v, a.addr, &repr, &len) != 0) return unreadable(s, argv[0], a.addr, "a string");
    buf_t b = {0};
    int trunc = 0;
    rc = v8_string(s->v, a.addr, &b, STR_MAX_BYTES, &trunc);
    if (a.json) {
        buf_t j = {0};
        jw_t w; /* {address, representation, length, value, truncated, damaged} */
        jw_init(&w, &j);
        jw_object_begin(&w, NULL);
        jw_address(&w, "address", a.addr);
        json_text(&w, "representation", repr);
        jw_int(&w, "length", len);
        jw_string_n(&w, "value", b.data ? b.data : "", b.len);
        jw_bool(&w, "truncated", trunc);
        jw_bool(&w, "damaged", rc != 0);
        jw_end(&w);
        print_json(&j);
    } else {
        if (a.verbose) printf("%s, %lld chars\n", repr, (long long)len);
        if (b.len) fwrite(b.data, 1, b.len, stdout);
        printf("\n");
    }
    buf_free(&b);
    if (trunc) diag_warn(target_name(s->t), 0, "str: cut at %u MB", STR_MAX_BYTES >> 20);
    if (rc != 0) return unreadable(s, argv[0], a.addr, "a wholly readable string (printed up to the damage)");
    return EXIT_OK;
}

int core_cmd_array(core_session_t *s, int argc, char **argv)
{
    static const char usage[] = "usage: nodescope core CORE array [-a] [--limit N] [--json] ADDR\n\n"
                                "The elements of a FixedArray (or a JavaScript array), one per line, first N (100).\n";
    inspect_args_t a;
    int rc;
    if (parse(s, argc, argv, usage, &rc, &a) != 0) return rc;
    v8_t *v = s->v;
    int type;
    if (v8_instance_type(v, a.addr, &type) != 0) return unreadable(s, argv[0], a.addr, "a readable heap object");
    buf_t j = {0};
    jw_t w, *jp = a.json ? &w : NULL; /* --json: {address, length, elements, elements_truncated} */
    jw_init(&w, &j);
    pm_value_list_t c = {
        .v = v, .out = stdout, .j = jp, .limit = a.limit, .addresses = a.addresses, .indent = "", .brackets = 1};
    buf_t probe = {0};
    int is_js = v8_constructor_name(v, a.addr, &probe) == 0;
    buf_free(&probe);
    if (jp) {
        jw_object_begin(jp, NULL);
        jw_address(jp, "address", a.addr);
    }
    if (is_js) {
        if (jp) jw_array_begin(jp, "elements");
        if (v8_object_elements(v, a.addr, pm_value_list_element, &c, a.limit + 1) != 0) {
            buf_free(&j);
            return unreadable(s, argv[0], a.addr, "an object with readable elements");
        }
    } else {
        int64_t len;
        if (v8_fixed_array_length(v, a.addr, &len) != 0) {
            buf_free(&j);
            return unreadable(s, argv[0], a.addr, "a FixedArray");
        }
        if (jp) {
            jw_int(jp, "length", len);
            jw_array_begin(jp, "elements");
        } else printf("length %lld\n", (long long)len);
        if (pm_value_list_slots(&c, a.addr) != 0) {
            buf_free(&j);
            return unreadable(s, argv[0], a.addr, "a wholly readable FixedArray");
        }
    }
    pm_value_list_more(&c, "elements");
    if (jp) {
        jw_end(jp);
        print_json(&j);
    }
    return EXIT_OK;
}
