/* What nodescope knows of a CPU architecture, in one read-only descriptor (arch_t): the registers
 * a thread has and which are its pc, sp and frame pointer; how a core's NT_PRSTATUS note holds
 * them; how DWARF CFI and perf_event number them; the frame record a frame-pointer chain follows;
 * which bytes before an address make it a return address; how a system call is made to run in a
 * stopped thread. Everything else is architecture-neutral and asks the descriptor: a target's
 * threads keep their registers in the arch's own order (regs[], the NT_PRSTATUS/ptrace regset
 * order), and every reader indexes them through arch_t.pc, .sp, .fp, ... .
 * A descriptor is chosen by the ELF machine of a core or executable (arch_for_elf_machine), or is
 * the host's (arch_host: live processes, perf_event samples). One implementation per architecture,
 * all its facts in one file: arch/x86_64.c, arch/aarch64.c (chosen for cores: an arm64 node's core
 * is read on an x86-64 host; a live process on an arm64 host is issue 45's).
 * CONTRACT (stable; owned by arch/, consumed by target/, record/ and v8/). */
#ifndef ARCH_ARCH_H
#define ARCH_ARCH_H
#include <stddef.h>
#include <stdint.h>

#define ARCH_MAX_REGS 34 /* aarch64: x0-x30, sp, pc, pstate; x86-64 has 27 */
#define ARCH_SITE_MAX 16 /* bytes around a return address arch_t.return_site may look at, each side */

typedef struct arch arch_t;

/* A system call run in a stopped thread (target/freeze.c): its registers set from the saved ones
 * (pc = the instruction's address; nr, args), single-stepped over insn, its result read from ret.
 * The syscall numbers are the host's (<sys/syscall.h>): only a live process of the host's
 * architecture is injected into. */
typedef struct {
    uint8_t insn[4];  /* the instruction: x86-64 `syscall` 0f 05; aarch64 `svc #0` 01 00 00 d4 */
    size_t insn_len;  /* its length: the pc after it is insn + insn_len */
    size_t insn_align; /* where it may start (found by scanning the process's code) */
    int nr;           /* the register carrying the system call's number (x86-64 rax; aarch64 x8) */
    int args[6];      /* its arguments (x86-64 rdi rsi rdx r10 r8 r9; aarch64 x0-x5) */
    int ret;          /* its result (rax; x0) */
    int no_restart;   /* set to -1 so the kernel does not restart the system call the thread was
                         in: x86-64 orig_rax; -1 when no register says it (aarch64: the
                         NT_ARM_SYSTEM_CALL regset does) */
} arch_syscall_t;

struct arch {
    const char *name;      /* "x86-64" */
    unsigned elf_machine;  /* EM_X86_64 */
    size_t nregs;          /* registers in regs[] (at most ARCH_MAX_REGS) */
    const char *const *reg_names; /* nregs names, in regs[] order */
    int pc, sp, fp, lr;    /* their indexes in regs[]; lr -1: none (x86-64: the return address is
                              pushed on the stack) */
    int c_args[6];         /* the C calling convention's first arguments (x86-64 rdi rsi rdx rcx r8
                              r9): what a probe at a function's entry reads its arguments from */

    /* A core's NT_PRSTATUS note (struct elf_prstatus): the thread's id at prstatus_pid_off (pr_pid,
       then pr_ppid, pr_pgrp, pr_sid, 4 bytes each), its registers at prstatus_reg_off (pr_reg:
       nregs 8-byte words in regs[] order, also what ptrace's NT_PRSTATUS regset reads and writes);
       prstatus_size bytes in all. */
    size_t prstatus_pid_off, prstatus_reg_off, prstatus_size;

    /* DWARF register numbers (CFI): dwarf_regs[n] is DWARF register n's index in regs[], for n <
       ndwarf; dwarf_sp, dwarf_fp their numbers (a CFA rule on dwarf_fp: the frame is set up);
       dwarf_pc the pc's number (the return address column), or -1 when it has none in the block
       (then it is given apart). */
    const int8_t *dwarf_regs;
    size_t ndwarf;
    int dwarf_sp, dwarf_fp, dwarf_pc;

