/* x86-64's facts, all of them (arch.h): the registers in the order of the kernel's user_regs_struct
 * (a core's pr_reg, ptrace's NT_PRSTATUS regset), the System V ABI's DWARF numbering, perf_event's
 * PERF_REG_X86_* numbering, the frame record `push rbp; mov rbp, rsp` builds, the encodings of a
 * call instruction (what a return address must follow), the `syscall` instruction with its
 * registers, and the instruction patterns a stripped library's data is found by. On an x86-64 host the numbers are checked against the system's own headers. */
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

/* `lea VAR(%rip),%rax; mov (%rax),%rax` (width 8) or `mov (%rax),%eax` (4), or `mov VAR(%rip),%rax|%eax`
 * directly (V8 10, 11); or an address itself: `lea VAR(%rip),%rax; ret`, `mov $VAR,%eax; ret` (V8
 * 12+, non-PIE). */
static int getter(const uint8_t b[16], uint64_t pc, uint64_t bias, uint64_t *addr, size_t *width)
{
    int32_t d;
    if (b[0] == 0x48 && b[1] == 0x8d && b[2] == 0x05) { /* lea VAR(%rip),%rax */
        memcpy(&d, b + 3, 4);
        *addr = pc + 7 + (uint64_t)(int64_t)d;
        if (b[7] == 0xc3) *width = 0;
        else if (b[7] == 0x48 && b[8] == 0x8b && b[9] == 0x00) *width = 8;
        else if (b[7] == 0x8b && b[8] == 0x00) *width = 4;
        else return -1;
    } else if (b[0] == 0x48 && b[1] == 0x8b && b[2] == 0x05) { /* mov VAR(%rip),%rax */
        memcpy(&d, b + 3, 4);
        *addr = pc + 7 + (uint64_t)(int64_t)d, *width = 8;
    } else if (b[0] == 0xb8 && b[5] == 0xc3) { /* mov $VAR,%eax */
        uint32_t a;
        memcpy(&a, b + 1, 4);
        *addr = a + bias, *width = 0;
    } else if (b[0] == 0x8b && b[1] == 0x05) { /* mov VAR(%rip),%eax */
        memcpy(&d, b + 2, 4);
        *addr = pc + 6 + (uint64_t)(int64_t)d, *width = 4;
    } else {
        return -1;
    }
    return 0;
}

/* `movslq %edi,%rdi; lea TABLE(%rip),%rax; lea (%rdi,%rdi,2),%rdx; mov (%rax,%rdx,8),%rax` (a shared
 * library), or `movslq %edi,%rdi; lea (%rdi,%rdi,2),%rax; mov TABLE(,%rax,8),%rax` (a non-PIE
 * executable). */
static uint64_t name_table(const uint8_t b[24], uint64_t pc, uint64_t bias)
{
    static const uint8_t pic[] = {0x48, 0x8d, 0x14, 0x7f, 0x48, 0x8b, 0x04, 0xd0};
    static const uint8_t abs_[] = {0x48, 0x8d, 0x04, 0x7f, 0x48, 0x8b, 0x04, 0xc5};
    int32_t d;
    if (!memcmp(b, "\x48\x63\xff\x48\x8d\x05", 6) && !memcmp(b + 10, pic, sizeof pic)) {
        memcpy(&d, b + 6, 4);
        return pc + 10 + (uint64_t)(int64_t)d;
    }
    if (!memcmp(b, "\x48\x63\xff", 3) && !memcmp(b + 3, abs_, sizeof abs_)) {
        memcpy(&d, b + 11, 4);
        return (uint64_t)(uint32_t)d + bias;
    }
    return 0;
}

/* lea disp32(%rip), %reg: 48|4c 8d modrm(00 reg 101) */
static uint64_t first_pcrel(const uint8_t *b, size_t n, uint64_t pc)
{
    for (size_t k = 0; k + 7 <= n; k++)
        if ((b[k] == 0x48 || b[k] == 0x4c) && b[k + 1] == 0x8d && (b[k + 2] & 0xc7) == 0x05) {
            int32_t d;
            memcpy(&d, b + k + 3, 4);
            return pc + k + 7 + (uint64_t)(int64_t)d;
        }
    return 0;
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
    .ret_mask = ~0ull,
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
    .getter = getter,
    .name_table = name_table,
    .first_pcrel = first_pcrel,
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
