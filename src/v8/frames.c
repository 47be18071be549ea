/* The stack walk: the target's native unwinder gives (pc, sp, fp) per frame; each frame whose pc is
 * not in named native code is decoded as a V8 frame from the slots below its frame pointer:
 * a frame-type marker (typed frames: entry, exit, construct, stub, ...) or a JSFunction. For JS
 * frames the executing position comes from the bytecode offset (interpreted) or the code's source
 * position table (optimized), falling back to the function's definition site. */
#include "util/hash.h"
#include "util/xalloc.h"
#include "v8/v8_internal.h"
#include <stdlib.h>
#include <string.h>

#define MAX_ARGC 65535

const char *v8_tier_name(v8_tier_t tier)
{
    switch (tier) {
    case V8_TIER_INTERPRETED: return "interpreted";
    case V8_TIER_BASELINE: return "baseline";
    case V8_TIER_MAGLEV: return "maglev";
    case V8_TIER_TURBOFAN: return "turbofan";
    case V8_TIER_BUILTIN: return "builtin";
    default: return "optimized";
    }
}

/* The metadata's name for a frame type number ("EntryFrame"), or NULL. */
static const char *frame_type_name(const v8_t *v, int64_t type)
{
    /* the items are sorted by name: the frametype_ ones are together (a scan of all ~550 for each
       typed frame was a twentieth of a live sample's cost) */
    size_t lo = 0, hi = v->md.count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(v->md.items[mid].name, "frametype_") < 0) lo = mid + 1;
        else hi = mid;
    }
    for (size_t i = lo; i < v->md.count && !strncmp(v->md.items[i].name, "frametype_", 10); i++)
        if (v->md.items[i].value == type) return v->md.items[i].name + 10;
    for (size_t i = 0; i < v->md.count; i++) /* metadata a caller gave unsorted (v8_open_with_metadata) */
        if (!strncmp(v->md.items[i].name, "frametype_", 10) && v->md.items[i].value == type)
            return v->md.items[i].name + 10;
    return NULL;
}

/* Position of an interpreted frame: its bytecode offset through the BytecodeArray's table. */
static int interpreted_position(v8_t *v, uint64_t bca, int64_t offset_smi, int64_t *pos)
{
    const v8_layout_t *L = &v->L;
    uint64_t table;
    int inlined;
    int64_t offset = offset_smi - (L->bca_header - L->heap_tag);
    if (offset < 0 || L->bca_source_positions < 0 || v8_read_field(v, bca, L->bca_source_positions, &table) != 0)
        return -1;
    return v8_source_position(v, table, offset, pos, &inlined);
}

static v8_tier_t tier_of_kind(const v8_layout_t *L, int64_t kind)
{
    return kind == L->kind_maglev     ? V8_TIER_MAGLEV
           : kind == L->kind_turbofan ? V8_TIER_TURBOFAN
           : kind == L->kind_baseline ? V8_TIER_BASELINE
           : kind == L->kind_builtin  ? V8_TIER_BUILTIN
                                      : V8_TIER_NONE;
}

/* Sets f's line:column from a script offset in the function's script, else its definition. */
static void set_position(v8_t *v, v8_frame_t *f, const v8_function_t *info, int64_t pos)
{
    if (pos >= 0 && info->script && v8_script_line_col(v, info->script, pos, &f->line, &f->col) == 0) {
        f->position_is_definition = 0;
    } else if (info->def_line) {
        f->line = info->def_line;
        f->col = info->def_col;
        f->position_is_definition = 1;
    }
}

#define MAX_INLINED 64

/* The bytecode a SharedFunctionInfo runs now: its function data, or the bytecode its baseline code
 * was compiled from (kept in that Code's deoptimization data slot). 0 when neither. */
static uint64_t current_bytecode(v8_t *v, uint64_t shared)
{
    const v8_layout_t *L = &v->L;
    uint64_t data, bca;
    if (L->sfi_function_data < 0 || v8_read_field(v, shared, L->sfi_function_data, &data) != 0) return 0;
    if (v8_has_type(v, data, L->type_bytecode_array)) return data;
    if (v8_has_type(v, data, L->type_code) && v8_read_field(v, data, L->code_deopt_data, &bca) == 0 &&
        v8_has_type(v, bca, L->type_bytecode_array))
        return bca;
    return 0;
}

