/* The architecture descriptors (arch/arch.h): chosen by ELF machine and for the host; x86-64's and
 * aarch64's numbers against the names they stand for (pc, sp, fp; each DWARF and perf register; the
 * system call's registers; the C arguments), against the host's own structures (a ptrace regset
 * read is user_regs_struct, a core's NT_PRSTATUS is elf_prstatus), and the two things done alike
 * for any architecture: a perf sample's registers into regs[] and a return from a function's entry. */
#include "arch/arch.h"
#include "check.h"
#include <elf.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__x86_64__)
#include <sys/procfs.h>
#include <sys/user.h>
#endif

static const char *reg(const arch_t *a, int i) { return i >= 0 && (size_t)i < a->nregs ? a->reg_names[i] : "(none)"; }

/* every index a descriptor holds is one of its registers */
static void check_indexes(const arch_t *a)
{
    CHECK(a->nregs > 0 && a->nregs <= ARCH_MAX_REGS);
    CHECK(a->pc >= 0 && (size_t)a->pc < a->nregs && a->sp >= 0 && (size_t)a->sp < a->nregs);
    CHECK(a->fp >= 0 && (size_t)a->fp < a->nregs && (a->lr < 0 || (size_t)a->lr < a->nregs));
    for (size_t i = 0; i < a->ndwarf; i++) CHECK(a->dwarf_regs[i] >= 0 && (size_t)a->dwarf_regs[i] < a->nregs);
    for (size_t i = 0; i < a->nperf; i++) CHECK(a->perf_regs[i] < (int)a->nregs);
    CHECK(a->nperf <= 64 && (a->perf_mask >> a->nperf) == 0);
    for (int i = 0; i < 6; i++) CHECK(a->c_args[i] >= 0 && (size_t)a->c_args[i] < a->nregs);
    CHECK(a->prstatus_reg_off + a->nregs * 8 <= a->prstatus_size);
    CHECK(a->site_before <= ARCH_SITE_MAX && a->site_at <= ARCH_SITE_MAX);
    CHECK(a->syscall.insn_len > 0 && a->syscall.insn_len <= sizeof a->syscall.insn && a->syscall.insn_align > 0);
    CHECK(a->frame_ret_off != a->frame_fp_off && a->frame_size >= 16);
}

static void test_x86_64(void)
{
    const arch_t *a = arch_for_elf_machine(EM_X86_64);
    CHECK(a == &arch_x86_64);
    CHECK(arch_for_elf_machine(EM_386) == NULL);
    CHECK(arch_for_elf_machine(0) == NULL);
    check_indexes(a);
    CHECK_STR(a->name, "x86-64");
    CHECK_EQ_INT(a->nregs, 27);
    CHECK_STR(reg(a, a->pc), "rip");
    CHECK_STR(reg(a, a->sp), "rsp");
    CHECK_STR(reg(a, a->fp), "rbp");
    CHECK_EQ_INT(a->lr, -1);
    CHECK_EQ_INT(arch_reg_index(a, "rdi"), 14);
    CHECK_EQ_INT(arch_reg_index(a, "x1"), -1);
    /* DWARF: rax rdx rcx rbx rsi rdi rbp rsp r8..r15, the return address */
    static const char *const dwarf[17] = {"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "rbp", "rsp", "r8",
                                          "r9",  "r10", "r11", "r12", "r13", "r14", "r15", "rip"};
    CHECK_EQ_INT(a->ndwarf, 17);
    for (size_t i = 0; i < 17 && i < a->ndwarf; i++) CHECK_STR(reg(a, a->dwarf_regs[i]), dwarf[i]);
    CHECK_STR(reg(a, a->dwarf_regs[a->dwarf_sp]), "rsp");
    CHECK_STR(reg(a, a->dwarf_regs[a->dwarf_fp]), "rbp");
    CHECK_STR(reg(a, a->dwarf_regs[a->dwarf_pc]), "rip");
    /* perf: PERF_REG_X86_AX = 0, BX, CX, DX, SI, DI, BP, SP, IP = 8, ..., R8 = 16 .. R15 = 23 */
    CHECK_STR(reg(a, a->perf_regs[0]), "rax");
    CHECK_STR(reg(a, a->perf_regs[4]), "rsi");
    CHECK_STR(reg(a, a->perf_regs[7]), "rsp");
    CHECK_STR(reg(a, a->perf_regs[8]), "rip");
    CHECK_STR(reg(a, a->perf_regs[16]), "r8");
    CHECK_STR(reg(a, a->perf_regs[23]), "r15");
    CHECK_EQ_INT(a->perf_mask, 0xff01ff);
    /* the System V ABI: arguments rdi rsi rdx rcx r8 r9; syscall: rax, rdi rsi rdx r10 r8 r9 */
    static const char *const args[6] = {"rdi", "rsi", "rdx", "rcx", "r8", "r9"};
    static const char *const sargs[6] = {"rdi", "rsi", "rdx", "r10", "r8", "r9"};
    for (int i = 0; i < 6; i++) {
        CHECK_STR(reg(a, a->c_args[i]), args[i]);
        CHECK_STR(reg(a, a->syscall.args[i]), sargs[i]);
    }
    CHECK_STR(reg(a, a->syscall.nr), "rax");
    CHECK_STR(reg(a, a->syscall.ret), "rax");
    CHECK_STR(reg(a, a->syscall.no_restart), "orig_rax");
    CHECK(a->syscall.insn_len == 2 && a->syscall.insn[0] == 0x0f && a->syscall.insn[1] == 0x05);
    CHECK(a->frame_fp_off == 0 && a->frame_ret_off == 8 && a->frame_size == 16 && a->entry_ret_on_stack);
    CHECK_EQ_INT(a->red_zone, 128);
#if defined(__x86_64__)
    CHECK(arch_host() == a);
    CHECK_EQ_INT(a->prstatus_size, sizeof(struct elf_prstatus));
    CHECK_EQ_INT(a->prstatus_reg_off, offsetof(struct elf_prstatus, pr_reg));
    CHECK_EQ_INT(a->prstatus_pid_off, offsetof(struct elf_prstatus, pr_pid));
    CHECK_EQ_INT(a->pc * 8, offsetof(struct user_regs_struct, rip));
    CHECK_EQ_INT(a->syscall.args[3] * 8, offsetof(struct user_regs_struct, r10));
#endif
}

