/* A JSFunction's code on V8 13.6+ (Node 24), where the function holds no pointer to it: with
 * leaptiering a function has a dispatch handle, an index into the process's JSDispatchTable,
 * whose 16-byte entries are {entrypoint, code pointer << 16 | parameter count} (V8's
 * js-dispatch-table.h; the handle's low 8 bits are zero: kJSDispatchHandleShift). The table's
 * base is nowhere in the metadata: V8's ExternalReference::js_dispatch_table_address() loads it
 * as `mov IsolateGroup::default_isolate_group_(%rip), %rax; mov OFFSET(%rax), %rax` (arm64:
 * adrp, ldr, ldr), and those loads are decoded here. The answer is checked (a Code object) before it is used, and
 * a build whose function compiles otherwise gives no code edges rather than wrong ones. */
#include "v8/v8_internal.h"
#include <string.h>

#define DISPATCH_HANDLE_SHIFT 8
#define DISPATCH_ENTRY_SIZE 16
#define DISPATCH_CODE_SHIFT 16
#define DISPATCH_MAX_ENTRIES (1u << 24)

static uint32_t insn(const unsigned char *p)
{
    uint32_t w;
    memcpy(&w, p, 4);
    return w;
}

/* Where the function's two loads read, from its first bytes (at pc): *group_at the address holding
 * the IsolateGroup, *off the table's offset in it. x86-64: `mov GROUP(%rip), %rax; mov OFF(%rax),
 * %rax`; aarch64: `adrp xN, GROUP; ldr xN, [xN, #lo12]; ldr xN, [xN, #OFF]`. 0, or -1. */
static int decode_loads(unsigned machine, const unsigned char ins[14], uint64_t pc, uint64_t *group_at, uint64_t *off)
{
    if (machine == 62 /* EM_X86_64 */) {
        static const unsigned char mov_rip[3] = {0x48, 0x8b, 0x05}, mov_rax[3] = {0x48, 0x8b, 0x80};
        int32_t d1, d2;
        if (memcmp(ins, mov_rip, 3) || memcmp(ins + 7, mov_rax, 3)) return -1;
        memcpy(&d1, ins + 3, 4);
        memcpy(&d2, ins + 10, 4);
        *group_at = pc + 7 + (uint64_t)(int64_t)d1;
        *off = (uint64_t)(int64_t)d2;
        return 0;
    }
    if (machine == 183 /* EM_AARCH64 */) {
        uint32_t adrp = insn(ins), ld1 = insn(ins + 4), ld2 = insn(ins + 8), r = adrp & 31;
        /* ldr Xt, [Xn, #imm12 * 8]: 0xf9400000 | imm12 << 10 | Rn << 5 | Rt, each loading from the last */
        if ((adrp & 0x9f000000u) != 0x90000000u || (ld1 & 0xffc00000u) != 0xf9400000u ||
            (ld2 & 0xffc00000u) != 0xf9400000u || ((ld1 >> 5) & 31) != r || ((ld2 >> 5) & 31) != (ld1 & 31))
            return -1;
        int64_t page = (int64_t)((((adrp >> 5) & 0x7ffffu) << 2) | ((adrp >> 29) & 3)); /* immhi:immlo, 21 bits */
        if (page & (1 << 20)) page -= 1 << 21;
        *group_at = (pc & ~0xfffull) + (uint64_t)(page * 4096) + ((ld1 >> 10) & 0xfff) * 8;
        *off = ((ld2 >> 10) & 0xfff) * 8;
        return 0;
    }
    return -1;
}

static uint64_t table_base(v8_t *v)
{
    uint64_t fn, group, base, group_at, off;
    unsigned char ins[14];
    if (target_exe_symbol_addr(v->t, "_ZN2v88internal17ExternalReference25js_dispatch_table_addressEv", &fn, NULL) !=
            0 ||
        target_read(v->t, fn, ins, sizeof ins) != 0 ||
        decode_loads(target_arch(v->t)->elf_machine, ins, fn, &group_at, &off) != 0)
        return 0;
    if (target_read(v->t, group_at, &group, 8) != 0 || !group || target_read(v->t, group + off, &base, 8) != 0) return 0;
    return base;
}

int v8_function_code(v8_t *v, uint64_t fn, uint64_t *code)
{
    const v8_layout_t *L = &v->L;
    if (L->fn_code >= 0) return v8_read_field(v, fn, L->fn_code, code);
    if (v->major < 13 || L->fn_shared < 16) return -1;
    if (!v->dispatch_looked) v->dispatch_table = table_base(v), v->dispatch_looked = 1;
    if (!v->dispatch_table) return -1;
    /* the handle is the field before the SharedFunctionInfo (JSFunction::kDispatchHandleOffset) */
    uint32_t handle;
    uint64_t word;
    if (target_read_u32(v->t, fn - (uint64_t)L->heap_tag + (uint64_t)L->fn_shared - 8, &handle) != 0) return -1;
    uint64_t index = handle >> DISPATCH_HANDLE_SHIFT;
    if (!index || index >= DISPATCH_MAX_ENTRIES ||
        target_read(v->t, v->dispatch_table + index * DISPATCH_ENTRY_SIZE + 8, &word, 8) != 0)
        return -1;
    *code = (word >> DISPATCH_CODE_SHIFT) | (uint64_t)L->heap_tag;
    return v8_has_type(v, *code, L->type_code) ? 0 : -1;
}
