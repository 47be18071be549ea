/* Native unwinding. Cores: elfutils libdwfl CFI first (threads blocked in libc have no frame pointer),
 * then, where CFI stops (V8 JIT code has no CFI), the frame-pointer chain from the last frame's rbp.
 * Live targets the same, through dwfl_linux_proc_attach on the threads we already hold stopped. */
#include "target/target_internal.h"
#include "util/diag.h"
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

typedef struct {
    target_frame_t *frames;
    size_t n, max;
} cfi_ctx_t;

static int cfi_frame(Dwfl_Frame *state, void *arg) {
    cfi_ctx_t *c = arg;
    Dwarf_Addr pc;
    bool activation;
    if (c->n >= c->max || !dwfl_frame_pc(state, &pc, &activation)) return DWARF_CB_ABORT;
    Dwarf_Word sp = 0, fp = 0;
    dwfl_frame_reg(state, 7, &sp);   /* DWARF x86-64: 7 = rsp, 6 = rbp */
    dwfl_frame_reg(state, 6, &fp);
    c->frames[c->n++] = (target_frame_t){ pc, sp, fp };
    return DWARF_CB_OK;
}

/* CFI unwind of one thread of a core; returns the frame count (0 if libdwfl cannot). */
static size_t cfi_unwind(target_t *t, int tid, target_frame_t *frames, size_t max) {
    static const Dwfl_Callbacks callbacks = { .find_elf = dwfl_build_id_find_elf,
                                              .find_debuginfo = dwfl_standard_find_debuginfo };
    int fd = open(t->name, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    Elf *core = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    Dwfl *d = core ? dwfl_begin(&callbacks) : NULL;
    cfi_ctx_t c = { frames, 0, max };
    if (d && dwfl_core_file_report(d, core, t->exe_path) >= 0 && dwfl_report_end(d, NULL, NULL) == 0
        && dwfl_core_file_attach(d, core) >= 0)
        dwfl_getthread_frames(d, tid, cfi_frame, &c);
    if (d) dwfl_end(d);
    if (core) elf_end(core);
    close(fd);
    return c.n;
}

/* CFI unwind of one thread of a live process we already hold stopped with ptrace. */
static size_t cfi_unwind_live(target_t *t, int tid, target_frame_t *frames, size_t max) {
    static const Dwfl_Callbacks callbacks = { .find_elf = dwfl_linux_proc_find_elf,
                                              .find_debuginfo = dwfl_standard_find_debuginfo };
    Dwfl *d = dwfl_begin(&callbacks);
    cfi_ctx_t c = { frames, 0, max };
    if (d && dwfl_linux_proc_report(d, t->pid) == 0 && dwfl_report_end(d, NULL, NULL) == 0
        && dwfl_linux_proc_attach(d, t->pid, true) == 0)
        dwfl_getthread_frames(d, tid, cfi_frame, &c);
    if (d) dwfl_end(d);
    return c.n;
}

/* Follows saved rbp links from fp; frames appended after n. */
static size_t fp_unwind(target_t *t, uint64_t fp, uint64_t sp, target_frame_t *frames, size_t n, size_t max) {
    while (n < max && fp && fp >= sp && (fp & 7) == 0) {
        uint64_t next_fp, ret;
        if (target_read_u64(t, fp, &next_fp) != 0 || target_read_u64(t, fp + 8, &ret) != 0 || ret == 0) break;
        frames[n++] = (target_frame_t){ ret, fp + 16, next_fp };
        if (next_fp <= fp) {   /* the stack grows down: a chain that does not go up is corrupt */
            if (next_fp) diag_warn(t->name, 0, "frame chain goes backwards at fp 0x%llx (-> 0x%llx): corrupt stack; stopped",
                                   (unsigned long long)fp, (unsigned long long)next_fp);
            break;
        }
        sp = fp + 16;
        fp = next_fp;
    }
    return n;
}

size_t target_unwind(target_t *t, size_t thread_index, target_frame_t *frames, size_t max) {
    const target_thread_t *th = target_thread(t, thread_index);
    if (!th || max == 0) return 0;
    size_t n = t->core ? cfi_unwind(t, th->tid, frames, max) : cfi_unwind_live(t, th->tid, frames, max);
    if (n == 0 || frames[0].pc != th->rip) {
        n = 0;
        frames[n++] = (target_frame_t){ th->rip, th->rsp, th->rbp };
        return fp_unwind(t, th->rbp, th->rsp, frames, n, max);
    }
    /* CFI stopped (JIT code or missing CFI): continue on the frame-pointer chain */
    const target_frame_t last = frames[n - 1];
    return fp_unwind(t, last.fp, last.sp, frames, n, max);
}
