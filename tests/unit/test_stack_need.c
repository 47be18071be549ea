/* record/stack_need.c: how much of a thread's stack its samples copy. A stack whose outer frames
 * stay put shrinks the copy to what changes (with room to spare), after some calm; a sample that
 * needs more grows it at once; a JS frame is always in the copy; two unwinds that end one frame
 * apart (frame pointers at __libc_start_call_main, CFI at _start) still share their outer frames. */
#include "check.h"
#include "record/stack_need.h"

#define SP 0x7ffe00000000ull
#define FIRST 16384u
#define MAX 32768u

/* A stack: `base` outer frames that never change (main, the event loop), under them `varying`
 * frames 256 bytes apart whose return addresses change with `round`, sp at SP. With extra, one
 * more frame further out (as CFI finds). Innermost first, as the unwinder gives them. */
static size_t stack(target_frame_t *f, int varying, int base, int round, int extra)
{
    size_t n = 0;
    f[n++] = (target_frame_t){0x1000 + (uint64_t)round, SP, SP + 64}; /* the leaf */
    for (int i = 0; i < varying; i++)
        f[n++] = (target_frame_t){0x2000 + (uint64_t)(round * 100 + i), SP + 256 * (uint64_t)(i + 1), 0};
    uint64_t at = SP + 256 * (uint64_t)(varying + 1);
    for (int i = 0; i < base; i++) f[n++] = (target_frame_t){0x9000 + (uint64_t)i, at + 512 * (uint64_t)i, 0};
    if (extra) f[n++] = (target_frame_t){0xa000, at + 512 * (uint64_t)base, 0};
    return n;
}

int main(void)
{
    target_frame_t f[128];
    stack_need_t s;

    /* 1. a shallow stack under a steady base: the copy shrinks to the minimum after the calm */
    stack_need_init(&s, FIRST, MAX);
    CHECK_EQ_INT(s.copy, FIRST);
    int shrunk_at = -1;
    for (int r = 0; r < 1000 && shrunk_at < 0; r++) {
        size_t n = stack(f, 4, 6, r, r & 1); /* the unwinds alternate in reaching _start */
        stack_need_note(&s, SP, f, n, 0);
        if (s.want != s.copy) shrunk_at = r;
    }
    CHECK(shrunk_at > 0 && shrunk_at < 200); /* two windows of 64 samples */
    CHECK_EQ_INT(s.want, 4096);
    CHECK_EQ_INT(s.short_samples, 0);
    s.copy = s.want;

    /* 2. a deeper stack: more at once, and counted as read beyond the copy */
    size_t n = stack(f, 40, 6, 5000, 0); /* varying frames up to SP + 10496 */
    stack_need_note(&s, SP, f, n, 0);
    CHECK_EQ_INT(s.short_samples, 1);
    CHECK(s.want > 10240 && s.want <= MAX);
    s.copy = s.want;

    /* 3. and it shrinks again only after twice the calm */
    shrunk_at = -1;
    for (int r = 0; r < 2000 && shrunk_at < 0; r++) {
        n = stack(f, 4, 6, r, 0);
        stack_need_note(&s, SP, f, n, 0);
        if (s.want != s.copy) shrunk_at = r;
    }
    CHECK(shrunk_at >= 4 * 64 - 1 && shrunk_at < 6 * 64);
    s.copy = s.want;

    /* 4. a JS frame far out (named from its slots) is always copied, even under a steady stack */
    for (int r = 0; r < 3; r++) {
        n = stack(f, 4, 6, 7, 0); /* the same stack every time */
        stack_need_note(&s, SP, f, n, SP + 12000);
    }
    CHECK(s.want >= 12000);

    /* 5. a stack deeper than the first copy (24 KiB of frames that change): grows past it */
    stack_need_init(&s, FIRST, MAX);
    n = stack(f, 95, 2, 1, 0); /* varying frames up to SP + 24320 */
    stack_need_note(&s, SP, f, n, 0);
    CHECK_EQ_INT(s.short_samples, 1);
    CHECK(s.want > 24320 && s.want <= MAX);

    /* 6. never more than the most, and nothing known (no frames): the most */
    stack_need_init(&s, FIRST, MAX);
    stack_need_note(&s, SP, f, 0, 0);
    CHECK_EQ_INT(s.want, MAX);
    n = stack(f, 60, 2, 1, 0); /* 15 KiB of varying frames and a JS frame much further out */
    stack_need_note(&s, SP, f, n, SP + 100000);
    CHECK_EQ_INT(s.want, MAX);
    return check_summary("test_stack_need");
}
