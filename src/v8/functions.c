/* Functions and scripts: a JSFunction's name, script and definition site; character offsets to
 * line:column; V8's source position tables. */
#include "util/xalloc.h"
#include "v8/v8_internal.h"
#include <stdlib.h>
#include <string.h>

#define NAME_MAX_BYTES 1024
#define SCRIPT_MAX_UNITS (256u << 20)    /* longest source scanned for line starts */
#define POSITION_TABLE_MAX (16u << 20)   /* bytes of one source position table */
#define SCOPE_INFO_MAX_INLINED_LOCALS 75 /* V8 keeps more context local names in a hash table */
#define SCOPE_INFO_SCAN 10

/* ---- line starts ---- */

typedef struct {
    int64_t *starts;
    size_t n, cap;
    int64_t unit;
} line_scan_t;

static void on_unit(void *ctx, uint32_t unit)
{
    line_scan_t *s = ctx;
    s->unit++;
    if (unit == '\n' && s->unit < (int64_t)SCRIPT_MAX_UNITS) {
        XGROW(s->starts, s->cap, s->n + 1);
        s->starts[s->n++] = s->unit;
    }
}

static void functions_cleanup(v8_t *v);

static const v8_script_lines_t *script_lines(v8_t *v, uint64_t script)
{
    for (unsigned i = 0; i < V8_SCRIPT_CACHE; i++)
        if (v->script_lines[i].script == script && v->script_lines[i].starts) return &v->script_lines[i];
    uint64_t source;
    if (v8_read_field(v, script, v->L.script_source, &source) != 0) return NULL;
    line_scan_t s = {NULL, 0, 0, 0};
    XGROW(s.starts, s.cap, 1);
    s.starts[s.n++] = 0;
    if (v8_string_scan(v, source, on_unit, &s) != 0) {
        free(s.starts);
        return NULL;
    }
    v8_script_lines_t *slot = &v->script_lines[v->script_lines_next++ % V8_SCRIPT_CACHE];
    free(slot->starts);
    v8_on_close(v, functions_cleanup);
    *slot = (v8_script_lines_t){script, s.starts, s.n};
    return slot;
}

int v8_script_line_col(v8_t *v, uint64_t script, int64_t pos, int *line, int *col)
{
    if (pos < 0) return -1;
    const v8_script_lines_t *sl = script_lines(v, script);
    if (!sl) return -1;
    size_t lo = 0, hi = sl->n; /* the last line start <= pos */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (sl->starts[mid] <= pos) lo = mid;
        else hi = mid;
    }
    *line = (int)lo + 1;
    *col = (int)(pos - sl->starts[lo]) + 1;
    return 0;
}

/* What v8_shared_info found for a SharedFunctionInfo, kept while the object's map, name or
 * scope info, function data and script fields are unchanged: a sampler names the same few
 * hundred functions thousands of times, and reading them anew costs a dozen reads each. A
 * SharedFunctionInfo that died and was replaced by another at the same address differs in
 * those fields (its ScopeInfo or name, its script), so it is read afresh; in a process that
 * keeps running even that is not sure, so there it is not used. Direct-mapped. */
#define SFI_CACHE_SLOTS 4096
#define SFI_KEY_WORDS 8
typedef struct {
    uint64_t shared;
    uint64_t key[SFI_KEY_WORDS]; /* the object's first words: map, name or scope info, data, script */
    int64_t script_id;           /* its script's id (running processes; else 0) */
    v8_function_t info;
} sfi_entry_t;
struct v8_sfi_cache {
    sfi_entry_t slot[SFI_CACHE_SLOTS];
};

/* Script::id, a Smi V8 gives every script from a counter: the field after line_ends in every
 * V8 of Node 18-24 (script.tq), not in the metadata. A function's SharedFunctionInfo holds the
 * Script itself or, for a function not compiled from one (builtins), undefined: no id. */
static int script_id_of(v8_t *v, uint64_t script, int64_t *id)
{
    const v8_layout_t *L = &v->L;
    if (L->script_line_ends < 0 || !v8_has_type(v, script, L->type_script)) return -1;
    return v8_read_smi(v, script, L->script_line_ends + 8, id) == 0 && *id >= 0 ? 0 : -1;
}

static char *dup_or_null(const char *s) { return s ? xstrdup(s) : NULL; }

static void function_copy(v8_function_t *dst, const v8_function_t *src)
{
    *dst = *src;
    dst->name = dup_or_null(src->name);
    dst->inferred = dup_or_null(src->inferred);
    dst->script_name = dup_or_null(src->script_name);
    dst->eval_origin = dup_or_null(src->eval_origin);
}

