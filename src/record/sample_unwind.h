/* The native frames of a perf_event sample (sample_unwind.c): its registers and its copy of the
 * stack (lent to the target: target_set_stack_copy) unwound by the frame-pointer chain, by CFI where
 * the leaf has no frame set up, by a scan of the copy for the next frame record where both break;
 * cut at the first return address that cannot be one (the arch's return_site), and why. The
 * live sampler (live_sampler.c) names the frames it returns. */
#ifndef NODESCOPE_RECORD_SAMPLE_UNWIND_H
#define NODESCOPE_RECORD_SAMPLE_UNWIND_H
#include "target/target.h"
#include "util/hash.h"
#include <stddef.h>
#include <stdint.h>

#define SAMPLE_MAX_NATIVE 512 /* the frames of a sample at most */

/* Why a stack was cut: not; beyond the stack copy, where the stack changed after the sample; within
 * it, where the frame chain broke; at max frames, the chain going on. */
enum { CUT_NONE, CUT_CHANGED, CUT_BROKEN, CUT_DEEP };

/* Unwinds a sample of thread tid of t: regs in the target's arch order, stack_len bytes of stack
 * copied from sp. names keeps the pcs checked (keys of its own, beside the caller's). The frames in
 * native[0..max), native[0] the pc; *cut why they end where they do. Their number. */
size_t sample_unwind(target_t *t, int tid, const uint64_t *regs, uint64_t stack_len, u64map_t *names,
                     target_frame_t *native, size_t max, int *cut);
#endif
