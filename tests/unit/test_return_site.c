/* x86-64's return_site (arch/x86_64.c: arch_x86_64.return_site): can a return land here? Truth
 * from the assembler: the call instructions below are assembled into this test's own text, each
 * followed by a label, in every form a compiler or V8 emits (rel32, register, memory with and
 * without SIB, disp8, disp32, rip-relative, REX prefixes), and the test reads the bytes before each
 * label. Labels that no call precedes (a function's first byte after alignment padding, after a
 * ret, after an indirect jmp with the same operand forms, after a push) must fail; the sigreturn
 * trampoline must pass. The code is never run. */
#include "check.h"
#include "arch/arch.h"
#include <stdint.h>
#include <string.h>

__asm__(".text\n"
        ".p2align 4\n"
        "ns_calls:\n"
        "call ns_calls\n        .globl ns_after_0\nns_after_0:\n"
        "call *%rax\n           .globl ns_after_1\nns_after_1:\n"
        "call *%r11\n           .globl ns_after_2\nns_after_2:\n"
        "call *(%rax)\n         .globl ns_after_3\nns_after_3:\n"
        "call *(%rsp)\n         .globl ns_after_4\nns_after_4:\n"
        "call *8(%rbp)\n        .globl ns_after_5\nns_after_5:\n"
        "call *8(%rsp)\n        .globl ns_after_6\nns_after_6:\n"
        "call *0x1000(%rbx)\n   .globl ns_after_7\nns_after_7:\n"
        "call *0x1000(%rsp)\n   .globl ns_after_8\nns_after_8:\n"
        "call *ns_calls(%rip)\n .globl ns_after_9\nns_after_9:\n"
        "call *0x10(%r13,%rcx,8)\n .globl ns_after_10\nns_after_10:\n"
        "call *0x1000(,%rcx,8)\n .globl ns_after_11\nns_after_11:\n"
        "call *(%r12)\n         .globl ns_after_12\nns_after_12:\n"
        "call *-0x28(%r14)\n    .globl ns_after_13\nns_after_13:\n"
        "ret\n"
        /* no call before these */
        ".p2align 4\n"
        "nop\n nop\n nop\n nop\n nop\n nop\n nop\n nop\n"
        "ret\n                  .globl ns_not_0\nns_not_0:\n"
        "push %rbp\n mov %rsp, %rbp\n"
        "jmp *%rax\n            .globl ns_not_1\nns_not_1:\n"
        "jmp *8(%rsp)\n         .globl ns_not_2\nns_not_2:\n"
        "jmp *0x1000(%rbx)\n    .globl ns_not_3\nns_not_3:\n"
        "mov %rax, %rbx\n       .globl ns_not_4\nns_not_4:\n"
        "push %rbp\n            .globl ns_not_5\nns_not_5:\n"
        "ret\n .p2align 4\n     .globl ns_not_6\nns_not_6:\n"
        "push %rbp\n"
        "ret\n"
        "nop\n"
        "ns_restore_rt:\n"
        "mov $15, %rax\n syscall\n"
        ".globl ns_restore_rt_at\nns_restore_rt_at = ns_restore_rt\n"
        "ret\n");

#define SITE(n) extern const uint8_t n[];
SITE(ns_after_0) SITE(ns_after_1) SITE(ns_after_2) SITE(ns_after_3) SITE(ns_after_4) SITE(ns_after_5)
SITE(ns_after_6) SITE(ns_after_7) SITE(ns_after_8) SITE(ns_after_9) SITE(ns_after_10) SITE(ns_after_11)
SITE(ns_after_12) SITE(ns_after_13) SITE(ns_not_0) SITE(ns_not_1) SITE(ns_not_2) SITE(ns_not_3) SITE(ns_not_4)
SITE(ns_not_5) SITE(ns_not_6) SITE(ns_restore_rt_at)

/* the code's bytes, from an address the compiler knows nothing of (no bounds to warn about) */
static const uint8_t *code(const uint8_t *label, long off)
{
    uintptr_t a = (uintptr_t)label + (uintptr_t)off;
    __asm__("" : "+r"(a));
    return (const uint8_t *)a;
}
static int site(const uint8_t *p) { return arch_x86_64.return_site(code(p, -7), code(p, 0)); }

int main(void)
{
    const uint8_t *after[] = {ns_after_0, ns_after_1, ns_after_2,  ns_after_3,  ns_after_4,  ns_after_5,  ns_after_6,
                              ns_after_7, ns_after_8, ns_after_9, ns_after_10, ns_after_11, ns_after_12, ns_after_13};
    const uint8_t *not_after[] = {ns_not_0, ns_not_1, ns_not_2, ns_not_3, ns_not_4, ns_not_5, ns_not_6};
    for (size_t i = 0; i < sizeof after / sizeof *after; i++) {
        CHECK(site(after[i]));
        if (!site(after[i])) fprintf(stderr, "  after call %zu: not taken for a return site\n", i);
    }
    for (size_t i = 0; i < sizeof not_after / sizeof *not_after; i++) {
        CHECK(!site(not_after[i]));
        if (site(not_after[i])) fprintf(stderr, "  no call before %zu: taken for a return site\n", i);
    }
    CHECK(site(ns_restore_rt_at));
    CHECK(arch_x86_64.return_site(code(ns_not_6, -7), NULL) == 0); /* nothing known at the address */
    /* every encoding of FF /2 by hand, against the same decoder's length: ModRM 0x10-0xd7 */
    uint8_t b[7];
    for (int modrm = 0; modrm < 256; modrm++) {
        if (((modrm >> 3) & 7) != 2) continue;
        int mod = modrm >> 6, rm = modrm & 7;
        for (int base = 0; base < 8; base += 4) { /* SIB base 0 (a register) and 5 (disp32 with mod 0) */
            int len = 2 + (mod != 3 && rm == 4) + (mod == 1) +
                      4 * (mod == 2 || (mod == 0 && rm == 5) || (mod == 0 && rm == 4 && base == 4));
            memset(b, 0xcc, sizeof b);
            b[7 - len] = 0xff, b[8 - len] = (uint8_t)modrm;
            if (len > 2 && mod != 3 && rm == 4) b[9 - len] = (uint8_t)(base == 4 ? 0x25 : 0x20);
            CHECK(arch_x86_64.return_site(b, NULL));
        }
    }
    return check_summary("test_return_site");
}