/* x86-64's code patterns for data a stripped library does not name (target/v8_object.c) */
static void test_x86_64_code(void)
{
    const arch_t *a = &arch_x86_64;
    uint64_t addr = 0;
    size_t width = 99;
    /* lea 0x100(%rip),%rax; mov (%rax),%rax; ret */
    static const uint8_t lea_mov[16] = {0x48, 0x8d, 0x05, 0x00, 0x01, 0, 0, 0x48, 0x8b, 0x00, 0xc3};
    CHECK(a->getter(lea_mov, 0x1000, 0, &addr, &width) == 0 && addr == 0x1107 && width == 8);
    /* lea -0x10(%rip),%rax; ret: the address itself */
    static const uint8_t lea_ret[16] = {0x48, 0x8d, 0x05, 0xf0, 0xff, 0xff, 0xff, 0xc3};
    CHECK(a->getter(lea_ret, 0x1000, 0, &addr, &width) == 0 && addr == 0xff7 && width == 0);
    /* mov 0x20(%rip),%eax */
    static const uint8_t mov_eax[16] = {0x8b, 0x05, 0x20, 0, 0, 0, 0xc3};
    CHECK(a->getter(mov_eax, 0x1000, 0, &addr, &width) == 0 && addr == 0x1026 && width == 4);
    /* mov $0x400000,%eax; ret in a module loaded at 0x10000 */
    static const uint8_t mov_imm[16] = {0xb8, 0, 0, 0x40, 0, 0xc3};
    CHECK(a->getter(mov_imm, 0x1000, 0x10000, &addr, &width) == 0 && addr == 0x410000 && width == 0);
    static const uint8_t push[16] = {0x55, 0x48, 0x89, 0xe5};
    CHECK(a->getter(push, 0x1000, 0, &addr, &width) == -1);
    /* Builtins::name: movslq %edi,%rdi; lea T(%rip),%rax; lea (%rdi,%rdi,2),%rdx; mov (%rax,%rdx,8),%rax */
    static const uint8_t pic[24] = {0x48, 0x63, 0xff, 0x48, 0x8d, 0x05, 0x00, 0x02, 0, 0,
                                    0x48, 0x8d, 0x14, 0x7f, 0x48, 0x8b, 0x04, 0xd0, 0xc3};
    CHECK_EQ_INT(a->name_table(pic, 0x1000, 0), 0x120a);
    static const uint8_t nonpic[24] = {0x48, 0x63, 0xff, 0x48, 0x8d, 0x04, 0x7f, 0x48, 0x8b,
                                       0x04, 0xc5, 0x00, 0x30, 0x40, 0x00, 0xc3};
    CHECK_EQ_INT(a->name_table(nonpic, 0x1000, 0), 0x403000);
    CHECK_EQ_INT(a->name_table(push, 0x1000, 0), 0);
    /* the first lea disp32(%rip),%reg after other code: lea 0x30(%rip),%rbp (48 8d 2d) */
    static const uint8_t loop[16] = {0x55, 0x48, 0x8b, 0x05, 1, 0, 0, 0, 0x48, 0x8d, 0x2d, 0x30, 0, 0, 0};
    CHECK_EQ_INT(a->first_pcrel(loop, sizeof loop, 0x1000), 0x1000 + 8 + 7 + 0x30);
    CHECK_EQ_INT(a->first_pcrel(push, sizeof push, 0x1000), 0);
    CHECK(arch_aarch64.getter == NULL && arch_aarch64.name_table == NULL && arch_aarch64.first_pcrel == NULL);
}

static uint8_t *put32(uint8_t *b, uint32_t w)
{
    memcpy(b, &w, 4);
    return b;
}

