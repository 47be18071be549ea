/* Code objects: which one a pc is in, what tier it is, and the source position of a pc in it:
 * through the optimized code's position table and inlining tables (one physical frame can be
 * several JS functions), or, for baseline (Sparkplug) code, through its pc -> bytecode offset
 * table walked in step with the bytecodes (whose sizes come from V8's own table in the binary). */
#include "util/hash.h"
#include "util/xalloc.h"
#include "v8/v8_internal.h"
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CODE_SCAN_BYTES (8u << 20) /* how far back from a pc to look for its code's header */
#define SCAN_CHUNK 4096
#define SCAN_BIG (64u << 10)  /* once the header map is known */
#define SCAN_SLOW (64u << 10) /* how far back from a pc to look while each candidate word costs a read */
#define MAX_INLINING_DEPTH 64
#define MAX_BYTECODE_BYTES (4u << 20)
#define MAX_OFFSET_TABLE (4u << 20)

/* 0 when code is a Code object (with instructions); fills out. */
static int code_read(v8_t *v, uint64_t code, v8_code_t *out)
{
    const v8_layout_t *L = &v->L;
    uint32_t size, flags;
    uint64_t start;
    if (!v8_has_type(v, code, L->type_code) || L->code_instruction_start < 0) return -1;
    if (L->code_inline_instructions) start = code - (uint64_t)L->heap_tag + (uint64_t)L->code_instruction_start;
    else if (v8_read_field(v, code, L->code_instruction_start, &start) != 0) return -1;
    uint64_t base = code - (uint64_t)L->heap_tag;
    if (target_read_u32(v->t, base + (uint64_t)L->code_instruction_size, &size) != 0 ||
        target_read_u32(v->t, base + (uint64_t)L->code_flags, &flags) != 0)
        return -1;
    out->code = code;
    out->start = start;
    out->size = size;
    out->kind = L->code_kind_mask >= 0 ? (int64_t)((flags >> L->code_kind_shift) & (uint64_t)L->code_kind_mask) : -1;
    return 0;
}

/* 0 when code is a Code object whose instructions contain pc; fills out. */
static int code_check(v8_t *v, uint64_t code, uint64_t pc, v8_code_t *out)
{
    v8_code_t c;
    if (code_read(v, code, &c) != 0 || pc < c.start || pc >= c.start + c.size) return -1;
    *out = c;
    return 0;
}

/* Is word the map of a code header (InstructionStream, or Code where it holds the instructions)?
 * Until that map is known, each candidate word costs a read of the target. */
static int is_code_header_map(v8_t *v, uint64_t word)
{
    const v8_layout_t *L = &v->L;
    uint16_t type;
    if (v->code_header_map) return word == v->code_header_map;
    if (!v8_is_heap_object(v, word) || v8_read_u16(v, word, L->map_type, &type) != 0) return 0;
    int want = L->code_inline_instructions ? L->type_code : L->type_instruction_stream;
    return want >= 0 && type == want && v8_has_type(v, word, L->type_map);
}

#define HEADER_BACK 256 /* how far before its instructions an InstructionStream's header may start */

/* Learns the code header map from a function's code, so that the scan below compares words with
 * it instead of reading the map of every word that looks like a pointer (hundreds of thousands
 * of reads of the target for one cold pc: the sampler's first seconds). Where the code object
 * holds its instructions, its map is the one; else the InstructionStream just before the
 * instructions has it (found by a short scan, and confirmed by its pointer back to the code). */
static void learn_header_map(v8_t *v, uint64_t fn)
{
    const v8_layout_t *L = &v->L;
    uint64_t code, map, w[HEADER_BACK / 8];
    v8_code_t c;
    if (v->code_header_map || !fn || v8_function_code(v, fn, &code) != 0 || code_read(v, code, &c) != 0 || c.size == 0)
        return;
    if (L->code_inline_instructions) {
        if (v8_read_field(v, code, L->obj_map, &map) == 0 && is_code_header_map(v, map)) v->code_header_map = map;
        return;
    }
    /* builtins' code runs off the heap: it has no InstructionStream before its instructions */
    uint64_t lo = (c.start & ~(uint64_t)7) - sizeof w;
    if (L->istream_code < 0 || target_read(v->t, lo, w, sizeof w) != 0) return;
    for (int i = HEADER_BACK / 8 - 1; i >= 0; i--) {
        uint64_t back, obj = lo + 8 * (uint64_t)i + (uint64_t)L->heap_tag;
        if (!is_code_header_map(v, w[i])) continue;
        if (v8_read_field(v, obj, L->istream_code, &back) == 0 && back == code) v->code_header_map = w[i];
        return;
    }
}

