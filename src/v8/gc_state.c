/* Was the process collecting garbage at the moment it was stopped? A copy forked mid-GC holds a
 * heap being moved (a scavenge's forwarding pointers, a compaction's half-moved pages): objects
 * can be found twice or not at all. The main thread takes part in every GC that moves objects
 * (it waits in PerformGarbageCollection while helpers evacuate), so its native frames tell. */
#include "v8/v8_internal.h"
#include <stdlib.h>
#include <string.h>

#define GC_STACK_DEPTH 128

static int is_gc_symbol(const char *s)
{
    static const char *const gc[] = {"PerformGarbageCollection", "CollectGarbage", "Scavenger",        "ScavengeJob",
                                     "MarkCompactCollector",     "MinorMarkSweep", "MinorMarkCompact", "Evacuat"};
    for (size_t i = 0; i < sizeof gc / sizeof *gc; i++)
        if (strstr(s, gc[i])) return 1;
    return 0;
}

int v8_in_gc(v8_t *v)
{
    v8_frame_t *frames = malloc(GC_STACK_DEPTH * sizeof *frames);
    if (!frames) return 0;
    size_t n = v8_stack(v, 0, frames, GC_STACK_DEPTH);
    int in = 0;
    for (size_t i = 0; i < n && !in; i++) {
        if (frames[i].kind != V8_FRAME_NATIVE) continue;
        v8_frame_record_t r;
        v8_frame_record_facts(v->t, NULL, &frames[i], &r);
        in = r.symbol && is_gc_symbol(r.symbol);
        v8_frame_record_free(&r);
    }
    free(frames);
    return in;
}
