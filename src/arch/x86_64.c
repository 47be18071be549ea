/* x86-64's facts, all of them (arch.h): the registers in the order of the kernel's user_regs_struct
 * (a core's pr_reg, ptrace's NT_PRSTATUS regset), the System V ABI's DWARF numbering, perf_event's
 * PERF_REG_X86_* numbering, the frame record `push rbp; mov rbp, rsp` builds, the encodings of a
 * call instruction (what a return address must follow), and the `syscall` instruction with its
 * registers. On an x86-64 host the numbers are checked against the system's own headers. */
#include "arch/arch.h"
#include <elf.h>
#include <string.h>
#if defined(__x86_64__)
#include <stddef.h>
#include <sys/procfs.h>
#include <sys/user.h>
#endif

enum { /* user_regs_struct */
    R15, R14, R13, R12, RBP, RBX, R11, R10, R9, R8, RAX, RCX, RDX, RSI, RDI, ORIG_RAX,
    RIP, CS, EFLAGS, RSP, SS, FS_BASE, GS_BASE, DS, ES, FS, GS, NREGS
};

static const char *const names[NREGS] = {
    "r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8", "rax", "rcx", "rdx", "rsi",
    "rdi", "orig_rax", "rip", "cs", "eflags", "rsp", "ss", "fs_base", "gs_base", "ds", "es", "fs", "gs"};

/* DWARF x86-64 numbering: rax rdx rcx rbx rsi rdi rbp rsp r8..r15, then the return address (16) */
static const int8_t dwarf[17] = {RAX, RDX, RCX, RBX, RSI, RDI, RBP, RSP, R8,
                                 R9,  R10, R11, R12, R13, R14, R15, RIP};

/* PERF_REG_X86_*: AX BX CX DX SI DI BP SP IP FLAGS CS SS DS ES FS GS R8..R15 */
static const int8_t perf[24] = {RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP, RIP, EFLAGS, CS, SS,
                                -1,  -1,  -1,  -1,  R8,  R9,  R10, R11, R12, R13,    R14, R15};
/* AX..IP (0-8) and R8..R15 (16-23): what unwinding and a probe's arguments need */
#define PERF_MASK (0x1ffull | (0xffull << 16))

/* A call before ret: its last byte is before[6]. call rel32 (e8 + 4 bytes), or call r/m64: FF /2
 * with its ModRM, SIB and displacement, 2-7 bytes, a REX prefix before it or not. Or ret is the
 * sigreturn trampoline a signal handler returns to (mov $15, %rax; syscall). */
static int return_site(const uint8_t *before, const uint8_t *at)
{
    static const uint8_t sigreturn[9] = {0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05};
    if (before[2] == 0xe8) return 1; /* call rel32 */
    for (int len = 2; len <= 7; len++) {
        const uint8_t *c = before + 7 - len; /* the FF, its ModRM, and what follows */
        if (c[0] != 0xff || ((c[1] >> 3) & 7) != 2) continue;
        int mod = c[1] >> 6, rm = c[1] & 7, sib = mod != 3 && rm == 4, want = 2 + sib;
        if (mod == 1) want += 1; /* disp8 */
        else if (mod == 2 || (mod == 0 && rm == 5) || (mod == 0 && sib && len > 2 && (c[2] & 7) == 5))
            want += 4; /* disp32: [reg+disp32], [rip+disp32], [index*s+disp32] */
        if (want == len) return 1;
    }
    return at && !memcmp(at, sigreturn, sizeof sigreturn);
}

const arch_t arch_x86_64 = {
    .name = "x86-64",
    .elf_machine = EM_X86_64,
    .nregs = NREGS,
    .reg_names = names,
    .pc = RIP,
    .sp = RSP,
    .fp = RBP,
    .lr = -1,
    .c_args = {RDI, RSI, RDX, RCX, R8, R9},
    .prstatus_pid_off = 32,
    .prstatus_reg_off = 112,
    .prstatus_size = 336,
    .dwarf_regs = dwarf,
    .ndwarf = sizeof dwarf,
    .dwarf_sp = 7,
    .dwarf_fp = 6,
    .dwarf_pc = 16,
    .perf_mask = PERF_MASK,
    .perf_regs = perf,
    .nperf = sizeof perf,
    .frame_fp_off = 0,
    .frame_ret_off = 8,
    .frame_size = 16,
    .entry_ret_on_stack = 1,
    .red_zone = 128,
    .site_before = 7,
    .site_at = 9,
    .return_site = return_site,
    .syscall = {.insn = {0x0f, 0x05},
                .insn_len = 2,
                .insn_align = 1,
                .nr = RAX,
                .args = {RDI, RSI, RDX, R10, R8, R9},
                .ret = RAX,
                .no_restart = ORIG_RAX},
};

#if defined(__x86_64__) /* the numbers above are the system's */
_Static_assert(sizeof(struct user_regs_struct) == NREGS * 8, "user_regs_struct");
_Static_assert(offsetof(struct user_regs_struct, rip) == RIP * 8 && offsetof(struct user_regs_struct, rsp) == RSP * 8 &&
                   offsetof(struct user_regs_struct, rbp) == RBP * 8 &&
                   offsetof(struct user_regs_struct, orig_rax) == ORIG_RAX * 8 &&
                   offsetof(struct user_regs_struct, r10) == R10 * 8 && offsetof(struct user_regs_struct, gs) == GS * 8,
               "user_regs_struct order");
_Static_assert(sizeof(struct elf_prstatus) == 336 && offsetof(struct elf_prstatus, pr_reg) == 112 &&
                   offsetof(struct elf_prstatus, pr_pid) == 32 && offsetof(struct elf_prstatus, pr_sid) == 44,
               "elf_prstatus");
#endif