/* The SharedFunctionInfo cache and the script line cache freed (v8_on_close). */
static void functions_cleanup(v8_t *v)
{
    if (v->sfi_cache) {
        for (unsigned i = 0; i < SFI_CACHE_SLOTS; i++) v8_function_free(&v->sfi_cache->slot[i].info);
        free(v->sfi_cache);
        v->sfi_cache = NULL;
    }
    for (unsigned i = 0; i < V8_SCRIPT_CACHE; i++) free(v->script_lines[i].starts);
    memset(v->script_lines, 0, sizeof v->script_lines);
}

/* ---- source position tables ---- */

/* One VLQ integer (7 bits a byte, high bit = more), unsigned. */
static int read_uvlq(const unsigned char *p, size_t n, size_t *i, uint64_t *out)
{
    uint64_t bits = 0;
    int shift = 0;
    for (;;) {
        if (*i >= n || shift > 63) return -1;
        unsigned char b = p[(*i)++];
        bits |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80)) break;
    }
    *out = bits;
    return 0;
}

static int64_t zigzag(uint64_t bits) { return (int64_t)(bits >> 1) ^ -(int64_t)(bits & 1); }

int v8_source_position(v8_t *v, uint64_t table, int64_t code_offset, int64_t *pos, int *inlined)
{
    int64_t best;
    if (v8_source_position_raw(v, table, code_offset, &best) != 0) return -1;
    /* SourcePosition: bit 0 external, bits 1..30 script offset + 1, bits 31.. inlining id + 1 */
    *pos = (int64_t)(((uint64_t)best >> 1) & 0x3fffffff) - 1;
    *inlined = (int)((uint64_t)best >> 31);
    return *pos >= 0 ? 0 : -1;
}

int v8_source_position_raw(v8_t *v, uint64_t table, int64_t code_offset, int64_t *raw_out)
{
    const v8_layout_t *L = &v->L;
    int64_t len;
    int type;
    /* V8 12 keeps position tables of bytecode and code in trusted space */
    if (v8_instance_type(v, table, &type) != 0 || (type != L->type_byte_array && type != L->type_trusted_byte_array) ||
        v8_read_smi(v, table, L->bytearray_length, &len) != 0 || len <= 0 || len > (int64_t)POSITION_TABLE_MAX)
        return -1;
    unsigned char *bytes = xmalloc((size_t)len);
    if (target_read(v->t, table - (uint64_t)L->heap_tag + (uint64_t)L->bytearray_data, bytes, (size_t)len) != 0) {
        free(bytes);
        return -1;
    }
    /* Entries are (code offset delta, position delta), the position zig-zag. Through V8 13 the
     * code field is zig-zag too, a negative one marking an expression position (the delta is then
     * -(d+1)); V8 14 shifts the delta left over two flag bits (L->pos_table_flag_bits). Offsets
     * start at -1, V8's function-entry offset. */
    int64_t offset = -1, raw = 0, best = -1;
    size_t i = 0;
    while (i < (size_t)len) {
        uint64_t c, p;
        if (read_uvlq(bytes, (size_t)len, &i, &c) != 0 || read_uvlq(bytes, (size_t)len, &i, &p) != 0) break;
        int64_t d = zigzag(c);
        offset += L->pos_table_flag_bits ? (int64_t)(c >> 2) : d >= 0 ? d : -(d + 1);
        raw += zigzag(p);
        if (offset > code_offset) break;
        best = raw;
    }
    free(bytes);
    if (best < 0) return -1;
    *raw_out = best;
    return 0;
}

/* ---- names ---- */

static char *string_or_null(v8_t *v, uint64_t value)
{
    buf_t b = {0};
    int trunc;
    if (v8_string(v, value, &b, NAME_MAX_BYTES, &trunc) != 0) {
        buf_free(&b);
        return NULL;
    }
    if (trunc) buf_puts(&b, "...");
    return b.data ? b.data : xstrdup("");
}

/* A ScopeInfo keeps, after its context locals, the function's name and variable slot, the inferred
 * name, the start and end positions, then the outer ScopeInfo; which are present depends on
 * flag bits that change between V8 versions. So read the slots that follow and take them by
 * type: the first two non-empty strings are the name and inferred name, the first increasing
 * pair of Smis the positions, which end the part we want. A map means we ran into the next
 * object: stop there too. V8 13 moved the positions into the fixed header, between the local
 * count and the first variable (scopeinfo_idx_first_vars 5 instead of 3): look there first. */
