/* Native unwinding. For now the frame-pointer chain only (V8 JIT code and node keep rbp frames);
 * threads blocked in libc (rbp = 0 or not a frame) stop early: libdwfl CFI is the planned next step. */
#include "target/target_internal.h"

size_t target_unwind(target_t *t, size_t thread_index, target_frame_t *frames, size_t max) {
    const target_thread_t *th = target_thread(t, thread_index);
    if (!th || max == 0) return 0;
    size_t n = 0;
    frames[n++] = (target_frame_t){ th->rip, th->rsp, th->rbp };
    uint64_t fp = th->rbp, sp = th->rsp;
    while (n < max && fp && fp >= sp && (fp & 7) == 0) {
        uint64_t next_fp, ret;
        if (target_read_u64(t, fp, &next_fp) != 0 || target_read_u64(t, fp + 8, &ret) != 0 || ret == 0) break;
        frames[n++] = (target_frame_t){ ret, fp + 16, next_fp };
        if (next_fp <= fp) break;   /* the stack grows down: a chain that does not go up is corrupt */
        sp = fp + 16;
        fp = next_fp;
    }
    return n;
}