/* Code objects found by scanning, sorted by instruction start: a sampler meets the same few
 * hundred code objects again and again, and one scan can read megabytes. An entry is used only
 * after code_check confirms the object is still there and still covers the pc. Pcs a scan found
 * no code object for (embedded builtins V8 remapped next to its code space after the target's
 * mappings were read, which look like anonymous memory) are remembered for a while too: the same
 * few return addresses come back in every sample. */
#define CODE_CACHE_MAX 4096
#define MISS_BITS 10
#define MISS_SLOTS (1 << MISS_BITS)
#define MISS_TTL_NS (2 * 1000000000ull) /* code may later be put where none was */
struct v8_code_cache {
    v8_code_t *code;
    size_t n;
    uint64_t miss_pc[MISS_SLOTS], miss_ns[MISS_SLOTS];
};

static void code_cache_free(v8_t *v)
{
    if (!v->code_cache) return;
    free(v->code_cache->code);
    free(v->code_cache);
    v->code_cache = NULL;
}

static struct v8_code_cache *code_cache(v8_t *v)
{
    if (!v->code_cache) v->code_cache = xcalloc(1, sizeof *v->code_cache), v8_on_close(v, code_cache_free);
    return v->code_cache;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static size_t miss_slot(uint64_t pc) { return hash_slot(pc, MISS_BITS); }

static int code_missed(v8_t *v, uint64_t pc)
{
    struct v8_code_cache *c = code_cache(v);
    size_t i = miss_slot(pc);
    return c->miss_pc[i] == pc && now_ns() - c->miss_ns[i] < MISS_TTL_NS;
}

static void code_miss(v8_t *v, uint64_t pc)
{
    struct v8_code_cache *c = code_cache(v);
    size_t i = miss_slot(pc);
    c->miss_pc[i] = pc;
    c->miss_ns[i] = now_ns();
}

static int code_cache_find(v8_t *v, uint64_t pc, v8_code_t *out)
{
    struct v8_code_cache *c = v->code_cache;
    if (!c || c->n == 0) return -1;
    size_t lo = 0, hi = c->n; /* the last entry starting at or before pc */
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (c->code[mid].start <= pc) lo = mid + 1;
        else hi = mid;
    }
    return lo > 0 && pc < c->code[lo - 1].start + c->code[lo - 1].size &&
                   code_check(v, c->code[lo - 1].code, pc, out) == 0
               ? 0
               : -1;
}

static void code_cache_add(v8_t *v, const v8_code_t *code)
{
    struct v8_code_cache *c = code_cache(v);
    if (!c->code) c->code = xmalloc(CODE_CACHE_MAX * sizeof *c->code);
    if (c->n == CODE_CACHE_MAX) c->n = 0; /* full: start over rather than keep stale ranges */
    size_t i = 0;
    while (i < c->n && c->code[i].start < code->start) i++;
    if (i < c->n && c->code[i].start == code->start) {
        c->code[i] = *code;
        return;
    }
    memmove(&c->code[i + 1], &c->code[i], (c->n - i) * sizeof *c->code);
    c->code[i] = *code;
    c->n++;
}

/* Walks back from pc to the header of the code it is in: in big reads once the header map is
 * known (a compare per word), in pages while each candidate still costs a read. */
static int code_by_scan(v8_t *v, uint64_t pc, v8_code_t *out)
{
    const v8_layout_t *L = &v->L;
    if (code_cache_find(v, pc, out) == 0) return 0;
    /* V8 puts code on its heap, in anonymous memory: a pc in a file's mapping (the binary's
       embedded builtins, a library) has no code object to find, and scanning back through
       megabytes of the binary for one costs a sampler tens of milliseconds */
    const target_mapping_t *m = target_mapping_at(v->t, pc);
    if (m && m->path && m->path[0] == '/') return -1;
    if (code_missed(v, pc)) return -1;
    static uint64_t buf[SCAN_BIG / 8];
    uint64_t hi = (pc & ~(uint64_t)7) + 8, scanned = 0;
    int big = v->code_header_map != 0;
    /* before the header map is known, a long scan costs a read of the target per word that looks
       like a pointer (seconds for megabytes): look close to the pc only, and do not remember a
       miss, which a scan with the map may well find */
    uint64_t limit = big ? CODE_SCAN_BYTES : SCAN_SLOW;
    while (scanned < limit) {
        uint64_t chunk = big ? SCAN_BIG : SCAN_CHUNK;
        if (hi < chunk) break;
        uint64_t lo = hi - chunk;
        if (target_read(v->t, lo, buf, chunk) != 0) {
            if (!big) break;
            big = 0; /* the start of a mapping within this read: go up to it in small steps */
            continue;
        }
        for (int i = (int)(chunk / 8) - 1; i >= 0; i--) {
            if (!is_code_header_map(v, buf[i])) continue;
            uint64_t obj = lo + 8 * (uint64_t)i + (uint64_t)L->heap_tag, code = obj;
            if (!L->code_inline_instructions && v8_read_field(v, obj, L->istream_code, &code) != 0) continue;
            if (code_check(v, code, pc, out) == 0) {
                v->code_header_map = buf[i];
                code_cache_add(v, out);
                return 0;
            }
        }
        hi = lo;
        scanned += chunk;
    }
    if (limit == CODE_SCAN_BYTES) code_miss(v, pc);
    return -1;
}