/* Is the frame optimized code entered by on-stack replacement (a long loop in one call, compiled
 * while it ran)? Its frame extends the interpreted or baseline frame it replaced, whose bytecode
 * slots stay below the frame pointer: they usually still hold the function's own bytecode (and
 * the offset of the loop it left), or no longer (Node 22: a 36-byte BytecodeArray in the slot of
 * a function whose bytecode has 65), which must not make the frame look moved. Only the pc's
 * code tells: OSR code is reachable from neither the function nor its SharedFunctionInfo, so
 * v8_code_for_pc finds it by its header. An interpreted frame's pc, in the embedded builtins of a
 * mapping of the binary, is not asked about (a deep interpreted stack's naming cost 12% more);
 * code found for the pc counts only if it is the function's own (not a callee's, below). */
static int osr_frame(v8_t *v, uint64_t fn, const v8_function_t *info, uint64_t pc, uint64_t bca)
{
    (void)bca;
    v8_code_t code;
    const target_mapping_t *m = target_mapping_at(v->t, pc);
    if ((m && m->path && m->path[0] == '/') || v8_code_for_pc(v, fn, info->shared, pc, &code) != 0) return 0;
    v8_tier_t t = tier_of_kind(&v->L, code.kind);
    /* the code must be this function's: an innermost frame caught in a callee's prologue (its own
       frame not yet pushed) has the callee's pc over the caller's frame, which is not the callee's */
    uint64_t shared;
    return (t == V8_TIER_TURBOFAN || t == V8_TIER_MAGLEV) && v8_code_shared(v, &code, &shared) == 0 &&
           shared == info->shared;
}

/* Whose bytecode a BytecodeArray is, learned from frames whose function slot agreed with it. A
 * sampler reading a stack late finds the function slot pointing where a GC moved the function
 * from; the bytecode slot still names the bytecode, which lives in old space and does not move with
 * it. An entry counts only while that SharedFunctionInfo's bytecode is still the same array. */
#define BC_OWNER_BITS 12
#define BC_OWNER_SLOTS (1 << BC_OWNER_BITS)
struct v8_bc_owner {
    uint64_t bca, shared;
};

static size_t bc_owner_slot(uint64_t bca) { return hash_slot(bca, BC_OWNER_BITS); }

static void bc_owner_free(v8_t *v)
{
    free(v->bc_owner);
    v->bc_owner = NULL;
}

static void bc_owner_note(v8_t *v, uint64_t bca, uint64_t shared)
{
    if (!v->bc_owner) v->bc_owner = xcalloc(BC_OWNER_SLOTS, sizeof *v->bc_owner), v8_on_close(v, bc_owner_free);
    v->bc_owner[bc_owner_slot(bca)] = (struct v8_bc_owner){bca, shared};
}

static uint64_t bc_owner(v8_t *v, uint64_t bca)
{
    if (!v->bc_owner) return 0;
    const struct v8_bc_owner *e = &v->bc_owner[bc_owner_slot(bca)];
    return e->bca == bca && current_bytecode(v, e->shared) == bca ? e->shared : 0;
}

/* The frame runs shared, not the function its slot names now (a GC moved that one before a live
 * read): the frame and info become shared's, named from what does not move (stable); moved when
 * shared cannot be read. */
static void adopt_function(v8_t *v, v8_frame_t *js, v8_function_t *info, uint64_t shared)
{
    v8_function_t own;
    if (v8_shared_info(v, shared, &own) != 0) {
        js->moved = 1;
        return;
    }
    v8_function_free(info);
    *info = own;
    js->shared = shared;
    js->function = 0;
    js->stable = js->adopted = 1;
}

