/* A sampled stack unwound (sample_unwind.h): the frame-pointer chain, CFI where the leaf has no
 * frame, a scan for the next frame record where both break, and the check that cuts the chain at a
 * return address that cannot be one. What is architecture's (which registers, what a call looks
 * like) is asked of the target's arch (arch/arch.h). */
#include "record/sample_unwind.h"
#include "arch/arch.h"
#include <string.h>

/* Could ret be a return address, by the code before it (the arch's return_site)? -1 when that code
 * cannot be read (the process exited). */
static int return_site(target_t *t, uint64_t ret)
{
    const arch_t *a = target_arch(t);
    uint8_t before[ARCH_SITE_MAX], at[ARCH_SITE_MAX];
    if (target_read(t, ret - a->site_before, before, a->site_before) != 0) return -1;
    return a->return_site(before, target_read(t, ret, at, a->site_at) == 0 ? at : NULL);
}

/* Is ret a return address: in executable code of a file, just after a call instruction? (The stack
 * scan below looks for them.) */
static int after_call(target_t *t, uint64_t ret)
{
    const target_mapping_t *m = target_mapping_at(t, ret);
    return m && m->path && (m->prot & 4 /* PROT_EXEC */) && ret - m->start >= target_arch(t)->site_before &&
           return_site(t, ret) == 1;
}

#define SCAN_WORDS 512 /* how far up the stack a broken chain's next frame record is looked for */
#define MIN_CHAIN 3

/* The native frames of a sample: the frame-pointer chain from its registers, whole when the leaf
 * function has set up its frame (node and V8 are built with frame pointers). A leaf without one
 * (libc's functions: malloc, memcpy, the system call wrappers where a thread in the kernel is)
 * leaves fp at its caller's frame, and the chain would go on from the caller's caller, the
 * caller left out (`FunctionCallbackArguments::Call;__libc_malloc` with the API function between
 * them missing); in a blocked thread the chain often breaks at once. Then the module's CFI unwinds
 * it (libdwfl, on the stack copy) until code without CFI (V8's), and the frame-pointer chain goes
 * on from there. Where CFI gives nothing either and the chain broke, the stack copy is searched,
 * from sp up, for the first frame record whose chain goes on (a saved frame pointer higher on the
 * stack, next to a return address just after a call), and the return addresses below it (the
 * frames without frame pointers) are taken as frames too. */
static size_t unwind_frames(target_t *t, int tid, const uint64_t *regs, uint64_t stack_len, target_frame_t *native,
                            size_t max)
{
    const arch_t *a = target_arch(t);
    uint64_t pc = regs[a->pc], sp = regs[a->sp], fp = regs[a->fp];
    size_t n = target_unwind_regs(t, pc, sp, fp, native, max);
    const target_mapping_t *m = target_mapping_refresh(t, pc);
    if (!m || !m->path || max < 2 || (n >= MIN_CHAIN && target_leaf_framed(t, pc) != 0)) return n;
    static target_frame_t chain[SAMPLE_MAX_NATIVE];
    size_t by_cfi = target_unwind_sample(t, tid, regs, chain, max < SAMPLE_MAX_NATIVE ? max : SAMPLE_MAX_NATIVE);
    if (by_cfi >= MIN_CHAIN) {
        memcpy(native, chain, by_cfi * sizeof *native);
        return by_cfi;
    }
    if (n >= MIN_CHAIN) return n;
    uint64_t top = sp + stack_len, rec = (uint64_t)a->frame_size; /* a frame record at x */
    for (uint64_t x = sp & ~7ull; x + rec <= top && x < sp + 8 * SCAN_WORDS; x += 8) {
        uint64_t saved, ret;
        if (target_read_u64(t, x + (uint64_t)a->frame_fp_off, &saved) != 0 ||
            target_read_u64(t, x + (uint64_t)a->frame_ret_off, &ret) != 0)
            break;
        if (saved <= x || saved >= top || (saved & 7) || !after_call(t, ret)) continue;
        size_t c = target_unwind_regs(t, ret, x + rec, saved, chain, SAMPLE_MAX_NATIVE);
        if (c < MIN_CHAIN) continue;
        size_t k = 1; /* native[0] is the pc */
        for (uint64_t y = sp & ~7ull; y < x && k < max; y += 8) {
            uint64_t w;
            if (target_read_u64(t, y, &w) == 0 && after_call(t, w)) native[k++] = (target_frame_t){w, y + 8, 0};
        }
        for (size_t i = 0; i < c && k < max; i++) native[k++] = chain[i];
        return k;
    }
    return n;
}

/* The same, cut at the first return address that cannot be one: in no executable memory
 * ("0x298ecce0 ([heap]+0x1b7ce0)"), or in a file's code but not just after a call (a function's
 * first byte: "0x1274dc0 (node+0xe74dc0)", a std::function's invoker left on the stack). Beyond
 * the stack copy (a return address above sp + stack_len) the stack is read as it is now, after
 * the sample: a thread that has returned since and called elsewhere has put other words there
 * (*cut = CUT_CHANGED; the parser's deep recursion, changing from sample to sample, had 6-8% of
 * its samples so, tests/fixtures/live/deep_parse.js). Within it, the saved-fp chain went through
 * code that keeps no frame pointer (*cut = CUT_BROKEN: 0.1-0.3% of those samples, of tsc's). The frames kept are the sample's own; the ones
 * further out are not known. A stack of MAX_NATIVE frames whose chain goes on is cut there too
 * (*cut = CUT_DEEP). */
#define CHECKED_KEY(pc) ((pc)*2 + 1 + (1ull << 63)) /* in names: a pc that passed unwind's check */
size_t sample_unwind(target_t *t, int tid, const uint64_t *regs, uint64_t stack_len, u64map_t *names,
                     target_frame_t *native, size_t max, int *cut)
{
    size_t n = unwind_frames(t, tid, regs, stack_len, native, max);
    uint64_t top = regs[target_arch(t)->sp] + stack_len;
    *cut = CUT_NONE;
    for (size_t i = 1; i < n; i++) {
        uint32_t known;
        int found;
        if (u64map_get(names, CHECKED_KEY(native[i].pc), &known)) continue;
        const target_mapping_t *m = target_mapping_refresh(t, native[i].pc);
        /* Anonymous memory is V8's code space, whose protections change after the maps were read
           (reserved PROT_NONE, then committed): not checked. Nor is the kernel's code in the
           process: [uprobes], where a uretprobe (gc_watch's on MarkCompact) puts its trampoline in
           place of the return address, [vdso]. Code that cannot be read (the process exited:
           OpenSSL's cleanup at exit was cut as "the frame chain broke") is not judged. */
        if (!m ||
            (m->path && (!(m->prot & 4 /* PROT_EXEC */) || (m->path[0] != '[' && !return_site(t, native[i].pc))))) {
            *cut = native[i].sp >= top + 8 ? CUT_CHANGED : CUT_BROKEN; /* where its return address was */
            return i;
        }
        if (m->path) *u64map_upsert(names, CHECKED_KEY(native[i].pc), &found) = 1; /* a file's code stays */
    }
    if (n == max && native[n - 1].fp) *cut = CUT_DEEP;
    return n;
}