int v8_code_for_pc(v8_t *v, uint64_t fn, uint64_t shared, uint64_t pc, v8_code_t *out)
{
    const v8_layout_t *L = &v->L;
    uint64_t code;
    /* the function's current code, then the baseline code its SharedFunctionInfo may hold */
    if (fn && v8_function_code(v, fn, &code) == 0 && code_check(v, code, pc, out) == 0) return 0;
    if (shared && L->sfi_function_data >= 0 && v8_read_field(v, shared, L->sfi_function_data, &code) == 0 &&
        code_check(v, code, pc, out) == 0)
        return 0;
    learn_header_map(v, fn);
    return code_by_scan(v, pc, out);
}

/* A SharedFunctionInfo from a literal: weak references lose their tag; V8 13 wraps SFIs. */
static uint64_t literal_shared(v8_t *v, uint64_t lit)
{
    const v8_layout_t *L = &v->L;
    lit &= ~(uint64_t)2;
    if (L->type_sfi_wrapper >= 0 && v8_has_type(v, lit, L->type_sfi_wrapper)) {
        uint64_t inner;
        if (v8_read_field(v, lit, 8, &inner) == 0) lit = inner;
    }
    return v8_has_type(v, lit, L->type_sfi) ? lit : 0;
}

int v8_code_shared(v8_t *v, const v8_code_t *c, uint64_t *shared)
{
    const v8_layout_t *L = &v->L;
    uint64_t deopt, lit;
    /* V8 10 to 13 keep the code's SharedFunctionInfo (wrapped since 12) just before the inlining positions */
    if (L->deopt_inlining_positions < 1 || v8_read_field(v, c->code, L->code_deopt_data, &deopt) != 0 ||
        v8_fixed_array_get(v, deopt, L->deopt_inlining_positions - 1, &lit) != 0)
        return -1;
    *shared = literal_shared(v, lit);
    return *shared ? 0 : -1;
}

int v8_optimized_positions(v8_t *v, const v8_code_t *c, uint64_t outer_shared, int64_t pc_offset, uint64_t *shared,
                           int64_t *pos, int max)
{
    const v8_layout_t *L = &v->L;
    uint64_t table, deopt = 0, literals = 0, inlining = 0;
    int64_t raw;
    if (L->code_source_positions < 0 || v8_read_field(v, c->code, L->code_source_positions, &table) != 0 ||
        v8_source_position_raw(v, table, pc_offset, &raw) != 0)
        return 0;
    if (v8_read_field(v, c->code, L->code_deopt_data, &deopt) == 0) {
        v8_fixed_array_get(v, deopt, L->deopt_literals, &literals);
        v8_fixed_array_get(v, deopt, L->deopt_inlining_positions, &inlining);
    }
    int n = 0;
    while (n < max && n < MAX_INLINING_DEPTH) {
        /* SourcePosition: bits 1..30 script offset + 1, bits 31..46 inlining id + 1 (0: not inlined) */
        int64_t offset = (int64_t)(((uint64_t)raw >> 1) & 0x3fffffff) - 1;
        uint64_t id = ((uint64_t)raw >> 31) & 0xffff;
        if (id == 0) {
            shared[n] = outer_shared;
            pos[n++] = offset;
            break;
        }
        /* InliningPosition {SourcePosition position; int inlined_function_id;}: 16 bytes each */
        uint64_t entry = inlining - (uint64_t)L->heap_tag + (uint64_t)L->bytearray_data + 16 * (id - 1);
        int64_t len;
        uint64_t next, lit;
        uint32_t fid;
        if (!inlining || v8_read_smi(v, inlining, L->bytearray_length, &len) != 0 || (int64_t)(16 * id) > len ||
            target_read_u64(v->t, entry, &next) != 0 || target_read_u32(v->t, entry + 8, &fid) != 0)
            break;
        /* function id -1: the code's own function, inlined into itself (a recursive call, as
           express's router makes: next() -> handle() -> next()); V8's GetInlinedFunction(-1) */
        if (fid == UINT32_MAX) shared[n] = outer_shared;
        else if (v8_fixed_array_get(v, literals, (int32_t)fid, &lit) == 0) shared[n] = literal_shared(v, lit);
        else break;
        pos[n++] = offset;
        raw = (int64_t)next;
    }
    return n;
}

