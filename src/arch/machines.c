/* The descriptors by ELF machine and the host's (every arch/<machine>.c is listed here), and what
 * is done the same way with any descriptor (arch.h): a perf sample's registers into regs[], a
 * register by name, a return from a function's entry. */
#include "arch/arch.h"
#include <string.h>

const arch_t *arch_for_elf_machine(unsigned m)
{
    if (m == arch_x86_64.elf_machine) return &arch_x86_64;
    if (m == arch_aarch64.elf_machine) return &arch_aarch64;
    return NULL;
}

const arch_t *arch_host(void)
{
#if defined(__x86_64__)
    return &arch_x86_64;
#else
    return NULL;
#endif
}

int arch_reg_index(const arch_t *a, const char *name)
{
    for (size_t i = 0; i < a->nregs; i++)
        if (!strcmp(a->reg_names[i], name)) return (int)i;
    return -1;
}

void arch_regs_from_perf(const arch_t *a, const uint64_t *sample, uint64_t *regs)
{
    size_t k = 0;
    for (unsigned r = 0; r < 64; r++) {
        if (!(a->perf_mask & (1ull << r))) continue;
        uint64_t v = sample[k++];
        if (r < a->nperf && a->perf_regs[r] >= 0) regs[a->perf_regs[r]] = v;
    }
}

int arch_return_from_entry(const arch_t *a, uint64_t *regs, const uint8_t *stack, size_t len)
{
    if (!a->entry_ret_on_stack) {
        regs[a->pc] = regs[a->lr];
        return 0;
    }
    if (len < 8) return -1;
    memcpy(&regs[a->pc], stack, 8);
    regs[a->sp] += 8;
    return 8;
}
