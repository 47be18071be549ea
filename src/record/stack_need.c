/* How much of a thread's stack its samples need copied (stack_need.h). */
#include "record/stack_need.h"
#include <string.h>

#define NEED_MIN 4096u  /* a leaf's own frames and what CFI reads around them */
#define NEED_ROOM 1024u /* above the window's largest need: a deeper call than any seen */
#define WINDOW 64u      /* samples between two looks at shrinking (0.65 s at 99 Hz) */
#define CALM_FIRST 2u   /* windows without growing before the copy may shrink ... */
#define CALM_MOST 64u   /* ... twice as many after each time it had to grow, up to this */

void stack_need_init(stack_need_t *s, uint32_t first, uint32_t max)
{
    memset(s, 0, sizeof *s);
    s->copy = s->want = first;
    s->max = max;
    s->patience = CALM_FIRST;
}

/* The copy that holds need bytes with room to spare: whole KiB, NEED_MIN to max. */
static uint32_t copy_for(const stack_need_t *s, uint64_t need)
{
    uint64_t c = (need + need / 4 + NEED_ROOM + 1023) & ~1023ull;
    if (c < NEED_MIN) c = NEED_MIN;
    return c > s->max ? s->max : (uint32_t)c;
}

void stack_need_note(stack_need_t *s, uint64_t sp, const target_frame_t *native, size_t n, uint64_t js_end)
{
    /* the outermost frames the same as in the previous sample (same return address, same place),
       lined up by place: one unwind may reach a frame further out than the other (the frame
       pointers end at __libc_start_call_main, CFI at _start) */
    size_t k = 0, m = 0, inner = n; /* inner: the innermost frame of those (n: none) */
    while (k < n && m < s->nbase) {
        const target_frame_t *c = &native[n - 1 - k], *b = &s->base[m];
        if (c->sp > b->sp) k++;
        else if (b->sp > c->sp) m++;
        else if (c->pc != b->pc) break;
        else inner = n - 1 - k, k++, m++;
    }
    s->nbase = 0;
    for (size_t i = 0; i < n && i < STACK_NEED_BASE; i++) s->base[s->nbase++] = native[n - 1 - i];
    /* frame i's return address and frame pointer are read from just below its sp */
    uint64_t end = n == 0 ? sp + s->max : native[inner < n ? inner : n - 1].sp;
    if (js_end > end) end = js_end;
    uint64_t need = end > sp ? end - sp : 0;
    if (need > s->most) s->most = (uint32_t)(need < s->max ? need : s->max);
    if (need > s->copy) { /* this sample read frames that may have changed: more at once */
        s->short_samples++;
        uint32_t more = copy_for(s, need);
        if (more > s->want) s->want = more;
        s->calm = 0, s->samples = 0, s->most = 0;
        if (s->patience < CALM_MOST) s->patience *= 2; /* a stack that varies: shrink less often */
        return;
    }
    if (++s->samples < WINDOW) return;
    uint32_t less = copy_for(s, s->most);
    s->samples = 0, s->most = 0;
    if (++s->calm >= s->patience && less < s->copy && s->want == s->copy) s->want = less;
}
