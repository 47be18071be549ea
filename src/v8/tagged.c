/* The v8 handle and tagged values: Smis, heap objects, their maps and instance types, oddballs
 * (the hole) and numbers. The bottom of v8/: it calls nothing above it (the caches above register
 * their cleanups with v8_on_close; a Symbol's text is strings.c's). (Not the heap: walking it is
 * heap_walk.c's job.) */
#include "util/diag.h"
#include "util/xalloc.h"
#include "v8/v8_internal.h"
#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

v8_t *v8_open(target_t *t)
{
    v8_t *v = xcalloc(1, sizeof *v);
    v->t = t;
    if (v8_metadata_load(t, &v->md) != 0) {
        const target_v8_object_t *o = target_v8_object(t);
        if (o->missing[0]) /* V8 may be in a library not read: Debian's libnode.so.108, a core read elsewhere */
            diag_error(target_name(t), 0,
                       "no V8 postmortem metadata (v8dbg_* symbols) in %s, and these files it maps could not be read "
                       "(not found, or of another build): %s; %s",
                       target_exe_path(t), o->missing,
                       !strcmp(target_kind(t), "core") ? "give the machine's or container's filesystem with --root DIR"
                                                       : "is the process's root readable (/proc/PID/root)?");
        else if (!strcmp(target_kind(t), "executable"))
            diag_error(target_exe_path(t), 0,
                       "no V8 postmortem metadata (v8dbg_* symbols): not a node binary, a stripped one, or one whose "
                       "libnode was not found (give the tree it is installed in with --root DIR)");
        else if (!strcmp(target_kind(t), "core"))
            diag_error(target_exe_path(t), 0,
                       "no V8 postmortem metadata (v8dbg_* symbols): not a node binary, or a stripped one; "
                       "pass the node that produced the core with --node");
        else
            diag_error(target_exe_path(t), 0,
                       "no V8 postmortem metadata (v8dbg_* symbols): the process does not run node, or runs a "
                       "stripped node whose debug file was not found (/usr/lib/debug, or set DEBUGINFOD_URLS)");
        free(v);
        return NULL;
    }
    if (v8_layout_resolve(v) != 0) {
        v8_close(v);
        return NULL;
    }
    uint64_t addr, size;
    if (target_exe_symbol_addr(t, "Builtins_InterpreterEntryTrampoline", &addr, &size) == 0) {
        v->interp_lo = addr;
        v->interp_hi = addr + (size ? size : 1);
    }
    char build[512];
    diag_info("%s: %s", target_name(t), v8_build(v, build, sizeof build));
    return v;
}

v8_t *v8_open_with_metadata(target_t *t, const v8_constant_t *items, size_t n, int major, int minor)
{
    v8_t *v = xcalloc(1, sizeof *v);
    v->t = t;
    v->major = major;
    v->minor = minor;
    v->md.items = xmalloc((n ? n : 1) * sizeof *v->md.items);
    for (size_t i = 0; i < n; i++) v->md.items[i] = (v8_constant_t){xstrdup(items[i].name), items[i].value};
    v->md.count = n;
    if (v8_layout_resolve(v) != 0) {
        v8_close(v);
        return NULL;
    }
    return v;
}

v8_t *v8_renew(v8_t *old)
{
    v8_t *v = xcalloc(1, sizeof *v);
    v->t = old->t;
    v->md = old->md;
    v->L = old->L;
    v->major = old->major, v->minor = old->minor, v->build = old->build, v->patch = old->patch;
    memcpy(v->version, old->version, sizeof v->version);
    v->types = old->types, v->ntypes = old->ntypes;
    v->type_strings = old->type_strings, v->ntype_strings = old->ntype_strings;
    v->interp_lo = old->interp_lo, v->interp_hi = old->interp_hi;
    v->bc_sizes = old->bc_sizes, v->bc_count = old->bc_count, v->bc_sizes_loaded = old->bc_sizes_loaded;
    old->md = (v8_metadata_t){0};
    old->types = NULL, old->ntypes = 0;
    old->type_strings = NULL, old->ntype_strings = 0;
    old->bc_sizes = NULL;
    v8_close(old);
    return v;
}

void v8_on_close(v8_t *v, void (*fn)(v8_t *v))
{
    for (size_t i = 0; i < v->ncleanups; i++)
        if (v->cleanups[i] == fn) return;
    assert(v->ncleanups < V8_CLEANUPS);
    if (v->ncleanups < V8_CLEANUPS) v->cleanups[v->ncleanups++] = fn;
}