/* Decodes the JS frame at f->fp into out[0..] (more than one when optimized code inlined
 * functions: innermost first); returns the number of frames written, 0 if it is not one.
 * The function is taken from what its code says where it can (out->stable): the optimized code
 * the pc is in knows its SharedFunctionInfo, and the frame's bytecode slot names its bytecode;
 * the JSFunction slot, which a GC may have moved away from before a live read, only otherwise. */
static size_t js_frame(v8_t *v, const v8_frame_t *f, int innermost, v8_frame_t *out, size_t room)
{
    const v8_layout_t *L = &v->L;
    uint64_t fn, argc, bca, off;
    v8_function_t info;
    if (room == 0 || v8_frame_slot(v, f->fp, L->fp_function, &fn) != 0) return 0;
    int have_fn = v8_function_info(v, fn, &info) == 0;
    int has_bca = v8_frame_slot(v, f->fp, L->fp_bytecode_array, &bca) == 0 &&
                  v8_has_type(v, bca, L->type_bytecode_array) &&
                  v8_frame_slot(v, f->fp, L->fp_bytecode_offset, &off) == 0;
    v8_code_t code;
    int optimized = 0; /* known from the pc alone: the bytecode slots may be a replaced frame's (OSR) */
    if (!have_fn) {
        /* the slot holds no function now: a frame still, if its code or bytecode says whose */
        uint64_t shared = 0;
        v8_tier_t t = V8_TIER_NONE;
        if (v8_code_for_pc(v, 0, 0, f->pc, &code) == 0) t = tier_of_kind(L, code.kind);
        if (t == V8_TIER_TURBOFAN || t == V8_TIER_MAGLEV) {
            optimized = 1;
            if (v8_code_shared(v, &code, &shared) != 0) shared = 0;
        } else if (has_bca) {
            shared = bc_owner(v, bca);
        }
        if (!shared || v8_shared_info(v, shared, &info) != 0) return 0;
        fn = 0;
    }
    int adopted = !have_fn;
    v8_frame_t js = *f;
    js.kind = V8_FRAME_JS;
    js.function = fn;
    js.shared = info.shared;
    js.stable = 0;
    js.adopted = adopted;
    js.args_addr = f->fp + (uint64_t)L->fp_args;
    js.argc = v8_frame_slot(v, f->fp, L->fp_argc, &argc) == 0 && argc >= 1 && argc <= MAX_ARGC ? (int)argc - 1 : -1;
    /* a return address points after its call: positions are looked up for the call itself */
    int64_t back = innermost ? 0 : 1;
    int64_t pos = -1;
    if (has_bca && !optimized && (!fn || !osr_frame(v, fn, &info, f->pc, bca))) {
        /* the frame's bytecode (stack, sample time) is the function's own unless the slot was read late */
        uint64_t now = current_bytecode(v, info.shared), owner;
        if (now == bca) {
            js.stable = 1;
            bc_owner_note(v, bca, info.shared);
        } else if (fn && (owner = bc_owner(v, bca)) != 0) {
            adopt_function(v, &js, &info, owner); /* the function moved: its bytecode did not */
        } else if (now) {
            js.moved = 1;
        }
        if (v8_is_smi(v, off)) {
            js.tier = V8_TIER_INTERPRETED;
            interpreted_position(v, bca, v8_smi_value(v, off), &pos);
        } else {
            /* baseline: the slot holds the feedback vector; the pc maps to a bytecode offset */
            int64_t offset;
            js.tier = V8_TIER_BASELINE;
            if (v8_code_for_pc(v, js.function, info.shared, f->pc, &code) == 0 &&
                v8_baseline_bytecode_offset(v, &code, bca, (int64_t)(f->pc - code.start), &offset) == 0)
                interpreted_position(v, bca, offset + (L->bca_header - L->heap_tag), &pos);
        }
        set_position(v, &js, &info, pos);
        out[0] = js;
        v8_function_free(&info);
        return 1;
    }
    js.tier = info.script ? V8_TIER_NONE : V8_TIER_BUILTIN;
    uint64_t shared[MAX_INLINED];
    int64_t spos[MAX_INLINED];
    int n = 0;
    if (v8_code_for_pc(v, fn, info.shared, f->pc, &code) == 0) {
        v8_tier_t t = tier_of_kind(L, code.kind);
        uint64_t code_shared;
        if (t != V8_TIER_NONE) js.tier = t;
        /* optimized code knows its function: a JSFunction slot saying otherwise was read too late,
           after a GC moved the function; the code's own function is the one that ran */
        if ((t == V8_TIER_TURBOFAN || t == V8_TIER_MAGLEV) && v8_code_shared(v, &code, &code_shared) == 0) {
            if (code_shared == info.shared) js.stable = 1;
            else adopt_function(v, &js, &info, code_shared);
        }
        if (t == V8_TIER_TURBOFAN || t == V8_TIER_MAGLEV)
            n = v8_optimized_positions(v, &code, info.shared, (int64_t)(f->pc - code.start) - back, shared, spos,
                                       MAX_INLINED);
    }
    if (n <= 1 || (size_t)n > room) {
        set_position(v, &js, &info, n == 1 ? spos[0] : -1);
        out[0] = js;
        v8_function_free(&info);
        return 1;
    }
    /* inlined functions first: they have no frame, arguments or receiver of their own */
    for (int i = 0; i < n; i++) {
        v8_frame_t *o = &out[i];
        v8_function_t in;
        *o = js;
        if (i < n - 1) {
            o->inlined = 1;
            o->function = 0;
            o->shared = shared[i];
            o->argc = -1;
            o->args_addr = 0;
            if (v8_shared_info(v, shared[i], &in) == 0) {
                set_position(v, o, &in, spos[i]);
                v8_function_free(&in);
            }
        } else {
            set_position(v, o, &info, spos[i]);
        }
    }
    v8_function_free(&info);
    return (size_t)n;
}

