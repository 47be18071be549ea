/* The stack walk: the target's native unwinder gives (pc, sp, fp) per frame; each frame whose pc is
 * not in named native code is decoded as a V8 frame from the slots below its frame pointer:
 * a frame-type marker (typed frames: entry, exit, construct, stub, ...) or a JSFunction. For JS
 * frames the executing position comes from the bytecode offset (interpreted) or the code's source
 * position table (optimized), falling back to the function's definition site. */
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
    for (size_t i = 0; i < v->md.count; i++)
        if (!strncmp(v->md.items[i].name, "frametype_", 10) && v->md.items[i].value == type) return v->md.items[i].name + 10;
    return NULL;
}

static int slot(v8_t *v, uint64_t fp, int64_t off, uint64_t *out)
{
    return off == -1 ? -1 : target_read_u64(v->t, fp + (uint64_t)off, out);
}

/* Position of an interpreted frame: its bytecode offset through the BytecodeArray's table. */
static int interpreted_position(v8_t *v, uint64_t bca, int64_t offset_smi, int64_t *pos)
{
    const v8_layout_t *L = &v->L;
    uint64_t table;
    int inlined;
    int64_t offset = offset_smi - (L->bca_header - L->heap_tag);
    if (offset < 0 || L->bca_source_positions < 0 || v8_read_field(v, bca, L->bca_source_positions, &table) != 0) return -1;
    return v8_source_position(v, table, offset, pos, &inlined);
}

/* The Code object a frame's pc is in, if it is the function's current code. */
static int function_code(v8_t *v, uint64_t fn, uint64_t pc, uint64_t *code, int64_t *kind, uint64_t *start)
{
    const v8_layout_t *L = &v->L;
    uint32_t size, flags;
    if (L->fn_code < 0 || L->code_instruction_start < 0 || v8_read_field(v, fn, L->fn_code, code) != 0 ||
        !v8_has_type(v, *code, L->type_code) || v8_read_field(v, *code, L->code_instruction_start, start) != 0 ||
        target_read_u32(v->t, *code - (uint64_t)L->heap_tag + (uint64_t)L->code_instruction_size, &size) != 0 ||
        target_read_u32(v->t, *code - (uint64_t)L->heap_tag + (uint64_t)L->code_flags, &flags) != 0)
        return -1;
    if (pc < *start || pc >= *start + size) return -1;
    *kind = L->code_kind_mask >= 0 ? (int64_t)((flags >> L->code_kind_shift) & (uint64_t)L->code_kind_mask) : -1;
    return 0;
}

/* Decodes the JS frame at fp; 0 when it is one. */
static int js_frame(v8_t *v, v8_frame_t *f, int innermost)
{
    const v8_layout_t *L = &v->L;
    uint64_t fn, argc, bca, off;
    v8_function_t info;
    if (slot(v, f->fp, L->fp_function, &fn) != 0 || v8_function_info(v, fn, &info) != 0) return -1;
    f->kind = V8_FRAME_JS;
    f->function = fn;
    f->args_addr = f->fp + (uint64_t)L->fp_args;
    f->argc = slot(v, f->fp, L->fp_argc, &argc) == 0 && argc >= 1 && argc <= MAX_ARGC ? (int)argc - 1 : -1;
    int64_t pos = -1;
    if (slot(v, f->fp, L->fp_bytecode_array, &bca) == 0 && v8_has_type(v, bca, L->type_bytecode_array) &&
        slot(v, f->fp, L->fp_bytecode_offset, &off) == 0) {
        if (v8_is_smi(v, off)) {
            f->tier = V8_TIER_INTERPRETED;
            interpreted_position(v, bca, v8_smi_value(v, off), &pos);
        } else {
            f->tier = V8_TIER_BASELINE;   /* the slot holds the feedback vector; pc -> offset not decoded */
        }
    } else {
        uint64_t code, start, table;
        int64_t kind;
        int inlined;
        f->tier = V8_TIER_NONE;
        if (function_code(v, fn, f->pc, &code, &kind, &start) == 0) {
            f->tier = kind == L->kind_maglev ? V8_TIER_MAGLEV : kind == L->kind_turbofan ? V8_TIER_TURBOFAN
                    : kind == L->kind_builtin ? V8_TIER_BUILTIN : V8_TIER_NONE;
            /* a return address points after its call: look up the call itself */
            int64_t pc_off = (int64_t)(f->pc - start) - (innermost ? 0 : 1);
            if (L->code_source_positions >= 0 && v8_read_field(v, code, L->code_source_positions, &table) == 0 &&
                v8_source_position(v, table, pc_off, &pos, &inlined) == 0 && inlined)
                pos = -1;   /* inside inlined code: the outer position needs the inlining table */
        }
        if (!info.script) f->tier = V8_TIER_BUILTIN;
    }
    if (pos >= 0 && info.script && v8_script_line_col(v, info.script, pos, &f->line, &f->col) == 0) {
        f->position_is_definition = 0;
    } else if (info.def_line) {
        f->line = info.def_line;
        f->col = info.def_col;
        f->position_is_definition = 1;
    }
    v8_function_free(&info);
    return 0;
}

/* Decodes the frame at f->fp when its pc is not named native code. */
static void v8_frame(v8_t *v, v8_frame_t *f, int innermost)
{
    const v8_layout_t *L = &v->L;
    uint64_t marker;
    if (!f->fp || slot(v, f->fp, L->fp_context, &marker) != 0) return;
    /* typed frames store (type << 1) in the context slot: an even small value, never a pointer */
    if ((marker & 1) == 0 && marker < 256) {
        const char *name = frame_type_name(v, (int64_t)(marker >> 1));
        if (name) {
            f->kind = V8_FRAME_V8_INTERNAL;
            f->frame_type = name;
        }
        return;
    }
    js_frame(v, f, innermost);
}

size_t v8_stack(v8_t *v, size_t thread_index, v8_frame_t *frames, size_t max)
{
    target_frame_t *native = malloc(max * sizeof *native);
    if (!native) return 0;
    size_t n = target_unwind(v->t, thread_index, native, max);
    for (size_t i = 0; i < n; i++) {
        v8_frame_t *f = &frames[i];
        memset(f, 0, sizeof *f);
        f->kind = V8_FRAME_NATIVE;
        f->pc = native[i].pc;
        f->sp = native[i].sp;
        f->fp = native[i].fp;
        f->argc = -1;
        target_symbol_t sym;
        uint64_t lookup = i ? f->pc - 1 : f->pc;
        int named = target_symbolize(v->t, lookup, &sym) == 0 && sym.name;
        /* embedded builtins have symbols but run JS-visible frames (interpreter, entry trampolines) */
        if (!named || !strncmp(sym.name, "Builtins_", 9)) v8_frame(v, f, i == 0);
    }
    free(native);
    for (size_t i = 0; i + 1 < n; i++)
        if (frames[i].kind == V8_FRAME_JS && frames[i + 1].kind == V8_FRAME_V8_INTERNAL &&
            (!strcmp(frames[i + 1].frame_type, "ConstructFrame") || !strcmp(frames[i + 1].frame_type, "FastConstructFrame")))
            frames[i].is_construct = 1;
    return n;
}

int v8_frame_arg(v8_t *v, const v8_frame_t *f, int i, uint64_t *out)
{
    if (f->kind != V8_FRAME_JS || i < -1 || (f->argc >= 0 && i >= f->argc)) return -1;
    return target_read_u64(v->t, f->args_addr + 8 * (uint64_t)(i + 1), out);
}