void v8_close(v8_t *v)
{
    if (!v) return;
    for (size_t i = 0; i < v->ncleanups; i++) v->cleanups[i](v);
    free(v->bc_sizes);
    v8_metadata_free(&v->md);
    for (size_t i = 0; i < v->ntype_strings; i++) free(v->type_strings[i]);
    free(v->type_strings);
    free(v->types);
    free(v);
}

target_t *v8_target(const v8_t *v) { return v->t; }
const char *v8_version(const v8_t *v) { return v->version; }

const char *v8_build(v8_t *v, char *buf, size_t cap)
{
    const target_v8_object_t *o = target_v8_object(v->t);
    snprintf(buf, cap, "V8 %s from %s%s%s%s", v->version, o->path ? o->path : target_exe_path(v->t),
             o->build_id[0] ? " (build id " : "", o->build_id, o->build_id[0] ? ")" : "");
    return buf;
}

int v8_is_smi(const v8_t *v, uint64_t value) { return (value & (uint64_t)v->L.smi_tag_mask) == 0; }

int64_t v8_smi_value(const v8_t *v, uint64_t value) { return (int64_t)value >> v->L.smi_shift; }

int v8_is_heap_object(const v8_t *v, uint64_t value)
{
    return (value & (uint64_t)v->L.heap_tag_mask) == (uint64_t)v->L.heap_tag && value > 4096;
}

/* The reads a bounded walk still may make (v8_limit_reads); 0 while there is no limit. Every
 * field read below is charged, so a corrupt heap's huge dictionaries and hole-filled backing
 * stores, reached again and again, cannot make one print run for minutes. */
static int over_limit(v8_t *v) { return v->read_limit && ++v->reads > v->read_limit; }

void v8_limit_reads(v8_t *v, int64_t n)
{
    v->reads = 0;
    v->read_limit = n;
}

int v8_reads_exhausted(const v8_t *v) { return v->read_limit && v->reads > v->read_limit; }

int v8_read_field(v8_t *v, uint64_t obj, int64_t off, uint64_t *out)
{
    if (!v8_is_heap_object(v, obj) || off < 0 || over_limit(v)) return -1;
    return target_read_u64(v->t, obj - (uint64_t)v->L.heap_tag + (uint64_t)off, out);
}

int v8_read_bytes(v8_t *v, uint64_t obj, int64_t off, void *buf, size_t n)
{
    if (!v8_is_heap_object(v, obj) || off < 0 || over_limit(v)) return -1;
    return target_read(v->t, obj - (uint64_t)v->L.heap_tag + (uint64_t)off, buf, n);
}

int v8_read_u8(v8_t *v, uint64_t obj, int64_t off, uint8_t *out)
{
    if (!v8_is_heap_object(v, obj) || off < 0 || over_limit(v)) return -1;
    return target_read_u8(v->t, obj - (uint64_t)v->L.heap_tag + (uint64_t)off, out);
}

int v8_read_u16(v8_t *v, uint64_t obj, int64_t off, uint16_t *out)
{
    if (!v8_is_heap_object(v, obj) || off < 0 || over_limit(v)) return -1;
    return target_read_u16(v->t, obj - (uint64_t)v->L.heap_tag + (uint64_t)off, out);
}

int v8_read_i32(v8_t *v, uint64_t obj, int64_t off, int32_t *out)
{
    uint32_t x;
    if (!v8_is_heap_object(v, obj) || off < 0 || over_limit(v)) return -1;
    if (target_read_u32(v->t, obj - (uint64_t)v->L.heap_tag + (uint64_t)off, &x) != 0) return -1;
    *out = (int32_t)x;
    return 0;
}

int v8_read_smi(v8_t *v, uint64_t obj, int64_t off, int64_t *out)
{
    uint64_t w;
    if (v8_read_field(v, obj, off, &w) != 0 || !v8_is_smi(v, w)) return -1;
    *out = v8_smi_value(v, w);
    return 0;
}

int v8_instance_type(v8_t *v, uint64_t value, int *type)
{
    uint64_t map;
    uint16_t t;
    if (v8_read_field(v, value, v->L.obj_map, &map) != 0) return -1;
    if (v8_read_u16(v, map, v->L.map_type, &t) != 0) return -1;
    *type = t;
    return 0;
}

int v8_map_instances_type(v8_t *v, uint64_t map, int *type)
{
    uint16_t t;
    if (v8_read_u16(v, map, v->L.map_type, &t) != 0) return -1;
    *type = t;
    return 0;
}

int v8_has_type(v8_t *v, uint64_t value, int type)
{
    int t;
    return type >= 0 && v8_instance_type(v, value, &t) == 0 && t == type;
}

static const v8_type_entry_t *type_entry(const v8_t *v, int type)
{
    size_t lo = 0, hi = v->ntypes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v->types[mid].type < type) lo = mid + 1;
        else hi = mid;
    }
    return lo < v->ntypes && v->types[lo].type == type ? &v->types[lo] : NULL;
}