/* An interpreted frame's context slot is Ignition's context register: a function that made a
 * context of its own (for closures, a block scope) has it there, whose enclosing chain leads to
 * the function's context. A few levels are enough; a cycle or garbage ends the walk. */
#define MAX_CONTEXT_DEPTH 16

int v8_frame_current(v8_t *v, const v8_frame_t *f)
{
    const v8_layout_t *L = &v->L;
    uint64_t ctx, fn_context;
    if (f->kind != V8_FRAME_JS) return -1;
    if (f->moved) return 0;
    if (!f->function || f->inlined || L->fn_context < 0) return -1;
    if (v8_frame_slot(v, f->fp, L->fp_context, &ctx) != 0) return -1;
    if (!v8_has_type(v, f->function, L->type_js_function) ||
        v8_read_field(v, f->function, L->fn_context, &fn_context) != 0)
        return 0;
    for (int depth = 0; depth < MAX_CONTEXT_DEPTH; depth++) {
        if (ctx == fn_context) return 1;
        if (f->tier != V8_TIER_INTERPRETED && f->tier != V8_TIER_BASELINE) return 0;
        if (L->context_prev_slot < 0 || !v8_is_heap_object(v, ctx) ||
            v8_fixed_array_get(v, ctx, L->context_prev_slot, &ctx) != 0)
            return 0;
    }
    return 0;
}

size_t v8_decode_frame(v8_t *v, const v8_frame_t *f, v8_frame_t *out, size_t room)
{
    const v8_layout_t *L = &v->L;
    uint64_t marker;
    if (room == 0) return 0;
    out[0] = *f;
    if (!f->fp || v8_frame_slot(v, f->fp, L->fp_context, &marker) != 0) return 1;
    /* typed frames store (type << 1) in the context slot: an even small value, never a pointer */
    if ((marker & 1) == 0 && marker < 256) {
        const char *name = frame_type_name(v, (int64_t)(marker >> 1));
        if (name) {
            out[0].kind = V8_FRAME_V8_INTERNAL;
            out[0].frame_type = name;
            v8_api_frame(v, &out[0], (int64_t)(marker >> 1));
        }
        return 1;
    }
    size_t n = js_frame(v, f, !f->return_address, out, room);
    return n ? n : 1;
}