/* V8's table of bytecode sizes by operand scale ([3][count] bytes), read once from the binary. */
static int bytecode_sizes(v8_t *v)
{
    if (v->bc_sizes_loaded) return v->bc_sizes ? 0 : -1;
    v->bc_sizes_loaded = 1;
    uint64_t addr, size;
    if (target_exe_symbol_addr(v->t, "_ZN2v88internal11interpreter9Bytecodes14kBytecodeSizesE", &addr, &size) != 0 ||
        size % 3 || size == 0 || size > 3 * 1024)
        return -1;
    v->bc_sizes = xmalloc(size);
    if (target_read(v->t, addr, v->bc_sizes, size) != 0) {
        free(v->bc_sizes);
        v->bc_sizes = NULL;
        return -1;
    }
    v->bc_count = (int)(size / 3);
    return 0;
}

/* Size of the bytecode at bytes[i] (with its Wide/ExtraWide prefix), 0 when malformed. */
static size_t bytecode_size(const v8_t *v, const unsigned char *bytes, size_t n, size_t i)
{
    int scale = 0;
    size_t prefix = 0;
    /* prefixes: Wide 0, ExtraWide 1, DebugBreakWide 2, DebugBreakExtraWide 3 */
    if (bytes[i] <= 3) {
        scale = bytes[i] & 1 ? 2 : 1;
        prefix = 1;
        if (i + 1 >= n) return 0;
    }
    unsigned bc = bytes[i + prefix];
    if ((int)bc >= v->bc_count) return 0;
    size_t size = prefix + v->bc_sizes[scale * v->bc_count + bc];
    return size && i + size <= n ? size : 0;
}

static int read_uvlq(const unsigned char *p, size_t n, size_t *i, uint64_t *out)
{
    uint64_t x = 0;
    for (int shift = 0; *i < n && shift < 64; shift += 7) {
        unsigned char b = p[(*i)++];
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = x;
            return 0;
        }
    }
    return -1;
}

static unsigned char *read_byte_array(v8_t *v, uint64_t array, int64_t data_off, size_t max, size_t *n)
{
    int64_t len;
    if (v8_read_smi(v, array, v->L.fixed_array_length, &len) != 0 || len <= 0 || (size_t)len > max) return NULL;
    unsigned char *b = xmalloc((size_t)len);
    if (target_read(v->t, array - (uint64_t)v->L.heap_tag + (uint64_t)data_off, b, (size_t)len) != 0) {
        free(b);
        return NULL;
    }
    *n = (size_t)len;
    return b;
}

int v8_baseline_bytecode_offset(v8_t *v, const v8_code_t *c, uint64_t bca, int64_t pc_offset, int64_t *offset)
{
    const v8_layout_t *L = &v->L;
    uint64_t table;
    size_t nt, nb;
    if (bytecode_sizes(v) != 0 || v8_read_field(v, c->code, L->code_source_positions, &table) != 0) return -1;
    unsigned char *t = read_byte_array(v, table, L->bytearray_data, MAX_OFFSET_TABLE, &nt);
    unsigned char *b = t ? read_byte_array(v, bca, L->bca_header, MAX_BYTECODE_BYTES, &nb) : NULL;
    int rc = -1;
    if (t && b) {
        /* the table holds, for each bytecode in order, the pc delta to the end of its code;
         * the prologue comes first and counts as the function-entry offset -1 */
        size_t ti = 0, bi = 0;
        uint64_t delta, end;
        int64_t current = -1;
        if (read_uvlq(t, nt, &ti, &end) == 0) {
            rc = 0;
            while ((int64_t)end < pc_offset) {
                size_t size = bi < nb ? bytecode_size(v, b, nb, bi) : 0;
                if (!size || read_uvlq(t, nt, &ti, &delta) != 0) {
                    rc = -1;
                    break;
                }
                current = (int64_t)bi;
                bi += size;
                end += delta;
            }
            *offset = current;
        }
    }
    free(t);
    free(b);
    return rc;
}

int v8_code_is_builtin(v8_t *v, uint64_t code, int type)
{
    if (type != v->L.type_code) return 0;
    /* V8's builtins are the bytecode handlers and the BUILTIN kind, two apart in CodeKind in V8
       10-13 (BYTECODE_HANDLER, FOR_TESTING, BUILTIN, ...): the metadata names only the first */
    const v8_layout_t *L = &v->L;
    int64_t handler = L->kind_bytecode_handler, builtin = L->kind_builtin >= 0 ? L->kind_builtin
                                                          : handler >= 0       ? handler + 2
                                                                               : -1;
    v8_code_t c;
    return builtin >= 0 && code_read(v, code, &c) == 0 && (c.kind == builtin || c.kind == handler);
}
