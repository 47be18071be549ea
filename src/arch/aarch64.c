/* aarch64's facts (arch.h), chosen for an aarch64 core (arch_for_elf_machine: tests/e2e/
 * core_arm64.sh reads the official arm64 node builds' cores), not yet for a live process
 * (arch_host: issue 45). The code patterns target/v8_object.c decodes in a stripped library are
 * x86-64's only. The registers in the order of the kernel's user_pt_regs (a core's pr_reg, ptrace's
 * NT_PRSTATUS regset: x0-x30, sp, pc, pstate), the AAPCS64 DWARF numbering (x0-x30 0-30, sp 31; the
 * pc has no number: given apart), perf_event's PERF_REG_ARM64_* (x0-x28, x29, lr, sp, pc), the
 * frame record `stp x29, x30, [sp, #-N]!` builds (the caller's fp at [fp], the return address at
 * [fp + 8]), a return address after a BL or BLR (pointer authentication's BLRAA/BLRAB/BLRAAZ/BLRABZ
 * too), a saved return address's 48 bits (above them a pointer-authentication code: paciasp), and
 * `svc #0` with the number in x8. On an aarch64 host the numbers are checked against the system's
 * headers. */
#include "arch/arch.h"
#include <elf.h>
#include <string.h>
#if defined(__aarch64__)
#include <stddef.h>
#include <sys/procfs.h>
#endif

#ifndef EM_AARCH64
#define EM_AARCH64 183
#endif

enum { X0, X1, X2, X3, X4, X5, X8 = 8, X29 = 29, X30 = 30, SP = 31, PC = 32, PSTATE = 33, NREGS = 34 };

static const char *const names[NREGS] = {
    "x0",  "x1",  "x2",  "x3",  "x4",  "x5",  "x6",  "x7",  "x8",  "x9",  "x10", "x11",
    "x12", "x13", "x14", "x15", "x16", "x17", "x18", "x19", "x20", "x21", "x22", "x23",
    "x24", "x25", "x26", "x27", "x28", "x29", "x30", "sp",  "pc",  "pstate"};

/* DWARF: x0-x30 are 0-30, sp 31: the same as regs[] */
static const int8_t dwarf[32] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31};
/* PERF_REG_ARM64_X0..X28, X29, LR, SP, PC: the same as regs[] but for pstate, which perf has not */
static const int8_t perf[33] = {0,  1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15, 16,
                                17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};

static uint32_t word(const uint8_t *p)
{
    uint32_t w;
    memcpy(&w, p, 4);
    return w;
}

/* before[0..4): the instruction before the return address: BL imm26, BLR Xn, or a BLRA* form.
 * Or at[0..8) is the sigreturn trampoline (mov x8, #139; svc #0). */
static int return_site(const uint8_t *before, const uint8_t *at)
{
    uint32_t w = word(before);
    if ((w & 0xfc000000u) == 0x94000000u) return 1;                   /* BL */
    if ((w & 0xfffffc1fu) == 0xd63f0000u) return 1;                   /* BLR Xn */
    if ((w & 0xfefff800u) == 0xd63f0800u) return 1;                   /* BLRAA(Z)/BLRAB(Z) */
    return at && word(at) == 0xd2801168u && word(at + 4) == 0xd4000001u; /* mov x8, #139; svc #0 */
}

const arch_t arch_aarch64 = {
    .name = "aarch64",
    .elf_machine = EM_AARCH64,
    .nregs = NREGS,
    .reg_names = names,
    .pc = PC,
    .sp = SP,
    .fp = X29,
    .lr = X30,
    .c_args = {X0, X1, X2, X3, X4, X5},
    .prstatus_pid_off = 32,
    .prstatus_reg_off = 112,
    .prstatus_size = 392,
    .dwarf_regs = dwarf,
    .ndwarf = sizeof dwarf,
    .dwarf_sp = 31,
    .dwarf_fp = 29,
    .dwarf_pc = -1,
    .perf_mask = (1ull << 33) - 1,
    .perf_regs = perf,
    .nperf = sizeof perf,
    .frame_fp_off = 0,
    .frame_ret_off = 8,
    .frame_size = 16, /* the record itself: a frame is at least that (the record sits at its bottom) */
    .entry_ret_on_stack = 0,
    .red_zone = 0,
    .ret_mask = (1ull << 48) - 1, /* 48-bit virtual addresses (Linux's default; 52 would be larger pages' opt-in) */
    .site_before = 4,
    .site_at = 8,
    .return_site = return_site,
    .syscall = {.insn = {0x01, 0x00, 0x00, 0xd4}, /* svc #0 */
                .insn_len = 4,
                .insn_align = 4,
                .nr = X8,
                .args = {X0, X1, X2, X3, X4, X5},
                .ret = X0,
                .no_restart = -1},
};

#if defined(__aarch64__) /* the numbers above are the system's */
_Static_assert(sizeof(struct elf_prstatus) == 392 && offsetof(struct elf_prstatus, pr_reg) == 112 &&
                   offsetof(struct elf_prstatus, pr_pid) == 32,
               "elf_prstatus");
#endif