/* The address symbols are looked up at: a return address points after its call. */
#define PROLOGUE_SCAN 64 /* how far into a code object the instruction pushing its frame record is looked for */

/* Where the interrupted frame stands when its pc is at a function's first instructions or at its
 * final return: its own frame is not (or no longer) on the chain fp starts. */
typedef enum {
    FRAME_READY,         /* fp is this frame's and its slots are written */
    FRAME_ENTRY,         /* before the record is pushed: fp is the caller's */
    FRAME_ENTRY_PUSHED,  /* the record pushed (prologue_t.pushed bytes), fp not yet set: the caller's */
    FRAME_EXIT,          /* at the return: fp is the caller's again */
    FRAME_UNWRITTEN,     /* fp is this frame's, but the function slot below it is not written yet
                            (or was popped): whatever is there is stale */
} frame_state_t;

/* V8's frame-building instruction and the return instructions, per ELF machine (V8's
 * MacroAssembler: x64's prologue is `push rbp; mov rbp, rsp`; arm64's pushes fp and lr as a pair,
 * `stp x29, x30, [sp, #-16]!`, then `mov x29, sp`, after a `pacibsp` where return addresses are
 * signed). Where the return address is then, on the stack or in lr, is the arch's (arch_t). */
typedef struct {
    unsigned machine;
    uint8_t push[4];    /* the instruction pushing the record (x86-64: push rbp; mov rbp, rsp) */
    size_t push_len;    /* its bytes compared */
    size_t push_insn;   /* the length of the pushing instruction alone */
    uint64_t pushed;    /* the bytes it pushes */
    uint8_t ret[3][4];  /* return instructions (a first byte alone on x86-64: ret_len 1) */
    size_t ret_len, nret;
    size_t step;        /* instruction alignment for the scan */
} prologue_t;

static const prologue_t prologues[] = {
    {62 /* EM_X86_64 */, {0x55, 0x48, 0x89, 0xe5}, 4, 1, 8, {{0xc3}, {0xc2}}, 1, 2, 1},
    {183 /* EM_AARCH64 */, {0xfd, 0x7b, 0xbf, 0xa9}, 4, 4, 16,
     {{0xc0, 0x03, 0x5f, 0xd6}, {0xff, 0x0b, 0x5f, 0xd6}, {0xff, 0x0f, 0x5f, 0xd6}}, 4, 3, 4}, /* ret, retaa, retab */
};

static const prologue_t *prologue_of(v8_t *v)
{
    for (size_t i = 0; i < sizeof prologues / sizeof *prologues; i++)
        if (prologues[i].machine == target_arch(v->t)->elf_machine) return &prologues[i];
    return NULL;
}

static frame_state_t frame_state(v8_t *v, uint64_t pc, uint64_t code_start, uint64_t fp, uint64_t rsp)
{
    const prologue_t *P = prologue_of(v);
    uint8_t b[PROLOGUE_SCAN + 3], at[4]; /* the scan's last start, and its instruction's 4 bytes */
    if (!P) return FRAME_READY;
    if (target_read(v->t, pc, at, P->ret_len) == 0)
        for (size_t k = 0; k < P->nret; k++)
            if (!memcmp(at, P->ret[k], P->ret_len)) return FRAME_EXIT;
    if (code_start && pc >= code_start && pc - code_start < PROLOGUE_SCAN &&
        target_read(v->t, code_start, b, sizeof b) == 0)
        for (size_t k = 0; k < PROLOGUE_SCAN && k + P->push_len <= sizeof b; k += P->step)
            if (!memcmp(b + k, P->push, P->push_len)) {
                if (pc <= code_start + k) return FRAME_ENTRY;
                if (pc == code_start + k + P->push_insn) return FRAME_ENTRY_PUSHED;
                break;
            }
    if (rsp && v->L.fp_function < 0 && fp + (uint64_t)v->L.fp_function < rsp) return FRAME_UNWRITTEN;
    return FRAME_READY;
}