static void test_aarch64(void)
{
    const arch_t *a = &arch_aarch64;
    check_indexes(a);
    CHECK(arch_for_elf_machine(183 /* EM_AARCH64 */) == a); /* cores (issue 44); no live process yet */
    CHECK_EQ_INT(a->elf_machine, 183);
    CHECK_EQ_INT(a->nregs, 34);
    CHECK_STR(reg(a, a->pc), "pc");
    CHECK_STR(reg(a, a->sp), "sp");
    CHECK_STR(reg(a, a->fp), "x29");
    CHECK_STR(reg(a, a->lr), "x30");
    CHECK_STR(reg(a, a->c_args[1]), "x1");
    CHECK_STR(reg(a, a->dwarf_regs[a->dwarf_sp]), "sp");
    CHECK_STR(reg(a, a->dwarf_regs[a->dwarf_fp]), "x29");
    CHECK_EQ_INT(a->dwarf_pc, -1);
    CHECK_STR(reg(a, a->perf_regs[30]), "x30"); /* PERF_REG_ARM64_LR */
    CHECK_STR(reg(a, a->perf_regs[32]), "pc");
    CHECK_STR(reg(a, a->syscall.nr), "x8");
    CHECK_STR(reg(a, a->syscall.ret), "x0");
    CHECK_EQ_INT(a->syscall.no_restart, -1);
    CHECK_EQ_INT(a->prstatus_reg_off + 34 * 8 + 8, a->prstatus_size); /* pr_fpvalid, padded */
    CHECK(!a->entry_ret_on_stack && a->red_zone == 0);
    /* a return address signed by paciasp (node 24's, in a core): the PAC stripped, 48 bits kept */
    CHECK_EQ_INT(0x26000000009c6894ull & a->ret_mask, 0x9c6894);
    CHECK_EQ_INT(0x006a005500bd7780ull & a->ret_mask, 0x5500bd7780ull);
    CHECK(arch_x86_64.ret_mask == ~0ull);
    /* BL, BLR x16, BLRAAZ x17, BLRAB x1, x2 are calls; RET, ADD, B are not */
    uint8_t b[4], at[8];
    CHECK(a->return_site(put32(b, 0x94000010u), NULL));
    CHECK(a->return_site(put32(b, 0xd63f0200u), NULL));
    CHECK(a->return_site(put32(b, 0xd63f083fu), NULL));
    CHECK(a->return_site(put32(b, 0xd73f0c22u), NULL));
    CHECK(!a->return_site(put32(b, 0xd65f03c0u), NULL));
    CHECK(!a->return_site(put32(b, 0x91000000u), NULL));
    CHECK(!a->return_site(put32(b, 0x14000010u), NULL));
    put32(at, 0xd2801168u), put32(at + 4, 0xd4000001u); /* the sigreturn trampoline */
    CHECK(a->return_site(put32(b, 0x91000000u), at));
    /* at a function's entry the return address is in lr: nothing popped */
    uint64_t regs[ARCH_MAX_REGS] = {0};
    regs[a->lr] = 0x4000, regs[a->sp] = 0x7000;
    CHECK_EQ_INT(arch_return_from_entry(a, regs, NULL, 0), 0);
    CHECK_EQ_INT(regs[a->pc], 0x4000);
    CHECK_EQ_INT(regs[a->sp], 0x7000);
}

static void test_perf_and_entry(void)
{
    const arch_t *a = &arch_x86_64;
    /* a sample holds the masked registers in increasing perf number: AX..IP, then R8..R15 */
    uint64_t sample[17], regs[ARCH_MAX_REGS];
    for (int i = 0; i < 17; i++) sample[i] = 1000 + (uint64_t)i;
    memset(regs, 0, sizeof regs);
    arch_regs_from_perf(a, sample, regs);
    CHECK_EQ_INT(regs[arch_reg_index(a, "rax")], 1000);
    CHECK_EQ_INT(regs[arch_reg_index(a, "rsi")], 1004);
    CHECK_EQ_INT(regs[a->sp], 1007);
    CHECK_EQ_INT(regs[a->pc], 1008);
    CHECK_EQ_INT(regs[arch_reg_index(a, "r8")], 1009);
    CHECK_EQ_INT(regs[arch_reg_index(a, "r15")], 1016);
    CHECK_EQ_INT(regs[arch_reg_index(a, "eflags")], 0); /* not asked for */
    /* at a function's first instruction: the return address at [sp], popped */
    uint8_t stack[16] = {0x78, 0x56, 0x34, 0x12, 0, 0, 0, 0};
    regs[a->sp] = 0x7000;
    CHECK_EQ_INT(arch_return_from_entry(a, regs, stack, sizeof stack), 8);
    CHECK_EQ_INT(regs[a->pc], 0x12345678);
    CHECK_EQ_INT(regs[a->sp], 0x7008);
    CHECK_EQ_INT(arch_return_from_entry(a, regs, stack, 4), -1);
}

int main(void)
{
    test_x86_64();
    test_x86_64_code();
    test_aarch64();
    test_perf_and_entry();
    return check_summary("test_arch");
}
