/* A traced thread's registers, as ptrace's NT_PRSTATUS regset holds them: the kernel's own order
 * for the host's architecture (x86-64: user_regs_struct, as PTRACE_GETREGS gives; aarch64:
 * user_pt_regs, which has no PTRACE_GETREGS), which is also a core's pr_reg order (arch/arch.h). */
#include "target/target_internal.h"
#include <elf.h>
#include <errno.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

int target_ptrace_regs(int tid, uint64_t regs[ARCH_MAX_REGS], int set)
{
    const arch_t *a = arch_host();
    if (!a) return errno = ENOSYS, -1;
    struct iovec io = {regs, a->nregs * 8};
    return ptrace(set ? PTRACE_SETREGSET : PTRACE_GETREGSET, tid, (void *)(uintptr_t)NT_PRSTATUS, &io) == 0 ? 0 : -1;
}
