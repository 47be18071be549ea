/* A target made of one block of memory: the core reading path with a single segment and no
 * file, threads or modules. The fuzz targets feed the V8 decoders through it. */
#include "target/target_internal.h"
#include "util/xalloc.h"

target_t *target_open_memory(uint64_t base, const void *bytes, size_t n)
{
    target_t *t = xcalloc(1, sizeof *t);
    t->ops = &target_core_ops;
    t->name = xstrdup("memory");
    t->core = bytes;
    t->core_size = n;
    t->core_borrowed = 1;
    t->segs = xcalloc(1, sizeof *t->segs);
    t->segs[0] = (target_seg_t){ .vaddr = base, .memsz = n, .filesz = n, .offset = 0 };
    t->nsegs = 1;
    t->mods_loaded = 1;
    return t;
}