    /* perf_event's user registers: the sample_regs_user mask asked for, and the index in regs[] of
       each perf register (perf_regs[n] for n < nperf, -1: not kept); a sample holds the masked
       registers in increasing perf number. */
    uint64_t perf_mask;
    const int8_t *perf_regs;
    size_t nperf;

    /* The frame record a frame-pointer chain follows: the caller's frame pointer at [fp +
       frame_fp_off], the return address at [fp + frame_ret_off]; the caller's sp is fp +
       frame_size. (x86-64 and aarch64 alike: 0, 8, 16.) */
    int frame_fp_off, frame_ret_off, frame_size;
    /* At a function's first instruction: 1 when the return address is on the stack at [sp] (x86-64:
       popped by ret, sp + 8 after), 0 when it is in lr (aarch64). */
    int entry_ret_on_stack;
    /* Bytes below sp a leaf function may use without moving sp (the ABI's red zone: 128 on
       x86-64, 0 on aarch64): a copy of a stack starts there. */
    uint64_t red_zone;
    /* The bits of a saved return address that are the address: the others may hold a pointer-
       authentication code (aarch64's paciasp signs x30 before it is pushed: official arm64 node
       builds' C++ does; V8's JIT and builtins do not), stripped before it is used (~0: none). */
    uint64_t ret_mask;

    /* Could a return land at an address whose site_before bytes before are before[] and site_at
       bytes from it at[] (NULL: unknown)? 1 when the bytes before end in a call instruction (x86-64:
       call rel32, call r/m64 in any encoding; aarch64: BL/BLR at -4), or at[] is the sigreturn
       trampoline a signal handler returns to. Lenient: bytes that only look like a call pass. */
    size_t site_before, site_at;
    int (*return_site)(const uint8_t *before, const uint8_t *at);

    arch_syscall_t syscall;

    /* Code read to find data a stripped library does not name (target/v8_object.c), NULL when the
       arch knows no pattern:
       getter: what a function returning a global computes, from its first 16 bytes (at pc, in a
         module loaded at bias: a non-PIE executable's absolute addresses): *addr, and *width 0
         when the address is the value, else the bytes (4, 8) of the value read there. 0, or -1.
       name_table: the table a function indexes by its first argument times 24 (V8's
         Builtins::name), from its first 24 bytes; 0 when not recognized.
       first_pcrel: the first pc-relative address computed in code[0..n) (at pc); 0: none. */
    int (*getter)(const uint8_t code[16], uint64_t pc, uint64_t bias, uint64_t *addr, size_t *width);
    uint64_t (*name_table)(const uint8_t code[24], uint64_t pc, uint64_t bias);
    uint64_t (*first_pcrel)(const uint8_t *code, size_t n, uint64_t pc);
};

/* The descriptor of ELF machine m (e_machine: EM_X86_64), or NULL when nodescope knows none. */
const arch_t *arch_for_elf_machine(unsigned m);
/* The descriptor of the machine nodescope runs on (live processes are this), or NULL. */
const arch_t *arch_host(void);

/* The index in regs[] of the register named name (reg_names: "rdi"), or -1. */
int arch_reg_index(const arch_t *a, const char *name);
/* Into regs[] (nregs words, the others left as they are): the words a perf_event sample holds,
   sample[k] the k-th register of perf_mask in increasing perf number. */
void arch_regs_from_perf(const arch_t *a, const uint64_t *sample, uint64_t *regs);
/* Of a thread stopped at a function's first instruction, with the stack words at sp in stack (len
   bytes): its registers as they will be once the function returns, pc its return address. The
   bytes of the stack the return consumes (x86-64: 8, the return address), or -1 when len is too short. */
int arch_return_from_entry(const arch_t *a, uint64_t *regs, const uint8_t *stack, size_t len);

extern const arch_t arch_x86_64;
extern const arch_t arch_aarch64;

#endif
