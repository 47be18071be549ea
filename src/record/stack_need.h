/* How much of a thread's stack its samples need copied.
 *
 * The kernel copies the top of the user stack into each sample (PERF_SAMPLE_STACK_USER), and that
 * copy is most of what a sample costs the thread beyond perf's own: bench/live_sample_cost.mjs at
 * 999 Hz, 53 us a sample with 16 KiB, 45 with 4 KiB, perf -g 47, perf --call-graph dwarf (16 KiB)
 * 52. Frames beyond the copy are read from the process later, when it may have returned from them
 * and called others in their place, so what changes must be in the copy: every JS frame (named from
 * its slots) and every native frame that was not the same in the previous sample. What stays the
 * same from sample to sample (main, the event loop, a thread's start routine) may be read later.
 * So each sample's need is the distance from sp to the end of its outermost JS frame, or of its
 * outermost frame that moved, whichever is further; the copy shrinks to what a window of samples
 * needed (with room to spare), and grows at once when one needs more. */
#ifndef NODESCOPE_RECORD_STACK_NEED_H
#define NODESCOPE_RECORD_STACK_NEED_H
#include "target/target.h"
#include <stddef.h>
#include <stdint.h>

#define STACK_NEED_BASE 32 /* outermost frames compared with the previous sample's */

typedef struct {
    uint32_t copy, max;          /* bytes copied now; the most a copy may be */
    uint32_t want;               /* what the samples need copied from now on (copy: as they do) */
    uint32_t most;               /* the largest need in this window */
    uint32_t samples;            /* samples in this window */
    uint32_t calm;               /* windows since the copy last grew */
    uint32_t patience;           /* windows of calm before it may shrink */
    unsigned long short_samples; /* samples that needed more than was copied */
    uint32_t nbase;
    target_frame_t base[STACK_NEED_BASE]; /* the previous sample's outermost frames, outermost first */
} stack_need_t;

/* Starts at first (the copy before anything is known); grows up to max. */
void stack_need_init(stack_need_t *s, uint32_t first, uint32_t max);
/* One sample: its sp, native frames (innermost first: target_unwind_regs's) and the address past
 * its outermost JS frame's record (fp + 16; 0 when it has none). When s->want differs from
 * s->copy afterwards, the caller sets s->copy = s->want once its event copies that much. */
void stack_need_note(stack_need_t *s, uint64_t sp, const target_frame_t *native, size_t n, uint64_t js_end);

#endif