static void scope_info_names(v8_t *v, uint64_t scope, char **name, char **inferred, int64_t *start)
{
    const v8_layout_t *L = &v->L;
    int64_t nlocals;
    if (L->scope_ncontextlocals_slot < 0 || L->scope_first_vars_slot < 0 ||
        v8_read_smi(v, scope, 8 + 8 * L->scope_ncontextlocals_slot, &nlocals) != 0 || nlocals < 0 || nlocals > 1 << 20)
        return;
    int positions_in_header = 0;
    for (int k = L->scope_ncontextlocals_slot + 1; k + 1 < L->scope_first_vars_slot; k++) {
        int64_t a, b;
        if (v8_read_smi(v, scope, 8 + 8 * k, &a) == 0 && v8_read_smi(v, scope, 8 + 8 * (k + 1), &b) == 0 && a >= 0 &&
            a < b) {
            *start = a;
            positions_in_header = 1;
            break;
        }
    }
    int64_t slot = L->scope_first_vars_slot + (nlocals > SCOPE_INFO_MAX_INLINED_LOCALS ? 1 : nlocals) + nlocals;
    uint64_t prev = 0;
    int prev_smi = 0;
    for (int k = 0; k < SCOPE_INFO_SCAN; k++) {
        uint64_t w;
        int type;
        if (v8_read_field(v, scope, 8 + 8 * (slot + k), &w) != 0) break;
        if (v8_is_smi(v, w)) {
            if (!positions_in_header && prev_smi && v8_smi_value(v, prev) >= 0 &&
                v8_smi_value(v, prev) < v8_smi_value(v, w)) {
                *start = v8_smi_value(v, prev);
                break;
            }
            prev = w;
            prev_smi = 1;
            continue;
        }
        prev_smi = 0;
        if (v8_instance_type(v, w, &type) != 0 || type == L->type_map || type == L->type_scope_info) break;
        if (v8_is_string_type(v, type)) {
            char *s = string_or_null(v, w);
            if (s && *s && !*name) *name = s;
            else if (s && *s && !*inferred) *inferred = s;
            else free(s);
        }
    }
}

int v8_function_info(v8_t *v, uint64_t fn, v8_function_t *out)
{
    uint64_t shared;
    memset(out, 0, sizeof *out);
    if (v8_read_field(v, fn, v->L.fn_shared, &shared) != 0 || v8_shared_info(v, shared, out) != 0) return -1;
    out->function = fn;
    return 0;
}

static int shared_info(v8_t *v, uint64_t shared, v8_function_t *out, int depth);

int v8_shared_info(v8_t *v, uint64_t shared, v8_function_t *out)
{
    const v8_layout_t *L = &v->L;
    uint64_t key[SFI_KEY_WORDS];
    /* the fields that identify it all lie in its first words (checked: else no caching) */
    int cacheable = v8_is_heap_object(v, shared) && L->sfi_name_or_scope < 8 * SFI_KEY_WORDS &&
                    L->sfi_script < 8 * SFI_KEY_WORDS && L->sfi_function_data < 8 * SFI_KEY_WORDS &&
                    target_read(v->t, shared - (uint64_t)L->heap_tag, key, sizeof key) == 0;
    /* In a running process a function that died can be replaced by one whose objects were all
       allocated at the same addresses (its ScopeInfo, name and script too: churn.js does exactly
       that), so equal pointers do not mean the same function there. Its script's id does: V8
       numbers scripts from a counter and never reuses an id, and a function's SharedFunctionInfo
       belongs to one script for its life. */
    int64_t script_id = 0;
    if (cacheable && !strcmp(target_kind(v->t), "running process"))
        cacheable = script_id_of(v, key[L->sfi_script / 8], &script_id) == 0;
    if (!cacheable) return shared_info(v, shared, out, 0);
    if (!v->sfi_cache) v->sfi_cache = xcalloc(1, sizeof *v->sfi_cache), v8_on_close(v, functions_cleanup);
    sfi_entry_t *e = &v->sfi_cache->slot[(shared >> 3) % SFI_CACHE_SLOTS];
    if (e->shared == shared && e->script_id == script_id && !memcmp(e->key, key, sizeof key)) {
        function_copy(out, &e->info);
        return 0;
    }
    int rc = shared_info(v, shared, out, 0);
    if (rc != 0 || v8_reads_exhausted(v)) return rc; /* a bounded walk's partial answer is not kept */
    v8_function_free(&e->info);
    e->shared = shared;
    e->script_id = script_id;
    memcpy(e->key, key, sizeof key);
    function_copy(&e->info, out);
    return 0;
}

/* Where eval'd code came from, as V8 words it: "evalEntry (/app/x.js:39:40)". */
static char *eval_origin(v8_t *v, uint64_t script, int depth)
{
    const v8_layout_t *L = &v->L;
    uint64_t from;
    int64_t pos;
    v8_function_t fi;
    if (depth > 0 || L->script_eval_from_shared < 0 ||
        v8_read_field(v, script, L->script_eval_from_shared, &from) != 0 || shared_info(v, from, &fi, depth + 1) != 0)
        return NULL;
    buf_t b = {0};
    buf_printf(&b, "%s (%s", v8_function_display_name(&fi, "<anonymous>"),
               fi.script_name ? fi.script_name : "<anonymous>");
    int line, col;
    /* a negative position is a bytecode offset V8 has not translated yet: left out */
    if (fi.script && v8_read_smi(v, script, L->script_eval_from_position, &pos) == 0 && pos >= 0 &&
        v8_script_line_col(v, fi.script, pos, &line, &col) == 0)
        buf_printf(&b, ":%d:%d", line, col);
    buf_putc(&b, ')');
    v8_function_free(&fi);
    return b.data;
}