const char *v8_type_name(const v8_t *v, int type)
{
    const v8_type_entry_t *e = type_entry(v, type);
    return e ? e->name : NULL;
}

const char *v8_class_name(const v8_t *v, int type)
{
    const v8_type_entry_t *e = type_entry(v, type);
    if (e) return e->class_name;
    if (v->L.first_context_type >= 0 && type >= v->L.first_context_type && type <= v->L.last_context_type)
        return "Context";
    return NULL;
}

int v8_is_string_type(const v8_t *v, int type) { return type >= 0 && type < v->L.first_nonstring; }

int v8_is_internalized_string_type(const v8_t *v, int type)
{
    return v8_is_string_type(v, type) && v->L.str_not_internalized > 0 && !(type & v->L.str_not_internalized);
}

int v8_fixed_array_length(v8_t *v, uint64_t array, int64_t *len)
{
    return v8_read_smi(v, array, v->L.fixed_array_length, len) == 0 && *len >= 0 ? 0 : -1;
}

int v8_fixed_array_get(v8_t *v, uint64_t array, int64_t index, uint64_t *out)
{
    int64_t len;
    if (index < 0 || v8_fixed_array_length(v, array, &len) != 0 || index >= len) return -1;
    return v8_read_field(v, array, v->L.fixed_array_data + 8 * index, out);
}

int v8_oddball_kind(v8_t *v, uint64_t value)
{
    const v8_layout_t *L = &v->L;
    int type;
    uint64_t kind;
    if (!v8_is_heap_object(v, value) || v8_instance_type(v, value, &type) != 0) return -1;
    if (L->type_hole >= 0 && type == L->type_hole) return V8_ODDBALL_HOLE;
    if (type != L->type_oddball || v8_read_field(v, value, L->oddball_kind, &kind) != 0) return -1;
    /* the kind is a Smi in some versions, a raw int in others */
    int64_t k = v8_is_smi(v, kind) && kind >> 32 ? v8_smi_value(v, kind) : (int64_t)(uint32_t)kind;
    for (int i = 0; i < V8_ODDBALL_N; i++)
        if (L->oddball_kinds[i] >= 0 && L->oddball_kinds[i] == k) return i;
    return V8_ODDBALL_OTHER;
}

/* The hole by what it is: V8 12+ gives it a type of its own; before, an oddball of kind TheHole. */
int v8_is_hole(v8_t *v, uint64_t value) { return !v8_is_smi(v, value) && v8_oddball_kind(v, value) == V8_ODDBALL_HOLE; }

/* JavaScript's Number::toString: the shortest digits that read back the same, placed by the
 * exponent the way ECMA-262 says (21 digits before exponent form, 6 zeros after the point). */
void v8_put_number(buf_t *out, double d)
{
    char tmp[40], digits[24];
    if (isnan(d)) {
        buf_puts(out, "NaN");
        return;
    }
    if (isinf(d)) {
        buf_puts(out, d > 0 ? "Infinity" : "-Infinity");
        return;
    }
    if (d == 0) {
        buf_puts(out, "0");
        return;
    }
    if (d < 0) {
        buf_putc(out, '-');
        d = -d;
    }
    int p;
    for (p = 1; p <= 17; p++) {
        snprintf(tmp, sizeof tmp, "%.*e", p - 1, d);
        if (strtod(tmp, NULL) == d) break;
    }
    /* tmp = "D.DDDDe+XX": k digits, value = 0.digits * 10^n */
    int k = 0, e;
    char *ep = strchr(tmp, 'e');
    for (char *c = tmp; c < ep; c++)
        if (*c >= '0' && *c <= '9') digits[k++] = *c;
    while (k > 1 && digits[k - 1] == '0') k--;
    digits[k] = 0;
    e = atoi(ep + 1);
    int n = e + 1;
    if (k <= n && n <= 21) {
        buf_puts(out, digits);
        for (int i = k; i < n; i++) buf_putc(out, '0');
    } else if (0 < n && n <= 21) {
        buf_append(out, digits, (size_t)n);
        buf_putc(out, '.');
        buf_puts(out, digits + n);
    } else if (-6 < n && n <= 0) {
        buf_puts(out, "0.");
        for (int i = 0; i < -n; i++) buf_putc(out, '0');
        buf_puts(out, digits);
    } else {
        buf_putc(out, digits[0]);
        if (k > 1) {
            buf_putc(out, '.');
            buf_puts(out, digits + 1);
        }
        buf_printf(out, "e%c%d", n - 1 >= 0 ? '+' : '-', abs(n - 1));
    }
}