/* Of a frame at its entry or exit (st), sp and the registers: the caller's pc (the return
 * address on the stack above what the prologue pushed, or in lr), the caller's sp, and where the
 * interrupted function's arguments begin. 0, or -1. */
static int unset_caller(v8_t *v, frame_state_t st, const uint64_t *regs, uint64_t sp, uint64_t *ret, uint64_t *caller_sp,
                        uint64_t *args)
{
    const arch_t *a = target_arch(v->t);
    const prologue_t *P = prologue_of(v);
    uint64_t pushed = st == FRAME_ENTRY_PUSHED && P ? P->pushed : 0;
    if (a->entry_ret_on_stack) {
        *args = *caller_sp = sp + pushed + 8;
        return target_read_u64(v->t, sp + pushed, ret);
    }
    *args = *caller_sp = sp + pushed;
    if (!regs || a->lr < 0) return -1;
    *ret = regs[a->lr] & a->ret_mask;
    return 0;
}

/* The function the interrupted code belongs to, when its frame is not set up: at a JS function's
 * entry the callee is in kJSFunctionRegister (L.reg_js_function: rdi, arm64's x1); taken only when
 * that function's code is the code the pc is in (or, in an embedded builtin's entry, the builtin's
 * JS target). */
static int entered_function(v8_t *v, uint64_t fn, uint64_t pc, int in_builtin, v8_function_t *info, v8_code_t *code)
{
    const v8_layout_t *L = &v->L;
    uint64_t own, data;
    if (!v8_has_type(v, fn, L->type_js_function) || v8_function_info(v, fn, info) != 0) return -1;
    code->code = 0;
    code->kind = -1;
    if (in_builtin) return 0;
    if (v8_code_for_pc(v, fn, info->shared, pc, code) == 0 &&
        ((v8_function_code(v, fn, &own) == 0 && own == code->code) ||
         (v8_read_field(v, info->shared, L->sfi_function_data, &data) == 0 && data == code->code)))
        return 0;
    v8_function_free(info);
    return -1;
}

/* The interrupted frame when its own frame is not set up: named from kJSFunctionRegister when that
 * can be trusted (its position is then the definition: the function was just entered), else left
 * as code at pc. */
static void unset_frame(v8_t *v, const v8_frame_t *f, frame_state_t st, const uint64_t *regs, int in_builtin,
                        uint64_t args_addr, v8_frame_t *out)
{
    v8_function_t info;
    v8_code_t code;
    *out = *f;
    int fn_reg = v->L.reg_js_function;
    if (st == FRAME_EXIT || !regs || fn_reg < 0 || entered_function(v, regs[fn_reg], f->pc, in_builtin, &info, &code) != 0)
        return;
    out->kind = V8_FRAME_JS;
    out->function = regs[fn_reg];
    out->shared = info.shared;
    out->argc = -1;
    out->args_addr = args_addr;
    v8_tier_t t = tier_of_kind(&v->L, code.kind);
    out->tier = in_builtin ? (info.script ? V8_TIER_INTERPRETED : V8_TIER_BUILTIN) : t;
    set_position(v, out, &info, -1);
    v8_function_free(&info);
}