/* A SharedFunctionInfo's own name and the one V8 inferred (name, inferred, start_pos of out), from
   its name-or-ScopeInfo field and, not compiled yet, its uncompiled data. */
static void sfi_names(v8_t *v, uint64_t shared, v8_function_t *out)
{
    const v8_layout_t *L = &v->L;
    uint64_t nos, data;
    if (v8_read_field(v, shared, L->sfi_name_or_scope, &nos) == 0) {
        int type;
        if (v8_instance_type(v, nos, &type) == 0 && v8_is_string_type(v, type)) out->name = string_or_null(v, nos);
        else if (type == L->type_scope_info) scope_info_names(v, nos, &out->name, &out->inferred, &out->start_pos);
    }
    if (L->sfi_function_data >= 0 && v8_read_field(v, shared, L->sfi_function_data, &data) == 0 &&
        L->uncompiled_inferred >= 0) {
        int type;
        const char *tn = v8_instance_type(v, data, &type) == 0 ? v8_type_name(v, type) : NULL;
        if (tn && !strncmp(tn, "UNCOMPILED_DATA", 15)) {
            uint64_t inf;
            int32_t start;
            if (!out->inferred && v8_read_field(v, data, L->uncompiled_inferred, &inf) == 0) {
                out->inferred = string_or_null(v, inf);
                if (out->inferred && !*out->inferred) {
                    free(out->inferred);
                    out->inferred = NULL;
                }
            }
            if (out->start_pos < 0 && v8_read_i32(v, data, L->uncompiled_start, &start) == 0 && start >= 0)
                out->start_pos = start;
        }
    }
    if (!out->name) out->name = xstrdup("");
}

int v8_function_name(v8_t *v, uint64_t fn, buf_t *b)
{
    uint64_t shared;
    v8_function_t fi;
    memset(&fi, 0, sizeof fi);
    fi.start_pos = -1;
    if (v8_read_field(v, fn, v->L.fn_shared, &shared) != 0 || !v8_has_type(v, shared, v->L.type_sfi)) return -1;
    sfi_names(v, shared, &fi);
    const char *n = v8_function_display_name(&fi, NULL);
    if (n) buf_puts(b, n);
    v8_function_free(&fi);
    return n ? 0 : -1;
}

static int shared_info(v8_t *v, uint64_t shared, v8_function_t *out, int depth)
{
    const v8_layout_t *L = &v->L;
    memset(out, 0, sizeof *out);
    out->start_pos = -1;
    out->param_count = -1;
    uint64_t script;
    if (!v8_has_type(v, shared, L->type_sfi)) return -1;
    out->shared = shared;
    sfi_names(v, shared, out);
    uint16_t pc;
    if (v8_read_u16(v, shared, L->sfi_param_count, &pc) == 0) out->param_count = pc > 0 ? pc - 1 : 0;
    if (v8_read_field(v, shared, L->sfi_script, &script) == 0 && v8_has_type(v, script, L->type_script)) {
        uint64_t name;
        int64_t stype;
        out->script = script;
        if (v8_read_field(v, script, L->script_name, &name) == 0) out->script_name = string_or_null(v, name);
        out->script_type = v8_read_smi(v, script, L->script_type, &stype) == 0 ? (int)stype : -1;
        /* the definition is the function's start position (its parameter list's "("), as V8's
           --cpu-prof callFrames and DevTools give it: one identity for a function in stacks and
           profiles, live or not */
        int64_t def = out->start_pos;
        if (def >= 0) v8_script_line_col(v, script, def, &out->def_line, &out->def_col);
        out->eval_origin = eval_origin(v, script, depth);
        /* V8 calls the top level of eval'd code "eval" */
        if (out->eval_origin && !*out->name && out->start_pos <= 0) {
            free(out->name);
            out->name = xstrdup("eval");
        }
    }
    return 0;
}

const char *v8_function_display_name(const v8_function_t *f, const char *fallback)
{
    if (f->name && *f->name) return f->name;
    if (f->inferred && *f->inferred) return f->inferred;
    return fallback;
}

void v8_function_free(v8_function_t *f)
{
    free(f->name);
    free(f->inferred);
    free(f->script_name);
    free(f->eval_origin);
    memset(f, 0, sizeof *f);
}
