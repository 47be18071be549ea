/* A target made of one block of memory: the core reading path with a single segment and no
 * file, threads or modules. The fuzz targets feed the V8 decoders through it. */
#include "target/target_internal.h"
#include "util/xalloc.h"
#include <sys/mman.h>

target_t *target_open_memory(uint64_t base, const void *bytes, size_t n)
{
    target_t *t = xcalloc(1, sizeof *t);
    t->ops = &target_core_ops;
    t->arch = arch_host();
    t->name = xstrdup("memory");
    t->core = bytes;
    t->core_size = n;
    t->core_borrowed = 1;
    t->segs = xcalloc(1, sizeof *t->segs);
    t->segs[0] = (target_seg_t){.vaddr = base, .memsz = n, .filesz = n, .offset = 0};
    t->nsegs = 1;
    t->mods_loaded = 1;
    return t;
}

/* A core is a read-only private mapping of its file: every page a read touches stays in the
 * resident set (a walk over a 1 GB heap would hold 1 GB). Dropping the mapping's pages is safe at
 * any time (they are read from the file again when touched) and costs one TLB flush, so long walks
 * call this every few tens of MB rather than once per page. Not for borrowed bytes (a memory
 * target's caller may own anonymous memory, which MADV_DONTNEED would zero), nor live targets. */
void target_release_pages(target_t *t)
{
    if (t && t->core && !t->core_borrowed && t->core_size) madvise((void *)t->core, t->core_size, MADV_DONTNEED);
}