size_t v8_stack_frames(v8_t *v, const target_frame_t *native, size_t n, const uint64_t *regs, v8_frame_t *frames,
                       size_t max)
{
    size_t out = 0;
    for (size_t i = 0; i < n && out < max; i++) {
        v8_frame_t f;
        memset(&f, 0, sizeof f);
        f.kind = V8_FRAME_NATIVE;
        f.pc = native[i].pc;
        f.sp = native[i].sp;
        f.fp = native[i].fp;
        f.argc = -1;
        f.return_address = i > 0;
        target_mapping_refresh(v->t, f.pc); /* a pc in no known mapping: the process mapped more since */
        target_symbol_t sym;
        int named = target_symbolize(v->t, v8_frame_lookup_pc(&f), &sym) == 0 && sym.name;
        int builtin = named && !strncmp(sym.name, "Builtins_", 9);
        /* V8 runs JS in anonymous memory or in its embedded builtins (symbols Builtins_*): a pc in
           a file without a symbol there (libc's internal memmove, called from a builtin) is native,
           and its frame pointer still the caller's, whose frame follows as its own */
        const target_mapping_t *fm = named ? NULL : target_mapping_at(v->t, f.pc);
        if ((named && !builtin) || (fm && fm->path && fm->path[0] == '/')) {
            frames[out++] = f;
            continue;
        }
        if (i == 0) {
            /* a pc caught at a function's entry or exit: its frame's slots are the caller's or stale */
            uint64_t rsp = regs ? regs[target_arch(v->t)->sp] : f.sp, start = builtin ? sym.addr : 0;
            v8_code_t code;
            const target_mapping_t *m = target_mapping_at(v->t, f.pc);
            int jit = m && !m->path; /* V8's code space: anonymous memory */
            /* the function slot is this frame's or, at its entry, its caller's: either teaches
               v8_code_for_pc the code header map; only code whose range holds the pc is taken */
            uint64_t fn = 0;
            if (jit &&
                (v8_frame_slot(v, f.fp, v->L.fp_function, &fn) != 0 || !v8_has_type(v, fn, v->L.type_js_function)))
                fn = 0;
            if (jit && v8_code_for_pc(v, fn, 0, f.pc, &code) == 0) start = code.start;
            frame_state_t st = frame_state(v, f.pc, start, f.fp, rsp);
            if (st != FRAME_READY) {
                uint64_t ret = 0, caller_sp = 0, args = 0;
                int have_ret = st != FRAME_UNWRITTEN && unset_caller(v, st, regs, rsp, &ret, &caller_sp, &args) == 0;
                if (st == FRAME_UNWRITTEN) args = f.fp + (uint64_t)v->L.fp_args;
                unset_frame(v, &f, st, regs, builtin, args, &frames[out++]);
                /* the caller's frame is still fp's: its pc is the return address (stack or lr) */
                if (have_ret && out < max && ret) {
                    v8_frame_t c = f;
                    c.pc = ret;
                    c.sp = caller_sp;
                    c.return_address = 1;
                    named = target_symbolize(v->t, ret - 1, &sym) == 0 && sym.name;
                    if (named && strncmp(sym.name, "Builtins_", 9)) frames[out++] = c;
                    else out += v8_decode_frame(v, &c, &frames[out], max - out);
                }
                continue;
            }
        }
        /* embedded builtins have symbols but run JS-visible frames (interpreter, entry trampolines) */
        out += v8_decode_frame(v, &f, &frames[out], max - out);
    }
    for (size_t i = 0; i + 1 < out; i++)
        if (frames[i].kind == V8_FRAME_JS && frames[i + 1].kind == V8_FRAME_V8_INTERNAL &&
            (!strcmp(frames[i + 1].frame_type, "ConstructFrame") ||
             !strcmp(frames[i + 1].frame_type, "FastConstructFrame")))
            frames[i].is_construct = 1;
    v8_api_callees(v, frames, out);
    return out;
}

size_t v8_stack(v8_t *v, size_t thread_index, v8_frame_t *frames, size_t max)
{
    target_frame_t *native = malloc(max * sizeof *native);
    const target_thread_t *th = target_thread(v->t, thread_index);
    if (!native || !th) {
        free(native);
        return 0;
    }
    size_t n = target_unwind(v->t, thread_index, native, max);
    n = v8_stack_frames(v, native, n, th->regs, frames, max);
    free(native);
    return n;
}

int v8_frame_arg(v8_t *v, const v8_frame_t *f, int i, uint64_t *out)
{
    if (f->kind != V8_FRAME_JS || f->inlined || i < -1 || (f->argc >= 0 && i >= f->argc)) return -1;
    return target_read_u64(v->t, f->args_addr + 8 * (uint64_t)(i + 1), out);
}

int v8_frame_argc(const v8_frame_t *f, const v8_function_t *fi)
{
    if (f->inlined) return 0;
    if (f->argc >= 0) return f->argc;
    return fi && fi->param_count > 0 ? fi->param_count : 0;
}
